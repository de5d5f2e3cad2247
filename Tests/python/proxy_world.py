"""The desktop's proxy, for real (docs/design.md, "The desktop's proxy"):
a tinyproxy of the test's own on a free loopback port (its own config and
log), an origin on 127.0.0.2 (127.0.0.1 never uses a proxy) that records
every request's headers and tells, per connection, whose socket is on the
other end, GNOME's proxy settings through GSettings' keyfile backend, and a
private session bus on which GLib's PAC runner is D-Bus activated.

How a path is proven: tinyproxy adds ``Via: 1.1 NAME (tinyproxy/1.11.1)``
(NAME is each instance's own ViaProxyName) and logs every request line; the
origin looks up the peer's socket of each connection it accepts in
/proc/net/tcp and finds the process holding it: a tinyproxy of ours, or
anything else ("direct", with that process's name)."""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time
import http.server
from pathlib import Path

import fake_clock
from flatpak_world import BUS_CONFIG
from remote_helpers import SERVER_DIR, Loopback


def terminate(process: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL after 10 s; reaped either way."""
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)

TINYPROXY = shutil.which("tinyproxy") or "/usr/bin/tinyproxy"
DBUS_DAEMON = shutil.which("dbus-daemon") or "/usr/bin/dbus-daemon"
PACRUNNER_SERVICE = Path("/usr/share/dbus-1/services/org.gtk.GLib.PACRunner.service")
PACRUNNER_NAME = "org.gtk.GLib.PACRunner"


def pacrunner_program() -> str:
    """The Exec= of the system's PAC runner service file (glib-networking-services)."""
    try:
        for line in PACRUNNER_SERVICE.read_text().splitlines():
            if line.startswith("Exec="):
                return line[len("Exec="):].strip()
    except OSError:
        pass
    return "/usr/libexec/glib-pacrunner"


def missing_tools() -> str | None:
    """What scripts/setup should have installed and is not there (None: all is)."""
    for path, package in ((TINYPROXY, "tinyproxy"), (DBUS_DAEMON, "dbus-daemon"),
                          (pacrunner_program(), "glib-networking-services"),
                          ("/usr/share/glib-2.0/schemas/org.gnome.system.proxy.gschema.xml", "gsettings-desktop-schemas")):
        if not os.path.exists(path):
            return "%s is missing (package %s, scripts/setup installs it)" % (path, package)
    modules = Path("/usr/lib/%s-linux-gnu/gio/modules" % os.uname().machine)
    if modules.is_dir() and not (modules / "libgiognomeproxy.so").exists():
        return "GIO's GNOME proxy module is missing (package glib-networking)"
    return None


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class ClosedPort:
    """A loopback port bound but never listened on: a connection is
    refused, and nothing else can take the port meanwhile."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = "http://127.0.0.1:%d" % self.port

    def close(self):
        self.sock.close()


def wait_for(predicate, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


# --- tinyproxy ------------------------------------------------------------------

class TinyProxy:
    """One real tinyproxy in the foreground (-d) on a free 127.0.0.1 port."""

    #: pid -> Via name of every tinyproxy of ours that runs now.
    running: dict[int, str] = {}

    def __init__(self, root: Path, name: str, basic_auth: tuple[str, str] | None = None):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.log = self.root / ("%s.log" % name)
        self.output = self.root / ("%s.out" % name)
        self.process = None
        for _ in range(5):          # a free port can be taken before tinyproxy binds it
            self.port = free_port()
            config = self.root / ("%s.conf" % name)
            lines = ["Port %d" % self.port, "Listen 127.0.0.1", "Allow 127.0.0.1", 'LogFile "%s"' % self.log,
                     "LogLevel Info", 'ViaProxyName "%s"' % name, "MaxClients 64", "Timeout 30"]
            if basic_auth:
                lines.append("BasicAuth %s %s" % basic_auth)
            config.write_text("\n".join(lines) + "\n")
            with open(self.output, "ab") as out:
                self.process = subprocess.Popen([TINYPROXY, "-d", "-c", str(config)], stdin=subprocess.DEVNULL,
                                                stdout=out, stderr=subprocess.STDOUT)
            if wait_for(self._listening, 10):
                TinyProxy.running[self.process.pid] = name
                self.url = "http://127.0.0.1:%d" % self.port
                self.hostport = "127.0.0.1:%d" % self.port
                return
            self._end()
        raise AssertionError("tinyproxy did not start: %s %s" % (self.output.read_text()[-2000:],
                                                                  self.log.read_text()[-2000:] if self.log.exists() else ""))

    def _listening(self) -> bool:
        if self.process.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
        except OSError:
            return False

    @property
    def via(self) -> str:
        """The start of the Via header it adds: "1.1 NAME"."""
        return "1.1 %s" % self.name

    def mark(self) -> int:
        """Where its log ends now: requests(since=mark) are the later ones."""
        return self.log.stat().st_size if self.log.exists() else 0

    def requests(self, since: int = 0) -> list[str]:
        """The request lines it logged ("GET http://… HTTP/1.1", "CONNECT h:p HTTP/1.1")."""
        if not self.log.exists():
            return []
        with open(self.log, "rb") as f:
            f.seek(since)
            text = f.read().decode(errors="replace")
        return re.findall(r"Request \(file descriptor \d+\): (.+)", text)

    def log_text(self, since: int = 0) -> str:
        with open(self.log, "rb") as f:
            f.seek(since)
            return f.read().decode(errors="replace")

    def _end(self):
        if self.process is not None and self.process.poll() is None:
            terminate(self.process)

    def stop(self):
        TinyProxy.running.pop(self.process.pid, None)
        self._end()


# --- who is on the other end of a connection -----------------------------------

def _hex_address(host: str, port: int) -> str:
    """An IPv4 address as /proc/net/tcp writes it (the u32 in host order)."""
    return "%08X:%04X" % (struct.unpack("=I", socket.inet_aton(host))[0], port)


def _socket_inode(peer: tuple[str, int], local: tuple[str, int]) -> str | None:
    """The inode of the socket whose local end is `peer` and remote end `local`."""
    want_local, want_remote = _hex_address(*peer), _hex_address(*local)
    try:
        lines = Path("/proc/net/tcp").read_text().splitlines()[1:]
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if len(fields) > 9 and fields[1] == want_local and fields[2] == want_remote:
            return fields[9]
    return None


def _holds(pid: int, target: str) -> bool:
    try:
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                if os.readlink("/proc/%d/fd/%s" % (pid, fd)) == target:
                    return True
            except OSError:
                continue
    except OSError:
        pass
    return False


def peer_of(peer: tuple[str, int], local: tuple[str, int]) -> str:
    """"proxy:NAME" when a tinyproxy of ours holds the connection's other end,
    else "direct:COMM" (the process holding it) or "direct:unknown"."""
    inode = _socket_inode(peer, local)
    if inode is None or inode == "0":
        return "direct:unknown"
    target = "socket:[%s]" % inode
    for pid, name in list(TinyProxy.running.items()):
        if _holds(pid, target):
            return "proxy:" + name
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid() and _holds(int(entry), target):
            try:
                return "direct:" + Path("/proc/%s/comm" % entry).read_text().strip()
            except OSError:
                return "direct:pid-" + entry
    return "direct:unknown"


# --- the origin --------------------------------------------------------------

class Origin:
    """An HTTP (or https, given a certificate and key) server on 127.0.0.2,
    in this process: routes set by the test, every request recorded with
    its headers (lower-case names) and its connection's peer."""

    HOST = "127.0.0.2"

    def __init__(self, tls: tuple[Path, Path] | None = None):
        self.routes: dict[str, tuple[int, bytes, str]] = {}
        self.records: list[dict] = []
        self.connections: list[dict] = []
        self.lock = threading.Lock()
        outer = self
        context = None
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(str(tls[0]), str(tls[1]))

        class Handler(http.server.BaseHTTPRequestHandler):
            def setup(self):
                local = self.request.getsockname()
                connection = {"peer": peer_of(self.client_address[:2], local[:2]), "requests": 0}
                with outer.lock:
                    outer.connections.append(connection)
                self.connection_record = connection
                if context is not None:
                    self.request.settimeout(10)
                    self.request = context.wrap_socket(self.request, server_side=True)
                super().setup()

            def do_GET(self):
                self.connection_record["requests"] += 1
                headers = {k.lower(): v for k, v in self.headers.items()}
                with outer.lock:
                    outer.records.append({"path": self.path, "headers": headers,
                                          "peer": self.connection_record["peer"]})
                status, body, kind = outer.routes.get(self.path.split("?")[0], (404, b'{"detail":"not found"}',
                                                                              "application/json"))
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address):
                pass        # a client that hangs up (or fails the TLS handshake) is no test failure by itself

        self.server = Server((self.HOST, 0), Handler)
        self.port = self.server.server_address[1]
        self.scheme = "https" if tls else "http"
        self.base = "%s://%s:%d" % (self.scheme, self.HOST, self.port)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def serve(self, path: str, body, status: int = 200, kind: str = "application/json"):
        data = body if isinstance(body, bytes) else (body.encode() if isinstance(body, str) else json.dumps(body).encode())
        self.routes[path] = (status, data, kind)

    def url(self, path: str) -> str:
        return self.base + path

    def requests(self) -> list[dict]:
        with self.lock:
            return list(self.records)

    def direct_connections(self) -> list[dict]:
        """Connections whose peer is no tinyproxy of ours."""
        with self.lock:
            return [c for c in self.connections if not c["peer"].startswith("proxy:")]

    def peers(self) -> list[str]:
        with self.lock:
            return [c["peer"] for c in self.connections]

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def self_signed(directory: Path, host: str = "127.0.0.2") -> tuple[Path, Path]:
    """A certificate for IP:host (its own CA: clients are given it as tls_ca_file) and its key."""
    directory.mkdir(parents=True, exist_ok=True)
    cert, key = directory / "origin.pem", directory / "origin.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-sha256", "-days", "30", "-subj", "/CN=%s" % host, "-addext", "subjectAltName=IP:%s" % host,
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True, timeout=30)
    return cert, key


# --- the static host on 127.0.0.2 ----------------------------------------------

#: Tests/Server/loopback_server.py as it is, listening on 127.0.0.2 (its
#: --bind takes only 127.0.0.1 and ::1, and loopback never uses a proxy).
_STATIC_WRAPPER = r"""
import sys
sys.path.insert(0, sys.argv[1])
import loopback_server as server
parse = server.parse_args
def parse_args(argv=None):
    args = parse(argv)
    args.bind = "127.0.0.2"
    return args
server.parse_args = parse_args
sys.exit(server.main(sys.argv[2:]))
"""


class StaticOrigin(Loopback):
    """The loopback test server (Range answers and all: static_routes.py)
    serving a directory at /static/ on 127.0.0.2; its request log records
    headers (Via among them)."""

    def __init__(self, static: Path, max_seconds: int = 900):
        args = [sys.executable, "-c", _STATIC_WRAPPER, str(SERVER_DIR), "--max-seconds", str(max_seconds),
                "--static", str(static)]
        self.scheme = "http"
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                                     cwd=str(SERVER_DIR), env=fake_clock.unfaked_env())
        ready, _, _ = select.select([self.proc.stdout], [], [], 10)
        if not ready:
            self.proc.kill()
            raise RuntimeError("the static origin printed no port line: %s" % self.errors())
        self.port = json.loads(self.proc.stdout.readline())["port"]
        self.ssl_context = None

    def url(self, name: str) -> str:
        return "http://127.0.0.2:%d/doc/%s" % (self.port, name)

    def _call(self, method: str, path: str, body: bytes | None = None):
        import http.client
        conn = http.client.HTTPConnection("127.0.0.2", self.port, timeout=10)
        try:
            conn.request(method, path, body=body, headers={"Content-Type": "application/json"} if body else {})
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()


# --- GNOME's proxy settings -------------------------------------------------------

def _gvariant_string(text: str) -> str:
    return "'%s'" % text.replace("\\", "\\\\").replace("'", "\\'")


class Desktop:
    """GNOME's proxy settings (org.gnome.system.proxy) in GSettings' keyfile
    backend under an XDG_CONFIG_HOME of the test's own."""

    def __init__(self, root: Path):
        self.config = Path(root) / "config"
        self.keyfile = self.config / "glib-2.0" / "settings" / "keyfile"
        self.keyfile.parent.mkdir(parents=True, exist_ok=True)

    def _write(self, groups: dict[str, dict[str, str]]):
        text = ""
        for group, keys in groups.items():
            text += "[%s]\n" % group + "".join("%s=%s\n" % item for item in keys.items()) + "\n"
        self.keyfile.write_text(text)

    def manual(self, host: str, port: int, https: tuple[str, int] | None = None, ignore_hosts=(),
               user: str | None = None, password: str | None = None):
        """mode='manual': http (and https, default the same) at host:port."""
        ignore = "@as []" if not ignore_hosts else "[%s]" % ", ".join(map(_gvariant_string, ignore_hosts))
        http_keys = {"host": _gvariant_string(host), "port": str(port)}
        if user is not None:
            http_keys.update({"use-authentication": "true", "authentication-user": _gvariant_string(user),
                              "authentication-password": _gvariant_string(password or "")})
        https_host, https_port = https or (host, port)
        self._write({"system/proxy": {"mode": "'manual'", "ignore-hosts": ignore},
                     "system/proxy/http": http_keys,
                     "system/proxy/https": {"host": _gvariant_string(https_host), "port": str(https_port)}})

    def auto(self, pac_url: str, ignore_hosts=()):
        """mode='auto' with a PAC file's URL."""
        ignore = "@as []" if not ignore_hosts else "[%s]" % ", ".join(map(_gvariant_string, ignore_hosts))
        self._write({"system/proxy": {"mode": "'auto'", "autoconfig-url": _gvariant_string(pac_url),
                                      "ignore-hosts": ignore}})

    def none(self):
        self._write({"system/proxy": {"mode": "'none'"}})

    def env(self) -> dict[str, str]:
        return {"XDG_CONFIG_HOME": str(self.config), "GSETTINGS_BACKEND": "keyfile", "XDG_CURRENT_DESKTOP": "GNOME"}


# --- a private session bus with GLib's PAC runner -------------------------------

# A private session bus: flatpak_world's configuration (BUS_CONFIG, imported above).


class SessionBus:
    """`dbus-daemon --session --nofork --print-address` with only our
    service directory: org.gtk.GLib.PACRunner, activated on demand."""

    def __init__(self, root: Path):
        self.root = Path(root)
        services = self.root / "services"
        services.mkdir(parents=True, exist_ok=True)
        (services / (PACRUNNER_NAME + ".service")).write_text(
            "[D-BUS Service]\nName=%s\nExec=%s\n" % (PACRUNNER_NAME, pacrunner_program()))
        # A short path: a unix socket's path has 108 bytes at most.
        self.dir = Path(tempfile.mkdtemp(prefix="vg-bus-"))
        config = self.root / "bus.conf"
        config.write_text(BUS_CONFIG.format(socket=self.dir / "bus", services=services))
        self.errors = open(self.root / "bus.err", "wb")
        self.process = subprocess.Popen([DBUS_DAEMON, "--config-file=%s" % config, "--print-address=1", "--nofork"],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.errors,
                                        env={"PATH": "/usr/bin:/bin", "HOME": str(self.root)})
        ready, _, _ = select.select([self.process.stdout], [], [], 10)
        if not ready:
            self.stop()
            raise AssertionError("the private session bus printed no address: %s" % (self.root / "bus.err").read_text())
        self.address = self.process.stdout.readline().decode().strip()

    def _call(self, method: str, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["dbus-send", "--bus=%s" % self.address, "--print-reply", "--dest=org.freedesktop.DBus",
                               "/org/freedesktop/DBus", "org.freedesktop.DBus." + method, *args],
                              capture_output=True, text=True, timeout=10)

    def pacrunner_pid(self) -> int | None:
        """The activated PAC runner's pid (None: it is not on the bus)."""
        done = self._call("GetConnectionUnixProcessID", "string:" + PACRUNNER_NAME)
        match = re.search(r"uint32 (\d+)", done.stdout)
        return int(match.group(1)) if done.returncode == 0 and match else None

    def stop(self):
        """The PAC runner first (the bus's child: it reaps it), then the bus."""
        if self.process.poll() is None:
            pid = self.pacrunner_pid()
            if pid is not None:
                try:
                    os.kill(pid, 15)
                except ProcessLookupError:
                    pass
                wait_for(lambda: not Path("/proc/%d" % pid).exists() or self.pacrunner_pid() is None, 5)
            terminate(self.process)
        self.process.stdout.close()
        self.errors.close()
        shutil.rmtree(self.dir, ignore_errors=True)
