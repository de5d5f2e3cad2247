"""The desktop's proxy (docs/design.md, "The desktop's proxy"), end to end
with real parts only (proxy_world.py): real tinyproxies on free loopback
ports, an origin on 127.0.0.2 that records each request's headers and
whose socket each connection came from, GNOME's proxy settings through
GSettings' keyfile backend (XDG_CURRENT_DESKTOP=GNOME), PAC files run by
GLib's real PAC runner activated on a private session bus.

Every request the helper makes takes the route: the option `proxy` wins,
then the environment, then the desktop; no_proxy holds for each; a proxy
that is down fails the check open at once; credentials go to the proxy
only and are never shown; and the host's process still maps none of GIO,
libcurl or a TLS library."""

from __future__ import annotations

import json
import os
import re
import random
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from cli_helpers import CLI, Env, run
from conftest import HEADER, LIB_PATH
from proxy_world import (ClosedPort, Desktop, Origin, SessionBus, StaticOrigin, TinyProxy, missing_tools, self_signed,
                         wait_for)
from test_channel import APP_ID, BEHIND, KINDS

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(missing_tools() is not None, reason=str(missing_tools()))

GATE = {"min_required_version_linux": "1.0.30", "latest_version_linux": "1.0.40"}
VERSION = "1.0.20"
USER, PASSWORD = "gateuser", "pr0xy-s3cret"
BOUND = 30          # seconds any one command may take


# --- fixtures ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def desktop_proxy(tmp_path_factory):
    proxy = TinyProxy(tmp_path_factory.mktemp("desktop-proxy"), "vg-desktop-proxy")
    yield proxy
    proxy.stop()


@pytest.fixture(scope="module")
def env_proxy(tmp_path_factory):
    proxy = TinyProxy(tmp_path_factory.mktemp("env-proxy"), "vg-environment-proxy")
    yield proxy
    proxy.stop()


@pytest.fixture(scope="module")
def auth_proxy(tmp_path_factory):
    proxy = TinyProxy(tmp_path_factory.mktemp("auth-proxy"), "vg-auth-proxy", basic_auth=(USER, PASSWORD))
    yield proxy
    proxy.stop()


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    return self_signed(tmp_path_factory.mktemp("origin-tls"))


@pytest.fixture
def origin():
    server = Origin()
    server.serve("/gate.json", GATE)
    yield server
    server.stop()


@pytest.fixture
def tls_origin(certificate):
    server = Origin(tls=certificate)
    server.serve("/gate.json", GATE)
    yield server
    server.stop()


@pytest.fixture
def desktop(tmp_path):
    return Desktop(tmp_path)


@pytest.fixture
def env(tmp_path, desktop):
    e = Env(tmp_path)
    e.extra.update(desktop.env())
    return e


@pytest.fixture
def closed_port():
    port = ClosedPort()
    yield port
    port.close()


def check(env, source, *sets, verbose=False, **variables):
    """`versiongate check --json` (with -v -v: the debug log on stderr):
    exit status, result, stderr, seconds it took."""
    args = ["check", "--source", source, "--version", VERSION, "--json"]
    for assignment in sets:
        args += ["--set", assignment]
    if verbose:
        args += ["--verbose", "--verbose"]
    start = time.monotonic()
    proc = run(args, env.vars(**variables), timeout=BOUND)
    elapsed = time.monotonic() - start
    assert proc.stdout, proc.stderr.decode(errors="replace")
    return proc.returncode, json.loads(proc.stdout), proc.stderr.decode(errors="replace"), elapsed


def assert_through(proxy: TinyProxy, origin: Origin, mark: int, paths: list[str]):
    """Every request reached the origin through `proxy` (its Via, its socket),
    none directly, and the proxy logged each."""
    seen = origin.requests()
    assert [r["path"] for r in seen] == paths, seen
    for record in seen:
        assert record["headers"].get("via", "").startswith(proxy.via + " "), record
        assert record["peer"] == "proxy:" + proxy.name, record
    assert origin.direct_connections() == [], origin.peers()
    assert proxy.requests(mark) == ["GET %s%s HTTP/1.1" % (origin.base, p) for p in paths], proxy.log_text(mark)


def assert_direct(origin: Origin, paths: list[str], *unused: tuple[TinyProxy, int]):
    """Every request reached the origin from the helper itself, no proxy in between."""
    seen = origin.requests()
    assert [r["path"] for r in seen] == paths, seen
    assert all("via" not in r["headers"] for r in seen), seen
    # /proc/PID/comm is the name cut at 15 bytes.
    assert origin.peers() == ["direct:versiongate-hel"] * len(paths), origin.peers()
    for proxy, mark in unused:
        assert proxy.requests(mark) == [], proxy.log_text(mark)


# --- the desktop's manual proxy -------------------------------------------------------

def test_the_gate_document_and_the_channel_go_through_the_desktops_proxy(desktop_proxy, origin, env, desktop):
    desktop.manual("127.0.0.1", desktop_proxy.port)
    flathub = KINDS["flathub"]
    origin.serve(flathub["path"], flathub["body"](BEHIND))
    mark = desktop_proxy.mark()
    code, result, stderr, _ = check(env, origin.url("/gate.json"), *flathub["sets"](origin.base), verbose=True)
    assert (code, result["status"], result["rule"]) == (10, "OPTIONAL", "channel_behind"), (result, stderr)
    assert (result["channel"], result["channel_version"], result["origin"]) == ("flathub", BEHIND, "fresh_fetch"), result
    assert (result["proxy"], result["proxy_from"]) == (desktop_proxy.url, "desktop"), result
    assert_through(desktop_proxy, origin, mark, ["/gate.json", "/api/v2/appstream/" + APP_ID])
    assert "the check's last request went through %s from desktop" % desktop_proxy.url in stderr, stderr


def test_an_https_document_is_tunnelled_through_the_desktops_proxy(desktop_proxy, tls_origin, certificate, env,
                                                                    desktop):
    """https: a CONNECT to the proxy (the origin sees no Via inside the
    tunnel, but the connection is the proxy's socket)."""
    desktop.manual("127.0.0.1", desktop_proxy.port)
    mark = desktop_proxy.mark()
    code, result, stderr, _ = check(env, tls_origin.url("/gate.json"), "tls_ca_file=%s" % certificate[0])
    assert (code, result["status"], result["origin"]) == (20, "MANDATORY", "fresh_fetch"), (result, stderr)
    assert (result["proxy"], result["proxy_from"]) == (desktop_proxy.url, "desktop"), result
    assert [r["path"] for r in tls_origin.requests()] == ["/gate.json"]
    assert tls_origin.peers() == ["proxy:" + desktop_proxy.name], tls_origin.peers()
    assert desktop_proxy.requests(mark) == ["CONNECT 127.0.0.2:%d HTTP/1.1" % tls_origin.port], desktop_proxy.log_text(mark)


# --- PAC through GLib's PAC runner ------------------------------------------------

PAC = 'function FindProxyForURL(url, host) { return "%s"; }\n'


@pytest.mark.parametrize("answer", ["PROXY {proxy}", "PROXY {proxy}; DIRECT", "DIRECT"])
def test_a_pac_files_answer_is_followed(answer, desktop_proxy, origin, env, desktop, tmp_path):
    pac_host = Origin()
    bus = SessionBus(tmp_path / "bus")
    try:
        pac_host.serve("/proxy.pac", PAC % answer.format(proxy=desktop_proxy.hostport),
                       kind="application/x-ns-proxy-autoconfig")
        desktop.auto(pac_host.url("/proxy.pac"))
        mark = desktop_proxy.mark()
        code, result, stderr, _ = check(env, origin.url("/gate.json"), verbose=True,
                                        DBUS_SESSION_BUS_ADDRESS=bus.address)
        # The PAC file was fetched by GLib's PAC runner itself (libproxy, in
        # glib-pacrunner on our bus): the answer is the PAC's.
        assert [r["path"] for r in pac_host.requests()] == ["/proxy.pac"], (pac_host.requests(), stderr)
        assert pac_host.peers() == ["direct:glib-pacrunner"], pac_host.peers()
        assert (code, result["status"], result["origin"]) == (20, "MANDATORY", "fresh_fetch"), (result, stderr)
        if answer == "DIRECT":
            assert (result["proxy"], result["proxy_from"]) == ("direct", None), result
            assert_direct(origin, ["/gate.json"], (desktop_proxy, mark))
        else:
            assert (result["proxy"], result["proxy_from"]) == (desktop_proxy.url, "desktop"), result
            assert_through(desktop_proxy, origin, mark, ["/gate.json"])
            assert "the check's last request went through %s from desktop" % desktop_proxy.url in stderr, stderr
    finally:
        bus.stop()
        pac_host.stop()


# --- who wins ------------------------------------------------------------------------

def test_proxy_none_goes_direct_despite_the_desktops_proxy(desktop_proxy, origin, env, desktop):
    desktop.manual("127.0.0.1", desktop_proxy.port)
    mark = desktop_proxy.mark()
    code, result, stderr, _ = check(env, origin.url("/gate.json"), "proxy=none")
    assert (code, result["status"]) == (20, "MANDATORY"), (result, stderr)
    assert (result["proxy"], result["proxy_from"]) == ("direct", None), result
    assert_direct(origin, ["/gate.json"], (desktop_proxy, mark))


def test_the_option_beats_the_environment_and_the_desktop(env_proxy, origin, env, desktop, closed_port):
    """The environment and the desktop name a closed port: had either been used, the check would fail open."""
    desktop.manual("127.0.0.1", closed_port.port)
    mark = env_proxy.mark()
    code, result, stderr, _ = check(env, origin.url("/gate.json"), "proxy=" + env_proxy.url, http_proxy=closed_port.url)
    assert (code, result["status"]) == (20, "MANDATORY"), (result, stderr)
    assert (result["proxy"], result["proxy_from"]) == (env_proxy.url, "option"), result
    assert_through(env_proxy, origin, mark, ["/gate.json"])


@pytest.mark.parametrize("variable", ["http_proxy", "all_proxy", "https_proxy", "HTTPS_PROXY"])
def test_the_environment_beats_the_desktop(variable, desktop_proxy, env_proxy, origin, tls_origin, certificate, env,
                                           desktop):
    desktop.manual("127.0.0.1", desktop_proxy.port)
    https = variable.lower() == "https_proxy"
    server = tls_origin if https else origin
    sets = ["tls_ca_file=%s" % certificate[0]] if https else []
    desktop_mark, env_mark = desktop_proxy.mark(), env_proxy.mark()
    code, result, stderr, _ = check(env, server.url("/gate.json"), *sets, verbose=True, **{variable: env_proxy.url})
    assert (code, result["status"]) == (20, "MANDATORY"), (result, stderr)
    assert (result["proxy"], result["proxy_from"]) == (env_proxy.url, "environment"), result
    assert "the check's last request went through %s from environment" % env_proxy.url in stderr, stderr
    assert desktop_proxy.requests(desktop_mark) == [], desktop_proxy.log_text(desktop_mark)
    if https:
        assert server.peers() == ["proxy:" + env_proxy.name], server.peers()
        assert env_proxy.requests(env_mark) == ["CONNECT 127.0.0.2:%d HTTP/1.1" % server.port]
    else:
        assert_through(env_proxy, server, env_mark, ["/gate.json"])


def test_http_proxy_does_not_apply_to_https(desktop_proxy, tls_origin, certificate, env, desktop, closed_port):
    """As libcurl reads them: http_proxy is for http only; an https URL
    falls through to the desktop."""
    desktop.manual("127.0.0.1", desktop_proxy.port)
    mark = desktop_proxy.mark()
    code, result, stderr, _ = check(env, tls_origin.url("/gate.json"), "tls_ca_file=%s" % certificate[0],
                                    http_proxy=closed_port.url)
    assert (code, result["status"]) == (20, "MANDATORY"), (result, stderr)
    assert (result["proxy"], result["proxy_from"]) == (desktop_proxy.url, "desktop"), result
    assert desktop_proxy.requests(mark) == ["CONNECT 127.0.0.2:%d HTTP/1.1" % tls_origin.port]


@pytest.mark.parametrize("variable,value", [("no_proxy", "127.0.0.2"), ("NO_PROXY", "127.0.0.2"),
                                            ("no_proxy", "example.org, 127.0.0.2"), ("no_proxy", "*")])
def test_no_proxy_holds_for_the_desktops_proxy(variable, value, desktop_proxy, origin, env, desktop):
    desktop.manual("127.0.0.1", desktop_proxy.port)      # ignore-hosts empty: GNOME itself would proxy 127.0.0.2
    mark = desktop_proxy.mark()
    code, result, stderr, _ = check(env, origin.url("/gate.json"), **{variable: value})
    assert (code, result["status"]) == (20, "MANDATORY"), (result, stderr)
    assert (result["proxy"], result["proxy_from"]) == ("direct", None), result
    assert_direct(origin, ["/gate.json"], (desktop_proxy, mark))


def test_no_proxy_for_another_host_leaves_the_desktops_proxy(desktop_proxy, origin, env, desktop):
    desktop.manual("127.0.0.1", desktop_proxy.port)
    mark = desktop_proxy.mark()
    code, result, stderr, _ = check(env, origin.url("/gate.json"), no_proxy="127.0.0.3,example.org")
    assert (code, result["proxy"], result["proxy_from"]) == (20, desktop_proxy.url, "desktop"), (result, stderr)
    assert_through(desktop_proxy, origin, mark, ["/gate.json"])


class LoopbackOrigin(Origin):
    HOST = "127.0.0.1"


def test_127_0_0_1_never_uses_the_desktops_proxy(desktop_proxy, env, desktop):
    """Loopback (127.0.0.1, localhost) is never proxied, whatever the desktop says."""
    desktop.manual("127.0.0.1", desktop_proxy.port)
    mark = desktop_proxy.mark()
    server = LoopbackOrigin()
    try:
        server.serve("/gate.json", GATE)
        code, result, stderr, _ = check(env, server.url("/gate.json"))
        assert (code, result["proxy"], result["proxy_from"]) == (20, "direct", None), (result, stderr)
        assert desktop_proxy.requests(mark) == []
        assert all("via" not in r["headers"] for r in server.requests())
    finally:
        server.stop()


# --- a proxy that is down ---------------------------------------------------------------

@pytest.mark.parametrize("named_by", ["desktop", "environment"])
def test_a_proxy_that_is_down_fails_open_at_once(named_by, desktop_proxy, origin, env, desktop, closed_port):
    """A refused connection to the proxy is no reason to go direct: the
    check fails open at once, whatever timeout_ms is; the origin sees nothing."""
    variables = {}
    if named_by == "desktop":
        desktop.manual("127.0.0.1", closed_port.port)
    else:
        desktop.manual("127.0.0.1", desktop_proxy.port)   # a working one there: the environment's still wins
        variables["http_proxy"] = closed_port.url
    mark = desktop_proxy.mark()
    code, result, stderr, elapsed = check(env, origin.url("/gate.json"), "timeout_ms=20000", **variables)
    print("%s's proxy down: the check took %.3f s (timeout_ms=20000)" % (named_by, elapsed))
    assert (code, result["status"], result["rule"]) == (0, "UP_TO_DATE", "fail_open"), (result, stderr)
    assert "cannot connect" in (result["error_message"] or ""), result
    assert (result["proxy"], result["proxy_from"]) == (closed_port.url, named_by), result
    assert elapsed < 5, "a refused proxy connection took %.1f s" % elapsed
    assert origin.requests() == [] and origin.peers() == [], origin.peers()
    assert desktop_proxy.requests(mark) == []


# --- credentials -------------------------------------------------------------------------

@pytest.mark.parametrize("given_by", ["option", "environment", "desktop"])
def test_a_proxy_with_credentials_is_used_and_they_are_never_shown(given_by, auth_proxy, origin, env, desktop):
    with_credentials = "http://%s:%s@127.0.0.1:%d" % (USER, PASSWORD, auth_proxy.port)
    shown = "http://***@127.0.0.1:%d" % auth_proxy.port
    sets, variables = [], {}
    if given_by == "option":
        sets.append("proxy=" + with_credentials)
    elif given_by == "environment":
        variables["http_proxy"] = with_credentials
    else:
        desktop.manual("127.0.0.1", auth_proxy.port, user=USER, password=PASSWORD)
    mark = auth_proxy.mark()
    code, result, stderr, _ = check(env, origin.url("/gate.json"), *sets, verbose=True, **variables)
    assert (code, result["status"], result["origin"]) == (20, "MANDATORY", "fresh_fetch"), (result, stderr)
    assert (result["proxy"], result["proxy_from"]) == (shown, given_by), result
    assert_through(auth_proxy, origin, mark, ["/gate.json"])
    assert all("proxy-authorization" not in r["headers"] for r in origin.requests()), origin.requests()
    assert "the check's last request went through %s from %s" % (shown, given_by) in stderr, stderr
    assert PASSWORD not in stderr and PASSWORD not in json.dumps(result), stderr

    if given_by == "option":
        # A cache of its own: explain then fetches (a cache hit makes no request and shows no proxy).
        proc = run(["explain", "--source", origin.url("/gate.json"), "--version", VERSION, "--set", sets[0]],
                   env.vars(XDG_CACHE_HOME=str(env.root / "explain-cache"), XDG_STATE_HOME=str(env.root / "explain-state")),
                   timeout=BOUND)
        out = proc.stdout.decode() + proc.stderr.decode()
        assert shown in out and PASSWORD not in out, out


@pytest.mark.parametrize("given_by", ["option", "environment"])
def test_a_refused_password_fails_open_and_is_never_shown(given_by, auth_proxy, origin, env, desktop):
    wrong = "http://%s:%s@127.0.0.1:%d" % (USER, "not-" + PASSWORD, auth_proxy.port)
    sets = ["proxy=" + wrong] if given_by == "option" else []
    variables = {} if given_by == "option" else {"http_proxy": wrong}
    code, result, stderr, _ = check(env, origin.url("/gate.json"), *sets, verbose=True, **variables)
    assert (code, result["status"], result["rule"]) == (0, "UP_TO_DATE", "fail_open"), (result, stderr)
    assert result["proxy"] == "http://***@127.0.0.1:%d" % auth_proxy.port, result
    assert PASSWORD not in stderr and PASSWORD not in json.dumps(result), (stderr, result)
    assert origin.requests() == [] and origin.peers() == []


# --- an AppImage's update ------------------------------------------------------------------

APPIMAGE_BLOCK = 4096
APPIMAGE_PAYLOAD = 4 << 20


class ProxiedAppImageWorld:
    """test_appimage_update.py's World, its static host on 127.0.0.2 (so a
    proxy applies): v1 and v2 of a small ELF with an AppImage's update
    information, v2 and its .zsync served at /static/."""

    def __init__(self, root: Path):
        from test_appimage_update import build_app
        self.root = root
        self.www = root / "www"
        self.www.mkdir()
        self.server = StaticOrigin(self.www)
        self.base = "http://127.0.0.2:%d/static/" % self.server.port
        rng = random.Random(7)
        payload1 = bytearray(rng.randbytes(APPIMAGE_PAYLOAD))
        payload2 = bytearray(payload1)
        for block in rng.sample(range(APPIMAGE_PAYLOAD // APPIMAGE_BLOCK), APPIMAGE_PAYLOAD // APPIMAGE_BLOCK // 100):
            payload2[block * APPIMAGE_BLOCK:(block + 1) * APPIMAGE_BLOCK] = rng.randbytes(APPIMAGE_BLOCK)
        build = root / "build"
        build.mkdir()
        info = "zsync|" + self.base + "app.zsync"
        self.v1 = build_app(build, "1.0", bytes(payload1), info).read_bytes()
        v2 = build_app(build, "2.0", bytes(payload2), info)
        shutil.copy(v2, self.www / "app.AppImage")
        self.v2 = v2.read_bytes()
        subprocess.run(["zsyncmake", "-b", str(APPIMAGE_BLOCK), "-u", "app.AppImage", "-o", str(self.www / "app.zsync"),
                        str(self.www / "app.AppImage")], check=True, capture_output=True, timeout=60)
        self.gate = root / "gate.json"
        self.gate.write_text('{"min_required_version_linux": "2.0"}')

    def run(self, app: Path, home: Path, extra_env: dict, *arguments: str):
        from flatpak_world import run_on_terminal
        fake = home / "bin"
        fake.mkdir(parents=True, exist_ok=True)
        (fake / "xdg-open").write_text('#!/bin/sh\necho "$*" >> %s/opened.log\n' % home)
        (fake / "xdg-open").chmod(0o755)
        env = {"PATH": "%s:/usr/bin:/bin" % fake, "HOME": str(home), "LANG": "C.UTF-8", "APPIMAGE": str(app),
               "XDG_CACHE_HOME": str(home / "cache"), "XDG_STATE_HOME": str(home / "state"), **extra_env}
        return run_on_terminal([CLI, "exec", "--dialog", "terminal", "--source", self.gate, "--version", "1.0",
                                "--set", "store=flathub", "--set", "app_id=org.example.AppImageDemo",
                                "--set", "flathub_endpoint=" + self.base, "--", str(app), *arguments], env, b"\n", 120)

    def close(self):
        assert self.server.stop() == "", "the static origin wrote tracebacks"


@pytest.fixture(scope="module")
def appimage_world(tmp_path_factory):
    if shutil.which("zsyncmake") is None or shutil.which("objcopy") is None:
        pytest.skip("zsync and binutils are installed by scripts/setup")
    world = ProxiedAppImageWorld(tmp_path_factory.mktemp("appimage-proxy"))
    try:
        yield world
    finally:
        world.close()


def test_an_appimage_updates_control_file_and_ranges_go_through_the_desktops_proxy(appimage_world, desktop_proxy,
                                                                                      desktop, tmp_path):
    desktop.manual("127.0.0.1", desktop_proxy.port)
    apps = tmp_path / "apps"
    apps.mkdir()
    app = apps / "Demo.AppImage"
    app.write_bytes(appimage_world.v1)
    app.chmod(0o751)
    mark = desktop_proxy.mark()
    before = len(appimage_world.server.requests())
    output, status = appimage_world.run(app, tmp_path / "home", desktop.env(), "--flag")
    assert "APP VERSION=2.0 args=--flag" in output and status == 0, output
    assert app.read_bytes() == appimage_world.v2
    seen = appimage_world.server.requests()[before:]
    update = [r for r in seen if r["path"].startswith("/static/app.")]
    assert [r["path"] for r in update][:1] == ["/static/app.zsync"], seen
    ranges = [r for r in update if r["path"] == "/static/app.AppImage"]
    assert ranges and all("range" in r["headers"] for r in ranges), update
    for record in seen:            # the channel's lookup too
        assert record["headers"].get("via", "").startswith(desktop_proxy.via + " "), record
    logged = desktop_proxy.requests(mark)
    base = appimage_world.base
    assert "GET %sapp.zsync HTTP/1.1" % base in logged, logged
    assert logged.count("GET %sapp.AppImage HTTP/1.1" % base) == len(ranges), logged
    assert len(logged) == len(seen), (logged, seen)


# --- the host's process ------------------------------------------------------------------------

MAPS_HOOK = r"""
/* vg_result_free, wrapped (-Wl,--wrap): first the host's /proc/self/maps
 * (the mapped files, one a line) into $VG_TEST_MAPS, right after the check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct vg_result;
void __real_vg_result_free(struct vg_result *result);
void __wrap_vg_result_free(struct vg_result *result)
{
    const char *name = getenv("VG_TEST_MAPS");
    FILE *maps = fopen("/proc/self/maps", "re"), *out = name ? fopen(name, "we") : NULL;
    char line[4096];
    while (maps && out && fgets(line, sizeof line, maps)) {
        char *path = strchr(line, '/');
        if (path) fputs(path, out);
    }
    if (maps) fclose(maps);
    if (out) fclose(out);
    __real_vg_result_free(result);
}
"""

#: GIO and what GNOME's resolver brings (GLib, libproxy), libcurl, TLS.
FOREIGN = re.compile(r"lib(gio|glib|gobject|gmodule|proxy|curl|ssl|gnutls|nghttp2|giognomeproxy|giolibproxy)[-.]")


@pytest.fixture(scope="module")
def host_program(tmp_path_factory):
    out = tmp_path_factory.mktemp("host_process_proxy")
    library = Path(os.path.realpath(LIB_PATH))
    (out / "maps_hook.c").write_text(MAPS_HOOK)
    program = out / "host_process"
    subprocess.run(["cc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-I", str(HEADER.parent),
                    str(REPO / "Tests" / "c" / "host_process.c"), str(out / "maps_hook.c"), "-o", str(program),
                    "-L", str(library.parent), "-l:libversiongate.so.1", "-Wl,--wrap=vg_result_free",
                    "-Wl,--allow-shlib-undefined"], check=True, timeout=120)
    return program, library.parent


def test_the_host_maps_no_gio_curl_or_tls_after_a_check_through_the_desktops_proxy(
        host_program, desktop_proxy, tls_origin, certificate, desktop, tmp_path):
    from test_host_process import assert_host_untouched
    desktop.manual("127.0.0.1", desktop_proxy.port)
    program, library_dir = host_program
    maps = tmp_path / "maps.txt"
    env = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": str(library_dir), "HOME": str(tmp_path),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_STATE_HOME": str(tmp_path / "state"),
           "VG_TEST_MAPS": str(maps), **desktop.env()}
    mark = desktop_proxy.mark()
    done = subprocess.run([str(program), VERSION, "source=" + tls_origin.url("/gate.json"),
                           "tls_ca_file=%s" % certificate[0], "session_scope=process"],
                          env=env, capture_output=True, text=True, timeout=BOUND)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert (seen["status"], seen["origin"], seen["error"]) == (2, "fresh_fetch", 0), seen
    assert desktop_proxy.requests(mark) == ["CONNECT 127.0.0.2:%d HTTP/1.1" % tls_origin.port], "not through the proxy"
    assert tls_origin.peers() == ["proxy:" + desktop_proxy.name]
    assert_host_untouched(seen)
    mapped = sorted({line.strip() for line in maps.read_text().splitlines()})
    assert mapped, "the maps hook wrote nothing"
    assert [path for path in mapped if FOREIGN.search(os.path.basename(path))] == [], mapped


# --- watching ------------------------------------------------------------------------

def test_a_watched_document_is_asked_through_the_desktops_proxy(desktop_proxy, origin, env, desktop):
    """vg_client_watch's helper asks through the proxy the desktop names, as a
    check does (docs/design.md, "Watching a source")."""
    from test_watch import Watching
    desktop.manual("127.0.0.1", desktop_proxy.port)
    mark = desktop_proxy.mark()
    watching = Watching(env.vars(), "--source", origin.url("/gate.json"), "--version", VERSION,
                        "--set", "watch_interval_s=5")
    try:
        assert watching.line(BOUND).startswith("MANDATORY"), watching.stderr()
        assert wait_for(lambda: len(origin.requests()) >= 2, 9), origin.requests()
    finally:
        assert watching.end() == 0
    assert_through(desktop_proxy, origin, mark, ["/gate.json", "/gate.json"])
