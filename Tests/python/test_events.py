"""Events (docs/design.md, "Events"): the Python binding's ``on_event`` and
``Result.report``, ``update_confirmed`` across processes, and the command's
``--events FILE`` with a fake zenity answering each button. Real library,
real files, real processes."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import versiongate as vg
from cli_helpers import CLI, Env, probe_output, run
from conftest import child_env, flat
from unprivileged import NOBODY, Sandbox, chown, make_dir

URL = "https://flathub.org/apps/org.example.App"
COMMON = ["event", "time", "source", "platform", "current"]


@pytest.fixture
def doc(write_doc):
    return write_doc(flat(update_url_linux=URL))


@pytest.fixture
def state(tmp_path, monkeypatch):
    """A fresh XDG_STATE_HOME for the clients made after it."""
    path = tmp_path / "state"
    path.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_STATE_HOME", str(path))
    return path


def test_on_event_gets_one_decided_dict_per_check_on_the_checking_thread(doc, state):
    heard = []
    with vg.Client(doc, session_scope="process", on_event=lambda e: heard.append((threading.get_ident(), e))) as c:
        c.check("1.0.38").close()
        c.check("1.0.41").close()
    assert [t for t, _ in heard] == [threading.get_ident()] * 3
    first, confirmed, second = (e for _, e in heard)
    assert list(first)[:5] == COMMON
    assert first["event"] == "decided" and first["time"].endswith("Z")
    assert (first["source"], first["platform"], first["current"]) == (str(doc), "linux", "1.0.38")
    assert (first["status"], first["rule"], first["should_prompt"]) == ("MANDATORY", "below_minimum", True)
    assert (first["min_required"], first["latest"], first["origin"]) == ("1.0.39", "1.0.41", "local_document")
    assert first["reason"] == "1.0.38 is below min_required_version_linux 1.0.39"
    # 1.0.41 is newer than the prompted 1.0.38: the update took, said before its decided.
    assert (confirmed["event"], confirmed["from"], confirmed["to"]) == ("update_confirmed", "1.0.38", "1.0.41")
    assert (second["event"], second["status"], second["should_prompt"]) == ("decided", "UP_TO_DATE", False)


def test_without_on_event_nothing_is_recorded(doc, state):
    with vg.Client(doc, session_scope="process") as c:
        c.check("1.0.38").close()
    assert not list(state.glob("versiongate/confirm-*"))


@pytest.mark.parametrize("outcome", ["shown", "update", "later", "skip", "dismissed", "store_opened",
                                     "store_open_failed"])
def test_report_emits_the_outcome(doc, state, outcome):
    heard = []
    with vg.Client(doc, session_scope="process", on_event=heard.append) as c, c.check("1.0.40") as r:
        del heard[:]
        r.report(outcome)
    (event,) = heard
    assert list(event)[:5] == COMMON
    assert (event["event"], event["outcome"], event["status"], event["latest"]) == (
        "outcome", outcome, "OPTIONAL", "1.0.41")
    assert ("url" in event) == outcome.startswith("store_")
    if "url" in event:
        assert event["url"] == URL
    assert bool(list(state.glob("versiongate/skip-*"))) == (outcome == "skip")
    assert list(state.glob("versiongate/confirm-*"))


def test_report_of_an_unknown_outcome_raises_and_emits_nothing(doc, state):
    heard = []
    with vg.Client(doc, session_scope="process", on_event=heard.append) as c, c.check("1.0.40") as r:
        del heard[:]
        with pytest.raises(vg.VersionGateError) as raised:
            r.report("installed")
        assert raised.value.code == vg.Error.EINVAL
        assert "unknown outcome" in str(raised.value)
    assert heard == []
    with vg.check(doc, "1.0.40") as r, pytest.raises(ValueError):
        r.report("shown")


def test_the_callback_may_check_again_on_its_own_client(doc, state):
    heard = []
    with vg.Client(doc, session_scope="process") as c:
        def again(event):
            heard.append(event)
            if len(heard) == 1:
                c.check("1.0.41").close()
        c.events_to(again)
        c.check("1.0.41").close()
        assert [e["event"] for e in heard] == ["decided", "decided"]
        c.events_to(None)
        c.check("1.0.41").close()
    assert len(heard) == 2


def test_eight_threads_with_their_own_clients(doc, state):
    heard = {}

    def work(n):
        mine = heard.setdefault(n, [])
        with vg.Client(doc, session_scope="process",
                       on_event=lambda e: mine.append((threading.get_ident(), e["event"]))) as c:
            for _ in range(20):
                c.check("1.0.38").close()
        return threading.get_ident()

    idents = {}
    threads = [threading.Thread(target=lambda n=n: idents.__setitem__(n, work(n))) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for n in range(8):
        assert heard[n] == [(idents[n], "decided")] * 20


CONFIRM_CHILD = r"""
import json, sys
import versiongate as vg
heard = []
with vg.Client(sys.argv[1], session_scope="process", on_event=heard.append) as c:
    c.check(sys.argv[2]).close()
print(json.dumps([e for e in heard if e["event"] == "update_confirmed"]))
"""


def confirmations(doc, version, env, processes=1):
    procs = [subprocess.Popen([sys.executable, "-c", CONFIRM_CHILD, str(doc), version], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
             for _ in range(processes)]
    found = []
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        found += json.loads(out)
    return found


def test_update_confirmed_once_across_processes(doc, state):
    env = child_env(XDG_STATE_HOME=str(state))
    assert confirmations(doc, "1.0.40", env) == []          # OPTIONAL, prompted: recorded
    (confirmed,) = confirmations(doc, "1.0.42", env, processes=4)
    assert (confirmed["from"], confirmed["to"], confirmed["status_then"]) == ("1.0.40", "1.0.42", "OPTIONAL")
    assert confirmed["current"] == "1.0.42" and confirmed["prompted_at"].endswith("Z")
    assert confirmations(doc, "1.0.43", env, processes=2) == []   # never twice
    assert not list(state.glob("versiongate/*confirm-*"))


def test_never_for_a_version_that_was_never_prompted(doc, state):
    env = child_env(XDG_STATE_HOME=str(state))
    assert confirmations(doc, "1.0.41", env) == []          # up to date: no prompt
    assert confirmations(doc, "1.0.42", env) == []


# -- the command: --events FILE ---------------------------------------------------

@pytest.fixture
def env(tmp_path):
    e = Env(tmp_path)
    e.extra["DISPLAY"] = ":99"
    e.fake("xdg-open")
    return e


def events_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def launch(env, doc, version, events, *extra):
    return run(["exec", "--source", doc, "--version", version, "--events", events, *extra, "--", str(env.probe)],
               env.vars())


@pytest.mark.parametrize("version,exit_code,stdout,outcomes,status", [
    ("1.0.40", 0, None, ["shown", "update", "store_opened"], 0),
    ("1.0.40", 1, None, ["shown", "later"], 0),
    ("1.0.40", 1, "Skip this version\n", ["shown", "skip"], 0),
    ("1.0.38", 1, None, ["shown", "dismissed"], 20),     # MANDATORY closed: not updated
    ("1.0.38", 0, None, ["shown", "update", "store_opened"], 20),
], ids=["update", "later", "skip", "closed-mandatory", "update-mandatory"])
def test_exec_events_with_each_zenity_answer(env, doc, tmp_path, version, exit_code, stdout, outcomes, status):
    env.fake("zenity", exit_code=exit_code, stdout=stdout)
    events = tmp_path / "events.jsonl"
    proc = launch(env, doc, version, events)
    assert proc.returncode == status, proc.stderr
    assert stat.S_IMODE(events.stat().st_mode) == 0o600
    lines = events_of(events)
    assert [e["event"] for e in lines] == ["decided"] + ["outcome"] * len(outcomes)
    assert [e["outcome"] for e in lines[1:]] == outcomes
    assert all(list(e)[:5] == COMMON and e["current"] == version for e in lines)
    if "store_opened" in outcomes:
        assert lines[-1]["url"] == URL and env.calls("xdg-open") == [[URL]]
    if status == 0:
        probe_output(env)
    if "skip" in outcomes:
        assert list(env.state.glob("versiongate/skip-*"))


def test_exec_events_later_closed_optional_is_later(env, doc, tmp_path):
    """zenity exits 1 both for Later and for a closed window: one answer, "later"."""
    env.fake("zenity", exit_code=1)
    events = tmp_path / "events.jsonl"
    launch(env, doc, "1.0.40", events)
    assert [e.get("outcome") for e in events_of(events)] == [None, "shown", "later"]


def test_exec_events_confirm_the_update_in_a_later_run(env, doc, tmp_path):
    env.fake("zenity", exit_code=1)
    events = tmp_path / "events.jsonl"
    assert launch(env, doc, "1.0.38", events).returncode == 20
    assert launch(env, doc, "1.0.42", events).returncode == 0
    assert launch(env, doc, "1.0.43", events).returncode == 0
    lines = events_of(events)
    assert [e["event"] for e in lines] == ["decided", "outcome", "outcome", "update_confirmed", "decided", "decided"]
    confirmed = lines[3]
    assert (confirmed["from"], confirmed["to"], confirmed["status_then"]) == ("1.0.38", "1.0.42", "MANDATORY")


def test_check_and_explain_write_decided(env, doc, tmp_path):
    events = tmp_path / "events.jsonl"
    assert run(["check", "--source", doc, "--version", "1.0.41", "--events", events], env.vars()).returncode == 0
    assert run(["explain", "--source", doc, "--version", "1.0.41", "--events", events], env.vars()).returncode == 0
    assert [(e["event"], e["status"]) for e in events_of(events)] == [("decided", "UP_TO_DATE")] * 2
    assert "--events" in run(["check", "--help"], env.vars()).stdout.decode()


def test_exec_without_events_writes_no_event_file(env, doc, tmp_path):
    env.fake("zenity", exit_code=1)
    proc = run(["exec", "--source", doc, "--version", "1.0.40", "--", str(env.probe)], env.vars())
    assert proc.returncode == 0
    assert list(tmp_path.glob("*.jsonl")) == []


def test_an_unwritable_events_file_warns_and_the_app_runs(env, doc, tmp_path):
    env.fake("zenity", exit_code=1)
    missing = tmp_path / "no-such-dir" / "events.jsonl"
    proc = launch(env, doc, "1.0.40", missing)
    assert proc.returncode == 0
    assert "--events %s: No such file or directory; events are not written" % missing in proc.stderr.decode()
    probe_output(env)


@pytest.fixture
def nobody_world():
    """The command beside the sandbox's copy of the library, where nobody
    can run them (Sandbox: under scripts/proof it also makes the sanitizer
    runtime and log directory reachable), and a directory nobody owns."""
    box = Sandbox()
    shutil.copy(CLI, box.root / "versiongate")
    os.chmod(box.root / "versiongate", 0o755)
    os.symlink(box.lib.relative_to(box.root), box.root / "libversiongate.so.1")   # the SONAME the command asks for
    home = make_dir(box.root / "home", NOBODY, 0o700)
    (home / "gate.json").write_text(json.dumps(flat()))
    chown(home / "gate.json", NOBODY, mode=0o644)
    shutil.copy("/bin/true", box.root / "app")
    yield box, home
    reports = sorted(box.reports.iterdir())
    box.close()
    assert not reports, "the unprivileged command wrote a sanitizer report"


def as_nobody(box, home, events):
    env = box.env(LD_LIBRARY_PATH=box.root, HOME=home)
    return subprocess.run(box.setpriv + [str(box.root / "versiongate"), "exec", "--source", str(home / "gate.json"),
                                         "--version", "1.0.41", "--events", str(events), "--", str(box.root / "app")],
                          env=env, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)


def test_events_file_rules_as_an_ordinary_user(nobody_world):
    box, home = nobody_world
    root = box.root
    own = home / "events.jsonl"
    proc = as_nobody(box, home, own)
    assert proc.returncode == 0, proc.stderr
    assert os.stat(own).st_uid == NOBODY and stat.S_IMODE(os.stat(own).st_mode) == 0o600
    assert [e["event"] for e in events_of(own)] == ["decided"]

    # A symlink (to a file nobody may write itself): refused, the target untouched, the app runs.
    target = home / "target.jsonl"
    target.write_text("")
    chown(target, NOBODY, mode=0o600)
    link = home / "link.jsonl"
    link.symlink_to(target)
    chown(link, NOBODY)
    proc = as_nobody(box, home, link)
    assert proc.returncode == 0
    assert "a symlink, refused; events are not written" in proc.stderr.decode()
    assert target.read_text() == ""

    # Another user's file that nobody may write (group/other writable): refused.
    shared = make_dir(root / "shared", 0, 0o777)
    foreign = shared / "events.jsonl"
    foreign.write_text("")
    chown(foreign, 0, mode=0o666)
    proc = as_nobody(box, home, foreign)
    assert proc.returncode == 0
    assert "owned by another user, refused; events are not written" in proc.stderr.decode()
    assert foreign.read_text() == ""

    # Its own file, but writable by others: refused too.
    loose = home / "loose.jsonl"
    loose.write_text("")
    chown(loose, NOBODY, mode=0o622)
    proc = as_nobody(box, home, loose)
    assert proc.returncode == 0
    assert "writable by group or others, refused" in proc.stderr.decode()
    assert loose.read_text() == ""


# -- simulate --events: the funnel ------------------------------------------------

def test_simulate_prints_the_funnel_of_real_exec_runs(env, doc, tmp_path):
    events = tmp_path / "events.jsonl"
    # Three machines' worth of launches, each its own state: 1.0.40 shown three times.
    answers = [(0, None), (1, None), (1, "Skip this version\n")]
    for n, (code, out) in enumerate(answers):
        env.fake("zenity", exit_code=code, stdout=out)
        state = tmp_path / ("state-%d" % n)
        state.mkdir(mode=0o700)
        env.new_session()
        assert run(["exec", "--source", doc, "--version", "1.0.40", "--events", events, "--", str(env.probe)],
                   env.vars(XDG_STATE_HOME=str(state))).returncode == 0
    # The first machine came back on 1.0.42; a MANDATORY one closed its prompt.
    run(["exec", "--source", doc, "--version", "1.0.42", "--events", events, "--", str(env.probe)],
        env.vars(XDG_STATE_HOME=str(tmp_path / "state-0")))
    env.fake("zenity", exit_code=1)
    run(["exec", "--source", doc, "--version", "1.0.38", "--events", events, "--", str(env.probe)], env.vars())
    with events.open("a") as f:
        f.write("not json\n{\"event\":\"from_the_future\"}\n")
    proc = run(["simulate", "--events", events], env.vars())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().splitlines() == [
        "version prompted later skip dismissed update confirmed",
        "1.0.38 1 0 0 1 0 0",
        "1.0.40 3 1 1 0 1 1",
        "# 2 lines not counted",
    ]
    # 4 + 3 + 3 lines of the prompts, 2 of the confirmation, 3 of MANDATORY, 2 junk: simulate appended nothing.
    assert events.read_text().count("\n") == 4 + 3 + 3 + 2 + 3 + 2


def test_simulate_events_beside_an_installed_base_and_errors(env, doc, tmp_path):
    events = tmp_path / "events.jsonl"
    events.write_text('{"event":"update_confirmed","from":"1.0.40","to":"1.0.41"}\n')
    base = tmp_path / "installed.txt"
    base.write_text("1.0.38 1\n1.0.41 3\n")
    proc = run(["simulate", "--source", doc, "--versions", base, "--events", events], env.vars())
    assert proc.stdout.decode().splitlines() == [
        "mandatory 1 25.0%", "optional 0 0.0%", "up_to_date 3 75.0%",
        "version prompted later skip dismissed update confirmed", "1.0.40 0 0 0 0 0 1"]
    missing = run(["simulate", "--events", tmp_path / "missing.jsonl"], env.vars())
    assert missing.returncode == 2 and "cannot open" in missing.stderr.decode()
    neither = run(["simulate", "--source", doc], env.vars())
    assert neither.returncode == 2 and "--versions FILE or --events FILE is required" in neither.stderr.decode()


def test_python_events_funnel(tmp_path):
    events = tmp_path / "events.jsonl"
    events.write_text('{"event":"outcome","outcome":"shown","current":"2.0"}\n'
                      '{"event":"outcome","outcome":"update","current":"2.0"}\n'
                      '{"event":"update_confirmed","from":"2.0","to":"2.1"}\n'
                      '{"event":"outcome","outcome":"shown","current":"not a version"}\n')
    assert vg.events_funnel(events).splitlines() == [
        "version prompted later skip dismissed update confirmed", "2.0 1 0 0 0 1 1", "# 1 line not counted"]
    with pytest.raises(vg.VersionGateError) as raised:
        vg.events_funnel(tmp_path / "missing.jsonl")
    assert raised.value.code == vg.Error.ECONFIG and "cannot open" in str(raised.value)
