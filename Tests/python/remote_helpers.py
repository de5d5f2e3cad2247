"""Helpers for the remote-source tests: a loopback server subprocess with the
scripted gate documents of Tests/Server/document_routes.py, bounded checks
through the real library, and the cache/state file names the library uses.

Only 127.0.0.1 is ever contacted. Every check runs under a time bound (a
library hang fails the test instead of hanging the suite).

Time moves with libfaketime (fake_clock.py), never by sleeping: ``check(url,
version, now)`` freezes this process's wall clock at ``now`` for the check
and puts it back to the real time afterwards; ``fake_clock.clock().frozen_at``
does the same around anything else. The loopback server keeps the real clock.
"""

from __future__ import annotations

import http.client
import json
import os
import select
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import fake_clock
import pytest

REPO = Path(__file__).resolve().parents[2]
# The repository's build unless a variant is named (benches import this too).
os.environ.setdefault("VERSIONGATE_LIBRARY", str(REPO / "build" / "lib" / "libversiongate.so.1"))
import versiongate as vg  # noqa: E402

SERVER_DIR = REPO / "Tests" / "Server"
SERVER = SERVER_DIR / "loopback_server.py"

HOUR = 3600
DAY = 86400

#: The simulated "now" the tests start from; they walk from it (at most
#: T0 + 2 days on the clock) through fake_clock. libcurl/OpenSSL check the
#: TLS tests' certificates (Tests/Server/make_certs.py) against that faked
#: clock, so T0 must lie inside their validity. make_certs makes them during
#: the run, after this import: the CA is valid from the very second it is
#: made (`req -x509 -days 3650`; OpenSSL checks the root's dates too: before
#: it, "certificate is not yet valid" at depth 1), the leaves from a day
#: before that, all until 3650 days after. So T0 is the start of the current
#: real hour plus one day: later than any certificate made in the next 23
#: hours, and T0 + 2 days is years before they expire. (time.time() is the
#: real clock here: nothing is frozen at import.)
T0 = (int(time.time()) // HOUR + 24) * HOUR

CONTROL_TIMEOUT = 10.0


def fnv1a64_hex(text: str) -> str:
    """The library's file-name hash (FNV-1a, 64 bit, lower-case hex)."""
    h = 0xCBF29CE484222325
    for byte in text.encode("utf-8"):
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def cache_file(cache_home: Path, url: str) -> Path:
    """$XDG_CACHE_HOME/versiongate/config-<hash>.json for a document source."""
    return Path(cache_home) / "versiongate" / ("config-%s.json" % fnv1a64_hex("document:" + url))


def backoff_file(state_home: Path, url: str) -> Path:
    return Path(state_home) / "versiongate" / ("backoff-%s.json" % fnv1a64_hex("document:" + url))


def read_backoff(state_home: Path, url: str) -> dict | None:
    """{"until": int, "failures": int} or None when there is no backoff file."""
    path = backoff_file(state_home, url)
    try:
        raw = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    return {"until": int(raw["until"]), "failures": int(raw["failures"])}


def flat_doc(min_required="1.0.39", latest="1.0.41", **extra) -> str:
    doc = {"min_required_version_linux": min_required, "latest_version_linux": latest}
    doc.update(extra)
    return json.dumps(doc)


def template_doc(version_number: str, min_required: str, latest: str) -> str:
    """A Remote Config template as exported from the console."""
    return json.dumps({
        "parameters": {
            "min_required_version_linux": {"defaultValue": {"value": min_required},
                                           "valueType": "STRING"},
            "latest_version_linux": {"defaultValue": {"value": latest},
                                     "valueType": "STRING"},
        },
        "version": {"versionNumber": version_number,
                    "updateTime": "2024-05-01T12:00:00.000000Z",
                    "updateOrigin": "CONSOLE", "updateType": "INCREMENTAL_UPDATE"},
    })


class Loopback:
    """One loopback_server.py subprocess (plain http, or https with --tls).

    Its stdin is a pipe we hold; closing it stops the server."""

    def __init__(self, tls: tuple[Path, Path] | None = None, max_seconds: int = 900, static: Path | None = None):
        args = [sys.executable, str(SERVER), "--max-seconds", str(max_seconds)]
        if tls:
            args += ["--tls", str(tls[0]), str(tls[1])]
        if static:
            args += ["--static", str(static)]
        self.scheme = "https" if tls else "http"
        self.stderr = tempfile.TemporaryFile()
        # The real clock for the server: no libfaketime in its environment.
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr, cwd=str(SERVER_DIR),
                                     env=fake_clock.unfaked_env())
        ready, _, _ = select.select([self.proc.stdout], [], [], 10)
        if not ready:
            self.proc.kill()
            raise RuntimeError("loopback server printed no port line: %s" % self.errors())
        self.port = json.loads(self.proc.stdout.readline())["port"]
        self.ssl_context = None
        if tls:
            import ssl
            self.ssl_context = ssl.create_default_context(cafile=str(Path(tls[0]).parent / "ca.pem"))

    # -- lifetime ------------------------------------------------------------
    def stop(self) -> str:
        """Stop the server and return what it wrote to stderr (tracebacks)."""
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self.proc.stdout:
            self.proc.stdout.close()
        return self.errors()

    def errors(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")

    # -- URLs and control ---------------------------------------------------------
    def url(self, name: str) -> str:
        return "%s://127.0.0.1:%d/doc/%s" % (self.scheme, self.port, name)

    def _call(self, method: str, path: str, body: bytes | None = None):
        if self.scheme == "https":
            conn = http.client.HTTPSConnection("127.0.0.1", self.port, timeout=CONTROL_TIMEOUT,
                                               context=self.ssl_context)
        else:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=CONTROL_TIMEOUT)
        try:
            conn.request(method, path, body=body,
                         headers={"Content-Type": "application/json"} if body else {})
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()

    def document(self, name: str, body: str | None = None, **fields) -> dict:
        """POST /__document: set up /doc/<name> (see document_routes.py)."""
        spec = {"name": name, **fields}
        if body is not None:
            spec["body"] = body
        status, data = self._call("POST", "/__document", json.dumps(spec).encode())
        assert status == 200, data
        return json.loads(data)

    def requests(self, name: str | None = None) -> list[dict]:
        """Recorded requests, optionally only those for /doc/<name>."""
        status, data = self._call("GET", "/__requests")
        assert status == 200, data
        log = json.loads(data)
        if name is None:
            return log
        path = "/doc/" + name
        return [r for r in log if r["path"].split("?")[0] == path]


@pytest.fixture(name="server")
def server_fixture():
    """A loopback server of the test's own, stopped after it; a traceback
    the server wrote fails the test."""
    s = Loopback()
    yield s
    assert s.stop() == "", "the loopback server wrote tracebacks"


def fetch_in_flight(client, server: Loopback, name: str, version: str = "1.0.38") -> threading.Thread:
    """A thread checking `version` on `client`, returned once its request
    has reached /doc/<name> (the fetch is then in flight); join it after."""
    fetching = threading.Thread(target=lambda: client.check(version).close())
    fetching.start()
    deadline = time.monotonic() + 10
    while not server.requests(name):
        assert time.monotonic() < deadline, "the fetch never reached the server"
        time.sleep(0.01)
    return fetching


def unused_port() -> int:
    """A loopback port nothing listens on (connection refused)."""
    import socket
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Bounded:
    """Runs ``fn`` in a daemon thread and waits at most ``seconds``.

    The library releases the GIL in ctypes calls, so a hung check leaves a
    stuck thread behind but the test fails promptly with a clear message."""

    @staticmethod
    def run(fn, seconds: float, what: str):
        box: dict = {}

        def target():
            try:
                box["value"] = fn()
            except BaseException as e:   # re-raised in the test's thread
                box["error"] = e

        t = threading.Thread(target=target, daemon=True)
        start = time.monotonic()
        t.start()
        t.join(seconds)
        elapsed = time.monotonic() - start
        if t.is_alive():
            raise AssertionError("%s did not return within %.1f s (hang)" % (what, seconds))
        if "error" in box:
            raise box["error"]
        return box["value"], elapsed


def check(source: str, version: str, now: int | None = None, bound: float = 5.0,
          **options) -> dict:
    """A launcher start: a NEW client (nothing in memory), one check.

    ``now`` (Unix seconds): the wall clock is frozen there (fake_clock) from
    before the client is made until it is freed; None: the real clock.
    Returns the result JSON with "_elapsed" (seconds the check took, client
    set-up excluded) and "_code" (what vg_client_check returned) added."""
    # These checks walk the fetch-first rules (TTL, max-age, fallbacks,
    # backoff), so the stale-while-revalidate window is off unless a test
    # sets it; test_stale_while_revalidate.py covers the window.
    opts = {"session_scope": "process", "stale_while_revalidate_s": "0"}
    opts.update({k: str(v) for k, v in options.items() if v is not None})

    def run():
        with vg.Client(source=source, **opts) as client:
            start = time.monotonic()
            with client.check(version) as result:
                elapsed = time.monotonic() - start
                out = result.json()
                out["_code"] = result.code
                out["_elapsed"] = elapsed
                assert result.error == out["error"], "vg_result_error != json error"
                return out

    what = "check(%s, %s)" % (source, version)
    if now is None:
        out, _ = Bounded.run(run, bound, what)
    else:
        with fake_clock.clock().frozen_at(now):
            out, _ = Bounded.run(run, bound, what)
    return out


CHILD_LOOP = r"""
import json, sys, time
import versiongate as vg
url, version, count, options = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
summary = {"checks": 0, "errors": [], "statuses": {}, "origins": {}, "snapshots": {}}
for i in range(count):
    with vg.Client(source=url, session_scope="process", **{"stale_while_revalidate_s": "0", **options}) as c, \
            c.check(version) as r:
        j = r.json()
        code = r.code
    summary["checks"] += 1
    summary["statuses"][j["status"]] = summary["statuses"].get(j["status"], 0) + 1
    summary["origins"][j["origin"]] = summary["origins"].get(j["origin"], 0) + 1
    snap = "%s %s %s" % (j["min_required"], j["latest"], j["status"])
    summary["snapshots"][snap] = summary["snapshots"].get(snap, 0) + 1
    if j["error"] != 0 or code != 0:
        summary["errors"].append(j)
print(json.dumps(summary))
"""


def child_env(cache_home, state_home, home=None, **extra) -> dict:
    """The environment of a CHILD_LOOP process: its own XDG dirs, and this
    process's fake clock (the same clock file: what the parent sets, the
    child reads; the real time otherwise)."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "VERSIONGATE_LIBRARY": os.path.abspath(vg.LIBRARY_PATH),
        "PYTHONPATH": str(REPO / "python"),
        "PYTHONDONTWRITEBYTECODE": "1",
        "XDG_CACHE_HOME": str(cache_home),
        "XDG_STATE_HOME": str(state_home),
        "HOME": str(home or state_home),
    }
    env.update(extra)
    return fake_clock.clock().child_env(env)
