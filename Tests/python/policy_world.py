"""A machine with an administrator's policy (issue #51), for test_policy.py.

The library reads the policy from fixed paths only, /etc/versiongate/policy.json
and /etc/versiongate/policy.d/*.json (nothing moves them), so every run of a
test happens in a private mount namespace (``unshare -m``, propagation private)
in which a shell, still root, binds the test's own policy directory over
/etc/versiongate and then ``exec setpriv`` s to the ordinary user (uid 65534,
no groups) who runs the command. The mounts vanish with the namespace: the
machine's /etc is never written, and tests running side by side each see their
own policy.

The mount point. A bind needs /etc/versiongate to exist. When it is missing it
is made once, as root, 0755 and empty, and left there: an empty directory holds
no policy, which is exactly what the machine had before (the library reads
only those two fixed paths), and removing it afterwards could pull it from
under another test process binding over it at the same moment. Where it
cannot be made (a read-only /etc), or when VG_TEST_POLICY_ETC_COPY=1 asks for
it, each namespace first binds a root-owned 0755 copy of /etc (made once per
process, holding the empty mount point) over /etc: slower, but it never needs
to write the real /etc. Either way the bound directories are root's and
writable by no one else, as the policy's trust rule demands of every directory
above a file after the bind (/etc/versiongate, /etc, /).

Each test's policy tree (:class:`PolicyTree`) is root's, 0755, its files 0644
root unless the test spoils them (another owner, mode 0666, a 0775 policy.d).
"No policy" is an empty tree bound the same way, never the machine's own
/etc/versiongate.

What the user runs. uid 65534 cannot enter 0700 directories (pytest's tmp_path
under /tmp/pytest-of-root, a clone under /root), so :class:`Install` builds on
unprivileged.Sandbox (a world-readable 0755 directory under /tmp with copies of
the library, its fetch helper beside it as lib/versiongate/versiongate-helper,
root's and 0755, the Python binding and a python3 the user can run) and adds
the command as bin/versiongate with lib/libversiongate.so.1 (its SONAME) beside
the library. Each case (:class:`Case`) gives the user a home of their own
(uid 65534, 0700) holding cli_helpers.Env's layout: a bin directory with the
recording fakes (zenity, kdialog, notify-send, xdg-open: one JSON argv per
line in bin/NAME.log), XDG_STATE_HOME, XDG_CACHE_HOME and one XDG_RUNTIME_DIR
per login session, all 0700 and the user's; the fakes' interpreter is the
sandbox's python3 (pytest's own may sit in /root). Gate documents are
root's, 0644, in the case's 0755 directory.

Bounds. Every child runs in its own process group with a timeout; a hang kills
the group and fails the test. Runs that need no server also get a new network
namespace (``unshare -n``: not even the host's loopback), so nothing can leave
the machine; the others talk to 127.0.0.1 only.
"""

from __future__ import annotations

import atexit
import http.server
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from cli_helpers import CLI, Env
from unprivileged import NOBODY, PATH, ROOT, Sandbox, chown, make_dir, make_file, require_tool

ETC_POLICY = "/etc/versiongate"
POLICY_JSON = ETC_POLICY + "/policy.json"
POLICY_D = ETC_POLICY + "/policy.d"
NO_POLICY_LINE = "no policy: /etc/versiongate/policy.json and /etc/versiongate/policy.d/*.json count none"

RUN_TIMEOUT = 30.0
SANITIZER_VARIABLES = ("ASAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "LD_PRELOAD")

# The library-level child: one client, a check, optionally Update; prints one
# JSON line (the result JSON, the Result attributes the binding reads through
# vg_result_get, the raw vg_result_get of policy_files, the log lines at
# warning level and above, the update's outcome and reason).
CHILD = r'''
import json, logging, sys
import versiongate as vg

spec = json.loads(sys.argv[1])
records = []

class Keep(logging.Handler):
    def emit(self, record):
        records.append([record.levelname, record.getMessage()])

logger = logging.getLogger("vg-policy-child")
logger.setLevel(logging.DEBUG)
logger.propagate = False
logger.addHandler(Keep())
out = {"checks": []}
with vg.Client(source=spec["source"], logger=logger, **spec.get("options", {})) as client:
    for _ in range(spec.get("checks", 1)):
        with client.check(spec["version"]) as result:
            raw = vg.vg_result_get(result._h(), b"policy_files")
            out["checks"].append({
                "json": json.loads(result.json_text),
                "managed": result.managed,
                "policy_files": result.policy_files,
                "managed_message": result.managed_message,
                "managed_url": result.managed_url,
                "raw_policy_files": None if raw is None else raw.decode(),
            })
            if spec.get("update"):
                outcome, why = client.update(result)
                out["outcome"], out["why"] = int(outcome), why
out["log"] = [r for r in records if r[0] in ("WARNING", "ERROR", "CRITICAL")]
print(json.dumps(out))
'''


# --- the mount point and the namespace ------------------------------------------

_ETC_COPY: Path | None = None


def _etc_copy() -> Path:
    """A root-owned 0755 copy of /etc with an empty versiongate/ in it (once per process)."""
    global _ETC_COPY
    if _ETC_COPY is None:
        copy = Path(tempfile.mkdtemp(prefix="vg-policy-etc-", dir="/tmp"))
        os.chmod(copy, 0o755)
        # Special or unreadable files may not copy; what the commands need (ld.so.cache, ...) does.
        subprocess.run(["cp", "-a", "/etc/.", str(copy)], capture_output=True, timeout=120)
        make_dir(copy / "versiongate")
        for entry in list((copy / "versiongate").iterdir()):
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
        _ETC_COPY = copy
        atexit.register(shutil.rmtree, copy, True)
    return _ETC_COPY


def mount_point() -> Path | None:
    """None when /etc/versiongate is (now) a directory to bind over; else
    the copy of /etc to bind over /etc first (see the module docstring)."""
    if os.geteuid() != 0:
        pytest.skip("binding a policy over /etc/versiongate needs root (CI runs the suite as root)")
    require_tool("unshare", missing="skip")
    require_tool("mount")
    if os.environ.get("VG_TEST_POLICY_ETC_COPY") == "1":
        return _etc_copy()
    target = Path(ETC_POLICY)
    if not target.is_dir():
        try:
            target.mkdir(mode=0o755)
            os.chown(target, ROOT, ROOT)
            os.chmod(target, 0o755)
        except FileExistsError:
            pass
        except OSError:
            return _etc_copy()
    return None


def _namespace_prefix(policy: Path, etc_copy: Path | None, *, isolate_network: bool) -> list[str]:
    """unshare (-m, and -n) sh -ec 'bind the policy over /etc/versiongate; exec "$@"'."""
    mount = require_tool("mount")
    script = "set -e\n"
    if etc_copy is not None:
        script += "%s --bind %s /etc\n" % (shlex.quote(mount), shlex.quote(str(etc_copy)))
    script += "%s --bind %s %s\n" % (shlex.quote(mount), shlex.quote(str(policy)), ETC_POLICY)
    script += 'exec "$@"'
    flags = ["-m", "--propagation", "private"] + (["-n"] if isolate_network else [])
    return [require_tool("unshare"), *flags, "/bin/sh", "-ec", script, "vg-policy"]


@dataclass
class Ran:
    code: int
    stdout: str
    stderr: str
    argv: list[str]

    def warnings(self) -> list[str]:
        """stderr's `versiongate: warning: ` lines, without that prefix."""
        prefix = "versiongate: warning: "
        return [line[len(prefix):] for line in self.stderr.splitlines() if line.startswith(prefix)]

    def json(self) -> dict:
        assert self.stdout.strip(), "no JSON on stdout (exit %d)\nstderr: %s" % (self.code, self.stderr)
        return json.loads(self.stdout)

    def __str__(self) -> str:
        return "exit %d\nstdout: %s\nstderr: %s" % (self.code, self.stdout[-3000:], self.stderr[-3000:])


def run_bounded(argv: list[str], env: dict, *, timeout: float = RUN_TIMEOUT, input: bytes | None = None,
                cwd=None) -> Ran:
    """argv in its own process group; a hang past `timeout` kills the group and fails."""
    proc = subprocess.Popen([str(a) for a in argv], env=env, cwd=cwd or "/",
                            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(input=input, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        raise AssertionError("no end within %.0f s: %s\nstderr: %s"
                             % (timeout, shlex.join(map(str, argv[-12:])), stderr.decode(errors="replace")[-2000:]))
    return Ran(proc.returncode, stdout.decode(errors="replace"), stderr.decode(errors="replace"), list(map(str, argv)))


# --- what the user runs -----------------------------------------------------------

class Install:
    """unprivileged.Sandbox plus the command: ROOT/bin/versiongate and
    ROOT/lib/libversiongate.so.1 (the library, with lib/versiongate/versiongate-helper)."""

    def __init__(self):
        self.etc_copy = mount_point()
        self.box = Sandbox()
        self.root = self.box.root
        self.lib_dir = self.box.lib.parent
        soname = self.lib_dir / "libversiongate.so.1"
        if not soname.exists():
            os.symlink(self.box.lib.name, soname)
        self.cli = make_dir(self.root / "bin") / "versiongate"
        shutil.copyfile(CLI, self.cli)
        os.chmod(self.cli, 0o755)
        helper = self.lib_dir / "versiongate" / "versiongate-helper"
        st = helper.stat()
        assert st.st_uid == ROOT and not st.st_mode & 0o022, "the helper must be root's, writable by no one else"
        self.child = make_file(self.root / "policy_child.py", CHILD)
        self.python = self._user_python()

    def _user_python(self) -> str:
        """A python3 the user can start from a process of their own (a
        fake's #! line is resolved by the kernel in the command's child).
        Sandbox.python is tried last: setpriv's own exec of it may succeed
        where a grandchild's is refused (a python under /root, 0700)."""
        candidates = ["/usr/bin/python3", shutil.which("python3", path=PATH), self.box.python]
        for candidate in dict.fromkeys(c for c in candidates if c):
            probe = "exec %s -c 'import ctypes, json, logging'" % shlex.quote(candidate)
            # Under scripts/proof, with the sandbox's reachable copy of the sanitizer runtime.
            done = subprocess.run(self.box.setpriv + ["--", "/bin/sh", "-c", probe], env={"PATH": PATH, **self.sanitizer()},
                                  capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
            if done.returncode == 0:
                return candidate
        pytest.fail("no python3 that uid %d can start from its own processes: tried %s" % (NOBODY, candidates))

    def close(self):
        self.box.close()

    def sanitizer(self) -> dict:
        return {k: v for k, v in self.box.env().items() if k in SANITIZER_VARIABLES}


class UserEnv(Env):
    """cli_helpers.Env in a home the ordinary user owns, its fakes run by a
    python3 that user can run, the library the sandbox's copy."""

    def __init__(self, root: Path, install: Install):
        make_dir(root, uid=NOBODY, mode=0o700)
        self.install = install
        super().__init__(root)
        self.extra.update(install.sanitizer())
        self.own()

    def new_session(self) -> Path:
        path = super().new_session()
        chown(path, NOBODY, mode=0o700)
        return path

    def fake(self, name: str, exit_code: int = 0, stdout: str | None = None) -> None:
        super().fake(name, exit_code, stdout)
        path = self.bin / name
        body = path.read_text().split("\n", 1)[1]
        path.write_text("#!%s\n%s" % (self.install.python, body))

    def script(self, name: str, text: str) -> Path:
        """A fake of the test's own (a shell script)."""
        path = self.bin / name
        path.write_text(text)
        path.chmod(0o755)
        return path

    def own(self) -> None:
        """Everything in the home is the user's (fakes written by root included)."""
        for directory, dirs, files in os.walk(self.root):
            for name in dirs + files:
                os.lchown(os.path.join(directory, name), NOBODY, NOBODY)
        os.chown(self.root, NOBODY, NOBODY)

    def vars(self, **overrides) -> dict:
        overrides.setdefault("LD_LIBRARY_PATH", str(self.install.lib_dir))
        return super().vars(**overrides)


class PolicyTree:
    """A directory bound over /etc/versiongate: root's, 0755, unless spoiled."""

    def __init__(self, path: Path, uid: int = ROOT, mode: int = 0o755):
        self.path = make_dir(path, uid=uid, mode=mode)

    def write(self, name: str, content, uid: int = ROOT, mode: int = 0o644) -> str:
        """policy.json or policy.d/NAME; a dict as JSON. Returns the path the library sees."""
        path = self.path / name
        if path.parent != self.path and not path.parent.exists():
            make_dir(path.parent)
        if not isinstance(content, (str, bytes)):
            content = json.dumps(content)
        make_file(path, content, uid=uid, mode=mode)
        return ETC_POLICY + "/" + name

    def dropins(self, uid: int = ROOT, mode: int = 0o755) -> Path:
        return make_dir(self.path / "policy.d", uid=uid, mode=mode)


class Case:
    """One test's machine: its policy tree, an empty one (no policy), gate
    documents and the ordinary user's home."""

    def __init__(self, install: Install, name: str):
        self.install = install
        self.dir = install.box.case(name)
        self.policy = PolicyTree(self.dir / "policy")
        self.no_policy = PolicyTree(self.dir / "no-policy")
        self.env = UserEnv(self.dir / "home", install)
        self.env.extra["DISPLAY"] = ":99"
        self._docs = 0

    def doc(self, content, name: str | None = None) -> Path:
        """A gate document the user can read (root's, 0644)."""
        self._docs += 1
        if not isinstance(content, (str, bytes)):
            content = json.dumps(content)
        return make_file(self.dir / (name or "gate-%d.json" % self._docs), content)

    def place(self, name: str, uid: int = NOBODY, mode: int = 0o755) -> Path:
        """A directory in the case (the user's unless told)."""
        return make_dir(self.dir / name, uid=uid, mode=mode)

    def command(self, argv, *, policy: PolicyTree | None = None, user: bool = True,
                isolate_network: bool = False) -> list[str]:
        tree = self.policy if policy is None else policy
        prefix = _namespace_prefix(tree.path, self.install.etc_copy, isolate_network=isolate_network)
        if user:
            prefix += [require_tool("setpriv"), "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups", "--"]
        return prefix + [str(a) for a in argv]

    def run(self, args, *, policy: PolicyTree | None = None, user: bool = True, isolate_network: bool = True,
            timeout: float = RUN_TIMEOUT, input: bytes | None = None, **variables) -> Ran:
        """versiongate ARGS... as the user, the policy bound; with
        isolate_network (the default) in a network namespace of its own."""
        self.env.own()
        argv = self.command([self.install.cli, *args], policy=policy, user=user, isolate_network=isolate_network)
        return run_bounded(argv, self.env.vars(**variables), timeout=timeout, input=input)

    def check(self, doc, version: str, *sets: str, policy: PolicyTree | None = None, extra=(),
              isolate_network: bool = True, **variables) -> Ran:
        args = ["check", "--source", doc, "--version", version, "--json", *extra]
        for assignment in sets:
            args += ["--set", assignment]
        ran = self.run(args, policy=policy, isolate_network=isolate_network, **variables)
        assert ran.stdout.strip(), ran
        return ran

    def library(self, source, version: str, *, policy: PolicyTree | None = None, options: dict | None = None,
                checks: int = 1, update: bool = False, isolate_network: bool = True, timeout: float = 120,
                **variables) -> dict:
        """The library itself (the Python binding over the copied .so) as the
        user in the namespace; the child's JSON."""
        spec = {"source": str(source), "version": version, "options": options or {}, "checks": checks,
                "update": update}
        self.env.own()
        env = self.env.vars(VERSIONGATE_LIBRARY=str(self.install.box.lib), PYTHONPATH=str(self.install.root),
                            PYTHONDONTWRITEBYTECODE="1", PATH="%s:%s" % (self.env.bin, PATH), **variables)
        argv = self.command([self.install.python, self.install.child, json.dumps(spec)], policy=policy,
                            isolate_network=isolate_network)
        ran = run_bounded(argv, env, timeout=timeout)
        assert ran.code == 0 and ran.stdout.strip(), ran
        return json.loads(ran.stdout.strip().splitlines()[-1])


class CountingServer:
    """A loopback HTTP server (127.0.0.1 only) answering GET from routes a
    test sets (404 otherwise) and every other method with 404; it records
    every request of any method as (method, path), e.g. Firebase's POSTs
    (test_channel.Channels records GETs only)."""

    def __init__(self):
        self.routes: dict[str, tuple[int, bytes]] = {}
        self.requests: list[tuple[str, str]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self):
                outer.requests.append((self.command, self.path))
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(min(length, 1 << 20))
                status, body = (outer.routes.get(self.path.split("?")[0], (404, b'{"error":"not found"}'))
                                if self.command == "GET" else (404, b'{"error":"not found"}'))
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _answer

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def serve(self, path: str, body, status: int = 200):
        self.routes[path] = (status, body if isinstance(body, bytes) else json.dumps(body).encode())

    def count(self) -> int:
        return len(self.requests)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def wait_quiet(count, settle: float = 1.5) -> int:
    """`count()` once it has not changed for `settle` seconds (a request a
    background refresh would make arrives after the command exits); at most 5 s."""
    deadline = time.monotonic() + 5
    last, since = count(), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.1)
        now = count()
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= settle:
            break
    return last


def policy_lines(stdout: str) -> list[tuple[str, str, str]]:
    """`KEY = VALUE (FILE)` lines as (key, value, file); fails on any other line."""
    out = []
    for line in stdout.splitlines():
        m = re.fullmatch(r"(\S+) = (.*) \((/etc/versiongate/[^()]+)\)", line)
        assert m, "not a KEY = VALUE (FILE) line: %r\n%s" % (line, stdout)
        out.append(m.groups())
    return out
