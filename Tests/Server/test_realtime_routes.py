"""Self-test of the Remote Config realtime route (firebase_realtime_routes.py)
with Python's http.client: a held stream announces a published template
(split across chunks), the fetch route then serves that version, one-shot
503 and close-after answers, and an open stream never delays shutdown.
Loopback only; every socket operation has a timeout of at most 5 s."""

from __future__ import annotations

import http.client
import json
import time

import pytest

from test_server_selftest import Loopback, TIMEOUT

PROJECT_NUMBER = "123456789012"
STREAM = f"/v1/projects/{PROJECT_NUMBER}/namespaces/firebase:streamFetchInvalidations"
KEY = "test-api-key"   # firebase_routes' default


def control(srv, path: str, cmd: dict) -> dict:
    status, _, body = srv.get(path, "POST", json.dumps(cmd).encode(), {"Content-Type": "application/json"})
    assert status == 200, body
    return json.loads(body)


def open_stream(srv, last_known: str, query: str = f"?key={KEY}"):
    """POSTs the stream request as Android sends it; returns (conn, response)."""
    conn = srv.http()
    body = {"project": PROJECT_NUMBER, "namespace": "firebase", "lastKnownVersionNumber": last_known,
            "appId": f"1:{PROJECT_NUMBER}:android:abc", "sdkVersion": "22.0.0", "appInstanceId": "fid-1"}
    conn.request("POST", STREAM + query, body=json.dumps(body), headers={
        "X-Goog-Api-Key": KEY, "X-Goog-Firebase-Installations-Auth": "fis-token",
        "Content-Type": "application/json", "Accept": "application/json",
        "X-Accept-Response-Streaming": "true", "If-None-Match": "etag-1"})
    return conn, conn.getresponse()


def read_message(resp) -> list[bytes]:
    """The chunks of one message: read1 returns at most one chunk's bytes."""
    pieces = []
    while not pieces or not pieces[-1].endswith(b"\n"):
        piece = resp.read1(65536)
        assert piece, "the stream ended"
        pieces.append(piece)
    return pieces


def hang_up(conn, resp) -> None:
    """Really close: the response holds the socket open past conn.close()."""
    resp.close()
    conn.close()


@pytest.fixture()
def srv():
    s = Loopback()
    control(s, "/__firebase", {"reset": True})   # template version "42"
    yield s
    assert s.stop() == ""


def test_publish_reaches_the_stream_split_and_the_fetch(srv):
    control(srv, "/__realtime", {"next": [{"split": True}]})
    conn, resp = open_stream(srv, "42")
    try:
        assert resp.status == 200
        assert resp.getheader("Transfer-Encoding") == "chunked"
        assert resp.getheader("Content-Type").startswith("application/json")
        state = control(srv, "/__realtime", {"publish": 43, "entries": {"latest_version_linux": "2.5.0"}})
        assert state["latest"] == 43 and state["open"] == 1
        pieces = read_message(resp)
        assert len(pieces) == 2 and b"}" not in pieces[0]   # split across chunks
        assert json.loads(b"".join(pieces)) == {"latestTemplateVersionNumber": "43"}
    finally:
        hang_up(conn, resp)

    # The fetch route serves the published template.
    status, _, body = srv.get(f"/v1/projects/{PROJECT_NUMBER}/namespaces/firebase:fetch?key={KEY}", "POST",
                              json.dumps({"appId": "1:2:android:3", "appInstanceId": "fid-1"}).encode())
    fetched = json.loads(body)
    assert status == 200 and fetched["templateVersion"] == "43"
    assert fetched["entries"] == {"latest_version_linux": "2.5.0"}

    # A stream that knows less is told at once (not split: the shot is spent).
    conn, resp = open_stream(srv, "41", query="")
    try:
        assert read_message(resp) == [b'{"latestTemplateVersionNumber": "43"}\n']
    finally:
        hang_up(conn, resp)

    # What the client sent, and that the server saw it leave.
    deadline = time.monotonic() + TIMEOUT
    while (state := control(srv, "/__realtime", {}))["open"] and time.monotonic() < deadline:
        time.sleep(0.05)
    first, second = state["streams"]
    assert state["open"] == 0 and not first["open"] and first["ended"] >= first["t"]
    assert first["path"] == STREAM + f"?key={KEY}" and first["query"] == {"key": [KEY]}
    assert first["project"] == PROJECT_NUMBER and first["namespace"] == "firebase"
    assert first["headers"]["x-goog-firebase-installations-auth"] == "fis-token"
    assert first["headers"]["x-accept-response-streaming"] == "true"
    assert first["body"]["lastKnownVersionNumber"] == "42" and first["body"]["appInstanceId"] == "fid-1"
    assert first["sent"] == ['{"latestTemplateVersionNumber": "43"}\n'] and first["known"] == 43
    assert second["query"] == {} and second["t"] > first["t"]


def test_one_shot_503_then_a_retry_interval_and_close(srv):
    control(srv, "/__realtime", {"next": [
        {"status": 503},
        {"status": 200, "messages": [{"retryIntervalSeconds": 5}], "close_after": True}]})
    conn, resp = open_stream(srv, "42")
    try:
        body = json.loads(resp.read())
        assert resp.status == 503 and body["error"]["status"] == "UNAVAILABLE"
    finally:
        hang_up(conn, resp)
    conn, resp = open_stream(srv, "40")   # would get "42" on connect, but the shot's messages win
    try:
        assert resp.status == 200 and resp.read() == b'{"retryIntervalSeconds": 5}\n'   # then the end
    finally:
        hang_up(conn, resp)
    state = control(srv, "/__realtime", {})
    assert [s["status"] for s in state["streams"]] == [503, 200] and state["pending"] == []
    assert state["streams"][0]["t"] < state["streams"][1]["t"] <= state["now"]
    assert control(srv, "/__realtime", {"reset": True})["streams"] == []


def test_open_stream_does_not_delay_shutdown():
    s = Loopback()
    conn, resp = open_stream(s, "42")
    try:
        assert resp.status == 200
        start = time.monotonic()
        assert s.stop() == ""
        assert time.monotonic() - start < 2
    finally:
        hang_up(conn, resp)
