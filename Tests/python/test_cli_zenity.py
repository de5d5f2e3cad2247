"""End to end with the real zenity under Xvfb, its buttons pressed with
xdotool: Update on OPTIONAL opens the store and runs COMMAND; Escape is
Later; Update on MANDATORY opens the store and COMMAND never starts.
scripts/setup installs xvfb, zenity and xdotool; this module tries it once
when they are missing and skips, saying why, only where that fails."""

from __future__ import annotations

import subprocess

import pytest

import x11
from cli_helpers import CLI, Env, probe_output
from conftest import REPO, flat

URL = "https://flathub.org/apps/org.example.App"


@pytest.fixture(scope="module")
def xvfb():
    if x11.missing_tools():
        subprocess.run([str(REPO / "scripts" / "setup")], capture_output=True, timeout=900)
    missing = x11.missing_tools()
    if missing:
        pytest.skip("the real-zenity test needs Debian packages %s, which scripts/setup could not install"
                    % ", ".join(missing))
    server = x11.Xvfb()
    yield server
    server.stop()


@pytest.fixture
def env(tmp_path, xvfb):
    e = Env(tmp_path)
    e.fake("xdg-open")                       # the store "opens" into a log
    e.extra["DISPLAY"] = xvfb.display
    e.extra["PATH"] = "%s:/usr/bin:/bin" % e.bin
    return e


def start(env, doc, version):
    return subprocess.Popen([str(CLI), "exec", "--source", str(doc), "--version", version, "--", str(env.probe),
                             "%U"], env=env.vars(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


@pytest.mark.parametrize("key, opened", [("Return", True), ("Escape", False)])
def test_real_zenity_optional(env, xvfb, write_doc, key, opened):
    doc = write_doc(flat(update_url_linux=URL))
    proc = start(env, doc, "1.0.40")
    try:
        xvfb.key(xvfb.window("Update available"), key)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert probe_output(env)["argv"][1:] == ["%U"]
    assert env.calls("xdg-open") == ([[URL]] if opened else [])


def test_real_zenity_mandatory_update(env, xvfb, write_doc):
    doc = write_doc(flat(update_url_linux=URL))
    proc = start(env, doc, "1.0.38")
    try:
        xvfb.key(xvfb.window("Update required"), "Return")
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 20, err
    assert not env.probe_out.exists()
    assert env.calls("xdg-open") == [[URL]]


def test_real_zenity_shows_utf8_text_without_a_utf8_locale(env, xvfb, write_doc):
    """No LANG at all (the C locale): GTK would refuse non-ASCII arguments;
    the dialog's character type is C.UTF-8, and the Portuguese title shows."""
    doc = write_doc(flat(update_message="Nova versão <b>já</b> disponível & mais"))
    proc = subprocess.Popen([str(CLI), "exec", "--source", str(doc), "--version", "1.0.40", "--set", "locale=pt_BR",
                             "--", str(env.probe)], env=env.vars(LANG=None, LC_ALL=None),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        xvfb.key(xvfb.window("Atualização disponível"), "Escape")
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert err == b""
    probe_output(env)
