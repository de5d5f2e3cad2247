"""docs/operators.md runs as written: its ```sh blocks, in order, in one
working directory, against a loopback static host (Tests/Server's --static)
with the real versiongate command, library and minisign. A ```text block
right after a ```sh block is that block's expected output (the host's URL
is written $SERVER there)."""

from __future__ import annotations

import os
import re
import subprocess

from conftest import LIB_PATH, REPO
from remote_helpers import Loopback

GUIDE = REPO / "docs" / "operators.md"
FENCE = re.compile(r"```(\w+)\n(.*?)```", re.S)


def blocks() -> list[tuple[str, str | None]]:
    """(shell, expected output or None) for every ```sh block."""
    text = GUIDE.read_text()
    found = [(m.group(1), m.group(2), m.start(), m.end()) for m in FENCE.finditer(text)]
    out = []
    for i, (kind, body, _, end) in enumerate(found):
        if kind != "sh":
            continue
        following = found[i + 1] if i + 1 < len(found) else None
        adjacent = following and following[0] == "text" and text[end:following[2]].strip() == ""
        out.append((body, following[1] if adjacent else None))
    return out


def test_the_guide_has_runnable_blocks():
    assert len(blocks()) >= 10
    assert sum(expected is not None for _, expected in blocks()) >= 8


def test_the_operators_guide_runs_as_written(tmp_path):
    work, www, home = tmp_path / "work", tmp_path / "www", tmp_path / "home"
    for d in (work, www, home):
        d.mkdir(mode=0o700)
    server = Loopback(static=www)
    try:
        url = "http://127.0.0.1:%d/static" % server.port
        env = {"PATH": "%s:/usr/bin:/bin" % (REPO / "build" / "bin"),
               "LD_LIBRARY_PATH": os.path.dirname(os.path.abspath(LIB_PATH)),
               "HOME": str(home), "XDG_CACHE_HOME": str(home / "cache"), "XDG_STATE_HOME": str(home / "state"),
               "XDG_RUNTIME_DIR": str(home), "SERVER": url, "PUBLISH_DIR": str(www)}
        for n, (shell, expected) in enumerate(blocks(), 1):
            proc = subprocess.run(["bash", "-euo", "pipefail", "-c", shell], cwd=work, env=env,
                                  capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
            assert proc.returncode == 0, "block %d failed:\n%s\n%s%s" % (n, shell, proc.stdout, proc.stderr)
            if expected is not None:
                assert proc.stdout.replace(url, "$SERVER") == expected, "block %d:\n%s" % (n, shell)
    finally:
        assert server.stop() == ""
