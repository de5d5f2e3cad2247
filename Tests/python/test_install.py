"""Installation as a packager and a developer do it, from a fresh clone of
this repository's HEAD (what is committed; the build takes a few minutes):

1. ``make install DESTDIR=<stage> PREFIX=/usr/local``: the staged tree has the
   three library names (a real file, the SONAME link, the development link),
   the header, versiongate.pc and the CMake package free of the staging
   path, the command (no run path: /usr/local/lib is a system directory)
   and its man page; ``make uninstall`` with the same DESTDIR leaves no file.
2. ``make install PREFIX=<prefix>``, then the clone's build trees are deleted:
   a C program built with ``pkg-config --cflags --libs versiongate`` against
   the prefix alone runs and loads the prefix's libversiongate.so.1; the
   installed ``versiongate`` runs, also without ``LD_LIBRARY_PATH`` (its
   RUNPATH is the prefix's lib, nothing installed names the clone); a CMake
   project (Tests/cmake) finds ``VersionGate 1.0``, builds and runs against
   the prefix; ``man -l`` renders its page without a warning; ``make
   uninstall`` leaves no file in the prefix.
3. ``VERSIONGATE_BUILD=host pip install ./python`` (offline) into a fresh
   virtual environment; with the build
   trees gone, the package imports and checks from outside the repository.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

BUILD_SECONDS = 1800
GATE = '{"min_required_version_linux": "1.0.39", "latest_version_linux": "1.0.41"}'
PROGRAM = r"""
#include <stdio.h>
#include <versiongate.h>
int main(int argc, char **argv) {
    vg_result *result = NULL;
    vg_check(&result, argv[1], argv[2]);
    printf("%d %s\n", vg_result_status(result), vg_library_version());
    vg_result_free(result);
    return 0;
}
"""


def sh(args, cwd, env=None, timeout=120):
    proc = subprocess.run([str(a) for a in args], cwd=cwd, env=env or unsanitized(dict(os.environ)),
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, "%s failed:\n%s\n%s" % (args, proc.stdout[-3000:], proc.stderr[-3000:])
    return proc


def files_under(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() or p.is_symlink())


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    root = tmp_path_factory.mktemp("install")
    clone, stage, prefix, venv = root / "clone", root / "stage", root / "prefix", root / "venv"
    sh(["git", "clone", "-q", "--no-hardlinks", REPO, clone], root)
    sh(["make", "install", "DESTDIR=%s" % stage, "PREFIX=/usr/local"], clone, timeout=BUILD_SECONDS)
    sh(["make", "install", "PREFIX=%s" % prefix], clone, timeout=BUILD_SECONDS)
    sh([sys.executable, "-m", "venv", venv], root)
    # The host wheel, the documented offline install from source: the
    # portable one would need Debian 11's tree, which only scripts/setup
    # fetches (test_wheel.py builds that one).
    pip_env = unsanitized(dict(os.environ, VERSIONGATE_BUILD="host"))
    sh([venv / "bin" / "pip", "install", "--quiet", clone / "python"], root, env=pip_env, timeout=BUILD_SECONDS)
    sh(["rm", "-rf", clone / "build", clone / ".build"], root)
    (root / "gate.json").write_text(GATE)
    return {"root": root, "clone": clone, "stage": stage, "prefix": prefix, "venv": venv,
            "gate": root / "gate.json", "version": (clone / "VERSION").read_text().strip()}


def unsanitized(env: dict) -> dict:
    """Nothing preloaded: what is installed here is its own plain build, so
    scripts/proof's sanitizer runtime (Tests/sanitizers/vg_sanitizer_env.py
    adds it where LD_PRELOAD is unset) has nothing to check in it."""
    env["LD_PRELOAD"] = ""
    return env


def clean_env(**extra):
    """No VERSIONGATE_LIBRARY, no repository on any path."""
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ["XDG_STATE_HOME"],
           "XDG_STATE_HOME": os.environ["XDG_STATE_HOME"], "XDG_CACHE_HOME": os.environ["XDG_CACHE_HOME"]}
    env.update(extra)
    return unsanitized(env)


def test_the_staged_tree_and_its_uninstall(installed):
    stage, version = installed["stage"], installed["version"]
    lib = stage / "usr/local/lib"
    real = lib / ("libversiongate.so." + version)
    assert real.is_file() and not real.is_symlink()
    assert os.readlink(lib / "libversiongate.so.1") == real.name
    assert os.readlink(lib / "libversiongate.so") == "libversiongate.so.1"
    pc = (lib / "pkgconfig/versiongate.pc").read_text()
    assert str(stage) not in pc
    assert "prefix=/usr/local\n" in pc and "Version: %s\n" % version in pc
    header = stage / "usr/local/include/versiongate.h"     # the file, not include/'s symlink
    canonical = installed["clone"] / "Sources/VersionGateC/include/versiongate.h"
    assert not header.is_symlink() and header.read_bytes() == canonical.read_bytes()
    cmake_config = (lib / "cmake/VersionGate/VersionGateConfig.cmake").read_text()
    assert str(stage) not in cmake_config and 'set(_versiongate_include "/usr/local/include")' in cmake_config
    dynamic = sh(["readelf", "-d", stage / "usr/local/bin/versiongate"], stage).stdout
    assert "(RUNPATH)" not in dynamic and "(RPATH)" not in dynamic and "libversiongate.so.1" in dynamic
    assert files_under(stage) == sorted([
        "usr/local/bin/versiongate", "usr/local/include/versiongate.h",
        "usr/local/lib/cmake/VersionGate/VersionGateConfig.cmake",
        "usr/local/lib/cmake/VersionGate/VersionGateConfigVersion.cmake",
        "usr/local/lib/libversiongate.so", "usr/local/lib/libversiongate.so.1",
        "usr/local/lib/libversiongate.so.%s" % version, "usr/local/lib/pkgconfig/versiongate.pc",
        "usr/local/lib/versiongate/versiongate-helper", "usr/local/share/man/man1/versiongate.1"])
    helper = lib / "versiongate/versiongate-helper"     # where the library looks, beside itself
    assert helper.stat().st_mode & 0o7777 == 0o755
    assert "(RUNPATH)" not in sh(["readelf", "-d", helper], stage).stdout, "it loads the library by path"
    sh(["make", "uninstall", "DESTDIR=%s" % stage, "PREFIX=/usr/local"], installed["clone"])
    assert files_under(stage) == []


def test_a_cmake_project_against_the_prefix(installed):
    """find_package(VersionGate 1.0) and VersionGate::versiongate, from the
    prefix alone (CMAKE_PREFIX_PATH); a newer or another major is refused.
    Before the pkg-config test, which uninstalls the prefix."""
    root, prefix, version = installed["root"], installed["prefix"], installed["version"]
    assert (prefix / "lib/cmake/VersionGate/VersionGateConfigVersion.cmake").is_file()
    build = root / "cmake-build"
    env = clean_env()
    sh(["cmake", "-S", installed["clone"] / "Tests/cmake", "-B", build, "-DCMAKE_PREFIX_PATH=%s" % prefix], root, env)
    sh(["cmake", "--build", build], root, env)
    out = sh([build / "gate_check", installed["gate"], "1.0.40"], root, env).stdout
    assert out == "1 %s\n" % version                      # OPTIONAL, from the installed library
    ldd = sh(["ldd", build / "gate_check"], root, env).stdout
    assert "libversiongate.so.1 => %s/lib/libversiongate.so.1" % prefix in ldd
    for wanted in ("2.0", "1.%d" % (int(version.split(".")[1]) + 1)):
        (root / "too-new").mkdir(exist_ok=True)
        (root / "too-new/CMakeLists.txt").write_text(
            "cmake_minimum_required(VERSION 3.16)\nproject(too_new C)\nfind_package(VersionGate %s REQUIRED)\n" % wanted)
        proc = subprocess.run(["cmake", "-S", root / "too-new", "-B", root / ("too-new-" + wanted),
                               "-DCMAKE_PREFIX_PATH=%s" % prefix], env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode != 0 and "VersionGate" in proc.stderr, (wanted, proc.stderr)


def test_a_program_built_with_pkg_config_against_the_prefix(installed):
    root, prefix, version = installed["root"], installed["prefix"], installed["version"]
    assert not (installed["clone"] / "build").exists()
    env = clean_env(PKG_CONFIG_PATH=str(prefix / "lib/pkgconfig"))
    flags = sh(["pkg-config", "--cflags", "--libs", "versiongate"], root, env).stdout.split()
    assert "-I%s/include" % prefix in flags and "-L%s/lib" % prefix in flags
    (root / "gate_check.c").write_text(PROGRAM)
    sh(["cc", "gate_check.c", "-o", "gate_check", *flags], root, env)
    run_env = clean_env(LD_LIBRARY_PATH=str(prefix / "lib"))
    out = sh([root / "gate_check", installed["gate"], "1.0.38"], root, run_env).stdout
    assert out == "2 %s\n" % version                      # MANDATORY, from the installed library
    ldd = sh(["ldd", root / "gate_check"], root, run_env).stdout
    assert "libversiongate.so.1 => %s/lib/libversiongate.so.1" % prefix in ldd

    command = prefix / "bin/versiongate"
    assert sh([command, "--version"], root, run_env).stdout.startswith("versiongate %s" % version)
    # A prefix the loader is not told about: the command finds its library
    # by RUNPATH, which names the prefix, never the clone or $ORIGIN.
    runpath = sh(["readelf", "-d", command], root).stdout
    assert "Library runpath: [%s/lib]" % prefix in runpath and "(RPATH)" not in runpath
    assert sh([command, "--version"], root, clean_env()).stdout == "versiongate %s (libversiongate %s)\n" % (version, version)
    # Nor do the text files (the binaries' debug information names their sources).
    texts = [prefix / "lib/pkgconfig/versiongate.pc", *sorted((prefix / "lib/cmake/VersionGate").iterdir())]
    assert len(texts) == 3 and [t for t in texts if str(installed["clone"]) in t.read_text()] == []
    proc = subprocess.run([command, "check", "--source", installed["gate"], "--version", "1.0.40"],
                          env=run_env, capture_output=True, timeout=60)
    assert proc.returncode == 10                              # OPTIONAL
    page = prefix / "share/man/man1/versiongate.1"
    assert page.read_text().startswith('.TH VERSIONGATE 1 2026-12-01 "versiongate %s"' % version)
    man = subprocess.run(["man", "--warnings", "-l", page], env={**run_env, "MANWIDTH": "80"},
                         capture_output=True, text=True, timeout=60)
    assert man.returncode == 0 and man.stderr == "", man.stderr
    assert "EXIT STATUS" in man.stdout and "remind_after_s" in man.stdout

    sh(["make", "uninstall", "PREFIX=%s" % prefix], installed["clone"])
    assert files_under(prefix) == []


def test_the_pip_package_outside_the_repository(installed):
    root, venv = installed["root"], installed["venv"]
    assert not (installed["clone"] / "build").exists()
    code = ("import versiongate as vg, sys\n"
            "with vg.Client(source=sys.argv[1], session_scope='process') as c, c.check('1.0.38') as r:\n"
            "    print(vg.LIBRARY_PATH, r.status.name, vg.library_version())\n")
    out = sh([venv / "bin/python", "-c", code, installed["gate"]], root, clean_env()).stdout.split()
    library, status, version = out
    assert library.startswith(str(venv)) and library.endswith("/versiongate/libversiongate.so.1")
    assert (status, version) == ("MANDATORY", installed["version"])
    site = Path(library).parent
    assert (site / "py.typed").is_file()
