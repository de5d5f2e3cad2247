"""Updating an AppImage in place (docs/design.md, "Updating an AppImage by
zsync"), end to end: v1 of a small ELF with an AppImage's update
information (.upd_info: zsync|URL) and a 4 MiB payload runs `versiongate
exec` on a terminal (a pty); its gate says MANDATORY; Update rebuilds
$APPIMAGE as v2 from its own blocks and Range requests to a loopback static
host (Tests/Server, checked against Debian's zsync client in
Tests/Server/test_static_ranges.py), then starts it with COMMAND's
arguments. Every failure leaves v1 as it was, nothing beside it, and
MANDATORY still blocks with the store opened and the reason said."""

from __future__ import annotations

import base64
import json
import os
import random
import tempfile
import time
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from cli_helpers import CLI
from flatpak_world import DBUS_SEND, KDIALOG, ZENITY, run_on_terminal
from remote_helpers import Loopback

REPO = Path(__file__).resolve().parents[2]
BLOCK = 4096
PAYLOAD = 4 << 20
APP_ID = "org.example.AppImageDemo"

pytestmark = pytest.mark.skipif(shutil.which("zsyncmake") is None or shutil.which("objcopy") is None,
                                reason="zsync and binutils are installed by scripts/setup")


def build_app(directory: Path, version: str, payload: bytes, update_information: str) -> Path:
    """The ELF: app.c as `version`, with .payload and .upd_info sections."""
    elf = directory / ("app-%s.elf" % version)
    subprocess.run(["cc", "-O2", '-DAPP_VERSION="%s"' % version, str(REPO / "Tests" / "appimage" / "app.c"),
                    "-o", str(elf)], check=True, timeout=60)
    (directory / "payload.bin").write_bytes(payload)
    (directory / "upd_info.bin").write_bytes(update_information.encode().ljust(1024, b"\0"))
    out = directory / ("app-%s.AppImage" % version)
    subprocess.run(["objcopy", "--add-section", ".payload=%s" % (directory / "payload.bin"),
                    "--set-section-flags", ".payload=noload,readonly",
                    "--add-section", ".upd_info=%s" % (directory / "upd_info.bin"),
                    "--set-section-flags", ".upd_info=noload,readonly", str(elf), str(out)], check=True, timeout=60)
    for name in ("payload.bin", "upd_info.bin", elf.name):
        (directory / name).unlink()
    return out


class World:
    """v1 and v2, the static host serving v2 and its .zsync, and a place
    for the running AppImage (a copy of v1 the update may replace)."""

    def __init__(self, root: Path):
        self.root = root
        self.www = root / "www"
        self.www.mkdir()
        self.server = Loopback(static=self.www)
        self.base = "http://127.0.0.1:%d/static/" % self.server.port
        rng = random.Random(7)
        payload1 = bytearray(rng.randbytes(PAYLOAD))
        payload2 = bytearray(payload1)
        for block in rng.sample(range(PAYLOAD // BLOCK), PAYLOAD // BLOCK // 100):   # 1 % of the blocks
            payload2[block * BLOCK:(block + 1) * BLOCK] = rng.randbytes(BLOCK)
        build = root / "build"
        build.mkdir()
        info = "zsync|" + self.base + "app.zsync"
        self.v1 = build_app(build, "1.0", bytes(payload1), info).read_bytes()
        self.v1_github = build_app(build, "1.0", bytes(payload1),
                                   "gh-releases-zsync|someone|demo|latest|Demo-*-x86_64.AppImage.zsync").read_bytes()
        v2 = build_app(build, "2.0", bytes(payload2), info)
        shutil.copy(v2, self.www / "app.AppImage")
        self.v2 = v2.read_bytes()
        self.publish("app.AppImage")
        gate = root / "gate.json"
        gate.write_text('{"min_required_version_linux": "2.0"}')
        self.gate = gate

    def publish(self, url: str):
        """app.zsync for v2, naming `url` (relative to it) as the file."""
        subprocess.run(["zsyncmake", "-b", str(BLOCK), "-u", url, "-o", str(self.www / "app.zsync"),
                        str(self.www / "app.AppImage")], check=True, capture_output=True, timeout=60)

    def place(self, directory: Path, mode: int = 0o751, v1: bytes | None = None) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        app = directory / "Demo.AppImage"
        app.write_bytes(v1 or self.v1)
        app.chmod(mode)
        return app

    def run(self, app: Path | None, home: Path, *arguments: str, cli=CLI, gate=None, options=(), prefix=(), env_extra=None):
        fake = home / "bin"
        fake.mkdir(parents=True, exist_ok=True)
        (fake / "xdg-open").write_text('#!/bin/sh\necho "$*" >> %s/opened.log\n' % home)
        (fake / "xdg-open").chmod(0o755)
        env = {"PATH": "%s:/usr/bin:/bin" % fake, "HOME": str(home), "LANG": "C.UTF-8",
               "XDG_CACHE_HOME": str(home / "cache"), "XDG_STATE_HOME": str(home / "state")}
        if app is not None:
            env["APPIMAGE"] = str(app)
        env.update(env_extra or {})
        command = [str(app) if app else "/bin/echo", *arguments]
        return run_on_terminal([*prefix, cli, "exec", "--dialog", "terminal",
                                "--source", gate or self.gate, "--version", "1.0", "--set", "store=flathub",
                                "--set", "app_id=" + APP_ID, "--set", "flathub_endpoint=" + self.base,
                                *[a for o in options for a in ("--set", o)], "--", *command], env, b"\n", 120)

    def update_requests(self) -> list[dict]:
        """Requests for the .zsync file or the AppImage (not the channel's)."""
        return [r for r in self.server.requests() if r["path"].startswith("/static/app.")]

    def fetched_bytes(self, since: int = 0) -> int:
        """The bytes asked for by Range in update requests from the `since`th on."""
        total = 0
        for record in self.update_requests()[since:]:
            for first, last in re.findall(r"(\d+)-(\d+)", (record.get("headers") or {}).get("range", "")):
                total += int(last) - int(first) + 1
        return total

    def close(self):
        assert self.server.stop() == "", "the loopback server wrote tracebacks"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    w = World(tmp_path_factory.mktemp("appimage"))
    try:
        yield w
    finally:
        w.close()


def assert_blocked_with_store(home: Path, output: str, status: int, reason: str):
    assert status == 20, output
    assert output.count("cannot update in place") == 1, output
    assert re.search("cannot update in place: .*%s" % re.escape(reason), output), output
    assert (home / "opened.log").read_text().split() == ["appstream:" + APP_ID], output
    assert "APP VERSION" not in output, output


def test_update_rebuilds_the_appimage_as_v2_and_starts_it(world, tmp_path):
    world.publish("app.AppImage")
    app = world.place(tmp_path / "apps")
    before = len(world.update_requests())
    output, status = world.run(app, tmp_path, "--flag", "two words")
    assert "Updating:" in output and "100%" in output, output
    assert "APP VERSION=2.0 args=--flag two words" in output, output
    assert status == 0, output
    assert app.read_bytes() == world.v2
    assert stat.S_IMODE(app.stat().st_mode) == 0o751
    assert sorted(p.name for p in app.parent.iterdir()) == ["Demo.AppImage"]
    fetched = world.fetched_bytes(since=before)
    assert len(world.update_requests()) > before
    assert 0 < fetched < len(world.v2) // 2, (fetched, len(world.v2))


def test_corrupt_bytes_leave_v1_and_still_block(world, tmp_path):
    world.publish("app.AppImage?corrupt=1")
    try:
        app = world.place(tmp_path / "apps")
        output, status = world.run(app, tmp_path, "--flag")
    finally:
        world.publish("app.AppImage")
    assert_blocked_with_store(tmp_path, output, status, "does not match the control file")
    assert app.read_bytes() == world.v1
    assert sorted(p.name for p in app.parent.iterdir()) == ["Demo.AppImage"]


def test_without_appimage_nothing_is_fetched(world, tmp_path):
    before = len(world.update_requests())
    output, status = world.run(None, tmp_path, "STARTED")
    assert_blocked_with_store(tmp_path, output, status, "nor an AppImage ($APPIMAGE is unset)")
    assert len(world.update_requests()) == before


def test_a_directory_the_user_cannot_write_opens_the_store(world, tmp_path):
    """As an ordinary user (uid 65534), the AppImage in root's directory."""
    shared = Path(tempfile.mkdtemp(prefix="vg-appimage-"))
    try:
        shared.chmod(0o755)
        bin_dir, lib_dir = shared / "bin", shared / "lib"
        (lib_dir / "versiongate").mkdir(parents=True)
        bin_dir.mkdir()
        built = REPO / "build" / "lib"
        for library in built.glob("libversiongate.so*"):
            shutil.copy(library, lib_dir / library.name, follow_symlinks=True)
        shutil.copy(built / "versiongate" / "versiongate-helper", lib_dir / "versiongate" / "versiongate-helper")
        shutil.copy(CLI, bin_dir / "versiongate")
        app = world.place(shared / "apps", mode=0o755)
        home = shared / "home"
        home.mkdir()
        os.chown(home, 65534, 65534)
        gate = shared / "gate.json"
        shutil.copy(world.gate, gate)
        # Under scripts/proof: the sanitizer runtime and its reports where nobody can reach them.
        from unprivileged import Sandbox
        box = Sandbox()
        try:
            sanitizer = {k: v for k, v in box.env().items() if k in ("ASAN_OPTIONS", "TSAN_OPTIONS", "LD_PRELOAD")}
            output, status = world.run(app, home, "--flag", cli=bin_dir / "versiongate", gate=gate,
                                       prefix=["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"],
                                       env_extra={"LD_LIBRARY_PATH": str(lib_dir), **sanitizer})
        finally:
            box.close()
        assert_blocked_with_store(home, output, status, "cannot write %s" % app.parent)
        assert app.read_bytes() == world.v1
        assert sorted(p.name for p in app.parent.iterdir()) == ["Demo.AppImage"]
    finally:
        shutil.rmtree(shared)


def library_update(world, app: Path, tmp_path: Path, monkeypatch, progress=None):
    """Client.update from Python (the real library in this process), with
    $APPIMAGE naming `app`: its outcome, message, progress steps and events."""
    import versiongate as vg
    monkeypatch.setenv("APPIMAGE", str(app))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    seen, steps = [], []

    def step(*values):
        steps.append(values)
        return progress(*values) if progress else 0

    with vg.Client(source=str(world.gate), flathub_endpoint=world.base) as client:
        client.events_to(seen.append)
        with client.check("1.0") as result:
            outcome, why = client.update(result, progress=step)
    told = [(e["event"], e.get("kind"), e.get("outcome")) for e in seen if e["event"].startswith("update_")]
    return outcome, why, steps, told


def test_the_library_updates_with_progress_and_tells_the_kind(world, tmp_path, monkeypatch):
    import versiongate as vg
    app = world.place(tmp_path / "apps")
    outcome, why, steps, told = library_update(world, app, tmp_path, monkeypatch)
    assert outcome is vg.UpdateOutcome.INSTALLED, why
    assert steps[-1] == (0, 1, 100) and len(steps) > 2, steps
    assert [percent for _, _, percent in steps] == sorted(percent for _, _, percent in steps)
    assert told == [("update_started", "appimage", None), ("update_installed", "appimage", None)]
    assert app.read_bytes() == world.v2


def test_the_library_says_verify_failed_for_corrupt_bytes(world, tmp_path, monkeypatch):
    import versiongate as vg
    world.publish("app.AppImage?corrupt=1")
    try:
        app = world.place(tmp_path / "apps")
        outcome, why, _, told = library_update(world, app, tmp_path, monkeypatch)
    finally:
        world.publish("app.AppImage")
    assert outcome is vg.UpdateOutcome.VERIFY_FAILED, why
    assert "is unchanged" in why
    assert told == [("update_started", "appimage", None), ("update_failed", "appimage", "verify_failed")]
    assert app.read_bytes() == world.v1


def test_a_cancelled_update_replaces_nothing_and_leaves_nothing(world, tmp_path, monkeypatch):
    import versiongate as vg
    app = world.place(tmp_path / "apps")
    outcome, why, steps, _ = library_update(world, app, tmp_path, monkeypatch,
                                            progress=lambda op, count, percent: 1 if percent > 0 else 0)
    assert outcome is vg.UpdateOutcome.CANCELLED, why
    assert "unchanged" in why
    # The helper stops at its next step, after this call returned.
    deadline = time.monotonic() + 10
    while len(list(app.parent.iterdir())) > 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sorted(p.name for p in app.parent.iterdir()) == ["Demo.AppImage"]
    assert app.read_bytes() == world.v1


def test_gh_releases_zsync_is_resolved_through_the_github_api(world, tmp_path):
    """The release `latest` of someone/demo, at github_api_endpoint: its
    asset named like the glob is the .zsync file."""
    releases = world.www / "repos" / "someone" / "demo" / "releases"
    releases.mkdir(parents=True, exist_ok=True)
    (releases / "latest").write_text(json.dumps({"tag_name": "2.0", "assets": [
        {"name": "Demo-2.0-x86_64.AppImage", "browser_download_url": world.base + "app.AppImage"},
        {"name": "Demo-2.0-x86_64.AppImage.zsync", "browser_download_url": world.base + "app.zsync"}]}))
    app = world.place(tmp_path / "apps", v1=world.v1_github)
    before = len(world.server.requests())
    output, status = world.run(app, tmp_path, "--flag", options=["github_api_endpoint=" + world.base.rstrip("/")])
    assert "APP VERSION=2.0 args=--flag" in output, output
    assert status == 0, output
    assert app.read_bytes() == world.v2
    asked = [r for r in world.server.requests()[before:] if not r["path"].startswith("/static/api/")]  # not the channel's
    assert [r["path"] for r in asked] == ["/static/repos/someone/demo/releases/latest", "/static/app.zsync",
                                          "/static/app.AppImage"], asked
    assert (asked[0]["headers"] or {}).get("accept") == "application/vnd.github+json"


def test_trusted_keys_refuse_a_bad_signature_and_take_a_good_one(world, tmp_path):
    """With trusted_keys, the new file needs app.AppImage.minisig by one of
    them beside it on the server (the gate document is signed too, as
    trusted_keys asks of every document)."""
    keys = tmp_path / "keys"
    keys.mkdir()
    public, secret = keys / "k.pub", keys / "k.key"
    subprocess.run(["minisign", "-G", "-W", "-p", str(public), "-s", str(secret)], check=True, capture_output=True)
    key = public.read_text().splitlines()[1]

    def sign(path: Path, signature: Path, legacy: bool = False):
        subprocess.run(["minisign", "-S", *(["-l"] if legacy else []), "-s", str(secret), "-m", str(path),
                        "-x", str(signature)], check=True, capture_output=True)

    gate = tmp_path / "gate.json"
    shutil.copy(world.gate, gate)
    sign(gate, tmp_path / "gate.json.minisig")
    signature = world.www / "app.AppImage.minisig"
    other = keys / "other"
    other.write_bytes(b"not the AppImage")
    try:
        sign(other, signature)
        app = world.place(tmp_path / "bad")
        output, status = world.run(app, tmp_path / "h1", "--flag", gate=gate, options=["trusted_keys=" + key])
        assert_blocked_with_store(tmp_path / "h1", output, status, "does not match its signature")
        assert app.read_bytes() == world.v1
        assert sorted(p.name for p in app.parent.iterdir()) == ["Demo.AppImage"]

        # Prehashed (minisign's default: the file's BLAKE2b-512, read a
        # piece at a time), then legacy (Ed25519 over the whole file).
        for legacy in (False, True):
            sign(world.www / "app.AppImage", signature, legacy=legacy)
            assert base64.b64decode(signature.read_text().splitlines()[1])[:2] == (b"Ed" if legacy else b"ED")
            app = world.place(tmp_path / ("good-legacy" if legacy else "good"))
            home = tmp_path / ("h3" if legacy else "h2")
            output, status = world.run(app, home, "--flag", gate=gate, options=["trusted_keys=" + key])
            assert "APP VERSION=2.0 args=--flag" in output, output
            assert status == 0 and app.read_bytes() == world.v2
    finally:
        signature.unlink(missing_ok=True)


def update_with_dialog(world, tmp_path: Path, dialog: str) -> list[str]:
    """Off any terminal, exec's prompt and progress in `dialog` (recording
    fakes that answer Update): v2 runs, no store opens; the dialogs' log."""
    app = world.place(tmp_path / "apps")
    fake = tmp_path / "bin"
    fake.mkdir()
    for name, text in (("zenity", ZENITY), ("kdialog", KDIALOG), ("dbus-send", DBUS_SEND),
                       ("xdg-open", '#!/bin/sh\necho "$*" >> %s/opened.log\n' % tmp_path)):
        (fake / name).write_text(text)
        (fake / name).chmod(0o755)
    env = {"PATH": "%s:/usr/bin:/bin" % fake, "HOME": str(tmp_path), "LANG": "C.UTF-8", "DISPLAY": ":99",
           "APPIMAGE": str(app), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_STATE_HOME": str(tmp_path / "state")}
    done = subprocess.run([str(CLI), "exec", "--dialog", dialog, "--source", str(world.gate), "--version", "1.0",
                           "--set", "store=flathub", "--set", "app_id=" + APP_ID, "--set", "flathub_endpoint=" + world.base,
                           "--", str(app), "--flag"], env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120)
    assert "APP VERSION=2.0 args=--flag" in done.stdout and done.returncode == 0, done.stdout + done.stderr
    assert not (tmp_path / "opened.log").exists()
    assert app.read_bytes() == world.v2
    return (tmp_path / "data" / "dialogs.log").read_text().splitlines()


def test_zenity_shows_the_progress_of_an_appimage_update(world, tmp_path):
    log = update_with_dialog(world, tmp_path, "zenity")
    assert log[0].startswith("zenity --warning "), log
    assert re.fullmatch(r"zenity --progress --auto-close --no-cancel --width=420 --title=.+ --text=Updating", log[1]), log
    values = [int(line.split()[1]) for line in log[2:] if not line.startswith("zenity< #")]
    assert values and values == sorted(values) and values[-1] == 100, log


def test_kdialog_shows_the_progress_of_an_appimage_update(world, tmp_path):
    log = update_with_dialog(world, tmp_path, "kdialog")
    assert log[0].startswith("kdialog --title=") and " --sorry=" in log[0], log
    assert re.fullmatch(r"kdialog --title=.+ --progressbar=Updating 100", log[1]), log
    set_value = ("dbus-send --session --type=method_call --dest=org.kde.kdialog-4242 /ProgressDialog "
                 "org.freedesktop.DBus.Properties.Set string:org.kde.kdialog.ProgressDialog string:value variant:int32:")
    values = [int(line[len(set_value):]) for line in log[2:] if line.startswith(set_value)]
    assert values and values == sorted(values) and values[-1] == 100, log
