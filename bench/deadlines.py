#!/usr/bin/env python3
"""Deadline figures (BENCHMARKS.md, issue #12): how far past its own
timeout_ms a check returns, in the three cases of Tests/python/test_deadlines.py
against a loopback server: six threads on a source that does not answer
(500 ms), a 100 ms check behind another client's 2 s fetch, and a document
taking 700 ms followed by a stuck App Store lookup (1000 ms). Each library
runs each case ROUNDS times in a child process, the libraries alternating;
prints the median and the maximum overshoot (return time minus deadline).
Usage: deadlines.py LIBRARY [LIBRARY...]"""
import json, os, statistics, subprocess, sys, tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "Tests" / "python"), str(ROOT / "python")]
import remote_helpers  # noqa: E402

ROUNDS = 5

CHILD = r"""
import json, sys, threading, time
import versiongate as vg
case, url, base = sys.argv[1:4]

def timed(client):
    start = time.monotonic()
    client.check("1.0.38").close()
    return time.monotonic() - start

def client(timeout_ms, **extra):
    return vg.Client(source=url, timeout_ms=str(timeout_ms), session_scope="process", **extra)

if case == "six":
    barrier, times = threading.Barrier(6), []
    def worker():
        with client(500) as c:
            barrier.wait(5)
            times.append(timed(c))
    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads: t.start()
    for t in threads: t.join()
    print(json.dumps({"deadline": 0.5, "elapsed": max(times)}))
elif case == "short":
    with client(3000) as patient, client(100) as hurried:
        fetching = threading.Thread(target=lambda: timed(patient))
        fetching.start()
        time.sleep(0.2)   # the long fetch is in flight
        print(json.dumps({"deadline": 0.1, "elapsed": timed(hurried)}))
        fetching.join()
else:
    with client(1000, store="appstore", app_id="com.example.slow", itunes_endpoint=base) as c:
        print(json.dumps({"deadline": 1.0, "elapsed": timed(c)}))
"""

CASES = {"six": [{"delay_s": 5}] * 6, "short": [{"delay_s": 2}], "lookup": [{"delay_s": 0.7}]}


def run(server, library, case, index):
    name = "%s-%d" % (case, index)
    server.document(name, remote_helpers.flat_doc(), next=CASES[case])
    root = Path(tempfile.mkdtemp())
    for d in ("cache", "state", "home"):
        (root / d).mkdir(mode=0o700)
    env = remote_helpers.child_env(root / "cache", root / "state", root / "home")
    env["VERSIONGATE_LIBRARY"] = library
    out = subprocess.run([sys.executable, "-c", CHILD, case, server.url(name), "http://127.0.0.1:%d" % server.port],
                         env=env, text=True, capture_output=True, timeout=60, check=True)
    figures = json.loads(out.stdout)
    return figures["elapsed"] - figures["deadline"]


def main(libraries):
    server = remote_helpers.Loopback()
    over = {(lib, case): [] for lib in libraries for case in CASES}
    try:
        for index in range(ROUNDS):
            for case in CASES:
                for n, lib in enumerate(libraries):
                    over[(lib, case)].append(run(server, lib, case, index * 10 + n))
    finally:
        server.stop()
    print("%-58s %-7s %14s %11s" % ("library", "case", "median over", "max over"))
    for (lib, case), values in over.items():
        print("%-58s %-7s %11.0f ms %8.0f ms" % (lib[-58:], case, statistics.median(values) * 1000, max(values) * 1000))


if __name__ == "__main__":
    main([os.path.abspath(p) for p in sys.argv[1:]] or [str(ROOT / "build" / "lib" / "libversiongate.so")])
