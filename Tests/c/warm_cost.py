#!/usr/bin/env python3
"""The warm check's cost held to bounds (SPEC §26): deterministic, not timed.

For each kind of Tests/c/warm_cost.c (UP_TO_DATE, OPTIONAL and MANDATORY,
each with one version repeated and with several in turn), on one client:
  - system calls per check: every call strace sees, in every thread,
    between the program's two markers, over N checks;
  - user-space instructions per check: callgrind's total at two run
    lengths, the difference divided (start-up and warming cancel out).
Each is held to Tests/c/warm_cost.bounds. The home is a fresh one whose
cache directory exists (as after any fetch), so a check that looks there
is seen. Swift's hashing is made deterministic, the environment fixed.

    warm_cost.py PROGRAM LIBRARY_DIR [--print]

Prints "ok"/"FAIL" per figure (with --print, only the figures) and exits
non-zero when one is over its bound.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOCUMENT = HERE.parents[1] / "examples" / "gate.json"
KINDS = ["up-to-date-one", "up-to-date-several", "optional-one", "optional-several",
         "mandatory-one", "mandatory-several"]
TRACED_CHECKS = 100
SHORT, LONG = 100, 1100


def bounds() -> dict[str, tuple[int, int]]:
    found = {}
    for line in (HERE / "warm_cost.bounds").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            kind, calls, instructions = line.split()
            found[kind] = (int(calls), int(instructions))
    return found


def run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise SystemExit(f"FAIL {' '.join(command)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return done


def system_calls(program: str, document: Path, kind: str, env: dict[str, str], trace: Path) -> float:
    run(["strace", "-f", "-qq", "-o", str(trace), program, str(document), kind, str(TRACED_CHECKS)], env)
    lines = trace.read_text().splitlines()
    begin = next(i for i, line in enumerate(lines) if "vg-cost-begin" in line)
    end = next(i for i, line in enumerate(lines) if "vg-cost-end" in line)
    return (end - begin - 1) / TRACED_CHECKS


def instructions(program: str, document: Path, kind: str, env: dict[str, str]) -> float:
    totals = []
    for n in (SHORT, LONG):
        done = run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", program, str(document), kind,
                    str(n)], env)
        totals.append(int(re.search(r"Collected : (\d+)", done.stderr).group(1)))
    return (totals[1] - totals[0]) / (LONG - SHORT)


def main() -> int:
    if len(sys.argv) not in (3, 4):
        print(__doc__.strip().splitlines()[-6])
        return 2
    program, library = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    only_print = sys.argv[3:] == ["--print"]
    limits = bounds()
    failures = 0
    with tempfile.TemporaryDirectory(prefix="vg-warm-cost.") as tmp:
        tmp = Path(tmp)
        home = tmp / "home"
        (home / ".cache" / "versiongate").mkdir(parents=True, mode=0o700)
        (home / ".local" / "state").mkdir(parents=True)
        document = tmp / "gate.json"
        shutil.copyfile(DOCUMENT, document)
        os.utime(document, (time.time() - 3600, time.time() - 3600))
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
               "XDG_CACHE_HOME": str(home / ".cache"), "XDG_STATE_HOME": str(home / ".local" / "state"),
               "XDG_RUNTIME_DIR": str(tmp), "LANG": "C.UTF-8", "SWIFT_DETERMINISTIC_HASHING": "1",
               "LD_LIBRARY_PATH": library}
        time.sleep(3)   # the copy's ctime ages too: a document changed in the last 2 s is re-read
        for kind in KINDS:
            calls = system_calls(program, document, kind, env, tmp / "trace")
            counted = instructions(program, document, kind, env)
            if only_print:
                print(f"{kind:20} {calls:5.2f} system calls {counted:9.0f} instructions per check")
                continue
            most_calls, most_instructions = limits[kind]
            for what, value, bound in (("system calls", calls, most_calls),
                                       ("instructions", counted, most_instructions)):
                verdict = "ok  " if value <= bound else "FAIL"
                failures += value > bound
                print(f"{verdict} warm {kind} check: {value:.0f} {what} per check (bound {bound})"
                      if what == "instructions" else
                      f"{verdict} warm {kind} check: {value:.2f} {what} per check (bound {bound})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
