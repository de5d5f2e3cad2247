"""A PEP 517 build backend for the binding, without dependencies: the wheel
holds the `versiongate` package and the self-contained libversiongate.so.1,
which ../scripts/build makes (after `scripts/setup build` installs what the
build needs). An sdist is refused: the library is built from the whole
repository.

By default the wheel is portable, tagged manylinux_2_31_<machine> (PEP 600):
`scripts/build --portable` links the library against Debian 11's glibc 2.31
(build/debian11, which `scripts/setup portable` fetches), so it runs on any
Linux of that machine with glibc 2.31 or later; a wheel travels. The host
build instead (`VERSIONGATE_BUILD=host`, or `--config-settings build=host`)
links against this machine's glibc and fetches nothing, for an offline
source install; its tag is linux_<machine>, which says it is for this
system only. Its dependencies are glibc's own
libraries; libcurl and libcrypto are dlopen'ed at run time, and the Swift
runtime and libstdc++ are linked in. Tests/python/test_wheel.py holds the
tag to `auditwheel show`. The static fields of pyproject.toml's [project]
are written here too (the backend is dependency free, so it cannot read
TOML on Python < 3.11); the test compares the two."""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
NAME = "versiongate"
SUMMARY = "Version gate for Linux app launchers: may this version run?"
# The glibc the portable build links against (scripts/debian11 fetches
# Debian 11's libc6 2.31): the oldest glibc a portable wheel claims to run on.
GLIBC_FLOOR = (2, 31)
# The architectures scripts/build supports (amd64 and arm64).
MACHINES = {"linux-x86_64": "x86_64", "linux-aarch64": "aarch64"}
# The switch between the two builds: "portable" (default) or "host".
BUILDS = ("portable", "host")
URL = "https://github.com/versiongate/versiongate"
CLASSIFIERS = [
    "Development Status :: 5 - Production/Stable",
    "Intended Audience :: Developers",
    "License :: OSI Approved :: MIT License",
    "Operating System :: POSIX :: Linux",
    "Programming Language :: C",
    "Programming Language :: Python :: 3",
    "Programming Language :: Python :: 3 :: Only",
    "Topic :: Software Development :: Libraries",
    "Typing :: Typed",
]
PROJECT_URLS = [
    ("Homepage", URL),
    ("Documentation", URL + "#readme"),
    ("Source", URL),
    ("Issues", URL + "/issues"),
]


def _version() -> str:
    return (REPO / "VERSION").read_text().strip()


def build_kind(config_settings=None) -> str:
    """--config-settings build=..., else $VERSIONGATE_BUILD, else portable."""
    kind = (config_settings or {}).get("build") or os.environ.get("VERSIONGATE_BUILD") or "portable"
    if kind not in BUILDS:
        raise RuntimeError("versiongate: build=%r: expected one of %s" % (kind, ", ".join(BUILDS)))
    return kind


def platform_tag(kind: str = "portable") -> str:
    platform = sysconfig.get_platform()
    if platform not in MACHINES:
        raise RuntimeError("versiongate: the library builds for x86_64 and aarch64 Linux only, not %s" % platform)
    if kind == "host":
        return "linux_" + MACHINES[platform]
    return "manylinux_%d_%d_%s" % (GLIBC_FLOOR + (MACHINES[platform],))


def _library(kind: str) -> Path:
    """Builds the library (incremental when built before) and returns it."""
    if not (REPO / "scripts" / "build").is_file():
        raise RuntimeError("versiongate: build from a clone of the repository (%s has no scripts/build)" % REPO)
    if kind == "host":
        steps, directory = [["scripts/build"]], REPO / "build" / "lib"
    else:
        steps, directory = [["scripts/setup", "portable"], ["scripts/build", "--portable"]], REPO / "build" / "portable" / "lib"
    for step in steps:
        # The build's output goes to stderr: pip shows it only on failure or with -v.
        subprocess.run(step, cwd=REPO, check=True, stdout=sys.stderr)
    return directory / ("libversiongate.so." + _version())


def _stripped(library: Path) -> bytes:
    """The library without its symbol table and debug sections (over 40 %
    of its size; the dynamic loader never reads them). build/lib keeps the
    unstripped file for debuggers and the benchmarks."""
    with tempfile.TemporaryDirectory(prefix="versiongate-strip-") as tmp:
        out = Path(tmp) / library.name
        subprocess.run(["strip", "--strip-unneeded", "-o", str(out), str(library)], check=True)
        return out.read_bytes()


def _metadata(version: str) -> bytes:
    """Core metadata 2.1: License and the license classifier (2.4's
    License-Expression may not be used with that classifier), the README as
    the long description in the body."""
    fields = [("Metadata-Version", "2.1"), ("Name", NAME), ("Version", version), ("Summary", SUMMARY),
              ("Author", "The VersionGate authors"), ("License", "MIT"),
              ("Keywords", "version,update,gate,launcher,linux")]
    fields += [("Classifier", c) for c in CLASSIFIERS]
    fields += [("Project-URL", "%s, %s" % pair) for pair in PROJECT_URLS]
    fields += [("Requires-Python", ">=3.8"), ("Description-Content-Type", "text/markdown")]
    head = "".join("%s: %s\n" % field for field in fields)
    return (head + "\n" + (HERE / "README.md").read_text(encoding="utf-8")).encode("utf-8")


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    kind = build_kind(config_settings)
    tag = "py3-none-" + platform_tag(kind)
    info = "%s-%s.dist-info" % (NAME, version)
    library = _library(kind)
    # The fetch helper, where the library looks for it: versiongate/ beside it.
    helper = library.parent / "versiongate" / "versiongate-helper"
    files = [
        ("versiongate/__init__.py", (HERE / "versiongate" / "__init__.py").read_bytes(), 0o644),
        ("versiongate/py.typed", b"", 0o644),
        ("versiongate/libversiongate.so.1", _stripped(library), 0o755),
        ("versiongate/versiongate/versiongate-helper", _stripped(helper), 0o755),
        (info + "/METADATA", _metadata(version), 0o644),
        (info + "/LICENSE", (REPO / "LICENSE").read_bytes(), 0o644),
        (info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: versiongate_build\nRoot-Is-Purelib: false\nTag: %s\n"
                           % tag).encode(), 0o644),
        (info + "/top_level.txt", b"versiongate\n", 0o644),
    ]
    record = "\n".join([_record_line(name, data) for name, data, _ in files] + [info + "/RECORD,,", ""])
    files.append((info + "/RECORD", record.encode(), 0o644))
    wheel = "%s-%s-%s.whl" % (NAME, version, tag)
    with zipfile.ZipFile(Path(wheel_directory) / wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data, mode in files:
            entry = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            entry.external_attr = (0o100000 | mode) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, data)
    return wheel


def build_sdist(sdist_directory, config_settings=None):
    raise RuntimeError("versiongate: no sdist; the library is built from the repository: pip install ./python")
