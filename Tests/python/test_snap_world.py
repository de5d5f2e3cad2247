"""The snap world (Tests/snap: world, fake_snapd.py, NOTES.md), checked
with the real client: Debian's `snap` command (snapd 2.68.3 in the clean
Debian 13 root of scripts/chroot's snap set) run by an ordinary user
(vguser) against the fake snapd on /run/snapd.socket, with polkitd on a
private system bus answering by the world's rule. A refresh allowed,
denied, needing a password with no agent, cancelled, in conflict, with
no update, failing in its change, hanging, and no snapd at all; and
the raw envelopes as snapd writes them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from flatpak_world import chroot_root, run_on_terminal

REPO = Path(__file__).resolve().parents[2]
SNAP = "acme-notes"


def world_directory(prefix: str) -> tuple[Path, str]:
    """A root-owned, world-readable directory to bind into the snap root,
    with the world and the fake; and the root."""
    if os.geteuid() != 0:
        pytest.fail("the snap world needs root (chroot, mount namespaces)")
    root = chroot_root("snap")
    top = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    os.chmod(top, 0o755)
    for name in ("world", "fake_snapd.py"):
        shutil.copy(REPO / "Tests" / "snap" / name, top / name)
        os.chmod(top / name, 0o755)
    return top, root


@pytest.fixture(scope="module")
def world():
    """The world's directory: the world, the fake and the scenarios."""
    top, root = world_directory("vg-snap-")
    yield top, root
    shutil.rmtree(top, ignore_errors=True)


def scenario(top: Path, behaviour: str = "refresh", **extra) -> Path:
    """acme-notes 1.0 (revision 12) installed from latest/stable, where
    the store has 2.0 (15); latest/beta has 2.1~beta1 (16)."""
    state = {"progress": {"steps": 4, "delay": 0.15},
             "snaps": [dict({"name": SNAP, "publisher": "acme", "behaviour": behaviour,
                             "installed": {"revision": 12, "version": "1.0", "tracking-channel": "latest/stable",
                                           "confinement": "strict"},
                             "store": {"latest/stable": {"revision": 15, "version": "2.0"},
                                       "latest/beta": {"revision": 16, "version": "2.1~beta1"}}}, **extra)]}
    path = Path(tempfile.mkstemp(prefix="state-", suffix=".json", dir=top)[1])
    path.write_text(json.dumps(state))
    os.chmod(path, 0o644)
    return path


def run_world(world, policy: str, state: Path, script: str, *, terminal: bool = False, timeout: float = 60,
              answer: bytes = b""):
    """`sh -c script` as vguser in the world; with `terminal`, on a pty
    (then the snap command asks with X-Allow-Interaction: true, and
    draws its progress bar and colours: the ANSI sequences are taken
    out). Output, exit status, the fake's request log (parsed) and the
    daemons' logs."""
    top, root = world
    log = Path(tempfile.mkdtemp(prefix="log-", dir=top))
    os.chmod(log, 0o777)
    argv = [str(REPO / "scripts" / "chroot"), "run", "--bind", str(top), root, str(top / "world"),
            "--log", str(log), policy, str(state), "--",
            # Ended inside, well before `timeout`: scripts/chroot run then
            # still removes its overlay (killed, it could not).
            "timeout", "--foreground", "-k", "5", str(int(timeout) - 15), "sh", "-c", script]
    if terminal:
        # `answer` is typed at MANDATORY's "[Enter] Update" (versiongate exec's prompt).
        text, status = run_on_terminal(argv, None, answer, timeout, prompts=(b"[Enter]",) if answer else ())
        text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
    else:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        text, status = done.stdout + done.stderr, done.returncode
    requests_log = log / "requests.jsonl"
    requests = [json.loads(line) for line in requests_log.read_text().splitlines()] if requests_log.exists() else None
    logs = "".join("\n=== %s\n%s" % (f.name, f.read_text(errors="replace")[-3000:]) for f in sorted(log.glob("*.log")))
    return text, status, requests, logs


def posts(requests) -> list[dict]:
    return [r for r in requests if r["method"] == "POST" and r["path"] == "/v2/snaps/" + SNAP]


AFTER = 'echo "exit=$status"; snap list; acme-notes a "b c"; echo "current=$(readlink /snap/acme-notes/current)"'


def test_refresh_allowed_on_a_terminal(world):
    """polkit says YES: `snap refresh` shows the download's progress and
    refreshes to the channel's 2.0 (15), which /snap/bin/acme-notes runs;
    one POST, interactive, one polkit check with AllowUserInteraction."""
    top, _ = world
    text, status, requests, logs = run_world(
        world, "allow", scenario(top),
        "snap info acme-notes; snap refresh acme-notes; status=$?; " + AFTER + "; snap changes; snap change 1",
        terminal=True)
    assert status == 0 and "exit=0" in text, text + logs
    # snap info, before: the channel map and the installed revision.
    assert "tracking:     latest/stable" in text and "latest/stable:    2.0 " in text, text
    assert "installed:          1.0 " in text and "(12)" in text, text
    # The progress bar (ANSI meter on a terminal), rising, then what showDone prints.
    shown = [int(p) for p in re.findall(r'Download snap "acme-notes" \(15\) from channel "latest/stable" +(\d+)%', text)]
    assert len(set(shown)) >= 2 and shown == sorted(shown), text
    assert "acme-notes 2.0 from Acme refreshed" in text, text
    assert "acme-notes  2.0      15   latest/stable  acme" in text, text
    assert 'acme-notes 2.0 a b c' in text and "current=15" in text, text
    assert 'Done    today at' in text and 'Refresh "acme-notes" snap' in text, text
    refreshes = posts(requests)
    assert len(refreshes) == 1, refreshes
    post = refreshes[0]
    assert post["headers"]["X-Allow-Interaction"] == "true" and post["uid"] == 4242, post
    assert post["body"]["action"] == "refresh" and "channel" not in post["body"], post
    assert post["status"] == 202, post
    assert post["polkit"]["flags"] == 1 and post["polkit"]["authorized"] is True, post
    assert post["polkit"]["subject"]["uid"] == 4242 and post["polkit"]["subject"]["pid"] == post["pid"], post
    polls = [r for r in requests if r["path"] == "/v2/changes/1"]
    assert len(polls) >= 3 and all(r["status"] == 200 for r in polls), polls
    assert logs.count("vgworld: io.snapcraft.snapd.manage for vguser: YES") == 1, logs


def test_refresh_to_another_channel(world):
    """--beta: the POST carries the channel; the snap then tracks latest/beta."""
    top, _ = world
    text, status, requests, logs = run_world(world, "allow", scenario(top),
                                             "snap refresh --beta acme-notes; status=$?; " + AFTER)
    assert "acme-notes (beta) 2.1~beta1 from Acme refreshed" in text and "exit=0" in text, text + logs
    assert "acme-notes  2.1~beta1  16   latest/beta" in text and "current=16" in text, text
    post, = posts(requests)
    assert post["body"]["channel"] == "beta" and post["headers"]["X-Allow-Interaction"] is None, post


def test_refresh_denied(world):
    """polkit says NO: 401 login-required "access denied"; the client
    says so and exits 1; nothing changes."""
    top, _ = world
    text, status, requests, logs = run_world(world, "deny", scenario(top),
                                             "snap refresh acme-notes; status=$?; " + AFTER + "; snap changes")
    assert "error: access denied (try with sudo)" in text and "exit=1" in text, text + logs
    assert "acme-notes 1.0 a b c" in text and "current=12" in text and "no changes found" in text, text
    post, = posts(requests)
    assert post["status"] == 401 and post["error"] == {"message": "access denied", "kind": "login-required"}, post
    assert post["polkit"]["flags"] == 0 and post["polkit"]["authorized"] is False, post
    assert "vgworld: io.snapcraft.snapd.manage for vguser: NO" in logs, logs


def test_password_needed_with_no_agent_is_access_denied(world):
    """AUTH_SELF and no agent: polkit answers a challenge (not authorized,
    is_challenge true), even with AllowUserInteraction; snapd maps that
    to 401 login-required, not auth-cancelled."""
    top, _ = world
    text, status, requests, logs = run_world(world, "auth", scenario(top),
                                             "snap refresh acme-notes; status=$?; " + AFTER, terminal=True)
    assert "error: access denied (try with sudo)" in text and "exit=1" in text, text + logs
    post, = posts(requests)
    assert post["headers"]["X-Allow-Interaction"] == "true" and post["polkit"]["flags"] == 1, post
    assert post["polkit"]["reply"] == "((false, true, @a{ss} {}),)" and post["status"] == 401, post


def test_cancelled_authentication(world):
    """polkit-answer "dismissed" (simulated: no agent here can cancel):
    403 auth-cancelled "cancelled", which the client prints as is."""
    top, _ = world
    state = scenario(top)
    data = json.loads(state.read_text())
    data["polkit-answer"] = "dismissed"
    state.write_text(json.dumps(data))
    text, status, requests, logs = run_world(world, "allow", state, "snap refresh acme-notes; status=$?; " + AFTER)
    assert "error: cancelled" in text and "exit=1" in text and "current=12" in text, text + logs
    post, = posts(requests)
    assert post["status"] == 403 and post["error"] == {"message": "cancelled", "kind": "auth-cancelled"}, post


def test_conflict(world):
    """An auto-refresh in progress: 409 snap-change-conflict; the client
    prints snapd's message and exits 10 (retryable)."""
    top, _ = world
    text, status, requests, logs = run_world(world, "allow", scenario(top, "conflict"),
                                             "snap refresh acme-notes; status=$?; " + AFTER + "; snap changes")
    assert 'error: snap "acme-notes" has "auto-refresh" change in progress' in text and "exit=10" in text, text + logs
    assert "Doing" in text and 'Auto-refresh snap "acme-notes"' in text and "current=12" in text, text
    post, = posts(requests)
    assert post["status"] == 409 and post["error"]["kind"] == "snap-change-conflict", post
    assert post["error"]["value"] == {"change-kind": "auto-refresh", "snap-name": SNAP}, post


def test_no_update(world):
    """400 snap-no-update-available: not an error for the client (exit 0)."""
    top, _ = world
    text, status, requests, logs = run_world(world, "allow", scenario(top, "no-update"),
                                             "snap refresh acme-notes; status=$?; " + AFTER)
    assert 'snap "acme-notes" has no updates available' in text and "exit=0" in text, text + logs
    assert "error:" not in text and "current=12" in text, text
    post, = posts(requests)
    assert post["status"] == 400 and post["error"] == {"message": "snap has no updates available",
                                                       "kind": "snap-no-update-available", "value": ""}, post


def test_change_in_error(world):
    """The change fails at its download: status Error with snapd's err
    text, which the client prints; revision 12 stays."""
    top, _ = world
    text, status, requests, logs = run_world(
        world, "allow", scenario(top, "change-error", error="unexpected EOF"),
        "snap refresh acme-notes; status=$?; " + AFTER + "; snap changes; snap tasks 1")
    assert ('error: cannot perform the following tasks:\n'
            '- Download snap "acme-notes" (15) from channel "latest/stable" (unexpected EOF)') in text, text + logs
    assert "exit=1" in text and "acme-notes 1.0 a b c" in text and "current=12" in text, text
    assert "\n1    Error " in text and "\nError   today at" in text, text
    post, = posts(requests)
    assert post["status"] == 202, post


def test_hung_snapd(world):
    """hang: the POST is never answered; the client waits until killed."""
    top, _ = world
    text, status, requests, logs = run_world(world, "allow", scenario(top, "hang"),
                                             "timeout 2 snap refresh acme-notes; status=$?; " + AFTER)
    assert "exit=124" in text and "current=12" in text, text + logs
    post, = posts(requests)
    assert post["status"] is None, post


def test_no_snapd(world):
    """none: no socket; the client cannot connect (a POST is not retried;
    a GET would be, for 120 s); the snap still runs."""
    top, _ = world
    text, status, requests, logs = run_world(
        world, "none", scenario(top),
        'snap refresh acme-notes; status=$?; echo "exit=$status"; acme-notes a "b c"; '
        'echo "current=$(readlink /snap/acme-notes/current)"; test -e /run/snapd.socket || echo no-socket')
    assert ('error: cannot communicate with server: Post "http://localhost/v2/snaps/acme-notes": '
            'dial unix /run/snapd.socket: connect: no such file or directory') in text, text + logs
    assert "exit=1" in text and "acme-notes 1.0 a b c" in text and "no-socket" in text and requests is None, text


ENVELOPES = r'''
import http.client, json, socket, sys
class Conn(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect("/run/snapd.socket")
def ask(method, path, body=None, headers={}):
    c = Conn("localhost")
    c.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    r = c.getresponse()
    print(json.dumps({"q": method + " " + path, "code": r.status, "type": r.getheader("Content-Type"),
                      "body": json.loads(r.read())}))
ask("GET", "/v2/snaps/acme-notes")
ask("GET", "/v2/snaps/nothing")
ask("GET", "/v2/find?name=acme-notes")
ask("GET", "/v2/nowhere")
ask("GET", "/v2/changes/7")
ask("POST", "/v2/snaps/nothing", {"action": "refresh"})
ask("POST", "/v2/snaps/acme-notes", {"action": "refresh", "channel": "edge"})
ask("POST", "/v2/snaps/acme-notes", {"action": "refresh"}, {"X-Allow-Interaction": "true"})
ask("POST", "/v2/snaps/acme-notes", {"action": "refresh"})
ask("GET", "/v2/changes/1")
'''


def test_envelopes(world):
    """The raw answers, as snapd writes them (daemon/response.go, errors.go)."""
    top, _ = world
    (top / "envelopes.py").write_text(ENVELOPES)
    os.chmod(top / "envelopes.py", 0o644)
    text, status, requests, logs = run_world(world, "allow", scenario(top), "python3 %s/envelopes.py" % top)
    assert status == 0, text + logs
    answers = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    got = {a["q"] if a["q"] != "POST /v2/snaps/acme-notes" else "POST %d" % i: a for i, a in enumerate(answers)}
    assert all(a["type"] == "application/json" and a["body"]["status-code"] == a["code"] for a in answers), answers
    local = got["GET /v2/snaps/acme-notes"]["body"]
    assert list(local)[:4] == ["type", "status-code", "status", "result"] and local["status"] == "OK", local
    assert local["result"]["revision"] == "12" and local["result"]["status"] == "active", local
    assert local["result"]["tracking-channel"] == "latest/stable" and local["result"]["confinement"] == "strict", local
    assert got["GET /v2/snaps/nothing"]["body"] == {
        "type": "error", "status-code": 404, "status": "Not Found",
        "result": {"message": "snap not installed", "kind": "snap-not-found", "value": "nothing"}}
    find = got["GET /v2/find?name=acme-notes"]["body"]
    assert find["sources"] == ["store"] and find["result"][0]["channels"]["latest/stable"]["revision"] == "15", find
    assert got["GET /v2/nowhere"]["body"]["result"] == {"message": "not found"}
    assert got["GET /v2/changes/7"]["body"]["result"] == {"message": 'cannot find change with id "7"'}
    assert got["POST /v2/snaps/nothing"]["body"]["result"] == {
        "message": 'snap "nothing" is not installed', "kind": "snap-not-installed", "value": "nothing"}
    edge = got["POST 6"]["body"]
    assert edge["status-code"] == 404 and edge["result"]["kind"] == "snap-channel-not-available", edge
    assert edge["result"]["value"]["channel"] == "latest/edge", edge
    assert got["POST 7"]["body"] == {"type": "async", "status-code": 202, "status": "Accepted",
                                     "result": None, "change": "1"}
    again = got["POST 8"]["body"]
    assert again["status-code"] == 409 and again["result"]["value"]["change-kind"] == "refresh-snap", again
    change = got["GET /v2/changes/1"]["body"]["result"]
    assert change["kind"] == "refresh-snap" and change["status"] in ("Do", "Doing") and change["ready"] is False
    assert change["data"] == {"snap-names": [SNAP]} and change["tasks"][1]["kind"] == "download-snap", change
    assert [r["headers"]["X-Allow-Interaction"] for r in posts(requests)] == [None, "true", None], requests


def test_refresh_all(world):
    """`snap refresh` with no name: POST /v2/snaps; the snap with nothing
    newer (acme-clock) is left out of the change."""
    top, _ = world
    state = scenario(top)
    data = json.loads(state.read_text())
    data["snaps"].append({"name": "acme-clock", "installed": {"revision": 7, "version": "7"},
                          "store": {"latest/stable": {"revision": 7, "version": "7"}}})
    state.write_text(json.dumps(data))
    text, status, requests, logs = run_world(world, "allow", state,
                                             "snap refresh; status=$?; " + AFTER + "; snap refresh; snap changes")
    assert "acme-notes 2.0 from Acme refreshed" in text and "exit=0" in text and "current=15" in text, text + logs
    assert "All snaps up to date." in text and "Refresh all snaps: no updates" in text, text
    assert 'Refresh "acme-notes" snap' in text and "acme-clock  7        7" in text, text
    many = [r for r in requests if r["method"] == "POST" and r["path"] == "/v2/snaps"]
    assert [r["status"] for r in many] == [202, 202] and many[0]["body"]["action"] == "refresh", many
