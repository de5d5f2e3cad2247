"""The README and the pages of docs/ (issue 41): every relative link and
image resolves to a file of the repository (and a #fragment to a heading
of the page it names), the README stays short, and its "Where to go next"
links every page of docs/."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE = re.compile(r"^```.*?^```|`[^`\n]+`", re.M | re.S)


def prose(page: Path) -> str:
    """The page without its code blocks and code spans."""
    return CODE.sub("", page.read_text(encoding="utf-8"))


def anchors(page: Path) -> set[str]:
    """GitHub's ids for a page's headings: lower case, punctuation dropped,
    spaces to hyphens, -1, -2 … after a repeated one."""
    seen: dict[str, int] = {}
    out = set()
    for title in re.findall(r"^#{1,6} (.+?)\s*$", re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"),
                                                          flags=re.M | re.S), re.M):
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        out.add(slug if slug not in seen else "%s-%d" % (slug, seen[slug]))
        seen[slug] = seen.get(slug, 0) + 1
    return out


def test_every_relative_link_resolves():
    broken = []
    for page in PAGES:
        for target in LINK.findall(prose(page)):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue                      # https:, mailto:
            path, _, fragment = target.partition("#")
            resolved = (page.parent / path).resolve() if path else page
            where = "%s: %s" % (page.relative_to(REPO), target)
            if not resolved.exists() or REPO not in (resolved, *resolved.parents):
                broken.append(where + " (no such file)")
            elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
                broken.append(where + " (no such heading)")
    assert not broken, "\n".join(broken)


def test_the_readme_is_short_and_keeps_the_two_commands():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    assert "## The two commands" in text
    assert "scripts/demo" in text and "scripts/test" in text
    assert "scripts/test\n" in (REPO / ".ci" / "run").read_text()


def test_where_to_go_next_links_every_page_of_docs():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Where to go next", 1)[1].split("\n## ", 1)[0]
    linked = {target for target in LINK.findall(section)}
    missing = [page.name for page in PAGES[1:] if "docs/" + page.name not in linked]
    assert not missing, "README.md, \"Where to go next\" does not link: %s" % ", ".join(missing)
