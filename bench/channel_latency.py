#!/usr/bin/env python3
"""The cost of asking the user's channel before a hard block (docs/design.md,
"Asking the channel"), one sitting: a MANDATORY check of a local document
that asks nothing (no channel known: the baseline), one that asks Flathub's
API on a loopback server through the helper every time (cache_ttl_s=0), and
one that finds the answer cached. Interleaved, through the real library
(the Python binding), medians of N each. Prints a table; asserts nothing.

    python3 bench/channel_latency.py [N]
"""

from __future__ import annotations

import http.server
import json
import os
import statistics
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


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
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
            "MANDATORY, asks Flathub (loopback, through the helper)":
                vg.Client(source=str(doc), session_scope="process", cache_ttl_s="0", **flathub),
            "MANDATORY, the channel's answer cached":
                vg.Client(source=str(doc), session_scope="process", cache_ttl_s="3600", **flathub),
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
        baseline = statistics.median(times[next(iter(clients))])
        print("| check (%d each, interleaved) | rule | median | p10-p90 | vs baseline |" % n)
        print("|---|---|---|---|---|")
        for name, samples in times.items():
            q = statistics.quantiles(samples, n=10)
            print("| %s | %s | %.3f ms | %.3f-%.3f ms | %+.3f ms |" % (name, rules[name], statistics.median(samples),
                                                                  q[0], q[-1], statistics.median(samples) - baseline))
        for client in clients.values():
            client.close()
    server.shutdown()


if __name__ == "__main__":
    main()
