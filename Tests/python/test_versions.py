"""Versions and the pure gate (docs/design.md, "Versions", "The gate rule"), one row per rule."""

from __future__ import annotations

import ctypes
import json
from pathlib import Path

import pytest

from conftest import (MANDATORY, OPTIONAL, UP_TO_DATE, VG_EINVAL, VG_EVERSION,
                      VG_OK, vg)

# The rows are shared with the Swift tests (Tests/Fixtures/README.md).
TABLE = json.loads((Path(__file__).resolve().parents[2] / "Tests" / "Fixtures"
                    / "versions.json").read_text(encoding="utf-8"))
STATUS = {"MANDATORY": MANDATORY, "OPTIONAL": OPTIONAL, "UP_TO_DATE": UP_TO_DATE}

CHAIN = TABLE["chain"]  # ascending
# (a, b, expected compare(a, b)); every ascending pair of the chain is a row too.
COMPARE = [(r["a"], r["b"], r["expected"]) for r in TABLE["compare"]] + [
    (a, b, -1) for i, a in enumerate(CHAIN) for b in CHAIN[i + 1:]]
VALID = [r["text"] for r in TABLE["valid"]]
INVALID = [r["text"] for r in TABLE["invalid"]]
# (current, min_required, latest, status); None is an absent version (NULL).
DECIDE = [(r["current"], r["min"], r["latest"], STATUS[r["expected"]]) for r in TABLE["decide"]]


def test_tables_are_complete():
    # The row counts versions.json was written with: fewer means rows got lost.
    assert len(TABLE["compare"]) >= 73 and len(CHAIN) >= 16
    assert len(VALID) >= 42 and len(INVALID) >= 77 and len(DECIDE) >= 57


# Not valid UTF-8, so not in versions.json (JSON text is Unicode).
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


@pytest.mark.parametrize("v", INVALID + NON_UTF8 + ["9" * 1_000_000])
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
    for i, a in enumerate(CHAIN):
        for j, b in enumerate(CHAIN):
            assert vg.compare(a, b) == (i > j) - (i < j), (a, b)


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
