"""docs/design.md, "Messages": the prompt's language — the locale option, else LC_ALL,
LC_MESSAGES, LANG (first non-empty) read at check time; fallback en.
No exact texts are hard-coded: languages are told apart by comparing."""

from __future__ import annotations

import pytest

from conftest import MANDATORY, OPTIONAL, child_env, flat, run_check, vg

LANGS = ["en", "pt_BR", "es", "de", "fr"]


def texts(src, version, locale=None):
    options = {"session_scope": "process"}
    if locale is not None:
        options["locale"] = locale
    with vg.Client(source=src, **options) as c, c.check(version) as r:
        assert r.status in (MANDATORY, OPTIONAL)
        return (r.title, r.message, r.action_label, r.dismiss_label)


@pytest.fixture
def src(write_doc):
    return write_doc(flat())  # no update_message: built-in strings


@pytest.mark.parametrize("version", ["1.0.38", "1.0.40"])
def test_each_language_differs_from_english(src, version):
    english = texts(src, version, "en")
    assert all(t is None or t.strip() for t in english)
    seen = {english[:2]}
    for lang in LANGS[1:]:
        translated = texts(src, version, lang)
        assert translated[1] != english[1], lang  # message
        assert translated[:2] not in seen, lang  # and not another language's
        seen.add(translated[:2])


def test_de_title_differs_from_en(src):
    assert texts(src, "1.0.38", "de")[0] != texts(src, "1.0.38", "en")[0]
    assert texts(src, "1.0.40", "de")[0] != texts(src, "1.0.40", "en")[0]


@pytest.mark.parametrize("spelling,lang", [
    ("de_DE.UTF-8", "de"), ("de_AT", "de"), ("de.utf8", "de"), ("de_CH@euro", "de"),
    ("pt_BR.UTF-8", "pt_BR"), ("pt-BR", "pt_BR"), ("es_MX.UTF-8", "es"),
    ("fr_CA", "fr"), ("en_GB.UTF-8", "en"), ("en_US", "en"),
])
def test_locale_spellings(src, spelling, lang):
    assert texts(src, "1.0.40", spelling) == texts(src, "1.0.40", lang)


@pytest.mark.parametrize("unknown", ["xx", "C", "POSIX", "C.UTF-8", "zz_ZZ.UTF-8", "qq_JP"])
def test_unknown_locale_falls_back_to_english(src, unknown):
    assert texts(src, "1.0.40", unknown) == texts(src, "1.0.40", "en")


def test_locale_is_reported_in_json(src):
    with vg.Client(source=src, locale="de_DE.UTF-8", session_scope="process") as c:
        with c.check("1.0.38") as r:
            assert r.json()["locale"].lower().startswith("de")


# -- the environment, in child processes with controlled environments --------

def child_message(src, version="1.0.38", options=None, **env):
    js = run_check(src, version, child_env(**env),
                   {"session_scope": "process", **(options or {})})
    return js["title"], js["message"]


def option_texts(src, lang, version="1.0.38"):
    return texts(src, version, lang)[:2]


def test_no_locale_anywhere_is_english(src):
    assert child_message(src) == option_texts(src, "en")


@pytest.mark.parametrize("env,lang", [
    ({"LANG": "de_DE.UTF-8"}, "de"),
    ({"LC_MESSAGES": "fr_FR.UTF-8"}, "fr"),
    ({"LC_ALL": "es_ES.UTF-8"}, "es"),
    ({"LC_ALL": "fr_FR.UTF-8", "LANG": "de_DE.UTF-8"}, "fr"),
    ({"LC_ALL": "fr_FR.UTF-8", "LC_MESSAGES": "es_ES", "LANG": "de_DE.UTF-8"}, "fr"),
    ({"LC_MESSAGES": "pt_BR.UTF-8", "LANG": "de_DE.UTF-8"}, "pt_BR"),
    ({"LC_ALL": "", "LC_MESSAGES": "", "LANG": "de_DE.UTF-8"}, "de"),
    ({"LC_ALL": "", "LANG": "fr_FR.UTF-8"}, "fr"),
])
def test_environment_order(src, env, lang):
    assert child_message(src, **env) == option_texts(src, lang)


def test_locale_option_beats_environment(src):
    got = child_message(src, options={"locale": "de"}, LC_ALL="fr_FR.UTF-8")
    assert got == option_texts(src, "de")


def test_environment_is_read_at_check_time(src, monkeypatch):
    with vg.Client(source=src, session_scope="process") as c:
        monkeypatch.setenv("LANG", "de_DE.UTF-8")
        with c.check("1.0.38") as r:
            first = (r.title, r.message)
        monkeypatch.setenv("LANG", "fr_FR.UTF-8")
        with c.check("1.0.38") as r:
            second = (r.title, r.message)
    assert first == option_texts(src, "de")
    assert second == option_texts(src, "fr")
