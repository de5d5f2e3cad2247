"""Inside a Flatpak sandbox an ordinary user sees root's files as the
overflow uid: bubblewrap's user namespace maps only the user. The app's and
the runtime's deploy directories (/app, /usr) count as root's there, and
nothing else does (docs/design.md, "The trust model"); else an app
installed system-wide would refuse its own gate document, AppStream file
and fetch helper.

The real bubblewrap, run as uid 4242 (neither root nor the overflow uid),
over the host's directories read-only, with the app's files root's as a
system-wide installation has them, mounted at /app and, as a control, at
/tmp/elsewhere; /.flatpak-info is there or not."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import copy_library
from remote_helpers import Loopback, flat_doc
from unprivileged import Sandbox, make_dir, make_file

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is installed by scripts/setup")

USER = 4242
ECONFIG = -3
EINSTALLED = -16
MANDATORY_DOC = flat_doc("1.0.41", "1.0.41")
METAINFO = """<?xml version="1.0" encoding="UTF-8"?>
<component type="desktop-application">
  <id>org.example.Gate</id>
  <releases><release version="1.0.40" date="2026-11-01"/></releases>
</component>
"""


def overflow_uid() -> int:
    return int(Path("/proc/sys/kernel/overflowuid").read_text())


@pytest.fixture(scope="module")
def sandbox():
    s = Sandbox(uid=USER)
    # The system's python: inside bubblewrap a python under /root (0700),
    # which this machine lets the user run outside, is out of reach.
    s.python = "/usr/bin/python3"
    yield s
    s.close()


@pytest.fixture(scope="module")
def server():
    s = Loopback()
    s.document("gate", MANDATORY_DOC)
    yield s
    assert s.stop() == "", "the loopback server wrote tracebacks"


@pytest.fixture(scope="module")
def app(sandbox):
    """The app's files, root's, as in a system-wide installation."""
    tree = sandbox.case("app")
    copy_library(tree / "lib")
    make_file(make_dir(tree / "share") / "gate.json", MANDATORY_DOC)
    make_file(make_dir(tree / "share" / "metainfo") / "org.example.Gate.metainfo.xml", METAINFO)
    return tree


def bwrap(sandbox: Sandbox, app: Path, home: Path, flatpak: bool) -> list[str]:
    """bwrap's arguments: the host's top directories read-only (as flatpak
    shows /etc or the runtime's /usr), the app at /app and /tmp/elsewhere."""
    argv = [shutil.which("bwrap"), "--unshare-user", "--die-with-parent"]
    for name in sorted(os.listdir("/")):
        path = "/" + name
        if name in ("proc", "dev", "tmp"):
            continue
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            argv += ["--ro-bind", path, path]
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
             "--ro-bind", str(sandbox.root), str(sandbox.root), "--bind", str(sandbox.reports), str(sandbox.reports),
             "--bind", str(home), str(home), "--ro-bind", str(app), "/app", "--ro-bind", str(app), "/tmp/elsewhere"]
    if flatpak:
        info = make_file(sandbox.case("info") / "flatpak-info", "[Application]\nname=org.example.Gate\n")
        argv += ["--ro-bind", str(info), "/.flatpak-info"]
    return argv


def run_inside(sandbox, app, server, flatpak: bool) -> dict:
    home = make_dir(sandbox.case("home") / "home", uid=USER, mode=0o700)
    spec = {"checks": [{"source": source, "version": "1.0.40", "options": {"session_scope": "process"}}
                       for source in ("/app/share/gate.json", server.url("gate"), "/tmp/elsewhere/share/gate.json")]
            + [{"source": "/app/share/gate.json", "version": None,      # the installed version, from /app/share/metainfo
                "options": {"session_scope": "process", "installed_version_from": "appstream:org.example.Gate"}}],
            "owners": ["/app/share/gate.json", "/app/lib/versiongate/versiongate-helper"]}
    env = sandbox.env(VERSIONGATE_LIBRARY="/app/lib/libversiongate.so.1", HOME=home,
                      XDG_CACHE_HOME=home / "cache", XDG_STATE_HOME=home / "state")
    inner = bwrap(sandbox, app, home, flatpak)
    # scripts/proof's sanitizer runtime goes to python, not to bwrap.
    preload = env.pop("LD_PRELOAD", None)
    if preload:
        inner += ["--setenv", "LD_PRELOAD", preload]
    return sandbox.run(spec, env, inner=inner)


def test_a_system_wide_flatpak_trusts_its_deploy_directory_and_nothing_else(sandbox, app, server):
    out = run_inside(sandbox, app, server, flatpak=True)
    assert set(out["owners"].values()) == {overflow_uid()}, out["owners"]   # root's files, as the user sees them
    local, remote, elsewhere, installed = out["results"]
    assert (local["status"], local["error"], local["origin"]) == ("MANDATORY", 0, "local_document"), local
    assert (installed["status"], installed["error"], installed["current"]) == ("MANDATORY", 0, "1.0.40"), installed
    assert (remote["status"], remote["error"], remote["origin"]) == ("MANDATORY", 0, "fresh_fetch"), remote
    assert (elsewhere["status"], elsewhere["error"]) == ("UP_TO_DATE", ECONFIG), elsewhere
    assert "is owned by uid %d, neither root nor this user" % overflow_uid() in elsewhere["error_message"], elsewhere


def test_outside_flatpak_the_overflow_uid_is_another_user(sandbox, app, server):
    out = run_inside(sandbox, app, server, flatpak=False)
    local, remote, _, installed = out["results"]
    assert (local["status"], local["error"]) == ("UP_TO_DATE", ECONFIG), local
    assert "is owned by uid %d, neither root nor this user" % overflow_uid() in local["error_message"], local
    assert remote["status"] == "UP_TO_DATE" and remote["error"] != 0, remote
    assert "no fetch helper: /app/lib/versiongate/versiongate-helper: owned by another user" \
        in remote["error_message"], remote
    assert (installed["status"], installed["error"]) == ("UP_TO_DATE", EINSTALLED), installed
    assert "metainfo/org.example.Gate.metainfo.xml is owned by uid %d" % overflow_uid() in installed["error_message"]
