"""Self-test of the loopback server, with Python's own http.client and ssl.

    python3 -m pytest Tests/Server

Checks the server before the library's tests lean on it: that each scenario
sends what it claims, that TLS verification succeeds against ca.pem and fails
for the wrong-host, expired and untrusted certificates, and that the server
stops by itself. Every socket operation has a timeout of at most 5 s, every
server is stopped in a fixture, and only 127.0.0.1 / ::1 are used.
"""

from __future__ import annotations

import http.client
import json
import select
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SERVER = HERE / "loopback_server.py"
sys.path.insert(0, str(HERE))
from make_certs import make_certs  # noqa: E402

TIMEOUT = 5.0


class Loopback:
    """One server subprocess. Its stdin is a pipe we hold: closing it is how
    the server is told to stop (and how it notices if pytest dies)."""

    def __init__(self, *args: str):
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [sys.executable, str(SERVER), "--max-seconds", "60", *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr)
        ready, _, _ = select.select([self.proc.stdout], [], [], TIMEOUT)
        if not ready:
            self.proc.kill()
            raise RuntimeError("server printed no port line")
        self.port = json.loads(self.proc.stdout.readline())["port"]
        self.host = "::1" if "::1" in args else "127.0.0.1"

    def stop(self) -> str:
        """Close stdin, wait, and return whatever the server wrote to stderr
        (which should be nothing: it only ever writes tracebacks)."""
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            rc = self.proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(TIMEOUT)
            raise AssertionError("server did not stop on stdin EOF")
        self.proc.stdout.close()
        self.stderr.seek(0)
        err = self.stderr.read().decode(errors="replace")
        self.stderr.close()
        assert rc == 0, err
        return err

    # clients
    def http(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT)

    def get(self, path: str, method: str = "GET", body=None, headers=None):
        conn = self.http()
        try:
            conn.request(method, path, body=body, headers=headers or {})
            resp = conn.getresponse()
            return resp.status, dict(resp.getheaders()), resp.read()
        finally:
            conn.close()

    def raw(self, path: str) -> socket.socket:
        """A plain socket that has sent ``GET path``; caller closes it."""
        s = socket.create_connection((self.host, self.port), timeout=TIMEOUT)
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        return s


def read_all(s: socket.socket, limit: int = 1 << 24) -> bytes:
    data = b""
    while len(data) < limit:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def read_head(s: socket.socket) -> tuple[bytes, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        assert chunk, "closed before the end of the headers"
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


@pytest.fixture(scope="session")
def certs(tmp_path_factory):
    return make_certs(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def srv():
    s = Loopback()
    yield s
    assert s.stop() == ""


def client_ctx(certs) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=str(certs["ca_pem"]))
    ctx.check_hostname = True
    return ctx


# --- ordinary scenarios ---------------------------------------------------------

def test_ok(srv):
    status, headers, body = srv.get("/ok")
    assert (status, body) == (200, b"hello")
    assert headers["Content-Type"] == "text/plain"
    assert headers["Content-Length"] == "5"
    assert headers["Connection"] == "close"


def test_echo(srv):
    status, headers, body = srv.get("/echo?a=1", "POST", b"{\"x\": 1}",
                                    {"X-Test": "Yes", "Content-Type": "application/json"})
    assert status == 200 and headers["Content-Type"] == "application/json"
    got = json.loads(body)
    assert got["method"] == "POST" and got["path"] == "/echo?a=1"
    assert got["headers"]["x-test"] == "Yes"
    assert got["body"] == "{\"x\": 1}"


@pytest.mark.parametrize("path,status,retry", [
    ("/status/503?retry_after=7", 503, "7"),
    ("/status/429", 429, None),
    ("/status/500?retry_after=Wed,%2021%20Oct%202015%2007:28:00%20GMT", 500,
     "Wed, 21 Oct 2015 07:28:00 GMT"),
])
def test_status(srv, path, status, retry):
    got, headers, body = srv.get(path)
    assert got == status and body
    assert headers.get("Retry-After") == retry


def test_unknown_path_is_404(srv):
    assert srv.get("/no/such/thing")[0] == 404


def test_hops_and_loop(srv):
    path, seen = "/hops/3", []
    for _ in range(10):
        status, headers, body = srv.get(path)
        seen.append(status)
        if status != 302:
            break
        path = headers["Location"]
    assert seen == [302, 302, 302, 200] and body == b"arrived"
    status, headers, _ = srv.get("/loop")
    assert (status, headers["Location"]) == (302, "/loop")


def test_redirect(srv):
    status, headers, _ = srv.get(
        "/redirect?to=http%3A%2F%2F127.0.0.1%3A1%2Fx%3Fy%3Dz&code=307")
    assert (status, headers["Location"]) == (307, "http://127.0.0.1:1/x?y=z")


def test_gzip_bomb_is_small_on_the_wire_and_huge_decoded(srv):
    status, headers, body = srv.get("/gzip-bomb")
    assert status == 200 and headers["Content-Encoding"] == "gzip"
    assert int(headers["Content-Length"]) == len(body) < 100_000
    d, total = zlib.decompressobj(31), 0
    for i in range(0, len(body), 4096):
        total += len(d.decompress(body[i:i + 4096]))
    total += len(d.flush())
    assert d.eof and total == 50 * 1024 * 1024   # trailer CRC/length checked


def test_request_log(srv):
    assert srv.get("/__reset", "POST")[0] == 204
    srv.get("/ok", headers={"X-One": "1"})
    srv.get("/status/418", "PUT", b"payload")
    srv.get("/missing")
    status, _, body = srv.get("/__requests")
    assert status == 200
    log = json.loads(body)
    assert [(r["method"], r["path"]) for r in log] == [
        ("GET", "/ok"), ("PUT", "/status/418"), ("GET", "/missing")]
    assert log[0]["headers"]["x-one"] == "1"
    assert log[1]["body"] == "payload"
    assert srv.get("/__requests", "POST")[0] == 405


# --- hostile scenarios ----------------------------------------------------------

def test_big_is_honest(srv):
    status, headers, body = srv.get("/big?bytes=300000")
    assert status == 200 and headers["Content-Length"] == "300000"
    assert body == bytes(300000)


def test_length_short_truncates(srv):
    conn = srv.http()
    try:
        conn.request("GET", "/length-short")
        resp = conn.getresponse()
        with pytest.raises(http.client.IncompleteRead) as e:
            resp.read()
        assert e.value.partial == b"0123456789"
    finally:
        conn.close()


def test_length_long_sends_more_than_declared(srv):
    with srv.raw("/length-long") as s:
        head, rest = read_head(s)
        assert b"Content-Length: 10" in head
        assert len(rest + read_all(s)) == 5_000_000


def test_reset_mid_body(srv):
    with srv.raw("/reset-mid-body") as s:
        head, data = read_head(s)
        assert b"Content-Length: 100000" in head
        with pytest.raises(ConnectionResetError):
            while True:
                chunk = s.recv(65536)
                assert chunk, "got FIN instead of RST"
                data += chunk
        assert len(data) == 1000


def test_http09_and_garbage(srv):
    with srv.raw("/http09") as s:
        assert read_all(s) == b"hello\n"
    with srv.raw("/garbage") as s:
        data = read_all(s)
        assert len(data) == 4096 and not data.startswith(b"HTTP")


def test_huge_header(srv):
    with srv.raw("/huge-header") as s:
        head, _ = read_head(s)
        longest = max(head.split(b"\r\n"), key=len)
        assert longest.startswith(b"X-Huge: ") and len(longest) == 1 << 20


def test_chunked_endless_keeps_going(srv):
    with srv.raw("/chunked-endless") as s:
        head, data = read_head(s)
        assert b"Transfer-Encoding: chunked" in head
        while len(data) < 1_000_000:
            data += s.recv(65536)
        assert data.startswith(b"10000\r\n\0")


def test_drip_and_slow_headers_trickle(srv):
    with srv.raw("/drip") as s:
        head, rest = read_head(s)
        assert b"Content-Length: 1000000" in head
        assert rest == b""
        s.settimeout(0.2)
        with pytest.raises(socket.timeout):   # the first byte is 500 ms away
            s.recv(10)
        s.settimeout(1.0)
        assert s.recv(10) == b"x"             # then exactly one byte
    with srv.raw("/slow-headers") as s:
        s.settimeout(1.2)
        got, deadline = b"", time.monotonic() + 1.2
        try:
            while time.monotonic() < deadline:
                got += s.recv(100)
        except socket.timeout:
            pass
        assert got.startswith(b"HTTP/1.1 200 OK\r\n")
        assert 0 < len(got) - len(b"HTTP/1.1 200 OK\r\n") <= 4


def test_silent_route_never_answers(srv):
    with srv.raw("/silent") as s:
        s.settimeout(0.5)
        with pytest.raises(socket.timeout):
            s.recv(1)


def test_silent_mode_never_answers(certs):
    s = Loopback("--mode", "silent")
    try:
        with socket.create_connection(("127.0.0.1", s.port), timeout=0.5) as c:
            c.sendall(b"GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
            with pytest.raises(socket.timeout):
                c.recv(1)
        with socket.create_connection(("127.0.0.1", s.port), timeout=0.5) as c:
            with pytest.raises(socket.timeout):   # handshake never completes
                client_ctx(certs).wrap_socket(c, server_hostname="127.0.0.1")
    finally:
        assert s.stop() == ""


# --- TLS ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tls_servers(certs):
    servers = {name: Loopback("--tls", str(certs[f"{name}_pem"]),
                              str(certs[f"{name}_key"]))
               for name in ("server", "wronghost", "expired", "untrusted")}
    yield servers
    for s in servers.values():
        assert s.stop() == ""


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_tls_verifies_with_test_ca(certs, tls_servers, host):
    conn = http.client.HTTPSConnection(host, tls_servers["server"].port,
                                       timeout=TIMEOUT, context=client_ctx(certs))
    try:
        conn.request("GET", "/ok")
        assert conn.sock.version() in ("TLSv1.2", "TLSv1.3")
        resp = conn.getresponse()
        assert (resp.status, resp.read()) == (200, b"hello")
    finally:
        conn.close()


@pytest.mark.parametrize("name,verify_code", [
    ("wronghost", 64),   # X509_V_ERR_IP_ADDRESS_MISMATCH (we dial 127.0.0.1)
    ("expired", 10),     # X509_V_ERR_CERT_HAS_EXPIRED
    ("untrusted", 20),   # X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY
])
def test_tls_rejects_bad_certificates(certs, tls_servers, name, verify_code):
    conn = http.client.HTTPSConnection("127.0.0.1", tls_servers[name].port,
                                       timeout=TIMEOUT, context=client_ctx(certs))
    try:
        with pytest.raises(ssl.SSLCertVerificationError) as e:
            conn.request("GET", "/ok")
        assert e.value.verify_code == verify_code
    finally:
        conn.close()


def test_tls_over_ipv6(certs):
    if not socket.has_ipv6:
        pytest.skip("no IPv6")
    try:
        s = Loopback("--bind", "::1", "--tls", str(certs["server_pem"]),
                     str(certs["server_key"]))
    except (RuntimeError, json.JSONDecodeError):
        pytest.skip("cannot bind ::1 here")
    try:
        conn = http.client.HTTPSConnection("::1", s.port, timeout=TIMEOUT,
                                           context=client_ctx(certs))
        conn.request("GET", "/hops/1")
        resp = conn.getresponse()
        assert (resp.status, resp.getheader("Location")) == (302, "/hops/0")
        conn.close()
    finally:
        assert s.stop() == ""


# --- lifecycle ------------------------------------------------------------------

def test_stops_on_stdin_eof():
    s = Loopback()
    start = time.monotonic()
    assert s.stop() == ""
    assert time.monotonic() - start < 2


def test_stops_on_sigterm():
    s = Loopback()
    s.proc.send_signal(signal.SIGTERM)
    assert s.proc.wait(TIMEOUT) == 0
    s.stop()


def test_stops_after_max_seconds():
    s = subprocess.Popen([sys.executable, str(SERVER), "--max-seconds", "0.5"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert json.loads(s.stdout.readline())["port"] > 0
        assert s.wait(TIMEOUT) == 0   # stdin still open: the clock stopped it
    finally:
        s.kill()
        s.wait(TIMEOUT)
        s.stdin.close()
        s.stdout.close()
