"""A fake wall clock for the real libversiongate.so, through libfaketime.

The library reads "now" with clock_gettime(CLOCK_REALTIME) and has no option
to move it (the test-only ``fixed_time_s`` was removed from the shipped API).
Tests that walk a remote source through time (cache age, backoff) therefore
fake the clock of the whole process with libfaketime (Debian packages
``libfaketime`` and ``faketime``, 0.9.10; scripts/setup installs them):

* the process runs with ``LD_PRELOAD=libfaketimeMT.so.1`` (the thread-safe
  variant: checks run on several threads) and
  ``FAKETIME_TIMESTAMP_FILE=<file>`` plus ``FAKETIME_NO_CACHE=1``, so
  libfaketime re-reads the file at every clock read;
* :meth:`Clock.set` writes an absolute time into the file, which FREEZES the
  wall clock there (no ``@``: see /usr/share/doc/libfaketime/README.gz,
  4b/4c); :meth:`Clock.real` writes ``+0`` (a zero offset: the real time).
  The time is written as Unix seconds with ``FAKETIME_FMT=%s``: libfaketime
  turns a "YYYY-MM-DD HH:MM:SS" string into seconds with mktime(), i.e. in
  the process's LOCAL time zone, and some tests change $TZ in-process (the
  Firebase ones send Europe/Berlin). ``%s`` round-trips exactly in any zone
  (glibc's strptime fills the fields with localtime_r, mktime undoes it), once
  the C library has seen the current $TZ, which :meth:`Clock.set` ensures
  with time.tzset();
* ``FAKETIME_DONT_FAKE_MONOTONIC=1`` keeps CLOCK_MONOTONIC real (the
  library's deadlines, libcurl's timeouts, Python's time.monotonic), and
  ``NO_FAKE_STAT=1`` keeps file timestamps real.
* Two bugs of libfaketime 0.9.10 (Debian 12) with DONT_FAKE_MONOTONIC, both
  fixed upstream later, are worked around:
  - pthread_cond_timedwait on a CLOCK_MONOTONIC condition variable (Python's
    GIL waits on one, 5 ms at a time) gets a deadline shifted by the faked
    REALTIME base whenever glibc >= 2.30 makes libfaketime apply its "forced
    monotonic fix": every such wait times out at once and threads thrash
    the GIL (test_processes_share_cache... saw a third of its flips).
    ``FAKETIME_FORCE_MONOTONIC_FIX=0`` turns that fix off, and the deadline
    is then passed through unchanged, which is right for a real monotonic
    clock;
  - clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME), which is how Python 3.11
    implements time.sleep, gets the same shift unconditionally and fails
    with EINVAL (libfaketime #426). So in a faked process whose time.sleep
    fails that way, :func:`clock` replaces time.sleep with one that waits in
    select() on the real monotonic clock (subprocess.wait, among others,
    sleeps). The library itself sleeps with usleep(), which libfaketime
    passes through. A faked child that sleeps in Python must import this
    module and call :func:`clock` too.

LD_PRELOAD only works from the start of a process, so :func:`reexec_faked`
re-executes the interpreter once with that environment (conftest.py does it
for pytest, scripts/simulate_fleet for itself), guarded by ``VG_FAKE_CLOCK``.
In the re-executed process LD_PRELOAD is put back as it was in os.environ,
so subprocesses that inherit the environment (the loopback server, openssl)
run on the real clock; a child that must share the fake clock gets
:meth:`Clock.child_env`. The clock file is shared: a child started from such
an environment sees whatever the parent last set.

Without libfaketime nothing is re-executed and :meth:`Clock.set` raises
:class:`FakeClockUnavailable` with the reason, so the tests that move the
clock fail (never skip) and say what to install.

Importable without pytest or the library (scripts/simulate_fleet uses it).
"""

from __future__ import annotations

import atexit
import errno
import glob
import os
import select
import shutil
import sys
import tempfile
import time
from contextlib import contextmanager
from typing import Iterator, Mapping

#: Set (to the clock file) in the environment of the re-executed process.
MARKER = "VG_FAKE_CLOCK"
#: The pid that created the clock file (it removes it at exit).
_OWNER = "VG_FAKE_CLOCK_OWNER"
#: LD_PRELOAD as it was before libfaketime was added ("" = unset).
_SAVED_PRELOAD = "VG_FAKE_CLOCK_SAVED_LD_PRELOAD"
#: Overrides where libfaketimeMT.so.1 is looked for.
LIBRARY_OVERRIDE = "VG_LIBFAKETIME"

_LIBRARY_NAME = "libfaketimeMT.so.1"
_LIBRARY_GLOBS = [
    "/usr/lib/*/faketime/" + _LIBRARY_NAME,      # Debian / Ubuntu (multiarch)
    "/usr/lib64/faketime/" + _LIBRARY_NAME,
    "/usr/lib/faketime/" + _LIBRARY_NAME,
    "/usr/local/lib/faketime/" + _LIBRARY_NAME,  # make install from source
]
INSTALL_HINT = ("install libfaketime (Debian: apt-get install libfaketime faketime; "
                "scripts/setup does it)")

#: What libfaketime reads from the environment; stripped from every env we
#: build so a stray setting (FAKETIME wins over the file) cannot interfere.
_FAKETIME_PREFIXES = ("FAKETIME", "FAKERANDOM")
_FAKETIME_NAMES = ("NO_FAKE_STAT", "DONT_FAKE_MONOTONIC", "FAKE_UTIME")

REAL = "+0"

_SANITIZER_OPTIONS = ("ASAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS")


class FakeClockUnavailable(RuntimeError):
    """The wall clock cannot be faked in this process (with the reason)."""


def find_library() -> str | None:
    """Path of libfaketimeMT.so.1, or None when libfaketime is not installed."""
    override = os.environ.get(LIBRARY_OVERRIDE)
    if override:
        return override if os.path.isfile(override) else None
    for pattern in _LIBRARY_GLOBS:
        found = sorted(glob.glob(pattern))
        if found:
            return found[0]
    return None


def _is_faketime_var(name: str) -> bool:
    return name.startswith(_FAKETIME_PREFIXES) or name in _FAKETIME_NAMES


def _without_faketime(preload: str) -> str:
    """An LD_PRELOAD value without any libfaketime entry."""
    parts = preload.replace(":", " ").split()
    return " ".join(p for p in parts if "libfaketime" not in os.path.basename(p))


def preload_env(base: Mapping[str, str], clock_file: str, library: str) -> dict:
    """``base`` plus what makes libfaketime follow ``clock_file``.

    libfaketime goes FIRST in LD_PRELOAD, before a sanitizer runtime that is
    already there (scripts/proof preloads ASan or TSan): it passes every call
    it intercepts on to the next definition (RTLD_NEXT), so the sanitizer
    still sees them, while the sanitizer's own clock reads resolve past it to
    libc. The other way round, ASan's allocator reads CLOCK_MONOTONIC while it
    holds its lock, that lands in libfaketime's lazy set-up, which mallocs:
    the process deadlocks at start-up. ASan refuses not to be first unless
    told ``verify_asan_link_order=0``, which is added for it."""
    env = {k: v for k, v in base.items() if not _is_faketime_var(k) and k != MARKER}
    kept = _without_faketime(env.get("LD_PRELOAD", ""))
    env["LD_PRELOAD"] = (library + " " + kept).strip()
    if "asan" in kept:
        options = env.get("ASAN_OPTIONS", "")
        if "verify_asan_link_order" not in options:
            env["ASAN_OPTIONS"] = (options + ":" if options else "") + "verify_asan_link_order=0"
    env.update({
        "FAKETIME_TIMESTAMP_FILE": clock_file,
        "FAKETIME_NO_CACHE": "1",
        "FAKETIME_FMT": "%s",
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
        "FAKETIME_FORCE_MONOTONIC_FIX": "0",
        "NO_FAKE_STAT": "1",
        MARKER: clock_file,
    })
    return env


def unfaked_env(base: Mapping[str, str] | None = None) -> dict:
    """``base`` (default os.environ) without libfaketime: for subprocesses
    that must keep the real clock, such as the loopback server."""
    base = os.environ if base is None else base
    env = {k: v for k, v in base.items()
           if not _is_faketime_var(k) and k not in (MARKER, _OWNER, _SAVED_PRELOAD)}
    kept = _without_faketime(env.get("LD_PRELOAD", ""))
    if kept:
        env["LD_PRELOAD"] = kept
    else:
        env.pop("LD_PRELOAD", None)
    return env


def _write(path: str, text: str) -> None:
    """Replace the file's contents atomically: libfaketime may read it on
    another thread at any moment, and exits on a line it cannot parse."""
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(text + "\n")
    os.replace(tmp, path)


def _preloaded() -> bool:
    """Whether libfaketime is mapped into this process."""
    try:
        with open("/proc/self/maps") as maps:
            return any("libfaketime" in line for line in maps)
    except OSError:
        return False


def reexec_faked(base_env: Mapping[str, str] | None = None, before_exec=None) -> None:
    """Re-execute this interpreter (same argv) with libfaketime preloaded,
    once. Returns without doing anything when this process already is that
    re-executed one, or when libfaketime is not installed (the clock then
    reports why on use). ``base_env`` (default os.environ) is the environment
    to start from; ``before_exec`` runs just before the exec (clean-up of what
    this process made and would otherwise leave behind)."""
    if os.environ.get(_OWNER) == str(os.getpid()):
        return                    # this is the re-executed process (no loop)
    if os.environ.get(MARKER) and _preloaded():
        return                    # already faked (re-executed, or a child_env)
    library = find_library()
    if library is None:
        return
    base = dict(os.environ if base_env is None else base_env)
    directory = tempfile.mkdtemp(prefix="vg-fake-clock-")
    clock_file = os.path.join(directory, "now")
    _write(clock_file, REAL)
    env = preload_env(base, clock_file, library)
    env[_OWNER] = str(os.getpid())                  # exec keeps the pid
    env[_SAVED_PRELOAD] = _without_faketime(base.get("LD_PRELOAD", ""))
    if before_exec is not None:
        before_exec()
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, list(sys.orig_argv), env)


class Clock:
    """This process's wall clock as libfaketime fakes it (see the module
    docstring). Use :func:`clock` to get it."""

    def __init__(self, path: str | None, problem: str | None, preload: str = ""):
        self.path = path
        self.problem = problem
        self._preload = preload           # LD_PRELOAD without libfaketime
        self._now: int | None = None      # None = real time

    @property
    def available(self) -> bool:
        return self.problem is None

    def _require(self) -> str:
        if self.problem is not None:
            raise FakeClockUnavailable(
                "cannot fake the wall clock for the library: %s" % self.problem)
        return self.path

    def set(self, now: int) -> None:
        """Freeze the wall clock at ``now`` (Unix seconds), for this process
        and every child started with :meth:`child_env`."""
        path = self._require()
        now = int(now)
        time.tzset()                       # see the module docstring (%s)
        _write(path, str(now))
        self._now = now
        seen = time.time()
        if int(seen) != now:
            raise FakeClockUnavailable(
                "libfaketime is preloaded but the wall clock reads %.3f after "
                "setting %d (is FAKETIME set elsewhere?)" % (seen, now))

    def real(self) -> None:
        """Back to the real time."""
        path = self._require()
        _write(path, REAL)
        self._now = None

    @property
    def now(self) -> int | None:
        """The frozen time last set, or None for the real time."""
        return self._now

    @contextmanager
    def frozen_at(self, now: int) -> Iterator[None]:
        """``with clock.frozen_at(t):`` the wall clock reads ``t`` inside,
        and what it read before (frozen or real) after."""
        before = self._now
        self.set(now)
        try:
            yield
        finally:
            if before is None:
                self.real()
            else:
                self.set(before)

    def child_env(self, env: Mapping[str, str]) -> dict:
        """``env`` for a subprocess that must share this fake clock (the
        same file). An ``env`` without LD_PRELOAD gets what this process had
        before libfaketime (a sanitizer runtime under scripts/proof, which
        the child needs as much as this process does). Unchanged (real
        clock) when the clock cannot be faked: only setting it is an error,
        see :meth:`set`."""
        env = dict(env)
        if not self.available:
            return env
        if "LD_PRELOAD" not in env and self._preload:
            env["LD_PRELOAD"] = self._preload
            for name in _SANITIZER_OPTIONS:     # as Tests/sanitizers/vg_sanitizer_env.py
                if name in os.environ:
                    env.setdefault(name, os.environ[name])
        return preload_env(env, self.path, find_library() or _LIBRARY_NAME)


#: Where libfaketime 0.9.10 keeps the shared memory and semaphore it makes
#: in every faked process that inherits none (faketime_shm_PID,
#: sem.faketime_sem_PID). It removes them only when that process exits
#: through its exit handlers and no child still shares them: one that
#: execs (``versiongate exec``), is killed, or leaves a child behind,
#: leaves them in /dev/shm for good.
SHARED_MEMORY = "/dev/shm"
_SHARED_MEMORY_PREFIXES = ("faketime_shm_", "sem.faketime_sem_")


def shared_memory_names() -> frozenset[str]:
    """libfaketime's names in /dev/shm now (empty when it cannot be read)."""
    try:
        return frozenset(n for n in os.listdir(SHARED_MEMORY) if n.startswith(_SHARED_MEMORY_PREFIXES))
    except OSError:
        return frozenset()


def _runs(pid: int) -> bool:
    """Whether `pid` is a process that still runs (a zombie does not)."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except (OSError, IndexError):
        return False


def remove_shared_memory_leftovers(before: frozenset[str]) -> list[str]:
    """Removes what libfaketime left in /dev/shm since ``before`` for
    processes that no longer run (a running one, of this run or another,
    may still use its own); the names removed."""
    removed = []
    for name in sorted(shared_memory_names() - before):
        pid = name.rsplit("_", 1)[1]
        if not pid.isdigit() or _runs(int(pid)):
            continue
        try:
            os.unlink(os.path.join(SHARED_MEMORY, name))
            removed.append(name)
        except OSError:
            pass
    return removed


_real_sleep = time.sleep


def _select_sleep(seconds: float) -> None:
    """time.sleep through select(): see the module docstring."""
    if seconds < 0:
        raise ValueError("sleep length must be non-negative")
    deadline = time.monotonic() + seconds
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        select.select([], [], [], remaining)


def _repair_sleep() -> None:
    try:
        _real_sleep(0.000001)
    except OSError as e:
        if e.errno != errno.EINVAL:
            raise
        time.sleep = _select_sleep


def _setup() -> Clock:
    path = os.environ.get(MARKER)
    if not path:
        library = find_library()
        if library is None and os.environ.get(LIBRARY_OVERRIDE):
            return Clock(None, "%s=%s is not a file; %s"
                         % (LIBRARY_OVERRIDE, os.environ[LIBRARY_OVERRIDE], INSTALL_HINT))
        if library is None:
            return Clock(None, "libfaketime is not installed (no %s under %s); %s"
                         % (_LIBRARY_NAME, ", ".join(_LIBRARY_GLOBS), INSTALL_HINT))
        return Clock(None, "this process was not started with %s preloaded "
                     "(fake_clock.reexec_faked() was not called before the first "
                     "test; Tests/python/conftest.py does it)" % library)
    if not _preloaded():
        return Clock(None, "%s=%s is set but libfaketime is not loaded in this "
                     "process (LD_PRELOAD ignored?)" % (MARKER, path))
    _repair_sleep()
    preload = _without_faketime(os.environ.get("LD_PRELOAD", ""))
    if os.environ.get(_OWNER) == str(os.getpid()):
        # The re-executed process: it owns the clock file, and its children
        # that inherit os.environ (loopback server, openssl) keep the real
        # clock. The FAKETIME_* settings stay: libfaketime reads some of them
        # at run time (and FAKETIME_SHARED, its own, when it cleans up).
        atexit.register(shutil.rmtree, os.path.dirname(path), True)
        atexit.register(remove_shared_memory_leftovers, shared_memory_names())
        preload = os.environ.pop(_SAVED_PRELOAD, "")
        if preload:
            os.environ["LD_PRELOAD"] = preload
        else:
            os.environ.pop("LD_PRELOAD", None)
        os.environ.pop(_OWNER, None)
    return Clock(path, None, preload)


_clock: Clock | None = None


def clock() -> Clock:
    """The process's :class:`Clock` (set up on first use)."""
    global _clock
    if _clock is None:
        _clock = _setup()
    return _clock
