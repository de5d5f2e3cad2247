#!/usr/bin/env python3
"""A snap's update through snapd next to a package's through PackageKit,
in one sitting (docs/design.md, "Updating a snap"): `versiongate exec
--dialog terminal` as vguser on a pty in each world (Tests/snap: the fake
snapd, its change one step with no delay, so the figure is the client's
own; Tests/packagekit: packagekitd's real apt backend, lists already
fresh), Update typed at the MANDATORY prompt. From that keystroke: the
first progress line ("Updating: N%") and the new version's own output
(the restart). R rounds, the two paths alternated; medians (min-max).
Needs root and scripts/setup's roots. Asserts nothing.

    sudo python3 bench/update_paths.py [R]
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "python"))

from flatpak_world import chroot_root  # noqa: E402

BUILD = REPO / "build"
EXEC = ('env PATH={top}/bin:/usr/bin:/bin:/snap/bin LD_LIBRARY_PATH={top}/lib LANG=C.UTF-8 '
        '{top}/bin/versiongate exec --dialog terminal --source {top}/gate.json --version 1.0 {settings} -- {command} a b')


def prepare(kind: str) -> tuple[Path, str, list[str]]:
    """The world's directory, its root and the argv of one run."""
    top = Path(tempfile.mkdtemp(prefix=f"vg-bench-{kind}-", dir="/tmp"))
    os.chmod(top, 0o755)
    (top / "bin").mkdir()
    shutil.copy(BUILD / "bin" / "versiongate", top / "bin" / "versiongate")
    shutil.copytree(BUILD / "lib", top / "lib", symlinks=True)
    (top / "bin" / "xdg-open").write_text('#!/bin/sh\nexit 0\n')
    os.chmod(top / "bin" / "xdg-open", 0o755)
    (top / "gate.json").write_text(json.dumps({"min_required_version_linux": "2.0", "latest_version_linux": "2.0",
                                               "update_url_linux": "https://example.org/acme"}))
    old = time.time() - 3600
    os.utime(top / "gate.json", (old, old))
    os.chmod(top / "gate.json", 0o644)
    if kind == "snap":
        for name in ("world", "fake_snapd.py"):
            shutil.copy(REPO / "Tests" / "snap" / name, top / name)
        state = {"progress": {"steps": 1, "delay": 0},
                 "snaps": [{"name": "acme-notes", "behaviour": "refresh",
                            "installed": {"revision": 12, "version": "1.0", "tracking-channel": "latest/stable",
                                          "confinement": "strict"},
                            "store": {"latest/stable": {"revision": 15, "version": "2.0"}}}]}
        (top / "state.json").write_text(json.dumps(state))
        os.chmod(top / "state.json", 0o644)
        script = EXEC.format(top=top, settings="--set snap_store_endpoint=https://127.0.0.1:9", command="acme-notes")
        tail = ["allow", str(top / "state.json")]
    else:
        subprocess.run([str(REPO / "Tests" / "packagekit" / "make_repo"), str(top / "repo")], check=True,
                       capture_output=True, timeout=120)
        shutil.copy(REPO / "Tests" / "packagekit" / "world", top / "world")
        script = EXEC.format(top=top, settings="--set distro_package=vgdemo", command="vgdemo")
        tail = ["--fresh", "allow", str(top / "repo")]
    for path in [top, *top.rglob("*")]:
        if not path.is_symlink() and path.is_dir():
            os.chmod(path, 0o755)
    root = chroot_root(kind if kind == "snap" else "packagekit")
    argv = [str(REPO / "scripts" / "chroot"), "run", "--bind", str(top), root, str(top / "world"), *tail,
            "--", "sh", "-c", script]
    return top, root, argv


def timed_run(argv: list[str], new_output: bytes, timeout: float = 240) -> tuple[float, float]:
    """Seconds from Update typed to the first progress line, and to the new version's output."""
    master, slave = os.openpty()
    process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
    os.close(slave)
    output, typed, progress, done = b"", None, None, None
    deadline = time.monotonic() + timeout
    try:
        while done is None:
            ready, _, _ = select.select([master], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise SystemExit("no end within %d s:\n%s" % (timeout, output.decode(errors="replace")))
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
            now = time.monotonic()
            if typed is None and b"[Enter]" in output:
                os.write(master, b"\n")
                typed, output = now, b""
            if typed is not None and progress is None and b"Updating:" in output:
                progress = now
            if typed is not None and new_output in output:
                done = now
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        os.close(master)
    if typed is None or progress is None or done is None:
        raise SystemExit("the update did not run through:\n" + output.decode(errors="replace"))
    return progress - typed, done - typed


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    worlds = {kind: prepare(kind) for kind in ("snap", "packagekit")}
    expected = {"snap": b"acme-notes 2.0 a b", "packagekit": b"vgdemo 2.0 a b"}
    figures = {kind: ([], []) for kind in worlds}
    try:
        for _ in range(rounds):
            for kind, (_, _, argv) in worlds.items():
                first, whole = timed_run(argv, expected[kind])
                figures[kind][0].append(first * 1000)
                figures[kind][1].append(whole * 1000)
    finally:
        for top, _, _ in worlds.values():
            shutil.rmtree(top, ignore_errors=True)

    def cell(values: list[float]) -> str:
        return "%.0f ms (%.0f-%.0f)" % (statistics.median(values), min(values), max(values))

    print(f"{rounds} rounds, alternated; from Update typed:")
    print("| path | first progress line | the new version's output |")
    print("|---|---|---|")
    for kind, (first, whole) in figures.items():
        name = "snap (fake snapd, one step)" if kind == "snap" else "package (PackageKit, apt)"
        print(f"| {name} | {cell(first)} | {cell(whole)} |")
    print("ratio snap / package (medians): first progress %.2f, whole update %.2f" % (
        statistics.median(figures["snap"][0]) / statistics.median(figures["packagekit"][0]),
        statistics.median(figures["snap"][1]) / statistics.median(figures["packagekit"][1])))


if __name__ == "__main__":
    main()
