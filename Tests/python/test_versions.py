"""SPEC §3 (versions) and §4 (the pure gate), one row per rule."""

from __future__ import annotations

import ctypes

import pytest

from conftest import (MANDATORY, OPTIONAL, UP_TO_DATE, VG_EINVAL, VG_EVERSION,
                      VG_OK, vg)

# (a, b, expected compare(a, b))
COMPARE = [
    # equal forms
    ("1.0", "1.0.0", 0),
    ("1", "1.0.0.0", 0),
    ("1.01", "1.1", 0),
    ("00001.0", "1", 0),
    ("v1.2.3", "1.2.3", 0),
    ("V1.2.3", "v1.2.3", 0),
    (" \t1.2.3\r\n", "1.2.3", 0),
    ("1.0.0+build.1", "1.0.0", 0),
    ("1.0.0+a", "1.0.0+b", 0),
    ("1.0.0-alpha+x.y", "1.0.0-alpha", 0),
    # numeric release comparison
    ("1.9", "1.10", -1),
    ("1.10", "1.9", 1),
    ("1.0.39", "1.0.41", -1),
    ("1.0.41", "1.0.39", 1),
    ("2", "1.99.99", 1),
    ("1.0.0.1", "1.0.0", 1),
    ("9223372036854775806", "9223372036854775807", -1),
    ("1.9223372036854775807", "2", -1),
    # pre-release sorts before its release
    ("2.0.0-beta", "2.0.0", -1),
    ("2.0.0", "2.0.0-beta", 1),
    ("2.0-rc.1", "2.0.0", -1),
    # semver.org §11 chain
    ("1.0.0-alpha", "1.0.0-alpha.1", -1),
    ("1.0.0-alpha.1", "1.0.0-alpha.beta", -1),
    ("1.0.0-alpha.beta", "1.0.0-beta", -1),
    ("1.0.0-beta", "1.0.0-beta.2", -1),
    ("1.0.0-beta.2", "1.0.0-beta.11", -1),
    ("1.0.0-beta.11", "1.0.0-rc.1", -1),
    ("1.0.0-rc.1", "1.0.0", -1),
    # numeric < alphanumeric; ASCII order; numeric has no size limit
    ("1.0.0-1", "1.0.0-a", -1),
    ("1.0.0-999", "1.0.0-0a", -1),
    ("1.0.0-A", "1.0.0-a", -1),
    ("1.0.0-Z", "1.0.0-a", -1),
    ("1.0.0--", "1.0.0-0a", -1),  # '-' (0x2d) < '0' (0x30)
    ("1.0.0-2", "1.0.0-10", -1),
    ("1.0.0-99999999999999999999999", "1.0.0-100000000000000000000000", -1),
    ("1.0.0-100000000000000000000000", "1.0.0-99999999999999999999999", 1),
    ("1.0.0-alpha-1", "1.0.0-alpha-2", -1),
    ("1.0.0-0", "1.0.0-1", -1),
    # build ignored, pre-release not
    ("1.0.0-beta+exp.sha.5114f85", "1.0.0-beta+1", 0),
    ("1.0.0-beta.1+z", "1.0.0-beta.2+a", -1),
]

VALID = [
    "1", "0", "0.0.0", "1.2.3.4.5.6", "v1", "V0.1", "01.002.0003",
    "9223372036854775807", "1.0.0-0", "1.0.0-x-y-z.--", "1.0.0+001",
    "1.0.0-alpha+001", "1.0.0+20130313144700", " 1.0 ", "\t\r\n1.0\n",
    "10" + ".0" * 127,  # 256 bytes
]

INVALID = [
    "", " ", "\t\n", "v", "V", "vv1", "v.1", "x1.0", "abc", "1.a", "1..2", ".1",
    "1.", "+1", "-2", "1.0b1", "2.0 (123)", "=1.0", "1.0-", "1.0+", "1.0-+b",
    "1.0-alpha..1", "1.0-.alpha", "1.0-alpha.", "1.0+build..1", "1.0+build.",
    "1.0.0-01", "1.0.0-alpha_1", "1.0.0+build!", "1 .0", "1. 0", "v 1.0",
    "1.0 1", "1.0.0 -beta", "\x0b1.0", "1.0\x0c", "\u00a01.0", "1.0\u2003",
    "\u0661.\u0662", "\uff11.0", "1.\u00b2", "9223372036854775808",
    "1.99999999999999999999", "-1.0", "1.0.0-béta", "1.0.0+bü",
    "100" + ".0" * 127,  # 257 bytes
    "1" * 300,
]

NON_UTF8 = [b"1.0\xff", b"\xff", b"1.0-\xc3\x28", b"\xc0\xae1", b"1.0\xed\xa0\x80"]


@pytest.mark.parametrize("a,b,expected", COMPARE)
def test_compare_table(a, b, expected):
    assert vg.compare(a, b) == expected
    assert vg.compare(b, a) == -expected


@pytest.mark.parametrize("v", VALID)
def test_valid_versions_equal_themselves(v):
    assert vg.compare(v, v) == 0


@pytest.mark.parametrize("v", INVALID + NON_UTF8)
def test_invalid_versions_raise_eversion(v):
    for a, b in ((v, "1.0"), ("1.0", v), (v, v)):
        with pytest.raises(vg.VersionGateError) as info:
            vg.compare(a, b)
        assert info.value.code == VG_EVERSION


@pytest.mark.parametrize("v", INVALID[:12] + NON_UTF8 + ["9" * 1_000_000])
def test_raw_invalid_leaves_out_untouched(raw, v):
    v = v if isinstance(v, bytes) else v.encode()
    for a, b in ((v, b"1.0"), (b"1.0", v)):
        out = ctypes.c_int(42)
        assert raw.vg_version_compare(ctypes.byref(out), a, b) == VG_EVERSION
        assert out.value == 42


def test_raw_compare_null_arguments(raw):
    out = ctypes.c_int(42)
    assert raw.vg_version_compare(None, b"1", b"2") == VG_EINVAL
    assert raw.vg_version_compare(ctypes.byref(out), None, b"2") == VG_EINVAL
    assert raw.vg_version_compare(ctypes.byref(out), b"1", None) == VG_EINVAL
    assert raw.vg_version_compare(ctypes.byref(out), None, None) == VG_EINVAL
    assert out.value == 42
    assert raw.vg_version_compare(ctypes.byref(out), b"1", b"2") == VG_OK
    assert out.value == -1


def test_raw_compare_writes_exactly_minus_one_zero_one(raw):
    for a, b, expected in COMPARE:
        out = ctypes.c_int(42)
        assert raw.vg_version_compare(ctypes.byref(out), a.encode(), b.encode()) == VG_OK
        assert out.value == expected, (a, b)


def test_compare_is_consistent_with_sorting():
    chain = ["0.9", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta",
             "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1",
             "1.0.0", "1.0.1", "1.1", "1.9", "1.10", "2.0.0-0", "2.0.0", "10"]
    for i, a in enumerate(chain):
        for j, b in enumerate(chain):
            assert vg.compare(a, b) == (i > j) - (i < j), (a, b)


# (current, min_required, latest, status)
DECIDE = [
    ("1.0.38", "1.0.39", "1.0.41", MANDATORY),
    ("1.0.39", "1.0.39", "1.0.41", OPTIONAL),
    ("1.0.40", "1.0.39", "1.0.41", OPTIONAL),
    ("1.0.41", "1.0.39", "1.0.41", UP_TO_DATE),
    ("1.0.42", "1.0.39", "1.0.41", UP_TO_DATE),
    ("1.0.0", "2.0.0", "1.5.0", MANDATORY),  # min > latest: still mandatory
    ("1.6.0", "2.0.0", "1.5.0", MANDATORY),
    ("1.0", None, "1.0.1", OPTIONAL),
    ("1.0", "", "1.0.1", OPTIONAL),
    ("1.0", "   ", "1.0.1", OPTIONAL),
    ("1.0", "abc", "1.0.1", OPTIONAL),
    ("1.0", "2.10 (1)", "1.0.1", OPTIONAL),
    ("1.0", "2.0", None, MANDATORY),
    ("1.0", "2.0", "", MANDATORY),
    ("1.0", "2.0", "xyz", MANDATORY),
    ("1.0", None, None, UP_TO_DATE),
    ("1.0", "", "", UP_TO_DATE),
    ("1.0", "junk", "junk", UP_TO_DATE),
    ("abc", "9.9", "9.9", UP_TO_DATE),
    ("", "9.9", "9.9", UP_TO_DATE),
    (None, "9.9", "9.9", UP_TO_DATE),
    ("1.0b1", "9.9", "9.9", UP_TO_DATE),
    ("2.0.0-beta", "2.0.0", None, MANDATORY),
    ("2.0.0", "2.0.0-beta", None, UP_TO_DATE),
    ("2.0.0-beta.2", None, "2.0.0-beta.11", OPTIONAL),
    ("2.0.0+5", None, "2.0.0+6", UP_TO_DATE),
    ("2.0.0+5", "2.0.0+6", None, UP_TO_DATE),
    (" v1.0.40 ", "1.0.39", "1.0.41", OPTIONAL),
    ("1.0.40", " 1.0.39 ", "v1.0.41\n", OPTIONAL),
    ("1.9", "1.10", None, MANDATORY),
    ("1.10", "1.9", "1.10", UP_TO_DATE),
]


@pytest.mark.parametrize("current,min_required,latest,status", DECIDE)
def test_decide_table(current, min_required, latest, status):
    assert vg.decide(current, min_required, latest) == status


@pytest.mark.parametrize("junk", NON_UTF8 + [b"9" * 1_000_000])
def test_decide_on_non_utf8_and_huge_inputs(raw, junk):
    assert raw.vg_decide(junk, b"9.9", b"9.9") == UP_TO_DATE
    assert raw.vg_decide(b"1.0", junk, b"1.1") == OPTIONAL
    assert raw.vg_decide(b"1.0", b"2.0", junk) == MANDATORY
    assert raw.vg_decide(b"1.0", junk, junk) == UP_TO_DATE


def test_raw_decide_nulls(raw):
    assert raw.vg_decide(None, None, None) == UP_TO_DATE
    assert raw.vg_decide(None, b"2", b"3") == UP_TO_DATE
    assert raw.vg_decide(b"1", None, b"3") == OPTIONAL
    assert raw.vg_decide(b"1", b"2", None) == MANDATORY
