"""Any libcurl since 7.68 (issue 12): the library against a libcurl that
lacks CURLOPT_QUICK_EXIT (7.87) and CURLOPT_PROTOCOLS_STR (7.85).

The older libcurl is the real one behind a wrapper (old_curl/
libcurl_wrapper.c, built here with cc): a libcurl.so.4 first on the child
process's LD_LIBRARY_PATH that forwards every call the shim makes to the
real library, reports version 7.68.0, refuses the newer options as such a
libcurl does, and logs every setopt. Both Debian builds sit behind it in
turn: OpenSSL's libcurl.so.4 and GnuTLS's libcurl-gnutls.so.4 (scripts/setup
installs libcurl3-gnutls). The same wrapper with VG_CURL_AS unset changes
nothing, which checks the GnuTLS build on the normal path too.

A name server that never answers cannot be had on loopback, so
old_curl/stalled_resolver.c (LD_PRELOAD) makes getaddrinfo for one name
sleep: an older libcurl waits for that lookup's thread (curl issue #2975,
KNOWN_BUGS until QUICK_EXIT), and the check must still return by its
deadline plus 10 % (docs/design.md, "Deadlines and limits").
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import child_env
from remote_helpers import Loopback, flat_doc

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Server"))
from make_certs import make_certs  # noqa: E402

HERE = Path(__file__).resolve().parent / "old_curl"
OK, ETIMEOUT, EPOLICY = 0, -7, -10

# curl.h's option numbers and protocol bits (the wrapper logs numbers).
PROTOCOLS, REDIR_PROTOCOLS, QUICK_EXIT = 181, 182, 322
PROTOCOLS_STR, REDIR_PROTOCOLS_STR = 10318, 10319
HTTP_AND_HTTPS = 1 | 2
CURLE_OK, CURLE_UNKNOWN_OPTION = 0, 48

TIMEOUT_MS = 1000
BOUND_S = TIMEOUT_MS * 1.1 / 1000          # docs/design.md, "Deadlines and limits": deadline + 10 %


def _ldconfig_path(soname: str) -> str | None:
    listing = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True, check=True).stdout
    for line in listing.splitlines():
        name, _, target = line.strip().partition(" => ")
        if name.split(" ")[0] == soname and "x86-64" in name:
            return str(Path(target).resolve())
    return None


REAL = {"openssl": "libcurl.so.4", "gnutls": "libcurl-gnutls.so.4"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """{"wrapper_dir": dir holding the stand-in libcurl.so.4, "stall": the preload}."""
    out = tmp_path_factory.mktemp("old-curl")
    flags = ["cc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC"]
    subprocess.run(flags + ["-o", str(out / "libcurl.so.4"), str(HERE / "libcurl_wrapper.c"),
                            "-Wl,-soname,libcurl.so.4", "-ldl", "-lpthread"], check=True)
    subprocess.run(flags + ["-o", str(out / "stalled_resolver.so"), str(HERE / "stalled_resolver.c"), "-ldl"],
                   check=True)
    return {"wrapper_dir": out, "stall": out / "stalled_resolver.so"}


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_certs(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def servers(certs):
    plain, tls = Loopback(), Loopback(tls=(certs["server_pem"], certs["server_key"]))
    yield plain, tls
    assert plain.stop() == "" and tls.stop() == "", "a loopback server wrote tracebacks"


#: Runs each {"url", "version", "options"} of argv[1] on a new client and
#: prints the results with "_elapsed" (seconds the check took).
CHILD = r"""
import json, sys, time
import versiongate as vg
out = []
for c in json.loads(sys.argv[1]):
    with vg.Client(source=c["url"], session_scope="process", **c["options"]) as client:
        start = time.monotonic()
        with client.check(c["version"]) as r:
            result = r.json()
        result["_elapsed"] = time.monotonic() - start
    out.append(result)
print(json.dumps(out))
"""


def run_child(built, tmp_path, real: str, checks: list[dict], plays_old=True, stall: dict | None = None,
              refuse: tuple[int, ...] = ()):
    """The checks in a child whose libcurl.so.4 is the wrapper around `real`;
    returns (results, the setopt log as [(option, value or None, result)])."""
    path = _ldconfig_path(REAL[real])
    assert path, "%s is not installed (scripts/setup installs it)" % REAL[real]
    log = tmp_path / ("setopt-%s.log" % real)
    log.unlink(missing_ok=True)
    (tmp_path / "cache").mkdir(exist_ok=True)
    (tmp_path / "state").mkdir(exist_ok=True)
    extra = {"LD_LIBRARY_PATH": str(built["wrapper_dir"]), "VG_REAL_CURL": path, "VG_CURL_LOG": str(log),
             "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_STATE_HOME": str(tmp_path / "state")}
    if plays_old:
        extra["VG_CURL_AS"] = "7.68"
    if refuse:
        extra["VG_CURL_REFUSE"] = ",".join(map(str, refuse))
    if stall:
        # After whatever this process preloads (scripts/proof's sanitizer runtime must come first).
        preload = " ".join(filter(None, [os.environ.get("LD_PRELOAD"), str(built["stall"])]))
        extra.update({"LD_PRELOAD": preload, "VG_STALL_HOST": stall["host"],
                      "VG_STALL_SECONDS": str(stall["seconds"])})
    proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps(checks)], env=child_env(**extra),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    entries = []
    for line in log.read_text().splitlines() if log.exists() else []:
        option, value, result = line.split()
        entries.append((int(option), None if value == "-" else int(value), int(result)))
    assert entries, "the child never called the wrapper: it did not load it"
    return json.loads(proc.stdout), entries


def documents(servers, certs, tag: str) -> list[dict]:
    """One check over http (MANDATORY) and one over https (OPTIONAL)."""
    plain, tls = servers
    plain.document("plain-" + tag, flat_doc("1.0.39", "1.0.41"))
    tls.document("tls-" + tag, flat_doc("1.0.39", "1.0.41"))
    return [{"url": plain.url("plain-" + tag), "version": "1.0.38", "options": {}},
            {"url": tls.url("tls-" + tag), "version": "1.0.40",
             "options": {"tls_ca_file": str(certs["ca_pem"])}}]


def outcome(result: dict) -> tuple:
    return result["status"], result["error"], result["origin"]


@pytest.mark.parametrize("real", ["openssl", "gnutls"])
def test_an_old_curl_checks_over_http_and_https(built, servers, certs, tmp_path, real):
    results, log = run_child(built, tmp_path, real, documents(servers, certs, "old-" + real))
    assert [outcome(r) for r in results] == [("MANDATORY", OK, "fresh_fetch"), ("OPTIONAL", OK, "fresh_fetch")], results
    # the bitmask options, set and accepted, on every request; no newer option accepted
    assert log.count((PROTOCOLS, HTTP_AND_HTTPS, CURLE_OK)) == 2, log
    assert log.count((REDIR_PROTOCOLS, HTTP_AND_HTTPS, CURLE_OK)) == 2, log
    accepted = {option for option, _, result in log if result == CURLE_OK}
    assert not accepted & {QUICK_EXIT, PROTOCOLS_STR, REDIR_PROTOCOLS_STR}, log


@pytest.mark.parametrize("real", ["openssl", "gnutls"])
def test_a_current_curl_uses_the_newer_options(built, servers, certs, tmp_path, real):
    results, log = run_child(built, tmp_path, real, documents(servers, certs, "new-" + real), plays_old=False)
    assert [outcome(r) for r in results] == [("MANDATORY", OK, "fresh_fetch"), ("OPTIONAL", OK, "fresh_fetch")], results
    # Each request runs in a fetch helper of its own: its probe at load, then the request.
    assert log.count((QUICK_EXIT, 1, CURLE_OK)) == 2 * 2, log
    assert [o for o, _, result in log if o == PROTOCOLS_STR and result == CURLE_OK] == [PROTOCOLS_STR] * 2, log
    assert not {o for o, _, _ in log} & {PROTOCOLS, REDIR_PROTOCOLS}, "deprecated options set on a current curl"


@pytest.mark.parametrize("plays_old", [True, False], ids=["7.68", "current"])
def test_a_libcurl_that_cannot_restrict_protocols_is_not_used(built, servers, tmp_path, plays_old):
    """Required: with neither form of CURLOPT_PROTOCOLS accepted, no request is made."""
    plain, _ = servers
    name = "unrestricted-%s" % plays_old
    plain.document(name, flat_doc())
    results, _ = run_child(built, tmp_path, "openssl", [{"url": plain.url(name), "version": "1.0.38", "options": {}}],
                           plays_old=plays_old, refuse=(PROTOCOLS, PROTOCOLS_STR))
    [r] = results
    assert r["status"] == "UP_TO_DATE" and r["error"] != OK, r
    assert "refused CURLOPT_PROTOCOLS and CURLOPT_PROTOCOLS_STR" in r["error_message"], r
    assert plain.requests(name) == []


def test_an_old_curl_still_refuses_a_redirect_to_another_scheme(built, servers, certs, tmp_path):
    plain, tls = servers
    checks = []
    for server, target in ((plain, "ftp://127.0.0.1/gate.json"), (tls, "gopher://127.0.0.1/gate.json")):
        server.document("to-other-scheme", flat_doc(), next=[{"status": 302, "headers": {"Location": target}}])
        checks.append({"url": server.url("to-other-scheme"), "version": "1.0.38",
                       "options": {"tls_ca_file": str(certs["ca_pem"]), "max_stale_s": "0"}})
    results, _ = run_child(built, tmp_path, "openssl", checks)
    for r in results:
        assert (r["status"], r["error"]) == ("UP_TO_DATE", EPOLICY), r
        assert "refused" in r["error_message"], r
    assert len(plain.requests("to-other-scheme")) == 1 and len(tls.requests("to-other-scheme")) == 1


def _timed_out(results: list[dict]) -> list[float]:
    for r in results:
        assert (r["status"], r["error"]) == ("UP_TO_DATE", ETIMEOUT), r
    return [r["_elapsed"] for r in results]


@pytest.mark.parametrize("plays_old", [True, False], ids=["7.68", "current"])
def test_a_server_that_never_answers_returns_by_the_deadline(built, servers, tmp_path, plays_old):
    plain, _ = servers
    checks = []
    for i in range(3):
        name = "silent-%s-%d" % (plays_old, i)
        plain.document(name, flat_doc(), next=[{"delay_s": 3}])
        checks.append({"url": plain.url(name), "version": "1.0.38", "options": {"timeout_ms": str(TIMEOUT_MS)}})
    results, _ = run_child(built, tmp_path, "openssl", checks, plays_old=plays_old)
    elapsed = _timed_out(results)
    print("never-answering server, %s: %s s (median %.3f)" % (
        "7.68" if plays_old else "current", ["%.3f" % e for e in elapsed], statistics.median(elapsed)))
    assert max(elapsed) <= BOUND_S, elapsed


@pytest.mark.parametrize("plays_old", [True, False], ids=["7.68", "current"])
def test_a_name_server_that_never_answers_returns_by_the_deadline(built, tmp_path, plays_old):
    checks = [{"url": "https://stalled.invalid/gate-%d.json" % i, "version": "1.0.38",
               "options": {"timeout_ms": str(TIMEOUT_MS)}} for i in range(3)]
    results, _ = run_child(built, tmp_path, "openssl", checks, plays_old=plays_old,
                           stall={"host": "stalled.invalid", "seconds": 4})
    elapsed = _timed_out(results)
    print("stalled name server, %s: %s s (median %.3f)" % (
        "7.68" if plays_old else "current", ["%.3f" % e for e in elapsed], statistics.median(elapsed)))
    assert max(elapsed) <= BOUND_S, elapsed
