#!/usr/bin/env python3
"""The latency `versiongate exec` adds to a launch (BENCHMARKS.md).

Times, in one run and interleaved, N launches of COMMAND directly and N of
`versiongate exec --source DOC --version V -- COMMAND` (each: posix_spawn,
waitpid, monotonic clock), on a local gate document aged past the 2 s
"recently changed" window (so it is parsed once per process, not
re-validated by content). Prints the medians and the added time.

    python3 bench/cli_exec.py [N] [COMMAND]     # defaults: 200, /bin/true
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


def launch(argv, env) -> float:
    start = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, env)
    _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter_ns() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("%s exited %d" % (argv, os.waitstatus_to_exitcode(status)))
    return elapsed / 1e6


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    command = sys.argv[2] if len(sys.argv) > 2 else "/bin/true"
    with tempfile.TemporaryDirectory(prefix="vg-bench-cli-") as tmp:
        root = Path(tmp)
        for name in ("run", "state", "cache"):
            (root / name).mkdir(mode=0o700)
        doc = root / "gate.json"
        doc.write_text(json.dumps({"min_required_version_linux": "1.0.39", "latest_version_linux": "1.0.41"}))
        time.sleep(2.2)                       # past the 2 s window (mtime and ctime)
        env = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": str(REPO / "build" / "lib"), "HOME": str(root),
               "XDG_RUNTIME_DIR": str(root / "run"), "XDG_STATE_HOME": str(root / "state"),
               "XDG_CACHE_HOME": str(root / "cache")}
        gated = [str(CLI), "exec", "--source", str(doc), "--version", "1.0.41", "--", command]
        # OPTIONAL already prompted this session (should_prompt 0): the common warm OPTIONAL launch.
        optional = [str(CLI), "exec", "--source", str(doc), "--version", "1.0.40", "--dialog", "none", "--", command]
        direct = [command]
        for _ in range(10):                   # warm the page cache
            launch(direct, env)
            launch(gated, env)
            launch(optional, env)
        times_direct, times_gated, times_optional = [], [], []
        for _ in range(runs):
            times_direct.append(launch(direct, env))
            times_gated.append(launch(gated, env))
            times_optional.append(launch(optional, env))
    d, g, o = (statistics.median(t) for t in (times_direct, times_gated, times_optional))
    print("runs: %d each, interleaved; COMMAND %s; local document, UP_TO_DATE" % (runs, command))
    print("direct:           median %.3f ms (p10 %.3f, p90 %.3f)" % (d, *_p10_p90(times_direct)))
    print("versiongate exec: median %.3f ms (p10 %.3f, p90 %.3f)" % (g, *_p10_p90(times_gated)))
    print("added:            median %.3f ms (goal <= 5 ms)" % (g - d))
    print("exec, OPTIONAL already prompted: median %.3f ms, added %.3f ms" % (o, o - d))


def _p10_p90(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 10], ordered[len(ordered) * 9 // 10]


if __name__ == "__main__":
    main()
