"""A snap updated in place through snapd, as a user meets it (docs/design.md,
"Updating a snap"): in the snap world (Tests/snap: a clean Debian 13 root,
the fake snapd on /run/snapd.socket, polkitd on a private system bus
answering by the world's rule), the ordinary user vguser runs
`versiongate exec --dialog terminal -- acme-notes a b` on a terminal (a
pty) with acme-notes 1.0 (revision 12) installed from latest/stable, where
the store has 2.0 (15); the gate asks for 2.0. COMMAND is found in
/snap/bin, so the library knows the snap by its path. Update asks snapd
once, polkit answers, and 2.0 runs with the arguments; every refusal keeps
revision 12, the block and the store, with one line why."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from flatpak_world import ZENITY
from test_snap_world import posts, run_world, scenario, world_directory

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "build"


@pytest.fixture(scope="module")
def world():
    """The snap world's directory, with the build (the command, the library
    and its helper), an xdg-open that records what it is given, and the
    gate (2.0 required)."""
    top, root = world_directory("vg-snap-exec-")
    (top / "bin").mkdir()
    shutil.copy(BUILD / "bin" / "versiongate", top / "bin" / "versiongate")
    shutil.copytree(BUILD / "lib", top / "lib", symlinks=True)
    (top / "bin" / "xdg-open").write_text('#!/bin/sh\necho "$*" >> "$HOME/opened.log"\n')
    # Off any terminal, `--dialog zenity`: a zenity that records its argv
    # (and a --progress dialog's stdin) in $XDG_DATA_HOME/dialogs.log and answers Update.
    (top / "dialogs").mkdir()
    (top / "dialogs" / "zenity").write_text(ZENITY)
    os.chmod(top / "dialogs" / "zenity", 0o755)
    (top / "gate.json").write_text(json.dumps({"min_required_version_linux": "2.0", "latest_version_linux": "2.0",
                                               "update_url_linux": "snap://acme-notes"}))
    old = (top / "gate.json").stat().st_mtime - 3600
    os.utime(top / "gate.json", (old, old))
    os.chmod(top / "bin" / "xdg-open", 0o755)
    os.chmod(top / "gate.json", 0o644)
    yield top, root
    shutil.rmtree(top, ignore_errors=True)


# The Snap Store a blocked check asks first (docs/design.md, "Asking the channel"): loopback, closed.
EXEC = ('env PATH={top}/bin:/usr/bin:/bin:/snap/bin LD_LIBRARY_PATH={top}/lib LANG=C.UTF-8 '
        '{top}/bin/versiongate exec --dialog terminal --source {top}/gate.json --version {version} '
        '--set snap_store_endpoint=https://127.0.0.1:9 --events "$HOME/events.jsonl" -- acme-notes a b')
AFTER = ('; status=$?; echo "exit=$status"; echo "current=$(readlink /snap/acme-notes/current)"; '
         'sed "s/^/opened=/" "$HOME/opened.log" 2> /dev/null; sed "s/^/event=/" "$HOME/events.jsonl" 2> /dev/null; '
         'exit $status')


def exec_in(world, policy: str, state: Path, *, version: str = "1.0", before: str = "", then: str = ""):
    top, _ = world
    script = before + EXEC.format(top=top, version=version) + AFTER.replace("exit $status", then + "exit $status")
    return run_world(world, policy, state, script, terminal=True, answer=b"\n", timeout=90)


def events_of(text: str) -> list[dict]:
    return [json.loads(line[len("event="):]) for line in text.splitlines() if line.startswith("event=")]


def test_update_refreshes_through_snapd_and_runs_the_new_revision(world):
    top, _ = world
    text, status, requests, logs = exec_in(world, "allow", scenario(top))
    assert "[Enter]" in text, text + logs
    assert status == 0 and "exit=0" in text, text + logs
    assert "acme-notes 2.0 a b" in text and "acme-notes 1.0" not in text, text + logs
    assert "current=15" in text and "opened=" not in text, text
    assert "versiongate: updated; starting the new version" in text, text
    shown = [int(p) for p in re.findall(r"Updating: +(\d+)%", text)]
    assert len(shown) >= 2 and shown == sorted(shown) and shown[-1] == 100, text
    refreshes = posts(requests)
    assert len(refreshes) == 1, requests
    post = refreshes[0]
    assert post["headers"]["X-Allow-Interaction"] == "true" and post["uid"] == 4242, post
    assert post["body"] == {"action": "refresh"} and post["status"] == 202, post
    assert post["polkit"]["flags"] == 1 and post["polkit"]["authorized"] is True, post
    kinds = [(e["event"], e.get("kind")) for e in events_of(text) if e["event"].startswith("update_")]
    assert kinds == [("update_started", "snap"), ("update_installed", "snap")], events_of(text)


@pytest.mark.parametrize("policy, behaviour, extra, words", [
    ("deny", "refresh", {}, "(login-required)"),
    ("auth", "refresh", {}, "(login-required)"),
    ("allow", "refresh", {"polkit-answer": "dismissed"}, "(auth-cancelled)"),
    ("allow", "change-error", {}, "ended in Error"),
    ("allow", "conflict", {}, "already changing acme-notes"),
    ("none", "refresh", {}, "snapd is not running here"),
])
def test_every_refusal_keeps_the_old_revision_and_the_block(world, policy, behaviour, extra, words):
    top, _ = world
    state = scenario(top, behaviour)
    if extra:
        data = json.loads(state.read_text())
        data.update(extra)
        state.write_text(json.dumps(data))
    text, status, requests, logs = exec_in(world, policy, state)
    assert status == 20 and "exit=20" in text, text + logs
    assert "acme-notes 1.0" not in text and "acme-notes 2.0" not in text, "MANDATORY never starts COMMAND: " + text
    warnings = [line for line in text.splitlines() if "cannot update in place" in line]
    assert len(warnings) == 1 and words in warnings[0], text
    assert "opened=snap://acme-notes" in text, text
    assert policy == "none" or len(posts(requests)) == 1, requests
    assert "current=12" in text or policy == "none", text


def test_nothing_newer_lets_the_lagging_revision_run_and_the_next_check_is_optional(world):
    top, _ = world
    check = ('env LD_LIBRARY_PATH={top}/lib {top}/bin/versiongate check --json --source {top}/gate.json '
             '--set snap_name=acme-notes --set snap_store_endpoint=https://127.0.0.1:9 --version 1.0 | tr -d "\\n" | sed "s/^/json=/"; echo; '
             ).format(top=top)
    text, status, requests, logs = exec_in(world, "allow", scenario(top, "no-update"), then=check)
    assert "acme-notes 1.0 a b" in text and "exit=0" in text, text + logs
    assert "nothing newer for acme-notes" in text, text
    assert len(posts(requests)) == 1, requests
    line = next(line for line in text.splitlines() if line.startswith("json="))
    result = json.loads(line[len("json="):])
    assert (result["status"], result["channel"], result["channel_version"]) == ("OPTIONAL", "snap", "1.0"), result


def test_inside_strict_confinement_nothing_is_asked_and_the_app_quits(world):
    """The snap's own launcher: $SNAP* set, strict. No request to snapd;
    the text says the update installs once the app is closed; the store
    opens; exit 20. The next launch, of revision 15 (2.0), confirms it."""
    top, _ = world
    inside = ("SNAP=/snap/acme-notes/12 SNAP_NAME=acme-notes SNAP_INSTANCE_NAME=acme-notes SNAP_REVISION=12 "
              "SNAP_VERSION=1.0 ")
    later = (EXEC.format(top=top, version="2.0") + ' > /dev/null 2>&1; sed "s/^/later=/" "$HOME/events.jsonl"; ')
    text, status, requests, logs = exec_in(world, "allow", scenario(top), before=inside, then=later)
    assert status == 20 and "exit=20" in text, text + logs
    assert "installs the update once the app is closed" in text and "the app does not start" in text, text
    assert "opened=snap://acme-notes" in text and "acme-notes 1.0" not in text, text
    assert requests == [], "no request to snapd at all"
    confirmed = [json.loads(line[len("later="):]) for line in text.splitlines() if line.startswith("later=")]
    assert any(e["event"] == "update_confirmed" for e in confirmed), confirmed


def test_zenity_shows_the_refresh_and_the_new_revision_runs(world):
    """Off any terminal, with zenity: the blocking prompt, then snapd's
    change in a progress dialog rising to 100; 2.0 runs."""
    top, _ = world
    script = ('XDG_DATA_HOME=$HOME/data DISPLAY=:99 env PATH={top}/dialogs:{top}/bin:/usr/bin:/bin:/snap/bin '
              'LD_LIBRARY_PATH={top}/lib LANG=C.UTF-8 {top}/bin/versiongate exec --dialog zenity '
              '--source {top}/gate.json --version 1.0 --set snap_store_endpoint=https://127.0.0.1:9 '
              '-- acme-notes a b < /dev/null; echo "exit=$?"; sed "s/^/dialog=/" "$HOME/data/dialogs.log"').format(top=top)
    text, status, requests, logs = run_world(world, "allow", scenario(top), script, timeout=90)
    assert "acme-notes 2.0 a b" in text and "exit=0" in text, text + logs
    log = [line[len("dialog="):] for line in text.splitlines() if line.startswith("dialog=")]
    assert log and log[0].startswith("zenity --warning "), log
    assert re.fullmatch(r"zenity --progress --auto-close --no-cancel --width=420 --title=.+ --text=Updating", log[1]), log
    values = [int(line.split()[1]) for line in log[2:] if not line.startswith("zenity< #")]
    assert values and values == sorted(values) and values[-1] == 100, log
    assert len(posts(requests)) == 1, requests
