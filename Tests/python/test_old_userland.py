"""The library and the command on the desktops people have (issue 20):
Debian 11's own userland, glibc 2.31, libcurl 7.74 and libcrypto 1.1.1.

scripts/debian11 unpacks Debian 11's packages into build/debian11 (scripts/setup
fetches them once). A C host (Tests/c/old_userland_host.c) is built against that tree,
as a launcher built on Debian 11 is, and every program here runs under that
tree's own loader, `ld-2.31.so --inhibit-cache --library-path TREE:build/portable/lib`,
so nothing of this machine's newer glibc, libcurl or libcrypto can stand in.
The host prints which objects it loaded, and each test checks where they
came from.

The library is the repository's portable build (build/portable/lib,
scripts/build --portable), the one that promises glibc 2.31; the host build
(build/lib) and the sanitized variants are linked for this machine.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, child_env
from remote_helpers import Loopback, flat_doc
from test_signatures import Key

BUILD_LIB = REPO / "build" / "portable" / "lib"
CLI = REPO / "build" / "portable" / "bin" / "versiongate"
MULTIARCH = subprocess.run(["cc", "-print-multiarch"], capture_output=True, text=True, check=True).stdout.strip()
CLANG = subprocess.run([str(REPO / "scripts" / "toolchain")], capture_output=True, text=True,
                       check=True).stdout.strip() + "/clang"
GATE = REPO / "examples" / "gate.json"          # minimum 1.0.39, latest 1.0.41
OK, ESIGNATURE = 0, -15


@pytest.fixture(scope="module")
def tree() -> Path:
    assert (BUILD_LIB / "libversiongate.so.1").exists(), "scripts/build --portable makes %s" % BUILD_LIB
    done = subprocess.run([str(REPO / "scripts" / "debian11"), "userland"], capture_output=True, text=True,
                          timeout=600, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return Path(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def host(tree, tmp_path_factory) -> Path:
    """The C host, compiled and linked against Debian 11's headers and glibc."""
    out = tmp_path_factory.mktemp("old-host") / "old_userland_host"
    gcc_dir = Path(subprocess.run(["cc", "-print-file-name=libstdc++.a"], capture_output=True, text=True,
                                  check=True).stdout.strip()).parent
    subprocess.run([CLANG, "--sysroot=%s" % tree, "--gcc-install-dir=%s" % gcc_dir, "-fuse-ld=lld",
                    "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", str(REPO / "include"),
                    str(REPO / "Tests" / "c" / "old_userland_host.c"), "-L", str(BUILD_LIB), "-lversiongate",
                    "-o", str(out)], check=True)
    return out


def run_old(tree: Path, argv: list[str], tmp_path: Path, **env) -> subprocess.CompletedProcess:
    """argv chrooted into Debian 11's tree (its loader, glibc and libcurl,
    also for the fetch helper the library execs: docs/design.md, "The fetch
    helper"), in a private mount namespace that binds /dev, /proc, /tmp and
    the repository (the build's library, the helper) at their own paths."""
    (tmp_path / "cache").mkdir(exist_ok=True)
    (tmp_path / "state").mkdir(exist_ok=True)
    binds = ["/dev", "/proc", "/tmp"] + ([] if str(REPO).startswith("/tmp/") else [str(REPO)])
    script = "mount --make-rprivate / && " + " && ".join(
        'mkdir -p "$0%s" && mount --bind %s "$0%s"' % (d, d, d) for d in binds) + ' && exec chroot "$0" "$@"'
    command = ["unshare", "-m", "sh", "-c", script, str(tree)] + argv
    env.setdefault("LD_LIBRARY_PATH", str(BUILD_LIB))
    # LD_PRELOAD set empty: scripts/proof's sanitizer runtime, which its
    # pytest plugin adds to children that leave it unset, needs glibc 2.34.
    environment = child_env(XDG_CACHE_HOME=str(tmp_path / "cache"), XDG_STATE_HOME=str(tmp_path / "state"),
                            XDG_RUNTIME_DIR=str(tmp_path / "state"), LD_PRELOAD="", **env)
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=environment,
                          stdin=subprocess.DEVNULL, cwd=str(tmp_path))


def run_host(tree: Path, host: Path, tmp_path: Path, checks: list[tuple[str, str, str]]):
    """([result JSON per check], libc version, {soname-ish basename: real path})."""
    argv = [str(host)] + [part for check in checks for part in check]
    done = run_old(tree, argv, tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    results = [json.loads(line) for line in lines if line.startswith("{")]
    assert len(results) == len(checks), done.stdout
    libc = next(line.split(" ", 1)[1] for line in lines if line.startswith("libc "))
    loaded = {}
    for line in lines:
        if line.startswith("loaded "):
            path = Path(line.split(" ", 1)[1])     # as seen in the chroot
            outside = path if path.is_relative_to(BUILD_LIB) else tree / path.relative_to("/")
            loaded[path.name] = outside.resolve()
    loaded["log"] = [line[4:] for line in lines if line.startswith("log ")]
    return results, libc, loaded


def assert_from(loaded: dict, name: str, root: Path):
    assert name in loaded, "%s was not loaded (loaded: %s)" % (name, sorted(loaded))
    assert loaded[name].is_relative_to(root.resolve()), "%s came from %s, not %s" % (name, loaded[name], root)


def test_every_object_comes_from_debian_11_or_the_build(tree, host, tmp_path):
    _, libc, loaded = run_host(tree, host, tmp_path, [(str(GATE), "1.0.38", "-")])
    assert libc == "2.31"
    for name, path in loaded.items():
        if name != "log":
            assert path.is_relative_to(tree.resolve()) or path.is_relative_to(BUILD_LIB.resolve()), (name, path)
    assert_from(loaded, "libc.so.6", tree)
    assert_from(loaded, "libversiongate.so.1", BUILD_LIB)


def test_a_local_document(tree, host, tmp_path):
    results, _, _ = run_host(tree, host, tmp_path, [(str(GATE), v, "-") for v in ("1.0.38", "1.0.40", "1.0.41")])
    assert [(r["status"], r["error"], r["origin"]) for r in results] == [
        ("MANDATORY", OK, "local_document"), ("OPTIONAL", OK, "local_document"), ("UP_TO_DATE", OK, "local_document")]
    assert results[0]["min_required"] == "1.0.39" and results[0]["latest"] == "1.0.41"


def test_a_loopback_http_document_through_debian_11s_libcurl(tree, host, tmp_path):
    server = Loopback()
    try:
        server.document("old-userland", flat_doc("1.0.39", "1.0.41"))
        results, _, loaded = run_host(tree, host, tmp_path, [(server.url("old-userland"), "1.0.38", "-")])
    finally:
        assert server.stop() == "", "the loopback server wrote tracebacks"
    result = results[0]
    assert (result["status"], result["error"], result["fetch_error"]) == ("MANDATORY", OK, 0), result
    assert result["origin"] != "default", result
    # Fetched by the helper, under the same loader, with Debian 11's 7.74;
    # the host itself never loads libcurl.
    assert "helper: fetched with libcurl 7.74.0" in loaded["log"], loaded["log"]
    assert "libcurl.so.4" not in loaded


def test_a_signed_document_through_libcrypto_1_1(tree, host, tmp_path):
    key = Key(tmp_path / "key", "release")
    document = flat_doc("1.0.39", "1.0.41")
    signed = tmp_path / "signed"
    signed.mkdir()
    (signed / "gate.json").write_text(document)
    (signed / "gate.json.minisig").write_text(key.sign(document.encode(), tmp_path))
    tampered = tmp_path / "tampered"
    tampered.mkdir()
    (tampered / "gate.json").write_text(flat_doc("1.0.30", "1.0.41"))
    (tampered / "gate.json.minisig").write_text((signed / "gate.json.minisig").read_text())
    assert not list(tree.rglob("libcrypto.so.3")), "Debian 11 has no OpenSSL 3"

    results, _, loaded = run_host(tree, host, tmp_path, [(str(signed / "gate.json"), "1.0.38", key.line),
                                                         (str(tampered / "gate.json"), "1.0.38", key.line)])
    trusted, refused = results
    assert (trusted["status"], trusted["error"]) == ("MANDATORY", OK), trusted
    assert (refused["status"], refused["error"]) == ("UP_TO_DATE", ESIGNATURE), refused
    assert "signature" in refused["error_message"], refused
    assert_from(loaded, "libcrypto.so.1.1", tree)


def test_the_command(tree, tmp_path):
    done = run_old(tree, [str(CLI), "check", "--version", "1.0.38", "--source", str(GATE), "--json"], tmp_path)
    assert done.returncode == 20, done.stderr
    assert json.loads(done.stdout)["status"] == "MANDATORY"
    done = run_old(tree, [str(CLI), "compare", "1.0.41", "1.0.9"], tmp_path)
    assert (done.returncode, done.stdout.strip()) == (0, "1"), done.stderr


def test_a_remote_check_under_debian_11_leaves_nothing_to_a_child(tree, tmp_path):
    """Tests/c/descriptors_test.c under Debian 11's loader: the check's fetch
    runs in the fetch helper, started from a Debian 11 host, and a fork +
    exec child of the host mid-check holds nothing of the library's."""
    gcc_dir = Path(subprocess.run(["cc", "-print-file-name=libstdc++.a"], capture_output=True, text=True,
                                  check=True).stdout.strip()).parent
    program = tmp_path / "descriptors_test"
    subprocess.run([CLANG, "--sysroot=%s" % tree, "--gcc-install-dir=%s" % gcc_dir, "-fuse-ld=lld",
                    "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", str(REPO / "include"),
                    str(REPO / "Tests" / "c" / "descriptors_test.c"), "-L", str(BUILD_LIB), "-lversiongate",
                    "-lpthread", "-o", str(program)], check=True)
    done = run_old(tree, [str(program)], tmp_path)
    assert done.returncode == 0 and re.fullmatch(r"descriptors: \d+ passed, 0 failed", done.stdout.splitlines()[-1]), \
        done.stdout
    assert "the child inherited 0" in done.stdout, done.stdout
