#!/usr/bin/env python3
"""What the fetch helper costs (docs/design.md, "The fetch helper"): an
earlier library, whose fetches ran in the host, and this tree's, measured
in one sitting, interleaved, against one loopback https server.

    python3 bench/helper_cost.py OLD_LIBRARY_DIR [N [NEW_LIBRARY_DIR]]
                                     # N runs each (default 15); NEW: build/lib

OLD_LIBRARY_DIR is a build/lib of the earlier tree (its `versiongate`
command in ../bin beside it, which that library started as its
refresher). Per run, for each library, a C host (bench/remote_check.c):

  - fetch first: exec -> one check on an empty cache -> exit; the check's
    own milliseconds, and the RSS the check added to the host;
  - repeated fetches: 20 more checks on that client, each fetching again
    (a 304): the median, the steady cost of one fetch (of one spawn, now);
  - a stale launch: exec -> one check on a cache past its TTL within the
    stale window -> exit, timed from spawn to exit by this script (what a
    user waits for); the refresh it starts is waited for before the next.

Prints the medians of the N runs.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "Tests" / "python"))
sys.path.insert(0, str(REPO / "Tests" / "Server"))
os.environ.setdefault("VERSIONGATE_LIBRARY", str(REPO / "build" / "lib" / "libversiongate.so.1"))

from make_certs import make_certs  # noqa: E402
from remote_helpers import Loopback, flat_doc  # noqa: E402


def build_host(out: Path) -> Path:
    program = out / "remote_check"
    subprocess.run(["cc", "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror", "-I", str(REPO / "include"),
                    str(REPO / "bench" / "remote_check.c"), "-o", str(program),
                    "-L", str(REPO / "build" / "lib"), "-l:libversiongate.so.1"], check=True)
    return program


def run(program, library_dir, home: Path, options: dict, repeat: int) -> tuple[dict, float]:
    env = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": str(library_dir), "HOME": str(home),
           "XDG_CACHE_HOME": str(home / "cache"), "XDG_STATE_HOME": str(home / "state")}
    argv = [str(program), "1.0.38", str(repeat)] + ["%s=%s" % pair for pair in options.items()]
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout), (time.perf_counter() - start) * 1e3


def main() -> None:
    old = Path(sys.argv[1]).resolve()
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    new = Path(sys.argv[3]).resolve() if len(sys.argv) > 3 else REPO / "build" / "lib"
    libraries = {"before (%s)" % old: old, "after (%s)" % new: new}
    with tempfile.TemporaryDirectory(prefix="vg-bench-helper-") as tmp:
        tmp = Path(tmp)
        os.chmod(tmp, 0o755)
        certs = make_certs(tmp / "pki")
        program = build_host(tmp)
        server = Loopback(tls=(certs["server_pem"], certs["server_key"]))
        try:
            server.document("g", body=flat_doc("1.0.39", "1.0.41"))
            base = {"source": server.url("g"), "tls_ca_file": str(certs["ca_pem"]), "session_scope": "process"}
            figures = {name: {"first": [], "rss": [], "repeat": [], "stale": [], "threads": []} for name in libraries}
            for n in range(runs):
                for name, library_dir in libraries.items():
                    home = tmp / ("%s-%d" % (library_dir.name + str(abs(hash(name)) % 1000), n))
                    home.mkdir()
                    os.chmod(home, 0o700)
                    seen, _ = run(program, library_dir, home, base, 20)
                    figures[name]["first"].append(seen["first_ms"])
                    figures[name]["rss"].append(seen["rss_added_kb"])
                    figures[name]["repeat"].append(seen["repeat_median_ms"])
                    figures[name]["threads"].append(seen["threads"])
                    requests = len(server.requests("g"))
                    stale = dict(base, cache_ttl_s="0", stale_while_revalidate_s="600")
                    _, wall = run(program, library_dir, home, stale, 0)
                    figures[name]["stale"].append(wall)
                    end = time.monotonic() + 10          # the refresh lands before the next run
                    while len(server.requests("g")) == requests and time.monotonic() < end:
                        time.sleep(0.01)
                    time.sleep(0.05)
                    shutil.rmtree(home)
        finally:
            server.stop()
    print("%d runs each, medians (min-max)" % runs)
    print("| | fetch first: the check | RSS the check added | one more fetch (304) | stale launch, spawn to exit | threads after |")
    print("|---|---|---|---|---|---|")
    for name, f in figures.items():
        cell = lambda xs, unit: "%.2f %s (%.2f-%.2f)" % (statistics.median(xs), unit, min(xs), max(xs))
        print("| %s | %s | %d kB (%d-%d) | %s | %s | %d |" % (
            name, cell(f["first"], "ms"), statistics.median(f["rss"]), min(f["rss"]), max(f["rss"]),
            cell(f["repeat"], "ms"), cell(f["stale"], "ms"), statistics.median(f["threads"])))


if __name__ == "__main__":
    main()
