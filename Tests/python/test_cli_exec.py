"""versiongate exec: same pid, argv byte for byte, COMMAND's exit status;
fail-open; MANDATORY never starts COMMAND; OPTIONAL once per login session,
remind_after_s and skip-version across sessions (docs/design.md, "Sessions, skip and remind", "The command")."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import fake_clock
from cli_helpers import CLI, Env, probe_output, run
from conftest import flat

T0 = 1_900_000_000


@pytest.fixture
def env(tmp_path):
    e = Env(tmp_path)
    e.fake("zenity", exit_code=1)             # Later, unless a test says otherwise
    e.extra["DISPLAY"] = ":99"               # a "graphical session" for --dialog auto
    return e


@pytest.fixture
def doc(write_doc):
    return write_doc(flat())


def exec_args(doc, version, *command, extra=()):
    return ["exec", "--source", doc, "--version", version, *extra, "--", *command]


TRICKY = ["plain", "with space", "'single'", '"double"', "$HOME", "a;b", "", "--", "%U", "-x", "back\\slash",
          "tab\there", "new\nline", "ünïcödé", "*", "--version"]


@pytest.mark.parametrize("version", ["1.0.41", "1.0.40", "9"])
def test_exec_keeps_pid_argv_and_exit_status(env, doc, version):
    proc = subprocess.Popen([str(CLI), *exec_args(doc, version, str(env.probe), *TRICKY)],
                            env=env.vars(VG_TEST_EXIT="7"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 7, err
    seen = probe_output(env)
    assert seen["pid"] == proc.pid
    assert seen["argv"] == [str(env.probe), *TRICKY]


def test_exec_looks_command_up_in_absolute_path_entries_only(env, doc, tmp_path):
    relative = tmp_path / "rel"
    relative.mkdir()
    (relative / "probe").write_text("#!/bin/sh\necho WRONG\n")
    (relative / "probe").chmod(0o755)
    vars = env.vars(PATH="rel:" + str(env.bin))
    proc = subprocess.run([str(CLI), *exec_args(doc, "1.0.41", "probe", "x")], env=vars, cwd=tmp_path,
                          capture_output=True, stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert probe_output(env)["argv"] == ["probe", "x"]        # argv[0] as given, not the resolved path
    proc = subprocess.run([str(CLI), *exec_args(doc, "1.0.41", "probe")], env=env.vars(PATH="rel"), cwd=tmp_path,
                          capture_output=True, stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 127 and b"WRONG" not in proc.stdout
    assert b"command not found" in proc.stderr


def test_exec_of_a_missing_or_unrunnable_command(env, doc, tmp_path):
    assert run(exec_args(doc, "1.0.41", str(tmp_path / "nope")), env.vars()).returncode == 127
    text = tmp_path / "data.txt"
    text.write_text("not a program")
    text.chmod(0o644)
    assert run(exec_args(doc, "1.0.41", str(text)), env.vars()).returncode == 126


@pytest.mark.parametrize("breakage", ["missing source", "malformed source", "bad option", "unknown option",
                                      "invalid version", "bad --dialog"])
def test_exec_fails_open(env, tmp_path, doc, breakage):
    source, version, extra = doc, "1.0.38", []
    if breakage == "missing source":
        source = tmp_path / "missing.json"
    elif breakage == "malformed source":
        source = tmp_path / "bad.json"
        source.write_text('{"min_required_version_linux": ')
    elif breakage == "bad option":
        extra = ["--set", "timeout_ms=-1"]
    elif breakage == "unknown option":
        extra = ["--sourse", "x"]
    elif breakage == "invalid version":
        version = "one point oh"
    if breakage == "bad --dialog":
        version = "1.0.41"
        extra = ["--dialog", "qt"]
    proc = run(exec_args(source, version, str(env.probe), "arg", extra=extra), env.vars())
    assert proc.returncode == 0, proc.stderr
    assert probe_output(env)["argv"][1:] == ["arg"]
    assert proc.stderr.decode().startswith("versiongate: warning: ")
    assert env.calls("zenity") == []


@pytest.mark.parametrize("dialog, zenity_exit", [("auto", 0), ("auto", 1), ("zenity", 5), ("none", 0),
                                                  ("terminal", 0), ("kdialog", 0)])
def test_mandatory_never_runs_command(env, write_doc, tmp_path, dialog, zenity_exit):
    doc = write_doc(flat(update_url_linux="https://flathub.org/apps/org.example.App"))
    env.fake("zenity", exit_code=zenity_exit)
    env.fake("xdg-open")
    ran = tmp_path / "ran"
    proc = run(exec_args(doc, "1.0.38", str(env.probe), extra=["--dialog", dialog]),
               env.vars(VG_TEST_RAN=str(ran)))
    assert proc.returncode == 20, proc.stderr
    assert not ran.exists()
    assert proc.stdout == b"" or dialog == "terminal"
    assert "not started" in proc.stderr.decode()
    # Update (zenity exit 0) opens the store; closing it does not.
    opened = env.calls("xdg-open")
    assert opened == ([["https://flathub.org/apps/org.example.App"]] if dialog == "auto" and zenity_exit == 0 else [])


def test_mandatory_with_nothing_to_show_it_blocks_says_why_and_notifies(env, doc, tmp_path):
    env.fake("notify-send")
    ran = tmp_path / "ran"
    proc = run(exec_args(doc, "1.0.38", str(env.probe)), env.vars(DISPLAY=None, VG_TEST_RAN=str(ran)))
    assert proc.returncode == 20
    assert not ran.exists()
    err = proc.stderr.decode()
    assert "could not be shown" in err and "Update required" in err
    assert env.calls("notify-send")[0][:2] == ["--app-name=versiongate", "--urgency=critical"]


# -- once per login session, across processes --------------------------------

def launch(env, doc, version="1.0.40", extra=(), **vars):
    proc = run(exec_args(doc, version, str(env.probe), extra=list(extra)), env.vars(**vars))
    assert proc.returncode == 0, proc.stderr
    probe_output(env)
    return proc


def test_optional_prompts_once_per_login_session_across_processes(env, doc):
    for _ in range(3):
        launch(env, doc)
    assert len(env.calls("zenity")) == 1
    env.new_session()
    for _ in range(2):
        launch(env, doc)
    assert len(env.calls("zenity")) == 2


def test_optional_update_opens_the_store_then_runs_command(env, write_doc):
    env.fake("zenity", exit_code=0)
    env.fake("xdg-open")
    src = write_doc(flat(update_url_linux="https://flathub.org/apps/org.example.App"))
    launch(env, src)
    assert env.calls("xdg-open") == [["https://flathub.org/apps/org.example.App"]]


def test_update_opens_a_store_the_client_allows(env, write_doc, tmp_path):
    """allowed_url_hosts names the operator's own store: Update opens it
    (under the client's policy, not the default one, which refuses it)."""
    env.fake("zenity", exit_code=0)
    env.fake("xdg-open")
    src = write_doc(flat(update_url_linux="https://store.example.com/app"))
    proc = run(exec_args(src, "1.0.38", str(env.probe), extra=["--set", "allowed_url_hosts=store.example.com"]),
               env.vars(VG_TEST_RAN=str(tmp_path / "ran")))
    assert proc.returncode == 20, proc.stderr
    assert env.calls("xdg-open") == [["https://store.example.com/app"]], proc.stderr


def test_remind_after_s_keeps_quiet_across_sessions(env, doc):
    clock = fake_clock.clock()
    remind = ["--set", "remind_after_s=3600"]
    vars = lambda: clock.child_env(env.vars())  # noqa: E731
    with clock.frozen_at(T0):
        launch(env, doc, extra=remind, **vars())
    assert len(env.calls("zenity")) == 1
    with clock.frozen_at(T0 + 1800):
        env.new_session()
        proc = launch(env, doc, extra=remind, **vars())
        check = run(["check", "--json", "--source", doc, "--version", "1.0.40", *remind], vars())
        assert json.loads(check.stdout)["should_prompt"] is False
        assert "remind_after_s 3600" in json.loads(check.stdout)["note"]
    assert len(env.calls("zenity")) == 1, proc.stderr
    with clock.frozen_at(T0 + 3601):
        env.new_session()
        launch(env, doc, extra=remind, **vars())
        launch(env, doc, extra=remind, **vars())     # the session still says once
    assert len(env.calls("zenity")) == 2
    # Without remind_after_s, a new session prompts at once (the default).
    with clock.frozen_at(T0 + 3700):
        env.new_session()
        launch(env, doc, **vars())
    assert len(env.calls("zenity")) == 3


def test_remind_time_in_the_future_is_not_fresh(env, doc):
    clock = fake_clock.clock()
    remind = ["--set", "remind_after_s=3600"]
    with clock.frozen_at(T0 + 10_000):
        launch(env, doc, extra=remind, **clock.child_env(env.vars()))
    with clock.frozen_at(T0):          # the clock went back: the recorded prompt is "in the future"
        env.new_session()
        launch(env, doc, extra=remind, **clock.child_env(env.vars()))
    assert len(env.calls("zenity")) == 2


def test_skip_this_version_across_sessions_and_a_newer_latest(env, doc):
    env.fake("zenity", exit_code=1, stdout="Skip this version\n")
    launch(env, doc)
    assert len(env.calls("zenity")) == 1
    assert list(env.state.glob("versiongate/skip-*"))
    for _ in range(2):
        env.new_session()
        launch(env, doc)
    assert len(env.calls("zenity")) == 1
    check = run(["check", "--json", "--source", doc, "--version", "1.0.40"], env.vars())
    result = json.loads(check.stdout)
    assert (check.returncode, result["should_prompt"]) == (10, False)
    assert "version 1.0.41 skipped by the user" in result["note"]
    # Another platform of the same source is not skipped.
    doc.write_text(json.dumps({**flat(), **flat(platform="ios")}))
    assert json.loads(run(["check", "--json", "--source", doc, "--version", "1.0.40", "--platform", "ios"],
                          env.vars()).stdout)["should_prompt"] is True
    # A newer latest prompts again.
    env.fake("zenity", exit_code=1)
    doc.write_text(json.dumps(flat(latest="1.0.42")))
    env.new_session()
    launch(env, doc)
    assert len(env.calls("zenity")) == 2


def test_skip_never_touches_mandatory(env, doc, tmp_path):
    env.fake("zenity", exit_code=1, stdout="Skip this version\n")
    launch(env, doc)
    # The same latest, but now this version is below a raised minimum.
    doc.write_text(json.dumps(flat(min_required="1.0.41", latest="1.0.41")))
    ran = tmp_path / "ran"
    for _ in range(2):
        env.new_session()
        proc = run(exec_args(doc, "1.0.40", str(env.probe)), env.vars(VG_TEST_RAN=str(ran)))
        assert proc.returncode == 20
    assert not ran.exists()
    assert [c[0] for c in env.calls("zenity")] == ["--question", "--warning", "--warning"]


def test_remind_never_touches_mandatory(env, doc):
    launch(env, doc, extra=["--set", "remind_after_s=86400"])
    env.new_session()
    proc = run(exec_args(doc, "1.0.38", str(env.probe), extra=["--set", "remind_after_s=86400"]), env.vars())
    assert proc.returncode == 20
    assert [c[0] for c in env.calls("zenity")] == ["--question", "--warning"]


def test_skip_without_a_state_directory_warns_and_runs(env, doc):
    env.fake("zenity", exit_code=1, stdout="Skip this version\n")
    proc = run(exec_args(doc, "1.0.40", str(env.probe)), env.vars(XDG_STATE_HOME=None, HOME=None))
    assert proc.returncode == 0
    assert "cannot skip this version" in proc.stderr.decode()
    probe_output(env)


def test_command_inherits_exactly_the_callers_descriptors(env, doc, tmp_path):
    """Nothing the library or a dialog opened leaks into COMMAND; what the
    caller passed (here one pipe end) still arrives."""
    lister = tmp_path / "list-fds"
    lister.write_text("#!%s\nimport os\nfds = []\nfor fd in range(1024):\n    try:\n        os.fstat(fd)\n"
                      "        fds.append(fd)\n    except OSError:\n        pass\nprint(fds)\n" % sys.executable)
    lister.chmod(0o755)
    r, w = os.pipe()
    try:
        for version in ("1.0.41", "1.0.40", "1.0.40"):      # up to date, OPTIONAL prompting, OPTIONAL quiet
            proc = subprocess.run([str(CLI), *exec_args(doc, version, str(lister))], env=env.vars(), pass_fds=(w,),
                                  stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
            assert proc.returncode == 0, proc.stderr
            assert proc.stdout.decode().strip() == str(sorted([0, 1, 2, w]))
    finally:
        os.close(r)
        os.close(w)
    assert len(env.calls("zenity")) == 1
