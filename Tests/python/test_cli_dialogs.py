"""Where the prompt appears and what the dialogs get (docs/design.md, "The command"): fake
zenity, kdialog and notify-send on PATH record their argv; a pty stands in
for a terminal. Remote text is always literal."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import time

import pytest

from cli_helpers import CLI, Env, probe_output, run
from conftest import flat, vg

HOSTILE = "Nova <b>versão</b> & <a href='x'>mais</a>\nsegunda linha \"ok\""
URL = "https://flathub.org/apps/org.example.App"


@pytest.fixture
def env(tmp_path):
    e = Env(tmp_path)
    e.extra["DISPLAY"] = ":99"
    return e


@pytest.fixture
def doc(write_doc):
    return write_doc(flat(update_message=HOSTILE, update_url_linux=URL))


def launch(env, doc, version, *extra, **vars):
    return run(["exec", "--source", doc, "--version", version, *extra, "--", str(env.probe)], env.vars(**vars))


def test_zenity_optional_exact_arguments(env, doc):
    env.fake("zenity", exit_code=1)
    assert launch(env, doc, "1.0.40").returncode == 0
    assert env.calls("zenity") == [[
        "--question", "--no-markup", "--width=420", "--title=Update available", "--text=" + HOSTILE,
        "--ok-label=Update", "--cancel-label=Later", "--extra-button=Skip this version",
    ]]
    probe_output(env)


def test_zenity_mandatory_has_one_button(env, doc):
    env.fake("zenity", exit_code=1)
    assert launch(env, doc, "1.0.38").returncode == 20
    (argv,) = env.calls("zenity")
    assert argv == ["--warning", "--no-markup", "--width=420", "--title=Update required", "--text=" + HOSTILE,
                    "--ok-label=Update"]
    assert not any("Later" in a or "cancel" in a or "extra-button" in a for a in argv)


def test_update_outside_flatpak_shows_no_progress_dialog(env, doc):
    """Update pressed where no update in place can happen: no "Updating"
    dialog that cannot progress; the reason on stderr, then the store."""
    env.fake("zenity", exit_code=0)
    env.fake("xdg-open")
    proc = launch(env, doc, "1.0.38")
    assert proc.returncode == 20
    assert [argv[0] for argv in env.calls("zenity")] == ["--warning"], env.calls("zenity")
    stderr = proc.stderr.decode()
    assert "cannot update in place: neither inside a Flatpak" in stderr and "opening the store instead" in stderr, stderr
    assert len(env.calls("xdg-open")) == 1


def test_zenity_gets_localized_labels(env, write_doc):
    env.fake("zenity", exit_code=1)
    src = write_doc(flat())
    launch(env, src, "1.0.40", "--set", "locale=de_DE.UTF-8")
    (argv,) = env.calls("zenity")
    labels = [a for a in argv if a.startswith(("--ok-label=", "--cancel-label="))]
    assert labels and all("Update" != a.split("=", 1)[1] for a in labels[1:]), argv
    assert "--cancel-label=Later" not in argv


def test_kdialog_under_kde_escapes_rich_text(env, doc):
    env.fake("zenity", exit_code=1)
    env.fake("kdialog", exit_code=2)      # Cancel: Later
    assert launch(env, doc, "1.0.40", XDG_CURRENT_DESKTOP="KDE").returncode == 0
    assert env.calls("zenity") == []
    escaped = ("<qt>Nova &lt;b&gt;versão&lt;/b&gt; &amp; &lt;a href=&#39;x&#39;&gt;mais&lt;/a&gt;<br>"
               "segunda linha &quot;ok&quot;")
    assert env.calls("kdialog") == [[
        "--title=Update available", "--yes-label=Update", "--no-label=Skip this version", "--cancel-label=Later",
        "--yesnocancel=" + escaped,
    ]]
    probe_output(env)


def test_kdialog_mandatory(env, doc):
    env.fake("kdialog", exit_code=0)
    env.fake("xdg-open")
    assert launch(env, doc, "1.0.38", XDG_CURRENT_DESKTOP="ubuntu:KDE").returncode == 20
    (argv,) = env.calls("kdialog")
    assert argv[:2] == ["--title=Update required", "--ok-label=Update"]
    assert argv[2].startswith("--sorry=<qt>Nova &lt;b&gt;")
    assert env.calls("xdg-open") == [[URL]]


def test_kdialog_skip_answer(env, doc):
    env.fake("kdialog", exit_code=1)      # No: Skip this version
    launch(env, doc, "1.0.40")
    env.new_session()
    launch(env, doc, "1.0.40")
    assert len(env.calls("kdialog")) == 1


def test_zenity_first_outside_kde_kdialog_when_alone(env, doc):
    env.fake("zenity", exit_code=1)
    env.fake("kdialog", exit_code=2)
    launch(env, doc, "1.0.40", XDG_CURRENT_DESKTOP="GNOME")
    assert (len(env.calls("zenity")), len(env.calls("kdialog"))) == (1, 0)
    (env.bin / "zenity").unlink()
    env.new_session()
    launch(env, doc, "1.0.40", XDG_CURRENT_DESKTOP="GNOME")
    assert len(env.calls("kdialog")) == 1


def test_wayland_counts_as_a_graphical_session(env, doc):
    env.fake("zenity", exit_code=1)
    launch(env, doc, "1.0.40", DISPLAY=None, WAYLAND_DISPLAY="wayland-0")
    assert len(env.calls("zenity")) == 1


def test_dialog_programs_only_from_absolute_path_entries(env, doc, tmp_path):
    rel = tmp_path / "relbin"
    rel.mkdir()
    (tmp_path / "other").mkdir()
    fake = Env(tmp_path / "other")
    fake.fake("zenity", exit_code=1)
    os.rename(fake.bin / "zenity", rel / "zenity")
    proc = subprocess.run([str(CLI), "exec", "--source", str(doc), "--version", "1.0.40", "--", str(env.probe)],
                          env=env.vars(PATH="relbin:" + str(env.bin)), cwd=tmp_path, capture_output=True,
                          stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 0
    assert not (fake.bin / "zenity.log").exists() and not (rel / "zenity.log").exists()
    assert "versiongate: Update available" in proc.stderr.decode()       # stderr: no dialog found


def test_no_graphical_session_optional_notifies(env, doc):
    env.fake("zenity", exit_code=1)
    env.fake("notify-send")
    assert launch(env, doc, "1.0.40", DISPLAY=None).returncode == 0
    assert env.calls("zenity") == []
    body = ("Nova &lt;b&gt;versão&lt;/b&gt; &amp; &lt;a href='x'&gt;mais&lt;/a&gt;\nsegunda linha \"ok\"\n" + URL)
    assert env.calls("notify-send") == [["--app-name=versiongate", "--urgency=normal", "--", "Update available", body]]
    probe_output(env)


def test_nothing_at_all_optional_goes_to_stderr(env, doc):
    proc = launch(env, doc, "1.0.40", DISPLAY=None)
    assert proc.returncode == 0
    assert proc.stderr.decode().splitlines()[:1] == ["versiongate: Update available: Nova <b>versão</b> & "
                                                     "<a href='x'>mais</a>"]
    probe_output(env)


def test_a_dialog_that_cannot_start_falls_back(env, doc):
    env.fake("zenity", exit_code=255)     # e.g. cannot open display
    env.fake("notify-send")
    assert launch(env, doc, "1.0.40").returncode == 0
    assert len(env.calls("notify-send")) == 1
    proc = launch(env, doc, "1.0.38")
    assert proc.returncode == 20
    assert "could not be shown (zenity)" in proc.stderr.decode()
    assert env.calls("notify-send")[-1][1] == "--urgency=critical"


def test_dialog_none_shows_nothing_for_optional(env, doc):
    env.fake("zenity", exit_code=0)
    env.fake("notify-send")
    assert launch(env, doc, "1.0.40", "--dialog", "none").returncode == 0
    assert env.calls("zenity") == [] and env.calls("notify-send") == []
    probe_output(env)


def test_dialog_has_a_clean_descriptor_set(env, doc, tmp_path):
    """zenity gets only 0, 1, 2 — not a descriptor the launcher left open."""
    script = env.bin / "zenity"
    script.write_text("#!%s\nimport os, sys\nopen_fds = []\nfor fd in range(256):\n    try:\n        os.fstat(fd)\n"
                      "        open_fds.append(str(fd))\n    except OSError:\n        pass\n"
                      "open(%r, 'w').write(' '.join(open_fds))\nsys.exit(1)\n" % (sys.executable, str(tmp_path / "fds")))
    script.chmod(0o755)
    r, w = os.pipe()
    os.set_inheritable(w, True)
    subprocess.run([str(CLI), "exec", "--source", str(doc), "--version", "1.0.40", "--", str(env.probe)],
                   env=env.vars(), pass_fds=(w,), stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    os.close(r)
    os.close(w)
    assert sorted((tmp_path / "fds").read_text().split()) == ["0", "1", "2"]


# -- a terminal ---------------------------------------------------------------

def in_terminal(env, doc, version, answer: bytes, *extra):
    """Runs exec (with `extra` options) on a pty (stdin and stdout ttys);
    types `answer` after the prompt. Through subprocess, so scripts/proof's
    sanitizer variables reach the child as they reach every other
    (Tests/sanitizers/vg_sanitizer_env.py)."""
    fd, tty = pty.openpty()
    proc = subprocess.Popen([str(CLI), "exec", "--source", str(doc), "--version", version, *map(str, extra),
                             "--", str(env.probe)],
                            env=env.vars(), stdin=tty, stdout=tty, stderr=tty, start_new_session=True)
    os.close(tty)
    output = b""
    deadline = time.monotonic() + 30
    sent = False
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
        if not sent and b": " in output.split(b"\n")[-1]:
            os.write(fd, answer)
            sent = True
    code = proc.wait(10)
    os.close(fd)
    return code, output.decode(errors="replace")


def test_terminal_prompt_optional_skip(env, doc):
    env.fake("zenity", exit_code=0)
    code, output = in_terminal(env, doc, "1.0.40", b"s\n")
    assert code == 0, output
    assert "[u] Update   [l] Later (default)   [s] Skip this version" in output
    assert HOSTILE.replace("\n", "\r\n") in output
    assert env.calls("zenity") == []      # the terminal comes first
    probe_output(env)
    env.new_session()
    code, output = in_terminal(env, doc, "1.0.40", b"\n")
    assert "Skip this version" not in output     # skipped: no prompt at all
    probe_output(env)


@pytest.mark.parametrize("version,answer,outcomes", [
    ("1.0.40", b"s\n", ["shown", "skip"]),
    ("1.0.40", b"\n", ["shown", "later"]),
    ("1.0.38", b"u\n", ["shown", "update", "store_opened"]),
])
def test_terminal_answers_are_reported_as_events(env, doc, tmp_path, version, answer, outcomes):
    """exec --events: what the terminal prompt returned (docs/design.md, "Events")."""
    env.fake("xdg-open")
    events = tmp_path / "events.jsonl"
    code, output = in_terminal(env, doc, version, answer, "--events", events)
    assert code == (20 if version == "1.0.38" else 0), output
    lines = [json.loads(line) for line in events.read_text().splitlines()]
    assert [e["event"] for e in lines] == ["decided"] + ["outcome"] * len(outcomes)
    assert [e["outcome"] for e in lines[1:]] == outcomes


def test_terminal_prompt_mandatory_update(env, doc):
    env.fake("xdg-open")
    code, output = in_terminal(env, doc, "1.0.38", b"\n")
    assert code == 20, output
    assert "[Enter] Update" in output
    assert env.calls("xdg-open") == [[URL]]
    assert not env.probe_out.exists()


# Issue 16: right-to-left text on a terminal is printed whole, each line
# and label isolated in FSI…PDI; other scripts byte for byte.
FSI, PDI = "\u2068", "\u2069"


@pytest.mark.parametrize("locale,rtl", [("ar_EG.UTF-8", True), ("he_IL.UTF-8", True), ("ja_JP.UTF-8", False),
                                        ("hy_AM.UTF-8", False)])
def test_terminal_prompt_in_right_to_left_and_other_scripts(env, write_doc, locale, rtl):
    plain = write_doc(flat(update_url_linux=URL))
    env.extra["LANG"] = locale
    code, output = in_terminal(env, plain, "1.0.40", b"\n")
    assert code == 0, output
    with vg.Client(source=str(plain), session_scope="process", locale=locale) as c, c.check("1.0.40") as r:
        title, message, labels = r.title, r.message, (r.action_label, r.dismiss_label, r.skip_label)
    if rtl:
        assert FSI + title + PDI + "\r\n" in output and FSI + message + PDI + "\r\n" in output
        assert "[u] %s%s%s   [l] %s%s%s (default)" % (FSI, labels[0], PDI, FSI, labels[1], PDI) in output
    else:
        assert FSI not in output and PDI not in output
        assert title + "\r\n" in output and message + "\r\n" in output
        assert "[u] %s   [l] %s (default)   [s] %s" % labels in output


def test_answers_are_read_when_the_launching_process_ignores_sigchld(env, doc):
    """A daemon that ignores SIGCHLD passes that on across exec: without
    care the kernel reaps the dialog and its answer is lost. Update (zenity
    exit 0) must still open the store, Later (exit 1) must not."""
    def launch_ignoring_sigchld(version):
        return subprocess.run([str(CLI), "exec", "--source", str(doc), "--version", version, "--", str(env.probe)],
                              env=env.vars(), capture_output=True, timeout=60, stdin=subprocess.DEVNULL,
                              preexec_fn=lambda: signal.signal(signal.SIGCHLD, signal.SIG_IGN))
    env.fake("xdg-open")
    env.fake("zenity", exit_code=0)
    assert launch_ignoring_sigchld("1.0.40").returncode == 0
    assert env.calls("xdg-open") == [[URL]]
    probe_output(env)
    env.new_session()
    env.fake("zenity", exit_code=1)
    assert launch_ignoring_sigchld("1.0.40").returncode == 0
    assert env.calls("xdg-open") == [[URL]]              # Later: no second call
    probe_output(env)
