#!/usr/bin/env python3
"""An AppImage update by zsync delta (issue #42), in one sitting: the real
library (the Python binding) updates a 4 MiB AppImage whose new version
changed 1 % of its blocks, against the same update from a file that shares
no block with it (everything fetched through the same code), and against
`curl` downloading the new file whole; all from one loopback static host
(Tests/Server, the world of Tests/python/test_appimage_update.py).
Interleaved; bytes fetched (the Range requests' sizes, and whole bodies)
and wall time of Client.update, medians of N runs.

    python3 bench/appimage_update.py [N]      # default 9
"""
from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "python"))
sys.path.insert(0, str(REPO / "Tests" / "Server"))
sys.path.insert(0, str(REPO / "python"))
os.environ.setdefault("VERSIONGATE_LIBRARY", str(REPO / "build" / "lib" / "libversiongate.so.1"))

import versiongate as vg  # noqa: E402
from test_appimage_update import PAYLOAD, World, build_app  # noqa: E402


def update(world: World, seed: bytes, directory: Path) -> tuple[float, int]:
    directory.mkdir()
    app = directory / "Demo.AppImage"
    app.write_bytes(seed)
    app.chmod(0o755)
    os.environ["APPIMAGE"] = str(app)
    before = len(world.update_requests())
    with vg.Client(source=str(world.gate), flathub_endpoint=world.base) as client:
        with client.check("1.0") as result:
            start = time.perf_counter()
            outcome, why = client.update(result)
            elapsed = time.perf_counter() - start
    assert outcome is vg.UpdateOutcome.INSTALLED, why
    assert app.read_bytes() == world.v2
    return elapsed * 1e3, world.fetched_bytes(since=before)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    with tempfile.TemporaryDirectory(prefix="vg-bench-appimage-") as tmp:
        tmp = Path(tmp)
        os.environ["XDG_CACHE_HOME"] = str(tmp / "cache")
        os.environ["XDG_STATE_HOME"] = str(tmp / "state")
        (tmp / "world").mkdir()
        world = World(tmp / "world")
        try:
            other = tmp / "other"
            other.mkdir()
            unrelated = build_app(other, "0.9", random.Random(99).randbytes(PAYLOAD),
                                  "zsync|" + world.base + "app.zsync").read_bytes()
            figures: dict[str, list[tuple[float, int]]] = {"delta (1 % changed)": [], "no block in common": [],
                                                           "curl, the whole file": []}
            for n in range(runs):
                figures["delta (1 % changed)"].append(update(world, world.v1, tmp / ("d%d" % n)))
                figures["no block in common"].append(update(world, unrelated, tmp / ("u%d" % n)))
                start = time.perf_counter()
                subprocess.run(["curl", "-sf", "-o", "/dev/null", world.base + "app.AppImage"], check=True)
                figures["curl, the whole file"].append(((time.perf_counter() - start) * 1e3, len(world.v2)))
                for name in ("d%d" % n, "u%d" % n):
                    (tmp / name / "Demo.AppImage").unlink()
        finally:
            world.close()
    print("%d runs each, interleaved; the new file is %d bytes" % (runs, len(world.v2)))
    print("| | bytes fetched | of the file | time, median (min-max) |")
    print("|---|---|---|---|")
    for name, rows in figures.items():
        times = [t for t, _ in rows]
        fetched = statistics.median(b for _, b in rows)
        print("| %s | %d | %.1f %% | %.1f ms (%.1f-%.1f) |" % (name, fetched, 100 * fetched / len(world.v2),
                                                             statistics.median(times), min(times), max(times)))


if __name__ == "__main__":
    main()
