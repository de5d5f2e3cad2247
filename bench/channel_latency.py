#!/usr/bin/env python3
"""The cost of asking the user's channel before a hard block (docs/design.md,
"Asking the channel"), one sitting, through the real library (the Python
binding) against Flathub's API on a loopback server:

  checks (interleaved, medians of N each, one warm-up):
    - a MANDATORY check of a local document that asks nothing (no channel
      known: the baseline);
    - one whose channel answer is cached and fresh (cache_ttl_s 3600);
    - one whose answer is stale (cache_ttl_s 0): it decides at once and
      starts one background revalidation when none is under way;
    - one that asks first every time (cache_ttl_s 0, no stale window);
  launches (`versiongate check` processes, spawn to exit, medians of N):
    - asking nothing, and deciding from a cached answer;
    - a store slower than the deadline (2 s, timeout_ms 1000): the first
      launch with an empty cache, and the launch after its helper wrote the
      answer.

Prints tables; asserts nothing.

    python3 bench/channel_latency.py [N]
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("VERSIONGATE_LIBRARY", str(REPO / "build" / "lib" / "libversiongate.so.1"))
sys.path.insert(0, str(REPO / "python"))
import versiongate as vg  # noqa: E402

BODY = json.dumps({"id": "com.example.Launcher", "releases": [{"version": "1.0.25", "type": "stable"}]}).encode()


DELAY = {"seconds": 0.0}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        time.sleep(DELAY["seconds"])
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args):
        pass


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d" % server.server_address[1]
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = tmp + "/cache"
        os.environ["XDG_RUNTIME_DIR"] = tmp
        doc = Path(tmp) / "gate.json"
        doc.write_text('{"min_required_version_linux": "1.0.30", "latest_version_linux": "1.0.40"}')
        os.utime(doc, (1, 1))   # past the racily-clean window
        flathub = {"store": "flathub", "app_id": "com.example.Launcher", "flathub_endpoint": base}
        clients = {
            "MANDATORY, no channel to ask (baseline)": vg.Client(source=str(doc), session_scope="process"),
            "MANDATORY, the channel's answer cached and fresh":
                vg.Client(source=str(doc), session_scope="process", cache_ttl_s="3600", **flathub),
            "MANDATORY, the answer stale: decides, revalidates behind":
                vg.Client(source=str(doc), session_scope="process", cache_ttl_s="0", **flathub),
            "MANDATORY, asks first every time (no stale window)":
                vg.Client(source=str(doc), session_scope="process", cache_ttl_s="0", stale_while_revalidate_s="0",
                          **flathub),
        }
        times: dict[str, list[float]] = {name: [] for name in clients}
        rules: dict[str, str] = {}
        for name, client in clients.items():     # warm each once
            rules[name] = client.check("1.0.20").rule
        for _ in range(n):
            for name, client in clients.items():
                start = time.perf_counter()
                result = client.check("1.0.20")
                times[name].append((time.perf_counter() - start) * 1000)
                assert result.rule == rules[name]
        table("check (%d each, interleaved)" % n, times, rules)
        for client in clients.values():
            client.close()
        launches(Path(tmp), doc, flathub, n)
    server.shutdown()


def table(title: str, times: dict[str, list[float]], rules: dict[str, str]) -> None:
    baseline = statistics.median(next(iter(times.values())))
    print("| %s | rule | median | p10-p90 | vs baseline |" % title)
    print("|---|---|---|---|---|")
    for name, samples in times.items():
        q = statistics.quantiles(samples, n=10) if len(samples) > 1 else samples * 9
        print("| %s | %s | %.3f ms | %.3f-%.3f ms | %+.3f ms |" % (name, rules[name], statistics.median(samples),
                                                              q[0], q[-1], statistics.median(samples) - baseline))
    print()


def launches(tmp: Path, doc: Path, flathub: dict, n: int) -> None:
    """`versiongate check` processes, timed from spawn to exit."""
    cli = REPO / "build" / "bin" / "versiongate"
    env = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": str(REPO / "build" / "lib"), "HOME": str(tmp),
           "XDG_CACHE_HOME": str(tmp / "launch-cache"), "XDG_RUNTIME_DIR": str(tmp)}

    def launch(sets: dict) -> tuple[float, str]:
        args = [str(cli), "check", "--source", str(doc), "--version", "1.0.20", "--json"]
        for key, value in sets.items():
            args += ["--set", "%s=%s" % (key, value)]
        start = time.perf_counter()
        done = subprocess.run(args, env=env, capture_output=True, timeout=60)
        return (time.perf_counter() - start) * 1000, json.loads(done.stdout)["rule"]

    def wait_for_answer():
        end = time.monotonic() + 30
        while time.monotonic() < end:
            if any(b'"served"' in p.read_bytes() for p in (tmp / "launch-cache" / "versiongate").glob("channel-*.json")):
                return
            time.sleep(0.02)
        raise SystemExit("the helper wrote no answer")

    kinds = {"launch, no channel to ask (baseline)": {},
             "launch, the channel's answer cached": dict(flathub, timeout_ms=1000)}
    times: dict[str, list[float]] = {name: [] for name in kinds}
    rules: dict[str, str] = {}
    launch(kinds["launch, the channel's answer cached"])
    wait_for_answer()
    for _ in range(n):
        for name, sets in kinds.items():
            took, rules[name] = launch(sets)
            times[name].append(took)
    slow = {"launch, store 2 s > timeout_ms 1000, empty cache": [], "the next launch, after its helper wrote": []}
    rules.update(dict.fromkeys(slow, ""))
    DELAY["seconds"] = 2.0
    for _ in range(min(n, 5)):
        shutil.rmtree(tmp / "launch-cache", ignore_errors=True)
        first, rules["launch, store 2 s > timeout_ms 1000, empty cache"] = launch(kinds["launch, the channel's answer cached"])
        wait_for_answer()
        second, rules["the next launch, after its helper wrote"] = launch(kinds["launch, the channel's answer cached"])
        slow["launch, store 2 s > timeout_ms 1000, empty cache"].append(first)
        slow["the next launch, after its helper wrote"].append(second)
    DELAY["seconds"] = 0.0
    table("launch (%d each; the slow store %d each)" % (n, min(n, 5)), {**times, **slow}, rules)


if __name__ == "__main__":
    main()
