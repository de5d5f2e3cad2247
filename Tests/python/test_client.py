"""vg_client_set: option keys and values, one row per rule."""

from __future__ import annotations

import ctypes
import urllib.parse

import pytest

from conftest import (OPTIONAL, UP_TO_DATE, VG_ECONFIG, VG_EINVAL, VG_OK,
                      flat, raw_string, vg)

GOOD = [
    ("platform", "linux"), ("platform", "ios"), ("platform", "android"),
    ("platform", "a"), ("platform", "x" * 32), ("platform", "linux_arm64"),
    ("platform", "0_9"),
    ("locale", "en"), ("locale", "de"), ("locale", "pt_BR.UTF-8"),
    ("locale", "pt-BR"), ("locale", "sr_RS@latin"), ("locale", "C"),
    ("locale", "x" * 64), ("locale", "en_US.utf8"),
    ("session_scope", "login"), ("session_scope", "process"),
    ("source", "/some/where/gate.json"), ("source", "relative/gate.json"),
    ("source", "file:///abs/gate.json"), ("source", "file://localhost/abs/gate.json"),
]

BAD = [
    ("platform", ""), ("platform", "Linux"), ("platform", "li nux"),
    ("platform", "linux-x"), ("platform", "x" * 33), ("platform", "línux"),
    ("platform", "linux\n"), ("platform", "../etc"),
    ("locale", ""), ("locale", "x" * 65), ("locale", "de DE"), ("locale", "de/DE"),
    ("locale", "de;rm"), ("locale", "dé"), ("locale", "de\n"), ("locale", "../../x"),
    ("session_scope", ""), ("session_scope", "Login"), ("session_scope", "session"),
    ("session_scope", "process "),
    ("source", ""), ("source", "http://example.com/gate.json"),
    ("source", "http://example.com/gate.json"), ("source", "ftp://h/gate.json"),
    ("source", "javascript:alert(1)"),
    ("source", "file://otherhost/abs/gate.json"),
    ("source", "FILE://host/x.json"), ("source", "file://localhost"),
    ("source", "file:///a%zz.json"), ("source", "file:///a%00b.json"),
    ("no_such_key", "x"), ("", "x"), ("Source", "/x"), ("source ", "/x"),
]


@pytest.mark.parametrize("key,value", GOOD)
def test_good_values_are_accepted_and_clear_last_error(key, value):
    with vg.Client() as c:
        with pytest.raises(vg.VersionGateError):
            c.set("no_such_key", "x")
        assert c.last_error is not None
        c.set(key, value)
        assert c.last_error is None


@pytest.mark.parametrize("key,value", BAD)
def test_bad_keys_and_values_are_einval_naming_the_key(key, value):
    with vg.Client() as c:
        with pytest.raises(vg.VersionGateError) as info:
            c.set(key, value)
        assert info.value.code == VG_EINVAL
        why = c.last_error
        assert why is not None and why == info.value.message
        if key:
            assert key.strip() in why


@pytest.mark.parametrize("key", ["source", "platform", "locale", "session_scope"])
def test_null_value_restores_the_default(key):
    with vg.Client() as c:
        c.set(key, None)
        assert c.last_error is None


def test_bad_value_keeps_the_previous_value(write_doc):
    src = write_doc(flat(platform="ios", min_required="2.0", latest="3.0"))
    with vg.Client(source=src, platform="ios", session_scope="process") as c:
        with pytest.raises(vg.VersionGateError):
            c.set("platform", "NOT OK")
        with pytest.raises(vg.VersionGateError):
            c.set("source", "http://example.com/x.json")
        with c.check("2.5") as r:
            assert r.status == OPTIONAL and r.error == VG_OK


def test_null_platform_goes_back_to_linux(write_doc):
    doc = flat(min_required="1.0", latest="5.0")
    doc.update(flat(platform="ios", min_required="9.0", latest="9.0"))
    with vg.Client(source=write_doc(doc), session_scope="process") as c:
        c.set("platform", "ios")
        with c.check("2.0") as r:
            assert r.status == vg.Status.MANDATORY
        c.set("platform", None)
        with c.check("2.0") as r:
            assert r.status == OPTIONAL


def test_null_source_goes_back_to_no_source(write_doc):
    with vg.Client(source=write_doc(flat()), session_scope="process") as c:
        c.set("source", None)
        with c.check("1.0.40") as r:
            assert r.status == UP_TO_DATE and r.error == VG_ECONFIG


def test_non_utf8_and_huge_option_values(raw):
    c = ctypes.c_void_p()
    assert raw.vg_client_new(ctypes.byref(c)) == VG_OK
    try:
        for key, value in [(b"platform", b"lin\xffux"), (b"locale", b"de\xc3\x28"),
                           (b"session_scope", b"\xff"), (b"locale", b"a" * 1_000_000),
                           (b"platform", b"a" * 1_000_000), (b"k" * 1_000_000, b"x"),
                           (b"no\xff", b"x")]:
            assert raw.vg_client_set(c, key, value) == VG_EINVAL, (key[:20], value[:20])
            assert raw_string(raw.vg_client_last_error(c)) is not None
        # A huge source may be accepted as a path; checking it then fails open.
        rc = raw.vg_client_set(c, b"source", b"/" + b"a" * 1_000_000)
        assert rc in (VG_OK, VG_EINVAL)
        if rc == VG_OK:
            out = ctypes.c_void_p()
            assert raw.vg_client_check(ctypes.byref(out), c, b"1.0") == VG_ECONFIG
            assert raw.vg_result_status(out) == UP_TO_DATE
            raw.vg_result_free(out)
    finally:
        raw.vg_client_free(c)


def test_null_client_and_key(raw):
    assert raw.vg_client_set(None, b"source", b"/x") == VG_EINVAL
    assert raw_string(raw.vg_client_last_error(None))  # a static message
    c = ctypes.c_void_p()
    assert raw.vg_client_new(ctypes.byref(c)) == VG_OK
    try:
        assert raw.vg_client_set(c, None, b"x") == VG_EINVAL
        assert raw_string(raw.vg_client_last_error(c)) is not None
        assert raw.vg_client_set(c, None, None) == VG_EINVAL
        assert raw.vg_client_set(c, b"locale", b"de") == VG_OK
        assert raw.vg_client_last_error(c) is None
    finally:
        raw.vg_client_free(c)
    assert raw.vg_client_new(None) == VG_EINVAL


# -- source as path or file:// URL ----------------------------------------

def _source_forms(path):
    quoted = urllib.parse.quote(str(path))
    forms = [str(path), "file://" + quoted, "file://localhost" + quoted,
             "FILE://" + quoted, "file://LOCALHOST" + quoted]
    if quoted == str(path):  # nothing to encode: the URL may be written plainly
        forms += ["file://" + str(path), "file://localhost" + str(path)]
    return forms


@pytest.mark.parametrize("dirname", ["plain", "dir with spaces & ü%", "a#b?c;d"])
def test_source_forms_all_read_the_same_file(tmp_path, dirname):
    d = tmp_path / dirname
    d.mkdir()
    doc = d / "gate.json"
    doc.write_text('{"min_required_version_linux":"1.0.39","latest_version_linux":"1.0.41"}')
    for form in _source_forms(doc):
        with vg.Client(source=form, session_scope="process") as c, c.check("1.0.40") as r:
            assert (r.status, r.error) == (OPTIONAL, VG_OK), (form, r.error_message)
            assert r.latest == "1.0.41"


def test_file_url_is_percent_decoded(tmp_path):
    (tmp_path / "a b.json").write_text('{"min_required_version_linux":"9"}')
    url = "file://" + urllib.parse.quote(str(tmp_path)) + "/%61%20%62.json"
    with vg.Client(source=url, session_scope="process") as c, c.check("1.0") as r:
        assert (r.status, r.error) == (vg.Status.MANDATORY, VG_OK), r.error_message


def test_source_path_is_read_at_check_time(tmp_path):
    doc = tmp_path / "later.json"
    with vg.Client(source=doc, session_scope="process") as c:
        with c.check("1.0") as r:
            assert r.error == VG_ECONFIG
        doc.write_text('{"min_required_version_linux":"2.0"}')
        with c.check("1.0") as r:
            assert (r.status, r.error) == (vg.Status.MANDATORY, VG_OK)


def test_get_reads_each_option_as_set_else_its_default(write_doc):
    """vg_client_get (1.2): the value as set, else the default the option
    table documents, else None; an unknown key is VG_EINVAL."""
    with vg.Client() as c:
        assert (c.get("platform"), c.get("remind_after_s"), c.get("timeout_ms")) == ("linux", "0", "3000")
        assert c.get("source") is None and c.get("trusted_keys") is None
        c.set("platform", "ios")
        c.set("remind_after_s", "86400")
        assert (c.get("platform"), c.get("remind_after_s")) == ("ios", "86400")
        c.set("platform", None)
        assert (c.get("platform"), c.get("remind_after_s")) == ("linux", "86400"), "the others stay as set"
        with pytest.raises(vg.VersionGateError) as info:
            c.get("no_such_option")
        assert info.value.code == VG_EINVAL


def test_the_result_names_the_keys_that_decided(write_doc):
    """The operator keys a decision read, named for the client's platform
    (what versiongate explain prints, so it spells no key itself)."""
    path = write_doc('{"min_required_version_ios": "1.0.39", "latest_version_ios": "1.0.41"}')
    with vg.Client(source=str(path), platform="ios", session_scope="process") as c, c.check("1.0.38") as r:
        assert (r.min_required_key, r.latest_key, r.blocked_versions_key) == (
            "min_required_version_ios", "latest_version_ios", "blocked_versions_ios")
        assert (r.min_required_effective_at_key, r.rollout_percent_key) == (
            "min_required_version_ios_effective_at", "latest_version_ios_rollout_percent")
    with vg.Client(source="/nonexistent/gate.json", session_scope="process") as c, c.check("1.0.38") as r:
        assert r.min_required_key is None, "no config decided: no key"
