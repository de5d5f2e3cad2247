"""A Flatpak world on this machine, for the update in place (docs/design.md,
"Updating in place"): a runtime made from this machine's own files (busybox,
glibc, GIO), an app whose versions hold the project's library, helper and
command, a local ostree repo both are installed from (flatpak --user), a
private session bus, and the real flatpak-portal on it. Everything lives in
one directory and goes with the bus when `close` is called."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sysconfig
import time
from pathlib import Path

from conftest import LIB_PATH, REPO

APP_ID = "org.versiongate.Demo"
RUNTIME_ID = "org.versiongate.Platform"
CLI = REPO / "build" / "bin" / "versiongate"
PROBE_SOURCE = REPO / "Tests" / "flatpak" / "update_probe.c"
#: The prompt of a MANDATORY gate on the terminal, then what the test answers.
MANDATORY_PROMPT = b"[Enter]"

#: The session bus: our own services only, so that whether the portal is
#: there is the test's choice (the stock files would activate it).
BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={socket}</listen>
  <servicedir>{services}</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""

#: Activated on demand: the permission store (the portal's updates
#: permission lives there) and flatpak's session helper (flatpak run).
SERVICES = {
    "org.freedesktop.impl.portal.PermissionStore": "/usr/libexec/xdg-permission-store",
    "org.freedesktop.Flatpak": "/usr/libexec/flatpak-session-helper",
}

LAUNCHER = """#!/bin/sh
exec /app/bin/versiongate exec --dialog "${{VG_DIALOG:-terminal}}" --source /app/share/gate.json --version {version} \\
    --set store=flathub --set app_id={app} --events "$XDG_DATA_HOME/events.jsonl" -- /app/bin/demo "$@"
"""
DEMO = """#!/bin/sh
echo "DEMO VERSION={version} args=$*"
mkdir -p "$XDG_DATA_HOME" && echo "{version}" >> "$XDG_DATA_HOME/demo.log"
"""
#: Records what the library opens instead of opening it.
XDG_OPEN = """#!/bin/sh
mkdir -p "$XDG_DATA_HOME" && echo "$*" >> "$XDG_DATA_HOME/opened.log"
"""
#: Desktop dialogs that record their argv (zenity --progress its stdin
#: too) in dialogs.log and answer Update; kdialog --progressbar prints a
#: D-Bus reference as kdialog does, and dbus-send records the calls on it.
ZENITY = """#!/bin/sh
mkdir -p "$XDG_DATA_HOME" && echo "zenity $*" >> "$XDG_DATA_HOME/dialogs.log"
case " $* " in *" --progress "*) while read -r line; do echo "zenity< $line" >> "$XDG_DATA_HOME/dialogs.log"; done ;; esac
"""
KDIALOG = """#!/bin/sh
mkdir -p "$XDG_DATA_HOME" && echo "kdialog $*" >> "$XDG_DATA_HOME/dialogs.log"
case " $* " in *" --progressbar="*) echo "org.kde.kdialog-4242 /ProgressDialog" ;; esac
"""
DBUS_SEND = """#!/bin/sh
mkdir -p "$XDG_DATA_HOME" && echo "dbus-send $*" >> "$XDG_DATA_HOME/dialogs.log"
"""
#: v1 and v2 alike: below 2.0 must update (MANDATORY).
GATE = '{"min_required_version_linux": "2.0", "latest_version_linux": "2.0"}\n'


def run(argv, env, check=True, timeout=120, **kw):
    done = subprocess.run([str(a) for a in argv], env=env, capture_output=True, text=True, timeout=timeout, **kw)
    if check and done.returncode != 0:
        raise AssertionError("%s: exit %d\n%s%s" % (" ".join(map(str, argv)), done.returncode, done.stdout, done.stderr))
    return done


SANITIZER_VARIABLES = ("LD_PRELOAD", "ASAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS")


def carry_sanitizer(into: Path) -> list[str]:
    """Under scripts/proof (a sanitized library, its runtime in LD_PRELOAD):
    the preloaded files and what they load, copied into the runtime at
    `into` (/usr/lib/sanitizers in the sandbox), and the `flatpak run`
    arguments that preload them there with the same options, the report
    and suppression files' directories shared. [] outside the proof."""
    preload = os.environ.get("LD_PRELOAD", "").split()
    if not preload:
        return []
    into.mkdir(parents=True, exist_ok=True)
    for path in map(Path, preload):
        shutil.copy(path, into / path.name)
    for library in shared_libraries(preload):
        shutil.copy(library, into / library.name)
    inside = "/usr/lib/sanitizers"
    args = ["--env=LD_PRELOAD=%s" % " ".join("%s/%s" % (inside, Path(p).name) for p in preload),
            "--env=LD_LIBRARY_PATH=/app/lib:%s" % inside]
    for name in SANITIZER_VARIABLES[1:]:
        value = os.environ.get(name)
        if value is None:
            continue
        args.append("--env=%s=%s" % (name, value))
        for option in value.replace(":", " ").split():
            key, _, path = option.partition("=")
            if key in ("log_path", "suppressions") and path.startswith("/"):
                args.append("--filesystem=%s" % Path(path).parent)
    return args


def shared_libraries(paths) -> set[Path]:
    """Every library `paths` load, as ldd resolves them (not ours)."""
    found = set()
    for path in paths:
        out = subprocess.run(["ldd", str(path)], capture_output=True, text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if "=>" in parts and len(parts) > 2 and parts[2].startswith("/") and "libversiongate" not in parts[2]:
                found.add(Path(parts[2]))
    return found


def interpreter() -> Path:
    out = subprocess.run(["ldd", "/bin/true"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        word = line.split()[0]
        if word.startswith("/") and "ld-linux" in word:
            return Path(word)
    raise AssertionError("no dynamic loader in ldd /bin/true:\n" + out)


class World:
    def __init__(self, root: Path):
        self.root = root
        self.repo = root / "repo"
        self.home = root / "home"
        self.run_dir = root / "run"
        self.library_dir = Path(LIB_PATH).resolve().parent
        self.arch = subprocess.run(["flatpak", "--default-arch"], capture_output=True, text=True).stdout.strip()
        self.bus = self.portal = None
        self.home.mkdir(parents=True)
        self.run_dir.mkdir(mode=0o700)
        self.env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME": str(self.home),
            "XDG_RUNTIME_DIR": str(self.run_dir), "LANG": "C.UTF-8",
            # Where flatpak wants its exports, so it does not print a note about them.
            "XDG_DATA_DIRS": "%s/.local/share/flatpak/exports/share:/var/lib/flatpak/exports/share:/usr/share" % self.home,
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=%s/bus" % self.run_dir,
        }
        # The host's tools run without scripts/proof's sanitizer (the
        # plugin there adds it only where a variable is not set).
        self.env.update({name: "" for name in SANITIZER_VARIABLES})
        self.sanitizer_args: list[str] = []
        self.data = self.home / ".var" / "app" / APP_ID / "data"
        self.commits: dict[str, str] = {}
        self.builds = 0

    # ---------------------------------------------------------------- build

    def build(self):
        run(["ostree", "init", "--mode=archive-z2", "--repo=%s" % self.repo], self.env)
        self.start_bus()
        self.build_runtime()
        run(["flatpak", "--user", "remote-add", "--no-gpg-verify", "local", "file://%s" % self.repo], self.env)
        run(["flatpak", "--user", "install", "-y", "--noninteractive", "local", RUNTIME_ID], self.env)
        self.probe = self.root / "update_probe"
        run(["cc", "-O1", "-o", self.probe, PROBE_SOURCE, "-I%s" % (REPO / "Sources/VersionGateC/include"),
             "-L%s" % self.library_dir, "-l:%s" % Path(LIB_PATH).name,
             # A sanitized library (scripts/proof) leaves its runtime's symbols to the preload.
             "-Wl,--allow-shlib-undefined"], self.env)
        self.publish("1.0")
        run(["flatpak", "--user", "install", "-y", "--noninteractive", "local", APP_ID], self.env)

    def build_runtime(self):
        runtime = self.root / "build" / "runtime"
        multiarch = sysconfig.get_config_var("MULTIARCH") or "%s-linux-gnu" % os.uname().machine
        bin_dir, lib_dir = runtime / "usr" / "bin", runtime / "usr" / "lib" / multiarch
        bin_dir.mkdir(parents=True)
        lib_dir.mkdir(parents=True)
        (runtime / "metadata").write_text("[Runtime]\nname=%s\nruntime=%s/%s/1\nsdk=%s/%s/1\n"
                                          % (RUNTIME_ID, RUNTIME_ID, self.arch, RUNTIME_ID, self.arch))
        shutil.copy("/bin/busybox", bin_dir / "busybox")
        for applet in ("sh", "cat", "echo", "mkdir", "sleep", "ls"):
            (bin_dir / applet).symlink_to("busybox")
        gio = Path("/usr/lib/%s/libgio-2.0.so.0" % multiarch)
        ours = [CLI, Path(LIB_PATH), self.library_dir / "versiongate" / "versiongate-helper", gio]
        for library in shared_libraries(ours) | {gio}:
            shutil.copy(library, lib_dir / library.name)
        loader = interpreter()   # /lib64/ld-linux-x86-64.so.2, /lib/ld-linux-aarch64.so.1
        target = runtime / "usr" / loader.parent.name / loader.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(loader, target)
        self.sanitizer_args = carry_sanitizer(runtime / "usr" / "lib" / "sanitizers")
        run(["flatpak", "build-export", "--runtime", "--files=usr", self.repo, runtime, "1"], self.env)

    def publish(self, version: str, finish_args=()):
        """Builds the app at `version` and makes it the repo's newest."""
        self.builds += 1
        build = self.root / "build" / ("app-%s-%d" % (version, self.builds))
        run(["flatpak", "build-init", build, APP_ID, RUNTIME_ID, RUNTIME_ID, "1"], self.env)
        files = build / "files"
        for d in ("bin", "lib/versiongate", "share"):
            (files / d).mkdir(parents=True, exist_ok=True)
        shutil.copy(CLI, files / "bin" / "versiongate")
        shutil.copy(self.probe, files / "bin" / "update_probe")
        shutil.copy(LIB_PATH, files / "lib" / "libversiongate.so.1")
        shutil.copy(self.library_dir / "versiongate" / "versiongate-helper", files / "lib" / "versiongate")
        for name, text in (("app", LAUNCHER), ("demo", DEMO), ("xdg-open", XDG_OPEN), ("zenity", ZENITY),
                           ("kdialog", KDIALOG), ("dbus-send", DBUS_SEND)):
            (files / "bin" / name).write_text(text.format(version=version, app=APP_ID))
            (files / "bin" / name).chmod(0o755)
        (files / "share" / "gate.json").write_text(GATE)
        run(["flatpak", "build-finish", build, "--command=app", "--env=LD_LIBRARY_PATH=/app/lib", *finish_args], self.env)
        run(["flatpak", "build-export", "-s", "v%s" % version, self.repo, build, "master"], self.env)
        ref = "app/%s/%s/master" % (APP_ID, self.arch)
        self.commits[version] = run(["ostree", "--repo=%s" % self.repo, "rev-parse", ref], self.env).stdout.strip()

    # ---------------------------------------------------------------- bus and portal

    def start_bus(self):
        services = self.root / "services"
        services.mkdir()
        for name, program in SERVICES.items():
            (services / (name + ".service")).write_text("[D-BUS Service]\nName=%s\nExec=%s\n" % (name, program))
        config = self.root / "bus.conf"
        config.write_text(BUS_CONFIG.format(socket=self.run_dir / "bus", services=services))
        self.bus = subprocess.Popen(["dbus-daemon", "--nofork", "--config-file=%s" % config], env=self.env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        for _ in range(100):
            if (self.run_dir / "bus").exists():
                return
            time.sleep(0.05)
        raise AssertionError("the private session bus did not start")

    def start_portal(self):
        if self.portal is not None and self.portal.poll() is not None:
            raise AssertionError("flatpak-portal ended (status %s); its log: %s"
                                 % (self.portal.returncode, (self.root / "portal.log").read_text()[-2000:]))
        if self.portal is None:
            log = open(self.root / "portal.log", "ab")
            self.portal = subprocess.Popen(["/usr/libexec/flatpak-portal", "--poll-timeout=3", "--no-idle-exit"],
                                           env=self.env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                           start_new_session=True)
            for _ in range(100):
                names = run(["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus",
                             "/org/freedesktop/DBus", "org.freedesktop.DBus.ListNames"], self.env).stdout
                if "org.freedesktop.portal.Flatpak" in names:
                    return
                time.sleep(0.05)
            raise AssertionError("flatpak-portal did not take its name")

    def stop_portal(self):
        if self.portal is not None:
            self.portal.terminate()
            self.portal.wait(timeout=10)
            self.portal = None

    def allow_updates(self, allowed: bool):
        run(["flatpak", "permission-set", "flatpak", "updates", APP_ID, "yes" if allowed else "no"], self.env)

    # ---------------------------------------------------------------- state

    def installed_subject(self) -> str:
        info = run(["flatpak", "--user", "info", APP_ID], self.env).stdout
        return next(line.split(":", 1)[1].strip() for line in info.splitlines() if line.strip().startswith("Subject:"))

    def install_v1(self):
        """v1 installed, whatever the repo's newest is."""
        if self.installed_subject() != "v1.0":
            run(["flatpak", "--user", "update", "-y", "--noninteractive", "--commit=%s" % self.commits["1.0"], APP_ID],
                self.env)
        assert self.installed_subject() == "v1.0"

    def take(self, name: str) -> str:
        """The app's log file `name`, emptied."""
        path = self.data / name
        text = path.read_text() if path.exists() else ""
        path.unlink(missing_ok=True)
        return text

    # ---------------------------------------------------------------- running

    def run_app(self, *argv, answer=b"\n", timeout=120):
        """`flatpak run APP_ID argv` on a terminal (a pty), answering the
        MANDATORY prompt; its output (until every holder of the terminal,
        the restarted version too, is done) and exit status."""
        return run_on_terminal(["flatpak", "run", *self.sanitizer_args, APP_ID, *argv], self.env, answer, timeout)

    def run_app_with_dialog(self, dialog: str, timeout=120):
        """`flatpak run APP_ID` off any terminal, exec's prompt and progress
        in `dialog` (a recording fake); its stdout and stderr, and status."""
        return run(["flatpak", "run", *self.sanitizer_args, "--env=VG_DIALOG=" + dialog, APP_ID], self.env,
                   check=False, timeout=timeout, stdin=subprocess.DEVNULL)

    def run_probe(self, *argv, timeout=120, env=()):
        """The probe run to its end; `env`: NAME=VALUE settings inside the sandbox."""
        settings = ["--env=" + setting for setting in env]
        return run(["flatpak", "run", *self.sanitizer_args, *settings, "--command=update_probe", APP_ID, *argv],
                   self.env, check=False, timeout=timeout)

    def start_probe(self, output: Path, *argv):
        """The probe started, not waited for, writing to `output` (a file: a
        version it restarts holds the same descriptors, so a pipe would see
        no end while that runs)."""
        with open(output, "w") as out:
            return subprocess.Popen(["flatpak", "run", *self.sanitizer_args, "--command=update_probe", APP_ID, *argv],
                                    env=self.env, stdout=out, stderr=subprocess.STDOUT)

    def close(self):
        self.stop_portal()
        if self.bus is not None:
            os.killpg(self.bus.pid, signal.SIGTERM)
            self.bus.wait(timeout=10)
        # The activated services end with their bus; give them a moment.
        time.sleep(0.5)


def run_on_terminal(argv, env, answer: bytes, timeout: float, prompts: tuple[bytes, ...] = (MANDATORY_PROMPT,)):
    """Runs argv with a pty as its terminal; `answer` is typed at the first
    of `prompts` seen (the MANDATORY prompt by default). Its output and
    exit status."""
    master, slave = os.openpty()
    process = subprocess.Popen([str(a) for a in argv], stdin=slave, stdout=slave, stderr=slave, env=env,
                               start_new_session=True)
    os.close(slave)
    output, answered, deadline = b"", False, time.monotonic() + timeout
    try:
        while True:
            ready, _, _ = select.select([master], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise AssertionError("no end within %d s; output:\n%s" % (timeout, output.decode(errors="replace")))
            try:
                chunk = os.read(master, 4096)
            except OSError:   # EIO: every holder of the terminal is gone
                break
            if not chunk:
                break
            output += chunk
            if not answered and any(prompt in output for prompt in prompts):
                os.write(master, answer)
                answered = True
        status = process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        os.close(master)
    return output.decode(errors="replace").replace("\r\n", "\n"), status


def chroot_root(name: str) -> str:
    """The path of scripts/chroot's root `name` for this machine's
    architecture (scripts/setup makes it: it downloads)."""
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True, check=True).stdout.strip()
    found = subprocess.run([str(REPO / "scripts" / "chroot"), "path", arch, name],
                           capture_output=True, text=True, timeout=60)
    assert found.returncode == 0, found.stderr
    return found.stdout.strip()
