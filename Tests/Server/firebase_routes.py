"""Firebase Remote Config fetch and Firebase Installations on the loopback
server, as Tests/Fixtures/PROTOCOLS.md §5 describes a faithful fake.

loopback_server.py calls ``install(module)`` once; this adds the routes and
makes the request log record gzip bodies decompressed.

Routes (all POST; the API key from ``?key=`` or ``X-Goog-Api-Key``: missing
-> 403 PERMISSION_DENIED, not the configured one -> 400 API_KEY_INVALID):

  /v1/projects/{p}/namespaces/{ns}:fetch            (also %3Afetch)
      body: strict JSON or the iOS lenient form, gzip detected by its magic
      bytes, camelCase or snake_case keys; appId and appInstanceId required
      (400). 200 + ETag: UPDATE with the template's entries, NO_CHANGE when
      If-None-Match is the current ETag (never 304), EMPTY_CONFIG when the
      template has no entries, NO_TEMPLATE when there is no template.
  /v1/projects/{p}/installations                    FIS create
  /v1/projects/{p}/installations/{fid}/authTokens:generate
      needs ``Authorization: FIS_v2 <refreshToken>`` (else 401; unknown fid 404)

Control (not recorded): GET /__firebase -> the state; POST /__firebase with a
JSON object, each key optional, applied in this order:
  "reset": true             back to the defaults (key, template, queues, FIS)
  "api_key": "..."          the accepted key (default "test-api-key")
  "template": {"entries": {...}, "templateVersion": "43"} | null
                            templateVersion left out = the previous one + 1;
                            null = no template (NO_TEMPLATE)
  "next": [step, ...]       appended; each fetch consumes one, before anything
                            else (even before the key check)
  "fis": {"fail": bool, "status": 500, "delay_ms": 0, "expires_in": "604800s",
          "assign_fid": "..."|null, "next": [step, ...], "forget": true}
                            fail: every FIS call answers `status` with Google's
                            error JSON; forget: drop every registered
                            installation (generate then answers 404)
A step: {"status": 200, "state": "NO_TEMPLATE", "body_fixture": "errors/x.json",
"body": <JSON, or a string sent raw>, "headers": {...}, "etag": "..."|null,
"content_type": "...", "delay_ms": 0}. Without state/body_fixture/body a 200
is the normal answer and any other status Google's error JSON for it (502: an
HTML page). A fetch step's 200 carries the current ETag unless "etag" says
otherwise. In fis.next a 200 needs a "body" (FIS steps never add an ETag).
Fixtures come from <repo>/Tests/Fixtures, or $VG_FIXTURES.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import secrets
import threading
import time
import zlib
from pathlib import Path
from urllib.parse import unquote

FIXTURES = (Path(os.environ["VG_FIXTURES"]) if os.environ.get("VG_FIXTURES")
            else Path(__file__).resolve().parents[2] / "Tests" / "Fixtures")
JSON_TYPE = "application/json; charset=UTF-8"
MAX_INFLATED = 16 * 1024 * 1024
MAX_DELAY_MS = 60_000
FID_RE = re.compile(r"[cdef][A-Za-z0-9_-]{21}")
DEFAULT_API_KEY = "test-api-key"
DEFAULT_TEMPLATE = {   # fixtures/firebase_fetch/response_200_update.json
    "entries": {
        "latest_version_linux": "2.4.1",
        "min_required_version_linux": "2.1.0",
        "update_message": "Version 2.4.1 fixes a crash when launching games "
                          "from the library. Please update.",
    },
    "templateVersion": "42",
}
CANONICAL = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
             404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED", 409: "ALREADY_EXISTS",
             429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 501: "NOT_IMPLEMENTED",
             503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}
ERROR_FIXTURES = {429: "errors/rc_429_resource_exhausted.json", 500: "errors/rc_500_internal.json",
                  503: "errors/rc_503_unavailable.json"}
STEP_KEYS = {"status", "state", "body_fixture", "body", "headers", "etag", "content_type", "delay_ms"}
FIS_KEYS = {"fail", "status", "delay_ms", "expires_in", "assign_fid", "next", "forget"}


class State:
    """Everything the routes share; one lock around it."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.api_key = DEFAULT_API_KEY
        self.template = json.loads(json.dumps(DEFAULT_TEMPLATE))
        self.next: list[dict] = []
        self.fis = {"fail": False, "status": 500, "delay_ms": 0, "expires_in": "604800s",
                    "assign_fid": None}
        self.fis_next: list[dict] = []
        self.installations: dict[str, str] = {}    # fid -> refresh token
        self.tokens: list[str] = []                 # auth tokens handed out

    def etag(self) -> str | None:
        if self.template is None:
            return None
        digest = hashlib.sha256(json.dumps(self.template, sort_keys=True).encode()).hexdigest()
        return f"etag-{self.template.get('templateVersion')}-{digest[:12]}"

    def snapshot(self) -> dict:
        return {"api_key": self.api_key, "template": self.template, "etag": self.etag(),
                "pending": len(self.next),
                "fis": dict(self.fis, pending=len(self.fis_next),
                            installations=dict(self.installations), tokens=list(self.tokens))}


STATE = State()


class Refused(Exception):
    """A control request we will not apply; answered 400 with the reason."""


# --- helpers -------------------------------------------------------------------

def fixture(name: str) -> bytes:
    path = (FIXTURES / name).resolve()
    if FIXTURES.resolve() not in path.parents or not path.is_file():
        raise Refused(f"no fixture {name!r} under {FIXTURES}")
    return path.read_bytes()


def gunzip(data: bytes) -> bytes:
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out = d.decompress(data, MAX_INFLATED)
    if d.unconsumed_tail:
        raise ValueError("inflates past the limit")
    return out


def body_bytes(req) -> bytes:
    """The request body, gunzipped when it starts with the gzip magic
    (JS labels plain bodies gzip; iOS really gzips)."""
    return gunzip(req.body) if req.body[:2] == b"\x1f\x8b" else req.body


def parse_body(raw: bytes):
    """Strict JSON, else the iOS lenient form; keys snake_case -> camelCase."""
    text = raw.decode("utf-8")
    try:
        value = json.loads(text)
    except ValueError:
        value = Lenient(text).document()
    return camel(value)


def camel(value, nested=("installation",)):
    """Proto field names -> json names at the top level and inside the
    message-typed fields in ``nested``; map fields (analyticsUserProperties,
    customSignals) keep their keys, which are data."""
    if not isinstance(value, dict):
        return value
    out = {}
    for k, v in value.items():
        key = re.sub(r"_([a-z0-9])", lambda m: m[1].upper(), k)
        out[key] = camel(v, ()) if key in nested else v
    return out


class Lenient:
    """The iOS SDK's body: {key:'value', other:{...}} with bare keys and
    single- or double-quoted strings."""

    def __init__(self, text: str):
        self.s, self.i = text, 0

    def document(self):
        v = self.value()
        self.ws()
        if self.i != len(self.s):
            raise ValueError("trailing text")
        return v

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] in " \t\r\n":
            self.i += 1

    def peek(self) -> str:
        self.ws()
        if self.i >= len(self.s):
            raise ValueError("unexpected end")
        return self.s[self.i]

    def value(self):
        c = self.peek()
        if c == "{":
            return self.obj()
        if c == "[":
            return self.arr()
        if c in "'\"":
            return self.string()
        word = self.word()
        return {"true": True, "false": False, "null": None}.get(word, word) \
            if not re.fullmatch(r"-?\d+(\.\d+)?([eE][-+]?\d+)?", word) else json.loads(word)

    def obj(self):
        self.i += 1
        out = {}
        if self.peek() == "}":
            self.i += 1
            return out
        while True:
            key = self.string() if self.peek() in "'\"" else self.word()
            if self.peek() != ":":
                raise ValueError("expected :")
            self.i += 1
            out[key] = self.value()
            c = self.peek()
            self.i += 1
            if c == "}":
                return out
            if c != ",":
                raise ValueError("expected , or }")

    def arr(self):
        self.i += 1
        out = []
        if self.peek() == "]":
            self.i += 1
            return out
        while True:
            out.append(self.value())
            c = self.peek()
            self.i += 1
            if c == "]":
                return out
            if c != ",":
                raise ValueError("expected , or ]")

    def word(self) -> str:
        m = re.compile(r"[A-Za-z0-9_$.+-]+").match(self.s, self.i)
        if not m:
            raise ValueError("expected a value")
        self.i = m.end()
        return m[0]

    def string(self) -> str:
        quote = self.s[self.i]
        self.i += 1
        out = []
        while self.i < len(self.s):
            c = self.s[self.i]
            self.i += 1
            if c == quote:
                return "".join(out)
            if c == "\\":
                e = self.s[self.i:self.i + 1]
                self.i += 1
                if e == "u":
                    out.append(chr(int(self.s[self.i:self.i + 4], 16)))
                    self.i += 4
                else:
                    out.append({"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}.get(e, e))
            else:
                out.append(c)
        raise ValueError("unterminated string")


def google_error(conn, status: int, message: str | None = None, headers=()) -> None:
    """Google's error model; 429/500/503 from the fixtures, 502 an HTML page
    (what the front end sends), anything else built here."""
    headers = list(headers)
    if message is None and status in ERROR_FIXTURES:
        conn.respond(status, fixture(ERROR_FIXTURES[status]), JSON_TYPE, headers)
        return
    if message is None and status == 502:
        conn.respond(status, b"<!DOCTYPE html><title>Error 502 (Server Error)!!1</title>",
                     "text/html; charset=UTF-8", headers)
        return
    body = {"error": {"code": status, "message": message or "loopback error",
                      "status": CANONICAL.get(status, "UNKNOWN")}}
    conn.respond(status, json.dumps(body, indent=2).encode(), JSON_TYPE, headers)


def check_key(conn, req) -> bool:
    """The key from ?key= or X-Goog-Api-Key; answers and returns False if wrong."""
    key = req.arg("key") or req.headers.get("x-goog-api-key")
    if not key:
        conn.respond(403, fixture("errors/rc_403_unregistered_caller.json"), JSON_TYPE)
        return False
    with STATE.lock:
        expected = STATE.api_key
    if key != expected:
        conn.respond(400, fixture("errors/rc_400_api_key_invalid.json"), JSON_TYPE)
        return False
    return True


def read_json_body(conn, req):
    """The parsed body, or None after answering 400."""
    try:
        return parse_body(body_bytes(req))
    except (ValueError, UnicodeDecodeError, zlib.error) as e:
        google_error(conn, 400, f"Invalid JSON payload received. {e}")
        return None


def serve_step(conn, step: dict, answer_200) -> None:
    """One scripted response (see the module doc)."""
    time.sleep(min(int(step.get("delay_ms", 0)), MAX_DELAY_MS) / 1000)
    status = int(step.get("status", 200))
    headers = list(step.get("headers", {}).items())
    ctype = step.get("content_type", JSON_TYPE)
    if status == 200 and not any(k.lower() == "etag" for k, _ in headers):
        with STATE.lock:
            etag = step["etag"] if "etag" in step else STATE.etag()
        if etag is not None:
            headers.append(("ETag", etag))
    if "body_fixture" in step:
        conn.respond(status, fixture(step["body_fixture"]), ctype, headers)
    elif "body" in step:
        b = step["body"]
        conn.respond(status, b.encode() if isinstance(b, str) else json.dumps(b).encode(), ctype, headers)
    elif "state" in step:
        conn.respond(status, json.dumps(state_body(step["state"])).encode(), ctype, headers)
    elif status == 200:
        answer_200(headers)
    else:
        google_error(conn, status, headers=headers)


def state_body(state: str, request: dict | None = None) -> dict:
    with STATE.lock:
        template = STATE.template
    if state in ("NO_TEMPLATE", "INSTANCE_STATE_UNSPECIFIED") or template is None:
        return {"state": state}
    body = {"state": state, "templateVersion": template.get("templateVersion")}
    if state == "UPDATE":
        body = {"entries": template.get("entries", {}), **body}
        if request and request.get("packageName"):
            body["appName"] = request["packageName"]
    return body


# --- Remote Config ---------------------------------------------------------------

def h_fetch(conn, req, m):
    if req.method != "POST":
        google_error(conn, 404, "The requested URL was not found (POST only).")
        return
    with STATE.lock:
        step = STATE.next.pop(0) if STATE.next else None
    if step is not None:
        def normal(headers):
            conn.respond(200, json.dumps(state_body("UPDATE")).encode(), JSON_TYPE, headers)
        serve_step(conn, step, normal)
        return
    if not check_key(conn, req):
        return
    request = read_json_body(conn, req)
    if request is None:
        return
    if not isinstance(request, dict):
        google_error(conn, 400, "Invalid JSON payload received. The body is not an object.")
        return
    for field in ("appId", "appInstanceId"):
        if not isinstance(request.get(field), str) or not request[field]:
            google_error(conn, 400, f"Request contains an invalid argument: {field} is required.")
            return
    with STATE.lock:
        template, etag = STATE.template, STATE.etag()
    if template is None:
        conn.respond_json(200, {"state": "NO_TEMPLATE"})
        return
    inm = req.headers.get("if-none-match")
    if inm and inm != "*" and inm == etag:
        state = "NO_CHANGE"
    else:
        state = "UPDATE" if template.get("entries") else "EMPTY_CONFIG"
    conn.respond(200, json.dumps(state_body(state, request)).encode(), JSON_TYPE, [("ETag", etag)])


# --- Installations ------------------------------------------------------------------

def fis_prologue(conn, req) -> bool:
    """Delay, scripted steps, failure mode, method and key; False = answered."""
    with STATE.lock:
        delay = STATE.fis["delay_ms"]
        step = STATE.fis_next.pop(0) if STATE.fis_next else None
        fail, status = STATE.fis["fail"], STATE.fis["status"]
    time.sleep(min(delay, MAX_DELAY_MS) / 1000)
    if step is not None:
        # A FIS step has no normal 200 answer: give it a body or another status.
        serve_step(conn, dict(step, etag=None), lambda h: google_error(conn, 500, "a FIS step needs a body", h))
        return False
    if fail:
        google_error(conn, status)
        return False
    if req.method != "POST":
        google_error(conn, 404, "The requested URL was not found (POST only).")
        return False
    return check_key(conn, req)


def new_token() -> str:
    return "eyJ" + secrets.token_urlsafe(24) + "." + secrets.token_urlsafe(24)


def h_fis_create(conn, req, m):
    if not fis_prologue(conn, req):
        return
    body = read_json_body(conn, req)
    if body is None:
        return
    if not isinstance(body, dict) or not FID_RE.fullmatch(str(body.get("fid", ""))):
        google_error(conn, 400, "Request contains an invalid argument: fid.")
        return
    if not body.get("appId") or body.get("authVersion") != "FIS_v2":
        google_error(conn, 400, "Request contains an invalid argument: appId and authVersion FIS_v2 are required.")
        return
    refresh, token = "2_" + secrets.token_urlsafe(32), new_token()
    with STATE.lock:
        fid = STATE.fis["assign_fid"] or body["fid"]
        STATE.installations[fid] = refresh
        STATE.tokens.append(token)
        expires = STATE.fis["expires_in"]
    project = unquote(m[1])
    conn.respond_json(200, {"name": f"projects/{project}/installations/{fid}", "fid": fid,
                            "refreshToken": refresh, "authToken": {"token": token, "expiresIn": expires}})


def h_fis_generate(conn, req, m):
    if not fis_prologue(conn, req):
        return
    fid = unquote(m[2])
    with STATE.lock:
        refresh = STATE.installations.get(fid)
    if refresh is None:
        google_error(conn, 404, "Installation not found.")
        return
    if req.headers.get("authorization") != f"FIS_v2 {refresh}":
        google_error(conn, 401, "Request had invalid authentication credentials.")
        return
    body = read_json_body(conn, req)
    if body is None:
        return
    if not isinstance(body, dict) or not isinstance(body.get("installation"), dict):
        google_error(conn, 400, "Request contains an invalid argument: installation.")
        return
    token = new_token()
    with STATE.lock:
        STATE.tokens.append(token)
        expires = STATE.fis["expires_in"]
    conn.respond_json(200, {"token": token, "expiresIn": expires})


# --- control ---------------------------------------------------------------------------

def checked_steps(steps) -> list[dict]:
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        raise Refused("next must be a list of objects")
    for s in steps:
        if set(s) - STEP_KEYS:
            raise Refused(f"unknown step keys {sorted(set(s) - STEP_KEYS)}")
        if "body_fixture" in s:
            fixture(s["body_fixture"])
        headers = s.get("headers", {})
        if not isinstance(headers, dict) or any(
                not isinstance(v, str) or "\r" in v or "\n" in v or "\r" in k or "\n" in k
                for k, v in headers.items()):
            raise Refused("headers must map names to single-line strings")
        if not isinstance(s.get("status", 200), int) or not isinstance(s.get("delay_ms", 0), int):
            raise Refused("status and delay_ms must be integers")
    return [dict(s) for s in steps]


def apply_control(cmd) -> None:
    if not isinstance(cmd, dict):
        raise Refused("the control body must be a JSON object")
    unknown = set(cmd) - {"reset", "api_key", "template", "next", "fis"}
    if unknown:
        raise Refused(f"unknown keys {sorted(unknown)}")
    steps = checked_steps(cmd.get("next", []))
    fis = cmd.get("fis", {})
    if not isinstance(fis, dict) or set(fis) - FIS_KEYS:
        raise Refused(f"fis takes {sorted(FIS_KEYS)}")
    fis_steps = checked_steps(fis.get("next", []))
    template = cmd.get("template")
    if template is not None and (not isinstance(template, dict) or not isinstance(template.get("entries", {}), dict)):
        raise Refused("template must be null or an object with an entries object")
    with STATE.lock:
        if cmd.get("reset"):
            STATE.reset()
        if "api_key" in cmd:
            STATE.api_key = str(cmd["api_key"])
        if "template" in cmd:
            if template is not None and "templateVersion" not in template:
                previous = (STATE.template or {}).get("templateVersion", 0)
                template = dict(template, templateVersion=str(int(previous) + 1))
            STATE.template = template
        STATE.next += steps
        STATE.fis_next += fis_steps
        for key in ("fail", "status", "delay_ms", "expires_in", "assign_fid"):
            if key in fis:
                STATE.fis[key] = fis[key]
        if fis.get("forget"):
            STATE.installations.clear()


def h_control(conn, req, m):
    if req.method == "POST":
        try:
            apply_control(json.loads(req.body or b"{}"))
        except (Refused, ValueError) as e:
            conn.respond(400, f"{e}\n".encode())
            return
    elif req.method not in ("GET", "HEAD"):
        conn.respond(405, b"GET or POST\n", headers=[("Allow", "GET, POST")])
        return
    with STATE.lock:
        conn.respond_json(200, STATE.snapshot())


# --- installation into the server ---------------------------------------------------------

ROUTES = [
    (r"/v1/projects/([^/]+)/namespaces/([^/:%]+)(?::|%3[Aa])fetch", h_fetch, True),
    (r"/v1/projects/([^/]+)/installations", h_fis_create, True),
    (r"/v1/projects/([^/]+)/installations/([^/]+)/authTokens(?::|%3[Aa])generate", h_fis_generate, True),
    (r"/__firebase", h_control, False),
]
FIREBASE_PATH = re.compile(r"/v1/projects/.*")


def install(server) -> None:
    """Adds the routes to ``server`` (the loopback_server module) and makes
    its request log record gzip bodies of these routes decompressed."""
    for pattern, handler, record in ROUTES:
        server.route(pattern, record=record)(handler)
    original = server.LOG.add

    def add(req):
        if req.body[:2] == b"\x1f\x8b" and FIREBASE_PATH.fullmatch(req.path):
            try:
                req = dataclasses.replace(req, body=gunzip(req.body))
            except (ValueError, zlib.error):
                pass
        original(req)

    server.LOG.add = add
