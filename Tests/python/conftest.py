"""Shared fixtures: the real libversiongate.so, real files, controlled envs.

Run from the repository root after scripts/build:

    python3 -m pytest Tests/python

The library is loaded through the binding package python/versiongate with
$VERSIONGATE_LIBRARY (default build/lib/libversiongate.so.1). Before it is loaded, this
process gets its own XDG_RUNTIME_DIR / XDG_CACHE_HOME / XDG_STATE_HOME and a
neutral locale, so no test writes session markers into the real login session
and none depends on the developer's language.

The tests that walk a remote source through time fake the library's wall
clock with libfaketime, which has to be preloaded when the process starts: at
pytest_configure (before any test runs) this process re-executes itself once
with LD_PRELOAD and the FAKETIME_* settings (fake_clock.reexec_faked). The
clock reads the real time until a test sets it (fake_clock.clock()). Without
libfaketime the suite still runs and the tests that move the clock fail,
saying what to install.
"""

from __future__ import annotations

import atexit
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import fake_clock

# The environment as it was given, for the re-execution with libfaketime
# (pytest_configure), before this module changes it below.
_ORIGINAL_ENV = dict(os.environ)

REPO = Path(__file__).resolve().parents[2]
BINDING_DIR = REPO / "python"
HEADER = REPO / "Sources" / "VersionGateC" / "include" / "versiongate.h"

# One private XDG tree for this pytest process, set before the library loads.
_XDG = Path(tempfile.mkdtemp(prefix="vg-pytest-xdg-"))
atexit.register(shutil.rmtree, _XDG, True)
for _name in ("XDG_RUNTIME_DIR", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
    (_XDG / _name).mkdir(mode=0o700)
    os.environ[_name] = str(_XDG / _name)
for _name in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
    os.environ.pop(_name, None)

# The repository's build unless a variant is named (scripts/proof's sanitized builds).
os.environ.setdefault("VERSIONGATE_LIBRARY", str(REPO / "build" / "lib" / "libversiongate.so.1"))
sys.path.insert(0, str(BINDING_DIR))
import versiongate as vg  # noqa: E402

LIB_PATH = vg.LIBRARY_PATH

# Codes and statuses as the header defines them (the tests' own copy, so a
# binding mistake cannot hide a library mistake).
VG_OK, VG_EINVAL, VG_EVERSION, VG_ECONFIG, VG_ENOMEM, VG_EINTERNAL = 0, -1, -2, -3, -4, -5
UP_TO_DATE, OPTIONAL, MANDATORY = 0, 1, 2

FIREBASE_TEMPLATE = (Path(__file__).resolve().parents[2] / "Tests" / "Fixtures"
                     / "firebase_template" / "client_template_version_gate.json")

JSON_KEYS = {
    "status", "should_prompt", "current", "min_required", "latest", "title",
    "message", "action_label", "dismiss_label", "store_url", "locale",
    "error", "error_name", "error_message", "source", "origin",
}


def pytest_configure(config):
    """Re-execute once with libfaketime preloaded (see the module docstring).

    Here rather than at import: pytest captures the file descriptors while it
    imports conftest files, and an exec then would send the whole run's
    output into the capture file. The private XDG tree made at import is
    removed first (an exec runs no atexit handlers); the new process makes
    its own."""
    fake_clock.reexec_faked(_ORIGINAL_ENV, before_exec=lambda: shutil.rmtree(_XDG, True))
    fake_clock.clock()      # in the re-executed process: LD_PRELOAD back as it was
    # scripts/proof's plugin (Tests/sanitizers/vg_sanitizer_env.py) copied
    # LD_PRELOAD when it was imported, i.e. with libfaketime in it: children
    # get the sanitizer runtime only, as before (fake_clock.Clock.child_env
    # adds libfaketime where a child must share the fake clock).
    plugin = sys.modules.get("vg_sanitizer_env")
    inherited = getattr(plugin, "_inherited", None)
    if isinstance(inherited, dict) and "LD_PRELOAD" in inherited:
        kept = os.environ.get("LD_PRELOAD")
        if kept:
            inherited["LD_PRELOAD"] = kept
        else:
            del inherited["LD_PRELOAD"]


def pytest_report_header(config):
    clk = fake_clock.clock()
    if clk.available:
        return "fake clock: %s, file %s" % (fake_clock.find_library(), clk.path)
    return "fake clock: NOT AVAILABLE: %s" % clk.problem


@pytest.fixture
def write_doc(tmp_path):
    """write_doc(obj_or_text, name=...) -> Path of a real gate document."""
    counter = iter(range(10**6))

    def write(content, name=None):
        path = tmp_path / (name or "gate-%d.json" % next(counter))
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_text(json.dumps(content), encoding="utf-8")
        return path

    return write


def flat(min_required="1.0.39", latest="1.0.41", platform="linux", **extra):
    """A flat gate document; None leaves a key out."""
    doc = {}
    if min_required is not None:
        doc["min_required_version_" + platform] = min_required
    if latest is not None:
        doc["latest_version_" + platform] = latest
    doc.update(extra)
    return doc


@pytest.fixture
def client():
    """A fresh client with session_scope=process (no markers on disk)."""
    with vg.Client(session_scope="process") as c:
        yield c


@pytest.fixture(scope="session")
def raw():
    """The library through raw ctypes, declared here independently."""
    lib = ctypes.CDLL(LIB_PATH)
    P = ctypes.c_void_p
    S = ctypes.c_char_p
    I = ctypes.c_int
    decl = {
        "vg_library_version": (S, []),
        "vg_strerror": (S, [I]),
        "vg_free": (None, [P]),
        "vg_version_compare": (I, [ctypes.POINTER(I), S, S]),
        "vg_decide": (I, [S, S, S]),
        "vg_client_new": (I, [ctypes.POINTER(P)]),
        "vg_client_free": (None, [P]),
        "vg_client_set": (I, [P, S, S]),
        "vg_client_last_error": (P, [P]),
        "vg_client_check": (I, [ctypes.POINTER(P), P, S]),
        "vg_check": (I, [ctypes.POINTER(P), S, S]),
        "vg_result_status": (I, [P]),
        "vg_result_should_prompt": (I, [P]),
        "vg_result_error": (I, [P]),
        "vg_result_free": (None, [P]),
    }
    # String getters return the raw pointer so tests can check NULL-ness and
    # bytes exactly (strict UTF-8) with string_at.
    for name in ("title", "message", "action_label", "dismiss_label",
                 "store_url", "error_message", "min_required", "latest",
                 "json"):
        decl["vg_result_" + name] = (P, [P])
    for name, (restype, argtypes) in decl.items():
        f = getattr(lib, name)
        f.restype = restype
        f.argtypes = argtypes
    return lib


def raw_string(ptr):
    """bytes at a raw const char * (None for NULL)."""
    return None if not ptr else ctypes.string_at(ptr)


def child_env(**overrides):
    """A minimal, controlled environment for a subprocess."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "VERSIONGATE_LIBRARY": os.path.abspath(LIB_PATH),
        "PYTHONPATH": str(BINDING_DIR),
        "PYTHONDONTWRITEBYTECODE": "1",
        "HOME": os.environ["XDG_STATE_HOME"],
    }
    for key, value in overrides.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


CHILD_CHECK = r"""
import json, sys
import versiongate as vg
source, version = sys.argv[1], sys.argv[2]
options = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
with vg.Client(source=source, **options) as c, c.check(version) as r:
    print(r.json_text)
"""


def run_check(source, version, env, options=None):
    """Check in a new process (a new "launcher") and return its result JSON."""
    argv = [sys.executable, "-c", CHILD_CHECK, str(source), version]
    if options:
        argv.append(json.dumps(options))
    proc = subprocess.run(argv, env=env, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def copy_library(directory, name: str = "libversiongate.so.1") -> Path:
    """A copy of the library in `directory` (made 0755, as the copies are),
    with its fetch helper where the library looks for it:
    versiongate/versiongate-helper beside it (docs/design.md, "The fetch
    helper"). Returns the library's path."""
    directory = Path(directory)
    (directory / "versiongate").mkdir(parents=True, exist_ok=True)
    library = directory / name
    shutil.copyfile(os.path.realpath(LIB_PATH), library)
    helper = Path(os.path.realpath(LIB_PATH)).parent / "versiongate" / "versiongate-helper"
    shutil.copyfile(helper, directory / "versiongate" / "versiongate-helper")
    for path in (directory, directory / "versiongate", library, directory / "versiongate" / "versiongate-helper"):
        os.chmod(path, 0o755)
    return library
