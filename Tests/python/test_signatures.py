"""Signed gate documents (issue #15) through the real libversiongate.so.

Key pairs and signatures come from the real `minisign` tool (scripts/setup
installs it): `minisign -G -W` makes keys without a password, `minisign -S`
signs (prehashed "ED" by default in 0.11, legacy "Ed" with -l, the trusted
comment set with -t). Every case runs twice: on a local file beside its
`.minisig`, and on an https document served by the loopback server with its
`.minisig` (Tests/Server/document_routes.py, the "signature" field). Each
asserts the outcome (status, error code) and the reason text.

    python3 -m pytest -q -p no:cacheprovider Tests/python/test_signatures.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import versiongate as vg
from remote_helpers import Loopback, check, child_env, fetch_in_flight, flat_doc

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Server"))
from make_certs import make_certs  # noqa: E402

OK, ECONFIG, ESIGNATURE = 0, -3, -15
VERSION = "1.0.38"
#: min 1.0.39: MANDATORY for VERSION when trusted.
DOC = flat_doc("1.0.39", "1.0.41")
#: A later release of the thresholds: OPTIONAL for VERSION.
NEWER_DOC = flat_doc("1.0.37", "1.0.41")

pytestmark = pytest.mark.skipif(shutil.which("minisign") is None, reason="minisign missing: run scripts/setup")


# --------------------------------------------------------------------------
# keys and signatures, made by minisign
# --------------------------------------------------------------------------

class Key:
    def __init__(self, directory: Path, label: str):
        directory.mkdir()
        self.public = directory / (label + ".pub")
        self.secret = directory / (label + ".key")
        subprocess.run(["minisign", "-G", "-W", "-p", str(self.public), "-s", str(self.secret)],
                       check=True, capture_output=True)
        comment, self.line = self.public.read_text().splitlines()
        # "untrusted comment: minisign public key <ID>": minisign drops leading
        # zeros, the library prints all 16 hex digits.
        self.key_id = comment.rsplit(" ", 1)[1].rjust(16, "0")

    def sign(self, document: bytes, work: Path, legacy: bool = False, trusted_comment: str | None = None) -> str:
        """The .minisig text minisign writes for `document`."""
        path = work / "to-sign.json"
        path.write_bytes(document)
        args = ["minisign", "-S", "-s", str(self.secret), "-m", str(path), "-x", str(work / "out.minisig")]
        if legacy:
            args.append("-l")
        if trusted_comment is not None:
            args += ["-t", trusted_comment]
        subprocess.run(args, check=True, capture_output=True)
        return (work / "out.minisig").read_text()


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    root = tmp_path_factory.mktemp("minisign")
    return {label: Key(root / label, label) for label in ("old", "new", "stranger")}


def change_one_byte(document: str) -> str:
    assert "1.0.39" in document
    return document.replace("1.0.39", "1.0.30")   # a downgraded minimum nobody signed


def truncate(signature: str) -> str:
    return signature[:len(signature) // 2]


def alter_trusted_comment(signature: str) -> str:
    lines = signature.split("\n")
    assert lines[2].startswith("trusted comment: ")
    lines[2] += " (edited)"
    return "\n".join(lines)


#: name -> how the document, its signature and trusted_keys are made, and
#: what a check of VERSION must give: status, error and words of the reason.
CASES = {
    "valid_prehashed": dict(signer="old", expect=("MANDATORY", OK, None)),
    "valid_legacy": dict(signer="old", legacy=True, expect=("MANDATORY", OK, None)),
    "document_changed": dict(signer="old", document=change_one_byte,
                             expect=("UP_TO_DATE", ESIGNATURE, "document does not match its signature")),
    "wrong_key": dict(signer="stranger",
                      expect=("UP_TO_DATE", ESIGNATURE, "signature by unknown key id {stranger}")),
    "truncated_signature": dict(signer="old", signature=truncate,
                                expect=("UP_TO_DATE", ESIGNATURE, "signature truncated or malformed")),
    "trusted_comment_altered": dict(signer="old", signature=alter_trusted_comment,
                                    expect=("UP_TO_DATE", ESIGNATURE, "trusted comment does not match its signature")),
    "rotation_old_key": dict(signer="old", trusted=("old", "new"), expect=("MANDATORY", OK, None)),
    "rotation_new_key": dict(signer="new", trusted=("old", "new"), expect=("MANDATORY", OK, None)),
    "unsigned": dict(signer=None, expect=("UP_TO_DATE", ESIGNATURE, "signature missing")),
}


def make_case(case: dict, keys: dict, work: Path) -> tuple[str, str | None, str, tuple]:
    """(document, signature text or None, trusted_keys, expected)."""
    signature = None
    if case["signer"]:
        signature = keys[case["signer"]].sign(DOC.encode(), work, legacy=case.get("legacy", False))
        if "signature" in case:
            signature = case["signature"](signature)
    document = case.get("document", lambda d: d)(DOC)
    trusted = ",".join(keys[label].line for label in case.get("trusted", ("old",)))
    status, error, reason = case["expect"]
    if reason:
        reason = reason.format(stranger=keys["stranger"].key_id)
    return document, signature, trusted, (status, error, reason)


def assert_outcome(result: dict, expected: tuple):
    status, error, reason = expected
    assert (result["status"], result["error"]) == (status, error), result
    if reason is None:
        assert result["error_message"] is None, result
    else:
        assert reason in result["error_message"], result


# --------------------------------------------------------------------------
# fixtures: fresh XDG dirs per test, one https loopback server per module
# --------------------------------------------------------------------------

@pytest.fixture
def xdg(tmp_path, monkeypatch):
    for name in ("cache", "state", "home"):
        (tmp_path / name).mkdir(mode=0o700)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_certs(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def https(certs):
    s = Loopback(tls=(certs["server_pem"], certs["server_key"]))
    yield s
    assert s.stop() == "", "the loopback server wrote tracebacks"


def write_local(directory: Path, document: str, signature: str | None) -> Path:
    path = directory / "gate.json"
    path.write_text(document)
    signature_path = directory / "gate.json.minisig"
    if signature is None:
        signature_path.unlink(missing_ok=True)
    else:
        signature_path.write_text(signature)
    return path


# --------------------------------------------------------------------------
# the cases, local and https
# --------------------------------------------------------------------------

@pytest.mark.parametrize("case", sorted(CASES))
def test_local_file(case, keys, xdg):
    work = xdg / "work"
    work.mkdir()
    document, signature, trusted, expected = make_case(CASES[case], keys, work)
    path = write_local(xdg, document, signature)
    result = check(str(path), VERSION, trusted_keys=trusted)
    assert_outcome(result, expected)
    # Not trusted: no config at all (nothing else to fall back to).
    assert result["origin"] == ("local_document" if expected[1] == OK else "none")
    if expected[1] != OK:
        assert str(path) in result["error_message"], "the reason names the document"


@pytest.mark.parametrize("case", sorted(CASES))
def test_https_document(case, keys, xdg, https, certs):
    work = xdg / "work"
    work.mkdir()
    document, signature, trusted, expected = make_case(CASES[case], keys, work)
    name = "sig-" + case
    https.document(name, document, signature=signature)
    url = https.url(name)
    result = check(url, VERSION, trusted_keys=trusted, tls_ca_file=certs["ca_pem"])
    assert_outcome(result, expected)
    if expected[1] == OK:
        assert result["origin"] == "fresh_fetch"
    else:
        assert url + ".minisig" in result["error_message"] or url in result["error_message"]
    # The signature was fetched from beside the document (unsigned: asked for, 404).
    assert [r["path"] for r in https.requests()][-2:] == ["/doc/" + name, "/doc/" + name + ".minisig"]


def test_without_keys_the_signature_is_never_fetched(xdg, https, certs):
    https.document("sig-no-keys", DOC)
    assert check(https.url("sig-no-keys"), VERSION, tls_ca_file=certs["ca_pem"])["status"] == "MANDATORY"
    assert [r["path"] for r in https.requests()][-1] == "/doc/sig-no-keys"


# --------------------------------------------------------------------------
# rollback: an older signed document after a newer one
# --------------------------------------------------------------------------

NEW_STAMP, OLD_STAMP = 1_900_000_000, 1_800_000_000


def stamped(key: Key, document: str, stamp: int, work: Path) -> str:
    return key.sign(document.encode(), work, trusted_comment="timestamp:%d\tfile:gate.json" % stamp)


def test_local_rollback_refused(keys, xdg):
    work = xdg / "work"
    work.mkdir()
    path = write_local(xdg, NEWER_DOC, stamped(keys["old"], NEWER_DOC, NEW_STAMP, work))
    assert check(str(path), VERSION, trusted_keys=keys["old"].line)["status"] == "OPTIONAL"
    # The older release, validly signed, put back in place: refused, also by
    # a new process (the newest timestamp is kept under $XDG_STATE_HOME).
    write_local(xdg, DOC, stamped(keys["old"], DOC, OLD_STAMP, work))
    result = check(str(path), VERSION, trusted_keys=keys["old"].line)
    assert_outcome(result, ("UP_TO_DATE", ESIGNATURE, "rollback refused"))
    assert "timestamp %d" % OLD_STAMP in result["error_message"]
    assert "%d already seen" % NEW_STAMP in result["error_message"]
    # The same timestamp again is the same release: trusted.
    write_local(xdg, NEWER_DOC, stamped(keys["old"], NEWER_DOC, NEW_STAMP, work))
    assert check(str(path), VERSION, trusted_keys=keys["old"].line)["error"] == OK


def test_https_rollback_refused_falls_back_to_the_cached_trusted_config(keys, xdg, https, certs):
    work = xdg / "work"
    work.mkdir()
    url = https.url("sig-rollback")
    options = dict(trusted_keys=keys["old"].line, tls_ca_file=certs["ca_pem"], cache_ttl_s=0)
    https.document("sig-rollback", NEWER_DOC, signature=stamped(keys["old"], NEWER_DOC, NEW_STAMP, work))
    first = check(url, VERSION, **options)
    assert (first["status"], first["origin"], first["error"]) == ("OPTIONAL", "fresh_fetch", OK)
    https.document("sig-rollback", DOC, signature=stamped(keys["old"], DOC, OLD_STAMP, work))
    result = check(url, VERSION, **options)
    # Fails open to the last good trusted config, never to the older MANDATORY.
    assert (result["status"], result["origin"], result["error"]) == ("OPTIONAL", "cache_after_error", OK), result
    assert result["fetch_error"] == ESIGNATURE
    assert "rollback refused" in result["fetch_error_message"]


def test_rollback_refused_after_an_unkeyed_client_rewrote_the_cache(keys, xdg, https, certs):
    """A client of the same URL without keys fetches (and caches) whatever
    is served; the newest signed time is kept under XDG_STATE_HOME too, so
    an older signed document is still refused afterwards."""
    work = xdg / "work"
    work.mkdir()
    url = https.url("sig-rollback-rewritten")
    options = dict(trusted_keys=keys["old"].line, tls_ca_file=certs["ca_pem"], cache_ttl_s=0)
    https.document("sig-rollback-rewritten", NEWER_DOC, signature=stamped(keys["old"], NEWER_DOC, NEW_STAMP, work))
    assert check(url, VERSION, **options)["status"] == "OPTIONAL"
    https.document("sig-rollback-rewritten", DOC, signature=stamped(keys["old"], DOC, OLD_STAMP, work))
    assert check(url, VERSION, tls_ca_file=certs["ca_pem"], cache_ttl_s=0)["status"] == "MANDATORY"   # unkeyed
    result = check(url, VERSION, **options)
    assert (result["status"], result["error"]) == ("UP_TO_DATE", ESIGNATURE), result
    assert "rollback refused" in result["error_message"]


def test_https_bad_signature_falls_back_to_the_cached_trusted_config(keys, xdg, https, certs):
    work = xdg / "work"
    work.mkdir()
    url = https.url("sig-fallback")
    options = dict(trusted_keys=keys["old"].line, tls_ca_file=certs["ca_pem"], cache_ttl_s=0)
    https.document("sig-fallback", NEWER_DOC, signature=keys["old"].sign(NEWER_DOC.encode(), work))
    assert check(url, VERSION, **options)["status"] == "OPTIONAL"
    https.document("sig-fallback", DOC, signature=keys["stranger"].sign(DOC.encode(), work))
    result = check(url, VERSION, **options)
    assert (result["status"], result["origin"], result["fetch_error"]) == ("OPTIONAL", "cache_after_error", ESIGNATURE)
    assert "unknown key id " + keys["stranger"].key_id in result["fetch_error_message"]


def test_cache_from_before_keys_is_not_trusted(keys, xdg, https, certs):
    """A config cached unsigned is not a fallback once keys are set."""
    url = https.url("sig-unsigned-cache")
    https.document("sig-unsigned-cache", NEWER_DOC)
    assert check(url, VERSION, tls_ca_file=certs["ca_pem"])["status"] == "OPTIONAL"
    result = check(url, VERSION, tls_ca_file=certs["ca_pem"], trusted_keys=keys["old"].line)
    assert_outcome(result, ("UP_TO_DATE", ESIGNATURE, "signature missing"))


def test_a_fetch_shared_with_an_unkeyed_client_is_not_trusted(keys, xdg, https, certs):
    """Checks of one URL in a process meet at the login-burst lock; a
    client with keys that waits for an unkeyed client's fetch does not take
    the config it cached: it fetches for itself, and the unsigned document
    is refused."""
    name = "sig-shared-flight"
    ca = str(certs["ca_pem"])
    https.document(name, DOC, next=[{"delay_s": 1}])
    with vg.Client(source=https.url(name), session_scope="process", tls_ca_file=ca) as unkeyed:
        fetching = fetch_in_flight(unkeyed, https, name)
        result = check(https.url(name), VERSION, trusted_keys=keys["old"].line, tls_ca_file=ca, timeout_ms="10000")
        fetching.join()
    assert_outcome(result, ("UP_TO_DATE", ESIGNATURE, "signature missing"))


# --------------------------------------------------------------------------
# the defaults document, Firebase, the option, libcrypto missing
# --------------------------------------------------------------------------

def test_defaults_document_needs_a_signature_too(keys, xdg):
    work = xdg / "work"
    work.mkdir()
    path = write_local(xdg, DOC, None)
    dead = "http://127.0.0.1:9/doc/none"   # nothing listens on the discard port
    result = check(dead, VERSION, defaults=str(path), trusted_keys=keys["old"].line, timeout_ms=500)
    assert (result["status"], result["error"]) == ("UP_TO_DATE", ESIGNATURE), result
    assert "defaults: signature missing" in result["error_message"]
    write_local(xdg, DOC, keys["old"].sign(DOC.encode(), work))
    result = check(dead, VERSION, defaults=str(path), trusted_keys=keys["old"].line, timeout_ms=500)
    assert (result["status"], result["origin"]) == ("MANDATORY", "embedded_default"), result


def test_firebase_with_trusted_keys_is_a_config_error(keys, xdg):
    result = check("firebase://demo?api_key=K&app_id=1:2:linux:3", VERSION, trusted_keys=keys["old"].line)
    assert (result["status"], result["error"]) == ("UP_TO_DATE", ECONFIG)
    assert "cannot carry a detached signature" in result["error_message"]


@pytest.mark.parametrize("value", ["", "RWQ", "not base64!", "{old},", "{old},,{new}", "{old} {new}"])
def test_malformed_trusted_keys_refused(keys, value):
    value = value.format(old=keys["old"].line, new=keys["new"].line)
    with vg.Client(session_scope="process") as client:
        with pytest.raises(vg.VersionGateError) as info:
            client.set("trusted_keys", value)
    assert info.value.code == vg.Error.EINVAL


def test_libcrypto_missing_fails_open_with_a_clear_message(keys, xdg, tmp_path):
    """A libcrypto.so.3 without EVP (a stand-in found first on the library
    path): nothing verifies, the document is not trusted."""
    work = xdg / "work"
    work.mkdir()
    path = write_local(xdg, DOC, keys["old"].sign(DOC.encode(), work))
    fake = tmp_path / "fakelib"
    fake.mkdir()
    (fake / "empty.c").write_text("int vg_not_libcrypto;\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(fake / "libcrypto.so.3"), str(fake / "empty.c")], check=True)
    program = (
        "import json, versiongate as vg\n"
        "with vg.Client(source=%r, session_scope='process', trusted_keys=%r) as c, c.check(%r) as r:\n"
        "    print(json.dumps(r.json()))\n" % (str(path), keys["old"].line, VERSION))
    env = child_env(xdg / "cache", xdg / "state", LD_LIBRARY_PATH=str(fake))
    done = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    import json
    result = json.loads(done.stdout)
    assert_outcome(result, ("UP_TO_DATE", ESIGNATURE, "cannot verify"))
    assert "libcrypto.so.3 lacks EVP_" in result["error_message"]


def wait_for_refresh(lock, reached_server, seconds: float = 20) -> None:
    """Until a background refresh has reached the server and let go of the
    login-burst lock it holds while it fetches (docs/design.md, "Fewest
    burst mechanisms")."""
    import fcntl
    import time
    deadline = time.monotonic() + seconds
    while not reached_server():
        assert time.monotonic() < deadline, "the refresh never reached the server"
        time.sleep(0.02)
    with open(lock, "rb") as held:
        while True:
            try:
                fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                assert time.monotonic() < deadline, "the refresh never finished"
                time.sleep(0.02)


def test_a_background_refresh_is_held_to_the_trusted_keys(keys, xdg, https, certs):
    """The background refresh a stale check starts (the fetch helper) runs
    the same fetch with the client's trusted_keys (docs/design.md, "The
    background refresh"): a document signed by a stranger leaves the cache as it was;
    one signed by the trusted key replaces it, and the next launch decides
    from it."""
    import json
    import time
    from remote_helpers import cache_file, fnv1a64_hex
    work = xdg / "work"
    work.mkdir()
    url = https.url("sig-swr")
    options = dict(trusted_keys=keys["old"].line, tls_ca_file=certs["ca_pem"], stale_while_revalidate_s=604800)
    https.document("sig-swr", NEWER_DOC, signature=keys["old"].sign(NEWER_DOC.encode(), work))
    assert check(url, VERSION, **options)["origin"] == "fresh_fetch"
    cached = cache_file(xdg / "cache", url)
    lock = cached.parent / ("lock-" + fnv1a64_hex("document:" + url))

    def aged_then_refreshed() -> dict:
        entry = json.loads(cached.read_bytes())
        entry["fetched_at"] = str(int(time.time()) - 7200)
        cached.write_text(json.dumps(entry))
        signatures = len(https.requests("sig-swr.minisig"))
        result = check(url, VERSION, **options)
        assert (result["origin"], result["error"]) == ("stale_cache", OK), result
        wait_for_refresh(lock, lambda: len(https.requests("sig-swr.minisig")) > signatures)
        return entry

    https.document("sig-swr", DOC, signature=keys["stranger"].sign(DOC.encode(), work))
    before = aged_then_refreshed()
    assert len(https.requests("sig-swr.minisig")) == 2, "the refresher fetched the signature"
    assert json.loads(cached.read_bytes()) == before, "an untrusted document leaves the cache as it was"
    https.document("sig-swr", DOC, signature=keys["old"].sign(DOC.encode(), work))
    aged_then_refreshed()
    result = check(url, VERSION, **options)
    assert (result["status"], result["origin"]) == ("MANDATORY", "cache_hit"), result
