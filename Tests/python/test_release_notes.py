"""Release notes in the prompt (release_notes, release_notes_<lang>): chosen
like update_message, sanitized with their line breaks, at most 4 KiB and 40
lines, in OPTIONAL results only; through the binding, the JSON, `check`,
the terminal prompt, zenity and kdialog (fakes on PATH recording argv) and
the login stub."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from cli_helpers import run
from conftest import REPO, flat, vg
from test_cli_dialogs import env, in_terminal  # noqa: F401 (env: the fixture, DISPLAY set)

NOTES = "Faster start-up.\n- Sync works offline\n- Fixed printing"


def check(doc, version, **options):
    with vg.Client(source=str(doc), session_scope="process", **options) as client, client.check(version) as r:
        return r.status, r.release_notes, r.json()["release_notes"]


def test_only_an_optional_result_has_them(write_doc):
    doc = write_doc(flat(release_notes=NOTES))
    assert check(doc, "1.0.40") == (vg.Status.OPTIONAL, NOTES, NOTES)
    assert check(doc, "1.0.38")[1:] == (None, None), "not in a MANDATORY prompt"
    assert check(doc, "1.0.41")[1:] == (None, None), "never in UP_TO_DATE"


@pytest.mark.parametrize("locale, expected", [
    ("de_DE.UTF-8", "Schneller."), ("pt_BR.UTF-8", "Mais rápido."), ("pt_PT.UTF-8", "Faster."), ("fr", "Faster."),
])
def test_chosen_like_the_message(write_doc, locale, expected):
    doc = write_doc(flat(release_notes="Faster.", release_notes_de="Schneller.", release_notes_pt_BR="Mais rápido."))
    assert check(doc, "1.0.40", locale=locale)[1] == expected


def test_sanitized_with_line_breaks_kept_and_capped(write_doc):
    doc = write_doc(flat(release_notes="  One\r\ntwo\u202e\tthree\x07\n\n" + "\n".join("x%d" % i for i in range(60))))
    notes = check(doc, "1.0.40")[1]
    lines = notes.split("\n")
    assert lines[:3] == ["One", "twothree", ""] and len(lines) == 40, lines
    long = check(write_doc(flat(release_notes="é" * 3000)), "1.0.40")[1]
    assert len(long.encode()) == 4096
    assert check(write_doc(flat(release_notes=" \n\x01 ")), "1.0.40")[1] is None


def test_check_prints_them_after_the_message(env, write_doc):
    doc = write_doc(flat(release_notes=NOTES))
    out = run(["check", "--source", doc, "--version", "1.0.40"], env.vars()).stdout.decode()
    lines = out.splitlines()
    at = lines.index("release notes:")
    assert lines[at - 1].startswith("message: ") and lines[at + 1:at + 4] == ["  " + l for l in NOTES.split("\n")]
    assert "release notes" not in run(["check", "--source", doc, "--version", "1.0.38"], env.vars()).stdout.decode()


def test_zenity_and_kdialog_show_them_under_the_message(env, write_doc):
    doc = write_doc(flat(release_notes=NOTES, update_message="Please <update>."))
    env.fake("zenity", exit_code=1)
    run(["exec", "--source", doc, "--version", "1.0.40", "--", str(env.probe)], env.vars())
    (argv,) = env.calls("zenity")
    assert "--text=Please <update>.\n\n" + NOTES in argv, argv
    env.new_session()
    env.fake("kdialog", exit_code=2)
    run(["exec", "--source", doc, "--version", "1.0.40", "--", str(env.probe)], env.vars(XDG_CURRENT_DESKTOP="KDE"))
    (argv,) = env.calls("kdialog")
    assert argv[-1] == "--yesnocancel=<qt>Please &lt;update&gt;.<br><br>" + NOTES.replace("\n", "<br>"), argv


def test_the_terminal_prompt_shows_them(env, write_doc):
    doc = write_doc(flat(release_notes=NOTES))
    code, output = in_terminal(env, doc, "1.0.40", b"l\n")
    assert code == 0, output
    message_at = output.index("A new version is available.")
    assert output.index(NOTES.replace("\n", "\r\n")) > message_at, output


def test_the_login_stub_shows_them(write_doc, tmp_path):
    if not shutil.which("cc"):
        pytest.fail("no C compiler")
    stub = tmp_path / "login_stub"
    subprocess.run(["cc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-I%s" % (REPO / "include"),
                    str(REPO / "examples" / "c" / "login_stub.c"), "-o", str(stub), "-L%s" % (REPO / "build" / "lib"),
                    "-lversiongate", "-Wl,-rpath,%s" % (REPO / "build" / "lib")], check=True)
    doc = write_doc(flat(release_notes=NOTES))
    proc = subprocess.run([str(stub), "--source", str(doc), "--version", "1.0.40"], capture_output=True,
                          env={"LANG": "C.UTF-8", "HOME": str(tmp_path), "XDG_RUNTIME_DIR": str(tmp_path)},
                          stdin=subprocess.DEVNULL, timeout=60)
    rows = [line[2:-2].strip() for line in proc.stdout.decode().split("\n") if line.startswith("|")]
    assert "- Sync works offline" in rows and rows.index("Faster start-up.") > rows.index("A new version is available."), rows


def test_lint_checks_their_size_and_characters(env, write_doc):
    doc = write_doc(flat(release_notes="\n".join(["x"] * 45), release_notes_de="a\u202eb" + "c" * 5000))
    proc = run(["lint", doc], env.vars())
    assert proc.returncode == 1
    assert proc.stdout.decode().splitlines() == [
        "release_notes has 45 lines; only the first 40 are shown",
        "release_notes_de is 5005 bytes; only the first 4096 are shown",
        "release_notes_de has 1 control or bidi override character(s); they are removed before it is shown",
    ]
