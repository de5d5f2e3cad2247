"""Issue 16: the catalog made from po/, msgfmt's verdict on every .po, and
the prompt's language and per-language update_message through the real
library (the locale option, LANGUAGE and the C-locale rule, a local
document and Firebase)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import MANDATORY, OPTIONAL, child_env, flat, run_check, vg
from test_generate import generator

REPO = Path(__file__).resolve().parents[2]
PO = REPO / "po"
PO_FILES = sorted(PO.glob("*.po"))
GENERATED = REPO / "Sources" / "VersionGateCore" / "Messages" / "Catalog.generated.swift"


def test_there_are_fifty_languages_besides_english():
    names = {p.stem for p in PO_FILES}
    assert len(names) >= 50
    for required in ["ar", "he", "fa", "zh_CN", "zh_TW", "ja", "ko", "hi", "bn", "ta", "pt_BR", "pt", "sr",
                     "bg", "cs", "da", "de", "el", "es", "et", "fi", "fr", "ga", "hr", "hu", "it", "lt", "lv",
                     "mt", "nl", "pl", "ro", "sk", "sl", "sv"]:
        assert required in names, required


def test_generated_catalog_matches_the_po_files():
    assert generator().catalog(REPO) == GENERATED.read_text(encoding="utf-8"), \
        "Catalog.generated.swift is stale: run scripts/generate"


def read_po(path):
    """msgctxt -> (msgid, msgstr, flags) of one .po or the .pot, read by scripts/generate's own parser."""
    return {e["msgctxt"]: (e["msgid"], e["msgstr"], e["flags"]) for e in generator().parse_po(path)[1]}


UNSUPPORTED = "This version is no longer supported, and its update cannot be installed on this system."


@pytest.mark.parametrize("po", PO_FILES, ids=lambda p: p.stem)
def test_every_language_translates_the_unsupported_message(po):
    """mandatory.unsupported (MANDATORY when this system cannot take the update): translated in every
    language, not fuzzy, not the English text, and not that language's mandatory.message."""
    assert read_po(PO / "versiongate.pot")["mandatory.unsupported"][0] == UNSUPPORTED
    entries = read_po(po)
    msgid, msgstr, flags = entries["mandatory.unsupported"]
    assert msgid == UNSUPPORTED and "fuzzy" not in flags, po.stem
    assert msgstr.strip() and msgstr != UNSUPPORTED, po.stem
    assert msgstr != entries["mandatory.message"][1], po.stem
    assert "{" not in msgstr, po.stem


@pytest.mark.skipif(not shutil.which("msgfmt"), reason="msgfmt (gettext) is not installed: scripts/setup")
@pytest.mark.parametrize("po", PO_FILES, ids=lambda p: p.stem)
def test_msgfmt_check_statistics_all_translated(po):
    entries = (PO / "versiongate.pot").read_text(encoding="utf-8").count("\nmsgctxt ")
    proc = subprocess.run(["msgfmt", "--check", "--statistics", "-o", "/dev/null", str(po)],
                          capture_output=True, text=True, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == "%d translated messages." % entries, proc.stderr


# -- through the library ------------------------------------------------------

def texts(src, version, **options):
    with vg.Client(source=src, session_scope="process", **options) as c, c.check(version) as r:
        assert r.status in (MANDATORY, OPTIONAL)
        return r.title, r.message, r.action_label, r.dismiss_label, r.json()["locale"]


@pytest.fixture
def src(write_doc):
    return write_doc(flat())


@pytest.mark.parametrize("po", PO_FILES, ids=lambda p: p.stem)
def test_every_language_prompts_in_its_own_words(src, po):
    english = texts(src, "1.0.40", locale="en")
    name = po.stem.replace("@latin", "_RS@latin")
    got = texts(src, "1.0.40", locale=name + ".UTF-8" if "@" not in name else name)
    assert got[4] != "en", po.stem
    assert got[1] != english[1] and got[0] != english[0], po.stem  # message and title
    assert all(t and t.strip() for t in got[:4]), po.stem


@pytest.mark.parametrize("env,tag", [
    ({"LANGUAGE": "xx:de", "LANG": "fr_FR.UTF-8"}, "de"),
    ({"LANGUAGE": "pt_BR:pt:en", "LANG": "de_DE.UTF-8"}, "pt-BR"),
    ({"LANG": "de_AT.UTF-8"}, "de"),
    ({"LC_ALL": "it_IT.UTF-8", "LANG": "de_DE.UTF-8"}, "it"),
    ({"LANG": "pt_PT.UTF-8"}, "pt"),
    ({"LANG": "pt_BR.UTF-8"}, "pt-BR"),
    ({"LANG": "zh_TW.UTF-8"}, "zh-TW"),
    ({"LANG": "zh_HK.UTF-8"}, "zh-TW"),
    ({"LANG": "zh_CN.UTF-8"}, "zh-CN"),
    ({"LANGUAGE": "de", "LC_ALL": "C"}, "en"),           # GNU: LANGUAGE ignored under C
    ({"LANGUAGE": "de", "LANG": "POSIX"}, "en"),
    ({"LANGUAGE": "de"}, "en"),                           # no locale at all is C
    ({"LANGUAGE": "de", "LANG": "C.UTF-8"}, "de"),
])
def test_selection_in_child_processes(src, env, tag):
    js = run_check(src, "1.0.38", child_env(**env), {"session_scope": "process"})
    assert js["locale"] == tag
    assert (js["title"], js["message"]) == texts(src, "1.0.38", locale={"zh-TW": "zh_TW", "zh-CN": "zh_CN",
                                                                        "pt-BR": "pt_BR"}.get(tag, tag))[:2]


def test_option_beats_language_and_locale(src):
    js = run_check(src, "1.0.38", child_env(LANGUAGE="fr", LC_ALL="es_ES.UTF-8"),
                   {"session_scope": "process", "locale": "ja_JP"})
    assert js["locale"] == "ja"


def test_language_is_read_at_check_time(src, monkeypatch):
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    with vg.Client(source=src, session_scope="process") as c:
        monkeypatch.setenv("LANGUAGE", "ko")
        with c.check("1.0.38") as r:
            first = r.json()["locale"]
        monkeypatch.setenv("LANGUAGE", "he:en")
        with c.check("1.0.38") as r:
            second = r.json()["locale"]
    assert (first, second) == ("ko", "he")


MESSAGES = {"update_message": "Generic message", "update_message_pt_BR": "Mensagem para o Brasil",
            "update_message_pt": "Mensagem para Portugal", "update_message_de": "Nachricht auf Deutsch",
            "update_message_zh_TW": "繁體中文訊息", "update_message_ar": "رسالة بالعربية"}


@pytest.mark.parametrize("env,options,expected", [
    ({"LANG": "pt_BR.UTF-8"}, {}, "Mensagem para o Brasil"),
    ({"LANG": "pt_PT.UTF-8"}, {}, "Mensagem para Portugal"),
    ({"LANG": "de_AT.UTF-8"}, {}, "Nachricht auf Deutsch"),
    ({"LANGUAGE": "ja:de", "LANG": "ja_JP.UTF-8"}, {}, "Nachricht auf Deutsch"),
    ({"LANG": "zh_HK.UTF-8"}, {}, "繁體中文訊息"),
    ({"LANG": "fr_FR.UTF-8"}, {}, "Generic message"),
    ({"LANGUAGE": "de", "LC_ALL": "C"}, {}, "Generic message"),
    ({"LANG": "fr_FR.UTF-8"}, {"locale": "ar_EG"}, "رسالة بالعربية"),
])
def test_per_language_update_message_local_document(write_doc, env, options, expected):
    doc = write_doc(flat(**MESSAGES))
    for version in ("1.0.38", "1.0.40"):  # MANDATORY and OPTIONAL
        js = run_check(doc, version, child_env(**env), {"session_scope": "process", **options})
        assert js["message"] == expected, (version, js)


def test_per_language_update_message_without_a_generic_one(write_doc):
    doc = write_doc(flat(update_message_de="Nachricht auf Deutsch"))
    js = run_check(doc, "1.0.38", child_env(LANG="fr_FR.UTF-8"), {"session_scope": "process"})
    assert js["message"] == texts(doc, "1.0.38", locale="fr")[1]  # the built-in French text
    assert js["locale"] == "fr"


# -- the C login stub draws every script in its box ---------------------------

def display_width(text: str) -> int:
    import unicodedata
    width = 0
    for c in text:
        if unicodedata.combining(c) or unicodedata.category(c) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1
    return width


@pytest.fixture(scope="module")
def login_stub(tmp_path_factory):
    if not shutil.which("cc"):
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("stub") / "login_stub"
    subprocess.run(["cc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-I%s" % (REPO / "include"),
                    str(REPO / "examples" / "c" / "login_stub.c"), "-o", str(out), "-L%s" % (REPO / "build" / "lib"),
                    "-lversiongate", "-Wl,-rpath,%s" % (REPO / "build" / "lib")], check=True)
    return out


@pytest.mark.parametrize("locale", ["ar_EG.UTF-8", "he_IL.UTF-8", "fa_IR.UTF-8", "ja_JP.UTF-8", "zh_TW.UTF-8",
                                    "ko_KR.UTF-8", "hi_IN.UTF-8", "th_TH.UTF-8", "de_DE.UTF-8"])
def test_login_stub_box_in_every_script(login_stub, write_doc, locale):
    doc = write_doc(flat())
    proc = subprocess.run([str(login_stub), "--source", str(doc), "--version", "1.0.38"], capture_output=True,
                          env=child_env(LANG=locale), stdin=subprocess.DEVNULL, timeout=60)
    rows = [line for line in proc.stdout.decode("utf-8").split("\n") if line.startswith(("|", "+"))]
    assert len(rows) >= 7, proc.stdout
    assert {display_width(row) for row in rows} == {64}, "\n".join(rows)
    rtl = locale[:2] in ("ar", "he", "fa")
    texts = [row[2:-2].strip() for row in rows if row.startswith("|") and row[2:-2].strip()]
    assert all(t.startswith("\u2068") and t.endswith("\u2069") for t in texts) == rtl
    assert any("\u2068" in t for t in texts) == rtl
