#!/usr/bin/env python3
"""A loopback Firebase Remote Config fetch through libversiongate (a check
with cache_ttl_s=0, so every check fetches: POST with If-None-Match, answered
NO_CHANGE) next to curl sending the same request (curl's own time_total, and
its whole process). Medians of N, interleaved.
Usage: firebase_vs_curl.py N   (run from the repository root)"""
import json, os, statistics, subprocess, sys, tempfile, time

sys.path[:0] = ["examples/python", "Tests/python"]
import versiongate as vg
from remote_helpers import Loopback

APP_ID = "1:123456789012:web:0a1b2c3d4e5f60718293a4"


def main():
    runs = int(sys.argv[1])
    with tempfile.TemporaryDirectory() as home:
        os.environ.update(XDG_CACHE_HOME=home + "/cache", XDG_STATE_HOME=home + "/state", HOME=home)
        server = Loopback()
        base = "http://127.0.0.1:%d" % server.port
        client = vg.Client(source="firebase://demo-proj?api_key=test-api-key&app_id=" + APP_ID,
                           firebase_endpoint=base, firebase_installations_endpoint=base,
                           cache_ttl_s="0", session_scope="process")
        client.check("1.0.0").close()  # registers the installation, loads libcurl
        fetch = [r for r in server.requests() if r["path"].split("?")[0].endswith(":fetch")][-1]
        headers = sum((["-H", "%s: %s" % (k, v)] for k, v in fetch["headers"].items()
                       if k in ("content-type", "if-none-match", "x-goog-firebase-installations-auth")), [])
        curl = ["curl", "-s", "-o", "/dev/null", "-w", "%{time_total}", "-X", "POST",
                "--data-binary", fetch["body"], *headers, base + fetch["path"]]
        ours, curl_transfer, curl_process = [], [], []
        for _ in range(runs):
            start = time.perf_counter()
            with client.check("1.0.0") as r:
                assert r.json()["origin"] == "fresh_fetch", r.json()
            ours.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            out = subprocess.run(curl, capture_output=True, text=True, check=True).stdout
            curl_process.append((time.perf_counter() - start) * 1000)
            curl_transfer.append(float(out) * 1000)
        client.close()
        server.stop()
    m = statistics.median
    print(f"loopback Firebase fetch (NO_CHANGE), median of {runs}")
    print(f"  vg_client_check, fetching every time  {m(ours):7.3f} ms")
    print(f"  curl, same request: time_total        {m(curl_transfer):7.3f} ms  (ratio {m(ours) / m(curl_transfer):.2f})")
    print(f"  curl, same request: whole process     {m(curl_process):7.3f} ms")


main()
