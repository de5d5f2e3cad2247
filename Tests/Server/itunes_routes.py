"""iTunes Lookup for the loopback server (Tests/Fixtures/PROTOCOLS.md §3 and §5.3):
``GET /lookup?bundleId=<id>&country=<cc>`` (also ``/<cc>/lookup``, the
storefront in the path) answered from the captured fixtures with Apple's
exact framing.

Registered into loopback_server's route table by its one import line; nothing
else in the server changes.

Like Apple: always HTTP 200 with ``Content-Type: text/javascript;
charset=utf-8``; the body is the ``*_raw.txt`` fixture byte for byte (leading
and trailing ``\\n\\n\\n``); an unknown bundle id or storefront gets the exact
empty body; the country is case-insensitive and defaults to US; unknown query
parameters (``lang``, ``_cb`` cache busters) are ignored.

Fixtures are read from ``$VG_FIXTURES`` when set, else from
``<repo>/Tests/Fixtures``.

    bundleId                 country  answer
    com.example.launcher     us       lookup_found_example_launcher_us_raw.txt
    com.example.launcher     de       lookup_found_example_launcher_de_stale_raw.txt
    com.facebook.Facebook    us       lookup_found_facebook_raw.txt
    (anything else)                   lookup_empty_raw.txt
  scripted scenarios (any country):
    com.example.error5xx     503 with an HTML body
    com.example.garbage      200 that is not JSON
    com.example.slow         sleeps 10 s, then the empty body
"""

from __future__ import annotations

import os
import pathlib
import sys
import time


# The server module, also when it runs as a script (it registers itself
# under its name before importing its route modules).
import loopback_server as _srv  # noqa: E402

route = _srv.route

CONTENT_TYPE = "text/javascript; charset=utf-8"
SLOW_SECONDS = 10.0

FOUND = {
    ("com.example.launcher", "us"): "lookup_found_example_launcher_us_raw.txt",
    ("com.example.launcher", "de"): "lookup_found_example_launcher_de_stale_raw.txt",
    ("com.facebook.Facebook", "us"): "lookup_found_facebook_raw.txt",
}
EMPTY = "lookup_empty_raw.txt"

ERROR_HTML = (b"<!DOCTYPE html>\n<html><head><title>503 Service Unavailable</title></head>\n"
              b"<body><h1>Service Unavailable</h1><p>Please try again later.</p></body></html>\n")
GARBAGE = b"\n\n\n{\n \"resultCount\":1,\n \"results\": [\n{\"trackId\":15000<html>\x00\xff\n"


def fixtures_dir() -> pathlib.Path:
    override = os.environ.get("VG_FIXTURES")
    if override:
        return pathlib.Path(override)
    repo = pathlib.Path(__file__).resolve().parents[2]
    return repo / "Tests" / "Fixtures"


def fixture(name: str) -> bytes:
    return (fixtures_dir() / "itunes" / name).read_bytes()


@route(r"/(?:([A-Za-z]{2})/)?lookup")
def h_lookup(conn, req, m):
    if req.method not in ("GET", "HEAD"):
        conn.respond(405, b"GET only\n", headers=[("Allow", "GET, HEAD")])
        return
    bundle_id = req.arg("bundleId", "") or ""
    country = (req.arg("country") or m.group(1) or "us").lower()

    if bundle_id == "com.example.error5xx":
        conn.respond(503, ERROR_HTML, "text/html; charset=utf-8")
        return
    if bundle_id == "com.example.garbage":
        conn.respond(200, GARBAGE, CONTENT_TYPE)
        return
    if bundle_id == "com.example.slow":
        time.sleep(SLOW_SECONDS)   # the client gives up first; the send then fails quietly
        conn.respond(200, fixture(EMPTY), CONTENT_TYPE)
        return

    name = FOUND.get((bundle_id, country), EMPTY)
    try:
        body = fixture(name)
    except OSError as e:
        # A broken checkout must fail the test loudly, not look like "not found".
        conn.respond(500, f"fixture {name} unreadable: {e}\n".encode())
        return
    conn.respond(200, body, CONTENT_TYPE)
