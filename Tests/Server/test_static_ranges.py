"""The static host's Range answers, checked first against Debian's own zsync
client (the AppImage update tests rely on them): zsync builds v2 from v1
through this server byte for byte, fetching only what changed; the same
with ?corrupt=1 fails its checksums. Then the single-range, multi-range,
unsatisfiable and malformed cases by hand. Loopback only, bounded."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from test_server_selftest import Loopback

BLOCK = 4096


@pytest.fixture(scope="module")
def files():
    """v1: 2 MiB of random bytes; v2: v1 with 8 blocks rewritten and its .zsync."""
    directory = Path(tempfile.mkdtemp(prefix="vg-ranges-"))
    rng = random.Random(42)
    v1 = bytearray(rng.randbytes(2 << 20))
    v2 = bytearray(v1)
    for block in rng.sample(range(len(v2) // BLOCK), 8):
        v2[block * BLOCK:(block + 1) * BLOCK] = rng.randbytes(BLOCK)
    (directory / "v1.bin").write_bytes(v1)
    (directory / "v2.bin").write_bytes(v2)
    yield directory, bytes(v1), bytes(v2)
    shutil.rmtree(directory)


def zsyncmake(directory: Path, url: str, name: str) -> Path:
    subprocess.run(["zsyncmake", "-b", str(BLOCK), "-u", url, "-o", str(directory / name), str(directory / "v2.bin")],
                   check=True, capture_output=True, timeout=60)
    return directory / name


def requested_bytes(server: Loopback) -> int:
    status, _, body = server.get("/__requests")
    assert status == 200
    total = 0
    for record in json.loads(body):
        for first, last in re.findall(r"(\d+)-(\d+)", (record.get("headers") or {}).get("range", "")):
            total += int(last) - int(first) + 1
    return total


def test_debians_zsync_builds_v2_through_the_server(files):
    directory, _, v2 = files
    server = Loopback("--static", str(directory))
    try:
        control = zsyncmake(directory, f"http://127.0.0.1:{server.port}/static/v2.bin", "v2.zsync")
        out = directory / "out.bin"
        run = subprocess.run(["zsync", "-q", "-i", str(directory / "v1.bin"), "-o", str(out), str(control)],
                             cwd=directory, capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        assert out.read_bytes() == v2
        fetched = requested_bytes(server)
        assert 0 < fetched <= 16 * BLOCK, fetched    # the 8 changed blocks, at most one neighbour each
    finally:
        server.stop()
        for leftover in directory.glob("out.bin*"):
            leftover.unlink()


def test_debians_zsync_refuses_corrupt_bytes(files):
    directory, _, _ = files
    server = Loopback("--static", str(directory))
    try:
        control = zsyncmake(directory, f"http://127.0.0.1:{server.port}/static/v2.bin?corrupt=1", "corrupt.zsync")
        out = directory / "out.bin"
        run = subprocess.run(["zsync", "-q", "-i", str(directory / "v1.bin"), "-o", str(out), str(control)],
                             cwd=directory, capture_output=True, text=True, timeout=60)
        assert run.returncode != 0
        assert not out.exists()
    finally:
        server.stop()
        for leftover in directory.glob("out.bin*"):
            leftover.unlink()


def test_range_answers(files):
    directory, _, v2 = files
    server = Loopback("--static", str(directory))
    try:
        status, headers, body = server.get("/static/v2.bin", headers={"Range": "bytes=10-19"})
        assert (status, headers["Content-Range"], body) == (206, f"bytes 10-19/{len(v2)}", v2[10:20])
        status, headers, body = server.get("/static/v2.bin", headers={"Range": "bytes=-5"})
        assert (status, body) == (206, v2[-5:])
        status, headers, body = server.get("/static/v2.bin", headers={"Range": "bytes=0-1,100-102"})
        assert status == 206
        boundary = headers["Content-Type"].split("boundary=")[1]
        assert body == (f"\r\n--{boundary}\r\nContent-Type: text/plain; charset=utf-8\r\n"
                        f"Content-Range: bytes 0-1/{len(v2)}\r\n\r\n").encode() + v2[0:2] \
            + (f"\r\n--{boundary}\r\nContent-Type: text/plain; charset=utf-8\r\n"
               f"Content-Range: bytes 100-102/{len(v2)}\r\n\r\n").encode() + v2[100:103] \
            + f"\r\n--{boundary}--\r\n".encode()
        status, headers, _ = server.get("/static/v2.bin", headers={"Range": f"bytes={len(v2)}-"})
        assert (status, headers["Content-Range"]) == (416, f"bytes */{len(v2)}")
        status, _, body = server.get("/static/v2.bin", headers={"Range": "bytes=x-1"})
        assert (status, body) == (200, v2)
        status, _, body = server.get("/static/v2.bin?corrupt=1", headers={"Range": "bytes=0-3"})
        assert (status, body) == (206, bytes([v2[0] ^ 0xFF]) + v2[1:4])
    finally:
        server.stop()
