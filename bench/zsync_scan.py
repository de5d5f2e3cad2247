#!/usr/bin/env python3
"""The zsync seed scan (issue #42): ours (bench/ZsyncScanBench, release
build) against Debian's zsync 0.6.2 client on the same files, medians:
  - a SIZE MiB seed of random bytes and a target with 1 % of its 2048-byte
    blocks changed (one byte each, spread evenly), its .zsync by zsyncmake;
    then the worst case, a seed of other random bytes: no block in common,
    every offset rolled and looked up;
  - zsync: `zsync -i seed -o out URL.zsync` against a loopback HTTP server
    (Tests/Server's static host: single and multipart ranges), timed to
    its "Read <seed>" line (start, control file, scan) and to its exit (plus
    the fetch, writing the file and its SHA-1 check); its scan alone is the
    first time less the same with an empty seed;
  - ours: ZsyncMatcher.plan over the seed in memory, and plan plus
    ZsyncAssembler into a discarding writer.
Usage: bench/zsync_scan.py [SIZE_MIB] [RUNS]"""
import os, random, shutil, statistics, subprocess, sys, tempfile, time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "python"))
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "Tests" / "Server"))
from remote_helpers import Loopback  # noqa: E402
BLOCK = 2048


def make_files(work, size):
    r = random.Random(42)
    seed = r.randbytes(size)
    target = bytearray(seed)
    blocks = size // BLOCK
    for k in range(blocks // 100):
        target[(k * 100 + 50) * BLOCK + r.randrange(BLOCK)] ^= 0xFF
    (work / "seed.bin").write_bytes(seed)
    (work / "other.bin").write_bytes(r.randbytes(size))
    (work / "empty.bin").write_bytes(b"")
    (work / "target.bin").write_bytes(target)
    subprocess.run(["zsyncmake", "-b", str(BLOCK), "-u", "target.bin", "-o", str(work / "target.bin.zsync"),
                    str(work / "target.bin")], check=True, stderr=subprocess.DEVNULL)


def zsync_once(work, url, seed):
    out = work / "out.bin"
    for leftover in (out, work / "out.bin.part", work / "out.bin.zs-old"):
        leftover.unlink(missing_ok=True)
    start = time.perf_counter()
    process = subprocess.Popen(["zsync", "-i", str(work / seed), "-o", str(out), url], cwd=work,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    scanned = None
    for line in process.stdout:
        if scanned is None and "Read " in line:
            scanned = time.perf_counter() - start
    process.wait()
    total = time.perf_counter() - start
    if process.returncode != 0 or out.read_bytes() != (work / "target.bin").read_bytes():
        sys.exit(f"zsync failed (exit {process.returncode})")
    return scanned, total


def main():
    size = (int(sys.argv[1]) if len(sys.argv) > 1 else 64) << 20
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    subprocess.run(["swift", "build", "-c", "release", "--product", "ZsyncScanBench", "--scratch-path", ".build/bench"],
                   cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    bench = REPO / ".build/bench/release/ZsyncScanBench"
    work = Path(tempfile.mkdtemp(prefix="vg-zsyncbench-"))
    server = Loopback(static=work)   # Tests/Server's static host, Range-capable
    try:
        make_files(work, size)
        url = f"http://127.0.0.1:{server.port}/static/target.bin.zsync"
        mb = size / 1e6
        fixed = statistics.median(zsync_once(work, url, "empty.bin")[0] for _ in range(runs))
        print(f"zsync 0.6.2 to 'Read' with an empty seed (start, control file, hash table): {fixed:.3f} s")
        for title, seed in [(f"target with {size // BLOCK // 100} of {size // BLOCK} blocks changed", "seed.bin"),
                            ("no block in common", "other.bin")]:
            print(f"seed {size >> 20} MiB, {title}, {runs} runs each")
            zsync = [zsync_once(work, url, seed) for _ in range(runs)]
            scan = statistics.median(s for s, _ in zsync if s is not None)
            total = statistics.median(t for _, t in zsync)
            print(f"  zsync 0.6.2: to 'Read seed' {mb / scan:.1f} MB/s ({scan:.3f} s), scan alone {mb / (scan - fixed):.1f} MB/s, "
                  f"whole run {mb / total:.1f} MB/s ({total:.3f} s)")
            subprocess.run([str(bench), str(work / "target.bin.zsync"), str(work / seed), str(work / "target.bin"), str(runs)],
                           check=True)
    finally:
        server.stop()
        shutil.rmtree(work, True)


main()
