"""Local trust (issue #11) with the real libversiongate.so run by an ordinary
user: every check here runs in a child as nobody (uid/gid 65534, no
supplementary groups) through ``setpriv``, while this test process stays
root to set up other users' files (unprivileged.py). The rules:

1. the library's own files (``$XDG_CACHE_HOME/versiongate/`` and the like)
   are used only from a ``versiongate/`` that is the user's, not a symlink,
   writable by no one else, and only when the file is the user's and not
   writable by others; anything else is never used for a decision and,
   where possible, replaced by the next good fetch;
2. ``$XDG_RUNTIME_DIR`` must be the user's 0700 (and its ``versiongate/`` as
   above), else OPTIONAL prompts once per process, nothing is written there
   and the result's note says why;
3. a local gate document (``source`` as a path) or the ``defaults`` document
   is refused when world-writable or owned by neither root nor the user
   (UP_TO_DATE, VG_ECONFIG, naming the path and the problem);
4. hostile surroundings (read-only or full cache homes, no environment, odd
   files as documents, 12 fds, 20,000 variables, poisoned locales, a
   SIGALRM every millisecond) still give the right answer or fail open,
   never a crash or hang.

Only 127.0.0.1 is contacted: the loopback server of remote_helpers for a
working remote source, a closed loopback port for an unreachable one. The
children use the real clock. The same rules as root are covered in
test_remote_document.py, test_documents.py and test_session.py.

    python3 -m pytest -q Tests/python/test_local_trust.py
"""

from __future__ import annotations

import itertools
import json
import os
import shlex
import stat
import time
from pathlib import Path

import pytest

from remote_helpers import cache_file, flat_doc, fnv1a64_hex, server_fixture, unused_port  # noqa: F401  (the server fixture)
from unprivileged import NOBODY, OTHER, ROOT, Sandbox, check_spec, chown, fd_limit, listing, make_dir, make_file

OK, ECONFIG = 0, -3
PROCESS_NOTE = "OPTIONAL prompts once per process"
FAST = 2.0      # seconds a check that must not block may take


# --------------------------------------------------------------------------
# fixtures and helpers
# --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sandbox():
    if os.geteuid() != 0:
        pytest.fail("test_local_trust.py sets up other users' files and runs the library as uid %d "
                    "with setpriv: it needs root (CI runs as root), this is uid %d" % (NOBODY, os.geteuid()))
    box = Sandbox()
    yield box
    box.close()


_names = itertools.count()


@pytest.fixture
def case(sandbox, request):
    """A fresh directory (root's, 0755) inside the sandbox for this test."""
    return sandbox.case(request.node.name.replace("/", "_")[:60])


@pytest.fixture
def doc_name(request):
    return "trust-%d" % next(_names)


def user_dirs(case: Path, *names: str) -> list[Path]:
    """Directories of nobody's own, mode 0700."""
    return [make_dir(case / n, NOBODY, 0o700) for n in names]


def unreachable() -> str:
    """A remote source nothing answers (connection refused on 127.0.0.1)."""
    return "http://127.0.0.1:%d/gate.json" % unused_port()


def cache_entry(url: str, fetched_at: int, min_required: str, latest: str) -> bytes:
    """A cache entry exactly as the library writes one (CachedConfig.encoded),
    with the boot clock of this boot as of `fetched_at` (BootInstant)."""
    entry = {"format": 1, "key": "document:" + url, "fetched_at": str(fetched_at), "empty": False,
             "etag": '"planted"', "non_string_keys": [],
             "values": {"min_required_version_linux": min_required, "latest_version_linux": latest}}
    try:
        boot_id = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        boot_id = None
    if boot_id:
        boot_now = int(time.clock_gettime(time.CLOCK_BOOTTIME))
        entry["boot_id"] = boot_id
        entry["boot_s"] = str(max(0, boot_now - (int(time.time()) - fetched_at)))
    return json.dumps(entry, sort_keys=True, separators=(",", ":")).encode()


def local_doc(path: Path, uid=ROOT, mode=0o644, min_required="1.5", latest="9.9") -> Path:
    return make_file(path, flat_doc(min_required, latest), uid, mode)


def decided(r: dict, status: str, origin: str):
    assert (r["status"], r["origin"], r["error"]) == (status, origin, OK), r


def correct_or_fail_open(r: dict, status: str, origins: tuple[str, ...]) -> str:
    """Either the right answer from a good config or UP_TO_DATE with an error."""
    if r["error"] == OK:
        assert r["status"] == status and r["origin"] in origins, r
        return "decided"
    assert r["status"] == "UP_TO_DATE" and not r["should_prompt"], r
    return "failed open (%s)" % r["error_name"]


def modes(path: Path) -> tuple[int, int]:
    st = os.lstat(path)
    return st.st_uid, stat.S_IMODE(st.st_mode)


# --------------------------------------------------------------------------
# 1. planted caches are never used
# --------------------------------------------------------------------------

PLANTED = {
    # name: (versiongate/ owner, its mode, file owner, file mode); "symlink" plants
    # versiongate/ as a symlink (the attacker's) to a directory that would pass.
    "foreign_dir":               (ROOT, 0o755, ROOT, 0o644),
    "other_user_dir":            (OTHER, 0o755, OTHER, 0o644),
    "user_dir_mode_0777":        (NOBODY, 0o777, NOBODY, 0o600),
    "user_dir_group_writable":   (NOBODY, 0o770, NOBODY, 0o600),
    "foreign_file":              (NOBODY, 0o700, ROOT, 0o644),
    "other_user_file":           (NOBODY, 0o700, OTHER, 0o644),
    "user_file_world_writable":  (NOBODY, 0o700, NOBODY, 0o666),
    "symlinked_dir":             "symlink",
}
# The controls: the same entry where it is the user's own must be used.
OWN = {
    "own_0700_0600":             (NOBODY, 0o700, NOBODY, 0o600),
    "own_file_group_writable":   (NOBODY, 0o700, NOBODY, 0o620),
}


def plant(case: Path, cache_home: Path, kind: str, entry: bytes, url: str) -> Path:
    """Plant `entry` as `kind`; returns the directory that holds it."""
    layout = PLANTED.get(kind) or OWN[kind]
    target = cache_file(cache_home, url)
    if layout == "symlink":
        real = make_dir(case / "elsewhere" / "versiongate", NOBODY, 0o700)
        make_dir(case / "elsewhere", NOBODY, 0o700)
        make_file(real / target.name, entry, NOBODY, 0o600)
        os.symlink(real, target.parent)
        chown(target.parent, OTHER)
        return real
    dir_uid, dir_mode, file_uid, file_mode = layout
    make_dir(target.parent, dir_uid, dir_mode)
    make_file(target, entry, file_uid, file_mode)
    return target.parent


def assert_only_own_locks_added(directory: Path, before: list[str]):
    """Nothing was written into `directory` but, where it is the user's
    own, the user's 0600 lock file (RemoteSource's burst lock)."""
    added = sorted(set(os.listdir(directory)) - set(before))
    for name in added:
        assert name.startswith("lock-") and modes(directory / name) == (NOBODY, 0o600), \
            "%s was written into %s (%o)" % (name, directory, modes(directory)[1])
        assert modes(directory) == (NOBODY, 0o700), "a lock file in a directory that is not the user's own"


def shared_cache_home(case: Path) -> Path:
    """XDG_CACHE_HOME shared by everyone (like /tmp without the sticky bit)."""
    return make_dir(case / "shared-cache", ROOT, 0o777)


@pytest.mark.parametrize("with_defaults", [False, True], ids=["no_defaults", "defaults"])
@pytest.mark.parametrize("kind", list(PLANTED))
def test_planted_cache_is_never_used(sandbox, case, kind, with_defaults):
    """A fresh, well-formed entry saying min 99 (MANDATORY for 1.0.0) for
    an unreachable source: used, it would be a cache hit. It must be ignored:
    the fetch fails, so UP_TO_DATE, or the defaults document's answer."""
    url = unreachable()
    cache_home = shared_cache_home(case)
    state, home = user_dirs(case, "state", "home")
    held_in = plant(case, cache_home, kind, cache_entry(url, int(time.time()), "99", "99"), url)
    planted = sorted(os.listdir(held_in))
    defaults = local_doc(case / "defaults.json", min_required="0.5", latest="2.0") if with_defaults else None

    env = sandbox.env(XDG_CACHE_HOME=cache_home, XDG_STATE_HOME=state, HOME=home)
    r = sandbox.check(url, "1.0.0", env, session_scope="process", timeout_ms=500, defaults=defaults)

    assert r["status"] != "MANDATORY" and r["origin"] != "cache_hit" and r["min_required"] != "99", r
    if with_defaults:
        assert (r["status"], r["origin"], r["min_required"], r["error"]) == \
            ("OPTIONAL", "embedded_default", "0.5", OK), r
        assert r["fetch_error"] != OK
    else:
        assert (r["status"], r["origin"], r["should_prompt"]) == ("UP_TO_DATE", "none", False), r
        assert r["error"] != OK and "127.0.0.1" in r["error_message"], r
    assert_only_own_locks_added(held_in, planted)


@pytest.mark.parametrize("kind", list(OWN))
def test_own_cache_is_used_control(sandbox, case, kind):
    """The control: the very same entry in a versiongate/ of the user's own
    is a cache hit (MANDATORY), so the test above can fail."""
    url = unreachable()
    cache_home = shared_cache_home(case)
    state, home = user_dirs(case, "state", "home")
    plant(case, cache_home, kind, cache_entry(url, int(time.time()), "99", "99"), url)
    env = sandbox.env(XDG_CACHE_HOME=cache_home, XDG_STATE_HOME=state, HOME=home)
    r = sandbox.check(url, "1.0.0", env, session_scope="process", timeout_ms=500)
    decided(r, "MANDATORY", "cache_hit")
    assert (r["min_required"], r["latest"]) == ("99", "99") and r["config_age_s"] < 60


REPLACEABLE = ["foreign_file", "other_user_file", "user_file_world_writable"]


@pytest.mark.parametrize("kind", list(PLANTED))
def test_next_good_fetch_replaces_what_it_can(sandbox, case, server, doc_name, kind):
    """With the server up, a planted entry still decides nothing: the fetch
    does. A bad file in the user's own directory is replaced by the user's
    0600 entry (rename); a directory that is not the user's is left alone."""
    server.document(doc_name, flat_doc("0.5", "2.0"))
    url = server.url(doc_name)
    cache_home = shared_cache_home(case)
    state, home = user_dirs(case, "state", "home")
    planted = cache_entry(url, int(time.time()), "99", "99")
    held_in = plant(case, cache_home, kind, planted, url)
    before = {n: (held_in / n).read_bytes() for n in os.listdir(held_in)}

    env = sandbox.env(XDG_CACHE_HOME=cache_home, XDG_STATE_HOME=state, HOME=home)
    r = sandbox.check(url, "1.0.0", env, session_scope="process")
    decided(r, "OPTIONAL", "fresh_fetch")
    assert (r["min_required"], r["latest"]) == ("0.5", "2.0")
    assert len(server.requests(doc_name)) == 1

    path = cache_file(cache_home, url)
    if kind in REPLACEABLE:
        assert modes(path) == (NOBODY, 0o600), "not replaced by the user's own entry"
        entry = json.loads(path.read_bytes())
        assert entry["values"] == {"min_required_version_linux": "0.5", "latest_version_linux": "2.0"}
        assert set(json.loads(planted)) <= set(entry), "the planted entry has fields the library does not write"
        assert not [n for n in os.listdir(held_in) if n.startswith(".")], "temp file left behind"
    else:
        after = {n: (held_in / n).read_bytes() for n in os.listdir(held_in)}
        assert after == before, "the library wrote into a directory that is not the user's"
        assert cache_file(cache_home, url).read_bytes() == planted
        if kind == "symlinked_dir":
            assert path.parent.is_symlink()


# --------------------------------------------------------------------------
# 2. the runtime directory
# --------------------------------------------------------------------------

RUNTIME_BAD = {
    # name: (owner, mode, what the note names)
    "user_0777":        (NOBODY, 0o777, "has mode 0777, not 0700"),
    "root_1777":        (ROOT, 0o1777, "is owned by uid 0, not this user"),
    "root_0777":        (ROOT, 0o777, "is owned by uid 0, not this user"),
    "other_user_0700":  (OTHER, 0o700, "is owned by uid %d, not this user" % OTHER),
    "root_0755":        (ROOT, 0o755, "is owned by uid 0, not this user"),
    "user_0755":        (NOBODY, 0o755, "has mode 0755, not 0700"),
}


def optional_doc(case: Path) -> Path:
    return local_doc(case / "gate.json", min_required="0.1", latest="9.9")


@pytest.mark.parametrize("kind", list(RUNTIME_BAD))
def test_unsafe_runtime_dir_prompts_once_per_process_and_writes_nothing(sandbox, case, kind):
    uid, mode, why = RUNTIME_BAD[kind]
    runtime = make_dir(case / "run", uid, mode)
    home, = user_dirs(case, "home")
    doc = optional_doc(case)
    env = sandbox.env(XDG_RUNTIME_DIR=runtime, HOME=home)

    for _ in range(2):     # two launcher processes: each prompts once (process scope)
        first, second = sandbox.check(doc, "1.0", env, repeat=2)
        assert (first["status"], first["should_prompt"], second["should_prompt"]) == ("OPTIONAL", True, False)
        for r in (first, second):
            assert r["error"] == OK and PROCESS_NOTE in (r["note"] or ""), r
            assert "XDG_RUNTIME_DIR %s" % runtime in r["note"] and why in r["note"], r
    assert listing(runtime) == [], "something was written into an unsafe runtime directory"
    assert listing(home) == []


RUNTIME_SUBDIR_BAD = {
    # versiongate/ inside a proper 0700 runtime dir: (what it is, what the note says)
    "symlink":            "is a symlink or not a directory; refused",
    "foreign_dir":        "is owned by uid 0, not this user; refused",
    "user_dir_mode_0777": "is writable by group or others (mode 0777); refused",
    "regular_file":       "is a symlink or not a directory; refused",
}


@pytest.mark.parametrize("kind", list(RUNTIME_SUBDIR_BAD))
def test_unsafe_versiongate_dir_in_runtime_dir(sandbox, case, kind):
    runtime, home, target = user_dirs(case, "run", "home", "elsewhere")
    sub = runtime / "versiongate"
    if kind == "symlink":
        os.symlink(target, sub)
        chown(sub, NOBODY)
    elif kind == "foreign_dir":
        make_dir(sub, ROOT, 0o755)
    elif kind == "user_dir_mode_0777":
        make_dir(sub, NOBODY, 0o777)
    else:
        make_file(sub, b"", NOBODY, 0o600)
    doc = optional_doc(case)
    env = sandbox.env(XDG_RUNTIME_DIR=runtime, HOME=home)

    first, second = sandbox.check(doc, "1.0", env, repeat=2)
    assert (first["status"], first["should_prompt"], second["should_prompt"]) == ("OPTIONAL", True, False)
    assert PROCESS_NOTE in (first["note"] or "") and RUNTIME_SUBDIR_BAD[kind] in first["note"], first
    assert str(sub) in first["note"]
    assert listing(target) == [], "a marker was created through the symlink"
    assert listing(runtime) == ["versiongate"]
    if kind in ("foreign_dir", "user_dir_mode_0777"):
        assert listing(sub) == []
    if kind == "symlink":
        assert sub.is_symlink()


def test_proper_runtime_dir_gets_a_marker_control(sandbox, case):
    """The control: the user's 0700 runtime dir gets versiongate/optional-*,
    no note, and a second launcher of the same login does not prompt."""
    runtime, home = user_dirs(case, "run", "home")
    doc = optional_doc(case)
    env = sandbox.env(XDG_RUNTIME_DIR=runtime, HOME=home)
    r = sandbox.check(doc, "1.0", env)
    assert (r["status"], r["should_prompt"], r["note"], r["error"]) == ("OPTIONAL", True, None, OK), r
    assert listing(runtime) == ["versiongate"]
    assert modes(runtime / "versiongate") == (NOBODY, 0o700)
    markers = listing(runtime / "versiongate")
    assert len(markers) == 1 and markers[0].startswith("optional-"), markers
    assert modes(runtime / "versiongate" / markers[0]) == (NOBODY, 0o600)
    r = sandbox.check(doc, "1.0", env)
    assert (r["status"], r["should_prompt"], r["note"]) == ("OPTIONAL", False, None), r


# --------------------------------------------------------------------------
# 3. local documents: source and defaults
# --------------------------------------------------------------------------

DOCUMENTS = {
    # name: (owner, mode, problem or None when the document must be used)
    "user_0666":   (NOBODY, 0o666, "is writable by every user"),
    "root_0666":   (ROOT, 0o666, "is writable by every user"),
    "other_0666":  (OTHER, 0o666, "is writable by every user"),
    "user_0602":   (NOBODY, 0o602, "is writable by every user"),
    "other_0644":  (OTHER, 0o644, "is owned by uid %d, neither root nor this user" % OTHER),
    "other_0444":  (OTHER, 0o444, "is owned by uid %d, neither root nor this user" % OTHER),
    "user_0664":   (NOBODY, 0o664, None),
    "user_0600":   (NOBODY, 0o600, None),
    "root_0644":   (ROOT, 0o644, None),
    "root_0664":   (ROOT, 0o664, None),
}


@pytest.mark.parametrize("kind", list(DOCUMENTS))
def test_local_document_trust(sandbox, case, kind):
    uid, mode, problem = DOCUMENTS[kind]
    doc = local_doc(case / "gate.json", uid, mode)      # min 1.5: MANDATORY for 1.0
    home, = user_dirs(case, "home")
    r = sandbox.check(doc, "1.0", sandbox.env(HOME=home), session_scope="process")
    if problem is None:
        decided(r, "MANDATORY", "local_document")
        assert r["min_required"] == "1.5"
    else:
        assert (r["status"], r["error"], r["origin"], r["should_prompt"]) == \
            ("UP_TO_DATE", ECONFIG, "none", False), r
        assert str(doc) in r["error_message"] and problem in r["error_message"], r


@pytest.mark.parametrize("kind", list(DOCUMENTS))
def test_defaults_document_trust(sandbox, case, kind):
    """The same rule for `defaults`, used because the remote source fails."""
    uid, mode, problem = DOCUMENTS[kind]
    doc = local_doc(case / "defaults.json", uid, mode)
    home, state, cache = user_dirs(case, "home", "state", "cache")
    env = sandbox.env(HOME=home, XDG_STATE_HOME=state, XDG_CACHE_HOME=cache)
    r = sandbox.check(unreachable(), "1.0", env, session_scope="process", timeout_ms=500, defaults=doc)
    if problem is None:
        decided(r, "MANDATORY", "embedded_default")
        assert r["min_required"] == "1.5" and r["fetch_error"] != OK
    else:
        # never used ...
        assert (r["status"], r["should_prompt"], r["origin"]) == ("UP_TO_DATE", False, "none"), r
        assert r["min_required"] is None
        # ... and said so: VG_ECONFIG naming the document and the problem
        assert r["error"] == ECONFIG, "defaults refused, but error is %s: %s" % (r["error_name"], r["error_message"])
        assert str(doc) in r["error_message"] and problem in r["error_message"], r


# --------------------------------------------------------------------------
# 4. hostile surroundings, unprivileged
# --------------------------------------------------------------------------

def served(server, name: str, **fields) -> str:
    """A remote document: OPTIONAL for 1.0.40."""
    server.document(name, flat_doc("1.0.39", "1.0.41"), **fields)
    return server.url(name)


@pytest.mark.parametrize("kind", ["root_0755_dir", "other_user_0700_dir", "regular_file", "user_0500_dir"])
def test_unwritable_cache_home_still_answers_from_the_fetch(sandbox, case, server, doc_name, kind):
    url = served(server, doc_name)
    if kind == "regular_file":
        cache_home = make_file(case / "cache", b"not a directory\n", ROOT, 0o644)
    elif kind == "root_0755_dir":
        cache_home = make_dir(case / "cache", ROOT, 0o755)
    elif kind == "other_user_0700_dir":
        cache_home = make_dir(case / "cache", OTHER, 0o700)
    else:
        cache_home = make_dir(case / "cache", NOBODY, 0o500)
    state, home = user_dirs(case, "state", "home")
    env = sandbox.env(XDG_CACHE_HOME=cache_home, XDG_STATE_HOME=state, HOME=home)
    first, second = sandbox.check(url, "1.0.40", env, repeat=2, session_scope="process")
    decided(first, "OPTIONAL", "fresh_fetch")
    assert second["status"] == "OPTIONAL" and second["error"] == OK
    if kind == "regular_file":
        assert cache_home.read_bytes() == b"not a directory\n"
    else:
        assert listing(cache_home) == []


def test_no_home_and_no_xdg_variables(sandbox, case, server, doc_name):
    """Only PATH and VERSIONGATE_LIBRARY: no cache, no state, process scope;
    nothing is written relative to the working directory."""
    url = served(server, doc_name)
    cwd, = user_dirs(case, "cwd")
    doc = optional_doc(case)
    env = sandbox.env()
    assert set(env) - {"ASAN_OPTIONS", "TSAN_OPTIONS", "LD_PRELOAD"} == {"PATH", "VERSIONGATE_LIBRARY", "PYTHONDONTWRITEBYTECODE"}
    out = sandbox.run({"checks": [check_spec(url, "1.0.40"), check_spec(url, "1.0.38"),
                                  check_spec(doc, "1.0", repeat=2)]}, env, cwd=cwd)
    remote_optional, remote_mandatory, local_first, local_second = out["results"]
    decided(remote_optional, "OPTIONAL", "fresh_fetch")
    assert remote_optional["should_prompt"] is True
    decided(remote_mandatory, "MANDATORY", "fresh_fetch")
    decided(local_first, "OPTIONAL", "local_document")
    assert (local_first["should_prompt"], local_second["should_prompt"]) == (True, False)
    assert listing(cwd) == []


def _special(case: Path, kind: str) -> str:
    if kind == "fifo":
        path = case / "gate.fifo"
        os.mkfifo(path, 0o644)
        return str(path)
    if kind == "user_fifo":
        path = case / "user.fifo"
        os.mkfifo(path)
        chown(path, NOBODY, mode=0o600)
        return str(path)
    if kind == "symlink_loop":
        a, b = case / "loop-a.json", case / "loop-b.json"
        os.symlink(b, a)
        os.symlink(a, b)
        return str(a)
    return {"dev_zero": "/dev/zero", "proc_self_mem": "/proc/self/mem", "dev_stdin": "/dev/stdin"}[kind]


@pytest.mark.parametrize("kind", ["fifo", "user_fifo", "dev_zero", "proc_self_mem", "symlink_loop", "dev_stdin"])
def test_special_file_as_gate_document_returns_quickly(sandbox, case, kind):
    source = _special(case, kind)
    home, = user_dirs(case, "home")
    r = sandbox.check(source, "1.0", sandbox.env(HOME=home), session_scope="process")
    assert (r["status"], r["error"], r["origin"]) == ("UP_TO_DATE", ECONFIG, "none"), r
    assert source in r["error_message"], r
    assert r["_elapsed"] < FAST, "took %.2f s" % r["_elapsed"]


def _three_checks(case: Path, url: str) -> tuple[list[dict], dict]:
    """A local MANDATORY, a remote OPTIONAL and a login-scope OPTIONAL with
    a proper runtime dir; and the environment for them."""
    cache, state, home, runtime = user_dirs(case, "cache", "state", "home", "run")
    mandatory = local_doc(case / "mandatory.json", min_required="1.5")
    spec = [check_spec(mandatory, "1.0", session_scope="process"),
            check_spec(url, "1.0.40", session_scope="process"),
            check_spec(optional_doc(case), "1.0")]
    return spec, {"XDG_CACHE_HOME": cache, "XDG_STATE_HOME": state, "HOME": home, "XDG_RUNTIME_DIR": runtime}


def _expect_three(results: list[dict], remote_may_fail_open: bool = False) -> str:
    """Local documents must decide; the remote check too, unless the case
    starves the network code itself (12 fds, EINTR), where failing open is
    within the rule."""
    local, remote, login = results
    decided(local, "MANDATORY", "local_document")
    decided(login, "OPTIONAL", "local_document")
    assert login["should_prompt"] is True, login
    if remote_may_fail_open:
        return correct_or_fail_open(remote, "OPTIONAL", ("fresh_fetch",))
    assert login["note"] is None, login                    # the marker was written
    decided(remote, "OPTIONAL", "fresh_fetch")
    return "decided"


def test_fd_limit_of_12(sandbox, case, server, doc_name):
    spec, variables = _three_checks(case, served(server, doc_name))
    out = sandbox.run({"checks": spec}, sandbox.env(**variables), **fd_limit(12))
    assert out["nofile"] == [12, 12], out["nofile"]
    _expect_three(out["results"], remote_may_fail_open=True)


def test_twenty_thousand_environment_variables(sandbox, case, server, doc_name):
    spec, variables = _three_checks(case, served(server, doc_name))
    padding = {"VG_PAD_%05d" % i: "value-%d" % i for i in range(20_000)}
    env = sandbox.env(**padding, **variables)
    assert len(env) > 20_000
    out = sandbox.run({"checks": spec}, env)
    _expect_three(out["results"])
    assert all(r["_elapsed"] < FAST for r in out["results"]), [r["_elapsed"] for r in out["results"]]


POISON = {
    "100_kb": "de_DE." + "x" * 100_000,
    "non_utf8": b"de_DE.\xff\xfe\xc0\x80\xed\xa0\x80",
    "absolute_path": "/etc/passwd",
    "traversal_path": "../../../../../../etc/shadow",
    "format_string": "%s%n%x%p.UTF-8",
}


@pytest.mark.parametrize("kind", list(POISON))
def test_poisoned_locale_variables(sandbox, case, server, doc_name, kind):
    spec, variables = _three_checks(case, served(server, doc_name))
    value = POISON[kind]
    env = sandbox.env(LANG=value, LC_ALL=value, LC_MESSAGES=value, LANGUAGE=value, **variables)
    out = sandbox.run({"checks": spec}, env)
    _expect_three(out["results"])
    for r in out["results"]:
        assert r["_utf8"], "result JSON is not UTF-8"
        assert len(r["locale"] or "") <= 64, r
        if r["status"] != "UP_TO_DATE":
            assert r["title"] and r["message"], r


def test_sigalrm_every_millisecond_without_sa_restart(sandbox, case, server, doc_name):
    """EINTR everywhere: loading the library, a remote fetch the server
    delays by 300 ms (about 300 interruptions), writing the cache, a cache
    hit by a new client, local documents and the runtime marker."""
    url = served(server, doc_name, next=[{"delay_s": 0.3}])
    spec, variables = _three_checks(case, url)
    spec[1]["options"]["timeout_ms"] = "5000"
    spec.append(check_spec(url, "1.0.40", session_scope="process"))          # a new client: the cache
    spec.append(check_spec(spec[0]["source"], "1.0", repeat=20, session_scope="process"))
    out = sandbox.run({"checks": spec, "alarm_every_s": 0.001}, sandbox.env(**variables))
    # delivered (counted by the wakeup fd, written at every delivery) vs.
    # Python handler runs (coalesced while the library runs)
    assert out["alarm_deliveries"] > 200 and out["alarms"] > 0, out
    assert out["alarm_armed_s"] > 0.3, out
    results = out["results"]
    if _expect_three(results[:3], remote_may_fail_open=True) == "decided":
        decided(results[3], "OPTIONAL", "cache_hit")       # what the first fetch wrote, under EINTR
    else:
        correct_or_fail_open(results[3], "OPTIONAL", ("fresh_fetch",))
    for r in results[4:]:
        decided(r, "MANDATORY", "local_document")


def _setup_then_verify(setup: str, probe: str, probe_file: Path) -> str:
    """Namespace setup (root, sh -e), then `probe` (a command writing
    `probe_file`, which must now fail) - else exit 97 saying so - and the
    probe file removed."""
    return (setup + "\nif %s 2>/dev/null; then echo 'setup did not take: %s succeeded' >&2; exit 97; fi"
            "\nrm -f %s 2>/dev/null || true" % (probe, probe.replace("'", ""), shlex.quote(str(probe_file))))


@pytest.mark.parametrize("kind", ["bytes", "inodes"])
def test_full_disk_cache_home(sandbox, case, server, doc_name, kind):
    """XDG_CACHE_HOME on a tmpfs with no room left (a private mount namespace;
    root mounts and fills it, then drops to nobody): the fetch answers,
    nothing half-written is left."""
    url = served(server, doc_name)
    cache, state, home = user_dirs(case, "cache", "state", "home")
    d = shlex.quote(str(cache))
    if kind == "bytes":
        setup = ("mount -t tmpfs -o size=64k,mode=0700,uid=%d,gid=%d vg-full %s\n"
                 "mkdir -m 0700 %s/versiongate && chown %d:%d %s/versiongate\n"
                 "cat /dev/zero > %s/fill 2>/dev/null || true" % (NOBODY, NOBODY, d, d, NOBODY, NOBODY, d, d))
        # head, not dd: dd's aligned_alloc trips ASan when scripts/proof preloads it.
        probe = "head -c 1 /dev/zero > %s/versiongate/.probe" % d
    else:
        setup = ("mount -t tmpfs -o size=1m,nr_inodes=2,mode=0700,uid=%d,gid=%d vg-full %s\n"
                 "mkdir -m 0700 %s/versiongate && chown %d:%d %s/versiongate" % (NOBODY, NOBODY, d, d,
                                                                                   NOBODY, NOBODY, d))
        probe = "touch %s/versiongate/.probe" % d
    env = sandbox.env(XDG_CACHE_HOME=cache, XDG_STATE_HOME=state, HOME=home)
    out = sandbox.run({"checks": [check_spec(url, "1.0.40", session_scope="process"),
                                  check_spec(url, "1.0.38", session_scope="process")],
                       "list": [str(cache / "versiongate")]}, env,
                      namespace_setup=_setup_then_verify(setup, probe, cache / "versiongate" / ".probe"))
    for r, status in zip(out["results"], ("OPTIONAL", "MANDATORY")):
        decided(r, status, "fresh_fetch")
    left = out["listed"][str(cache / "versiongate")]
    assert isinstance(left, list), left
    assert not [n for n in left if n.startswith(".") or n.startswith("config-")], left
    assert listing(cache) == [], "the tmpfs leaked out of its namespace"


@pytest.mark.parametrize("kind", ["empty_home", "empty_versiongate", "fresh_cache", "stale_cache"])
def test_read_only_bind_of_the_cache_home(sandbox, case, server, doc_name, kind):
    url = served(server, doc_name)
    cache, state, home = user_dirs(case, "cache", "state", "home")
    now = int(time.time())
    if kind != "empty_home":
        make_dir(cache / "versiongate", NOBODY, 0o700)
    if kind in ("fresh_cache", "stale_cache"):
        fetched = now - 30 if kind == "fresh_cache" else now - 2 * 86_400
        make_file(cache_file(cache, url), cache_entry(url, fetched, "1.0.50", "1.0.60"), NOBODY, 0o600)
    before = {p: p.read_bytes() if p.is_file() else None for p in cache.rglob("*")}
    d = shlex.quote(str(cache))
    setup = "mount --bind %s %s\nmount -o remount,bind,ro %s" % (d, d, d)
    env = sandbox.env(XDG_CACHE_HOME=cache, XDG_STATE_HOME=state, HOME=home)
    out = sandbox.run({"checks": [check_spec(url, "1.0.40", session_scope="process")]}, env,
                      namespace_setup=_setup_then_verify(setup, "touch %s/.probe" % d, cache / ".probe"))
    r, = out["results"]
    if kind == "fresh_cache":
        decided(r, "MANDATORY", "cache_hit")        # read from the read-only cache
        assert server.requests(doc_name) == []
    else:
        decided(r, "OPTIONAL", "fresh_fetch")
        assert r["min_required"] == "1.0.39"
    assert {p: p.read_bytes() if p.is_file() else None for p in cache.rglob("*")} == before


# --------------------------------------------------------------------------
# 8. what the user said and who the installation is, under XDG_STATE_HOME
# --------------------------------------------------------------------------

def plant_state(state_home: Path, kind: str, name: str, content: bytes) -> Path:
    """`content` as $XDG_STATE_HOME/versiongate/<name>, laid out as PLANTED/OWN[kind]."""
    dir_uid, dir_mode, file_uid, file_mode = PLANTED.get(kind) or OWN[kind]
    directory = make_dir(state_home / "versiongate", dir_uid, dir_mode)
    return make_file(directory / name, content, file_uid, file_mode)


STATE_KINDS = [k for k in PLANTED if k != "symlinked_dir"] + list(OWN)


@pytest.mark.parametrize("kind", STATE_KINDS)
def test_a_skip_file_counts_only_where_it_is_the_users_own(sandbox, case, kind):
    """"Skip this version" planted by someone else must not silence the
    OPTIONAL prompt; the user's own does."""
    runtime, home = user_dirs(case, "run", "home")
    state = make_dir(case / "state", NOBODY, 0o700) if kind in OWN else make_dir(case / "state", ROOT, 0o777)
    doc = optional_doc(case)
    plant_state(state, kind, "skip-" + fnv1a64_hex(str(doc) + "\0linux"), b"9.9\n")
    r = sandbox.check(doc, "1.0", sandbox.env(XDG_RUNTIME_DIR=runtime, HOME=home, XDG_STATE_HOME=state))
    assert (r["status"], r["error"]) == ("OPTIONAL", OK), r
    if kind in OWN:
        assert r["should_prompt"] is False and "version 9.9 skipped by the user" in r["note"], r
    else:
        assert r["should_prompt"] is True, r


@pytest.mark.parametrize("kind", STATE_KINDS)
def test_a_planted_installation_id_is_never_used(sandbox, case, kind):
    """A staged rollout places the installation by its id: one another user
    planted would let them choose who is prompted. In a directory that is
    not the user's own no id is had and the staged OPTIONAL is not shown
    (the result says why); in the user's own directory an untrusted file is
    replaced by a new id; the user's own id is used."""
    runtime, home = user_dirs(case, "run", "home")
    state = make_dir(case / "state", NOBODY, 0o700) if kind in OWN else make_dir(case / "state", ROOT, 0o777)
    doc = local_doc(case / "gate.json", min_required="0.1", latest="9.9")
    doc.write_text(json.dumps({"min_required_version_linux": "0.1", "latest_version_linux": "9.9",
                               "latest_version_linux_rollout_percent": "99"}))
    planted = "f" * 32
    plant_state(state, kind, "installation-id", (planted + "\n").encode())
    r = sandbox.check(doc, "1.0", sandbox.env(XDG_RUNTIME_DIR=runtime, HOME=home, XDG_STATE_HOME=state))
    assert r["error"] == OK and r["rollout_percent"] == 99, r
    made = state / "versiongate" / "installation-id"
    used = made.read_text().strip()
    if kind in OWN:
        assert used == planted
    elif modes(made.parent) == (NOBODY, 0o700):
        # The user's own directory: the untrusted file is replaced by a new id of the user's.
        assert used != planted and modes(made) == (NOBODY, 0o600)
    else:
        assert r["status"] == "UP_TO_DATE" and r["rule"] == "outside_rollout", r
        assert "no installation id" in r["reason"], r
        return
    assert (r["status"] == "OPTIONAL") == (rollout_bucket(used, "9.9") < 99), r


def test_the_installation_id_is_made_by_and_for_the_user_control(sandbox, case):
    runtime, home, state = user_dirs(case, "run", "home", "state")
    doc = make_file(case / "gate.json", json.dumps({
        "min_required_version_linux": "0.1", "latest_version_linux": "9.9",
        "latest_version_linux_rollout_percent": "50"}), ROOT, 0o644)
    env = sandbox.env(XDG_RUNTIME_DIR=runtime, HOME=home, XDG_STATE_HOME=state)
    first = sandbox.check(doc, "1.0", env)
    made = state / "versiongate" / "installation-id"
    assert modes(state / "versiongate") == (NOBODY, 0o700) and modes(made) == (NOBODY, 0o600)
    installation = made.read_text().strip()
    assert (first["status"] == "OPTIONAL") == (rollout_bucket(installation, "9.9") < 50), first
    assert sandbox.check(doc, "1.0", env)["status"] == first["status"]


def rollout_bucket(installation_id: str, latest: str) -> int:
    """docs/operators.md: FNV-1a-64(id + "\\n" + latest) mod 100."""
    return int(fnv1a64_hex(installation_id + "\n" + latest), 16) % 100
