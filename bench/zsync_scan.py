#!/usr/bin/env python3
"""The zsync seed scan (issue #42): ours (bench/ZsyncScanBench, release
build) against Debian's zsync 0.6.2 client on the same files, medians:
  - a SIZE MiB seed of random bytes and a target with 1 % of its 2048-byte
    blocks changed (one byte each, spread evenly), its .zsync by zsyncmake;
    then the worst case, a seed of other random bytes: no block in common,
    every offset rolled and looked up;
  - zsync: `zsync -i seed -o out URL.zsync` against a loopback HTTP server
    that answers Range requests (multipart for several ranges), timed to
    its "Read <seed>" line (start, control file, scan) and to its exit (plus
    the fetch, writing the file and its SHA-1 check); its scan alone is the
    first time less the same with an empty seed;
  - ours: ZsyncMatcher.plan over the seed in memory, and plan plus
    ZsyncAssembler into a discarding writer.
Usage: bench/zsync_scan.py [SIZE_MIB] [RUNS]"""
import http.server, os, random, shutil, statistics, subprocess, sys, tempfile, threading, time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BLOCK = 2048


class RangeHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with single and multiple byte ranges, as zsync asks."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = Path(self.translate_path(self.path))
        if not path.is_file():
            return self.send_error(404)
        data = path.read_bytes()
        header = self.headers.get("Range")
        if not header or not header.startswith("bytes="):
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            return self.wfile.write(data)
        ranges = []
        for part in header[6:].split(","):
            start, end = part.strip().split("-")
            ranges.append((int(start), min(int(end), len(data) - 1)))
        self.send_response(206)
        if len(ranges) == 1:
            start, end = ranges[0]
            self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
            self.send_header("Content-Length", str(end - start + 1))
            self.end_headers()
            return self.wfile.write(data[start:end + 1])
        # zsync 0.6.2 skips a line before each boundary: CRLF, then --SEP.
        parts = [(f"\r\n--SEP\r\nContent-Type: application/octet-stream\r\n"
                  f"Content-Range: bytes {start}-{end}/{len(data)}\r\n\r\n").encode() + data[start:end + 1]
                 for start, end in ranges]
        body = b"".join(parts) + b"\r\n--SEP--\r\n"
        self.send_header("Content-Type", "multipart/byteranges; boundary=SEP")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


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
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: RangeHandler(*a, directory=str(work)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        make_files(work, size)
        url = f"http://127.0.0.1:{server.server_address[1]}/target.bin.zsync"
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
        server.shutdown()
        shutil.rmtree(work, True)


main()
