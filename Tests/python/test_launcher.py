"""examples/python/launcher.py as a user runs it: a real process, a controlled
environment, no terminal on stdin."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

import pytest

from conftest import REPO, child_env, flat

LAUNCHER = REPO / "examples" / "python" / "launcher.py"
STORE = "https://flathub.org/apps/com.example.Launcher"


@pytest.fixture
def env(tmp_path):
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    # PYTHONPATH: the binding package as `pip install ./python` installs it.
    return child_env(XDG_RUNTIME_DIR=str(run), LANG="en_US.UTF-8")


def launch(env, *args, stdin=subprocess.DEVNULL, **kw):
    return subprocess.run([sys.executable, str(LAUNCHER), *args], env=env,
                          capture_output=True, text=True, timeout=60, stdin=stdin,
                          cwd="/", **kw)


def result_for(env, source, version):
    code = ("import sys, versiongate as vg\n"
            "with vg.Client(source=sys.argv[1], session_scope='process') as c, "
            "c.check(sys.argv[2]) as r: print(r.json_text)")
    out = subprocess.run([sys.executable, "-c", code, str(source), version], env=env,
                         capture_output=True, text=True, timeout=60, check=True)
    return json.loads(out.stdout)


def test_mandatory_blocks_and_prints_the_store_url(env):
    proc = launch(env, "1.0.38")  # default source: examples/gate.json
    assert proc.returncode == 2, proc.stderr
    js = result_for(env, REPO / "examples" / "gate.json", "1.0.38")
    lines = proc.stdout.splitlines()
    assert js["title"] in lines and js["action_label"] in proc.stdout
    assert js["message"] in proc.stdout
    assert STORE in proc.stdout
    assert "Starting app" not in proc.stdout


def test_optional_without_terminal_is_later_and_starts(env):
    proc = launch(env, "1.0.40")
    assert proc.returncode == 0, proc.stderr
    js = result_for(env, REPO / "examples" / "gate.json", "1.0.40")
    out = proc.stdout
    for key in ("title", "message", "action_label", "dismiss_label"):
        assert js[key] in out, key
    assert "Starting app 1.0.40" in out
    assert out.index(js["title"]) < out.index("Starting app")
    assert STORE not in out


def test_optional_is_shown_once_per_login(env):
    first = launch(env, "1.0.40")
    second = launch(env, "1.0.40")
    js = result_for(env, REPO / "examples" / "gate.json", "1.0.40")
    assert js["title"] in first.stdout
    assert js["title"] not in second.stdout
    assert second.returncode == 0 and "Starting app 1.0.40" in second.stdout


def test_optional_with_closed_stdin_is_later(env):
    proc = launch(env, "1.0.40", preexec_fn=lambda: os.close(0))
    assert proc.returncode == 0, proc.stderr
    assert "Starting app 1.0.40" in proc.stdout


@pytest.mark.parametrize("answer,code", [(b"1\n", 2), (b"2\n", 0), (b"\n", 0)])
def test_optional_on_a_terminal_asks(env, answer, code):
    master, slave = pty.openpty()
    try:
        os.write(master, answer)  # typed ahead; read by input() on the tty
        proc = launch(env, "1.0.40", stdin=slave)
    finally:
        os.close(slave)
        os.close(master)
    assert proc.returncode == code, proc.stderr
    assert (STORE in proc.stdout) == (code == 2)
    assert ("Starting app 1.0.40" in proc.stdout) == (code == 0)


@pytest.mark.parametrize("version", ["1.0.41", "2.0"])
def test_up_to_date_starts_silently(env, version):
    proc = launch(env, version)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Starting app %s …" % version
    assert proc.stderr == ""


def test_source_option(env, write_doc):
    src = write_doc(flat(min_required="5.0", latest="6.0",
                         update_url_linux="https://flathub.org/apps/org.other.App"))
    proc = launch(env, "--source", str(src), "4.9")
    assert proc.returncode == 2
    assert "https://flathub.org/apps/org.other.App" in proc.stdout
    proc = launch(env, "--source", "file://" + str(src), "5.5")
    assert proc.returncode == 0 and "Starting app 5.5" in proc.stdout


@pytest.mark.parametrize("args", [
    ["--source", "/nonexistent/gate.json", "1.0.0"],
    ["--source", "http://example.com/gate.json", "1.0.0"],
    ["--source", "", "1.0.0"],
    ["not-a-version"],
])
def test_errors_fail_open_with_a_warning(env, args):
    proc = launch(env, *args)
    assert proc.returncode == 0, proc.stderr
    assert "Starting app %s" % args[-1] in proc.stdout
    assert "versiongate" in proc.stderr


def test_mandatory_without_store_url(env, write_doc):
    proc = launch(env, "--source", str(write_doc(flat(min_required="2.0"))), "1.0")
    assert proc.returncode == 2
    assert "Starting app" not in proc.stdout


def test_missing_library_still_starts_the_app(env, tmp_path):
    proc = launch({**env, "VERSIONGATE_LIBRARY": str(tmp_path / "nope.so")}, "1.0.38")
    assert proc.returncode == 0
    assert "Starting app 1.0.38" in proc.stdout
    assert "nope.so" in proc.stderr


def test_usage_error(env):
    proc = launch(env)
    assert proc.returncode == 2 and "usage" in proc.stderr.lower()
