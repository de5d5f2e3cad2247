#!/usr/bin/env python3
"""What the administrator's policy costs a warm check (docs/design.md, "The
administrator's policy"), one sitting: bench/warm_checks.c (N warm checks
of one local document on one client) with no policy, and inside a private
mount namespace whose /etc/versiongate holds a policy.json (root's, 0644)
that does not change these decisions (in_place_updates false, a managed
message). Instructions per check from callgrind at two N (the difference
divided: start-up and the policy's one read at vg_client_new cancel out),
and wall-clock medians of R runs of N checks each, alternated. Needs root
(unshare -m) and valgrind. Prints a table; asserts nothing.

    sudo python3 bench/policy_cost.py [R]
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LIB = REPO / "build" / "lib"
VERSIONS = {"UP_TO_DATE (1.0.50)": "1.0.50", "MANDATORY (1.0.20)": "1.0.20"}


def command(binary: Path, doc: Path, version: str, n: int, policy: Path | None, tool: list[str]) -> list[str]:
    run = tool + [str(binary), str(doc), version, str(n)]
    if policy is None:
        return run
    shell = 'mkdir -p /etc/versiongate && mount --bind "$1" /etc/versiongate && shift && exec "$@"'
    return ["unshare", "-m", "sh", "-c", shell, "sh", str(policy)] + run


def instructions(binary, doc, version, n, policy) -> int:
    done = subprocess.run(command(binary, doc, version, n, policy,
                                  ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]),
                          env=dict(os.environ, LD_LIBRARY_PATH=str(LIB)), capture_output=True, text=True, timeout=600)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if not found:
        raise SystemExit("callgrind said nothing:\n" + done.stderr[-2000:])
    return int(found.group(1))


def wall(binary, doc, version, n, policy) -> float:
    start = time.perf_counter()
    subprocess.run(command(binary, doc, version, n, policy, []), env=dict(os.environ, LD_LIBRARY_PATH=str(LIB)),
                   check=True, timeout=600)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        binary = tmp / "warm_checks"
        subprocess.run(["cc", "-O2", "-I", str(REPO / "include"), str(REPO / "bench" / "warm_checks.c"), "-o", str(binary),
                        "-L", str(LIB), "-l:libversiongate.so.1"], check=True)
        doc = tmp / "gate.json"
        doc.write_text(json.dumps({"min_required_version_linux": "1.0.30", "latest_version_linux": "1.0.40"}))
        os.utime(doc, (1, 1))   # past the racily-clean window
        policy = tmp / "policy"
        policy.mkdir(mode=0o755)
        (policy / "policy.json").write_text(json.dumps({"in_place_updates": False, "managed_message": "IT deploys it"}))
        os.environ["XDG_RUNTIME_DIR"] = str(tmp)
        print("| check | policy | instructions per check | median of %d runs of 20,000 checks |" % runs)
        print("|---|---|---|---|")
        for label, version in VERSIONS.items():
            counts = {}
            for name, where in (("none", None), ("policy.json", policy)):
                # The least of three: a one-off (a page of the cache, a first
                # write) may land in either run.
                counts[name] = min((instructions(binary, doc, version, 2000, where)
                                    - instructions(binary, doc, version, 1000, where)) / 1000 for _ in range(3))
            times: dict[str, list[float]] = {"none": [], "policy.json": []}
            for _ in range(runs):
                for name, where in (("none", None), ("policy.json", policy)):
                    times[name].append(wall(binary, doc, version, 20000, where))
            for name in counts:
                print("| %s | %s | %.0f | %.1f ms |" % (label, name, counts[name], statistics.median(times[name])))


if __name__ == "__main__":
    main()
