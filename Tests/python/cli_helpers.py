"""Running the real build/bin/versiongate (scripts/build makes it) against
the real libversiongate.so, in controlled environments.

Every run gets its own environment: LD_LIBRARY_PATH to the library's
directory (it wins over the command's RUNPATH, see scripts/build), a PATH of only
the test's own bin directory unless a test adds more, and the XDG
directories a test gives it: a login session is an XDG_RUNTIME_DIR (0700),
and persistent state an XDG_STATE_HOME.

Fake dialogs (zenity, kdialog, notify-send, xdg-open) are small Python
scripts put on that PATH: each appends its argv (one JSON list per line) to
``<bin>/<name>.log``, prints ``<bin>/<name>.out`` if present and exits with
the number in ``<bin>/<name>.exit`` (default 0).
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from conftest import LIB_PATH, REPO

CLI = REPO / "build" / "bin" / "versiongate"

FAKE = r'''#!%s
import json, os, sys
here = os.path.dirname(os.path.abspath(__file__))
name = os.path.basename(__file__)
with open(os.path.join(here, name + ".log"), "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\n")
out = os.path.join(here, name + ".out")
if os.path.exists(out):
    sys.stdout.write(open(out).read())
code = os.path.join(here, name + ".exit")
sys.exit(int(open(code).read()) if os.path.exists(code) else 0)
''' % sys.executable

# A compiled probe, so argv[0] arrives as given (a script's would be its
# interpreter's): writes its pid and argv, NUL-separated, to $VG_TEST_OUT,
# appends a line to $VG_TEST_RAN if set, and exits with $VG_TEST_EXIT.
PROBE_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv) {
    const char *ran = getenv("VG_TEST_RAN");
    if (ran) { FILE *r = fopen(ran, "a"); if (r) { fputs("ran\n", r); fclose(r); } }
    const char *out = getenv("VG_TEST_OUT");
    FILE *f = out ? fopen(out, "wb") : NULL;
    if (f) {
        fprintf(f, "%d", (int)getpid());
        for (int i = 0; i < argc; i++) { fputc(0, f); fputs(argv[i], f); }
        fclose(f);
    }
    const char *code = getenv("VG_TEST_EXIT");
    return code ? atoi(code) : 0;
}
"""
_PROBE_DIR = Path(tempfile.mkdtemp(prefix="vg-cli-probe-"))
atexit.register(shutil.rmtree, _PROBE_DIR, True)


def _probe_binary() -> Path:
    binary = _PROBE_DIR / "probe"
    if not binary.exists():
        (_PROBE_DIR / "probe.c").write_text(PROBE_C)
        subprocess.run(["cc", "-O1", "-o", str(binary), str(_PROBE_DIR / "probe.c")], check=True)
    return binary


class Env:
    """A bin directory, one login session and one state directory."""

    def __init__(self, root: Path):
        self.root = root
        self.bin = root / "bin"
        self.bin.mkdir(exist_ok=True)
        self.state = root / "state"
        self.state.mkdir(mode=0o700, exist_ok=True)
        self.cache = root / "cache"
        self.cache.mkdir(mode=0o700, exist_ok=True)
        self.sessions = 0
        self.runtime = self.new_session()
        self.extra: dict[str, str] = {}
        self.probe = self.bin / "probe"
        shutil.copy(_probe_binary(), self.probe)
        self.probe_out = root / "probe.out"

    def new_session(self) -> Path:
        """A fresh login session (a new XDG_RUNTIME_DIR), now the current one."""
        self.sessions += 1
        path = self.root / ("run-%d" % self.sessions)
        path.mkdir(mode=0o700)
        self.runtime = path
        return path

    def fake(self, name: str, exit_code: int = 0, stdout: str | None = None) -> None:
        path = self.bin / name
        path.write_text(FAKE)
        path.chmod(0o755)
        (self.bin / (name + ".exit")).write_text(str(exit_code))
        out = self.bin / (name + ".out")
        if stdout is None:
            out.unlink(missing_ok=True)
        else:
            out.write_text(stdout)

    def calls(self, name: str) -> list[list[str]]:
        log = self.bin / (name + ".log")
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text().splitlines()]

    def vars(self, **overrides) -> dict:
        env = {
            "PATH": str(self.bin),
            "LD_LIBRARY_PATH": os.path.dirname(os.path.abspath(LIB_PATH)),
            "HOME": str(self.root),
            "XDG_RUNTIME_DIR": str(self.runtime),
            "XDG_STATE_HOME": str(self.state),
            "XDG_CACHE_HOME": str(self.cache),
            "VG_TEST_OUT": str(self.probe_out),
        }
        env.update(self.extra)
        for key, value in overrides.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
        return env


def run(args, env: dict, input: bytes | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """versiongate ARGS...; stdin is /dev/null unless `input` is given."""
    return subprocess.run([str(CLI), *map(str, args)], env=env, capture_output=True, timeout=timeout,
                          input=input, stdin=None if input is not None else subprocess.DEVNULL)


def probe_output(env: "Env") -> dict:
    """What the probe last saw: {"pid": int, "argv": [str...]}; fails when it did not run."""
    assert env.probe_out.exists(), "COMMAND did not run"
    raw = env.probe_out.read_bytes().split(b"\0")
    env.probe_out.unlink()
    return {"pid": int(raw[0]), "argv": [a.decode("utf-8", "surrogateescape") for a in raw[1:]]}
