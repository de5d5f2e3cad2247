"""Requirements of the offered versions (docs/design.md, "Requirements"):
latest_version_<platform>_requires and min_required_version_<platform>_requires
against this machine's real glibc, kernel and architecture, and against an
/etc/os-release bind-mounted in a private mount namespace."""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess

import pytest

from cli_helpers import CLI, Env, run
from conftest import MANDATORY, OPTIONAL, UP_TO_DATE, VG_ECONFIG, VG_OK, flat, vg

GLIBC = os.confstr("CS_GNU_LIBC_VERSION").split()[1]                       # "2.36"
KERNEL = re.match(r"[0-9.]*[0-9]", platform.release()).group(0)           # "6.1.0" of "6.1.0-18-amd64"
ARCH = platform.machine()
OTHER_ARCH = "aarch64" if ARCH != "aarch64" else "x86_64"


def bump(version: str) -> str:
    """The next version after `version` at its last component."""
    parts = version.split(".")
    return ".".join(parts[:-1] + [str(int(parts[-1]) + 1)])


def decide(tmp_path, current, **keys):
    path = tmp_path / "gate.json"
    path.write_text(json.dumps(flat(min_required="1.0.30", latest="1.0.41", **keys)))
    with vg.Client(source=str(path), session_scope="process") as client, client.check(current) as result:
        return result.status, result.rule, result.error, result.reason


@pytest.mark.parametrize("clause, met", [
    (f"glibc>={GLIBC}", True), (f"glibc>{GLIBC}", False), (f"glibc<={GLIBC}", True), (f"glibc={GLIBC}", True),
    (f"glibc!={GLIBC}", False), (f"glibc<{GLIBC}", False),
    (f"kernel>={KERNEL}", True), (f"kernel>={bump(KERNEL)}", False), ("kernel>=2.6", True),
    (f"arch={ARCH}", True), (f"arch={OTHER_ARCH}|{ARCH}", True), (f"arch={OTHER_ARCH}", False),
    (f"glibc>=2.17, kernel>=3.2, arch={ARCH}", True), (f"glibc>=2.17, arch={OTHER_ARCH}, kernel>=3.2", False),
])
def test_each_clause_against_this_machine(tmp_path, clause, met):
    status, rule, error, reason = decide(tmp_path, "1.0.35", latest_version_linux_requires=clause)
    assert error == VG_OK
    if met:
        assert (status, rule) == (OPTIONAL, "below_latest"), reason
    else:
        assert (status, rule) == (UP_TO_DATE, "requirements_unmet"), reason
        assert "but this system does not meet its requirement" in reason


def test_an_unmet_minimum_still_blocks_and_says_this_system_cannot_run_it(tmp_path):
    status, rule, error, reason = decide(tmp_path, "1.0.20", min_required_version_linux_requires=f"glibc>{GLIBC}")
    assert (status, rule, error) == (MANDATORY, "below_minimum", VG_OK), "the operator's floor stands"
    assert reason.endswith(f"this system cannot run it: it does not meet glibc>{GLIBC} (glibc {GLIBC})"), reason
    status, rule, _, reason = decide(tmp_path, "1.0.20", min_required_version_linux_requires=f"glibc>={GLIBC}")
    assert (status, rule) == (MANDATORY, "below_minimum") and "cannot run" not in reason


def test_requirements_of_latest_do_not_touch_a_version_at_or_above_it(tmp_path):
    assert decide(tmp_path, "1.0.41", latest_version_linux_requires="glibc>=99")[:2] == (UP_TO_DATE, "up_to_date")
    assert decide(tmp_path, "1.0.20", latest_version_linux_requires="glibc>=99")[:2] == (MANDATORY, "below_minimum")


def test_a_malformed_clause_is_ignored_and_reported(tmp_path):
    status, rule, error, reason = decide(tmp_path, "1.0.35", latest_version_linux_requires=f"glibc>>2, arch={ARCH}")
    assert (status, rule, error) == (OPTIONAL, "below_latest", VG_ECONFIG), reason
    status, rule, error, _ = decide(tmp_path, "1.0.35", latest_version_linux_requires=f"glibc>>2, arch={OTHER_ARCH}")
    assert (status, rule, error) == (UP_TO_DATE, "requirements_unmet", VG_ECONFIG), "the good clauses still count"


OS_RELEASE = {
    "fedora": 'NAME="Fedora Linux"\nID=fedora\nVERSION_ID=40\n',
    "ubuntu": 'NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\nVERSION_ID="22.04"\n',
    "no_version": 'NAME="Debian GNU/Linux"\nID=debian\n',
}


@pytest.mark.parametrize("release, clause, met", [
    ("fedora", "os=fedora", True), ("fedora", "os=debian|ubuntu", False), ("fedora", "os_version>=40", True),
    ("fedora", "os_version>=41", False), ("ubuntu", "os=debian", True), ("ubuntu", "os_version>=22.04", True),
    ("ubuntu", "os_version>=24.04", False), ("ubuntu", "os=ubuntu, os_version>=20.04", True),
    ("no_version", "os=debian", True), ("no_version", "os_version>=12", False),
])
def test_os_clauses_with_a_bind_mounted_os_release(tmp_path, release, clause, met):
    unshare, mount = shutil.which("unshare"), shutil.which("mount")
    if os.geteuid() != 0 or not unshare or not mount:
        pytest.fail("needs root, unshare and mount (the test machine has them)")
    fake = tmp_path / "os-release"
    fake.write_text(OS_RELEASE[release])
    gate = tmp_path / "gate.json"
    gate.write_text(json.dumps(flat(min_required="1.0.30", latest="1.0.41", latest_version_linux_requires=clause)))
    env = Env(tmp_path)
    script = 'mount --bind "$1" /etc/os-release && shift && exec "$@"'
    proc = subprocess.run([unshare, "-m", "--propagation", "private", "sh", "-ec", script, "vg", str(fake),
                           str(CLI), "check", "--source", str(gate), "--version", "1.0.35", "--json",
                           "--set", "session_scope=process"],
                          env=env.vars(PATH="/usr/bin:/bin"), capture_output=True, timeout=60)
    result = json.loads(proc.stdout)
    assert (result["status"], result["rule"]) == (("OPTIONAL", "below_latest") if met
                                                   else ("UP_TO_DATE", "requirements_unmet")), (result, proc.stderr)
    # The namespace was private: this machine's own os-release is untouched.
    assert open("/etc/os-release").read() != OS_RELEASE[release]
