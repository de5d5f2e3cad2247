"""docs/architecture.md held to the tree: its targets table to Package.swift,
its layout table to the repository's directories; and docs/design.md's
state-files table to the file names the Swift sources build.

Reads only files inside the repository (and `git ls-files` when it is a
checkout); each check takes the root, so the negative cases run it on a
copy with one thing added and see it fail.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# The directories under which each child directory must be named as well.
DEEPER = ("Sources", "Tests")
# What a build leaves in the tree (the .gitignore's), when there is no git to ask.
BUILD_OUTPUTS = {"build", "__pycache__"}

TARGET_DECLARATION = re.compile(
    r"\.(?:target|executableTarget|testTarget|binaryTarget|systemLibrary|plugin|macro)\(\s*name:\s*\"([^\"]+)\"")


def section(text: str, title: str) -> str:
    """The body of the `## title` section, up to the next `## `."""
    match = re.search(r"^## %s\n(.*?)(?=^## |\Z)" % re.escape(title), text, re.M | re.S)
    assert match, "no section %r" % title
    return match.group(1)


def first_column_names(table_text: str) -> list[str]:
    """Every `backticked` name in the first column of the section's table rows."""
    names = []
    for line in table_text.splitlines():
        if not line.startswith("|") or set(line) <= set("|-: "):
            continue
        first = line.split("|")[1]
        names += re.findall(r"`([^`]+)`", first)
    return names


def doc_targets(root: Path) -> set[str]:
    return set(first_column_names(section((root / "docs/architecture.md").read_text(), "The targets")))


def package_targets(root: Path) -> set[str]:
    return set(TARGET_DECLARATION.findall((root / "Package.swift").read_text()))


def layout_paths(root: Path) -> list[str]:
    return [name.rstrip("/") for name in first_column_names(section((root / "docs/architecture.md").read_text(),
                                                                    "Layout"))]


def tree_entries(root: Path) -> set[str]:
    """Top-level files and directories, and the directories under DEEPER, as
    git tracks them; walked, without dot-entries and build outputs, where
    there is no checkout (a copy)."""
    if (root / ".git").exists():
        listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True)
        paths = [p for p in listed.stdout.decode().split("\0") if p]
        entries = {p.split("/")[0] for p in paths}
        entries |= {"/".join(p.split("/")[:2]) for p in paths if p.split("/")[0] in DEEPER and p.count("/") >= 2}
    else:
        def kept(path: Path) -> bool:
            return not path.name.startswith(".") and path.name not in BUILD_OUTPUTS
        entries = {p.name for p in root.iterdir() if kept(p)}
        entries |= {"%s/%s" % (top, p.name) for top in DEEPER for p in (root / top).iterdir()
                    if kept(p) and p.is_dir()}
    return {e for e in entries if not e.startswith(".")}


def layout_problems(root: Path) -> list[str]:
    named = layout_paths(root)
    problems = ["the layout names %s, which does not exist" % name for name in named if not (root / name).exists()]
    for entry in sorted(tree_entries(root)):
        if not any(name == entry or name.startswith(entry + "/") for name in named):
            problems.append("%s is not in the layout table" % entry)
    return problems


def target_problems(root: Path) -> list[str]:
    declared, documented = package_targets(root), doc_targets(root)
    assert declared, "no target found in Package.swift"
    return (["target %s is not in the targets table" % t for t in sorted(declared - documented)]
            + ["the targets table names %s, which Package.swift does not declare" % t
               for t in sorted(documented - declared)])


# -- state files ----------------------------------------------------------

# A file name built in a string literal: "config-\(fnv1a64Hex(key)).json",
# "confirm-" + fnv1a64Hex(...), ".../optional-\(...)": the part before the hash.
HASHED_NAME = re.compile(r"[\"/]([a-z][a-z-]*-)(?:\\\(|\" \+ fnv1a64Hex)")
FIXED_NAME = re.compile(r"\bfileName = \"([a-z][a-z.-]*)\"")


def source_state_names(root: Path) -> set[str]:
    names = set()
    # os.walk follows the copy's links, which rglob does not.
    for directory, _, files in sorted(os.walk(root / "Sources", followlinks=True)):
        for text in (Path(directory, f).read_text() for f in sorted(files) if f.endswith(".swift")):
            names |= {prefix + "<hash>" for prefix in HASHED_NAME.findall(text)}
            names |= set(FIXED_NAME.findall(text))
    return names


def doc_state_names(root: Path) -> set[str]:
    """The state-files table's names, each cut after its <hash>."""
    table = section((root / "docs/design.md").read_text(), "State files")
    names = set()
    for line in table.splitlines():
        cells = line.split("|")
        if len(cells) < 4 or set(line) <= set("|-: "):
            continue
        names |= {re.sub(r"<hash>.*", "<hash>", n) for n in re.findall(r"`([^`]+)`", cells[2])}
    return names


def state_file_problems(root: Path) -> list[str]:
    built, documented = source_state_names(root), doc_state_names(root)
    assert built, "no state file name found in Sources"
    return (["Sources build %s, which the state-files table lacks" % n for n in sorted(built - documented)]
            + ["the state-files table names %s, which no source builds" % n for n in sorted(documented - built)])


# -- the repository itself -------------------------------------------------

def test_every_target_is_in_the_targets_table_and_every_row_is_a_target():
    assert target_problems(REPO) == []


def test_every_directory_is_in_the_layout_table_and_every_path_exists():
    assert layout_problems(REPO) == []


def test_every_state_file_the_sources_name_is_in_the_design():
    assert state_file_problems(REPO) == []


# -- the checks fail when the tree moves without the doc --------------------

@pytest.fixture
def copy(tmp_path):
    """The repository's top level in a scratch directory: what the checks
    read is copied, the rest linked (no git there, so it is walked)."""
    root = tmp_path / "repo"
    root.mkdir()
    for entry in (p.name for p in REPO.iterdir()):
        if entry == ".git" or entry.startswith((".build", ".pytest")) or entry in BUILD_OUTPUTS:
            continue
        if entry in DEEPER:
            (root / entry).mkdir()
            for child in (REPO / entry).iterdir():
                if not child.name.startswith(".") and child.name not in BUILD_OUTPUTS:
                    (root / entry / child.name).symlink_to(child)
        elif entry == "docs":
            shutil.copytree(REPO / "docs", root / "docs")
        elif entry == "Package.swift":
            shutil.copy(REPO / entry, root / entry)
        else:
            (root / entry).symlink_to(REPO / entry)
    return root


def test_the_copy_passes_as_the_repository_does(copy):
    assert target_problems(copy) == []
    assert layout_problems(copy) == []
    assert state_file_problems(copy) == []


@pytest.mark.parametrize("added", ["widgets", "Tests/widgets", "Sources/VersionGateWidgets"])
def test_a_directory_added_without_the_doc_fails(copy, added):
    (copy / added).mkdir()
    assert layout_problems(copy) == ["%s is not in the layout table" % added]


def test_a_layout_row_for_a_missing_path_fails(copy):
    doc = copy / "docs/architecture.md"
    doc.write_text(doc.read_text().replace("| `man/` |", "| `man/`, `gone/` |"))
    assert layout_problems(copy) == ["the layout names gone, which does not exist"]


def test_a_target_added_without_the_doc_fails(copy):
    manifest = copy / "Package.swift"
    manifest.write_text(manifest.read_text().replace(
        '.target(name: "VersionGateCore"),', '.target(name: "VersionGateCore"),\n        .target(name: "VersionGateWidgets"),'))
    assert target_problems(copy) == ["target VersionGateWidgets is not in the targets table"]


def test_a_target_removed_from_the_manifest_fails(copy):
    manifest = copy / "Package.swift"
    manifest.write_text(manifest.read_text().replace('        .target(name: "DynamicShim"),\n', ""))
    assert target_problems(copy) == ["the targets table names DynamicShim, which Package.swift does not declare"]


def test_a_state_file_missing_from_the_design_fails(copy):
    design = copy / "docs/design.md"
    design.write_text(design.read_text().replace("| state | `signed-<hash>` |", "| state | signed files |"))
    assert state_file_problems(copy) == ["Sources build signed-<hash>, which the state-files table lacks"]
