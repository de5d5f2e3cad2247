"""Stale-while-revalidate (docs/design.md, "The background refresh"): a
launch on a cache past its TTL but within stale_while_revalidate_s decides
at once from the cache and one refresh runs behind it, in a detached
`versiongate refresh` that outlives the host.

Real parts only: the loopback server (Tests/Server, with a slow document),
a C host compiled against the header, build/bin/versiongate with
LD_LIBRARY_PATH=build/lib, the library in this process (thread mode). The
cache is aged by moving its fetched_at back, as a day passing would. Every
wait is bounded; only 127.0.0.1 is contacted."""

from __future__ import annotations

import json
import re
import os
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from conftest import LIB_PATH, REPO
from remote_helpers import Loopback, cache_file, flat_doc, template_doc, unused_port

CLI = REPO / "build" / "bin" / "versiongate"
DELAY_S = 2.0
#: A check on a stale cache must return in well under the server's delay.
QUICK_S = 1.0

HOST_C = r"""
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <versiongate.h>
static volatile sig_atomic_t children;
static void on_child(int number) { (void)number; children++; }
static void log_line(int level, const char *message, void *unused) {
    (void)unused;
    fprintf(stderr, "log %d: %s\n", level, message);
}
/* A launcher: one check, print status and origin, exit at once.
 * VG_TEST_SIGCHLD=ignore: SIGCHLD ignored (children reaped by the kernel);
 * =count: a handler counts SIGCHLDs, and after the check (and 0.5 s) the
 * host's own wait loop reports what it found: "children N wait ECHILD".
 * VG_TEST_LOG set: the library's log (info) on stderr.
 * VG_TEST_FORK set: only a fork() child checks; it prints "child" and
 * whether the check was refused (EFORK) and its origin. */
int main(int argc, char **argv) {
    const char *mode = getenv("VG_TEST_SIGCHLD");
    if (mode && strcmp(mode, "ignore") == 0) signal(SIGCHLD, SIG_IGN);
    if (mode && strcmp(mode, "count") == 0) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = on_child;
        sigaction(SIGCHLD, &action, NULL);
    }
    vg_client *client = NULL;
    if (vg_client_new(&client) != VG_OK) return 3;
    for (int i = 2; i + 1 < argc; i += 2)
        if (vg_client_set(client, argv[i], argv[i + 1]) != VG_OK) return 4;
    if (getenv("VG_TEST_LOG")) {   /* the library's log on stderr */
        vg_client_set(client, "log_level", "info");
        vg_client_set_log_callback(client, log_line, NULL);
    }
    vg_result *result = NULL;
    if (getenv("VG_TEST_FORK")) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            int code = vg_client_check(&result, client, argv[1]);
            printf("child %s %s\n", code == VG_EFORK ? "EFORK" : "other", vg_result_get(result, "origin"));
            fflush(stdout);
            _exit(0);
        }
        int status;
        if (pid < 0 || waitpid(pid, &status, 0) != pid) return 5;
        vg_client_free(client);
        return 0;
    }
    vg_client_check(&result, client, argv[1]);
    printf("%s %s\n", vg_result_get(result, "status"), vg_result_get(result, "origin"));
    if (mode && strcmp(mode, "count") == 0) {
        usleep(500000);
        int status;
        pid_t reaped = waitpid(-1, &status, WNOHANG);
        printf("children %d wait %s\n", (int)children, reaped < 0 && errno == ECHILD ? "ECHILD" : "other");
    }
    fflush(stdout);
    vg_result_free(result);
    vg_client_free(client);
    return 0;
}
"""


@pytest.fixture(scope="module")
def host(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("swr-host")
    (work / "host.c").write_text(HOST_C)
    binary = work / "host"
    # --allow-shlib-undefined: under scripts/proof LIB_PATH is a sanitizer
    # build, whose __asan_*/__tsan_* symbols the preloaded runtime provides.
    subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", "-I", str(REPO / "include"), str(work / "host.c"),
                    "-L", os.path.dirname(os.path.abspath(LIB_PATH)), "-Wl,--allow-shlib-undefined",
                    "-lversiongate", "-o", str(binary)],
                   check=True, timeout=60)
    return binary


class World:
    """One user's homes, a loopback server with document "g", and a tag in
    the environment of everything started, to find what is left of it."""

    def __init__(self, tmp_path: Path, server: Loopback):
        self.home = tmp_path / "home"
        self.home.mkdir(mode=0o700)
        self.server = server
        self.url = server.url("g")
        self.tag = "swr-" + uuid.uuid4().hex
        self.seen: set[int] = set()
        self.command_lines: set[tuple[str, ...]] = set()

    library_dir = os.path.dirname(os.path.abspath(LIB_PATH))

    def env(self) -> dict:
        return {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": self.library_dir,
                "HOME": str(self.home), "XDG_CACHE_HOME": str(self.home / "cache"),
                "XDG_STATE_HOME": str(self.home / "state"), "XDG_RUNTIME_DIR": str(self.home),
                "VG_TEST_TAG": self.tag}

    @property
    def cache(self) -> Path:
        return cache_file(self.home / "cache", self.url)

    def entry(self) -> dict:
        return json.loads(self.cache.read_bytes())

    def age(self, seconds: int) -> None:
        """The cache as if fetched `seconds` earlier."""
        entry = self.entry()
        entry["fetched_at"] = str(int(entry["fetched_at"]) - seconds)
        self.cache.write_text(json.dumps(entry))

    def run(self, argv: list[str], bound: float = 10.0, sigchld: str | None = None) \
            -> tuple[subprocess.CompletedProcess, float]:
        """argv with stdout and stderr captured: the refresh must not hold the pipes open."""
        env = self.env()
        if sigchld:
            env["VG_TEST_SIGCHLD"] = sigchld
        start = time.monotonic()
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=bound,
                              stdin=subprocess.DEVNULL)
        return proc, time.monotonic() - start

    def check(self, host: Path, version: str, sigchld: str | None = None, **options) -> tuple[list[str], float]:
        argv = [str(host), version, "source", self.url, "session_scope", "process"]
        for key, value in options.items():
            argv += [key, str(value)]
        proc, elapsed = self.run(argv, sigchld=sigchld)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.split(), elapsed

    def tagged(self) -> dict[int, str]:
        """pid -> state of every process with our tag (zombies have no
        readable environment: those seen before are looked up by pid)."""
        found = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if self.tag.encode() in (entry / "environ").read_bytes():
                    found[int(entry.name)] = "?"
                    line = (entry / "cmdline").read_bytes().split(b"\0")
                    self.command_lines.add(tuple(part.decode(errors="replace") for part in line if part))
            except OSError:
                continue
        self.seen |= set(found)
        for pid in self.seen:
            try:
                stat = (Path("/proc") / str(pid) / "stat").read_text()
            except OSError:
                continue
            found[pid] = stat.rsplit(")", 1)[1].split()[0]
        return found

    def wait_for(self, what, condition, seconds: float = 15.0) -> None:
        deadline = time.monotonic() + seconds
        while not condition():
            self.tagged()
            assert time.monotonic() < deadline, "timed out waiting for " + what
            time.sleep(0.05)

    def min_required(self) -> str:
        return self.entry()["values"]["min_required_version_linux"]

    def nothing_left(self) -> None:
        """No refresher running, none defunct (bounded: it ends with its fetch)."""
        self.wait_for("the refresher to end", lambda: not self.tagged(), 20)


@pytest.fixture(name="world")
def world_fixture(tmp_path):
    server = Loopback()
    w = World(tmp_path, server)
    server.document("g", body=flat_doc("1.0.39", "1.0.41"))
    yield w
    assert server.stop() == "", "the loopback server wrote tracebacks"


def prime(world: World, host: Path) -> None:
    """A first launch fetches and caches; then the document changes, the
    server becomes slow and the cache two hours old (TTL 1 h)."""
    assert world.check(host, "1.0.40")[0] == ["OPTIONAL", "fresh_fetch"]
    world.server.document("g", body=flat_doc("1.0.41", "1.0.41"), delay_s=DELAY_S)
    world.age(2 * 3600)


def test_a_host_that_exits_at_once_decides_from_the_cache_and_the_refresh_outlives_it(world, host):
    prime(world, host)
    before = len(world.server.requests("g"))
    decided, elapsed = world.check(host, "1.0.40")
    assert decided == ["OPTIONAL", "stale_cache"], "the old document decides, at once"
    assert elapsed < QUICK_S, "%.3f s against a %.1f s server" % (elapsed, DELAY_S)
    # The host is gone; the refresh it started finishes after it.
    world.wait_for("the new document in the cache", lambda: world.min_required() == "1.0.41")
    assert len(world.server.requests("g")) == before + 1
    world.nothing_left()
    # The refresher: the fetch helper beside the library, with no argument;
    # the options went through its pipe, so no command line shows them.
    refresher = ("versiongate-helper",)
    assert refresher in world.command_lines, world.command_lines
    # The helper's fork before its exec shows the host's own argv (the host
    # no longer waits for that exec): the host's line, not a leak.
    others = [line for line in world.command_lines if line[0] != str(host)]
    assert not any(world.url in part for line in others for part in line), world.command_lines
    decided, elapsed = world.check(host, "1.0.40")
    assert decided == ["MANDATORY", "cache_hit"], "the next launch decides from the new document"
    assert elapsed < QUICK_S


def test_a_fork_child_on_a_stale_cache_starts_no_refresh(world, host):
    """A fork() child is refused (VG_EFORK) before anything else: it neither
    fetches nor starts a refresh, in either mode."""
    prime(world, host)
    before = len(world.server.requests("g"))
    for mode in ("process", "off"):
        env = world.env()
        env["VG_TEST_FORK"] = "1"
        proc = subprocess.run([str(host), "1.0.40", "source", world.url, "session_scope", "process",
                               "background_refresh", mode], env=env, capture_output=True, text=True,
                              timeout=10, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.split() == ["child", "EFORK", "none"], proc.stdout
    time.sleep(DELAY_S)   # a refresh started anyway would have asked by now
    assert len(world.server.requests("g")) == before
    world.nothing_left()
    assert not any("refresh" in line for line in world.command_lines), world.command_lines
    # The cache is as it was: the next launch still finds it stale, and refreshes.
    assert world.check(host, "1.0.40")[0] == ["OPTIONAL", "stale_cache"]
    world.wait_for("the new document in the cache", lambda: world.min_required() == "1.0.41")
    world.nothing_left()


def test_exec_starts_the_command_at_once_and_the_next_launch_uses_the_new_document(world, host, tmp_path):
    world.server.document("g", body=flat_doc("1.0.39", "1.0.40"))
    assert world.check(host, "1.0.40")[0] == ["UP_TO_DATE", "fresh_fetch"]
    world.server.document("g", body=flat_doc("1.0.41", "1.0.41"), delay_s=DELAY_S)
    world.age(2 * 3600)
    ran = tmp_path / "ran"
    command = ["/bin/sh", "-c", 'echo started >> "$0"', str(ran)]
    exec_argv = [str(CLI), "exec", "--dialog", "none", "--source", world.url, "--version", "1.0.40", "--"] + command
    proc, elapsed = world.run(exec_argv)
    assert proc.returncode == 0, proc.stderr
    assert ran.read_text() == "started\n"
    assert elapsed < QUICK_S, "the command started %.3f s late" % elapsed
    world.wait_for("the new document in the cache", lambda: world.min_required() == "1.0.41")
    world.nothing_left()
    proc, _ = world.run(exec_argv)
    assert proc.returncode == 20, proc.stderr
    assert ran.read_text() == "started\n", "MANDATORY never starts the command"


def test_a_host_that_ignores_sigchld_or_reaps_its_children(world, host):
    prime(world, host)
    decided, elapsed = world.check(host, "1.0.40", sigchld="ignore")
    assert decided == ["OPTIONAL", "stale_cache"] and elapsed < QUICK_S
    world.wait_for("the new document in the cache", lambda: world.min_required() == "1.0.41")
    world.nothing_left()
    world.server.document("g", body=flat_doc("1.0.39", "1.0.41"))
    world.age(2 * 3600)
    decided, elapsed = world.check(host, "1.0.40", sigchld="count")
    # One SIGCHLD at most (the short-lived first child, already waited for),
    # and nothing left for the host's own wait loop.
    assert decided[:2] == ["MANDATORY", "stale_cache"], decided
    assert decided[2:] in (["children", "0", "wait", "ECHILD"], ["children", "1", "wait", "ECHILD"]), decided
    world.wait_for("the refreshed document", lambda: world.min_required() == "1.0.39")
    world.nothing_left()


def test_a_mandatory_in_the_stale_cache_still_blocks(world, host):
    world.server.document("g", body=flat_doc("1.0.41", "1.0.41"))
    assert world.check(host, "1.0.40")[0] == ["MANDATORY", "fresh_fetch"]
    world.server.document("g", body=flat_doc("1.0.39", "1.0.40"), delay_s=DELAY_S)
    world.age(2 * 3600)
    assert world.check(host, "1.0.40")[0] == ["MANDATORY", "stale_cache"]
    world.wait_for("the new document in the cache", lambda: world.min_required() == "1.0.39")
    assert world.check(host, "1.0.40")[0] == ["UP_TO_DATE", "cache_hit"]
    world.nothing_left()


def test_sixteen_launchers_on_a_stale_cache_make_at_most_two_requests(world, host):
    prime(world, host)
    before = len(world.server.requests("g"))
    argv = [str(host), "1.0.40", "source", world.url, "session_scope", "process"]
    start = time.monotonic()
    launchers = [subprocess.Popen(argv, env=world.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  stdin=subprocess.DEVNULL) for _ in range(16)]
    outputs = [p.communicate(timeout=20) for p in launchers]
    elapsed = time.monotonic() - start
    assert all(p.returncode == 0 for p in launchers), outputs
    assert [o.split() for o, _ in outputs] == [["OPTIONAL", "stale_cache"]] * 16
    assert elapsed < DELAY_S, "16 launchers took %.3f s" % elapsed
    world.wait_for("the new document in the cache", lambda: world.min_required() == "1.0.41")
    world.nothing_left()
    made = len(world.server.requests("g")) - before
    assert 1 <= made <= 2, "%d requests for 16 launchers" % made


def test_past_the_window_and_with_the_window_0_a_check_fetches_first(world, host):
    prime(world, host)
    # 2 h old: past TTL (1 h) + a window of 10 min.
    decided, elapsed = world.check(host, "1.0.40", stale_while_revalidate_s=600)
    assert decided == ["MANDATORY", "fresh_fetch"] and elapsed >= DELAY_S
    world.age(2 * 3600)
    decided, elapsed = world.check(host, "1.0.40", stale_while_revalidate_s=0)
    assert decided == ["MANDATORY", "fresh_fetch"] and elapsed >= DELAY_S
    world.age(2 * 3600)
    decided, elapsed = world.check(host, "1.0.40", background_refresh="off")
    assert decided == ["MANDATORY", "fresh_fetch"] and elapsed >= DELAY_S
    world.age(2 * 3600)
    decided, elapsed = world.check(host, "1.0.40", max_stale_s=0)   # "never decide from a stale cache"
    assert decided == ["MANDATORY", "fresh_fetch"] and elapsed >= DELAY_S
    assert not world.tagged(), "no refresh was started"


def test_a_server_stale_while_revalidate_sets_the_window(world, host):
    world.server.document("g", body=flat_doc("1.0.39", "1.0.41"), cache_control="max-age=60, stale-while-revalidate=120")
    assert world.check(host, "1.0.40")[0] == ["OPTIONAL", "fresh_fetch"]
    assert world.entry()["swr_s"] == "120"
    world.server.document("g", body=flat_doc("1.0.41", "1.0.41"), delay_s=DELAY_S)
    world.age(100)   # past max-age, within the server's 120 s
    decided, elapsed = world.check(host, "1.0.40")
    assert decided == ["OPTIONAL", "stale_cache"] and elapsed < QUICK_S
    world.wait_for("the new document in the cache", lambda: world.min_required() == "1.0.41")
    world.nothing_left()
    world.age(200)   # past 60 + 120: the server's window, not the option's 7 days
    decided, elapsed = world.check(host, "1.0.40")
    assert decided == ["MANDATORY", "fresh_fetch"] and elapsed >= DELAY_S


def test_with_the_server_gone_the_cached_answer_stands_at_once(world, host):
    prime(world, host)
    gone = "http://127.0.0.1:%d/doc/g" % unused_port()
    # The same cache under the unreachable URL's name.
    entry = world.entry()
    entry["key"] = "document:" + gone
    target = cache_file(world.home / "cache", gone)
    target.write_text(json.dumps(entry))
    fetched_at = entry["fetched_at"]
    proc, elapsed = world.run([str(host), "1.0.40", "source", gone, "session_scope", "process"])
    assert proc.stdout.split() == ["OPTIONAL", "stale_cache"] and elapsed < QUICK_S
    world.nothing_left()
    assert json.loads(target.read_bytes())["fetched_at"] == fetched_at, "a failed refresh leaves the cache as it was"
    proc, elapsed = world.run([str(host), "1.0.40", "source", gone, "session_scope", "process"])
    assert proc.stdout.split() == ["OPTIONAL", "stale_cache"] and elapsed < QUICK_S


def test_a_refresh_refuses_a_rollback(world, host):
    world.server.document("g", body=template_doc("7", "1.0.39", "1.0.41"))
    assert world.check(host, "1.0.40")[0] == ["OPTIONAL", "fresh_fetch"]
    world.server.document("g", body=template_doc("6", "1.0.41", "1.0.41"))
    world.age(2 * 3600)
    assert world.check(host, "1.0.40")[0] == ["OPTIONAL", "stale_cache"]
    world.wait_for("the refresh's request", lambda: len(world.server.requests("g")) == 2)
    world.nothing_left()
    assert world.entry()["template_version"] == "7" and world.min_required() == "1.0.39"


def test_the_log_says_how_the_refresh_was_started(world, host):
    """The fetch helper, named with its pid: no thread of the host fetches."""
    prime(world, host)
    for minimum, extra in (("1.0.41", []), ("1.0.42", ["--set", "background_refresh=process"])):
        world.server.document("g", body=flat_doc(minimum, "1.0.42"), delay_s=0)
        world.age(2 * 3600)
        proc, _ = world.run([str(CLI), "check", "-v", "--source", world.url, "--version", "1.0.40"] + extra)
        assert re.search(r"started a background refresh \(fetch helper, pid \d+\)", proc.stderr), proc.stderr
        world.wait_for("the new document in the cache", lambda: world.min_required() == minimum)
        world.nothing_left()


def test_a_refresh_in_a_long_lived_host(world, tmp_path):
    import versiongate as vg
    world.server.document("g", body=flat_doc("1.0.39", "1.0.41"))
    env = world.env()
    saved = {k: os.environ.get(k) for k in ("XDG_CACHE_HOME", "XDG_STATE_HOME")}
    os.environ.update({k: env[k] for k in saved})
    try:
        with vg.Client(source=world.url, session_scope="process") as client:
            with client.check("1.0.40") as result:
                assert result.origin == "fresh_fetch"
        world.server.document("g", body=flat_doc("1.0.41", "1.0.41"), delay_s=DELAY_S)
        world.age(2 * 3600)
        with vg.Client(source=world.url, session_scope="process") as client:
            start = time.monotonic()
            with client.check("1.0.40") as result:
                assert (result.origin, result.status) == ("stale_cache", vg.Status.OPTIONAL)
            assert time.monotonic() - start < QUICK_S
            world.wait_for("the helper's refresh", lambda: world.min_required() == "1.0.41")
            with client.check("1.0.40") as result:
                assert result.status == vg.Status.MANDATORY
            assert client.refresh() == 0, "fresh: nothing to do"
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def test_the_helper_beside_the_library_is_used_only_when_trusted(world, host, tmp_path):
    """A library runs versiongate/versiongate-helper beside its own file
    (found with dladdr) only if nothing another user could have written;
    else no refresh starts, the check's fetch fails open naming the path,
    and the cache answers (docs/design.md, "The fetch helper")."""
    import shutil
    tree = tmp_path / "tree"
    (tree / "lib" / "versiongate").mkdir(parents=True)
    shutil.copy2(os.path.realpath(LIB_PATH), tree / "lib" / "libversiongate.so.1")
    world.library_dir = str(tree / "lib")
    helper = tree / "lib" / "versiongate" / "versiongate-helper"

    def launch(expected_origin: str) -> str:
        world.age(2 * 3600)
        env = dict(world.env(), VG_TEST_LOG="1")
        argv = [str(host), "1.0.40", "source", world.url, "session_scope", "process"]
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
        assert proc.stdout.split()[1:] == [expected_origin], proc
        world.nothing_left()
        return proc.stderr

    shutil.copy2(Path(os.path.realpath(LIB_PATH)).parent / "versiongate" / "versiongate-helper", helper)
    prime(world, host)
    world.server.document("g", delay_s=0)
    helper.unlink()
    log = launch("cache_after_error")
    assert "no fetch helper: %s: not found" % helper in log, log
    shutil.copy2(Path(os.path.realpath(LIB_PATH)).parent / "versiongate" / "versiongate-helper", helper)
    os.chmod(helper, 0o775)
    log = launch("cache_after_error")
    assert "no fetch helper: %s: writable by group or others" % helper in log, log
    os.chmod(helper, 0o755)
    log = launch("stale_cache")
    assert re.search(r"started a background refresh \(fetch helper, pid \d+\)", log), log
