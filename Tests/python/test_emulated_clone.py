"""Where a clone with no exit signal is refused, a detached start falls back
to a forked intermediate that reports the program's pid through a pipe
(Sources/SystemShim/process_spawn.c, detached_by_fork). qemu-user refuses
it, as it emulates only fork-like clones and threads; before the fallback
every remote check under it failed open with "fetch helper: cannot start
…: Invalid argument" (how the arm64 packages are checked, and how arm64
containers run on x86_64 machines).

The real command under this machine's qemu-user, fetching from a loopback
server through its helper. Not under scripts/proof's sanitizers: their
runtimes cannot run under qemu-user."""

from __future__ import annotations

import platform
import shutil
import subprocess

import pytest

from cli_helpers import CLI, Env
from remote_helpers import Loopback, flat_doc

QEMU = shutil.which("qemu-%s-static" % platform.machine())
pytestmark = pytest.mark.skipif(QEMU is None, reason="qemu-user-static is installed by scripts/setup")


@pytest.fixture(scope="module")
def server():
    s = Loopback()
    yield s
    assert s.stop() == "", "the loopback server wrote tracebacks"


def emulated_check(env: Env, url: str, version: str) -> subprocess.CompletedProcess:
    return subprocess.run([QEMU, str(CLI), "check", "--source", url, "--version", version], env=env.vars(),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_a_check_under_qemu_user_fetches_through_its_helper(server, tmp_path):
    server.document("gate", flat_doc("1.0.41", "1.0.41"))
    done = emulated_check(Env(tmp_path), server.url("gate"), "1.0.38")
    assert done.returncode == 20, done.stdout + done.stderr          # MANDATORY, from the server
    assert "fetch helper" not in done.stderr, done.stderr
    assert len(server.requests("gate")) == 1


def test_under_qemu_user_an_unreachable_server_is_the_helpers_error(tmp_path):
    done = emulated_check(Env(tmp_path), "http://127.0.0.1:9/gate.json", "1.0.38")
    assert done.returncode == 0, done.stdout + done.stderr           # fails open
    assert "cannot connect" in done.stderr and "fetch helper" not in done.stderr, done.stderr
