"""The ctypes binding itself: loading, declarations, errors, ownership."""

from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
import sys

import pytest

from conftest import (HEADER, LIB_PATH, REPO, VG_ECONFIG, VG_EINVAL,
                      VG_EVERSION, child_env, flat, vg)


def header_functions():
    text = HEADER.read_text()
    return sorted(set(re.findall(r"^[A-Za-z_][\w \*]*?\b(vg_\w+)\s*\(", text, re.M)))


# -- loading ----------------------------------------------------------------

def test_every_header_function_is_declared_once_with_types():
    names = header_functions()
    assert len(names) == 45, names
    assert list(vg.SYMBOLS) == names
    for name in names:
        func = getattr(vg, name)
        assert func.argtypes is not None, name
        assert hasattr(func, "restype"), name


def test_int_returning_functions_have_an_errcheck_except_the_fail_open_checks():
    for name in ("vg_version_compare", "vg_client_new", "vg_client_set", "vg_store_url", "vg_client_store_url"):
        assert getattr(vg, name).errcheck is not None, name
    for name in ("vg_client_check", "vg_check"):
        assert getattr(vg, name).errcheck is None, name


def header_enum(name):
    text = HEADER.read_text()
    block = re.search(r"typedef enum %s \{(.*?)\} %s;" % (name, name), text, re.S).group(1)
    return {k: int(v) for k, v in re.findall(r"\b(VG_\w+)\s*=\s*(-?\d+)", block)}


def test_codes_and_statuses_match_header():
    assert header_enum("vg_error") == {"VG_" + e.name: e.value for e in vg.Error}
    assert header_enum("vg_status") == {"VG_STATUS_" + s.name: s.value for s in vg.Status}
    assert header_enum("vg_update_outcome") == {"VG_UPDATE_" + o.name: o.value for o in vg.UpdateOutcome}


def test_signature_code_is_pinned():
    # Appended for signed documents (#15); the list is append-only.
    assert vg.Error.ESIGNATURE == -15 and vg.Error.EOPEN == -14
    # Appended for the installed version read from the system (#25).
    assert vg.Error.EINSTALLED == -16
    # Appended for the update in place (#34).
    assert vg.Error.EUPDATE == -17


def test_library_version_matches_header():
    m = re.search(r'#define VG_VERSION_STRING "([^"]+)"', HEADER.read_text())
    assert vg.library_version() == m.group(1)


def test_find_library_order(tmp_path):
    """$VERSIONGATE_LIBRARY, else the package's copy, else the SONAME."""
    packaged = tmp_path / "libversiongate.so.1"
    assert vg.find_library_path({"VERSIONGATE_LIBRARY": "/x/lib.so"}, packaged) == "/x/lib.so"
    assert vg.find_library_path({}, packaged) == "libversiongate.so.1"
    packaged.write_bytes(b"")
    assert vg.find_library_path({}, packaged) == str(packaged)
    # An empty VERSIONGATE_LIBRARY counts as unset.
    assert vg.find_library_path({"VERSIONGATE_LIBRARY": ""}, packaged) == str(packaged)


def _import_in_child(env):
    return subprocess.run(
        [sys.executable, "-c", "import versiongate as vg; print(vg.LIBRARY_PATH)"],
        env=env, capture_output=True, text=True, timeout=60)


def test_import_loads_the_library_named_by_env(tmp_path):
    copy = tmp_path / "copy" / "libversiongate.so"
    copy.parent.mkdir()
    shutil.copy(LIB_PATH, copy)
    proc = _import_in_child(child_env(VERSIONGATE_LIBRARY=str(copy)))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(copy)


def test_import_without_env_loads_the_system_library_by_soname():
    """Outside a wheel, nothing set: the loader's libversiongate.so.1 (here
    the build tree's, through LD_LIBRARY_PATH); no ldconfig subprocess."""
    proc = _import_in_child(child_env(VERSIONGATE_LIBRARY=None, LD_LIBRARY_PATH=str(REPO / "build" / "lib")))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "libversiongate.so.1"
    proc = _import_in_child(child_env(VERSIONGATE_LIBRARY=None))
    assert proc.returncode != 0 and "libversiongate.so.1" in proc.stderr


def test_import_with_a_wrong_env_path_fails_loudly(tmp_path):
    proc = _import_in_child(child_env(VERSIONGATE_LIBRARY=str(tmp_path / "nope.so")))
    assert proc.returncode != 0
    assert "nope.so" in proc.stderr


# -- errors -----------------------------------------------------------------

def test_compare_raises_typed_error_for_invalid_version():
    with pytest.raises(vg.VersionGateError) as info:
        vg.compare("1.0", "abc")
    assert info.value.code == VG_EVERSION == vg.Error.EVERSION
    assert info.value.name == "VG_EVERSION"
    assert info.value.message


def test_client_set_raises_with_the_clients_reason():
    with vg.Client() as c:
        with pytest.raises(vg.VersionGateError) as info:
            c.set("no_such_key", "x")
        assert info.value.code == VG_EINVAL
        assert "no_such_key" in info.value.message
        assert info.value.message == c.last_error


def test_client_constructor_raises_for_bad_option_and_frees(monkeypatch):
    freed = []
    real = vg.vg_client_free
    monkeypatch.setattr(vg, "vg_client_free", lambda h: (freed.append(h.value), real(h)))
    with pytest.raises(vg.VersionGateError) as info:
        vg.Client(platform="Not A Platform")
    assert info.value.code == VG_EINVAL
    assert "platform" in info.value.message
    assert len(freed) == 1


def test_strerror_text_for_every_code():
    for code in list(vg.Error) + [12345, -999]:
        assert isinstance(vg.strerror(code), str) and vg.strerror(code)


def test_an_unknown_code_has_the_librarys_name():
    # errorName's fallback (Sources/VersionGate/Errors.swift; GateTests pins it).
    for code in (12345, -999, -18):
        assert vg.error_name(code) == "VG_EUNKNOWN"
        error = vg.VersionGateError(code)
        assert (error.name, error.message) == ("VG_EUNKNOWN", vg.strerror(code))
    assert vg.strerror(-999) == "unknown error"
    assert [vg.error_name(code) for code in vg.Error] == ["VG_" + code.name for code in vg.Error]


def test_all_names_every_public_function_and_class():
    import inspect
    public = sorted(name for name, value in vars(vg).items()
                    if not name.startswith("_") and not name.startswith("vg_")
                    and (inspect.isfunction(value) or inspect.isclass(value))
                    and value.__module__ == vg.__name__)
    assert sorted(set(vg.__all__) - {"LIBRARY_PATH"}) == public
    assert {"store_url", "open_url", "error_name"} <= set(vg.__all__)
    assert all(hasattr(vg, name) for name in vg.__all__)


def test_fail_open_is_not_an_exception(tmp_path):
    with vg.Client(source=tmp_path / "missing.json") as c, c.check("1.0") as r:
        assert r.status is vg.Status.UP_TO_DATE
        assert r.error == r.code == VG_ECONFIG
        assert r.error_name == "VG_ECONFIG"
    with vg.check(None, "1.0") as r:
        assert r.status is vg.Status.UP_TO_DATE
        assert r.error == r.code != 0


# -- ownership --------------------------------------------------------------

def test_result_is_freed_exactly_once(write_doc, monkeypatch):
    freed = []
    real = vg.vg_result_free
    monkeypatch.setattr(vg, "vg_result_free", lambda h: (freed.append(h.value), real(h)))
    src = write_doc(flat())
    with vg.Client(source=src, session_scope="process") as c:
        with c.check("1.0.40") as r:
            address = r._handle.value
            assert r.status is vg.Status.OPTIONAL
        assert r.closed
        r.close()
        del r
    assert freed == [address]


def test_client_is_freed_exactly_once(monkeypatch):
    freed = []
    real = vg.vg_client_free
    monkeypatch.setattr(vg, "vg_client_free", lambda h: (freed.append(h.value), real(h)))
    with vg.Client() as c:
        address = c._handle.value
    c.close()
    del c
    assert freed == [address]


def test_result_getters_refuse_a_closed_result(write_doc):
    r = vg.check(write_doc(flat()), "1.0.40")
    r.close()
    for attr in ("status", "title", "message", "json_text", "error"):
        with pytest.raises(ValueError):
            getattr(r, attr)


def test_result_outlives_its_client(write_doc):
    c = vg.Client(source=write_doc(flat()), session_scope="process")
    r = c.check("1.0.38")
    c.close()
    with r:
        assert r.status is vg.Status.MANDATORY
        assert r.title and r.message


def test_strings_are_copies_that_outlive_the_result(write_doc):
    with vg.check(write_doc(flat()), "1.0.38") as r:
        title, js = r.title, r.json()
    assert isinstance(title, str) and title == js["title"]


def test_take_string_copies_then_frees_with_vg_free(monkeypatch):
    freed = []
    monkeypatch.setattr(vg, "vg_free", lambda p: freed.append(p))
    buf = ctypes.create_string_buffer("pré-release".encode())
    address = ctypes.addressof(buf)
    assert vg._take_string(ctypes.c_void_p(address)) == "pré-release"
    assert freed == [address]
    assert vg._take_string(ctypes.c_void_p(None)) is None
    assert vg._take_string(0) is None
    assert freed == [address]


def test_take_string_frees_even_when_decoding_would_fail(monkeypatch):
    freed = []
    monkeypatch.setattr(vg, "vg_free", lambda p: freed.append(p))
    buf = ctypes.create_string_buffer(b"\xff\xfe")
    assert vg._take_string(ctypes.addressof(buf)) == "\ufffd\ufffd"
    assert freed == [ctypes.addressof(buf)]


FREE_NULL_CHILD = r"""
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
for name in ("vg_free", "vg_client_free", "vg_result_free"):
    free = getattr(lib, name)
    free.restype, free.argtypes = None, [ctypes.c_void_p]
    free(None)
    # The library still answers after each: a compare whose result is printed.
    lib.vg_version_compare.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_char_p, ctypes.c_char_p]
    order = ctypes.c_int(7)
    code = lib.vg_version_compare(ctypes.byref(order), b"1.0", b"1.1")
    print(name, code, order.value)
"""


def test_every_free_function_accepts_null():
    # In a child: a free that crashed on NULL would take pytest down with it.
    proc = subprocess.run([sys.executable, "-c", FREE_NULL_CHILD, LIB_PATH], env=child_env(),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["vg_free 0 -1", "vg_client_free 0 -1", "vg_result_free 0 -1"]


def test_binding_declares_char_pointer_getters_as_borrowed_copies():
    # const char * getters: c_char_p (copy, not freed); none returns c_void_p.
    for name in vg.SYMBOLS:
        if name.startswith("vg_result_") and name not in (
                "vg_result_status", "vg_result_should_prompt",
                "vg_result_error", "vg_result_free"):
            assert getattr(vg, name).restype is ctypes.c_char_p, name
