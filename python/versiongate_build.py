"""A PEP 517 build backend for the binding, without dependencies: the wheel
holds the `versiongate` package and the self-contained libversiongate.so.1,
which ../scripts/build makes (after `scripts/setup build` installs what the
build needs). The wheel is tagged for this platform: it carries machine code.
An sdist is refused: the library is built from the whole repository."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
NAME = "versiongate"
SUMMARY = "Version gate for Linux app launchers: may this version run?"


def _version() -> str:
    return (REPO / "VERSION").read_text().strip()


def _library() -> Path:
    """Builds the library (incremental when built before) and returns it."""
    if not (REPO / "scripts" / "build").is_file():
        raise RuntimeError("versiongate: build from a clone of the repository (%s has no scripts/build)" % REPO)
    for step in (["scripts/setup", "build"], ["scripts/build"]):
        # The build's output goes to stderr: pip shows it only on failure or with -v.
        subprocess.run(step, cwd=REPO, check=True, stdout=sys.stderr)
    return REPO / "build" / "lib" / ("libversiongate.so." + _version())


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    tag = "py3-none-" + sysconfig.get_platform().replace("-", "_").replace(".", "_")
    info = "%s-%s.dist-info" % (NAME, version)
    files = [
        ("versiongate/__init__.py", (HERE / "versiongate" / "__init__.py").read_bytes(), 0o644),
        ("versiongate/py.typed", b"", 0o644),
        ("versiongate/libversiongate.so.1", _library().read_bytes(), 0o755),
        (info + "/METADATA", ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\nRequires-Python: >=3.8\n"
                              % (NAME, version, SUMMARY)).encode(), 0o644),
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
