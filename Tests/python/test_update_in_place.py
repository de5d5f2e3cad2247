"""Update in place (docs/design.md, "Updating in place"), end to end on this
machine: app v1 runs under `flatpak run`, its gate says MANDATORY, and Update
in `versiongate exec --dialog terminal` (driven through a pty) installs v2
through the real flatpak-portal and starts COMMAND as v2. Every way it can
fail falls back to the store link, with the reason in one line, and
MANDATORY still blocks. The library's own operation is driven from C
(Tests/flatpak/update_probe.c) with its progress callback."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from cli_helpers import CLI
from flatpak_world import APP_ID, World, run_on_terminal

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("flatpak") is None or not os.path.exists("/usr/libexec/flatpak-portal"),
                                reason="flatpak and flatpak-portal are installed by scripts/setup")

#: Inside the sandbox the library opens Flathub's web page (no appstream: handler there).
STORE = "https://flathub.org/apps/%s" % APP_ID


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    w = World(tmp_path_factory.mktemp("flatpak"))
    try:
        w.build()
        yield w
    finally:
        w.close()


def events(world) -> list[dict]:
    return [json.loads(line) for line in world.take("events.jsonl").splitlines()]


def assert_blocked_with_store(world, output, status, reason):
    """The store opened instead, the reason said once, COMMAND not started."""
    assert status == 20, output
    assert "cannot update in place: %s" % reason in output, output
    assert output.count("cannot update in place") == 1, output
    assert world.take("opened.log").split() == [STORE], output
    assert world.take("demo.log") == "", output
    assert world.installed_subject() == "v1.0"


def test_nothing_newer_in_the_remote_lets_the_user_through(world):
    """The first test, while the repository holds v1 only: Update gives
    NOTHING_NEW, and the library then knows this installation's own remote
    cannot comply (docs/design.md, "Asking the channel"): COMMAND runs as
    v1 with the message, and the decided event tells the flatpak channel."""
    world.start_portal()
    world.install_v1()
    world.allow_updates(True)
    assert set(world.commits) == {"1.0"}, "must run before any v2 is published"
    output, status = world.run_app("--flag")
    assert "not yet available for this system" in output, output
    assert "flatpak (its remote has nothing newer than commit %s) serves 1.0" % world.commits["1.0"][:12] in output, output
    assert "DEMO VERSION=1.0 args=--flag" in output and status == 0, output
    assert world.take("demo.log").split() == ["1.0"]
    assert world.take("opened.log") == "", "no store is opened: it offers the same version"
    seen = events(world)
    failed = [e for e in seen if e["event"] == "update_failed"]
    assert [e["outcome"] for e in failed] == ["nothing_new"], seen
    decided = [e for e in seen if e["event"] == "decided"]
    assert (decided[0]["rule"], decided[-1]["rule"], decided[-1]["channel"], decided[-1]["channel_version"]) == \
        ("below_minimum", "channel_behind", "flatpak", "1.0"), decided
    # The answer is kept: the next launch runs at once, with its message, until the remote has more.
    output, status = world.run_app()
    assert "DEMO VERSION=1.0" in output and status == 0, output
    assert world.take("demo.log").split() == ["1.0"]
    assert [e["event"] for e in events(world) if e["event"].startswith("update_")] == []
    for cached in (world.home / ".var" / "app" / APP_ID / "cache" / "versiongate").glob("channel-*.json"):
        cached.unlink()


def test_no_portal_on_the_bus_falls_back_to_the_store(world):
    world.stop_portal()
    world.install_v1()
    world.publish("2.0")
    output, status = world.run_app()
    assert_blocked_with_store(world, output, status, "no Flatpak portal (org.freedesktop.portal.Flatpak)")
    failed = [e for e in events(world) if e["event"] == "update_failed"]
    assert [e["outcome"] for e in failed] == ["unavailable"]


def test_refused_permission_falls_back_to_the_store(world):
    world.start_portal()
    world.install_v1()
    world.allow_updates(False)
    output, status = world.run_app()
    assert_blocked_with_store(world, output, status, "the update was refused: Application update not allowed")
    kinds = [e["event"] for e in events(world)]
    assert kinds.index("update_started") < kinds.index("update_failed"), kinds


def test_new_permissions_fall_back_to_the_store(world):
    world.start_portal()
    world.install_v1()
    world.allow_updates(True)
    world.publish("2.0", finish_args=["--share=network"])
    output, status = world.run_app()
    assert_blocked_with_store(world, output, status, "the new version needs new permissions")
    assert [e["outcome"] for e in events(world) if e["event"] == "update_failed"] == ["needs_permissions"]


def test_the_library_updates_with_progress_from_c(world):
    world.start_portal()
    world.install_v1()
    world.allow_updates(True)
    world.publish("2.0")
    done = world.run_probe("/app/share/gate.json", "1.0")
    lines = done.stdout.splitlines()
    assert "STATUS 2" in lines, done.stdout + done.stderr
    assert "OUTCOME 0 CODE 0 REASON " in lines, done.stdout + done.stderr
    steps = [tuple(map(int, line.split()[1:])) for line in lines if line.startswith("PROGRESS ")]
    assert steps and all(0 <= op < max(n, 1) and 0 <= pct <= 100 for op, n, pct in steps), steps
    seen = [json.loads(line[6:]) for line in lines if line.startswith("EVENT ")]
    installed = [e for e in seen if e["event"] == "update_installed"]
    assert [e["event"] for e in seen if e["event"].startswith("update_")] == ["update_started", "update_installed"]
    assert installed[0]["from"] == "1.0" and installed[0]["to"] == "2.0"
    assert installed[0]["from_commit"] == world.commits["1.0"] and installed[0]["kind"] == "flatpak"
    assert world.installed_subject() == "v2.0"


def test_a_progress_callback_cancels(world):
    world.start_portal()
    world.install_v1()
    world.allow_updates(True)
    done = world.run_probe("/app/share/gate.json", "1.0", "cancel")
    lines = done.stdout.splitlines()
    assert len([line for line in lines if line.startswith("PROGRESS ")]) == 1, done.stdout + done.stderr
    assert "OUTCOME 6 CODE -17 REASON cancelled by the host (the portal may still finish installing the update)" \
        in lines, done.stdout + done.stderr
    failed = [json.loads(line[6:]) for line in lines if line.startswith("EVENT ") and "update_failed" in line]
    assert [e["outcome"] for e in failed] == ["cancelled"]


def test_update_installs_v2_and_starts_command_as_v2(world):
    world.start_portal()
    world.install_v1()
    world.allow_updates(True)
    output, status = world.run_app("--flag", "two words")
    assert "Updating:" in output and "100%" in output, output
    assert "DEMO VERSION=2.0 args=--flag two words" in output, output
    assert status == 0, output
    assert world.installed_subject() == "v2.0"
    assert world.take("demo.log").split() == ["2.0"]
    assert world.take("opened.log") == ""
    kinds = [e["event"] for e in events(world)]
    assert kinds[-2:] == ["update_started", "update_installed"], kinds


def dialog_calls_of_an_update(world, dialog: str) -> list[str]:
    """v1 updated to v2 from exec with its prompt and progress in `dialog`
    (a recording fake): v2 ran COMMAND, no store opened; the dialogs' log."""
    world.start_portal()
    world.install_v1()
    world.allow_updates(True)
    world.publish("2.0")
    done = world.run_app_with_dialog(dialog)
    assert "DEMO VERSION=2.0" in done.stdout and done.returncode == 0, done.stdout + done.stderr
    assert world.take("opened.log") == ""
    return world.take("dialogs.log").splitlines()


def test_zenity_shows_the_progress_in_its_dialog(world):
    log = dialog_calls_of_an_update(world, "zenity")
    assert log[0].startswith("zenity --warning "), log
    assert re.fullmatch(r"zenity --progress --auto-close --no-cancel --width=420 --title=.+ --text=Updating", log[1]), log
    fed = log[2:]
    values = [int(line.split()[1]) for line in fed if not line.startswith("zenity< #")]
    assert values and values == sorted(values) and values[-1] == 100, log
    assert re.fullmatch(r"zenity< # Step 1 of 1: 100%", fed[-1]), log


def test_kdialog_shows_the_progress_in_its_dialog_over_dbus(world):
    log = dialog_calls_of_an_update(world, "kdialog")
    assert log[0].startswith("kdialog --title=") and " --sorry=" in log[0], log
    assert re.fullmatch(r"kdialog --title=.+ --progressbar=Updating 100", log[1]), log
    call = "dbus-send --session --type=method_call --dest=org.kde.kdialog-4242 /ProgressDialog "
    assert all(line.startswith(call) for line in log[2:]), log
    calls = [line[len(call):] for line in log[2:]]
    set_value = "org.freedesktop.DBus.Properties.Set string:org.kde.kdialog.ProgressDialog string:value variant:int32:"
    values = [int(c[len(set_value):]) for c in calls if c.startswith(set_value)]
    assert values and values == sorted(values) and values[-1] == 100, log
    assert calls[-2:] == ["org.kde.kdialog.ProgressDialog.setLabelText string:Step 1 of 1: 100%",
                          "org.kde.kdialog.ProgressDialog.close"], log


def test_restart_waits_for_the_new_version_and_gives_its_status(world):
    world.start_portal()
    done = world.run_probe("restart", "/bin/sh", "-c", "exit 7")
    assert "RESTART CODE 0 STATUS 7 REASON " in done.stdout.splitlines(), done.stdout + done.stderr


def test_a_host_that_ignores_sigchld_updates_and_restarts(world):
    world.start_portal()
    world.install_v1()
    world.allow_updates(True)
    world.publish("2.0")
    ignoring = ["PROBE_IGNORE_SIGCHLD=1"]
    done = world.run_probe("/app/share/gate.json", "1.0", env=ignoring)
    assert "OUTCOME 0 CODE 0 REASON " in done.stdout.splitlines(), done.stdout + done.stderr
    assert world.installed_subject() == "v2.0"
    done = world.run_probe("restart", "/bin/sh", "-c", "exit 9", env=ignoring)
    assert "RESTART CODE 0 STATUS 9 REASON " in done.stdout.splitlines(), done.stdout + done.stderr


def test_a_restart_wait_ends_when_the_portal_goes_away(world):
    world.start_portal()
    output = world.root / "restart.out"
    probe = world.start_probe(output, "restart", "/bin/sleep", "15")
    time.sleep(3)                          # the new version is running: the probe waits for it
    world.stop_portal()
    probe.wait(timeout=20)
    out = output.read_text()
    assert "RESTART CODE -17 STATUS -1 REASON the Flatpak portal went away while the new version ran" in out, out


def test_outside_flatpak_update_opens_the_store_and_says_why(tmp_path):
    gate = tmp_path / "gate.json"
    gate.write_text('{"min_required_version_linux": "2.0"}')
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "xdg-open").write_text('#!/bin/sh\necho "$*" >> %s/opened.log\n' % tmp_path)
    (fake / "xdg-open").chmod(0o755)
    env = {"PATH": "%s:/usr/bin:/bin" % fake, "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    output, status = run_on_terminal([CLI, "exec", "--dialog", "terminal", "--source", gate, "--version", "1.0",
                                      "--set", "store=flathub", "--set", "app_id=" + APP_ID, "--", "/bin/echo", "STARTED"],
                                     env, b"\n", 60)
    assert status == 20, output
    assert "STARTED" not in output and "Updating" not in output, output
    assert output.count("cannot update in place: neither inside a Flatpak") == 1, output
    # Outside a sandbox the library names the software centre's own page.
    assert (tmp_path / "opened.log").read_text().split() == ["appstream:%s" % APP_ID]


def test_a_program_from_a_package_at_another_version_is_not_the_app(tmp_path):
    """Debian's python3 runs the binding: dpkg says it belongs to Python,
    whose version is not the app's, so nothing is updated (docs/design.md,
    "Updating a distribution package")."""
    gate = tmp_path / "gate.json"
    gate.write_text('{"min_required_version_linux": "2.0"}')
    script = (
        "import versiongate as vg\n"
        "with vg.Client(source=%r) as client:\n"
        "    with client.check('1.0') as result:\n"
        "        outcome, why = client.update(result)\n"
        "print(outcome.name, why)\n" % str(gate))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(REPO / "python"),
           "VERSIONGATE_LIBRARY": os.environ["VERSIONGATE_LIBRARY"]}
    done = subprocess.run(["/usr/bin/python3", "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert re.search(r"^NOT_FLATPAK .*nor from a distribution package \(/usr/bin/python3[.0-9]* belongs to "
                     r"python3[.0-9a-z-]* [0-9.]+, not to this app's version 1\.0", done.stdout), done.stdout


def test_the_library_outside_flatpak_says_so_and_tells_no_event(tmp_path):
    import versiongate as vg
    gate = tmp_path / "gate.json"
    gate.write_text('{"min_required_version_linux": "2.0", "latest_version_linux": "2.0"}')
    seen, steps = [], []
    with vg.Client(source=str(gate)) as client:
        client.events_to(seen.append)
        with client.check("1.0") as result:
            outcome, why = client.update(result, progress=lambda *step: steps.append(step))
        with client.check("2.0") as current, pytest.raises(vg.VersionGateError) as refused:
            client.update(current)
        with pytest.raises(vg.VersionGateError) as restart:
            client.restart(["/bin/true"], wait=True)
    assert outcome is vg.UpdateOutcome.NOT_FLATPAK
    assert "neither inside a Flatpak (/.flatpak-info is missing) nor an AppImage ($APPIMAGE is unset)" in why
    assert "nor from a distribution package (" in why, why
    assert steps == [] and not [e for e in seen if e["event"] in ("update_started", "update_installed", "update_failed")]
    assert refused.value.code == vg.Error.EINVAL and "UP_TO_DATE" in refused.value.message
    assert restart.value.code == vg.Error.EUPDATE and "neither inside a Flatpak nor an AppImage" in restart.value.message
