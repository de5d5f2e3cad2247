"""libcurl's own descriptors never reach the host's children: a host that
runs `ls -l /proc/self/fd` through os.system (fork + exec of a shell) while
a check is fetching on another thread sees no socket of the library's.

libcurl 7.68-7.88 makes two AF_UNIX socketpairs without close-on-exec: the
wakeup pair of the multi handle every curl_easy_perform creates (alive for
the whole transfer: seen here while the server drips its answer) and the
threaded resolver's pair (alive while a name resolves: seen here while
old_curl/stalled_resolver.c holds getaddrinfo for one name). The shim
points libcurl's socket and socketpair calls at close-on-exec versions
(Sources/CurlShim/curl_cloexec.c).

Each host is a child Python (its own libcurl, preload and environment);
Python opens all its own descriptors non-inheritable, so any socket the
listing shows is the library's. Both Debian builds (OpenSSL's libcurl.so.4,
GnuTLS's libcurl-gnutls.so.4), each also behind old_curl/libcurl_wrapper.c
playing 7.68 (the request then runs on a thread of its own).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import child_env
from remote_helpers import Loopback, flat_doc
from test_old_curl import REAL, _ldconfig_path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Server"))
from make_certs import make_certs  # noqa: E402

OLD_CURL = Path(__file__).resolve().parent / "old_curl"
STALLED = "stalled.invalid"          # never leaves the machine: the preload answers it


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("descriptors")
    flags = ["cc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC"]
    wrapper = out / "wrapper"
    wrapper.mkdir()
    subprocess.run(flags + ["-o", str(wrapper / "libcurl.so.4"), str(OLD_CURL / "libcurl_wrapper.c"),
                            "-Wl,-soname,libcurl.so.4", "-ldl", "-lpthread"], check=True)
    subprocess.run(flags + ["-o", str(out / "stalled_resolver.so"), str(OLD_CURL / "stalled_resolver.c"), "-ldl"],
                   check=True)
    return {"wrapper_dir": wrapper, "stall": out / "stalled_resolver.so", "certs": make_certs(out / "pki")}


@pytest.fixture(scope="module")
def tls_server(built):
    s = Loopback(tls=(built["certs"]["server_pem"], built["certs"]["server_key"]))
    yield s
    assert s.stop() == "", "the loopback server wrote tracebacks"


#: argv[1]: {"source", "ca", "listing"}. Starts a check on a thread, lets it
#: get going (1 s: loopback connects in microseconds; the server drips for
#: 3 s and the lookup stalls for 3 s), lists through os.system, prints what
#: the library held then and which sockets the child saw.
HOST = r"""
import json, os, sys, threading, time
import versiongate as vg

def sockets():
    found = {}
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink("/proc/self/fd/" + fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            found[fd] = target
    return found

def unix_inodes():
    return {line.split()[6] for line in open("/proc/net/unix").read().splitlines()[1:] if len(line.split()) > 6}

setup = json.loads(sys.argv[1])
before = sockets()
client = vg.Client(source=setup["source"], session_scope="process", timeout_ms="6000",
                   tls_ca_file=setup["ca"])
fetching = threading.Thread(target=lambda: client.check("1.0.38").close())
fetching.start()
time.sleep(1.0)
held = {fd: target for fd, target in sockets().items() if fd not in before}
unix = unix_inodes()
status = os.system("ls -l /proc/self/fd > %s 2>&1" % setup["listing"])
fetching.join(15)
listing = open(setup["listing"]).read().splitlines()
print(json.dumps({
    "status": status, "joined": not fetching.is_alive(),
    "held": sorted(held.values()),
    "held_unix": sorted(t for t in held.values() if t[8:-1] in unix),
    "inherited": [line.split()[-3] + " " + line.split()[-1] for line in listing if "socket:[" in line],
}))
client.close()
"""


def run_host(built, tmp_path, source: str, curl: str, plays_old: bool, stall: bool) -> dict:
    path = _ldconfig_path(REAL[curl])
    assert path, "%s is not installed (scripts/setup installs it)" % REAL[curl]
    for d in ("cache", "state"):
        (tmp_path / d).mkdir(exist_ok=True)
    extra = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_STATE_HOME": str(tmp_path / "state")}
    # The wrapper forwards to the build asked for; without VG_CURL_AS it changes nothing.
    extra.update({"LD_LIBRARY_PATH": str(built["wrapper_dir"]), "VG_REAL_CURL": path})
    if plays_old:
        extra["VG_CURL_AS"] = "7.68"
    if stall:
        preload = " ".join(filter(None, [os.environ.get("LD_PRELOAD"), str(built["stall"])]))
        extra.update({"LD_PRELOAD": preload, "VG_STALL_HOST": STALLED, "VG_STALL_SECONDS": "3"})
    setup = {"source": source, "ca": str(built["certs"]["ca_pem"]), "listing": str(tmp_path / "fds.txt")}
    proc = subprocess.run([sys.executable, "-c", HOST, json.dumps(setup)], env=child_env(**extra),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.splitlines()[-1])
    assert seen["status"] == 0 and seen["joined"], seen
    return seen


VARIANTS = [("openssl", False), ("gnutls", False), ("openssl", True), ("gnutls", True)]
IDS = ["openssl", "gnutls", "openssl-as-7.68", "gnutls-as-7.68"]


@pytest.mark.parametrize("curl, plays_old", VARIANTS, ids=IDS)
def test_a_dripping_answer_leaves_no_socket_to_the_child(built, tls_server, tmp_path, curl, plays_old):
    tls_server.document("drip", flat_doc(), next=[{"delay_s": 3}])
    # A name, not an address: libcurl's whole path for one (7.85+ answers
    # "localhost" itself; older ones ask the resolver).
    source = "https://localhost:%d/doc/drip" % tls_server.port
    seen = run_host(built, tmp_path, source, curl, plays_old, stall=False)
    # Not vacuous: the connection and the multi handle's wakeup pair were open.
    assert len(seen["held"]) >= 1 and seen["held_unix"], seen
    assert seen["inherited"] == [], "the child inherited the library's sockets: %s" % seen


@pytest.mark.parametrize("curl, plays_old", VARIANTS, ids=IDS)
def test_a_name_being_resolved_leaves_no_socket_to_the_child(built, tmp_path, curl, plays_old):
    source = "https://%s/doc/gate" % STALLED
    seen = run_host(built, tmp_path, source, curl, plays_old, stall=True)
    # The resolver's pair and the wakeup pair, both AF_UNIX.
    assert len(seen["held_unix"]) >= 4, seen
    assert seen["inherited"] == [], "the child inherited the library's sockets: %s" % seen
