"""Proxies as curl does them: http_proxy / https_proxy from the environment
are used, no_proxy from the environment is honoured, and loopback is added
to it (never substituted for it). The proxy is a loopback one of the
test's own that records each request line and refuses it."""

from __future__ import annotations

import socket
import threading

import pytest

import versiongate as vg
from remote_helpers import flat_doc, server_fixture  # noqa: F401  (the server fixture)


class RecordingProxy:
    def __init__(self):
        self.lines = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                try:
                    self.lines.append(conn.makefile("rb").readline().decode(errors="replace").strip())
                    conn.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
                except OSError:
                    pass

    def close(self):
        self._listener.close()


@pytest.fixture
def proxy(monkeypatch):
    p = RecordingProxy()
    for name in ("no_proxy", "NO_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("https_proxy", "http://127.0.0.1:%d" % p.port)
    yield p
    p.close()


def check(url):
    with vg.Client(source=url, session_scope="process", timeout_ms="1500", max_stale_s="0") as c:
        with c.check("1.0.38") as r:
            return r.json()


def test_the_environments_proxy_is_used(proxy):
    r = check("https://config.corp.internal/gate.json")
    assert r["status"] == "UP_TO_DATE" and r["error"] != 0, r
    assert proxy.lines == ["CONNECT config.corp.internal:443 HTTP/1.1"], proxy.lines


@pytest.mark.parametrize("variable", ["no_proxy", "NO_PROXY"])
def test_no_proxy_from_the_environment_is_honoured(proxy, monkeypatch, variable):
    monkeypatch.setenv(variable, "config.corp.internal")
    r = check("https://config.corp.internal/gate.json")
    assert r["status"] == "UP_TO_DATE" and r["error"] != 0, r     # no DNS here: it fails open
    assert proxy.lines == [], "no_proxy was ignored: %s" % proxy.lines


def test_loopback_never_goes_through_a_proxy(proxy, server, monkeypatch):
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:%d" % proxy.port)
    monkeypatch.setenv("no_proxy", "config.corp.internal")
    server.document("direct", flat_doc())
    r = check(server.url("direct"))
    assert (r["status"], r["origin"]) == ("MANDATORY", "fresh_fetch"), r
    assert proxy.lines == [] and len(server.requests("direct")) == 1
