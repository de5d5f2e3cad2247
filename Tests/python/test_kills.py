"""Launchers killed (SIGKILL) at random moments of a fetch and its cache
write: every file left in the cache reads back whole, temp-file debris does
not pile up, and the next check is right (docs/design.md, "The gate rule": nothing lost)."""

from __future__ import annotations

import json
import os
import random
import time

from remote_helpers import cache_file, flat_doc
from remote_helpers import server_fixture  # noqa: F401  (the server fixture)
from test_login_burst import dirs, release, results, spawn  # noqa: F401  (the dirs fixture)

KILLS = 30


def test_thirty_kills_mid_fetch_leave_whole_files_and_no_pile_of_debris(server, dirs):
    name = "kills"
    rng = random.Random(20261201)
    # Each answer comes after 0-30 ms, so a kill lands before, during or after it.
    server.document(name, flat_doc("1.0.39", "1.0.41"),
                    next=[{"delay_s": rng.uniform(0, 0.03)} for _ in range(KILLS)])
    url = server.url(name)
    for _ in range(KILLS):
        [child] = spawn(url, "1.0.38", {"cache_ttl_s": "0", "stale_while_revalidate_s": "0"}, dirs, 1)
        release([child])
        time.sleep(rng.uniform(0, 0.04))
        child.kill()
        child.communicate(timeout=10)
    assert len(server.requests(name)) >= KILLS // 3, "too few kills landed after the request"

    store = dirs["cache"] / "versiongate"
    for path in store.iterdir():
        if path.name.startswith("."):
            continue
        if path.name.startswith("config-"):
            entry = json.loads(path.read_bytes())          # whole: it parses
            assert entry["key"] == "document:" + url and entry["format"] == 1, entry
    debris = [p for p in store.iterdir() if p.name.startswith(".")]
    assert len(debris) <= KILLS, debris

    # Debris as old as a killed writer's from an hour ago: the next write clears it.
    target = cache_file(dirs["cache"], url)
    stale = store / (".%s.killed" % target.name)
    stale.write_bytes(b'{"format": 1, "key": "half')
    hour_ago = time.time() - 3600
    os.utime(stale, (hour_ago, hour_ago))

    [last] = spawn(url, "1.0.38", {"cache_ttl_s": "0", "stale_while_revalidate_s": "0"}, dirs, 1)
    release([last])
    [answer] = results([last])
    assert (answer["status"], answer["error"]) == ("MANDATORY", 0), answer
    assert answer["origin"] == "fresh_fetch", answer
    assert json.loads(target.read_bytes())["key"] == "document:" + url
    assert not stale.exists(), "old debris was not removed by the next write"
