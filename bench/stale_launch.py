#!/usr/bin/env python3
"""A launch on an expired cache against a slow server: before and after
stale-while-revalidate (docs/design.md, "The background refresh").

Against the loopback server (Tests/Server) answering in DELAY s, each run
ages the cache past cache_ttl_s (its fetched_at moved back two hours), then
times one `versiongate check` (posix_spawn to waitpid, monotonic clock):
with stale_while_revalidate_s=0 it fetches first (before); with the window
(the default, after) it decides from the cache at once and a detached
`versiongate refresh` fetches behind it, waited for before the next run so
runs do not overlap. The two kinds are interleaved, with a launch on a
fresh cache (no request at all) as the floor. Prints the medians.

    python3 bench/stale_launch.py [N] [DELAY]     # defaults: 9, 2.0
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CLI = REPO / "build" / "bin" / "versiongate"
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "Tests" / "python"))
os.environ.setdefault("VERSIONGATE_LIBRARY", str(REPO / "build" / "lib" / "libversiongate.so.1"))

from remote_helpers import Loopback, cache_file, flat_doc  # noqa: E402


def launch(argv, env) -> float:
    start = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=[(os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0)])
    _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter_ns() - start
    if os.waitstatus_to_exitcode(status) not in (0, 10, 20):
        raise SystemExit("%s exited %d" % (argv, os.waitstatus_to_exitcode(status)))
    return elapsed / 1e6


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    delay = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    server = Loopback()
    try:
        with tempfile.TemporaryDirectory(prefix="vg-bench-stale-") as tmp:
            home = Path(tmp)
            os.chmod(home, 0o700)
            env = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": str(REPO / "build" / "lib"), "HOME": tmp,
                   "XDG_CACHE_HOME": tmp + "/cache", "XDG_STATE_HOME": tmp + "/state", "XDG_RUNTIME_DIR": tmp}
            server.document("g", body=flat_doc("1.0.39", "1.0.41"))
            url = server.url("g")
            check = [str(CLI), "check", "--source", url, "--version", "1.0.40", "--set", "session_scope=process"]
            launch(check, env)                                   # the cache, fetched once
            server.document("g", delay_s=delay)
            cached = cache_file(home / "cache", url)
            marker = cached.parent / cached.name.replace("config-", "refresh-").removesuffix(".json")
            times: dict[str, list[float]] = {"before": [], "after": [], "fresh": []}
            for _ in range(runs):
                times["fresh"].append(launch(check, env))        # the refresh just made it fresh
                for kind, extra in (("before", ["--set", "stale_while_revalidate_s=0"]), ("after", [])):
                    entry = json.loads(cached.read_bytes())
                    entry["fetched_at"] = str(int(time.time()) - 7200)
                    cached.write_text(json.dumps(entry))
                    times[kind].append(launch(check + extra, env))
                    deadline = time.monotonic() + 30
                    while marker.exists() and time.monotonic() < deadline:   # the refresh behind it
                        time.sleep(0.01)
            print("launch on an expired cache (TTL 1 h, cache 2 h old), server answering in %.1f s, %d runs each:"
                  % (delay, runs))
            for kind, label in (("before", "stale_while_revalidate_s=0 (fetch first)"),
                                ("after", "stale_while_revalidate_s=604800 (default)"),
                                ("fresh", "a fresh cache (the floor)")):
                values = times[kind]
                print("  %-44s median %8.1f ms   (min %.1f, max %.1f)"
                      % (label, statistics.median(values), min(values), max(values)))
            print("requests the server saw: %d" % len(server.requests("g")))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
