#!/usr/bin/env python3
"""Times checks through the 7.68 stand-in (Tests/python/test_old_curl.py's
wrapper) and through the same wrapper passing the real libcurl through:

    python3 bench/old_curl_runs.py [COUNT]

For each: the median of COUNT loopback GETs (a fresh client each,
cache_ttl_s 0, so each is a 304 revalidation) and of 3 checks against a
server that never answers and a name server that never answers
(timeout_ms 1000). Run after scripts/build; prints one line per figure."""

import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "Tests" / "python"), str(REPO / "Tests" / "Server")]
import test_old_curl as t  # noqa: E402
from remote_helpers import Loopback, flat_doc  # noqa: E402


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    root = Path(tempfile.mkdtemp(prefix="vg-old-curl-bench-"))
    out = root / "lib"
    out.mkdir()
    cc = ["cc", "-O2", "-shared", "-fPIC"]
    subprocess.run(cc + ["-o", str(out / "libcurl.so.4"), str(t.HERE / "libcurl_wrapper.c"),
                         "-Wl,-soname,libcurl.so.4", "-ldl"], check=True)
    subprocess.run(cc + ["-o", str(out / "stalled_resolver.so"), str(t.HERE / "stalled_resolver.c"), "-ldl"],
                   check=True)
    built = {"wrapper_dir": out, "stall": out / "stalled_resolver.so"}
    server = Loopback()
    try:
        server.document("bench", flat_doc())
        for plays_old in (True, False):
            label = "7.68 stand-in" if plays_old else "libcurl 7.88 "
            run = root / ("run-%s" % plays_old)
            run.mkdir()
            gets = [{"url": server.url("bench"), "version": "1.0.38", "options": {"cache_ttl_s": "0"}}] * count
            results, _ = t.run_child(built, run, "openssl", gets, plays_old=plays_old)
            print("%s  loopback GET: median %.3f ms of %d" % (
                label, 1000 * statistics.median(r["_elapsed"] for r in results[1:]), count - 1))
            silent = []
            for i in range(3):
                server.document("silent-%s-%d" % (plays_old, i), flat_doc(), next=[{"delay_s": 3}])
                silent.append({"url": server.url("silent-%s-%d" % (plays_old, i)), "version": "1.0.38",
                               "options": {"timeout_ms": "1000"}})
            results, _ = t.run_child(built, run, "openssl", silent, plays_old=plays_old)
            print("%s  server never answers: %s s" % (label, " ".join("%.3f" % r["_elapsed"] for r in results)))
            stalled = [{"url": "https://stalled.invalid/gate-%d.json" % i, "version": "1.0.38",
                        "options": {"timeout_ms": "1000"}} for i in range(3)]
            results, _ = t.run_child(built, run, "openssl", stalled, plays_old=plays_old,
                                     stall={"host": "stalled.invalid", "seconds": 4})
            print("%s  name server never answers: %s s" % (label, " ".join("%.3f" % r["_elapsed"] for r in results)))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
