"""Updating a snap through snapd (docs/design.md, "Updating a snap"), the
library's side end to end: the real libversiongate.so from Python, its real
helper, libcurl over a real unix socket at /run/snapd.socket (a tmpfs over
/run in a private mount namespace) and Tests/snap/fake_snapd.py answering
with snapd's envelopes, changes and error kinds. Each case checks one
blocked version (1.0; the gate asks for 2.0) and chooses Update. The fake
logs every request, so "asked nothing" and "exactly one refresh" are seen.
polkit's answers and an ordinary user are the snap world's (Tests/snap/world,
test_snap_world.py); here the peer is root, whom snapd does not ask about.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LIB = REPO / "build" / "lib"
FAKE = REPO / "Tests" / "snap" / "fake_snapd.py"

# Runs inside the namespace: one client, a check of 1.0, Update, a check again.
DRIVER = r"""
import json, os, sys
sys.path.insert(0, os.environ["VG_PYTHON"])
import versiongate as vg
# The Snap Store a blocked check asks (docs/design.md, "Asking the channel"): loopback, closed.
options = {"snap_store_endpoint": "https://127.0.0.1:9", **json.loads(os.environ["VG_OPTIONS"])}
client = vg.Client(source=os.environ["VG_GATE"], session_scope="process", **options)
result = client.check("1.0")
steps = []
outcome, why = client.update(result, progress=lambda op, count, percent: steps.append(percent))
again = client.check("1.0")
fresh = vg.Client(source=os.environ["VG_GATE"], session_scope="process", **options).check("1.0")
print(json.dumps({"status": result.status.name, "install_kind": result.get("install_kind"),
                  "outcome": outcome.name, "why": why, "steps": steps,
                  "again": [again.status.name, again.get("channel"), again.get("channel_version"), again.rule],
                  "fresh": [fresh.status.name, fresh.get("channel")]}))
"""


def scenario(behaviour: str, **more) -> dict:
    snap = {"name": "acme-notes", "behaviour": behaviour,
            "installed": {"revision": 12, "version": "1.0", "tracking-channel": "latest/stable", "confinement": "strict"},
            "store": {"latest/stable": {"revision": 15, "version": "2.0"},
                      "latest/beta": {"revision": 16, "version": "2.1"}}}
    return {"progress": {"steps": 3, "delay": 0.05}, "snaps": [snap], **more}


def update(state: dict | None, options: dict, env: dict | None = None, setup: str = "") -> tuple[dict, list[dict]]:
    """The driver's findings, and the requests the fake answered (none
    without a fake: `state` None). `setup` runs first in the namespace."""
    with tempfile.TemporaryDirectory(prefix="vg-snap.") as tmp:
        tmp = Path(tmp)
        gate = tmp / "gate.json"
        gate.write_text(json.dumps({"min_required_version_linux": "2.0", "latest_version_linux": "2.0",
                                    "update_url_linux": "snap://acme-notes"}))
        old = time.time() - 3600
        os.utime(gate, (old, old))
        requests = tmp / "requests.jsonl"
        start = ""
        if state is not None:
            (tmp / "state.json").write_text(json.dumps(state))
            start = (f'{sys.executable} {FAKE} --socket /run/snapd.socket --requests {requests} --ready {tmp}/ready '
                     f'--root {tmp}/root {tmp}/state.json > {tmp}/fake.log 2>&1 & '
                     f'for i in $(seq 100); do [ -e {tmp}/ready ] && break; sleep 0.05; done; ')
        home = tmp / "home"
        home.mkdir()
        variables = {"PATH": "/usr/bin:/bin", "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"),
                     "XDG_STATE_HOME": str(home / ".state"), "XDG_RUNTIME_DIR": str(tmp), "LANG": "C.UTF-8",
                     "LD_LIBRARY_PATH": str(LIB), "VG_PYTHON": str(REPO / "python"), "VG_GATE": str(gate),
                     "VG_OPTIONS": json.dumps(options), **(env or {})}
        shell = f"mount -t tmpfs tmpfs /run && {setup}{start}exec {sys.executable} -c \"$DRIVER\""
        done = subprocess.run(["unshare", "-m", "sh", "-c", shell], env={**variables, "DRIVER": DRIVER},
                              capture_output=True, text=True, timeout=60)
        logged = (tmp / "fake.log").read_text() if (tmp / "fake.log").exists() else ""
        assert done.returncode == 0, done.stderr + logged
        lines = requests.read_text().splitlines() if requests.exists() else []
        return json.loads(done.stdout.splitlines()[-1]), [json.loads(line) for line in lines]


def posts(requests: list[dict]) -> list[dict]:
    return [r for r in requests if r["method"] == "POST" and r["path"] == "/v2/snaps/acme-notes"]


def test_update_refreshes_the_snap_once_with_interaction_allowed_and_follows_its_change():
    got, requests = update(scenario("refresh"), {"snap_name": "acme-notes"})
    assert got["status"] == "MANDATORY" and got["install_kind"] == "snap", got
    assert got["outcome"] == "INSTALLED" and got["why"] == "", got
    refreshes = posts(requests)
    assert len(refreshes) == 1, requests
    assert refreshes[0]["headers"]["X-Allow-Interaction"] == "true", refreshes
    assert refreshes[0]["body"] == {"action": "refresh"}, refreshes
    follows = [r for r in requests if r["method"] == "GET" and r["path"].startswith("/v2/changes/")]
    assert follows and all(r["status"] == 200 for r in follows), requests
    assert got["steps"][-1] == 100 and got["steps"] == sorted(got["steps"]) and len(got["steps"]) >= 2, got


def test_the_operators_channel_is_asked_for():
    got, requests = update(scenario("refresh"), {"snap_name": "acme-notes", "snap_channel": "latest/beta"})
    assert got["outcome"] == "INSTALLED", got
    assert [r["body"] for r in posts(requests)] == [{"action": "refresh", "channel": "latest/beta"}], requests


def test_nothing_newer_in_its_channel_is_the_snap_channels_answer():
    """snap-no-update-available: NOTHING_NEW, and the next check (this
    client's, and a new client's from the channel's cache) lets 1.0 run."""
    got, requests = update(scenario("no-update"), {"snap_name": "acme-notes"})
    assert got["outcome"] == "NOTHING_NEW" and "nothing newer for acme-notes" in got["why"], got
    assert len(posts(requests)) == 1, requests
    assert got["again"] == ["OPTIONAL", "snap", "1.0", "channel_behind"], got
    assert got["fresh"] == ["OPTIONAL", "snap"], got


@pytest.mark.parametrize("behaviour, more, outcome, words", [
    ("conflict", {}, "FAILED", "already changing acme-notes"),
    ("change-error", {}, "FAILED", "ended in Error"),
])
def test_every_refusal_keeps_the_block_and_says_why(behaviour, more, outcome, words):
    got, requests = update(scenario(behaviour, **more), {"snap_name": "acme-notes"})
    assert got["outcome"] == outcome and words in got["why"], got
    assert len(posts(requests)) == 1, requests
    assert got["again"][0] == "MANDATORY" and got["fresh"][0] == "MANDATORY", got


def test_a_snapd_that_does_not_answer_is_given_up_on():
    """The refresh is waited for 30 times timeout_ms (polkit may be asking)."""
    started = time.monotonic()
    got, requests = update(scenario("hang"), {"snap_name": "acme-notes", "timeout_ms": "200"})
    assert got["outcome"] == "FAILED" and "no answer within 6000 ms" in got["why"], got
    assert time.monotonic() - started < 30, "bounded by 30 x timeout_ms"
    assert got["again"][0] == "MANDATORY", got


def test_no_snapd_is_unavailable():
    got, requests = update(None, {"snap_name": "acme-notes"})
    assert got["outcome"] == "UNAVAILABLE" and "snapd is not running here" in got["why"], got
    assert got["again"][0] == "MANDATORY", got


def test_inside_strict_confinement_nothing_is_asked_of_snapd(tmp_path):
    snap = tmp_path / "snap" / "acme-notes" / "12"
    (snap / "meta").mkdir(parents=True)
    (snap / "meta" / "snap.yaml").write_text("name: acme-notes\nversion: '1.0'\nconfinement: strict\n")
    env = {"SNAP": str(snap), "SNAP_NAME": "acme-notes", "SNAP_INSTANCE_NAME": "acme-notes", "SNAP_REVISION": "12"}
    got, requests = update(scenario("refresh"), {}, env=env)
    assert got["install_kind"] == "snap", got
    assert got["outcome"] == "AFTER_EXIT" and "installs the update once the app is closed" in got["why"], got
    assert requests == [], "no request to snapd at all"
    # A classic snap may ask snapd itself.
    (snap / "meta" / "snap.yaml").write_text("name: acme-notes\nconfinement: classic\n")
    got, requests = update(scenario("refresh"), {}, env=env)
    assert got["outcome"] == "INSTALLED" and len(posts(requests)) == 1, (got, requests)


@pytest.mark.parametrize("options, env, setup, kind, remedy", [
    ({"program": "/nix/store/0123abcd-acme-notes-1.0/bin/acme-notes"}, {}, "", "nix",
     "update it through your Nix configuration"),
    ({"distro_package": "acme-notes"}, {}, "touch /run/ostree-booted && ", "ostree", "rpm-ostree upgrade, then restart"),
    ({}, {"APPIMAGE": "/home/linuxbrew/.linuxbrew/Caskroom/acme-notes/1.0/Acme.AppImage"}, "", "homebrew",
     "brew upgrade --cask acme-notes"),
])
def test_where_nothing_may_update_nothing_is_asked_and_the_remedy_is_said(options, env, setup, kind, remedy):
    got, requests = update(scenario("refresh"), options, env=env, setup=setup)
    assert got["install_kind"] == kind, got
    assert got["outcome"] == "NOT_FLATPAK" and remedy in got["why"], got
    assert requests == [], "no updater asked"
