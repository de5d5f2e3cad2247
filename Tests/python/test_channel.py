"""Asking the user's channel before a hard block (docs/design.md, "Asking
the channel"), through the real command and library: a loopback HTTP
server speaks the App Store lookup, the Snap store's info API and
Flathub's appstream API; apt's lists come from a real local repository
that the real apt-get fetched.

A version below the minimum that the channel does not serve yet is
OPTIONAL (exit 10, rule channel_behind); at the minimum, or when the
channel cannot be asked (an error, a 404, bad bodies), or under the strict
key, the operator's word stands: MANDATORY (exit 20)."""

from __future__ import annotations

import http.server
import json
import os
import platform
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from cli_helpers import Env, run

MINIMUM = "1.0.30"
BEHIND, AT = "1.0.25", "1.0.30"
APP_ID = "com.example.Launcher"
SNAP = "example-launcher"


def debian_arch() -> str:
    machine = platform.machine()
    return {"x86_64": "amd64", "aarch64": "arm64"}.get(machine, machine)


OTHER_ARCH = "arm64" if debian_arch() != "arm64" else "amd64"


class Channels:
    """A loopback server whose answer per path a test sets; every request
    is recorded (path and headers)."""

    def __init__(self):
        self.routes: dict[str, tuple[int, bytes]] = {}
        self.requests: list[tuple[str, dict]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                outer.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                status, body = outer.routes.get(self.path.split("?")[0], (404, b'{"detail":"App not found"}'))
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def serve(self, path: str, body, status: int = 200):
        self.routes[path] = (status, body if isinstance(body, bytes) else json.dumps(body).encode())

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def lookup(version, bundle_id=APP_ID):
    result = {"trackId": 1500000001, "bundleId": bundle_id}
    if version is not None:
        result["version"] = version
    return {"resultCount": 1, "results": [result]}


def snap_info(stable, edge="1.0.99", other_arch_stable="1.0.99", arch=None):
    arch = arch or debian_arch()
    def entry(architecture, risk, version):
        return {"channel": {"architecture": architecture, "name": risk, "risk": risk, "track": "latest",
                            "released-at": "2026-12-01T00:00:00.000000+00:00"},
                "revision": 7, "type": "app", "version": version}
    return {"name": SNAP, "snap-id": "abc", "channel-map": [
        entry(OTHER_ARCH, "stable", other_arch_stable), entry(arch, "edge", edge), entry(arch, "stable", stable)]}


def appstream(*versions):
    return {"id": APP_ID, "type": "desktop-application",
            "releases": [{"version": v, "type": "stable", "timestamp": "1741881600"} for v in versions]
            + [{"version": "9.9.9", "type": "development"}]}


@pytest.fixture
def channels():
    server = Channels()
    yield server
    server.stop()


@pytest.fixture
def env(tmp_path):
    return Env(tmp_path)


def document(tmp_path, **extra) -> Path:
    path = tmp_path / "gate.json"
    path.write_text(json.dumps({"min_required_version_linux": MINIMUM, "latest_version_linux": "1.0.40", **extra}))
    # Aged past the racily-clean window, so a second check reads it from memory.
    os.utime(path, (1, 1))
    return path


KINDS = {
    "appstore": {"path": "/lookup", "sets": lambda base: ["store=appstore", "app_id=" + APP_ID, "country=us",
                                                          "itunes_endpoint=" + base],
                 "body": lookup},
    "snap": {"path": "/v2/snaps/info/" + SNAP, "sets": lambda base: ["store=snap", "app_id=" + SNAP,
                                                                    "snap_store_endpoint=" + base],
             "body": lambda v: snap_info(v)},
    "flathub": {"path": "/api/v2/appstream/" + APP_ID, "sets": lambda base: ["store=flathub", "app_id=" + APP_ID,
                                                                             "flathub_endpoint=" + base],
                "body": lambda v: appstream(v, "1.0.1")},
}


def store_lookups(kind: str) -> int:
    """Requests besides the channel's when the channel was not asked: a
    prompting App Store check looks up the store URL's trackId. When the
    channel was asked, its one exchange gave the link's trackId too (or its
    failure, with the backoff): no second request (docs/design.md, "One
    revalidating cache")."""
    return 1 if kind == "appstore" else 0


def check(env, doc, sets, version="1.0.20", **variables):
    args = ["check", "--source", doc, "--version", version, "--json"]
    for assignment in sets:
        args += ["--set", assignment]
    proc = run(args, env.vars(**variables), timeout=30)
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_behind_the_minimum_is_optional_at_it_mandatory(kind, channels, env, tmp_path):
    spec = KINDS[kind]
    doc = document(tmp_path)
    channels.serve(spec["path"], spec["body"](BEHIND))
    code, result = check(env, doc, spec["sets"](channels.base))
    assert (code, result["status"], result["rule"]) == (10, "OPTIONAL", "channel_behind"), result
    assert (result["channel"], result["channel_version"]) == (kind, BEHIND), result
    assert BEHIND in result["reason"] and "not yet available" in result["reason"], result
    assert result["title"] == "Update required"
    assert "not yet available for this system" in result["message"], result

    shutil.rmtree(env.cache / "versiongate", ignore_errors=True)
    channels.serve(spec["path"], spec["body"](AT))
    code, result = check(env, doc, spec["sets"](channels.base))
    assert (code, result["rule"], result["channel"], result["channel_version"]) == (20, "below_minimum", kind, AT), result
    assert "serves %s" % AT in result["reason"]


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("status", [404, 500])
def test_an_error_leaves_the_operators_word(kind, status, channels, env, tmp_path):
    spec = KINDS[kind]
    channels.serve(spec["path"], b'{"detail":"App not found"}', status=status)
    code, result = check(env, document(tmp_path), spec["sets"](channels.base))
    assert (code, result["rule"], result["channel"], result["channel_version"]) == (20, "below_minimum", kind, None)
    assert "HTTP %d" % status in result["reason"], result
    assert len(channels.requests) == 1, "the store link asked again after the channel's failure"


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_strict_key_keeps_the_block_and_asks_nothing(kind, channels, env, tmp_path):
    spec = KINDS[kind]
    channels.serve(spec["path"], spec["body"](BEHIND))
    code, result = check(env, document(tmp_path, strict_min_required_linux="true"), spec["sets"](channels.base))
    assert (code, result["rule"], result["channel"]) == (20, "below_minimum", None), result
    assert len(channels.requests) == store_lookups(kind)


def test_the_kill_switch_is_never_softened(channels, env, tmp_path):
    spec = KINDS["flathub"]
    channels.serve(spec["path"], spec["body"](BEHIND))
    code, result = check(env, document(tmp_path, blocked_versions_linux="1.0.20"), spec["sets"](channels.base))
    assert (code, result["rule"]) == (20, "blocked")
    assert channels.requests == []


def test_a_channel_serving_only_a_blocked_version_is_behind(channels, env, tmp_path):
    spec = KINDS["flathub"]
    channels.serve(spec["path"], spec["body"]("1.0.31"))
    code, result = check(env, document(tmp_path, blocked_versions_linux="1.0.31"), spec["sets"](channels.base))
    assert (code, result["rule"], result["channel_version"]) == (10, "channel_behind", "1.0.31"), result
    assert "a blocked version" in result["reason"]


def test_the_snap_channel_is_this_architecture_on_latest_stable(channels, env, tmp_path):
    """Another architecture and edge are ahead; this one's stable is behind."""
    spec = KINDS["snap"]
    doc = document(tmp_path)
    channels.serve(spec["path"], snap_info(BEHIND, edge="1.0.50", other_arch_stable="1.0.50"))
    code, result = check(env, doc, spec["sets"](channels.base))
    assert (code, result["channel_version"]) == (10, BEHIND), result
    path, headers = channels.requests[0]
    assert path == "/v2/snaps/info/%s?fields=version" % SNAP and headers.get("snap-device-series") == "16"
    assert debian_arch() in result["reason"] and "latest/stable" in result["reason"]

    # SNAP_ARCH names the architecture inside a snap; SNAP_INSTANCE_NAME the
    # snap (a parallel install's instance key left out).
    shutil.rmtree(env.cache / "versiongate", ignore_errors=True)
    sets = ["snap_store_endpoint=" + channels.base]
    code, result = check(env, doc, sets, SNAP_ARCH=OTHER_ARCH, SNAP_INSTANCE_NAME=SNAP + "_beta")
    assert (code, result["channel"], result["channel_version"]) == (20, "snap", "1.0.50"), result
    assert channels.requests[-1][0].startswith("/v2/snaps/info/%s?" % SNAP)


def test_flathub_takes_the_greatest_stable_release(channels, env, tmp_path):
    spec = KINDS["flathub"]
    channels.serve(spec["path"], appstream("1.0.2", "1.0.27", "1.0.9"))
    code, result = check(env, document(tmp_path), spec["sets"](channels.base))
    assert (code, result["channel_version"]) == (10, "1.0.27"), result


@pytest.mark.parametrize("kind,body,why", [
    ("appstore", lookup(None), "no version"),
    ("appstore", b"<html>not json</html>", "no results array"),
    ("flathub", b"x" * (2 << 20), "1048576"),
    ("snap", snap_info("1.0.25", arch=OTHER_ARCH), "no latest/stable release for " + debian_arch()),
    ("flathub", appstream("1.0.25-beta.x!"), "not a valid version"),
    ("snap", snap_info("v1 (beta)"), "not a valid version"),
])
def test_bad_answers_leave_the_operators_word(kind, body, why, channels, env, tmp_path):
    spec = KINDS[kind]
    if kind == "snap" and isinstance(body, dict) and body["channel-map"][-1]["channel"]["architecture"] != debian_arch():
        body["channel-map"] = [e for e in body["channel-map"] if e["channel"]["architecture"] != debian_arch()]
    channels.serve(spec["path"], body)
    code, result = check(env, document(tmp_path), spec["sets"](channels.base))
    assert (code, result["rule"], result["channel_version"]) == (20, "below_minimum", None), result
    assert why in result["reason"], result


def test_only_a_block_asks_and_the_answer_is_cached(channels, env, tmp_path):
    spec = KINDS["flathub"]
    doc = document(tmp_path)
    channels.serve(spec["path"], spec["body"](BEHIND))
    for version, code in (("1.0.50", 0), ("1.0.35", 10)):
        assert check(env, doc, spec["sets"](channels.base), version=version)[0] == code
    assert channels.requests == [], "UP_TO_DATE and OPTIONAL ask nothing"
    assert check(env, doc, spec["sets"](channels.base))[0] == 10
    assert len(channels.requests) == 1
    code, result = check(env, doc, spec["sets"](channels.base))
    assert (code, result["channel_version"]) == (10, BEHIND)
    assert len(channels.requests) == 1, "within cache_ttl_s the answer is the cache's"
    # Past the TTL with no stale-while-revalidate window, it is asked before deciding
    # (test_channel_cache.py: with the window, in the background).
    assert check(env, doc, spec["sets"](channels.base) + ["cache_ttl_s=0", "stale_while_revalidate_s=0"])[0] == 10
    assert len(channels.requests) == 2, "cache_ttl_s=0 without the window asks every time"


def test_no_channel_known_leaves_the_operators_word(channels, env, tmp_path):
    code, result = check(env, document(tmp_path), [])
    assert (code, result["rule"], result["channel"]) == (20, "below_minimum", None)


def test_explain_and_the_decided_event_tell_the_channel(channels, env, tmp_path):
    spec = KINDS["flathub"]
    doc = document(tmp_path)
    channels.serve(spec["path"], spec["body"](BEHIND))
    args = ["explain", "--source", doc, "--version", "1.0.20"]
    for assignment in spec["sets"](channels.base):
        args += ["--set", assignment]
    proc = run(args, env.vars(), timeout=30)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert "flathub" in out and BEHIND in out and "channel_behind" in out, out

    import versiongate as vg
    events = []
    os.environ["XDG_CACHE_HOME"] = str(tmp_path / "python-cache")
    options = dict(a.split("=", 1) for a in spec["sets"](channels.base))
    with vg.Client(source=str(doc), on_event=events.append, **options) as client:
        result = client.check("1.0.20")
    assert (result.rule, result.channel, result.channel_version) == ("channel_behind", "flathub", BEHIND)
    decided = [e for e in events if e["event"] == "decided"][-1]
    assert (decided["rule"], decided["channel"], decided["channel_version"]) == ("channel_behind", "flathub", BEHIND)


# --- apt: a real local repository, fetched by the real apt-get -------------

def make_repository(root: Path, version: str) -> Path:
    """A file: repository with one package, example-launcher VERSION."""
    package = root / "pkg"
    shutil.rmtree(package, ignore_errors=True)
    (package / "DEBIAN").mkdir(parents=True)
    (package / "DEBIAN" / "control").write_text(
        "Package: example-launcher\nVersion: %s\nArchitecture: %s\nMaintainer: Test <t@example.com>\n"
        "Description: test\n" % (version, debian_arch()))
    repo = root / "repo"
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir()
    subprocess.run(["dpkg-deb", "--build", "--root-owner-group", str(package), str(repo / "example-launcher.deb")],
                   check=True, capture_output=True)
    packages = subprocess.run(["dpkg-scanpackages", "--multiversion", "."], cwd=repo, check=True,
                              capture_output=True).stdout
    (repo / "Packages").write_bytes(packages)
    return repo


def apt_update(root: Path, repo: Path) -> Path:
    lists = root / "lists"
    shutil.rmtree(lists, ignore_errors=True)
    (lists / "partial").mkdir(parents=True)
    sources = root / "sources.list"
    sources.write_text("deb [trusted=yes] file:%s ./\n" % repo)
    subprocess.run(["apt-get", "update", "-qq", "-o", "Dir::Etc::SourceList=%s" % sources,
                    "-o", "Dir::Etc::SourceParts=-", "-o", "Dir::State::Lists=%s" % lists,
                    "-o", "APT::Sandbox::User=root", "-o", "Debug::NoLocking=1",
                    # As on a desktop: lists kept uncompressed (containers often set it true).
                    "-o", "Acquire::GzipIndexes=false"], check=True, capture_output=True)
    assert any(p.name.endswith("_Packages") for p in lists.iterdir()), list(lists.iterdir())
    return lists


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("dpkg-scanpackages"),
                    reason="needs root (a private mount namespace over /var/lib/apt/lists) and dpkg-dev")
@pytest.mark.parametrize("candidate,code,rule", [("1:1.0.25-1", 10, "channel_behind"), ("1.0.30-2", 20, "below_minimum")])
def test_apt_candidate_from_a_real_repository(candidate, code, rule, env, tmp_path):
    lists = apt_update(tmp_path, make_repository(tmp_path, candidate))
    doc = document(tmp_path)
    # The lists apt-get fetched, where apt keeps them, in a private mount namespace.
    shell = 'mount --bind "$1" /var/lib/apt/lists && shift && exec "$@"'
    args = ["unshare", "-m", "sh", "-c", shell, "sh", str(lists), str(Path(__file__).resolve().parents[2]
                                                                          / "build" / "bin" / "versiongate"),
            "check", "--source", str(doc), "--version", "1.0.20", "--json", "--set", "distro_package=example-launcher"]
    proc = subprocess.run(args, env=env.vars(PATH="/usr/sbin:/usr/bin:/sbin:/bin"), capture_output=True, timeout=60)
    result = json.loads(proc.stdout)
    upstream = candidate.split(":")[-1].rsplit("-", 1)[0]
    assert (proc.returncode, result["rule"], result["channel"], result["channel_version"]) == (code, rule, "apt", upstream), \
        (result, proc.stderr)
