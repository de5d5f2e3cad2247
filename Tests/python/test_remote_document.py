"""Remote gate documents through the real libversiongate.so (docs/design.md,
"The gate rule", "Sources and the cache", "Deadlines and limits").

A loopback server (Tests/Server/loopback_server.py with document_routes.py)
serves scripted documents over plain http on 127.0.0.1 (and https with the
make_certs CA for the Retry-After and TLS cases) and records every request.
Each test gets fresh XDG_CACHE_HOME / XDG_STATE_HOME / HOME directories, moves
time by freezing the process's wall clock with libfaketime (fake_clock.py)
instead of sleeping, and every check runs under a time bound. A "launcher
start" is a new client (nothing in memory), so the cache on disk is what
carries state between checks — as across restarts.

    python3 -m pytest -q Tests/python/test_remote_document.py
"""

from __future__ import annotations

import itertools
import json
import os
import re
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import fake_clock
import versiongate as vg
from remote_helpers import (CHILD_LOOP, DAY, HOUR, T0, Bounded, Loopback, backoff_file, cache_file,
                            check, child_env, flat_doc, read_backoff, template_doc, unused_port)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Server"))
from make_certs import make_certs  # noqa: E402

OK, ECONFIG, ENETWORK, ETIMEOUT, ETOOLARGE, ETLS, EHTTP, EBACKOFF = 0, -3, -6, -7, -8, -9, -12, -13


# --------------------------------------------------------------------------
# fixtures
# --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def server():
    s = Loopback()
    yield s
    assert s.stop() == "", "the loopback server wrote tracebacks"


@pytest.fixture(scope="session")
def certs(tmp_path_factory):
    return make_certs(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def tls_server(certs):
    s = Loopback(tls=(certs["server_pem"], certs["server_key"]))
    yield s
    assert s.stop() == "", "the loopback server wrote tracebacks"


class XDG:
    def __init__(self, root: Path):
        self.root = root
        root.mkdir(mode=0o700)
        self.cache = root / "cache"
        self.state = root / "state"
        self.home = root / "home"
        for d in (self.cache, self.state, self.home):
            d.mkdir(mode=0o700)


@pytest.fixture
def xdg(tmp_path, monkeypatch):
    """Fresh cache/state/home for this test, in this process's environment
    (the library reads it at every check)."""
    x = XDG(tmp_path / "xdg")
    monkeypatch.setenv("XDG_CACHE_HOME", str(x.cache))
    monkeypatch.setenv("XDG_STATE_HOME", str(x.state))
    monkeypatch.setenv("HOME", str(x.home))
    return x


_names = itertools.count()


@pytest.fixture
def name(request):
    """A document name of its own for each test (the server is shared)."""
    base = re.sub(r"[^A-Za-z0-9]+", "-", request.node.name)[:60]
    return "%s-%d" % (base, next(_names))


def cached_json(xdg: XDG, url: str) -> dict:
    return json.loads(cache_file(xdg.cache, url).read_bytes())


def assert_no_hidden_temp_files(directory: Path):
    leftovers = [p.name for p in directory.iterdir() if p.name.startswith(".")]
    assert leftovers == [], "temporary files left behind: %s" % leftovers


# --------------------------------------------------------------------------
# freshness, ETag / 304, Cache-Control
# --------------------------------------------------------------------------

def test_fetch_cache_hit_revalidate_and_change(server, xdg, name):
    url = server.url(name)
    server.document(name, flat_doc("1.0.39", "1.0.41"), etag='"v1"')

    # 1. cold cache: one GET, no If-None-Match; the answer is cached.
    r = check(url, "1.0.38", T0)
    assert (r["status"], r["origin"], r["error"], r["fetch_error"]) == ("MANDATORY", "fresh_fetch", OK, 0)
    assert (r["min_required"], r["latest"], r["config_age_s"]) == ("1.0.39", "1.0.41", 0)
    reqs = server.requests(name)
    assert len(reqs) == 1 and reqs[0]["method"] == "GET"
    assert "if-none-match" not in reqs[0]["headers"]
    entry = cached_json(xdg, url)
    assert entry["etag"] == '"v1"' and entry["fetched_at"] == str(T0)
    assert entry["values"]["min_required_version_linux"] == "1.0.39"
    assert stat.S_IMODE(cache_file(xdg.cache, url).stat().st_mode) & 0o077 == 0

    # 2. a restart within cache_ttl_s (3600): no request at all.
    r = check(url, "1.0.38", T0 + 1800)
    assert (r["status"], r["origin"], r["config_age_s"], r["error"]) == ("MANDATORY", "cache_hit", 1800, OK)
    assert len(server.requests(name)) == 1

    # 3. TTL over: If-None-Match; 304 keeps the thresholds, the age restarts.
    r = check(url, "1.0.38", T0 + 3600)
    reqs = server.requests(name)
    assert len(reqs) == 2
    assert reqs[1]["headers"].get("if-none-match") == '"v1"'
    assert (r["status"], r["min_required"], r["latest"], r["error"]) == ("MANDATORY", "1.0.39", "1.0.41", OK)
    assert r["origin"] == "fresh_fetch" and r["config_age_s"] == 0
    assert cached_json(xdg, url)["fetched_at"] == str(T0 + 3600)
    r = check(url, "1.0.38", T0 + 3600 + 1800)
    assert (r["origin"], r["config_age_s"]) == ("cache_hit", 1800)
    assert len(server.requests(name)) == 2

    # 4. the operator raises the minimum: not seen while fresh, seen after.
    server.document(name, flat_doc("1.0.40", "1.0.41"), etag='"v2"')
    r = check(url, "1.0.39", T0 + 3600 + 3599)
    assert (r["status"], r["origin"]) == ("OPTIONAL", "cache_hit")
    r = check(url, "1.0.39", T0 + 2 * 3600)
    assert (r["status"], r["origin"], r["min_required"]) == ("MANDATORY", "fresh_fetch", "1.0.40")
    reqs = server.requests(name)
    assert len(reqs) == 3 and reqs[2]["headers"].get("if-none-match") == '"v1"'
    assert cached_json(xdg, url)["etag"] == '"v2"'


@pytest.mark.parametrize("max_age, fresh_until", [
    (60, 60),                 # shorter than cache_ttl_s: honoured
    (7200, 7200),             # longer than cache_ttl_s: honoured
    (10 ** 9, DAY),           # absurd: capped at 24 h
    (0, 0),                   # max-age=0: revalidate every time
])
def test_cache_control_max_age(server, xdg, name, max_age, fresh_until):
    url = server.url(name)
    server.document(name, flat_doc(), etag='"m"', max_age=max_age)
    assert check(url, "1.0.40", T0)["origin"] == "fresh_fetch"
    if fresh_until > 0:
        r = check(url, "1.0.40", T0 + fresh_until - 1)
        assert r["origin"] == "cache_hit", r
        assert len(server.requests(name)) == 1
    r = check(url, "1.0.40", T0 + fresh_until)
    assert r["origin"] == "fresh_fetch", r
    reqs = server.requests(name)
    assert len(reqs) == 2 and reqs[1]["headers"].get("if-none-match") == '"m"'
    if max_age <= DAY:
        assert cached_json(xdg, url).get("max_age_s") == str(max_age)
    else:
        assert cached_json(xdg, url).get("max_age_s") == str(DAY)


def test_cache_control_no_cache(server, xdg, name):
    url = server.url(name)
    server.document(name, flat_doc(), etag='"nc"', cache_control="no-cache")
    for i in range(3):
        r = check(url, "1.0.40", T0 + i)
        assert (r["origin"], r["status"]) == ("fresh_fetch", "OPTIONAL")
    assert len(server.requests(name)) == 3


# --------------------------------------------------------------------------
# server down: cache while not too stale, else UP_TO_DATE; defaults
# --------------------------------------------------------------------------

def _cache_then_stop(xdg, min_required="1.0.39"):
    """Fetch from a server of its own, then stop it (connection refused)."""
    s = Loopback()
    try:
        s.document("gate", flat_doc(min_required, "1.0.41"))
        url = s.url("gate")
        r = check(url, "1.0.0", T0)
        assert (r["origin"], r["status"], r["min_required"]) == ("fresh_fetch", "MANDATORY", min_required)
    finally:
        assert s.stop() == ""
    return url


def test_server_down_two_hour_old_cache_keeps_mandatory(xdg):
    url = _cache_then_stop(xdg)
    r = check(url, "1.0.38", T0 + 2 * HOUR)
    assert (r["status"], r["origin"], r["error"]) == ("MANDATORY", "cache_after_error", OK)
    assert r["fetch_error"] == ENETWORK and r["fetch_error_message"]
    assert r["config_age_s"] == 2 * HOUR and r["min_required"] == "1.0.39"
    # the cache is kept, not replaced, by a failed fetch
    assert cached_json(xdg, url)["fetched_at"] == str(T0)


def test_server_down_two_day_old_cache_fails_open(xdg):
    url = _cache_then_stop(xdg)
    r = check(url, "1.0.38", T0 + 2 * DAY)
    assert (r["status"], r["error"], r["origin"]) == ("UP_TO_DATE", ENETWORK, "none")
    assert r["_code"] == ENETWORK and r["error_message"]
    # exactly max_stale_s old is still usable, one second more is not
    assert check(url, "1.0.38", T0 + DAY)["origin"] == "cache_after_error"
    assert check(url, "1.0.38", T0 + DAY + 1)["status"] == "UP_TO_DATE"


def test_server_down_max_stale_zero_never_uses_cache(xdg):
    url = _cache_then_stop(xdg)
    r = check(url, "1.0.38", T0 + 2 * HOUR, max_stale_s=0)
    assert (r["status"], r["error"], r["origin"]) == ("UP_TO_DATE", ENETWORK, "none")
    # ...but a fresh cache is still a cache hit (max_stale only governs failures)
    r = check(url, "1.0.38", T0 + 60, max_stale_s=0)
    assert (r["status"], r["origin"]) == ("MANDATORY", "cache_hit")


def test_defaults_used_when_nothing_else(xdg, tmp_path):
    defaults = tmp_path / "defaults.json"
    defaults.write_text(flat_doc("1.0.10", "1.0.50"))
    url = "http://127.0.0.1:%d/doc/gate" % unused_port()
    r = check(url, "1.0.20", T0, defaults=str(defaults))
    assert (r["status"], r["origin"], r["fetch_error"]) == ("OPTIONAL", "embedded_default", ENETWORK)
    assert (r["min_required"], r["latest"]) == ("1.0.10", "1.0.50")
    # a too-old cache gives way to the defaults too
    url2 = _cache_then_stop(xdg, min_required="1.0.30")
    r = check(url2, "1.0.20", T0 + 2 * DAY, defaults=str(defaults))
    assert (r["status"], r["origin"], r["fetch_error"]) == ("OPTIONAL", "embedded_default", ENETWORK)
    # while a usable cache wins over the defaults
    r = check(url2, "1.0.20", T0 + 2 * HOUR, defaults=str(defaults))
    assert (r["status"], r["origin"]) == ("MANDATORY", "cache_after_error")
    # defaults that are themselves broken: UP_TO_DATE with VG_ECONFIG naming
    # the defaults file, and the fetch error in the same message
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    r = check(url, "1.0.1", T0, defaults=str(broken))
    assert (r["status"], r["origin"], r["error"]) == ("UP_TO_DATE", "none", ECONFIG)
    assert str(broken) in r["error_message"] and "cannot connect" in r["error_message"], r


def test_http_404_with_cache(server, xdg, name):
    """A document that disappears is an error, not 'no thresholds'."""
    url = server.url(name)
    server.document(name, flat_doc())
    assert check(url, "1.0.38", T0)["origin"] == "fresh_fetch"
    server.document(name, delete=True)
    r = check(url, "1.0.38", T0 + 2 * HOUR)
    assert (r["status"], r["origin"], r["fetch_error"]) == ("MANDATORY", "cache_after_error", EHTTP)
    assert "404" in r["fetch_error_message"]


@pytest.mark.parametrize("answer, code", [
    ({"status": 200, "body": "garbage"}, ECONFIG),
    ({"status": 200, "body": "[]"}, ECONFIG),
    ({"status": 200, "body": ""}, ECONFIG),
    ({"status": 200, "body": '{"min_required_version_linux": "1.0.39"' + " " * (2 << 20) + "}"}, ETOOLARGE),
    ({"reset": True}, ENETWORK),
])
def test_bad_answers_keep_the_cache(server, xdg, name, answer, code):
    """A broken 200 (or a reset) is a failed fetch: without a cache it fails
    open; with one, the cache answers and is not overwritten; no backoff."""
    url = server.url(name)
    server.document(name, flat_doc(), etag='"ok"', next=[answer])
    r = check(url, "1.0.38", T0)
    assert (r["status"], r["error"], r["origin"]) == ("UP_TO_DATE", code, "none")
    assert not cache_file(xdg.cache, url).exists()
    assert read_backoff(xdg.state, url) is None
    assert check(url, "1.0.38", T0 + 1)["origin"] == "fresh_fetch"       # no backoff
    before = cache_file(xdg.cache, url).read_bytes()
    server.document(name, next=[answer])
    r = check(url, "1.0.38", T0 + 2 * HOUR)
    assert (r["status"], r["origin"], r["error"], r["fetch_error"]) == \
        ("MANDATORY", "cache_after_error", OK, code)
    assert cache_file(xdg.cache, url).read_bytes() == before
    assert len(server.requests(name)) == 3


def test_obs_text_etag_is_not_sent_back(server, xdg, name):
    """RFC 9110 §8.8.3: an entity-tag may hold obs-text (bytes 0x80-0xFF).
    The library keeps only printable-ASCII ETags (what it could send back
    unchanged), so such a server gets a plain GET again, never a mangled
    If-None-Match, and the decision is still right."""
    url = server.url(name)
    server.document(name, flat_doc(), etag='"v\u00e9"')      # bytes 22 76 E9 22 on the wire
    assert check(url, "1.0.38", T0)["origin"] == "fresh_fetch"
    check(url, "1.0.38", T0 + 2 * HOUR)
    reqs = server.requests(name)
    assert len(reqs) == 2
    assert "if-none-match" not in reqs[1]["headers"], reqs[1]["headers"]
    assert check(url, "1.0.38", T0 + 4 * HOUR)["status"] == "MANDATORY"


# --------------------------------------------------------------------------
# backoff
# --------------------------------------------------------------------------

def test_429_backs_off_and_persists(server, xdg, name):
    url = server.url(name)
    server.document(name, flat_doc(), next=[{"status": 429, "body": "slow down"}])

    r = check(url, "1.0.38", T0)
    assert (r["status"], r["error"], r["origin"]) == ("UP_TO_DATE", EHTTP, "none")
    assert "429" in r["error_message"]
    assert len(server.requests(name)) == 1
    b = read_backoff(xdg.state, url)
    assert b is not None and b["failures"] == 1
    assert 60 <= b["until"] - T0 <= 180, b            # 2 min ±50 %

    # immediate recheck (a new client, i.e. a restart): no request
    for dt in (0, 1, 59):
        r = check(url, "1.0.38", T0 + dt)
        assert (r["status"], r["error"]) == ("UP_TO_DATE", EBACKOFF), r
    assert len(server.requests(name)) == 1

    # the same from another process (the backoff is on disk, not in memory);
    # the child shares this process's fake clock
    env = child_env(xdg.cache, xdg.state, xdg.home)
    with fake_clock.clock().frozen_at(T0 + 1):
        proc = subprocess.run(
            [sys.executable, "-c", CHILD_LOOP, url, "1.0.38", "1", json.dumps({})],
            env=env, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert [e["error"] for e in summary["errors"]] == [EBACKOFF]
    assert len(server.requests(name)) == 1

    # after the backoff (+5 h is past any jitter): a request, success, backoff gone
    r = check(url, "1.0.38", T0 + 5 * HOUR)
    assert (r["status"], r["origin"], r["error"]) == ("MANDATORY", "fresh_fetch", OK)
    assert len(server.requests(name)) == 2
    assert read_backoff(xdg.state, url) is None


def test_backoff_doubles_on_consecutive_failures(server, xdg, name):
    url = server.url(name)
    server.document(name, flat_doc(), next=[{"status": 503}, {"status": 503}, {"status": 503}])
    now = T0
    for failures, base in ((1, 120), (2, 240), (3, 480)):
        r = check(url, "1.0.38", now)
        assert r["error"] == EHTTP, r
        b = read_backoff(xdg.state, url)
        assert b["failures"] == failures
        assert base // 2 <= b["until"] - now <= base + base // 2, (failures, b["until"] - now)
        now = b["until"]           # exactly when it ends: a request is due again
    assert len(server.requests(name)) == 3


def test_backoff_with_cache_serves_cache(server, xdg, name):
    url = server.url(name)
    server.document(name, flat_doc())
    assert check(url, "1.0.38", T0)["origin"] == "fresh_fetch"
    server.document(name, next=[{"status": 429}])
    r = check(url, "1.0.38", T0 + HOUR)
    assert (r["status"], r["origin"], r["error"], r["fetch_error"]) == \
        ("MANDATORY", "cache_after_error", OK, EHTTP)
    r = check(url, "1.0.38", T0 + HOUR + 1)
    assert (r["status"], r["origin"], r["error"], r["fetch_error"]) == \
        ("MANDATORY", "cache_after_error", OK, EBACKOFF)
    assert len(server.requests(name)) == 2
    # backing off with a too-old cache: UP_TO_DATE with VG_EBACKOFF
    backoff_file(xdg.state, url).write_text(json.dumps({"until": str(T0 + 3 * DAY), "failures": "1"}))
    r = check(url, "1.0.38", T0 + 2 * DAY)
    assert (r["status"], r["error"], r["origin"]) == ("UP_TO_DATE", EBACKOFF, "none")
    assert len(server.requests(name)) == 2


def test_retry_after_ignored_over_plain_http(server, xdg, name):
    url = server.url(name)
    server.document(name, flat_doc(), next=[{"status": 429, "headers": {"Retry-After": "99999999"}}])
    assert check(url, "1.0.38", T0)["error"] == EHTTP
    b = read_backoff(xdg.state, url)
    assert 60 <= b["until"] - T0 <= 180, b
    assert check(url, "1.0.38", T0 + 59)["error"] == EBACKOFF
    assert len(server.requests(name)) == 1
    r = check(url, "1.0.38", T0 + 181)
    assert (r["origin"], r["status"]) == ("fresh_fetch", "MANDATORY")
    assert len(server.requests(name)) == 2


def test_retry_after_over_https_capped_at_24h(tls_server, certs, xdg, name):
    url = tls_server.url(name)
    ca = str(certs["ca_pem"])
    tls_server.document(name, flat_doc(), next=[{"status": 429, "headers": {"Retry-After": "99999999"}}])
    r = check(url, "1.0.38", T0, tls_ca_file=ca)
    assert (r["status"], r["error"]) == ("UP_TO_DATE", EHTTP)
    b = read_backoff(xdg.state, url)
    assert b["until"] - T0 == DAY, b
    r = check(url, "1.0.38", T0 + 23 * HOUR, tls_ca_file=ca)
    assert r["error"] == EBACKOFF
    assert len(tls_server.requests(name)) == 1
    r = check(url, "1.0.38", T0 + 25 * HOUR, tls_ca_file=ca)
    assert (r["status"], r["origin"], r["error"]) == ("MANDATORY", "fresh_fetch", OK)
    assert len(tls_server.requests(name)) == 2


def test_retry_after_over_https_small_value_honoured(tls_server, certs, xdg, name):
    """A Retry-After longer than the jittered backoff wins (here 2 h)."""
    url = tls_server.url(name)
    ca = str(certs["ca_pem"])
    tls_server.document(name, flat_doc(), next=[{"status": 503, "headers": {"Retry-After": "7200"}}])
    assert check(url, "1.0.38", T0, tls_ca_file=ca)["error"] == EHTTP
    assert read_backoff(xdg.state, url)["until"] - T0 == 7200
    assert check(url, "1.0.38", T0 + 7199, tls_ca_file=ca)["error"] == EBACKOFF
    assert check(url, "1.0.38", T0 + 7200, tls_ca_file=ca)["origin"] == "fresh_fetch"


def test_https_document_and_untrusted_server(tls_server, certs, xdg, name, monkeypatch):
    url = tls_server.url(name)
    tls_server.document(name, flat_doc())
    r = check(url, "1.0.40", T0, tls_ca_file=str(certs["ca_pem"]))
    assert (r["status"], r["origin"]) == ("OPTIONAL", "fresh_fetch")
    # without the test CA the certificate is not trusted: fail open, no cache use
    # (another client's dirs so nothing is cached)
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg.root / "other-cache"))
    r = check(url, "1.0.38", T0)
    assert (r["status"], r["error"]) == ("UP_TO_DATE", ETLS)


@pytest.mark.parametrize("status, backs_off", [
    (500, True), (503, True), (504, True), (429, True),
    (404, False), (403, False), (400, False), (502, False),
])
def test_which_statuses_back_off(server, xdg, name, status, backs_off):
    url = server.url(name)
    server.document(name, flat_doc(), next=[{"status": status}])
    r = check(url, "1.0.38", T0)
    assert (r["status"], r["error"]) == ("UP_TO_DATE", EHTTP)
    assert str(status) in r["error_message"]
    r = check(url, "1.0.38", T0 + 1)
    if backs_off:
        assert r["error"] == EBACKOFF
        assert len(server.requests(name)) == 1
        assert read_backoff(xdg.state, url) is not None
    else:
        assert (r["status"], r["origin"], r["error"]) == ("MANDATORY", "fresh_fetch", OK)
        assert len(server.requests(name)) == 2
        assert read_backoff(xdg.state, url) is None


# --------------------------------------------------------------------------
# rollback
# --------------------------------------------------------------------------

def test_rollback_to_lower_template_version_rejected(server, xdg, name):
    url = server.url(name)
    server.document(name, template_doc("42", "1.0.39", "1.0.41"), etag='"t42"')
    r = check(url, "1.0.40", T0)
    assert (r["status"], r["template_version"], r["origin"]) == ("OPTIONAL", 42, "fresh_fetch")

    # version 41 (stricter) appears: rejected, the decision stays from 42
    server.document(name, template_doc("41", "1.0.50", "1.0.60"), etag='"t41"')
    r = check(url, "1.0.40", T0 + HOUR)
    assert len(server.requests(name)) == 2
    assert r["status"] == "OPTIONAL" and r["template_version"] == 42
    assert (r["min_required"], r["latest"]) == ("1.0.39", "1.0.41")
    assert r["error"] == OK and r["fetch_error"] != 0
    msg = r["fetch_error_message"] or ""
    assert "41" in msg and "42" in msg and re.search(r"older|rollback|reject", msg), msg
    entry = cached_json(xdg, url)
    assert entry["template_version"] == "42" and entry["etag"] == '"t42"'

    # a newer one is accepted
    server.document(name, template_doc("43", "1.0.41", "1.0.41"), etag='"t43"')
    r = check(url, "1.0.40", T0 + 2 * HOUR)
    assert (r["status"], r["template_version"], r["origin"]) == ("MANDATORY", 43, "fresh_fetch")


# --------------------------------------------------------------------------
# hostile cache files
# --------------------------------------------------------------------------

def _valid_entry(url, fetched_at, min_required="9.9.9", latest="9.9.9", key=None, **extra):
    entry = {"format": 1, "key": key or ("document:" + url), "fetched_at": str(fetched_at),
             "empty": False, "etag": '"planted"', "non_string_keys": [],
             "values": {"min_required_version_linux": min_required, "latest_version_linux": latest}}
    entry.update(extra)
    return json.dumps(entry).encode()


def _plant(kind: str, path: Path, url: str):
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "random_bytes":
        path.write_bytes(os.urandom(8192))
    elif kind == "json_array":
        path.write_bytes(b"[1, 2, 3]")
    elif kind == "truncated":
        path.write_bytes(_valid_entry(url, T0)[:-10])
    elif kind == "other_key":
        path.write_bytes(_valid_entry(url, T0, key="document:https://elsewhere.example/gate.json"))
    elif kind == "from_the_future":
        path.write_bytes(_valid_entry(url, T0 + 10 * DAY))
    elif kind == "max_age_over_cap":
        path.write_bytes(_valid_entry(url, T0, max_age_s="999999"))
    elif kind == "number_value":
        path.write_bytes(_valid_entry(url, T0).replace(b'"9.9.9"', b"9.9", 1))
    elif kind == "sparse_2gb":
        with open(path, "wb") as f:
            f.truncate(2 << 30)
    elif kind == "fifo":
        os.mkfifo(path, 0o600)
    elif kind == "symlink_dev_zero":
        os.symlink("/dev/zero", path)
    elif kind == "symlink_dangling":
        os.symlink(str(path.parent / "nowhere"), path)
    elif kind == "mode_000_garbage":
        path.write_bytes(b"\x00garbage")
        os.chmod(path, 0)
    else:
        raise AssertionError(kind)


BAD_CACHE_KINDS = ["empty", "random_bytes", "json_array", "truncated", "other_key", "from_the_future",
                   "max_age_over_cap", "number_value", "sparse_2gb", "fifo", "symlink_dev_zero",
                   "symlink_dangling", "mode_000_garbage"]


@pytest.mark.parametrize("kind", BAD_CACHE_KINDS)
def test_bad_cache_file_ignored_and_replaced(server, xdg, name, kind):
    """Each planted file would say MANDATORY (9.9.9) if trusted; it must be
    ignored: a fetch is made, the server's thresholds decide, and the file
    is replaced by a good entry. Each check is bounded (FIFO, /dev/zero and
    the 2 GB file must not block or be read)."""
    url = server.url(name)
    server.document(name, flat_doc("1.0.39", "1.0.41"), etag='"good"')
    path = cache_file(xdg.cache, url)
    _plant(kind, path, url)

    r = check(url, "1.0.40", T0, bound=5.0)
    assert (r["status"], r["origin"], r["error"]) == ("OPTIONAL", "fresh_fetch", OK), r
    assert r["_elapsed"] < 2.0
    reqs = server.requests(name)
    assert len(reqs) == 1
    if kind != "from_the_future":
        # (an entry of ours from the future - the clock went back - is merely
        # not fresh: revalidating it with its ETag is fine, HTTP semantics)
        assert "if-none-match" not in reqs[0]["headers"], "an ETag from the bad file was used"

    # replaced: a regular file (not the symlink / FIFO) holding a good entry
    st = os.lstat(path)
    assert stat.S_ISREG(st.st_mode), "cache path is still %o" % st.st_mode
    assert st.st_size < 4096
    entry = json.loads(path.read_bytes())
    assert entry["key"] == "document:" + url and entry["etag"] == '"good"'
    assert stat.S_IMODE(st.st_mode) == 0o600
    assert_no_hidden_temp_files(path.parent)
    assert os.path.exists("/dev/zero") and stat.S_ISCHR(os.stat("/dev/zero").st_mode)

    # and the good entry is now used (a restart within the TTL: no request)
    r = check(url, "1.0.40", T0 + 10)
    assert (r["status"], r["origin"]) == ("OPTIONAL", "cache_hit")
    assert len(server.requests(name)) == 1


def test_cache_file_mode_000_valid_entry(server, xdg, name):
    """A valid, fresh entry with mode 000. A normal user cannot read it: the
    library fetches and replaces it. Root (as these tests usually run)
    bypasses mode bits, so the file IS readable and, being a well-formed
    fresh entry for this very key, is used as a cache hit. Both are safe:
    the file is the library's own format written by the same user; no
    crash, no hang, the decision comes from one of the two good configs."""
    url = server.url(name)
    server.document(name, flat_doc("1.0.39", "1.0.41"), etag='"good"')
    path = cache_file(xdg.cache, url)
    path.parent.mkdir(mode=0o700, parents=True)
    path.write_bytes(_valid_entry(url, T0 - 10, min_required="1.0.39", latest="1.0.50"))
    os.chmod(path, 0)
    r = check(url, "1.0.40", T0)
    assert r["_elapsed"] < 2.0 and r["error"] == OK
    if os.geteuid() == 0:
        assert (r["origin"], r["status"], r["latest"]) == ("cache_hit", "OPTIONAL", "1.0.50")
        assert server.requests(name) == []
    else:
        assert (r["origin"], r["status"]) == ("fresh_fetch", "OPTIONAL")
        assert len(server.requests(name)) == 1
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_cache_path_is_a_directory(server, xdg, name):
    """The cache file's name is taken by a directory: never cached, still works."""
    url = server.url(name)
    server.document(name, flat_doc())
    path = cache_file(xdg.cache, url)
    path.mkdir(parents=True)
    for i in range(2):
        r = check(url, "1.0.40", T0 + i)
        assert (r["status"], r["origin"], r["error"]) == ("OPTIONAL", "fresh_fetch", OK)
    assert len(server.requests(name)) == 2
    assert path.is_dir()
    assert_no_hidden_temp_files(path.parent)


def test_corrupt_backoff_file_ignored(server, xdg, name):
    url = server.url(name)
    server.document(name, flat_doc())
    for content in (b"", os.urandom(100), b'{"until": "99999999999", "failures": "1"}',
                    b'{"until": 5, "failures": 1}'):
        p = backoff_file(xdg.state, url)
        p.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        p.write_bytes(content)
        if cache_file(xdg.cache, url).exists():
            cache_file(xdg.cache, url).unlink()
        r = check(url, "1.0.40", T0)
        # a far-future "until" (beyond the 24 h cap) is not trusted either
        assert (r["origin"], r["error"]) == ("fresh_fetch", OK), (content, r)


# --------------------------------------------------------------------------
# XDG directories
# --------------------------------------------------------------------------

def test_relative_xdg_dirs_ignored(server, xdg, name, tmp_path, monkeypatch):
    url = server.url(name)
    server.document(name, flat_doc())
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    monkeypatch.setenv("XDG_STATE_HOME", "relative/state")
    assert check(url, "1.0.40", T0)["origin"] == "fresh_fetch"
    assert cache_file(xdg.home / ".cache", url).is_file()
    assert not (cwd / "relative").exists()
    assert check(url, "1.0.40", T0 + 60)["origin"] == "cache_hit"
    # state falls back to $HOME/.local/state as well
    server.document(name, next=[{"status": 429}])
    assert check(url, "1.0.40", T0 + 2 * HOUR)["fetch_error"] == EHTTP
    assert backoff_file(xdg.home / ".local" / "state", url).is_file()
    assert not (cwd / "relative").exists()


@pytest.mark.parametrize("layout", ["file_paths", "read_only_dirs", "nothing_set", "relative_home"])
def test_no_writable_cache_dir_still_works(server, xdg, name, tmp_path, monkeypatch, layout):
    """No cache or state can be written: every check fetches, none crashes.
    (read_only_dirs: root bypasses mode bits, so there the cache may well be
    written; the test then only asserts that checks work.)"""
    url = server.url(name)
    server.document(name, flat_doc(), etag='"x"')
    if layout == "file_paths":
        f = tmp_path / "a-file"
        f.write_text("not a directory")
        for var in ("XDG_CACHE_HOME", "XDG_STATE_HOME", "HOME"):
            monkeypatch.setenv(var, str(f))
    elif layout == "read_only_dirs":
        ro = tmp_path / "ro"
        ro.mkdir()
        os.chmod(ro, 0o500)
        for var in ("XDG_CACHE_HOME", "XDG_STATE_HOME", "HOME"):
            monkeypatch.setenv(var, str(ro))
    elif layout == "nothing_set":
        for var in ("XDG_CACHE_HOME", "XDG_STATE_HOME", "HOME"):
            monkeypatch.delenv(var, raising=False)
    else:
        monkeypatch.chdir(tmp_path)
        for var in ("XDG_CACHE_HOME", "XDG_STATE_HOME", "HOME"):
            monkeypatch.setenv(var, "relative")
    try:
        origins = []
        for i in range(3):
            r = check(url, "1.0.40", T0 + i)
            assert (r["status"], r["error"]) == ("OPTIONAL", OK), r
            origins.append(r["origin"])
        if layout == "read_only_dirs" and os.geteuid() == 0:
            assert origins[0] == "fresh_fetch"
        else:
            assert origins == ["fresh_fetch"] * 3
            assert len(server.requests(name)) == 3
        if layout == "relative_home":
            assert not (tmp_path / "relative").exists()
        # throttling with nowhere to persist the backoff: still no crash
        server.document(name, next=[{"status": 429}])
        r = check(url, "1.0.40", T0 + 2 * DAY)
        assert r["status"] in ("OPTIONAL", "UP_TO_DATE")
    finally:
        if layout == "read_only_dirs":
            os.chmod(tmp_path / "ro", 0o700)


# --------------------------------------------------------------------------
# concurrency
# --------------------------------------------------------------------------

def _at_once(n, work):
    """Runs work(start) on n threads, each calling start() to wait for the
    others, so their checks begin together; bounded in time. Returns what
    the threads returned; fails on a hung thread or any exception."""
    barrier = threading.Barrier(n)
    results, errors = [], []

    def run():
        try:
            results.append(work(lambda: barrier.wait(5)))
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=run, daemon=True) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert not any(t.is_alive() for t in threads), "a check hung"
    assert errors == []
    return results


def test_threads_on_one_client_single_flight(server, xdg, name):
    """8 threads check at once on one client, cold cache, slow server: one
    request. A long deadline: the test is about one request, and on a busy
    machine a waiter behind the helper's start and the 0.5 s answer may pass
    the default 3 s and fail open."""
    url = server.url(name)
    server.document(name, flat_doc(), next=[{"delay_s": 0.5}])
    with fake_clock.clock().frozen_at(T0), \
            vg.Client(source=url, session_scope="process", timeout_ms="10000") as client:
        def worker(start):
            start()
            with client.check("1.0.38") as r:
                return r.json()

        results = _at_once(8, worker)
    assert len(results) == 8
    assert {r["status"] for r in results} == {"MANDATORY"}
    assert {r["error"] for r in results} == {OK}
    assert sorted(r["origin"] for r in results).count("fresh_fetch") == 1
    assert len(server.requests(name)) == 1


def test_threads_on_separate_clients_single_flight(server, xdg, name):
    """8 threads, each with its own client (8 launcher components in one
    process), cold cache, slow server: still one request (single flight per
    process)."""
    url = server.url(name)
    server.document(name, flat_doc(), next=[{"delay_s": 0.5}])

    def worker(start):
        # A deadline well past the slow answer: the point is one request, and
        # on a loaded machine a waiter behind the helper's start and the 0.5 s
        # answer once failed open at the default deadline.
        with vg.Client(source=url, session_scope="process", timeout_ms="10000") as c:
            start()
            with c.check("1.0.38") as r:
                return r.json()

    with fake_clock.clock().frozen_at(T0):
        results = _at_once(8, worker)
    assert len(results) == 8
    assert {r["status"] for r in results} == {"MANDATORY"}, [r.get("error_message") for r in results]
    assert len(server.requests(name)) == 1, [r["origin"] for r in results]


def test_processes_share_cache_while_document_changes(server, xdg, name):
    """16 processes x 100 checks (a new client each: a launcher start), one
    cache dir, the document flipping between two configs underneath. Half
    the processes use cache_ttl_s=0 (every check fetches and rewrites the
    cache), half the default (mostly cache hits on what the others wrote).
    A 20 s deadline: the fetches queue behind one another, and under the
    sanitizers a helper's start takes long enough for the default deadline
    to pass in the queue (the test is about consistency, not deadlines).
    Every check succeeds with a decision from ONE of the two configs (never
    a mix), and every read of the cache file while they run is a complete
    JSON entry (atomic replace)."""
    url = server.url(name)
    docs = [flat_doc("1.0.30", "1.0.41"), flat_doc("1.0.50", "1.0.50")]
    allowed = {"1.0.30 1.0.41 OPTIONAL", "1.0.50 1.0.50 MANDATORY"}
    server.document(name, docs[0], etag='"0"')
    env = child_env(xdg.cache, xdg.state, xdg.home)
    procs = [subprocess.Popen([sys.executable, "-c", CHILD_LOOP, url, "1.0.40", "100",
                               json.dumps({"timeout_ms": "20000", **({"cache_ttl_s": "0"} if i % 2 == 0 else {})})],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True) for i in range(16)]
    path = cache_file(xdg.cache, url)
    stop = threading.Event()
    flips = [0]

    def flipper():
        i = 0
        while not stop.is_set():
            i += 1
            server.document(name, docs[i % 2], etag='"%d"' % i)
            flips[0] = i
            stop.wait(0.01)

    t = threading.Thread(target=flipper, daemon=True)
    t.start()
    reads, bad, seen_values = 0, [], set()
    deadline = time.monotonic() + 240
    try:
        while any(p.poll() is None for p in procs):
            assert time.monotonic() < deadline, "processes did not finish in time"
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                continue
            reads += 1
            try:
                entry = json.loads(data)
                assert entry["key"] == "document:" + url
                seen_values.add(entry["values"]["min_required_version_linux"])
            except Exception as e:
                bad.append((repr(e), data[:200]))
    finally:
        stop.set()
        t.join(10)
        for p in procs:
            if p.poll() is None:
                p.kill()
    outs = [p.communicate(timeout=30) for p in procs]
    failures, snapshots, origins = [], {}, {}
    total = 0
    for p, (out, err) in zip(procs, outs):
        if p.returncode != 0:
            failures.append(err[-2000:])
            continue
        summary = json.loads(out)
        total += summary["checks"]
        failures.extend(summary["errors"][:3])
        for k, v in summary["snapshots"].items():
            snapshots[k] = snapshots.get(k, 0) + v
        for k, v in summary["origins"].items():
            origins[k] = origins.get(k, 0) + v
    print("reads=%d flips=%d origins=%s snapshots=%s" % (reads, flips[0], origins, snapshots))
    assert failures == [], [(f["error"], f.get("error_message")) for f in failures[:5]]
    assert total == 1600
    assert set(snapshots) <= allowed, snapshots
    assert bad == [], bad[:3]
    assert reads > 50, "the cache file was hardly ever there to read (%d reads)" % reads
    assert flips[0] > 10 and seen_values == {"1.0.30", "1.0.50"}, (flips, seen_values)
    assert origins.get("fresh_fetch", 0) >= 800 and origins.get("cache_hit", 0) > 0, origins
    assert_no_hidden_temp_files(path.parent)


# --------------------------------------------------------------------------
# slow server
# --------------------------------------------------------------------------

def test_slow_server_times_out(server, xdg, name):
    url = server.url(name)
    server.document(name, flat_doc(), next=[{"delay_s": 10}])
    r = check(url, "1.0.38", T0, timeout_ms=300, bound=3.0)
    assert (r["status"], r["error"], r["origin"]) == ("UP_TO_DATE", ETIMEOUT, "none")
    assert r["_elapsed"] < 0.5, r["_elapsed"]
    assert r["_elapsed"] >= 0.29


def test_slow_server_with_stale_cache(server, xdg, name):
    url = server.url(name)
    server.document(name, flat_doc())
    assert check(url, "1.0.38", T0)["origin"] == "fresh_fetch"
    server.document(name, next=[{"delay_s": 10}])
    r = check(url, "1.0.38", T0 + 2 * HOUR, timeout_ms=300, bound=3.0)
    assert (r["status"], r["origin"], r["fetch_error"]) == ("MANDATORY", "cache_after_error", ETIMEOUT)
    assert r["_elapsed"] < 0.5, r["_elapsed"]
