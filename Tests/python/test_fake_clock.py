"""The fake clock cleans up after libfaketime: what a faked process that
execs leaves in /dev/shm is removed once it no longer runs, and what a
running one uses is kept (fake_clock.remove_shared_memory_leftovers, which
the test session runs at its exit)."""

from __future__ import annotations

import os
import subprocess

import fake_clock


def names_of(pid: int, names: frozenset[str]) -> set[str]:
    return {n for n in names if n.rsplit("_", 1)[1] == str(pid)}


def test_what_an_exec_left_is_removed_and_a_running_process_keeps_its_own():
    clock = fake_clock.clock()
    assert clock.available, clock.problem
    env = clock.child_env(os.environ)
    before = fake_clock.shared_memory_names()
    # The shell is faked, makes its shared memory, then execs: no exit handler runs.
    done = subprocess.run(["sh", "-c", "echo $$; exec true"], env=env, capture_output=True, text=True, timeout=30)
    gone = int(done.stdout.split()[0])
    running = subprocess.Popen(["sleep", "30"], env=env)
    try:
        own = set()
        for _ in range(200):          # the sleeper makes its own at start-up
            own = names_of(running.pid, fake_clock.shared_memory_names())
            if len(own) == 2:
                break
            subprocess.run(["sleep", "0.01"])
        assert len(own) == 2, "libfaketime made no shared memory for a running faked process"
        left = names_of(gone, fake_clock.shared_memory_names() - before)
        assert len(left) == 2, "libfaketime 0.9.10 leaves both after an exec: %s" % sorted(left)

        removed = fake_clock.remove_shared_memory_leftovers(before)

        assert left <= set(removed)
        assert not names_of(gone, fake_clock.shared_memory_names())
        assert names_of(running.pid, fake_clock.shared_memory_names()) == own
    finally:
        running.kill()
        running.wait()
    assert names_of(running.pid, set(fake_clock.remove_shared_memory_leftovers(before))) == own
