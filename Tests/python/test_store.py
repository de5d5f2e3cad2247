"""Where to update, through the real .so: vg_store_url, vg_client_store_url,
the result's store_url under the URL policy, and vg_open_url with a fake
xdg-open on PATH that records its argv."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import versiongate as vg
from remote_helpers import Loopback

TRACK_ID = 1500000001  # fixtures/itunes/lookup_found_example_launcher_{us,de_stale}.json


@pytest.fixture
def xdg(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path


@pytest.mark.parametrize("store,app_id,url", [
    ("flathub", "com.example.Launcher", "appstream:com.example.Launcher"),
    ("snap", "example-launcher", "snap://example-launcher"),
    ("url", "com.example.Launcher", None),
    ("flathub", "com.example/../../etc", None),
    ("flathub", "com.example.Launcher;rm -rf", None),
    ("snap", "Example_Launcher", None),
    ("snap", "a--b", None),
])
def test_store_url_per_store(store, app_id, url):
    assert vg.store_url(store, app_id) == url


@pytest.mark.parametrize("store,app_id", [(None, "x.y"), ("flathub", None), ("steam", "x.y")])
def test_store_url_bad_arguments(store, app_id):
    with pytest.raises(vg.VersionGateError) as info:
        vg.store_url(store, app_id)
    assert info.value.code == vg.Error.EINVAL


def test_app_store_lookup_and_fallback(xdg):
    server = Loopback()
    try:
        base = "http://127.0.0.1:%d" % server.port
        def url(app_id, country):
            with vg.Client(store="appstore", app_id=app_id, country=country, itunes_endpoint=base) as c:
                return c.store_url()
        assert url("com.example.launcher", "us") == "itms-apps://itunes.apple.com/app/id%d" % TRACK_ID
        assert url("com.example.launcher", "de") == "itms-apps://itunes.apple.com/app/id%d" % TRACK_ID
        for missing in ("com.example.unknown", "com.example.error5xx", "com.example.garbage"):
            assert url(missing, "us") == "itms-apps://itunes.apple.com/lookup?bundleId=" + missing
        # The trackId is cached: asking again makes no request.
        before = len(server.requests())
        assert url("com.example.launcher", "us").endswith("/id%d" % TRACK_ID)
        assert len(server.requests()) == before
    finally:
        assert server.stop() == ""


def test_result_store_url_follows_the_client_store_and_policy(tmp_path, xdg):
    doc = tmp_path / "gate.json"
    doc.write_text(json.dumps({"min_required_version_linux": "2.0",
                               "update_url_linux": "https://store@evil.example/"}))
    with vg.Client(source=str(doc), store="flathub", app_id="com.example.Launcher") as c:
        with c.check("1.0") as r:
            assert r.status == vg.Status.MANDATORY
            assert r.store_url == "appstream:com.example.Launcher"
            j = r.json()
            assert j["store_web_fallback"] == "https://flathub.org/apps/com.example.Launcher"
            assert "update_url_linux" in j["store_note"]
            assert r.error == vg.Error.ECONFIG and "update_url_linux" in r.error_message
    # An allowed config URL wins; with the url store and nothing allowed, the fallback_url.
    doc.write_text(json.dumps({"min_required_version_linux": "2.0",
                               "update_url_linux": "https://snapcraft.io/example-launcher"}))
    with vg.Client(source=str(doc), store="flathub", app_id="com.example.Launcher") as c, c.check("1.0") as r:
        assert r.store_url == "https://snapcraft.io/example-launcher" and r.error == vg.Error.OK
    doc.write_text(json.dumps({"min_required_version_linux": "2.0", "update_url_linux": "javascript:alert(1)"}))
    with vg.Client(source=str(doc), fallback_url="https://flathub.org/apps/com.example.Launcher") as c:
        with c.check("1.0") as r:
            assert r.store_url == "https://flathub.org/apps/com.example.Launcher"
    with vg.Client(source=str(doc), fallback_url="https://evil.example/") as c, c.check("1.0") as r:
        assert r.store_url is None
    with vg.Client(source=str(doc), store="flathub", app_id="com.example.Launcher") as c, c.check("3.0") as r:
        assert r.status == vg.Status.UP_TO_DATE and r.store_url is None


@pytest.fixture
def fake_xdg_open(tmp_path, monkeypatch):
    """An xdg-open first on PATH that appends its argv (one JSON list a line)
    to a log and exits with the code in $FAKE_EXIT_<scheme> (default 0)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "argv.log"
    script = bin_dir / "xdg-open"
    script.write_text("#!/usr/bin/env python3\n"
                      "import json, os, sys\n"
                      "open(%r, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n"
                      "scheme = sys.argv[1].split(':', 1)[0] if len(sys.argv) > 1 else ''\n"
                      "sys.exit(int(os.environ.get('FAKE_EXIT_' + scheme, '0')))\n" % str(log))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", "%s:%s" % (bin_dir, os.environ["PATH"]))

    def calls():
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    calls.bin_dir = bin_dir
    return calls


def test_open_url_passes_one_argument_without_a_shell(fake_xdg_open):
    url = "https://flathub.org/apps/com.example.Launcher?x=$(id);echo'a'"
    assert vg.open_url(url) == vg.Error.OK
    assert fake_xdg_open() == [[url]]


@pytest.mark.parametrize("code", ["3", "4"])
def test_open_url_falls_back_to_the_web_page(fake_xdg_open, monkeypatch, code):
    monkeypatch.setenv("FAKE_EXIT_appstream", code)
    assert vg.open_url("appstream:com.example.Launcher") == vg.Error.OK
    assert fake_xdg_open() == [["appstream:com.example.Launcher"],
                               ["https://flathub.org/apps/com.example.Launcher"]]


def test_open_url_refuses_before_running_anything(fake_xdg_open):
    for url in ["javascript:alert(1)", "file:///etc/passwd", "https://evil.example/", "-e", "https://flathub.org/a b"]:
        assert vg.open_url(url) == vg.Error.EPOLICY, url
    assert fake_xdg_open() == []


def test_open_url_reports_a_failed_handler(fake_xdg_open, monkeypatch):
    monkeypatch.setenv("FAKE_EXIT_https", "4")
    assert vg.open_url("https://flathub.org/apps/com.example.Launcher") == vg.Error.EOPEN


def test_open_url_never_runs_a_program_from_the_working_directory(fake_xdg_open, monkeypatch, tmp_path):
    """An empty PATH entry (or "." or a relative one) means the current
    directory: an xdg-open planted there must not run."""
    planted_log = tmp_path / "planted.log"
    work = tmp_path / "work"
    (work / "bin").mkdir(parents=True)
    for where in (work / "xdg-open", work / "bin" / "xdg-open"):
        where.write_text("#!/bin/sh\necho planted >> %s\n" % planted_log)
        where.chmod(0o755)
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("PATH", ":.:bin:%s" % empty)
    assert vg.open_url("https://flathub.org/apps/com.example.Launcher") == vg.Error.EOPEN
    assert not planted_log.exists(), "xdg-open ran from the working directory"
    # The real one in an absolute entry, after the relative ones, is found.
    # (python3 for the fake's #! line comes after it)
    monkeypatch.setenv("PATH", ":.:bin:%s:%s:%s" % (empty, fake_xdg_open.bin_dir, Path(sys.executable).parent))
    assert vg.open_url("https://flathub.org/apps/com.example.Launcher") == vg.Error.OK
    assert not planted_log.exists()
    assert fake_xdg_open() == [["https://flathub.org/apps/com.example.Launcher"]]


#: A host that ignores SIGCHLD (common in daemons): the kernel reaps its
#: children, so no exit status can be had for xdg-open.
IGNORES_SIGCHLD = r"""
import signal, sys
import versiongate as vg
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
print(int(vg.open_url(sys.argv[1])))
"""


@pytest.mark.parametrize("exit_code", ["0", "3"])
def test_open_url_never_claims_success_it_cannot_know(fake_xdg_open, monkeypatch, exit_code):
    monkeypatch.setenv("FAKE_EXIT_appstream", exit_code)
    env = dict(os.environ, PYTHONPATH=str(Path(vg.__file__).parent.parent), VERSIONGATE_LIBRARY=str(vg.LIBRARY_PATH))
    done = subprocess.run([sys.executable, "-c", IGNORES_SIGCHLD, "appstream:com.example.Launcher"],
                          capture_output=True, text=True, timeout=30, env=env)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == vg.Error.EOPEN, "reported %s without knowing how xdg-open ended" % done.stdout
    assert fake_xdg_open() == [["appstream:com.example.Launcher"]], "ran, and no web page guessed after it"


def test_client_open_url_follows_the_client_policy(fake_xdg_open):
    """vg_client_open_url: a host the client allows opens although the
    default policy refuses it; one it does not allow is refused with the
    reason, and nothing runs."""
    own = "https://store.example.com/apps/launcher"
    assert vg.open_url(own) == vg.Error.EPOLICY
    with vg.Client() as client:
        client.set("allowed_url_hosts", "store.example.com")
        assert client.open_url(own) == vg.Error.OK and client.last_error is None
        assert client.open_url("https://flathub.org/apps/x") == vg.Error.EPOLICY
        assert "host flathub.org is not allowed" in client.last_error
        client.set("allowed_url_schemes", "appstream")
        assert client.open_url(own) == vg.Error.EPOLICY and "https" in client.last_error
    assert fake_xdg_open() == [[own]]
