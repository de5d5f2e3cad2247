"""A static host or CDN in front of one directory, as an operator publishes
to (docs/operators.md's commands run against it): GET /static/<path> serves
<dir>/<path> (subdirectories too, never ..) with an ETag (a hash of its bytes) and Cache-Control:
max-age=300, and answers 304 when If-None-Match matches. The directory is
--static DIR; without it every file is 404. Registered by one import line.

Range requests (RFC 9110, 14.2) are answered as a CDN does: one range with
206 and Content-Range, several with 206 multipart/byteranges, an
unsatisfiable one with 416, a malformed header by ignoring it (200, the
whole file). ?corrupt=1 flips the first byte of every range sent: a server
whose bytes do not match the .zsync file (the AppImage update tests)."""

from __future__ import annotations

import os
import re

import loopback_server as _srv  # noqa: E402
from document_routes import _default_etag, _etag_matches

ROOT: list[str] = []    # set by loopback_server.main from --static


@_srv.route(r"/static/((?:[A-Za-z0-9][A-Za-z0-9._-]*/)*[A-Za-z0-9][A-Za-z0-9._-]*)")
def h_static(conn, req, m):
    if req.method not in ("GET", "HEAD"):
        conn.respond(405, b"GET only\n", headers=[("Allow", "GET, HEAD")])
        return
    try:
        with open(os.path.join(ROOT[0], m.group(1)), "rb") as f:
            body = f.read()
    except (IndexError, OSError):
        conn.respond(404, b"no such file\n")
        return
    etag = _default_etag(body)
    headers = [("ETag", etag), ("Cache-Control", "max-age=300")]
    if _etag_matches(req.headers.get("if-none-match") or "", etag):
        conn.respond(304, headers=headers)
        return
    content_type = "application/json" if m.group(1).endswith(".json") else "text/plain; charset=utf-8"
    ranges = _ranges(req.headers.get("range"), len(body))
    if ranges is None:
        conn.respond(200, body, content_type, headers=headers + [("Accept-Ranges", "bytes")])
        return
    if not ranges:
        conn.respond(416, b"", headers=[("Content-Range", f"bytes */{len(body)}")])
        return
    corrupt = req.arg("corrupt") == "1"

    def part(first: int, last: int) -> bytes:
        chunk = body[first:last + 1]
        return bytes([chunk[0] ^ 0xFF]) + chunk[1:] if corrupt else chunk

    if len(ranges) == 1:
        first, last = ranges[0]
        conn.respond(206, part(first, last), content_type,
                     headers=headers + [("Content-Range", f"bytes {first}-{last}/{len(body)}")])
        return
    boundary = "VERSIONGATE_BYTERANGES"
    # As Apache writes it: every delimiter after a CRLF, the first too
    # (zsync's client waits for that CRLF; RFC 2046 allows it as an empty preamble).
    out = b""
    for first, last in ranges:
        out += (f"\r\n--{boundary}\r\nContent-Type: {content_type}\r\n"
                f"Content-Range: bytes {first}-{last}/{len(body)}\r\n\r\n").encode() + part(first, last)
    out += f"\r\n--{boundary}--\r\n".encode()
    conn.respond(206, out, f"multipart/byteranges; boundary={boundary}", headers=headers)


def _ranges(header: str | None, size: int) -> list[tuple[int, int]] | None:
    """bytes=FIRST-LAST, FIRST- and -SUFFIX, comma-separated: the satisfiable
    ones, clipped to the file ([] when none is); None when there is no Range
    header or it is malformed (then it is ignored, as RFC 9110 says)."""
    if not header or not header.startswith("bytes="):
        return None
    found = []
    for spec in header[len("bytes="):].split(","):
        match = re.fullmatch(r"\s*(\d*)-(\d*)\s*", spec)
        if not match or match.group(1) == match.group(2) == "":
            return None
        if match.group(1) == "":
            first, last = max(0, size - int(match.group(2))), size - 1
        else:
            first = int(match.group(1))
            if match.group(2) and int(match.group(2)) < first:
                return None
            last = min(int(match.group(2)), size - 1) if match.group(2) else size - 1
        if first < size:
            found.append((first, last))
    return found
