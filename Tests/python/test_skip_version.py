"""vg_client_skip_version through the binding: arguments, errors, effect
(docs/design.md, "Sessions, skip and remind"). The command's use of it is in test_cli_exec.py."""

from __future__ import annotations

import ctypes
import json
import os

import pytest

from conftest import MANDATORY, OPTIONAL, VG_ECONFIG, VG_EINVAL, VG_EVERSION, flat, vg


def test_skip_silences_optional_never_mandatory(write_doc):
    src = write_doc(flat())
    with vg.Client(source=src, session_scope="process") as c:
        c.skip_version(" 1.0.41 ")
        with c.check("1.0.40") as r:
            assert (r.status, r.should_prompt) == (OPTIONAL, False)
            assert "version 1.0.41 skipped by the user" in json.loads(r.json_text)["note"]
        with c.check("1.0.38") as r:
            assert (r.status, r.should_prompt) == (MANDATORY, True)


@pytest.mark.parametrize("version, code, why", [
    (None, VG_EINVAL, "version is NULL"), ("1.0b1", VG_EVERSION, "not a valid version"),
    (b"\xff", VG_EINVAL, "not valid UTF-8"),
])
def test_skip_refuses_bad_versions(write_doc, version, code, why):
    with vg.Client(source=write_doc(flat())) as c:
        with pytest.raises(vg.VersionGateError) as error:
            c.skip_version(version)
        assert error.value.code == code and why in str(error.value)
        assert why in c.last_error


def test_skip_needs_a_source_and_a_null_client_is_einval():
    with vg.Client() as c:
        with pytest.raises(vg.VersionGateError) as error:
            c.skip_version("1.0")
        assert error.value.code == VG_EINVAL and "source" in str(error.value)
    raw = ctypes.CDLL(vg.LIBRARY_PATH).vg_client_skip_version
    raw.argtypes, raw.restype = [ctypes.c_void_p, ctypes.c_char_p], ctypes.c_int
    assert raw(None, b"1.0") == VG_EINVAL


def test_skip_without_a_writable_state_directory_is_econfig(write_doc, tmp_path, monkeypatch):
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    (state / "versiongate").mkdir(mode=0o777)
    os.chmod(state / "versiongate", 0o777)        # others could write: refused
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    with vg.Client(source=write_doc(flat())) as c:
        with pytest.raises(vg.VersionGateError) as error:
            c.skip_version("1.0.41")
        assert error.value.code == VG_ECONFIG


@pytest.mark.parametrize("locale, label", [
    ("en_US.UTF-8", "Skip this version"), ("pt_BR.UTF-8", "Pular esta versão"), ("es_ES.UTF-8", "Omitir esta versión"),
    ("de_DE.UTF-8", "Diese Version überspringen"), ("fr_FR.UTF-8", "Ignorer cette version"),
])
def test_the_skip_label_is_the_users_language_and_only_on_optional(write_doc, locale, label):
    src = write_doc(flat())
    with vg.Client(source=src, session_scope="process", locale=locale) as c:
        with c.check("1.0.40") as r:
            assert r.skip_label == label
            assert json.loads(r.json_text)["skip_label"] == label
        with c.check("1.0.38") as r:
            assert r.status == MANDATORY and r.skip_label is None
