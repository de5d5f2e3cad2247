"""docs/design.md, "Sessions, skip and remind": OPTIONAL is prompted once per session; MANDATORY always.

Login scope is tested with real child processes sharing (or not) a
tmp XDG_RUNTIME_DIR, as launcher processes of one login would."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import MANDATORY, OPTIONAL, child_env, flat, run_check, vg


def prompts(client, version, n=3):
    out = []
    for _ in range(n):
        with client.check(version) as r:
            out.append((r.status, r.should_prompt))
    return out


# -- process scope ----------------------------------------------------------

def test_process_scope_optional_prompts_once_per_process(write_doc):
    src = write_doc(flat())
    with vg.Client(source=src, session_scope="process") as c:
        assert prompts(c, "1.0.40") == [(OPTIONAL, True), (OPTIONAL, False), (OPTIONAL, False)]
    # The process is the session: another client of it does not prompt again.
    with vg.Client(source=src, session_scope="process") as c2:
        assert prompts(c2, "1.0.40", 2) == [(OPTIONAL, False), (OPTIONAL, False)]


def test_mandatory_always_prompts(write_doc):
    src = write_doc(flat())
    for scope in ("process", "login"):
        with vg.Client(source=src, session_scope=scope) as c:
            assert prompts(c, "1.0.38", 4) == [(MANDATORY, True)] * 4


def test_up_to_date_never_prompts(write_doc, tmp_path):
    with vg.Client(source=write_doc(flat()), session_scope="process") as c:
        assert prompts(c, "1.0.41", 2) == [(vg.Status.UP_TO_DATE, False)] * 2
    with vg.Client(source=tmp_path / "missing", session_scope="process") as c:
        assert prompts(c, "1.0.0", 2) == [(vg.Status.UP_TO_DATE, False)] * 2


def test_process_scope_key_is_source_current_latest(write_doc):
    src = write_doc(flat())
    with vg.Client(source=src, session_scope="process") as c:
        assert prompts(c, "1.0.40", 2) == [(OPTIONAL, True), (OPTIONAL, False)]
        # another current version: a new prompt
        assert prompts(c, "1.0.39", 2) == [(OPTIONAL, True), (OPTIONAL, False)]
        # the same source with a new latest: a new prompt
        src.write_text(json.dumps(flat(latest="1.0.42")))
        assert prompts(c, "1.0.40", 2) == [(OPTIONAL, True), (OPTIONAL, False)]
        # another source: a new prompt
        other = write_doc(flat())
        c.set("source", str(other))
        assert prompts(c, "1.0.40", 2) == [(OPTIONAL, True), (OPTIONAL, False)]


def test_mandatory_does_not_consume_the_optional_prompt(write_doc):
    src = write_doc(flat())
    with vg.Client(source=src, session_scope="process") as c:
        assert prompts(c, "1.0.38", 1) == [(MANDATORY, True)]
        # min lowered: the same current is now OPTIONAL and prompts once
        src.write_text(json.dumps(flat(min_required="1.0.30")))
        assert prompts(c, "1.0.38", 2) == [(OPTIONAL, True), (OPTIONAL, False)]


def test_process_scope_writes_nothing_under_runtime_dir(write_doc):
    runtime = os.environ["XDG_RUNTIME_DIR"]
    before = set(os.listdir(runtime)) | set(_walk(runtime))
    with vg.Client(source=write_doc(flat()), session_scope="process") as c:
        prompts(c, "1.0.40")
    assert set(os.listdir(runtime)) | set(_walk(runtime)) == before


def _walk(top):
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            yield os.path.join(dirpath, name)


# -- login scope: child processes --------------------------------------------

@pytest.fixture
def runtime_dir(tmp_path):
    d = tmp_path / "run-user"
    d.mkdir(mode=0o700)
    return d


def launch(src, version, runtime, scope=None):
    options = {"session_scope": scope} if scope else None
    env = child_env(XDG_RUNTIME_DIR=None if runtime is None else str(runtime))
    js = run_check(src, version, env, options)
    return js["status"], js["should_prompt"]


def test_login_scope_is_shared_by_processes(write_doc, runtime_dir):
    src = write_doc(flat())
    assert launch(src, "1.0.40", runtime_dir) == ("OPTIONAL", True)
    assert launch(src, "1.0.40", runtime_dir) == ("OPTIONAL", False)
    assert launch(src, "1.0.40", runtime_dir, "login") == ("OPTIONAL", False)
    # the marker lives under $XDG_RUNTIME_DIR/versiongate/
    marker_dir = runtime_dir / "versiongate"
    assert marker_dir.is_dir() and any(marker_dir.iterdir())


def test_login_is_the_default_scope(write_doc, runtime_dir):
    src = write_doc(flat())
    assert launch(src, "1.0.40", runtime_dir, "login") == ("OPTIONAL", True)
    assert launch(src, "1.0.40", runtime_dir) == ("OPTIONAL", False)


def test_another_login_session_prompts_again(write_doc, runtime_dir, tmp_path):
    src = write_doc(flat())
    assert launch(src, "1.0.40", runtime_dir) == ("OPTIONAL", True)
    other = tmp_path / "other-login"
    other.mkdir(mode=0o700)
    assert launch(src, "1.0.40", other) == ("OPTIONAL", True)
    assert launch(src, "1.0.40", other) == ("OPTIONAL", False)


def test_process_scope_processes_each_prompt(write_doc, runtime_dir):
    src = write_doc(flat())
    assert launch(src, "1.0.40", runtime_dir, "process") == ("OPTIONAL", True)
    assert launch(src, "1.0.40", runtime_dir, "process") == ("OPTIONAL", True)
    # and the process scope left no marker for the login scope
    assert launch(src, "1.0.40", runtime_dir) == ("OPTIONAL", True)


def test_new_latest_prompts_again_across_processes(write_doc, runtime_dir):
    src = write_doc(flat())
    assert launch(src, "1.0.40", runtime_dir) == ("OPTIONAL", True)
    assert launch(src, "1.0.40", runtime_dir) == ("OPTIONAL", False)
    src.write_text(json.dumps(flat(latest="1.0.42")))
    assert launch(src, "1.0.40", runtime_dir) == ("OPTIONAL", True)
    assert launch(src, "1.0.40", runtime_dir) == ("OPTIONAL", False)
    # a new current version also prompts again
    assert launch(src, "1.0.41", runtime_dir) == ("OPTIONAL", True)


def test_mandatory_is_never_suppressed_across_processes(write_doc, runtime_dir):
    src = write_doc(flat())
    for _ in range(3):
        assert launch(src, "1.0.38", runtime_dir) == ("MANDATORY", True)


@pytest.mark.parametrize("runtime", [None, "", "relative/run", "."])
def test_unset_or_relative_runtime_dir_falls_back_to_process(write_doc, tmp_path,
                                                             monkeypatch, runtime):
    src = write_doc(flat())
    monkeypatch.chdir(tmp_path)
    # each process prompts once (process scope) ...
    assert launch(src, "1.0.40", runtime) == ("OPTIONAL", True)
    assert launch(src, "1.0.40", runtime) == ("OPTIONAL", True)
    # ... and nothing was written relative to the working directory
    assert not (tmp_path / "relative").exists()
    assert not (tmp_path / "versiongate").exists()


def test_fallback_within_one_process_still_prompts_once(write_doc, tmp_path):
    src = write_doc(flat())
    code = r"""
import sys, versiongate as vg
with vg.Client(source=sys.argv[1]) as c:
    for _ in range(3):
        with c.check("1.0.40") as r:
            print(int(r.should_prompt))
"""
    proc = subprocess.run([sys.executable, "-c", code, str(src)],
                          env=child_env(XDG_RUNTIME_DIR=None), capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["1", "0", "0"]


@pytest.mark.parametrize("setup", ["file", "readonly"])
def test_unusable_runtime_dir_fails_safe(write_doc, tmp_path, setup):
    src = write_doc(flat())
    if setup == "file":
        runtime = tmp_path / "not-a-dir"
        runtime.write_text("x")
    else:
        runtime = tmp_path / "ro"
        runtime.mkdir(mode=0o500)
    env = child_env(XDG_RUNTIME_DIR=str(runtime))
    js = run_check(src, "1.0.40", env)
    assert js["status"] == "OPTIONAL"
    assert js["should_prompt"] is True  # no marker possible: prompting is safe
    js = run_check(src, "1.0.38", env)
    assert (js["status"], js["should_prompt"]) == ("MANDATORY", True)
