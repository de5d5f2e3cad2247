"""versiongate check, explain, compare, store-url, --help, --version and
usage errors (docs/design.md, "The command"), running the real command and library."""

from __future__ import annotations

import json

from pathlib import Path

import pytest

from cli_helpers import CLI, Env, run
from conftest import flat
from remote_helpers import flat_doc, server_fixture  # noqa: F401 (fixture)


@pytest.fixture
def env(tmp_path):
    return Env(tmp_path)


@pytest.fixture
def doc(write_doc):
    return write_doc(flat())


def test_the_command_is_built():
    assert CLI.exists(), "run scripts/build first (it builds build/bin/versiongate)"


def test_version(env):
    proc = run(["--version"], env.vars())
    assert proc.returncode == 0
    version = (Path(__file__).resolve().parents[2] / "VERSION").read_text().strip()
    assert proc.stdout.decode().startswith("versiongate %s (libversiongate %s)" % (version, version))


@pytest.mark.parametrize("verb", ["check", "exec", "explain", "compare", "store-url"])
def test_every_verb_has_help_with_examples(env, verb):
    for args in ([verb, "--help"], [verb, "--source", "x", "--help"], [verb, "-h"]):
        proc = run(args, env.vars())
        assert proc.returncode == 0, proc.stderr
        text = proc.stdout.decode()
        assert text.startswith("Usage: versiongate " + verb), text
        assert "Examples:" in text
        assert "\n  versiongate " + verb in text


def test_overview_help(env):
    proc = run(["--help"], env.vars())
    assert proc.returncode == 0
    for verb in ("check", "exec", "explain", "compare", "store-url"):
        assert "\n  " + verb in proc.stdout.decode()
    assert run([], env.vars()).returncode == 2


def test_help_verb_prints_the_verbs_usage_and_an_unknown_one_is_a_usage_error(env):
    """`versiongate help VERB` is `versiongate VERB --help` for every verb the
    overview lists; `help nosuchverb` is what `versiongate nosuchverb` is: one
    line naming it, a pointer to --help, exit 2."""
    overview = run(["--help"], env.vars()).stdout.decode()
    listed = overview.split("Verbs:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    verbs = [line.split()[0] for line in listed]
    assert len(verbs) >= 9 and "policy" in verbs, overview
    for verb in verbs:
        proc = run(["help", verb], env.vars())
        assert (proc.returncode, proc.stderr) == (0, b""), (verb, proc.stderr)
        assert proc.stdout.decode().startswith("Usage: versiongate " + verb + " "), proc.stdout
        assert proc.stdout == run([verb, "--help"], env.vars()).stdout, verb

    for args in (["help", "nosuchverb"], ["nosuchverb"]):
        proc = run(args, env.vars())
        assert (proc.returncode, proc.stdout) == (2, b""), (args, proc.stdout, proc.stderr)
        assert proc.stderr.decode().splitlines() == ['versiongate: unknown verb "nosuchverb"',
                                                     "Try 'versiongate --help'."], proc.stderr


USAGE_ERRORS = [
    (["frobnicate"], "unknown verb"),
    (["check", "--version", "1.0"], "--source is required"),
    (["check", "--source", "g.json"], "--version or --version-from is required"),
    (["check", "--source", "g.json", "--version"], "--version needs a value"),
    (["check", "--source", "g.json", "--version", "1", "--bogus"], "unknown option \"--bogus\""),
    (["check", "--source", "g.json", "--version", "1", "extra"], "unexpected argument \"extra\""),
    (["check", "--source", "g.json", "--version", "1", "--set", "novalue"], "--set needs KEY=VALUE"),
    (["check", "--source", "g.json", "--version", "1", "--set", "=v"], "--set needs KEY=VALUE"),
    (["check", "--source", "g.json", "--version", "1", "--set", "no_such_key=1"], "unknown option \"no_such_key\""),
    (["check", "--source", "g.json", "--version", "1", "--set", "timeout_ms=0"], "timeout_ms"),
    (["check", "--source", "g.json", "--version", "1", "--platform", "Linux!"], "platform"),
    (["check", "--source", "g.json", "--version", "1", "--dialog", "zenity"], "--dialog is not an option of check"),
    (["explain", "--version", "1"], "--source is required"),
    (["compare", "1.0"], "needs two versions"),
    (["compare", "1", "2", "3"], "too many arguments"),
    (["compare", "--json", "1", "2"], "unknown option"),
    (["store-url", "--app-id", "org.example.App"], "--store is required"),
    (["store-url", "--store", "bazaar", "--app-id", "x"], "store"),
    (["exec", "--source", "g.json", "--version", "1"], "needs -- COMMAND"),
    (["exec", "--source", "g.json", "--version", "1", "--"], "needs -- COMMAND"),
]


@pytest.mark.parametrize("args, message", USAGE_ERRORS, ids=[" ".join(a) for a, _ in USAGE_ERRORS])
def test_usage_errors_exit_2_with_a_message(env, args, message):
    proc = run(args, env.vars())
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert message in proc.stderr.decode()
    assert proc.stdout == b""


@pytest.mark.parametrize("version, code, status", [
    ("1.0.38", 20, "MANDATORY"), ("1.0.39", 10, "OPTIONAL"), ("1.0.40", 10, "OPTIONAL"),
    ("1.0.41", 0, "UP_TO_DATE"), ("2.0", 0, "UP_TO_DATE"),
])
def test_check_exit_codes_and_json(env, doc, version, code, status):
    proc = run(["check", "--json", "--version", version, "--source", doc], env.vars())
    assert proc.returncode == code, proc.stderr
    result = json.loads(proc.stdout)
    assert result["status"] == status
    assert result["current"] == version
    assert proc.stderr == b""


def test_check_human_text(env, doc):
    proc = run(["check", "--source", doc, "--version", "1.0.38"], env.vars())
    assert proc.returncode == 20
    assert proc.stdout.decode().splitlines() == [
        "status: MANDATORY", "title: Update required",
        "message: This version is no longer supported. Please update to continue.",
    ]
    proc = run(["check", "--source", doc, "--version", "1.0.41"], env.vars())
    assert (proc.returncode, proc.stdout) == (0, b"status: UP_TO_DATE\n")


def test_check_prints_the_store_url(env, write_doc):
    src = write_doc(flat(update_url_linux="https://flathub.org/apps/org.example.App"))
    proc = run(["check", "--source", src, "--version", "1.0.40"], env.vars())
    assert proc.returncode == 10
    assert "url: https://flathub.org/apps/org.example.App" in proc.stdout.decode().splitlines()


@pytest.mark.parametrize("source", ["missing.json", "bad"])
def test_check_fails_open_with_a_one_line_warning(env, tmp_path, source):
    path = tmp_path / source
    if source == "bad":
        path.write_text("{not json")
    for extra in ([], ["--json"]):
        proc = run(["check", "--source", path, "--version", "1.0.0", *extra], env.vars())
        assert proc.returncode == 0
        lines = proc.stderr.decode().splitlines()
        assert len(lines) == 1 and lines[0].startswith("versiongate: warning: "), lines
        assert "treated as up to date" in lines[0]


def test_check_invalid_current_version_fails_open(env, doc):
    proc = run(["check", "--source", doc, "--version", "1.0b1", "--json"], env.vars())
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["error_name"] == "VG_EVERSION"
    assert proc.stderr.decode().count("\n") == 1


def test_set_reaches_the_client_in_order(env, write_doc):
    src = write_doc(flat(platform="ios"))
    proc = run(["check", "--set", "locale=de", "--json", "--source", src, "--version", "1.0.40",
                "--set", "platform=linux", "--platform", "ios"], env.vars())
    assert proc.returncode == 10, proc.stderr
    result = json.loads(proc.stdout)
    assert result["locale"] == "de" and result["message"] != "A new version is available."
    # The last platform wins: linux has no thresholds in this document.
    proc = run(["check", "--source", src, "--version", "1.0.40", "--platform", "ios", "--set", "platform=linux"],
               env.vars())
    assert proc.returncode == 0


@pytest.mark.parametrize("a, b, out", [
    ("1.10", "1.9", "1"), ("1.0", "1.0.0", "0"), ("2.0.0-beta", "2.0.0", "-1"), ("v1.01", "1.1", "0"),
    ("1.0.0+build.5", "1.0.0", "0"), ("1.0.0-alpha.10", "1.0.0-alpha.9", "1"),
])
def test_compare(env, a, b, out):
    proc = run(["compare", a, b], env.vars())
    assert (proc.returncode, proc.stdout.decode()) == (0, out + "\n")


@pytest.mark.parametrize("a, b", [("1..2", "1"), ("1", "1.0b1"), ("", "1"), ("2.0 (123)", "2")])
def test_compare_invalid_exits_1(env, a, b):
    proc = run(["compare", "--", a, b], env.vars())
    assert proc.returncode == 1
    assert '": invalid version string' in proc.stderr.decode()     # vg_strerror(VG_EVERSION)
    assert proc.stdout == b""


STORE_CASES = [
    (["--store", "flathub", "--app-id", "org.example.App"], "appstream:org.example.App"),
    (["--store", "snap", "--app-id", "example"], "snap://example"),
    (["--app-id", "example", "--store", "snap", "--set", "allowed_url_schemes=https"], "https://snapcraft.io/example"),
    (["--store", "url", "--set", "fallback_url=https://flathub.org/apps/x"], "https://flathub.org/apps/x"),
]


@pytest.mark.parametrize("args, url", STORE_CASES)
def test_store_url(env, args, url):
    proc = run(["store-url", *args], env.vars())
    assert (proc.returncode, proc.stdout.decode()) == (0, url + "\n"), proc.stderr


def test_store_url_without_a_url_exits_1(env):
    proc = run(["store-url", "--store", "url"], env.vars())
    assert proc.returncode == 1 and proc.stdout == b""
    assert "no store URL" in proc.stderr.decode()


# -- sandboxes: the store's https page first --------------------------------

SANDBOXES = [
    ({}, "appstream:org.example.App", "snap://example"),
    ({"FLATPAK_ID": "org.example.App"}, "https://flathub.org/apps/org.example.App", "https://snapcraft.io/example"),
    ({"SNAP": "/snap/example/12"}, "https://flathub.org/apps/org.example.App", "https://snapcraft.io/example"),
    ({"FLATPAK_ID": ""}, "appstream:org.example.App", "snap://example"),
]


@pytest.mark.parametrize("sandbox, flathub, snap", SANDBOXES, ids=["none", "flatpak", "snap", "empty FLATPAK_ID"])
def test_sandbox_puts_the_https_page_first(env, write_doc, sandbox, flathub, snap):
    src = write_doc(flat())      # no update_url: the store's own links decide
    for store, app, expected in (("flathub", "org.example.App", flathub), ("snap", "example", snap)):
        proc = run(["store-url", "--store", store, "--app-id", app], env.vars(**sandbox))
        assert proc.stdout.decode() == expected + "\n", proc.stderr
        proc = run(["check", "--json", "--source", src, "--version", "1.0.40", "--set", "store=" + store,
                    "--set", "app_id=" + app], env.vars(**sandbox))
        result = json.loads(proc.stdout)
        assert result["store_url"] == expected
        if sandbox.get("FLATPAK_ID") or sandbox.get("SNAP"):
            assert "https pages first" in result["store_note"]
            assert result["store_web_fallback"] is None


# -- explain ----------------------------------------------------------------

def test_explain_shows_every_step(env, write_doc):
    src = write_doc(flat(update_message="Nova versão <b>disponível</b>"))
    proc = run(["explain", "--source", src, "--version", "1.0.40", "--set", "locale=pt_BR",
                "--set", "store=flathub", "--set", "app_id=org.example.App"], env.vars())
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.decode().split())      # labels are padded: compare words
    for expected in ("1. Config", "origin: local_document", "source: %s" % src,
                     "min_required_version_linux: 1.0.39", "latest_version_linux: 1.0.41",
                     "blocked_versions_linux: -", "min_required_version_linux_effective_at: -",
                     "status: OPTIONAL", "rule: below_latest", "reason: 1.0.40 is below latest_version_linux 1.0.41",
                     "language: pt", "Nova versão <b>disponível</b>", "url: appstream:org.example.App",
                     "web fallback: https://flathub.org/apps/org.example.App", "6. Session"):
        assert expected in text, (expected, text)


def test_explain_reports_a_failing_source(env, tmp_path):
    proc = run(["explain", "--source", tmp_path / "missing.json", "--version", "1.0"], env.vars())
    assert proc.returncode == 0
    assert "VG_ECONFIG" in proc.stdout.decode()
    text = " ".join(proc.stdout.decode().split())
    assert "origin: none" in text and "rule: fail_open" in text, text
    assert "reason: cannot read %s" % (tmp_path / "missing.json") in text or "missing.json" in text.split("reason:")[1]


def test_explain_consumes_no_prompt(env, doc):
    for _ in range(2):
        assert run(["explain", "--source", doc, "--version", "1.0.40", "--set", "remind_after_s=3600"],
                   env.vars()).returncode == 0
    proc = run(["check", "--json", "--source", doc, "--version", "1.0.40"], env.vars())
    assert json.loads(proc.stdout)["should_prompt"] is True
    assert not list(env.state.glob("versiongate/prompted-*"))


def test_explain_shows_the_session_state(env, doc):
    """explain says whether a launch now would prompt and why, from the real
    login session and remind state, without changing either."""
    def would_prompt(*extra):
        text = run(["explain", "--source", doc, "--version", "1.0.40", *extra], env.vars()).stdout.decode()
        line = next(l for l in text.splitlines() if "a launch now would prompt:" in l)
        return line.split(":", 1)[1].strip(), text

    assert would_prompt()[0] == "true"
    assert would_prompt()[0] == "true"            # explain claimed nothing
    assert not list(env.runtime.glob("versiongate/optional-*"))
    check = run(["check", "--json", "--source", doc, "--version", "1.0.40", "--set", "remind_after_s=3600"],
                env.vars())
    assert json.loads(check.stdout)["should_prompt"] is True
    assert would_prompt()[0] == "false"           # this login session was prompted
    env.new_session()
    assert would_prompt()[0] == "true"            # a new session prompts again...
    answer, text = would_prompt("--set", "remind_after_s=3600")
    assert answer == "false" and "remind_after_s 3600" in text   # ...unless remind_after_s says not yet


def test_verbose_shows_the_library_log(env, doc, tmp_path):
    missing = tmp_path / "missing.json"
    quiet = run(["check", "--source", missing, "--version", "1.0.38"], env.vars()).stderr.decode()
    assert "error:" not in quiet and quiet.count("\n") == 1          # the one-line warning only
    loud = run(["check", "-v", "--source", missing, "--version", "1.0.38"], env.vars()).stderr.decode()
    assert "versiongate: error: fails open: cannot open %s" % missing in loud
    proc = run(["check", "--source", doc, "--verbose", "--verbose", "--version", "1.0.38"], env.vars())
    assert proc.returncode == 20
    assert ("versiongate: debug: MANDATORY (below_minimum: 1.0.38 is below min_required_version_linux 1.0.39)"
            in proc.stderr.decode())
    assert run(["compare", "-v", "1", "2"], env.vars()).returncode == 2   # compare has no log


def test_check_warns_when_it_decided_from_the_cache_after_a_failed_fetch(env, server):
    server.document("cli-stale", flat_doc(), next=[{}, {"status": 404}])
    source = server.url("cli-stale")
    first = run(["check", "--source", source, "--version", "1.0.38", "--set", "cache_ttl_s=0",
                 "--set", "stale_while_revalidate_s=0"], env.vars())
    assert first.returncode == 20 and first.stderr == b""
    again = run(["check", "--source", source, "--version", "1.0.38", "--set", "cache_ttl_s=0",
                 "--set", "stale_while_revalidate_s=0"], env.vars())
    assert again.returncode == 20                   # the cache still decides...
    assert b"HTTP 404; decided from origin cache_after_error" in again.stderr   # ...and the operator hears why
