"""The channel's word without the wait (docs/design.md, "Asking the
channel"): a channel's answer is cached like a config, a slow store is
learned once by a helper that outlives the launch's deadline, a login burst
asks once, and a throttling store is left alone.

Real parts: the real command and library, its real helper, and a loopback
store (plain HTTP, or HTTPS with a test CA where Retry-After must count:
the library honours it only over https) that answers as slowly as a test
says and counts every request. Clocks: the real one, with cache_ttl_s of a
few seconds, or libfaketime's offset for the hour of a Retry-After."""

from __future__ import annotations

import http.server
import json
import os
import shutil
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cli_helpers import CLI, Env, run
from test_channel import APP_ID, AT, BEHIND, KINDS, document

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Server"))
from make_certs import make_certs  # noqa: E402

FAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"


class Store:
    """A loopback store: one answer per path (status, body, headers, delay),
    If-None-Match answered with 304 when the ETag matches; every request
    counted."""

    def __init__(self, certs: dict | None = None):
        self.routes: dict[str, dict] = {}
        self.requests: list[tuple[str, dict]] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                headers = {k.lower(): v for k, v in self.headers.items()}
                with outer.lock:
                    outer.requests.append((self.path, headers))
                    route = dict(outer.routes.get(self.path.split("?")[0], {"status": 404, "body": b"{}"}))
                time.sleep(route.get("delay", 0))
                status, extra = route["status"], dict(route.get("headers", {}))
                etag = route.get("etag")
                if etag:
                    extra["ETag"] = etag
                if etag and headers.get("if-none-match") == etag:
                    status, body = 304, b""
                else:
                    body = route["body"]
                self.send_response(status)
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        scheme = "http"
        if certs:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(str(certs["server_pem"]), str(certs["server_key"]))
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            scheme = "https"
        self.base = "%s://127.0.0.1:%d" % (scheme, self.server.server_address[1])
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def serve(self, path: str, body, status: int = 200, delay: float = 0, etag: str | None = None, **headers):
        with self.lock:
            self.routes[path] = {"status": status, "delay": delay, "etag": etag, "headers": headers,
                                 "body": body if isinstance(body, bytes) else json.dumps(body).encode()}

    def count(self) -> int:
        with self.lock:
            return len(self.requests)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def store():
    server = Store()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_certs(tmp_path_factory.mktemp("pki"))


@pytest.fixture
def tls_store(certs):
    server = Store(certs)
    yield server
    server.stop()


@pytest.fixture
def env(tmp_path):
    return Env(tmp_path)


def launch(env, doc, sets, version="1.0.20", timeout_ms=3000, ttl=3600, extra_env=None):
    """One launch's check: (exit code, result, seconds it took)."""
    args = ["check", "--source", doc, "--version", version, "--json",
            "--set", "timeout_ms=%d" % timeout_ms, "--set", "cache_ttl_s=%d" % ttl]
    for assignment in sets:
        args += ["--set", assignment]
    started = time.monotonic()
    proc = run(args, env.vars(**(extra_env or {})), timeout=60)
    took = time.monotonic() - started
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout), took


def entries(env) -> list[dict]:
    directory = env.cache / "versiongate"
    if not directory.is_dir():
        return []
    return [json.loads(p.read_bytes()) for p in sorted(directory.glob("channel-*.json"))]


def wait_for(predicate, seconds: float = 40.0, what: str = "") -> None:
    """Polls until `predicate()`; a bounded wait for a helper at work."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting for " + what)


def answered(env, version: str):
    return lambda: any(e.get("served") == version for e in entries(env))


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_slow_store_is_learned_once_and_never_waited_for_again(kind, store, env, tmp_path):
    """The store answers in 3 s, the launch's deadline is 1 s: the launch
    returns at its deadline with the operator's word, the helper records
    the answer after it, and the next launch decides from it at once."""
    spec = KINDS[kind]
    doc = document(tmp_path)
    store.serve(spec["path"], spec["body"](BEHIND), delay=3.0)
    code, result, took = launch(env, doc, spec["sets"](store.base), timeout_ms=1000)
    assert (code, result["rule"], result["channel_version"]) == (20, "below_minimum", None), result
    assert "goes on and keeps the answer" in result["reason"], result
    # Not a timing test: the store takes 3 s and the launch must not wait for it.
    assert took < 2.9, "the launch waited for the slow store (%.2f s)" % took
    wait_for(answered(env, BEHIND), what="the helper to record the late answer")
    assert store.count() == 1

    code, result, took = launch(env, doc, spec["sets"](store.base), timeout_ms=1000)
    print("%s: a launch deciding from the learned answer took %.1f ms" % (kind, took * 1000))
    assert (code, result["rule"], result["channel"], result["channel_version"]) == (10, "channel_behind", kind, BEHIND)
    assert store.count() == 1, "within cache_ttl_s the answer is the cache's: nothing is sent"


def test_one_app_store_lookup_serves_the_version_and_the_store_url(store, env, tmp_path):
    spec = KINDS["appstore"]
    doc = document(tmp_path)
    store.serve(spec["path"], spec["body"](BEHIND))
    code, result, _ = launch(env, doc, spec["sets"](store.base), version="1.0.35")   # OPTIONAL: no channel asked
    assert code == 10 and result["rule"] != "channel_behind"
    assert store.count() == 1, "the store URL's own lookup (no channel answer cached yet)"
    shutil.rmtree(env.cache / "versiongate")
    store.requests.clear()

    code, result, _ = launch(env, doc, spec["sets"](store.base))
    assert (code, result["channel_version"]) == (10, BEHIND), result
    assert "1500000001" in result["store_url"], result
    assert [path.split("?")[0] for path, _ in store.requests] == ["/lookup"], \
        "one exchange gives both the channel's version and the trackId"
    [entry] = entries(env)
    assert (entry["served"], entry["track_id"]) == (BEHIND, "1500000001")


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_past_the_ttl_the_stale_answer_decides_and_one_request_revalidates(kind, store, env, tmp_path):
    spec = KINDS[kind]
    doc = document(tmp_path)
    ttl = 2
    store.serve(spec["path"], spec["body"](BEHIND))
    assert launch(env, doc, spec["sets"](store.base), ttl=ttl)[0] == 10
    assert store.count() == 1
    time.sleep(ttl + 0.2)

    # The store now serves the minimum, slowly: the stale answer decides at once.
    store.serve(spec["path"], spec["body"](AT), delay=2.0)
    code, result, took = launch(env, doc, spec["sets"](store.base), ttl=ttl)
    assert (code, result["channel_version"]) == (10, BEHIND), result
    assert took < 1.9, "the stale answer waited for its revalidation (%.2f s)" % took
    wait_for(answered(env, AT), what="the background revalidation")
    assert store.count() == 2

    code, result, _ = launch(env, doc, spec["sets"](store.base), ttl=ttl)
    assert (code, result["rule"], result["channel_version"]) == (20, "below_minimum", AT), result
    assert store.count() == 2


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("delay,deadline_ms,expected", [(1.0, 4000, 10), (3.0, 1000, 20)])
def test_a_login_burst_sends_one_request(kind, delay, deadline_ms, expected, store, env, tmp_path):
    """16 launchers at once with an empty cache: one request. Within their
    deadline they all decide from its answer; past it, from the operator's
    word, and the answer is there for the next launch."""
    spec = KINDS[kind]
    doc = document(tmp_path)
    store.serve(spec["path"], spec["body"](BEHIND), delay=delay)
    args = [str(CLI), "check", "--source", str(doc), "--version", "1.0.20", "--json",
            "--set", "timeout_ms=%d" % deadline_ms]
    for assignment in spec["sets"](store.base):
        args += ["--set", assignment]
    procs = [subprocess.Popen(args, env=env.vars(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL) for _ in range(16)]
    codes = [p.wait(timeout=60) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    assert codes == [expected] * 16, codes
    wait_for(answered(env, BEHIND), what="the one question's answer")
    channel_requests = [p for p, _ in store.requests if p.split("?")[0] == spec["path"]]
    assert len(channel_requests) == 1, store.requests
    assert launch(env, doc, spec["sets"](store.base))[0] == 10
    assert len([p for p, _ in store.requests if p.split("?")[0] == spec["path"]]) == 1


def faked(offset_s: int) -> dict:
    """The command's (and its helper's) wall clock moved by `offset_s`.
    libfaketime goes first, before a sanitizer runtime scripts/proof
    preloads (fake_clock.preload_env says why)."""
    inherited = getattr(sys.modules.get("vg_sanitizer_env"), "_inherited", None) or {}
    kept = " ".join(p for p in inherited.get("LD_PRELOAD", "").replace(":", " ").split() if "libfaketime" not in p)
    env = {"LD_PRELOAD": (FAKETIME + " " + kept).strip(), "FAKETIME": "%+ds" % offset_s,
           "FAKETIME_DONT_FAKE_MONOTONIC": "1", "NO_FAKE_STAT": "1"}
    if "asan" in kept:
        options = inherited.get("ASAN_OPTIONS", "")
        env["ASAN_OPTIONS"] = (options + ":" if options else "") + "verify_asan_link_order=0"
    return env


@pytest.mark.skipif(not os.path.exists(FAKETIME), reason="libfaketime is installed by scripts/setup")
@pytest.mark.parametrize("status", [429, 503])
def test_retry_after_is_honoured_and_the_last_answer_stands(status, tls_store, certs, env, tmp_path):
    spec = KINDS["flathub"]
    doc = document(tmp_path)
    sets = spec["sets"](tls_store.base) + ["tls_ca_file=%s" % certs["ca_pem"]]
    ttl = 60

    # No answer yet: the store says wait an hour; the operator's word stands.
    tls_store.serve(spec["path"], b'{"detail":"slow down"}', status=status, **{"Retry-After": "3600"})
    code, result, _ = launch(env, doc, sets, ttl=ttl)
    assert (code, result["channel_version"]) == (20, None) and "HTTP %d" % status in result["reason"], result
    for offset in (0, ttl * 2, 3500):
        code, result, _ = launch(env, doc, sets, ttl=ttl, extra_env=faked(offset))
        assert code == 20 and "not asked for" in result["reason"], result
    assert tls_store.count() == 1, "no request until Retry-After's hour has passed, even past the TTL"

    # After the hour: asked again, and the answer learned.
    tls_store.serve(spec["path"], spec["body"](BEHIND))
    code, result, _ = launch(env, doc, sets, ttl=ttl, extra_env=faked(3700))
    assert (code, result["channel_version"]) == (10, BEHIND), result
    assert tls_store.count() == 2

    # A known answer, then throttled at its revalidation: the answer stands, nothing more is sent.
    tls_store.serve(spec["path"], b"{}", status=status, **{"Retry-After": "3600"})
    code, result, _ = launch(env, doc, sets, ttl=ttl, extra_env=faked(3700 + ttl + 5))
    assert (code, result["channel_version"]) == (10, BEHIND), result
    wait_for(lambda: tls_store.count() == 3 and any("retry_at" in e for e in entries(env)),
             what="the revalidation's 429")
    for offset in (3700 + 3 * ttl, 3700 + 3000):
        code, result, _ = launch(env, doc, sets, ttl=ttl, extra_env=faked(offset))
        assert (code, result["channel_version"]) == (10, BEHIND), result
    time.sleep(0.5)
    assert tls_store.count() == 3


def test_a_store_with_validators_gets_conditional_requests(store, env, tmp_path):
    spec = KINDS["snap"]
    doc = document(tmp_path)
    ttl = 1
    store.serve(spec["path"], spec["body"](BEHIND), etag='"v1"')
    assert launch(env, doc, spec["sets"](store.base), ttl=ttl)[0] == 10
    time.sleep(ttl + 0.2)
    assert launch(env, doc, spec["sets"](store.base), ttl=ttl)[0] == 10
    wait_for(lambda: store.count() == 2, what="the revalidation")
    assert store.requests[1][1].get("if-none-match") == '"v1"'
    wait_for(lambda: entries(env) and int(entries(env)[0]["confirmed_at"]) > 0, what="the 304's entry")
    [entry] = entries(env)
    assert (entry["served"], entry["etag"]) == (BEHIND, '"v1"') and "retry_at" not in entry, entry


def test_an_error_backs_off_with_the_operators_word(store, env, tmp_path):
    spec = KINDS["flathub"]
    doc = document(tmp_path)
    store.serve(spec["path"], b"{}", status=500)
    for _ in range(3):
        code, result, _ = launch(env, doc, spec["sets"](store.base), ttl=0)
        assert (code, result["channel_version"]) == (20, None), result
    assert store.count() == 1, "a failure backs off (2 min or more, jittered): one request"
    [entry] = entries(env)
    assert int(entry["retry_at"]) - int(time.time()) >= 55 and entry["failures"] == "1", entry


def corrupt(path: Path):
    path.write_bytes(b"\x00garbage{")


def truncate(path: Path):
    path.write_bytes(path.read_bytes()[:-7])


def another_users(path: Path):
    os.chown(path, 65534, 65534)


def another_architecture(path: Path):
    entry = json.loads(path.read_bytes())
    entry["architecture"] = "s390x"
    path.write_text(json.dumps(entry))


def another_question(path: Path):
    entry = json.loads(path.read_bytes())
    entry["key"] = entry["key"].replace(APP_ID, "org.example.Other")
    path.write_text(json.dumps(entry))


@pytest.mark.parametrize("spoil", [corrupt, truncate, another_users, another_architecture, another_question])
def test_a_bad_cached_answer_is_ignored(spoil, store, env, tmp_path):
    """A spoilt entry that would let the version run is not used: the store
    (now failing) is asked, and the operator's word stands."""
    spec = KINDS["flathub"]
    doc = document(tmp_path)
    store.serve(spec["path"], spec["body"](BEHIND))
    assert launch(env, doc, spec["sets"](store.base))[0] == 10
    [path] = sorted((env.cache / "versiongate").glob("channel-*.json"))
    spoil(path)
    store.serve(spec["path"], b"{}", status=500)
    code, result, _ = launch(env, doc, spec["sets"](store.base))
    assert (code, result["rule"], result["channel_version"]) == (20, "below_minimum", None), result
    assert store.count() == 2, "the spoilt entry was not taken for an answer"
