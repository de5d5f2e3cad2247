#!/usr/bin/env python3
"""Median wall time of N runs of a command, for each of several variants
run interleaved (so machine noise hits them alike). Prints a table."""
import os, statistics, subprocess, sys, time

def main():
    runs = int(sys.argv[1])
    variants = [("no libcurl loaded (as shipped)", {}),
                ("libcurl preloaded (as if linked)", {"LD_PRELOAD": "libcurl.so.4"})]
    command = sys.argv[2:]
    times = {name: [] for name, _ in variants}
    for _ in range(runs):
        for name, extra in variants:
            env = dict(os.environ, **extra)
            start = time.perf_counter()
            subprocess.run(command, env=env, check=True)
            times[name].append((time.perf_counter() - start) * 1000)
    base = statistics.median(times[variants[0][0]])
    print(f"exec + dlopen + one local check + exit, median of {runs}")
    for name, _ in variants:
        m = statistics.median(times[name])
        print(f"  {name:34} {m:7.2f} ms  ({m / base:.2f}x)")

main()
