#!/usr/bin/env python3
"""What watching costs and how fast a publish reaches a running app
(docs/design.md, "Watching a source"), against the loopback server
(Tests/Server: Remote Config's fetch and realtime stream, gate documents).

  - publish to decision: N templates published to Firebase Remote Config
    while `versiongate watch` runs, each alternating the minimum, timed from
    the publish to the watch's new line (the SDKs' random 0-3 s wait included);
  - the host: this Python process's RSS and descriptors before and while a
    client watches a local document (the library's own, through ctypes);
  - the helper: its RSS while it holds the stream;
  - a document URL: requests per interval at watch_interval_s=5 over M
    seconds, scaled to the default 300 s.

    python3 bench/watch_latency.py [N [M]]     # defaults: 20 publishes, 60 s
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "Tests" / "python"))
os.environ.setdefault("VERSIONGATE_LIBRARY", str(REPO / "build" / "lib" / "libversiongate.so.1"))

from remote_helpers import Loopback  # noqa: E402
from test_watch import (APP_ID, Watching, firebase_control, gate, live_helpers, realtime, replace,  # noqa: E402
                        serve_template_42)  # noqa: E402

import versiongate as vg  # noqa: E402


def status_kb(pid: int | str, field: str = "VmRSS") -> int:
    for line in Path("/proc/%s/status" % pid).read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def env_for(root: Path) -> dict:
    for name in ("cache", "state", "run"):
        (root / name).mkdir(mode=0o700, exist_ok=True)
    return dict(PATH="/usr/bin:/bin", HOME=str(root), XDG_CACHE_HOME=str(root / "cache"),
                XDG_STATE_HOME=str(root / "state"), XDG_RUNTIME_DIR=str(root / "run"),
                LD_LIBRARY_PATH=str(REPO / "build" / "lib"))


def publishes(count: int) -> None:
    server = Loopback()
    with tempfile.TemporaryDirectory() as tmp:
        env = env_for(Path(tmp))
        base = "http://127.0.0.1:%d" % server.port
        serve_template_42(server)
        watching = Watching(env, "--source", "firebase://demo-proj?api_key=test-api-key&app_id=" + APP_ID,
                            "--version", "1.5", "--set", "firebase_endpoint=" + base,
                            "--set", "firebase_installations_endpoint=" + base, "--set", "firebase_realtime_endpoint=" + base)
        assert watching.line(15), "no first decision"
        while realtime(server)["open"] != 1:
            time.sleep(0.05)
        helpers = live_helpers(Path(tmp) / "cache")
        took = []
        for n in range(count):
            minimum = "3.0" if n % 2 == 0 else "1.0"
            start = time.monotonic()
            firebase_control(server, "/__realtime", publish=43 + n,
                             entries={"min_required_version_linux": minimum, "latest_version_linux": "3.0"})
            line = watching.line(10)
            took.append(time.monotonic() - start)
            assert line, "publish %d was not told" % n
        fetched = len([r for r in server.requests() if r["path"].split("?")[0].endswith(":fetch")])
        took.sort()
        print("publish to decision, %d publishes: median %.3f s, p95 %.3f s, min %.3f s, max %.3f s; %d fetches"
              % (count, statistics.median(took), took[int(0.95 * (count - 1))], took[0], took[-1], fetched))
        print("helper holding the stream: RSS %s kB" % ", ".join(str(status_kb(pid)) for pid in helpers))
        watching.end()
    server.stop()


def host_cost() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ.update({k: v for k, v in env_for(root).items() if k.startswith("XDG")})
        document = root / "gate.json"
        document.write_text(gate("1.0", "1.0"))
        with vg.Client(source=str(document), session_scope="process") as client:
            client.check("1.5")
            rss, fds = status_kb("self"), descriptors()
            threads = status_kb("self", "Threads")
            with client.watch("1.5") as watch:
                next(iter(watch))
                time.sleep(0.5)
                print("host while watching a local document: RSS %+d kB (%d kB before), descriptors %+d, threads %+d"
                      % (status_kb("self") - rss, rss, descriptors() - fds, status_kb("self", "Threads") - threads))
                helper = live_helpers(root / "cache")
                print("its helper: RSS %s kB" % ", ".join(str(status_kb(pid)) for pid in helper))
                replace(document, gate("2.0", "2.0"))


def document_requests(seconds: int) -> None:
    server = Loopback()
    with tempfile.TemporaryDirectory() as tmp:
        env = env_for(Path(tmp))
        server.document("gate", body=gate("1.0", "1.0"), etag='"v1"')
        watching = Watching(env, "--source", server.url("gate"), "--version", "1.5", "--set", "watch_interval_s=5")
        assert watching.line(10)
        first = len(server.requests("gate"))
        time.sleep(seconds)
        made = len(server.requests("gate")) - first
        watching.end()
        per_interval = made / (seconds / 5)
        print("document URL: %d requests in %d s at watch_interval_s=5 (%.2f per interval, all 304): "
              "%.1f an hour per watcher at the default 300 s" % (made, seconds, per_interval, per_interval * 3600 / 300))
    server.stop()


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    host_cost()
    publishes(count)
    document_requests(seconds)
