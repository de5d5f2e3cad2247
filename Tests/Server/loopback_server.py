#!/usr/bin/env python3
"""Loopback test server for VersionGate's hardened HTTPS transport.

Tests spawn this as a subprocess and point the library at it. It speaks
HTTP/1.1 written by hand on real sockets (optionally under TLS), because the
hostile scenarios (lying lengths, resets, endless bodies, never-ending headers)
cannot be produced by http.server.

    python3 loopback_server.py [--tls CERT KEY] [--bind 127.0.0.1|::1]
                               [--port 0] [--mode http|silent]
                               [--max-seconds 300] [--static DIR]

Contract with the parent test:
  * On start it prints exactly one line, ``{"port": N}``, to stdout and
    flushes; it never writes to stdout again (the parent need not drain it).
  * It stops by itself when its stdin reaches EOF, on SIGTERM/SIGINT, or after
    --max-seconds. So the parent MUST give it a pipe as stdin and keep the
    write end open while it wants the server alive: an inherited /dev/null or
    closed stdin (CI runs with no stdin) makes it exit at once. By hand:
    ``sleep 600 | python3 loopback_server.py``.
  * stderr carries only tracebacks of bugs in this file, never per-request
    noise (an undrained stderr pipe must not block the server).

Routing is a table (ROUTES) of path pattern -> handler. A handler gets the
connection and the parsed request and writes whatever bytes the scenario
needs; the plumbing closes the connection afterwards. Later scenarios (Remote
Config fetch, Installations, iTunes lookup, fixtures served as data) are added
with ``@route(r"pattern")`` and touch nothing else.
"""

from __future__ import annotations

import argparse
import http
import json
import os
import re
import select
import signal
import socket
import ssl
import struct
import sys
import threading
import time
import traceback
import zlib
from dataclasses import dataclass
from typing import Callable
from urllib.parse import parse_qs, urlsplit

# --- limits -----------------------------------------------------------------

MAX_HEADER_BYTES = 64 * 1024       # request line + headers; beyond -> 431
MAX_BODY_BYTES = 16 * 1024 * 1024  # request body; beyond -> 413
READ_TIMEOUT = 10.0                # waiting for the client's request
WRITE_TIMEOUT = 30.0               # a client that stops reading is dropped
HANDSHAKE_TIMEOUT = 10.0
CHUNK = 64 * 1024
TICK = 0.5                         # the drip / slow-headers pace

SERVER_NAME = "VersionGate-loopback/1"


# --- request ------------------------------------------------------------------

@dataclass
class Request:
    """One parsed client request. ``headers`` keys are lower-case; repeated
    headers are joined with ", " (as RFC 9110 allows for list headers)."""

    method: str
    target: str                    # as sent: path plus query string
    path: str                      # without the query string
    query: dict[str, list[str]]
    version: str
    headers: dict[str, str]
    body: bytes = b""

    def arg(self, name: str, default: str | None = None) -> str | None:
        values = self.query.get(name)
        return values[0] if values else default

    def as_record(self) -> dict:
        """The JSON shape used by /echo and /__requests."""
        return {
            "method": self.method,
            "path": self.target,
            "headers": dict(self.headers),
            "body": self.body.decode("utf-8", errors="replace"),
        }


class BadRequest(Exception):
    """The client's bytes are not a request we accept; answered with status."""

    def __init__(self, status: int, why: str):
        super().__init__(why)
        self.status = status


class ConnectionAborted(Exception):
    """Raised by a handler that already tore the connection down (so the
    plumbing must not try a graceful close)."""


# --- connection ---------------------------------------------------------------

class Connection:
    """A client socket with a read buffer and small write helpers.

    All writes go through ``send``; every OSError (reset, broken pipe, TLS
    EOF, timeout) propagates to the per-connection thread, which treats it as
    "the client left" and ends quietly.
    """

    def __init__(self, sock: socket.socket, is_tls: bool):
        self.sock = sock
        self.is_tls = is_tls
        self.buf = b""
        self.head_only = False     # set for HEAD requests by the plumbing

    # reading
    def _fill(self) -> bool:
        data = self.sock.recv(65536)
        if not data:
            return False
        self.buf += data
        return True

    def read_until(self, marker: bytes, limit: int) -> bytes | None:
        """Bytes up to and including ``marker``; None on EOF before it."""
        while True:
            i = self.buf.find(marker)
            if i >= 0:
                out, self.buf = self.buf[:i + len(marker)], self.buf[i + len(marker):]
                return out
            if len(self.buf) > limit:
                raise BadRequest(431, "request header section too large")
            if not self._fill():
                return None

    def read_exact(self, n: int) -> bytes:
        while len(self.buf) < n:
            if not self._fill():
                raise BadRequest(400, "body shorter than declared")
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    # writing
    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send_head(self, status: int, headers: list[tuple[str, str]],
                  reason: str | None = None) -> None:
        """Status line + headers + blank line. Adds Server and
        Connection: close (this server never keeps connections alive)."""
        if reason is None:
            reason = reason_phrase(status)
        lines = [f"HTTP/1.1 {status} {reason}", f"Server: {SERVER_NAME}"]
        lines += [f"{k}: {v}" for k, v in headers]
        if not any(k.lower() == "connection" for k, _ in headers):
            lines.append("Connection: close")
        self.send(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))

    def respond(self, status: int, body: bytes = b"",
                content_type: str = "text/plain; charset=utf-8",
                headers: list[tuple[str, str]] | None = None) -> None:
        """A complete, honest response: Content-Length matches the body.
        1xx/204/304 carry no body; HEAD gets the headers only."""
        hdrs = list(headers or [])
        if status < 200 or status in (204, 304):
            self.send_head(status, hdrs)
            return
        hdrs = [("Content-Type", content_type),
                ("Content-Length", str(len(body)))] + hdrs
        self.send_head(status, hdrs)
        if body and not self.head_only:
            self.send(body)

    def respond_json(self, status: int, obj, headers=None) -> None:
        self.respond(status, json.dumps(obj).encode() + b"\n",
                     "application/json", headers)

    # closing
    def close_gracefully(self) -> None:
        """End the exchange cleanly so the client sees every byte: TLS
        close_notify, FIN, then drain what the client still sends (closing
        with unread input would turn our FIN into an RST)."""
        sock = self.sock
        try:
            sock.settimeout(1.0)
            if self.is_tls:
                try:
                    sock = sock.unwrap()   # sends close_notify
                except (OSError, ValueError):
                    pass
            sock.shutdown(socket.SHUT_WR)
            deadline = time.monotonic() + 1.0
            while time.monotonic() < deadline:
                if not sock.recv(65536):
                    break
        except OSError:
            pass
        finally:
            close_quietly(sock)
            close_quietly(self.sock)

    def reset(self) -> None:
        """Abort with a TCP RST: SO_LINGER on with timeout 0, then close."""
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                 struct.pack("ii", 1, 0))
        except OSError:
            pass
        close_quietly(self.sock)


def close_quietly(sock) -> None:
    try:
        sock.close()
    except OSError:
        pass


def reason_phrase(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Status"


def read_request(conn: Connection) -> Request | None:
    """Parse request line, headers and a Content-Length or chunked body.
    Returns None if the client closed before sending a request."""
    head = conn.read_until(b"\r\n\r\n", MAX_HEADER_BYTES)
    if head is None:
        return None
    if len(head) > MAX_HEADER_BYTES:
        raise BadRequest(431, "request header section too large")
    lines = head[:-4].decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise BadRequest(400, "malformed request line")
    method, target, version = parts
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            raise BadRequest(400, "malformed header line")
        key, value = name.lower(), value.strip(" \t")
        headers[key] = f"{headers[key]}, {value}" if key in headers else value

    # Absolute-form targets (proxy style) are reduced to path + query.
    split = urlsplit(target)
    path = split.path or "/"
    query = parse_qs(split.query, keep_blank_values=True)
    if split.scheme:
        target = path + (f"?{split.query}" if split.query else "")

    req = Request(method, target, path, query, version, headers)
    if method == "HEAD":
        conn.head_only = True

    te = headers.get("transfer-encoding", "").lower()
    cl = headers.get("content-length")
    if te or cl is not None:
        # curl sends Expect: 100-continue before large uploads; answer it so
        # the client does not stall for its expect timeout.
        if headers.get("expect", "").lower() == "100-continue":
            conn.send(b"HTTP/1.1 100 Continue\r\n\r\n")
    if te:
        if te != "chunked":
            raise BadRequest(501, "unsupported transfer-encoding")
        req.body = read_chunked(conn)
    elif cl is not None:
        if not cl.isdigit():
            raise BadRequest(400, "bad content-length")
        n = int(cl)
        if n > MAX_BODY_BYTES:
            raise BadRequest(413, "request body too large")
        req.body = conn.read_exact(n)
    return req


def read_chunked(conn: Connection) -> bytes:
    body = b""
    while True:
        line = conn.read_until(b"\r\n", 1024)
        if line is None:
            raise BadRequest(400, "truncated chunked body")
        try:
            size = int(line.split(b";")[0].strip(), 16)
        except ValueError:
            raise BadRequest(400, "bad chunk size") from None
        if size == 0:
            while True:   # trailers, then the blank line
                t = conn.read_until(b"\r\n", MAX_HEADER_BYTES)
                if t is None or t == b"\r\n":
                    return body
        if len(body) + size > MAX_BODY_BYTES:
            raise BadRequest(413, "request body too large")
        body += conn.read_exact(size)
        conn.read_exact(2)


# --- request log ------------------------------------------------------------------

class RequestLog:
    """Every request the scenarios saw, in arrival order, so a test can
    assert what the client actually sent (headers, body, retries, backoff)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._items: list[dict] = []

    def add(self, req: Request) -> None:
        with self._lock:
            self._items.append(req.as_record())

    def snapshot(self) -> list[dict]:
        with self._lock:
            return list(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


LOG = RequestLog()


# --- routing table ----------------------------------------------------------

Handler = Callable[[Connection, Request, "re.Match[str]"], None]


@dataclass
class Route:
    pattern: "re.Pattern[str]"
    handler: Handler
    record: bool = True            # False only for the log's own endpoints


ROUTES: list[Route] = []


def route(pattern: str, record: bool = True):
    """Register ``handler(conn, req, match)`` for paths fully matching
    ``pattern`` (query string excluded). First match wins."""
    def deco(fn: Handler) -> Handler:
        ROUTES.append(Route(re.compile(pattern), fn, record))
        return fn
    return deco


def find_route(path: str) -> tuple[Route | None, "re.Match[str] | None"]:
    for r in ROUTES:
        m = r.pattern.fullmatch(path)
        if m:
            return r, m
    return None, None


def not_found(conn: Connection, req: Request, _m) -> None:
    conn.respond(404, b"not found\n")


# --- ordinary scenarios -------------------------------------------------------------

@route(r"/ok")
def h_ok(conn, req, m):
    """The baseline: a small, honest 200."""
    conn.respond(200, b"hello", "text/plain")


@route(r"/echo")
def h_echo(conn, req, m):
    """Shows the test exactly what the client sent on this request."""
    conn.respond_json(200, req.as_record())


@route(r"/status/(\d{3})")
def h_status(conn, req, m):
    """Any status code; ``?retry_after=S`` adds Retry-After (for backoff)."""
    status = int(m.group(1))
    headers = []
    retry = req.arg("retry_after")
    if retry is not None:
        if any(c in retry for c in "\r\n"):
            conn.respond(400, b"retry_after must not contain CR/LF\n")
            return
        headers.append(("Retry-After", retry))
    conn.respond(status, f"status {status}\n".encode(), headers=headers)


@route(r"/redirect")
def h_redirect(conn, req, m):
    """``?to=<url>&code=30x``: a redirect anywhere (off-host, downgrade...)."""
    to = req.arg("to")
    code = req.arg("code", "302")
    if to is None or not (code or "").isdigit() or any(c in to for c in "\r\n"):
        conn.respond(400, b"need ?to=<url> and a numeric code\n")
        return
    conn.respond(int(code), b"redirect\n", headers=[("Location", to)])


@route(r"/loop")
def h_loop(conn, req, m):
    """Redirects to itself forever: the client's hop limit must stop it."""
    conn.respond(302, b"loop\n", headers=[("Location", "/loop")])


@route(r"/hops/(\d+)")
def h_hops(conn, req, m):
    """A chain of n redirects ending in 200 ``arrived``."""
    n = int(m.group(1))
    if n > 0:
        conn.respond(302, b"hop\n", headers=[("Location", f"/hops/{n - 1}")])
    else:
        conn.respond(200, b"arrived", "text/plain")


# --- hostile scenarios --------------------------------------------------------------

@route(r"/silent")
def h_silent(conn, req, m):
    """Reads the request and never answers: the client's total timeout must
    fire. Held until the client closes or 60 s pass."""
    conn.sock.settimeout(1.0)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if not conn.sock.recv(65536):
                return
        except socket.timeout:
            continue


@route(r"/drip")
def h_drip(conn, req, m):
    """Promises 1 MB, then trickles one byte every 500 ms: a low-speed or
    total timeout must fire (no single read ever stalls long)."""
    conn.send_head(200, [("Content-Type", "application/octet-stream"),
                         ("Content-Length", "1000000")])
    for _ in range(1000000):
        time.sleep(TICK)
        conn.send(b"x")


@route(r"/slow-headers")
def h_slow_headers(conn, req, m):
    """Status line, then the header section one byte per 500 ms, forever
    (well-formed header lines that never reach the blank line)."""
    conn.send(b"HTTP/1.1 200 OK\r\n")
    n = 0
    while True:
        line = f"X-Slow-{n}: " + "a" * 48 + "\r\n"
        for b in line.encode():
            time.sleep(TICK)
            conn.send(bytes([b]))
        n += 1


def send_filler(conn, byte, total):
    """`total` copies of `byte`, CHUNK at a time."""
    block = byte * CHUNK
    while total > 0:
        n = min(CHUNK, total)
        conn.send(block[:n])
        total -= n


@route(r"/big")
def h_big(conn, req, m):
    """``?bytes=N`` (default 1 MiB) of zeros with an honest Content-Length:
    tests the client's maximum response size."""
    raw = req.arg("bytes", str(1 << 20)) or ""
    if not raw.isdigit():
        conn.respond(400, b"bytes must be a non-negative integer\n")
        return
    remaining = int(raw)
    conn.send_head(200, [("Content-Type", "application/octet-stream"),
                         ("Content-Length", str(remaining))])
    if not conn.head_only:
        send_filler(conn, b"\0", remaining)


@route(r"/chunked-endless")
def h_chunked_endless(conn, req, m):
    """A chunked body that never ends: no Content-Length to check up front."""
    conn.send_head(200, [("Content-Type", "application/octet-stream"),
                         ("Transfer-Encoding", "chunked")])
    chunk = f"{CHUNK:x}\r\n".encode() + bytes(CHUNK) + b"\r\n"
    while True:
        conn.send(chunk)


@route(r"/stream-post")
def h_stream_post(conn, req, m):
    """A realtime-style stream (Remote Config's): 200, chunked, then ``?n=N``
    (default 3, at most 100) one-line JSON messages ``?gap_ms=G`` (default
    300, at most 5000) apart, each its own chunk, the first at once; then
    the end. Each says its number, the method and how many body bytes came
    (a POST's), so a test sees order, timing and what it sent."""
    try:
        n = max(0, min(int(req.arg("n", "3") or "3"), 100))
        gap = max(0, min(int(req.arg("gap_ms", "300") or "300"), 5000)) / 1000
    except ValueError:
        conn.respond(400, b"n and gap_ms must be integers\n")
        return
    conn.send_head(200, [("Content-Type", "application/json"),
                         ("Transfer-Encoding", "chunked")])
    for i in range(n):
        if i:
            time.sleep(gap)
        line = json.dumps({"seq": i, "method": req.method,
                           "body_bytes": len(req.body)}).encode() + b"\n"
        conn.send(f"{len(line):x}\r\n".encode() + line + b"\r\n")
    conn.send(b"0\r\n\r\n")


@route(r"/length-long")
def h_length_long(conn, req, m):
    """Says 10 bytes, sends 5 MB, closes: the client must not read past 10."""
    conn.send_head(200, [("Content-Type", "text/plain"),
                         ("Content-Length", "10")])
    send_filler(conn, b"A", 5 * 1000 * 1000)


@route(r"/length-short")
def h_length_short(conn, req, m):
    """Says 100000 bytes, sends 10, closes: a truncated body is an error."""
    conn.send_head(200, [("Content-Type", "text/plain"),
                         ("Content-Length", "100000")])
    conn.send(b"0123456789")


_GZIP_BOMB: bytes | None = None
_GZIP_LOCK = threading.Lock()


def gzip_bomb() -> bytes:
    """gzip of 50 MiB of zeros (about 50 KB), built once.

    Cheap to build (a few ms, never holds 50 MiB): one MiB of zeros is
    deflated and ended with a full flush, which resets the compressor, so that
    byte-aligned piece is valid again and again; 50 copies, the final block
    and the gzip trailer (CRC-32 and length of the 50 MiB) make the member.
    """
    global _GZIP_BOMB
    with _GZIP_LOCK:
        if _GZIP_BOMB is None:
            block = bytes(1 << 20)
            z = zlib.compressobj(9, zlib.DEFLATED, -15)   # raw deflate
            piece = z.compress(block) + z.flush(zlib.Z_FULL_FLUSH)
            crc = 0
            for _ in range(50):
                crc = zlib.crc32(block, crc)
            header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
            trailer = struct.pack("<II", crc, (50 << 20) & 0xFFFFFFFF)
            _GZIP_BOMB = header + piece * 50 + z.flush() + trailer
        return _GZIP_BOMB


@route(r"/gzip-bomb")
def h_gzip_bomb(conn, req, m):
    """~50 KB on the wire, 50 MiB decoded: the size cap must apply to the
    decoded bytes, or decoding must be off."""
    body = gzip_bomb()
    conn.respond(200, body, "application/octet-stream",
                 [("Content-Encoding", "gzip")])


@route(r"/garbage")
def h_garbage(conn, req, m):
    """4 KiB of random bytes, not HTTP at all."""
    data = bytearray(os.urandom(4096))
    data[0] = 0x00   # never accidentally "H" of "HTTP/"
    conn.send(bytes(data))


@route(r"/http09")
def h_http09(conn, req, m):
    """An HTTP/0.9-style answer: no status line, no headers."""
    conn.send(b"hello\n")


@route(r"/huge-header")
def h_huge_header(conn, req, m):
    """A 200 whose one header line is 1 MiB long (CRLF excluded)."""
    value = "a" * ((1 << 20) - len("X-Huge: "))
    conn.send_head(200, [("Content-Type", "text/plain"),
                         ("Content-Length", "5"), ("X-Huge", value)])
    conn.send(b"hello")


@route(r"/reset-mid-body")
def h_reset_mid_body(conn, req, m):
    """Promises 100000 bytes, sends 1000, then aborts with a TCP RST."""
    conn.send_head(200, [("Content-Type", "application/octet-stream"),
                         ("Content-Length", "100000")])
    conn.send(b"R" * 1000)
    time.sleep(0.2)   # let the 1000 bytes reach the client before the RST
    conn.reset()
    raise ConnectionAborted


# --- log endpoints (not recorded) ------------------------------------------------

@route(r"/__requests", record=False)
def h_requests(conn, req, m):
    """GET: every request recorded so far, as a JSON list."""
    if req.method not in ("GET", "HEAD"):
        conn.respond(405, b"GET only\n", headers=[("Allow", "GET")])
        return
    conn.respond_json(200, LOG.snapshot())


@route(r"/__reset", record=False)
def h_reset(conn, req, m):
    """POST: forget every recorded request."""
    if req.method != "POST":
        conn.respond(405, b"POST only\n", headers=[("Allow", "POST")])
        return
    LOG.clear()
    conn.respond(204)


# Route modules import this module by name, also when it runs as a script.
sys.modules.setdefault("loopback_server", sys.modules[__name__])
import document_routes  # noqa: E402,F401  -- /doc/<name>, POST /__document (self-hosted gate documents)
import firebase_routes; firebase_routes.install(sys.modules[__name__])  # noqa: E402,E702 -- RC :fetch, FIS, /__firebase
import firebase_realtime_routes  # noqa: E402,F401  -- RC realtime :streamFetchInvalidations, /__realtime
import itunes_routes  # noqa: E402,F401  -- GET /lookup?bundleId=…&country=… (iTunes Lookup fixtures)
import static_routes  # noqa: E402  -- GET /static/<file> from --static DIR (a static host)


# --- serving --------------------------------------------------------------------

def serve_http(conn: Connection) -> None:
    """One request, one response, then close (keep-alive is not offered)."""
    try:
        req = read_request(conn)
    except BadRequest as e:
        conn.respond(e.status, f"{e}\n".encode())
        conn.close_gracefully()
        return
    if req is None:
        close_quietly(conn.sock)
        return
    r, m = find_route(req.path)
    if r is None or r.record:
        LOG.add(req)   # recorded before the scenario runs
    conn.sock.settimeout(WRITE_TIMEOUT)
    try:
        (r.handler if r else not_found)(conn, req, m)
    except ConnectionAborted:
        return
    conn.close_gracefully()


def serve_silent(sock: socket.socket, stop: threading.Event) -> None:
    """Never read, never write: holds the socket until the peer hangs up
    (POLLRDHUP sees that without consuming its bytes) or the server stops."""
    poller = select.poll()
    mask = getattr(select, "POLLRDHUP", 0) | select.POLLHUP | select.POLLERR
    poller.register(sock.fileno(), mask)
    while not stop.is_set():
        if poller.poll(500):
            break
    close_quietly(sock)


class Server:
    def __init__(self, args):
        self.args = args
        self.stop = threading.Event()
        self.tls: ssl.SSLContext | None = None
        if args.tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(args.tls[0], args.tls[1])
            ctx.set_alpn_protocols(["http/1.1"])   # never h2
            self.tls = ctx
        family = socket.AF_INET6 if ":" in args.bind else socket.AF_INET
        self.listener = socket.socket(family, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            self.listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        self.listener.bind((args.bind, args.port))
        self.listener.listen(128)
        self.port = self.listener.getsockname()[1]

    def accept_loop(self) -> None:
        while not self.stop.is_set():
            try:
                sock, _ = self.listener.accept()
            except OSError:
                if self.stop.is_set():
                    return
                time.sleep(0.05)
                continue
            threading.Thread(target=self.handle, args=(sock,),
                             daemon=True).start()

    def handle(self, sock: socket.socket) -> None:
        """Per-connection thread. A client that leaves at any point (reset,
        broken pipe, TLS failure, timeout) ends the thread quietly."""
        try:
            if self.args.mode == "silent":
                serve_silent(sock, self.stop)
                return
            sock.settimeout(HANDSHAKE_TIMEOUT)
            if self.tls is not None:
                sock = self.tls.wrap_socket(sock, server_side=True)
            sock.settimeout(READ_TIMEOUT)
            serve_http(Connection(sock, self.tls is not None))
        except OSError:
            close_quietly(sock)
        except Exception:
            traceback.print_exc(file=sys.stderr)
            close_quietly(sock)


def watch_stdin(stop: threading.Event) -> None:
    """The parent holds our stdin open; EOF means it closed it or died."""
    try:
        while os.read(0, 65536):
            pass
    except OSError:
        pass
    stop.set()


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    p.add_argument("--bind", default="127.0.0.1", choices=["127.0.0.1", "::1"])
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--mode", default="http", choices=["http", "silent"])
    p.add_argument("--max-seconds", type=float, default=300.0)
    p.add_argument("--static", metavar="DIR", help="serve DIR's files at /static/<file>")
    args = p.parse_args(argv)
    if args.max_seconds <= 0:
        p.error("--max-seconds must be positive")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.static:
        static_routes.ROOT.append(args.static)
    server = Server(args)
    stop = server.stop
    # os._exit, not stop.set(): Event.set from a signal handler can deadlock
    # against the main thread waiting on the same lock.
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    signal.signal(signal.SIGINT, lambda *_: os._exit(0))
    threading.Thread(target=watch_stdin, args=(stop,), daemon=True).start()
    threading.Thread(target=server.accept_loop, daemon=True).start()
    sys.stdout.write(json.dumps({"port": server.port}) + "\n")
    sys.stdout.flush()
    deadline = time.monotonic() + args.max_seconds
    while not stop.wait(0.2) and time.monotonic() < deadline:
        pass
    stop.set()
    close_quietly(server.listener)
    # Daemon threads may be blocked in sleep/send; leave without joining.
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
