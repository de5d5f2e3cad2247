"""A login burst (docs/design.md, "Sources and the cache"): launchers of one source that start together
share one request. Real processes, a real loopback server that answers
slowly, a lock per source under the cache directory (flock), bounded by
each caller's own deadline."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from remote_helpers import child_env, flat_doc, server_fixture  # noqa: F401  (the server fixture)

#: One check from a fresh process: it prints "ready" once the library is
#: loaded and checks when its stdin says "go", so a whole burst is spawned
#: first and then released at once. Prints the result JSON plus the check's
#: own elapsed seconds.
CHILD = r"""
import json, sys, time
import versiongate as vg
url, version, options = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
print("ready", flush=True)
sys.stdin.readline()
with vg.Client(source=url, session_scope="process", **options) as c:
    start = time.monotonic()
    with c.check(version) as r:
        out = r.json()
    out["_elapsed"] = time.monotonic() - start
print(json.dumps(out), flush=True)
"""


@pytest.fixture
def dirs(tmp_path):
    paths = {k: tmp_path / k for k in ("cache", "state", "home")}
    for p in paths.values():
        p.mkdir(mode=0o700)
    return paths


def spawn(url, version, options, dirs, count):
    env = child_env(dirs["cache"], dirs["state"], dirs["home"])
    return [subprocess.Popen([sys.executable, "-c", CHILD, url, version, json.dumps(options)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=env, text=True)
            for _ in range(count)]


def wait_ready(procs):
    for p in procs:
        assert p.stdout.readline().strip() == "ready", p.stderr.read()


def release(procs):
    wait_ready(procs)
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()


def results(procs, timeout=20):
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=timeout)
        assert p.returncode == 0, stderr
        out.append(json.loads(stdout))
    return out


def test_sixteen_launchers_at_once_make_one_request(server, dirs):
    name = "burst"
    server.document(name, flat_doc("1.0.39", "1.0.41"), next=[{"delay_s": 0.2}] * 16)
    url = server.url(name)
    # A long deadline: the test is about one request; on a busy machine 16
    # processes starting at once may pass the default 3 s and fail open.
    procs = spawn(url, "1.0.38", {"timeout_ms": "10000"}, dirs, 16)
    release(procs)
    answers = results(procs)
    assert [a["status"] for a in answers] == ["MANDATORY"] * 16, answers
    assert all(a["error"] == 0 for a in answers), answers
    origins = sorted(a["origin"] for a in answers)
    fetched = len(server.requests(name))
    assert fetched <= 2, "%d requests for one burst: %s" % (fetched, origins)
    assert origins.count("fresh_fetch") == fetched
    assert origins.count("cache_hit") == 16 - fetched


def test_a_stopped_lock_holder_never_holds_the_others_past_their_deadline(server, dirs):
    name = "stopped"
    # The holder's request hangs 6 s; the others' are answered at once.
    server.document(name, flat_doc("1.0.39", "1.0.41"), next=[{"delay_s": 6}])
    url = server.url(name)
    [holder] = spawn(url, "1.0.38", {"timeout_ms": "10000"}, dirs, 1)
    release([holder])
    deadline = time.monotonic() + 10
    while not server.requests(name):
        assert time.monotonic() < deadline, "the holder never asked"
        time.sleep(0.02)
    os.kill(holder.pid, signal.SIGSTOP)
    try:
        timeout_ms = 600
        waiters = spawn(url, "1.0.38", {"timeout_ms": str(timeout_ms)}, dirs, 5)
        release(waiters)
        answers = results(waiters)
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.communicate(timeout=10)
    for a in answers:
        # docs/design.md, "Deadlines and limits": the deadline + 10 %, whoever holds the lock.
        assert a["_elapsed"] <= timeout_ms / 1000 * 1.1, a
        # Each waited half its deadline, then fetched itself (the server
        # answers these at once) or failed open.
        assert (a["status"], a["origin"]) in {("MANDATORY", "fresh_fetch"), ("MANDATORY", "cache_hit"),
                                              ("UP_TO_DATE", "none")}, a
