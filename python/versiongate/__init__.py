"""ctypes binding for libversiongate.so — "may this version of the app run?"

Usage::

    import versiongate as vg

    with vg.Client(source="/etc/myapp/gate.json") as client:
        with client.check("1.0.40") as result:
            if result.status is vg.Status.MANDATORY:
                ...

    vg.compare("1.9", "1.10")                   # -1
    vg.decide("1.0.40", "1.0.39", "1.0.41")     # Status.OPTIONAL
    with vg.check("/etc/myapp/gate.json", "1.0.40") as result: ...

Conventions (after python-libarchive-c's ``ffi.py``):

- every C symbol of ``versiongate.h`` is declared once, below, with
  ``argtypes`` and ``restype``; functions returning an int error code get an
  ``errcheck`` that raises :class:`VersionGateError` — except the two check
  functions, whose errors fail open and are reported on the :class:`Result`;
- handles (:class:`Client`, :class:`Result`) are context managers that free
  their handle exactly once (``close()`` is idempotent, ``__del__`` is only a
  safety net);
- ``const char *`` getters return strings owned by the result: they are copied
  (``c_char_p`` restype) while the result is alive and never freed;
- strings returned through ``char **out`` are read as ``c_void_p``, copied with
  ``string_at`` and released with ``vg_free`` (:func:`_take_string`). A
  ``c_char_p`` there would copy to ``bytes`` and lose the pointer: a leak.

The library is found through ``$VERSIONGATE_LIBRARY``, else the copy inside
this package (a wheel carries one), else the system's ``libversiongate.so.1``
(``make install``). Install with ``pip install ./python`` from the repository.
"""

from __future__ import annotations

import ctypes
import enum
import json
import logging
import os
from ctypes import POINTER, c_char_p, c_int, c_void_p
from pathlib import Path
from typing import Any, Callable, List, Mapping, Optional, Union

__all__ = [
    "Client",
    "Error",
    "LogLevel",
    "LIBRARY_PATH",
    "Result",
    "Status",
    "UpdateOutcome",
    "VersionGateError",
    "Watch",
    "check",
    "compare",
    "decide",
    "error_name",
    "events_funnel",
    "find_library_path",
    "library_version",
    "lint",
    "open_url",
    "policy_report",
    "store_url",
    "strerror",
]

StrOrBytes = Union[str, bytes]
PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]


class Status(enum.IntEnum):
    """``vg_status``: the gate's answer."""

    # BEGIN GENERATED statuses (scripts/generate)
    UP_TO_DATE = 0
    OPTIONAL = 1
    MANDATORY = 2
    # END GENERATED statuses


class Error(enum.IntEnum):
    """``vg_error``: 0 is success, errors are negative (append-only list)."""

    # BEGIN GENERATED errors (scripts/generate)
    OK = 0
    EINVAL = -1
    EVERSION = -2
    ECONFIG = -3
    ENOMEM = -4
    EINTERNAL = -5
    ENETWORK = -6
    ETIMEOUT = -7
    ETOOLARGE = -8
    ETLS = -9
    EPOLICY = -10
    EFORK = -11
    EHTTP = -12
    EBACKOFF = -13
    EOPEN = -14
    ESIGNATURE = -15
    EINSTALLED = -16
    EUPDATE = -17
    # END GENERATED errors


class UpdateOutcome(enum.IntEnum):
    """``vg_update_outcome``: how :meth:`Client.update` ended (append-only)."""

    # BEGIN GENERATED update_outcomes (scripts/generate)
    INSTALLED = 0
    NOT_FLATPAK = 1
    UNAVAILABLE = 2
    REFUSED = 3
    NEEDS_PERMISSIONS = 4
    FAILED = 5
    CANCELLED = 6
    NOTHING_NEW = 7
    VERIFY_FAILED = 8
    AFTER_EXIT = 9
    # END GENERATED update_outcomes


def error_name(code: int) -> str:
    """``"VG_EINVAL"`` for -1; ``"VG_EUNKNOWN"`` for a code the binding does
    not know, as the library names it (errorName, Sources/VersionGate/Errors.swift)."""
    try:
        return "VG_" + Error(code).name
    except ValueError:
        return "VG_EUNKNOWN"


class VersionGateError(Exception):
    """A negative ``vg_error`` code from the library, with its message."""

    def __init__(self, code: int, message: Optional[str] = None):
        self.code = int(code)
        self.name = error_name(self.code)
        self.message = message if message is not None else strerror(self.code)
        super().__init__(self.code, self.message)

    def __str__(self) -> str:
        return "%s: %s" % (self.name, self.message)


# --------------------------------------------------------------------------
# Locating and loading the library
# --------------------------------------------------------------------------

#: The copy a wheel carries, beside this file.
_PACKAGED = Path(__file__).resolve().parent / "libversiongate.so.1"
#: The system's, found by the dynamic loader (ld.so.cache, LD_LIBRARY_PATH).
_SONAME = "libversiongate.so.1"


def find_library_path(
    environ: Optional[Mapping[str, str]] = None,
    packaged: Optional[Path] = None,
) -> str:
    """Where to load the library from: ``$VERSIONGATE_LIBRARY`` when set
    (used as given: a typo must not silently load another copy), else the
    copy inside this package, else the system's ``libversiongate.so.1`` by
    its SONAME. No subprocess (``ctypes.util.find_library`` runs ldconfig).
    """
    environ = os.environ if environ is None else environ
    packaged = _PACKAGED if packaged is None else Path(packaged)
    explicit = environ.get("VERSIONGATE_LIBRARY")
    if explicit:
        return explicit
    if packaged.is_file():
        return str(packaged)
    return _SONAME


LIBRARY_PATH = find_library_path()
_lib = ctypes.CDLL(LIBRARY_PATH)


# --------------------------------------------------------------------------
# errcheck functions
# --------------------------------------------------------------------------

def _errcheck_code(code, func, args):
    """Raise on a negative code; the message is the library's strerror."""
    if code != Error.OK:
        raise VersionGateError(code, "%s: %s" % (func.__name__, strerror(code)))
    return code


def _errcheck_set(code, func, args):
    """vg_client_set: the client says why (vg_client_last_error)."""
    if code != Error.OK:
        why = vg_client_last_error(args[0])
        message = _decode(why) if why is not None else strerror(code)
        raise VersionGateError(code, message)
    return code


# --------------------------------------------------------------------------
# The C symbols, each declared once
# --------------------------------------------------------------------------

def _declare(name, restype, argtypes, errcheck=None):
    try:
        func = getattr(_lib, name)
    except AttributeError:
        raise ImportError(
            "%s does not export %s: the library does not match versiongate.h"
            % (LIBRARY_PATH, name)
        ) from None
    func.restype = restype
    func.argtypes = argtypes
    if errcheck is not None:
        func.errcheck = errcheck
    return func


_vg_client_p = c_void_p  # opaque vg_client *
_vg_result_p = c_void_p  # opaque vg_result *

# Library. Static strings: c_char_p copies them, nothing to free.
vg_library_version = _declare("vg_library_version", c_char_p, [])
vg_strerror = _declare("vg_strerror", c_char_p, [c_int])
vg_free = _declare("vg_free", None, [c_void_p])

# Versions and the pure gate.
vg_version_compare = _declare(
    "vg_version_compare", c_int, [POINTER(c_int), c_char_p, c_char_p],
    _errcheck_code)
vg_decide = _declare("vg_decide", c_int, [c_char_p, c_char_p, c_char_p])

# Client.
vg_client_new = _declare(
    "vg_client_new", c_int, [POINTER(_vg_client_p)], _errcheck_code)
vg_client_free = _declare("vg_client_free", None, [_vg_client_p])
vg_client_last_error = _declare(
    "vg_client_last_error", c_char_p, [_vg_client_p])
vg_client_set = _declare(
    "vg_client_set", c_int, [_vg_client_p, c_char_p, c_char_p], _errcheck_set)
vg_client_get = _declare("vg_client_get", c_int, [_vg_client_p, c_char_p, POINTER(c_void_p)])
vg_client_skip_version = _declare(
    "vg_client_skip_version", c_int, [_vg_client_p, c_char_p], _errcheck_set)
# The check functions return an int code too, but every error there fails open
# (UP_TO_DATE) and a result is written even then, which must be freed: the
# code is reported on the Result, not raised (no errcheck on purpose).
vg_client_check = _declare(
    "vg_client_check", c_int,
    [POINTER(_vg_result_p), _vg_client_p, c_char_p])
vg_check = _declare(
    "vg_check", c_int, [POINTER(_vg_result_p), c_char_p, c_char_p])

# Where to update. The URL comes back through char **out: read as c_void_p,
# copied and released with vg_free (_take_string).
vg_store_url = _declare(
    "vg_store_url", c_int, [POINTER(c_void_p), c_char_p, c_char_p], _errcheck_code)
vg_client_store_url = _declare(
    "vg_client_store_url", c_int, [POINTER(c_void_p), _vg_client_p], _errcheck_code)
vg_client_refresh = _declare("vg_client_refresh", c_int, [_vg_client_p, c_char_p])
vg_client_watch = _declare("vg_client_watch", c_int, [_vg_client_p, POINTER(c_int)])
vg_client_unwatch = _declare("vg_client_unwatch", c_int, [_vg_client_p])
# Not raised: opening may fail for reasons the launcher reports itself.
vg_open_url = _declare("vg_open_url", c_int, [c_char_p])
vg_client_open_url = _declare("vg_client_open_url", c_int, [_vg_client_p, c_char_p])

# Lint: the problems come back through char **out (_take_string).
vg_lint = _declare("vg_lint", c_int, [POINTER(c_void_p), c_char_p, c_char_p])
# The administrator's policy: two char **out (_take_string).
vg_policy_report = _declare("vg_policy_report", c_int, [POINTER(c_void_p), POINTER(c_void_p)], _errcheck_code)

# Logging. The message is valid only during the callback: c_char_p copies it.
_vg_log_fn = ctypes.CFUNCTYPE(None, c_int, c_char_p, c_void_p)
vg_client_set_log_callback = _declare(
    "vg_client_set_log_callback", c_int, [_vg_client_p, _vg_log_fn, c_void_p], _errcheck_code)

# Events: one JSON object per call of the callback, valid only during it.
_vg_event_fn = ctypes.CFUNCTYPE(None, c_char_p, c_void_p)
vg_client_set_event_callback = _declare(
    "vg_client_set_event_callback", c_int, [_vg_client_p, _vg_event_fn, c_void_p], _errcheck_code)
vg_client_report = _declare(
    "vg_client_report", c_int, [_vg_client_p, _vg_result_p, c_char_p], _errcheck_set)
# The funnel comes back through char **out, on errors too (_take_string).
vg_events_funnel = _declare("vg_events_funnel", c_int, [POINTER(c_void_p), c_char_p])

# Result getters. Strings are owned by the result: c_char_p copies them while
# the result is alive; they are never freed by us.
vg_result_status = _declare("vg_result_status", c_int, [_vg_result_p])
vg_result_rule = _declare("vg_result_rule", c_char_p, [_vg_result_p])
vg_result_get = _declare("vg_result_get", c_char_p, [_vg_result_p, c_char_p])
vg_result_should_prompt = _declare(
    "vg_result_should_prompt", c_int, [_vg_result_p])
vg_result_title = _declare("vg_result_title", c_char_p, [_vg_result_p])
vg_result_message = _declare("vg_result_message", c_char_p, [_vg_result_p])
vg_result_release_notes = _declare("vg_result_release_notes", c_char_p, [_vg_result_p])
vg_result_action_label = _declare(
    "vg_result_action_label", c_char_p, [_vg_result_p])
vg_result_dismiss_label = _declare(
    "vg_result_dismiss_label", c_char_p, [_vg_result_p])
vg_result_skip_label = _declare(
    "vg_result_skip_label", c_char_p, [_vg_result_p])
vg_result_store_url = _declare(
    "vg_result_store_url", c_char_p, [_vg_result_p])
vg_result_error = _declare("vg_result_error", c_int, [_vg_result_p])
vg_result_error_message = _declare(
    "vg_result_error_message", c_char_p, [_vg_result_p])
vg_result_min_required = _declare(
    "vg_result_min_required", c_char_p, [_vg_result_p])
vg_result_latest = _declare("vg_result_latest", c_char_p, [_vg_result_p])
vg_result_json = _declare("vg_result_json", c_char_p, [_vg_result_p])
vg_result_free = _declare("vg_result_free", None, [_vg_result_p])

# Updating in place. The progress callback returns nonzero to cancel.
_vg_update_progress_fn = ctypes.CFUNCTYPE(c_int, c_int, c_int, c_int, c_void_p)
vg_client_update = _declare(
    "vg_client_update", c_int, [POINTER(c_int), _vg_client_p, _vg_result_p, _vg_update_progress_fn, c_void_p])
vg_client_restart = _declare(
    "vg_client_restart", c_int, [_vg_client_p, POINTER(c_char_p), c_char_p, POINTER(c_int)])

#: Every function of versiongate.h, by name (what this module declared).
SYMBOLS = tuple(sorted(n for n in globals() if n.startswith("vg_")))


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

def _encode(value: Optional[StrOrBytes]) -> Optional[bytes]:
    """str -> UTF-8 bytes; bytes pass through (for non-UTF-8 tests); None -> NULL."""
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    raise TypeError("expected str, bytes or None, not %s" % type(value).__name__)


def _encode_path(value: Optional[PathLike]) -> Optional[bytes]:
    if value is None:
        return None
    return os.fsencode(value)


def _decode(raw: Optional[bytes]) -> Optional[str]:
    # The library promises UTF-8; a launcher must not crash if it is not.
    return None if raw is None else raw.decode("utf-8", "replace")


def _take_string(ptr: Union[c_void_p, int, None]) -> Optional[str]:
    """Copy and release a string the library returned through ``char **out``.

    ``ptr`` is the ``c_void_p`` the out-parameter was read into (or its int
    value). The bytes are copied with ``string_at``, then the library's memory
    is released with ``vg_free`` — exactly once, also when decoding fails.
    """
    address = ptr.value if isinstance(ptr, c_void_p) else ptr
    if not address:
        return None
    try:
        return ctypes.string_at(address).decode("utf-8", "replace")
    finally:
        vg_free(address)


def library_version() -> str:
    """The library's version, "MAJOR.MINOR.PATCH"."""
    return vg_library_version().decode("ascii", "replace")


def strerror(code: int) -> str:
    """The library's English description of a ``vg_error`` code."""
    raw = vg_strerror(int(code))
    return raw.decode("utf-8", "replace") if raw is not None else "unknown error"


def compare(a: StrOrBytes, b: StrOrBytes) -> int:
    """-1, 0 or 1 as version ``a`` is lower, equal or higher than ``b``.

    Raises :class:`VersionGateError` (``code == Error.EVERSION``) when either
    string is not a valid version (docs/design.md, "Versions").
    """
    if a is None or b is None:
        raise TypeError("compare() needs two version strings")
    out = c_int(0)
    vg_version_compare(ctypes.byref(out), _encode(a), _encode(b))
    return out.value


def decide(current: Optional[StrOrBytes],
           min_required: Optional[StrOrBytes] = None,
           latest: Optional[StrOrBytes] = None) -> Status:
    """The pure gate (docs/design.md, "The gate rule") on explicit thresholds; never raises for values."""
    return Status(vg_decide(_encode(current), _encode(min_required),
                            _encode(latest)))


# --------------------------------------------------------------------------
# Result
# --------------------------------------------------------------------------

class _Handle:
    """A library handle freed exactly once: by ``close``, the ``with`` block,
    or (as a safety net) garbage collection."""

    _free = ""  # the name of the library's free function, looked up when called
    _kind = "handle"

    def close(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            globals()[self._free](handle)

    @property
    def closed(self) -> bool:
        return self._handle is None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        # At interpreter shutdown the module may be gone.
        try:
            self.close()
        except Exception:
            pass

    def _h(self) -> c_void_p:
        if self._handle is None:
            raise ValueError(f"the {self._kind} is closed")
        return self._handle


def _field(key: str, kind: str, doc: str) -> property:
    """A Result property that reads one field of the schema by its JSON key
    (vg_result_get), typed as declarations/result_fields.decl says."""
    def read(self) -> Union[str, int, bool, List[str], None]:
        text = self.get(key)
        if kind == "list":
            return text.split("\n") if text else []
        if text is None or kind == "text":
            return text
        return int(text) if kind == "number" else text == "true"
    return property(read, doc=doc)


class Result(_Handle):
    """One answer of the gate; owns a ``vg_result *``.

    Use as a context manager (or call :meth:`close`); getters read the live
    result and raise ``ValueError`` once it is closed. ``code`` is what the
    check function returned; ``error`` is ``vg_result_error`` (they are equal
    when the library keeps its contract).
    """

    __slots__ = ("_handle", "code", "_client")
    _free = "vg_result_free"
    _kind = "result"

    def __init__(self, handle: c_void_p, code: int, client: Optional["Client"] = None):
        self._handle = handle
        self.code = code
        self._client = client

    def report(self, outcome: str) -> None:
        """What the user did with this result's prompt, for a host that shows
        its own (vg_client_report): "shown", "update", "later", "skip",
        "dismissed", "store_opened" or "store_open_failed". Emits the
        ``outcome`` event to the client's ``on_event`` and records the prompt
        for ``update_confirmed``; "skip" skips the latest version. An unknown
        outcome raises (``Error.EINVAL``) and emits nothing."""
        if self._client is None:
            raise ValueError("this result has no client to report to (use Client.check)")
        vg_client_report(self._client._h(), self._h(), _encode(outcome))

    # -- getters ----------------------------------------------------------
    @property
    def status(self) -> Status:
        return Status(vg_result_status(self._h()))

    @property
    def should_prompt(self) -> bool:
        return vg_result_should_prompt(self._h()) != 0

    @property
    def title(self) -> Optional[str]:
        return _decode(vg_result_title(self._h()))

    @property
    def message(self) -> Optional[str]:
        return _decode(vg_result_message(self._h()))

    @property
    def release_notes(self) -> Optional[str]:
        """What is new in the latest version (OPTIONAL only), line breaks kept."""
        return _decode(vg_result_release_notes(self._h()))

    @property
    def action_label(self) -> Optional[str]:
        return _decode(vg_result_action_label(self._h()))

    @property
    def dismiss_label(self) -> Optional[str]:
        return _decode(vg_result_dismiss_label(self._h()))

    @property
    def skip_label(self) -> Optional[str]:
        """The "Skip this version" label in the user's language (OPTIONAL only)."""
        return _decode(vg_result_skip_label(self._h()))

    @property
    def store_url(self) -> Optional[str]:
        return _decode(vg_result_store_url(self._h()))

    @property
    def error(self) -> int:
        """``vg_result_error``: 0 when the decision came from a good config."""
        return vg_result_error(self._h())

    @property
    def error_name(self) -> str:
        return error_name(self.error)

    @property
    def error_message(self) -> Optional[str]:
        return _decode(vg_result_error_message(self._h()))

    @property
    def min_required(self) -> Optional[str]:
        return _decode(vg_result_min_required(self._h()))

    @property
    def latest(self) -> Optional[str]:
        return _decode(vg_result_latest(self._h()))

    @property
    def rule(self) -> str:
        """``vg_result_rule``: the rule that decided, a stable name ("blocked",
        "below_minimum", ...: docs/api.md lists them all; more may be added)."""
        return _decode(vg_result_rule(self._h()))

    def get(self, key: str) -> Optional[str]:
        """``vg_result_get``: the field with that JSON key as text (numbers in
        decimal, booleans "true"/"false", a list one item per line, "" when
        empty); None for null or an unknown key. The field's property (e.g.
        ``policy_files``) gives a list as a ``list`` of ``str``."""
        return _decode(vg_result_get(self._h(), key.encode("utf-8")))

    # The fields without a getter above, from the one declaration.
    # BEGIN GENERATED result_fields (scripts/generate)
    blocked_versions = _field('blocked_versions', 'text', 'The valid blocked_versions_<platform>, comma-separated, or null.')
    blocked_versions_key = _field('blocked_versions_key', 'text', 'The key blocked_versions came from, e.g. "blocked_versions_linux" (1.3), or null.')
    channel = _field('channel', 'text', 'The user\'s channel a MANDATORY asked (1.3), or null when none was asked: "appstore", "snap", "flathub", "apt", "flatpak" or "package".')
    channel_version = _field('channel_version', 'text', 'The newest version that channel serves this system (1.3), or null when it could not be asked.')
    config_age_s = _field('config_age_s', 'number', 'Seconds since a remote config was fetched, or null.')
    current = _field('current', 'text', 'The current version, trimmed; null when invalid.')
    fetch_error = _field('fetch_error', 'number', 'A failed fetch although a config decided (else 0).')
    fetch_error_message = _field('fetch_error_message', 'text', "The failed fetch's message, or null.")
    install_kind = _field('install_kind', 'text', 'How the app was installed, which says what Update does (1.4): "flatpak", "snap", "appimage", "package" (distro_package set, or a program where packages install it), "nix", "ostree", "homebrew" or "unknown"; null when no config decided.')
    latest_key = _field('latest_key', 'text', 'The key latest came from, e.g. "latest_version_linux" (1.3), or null.')
    locale = _field('locale', 'text', 'The language of the texts, e.g. "de".')
    managed = _field('managed', 'boolean', "Whether an administrator's policy file counted (1.4).")
    managed_message = _field('managed_message', 'text', "The administrator's message for this app (1.4), or null.")
    managed_url = _field('managed_url', 'text', "The administrator's https link for this app (1.4), or null.")
    min_required_effective_at = _field('min_required_effective_at', 'text', 'When the minimum takes effect (RFC 3339), or null.')
    min_required_effective_at_key = _field('min_required_effective_at_key', 'text', "The key of the minimum's effective time (1.3), or null.")
    min_required_key = _field('min_required_key', 'text', 'The key min_required came from, e.g. "min_required_version_linux" (1.3), or null.')
    note = _field('note', 'text', 'Why a prompt is or is not shown now, or null.')
    origin = _field('origin', 'text', '"local_document", "fresh_fetch", "cache_hit", "stale_cache" (a refresh runs behind it), "cache_after_error", "embedded_default", "realtime" (a template Remote Config\'s realtime stream told of: 1.5) or "none".')
    policy_files = _field('policy_files', 'list', "The administrator's policy files that counted, in reading order (1.4).")
    proxy = _field('proxy', 'text', 'The proxy of the check\'s last request, "scheme://host:port" (credentials shown as ***), or "direct" (1.4); null when it made no request.')
    proxy_from = _field('proxy_from', 'text', 'Where that proxy came from: "option", "environment" or "desktop" (1.4), or null.')
    reason = _field('reason', 'text', 'The decision for people, e.g. "1.0.40 is in blocked_versions_linux".')
    rollout_bucket = _field('rollout_bucket', 'number', "This installation's bucket (0-99) when a staged rollout decided, or null.")
    rollout_percent = _field('rollout_percent', 'number', "The staged rollout's percent when it decided, or null.")
    rollout_percent_key = _field('rollout_percent_key', 'text', "The key of the latest's rollout percent (1.3), or null.")
    source = _field('source', 'text', 'The source the check used.')
    store_note = _field('store_note', 'text', 'Why a store URL was refused or a fallback used, or null.')
    store_web_fallback = _field('store_web_fallback', 'text', 'An https page for when no handler opens store_url, or null.')
    template_version = _field('template_version', 'number', "The Remote Config template's version, or null.")
    # END GENERATED result_fields

    @property
    def json_text(self) -> str:
        raw = vg_result_json(self._h())
        if raw is None:
            raise VersionGateError(Error.EINTERNAL, "vg_result_json returned NULL")
        return _decode(raw)

    def json(self) -> Any:
        """``vg_result_json`` parsed."""
        return json.loads(self.json_text)

    def __repr__(self) -> str:
        if self._handle is None:
            return "<versiongate.Result closed>"
        return "<versiongate.Result %s should_prompt=%d %s>" % (
            self.status.name, self.should_prompt, self.error_name)


def _result_from(check, *args) -> Result:
    out = c_void_p(None)
    code = check(ctypes.byref(out), *args)
    if not out.value:
        # Contract broken (a result is always written): fail open anyway.
        raise VersionGateError(
            Error.EINTERNAL, "%s wrote no result (code %d)" % (check.__name__, code))
    return Result(out, code)


# --------------------------------------------------------------------------
# Client
# --------------------------------------------------------------------------

class LogLevel(enum.IntEnum):
    """``VG_LOG_*``: what a client's log callback hears (option ``log_level``)."""

    ERROR = 1
    WARNING = 2
    INFO = 3
    DEBUG = 4


_LOGGING_LEVELS = {LogLevel.ERROR: logging.ERROR, LogLevel.WARNING: logging.WARNING,
                   LogLevel.INFO: logging.INFO, LogLevel.DEBUG: logging.DEBUG}


def _library_level(logger: logging.Logger) -> str:
    """The ``log_level`` that lets through what ``logger`` would emit."""
    effective = logger.getEffectiveLevel()
    for level in (LogLevel.DEBUG, LogLevel.INFO, LogLevel.WARNING):
        if effective <= _LOGGING_LEVELS[level]:
            return level.name.lower()
    return "error"


class Client(_Handle):
    """A configured gate; owns a ``vg_client *``.

    Options are the library's string keys (``source``, ``platform``,
    ``locale``, ``session_scope``); keyword arguments set them in that order.
    A bad key or value raises :class:`VersionGateError` (``Error.EINVAL``)
    with the library's reason. :meth:`check` never raises for a fail-open
    error: it returns a :class:`Result` whose ``error`` says why.
    """

    _free = "vg_client_free"
    _kind = "client"

    def __init__(self, source: Optional[PathLike] = None, *, logger: Optional[logging.Logger] = None,
                 on_event: Optional[Callable[[dict], Any]] = None, **options: Optional[str]):
        out = c_void_p(None)
        vg_client_new(ctypes.byref(out))
        self._handle: Optional[c_void_p] = out
        self._log_callback: Optional[Any] = None
        self._event_callback: Optional[Any] = None
        try:
            if source is not None:
                self.set("source", _encode_path(source))
            for key, value in options.items():
                if value is not None:
                    self.set(key, value)
            if logger is not None:
                self.log_to(logger, level=None if options.get("log_level") else _library_level(logger))
            if on_event is not None:
                self.events_to(on_event)
        except BaseException:
            self.close()
            raise

    def log_to(self, logger: Optional[logging.Logger], level: Optional[str] = None) -> None:
        """Send the library's log lines to ``logger`` (a :mod:`logging`
        bridge over vg_client_set_log_callback); None turns it off.
        ``level`` sets ``log_level`` too. Lines arrive on the checking
        thread before the check returns."""
        if level is not None:
            self.set("log_level", level)
        if logger is None:
            vg_client_set_log_callback(self._h(), _vg_log_fn(), None)
            self._log_callback = None
            return

        def emit(level: int, message: Optional[bytes], _userdata: Optional[int]) -> None:
            try:
                logger.log(_LOGGING_LEVELS.get(LogLevel(level), logging.DEBUG), "%s", _decode(message))
            except Exception:  # an exception cannot cross the C call; logging reports its own
                pass

        callback = _vg_log_fn(emit)
        vg_client_set_log_callback(self._h(), callback, None)
        self._log_callback = callback  # the library holds a pointer: keep the thunk alive

    def events_to(self, on_event: Optional[Callable[[dict], Any]]) -> None:
        """Hand every event of this client (vg_client_set_event_callback) to
        ``on_event`` as a dict: ``decided`` for each check, ``outcome`` for
        each :meth:`Result.report`, ``update_confirmed`` once when a prompted
        installation comes back newer. They arrive on the checking thread
        before the call returns; None turns it off. An exception raised by
        ``on_event`` cannot cross the C call: it is dropped."""
        if on_event is None:
            vg_client_set_event_callback(self._h(), _vg_event_fn(), None)
            self._event_callback = None
            return

        def emit(event: Optional[bytes], _userdata: Optional[int]) -> None:
            try:
                on_event(json.loads(event or b"{}"))
            except Exception:
                pass

        callback = _vg_event_fn(emit)
        vg_client_set_event_callback(self._h(), callback, None)
        self._event_callback = callback  # the library holds a pointer: keep the thunk alive

    def set(self, key: StrOrBytes, value: Optional[StrOrBytes]) -> None:
        """Set an option; ``None`` restores its default."""
        vg_client_set(self._h(), _encode(key), _encode(value))

    def get(self, key: StrOrBytes) -> Optional[str]:
        """An option's value: as set, else its default; None when it is
        unset and has none (vg_client_get). Raises for an unknown key."""
        out = c_void_p(None)
        code = vg_client_get(self._h(), _encode(key), ctypes.byref(out))
        value = _take_string(out)
        if code != Error.OK:
            raise VersionGateError(code, "vg_client_get(%r) failed" % (key,))
        return value

    def skip_version(self, version: StrOrBytes) -> None:
        """"Skip this version": no OPTIONAL prompt for this latest version
        (or an older one) again; raises with the library's reason."""
        vg_client_skip_version(self._h(), _encode(version))

    @property
    def last_error(self) -> Optional[str]:
        """Why the last :meth:`set`, :meth:`skip_version` or :meth:`open_url` failed, or None."""
        return _decode(vg_client_last_error(self._h()))

    def store_url(self) -> Optional[str]:
        """Where to update under this client's store options (vg_client_store_url)."""
        out = c_void_p(None)
        vg_client_store_url(ctypes.byref(out), self._h())
        return _take_string(out)

    def open_url(self, url: StrOrBytes) -> Error:
        """Open ``url`` with xdg-open under this client's URL policy
        (allowed_url_schemes, allowed_url_hosts; vg_client_open_url): the
        code, never raised; :attr:`last_error` says why it failed."""
        return Error(vg_client_open_url(self._h(), _encode(url)))

    def refresh(self, version: Optional[StrOrBytes] = None) -> int:
        """Bring the remote source's cache up to date unless it is fresh
        (vg_client_refresh): 0 when it is current, else the fetch's error
        code (the cache is left as it was). A check starts this by itself
        in the background when its cache is stale within the
        stale_while_revalidate_s window. ``version``: the one a check
        would send (Firebase's appVersion), if known."""
        return int(vg_client_refresh(self._h(), _encode(version)))

    def watch(self, version: Optional[StrOrBytes] = None) -> "Watch":
        """Watch the source while the app runs (vg_client_watch): a
        :class:`Watch`, whose :meth:`~Watch.fileno` fits ``selectors`` and
        asyncio's ``loop.add_reader``; iterating it gives this version's
        result now, then a new one each time the decision may have changed.
        Raises :class:`VersionGateError` when the source cannot be watched
        (:attr:`last_error` says why)."""
        fd = c_int(-1)
        code = vg_client_watch(self._h(), ctypes.byref(fd))
        if code != Error.OK:
            raise VersionGateError(code, "vg_client_watch: %s" % (self.last_error or strerror(code)))
        return Watch(self, fd.value, version)

    def unwatch(self) -> None:
        """Stop watching (vg_client_unwatch): the descriptor is closed."""
        vg_client_unwatch(self._h())

    def update(self, result: "Result",
               progress: Optional[Callable[[int, int, int], Any]] = None) -> tuple[UpdateOutcome, str]:
        """Update this app in place for a MANDATORY or OPTIONAL ``result``
        (vg_client_update): inside a Flatpak the portal installs the newest
        version; an AppImage ($APPIMAGE) is rebuilt by zsync delta from its
        update information and renamed over itself (its directory must be
        writable; with trusted_keys its .minisig is checked too); a
        distribution package (option distro_package, or the installed
        package owning the app's program, option program or this process's,
        at the checked version) is updated
        through PackageKit, polkit asking for authentication; a snap (its
        program under /snap, option snap_name, or inside a classic snap) is
        refreshed by snapd, polkit asking too; inside a strict snap nothing
        is asked (``AFTER_EXIT``: open the store and quit).
        ``progress(op, n_ops, percent)`` is called for each step (a true
        return value cancels). Takes minutes, not a check's deadline. The
        outcome and why ("" when installed): ``NOT_FLATPAK`` for none of
        these (open the store), ``VERIFY_FAILED`` when the new AppImage did
        not check or the package's repository is not trusted, ``REFUSED``
        when polkit did not authorize PackageKit. Raises only for a bad argument (an UP_TO_DATE result) or in
        a fork() child."""
        def step(op: int, n_ops: int, percent: int, _userdata: Optional[int]) -> int:
            if progress is None:
                return 0
            try:
                return 1 if progress(op, n_ops, percent) else 0
            except Exception:  # cannot cross the C call: the update goes on
                return 0

        outcome = c_int(UpdateOutcome.FAILED)
        code = vg_client_update(ctypes.byref(outcome), self._h(), result._h(), _vg_update_progress_fn(step), None)
        why = _decode(vg_client_last_error(self._h())) or ""
        if code not in (Error.OK, Error.EUPDATE):
            raise VersionGateError(code, why or strerror(code))
        return UpdateOutcome(outcome.value), (why if code != Error.OK else "")

    def restart(self, argv: Optional[list[StrOrBytes]] = None, cwd: Optional[PathLike] = None,
                wait: bool = False) -> Optional[int]:
        """Start the newest installed version of this Flatpak app (an
        AppImage: its file again, with ``argv``'s arguments; after a
        package's update in this process: ``argv[0]`` again)
        (vg_client_restart) with ``argv`` (default: this process's command
        line) in ``cwd`` (default: the current directory), with this
        process's stdin, stdout and stderr. With ``wait``, its exit status
        once it ends; else None once it started (then exit). Raises
        VersionGateError (VG_EUPDATE) with the reason when it cannot."""
        words = None
        if argv is not None:
            encoded = [_encode(word) for word in argv]
            words = (c_char_p * (len(encoded) + 1))(*encoded, None)
        status = c_int(0)
        code = vg_client_restart(self._h(), words, _encode_path(cwd), ctypes.byref(status) if wait else None)
        if code != Error.OK:
            raise VersionGateError(code, _decode(vg_client_last_error(self._h())) or strerror(code))
        return status.value if wait else None

    def check(self, version: Optional[StrOrBytes] = None) -> Result:
        """May ``version`` run? Always a Result (fail-open errors included).
        Without one, the version installed on this system, read where the
        ``installed_version_from`` option says (AppStream metainfo, a file)."""
        result = _result_from(vg_client_check, self._h(), _encode(version))
        result._client = self
        return result


def store_url(store: StrOrBytes, app_id: StrOrBytes) -> Optional[str]:
    """The store URL for ``app_id`` (None when no safe URL is known)."""
    out = c_void_p(None)
    vg_store_url(ctypes.byref(out), _encode(store), _encode(app_id))
    return _take_string(out)


def lint(path: PathLike, platforms: Optional[str] = None) -> list[str]:
    """The problems ``versiongate lint`` reports for a gate document or a
    Remote Config template export (vg_lint); [] when it is clean."""
    out = c_void_p(None)
    code = vg_lint(ctypes.byref(out), _encode_path(path), _encode(platforms))
    text = _take_string(out)
    if code not in (Error.OK, Error.ECONFIG) or text is None:
        raise VersionGateError(code)
    return text.splitlines()


def policy_report() -> tuple[list[str], list[str]]:
    """The administrator's policy as root's files say it now
    (vg_policy_report): its lines "KEY = VALUE (FILE)", and the problems
    (files ignored, keys dropped or unknown), one per line."""
    effective, problems = c_void_p(None), c_void_p(None)
    vg_policy_report(ctypes.byref(effective), ctypes.byref(problems))
    return (_take_string(effective) or "").splitlines(), (_take_string(problems) or "").splitlines()


def events_funnel(path: PathLike) -> str:
    """The funnel of an events file, as ``versiongate simulate --events``
    prints it (vg_events_funnel); raises with the library's reason when the
    file cannot be read."""
    out = c_void_p(None)
    code = vg_events_funnel(ctypes.byref(out), _encode_path(path))
    text = _take_string(out)
    if code != Error.OK or text is None:
        raise VersionGateError(code, text.strip() if text else None)
    return text


def open_url(url: StrOrBytes) -> Error:
    """Open ``url`` with xdg-open (see vg_open_url); the code, never raised."""
    return Error(vg_open_url(_encode(url)))


def check(source: Optional[PathLike], version: Optional[StrOrBytes]) -> Result:
    """One-shot check on the library's process-wide client for ``source``."""
    return _result_from(vg_check, _encode_path(source), _encode(version))


class Watch:
    """A client's watch (:meth:`Client.watch`). The descriptor is the
    client's: closing the watch (or the client) closes it."""

    def __init__(self, client: Client, fd: int, version: Optional[StrOrBytes]) -> None:
        self._client, self._fd, self._version = client, fd, version

    def fileno(self) -> int:
        """Readable when the decision may have changed."""
        return self._fd

    def drain(self) -> bool:
        """Read what is waiting; False when the watch ended (its helper is gone)."""
        while True:
            try:
                if not os.read(self._fd, 512):
                    return False
            except BlockingIOError:
                return True
            except InterruptedError:
                continue

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Block until the decision may have changed (True), or ``timeout``
        seconds pass (False); drains the descriptor."""
        import select
        ready, _, _ = select.select([self._fd], [], [], timeout)
        if not ready:
            return False
        if not self.drain():
            raise VersionGateError(Error.ENETWORK, "the watch ended")
        return True

    def __iter__(self):
        yield self._client.check(self._version)
        while True:
            self.wait()
            yield self._client.check(self._version)

    def close(self) -> None:
        self._client.unwatch()

    def __enter__(self) -> "Watch":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
