"""The host's process stays the host's (docs/design.md, "The fetch helper").

A C host (Tests/c/host_process.c) makes one remote check against a loopback
https server, fetch-first and from a stale cache. Afterwards its
/proc/self/maps lists no libcurl, libssl, libnghttp2 or GnuTLS; it has as
many threads as before (also 300 ms later, when a refresh thread would
show); no descriptor is new; a child it starts after the check inherits
none of the library's; it got no SIGCHLD and has no child to reap. The
fetch ran in versiongate-helper, a process of its own.

Then the deadline by construction: a stale check with timeout_ms=100
returns in time although the helper takes 2 s to start (a helper that
sleeps first, beside a copy of the library), and the refresh still lands;
a fetch-first check against a server that accepts and never answers
returns within timeout_ms + 10 % and leaves no helper running.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import HEADER, LIB_PATH, copy_library
from remote_helpers import Loopback, flat_doc

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Server"))
from make_certs import make_certs  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
MANDATORY = 2


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("host_process")
    os.chmod(out, 0o755)
    library = Path(os.path.realpath(LIB_PATH))
    program = out / "host_process"
    # --allow-shlib-undefined: under scripts/proof LIB_PATH is a sanitizer
    # build, whose runtime the tests preload into every child.
    subprocess.run(["cc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-I", str(HEADER.parent),
                    str(REPO / "Tests" / "c" / "host_process.c"), "-o", str(program),
                    "-L", str(library.parent), "-l:libversiongate.so.1", "-Wl,--allow-shlib-undefined"], check=True)
    return {"program": program, "library_dir": library.parent, "certs": make_certs(out / "pki"), "out": out}


@pytest.fixture(scope="module")
def tls_server(built):
    s = Loopback(tls=(built["certs"]["server_pem"], built["certs"]["server_key"]))
    yield s
    assert s.stop() == "", "the loopback server wrote tracebacks"


def host(built, tmp_path, version, library_dir=None, wrapper=(), **options) -> dict:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "LD_LIBRARY_PATH": str(library_dir or built["library_dir"]),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_STATE_HOME": str(tmp_path / "state"),
           "HOME": str(tmp_path)}
    options.setdefault("tls_ca_file", str(built["certs"]["ca_pem"]))
    options.setdefault("session_scope", "process")
    argv = [*wrapper, str(built["program"]), version] + ["%s=%s" % item for item in options.items()]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def assert_host_untouched(seen: dict):
    assert seen["network_maps"] == [], "network libraries in the host's maps"
    before, after, later = seen["threads"]
    assert after == before and later == before, "the host has new threads: %s" % seen["threads"]
    assert seen["new_fds"] == [], "new descriptors in the host"
    assert seen["child_fds"] == [], "a child of the host inherited these"
    assert seen["sigchld"] == 0, "the host got a SIGCHLD it did not ask for"
    assert seen["child_to_reap"] is False, "the host has a child to reap"


def wait_for(predicate, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def test_a_fetch_first_check_leaves_the_host_as_it_was(built, tls_server, tmp_path):
    tls_server.document("first", flat_doc())
    seen = host(built, tmp_path, "1.0.38", source=tls_server.url("first"))
    assert (seen["status"], seen["origin"]) == (MANDATORY, "fresh_fetch"), seen
    assert_host_untouched(seen)
    assert len(tls_server.requests("first")) == 1


def test_a_stale_check_leaves_the_host_as_it_was_and_the_refresh_lands(built, tls_server, tmp_path):
    """Before 1.2 a background refresh was a refresher the host reaped (a
    SIGCHLD) or a refresh thread of the host, with libcurl and its
    sockets; now it is the helper."""
    name = "stale-process"
    mode = "process"
    tls_server.document(name, flat_doc())
    assert host(built, tmp_path, "1.0.38", source=tls_server.url(name))["origin"] == "fresh_fetch"
    tls_server.document(name, flat_doc(min_required="1.0.30"))
    seen = host(built, tmp_path, "1.0.38", source=tls_server.url(name), cache_ttl_s="0",
                stale_while_revalidate_s="600", background_refresh=mode)
    assert (seen["status"], seen["origin"]) == (MANDATORY, "stale_cache"), seen
    assert_host_untouched(seen)
    assert wait_for(lambda: len(tls_server.requests(name)) == 2, 10), "no refresh reached the server"


def slow_helper_library(built, tmp_path, delay_s: float) -> Path:
    """A copy of the library whose helper sleeps before it starts the real one."""
    lib = tmp_path / "slowlib"
    os.chmod(tmp_path, 0o755)
    copy_library(lib)
    helper = lib / "versiongate" / "versiongate-helper"
    real = built["library_dir"] / "versiongate" / "versiongate-helper"
    helper.write_text("#!/bin/sh\nsleep %s\nexec %s \"$@\"\n" % (delay_s, real))
    os.chmod(helper, 0o755)
    return lib


def test_a_stale_check_returns_in_time_though_the_helper_is_slow_to_start(built, tls_server, tmp_path):
    tls_server.document("slow-start", flat_doc())
    lib = slow_helper_library(built, tmp_path, 2)
    assert host(built, tmp_path, "1.0.38", source=tls_server.url("slow-start"))["origin"] == "fresh_fetch"
    seen = host(built, tmp_path, "1.0.38", library_dir=lib, source=tls_server.url("slow-start"),
                cache_ttl_s="0", stale_while_revalidate_s="600", timeout_ms="100")
    assert seen["origin"] == "stale_cache", seen
    assert seen["elapsed_ms"] <= 110, "the stale check waited %d ms for its helper" % seen["elapsed_ms"]
    assert_host_untouched(seen)
    assert wait_for(lambda: len(tls_server.requests("slow-start")) == 2, 15), "the slow helper's refresh never ran"


def test_a_stale_check_never_waits_for_the_helpers_exec(built, tls_server, tmp_path):
    """The helper's execve itself takes 1.5 s (strace delays it: a cold
    disk at login, a network home): the stale check still returns within
    timeout_ms + 10 %, since starting the helper waits for no exec
    (docs/design.md, "Starting processes"); the refresh still lands."""
    tls_server.document("slow-exec", flat_doc())
    assert host(built, tmp_path, "1.0.38", source=tls_server.url("slow-exec"))["origin"] == "fresh_fetch"
    slow_exec = ["strace", "-f", "-qq", "-o", "/dev/null", "--seccomp-bpf", "-e", "trace=execve",
                 "-e", "inject=execve:delay_enter=1500000"]
    seen = host(built, tmp_path, "1.0.38", wrapper=slow_exec, source=tls_server.url("slow-exec"),
                cache_ttl_s="0", stale_while_revalidate_s="600", timeout_ms="100")
    assert seen["origin"] == "stale_cache", seen
    assert seen["elapsed_ms"] <= 110, "the stale check waited %d ms for its helper's exec" % seen["elapsed_ms"]
    assert seen["sigchld"] == 0 and seen["child_to_reap"] is False, seen
    assert wait_for(lambda: len(tls_server.requests("slow-exec")) == 2, 15), "the refresh never ran"


def test_the_host_does_not_read_back_the_cache_the_helper_wrote(built, tls_server, tmp_path):
    """The helper hands back the fetched entry and the identity of the
    cache file it wrote (docs/design.md, "The helper's protocol"): the
    host's next checks find the file unchanged by its identity and never
    open it (strace counts the host's opens of it; the helper's are its own)."""
    tls_server.document("identity", flat_doc())
    child = ("import versiongate as vg, sys\n"
             "with vg.Client(source=sys.argv[1], session_scope='process', tls_ca_file=sys.argv[2]) as c:\n"
             "    print(','.join(c.check('1.0.38').origin for _ in range(3)))\n")
    log = tmp_path / "strace.log"
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), XDG_STATE_HOME=str(tmp_path / "state"),
               PYTHONPATH=str(REPO / "python"), VERSIONGATE_LIBRARY=os.path.realpath(LIB_PATH))
    done = subprocess.run(["strace", "-f", "-qq", "-o", str(log), "-e", "trace=openat,open",
                           sys.executable, "-c", child, tls_server.url("identity"), str(built["certs"]["ca_pem"])],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "fresh_fetch,cache_hit,cache_hit", done.stdout
    lines = log.read_text().splitlines()
    host_pid = lines[0].split()[0]
    # The cache is opened relative to its directory: openat(3, "config-<hash>.json", ...).
    read = re.compile(r'open(at)?\((\d+|AT_FDCWD), "([^"]*/)?config-[0-9a-f]+\.json", O_RDONLY')
    opened = [line for line in lines if line.split()[0] == host_pid and read.search(line)]
    assert opened == [], "the host read back the cache the helper wrote:\n" + "\n".join(opened)


def helpers_of(lib: Path) -> list[int]:
    """Live processes whose command line names `lib` (a helper loads it by path)."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmdline = Path("/proc/%s/cmdline" % pid).read_bytes()
            except OSError:
                continue
            if str(lib).encode() in cmdline:
                found.append(int(pid))
    return found


def test_a_server_that_never_answers_costs_the_deadline_and_leaves_no_helper(built, tmp_path):
    lib = slow_helper_library(built, tmp_path, 0)
    with socket.create_server(("127.0.0.1", 0)) as silent:   # accepts (backlog), never answers
        port = silent.getsockname()[1]
        seen = host(built, tmp_path, "1.0.38", library_dir=lib, timeout_ms="300",
                    source="https://127.0.0.1:%d/doc/never" % port)
        assert (seen["status"], seen["origin"]) == (0, "none"), seen
        assert 290 <= seen["elapsed_ms"] <= 330, seen["elapsed_ms"]
        assert helpers_of(lib) == [], "a helper is still running after the check"
    assert_host_untouched(seen)


def test_an_app_store_lookup_leaves_the_host_as_it_was(built, tls_server, tmp_path):
    """The iTunes lookup behind a prompting check's store URL is a request
    too: the helper sends it (HelperTransport), not the host."""
    seen = host(built, tmp_path, "1.0.38", source=str(REPO / "examples" / "gate.json"), store="appstore",
                app_id="com.example.launcher", itunes_endpoint="https://127.0.0.1:%d" % tls_server.port)
    assert (seen["status"], seen["origin"]) == (MANDATORY, "local_document"), seen
    assert_host_untouched(seen)
    assert any("/lookup" in r["path"] for r in tls_server.requests()), "no lookup reached the server"
