#!/usr/bin/env python3
"""The warm check's cost held to bounds (docs/design.md, "The decision"): deterministic, not timed.

For each kind of Tests/c/warm_cost.c (UP_TO_DATE, OPTIONAL and MANDATORY,
each with one version repeated and with several in turn), on one client:
  - system calls per check: every call strace sees, in every thread,
    between the program's two markers, over 100 checks;
  - user-space instructions per check: callgrind's totals at two run
    lengths, the difference divided (start-up and warming cancel out).
Each is held to its bound in Tests/c/warm_cost.bounds. The home is a fresh
one whose cache directory exists (as after any fetch), so a check that
looks there is seen; Swift's hashing is deterministic, the environment fixed.

    warm_cost.py [LIBRARY_DIR] [--print]

LIBRARY_DIR holds libversiongate.so (default: build/lib). Prints "ok" or
"FAIL" per figure and exits 1 when one is over its bound; with --print,
only the figures (to measure another tree's library).
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
REPO = HERE.parents[1]
KINDS = ["up-to-date-one", "up-to-date-several", "optional-one", "optional-several",
         "mandatory-one", "mandatory-several", "mandatory-program"]
TRACED = 100
SHORT, LONG = 100, 1100


def bounds() -> dict[str, tuple[int, int]]:
    """kind -> (system calls, instructions) per check."""
    found = {}
    for line in (HERE / "warm_cost.bounds").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            kind, calls, instructions = line.split()
            found[kind] = (int(calls), int(instructions))
    return found


def run(command: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise SystemExit(f"FAIL {' '.join(command)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return done.stderr


def system_calls(program: list[str], env: dict[str, str], trace: Path) -> tuple[float, int]:
    """Per check, and how many processes the checks started (execve)."""
    run(["strace", "-f", "-qq", "-o", str(trace)] + program + [str(TRACED)], env)
    lines = trace.read_text().splitlines()
    begin = next(i for i, line in enumerate(lines) if '"vg-cost-begin"' in line)
    end = next(i for i, line in enumerate(lines) if '"vg-cost-end"' in line)
    return (end - begin - 1) / TRACED, sum(" execve(" in line for line in lines[begin + 1:end])


def instructions(program: list[str], env: dict[str, str]) -> float:
    totals = []
    for n in (SHORT, LONG):
        said = run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + program + [str(n)], env)
        totals.append(int(re.search(r"Collected : (\d+)", said).group(1)))
    return (totals[1] - totals[0]) / (LONG - SHORT)


def main(arguments: list[str]) -> int:
    only_print = "--print" in arguments
    rest = [a for a in arguments if a != "--print"]
    library = Path(rest[0] if rest else REPO / "build" / "lib").resolve()
    limits = bounds()
    failures = 0
    with tempfile.TemporaryDirectory(prefix="vg-warm-cost.") as tmp:
        tmp = Path(tmp)
        binary = tmp / "warm_cost"
        subprocess.run(["cc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{REPO / 'include'}",
                        str(HERE / "warm_cost.c"), "-o", str(binary), f"-L{library}", "-lversiongate"], check=True)
        home = tmp / "home"
        (home / ".cache" / "versiongate").mkdir(parents=True, mode=0o700)
        (home / ".local" / "state").mkdir(parents=True)
        document = tmp / "gate.json"
        shutil.copyfile(REPO / "examples" / "gate.json", document)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
               "XDG_CACHE_HOME": str(home / ".cache"), "XDG_STATE_HOME": str(home / ".local" / "state"),
               "XDG_RUNTIME_DIR": str(tmp), "LANG": "C.UTF-8", "SWIFT_DETERMINISTIC_HASHING": "1",
               "LD_LIBRARY_PATH": str(library)}
        time.sleep(3)   # the copy's ctime too: a document changed in the last 2 s is re-read at every check
        for kind in KINDS:
            program = [str(binary), str(document), kind]
            calls, started = system_calls(program, env, tmp / "trace")
            counted = instructions(program, env)
            if only_print:
                print(f"{kind:20} {calls:5.2f} system calls {counted:7.0f} instructions per check, {started} processes")
                continue
            most_calls, most_instructions = limits[kind]
            failures += started > 0
            print(f"{'ok  ' if started == 0 else 'FAIL'} warm {kind} checks: {started} processes started")
            for value, bound, what in ((calls, most_calls, f"{calls:.2f} system calls"),
                                       (counted, most_instructions, f"{counted:.0f} instructions")):
                failures += value > bound
                print(f"{'ok  ' if value <= bound else 'FAIL'} warm {kind} check: {what} per check (bound {bound})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
