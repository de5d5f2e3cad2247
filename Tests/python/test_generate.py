"""scripts/generate on a copy of the files it reads and writes: --check names
every region a hand edit touched and changes nothing, a run restores it and a
second run writes nothing; a new error code, result field or version reaches
every file from its one declaration; a bad declaration or .po stops it with
the file and line."""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

SCRIPT = REPO / "scripts" / "generate"
HEADER = "Sources/VersionGateC/include/versiongate.h"
PYTHON = "python/versiongate/__init__.py"


@functools.cache
def generator():
    """scripts/generate as a module (its parsers and renderings)."""
    loader = importlib.machinery.SourceFileLoader("generate", str(SCRIPT))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("generate", loader))
    loader.exec_module(module)
    return module


def run(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), "--root", str(root), *args],
                          capture_output=True, text=True, timeout=60)


@pytest.fixture
def root(tmp_path) -> Path:
    """A copy of the declarations and of every file the generator writes."""
    written, _ = generator().generate(REPO)
    for name in ["VERSION", *written]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, tmp_path / name)
    for directory in ["declarations", "po"]:
        shutil.copytree(REPO / directory, tmp_path / directory)
    return tmp_path


def snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*")) if p.is_file()}


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_the_repository_matches_its_declarations():
    done = run(REPO, "--check")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("name,region,old,new", [
    (HEADER, "options", '"timeout_ms": 1-60000; default 3000.', '"timeout_ms": 1-60000; default 5000.'),
    (HEADER, "errors", "VG_ETLS = -9,", "VG_ETLS = -19,"),
    (HEADER, "result_fields", "   rule                       text", "   rules                      text"),
    ("docs/api.md", "result_fields", "| `locale` | text |", "| `locale` | number |"),
    ("docs/api.md", "errors", "| -3 | `VG_ECONFIG` |", "| -3 | `VG_ECONFlG` |"),
    ("man/versiongate.1", "options", ".B dry_run\n", ".B dry_run\n.\\\" a note\n"),
    (PYTHON, "errors", "    EHTTP = -12\n", "    EHTTP = -12\n    EEXTRA = -99\n"),
    (PYTHON, "result_fields", "    note = _field('note', 'text'", "    note = _field('note', 'number'"),
    ("Sources/VersionGateCore/Text/GateFailure.swift", "errors", "        case tls = \"ETLS\"\n", "        case tls = \"TLS\"\n"),
    ("Sources/VersionGate/Errors.swift", "errors", '"deadline passed"', '"timed out"'),
])
def test_a_hand_edit_of_a_region_fails_check_and_a_run_restores_it(root, name, region, old, new):
    pristine = snapshot(root)
    edit(root / name, old, new)
    edited = snapshot(root)
    done = run(root, "--check")
    assert done.returncode == 1
    assert "%s: region %s" % (name, region) in done.stderr, done.stderr
    assert len(re.findall("differs from its declaration", done.stderr)) == 1, done.stderr
    assert snapshot(root) == edited                                   # --check writes nothing

    done = run(root)
    assert done.returncode == 0 and name in done.stdout, done.stderr
    assert snapshot(root) == pristine
    assert run(root, "--check").returncode == 0
    done = run(root)
    assert done.returncode == 0 and done.stdout == "" and snapshot(root) == pristine   # idempotent


def test_a_hand_edit_of_the_catalog_fails_check(root):
    catalog = "Sources/VersionGateCore/Messages/Catalog.generated.swift"
    edit(root / catalog, '("de", "de", "', '("de", "de", "X')
    done = run(root, "--check")
    assert done.returncode == 1 and "%s: the whole file" % catalog in done.stderr, done.stderr


def test_a_lost_marker_is_named(root):
    edit(root / "docs/api.md", "<!-- END GENERATED errors -->", "")
    done = run(root, "--check")
    assert done.returncode == 1 and "docs/api.md: expected one 'BEGIN GENERATED errors" in done.stderr, done.stderr


def test_a_new_error_code_reaches_the_header_swift_python_and_docs(root):
    with (root / "declarations/errors.decl").open("a", encoding="utf-8") as declaration:
        declaration.write("\nname: VG_ENEW\nvalue: -18\nkind: newThing\ntext: a new failure\n"
                          "means: a new failure, for this test\n")
    done = run(root, "--check")
    assert done.returncode == 1
    for name in [HEADER, "Sources/VersionGateCore/Text/GateFailure.swift", "Sources/VersionGate/Errors.swift",
                 PYTHON, "docs/api.md"]:
        assert "%s: region errors" % name in done.stderr, (name, done.stderr)
    assert run(root).returncode == 0
    header = (root / HEADER).read_text()
    assert re.search(r"^    VG_EUPDATE = -17, +/\* since 1\.2", header, re.M)
    assert re.search(r"^    VG_ENEW = -18 +/\* a new failure, for this test \*/$", header, re.M)
    assert "        case newThing = \"ENEW\"\n" in (root / "Sources/VersionGateCore/Text/GateFailure.swift").read_text()
    assert '    (VG_ENEW, .newThing, "VG_ENEW", "a new failure"),\n' in \
        (root / "Sources/VersionGate/Errors.swift").read_text()
    assert "    EUPDATE = -17\n    ENEW = -18\n" in (root / PYTHON).read_text()
    assert "| -18 | `VG_ENEW` | a new failure, for this test |" in (root / "docs/api.md").read_text()
    if shutil.which("cc"):
        test = root / "enum.c"
        test.write_text('#include "%s"\n_Static_assert(VG_ENEW == -18 && VG_EUPDATE == -17 && VG_OK == 0, "");\n'
                        % (root / HEADER))
        done = subprocess.run(["cc", "-std=c11", "-fsyntax-only", str(test)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


def test_error_codes_stay_append_only(root):
    edit(root / "declarations/errors.decl", "value: -9\n", "value: -30\n")
    done = run(root, "--check")
    assert done.returncode == 1 and "0, -1, -2, ... in order" in done.stderr, done.stderr


def test_a_new_result_field_reaches_the_header_the_docs_and_python(root):
    with (root / "declarations/result_fields.decl").open("a", encoding="utf-8") as declaration:
        declaration.write("zone                           number  a new field, for this test,\n"
                          "                                       on two lines\n")
    done = run(root, "--check")
    assert done.returncode == 1
    for name in [HEADER, "docs/api.md", "man/versiongate.1", PYTHON]:
        assert "%s: region result_fields" % name in done.stderr, (name, done.stderr)
    assert run(root).returncode == 0
    assert " *   zone                       number  a new field, for this test,\n *" + " " * 38 + "on two lines\n" \
        in (root / HEADER).read_text()
    assert "| `zone` | number | a new field, for this test, on two lines |" in (root / "docs/api.md").read_text()
    assert ".B zone\nnumber: a new field, for this test, on two lines\n" in (root / "man/versiongate.1").read_text()
    assert "    zone = _field('zone', 'number', 'A new field, for this test, on two lines.')\n" \
        in (root / PYTHON).read_text()


def test_a_bad_declaration_is_named_with_its_line(root):
    declaration = root / "declarations/result_fields.decl"
    lines = declaration.read_text().split("\n")
    number = next(i for i, line in enumerate(lines, 1) if line.startswith("locale "))
    edit(declaration, lines[number - 1], lines[number - 1].replace(" text ", " string "))
    done = run(root, "--check")
    assert done.returncode == 1 and "result_fields.decl:%d:" % number in done.stderr, done.stderr
    edit(root / "declarations/options.decl", "key: dry_run\n", "key: dry_run\nkey: again\n")
    done = run(root, "--check")
    assert done.returncode == 1 and re.search(r"options\.decl:\d+: expected one of", done.stderr), done.stderr


def test_a_new_version_is_written_everywhere(root):
    (root / "VERSION").write_text("2.13.4\n")
    owned = [HEADER, "Sources/VersionGate/Library.swift", "Sources/VersionGateNetwork/Remote/FirebaseFetcher.swift",
             "man/versiongate.1"]
    before = {name: (root / name).read_text() for name in owned}
    done = run(root, "--check")
    assert done.returncode == 1
    for name in owned:
        assert "%s: version line" % name in done.stderr, name
    assert run(root).returncode == 0
    header = (root / HEADER).read_text()
    for line in ["#define VG_VERSION_MAJOR 2", "#define VG_VERSION_MINOR 13", "#define VG_VERSION_PATCH 4",
                 '#define VG_VERSION_STRING "2.13.4"']:
        assert line + "\n" in header
    assert 'staticCString("2.13.4")' in (root / owned[1]).read_text()
    assert '"versiongate-2.13.4"' in (root / owned[2]).read_text()
    assert '"versiongate 2.13.4" "User Commands"' in (root / owned[3]).read_text()
    for name in owned:                                                  # only those lines changed
        old, new = before[name].splitlines(), (root / name).read_text().splitlines()
        assert len(old) == len(new) and sum(a != b for a, b in zip(old, new)) in (1, 4), name


@pytest.mark.parametrize("text", ["1.0", "1.0.0-rc.1", "01.0.0", "v1.0.0"])
def test_a_malformed_version_is_refused(root, text):
    (root / "VERSION").write_text(text + "\n")
    done = run(root, "--check")
    assert done.returncode == 1 and "not MAJOR.MINOR.PATCH" in done.stderr, text


@pytest.mark.parametrize("name,change", [
    ("fuzzy", lambda t: t.replace("#. Button: close", "#, fuzzy\n#. Button: close", 1)),
    ("untranslated", lambda t: re.sub(r'(msgctxt "button.skip"\nmsgid "[^"]*"\nmsgstr )"[^"]*"', r'\1""', t)),
    ("placeholder", lambda t: t.replace("ab dem {date}", "ab dem {datum}")),
    ("unreadable", lambda t: t.replace('msgctxt "button.later"', 'msgctx "button.later"')),
])
def test_a_bad_translation_stops_it_with_file_and_line(root, name, change):
    """As msgfmt only counts these, the generator refuses them (with or without --check)."""
    de = root / "po" / "de.po"
    text = de.read_text(encoding="utf-8")
    assert change(text) != text, name
    de.write_text(change(text), encoding="utf-8")
    before = snapshot(root)
    for args in [("--check",), ()]:
        done = run(root, *args)
        assert done.returncode == 1 and re.search(r"de\.po:\d+: ", done.stderr), (name, done.stderr)
    assert snapshot(root) == before
