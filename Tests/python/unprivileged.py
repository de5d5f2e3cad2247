"""Run the real libversiongate.so as an ordinary user (nobody, 65534, or
another uid a test names) from tests that themselves run as root (as CI does).

The child is ``setpriv --reuid=65534 --regid=65534 --clear-groups python3
child.py SPEC``. That user cannot read inside 0700 directories (the clone
may sit in one, /root), so what the child runs - the .so, the ctypes binding
the binding (python/versiongate) and the child script - is copied into a
world-readable directory of its own (:class:`Sandbox`). The child gets only
the environment the test builds (:meth:`Sandbox.env`), runs the checks the
JSON SPEC lists and prints one JSON line: its ids, every result JSON
(vg_result_json, plus "_code", "_elapsed" and "_utf8": whether the raw bytes
are strict UTF-8) and, when asked, a listing of directories and the owners
of files as it sees them.

Every child is bounded (:data:`CHILD_TIMEOUT`): a hang kills its process
group and fails the test. Only 127.0.0.1 is ever contacted.

Wrappers (each a tool of util-linux): ``prlimit`` for resource limits and
``unshare -m`` for a private mount namespace in which a shell, still root,
mounts a tmpfs or a read-only bind before ``exec setpriv``; the mounts vanish
with the namespace.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import copy_library
import versiongate as vg

REPO = Path(__file__).resolve().parents[2]
BINDING = REPO / "python" / "versiongate" / "__init__.py"

NOBODY = 65534      # the unprivileged user every child runs as
OTHER = 65533       # "another user" that is not root
ROOT = 0

CHILD_TIMEOUT = 20.0
PATH = "/usr/local/bin:/usr/bin:/bin"

CHILD = r'''
import json, os, signal, sys, time

spec = json.loads(sys.argv[1])
out = {"euid": os.geteuid(), "egid": os.getegid(), "groups": os.getgroups(), "results": []}
try:
    import resource
    out["nofile"] = list(resource.getrlimit(resource.RLIMIT_NOFILE))
except Exception as e:
    out["nofile"] = repr(e)

alarms = [0]
if spec.get("alarm_every_s"):
    # Python's C-level handler writes a byte to the wakeup fd at every
    # delivery; the Python handler below runs only between bytecodes.
    wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    def on_alarm(signum, frame):
        alarms[0] += 1
    signal.signal(signal.SIGALRM, on_alarm)
    signal.siginterrupt(signal.SIGALRM, True)          # no SA_RESTART
    every = spec["alarm_every_s"]
    armed_at = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, every, every)

import versiongate as vg                               # loads the .so (under the timer too)

for check in spec.get("checks", []):
    with vg.Client(source=check["source"], **check.get("options", {})) as client:
        for _ in range(check.get("repeat", 1)):
            start = time.monotonic()
            with client.check(check["version"]) as r:
                elapsed = time.monotonic() - start
                raw = vg.vg_result_json(r._h())
                try:
                    raw.decode("utf-8")
                    utf8 = True
                except UnicodeDecodeError:
                    utf8 = False
                j = json.loads(raw.decode("utf-8", "replace"))
                j["_code"], j["_elapsed"], j["_utf8"] = r.code, elapsed, utf8
                j["_error_getter"] = r.error
            out["results"].append(j)

if spec.get("alarm_every_s"):
    out["alarm_still_armed"] = signal.getitimer(signal.ITIMER_REAL)[1] == every
    signal.setitimer(signal.ITIMER_REAL, 0, 0)
    out["alarm_armed_s"] = time.monotonic() - armed_at
    out["alarms"] = alarms[0]
    delivered = 0
    while True:
        try:
            chunk = os.read(wake_r, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        delivered += len(chunk)
    out["alarm_deliveries"] = delivered

out["owners"] = {path: os.stat(path).st_uid for path in spec.get("owners", [])}
out["listed"] = {}
for path in spec.get("list", []):
    try:
        out["listed"][path] = sorted(os.listdir(path))
    except OSError as e:
        out["listed"][path] = "error: %s" % e

sys.stdout.write(json.dumps(out) + "\n")
sys.stdout.flush()
'''


def require_tool(name: str, *, missing: str = "fail") -> str:
    """The tool's path; a missing tool fails the test (``missing="fail"``)
    or skips it (``"skip"``) with a precise message."""
    path = shutil.which(name, path=PATH)
    if path:
        return path
    why = "%s is not installed (util-linux ships it): cannot run this case" % name
    if missing == "skip":
        pytest.skip(why)
    pytest.fail(why)


def as_user_prefix(uid: int = NOBODY) -> list[str]:
    return [require_tool("setpriv"), "--reuid=%d" % uid, "--regid=%d" % uid, "--clear-groups"]


def chown(path, uid: int, gid: int | None = None, mode: int | None = None) -> Path:
    """lchown (a symlink's own owner), then chmod unless it is a symlink."""
    path = Path(path)
    os.lchown(path, uid, uid if gid is None else gid)
    if mode is not None and not path.is_symlink():
        os.chmod(path, mode)
    return path


def make_dir(path, uid: int = ROOT, mode: int = 0o755) -> Path:
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    return chown(path, uid, mode=mode)


def make_file(path, content, uid: int = ROOT, mode: int = 0o644) -> Path:
    path = Path(path)
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return chown(path, uid, mode=mode)


def listing(path) -> list[str] | None:
    """Names in a directory as root sees them (None when it is missing)."""
    try:
        return sorted(os.listdir(path))
    except FileNotFoundError:
        return None


class ChildError(AssertionError):
    pass


class Sandbox:
    """A world-readable (0755, root's) directory holding copies of the .so,
    the binding and the child script, plus one directory per test case
    (:meth:`case`) for the trees the test sets up."""

    def __init__(self, uid: int = NOBODY):
        self.uid = uid
        self.setpriv = as_user_prefix(uid)
        self.root = Path(tempfile.mkdtemp(prefix="vg-unprivileged-", dir="/tmp"))
        os.chmod(self.root, 0o755)
        self.lib = copy_library(self.root / "lib", "libversiongate.so")
        shutil.copyfile(BINDING, self.root / "versiongate.py")
        os.chmod(self.root / "versiongate.py", 0o644)
        self.child = make_file(self.root / "child.py", CHILD)
        self.cases = make_dir(self.root / "cases")
        # Under scripts/proof the children carry a sanitizer runtime, whose
        # log_path may lie where nobody cannot go (a 0700 clone): their
        # reports go here instead, and any report fails the run.
        self.reports = make_dir(self.root / "sanitizer-reports", mode=0o777)
        self._suppression_copies: dict[str, str] = {}
        self.preload = self._reachable_preload()
        self._count = 0
        self.python = self._find_python()

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def _reachable(self, path: str, always: bool = False) -> str:
        """`path`, or a copy in the sandbox when nobody cannot reach it (a
        file of scripts/proof's inside a 0700 clone), or `always`: a child
        in a bwrap with its own /tmp sees the sandbox, not a clone in /tmp."""
        p = Path(path)
        if not always and all(os.stat(d).st_mode & 0o001 for d in p.parents) and os.stat(p).st_mode & 0o004:
            return path
        copy = make_dir(self.root / "reachable") / ("%d-%s" % (len(os.listdir(self.root / "reachable")), p.name))
        shutil.copyfile(p, copy)
        os.chmod(copy, 0o755)
        return str(copy)

    def _suppressions(self, path: str) -> str:
        """The sanitizer's suppressions file, copied once into the sandbox."""
        if path not in self._suppression_copies:
            self._suppression_copies[path] = self._reachable(path, always=True)
        return self._suppression_copies[path]

    def _reachable_preload(self) -> str:
        """The sanitizer runtimes scripts/proof preloads, each reachable."""
        entries = os.environ.get("LD_PRELOAD", "").replace(":", " ").split()
        return " ".join(self._reachable(e) if os.path.isfile(e) else e for e in entries)

    def _find_python(self) -> str:
        """A python3 the unprivileged user can run (pytest's own may sit
        under /root, which it cannot enter)."""
        import sys
        candidates = [sys.executable, shutil.which("python3", path=PATH), "/usr/bin/python3"]
        tried = []
        for candidate in dict.fromkeys(c for c in candidates if c):
            proc = subprocess.run(self.setpriv + [candidate, "-c", "import ctypes, json, signal"],
                                  env=self.env(), capture_output=True, text=True, timeout=CHILD_TIMEOUT,
                                  stdin=subprocess.DEVNULL)
            if proc.returncode == 0:
                return candidate
            tried.append("%s: %s" % (candidate, (proc.stderr.strip() or "exit %d" % proc.returncode)[-200:]))
        pytest.fail("no python3 that uid %d can run: %s" % (NOBODY, "; ".join(tried)))

    def case(self, name: str | None = None) -> Path:
        """A new, empty directory (root's, 0755) for one scenario."""
        self._count += 1
        return make_dir(self.cases / ("%03d-%s" % (self._count, name or "case")))

    def env(self, **variables) -> dict:
        """The child's whole environment: PATH, VERSIONGATE_LIBRARY (the copy)
        and what the test passes (None leaves a variable out)."""
        env = {"PATH": PATH, "VERSIONGATE_LIBRARY": str(self.lib), "PYTHONDONTWRITEBYTECODE": "1"}
        for name in ("ASAN_OPTIONS", "TSAN_OPTIONS"):
            if name in os.environ:
                value = re.sub(r"log_path=[^: ]*", "log_path=%s/report" % self.reports, os.environ[name])
                env[name] = re.sub(r"suppressions=([^: ]*)",
                                   lambda m: "suppressions=" + self._suppressions(m.group(1)), value)
        if self.preload:
            env["LD_PRELOAD"] = self.preload
        for key, value in variables.items():
            if value is not None:
                env[key] = value if isinstance(value, bytes) else str(value)
        return env

    # -- running ---------------------------------------------------------------------
    def command(self, spec: dict, inner: list[str] = ()) -> list[str]:
        return self.setpriv + list(inner) + [self.python, str(self.child), json.dumps(spec)]

    def run(self, spec: dict, env: dict, *, wrapper: list[str] = (), inner: list[str] = (),
            namespace_setup: str | None = None, cwd=None, timeout: float = CHILD_TIMEOUT, preexec_fn=None) -> dict:
        """Run one child as nobody and return its parsed output (with
        "_wall": seconds the whole child took).

        ``wrapper`` goes in front of setpriv (e.g. prlimit), ``inner``
        between setpriv and python (e.g. bwrap); ``preexec_fn``
        runs in the forked child before the exec (e.g. setrlimit). With
        ``namespace_setup`` the child runs as ``unshare -m sh -c SETUP; exec
        setpriv ...``: SETUP runs as root inside the new mount namespace."""
        argv = list(wrapper) + self.command(spec, inner)
        if namespace_setup is not None:
            unshare = require_tool("unshare", missing="skip")
            argv = [unshare, "-m", "--propagation", "private", "sh", "-ec",
                    namespace_setup + '\nexec "$@"', "vg-namespace"] + argv
        start = time.monotonic()
        proc = subprocess.Popen(argv, env=env, cwd=str(cwd or self.root), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                                preexec_fn=preexec_fn)
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            stdout, stderr = proc.communicate()
            raise ChildError("the unprivileged child did not finish within %.0f s (hang): %s\nstderr: %s"
                             % (timeout, shlex.join(argv[-4:-1]), stderr.decode(errors="replace")[-2000:]))
        wall = time.monotonic() - start
        err = stderr.decode(errors="replace")
        reports = sorted(self.reports.glob("report*"))
        if reports:
            raise ChildError("the unprivileged child wrote a sanitizer report:\n"
                             + reports[0].read_text(errors="replace")[-3000:])
        if proc.returncode != 0:
            raise ChildError("the unprivileged child exited with %s\nstderr: %s"
                             % (_exit_text(proc.returncode), err[-3000:]))
        try:
            out = json.loads(stdout.decode().strip().splitlines()[-1])
        except (ValueError, IndexError):
            raise ChildError("the child printed no result JSON\nstdout: %r\nstderr: %s" % (stdout[-2000:], err[-2000:]))
        assert (out["euid"], out["egid"], out["groups"]) == (self.uid, self.uid, []), \
            "the child did not run as uid %d: %s" % (self.uid, out)
        out["_wall"] = wall
        out["_stderr"] = err
        for r in out["results"]:
            assert r["_error_getter"] == r["error"] == r["_code"], "vg_result_error, JSON and code disagree: %s" % r
        return out

    def check(self, source, version: str, env: dict, repeat: int = 1, **options) -> list[dict] | dict:
        """One client, ``repeat`` checks, in one unprivileged child; the
        result JSON (a list when ``repeat`` > 1)."""
        spec = {"checks": [{"source": str(source), "version": version, "repeat": repeat,
                            "options": {k: str(v) for k, v in options.items() if v is not None}}]}
        results = self.run(spec, env)["results"]
        return results if repeat > 1 else results[0]


def fd_limit(n: int) -> dict:
    """run() arguments that cap open files at `n` for the child: prlimit
    in front of setpriv, else setrlimit before the exec."""
    prlimit = shutil.which("prlimit", path=PATH)
    if prlimit:
        return {"wrapper": [prlimit, "--nofile=%d:%d" % (n, n), "--"]}
    import resource
    return {"preexec_fn": lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))}


def _exit_text(code: int) -> str:
    if code < 0:
        try:
            return "signal %s" % signal.Signals(-code).name
        except ValueError:
            return "signal %d" % -code
    return "status %d" % code


def check_spec(source, version: str, repeat: int = 1, **options) -> dict:
    """One entry of a child SPEC's "checks" list."""
    return {"source": str(source), "version": version, "repeat": repeat,
            "options": {k: str(v) for k, v in options.items() if v is not None}}
