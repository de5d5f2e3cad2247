"""scripts/version on a copy of the files it owns: --check finds every line
that disagrees with VERSION, a run rewrites exactly those, a second run
changes nothing, and the repository itself agrees."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO

OWNED = ["VERSION", "scripts/version", "Sources/VersionGateC/include/versiongate.h",
         "Sources/VersionGate/Library.swift", "Sources/VersionGateSystem/Remote/FirebaseFetcher.swift",
         "man/versiongate.1"]


def run(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(root / "scripts/version"), *args],
                          capture_output=True, text=True, timeout=30)


def copy(tmp_path: Path) -> Path:
    for name in OWNED:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, tmp_path / name)
    return tmp_path


def snapshot(root: Path) -> dict[str, str]:
    return {name: (root / name).read_text() for name in OWNED}


def test_the_repository_agrees_with_version():
    proc = run(REPO, "--check")
    assert proc.returncode == 0, proc.stderr


def test_a_new_version_is_found_then_written_everywhere(tmp_path):
    root = copy(tmp_path)
    (root / "VERSION").write_text("2.13.4\n")
    before = snapshot(root)
    proc = run(root, "--check")
    assert proc.returncode == 1
    for name in OWNED[2:]:
        assert name in proc.stderr
    assert snapshot(root) == before                       # --check writes nothing

    assert run(root).returncode == 0
    header = (root / OWNED[2]).read_text()
    for line in ["#define VG_VERSION_MAJOR 2", "#define VG_VERSION_MINOR 13", "#define VG_VERSION_PATCH 4",
                 '#define VG_VERSION_STRING "2.13.4"']:
        assert line + "\n" in header
    assert 'staticCString("2.13.4")' in (root / OWNED[3]).read_text()
    assert '"versiongate-2.13.4"' in (root / OWNED[4]).read_text()
    assert '"versiongate 2.13.4" "User Commands"' in (root / OWNED[5]).read_text()
    # Only those lines changed.
    for name in OWNED[2:]:
        old, new = before[name].splitlines(), (root / name).read_text().splitlines()
        assert len(old) == len(new) and sum(a != b for a, b in zip(old, new)) in (1, 4), name

    written = snapshot(root)
    assert run(root, "--check").returncode == 0
    assert run(root).returncode == 0 and snapshot(root) == written   # idempotent


def test_a_malformed_version_is_refused(tmp_path):
    root = copy(tmp_path)
    for text in ["1.0", "1.0.0-rc.1", "01.0.0", "v1.0.0"]:
        (root / "VERSION").write_text(text + "\n")
        proc = run(root, "--check")
        assert proc.returncode == 1 and "not MAJOR.MINOR.PATCH" in proc.stderr, text
