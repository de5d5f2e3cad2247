"""Gate documents on disk -> results (docs/design.md, "The gate rule",
"Sources and the cache", "Messages"), through the binding and, where bytes matter, through raw ctypes."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import unicodedata

import pytest

from conftest import (CHILD_CHECK, FIREBASE_TEMPLATE, JSON_KEYS, MANDATORY,
                      OPTIONAL, REPO, UP_TO_DATE, VG_ECONFIG, VG_EINVAL,
                      VG_EVERSION, VG_OK, child_env, flat, raw_string, vg)

MIB = 1024 * 1024


def check(src, version, **options):
    options.setdefault("session_scope", "process")
    with vg.Client(source=src, **options) as c:
        r = c.check(version)
    return r


def assert_fail_open(r, code):
    assert r.status == UP_TO_DATE
    assert r.code == r.error == code, (r.code, r.error, r.error_message)
    assert r.should_prompt is False
    for attr in ("title", "message", "action_label", "dismiss_label"):
        assert getattr(r, attr) is None, attr
    assert r.error_message
    js = r.json()
    assert js["status"] == "UP_TO_DATE" and js["error"] == code
    assert js["error_name"] == vg.error_name(code)


# -- flat documents: the gate through a file ---------------------------------

@pytest.mark.parametrize("current,status", [
    ("1.0.0", MANDATORY), ("1.0.38", MANDATORY), ("1.0.39-rc.1", MANDATORY),
    ("1.0.39", OPTIONAL), ("1.0.40", OPTIONAL), ("1.0.41-beta", OPTIONAL),
    ("1.0.41", UP_TO_DATE), ("v1.0.41+7", UP_TO_DATE), ("2", UP_TO_DATE),
])
def test_flat_document(write_doc, current, status):
    with check(write_doc(flat()), current) as r:
        assert r.status == status
        assert r.code == r.error == VG_OK, r.error_message
        assert r.min_required == "1.0.39" and r.latest == "1.0.41"


def test_example_gate_json(tmp_path):
    src = REPO / "examples" / "gate.json"
    with check(src, "1.0.38") as r:
        assert r.status == MANDATORY and r.error == VG_OK
        assert r.store_url == "https://flathub.org/apps/com.example.Launcher"
    with check(src, "1.0.40") as r:
        assert r.status == OPTIONAL
    with check(src, "1.0.41") as r:
        assert r.status == UP_TO_DATE and r.error == VG_OK


def test_thresholds_are_reported_trimmed(write_doc):
    src = write_doc(flat(min_required="  1.0.39\t", latest="\n1.0.41 "))
    with check(src, "1.0.40") as r:
        assert r.status == OPTIONAL
        assert (r.min_required, r.latest) == ("1.0.39", "1.0.41")


def test_absent_thresholds(write_doc):
    with check(write_doc({}), "1.0") as r:
        assert r.status == UP_TO_DATE and r.error == VG_OK
        assert r.min_required is None and r.latest is None
    with check(write_doc(flat(min_required=None)), "1.0.40") as r:
        assert r.status == OPTIONAL and r.min_required is None
    with check(write_doc(flat(latest=None)), "1.0.38") as r:
        assert r.status == MANDATORY and r.latest is None


@pytest.mark.parametrize("bad", [2.10, 2, True, False, None, [], ["1.0"], {"v": "1"},
                                 "abc", "1.0b1", "2.0 (123)"])
def test_bad_min_counts_as_absent_and_is_reported(write_doc, bad):
    src = write_doc({"min_required_version_linux": bad, "latest_version_linux": "1.0.41"})
    with check(src, "1.0.40") as r:
        assert r.status == OPTIONAL  # latest still decides
        assert r.min_required is None and r.latest == "1.0.41"
        assert r.code == r.error == VG_ECONFIG
        assert "min_required_version_linux" in r.error_message


@pytest.mark.parametrize("bad", [2.10, 1, None, "xyz", ""])
def test_bad_latest_counts_as_absent(write_doc, bad):
    src = write_doc({"min_required_version_linux": "1.0.39", "latest_version_linux": bad})
    with check(src, "1.0.38") as r:
        assert r.status == MANDATORY and r.latest is None
    with check(src, "1.0.40") as r:
        assert r.status == UP_TO_DATE
        if bad != "":  # empty counts as absent; whether it is reported is open
            assert r.error == VG_ECONFIG
            assert "latest_version_linux" in r.error_message


def test_json_number_is_never_read_as_a_version(write_doc):
    # a JSON 2.10 would be 2.1; as a string "2.10" it is 2.10 > 2.9
    with check(write_doc({"min_required_version_linux": 2.10}), "2.9") as r:
        assert r.status == UP_TO_DATE
    with check(write_doc({"min_required_version_linux": "2.10"}), "2.9") as r:
        assert r.status == MANDATORY


def test_min_above_latest_is_mandatory(write_doc):
    with check(write_doc(flat(min_required="2.0", latest="1.5")), "1.7") as r:
        assert r.status == MANDATORY


# -- Firebase template export -----------------------------------------------

@pytest.mark.parametrize("platform,current,status,minv,latest", [
    ("linux", "2.0.9", MANDATORY, "2.1.0", "2.4.1"),
    ("linux", "2.1.0", OPTIONAL, "2.1.0", "2.4.1"),
    ("linux", "2.4.0", OPTIONAL, "2.1.0", "2.4.1"),
    ("linux", "2.4.1", UP_TO_DATE, "2.1.0", "2.4.1"),
    ("ios", "1.9.9", MANDATORY, "2.0.0", "2.4.0"),
    ("ios", "2.0.0", OPTIONAL, "2.0.0", "2.4.0"),
    ("ios", "2.4.0", UP_TO_DATE, "2.0.0", "2.4.0"),
])
def test_firebase_template(platform, current, status, minv, latest):
    with check(FIREBASE_TEMPLATE, current, platform=platform) as r:
        assert r.status == status
        assert r.error == VG_OK, r.error_message
        assert (r.min_required, r.latest) == (minv, latest)


def test_firebase_template_update_message(write_doc):
    with check(FIREBASE_TEMPLATE, "2.0.0") as r:
        assert r.message == "A new version is available. Please update to continue."


def test_minimal_firebase_template(write_doc):
    doc = {"parameters": {
        "min_required_version_linux": {"defaultValue": {"value": "3.0"}},
        "latest_version_linux": {"defaultValue": {"value": "4.0"}},
        "update_message": {"defaultValue": {"value": "Hello from Firebase"}},
    }}
    with check(write_doc(doc), "3.5") as r:
        assert r.status == OPTIONAL and r.error == VG_OK
        assert r.message == "Hello from Firebase"


def test_platform_selects_keys_in_flat_document(write_doc):
    doc = {**flat(min_required="1.0", latest="1.1"),
           **flat(platform="android", min_required="3.0", latest="3.1"),
           **flat(platform="ios", min_required="2.0", latest="2.1")}
    src = write_doc(doc)
    for platform, version, status in [("linux", "1.0.5", OPTIONAL),
                                      ("ios", "1.5", MANDATORY),
                                      ("ios", "2.0.5", OPTIONAL),
                                      ("android", "2.5", MANDATORY),
                                      ("android", "3.2", UP_TO_DATE)]:
        with check(src, version, platform=platform) as r:
            assert r.status == status, (platform, version)


# -- fail-open paths: VG_ECONFIG, VG_EVERSION, VG_EINVAL ---------------------

def test_no_source_set():
    with vg.Client(session_scope="process") as c, c.check("1.0") as r:
        assert_fail_open(r, VG_ECONFIG)
        js = r.json()
        assert js["source"] is None and js["origin"] == "none"


@pytest.mark.parametrize("content", [
    "", " ", "{", "{]", '{"min_required_version_linux": "9.9",}', "nul",
    "[]", '["min_required_version_linux", "9.9"]', '"9.9"', "9.9", "null",
    "true", '{"a":1}{"b":2}', b"\xff\xfe{}", '{"min_required_version_linux":"9.9"} x',
    b'{"min_required_version_linux":"9.9\xff"}',
])
def test_malformed_documents_fail_open_naming_the_path(write_doc, content):
    src = write_doc(content)
    with check(src, "1.0") as r:
        assert_fail_open(r, VG_ECONFIG)
        assert str(src) in r.error_message
        assert r.json()["source"] is not None


def test_missing_file(tmp_path):
    src = tmp_path / "does-not-exist.json"
    with check(src, "1.0") as r:
        assert_fail_open(r, VG_ECONFIG)
        assert str(src) in r.error_message
        assert r.json()["origin"] == "none"


def test_directory(tmp_path):
    with check(tmp_path, "1.0") as r:
        assert_fail_open(r, VG_ECONFIG)
        assert str(tmp_path) in r.error_message


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads mode-000 files")
def test_unreadable_file(write_doc):
    src = write_doc(flat(min_required="9.9"))
    src.chmod(0)
    with check(src, "1.0") as r:
        assert_fail_open(r, VG_ECONFIG)


def test_fifo_does_not_hang(tmp_path):
    # In a child process: a library that blocks in open() fails this test by
    # timeout instead of hanging the test run.
    fifo = tmp_path / "gate.fifo"
    os.mkfifo(fifo)
    proc = subprocess.run(
        [sys.executable, "-c", CHILD_CHECK, str(fifo), "1.0", '{"session_scope": "process"}'],
        env=child_env(), capture_output=True, text=True, timeout=20,
        stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    js = json.loads(proc.stdout)
    assert js["status"] == "UP_TO_DATE" and js["error"] == VG_ECONFIG


def _padded(size):
    body = json.dumps(flat(min_required="9.9", latest="9.9"))
    return body + " " * (size - len(body))


def test_size_limit_is_one_mib(write_doc):
    at_limit = write_doc(_padded(MIB))
    assert at_limit.stat().st_size == MIB
    with check(at_limit, "1.0") as r:
        assert (r.status, r.error) == (MANDATORY, VG_OK), r.error_message
    over = write_doc(_padded(MIB + 1))
    with check(over, "1.0") as r:
        assert_fail_open(r, VG_ECONFIG)
        assert str(over) in r.error_message
    huge = write_doc(_padded(20 * MIB))
    with check(huge, "1.0") as r:
        assert_fail_open(r, VG_ECONFIG)


def test_deeply_nested_document_does_not_crash(write_doc):
    with check(write_doc("[" * 100_000 + "]" * 100_000), "1.0") as r:
        assert_fail_open(r, VG_ECONFIG)
    nested = '{"a":' * 50_000 + "1" + "}" * 50_000
    with check(write_doc(nested), "1.0") as r:
        assert r.status == UP_TO_DATE


@pytest.mark.parametrize("version", ["", "abc", "1.0b1", "v", "1" * 1_000_000,
                                     b"1.0\xff"])
def test_invalid_current_version(write_doc, version):
    with check(write_doc(flat()), version) as r:
        assert_fail_open(r, VG_EVERSION)


def test_invalid_current_with_bad_document_still_up_to_date(tmp_path):
    with check(tmp_path / "missing.json", "abc") as r:
        assert r.status == UP_TO_DATE and r.error in (VG_EVERSION, VG_ECONFIG)


def test_null_version_through_the_binding(write_doc):
    with vg.Client(source=write_doc(flat())) as c, c.check(None) as r:
        assert_fail_open(r, VG_EINVAL)
        assert r.json()["current"] is None


# -- the result's fields -----------------------------------------------------

@pytest.mark.parametrize("current,expect", [("1.0.38", "MANDATORY"),
                                            ("1.0.40", "OPTIONAL"),
                                            ("1.0.41", "UP_TO_DATE")])
def test_result_fields_per_status(write_doc, current, expect):
    src = write_doc(flat(update_url_linux="https://flathub.org/apps/org.example.App"))
    with check(src, current) as r:
        assert r.status.name == expect
        if expect == "UP_TO_DATE":
            assert r.title is r.message is r.action_label is r.dismiss_label is None
            assert r.should_prompt is False
        else:
            assert r.title and r.message and r.action_label
            assert (r.dismiss_label is not None) == (expect == "OPTIONAL")
            if expect == "OPTIONAL":
                assert r.dismiss_label and r.dismiss_label != r.action_label
        if expect != "UP_TO_DATE":
            assert r.store_url == "https://flathub.org/apps/org.example.App"
        js = r.json()
        assert JSON_KEYS <= set(js), JSON_KEYS - set(js)
        assert js["status"] == expect
        assert js["should_prompt"] is r.should_prompt
        assert js["current"] == current
        assert js["min_required"] == "1.0.39" and js["latest"] == "1.0.41"
        for key in ("title", "message", "action_label", "dismiss_label", "store_url",
                    "error_message"):
            assert js[key] == getattr(r, key), key
        assert js["error"] == 0 and js["error_name"] == "VG_OK"
        assert js["error_message"] is None
        assert js["source"] == str(src) and js["origin"] == "local_document"
        assert isinstance(js["locale"], str) and js["locale"]


def test_json_types_on_every_path(write_doc, tmp_path):
    docs = [write_doc(flat()), tmp_path / "missing.json", write_doc("[]"),
            write_doc(flat(min_required=2.1))]
    for src in docs:
        for version in ("1.0.38", "1.0.40", "9", "bad"):
            with check(src, version) as r:
                js = r.json()
                assert JSON_KEYS <= set(js), JSON_KEYS - set(js)
                assert js["status"] in ("UP_TO_DATE", "OPTIONAL", "MANDATORY")
                assert isinstance(js["should_prompt"], bool)
                assert r.code == r.error == js["error"]
                assert js["error_name"] == vg.error_name(r.error)
                assert js["origin"] in ("local_document", "none")
                for key in ("current", "min_required", "latest", "title", "message",
                            "action_label", "dismiss_label", "store_url",
                            "error_message", "source"):
                    assert js[key] is None or isinstance(js[key], str), key
                assert (js["error_message"] is None) == (js["error"] == 0)


@pytest.mark.parametrize("url,expected", [
    ("https://flathub.org/apps/com.example.Launcher", True),
    ("https://snapcraft.io/example", True),
    ("http://flathub.org/apps/com.example.Launcher", False),
    ("javascript:alert(1)", False),
    ("file:///etc/passwd", False),
    ("data:text/html,hi", False),
    ("https://user:pw@flathub.org/apps/x", False),
    ("https://flathub.org/apps/x\nInjected: 1", False),
    ("https://flathub.org/apps/x\x07", False),
    ("", False),
    ("   ", False),
    ("https://", False),
    (42, False),
])
def test_store_url(write_doc, url, expected):
    with check(write_doc(flat(update_url_linux=url)), "1.0.38") as r:
        assert r.status == MANDATORY
        assert r.store_url == (url if expected else None)


def test_store_url_uses_the_platform_key(write_doc):
    doc = {**flat(platform="ios", min_required="9"),
           "update_url_linux": "https://flathub.org/apps/l",
           "update_url_ios": "https://apps.apple.com/app/id1"}
    with check(write_doc(doc), "1.0", platform="ios") as r:
        assert r.status == MANDATORY
        assert r.store_url != "https://flathub.org/apps/l"


# -- update_message -----------------------------------------------------------

def _builtin(src_factory, version):
    with check(src_factory(flat()), version, locale="en") as r:
        return r.message


def test_update_message_replaces_builtin(write_doc):
    for version in ("1.0.38", "1.0.40"):
        with check(write_doc(flat(update_message="Nova versão disponível…")),
                   version, locale="en") as r:
            assert r.message == "Nova versão disponível…"
            assert r.title  # the title stays the localized one


@pytest.mark.parametrize("empty", ["", None, 5, True, ["x"]])
def test_empty_or_wrong_update_message_uses_builtin(write_doc, empty):
    builtin = _builtin(write_doc, "1.0.40")
    with check(write_doc(flat(update_message=empty)), "1.0.40", locale="en") as r:
        assert r.status == OPTIONAL
        assert r.message == builtin


def test_update_message_is_sanitized(write_doc, raw):
    hostile = ("Hello\x00\x01\x07\x1b[31mWorld\x7f\u0085\u202e!\u202a\u202b\u202c"
               "\u202d\u2066\u2067\u2068\u2069\r\nLine 2\ttab")
    src = write_doc(flat(update_message=hostile))
    c = ctypes.c_void_p()
    raw.vg_client_new(ctypes.byref(c))
    try:
        assert raw.vg_client_set(c, b"source", str(src).encode()) == VG_OK
        assert raw.vg_client_set(c, b"session_scope", b"process") == VG_OK
        out = ctypes.c_void_p()
        raw.vg_client_check(ctypes.byref(out), c, b"1.0.40")
        data = raw_string(raw.vg_result_message(out))
        raw.vg_result_free(out)
    finally:
        raw.vg_client_free(c)
    text = data.decode("utf-8")  # strictly valid UTF-8
    for ch in text:
        assert ch == "\n" or unicodedata.category(ch) != "Cc", repr(ch)
        assert ch not in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    assert "Hello" in text and "World" in text and "Line 2" in text
    assert "\n" in text


@pytest.mark.parametrize("unit", ["a", "é", "€", "😀"])
def test_update_message_is_cut_to_1024_bytes_on_a_character(write_doc, raw, unit):
    src = write_doc(flat(update_message=unit * 5000))
    out = ctypes.c_void_p()
    raw.vg_check(ctypes.byref(out), str(src).encode(), b"1.0.38")
    try:
        data = raw_string(raw.vg_result_message(out))
    finally:
        raw.vg_result_free(out)
    assert 0 < len(data) <= 1024
    assert len(data) > 1024 - len(unit.encode())  # cut, not dropped
    text = data.decode("utf-8")
    assert set(text) == {unit}


def test_short_update_message_is_kept_whole(write_doc):
    msg = "Ünïcödé ✓ — " * 10 + "\nsecond line"
    with check(write_doc(flat(update_message=msg)), "1.0.38") as r:
        assert r.message == msg


def test_all_result_strings_are_valid_utf8(raw, write_doc, tmp_path):
    names = ["title", "message", "action_label", "dismiss_label", "store_url",
             "error_message", "min_required", "latest", "json"]
    bad_path = tmp_path / "bad\xe9name.json".encode("latin-1").decode("utf-8", "surrogateescape")
    sources = [str(write_doc(flat(update_message="x\xff"))).encode(),
               os.fsencode(bad_path), b"/nonexistent/\xff\xfe.json"]
    for src in sources:
        for version in (b"1.0.38", b"1.0.40", b"\xff"):
            out = ctypes.c_void_p()
            rc = raw.vg_check(ctypes.byref(out), src, version)
            try:
                assert rc == raw.vg_result_error(out)
                for name in names:
                    data = raw_string(getattr(raw, "vg_result_" + name)(out))
                    if data is not None:
                        data.decode("utf-8")
                json.loads(raw_string(raw.vg_result_json(out)))
            finally:
                raw.vg_result_free(out)
