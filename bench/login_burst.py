#!/usr/bin/env python3
"""Login-burst figures (BENCHMARKS.md, local trust): for each library given,
how many requests 16 launchers starting at once with an empty cache make to
a loopback server that answers in 200 ms, and what a fetching check costs
(cache_ttl_s=0: every check fetches and revalidates; the lock is taken
without contention), median of blocks that alternate between the libraries.
Usage: login_burst.py LIBRARY [LIBRARY...]"""
import json, os, statistics, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "Tests" / "python"), str(ROOT / "python")]
import remote_helpers  # noqa: E402
from test_login_burst import CHILD  # noqa: E402

LOOP = r"""
import json, sys, time
import versiongate as vg
url, n = sys.argv[1], int(sys.argv[2])
with vg.Client(source=url, session_scope="process", cache_ttl_s="0") as c:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        with c.check("1.0.40") as r:
            assert r.json()["origin"] == "fresh_fetch", r.json()
        times.append(time.perf_counter() - start)
print(json.dumps(times))
"""


def env_for(library, root):
    for d in ("cache", "state", "home"):
        (root / d).mkdir(mode=0o700, exist_ok=True)
    env = remote_helpers.child_env(root / "cache", root / "state", root / "home")
    env["VERSIONGATE_LIBRARY"] = library
    return env


def burst(server, library, index):
    name = "burst-%d" % index
    server.document(name, remote_helpers.flat_doc(), next=[{"delay_s": 0.2}] * 16)
    root = Path(tempfile.mkdtemp())
    env = env_for(library, root)
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, server.url(name), "1.0.38", "{}"], env=env, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE) for _ in range(16)]
    for p in procs:
        assert p.stdout.readline().strip() == "ready"
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    for p in procs:
        p.communicate(timeout=30)
    return len(server.requests(name))


def fetching(server, library, index, n=200):
    name = "fetch-%d" % index
    server.document(name, remote_helpers.flat_doc())
    env = env_for(library, Path(tempfile.mkdtemp()))
    out = subprocess.run([sys.executable, "-c", LOOP, server.url(name), str(n)], env=env, text=True,
                         capture_output=True, timeout=120, check=True).stdout
    return json.loads(out)[20:]          # the first ones load libcurl


def main():
    libraries = sys.argv[1:]
    server = remote_helpers.Loopback()
    try:
        print("16 launchers at once, empty cache, server answers in 200 ms:")
        for i, lib in enumerate(libraries):
            print("  %-50s %2d requests" % (lib, burst(server, lib, i)))
        per = {lib: [] for lib in libraries}
        for block in range(5):
            for i, lib in enumerate(libraries):
                per[lib] += fetching(server, lib, block * len(libraries) + i)
        print("a fetching check (cache_ttl_s=0, conditional GET, lock uncontended), median of %d:"
              % len(per[libraries[0]]))
        for lib in libraries:
            print("  %-50s %7.1f µs" % (lib, statistics.median(per[lib]) * 1e6))
    finally:
        server.stop()


main()
