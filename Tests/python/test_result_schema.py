"""The result's one schema (issue 21): declarations/result_fields.decl, the
JSON, vg_result_get, the Python Result, the header, docs/api.md and the man
page say the same.

For results of every rule (Tests/python/test_decision.py's cases), in one
process: the JSON's keys are the declaration's in its order; vg_result_get
of each key is the JSON value as text (numbers in decimal, booleans
true/false, NULL for null) and NULL for keys outside the list; each key is a
property of the Python Result with the JSON's value; scripts/generate
--check finds the header, docs/api.md ("The result"), the man page and the
binding written from the declaration.
"""

from __future__ import annotations

import ctypes
import json
import subprocess

import pytest

import versiongate as vg
from conftest import REPO
from test_decision import CASES
from test_generate import SCRIPT, generator

def header_fields() -> list[tuple[str, str, list[str]]]:
    return generator().result_fields(REPO)


@pytest.fixture(scope="module")
def lib():
    library = ctypes.CDLL(vg.LIBRARY_PATH)
    library.vg_result_get.restype = ctypes.c_char_p
    library.vg_result_get.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    library.vg_result_json.restype = ctypes.c_char_p
    library.vg_result_json.argtypes = [ctypes.c_void_p]
    return library


def as_text(value):
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "\n".join(value)
    return str(value)


@pytest.fixture(params=sorted(CASES))
def result(request, tmp_path):
    document, version = CASES[request.param][:2]
    path = tmp_path / "gate.json"
    if document is not None:
        path.write_text(json.dumps(document))
    with vg.Client(source=str(path), session_scope="process") as client, client.check(version) as r:
        yield r


def test_the_json_keys_are_the_declarations_in_its_order(result, lib):
    keys = list(json.loads(lib.vg_result_json(result._h())))
    assert keys == [key for key, _, _ in header_fields()]


def test_vg_result_get_is_the_json_for_every_key(result, lib):
    document = json.loads(lib.vg_result_json(result._h()))
    types = {key: kind for key, kind, _ in header_fields()}
    for key, value in document.items():
        got = lib.vg_result_get(result._h(), key.encode())
        assert (None if got is None else got.decode()) == as_text(value), key
        expected_type = {str: "text", int: "number", bool: "boolean", list: "list"}.get(type(value))
        assert value is None or types[key] == expected_type, (key, value)
    for stranger in ("", "Status", "status ", "reasons", "min_required_version_linux", "rule\n"):
        assert lib.vg_result_get(result._h(), stranger.encode()) is None, stranger
    assert lib.vg_result_get(result._h(), None) is None
    assert lib.vg_result_get(None, b"status") is None


def test_each_key_is_a_python_property_with_the_json_value(result):
    document = result.json()
    for key, value in document.items():
        assert isinstance(getattr(type(result), key, None), property), "Result has no property %s" % key
        got = getattr(result, key)
        if key == "status":
            got = got.name
        assert got == value, key
        assert result.get(key) == as_text(value), key


def test_the_header_the_api_page_the_man_page_and_python_copy_the_declaration():
    done = subprocess.run([str(SCRIPT), "--check"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    api_page = (REPO / "docs" / "api.md").read_text()
    man = (REPO / "man" / "versiongate.1").read_text()
    for key, _, _ in header_fields():
        assert "| `%s` |" % key in api_page, key
        assert ".B %s\n" % key.replace("-", "\\-") in man, key
