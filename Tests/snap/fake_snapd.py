#!/usr/bin/env python3
"""A fake snapd for the snap world (Tests/snap/world, NOTES.md): snapd's
REST API over HTTP/1.1 on a unix socket, with snapd's envelopes, error
kinds and polkit authorization, from a JSON scenario. Python 3 standard
library only; polkit is asked through `gdbus call` (libglib2.0-bin).

    fake_snapd.py [--socket PATH] [--requests FILE] [--ready FILE] [--root DIR] STATE
    fake_snapd.py --layout-only [--root DIR] STATE

STATE (JSON):

    {"progress": {"steps": 4, "delay": 0.2},
     "snaps": [{"name": "acme-notes",
                "installed": {"revision": 12, "version": "1.0",
                              "tracking-channel": "latest/stable", "confinement": "strict"},
                "store": {"latest/stable": {"revision": 15, "version": "2.0"},
                          "latest/beta": {"revision": 16, "version": "2.1~beta"}},
                "behaviour": "refresh"}]}

Endpoints (the rest: 404 "not found"; a known path, another method: 405):
    GET  /v2/snaps[?snaps=A,B]  GET /v2/snaps/NAME
    GET  /v2/find?name=NAME|q=TEXT|select=refresh
    GET  /v2/changes[?select=all|in-progress|ready&for=NAME]  GET /v2/changes/ID
    POST /v2/snaps/NAME {"action":"refresh"[,"channel":C]}
    POST /v2/snaps {"action":"refresh"[,"snaps":[...]]} (all installed snaps
         when none named; those with nothing newer are left out)
    POST /v2/changes/ID {"action":"abort"}      GET /v2/system-info
POSTs are authorized as snapd does: a root peer (SO_PEERCRED) is;
otherwise polkit's CheckAuthorization for io.snapcraft.snapd.manage,
subject unix-process (pid, start-time, uid), flag AllowUserInteraction
when X-Allow-Interaction parses true: yes, or 401 login-required "access
denied" (no, a challenge, an error), or 403 auth-cancelled "cancelled"
(polkit.dismissed).

behaviour (what a refresh POST gets once authorized):
    refresh       an async change that advances through `steps` download
                  progress steps `delay` s apart and ends Done: then the
                  channel's revision is installed (and runnable, see below)
    conflict      a change of kind `conflict-kind` (default "auto-refresh")
                  is in progress on the snap from the start (ending Done
                  after `conflict-seconds`, if given): 409 snap-change-conflict
    no-update     400 snap-no-update-available (also what `refresh` answers
                  when the channel's revision is the installed one)
    change-error  an async change that fails at its download-snap task with
                  `error` (default "simulated failure"): change status Error
    stall         an async change that stays Doing at 0 % forever
    hang          the POST is read and never answered
Top level "polkit-answer": "dismissed": polkitd is not asked; every
check is answered as if the user had cancelled an agent's dialog (403
auth-cancelled), which the world's polkit, with no agent, never does.
Other snap keys: summary, publisher (username), type ("app"), base, error,
conflict-kind, conflict-seconds. A snap without "installed" is only in the
store. Revisions may be numbers or strings.

The layout (under --root, default /): each installed revision has
/snap/NAME/REV/bin/NAME, a shell script printing "NAME VERSION ARGS..."
(one line), and meta/snap.yaml; /snap/NAME/current -> REV; /snap/bin/NAME
is a launcher that execs /snap/NAME/current/bin/NAME with SNAP,
SNAP_NAME, SNAP_REVISION and SNAP_VERSION set (in real snapd /snap/bin/NAME
is a symlink to /usr/bin/snap, which runs the app confined).

Every request is appended to --requests as one JSON line: time, method,
path, query, headers (X-Allow-Interaction, User-Agent, Content-Type,
Authorization present or not), body (parsed JSON when it is), peer uid,
pid, the polkit check made (if any) and the status answered (null for a
request left hanging, logged when it starts to hang).

It ends on SIGTERM or SIGINT, and when the process that started it ends
(PR_SET_PDEATHSIG), removing its socket.
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import hashlib
import http
import http.server
import json
import os
import re
import signal
import socket
import socketserver
import struct
import subprocess
import sys
import threading
import time
import urllib.parse

POLKIT_ACTION = "io.snapcraft.snapd.manage"
RISKS = ("stable", "candidate", "beta", "edge")
# Task kinds and summaries of a refresh, in snapd's order (overlord/snapstate:
# doInstall); REV stands for ' (N)'.
REFRESH_TASKS = [
    ("prerequisites", 'Ensure prerequisites for "{name}" are available'),
    ("download-snap", 'Download snap "{name}"{rev} from channel "{channel}"'),
    ("validate-snap", 'Fetch and check assertions for snap "{name}"{rev}'),
    ("mount-snap", 'Mount snap "{name}"{rev}'),
    ("run-hook", 'Run pre-refresh hook of "{name}" snap if present'),
    ("stop-snap-services", 'Stop snap "{name}" services'),
    ("remove-aliases", 'Remove aliases for snap "{name}"'),
    ("unlink-current-snap", 'Make current revision for snap "{name}" unavailable'),
    ("copy-snap-data", 'Copy snap "{name}" data'),
    ("setup-profiles", 'Setup snap "{name}"{rev} security profiles'),
    ("link-snap", 'Make snap "{name}"{rev} available to the system'),
    ("auto-connect", 'Automatically connect eligible plugs and slots of snap "{name}"'),
    ("set-auto-aliases", 'Set automatic aliases for snap "{name}"'),
    ("setup-aliases", 'Setup snap "{name}" aliases'),
    ("run-hook", 'Run post-refresh hook of "{name}" snap if present'),
    ("start-snap-services", 'Start snap "{name}"{rev} services'),
    ("cleanup", 'Clean up "{name}"{rev} install'),
    ("run-hook", 'Run health check of "{name}" snap'),
]
DOWNLOAD = 1        # index of download-snap in REFRESH_TASKS
LINK = 10           # index of link-snap
DOWNLOAD_SIZE = 4096 * 1024


def log(*parts) -> None:
    print(time.strftime("%H:%M:%S"), "fake-snapd:", *parts, file=sys.stderr, flush=True)


def now_text() -> str:
    """A time as snapd's JSON has it (Go's RFC 3339 with nanoseconds, UTC)."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def full_channel(name: str) -> str:
    """track/risk, as snapd's channel.Parse resolves it: "beta" is
    latest/beta, "2.0" is 2.0/stable (branches are not handled)."""
    name = (name or "stable").strip("/")
    parts = name.split("/")
    if len(parts) == 1:
        return "latest/" + parts[0] if parts[0] in RISKS else parts[0] + "/stable"
    return "/".join(parts[:2])


def parse_bool(text: str):
    """Go's strconv.ParseBool: None when it is not a boolean."""
    if text in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if text in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    return None


def start_time_of(pid: int) -> int:
    """The process's start time in clock ticks since boot: the 20th field
    after the ')' that closes the command name in /proc/PID/stat (the
    name may contain spaces and parentheses)."""
    with open("/proc/%d/stat" % pid) as f:
        stat = f.read()
    fields = stat[stat.rindex(")") + 2:].split(" ")
    return int(fields[19])


class ApiError(Exception):
    def __init__(self, status: int, message: str, kind: str | None = None, value=None, has_value: bool = False):
        super().__init__(message)
        self.status, self.message, self.kind, self.value = status, message, kind, value
        self.has_value = has_value or value is not None

    def result(self) -> dict:
        # snapd's errorResult: message (always), kind and value (omitempty).
        result = {"message": self.message}
        if self.kind:
            result["kind"] = self.kind
        if self.has_value:
            result["value"] = self.value
        return result


def login_required(status: int, message: str) -> ApiError:
    # daemon/errors.go makeErrorResponder: 401 and 403 carry login-required.
    return ApiError(status, message, "login-required")


class Hang(Exception):
    """Leave the request unanswered."""


class World:
    """The scenario and snapd's state: installed snaps, the store, changes."""

    def __init__(self, state: dict, root: str):
        self.lock = threading.RLock()
        self.root = root
        progress = state.get("progress", {})
        self.steps = max(1, int(progress.get("steps", 4)))
        self.delay = float(progress.get("delay", 0.2))
        # "dismissed": no polkitd asked; every check answers as polkit does when
        # the user cancels an agent's dialog (polkit.dismissed), which no
        # agent in the world can be made to do.
        self.polkit_answer = state.get("polkit-answer")
        self.snaps = {}
        for snap in state.get("snaps", []):
            snap = dict(snap)
            if "installed" in snap:
                inst = dict(snap["installed"])
                inst["revision"] = str(inst["revision"])
                inst["tracking-channel"] = full_channel(inst.get("tracking-channel", "latest/stable"))
                inst.setdefault("channel", inst["tracking-channel"])
                inst.setdefault("confinement", "strict")
                inst.setdefault("install-date", now_text())
                snap["installed"] = inst
            snap["store"] = {full_channel(ch): dict(rel, revision=str(rel["revision"]))
                             for ch, rel in snap.get("store", {}).items()}
            snap.setdefault("behaviour", "refresh")
            self.snaps[snap["name"]] = snap
        self.changes = []       # dicts, as GET /v2/changes/ID serves them (plus "_snaps")
        self.next_id = 1
        for snap in self.snaps.values():
            if snap["behaviour"] == "conflict" and "installed" in snap:
                self.start_conflicting_change(snap)

    # -- the layout -------------------------------------------------------
    def path(self, *parts) -> str:
        return os.path.join(self.root, "snap", *parts)

    def make_revision(self, name: str, revision: str, version: str) -> None:
        top = self.path(name, revision)
        os.makedirs(os.path.join(top, "bin"), exist_ok=True)
        os.makedirs(os.path.join(top, "meta"), exist_ok=True)
        program = os.path.join(top, "bin", name)
        with open(program + ".new", "w") as f:
            f.write('#!/bin/sh\n# %s %s, revision %s (the snap world, Tests/snap)\n'
                    "printf '%%s' '%s %s'; for a; do printf ' %%s' \"$a\"; done; echo\n" % (name, version, revision, name, version))
        os.chmod(program + ".new", 0o755)
        os.replace(program + ".new", program)
        with open(os.path.join(top, "meta", "snap.yaml"), "w") as f:
            f.write("name: %s\nversion: '%s'\napps:\n  %s:\n    command: bin/%s\n" % (name, version, name, name))
        os.chmod(os.path.join(top, "meta", "snap.yaml"), 0o644)
        for d in (self.path(), self.path(name), top, os.path.join(top, "bin"), os.path.join(top, "meta")):
            os.chmod(d, 0o755)

    def make_current(self, name: str, revision: str) -> None:
        """current -> REV, switched atomically (a rename over the link)."""
        link = self.path(name, "current")
        os.symlink(revision, link + ".new")
        os.replace(link + ".new", link)

    def make_launcher(self, name: str) -> None:
        bindir = self.path("bin")
        os.makedirs(bindir, exist_ok=True)
        os.chmod(bindir, 0o755)
        launcher = os.path.join(bindir, name)
        with open(launcher + ".new", "w") as f:
            f.write('#!/bin/sh\n'
                    '# The snap world\'s /snap/bin/%(n)s (real snapd: a symlink to /usr/bin/snap,\n'
                    '# which runs the app confined): the current revision, unconfined.\n'
                    'rev=$(readlink /snap/%(n)s/current) || { echo "%(n)s: not installed" >&2; exit 127; }\n'
                    'SNAP=/snap/%(n)s/$rev SNAP_NAME=%(n)s SNAP_REVISION=$rev '
                    'SNAP_VERSION=$(sed -n "s/^version: \'\\(.*\\)\'$/\\1/p" /snap/%(n)s/$rev/meta/snap.yaml) \\\n'
                    '    exec /snap/%(n)s/$rev/bin/%(n)s "$@"\n' % {"n": name})
        os.chmod(launcher + ".new", 0o755)
        os.replace(launcher + ".new", launcher)

    def make_layout(self) -> None:
        os.makedirs(self.path(), exist_ok=True)
        for name, snap in self.snaps.items():
            inst = snap.get("installed")
            if inst:
                self.make_revision(name, inst["revision"], inst["version"])
                self.make_current(name, inst["revision"])
                self.make_launcher(name)

    # -- snaps as snapd serves them --------------------------------------
    def publisher(self, snap: dict) -> dict:
        username = snap.get("publisher", "acme")
        return {"id": self.snap_id(username + "-publisher"), "username": username,
                "display-name": username.capitalize(), "validation": "unproven"}

    @staticmethod
    def snap_id(name: str) -> str:
        digest = hashlib.sha256(name.encode()).digest()
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        return "".join(alphabet[b % len(alphabet)] for b in digest[:32])

    def common(self, snap: dict) -> dict:
        name = snap["name"]
        return {"id": self.snap_id(name), "title": name, "summary": snap.get("summary", "The %s snap" % name),
                "description": snap.get("description", "%s, served by the snap world's fake snapd." % name)}

    def local(self, snap: dict) -> dict:
        """GET /v2/snaps/NAME's result (daemon/snap.go mapLocal)."""
        inst = snap["installed"]
        name = snap["name"]
        result = self.common(snap)
        result.update({
            "installed-size": 65536,
            "install-date": inst["install-date"],
            "name": name,
            "publisher": self.publisher(snap),
            "developer": self.publisher(snap)["username"],
            "status": "active",
            "type": snap.get("type", "app"),
            "base": snap.get("base", "core22"),
            "version": inst["version"],
            "channel": inst["channel"],
            "tracking-channel": inst["tracking-channel"],
            "ignore-validation": False,
            "revision": inst["revision"],
            "confinement": inst["confinement"],
            "private": False,
            "devmode": inst["confinement"] == "devmode",
            "jailmode": False,
            "apps": [{"snap": name, "name": name}],
            "license": snap.get("license", "unset"),
            "mounted-from": "/var/lib/snapd/snaps/%s_%s.snap" % (name, inst["revision"]),
            "links": None,
            "contact": "",
        })
        return result

    def remote(self, snap: dict) -> dict:
        """GET /v2/find?name=NAME's result (daemon/api_find.go mapRemote):
        the default release (latest/stable, else the first) and the
        channel map."""
        store = snap["store"]
        default_channel = "latest/stable" if "latest/stable" in store else next(iter(store))
        default = store[default_channel]
        channels = {}
        for ch, rel in store.items():
            channels[ch] = {"revision": rel["revision"], "confinement": rel.get("confinement", "strict"),
                            "version": rel["version"], "channel": ch,
                            "epoch": {"read": [0], "write": [0]}, "size": DOWNLOAD_SIZE,
                            "released-at": rel.get("released-at", "2026-01-15T10:00:00.000000Z")}
        tracks = []
        for ch in store:
            if ch.split("/")[0] not in tracks:
                tracks.append(ch.split("/")[0])
        result = self.common(snap)
        result.update({
            "download-size": DOWNLOAD_SIZE,
            "name": snap["name"],
            "publisher": self.publisher(snap),
            "store-url": "https://snapcraft.io/" + snap["name"],
            "developer": self.publisher(snap)["username"],
            "status": "available",
            "type": snap.get("type", "app"),
            "base": snap.get("base", "core22"),
            "version": default["version"],
            "channel": default_channel.split("/")[1],
            "ignore-validation": False,
            "revision": default["revision"],
            "confinement": default.get("confinement", "strict"),
            "private": False,
            "devmode": False,
            "jailmode": False,
            "license": snap.get("license", "unset"),
            "links": None,
            "contact": "",
            "channels": channels,
            "tracks": tracks,
        })
        return result

    # -- changes ---------------------------------------------------------
    def new_change(self, kind: str, summary: str, snap_names: list, tasks: list) -> dict:
        with self.lock:
            change = {"id": str(self.next_id), "kind": kind, "summary": summary, "status": "Do",
                      "tasks": tasks, "ready": False, "spawn-time": now_text(), "_snaps": list(snap_names)}
            if snap_names:      # api-data; an empty map is left out (omitempty)
                change["data"] = {"snap-names": list(snap_names)}
            self.next_id += 1
            self.changes.append(change)
        return change

    def task(self, kind: str, summary: str, spawn: str, n: int, change_id: str) -> dict:
        return {"id": "%s%02d" % (change_id, n), "kind": kind, "summary": summary, "status": "Do",
                "progress": {"label": "", "done": 0, "total": 1}, "spawn-time": spawn}

    def in_progress(self, name: str):
        for change in self.changes:
            if name in change["_snaps"] and not change["ready"]:
                return change
        return None

    def start_conflicting_change(self, snap: dict) -> None:
        name = snap["name"]
        kind = snap.get("conflict-kind", "auto-refresh")
        change = self.new_change(kind, 'Auto-refresh snap "%s"' % name, [name], [])
        spawn = change["spawn-time"]
        change["tasks"] = [self.task("download-snap", 'Download snap "%s" from channel "%s"'
                                     % (name, snap["installed"]["tracking-channel"]), spawn, 1, change["id"])]
        change["tasks"][0].update(status="Doing", progress={"label": name, "done": 0, "total": DOWNLOAD_SIZE})
        change["status"] = "Doing"
        seconds = snap.get("conflict-seconds")
        if seconds is not None:
            def finish():
                time.sleep(float(seconds))
                with self.lock:
                    ready = now_text()
                    change["tasks"][0].update(status="Done", progress={"label": name, "done": DOWNLOAD_SIZE,
                                                                        "total": DOWNLOAD_SIZE}, **{"ready-time": ready})
                    change.update(status="Done", ready=True, **{"ready-time": ready})
                log("change", change["id"], "(conflict) Done")
            threading.Thread(target=finish, daemon=True).start()

    def plan(self, name: str, channel_asked: str | None, many: bool):
        """What refreshing NAME means: (snap, channel, release, behaviour),
        or None (no update: skipped when many), or ApiError, or Hang.
        Call with the lock held."""
        snap = self.snaps.get(name)
        if snap is None or "installed" not in snap:
            # snapstate: snap.NotInstalledError (daemon/errors.go errToResponse).
            raise ApiError(400, 'snap "%s" is not installed' % name, "snap-not-installed", name)
        behaviour = snap["behaviour"]
        if behaviour == "hang":
            raise Hang()
        busy = self.in_progress(name)
        if busy is not None:
            # snapstate.ChangeConflictError -> SnapChangeConflict.
            raise ApiError(409, 'snap "%s" has "%s" change in progress' % (name, busy["kind"]),
                           "snap-change-conflict", {"change-kind": busy["kind"], "snap-name": name})
        inst = snap["installed"]
        channel = full_channel(channel_asked) if channel_asked else inst["tracking-channel"]
        release = snap["store"].get(channel)
        if release is None and many:
            return None
        if release is None:
            # store.RevisionNotAvailableError with releases -> snap-channel-not-available.
            raise ApiError(404, "no snap revision on specified channel", "snap-channel-not-available",
                           {"action": "refresh", "architecture": "amd64", "channel": channel,
                            "releases": [{"architecture": "amd64", "channel": ch} for ch in snap["store"]],
                            "snap-name": name})
        if behaviour == "no-update" or release["revision"] == inst["revision"]:
            if many:
                return None
            # store.ErrNoUpdateAvailable: 400, its message, value "" (no snap name).
            raise ApiError(400, "snap has no updates available", "snap-no-update-available", "")
        return snap, channel, release, behaviour

    def refresh(self, names: list[str], body: dict, many: bool) -> str:
        """POST /v2/snaps/NAME (one name) or /v2/snaps (NAMES, or all
        installed snaps when empty) {"action":"refresh"}, once authorized:
        the change's id, or an ApiError, or Hang."""
        with self.lock:
            asked = list(names)
            if many and not names:
                names = sorted(n for n, s in self.snaps.items() if "installed" in s)
            lanes = [lane for lane in (self.plan(n, body.get("channel"), many) for n in names) if lane]
            updated = [lane[0]["name"] for lane in lanes]
            # daemon/api_snaps.go: installRefreshMessage, snapUpdateMany.
            if len(updated) == 1:
                summary = 'Refresh "%s" snap' % updated[0]
                if body.get("channel") and body["channel"] != "stable":
                    summary += ' from "%s" channel' % body["channel"]
            elif updated:
                summary = "Refresh snaps " + ", ".join('"%s"' % n for n in updated)
            elif asked:
                summary = "Refresh snaps %s: no updates" % ", ".join('"%s"' % n for n in asked)
            else:
                summary = "Refresh all snaps: no updates"
            change = self.new_change("refresh-snap", summary, updated, [])
            for lane in lanes:
                snap, channel, release, _ = lane
                rev = " (%s)" % release["revision"]
                first = len(change["tasks"]) + 1
                change["tasks"] += [self.task(kind, text.format(name=snap["name"], rev=rev, channel=channel),
                                              change["spawn-time"], n, change["id"])
                                    for n, (kind, text) in enumerate(REFRESH_TASKS, first)]
            if not lanes:
                # No task sets: snapd sets the change Done at once.
                change.update(status="Done", ready=True, **{"ready-time": now_text()})
                return change["id"]
        threading.Thread(target=self.run_change, args=(change, lanes), daemon=True).start()
        return change["id"]

    def run_change(self, change: dict, lanes: list) -> None:
        """The change through time, one snap after the other: its
        prerequisites done, its download in `steps` steps `delay` apart,
        then the rest at once (Done: the revision installed), or the
        download fails (change-error), or it stays at 0 (stall). The
        change ends Error if a snap failed, else Done."""
        errors = []

        def finish_task(task, status="Done"):
            task.update(status=status, **{"ready-time": now_text()})
            if task["progress"]["total"] == 1:
                task["progress"]["done"] = 1

        for number, (snap, channel, release, behaviour) in enumerate(lanes):
            name = snap["name"]
            tasks = change["tasks"][number * len(REFRESH_TASKS):(number + 1) * len(REFRESH_TASKS)]
            with self.lock:
                if change["ready"]:     # aborted
                    return
                finish_task(tasks[0])
                tasks[DOWNLOAD].update(status="Doing", progress={"label": name, "done": 0, "total": DOWNLOAD_SIZE})
                change["status"] = "Doing"
            log("change", change["id"], name, behaviour, "started")
            if behaviour == "stall":
                return
            failed = False
            for step in range(1, self.steps + 1):
                time.sleep(self.delay)
                with self.lock:
                    if change["ready"]:
                        return
                    if behaviour == "change-error" and step == self.steps:
                        error = snap.get("error", "simulated failure")
                        download = tasks[DOWNLOAD]
                        download["log"] = ["%s ERROR %s" % (now_text()[:19] + "Z", error)]
                        finish_task(download, "Error")
                        for task in tasks[DOWNLOAD + 1:]:
                            task["status"] = "Hold"
                        errors.append("- %s (%s)" % (download["summary"], error))
                        log("change", change["id"], name, "Error:", error)
                        failed = True
                        break
                    tasks[DOWNLOAD]["progress"]["done"] = DOWNLOAD_SIZE * step // self.steps
            if failed:
                continue
            with self.lock:
                for task in tasks[DOWNLOAD:]:
                    finish_task(task)
                inst = snap["installed"]
                old = inst["revision"]
                self.make_revision(name, release["revision"], release["version"])
                self.make_current(name, release["revision"])
                self.make_launcher(name)
                inst.update({"revision": release["revision"], "version": release["version"], "channel": channel,
                             "tracking-channel": channel, "install-date": now_text()})
            log("change", change["id"], "%s revision %s -> %s (%s)" % (name, old, release["revision"],
                                                                       release["version"]))
        with self.lock:
            if errors:
                # overlord/state: changeError.
                change.update(status="Error", err="cannot perform the following tasks:\n" + "\n".join(errors))
            else:
                change["status"] = "Done"
            change.update(ready=True, **{"ready-time": now_text()})
        log("change", change["id"], change["status"])

    def abort(self, change_id: str) -> dict:
        with self.lock:
            change = self.change(change_id)
            if change["ready"]:
                raise ApiError(400, "cannot abort change %s with nothing pending" % change_id)
            for task in change["tasks"]:
                task["status"] = {"Do": "Hold", "Doing": "Undone", "Done": "Undone"}.get(task["status"], task["status"])
            change.update(status="Undone", ready=True, **{"ready-time": now_text()})
            return self.public(change)

    def change(self, change_id: str) -> dict:
        for change in self.changes:
            if change["id"] == change_id:
                return change
        raise ApiError(404, 'cannot find change with id "%s"' % change_id)

    @staticmethod
    def public(change: dict) -> dict:
        return json.loads(json.dumps({k: v for k, v in change.items() if not k.startswith("_")}))


def check_polkit(peer_pid: int, peer_uid: int, allow_interaction: bool,
                 answer: str | None = None) -> tuple[ApiError | None, dict]:
    """snapd's checkPolkitAction (daemon/access.go, polkit/authority.go):
    CheckAuthorization for a unix-process subject (pid, start-time, uid);
    authorized: None; polkit.dismissed in the details: 403 auth-cancelled
    "cancelled"; not authorized, a challenge or any polkit error: 401
    login-required "access denied"."""
    record = {"action": POLKIT_ACTION, "flags": 1 if allow_interaction else 0}
    try:
        start = start_time_of(peer_pid)
        record["subject"] = {"pid": peer_pid, "start-time": start, "uid": peer_uid}
        if answer == "dismissed":
            record.update(reply="(simulated) ((false, false, {'polkit.dismissed': 'true'}),)",
                          authorized=False, challenge=False, dismissed=True)
            return ApiError(403, "cancelled", "auth-cancelled"), record
        subject = "('unix-process', {'pid': <uint32 %d>, 'start-time': <uint64 %d>, 'uid': <uint32 %d>})" % (
            peer_pid, start, peer_uid)
        done = subprocess.run(
            ["gdbus", "call", "--system", "--timeout", "25", "--dest", "org.freedesktop.PolicyKit1",
             "--object-path", "/org/freedesktop/PolicyKit1/Authority",
             "--method", "org.freedesktop.PolicyKit1.Authority.CheckAuthorization",
             subject, POLKIT_ACTION, "@a{ss} {}", "uint32 %d" % record["flags"], ""],
            capture_output=True, text=True, timeout=30)
        record["reply"] = (done.stdout or done.stderr).strip()
        if done.returncode != 0:
            raise RuntimeError(record["reply"])
        # e.g. "((false, false, {'polkit.dismissed': 'true'}),)"; "@a{ss} {}" when empty.
        match = re.match(r"\(\((true|false), (true|false), (.*)\),\)$", record["reply"])
        if not match:
            raise RuntimeError("cannot parse polkit's reply: " + record["reply"])
        authorized, challenge = match.group(1) == "true", match.group(2) == "true"
        dismissed = "'polkit.dismissed'" in match.group(3)
        record.update(authorized=authorized, challenge=challenge, dismissed=dismissed)
    except Exception as e:      # noqa: BLE001 - snapd: "polkit error", then access denied
        record["error"] = str(e)
        log("polkit error:", e)
        return login_required(401, "access denied"), record
    if authorized:
        return None, record
    if not challenge and dismissed:
        return ApiError(403, "cancelled", "auth-cancelled"), record
    return login_required(401, "access denied"), record


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):     # the requests log says it all
        pass

    def address_string(self):
        return "unix"

    def peer(self) -> tuple[int, int]:
        creds = self.connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        pid, uid, _gid = struct.unpack("3i", creds)
        return pid, uid

    def read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return body
                body += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def send(self, status: int, envelope: dict) -> None:
        data = json.dumps(envelope).encode()
        # As Go's net/http writes it: no Server header.
        self.send_response_only(status)
        self.send_header("Date", self.date_time_string())
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def handle_one_request(self):
        try:
            super().handle_one_request()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def do_GET(self):
        self.dispatch()

    def do_POST(self):
        self.dispatch()

    def do_PUT(self):
        self.dispatch()

    def do_DELETE(self):
        self.dispatch()

    def dispatch(self):
        world: World = self.server.world
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        pid, uid = self.peer()
        raw = self.read_body()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode(errors="replace")
        entry = {"time": now_text(), "method": self.command, "path": url.path, "query": url.query,
                 "headers": {"X-Allow-Interaction": self.headers.get("X-Allow-Interaction"),
                             "User-Agent": self.headers.get("User-Agent"),
                             "Content-Type": self.headers.get("Content-Type"),
                             "Authorization": "present" if self.headers.get("Authorization") else None},
                 "body": body, "uid": uid, "pid": pid}
        try:
            status, envelope = self.route(world, url.path, query, body, uid, pid, entry)
        except Hang:
            entry["status"] = None
            self.server.record(entry)
            log(self.command, self.path, "uid", uid, "-> (hanging)")
            self.server.stopping.wait()
            self.close_connection = True
            return
        except ApiError as e:
            status = e.status
            envelope = {"type": "error", "status-code": e.status, "status": http.HTTPStatus(e.status).phrase,
                        "result": e.result()}
        entry["status"] = status
        if envelope.get("type") == "error":
            entry["error"] = envelope["result"]
        self.server.record(entry)
        log(self.command, self.path, "uid", uid, "->", status, envelope.get("change") or
            (envelope["result"].get("kind") or envelope["result"].get("message") if envelope.get("type") == "error" else ""))
        self.send(status, envelope)

    @staticmethod
    def sync(result, **extra) -> tuple[int, dict]:
        envelope = {"type": "sync", "status-code": 200, "status": "OK", "result": result}
        envelope.update(extra)
        return 200, envelope

    def authorize(self, uid: int, pid: int, entry: dict) -> None:
        """authenticatedAccess{Polkit: io.snapcraft.snapd.manage}: root, or polkit."""
        if uid == 0:
            return
        allow = parse_bool(self.headers.get("X-Allow-Interaction", "")) or False
        error, record = check_polkit(pid, uid, allow, self.server.world.polkit_answer)
        entry["polkit"] = record
        if error is not None:
            raise error

    def route(self, world: World, path: str, query: dict, body, uid: int, pid: int, entry: dict):
        method = self.command
        parts = path.rstrip("/").split("/")
        one = parts[3] if len(parts) == 4 else None
        if path == "/v2/snaps" and method == "GET":
            wanted = set(",".join(query.get("snaps", [])).split(",")) - {""}
            with world.lock:
                return self.sync([dict(world.local(snap), resource="/v2/snaps/" + name)
                                  for name, snap in sorted(world.snaps.items())
                                  if "installed" in snap and (not wanted or name in wanted)])
        if one and parts[:3] == ["", "v2", "snaps"] and method == "GET":
            with world.lock:
                snap = world.snaps.get(one)
                if snap is None or "installed" not in snap:
                    raise ApiError(404, "snap not installed", "snap-not-found", one)
                return self.sync(world.local(snap))
        if one and parts[:3] == ["", "v2", "snaps"] and method == "POST":
            # Access first (snapd checks it before the handler reads the body).
            self.authorize(uid, pid, entry)
            if not isinstance(body, dict):
                raise ApiError(400, "cannot decode request body into snap instruction: %r" % (body,))
            action = body.get("action")
            if action != "refresh":
                raise ApiError(400, "unknown action %s" % action)
            return 202, {"type": "async", "status-code": 202, "status": "Accepted", "result": None,
                         "change": world.refresh([one], body, many=False)}
        if path == "/v2/snaps" and method == "POST":
            self.authorize(uid, pid, entry)
            if not isinstance(body, dict):
                raise ApiError(400, "cannot decode request body into snap instruction: %r" % (body,))
            if body.get("channel") or body.get("revision"):
                raise ApiError(400, "unsupported option provided for multi-snap operation")
            if body.get("action") != "refresh":
                raise ApiError(400, 'unsupported multi-snap operation "%s"' % body.get("action"))
            return 202, {"type": "async", "status-code": 202, "status": "Accepted", "result": None,
                         "change": world.refresh(body.get("snaps") or [], body, many=True)}
        if path == "/v2/find" and method == "GET":
            name = (query.get("name") or [""])[0]
            with world.lock:
                if (query.get("select") or [""])[0] == "refresh":
                    # snap refresh --list: what a refresh would bring, per tracked channel.
                    found = []
                    for n, snap in sorted(world.snaps.items()):
                        inst = snap.get("installed")
                        release = inst and snap["store"].get(inst["tracking-channel"])
                        if release and release["revision"] != inst["revision"] and snap["behaviour"] != "no-update":
                            found.append(dict(world.remote(snap), version=release["version"],
                                              revision=release["revision"], channel=inst["tracking-channel"]))
                    return self.sync(found, sources=["store"])
                if name and not name.endswith("*"):
                    snap = world.snaps.get(name)
                    if snap is None or not snap["store"]:
                        raise ApiError(404, "snap not found", "snap-not-found", name)
                    return self.sync([world.remote(snap)], sources=["store"])
                text = name.rstrip("*") or (query.get("q") or [""])[0]
                return self.sync([world.remote(s) for n, s in sorted(world.snaps.items()) if s["store"] and text in n],
                                 sources=["store"])
        if path == "/v2/changes" and method == "GET":
            select = (query.get("select") or ["in-progress"])[0]
            keep = {"all": lambda c: True, "in-progress": lambda c: not c["ready"],
                    "ready": lambda c: c["ready"]}.get(select)
            if keep is None:
                raise ApiError(400, "select should be one of: all,in-progress,ready")
            name = (query.get("for") or [""])[0]
            with world.lock:
                return self.sync([world.public(c) for c in world.changes
                                  if keep(c) and (not name or name in c["_snaps"])])
        if one and parts[:3] == ["", "v2", "changes"] and method == "GET":
            with world.lock:
                return self.sync(world.public(world.change(one)))
        if one and parts[:3] == ["", "v2", "changes"] and method == "POST":
            self.authorize(uid, pid, entry)
            if not isinstance(body, dict) or body.get("action") != "abort":
                raise ApiError(400, 'change action "%s" is unsupported'
                               % (body.get("action") if isinstance(body, dict) else ""))
            return self.sync(world.abort(one))
        if path == "/v2/system-info" and method == "GET":
            return self.sync({"series": "16", "version": "2.68.3+fake", "build-id": "fake",
                              "os-release": {"id": "debian", "version-id": "13"}, "on-classic": True,
                              "managed": False, "kernel-version": os.uname().release,
                              "locations": {"snap-mount-dir": "/snap", "snap-bin-dir": "/snap/bin"},
                              "refresh": {"timer": "00:00~24:00/4"}, "architecture": "amd64",
                              "confinement": "partial", "sandbox-features": {}})
        if path in ("/v2/snaps", "/v2/find", "/v2/changes", "/v2/system-info") or (
                one and parts[:3] in (["", "v2", "snaps"], ["", "v2", "changes"])):
            raise ApiError(405, 'method "%s" not allowed' % method)
        # daemon.go: the router's NotFoundHandler.
        raise ApiError(404, "not found")


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    allow_reuse_address = False

    def __init__(self, path: str, world: World, requests: str | None):
        self.world, self.requests = world, requests
        self.stopping = threading.Event()
        self.log_lock = threading.Lock()
        super().__init__(path, Handler)

    def record(self, entry: dict) -> None:
        if not self.requests:
            return
        with self.log_lock, open(self.requests, "a") as f:
            f.write(json.dumps(entry) + "\n")


def clear_stale(path: str) -> None:
    """Removes a socket nothing listens on; refuses to take a live one."""
    if not os.path.lexists(path):
        return
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.settimeout(2)
        probe.connect(path)
    except OSError:
        os.unlink(path)
        return
    finally:
        probe.close()
    raise SystemExit("fake-snapd: something already listens on %s" % path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("state", help="the scenario (JSON)")
    parser.add_argument("--socket", default="/run/snapd.socket")
    parser.add_argument("--requests", help="append one JSON line per request here")
    parser.add_argument("--ready", help="created once the socket accepts connections")
    parser.add_argument("--root", default="/", help="where /snap is made (default /)")
    parser.add_argument("--layout-only", action="store_true", help="make /snap from STATE and exit")
    args = parser.parse_args()
    with open(args.state) as f:
        world = World(json.load(f), args.root)
    world.make_layout()
    if args.layout_only:
        return 0
    clear_stale(args.socket)
    server = Server(args.socket, world, args.requests)
    os.chmod(args.socket, 0o666)
    if args.requests:
        open(args.requests, "a").close()
        os.chmod(args.requests, 0o644)

    def stop(signum, frame):
        raise SystemExit(0)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # Nothing outlives its starter: SIGTERM when the parent ends
    # (PR_SET_PDEATHSIG), and an end now if it already has.
    parent = os.getppid()
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        raise SystemExit("fake-snapd: my parent is gone")
    if args.ready:
        with open(args.ready, "w") as f:
            f.write("%d\n" % os.getpid())
    log("listening on", args.socket, "with", ", ".join("%s (%s)" % (n, s["behaviour"]) for n, s in world.snaps.items()))
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        log("stopping")
        server.stopping.set()
        server.server_close()
        try:
            os.unlink(args.socket)
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
