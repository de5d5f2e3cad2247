"""Rollback protection for any timestamped trusted comment (issue 22.1).

The trusted comment's `timestamp:<digits>` is a field separated by any
ASCII blank: minisign's default (a tab), an operator's `-t` with spaces, or
in the middle of other words. For each such form, signed with the real
`minisign`, an older signed document put back in place is refused by a new
process (the newest time is kept under XDG_STATE_HOME), for a local file
and over https. A comment without one (or with `timestamp:12x`) still
verifies, and the result's note, the log and `versiongate lint` say that
replays cannot be refused.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from cli_helpers import CLI
from conftest import LIB_PATH, child_env, run_check
from remote_helpers import flat_doc
from test_signatures import Key, certs, https  # noqa: F401 (the loopback https server and its PKI)

pytestmark = pytest.mark.skipif(shutil.which("minisign") is None, reason="minisign missing: run scripts/setup")

VERSION = "1.0.38"
NEWER, OLDER = flat_doc("1.0.37", "1.0.41"), flat_doc("1.0.39", "1.0.41")   # OPTIONAL, MANDATORY
NEW_STAMP, OLD_STAMP = 1_900_000_000, 1_800_000_000
ESIGNATURE = -15

#: A trusted comment for a time, in each form that carries one.
STAMPED = {
    "tab": "timestamp:%d\tfile:gate.json",
    "space": "timestamp:%d file:gate.json",
    "middle": "release 1.0.41 timestamp:%d by ci",
}
#: Forms that carry none: the signature verifies, replays cannot be refused.
UNSTAMPED = {"none": "release 1.0.41", "trailing_garbage": "timestamp:12x file:gate.json"}
REPLAY = "the trusted comment has no timestamp: replays of older signed documents cannot be refused"


@pytest.fixture(scope="module")
def key(tmp_path_factory):
    return Key(tmp_path_factory.mktemp("minisign") / "release", "release")


@pytest.fixture
def launcher(tmp_path):
    """A new process per check, with one cache and state home between them."""
    for name in ("cache", "state"):
        (tmp_path / name).mkdir(mode=0o700)
    env = child_env(XDG_CACHE_HOME=str(tmp_path / "cache"), XDG_STATE_HOME=str(tmp_path / "state"))
    return lambda source, **options: run_check(source, VERSION, env, dict(session_scope="process", **options))


def sign(key: Key, document: str, comment: str, work: Path) -> str:
    work.mkdir(exist_ok=True)
    return key.sign(document.encode(), work, trusted_comment=comment)


def publish_local(directory: Path, document: str, signature: str) -> Path:
    (directory / "gate.json").write_text(document)
    (directory / "gate.json.minisig").write_text(signature)
    return directory / "gate.json"


@pytest.mark.parametrize("form", sorted(STAMPED))
def test_a_local_rollback_is_refused_across_processes(form, key, launcher, tmp_path):
    comment = STAMPED[form]
    path = publish_local(tmp_path, NEWER, sign(key, NEWER, comment % NEW_STAMP, tmp_path / "work"))
    first = launcher(str(path), trusted_keys=key.line)
    assert (first["status"], first["error"], first["note"]) == ("OPTIONAL", 0, None), first
    publish_local(tmp_path, OLDER, sign(key, OLDER, comment % OLD_STAMP, tmp_path / "work"))
    replayed = launcher(str(path), trusted_keys=key.line)
    assert (replayed["status"], replayed["error"]) == ("UP_TO_DATE", ESIGNATURE), replayed
    assert "rollback refused" in replayed["error_message"] and "%d already seen" % NEW_STAMP in replayed["error_message"]


@pytest.mark.parametrize("form", sorted(STAMPED))
def test_an_https_rollback_is_refused_across_processes(form, key, launcher, https, certs, tmp_path):
    comment, name = STAMPED[form], "stamped-" + form
    options = dict(trusted_keys=key.line, tls_ca_file=str(certs["ca_pem"]), cache_ttl_s="0", stale_while_revalidate_s="0")
    https.document(name, NEWER, signature=sign(key, NEWER, comment % NEW_STAMP, tmp_path / "work"))
    first = launcher(https.url(name), **options)
    assert (first["status"], first["origin"], first["error"]) == ("OPTIONAL", "fresh_fetch", 0), first
    https.document(name, OLDER, signature=sign(key, OLDER, comment % OLD_STAMP, tmp_path / "work"))
    replayed = launcher(https.url(name), **options)
    # The last trusted config stands, never the older MANDATORY.
    assert (replayed["status"], replayed["origin"]) == ("OPTIONAL", "cache_after_error"), replayed
    assert replayed["fetch_error"] == ESIGNATURE and "rollback refused" in replayed["fetch_error_message"]


@pytest.mark.parametrize("form", sorted(UNSTAMPED))
def test_without_a_timestamp_it_verifies_and_says_replays_cannot_be_refused(form, key, launcher, tmp_path):
    path = publish_local(tmp_path, OLDER, sign(key, OLDER, UNSTAMPED[form], tmp_path / "work"))
    result = launcher(str(path), trusted_keys=key.line)
    assert (result["status"], result["error"]) == ("MANDATORY", 0), result
    assert REPLAY in (result["note"] or ""), result
    # Nothing to refuse a replay with: the newer one and then the older both pass.
    publish_local(tmp_path, NEWER, sign(key, NEWER, UNSTAMPED[form], tmp_path / "work"))
    assert launcher(str(path), trusted_keys=key.line)["status"] == "OPTIONAL"
    publish_local(tmp_path, OLDER, sign(key, OLDER, UNSTAMPED[form], tmp_path / "work"))
    assert launcher(str(path), trusted_keys=key.line)["status"] == "MANDATORY"

    env = {"LD_LIBRARY_PATH": str(Path(LIB_PATH).resolve().parent), "PATH": "/usr/bin:/bin"}
    verbose = subprocess.run([str(CLI), "check", "--source", str(path), "--version", VERSION,
                              "--set", "trusted_keys=" + key.line, "--set", "session_scope=process", "--verbose"],
                             env=dict(env, XDG_STATE_HOME=str(tmp_path / "state"), HOME=str(tmp_path)),
                             capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert REPLAY in verbose.stderr, verbose.stderr
    lint = subprocess.run([str(CLI), "lint", str(path)], env=env, capture_output=True, text=True, timeout=30)
    assert lint.returncode == 1 and REPLAY in lint.stdout, lint.stdout + lint.stderr


def test_lint_is_quiet_about_a_stamped_signature(key, tmp_path):
    path = publish_local(tmp_path, NEWER, sign(key, NEWER, STAMPED["space"] % NEW_STAMP, tmp_path / "work"))
    env = {"LD_LIBRARY_PATH": str(Path(LIB_PATH).resolve().parent), "PATH": "/usr/bin:/bin"}
    lint = subprocess.run([str(CLI), "lint", str(path)], env=env, capture_output=True, text=True, timeout=30)
    assert (lint.returncode, lint.stdout) == (0, ""), lint.stdout + lint.stderr
    (tmp_path / "gate.json.minisig").write_text("untrusted comment: x\nnot base64\n")
    lint = subprocess.run([str(CLI), "lint", str(path)], env=env, capture_output=True, text=True, timeout=30)
    assert lint.returncode == 1 and "signature truncated or malformed" in lint.stdout, lint.stdout
