#!/usr/bin/env python3
"""Cold-start figures, each the median of N runs, interleaved so machine
noise hits them alike: exec → dlopen → one local check → exit, next to a C
program that only reads and compares (the baseline), and next to the same
check with libcurl preloaded (what linking it would cost). Also the RSS the
library adds to a C host. With a second library (e.g. an earlier build),
it runs in the same interleaved loop, so before and after meet the same
machine noise.
Usage: cold_runs.py N COLD_CHECK BASELINE LIBRARY DOCUMENT [OTHER_LIBRARY]"""
import os, statistics, subprocess, sys, time


def main():
    runs, cold, baseline, library, document = int(sys.argv[1]), *sys.argv[2:6]
    other = sys.argv[6] if len(sys.argv) > 6 else None
    variants = [
        ("C baseline: read + compare only", [baseline, document, "1.0.41"], {}),
        ("libversiongate: dlopen + vg_check", [cold, library, document], {}),
        ("  the same, libcurl preloaded", [cold, library, document], {"LD_PRELOAD": "libcurl.so.4"}),
    ]
    if other:
        variants.append(("other library: dlopen + vg_check", [cold, other, document], {}))
    times = {name: [] for name, _, _ in variants}
    for _ in range(runs):
        for name, command, extra in variants:
            # posix_spawn + waitpid: the least launcher overhead Python has,
            # so the ratio is about the programs, not the harness.
            environment = dict(os.environ, **extra)
            start = time.perf_counter()
            pid = os.posix_spawn(command[0], command, environment)
            _, status = os.waitpid(pid, 0)
            times[name].append((time.perf_counter() - start) * 1000)
            if status != 0:
                sys.exit(f"{command} failed: {status}")
    base = statistics.median(times[variants[0][0]])
    print(f"cold process, median of {runs} runs")
    for name, _, _ in variants:
        m = statistics.median(times[name])
        print(f"  {name:38} {m:7.2f} ms  ({m / base:.2f}x the baseline)")
    for name, path in [("", library)] + ([("other library: ", other)] if other else []):
        rss = subprocess.run([cold, path, document, "--rss"], capture_output=True, text=True).stdout.strip()
        print(f"  {name}RSS added to a C host by dlopen + one check: {rss}")


main()
