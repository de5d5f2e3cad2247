"""The wheel as PyPI would receive it, built by pip through the in-tree
backend (python/versiongate_build.py) and judged by the real tools:

- ``auditwheel show``: the library inside needs nothing newer than the
  wheel's tag says, and that tag is manylinux_2_31_x86_64 or older;
- ``twine check --strict``: the metadata and the long description render;
- ``readelf -S``: the library inside has no symbol table or debug sections
  and is smaller than build/portable/lib's unstripped one;
- METADATA has every field PyPI shows, equal to pyproject.toml's [project];
- the wheel installs into a fresh virtual environment with no index and
  checks examples/gate.json from a directory outside the repository.

auditwheel and twine come from PyPI: ``scripts/setup`` installs them in a
virtual environment of their own, build/wheel-tools.
"""

from __future__ import annotations

import email.parser
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import REPO

TOOLS = str(REPO / "build" / "wheel-tools" / "bin" / "python")   # scripts/setup
from test_install import BUILD_SECONDS, clean_env, sh, unsanitized

VERSION = (REPO / "VERSION").read_text().strip()
LIBRARY = "versiongate/libversiongate.so.1"
INFO = "versiongate-%s.dist-info" % VERSION
# The newest glibc the wheel may require: Debian 11's (scripts/debian11).
NEWEST_FLOOR = (2, 31)
# auditwheel's legacy names for the PEP 600 tags they alias.
LEGACY = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # As a publisher builds it: pip, the PEP 517 hooks, no index (the backend needs nothing).
    sh([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-index", "-w", out, REPO / "python"],
       out, timeout=BUILD_SECONDS)
    wheels = list(out.glob("*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def glibc_floor(tag: str) -> tuple[int, int]:
    """(2, 31) for manylinux_2_31_x86_64 (or a legacy alias); fails on any other tag."""
    m = re.fullmatch(r"manylinux_(\d+)_(\d+)_x86_64", tag) or re.fullmatch(r"(manylinux\d+)_x86_64", tag)
    assert m, "not a manylinux x86_64 tag: %s" % tag
    return LEGACY[m[1]] if m.lastindex == 1 else (int(m[1]), int(m[2]))


def auditwheel_floor(report: str) -> tuple[int, int]:
    """The glibc floor auditwheel finds for the wheel's contents. Its report
    is wrapped at 72 columns, hence the joined words; a library that needs
    a non-system library is reported as linux_x86_64 and fails here."""
    flat = " ".join(report.split())
    m = re.search(r'is consistent with the following platform tag: "([^"]+)"', flat)
    assert m, "auditwheel gave no platform tag:\n" + report
    return glibc_floor(m[1])


def wheel_tag(path: Path) -> str:
    return path.name[:-len(".whl")].split("-")[-1]


def section_names(library: Path) -> list[str]:
    out = sh(["readelf", "-S", "-W", library], library.parent).stdout
    return re.findall(r"^\s*\[\s*[1-9]\d*\]\s+(\S+)", out, re.M)   # [0] is the unnamed NULL section


def test_auditwheel_confirms_the_manylinux_tag(wheel):
    claimed = glibc_floor(wheel_tag(wheel))
    assert claimed <= NEWEST_FLOOR, wheel.name
    report = sh([TOOLS, "-m", "auditwheel", "show", wheel], wheel.parent).stdout
    # The tag may only promise what the library allows (auditwheel's floor) and no more than 2.31.
    needed = auditwheel_floor(report)
    assert needed <= claimed, "auditwheel: the library needs glibc %d.%d, the tag claims %d.%d\n%s" % (
        needed + claimed + (report,))
    with zipfile.ZipFile(wheel) as archive:
        assert "Tag: py3-none-%s\n" % wheel_tag(wheel) in archive.read(INFO + "/WHEEL").decode()


def test_twine_check_strict(wheel):
    proc = subprocess.run([TOOLS, "-m", "twine", "check", "--strict", wheel],
                          capture_output=True, text=True, timeout=120, env=unsanitized(dict(os.environ)))
    assert proc.returncode == 0 and "PASSED" in proc.stdout, proc.stdout + proc.stderr
    assert "WARNING" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr


def test_the_library_inside_is_stripped(wheel, tmp_path):
    with zipfile.ZipFile(wheel) as archive:
        archive.extract(LIBRARY, tmp_path)
    inside = tmp_path / LIBRARY
    unstripped = REPO / "build" / "portable" / "lib" / ("libversiongate.so." + VERSION)
    names = section_names(inside)
    assert ".dynsym" in names and ".text" in names, names
    assert [n for n in names if n in (".symtab", ".strtab") or n.startswith(".debug")] == [], names
    # The control: build/portable/lib's copy has what the wheel's must not (so the check above can see it).
    assert ".symtab" in section_names(unstripped)
    assert inside.stat().st_size < unstripped.stat().st_size
    exports = sh(["readelf", "--dyn-syms", "-W", inside], tmp_path).stdout
    assert re.search(r"\bvg_check\b", exports)          # stripping kept what callers link to


def test_the_metadata_pypi_shows(wheel):
    tomllib = pytest.importorskip("tomllib", reason="pyproject.toml is read with Python 3.11's tomllib")
    with zipfile.ZipFile(wheel) as archive:
        text = archive.read(INFO + "/METADATA").decode("utf-8")
        names = archive.namelist()
        license_text = archive.read(INFO + "/LICENSE")
        record = archive.read(INFO + "/RECORD").decode()
    meta = email.parser.Parser().parsestr(text)
    project = tomllib.loads((REPO / "python" / "pyproject.toml").read_text())["project"]

    assert meta["Metadata-Version"] == "2.1"
    assert (meta["Name"], meta["Version"]) == (project["name"], VERSION)
    assert project["dynamic"] == ["version"]
    assert meta["Summary"] == project["description"]
    assert meta["Requires-Python"] == project["requires-python"] == ">=3.8"
    assert meta["License"] == project["license"]["text"] == "MIT"
    assert meta["Author"] == project["authors"][0]["name"]
    assert meta["Keywords"] == ",".join(project["keywords"])
    assert meta.get_all("Classifier") == project["classifiers"]
    for required in ("Development Status :: ", "Intended Audience :: Developers",
                     "License :: OSI Approved :: MIT License", "Operating System :: POSIX :: Linux",
                     "Programming Language :: Python :: 3", "Programming Language :: C",
                     "Topic :: Software Development :: Libraries", "Typing :: Typed"):
        assert any(c.startswith(required) for c in meta.get_all("Classifier")), required
    assert meta.get_all("Project-URL") == ["%s, %s" % item for item in project["urls"].items()]
    assert "Homepage" in project["urls"] and "Source" in project["urls"]

    readme = project["readme"]
    assert meta["Description-Content-Type"] == readme["content-type"] == "text/markdown"
    assert meta.get_payload() == (REPO / "python" / readme["file"]).read_text(encoding="utf-8")
    assert "glibc 2.31" in meta.get_payload()

    assert license_text == (REPO / "LICENSE").read_bytes() and license_text.startswith(b"MIT License")
    assert INFO + "/LICENSE" in names and (INFO + "/LICENSE,sha256=") in record


def test_installs_and_checks_in_a_fresh_venv(wheel, tmp_path):
    venv, outside = tmp_path / "venv", tmp_path / "elsewhere"
    outside.mkdir()
    sh([sys.executable, "-m", "venv", venv], tmp_path)
    # pip refuses a wheel whose tag this machine does not support: the tag is installable here.
    sh([venv / "bin" / "pip", "install", "--quiet", "--no-index", wheel], outside, clean_env(), timeout=300)
    code = ("import versiongate as vg, sys\n"
            "for version in ('1.0.38', '1.0.40', '1.0.41'):\n"
            "    with vg.Client(source=sys.argv[1], session_scope='process') as c, c.check(version) as r:\n"
            "        print(r.status.name, r.error_name, r.store_url)\n"
            "print(vg.LIBRARY_PATH, vg.library_version())\n")
    out = sh([venv / "bin" / "python", "-c", code, REPO / "examples" / "gate.json"], outside,
             clean_env()).stdout.splitlines()
    store = "https://flathub.org/apps/com.example.Launcher"
    assert [line.split()[0] for line in out[:3]] == ["MANDATORY", "OPTIONAL", "UP_TO_DATE"], out
    assert out[0].split()[1:] == ["VG_OK", store], out
    library, version = out[3].split()
    assert library.startswith(str(venv)) and library.endswith("/" + LIBRARY), library
    assert version == VERSION
    # A remote check goes through the wheel's own fetch helper, beside its .so
    # (pip keeps its mode: docs/design.md, "The fetch helper").
    from remote_helpers import Loopback, flat_doc
    server = Loopback()
    try:
        server.document("wheel", flat_doc())
        remote = ("import versiongate as vg, sys\n"
                  "with vg.Client(source=sys.argv[1], session_scope='process') as c, c.check('1.0.38') as r:\n"
                  "    print(r.status.name, r.origin, r.error_name)\n")
        env = clean_env(XDG_CACHE_HOME=str(tmp_path / "cache"), XDG_STATE_HOME=str(tmp_path / "state"))
        fetched = sh([venv / "bin" / "python", "-c", remote, server.url("wheel")], outside, env).stdout.split()
    finally:
        assert server.stop() == ""
    assert fetched == ["MANDATORY", "fresh_fetch", "VG_OK"], fetched


def backend():
    sys.path.insert(0, str(REPO / "python"))
    try:
        import versiongate_build
    finally:
        sys.path.remove(str(REPO / "python"))
    return versiongate_build


def test_tags_name_the_machine_and_the_build(monkeypatch):
    """Portable wheels claim glibc 2.31 on x86_64 and aarch64; a host wheel
    claims only this system (linux_*); other machines are refused."""
    build = backend()
    monkeypatch.setattr(build.sysconfig, "get_platform", lambda: "linux-x86_64")
    assert build.platform_tag() == "manylinux_2_31_x86_64"
    assert build.platform_tag("host") == "linux_x86_64"
    monkeypatch.setattr(build.sysconfig, "get_platform", lambda: "linux-aarch64")
    assert build.platform_tag() == "manylinux_2_31_aarch64"
    monkeypatch.setattr(build.sysconfig, "get_platform", lambda: "linux-armv7l")
    with pytest.raises(RuntimeError, match="x86_64 and aarch64 Linux only"):
        build.platform_tag()


def test_the_build_switch(monkeypatch):
    build = backend()
    monkeypatch.delenv("VERSIONGATE_BUILD", raising=False)
    assert build.build_kind() == "portable"
    monkeypatch.setenv("VERSIONGATE_BUILD", "host")
    assert build.build_kind() == "host"
    assert build.build_kind({"build": "portable"}) == "portable"
    with pytest.raises(RuntimeError, match="expected one of portable, host"):
        build.build_kind({"build": "static"})


def test_host_wheel_carries_the_host_build(tmp_path):
    """--config-settings build=host: the library of build/lib (this machine's
    glibc), tagged linux_<machine>, not the portable one."""
    sh([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-index", "--config-settings", "build=host",
        "-w", tmp_path, REPO / "python"], tmp_path, timeout=BUILD_SECONDS)
    wheels = list(tmp_path.glob("*.whl"))
    assert [w.name for w in wheels] == ["versiongate-%s-py3-none-linux_%s.whl" % (VERSION, os.uname().machine)], wheels
    with zipfile.ZipFile(wheels[0]) as archive:
        inside = archive.read(LIBRARY)
    host = build_id(REPO / "build" / "lib" / "libversiongate.so.1")
    portable = build_id(REPO / "build" / "portable" / "lib" / "libversiongate.so.1")
    assert host != portable
    copy = tmp_path / "inside.so"
    copy.write_bytes(inside)
    assert build_id(copy) == host


def build_id(library: Path) -> str:
    notes = subprocess.run(["readelf", "-n", str(library)], capture_output=True, text=True, check=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", notes)
    assert m, notes
    return m[1]
