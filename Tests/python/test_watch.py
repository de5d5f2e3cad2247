"""Watching a source while the app runs (docs/design.md, "Watching a
source"): `versiongate watch`, vg_client_watch through Python, the real
library and its real helper; inotify on real files; the loopback server for
a document at a URL and for Firebase Remote Config's realtime stream
(Tests/Server/firebase_realtime_routes.py, the Web SDK's wire format).
Every wait is bounded; every watch is ended by the test.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path

import pytest

import versiongate as vg
from cli_helpers import CLI, Env
from conftest import REPO
from remote_helpers import server_fixture  # noqa: F401  (the server fixture)

APP_ID = "1:123456789012:web:0a1b2c3d4e5f60718293a4"


def gate(min_required: str, latest: str) -> str:
    return json.dumps({"min_required_version_linux": min_required, "latest_version_linux": latest})


def aged(path: Path) -> Path:
    """A document changed in the last 2 s is re-read at every check: age it."""
    old = time.time() - 60
    os.utime(path, (old, old))
    return path


def replace(path: Path, text: str) -> float:
    """An atomic replace, as editors and package managers do it; its time."""
    new = path.with_name(path.name + ".new")
    new.write_text(text)
    os.rename(new, path)
    return time.monotonic()


class Watching:
    """`versiongate watch ARGS` as a process: its lines as they come."""

    def __init__(self, env: dict, *args: str):
        self.proc = subprocess.Popen([str(CLI), "watch", *args], env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.pending = b""

    def line(self, timeout: float) -> str | None:
        end = time.monotonic() + timeout
        while b"\n" not in self.pending:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.proc.stdout], [], [], left)[0]:
                return None
            chunk = os.read(self.proc.stdout.fileno(), 4096)
            if not chunk:
                return None
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return line.decode()

    def end(self, how: str = "term") -> int:
        if how == "term":
            self.proc.send_signal(signal.SIGTERM)
        else:
            self.proc.stdin.close()
        try:
            return self.proc.wait(10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(10)

    def stderr(self) -> str:
        return self.proc.stderr.read().decode() if self.proc.poll() is not None else ""


def live_helpers(cache_home: Path) -> list[int]:
    """Running (not zombie) versiongate-helper processes of this test's cache home."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "comm").read_text().strip() != "versiongate-hel":
                continue
            if (entry / "stat").read_text().split(")")[-1].split()[0] == "Z":
                continue
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if ("XDG_CACHE_HOME=%s" % cache_home).encode() in environ:
            found.append(int(entry.name))
    return found


def no_helper_left(cache_home: Path, within: float = 3.0) -> bool:
    end = time.monotonic() + within
    while live_helpers(cache_home):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def env(tmp_path) -> Env:
    return Env(tmp_path)


# --- a local document ----------------------------------------------------------------------

@pytest.mark.parametrize("how", ["term", "stdin"])
def test_a_local_document_replaced_in_place_is_printed_within_a_second(env, tmp_path, how):
    document = tmp_path / "gate.json"
    document.write_text(gate("1.0", "1.0"))
    aged(document)
    watching = Watching(env.vars(), "--source", str(document), "--version", "1.5")
    assert watching.line(10).startswith("UP_TO_DATE"), watching.stderr()
    time.sleep(0.3)   # the helper's watch in place (a change before it is told once anyway)
    replaced = replace(document, gate("2.0", "2.0"))
    line = watching.line(5)
    took = time.monotonic() - replaced
    print("replace to line: %.3f s" % took)
    assert line is not None and line.startswith("MANDATORY (below_minimum) latest 2.0"), (line, watching.stderr())
    assert took < 1.0
    assert watching.line(0.5) is None, "a line for nothing new"
    assert watching.end(how) == 0, watching.stderr()
    assert no_helper_left(env.cache), live_helpers(env.cache)


def test_a_change_before_the_helper_watches_is_told(env, tmp_path):
    """The helper tells one change as soon as it watches: nothing between
    the first check and its watch is lost."""
    document = tmp_path / "gate.json"
    document.write_text(gate("1.0", "1.0"))
    aged(document)
    watching = Watching(env.vars(), "--source", str(document), "--version", "1.5", "--json")
    first = json.loads(watching.line(10))
    replace(document, gate("2.0", "2.0"))   # at once: the helper may not watch yet
    second = json.loads(watching.line(5) or "{}")
    assert (first["status"], second.get("status")) == ("UP_TO_DATE", "MANDATORY"), second
    assert watching.end() == 0


# --- a document at a URL ---------------------------------------------------------------------

def test_a_document_url_changed_is_printed_within_the_interval_and_304s_are_silent(env, server):
    server.document("gate", body=gate("1.0", "1.0"), etag='"v1"')
    watching = Watching(env.vars(), "--source", server.url("gate"), "--version", "1.5",
                        "--set", "watch_interval_s=5")
    assert watching.line(10).startswith("UP_TO_DATE"), watching.stderr()
    asked = len(server.requests("gate"))
    # Two intervals of 304s: requests, and no line.
    assert watching.line(11.5) is None
    assert len(server.requests("gate")) - asked in (1, 2, 3), server.requests("gate")
    changed = time.monotonic()
    server.document("gate", body=gate("2.0", "2.0"), etag='"v2"')
    line = watching.line(5 * 1.1 + 1)
    print("publish to line: %.3f s (watch_interval_s 5)" % (time.monotonic() - changed))
    assert line is not None and line.startswith("MANDATORY"), (line, watching.stderr())
    assert watching.end() == 0
    assert no_helper_left(env.cache)


# --- Firebase's realtime stream -------------------------------------------------------------------

def firebase_control(server, path: str, **spec) -> dict:
    status, body = server._call("POST", path, json.dumps(spec).encode())
    assert status == 200, body
    return json.loads(body)


def serve_template_42(server) -> None:
    """Remote Config serves template 42: this version is up to date."""
    firebase_control(server, "/__firebase", template={
        "entries": {"min_required_version_linux": "1.0", "latest_version_linux": "1.0"}, "templateVersion": "42"})


def realtime(server) -> dict:
    status, body = server._call("GET", "/__realtime")
    assert status == 200, body
    return json.loads(body)


def firebase_args(server) -> list[str]:
    base = "http://127.0.0.1:%d" % server.port
    return ["--source", "firebase://demo-proj?api_key=test-api-key&app_id=" + APP_ID, "--version", "1.5",
            "--set", "firebase_endpoint=" + base, "--set", "firebase_installations_endpoint=" + base,
            "--set", "firebase_realtime_endpoint=" + base]


def fetches(server) -> list[dict]:
    return [r for r in server.requests() if r["path"].split("?")[0].endswith(":fetch")]


def wait_for(predicate, within: float) -> bool:
    end = time.monotonic() + within
    while not predicate():
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def test_a_published_template_reaches_a_running_watch_after_one_fetch(env, server):
    serve_template_42(server)
    watching = Watching(env.vars(), *firebase_args(server))
    assert watching.line(15).startswith("UP_TO_DATE"), watching.stderr()
    assert wait_for(lambda: realtime(server)["open"] == 1, 10), realtime(server)
    before = len(fetches(server))
    published = time.monotonic()
    firebase_control(server, "/__realtime", publish=43,
                     entries={"min_required_version_linux": "3.0", "latest_version_linux": "3.0"})
    line = watching.line(6)
    took = time.monotonic() - published
    print("publish to MANDATORY: %.3f s" % took)
    assert line is not None and line.startswith("MANDATORY (below_minimum) latest 3.0"), (line, watching.stderr())
    assert took < 4.5
    after = fetches(server)[before:]
    assert len(after) == 1, after
    assert after[0]["headers"].get("x-firebase-rc-fetch-type") == "REALTIME/1", after[0]["headers"]

    stream = realtime(server)["streams"][0]
    assert stream["path"].split("?")[0] == "/v1/projects/demo-proj/namespaces/firebase:streamFetchInvalidations"
    assert stream["query"] == {"key": ["test-api-key"]}
    headers = stream["headers"]
    assert headers["x-goog-api-key"] == "test-api-key"
    assert headers["x-goog-firebase-installations-auth"]
    assert (headers["content-type"], headers["accept"], headers["x-accept-response-streaming"]) == \
        ("application/json", "application/json", "true")
    body = stream["body"]
    assert sorted(body) == ["appId", "appInstanceId", "lastKnownVersionNumber", "namespace", "project", "sdkVersion"]
    assert (body["project"], body["namespace"], body["lastKnownVersionNumber"], body["appId"]) == \
        ("demo-proj", "firebase", "42", APP_ID)
    assert body["sdkVersion"].startswith("versiongate-") and len(body["appInstanceId"]) == 22
    # The next launch decides from what the stream brought, and says so.
    checked = subprocess.run([str(CLI), "check", *firebase_args(server), "--json"], env=env.vars(),
                             capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
    result = json.loads(checked.stdout)
    assert (result["status"], result["origin"]) == ("MANDATORY", "realtime"), result
    assert watching.end() == 0
    assert no_helper_left(env.cache)


def test_two_watchers_of_one_source_share_one_stream(env, server):
    serve_template_42(server)
    first = Watching(env.vars(), *firebase_args(server))
    assert first.line(15).startswith("UP_TO_DATE")
    assert wait_for(lambda: realtime(server)["open"] == 1, 10), realtime(server)   # the first holds the stream
    second = Watching(env.vars(), *firebase_args(server))
    assert second.line(15).startswith("UP_TO_DATE")
    time.sleep(1.5)
    before = len(fetches(server))
    firebase_control(server, "/__realtime", publish=43,
                     entries={"min_required_version_linux": "3.0", "latest_version_linux": "3.0"})
    assert first.line(6).startswith("MANDATORY") and second.line(6).startswith("MANDATORY")
    assert len(fetches(server)) - before == 1, "the second watcher fetched too"
    assert len(realtime(server)["streams"]) == 1, realtime(server)["streams"]
    # The holder goes: the other takes the stream over.
    assert first.end() == 0
    assert wait_for(lambda: realtime(server)["open"] == 1 and len(realtime(server)["streams"]) == 2, 10), \
        realtime(server)
    assert realtime(server)["streams"][1]["body"]["lastKnownVersionNumber"] == "43"
    assert second.end() == 0
    assert no_helper_left(env.cache)


def test_a_version_not_newer_than_the_cache_fetches_nothing(env, server):
    serve_template_42(server)
    watching = Watching(env.vars(), *firebase_args(server))
    assert watching.line(15).startswith("UP_TO_DATE")
    assert wait_for(lambda: realtime(server)["open"] == 1, 10)
    before = len(fetches(server))
    firebase_control(server, "/__realtime", send=[{"latestTemplateVersionNumber": "42"},
                                                  {"latestTemplateVersionNumber": "41"}])
    assert watching.line(4) is None
    assert len(fetches(server)) == before
    assert watching.end() == 0


def test_feature_disabled_ends_realtime_for_the_run(env, server):
    serve_template_42(server)
    firebase_control(server, "/__realtime", next=[{"status": 200, "messages": [{"featureDisabled": True}]}])
    watching = Watching(env.vars(), *firebase_args(server))
    assert watching.line(15).startswith("UP_TO_DATE")
    assert wait_for(lambda: len(realtime(server)["streams"]) == 1, 10)
    time.sleep(3)
    assert len(realtime(server)["streams"]) == 1, "featureDisabled was reconnected"
    assert watching.end() == 0


def test_reconnects_wait_for_retry_interval_and_back_off_after_a_503(env, server):
    serve_template_42(server)
    firebase_control(server, "/__realtime", next=[
        {"status": 200, "messages": [{"retryIntervalSeconds": 2}], "close_after": True}, {"status": 503}])
    watching = Watching(env.vars(), *firebase_args(server))
    assert watching.line(15).startswith("UP_TO_DATE")
    assert wait_for(lambda: len(realtime(server)["streams"]) >= 2, 8), realtime(server)
    streams = realtime(server)["streams"]
    gap = streams[1]["t"] - streams[0]["t"]
    print("retryIntervalSeconds 2: reconnected after %.3f s" % gap)
    assert 2.0 <= gap < 3.5
    # The 503 backs off one to three minutes (60 s · 2, ±50 %): no third connection soon.
    time.sleep(3)
    assert len(realtime(server)["streams"]) == 2, realtime(server)["streams"]
    assert watching.end() == 0


# --- the host's side -------------------------------------------------------------------------

def sockets() -> set[str]:
    found = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink("/proc/self/fd/" + fd)
        except OSError:
            continue
        if target.startswith("socket:"):
            found.add(target)
    return found


def test_python_watch_sees_the_change_and_the_host_opens_no_socket(tmp_path, monkeypatch):
    for name in ("cache", "state"):
        (tmp_path / name).mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    document = tmp_path / "gate.json"
    document.write_text(gate("1.0", "1.0"))
    aged(document)
    before = sockets()
    with vg.Client(source=str(document), session_scope="process") as client:
        with client.watch("1.5") as watch:
            results = iter(watch)
            assert next(results).status == vg.Status.UP_TO_DATE
            assert sockets() == before, "the host opened a socket to watch"
            replace(document, gate("2.0", "2.0"))
            deadline = time.monotonic() + 5
            status = None
            while time.monotonic() < deadline and status != vg.Status.MANDATORY:
                status = next(results).status
            assert status == vg.Status.MANDATORY
            assert watch.fileno() >= 0
    assert no_helper_left(tmp_path / "cache")


def test_watch_is_refused_with_a_clear_error_when_nothing_can_be_watched():
    with vg.Client(session_scope="process") as client:
        with pytest.raises(vg.VersionGateError) as refused:
            client.watch("1.0")
        assert refused.value.code == vg.Error.ECONFIG and "no source set" in client.last_error, client.last_error


# --- the C example ----------------------------------------------------------------------------

def test_the_c_example_sees_the_change_python_sees(tmp_path):
    binary = tmp_path / "watch_poll"
    subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-I%s" % (REPO / "include"),
                    str(REPO / "examples" / "c" / "watch_poll.c"), "-o", str(binary),
                    "-L%s" % (REPO / "build" / "lib"), "-lversiongate"], check=True)
    document = tmp_path / "gate.json"
    document.write_text(gate("1.0", "1.0"))
    aged(document)
    env = dict(os.environ, LD_LIBRARY_PATH=str(REPO / "build" / "lib"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    proc = subprocess.Popen([str(binary), "--source", str(document), "--version", "1.5", "--seconds", "20"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    first = proc.stdout.readline().decode()
    assert first.startswith("UP_TO_DATE"), first
    time.sleep(0.3)
    replace(document, gate("2.0", "2.0"))
    out, err = proc.communicate(timeout=10)
    assert proc.returncode == 3, (out, err)
    assert b"MANDATORY" in out and b"save your work" in out, out
    assert no_helper_left(tmp_path / "cache")
