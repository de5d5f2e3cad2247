"""Nothing of the library's leaks into the host's children: a program the
host runs with system() while a fetch is in flight holds none of the
library's network connections (opened close-on-exec, SOCK_CLOEXEC).

libcurl's own AF_UNIX socketpairs (the resolver's and the wakeup pair) are
made close-on-exec too: Tests/python/test_descriptors.py."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

import versiongate as vg
from remote_helpers import fetch_in_flight, flat_doc, server_fixture  # noqa: F401  (the server fixture)


def test_system_during_a_fetch_inherits_no_socket(server, tmp_path):
    server.document("slow", flat_doc(), next=[{"delay_s": 2}])
    url = server.url("slow")
    listing = tmp_path / "fds.txt"
    with vg.Client(source=url, session_scope="process", timeout_ms="5000") as client:
        fetching = fetch_in_flight(client, server, "slow")
        # system(): fork + exec of a shell, with every descriptor not marked
        # close-on-exec; the child lists the TCP connections it holds.
        assert os.system("%s -c %s > %s 2>&1" % (sys.executable, shlex.quote(LIST_TCP), listing)) == 0
        fetching.join(10)
    inherited = listing.read_text().split()
    assert inherited == [], "the child inherited TCP connections: %s" % inherited


def test_the_listing_fails_when_a_table_cannot_be_read(tmp_path):
    # An unreadable table would make the child list nothing: a pass that proves nothing.
    listing = subprocess.run([sys.executable, "-c", LIST_TCP, str(tmp_path / "no-such-table")],
                             capture_output=True, text=True)
    assert listing.returncode != 0, listing.stdout + listing.stderr
    assert "no-such-table" in listing.stderr


#: Prints each descriptor of this process that is a TCP socket. The tables are
#: the arguments (default: IPv4 and IPv6); one it cannot read is an error, not
#: an empty table. Only tcp6 may be absent, on a kernel without IPv6.
LIST_TCP = r"""
import os, sys
tcp = set()
for table in sys.argv[1:] or ("/proc/net/tcp", "/proc/net/tcp6"):
    if table == "/proc/net/tcp6" and not os.path.exists("/proc/net/if_inet6"):
        continue
    try:
        tcp |= {line.split()[9] for line in open(table).read().splitlines()[1:]}
    except OSError as error:
        sys.exit("cannot read the TCP table %s: %s" % (table, error))
for fd in os.listdir("/proc/self/fd"):
    try:
        target = os.readlink("/proc/self/fd/" + fd)
    except OSError:
        continue
    if target.startswith("socket:[") and target[8:-1] in tcp:
        print(fd, target)
"""
