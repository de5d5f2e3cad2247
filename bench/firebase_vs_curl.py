#!/usr/bin/env python3
"""A loopback Firebase Remote Config fetch through libversiongate next to
curl sending the same request to the same server.

Ours: bench/firebase_fetch.c, a C host whose every check fetches (POST with
If-None-Match, answered NO_CHANGE, cache rewritten), timed in-process.
Curl: its own time_total for the same request (and its whole process).
Both are C programs started fresh per block, neither counts its start-up,
and blocks alternate so machine noise hits both alike. Medians of all.
Usage: firebase_vs_curl.py FETCH_PROGRAM BLOCKS PER_BLOCK
       (run from the repository root after scripts/build)"""
import os, statistics, subprocess, sys, tempfile, time

sys.path[:0] = ["python", "Tests/python"]
from remote_helpers import Loopback

PROJECT, API_KEY = "demo-proj", "test-api-key"
APP_ID = "1:123456789012:web:0a1b2c3d4e5f60718293a4"


def main():
    program, blocks, per_block = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    with tempfile.TemporaryDirectory() as home:
        os.environ.update(XDG_CACHE_HOME=home + "/cache", XDG_STATE_HOME=home + "/state", HOME=home)
        server = Loopback()
        base = "http://127.0.0.1:%d" % server.port

        def ours(n):
            out = subprocess.run([program, base, PROJECT, API_KEY, APP_ID, str(n)],
                                 capture_output=True, text=True, check=True).stdout
            return [float(line) for line in out.split()]

        ours(1)  # registers the installation and fills the cache
        fetch = [r for r in server.requests() if r["path"].split("?")[0].endswith(":fetch")][-1]
        headers = sum((["-H", "%s: %s" % (k, v)] for k, v in fetch["headers"].items()
                       if k in ("content-type", "if-none-match", "x-goog-firebase-installations-auth")), [])
        curl = ["curl", "-s", "-o", "/dev/null", "-w", "%{time_total}", "-X", "POST",
                "--data-binary", fetch["body"], *headers, base + fetch["path"]]
        mine, curl_transfer, curl_process = [], [], []
        for _ in range(blocks):
            mine += ours(per_block)
            for _ in range(per_block):
                start = time.perf_counter()
                out = subprocess.run(curl, capture_output=True, text=True, check=True).stdout
                curl_process.append((time.perf_counter() - start) * 1000)
                curl_transfer.append(float(out) * 1000)
        server.stop()
    m = statistics.median
    print(f"loopback Firebase fetch (NO_CHANGE), median of {len(mine)}")
    print(f"  vg_client_check from C, fetching every time  {m(mine):7.3f} ms")
    print(f"  curl, same request: time_total               {m(curl_transfer):7.3f} ms  "
          f"(ratio {m(mine) / m(curl_transfer):.2f})")
    print(f"  curl, same request: whole process            {m(curl_process):7.3f} ms")


main()
