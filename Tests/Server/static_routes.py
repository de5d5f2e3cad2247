"""A static host or CDN in front of one directory, as an operator publishes
to (docs/operators.md's commands run against it): GET /static/<path> serves
<dir>/<path> (subdirectories too, never ..) with an ETag (a hash of its bytes) and Cache-Control:
max-age=300, and answers 304 when If-None-Match matches. The directory is
--static DIR; without it every file is 404. Registered by one import line."""

from __future__ import annotations

import os

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
    conn.respond(200, body, "application/json" if m.group(1).endswith(".json") else "text/plain; charset=utf-8",
                 headers=headers)
