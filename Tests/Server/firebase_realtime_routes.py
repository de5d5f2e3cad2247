"""Firebase Remote Config realtime (the config-update stream) on the loopback
server, as the SDKs speak it (JS packages/remote-config/src/client/
realtime_handler.ts, Android ConfigRealtimeHttpClient / ConfigAutoFetch).

Registered into loopback_server's route table by its one import line. The
template version is the one of firebase_routes.py: the stream announces
``templateVersion`` of the template that ``:fetch`` serves, so a client that
fetches after an announcement gets that version.

  POST /v1/projects/{p}/namespaces/{ns}:streamFetchInvalidations[?key=K]
      (also %3A; {p} a project id or number, both accepted.) The key from
      ?key= or X-Goog-Api-Key, checked as :fetch does (missing 403, wrong
      400); the body JSON (gzip detected by its magic bytes, as JS labels
      plain JSON gzip), {"project", "namespace", "lastKnownVersionNumber"
      (string, or number from JS; missing = 0), "appId", "sdkVersion",
      "appInstanceId"}: not JSON -> 400. Not POST -> 404.
      200, Content-Type JSON, Transfer-Encoding: chunked, held open. Each
      message is one JSON object and a newline (Android reads lines), in its
      own chunk, 50 ms apart (JS parses only the first "{...}" of a read):
        {"latestTemplateVersionNumber": "12"}   whenever the template's
            version is above the stream's known version (at first its
            lastKnownVersionNumber; then the last version it was sent):
            on connect, on {"publish"} here, and within 0.1 s of a template
            change through POST /__firebase.
      The stream ends (a final 0-chunk) when the client leaves, on "close"
      or "reset" here, after a one-shot's "hold_s" (or an hour), or when the
      server exits (--max-seconds, stdin EOF, SIGTERM); threads end by
      themselves.

Control (not recorded): POST /__realtime with a JSON object, each key
optional, applied in this order; answers like GET:
  "reset": true           forget the one-shots and the recorded streams, end
                          every open stream. (The template is
                          firebase_routes'; reset it with POST /__firebase
                          {"reset": true}, which makes it version "42".)
  "next": [shot, ...]     appended; each stream connection consumes one first
                          (before the key check)
  "publish": 12           the fetch template's templateVersion becomes "12"
                          (its entries kept; a template of no entries if there
                          was none) and every open stream whose known version
                          is below 12 gets {"latestTemplateVersionNumber": "12"}
                          now; a later stream gets it on connect when its
                          lastKnownVersionNumber < 12
  "entries": {...}        with "publish": the template's new entries too
  "send": msg | [msg,...] pushed once to every open stream, as is (an object
                          is serialised, a string sent raw), e.g.
                          {"featureDisabled": true}, {"retryIntervalSeconds": 5}
                          or {"latestTemplateVersionNumber": "3"} (stale)
  "close": true           end every open stream now (the server hangs up)
A shot (every key optional):
  {"status": 503, "body": "..."|{...}, "headers": {...}, "content_type": "..."}
      that answer instead of a stream; without "body", Google's error JSON
      for the status (firebase_routes.google_error)
  {"status": 200, "messages": [msg, ...]}
      the stream sends exactly these on connect (instead of the connect-time
      version message); later announcements still come
  "split": true      every message of this stream in two chunks (split in the
                     middle, 100 ms apart): {"latestTemplateVe + rsionNumber"...
  "hold": false      end the stream right after the connect-time messages
                     ("close_after": true says the same)
  "hold_s": 2.5      end the stream after this many seconds
  "delay_ms": 500    wait before answering
  "reset": true      abort the connection with a TCP RST instead of answering
GET /__realtime ->
  {"latest": 42 | null,        the fetch template's version (int)
   "now": <monotonic s>,       the server's time.monotonic(), as "t" is
   "pending": [shot, ...],     one-shots not yet consumed
   "open": 1,                  streams open now
   "streams": [{               every stream request, in arrival order
      "n": 1, "t": <monotonic s at arrival>, "ended": <monotonic s> | null,
      "open": true, "method": "POST", "path": "/v1/...?key=K" (as sent),
      "query": {"key": ["K"]}, "project": "123", "namespace": "firebase",
      "headers": {lower-case name: value}, "body": {parsed} | "raw text",
      "status": 200 | 503 | null (reset), "known": 42 (its version now),
      "sent": ["{\"latestTemplateVersionNumber\": \"43\"}\n", ...]}]}
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
import zlib
from urllib.parse import unquote

import firebase_routes as _fb
import loopback_server as _srv

route = _srv.route

POLL_S = 0.1           # how often a stream looks at the template and the client
MESSAGE_GAP_S = 0.05   # between two messages
SPLIT_PAUSE_S = 0.1    # between the halves of a split message
MAX_HOLD_S = 3600.0    # a backstop; the server's --max-seconds ends it first
MAX_DELAY_MS = 60_000
SHOT_KEYS = {"status", "body", "headers", "content_type", "messages", "split", "hold",
             "close_after", "hold_s", "delay_ms", "reset"}
COMMAND_KEYS = {"reset", "next", "publish", "entries", "send", "close"}

_COND = threading.Condition()          # guards everything below
_NEXT: list[dict] = []
_RECORDS: list[dict] = []
_OPEN: set["_Stream"] = set()


class Refused(Exception):
    """A control request we will not apply; answered 400 with the reason."""


class _Stream:
    """An open stream: what the control pushes to it, and when it must end."""

    def __init__(self, record: dict):
        self.record = record
        self.outbox: list[str] = []
        self.closing = False


def _text(msg) -> str:
    return msg if isinstance(msg, str) else json.dumps(msg) + "\n"


def _version_text(version: int) -> str:
    return _text({"latestTemplateVersionNumber": str(version)})


def _as_int(value) -> int:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return 0


def latest_version() -> int | None:
    with _fb.STATE.lock:
        template = _fb.STATE.template
    return None if template is None else _as_int(template.get("templateVersion"))


def _send_chunk(conn, data: bytes) -> None:
    conn.send(f"{len(data):x}\r\n".encode() + data + b"\r\n")


def _send_message(conn, stream: _Stream, text: str, split: bool) -> None:
    data = text.encode("utf-8")
    pieces = [data[:len(data) // 2], data[len(data) // 2:]] if split and len(data) > 1 else [data]
    for i, piece in enumerate(pieces):
        if i:
            time.sleep(SPLIT_PAUSE_S)
        _send_chunk(conn, piece)
    with _COND:
        stream.record["sent"].append(text)
    time.sleep(MESSAGE_GAP_S)


def _client_gone(conn) -> bool:
    """True once the client has closed (or reset) its side. Anything it sends
    on an open stream is read and ignored."""
    poller = select.poll()
    poller.register(conn.sock.fileno(),
                    select.POLLIN | getattr(select, "POLLRDHUP", 0) | select.POLLHUP | select.POLLERR)
    if not poller.poll(0):
        return False
    conn.sock.settimeout(POLL_S)
    try:
        return not conn.sock.recv(65536)
    except (socket.timeout, BlockingIOError):
        return False          # e.g. a TLS record that was not application data
    except OSError:
        return True
    finally:
        conn.sock.settimeout(_srv.WRITE_TIMEOUT)


# --- the stream --------------------------------------------------------------------

@route(r"/v1/projects/([^/]+)/namespaces/([^/:%]+)(?::|%3[Aa])streamFetchInvalidations")
def h_stream(conn, req, m):
    record = {"t": time.monotonic(), "ended": None, "open": False, "method": req.method,
              "path": req.target, "query": req.query, "project": unquote(m[1]),
              "namespace": unquote(m[2]), "headers": dict(req.headers), "body": None,
              "status": None, "known": None, "sent": []}
    try:
        parsed = _fb.parse_body(_fb.body_bytes(req))
        record["body"] = parsed
    except (ValueError, UnicodeDecodeError, zlib.error):
        parsed = None
        record["body"] = req.body.decode("utf-8", "replace")
    with _COND:
        record["n"] = len(_RECORDS) + 1
        _RECORDS.append(record)
        shot = _NEXT.pop(0) if _NEXT else {}
    try:
        _answer(conn, req, record, parsed, shot)
    finally:
        with _COND:
            record["ended"] = time.monotonic()
            record["open"] = False


def _answer(conn, req, record, parsed, shot) -> None:
    time.sleep(min(int(shot.get("delay_ms", 0)), MAX_DELAY_MS) / 1000)
    if shot.get("reset"):
        conn.reset()
        raise _srv.ConnectionAborted
    status = int(shot.get("status", 200))
    if status != 200:
        record["status"] = status
        headers = list(shot.get("headers", {}).items())
        if "body" in shot:
            body = shot["body"]
            conn.respond(status, body.encode() if isinstance(body, str) else json.dumps(body).encode(),
                         shot.get("content_type", _fb.JSON_TYPE), headers)
        else:
            _fb.google_error(conn, status, headers=headers)
        return
    if req.method != "POST":
        record["status"] = 404
        _fb.google_error(conn, 404, "The requested URL was not found (POST only).")
        return
    if not _fb.check_key(conn, req):
        record["status"] = 403 if not (req.arg("key") or req.headers.get("x-goog-api-key")) else 400
        return
    if not isinstance(parsed, dict):
        record["status"] = 400
        _fb.google_error(conn, 400, "Invalid JSON payload received.")
        return

    stream = _Stream(record)
    known = _as_int(parsed.get("lastKnownVersionNumber"))
    if "messages" in shot:   # exactly these on connect, not the version check
        stream.outbox = [_text(msg) for msg in shot["messages"]]
        known = max(known, latest_version() or 0)
    record["known"] = known
    split = bool(shot.get("split"))
    hold = shot.get("hold", True) and not shot.get("close_after")
    deadline = time.monotonic() + min(float(shot.get("hold_s", MAX_HOLD_S)), MAX_HOLD_S)

    with _COND:
        record["status"], record["open"] = 200, True
        _OPEN.add(stream)
    try:
        conn.send_head(200, [("Content-Type", _fb.JSON_TYPE), ("Transfer-Encoding", "chunked")])
        first = True
        while True:
            with _COND:
                if not first and not stream.outbox and not stream.closing:
                    _COND.wait(POLL_S)
                out, stream.outbox = stream.outbox, []
                closing = stream.closing
            latest = latest_version()
            if latest is not None and latest > known:
                out.append(_version_text(latest))
                known = latest
                with _COND:
                    record["known"] = known
            for text in out:
                _send_message(conn, stream, text, split)
            if (first and not hold) or closing or time.monotonic() >= deadline:
                break
            first = False
            if _client_gone(conn):       # nothing to say to a closed socket
                _srv.close_quietly(conn.sock)
                raise _srv.ConnectionAborted
        conn.send(b"0\r\n\r\n")
    finally:
        with _COND:
            _OPEN.discard(stream)


# --- control -----------------------------------------------------------------------------

def _checked_messages(msgs) -> list:
    if not isinstance(msgs, list) or not all(isinstance(x, (dict, str)) for x in msgs):
        raise Refused("messages must be a list of objects or strings")
    return list(msgs)


def _checked_shots(shots) -> list[dict]:
    if not isinstance(shots, list) or not all(isinstance(s, dict) for s in shots):
        raise Refused("next must be a list of objects")
    for s in shots:
        if set(s) - SHOT_KEYS:
            raise Refused(f"unknown shot keys {sorted(set(s) - SHOT_KEYS)}")
        if not isinstance(s.get("status", 200), int) or not 100 <= s.get("status", 200) <= 999:
            raise Refused("status must be an integer 100-999")
        if not isinstance(s.get("delay_ms", 0), int) or not isinstance(s.get("hold_s", 0), (int, float)):
            raise Refused("delay_ms must be an integer, hold_s a number")
        headers = s.get("headers", {})
        if not isinstance(headers, dict) or any(
                not isinstance(k, str) or not isinstance(v, str) or any(c in k + v for c in "\r\n")
                for k, v in headers.items()):
            raise Refused("headers must map names to single-line strings")
        _checked_messages(s.get("messages", []))
    return [dict(s) for s in shots]


def apply_control(cmd) -> None:
    if not isinstance(cmd, dict):
        raise Refused("the control body must be a JSON object")
    if set(cmd) - COMMAND_KEYS:
        raise Refused(f"unknown keys {sorted(set(cmd) - COMMAND_KEYS)}")
    shots = _checked_shots(cmd.get("next", []))
    publish = cmd.get("publish")
    if publish is not None and (isinstance(publish, bool) or not str(publish).strip().isdigit()):
        raise Refused("publish must be a non-negative integer (or its string)")
    if "entries" in cmd and (publish is None or not isinstance(cmd["entries"], dict)):
        raise Refused("entries must be an object, and goes with publish")
    send = cmd.get("send", [])
    send = _checked_messages(send if isinstance(send, list) else [send])

    if cmd.get("reset"):
        with _COND:
            _NEXT.clear()
            _RECORDS.clear()
            for stream in _OPEN:
                stream.closing = True
    with _COND:
        _NEXT.extend(shots)
    if publish is not None:
        with _fb.STATE.lock:
            template = dict(_fb.STATE.template or {"entries": {}})
            if "entries" in cmd:
                template["entries"] = dict(cmd["entries"])
            template["templateVersion"] = str(int(str(publish).strip()))
            _fb.STATE.template = template
    with _COND:
        for stream in _OPEN:
            stream.outbox += [_text(msg) for msg in send]
            if cmd.get("close"):
                stream.closing = True
        _COND.notify_all()


def snapshot() -> dict:
    latest = latest_version()
    with _COND:
        return {"latest": latest, "now": time.monotonic(), "pending": [dict(s) for s in _NEXT],
                "open": len(_OPEN),
                "streams": [dict(r, sent=list(r["sent"])) for r in _RECORDS]}


@route(r"/__realtime", record=False)
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
    conn.respond_json(200, snapshot())
