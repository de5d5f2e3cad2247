"""Updating a distribution package through PackageKit (docs/design.md,
"Updating a distribution package"), end to end: in a clean Debian 13 root
(scripts/chroot's packagekit set) with packagekitd and polkitd on a
private system bus and a local apt repository holding vgdemo 1.0 and 2.0
(Tests/packagekit: make_repo, world and NOTES.md), an ordinary user runs
`versiongate exec --set distro_package=vgdemo -- vgdemo a b` on a terminal
(a pty) with vgdemo 1.0 installed (or without distro_package: the owner of
COMMAND's program); its gate asks for 2.0. Update asks
PackageKit, polkit answers by the world's rule, and vgdemo 2.0 runs with
the arguments; a refusal and no PackageKit each leave 1.0 and open the
store with the reason."""

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
BUILD = REPO / "build"


def packagekit_root() -> str:
    return chroot_root("packagekit")


@pytest.fixture(scope="module")
def world():
    """A root-owned, world-readable directory bound into the root: the
    repository, the world script, the build (the command, the library and
    its helper, trusted as root's) and the gate, which asks for 2.0."""
    if os.geteuid() != 0:
        pytest.fail("the PackageKit world needs root (chroot, mount namespaces)")
    root = packagekit_root()
    top = Path(tempfile.mkdtemp(prefix="vg-packagekit-", dir="/tmp"))
    os.chmod(top, 0o755)
    subprocess.run([str(REPO / "Tests" / "packagekit" / "make_repo"), str(top / "repo")], check=True,
                   capture_output=True, timeout=120)
    shutil.copy(REPO / "Tests" / "packagekit" / "world", top / "world")
    (top / "bin").mkdir()
    shutil.copy(BUILD / "bin" / "versiongate", top / "bin" / "versiongate")
    shutil.copytree(BUILD / "lib", top / "lib", symlinks=True)
    subprocess.run(["cc", "-I", str(REPO / "Sources" / "VersionGateC" / "include"),
                    str(REPO / "Tests" / "packagekit" / "cancel_update.c"), "-o", str(top / "bin" / "cancel_update"),
                    "-L", str(top / "lib"), "-lversiongate", "-Wl,-rpath," + str(top / "lib")], check=True, timeout=120)
    # The store fallback's opener records what it was given.
    (top / "bin" / "xdg-open").write_text('#!/bin/sh\necho "$*" >> "$HOME/opened.log"\n')
    os.chmod(top / "bin" / "xdg-open", 0o755)
    (top / "gate.json").write_text(json.dumps({"min_required_version_linux": "2.0", "latest_version_linux": "2.0",
                                               "update_url_linux": "https://flathub.org/apps/org.example.VgDemo"}))
    for path in [top, *top.rglob("*")]:
        if not path.is_symlink():
            os.chmod(path, 0o755 if path.is_dir() or path.stat().st_mode & 0o100 else 0o644)
    yield top, root
    shutil.rmtree(top, ignore_errors=True)


def run_world(world, policy: str, *, fresh: bool, answer: bytes = b"\n", timeout: float = 240, script: str = "",
              settings: str = "--set distro_package=vgdemo", behind: bool = False):
    """`versiongate exec` in the world as vguser on a pty, `answer` typed
    at the first prompt; then the installed version and the events.
    Output (pty), exit status and the daemons' logs, with dbus-monitor's
    trace of the system bus (monitor.log)."""
    top, root = world
    log = Path(tempfile.mkdtemp(prefix="log-", dir=top))
    os.chmod(log, 0o777)
    script = script.format(top=top) or (
        'env PATH={top}/bin:/usr/bin:/bin LD_LIBRARY_PATH={top}/lib LANG=C.UTF-8 '
        '{top}/bin/versiongate exec --dialog terminal --source {top}/gate.json --version 1.0 '
        '{settings} --events "$HOME/events.jsonl" -- vgdemo a b; status=$?; '
        'echo "exit=$status"; dpkg-query -W -f="installed=\\${{Version}}\\n" vgdemo; '
        'sed "s/^/event=/" "$HOME/events.jsonl"; sed "s/^/opened=/" "$HOME/opened.log" 2> /dev/null; exit $status'
        ).format(top=top, settings=settings)
    argv = [str(REPO / "scripts" / "chroot"), "run", "--bind", str(top), root, str(top / "world"),
            "--log", str(log), "--monitor", *(["--fresh"] if fresh else []), *(["--behind"] if behind else []), policy, str(top / "repo"), "--", "sh", "-c", script]
    # MANDATORY's "[Enter] Update"; OPTIONAL's "[u] Update ... [l] Later (default)".
    text, status = run_on_terminal(argv, None, answer, timeout, prompts=(b"[Enter]", b"[s] "))
    logs = "".join("\n=== %s\n%s" % (f.name, f.read_text(errors="replace")) for f in sorted(log.glob("*.log")))
    return text, status, logs


def tail(logs: str) -> str:
    """The daemons' logs as a failure shows them: the end of each."""
    return "".join("=== " + part[-2000:] for part in logs.split("\n=== ")[1:])


def events_of(text: str) -> list[dict]:
    return [json.loads(line[len("event="):]) for line in text.splitlines() if line.startswith("event=")]


def test_update_installs_the_new_package_and_runs_it(world):
    """The lists already know 2.0: MANDATORY stands (the channel serves
    it); Update installs it through one UpdatePackages and vgdemo 2.0 runs."""
    text, status, logs = run_world(world, "allow", fresh=True)
    assert "[Enter]" in text, text + tail(logs)
    assert "vgdemo 2.0 a b" in text and "vgdemo 1.0" not in text, text + tail(logs)
    assert "installed=2.0" in text and "exit=0" in text and status == 0, text + tail(logs)
    assert "versiongate: updated; starting the new version" in text and "opened=" not in text, text
    events = events_of(text)
    started = [e for e in events if e["event"] == "update_started"]
    installed = [e for e in events if e["event"] == "update_installed"]
    assert [e["kind"] for e in started] == ["package"] and [e["kind"] for e in installed] == ["package"], events
    assert installed[0]["from"] == "1.0" and installed[0]["to"] == "2.0", installed
    # PackageKit did it, as the bus saw: this package only, ONLY_TRUSTED (bitfield 2).
    assert re.search(r"member=UpdatePackages\n\s+uint64 2\n\s+array \[\n\s+string \"vgdemo;2\.0;all;[^\"]*\"\n\s+\]",
                     logs), tail(logs)
    assert "member=RefreshCache" not in logs, tail(logs)
    # The transaction's own progress, rising: PackageKit's 100 while it
    # loads its cache (before the download's 0) would have closed zenity's
    # --auto-close dialog at the start.
    shown = [int(p) for p in re.findall(r"Updating: +(\d+)%", text)]
    assert shown and shown == sorted(shown) and 100 not in shown[:-1], shown


def test_the_package_of_command_is_found_without_distro_package(world):
    """No distro_package: exec names COMMAND as the app's program, and
    dpkg's owner of /usr/bin/vgdemo, installed at the checked 1.0, is the
    package updated."""
    text, status, logs = run_world(world, "allow", fresh=True, settings="")
    assert "vgdemo 2.0 a b" in text and "installed=2.0" in text and status == 0, text + tail(logs)
    assert re.search(r"member=UpdatePackages\n\s+uint64 2\n\s+array \[\n\s+string \"vgdemo;2\.0;", logs), tail(logs)


def test_a_program_of_another_package_is_not_updated(world):
    """--set program= naming a program another package owns (dpkg's own,
    not at the app's version): nothing is asked of PackageKit, and the
    store opens with the reason."""
    text, status, logs = run_world(world, "allow", fresh=True, settings="--set program=/usr/bin/dpkg")
    assert re.search(r"/usr/bin/dpkg belongs to dpkg [^ ]+, not to this app's version 1\.0", text), text + tail(logs)
    assert "opened=https://flathub.org/apps/org.example.VgDemo" in text and "installed=1.0" in text, text
    assert status == 20 and "member=CreateTransaction" not in logs, text + tail(logs)


def test_stale_lists_are_refreshed_before_the_update(world):
    """apt's lists predate 2.0: the channel serves 1.0, so the gate lets
    1.0 run (OPTIONAL, channel_behind); Update still finds 2.0, after
    PackageKit's RefreshCache, and runs it."""
    text, status, logs = run_world(world, "allow", fresh=False, answer=b"u\n")
    assert "[u] " in text and "[Enter]" not in text, text + tail(logs)
    assert "vgdemo 2.0 a b" in text and "installed=2.0" in text and status == 0, text + tail(logs)
    assert "member=RefreshCache" in logs and "member=UpdatePackages" in logs, tail(logs)


def test_a_cancel_cancels_the_transaction(world):
    """The progress callback cancels at its first step: vg_client_update
    returns CANCELLED at once, and the helper, left to see it through,
    calls the transaction's Cancel when it finds the host gone (its next
    progress write fails): vgdemo 2.0's preinst takes 3 s here, so the
    transaction is still running then."""
    text, status, logs = run_world(world, "allow", fresh=True, script=(
        'touch /tmp/vgdemo-slow-install; {top}/bin/cancel_update {top}/gate.json; '
        'dpkg-query -W -f="installed=\\${{Version}}\\n" vgdemo'))
    assert "code=%d outcome=6 steps=1 why=cancelled by the host: PackageKit's transaction is cancelled" % -17 in text, \
        text + tail(logs)
    assert re.search(r"path=/[^;]*; interface=org\.freedesktop\.PackageKit\.Transaction; member=Cancel\n", logs), tail(logs)


def test_a_refused_authorization_opens_the_store_and_keeps_the_old_version(world):
    text, status, logs = run_world(world, "deny", fresh=True)
    assert "cannot update in place: PackageKit was not authorized to update vgdemo" in text, text + tail(logs)
    assert "opening the store instead" in text and "opened=https://flathub.org/apps/org.example.VgDemo" in text, text
    assert "installed=1.0" in text and "vgdemo 1.0" not in text and "vgdemo 2.0" not in text, text
    assert status == 20 and "exit=20" in text, text
    failed = [e for e in events_of(text) if e["event"] == "update_failed"]
    assert [(e["kind"], e["outcome"]) for e in failed] == [("package", "refused")], failed


def test_no_packagekit_opens_the_store_with_the_reason(world):
    text, status, logs = run_world(world, "none", fresh=True)
    assert "cannot update in place: no PackageKit (org.freedesktop.PackageKit) on the system bus" in text, text + tail(logs)
    assert "opened=https://flathub.org/apps/org.example.VgDemo" in text and "installed=1.0" in text and status == 20, text
    failed = [e for e in events_of(text) if e["event"] == "update_failed"]
    assert [(e["kind"], e["outcome"]) for e in failed] == [("package", "unavailable")], failed


NEXT_CHECK = ('; env PATH={top}/bin:/usr/bin:/bin LD_LIBRARY_PATH={top}/lib LANG=C.UTF-8 {top}/bin/versiongate check '
              '--source {top}/gate.json --version 1.0 --json {settings} | sed "s/^/next=/"')


@pytest.mark.parametrize("fresh", [True, False], ids=["lists fresh", "lists stale"])
def test_nothing_newer_is_the_channels_answer_too(world, fresh):
    """The repository serves nothing newer than the installed 1.0 and no
    distro_package is named (the owner of COMMAND's program is found):
    Update finds nothing to install, says why on stderr first, and vgdemo
    1.0 runs with the message; the next check decides from that answer:
    OPTIONAL, channel package at 1.0."""
    top, _ = world
    script = ('env PATH={top}/bin:/usr/bin:/bin LD_LIBRARY_PATH={top}/lib LANG=C.UTF-8 '
              '{top}/bin/versiongate exec --dialog terminal --source {top}/gate.json --version 1.0 -- vgdemo a b; '
              'echo "exit=$?"; dpkg-query -W -f="installed=\\${{Version}}\\n" vgdemo'
              + NEXT_CHECK.format(top="{top}", settings=""))
    text, status, logs = run_world(world, "allow", fresh=fresh, behind=True, script=script)
    assert "vgdemo 1.0 a b" in text and "exit=0" in text and "installed=1.0" in text, text + tail(logs)
    why = text.index("versiongate: warning: nothing to install: ")
    assert "nothing newer" in text[why:text.index("\n", why)], text
    assert why < text.index("vgdemo 1.0 a b"), "the reason comes first: " + text
    assert "member=UpdatePackages" not in logs, tail(logs)
    [line] = [line for line in text.splitlines() if line.startswith("next=")]
    result = json.loads(line[len("next="):])
    assert (result["status"], result["rule"], result["channel"], result["channel_version"]) == \
        ("OPTIONAL", "channel_behind", "package", "1.0"), result


def test_nothing_newer_under_the_strict_key_opens_the_store_with_the_reason(world):
    top, _ = world
    strict = top / "strict.json"
    strict.write_text(json.dumps({"min_required_version_linux": "2.0", "strict_min_required_linux": "true",
                                  "update_url_linux": "https://flathub.org/apps/org.example.VgDemo"}))
    os.chmod(strict, 0o644)
    script = ('env PATH={top}/bin:/usr/bin:/bin LD_LIBRARY_PATH={top}/lib LANG=C.UTF-8 HOME=/home/vguser '
              '{top}/bin/versiongate exec --dialog terminal --source {top}/strict.json --version 1.0 -- vgdemo a b; '
              'echo "exit=$?"; sed "s/^/opened=/" "$HOME/opened.log" 2> /dev/null; true')
    text, status, logs = run_world(world, "allow", fresh=True, behind=True, script=script)
    assert "exit=20" in text and "vgdemo 1.0 a b" not in text, text + tail(logs)
    assert "versiongate: warning: nothing to install: " in text, text
    assert "opened=https://flathub.org/apps/org.example.VgDemo" in text, text


def test_the_owner_of_program_is_asked_about_without_distro_package(world):
    """No distro_package, but the program named: apt's lists for its
    owner's package (vgdemo, at most 1.0 here) are the channel's answer."""
    top, _ = world
    script = NEXT_CHECK[2:].format(top=top, settings="--set program=/usr/bin/vgdemo")
    text, status, logs = run_world(world, "allow", fresh=True, behind=True, script=script)
    [line] = [line for line in text.splitlines() if line.startswith("next=")]
    result = json.loads(line[len("next="):])
    assert (result["status"], result["rule"], result["channel"], result["channel_version"]) == \
        ("OPTIONAL", "channel_behind", "apt", "1.0"), result
