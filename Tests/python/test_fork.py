"""A good guest in a host that forks (Python multiprocessing with the fork
start method): a fork child's checks fail open with VG_EFORK at once, even
while another thread of the parent holds a fetch in flight (the child
inherits that thread's locks, held, with no thread to release them)."""

from __future__ import annotations

import multiprocessing
import time

import versiongate as vg
from remote_helpers import fetch_in_flight, flat_doc, server_fixture  # noqa: F401  (the server fixture)

EFORK = -11


def _check_in_child(client, local_path, pipe):
    out = []
    start = time.monotonic()
    with client.check("1.0.38") as r:                # the parent's client, mid-fetch
        out.append((r.code, r.json()["status"], time.monotonic() - start))
    with vg.check(local_path, "1.0.38") as r:        # the one-shot call, a local document
        out.append((r.code, r.json()["status"]))
    try:                                           # configuring a new client
        vg.Client(source=local_path)
        out.append("configured")
    except vg.VersionGateError as e:
        out.append(e.code)
    pipe.send(out)        # a Pipe, not a Queue: a Queue starts a thread (TSan forbids that after fork)


def test_a_fork_child_mid_fetch_fails_open_with_efork(server, tmp_path):
    server.document("hang", flat_doc(), next=[{"delay_s": 4}])
    url = server.url("hang")
    local = tmp_path / "gate.json"
    local.write_text(flat_doc())
    client = vg.Client(source=url, session_scope="process", timeout_ms="3000")
    fetching = fetch_in_flight(client, server, "hang")

    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_check_in_child, args=(client, str(local), sender))
    child.start()
    child.join(15)
    try:
        assert child.exitcode == 0, "the fork child died (exit code %s)" % child.exitcode
        assert receiver.poll(5), "the child sent nothing"
        [(code, status, elapsed), (local_code, local_status), configuring] = receiver.recv()
        assert (code, status) == (EFORK, "UP_TO_DATE")
        assert elapsed < 0.5, "the child waited for the parent's fetch (%.2f s)" % elapsed
        assert (local_code, local_status) == (EFORK, "UP_TO_DATE")
        assert configuring == EFORK
    finally:
        fetching.join(10)
        client.close()


def _new_calls_in_child(client, result, local_path, pipe):
    out = {}
    for name, call in (("skip_version", lambda: client.skip_version("1.0.41")),
                       ("log_to", lambda: client.log_to(__import__("logging").getLogger("versiongate.fork"))),
                       ("update", lambda: client.update(result)),
                       ("restart", lambda: client.restart(["/bin/true"]))):
        try:
            call()
            out[name] = "done"
        except vg.VersionGateError as e:
            out[name] = e.code
    out["lint"] = vg.lint(local_path)           # no library state: it works in a fork child
    pipe.send(out)


def test_skip_version_the_log_callback_and_updating_are_refused_in_a_fork_child_and_lint_works(tmp_path):
    local = tmp_path / "gate.json"
    local.write_text(flat_doc())
    client = vg.Client(source=str(local), session_scope="process")
    result = client.check("1.0.38")                # MANDATORY: what an update is for
    assert result.json()["status"] == "MANDATORY"
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_new_calls_in_child, args=(client, result, str(local), sender))
    child.start()
    child.join(15)
    try:
        assert child.exitcode == 0, "the fork child died (exit code %s)" % child.exitcode
        assert receiver.poll(5), "the child sent nothing"
        assert receiver.recv() == {"skip_version": EFORK, "log_to": EFORK, "update": EFORK, "restart": EFORK,
                                   "lint": []}
    finally:
        result.close()
        client.close()
