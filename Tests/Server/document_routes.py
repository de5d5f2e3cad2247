"""Self-hosted gate documents for the loopback server (docs/design.md, "Sources and the cache"):
what a static host or CDN does with ETag / If-None-Match and
Cache-Control, scripted by the test.

Registered into loopback_server's route table by its one import line; nothing
else in the server changes.

    POST /__document   {"name": "gate",              set up (or update) /doc/gate
                        "body": "{...}",             the document, served as is (a string)
                        "etag": "\"v1\"",            the ETag header; absent -> a hash of the
                                                     body, null -> no ETag at all
                        "max_age": 60,               optional: Cache-Control: max-age=60
                                                     (null/absent -> no Cache-Control)
                        "cache_control": "...",      optional: a raw Cache-Control value
                                                     (wins over max_age)
                        "delay_s": 2,                optional: every answer waits this long
                                                     first (a slow server; 0/null -> none)
                        "signature": "untrusted…",   optional: served at /doc/gate.minisig
                                                     (null -> no signature: 404)
                        "next": [ ... ]}             one-shot answers, consumed first
         -> 200 {"name", "etag", "queued"}
       Fields left out keep their previous value, except "next", which (when
       given) replaces the queue. {"name": "x", "delete": true} forgets x.
       A one-shot answer is an object:
         {"status": 429, "headers": {"Retry-After": "99999999"}, "body": "..."}
             that exact response instead of the document;
         {"delay_s": 10}
             wait, then serve the document normally (a slow server);
         {"delay_s": 10, "status": 503}   both;
         {"reset": true}
             abort the connection with a TCP RST (a flaky CDN).
    GET /__document?name=gate  -> the current set-up and how often it was served
                                  (not recorded in /__requests).

    GET /doc/<name>.minisig  the document's "signature" as text/plain (a
                       detached minisign signature), 404 when it has none;
                       one-shot answers do not apply. Recorded in /__requests.
    GET /doc/<name>/lookup  the same document, at the path an App Store
                       lookup asks (itunes_endpoint = /doc/<name>): a channel
                       and a store link scripted as a document is.
    GET /doc/<name>    the document: 200 with ETag (and Cache-Control), or 304
                       with the same headers when If-None-Match matches the
                       current ETag (RFC 9110 §13.1.2: weak comparison, lists,
                       "*"). Unknown name -> 404. Recorded in /__requests like
                       every scenario request.
"""

from __future__ import annotations

import collections
import hashlib
import json
import sys
import threading
import time


# The server module, also when it runs as a script (it registers itself
# under its name before importing its route modules).
import loopback_server as _srv  # noqa: E402

route = _srv.route

MAX_DELAY_S = 120.0


class _Document:
    def __init__(self, name: str):
        self.name = name
        self.body = b""
        self.etag: str | None = None
        self.cache_control: str | None = None
        self.signature: bytes | None = None
        self.delay_s = 0.0
        self.next: collections.deque = collections.deque()
        self.served = collections.Counter()   # "200", "304", "429", ...

    def describe(self) -> dict:
        return {"name": self.name, "etag": self.etag,
                "cache_control": self.cache_control,
                "body": self.body.decode("utf-8", "replace"),
                "queued": list(self.next), "served": dict(self.served)}


_LOCK = threading.Lock()
_DOCS: dict[str, _Document] = {}


def _default_etag(body: bytes) -> str:
    return '"%s"' % hashlib.sha256(body).hexdigest()[:16]


def _etag_matches(if_none_match: str, etag: str | None) -> bool:
    """Weak comparison (W/ ignored) against a comma-separated list or "*"."""
    if etag is None:
        return False
    want = etag[2:] if etag.startswith("W/") else etag
    for candidate in if_none_match.split(","):
        candidate = candidate.strip()
        if candidate == "*":
            return True
        if candidate.startswith("W/"):
            candidate = candidate[2:]
        if candidate == want:
            return True
    return False


def _validate_next(items) -> list[dict]:
    if not isinstance(items, list):
        raise ValueError('"next" must be a list of objects')
    out = []
    for item in items:
        if not isinstance(item, dict):
            raise ValueError('each "next" item must be an object')
        status = item.get("status")
        if status is not None and not (isinstance(status, int) and 100 <= status <= 999):
            raise ValueError("status must be an integer 100-999")
        delay = item.get("delay_s", 0)
        if not isinstance(delay, (int, float)) or not 0 <= delay <= MAX_DELAY_S:
            raise ValueError("delay_s must be a number 0-%d" % MAX_DELAY_S)
        headers = item.get("headers", {})
        if not isinstance(headers, dict) or not all(
                isinstance(k, str) and isinstance(v, str) and not any(c in k + v for c in "\r\n")
                for k, v in headers.items()):
            raise ValueError("headers must map strings to strings without CR/LF")
        if not isinstance(item.get("body", ""), str):
            raise ValueError("body must be a string")
        out.append(dict(item))
    return out


@route(r"/__document", record=False)
def h_document_control(conn, req, m):
    if req.method == "GET":
        name = req.arg("name")
        with _LOCK:
            doc = _DOCS.get(name or "")
            described = doc.describe() if doc else None
        if described is None:
            conn.respond(404, b"no such document\n")
        else:
            conn.respond_json(200, described)
        return
    if req.method != "POST":
        conn.respond(405, b"GET or POST\n", headers=[("Allow", "GET, POST")])
        return
    try:
        spec = json.loads(req.body or b"null")
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str) or not spec["name"] \
                or "/" in spec["name"]:
            raise ValueError('need a JSON object with a non-empty "name" without "/"')
        name = spec["name"]
        if spec.get("delete"):
            with _LOCK:
                _DOCS.pop(name, None)
            conn.respond_json(200, {"name": name, "deleted": True})
            return
        body = spec.get("body")
        if body is not None and not isinstance(body, str):
            raise ValueError('"body" must be a string')
        etag = spec.get("etag", ...)
        if etag is not ... and etag is not None and (not isinstance(etag, str) or any(c in etag for c in "\r\n")):
            raise ValueError('"etag" must be a string without CR/LF, or null')
        max_age = spec.get("max_age", ...)
        if max_age is not ... and max_age is not None and not (isinstance(max_age, int) and max_age >= 0):
            raise ValueError('"max_age" must be a non-negative integer or null')
        cache_control = spec.get("cache_control", ...)
        if cache_control is not ... and cache_control is not None and (
                not isinstance(cache_control, str) or any(c in cache_control for c in "\r\n")):
            raise ValueError('"cache_control" must be a string without CR/LF, or null')
        signature = spec.get("signature", ...)
        if signature is not ... and signature is not None and not isinstance(signature, str):
            raise ValueError('"signature" must be a string or null')
        delay_s = spec.get("delay_s", ...)
        if delay_s is not ... and delay_s is not None and not (
                isinstance(delay_s, (int, float)) and 0 <= delay_s <= MAX_DELAY_S):
            raise ValueError('"delay_s" must be a number of seconds from 0 to %d, or null' % MAX_DELAY_S)
        queue = _validate_next(spec["next"]) if "next" in spec else None
    except (ValueError, UnicodeDecodeError) as e:
        conn.respond(400, f"{e}\n".encode())
        return
    with _LOCK:
        doc = _DOCS.get(name)
        if doc is None:
            if body is None:
                conn.respond(400, b'a new document needs a "body"\n')
                return
            doc = _DOCS[name] = _Document(name)
        if body is not None:
            doc.body = body.encode("utf-8")
            if etag is ...:
                doc.etag = _default_etag(doc.body)
        if etag is not ...:
            doc.etag = etag
        if max_age is not ...:
            doc.cache_control = None if max_age is None else f"max-age={max_age}"
        if cache_control is not ...:
            doc.cache_control = cache_control
        if signature is not ...:
            doc.signature = None if signature is None else signature.encode("utf-8")
        if delay_s is not ...:
            doc.delay_s = float(delay_s or 0)
        if queue is not None:
            doc.next = collections.deque(queue)
        answer = {"name": name, "etag": doc.etag, "queued": len(doc.next)}
    conn.respond_json(200, answer)


@route(r"/doc/([^/]+)/lookup")
def h_document_lookup(conn, req, m):
    h_document(conn, req, m)


@route(r"/doc/([^/]+)")
def h_document(conn, req, m):
    if req.method not in ("GET", "HEAD"):
        conn.respond(405, b"GET only\n", headers=[("Allow", "GET, HEAD")])
        return
    name = m.group(1)
    with _LOCK:
        is_signature = name.endswith(".minisig") and name not in _DOCS
        signed = _DOCS.get(name[:-len(".minisig")]) if is_signature else None
        signature = signed.signature if signed is not None else None
    if is_signature:
        if signature is None:
            conn.respond(404, b"no such signature\n")
        else:
            conn.respond(200, signature, "text/plain; charset=utf-8")
        return
    with _LOCK:
        doc = _DOCS.get(name)
        if doc is None:
            one_shot = None
        else:
            one_shot = doc.next.popleft() if doc.next else None
            body, etag, cache_control, slow = doc.body, doc.etag, doc.cache_control, doc.delay_s
    if doc is None:
        conn.respond(404, b"no such document\n")
        return
    if slow > 0:
        time.sleep(slow)   # a slow server: every answer waits

    if one_shot is not None:
        delay = float(one_shot.get("delay_s", 0))
        if delay > 0:
            time.sleep(delay)   # the client may give up meanwhile: the send then fails quietly
        if one_shot.get("reset"):
            conn.reset()
            raise _srv.ConnectionAborted
        if one_shot.get("status") is not None:
            status = int(one_shot["status"])
            with _LOCK:
                doc.served[str(status)] += 1
            conn.respond(status, one_shot.get("body", "").encode("utf-8"),
                         one_shot.get("content_type", "text/plain; charset=utf-8"),
                         list(one_shot.get("headers", {}).items()))
            return

    headers = []
    if etag is not None:
        headers.append(("ETag", etag))
    if cache_control is not None:
        headers.append(("Cache-Control", cache_control))
    inm = req.headers.get("if-none-match")
    status = 304 if inm is not None and _etag_matches(inm, etag) else 200
    with _LOCK:
        doc.served[str(status)] += 1
    if status == 304:
        conn.respond(304, headers=headers)
    else:
        conn.respond(200, body, "application/json", headers)
