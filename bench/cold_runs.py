#!/usr/bin/env python3
"""Cold-start figures, each the median of N runs, interleaved so machine
noise hits them alike (in a new order each round): exec → dlopen → one local check → exit, next to a C
program that only reads and compares (the baseline), and next to the same
check with libcurl preloaded (what linking it would cost). Beside each time,
the child's page faults (minor + major, from wait4's rusage: the same count
`perf stat -e page-faults` gives). Also the RSS the library adds to a C host
after one check and after 100,000. With a second library (e.g. an earlier
build), it runs in the same interleaved loop, so before and after meet the
same machine noise. With VG_BENCH_FIGURES=FILE the figures of the first
library are appended to FILE ("name value" lines) for scripts/bench.
Usage: cold_runs.py N COLD_CHECK BASELINE LIBRARY DOCUMENT [OTHER_LIBRARY]"""
import os, random, statistics, subprocess, sys, time

RSS_CHECKS = 100_000


def run(command, environment):
    """Wall milliseconds and page faults of one posix_spawn + wait4: the
    least launcher overhead Python has, so the ratio is about the programs."""
    start = time.perf_counter()
    pid = os.posix_spawn(command[0], command, environment)
    _, status, usage = os.wait4(pid, 0)
    elapsed = (time.perf_counter() - start) * 1000
    if status != 0:
        sys.exit(f"{command} failed: {status}")
    return elapsed, usage.ru_minflt + usage.ru_majflt


def rss_added(cold, library, document, checks):
    out = subprocess.run([cold, library, document, "--rss", str(checks)], capture_output=True, text=True, check=True)
    return float(out.stdout.split()[0])


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
    faults = {name: [] for name, _, _ in variants}
    order = list(variants)
    shuffle = random.Random(0)   # seeded: the same order every run of the benchmark
    for _ in range(runs):
        # A new order each round: no variant always follows the slow one
        # (libcurl preloaded) and inherits its cache misses.
        shuffle.shuffle(order)
        for name, command, extra in order:
            elapsed, count = run(command, dict(os.environ, **extra))
            times[name].append(elapsed)
            faults[name].append(count)
    base, base_faults = (statistics.median(d[variants[0][0]]) for d in (times, faults))
    print(f"cold process, median of {runs} runs")
    for name, _, _ in variants:
        m, f = statistics.median(times[name]), statistics.median(faults[name])
        print(f"  {name:38} {m:7.2f} ms  ({m / base:.2f}x the baseline)  {f:5.0f} page faults (+{f - base_faults:.0f})")
    figures = {}
    for name, path in [("", library)] + ([("other library: ", other)] if other else []):
        one, many = rss_added(cold, path, document, 1), rss_added(cold, path, document, RSS_CHECKS)
        print(f"  {name}RSS added to a C host: {one:.1f} MiB by dlopen + one check, {many:.1f} MiB after {RSS_CHECKS:,}")
        if not figures:
            figures = {"cold": statistics.median(times[variants[1][0]]) / base,
                       "faults_added": statistics.median(faults[variants[1][0]]) - base_faults,
                       "rss_mib": many}
    if os.environ.get("VG_BENCH_FIGURES"):
        with open(os.environ["VG_BENCH_FIGURES"], "a") as out:
            out.writelines(f"{key} {value:.2f}\n" if key != "faults_added" else f"{key} +{value:.0f}\n"
                           for key, value in figures.items())


main()
