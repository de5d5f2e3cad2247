"""The administrator's policy (issue #51; /etc/versiongate/policy.json and
policy.d/*.json, docs/design.md "The administrator's policy"), end to end:
the real command and library, run by the ordinary user (uid 65534) in a
private mount namespace where the test's own policy directory is bound over
/etc/versiongate (policy_world.py says how and why).

Each policy test has a control beside it (no policy, or the same run without
the key) that shows the harness reaches the behaviour the key must change: a
MANDATORY document exits 20, an AppImage is updated, a dialog is shown, a
request reaches the loopback server. Only 127.0.0.1 is contacted; runs that
need no server have no network at all (a network namespace of their own)."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from policy_world import (ETC_POLICY, NO_POLICY_LINE, POLICY_D, POLICY_JSON, Case, CountingServer, Install,
                          PolicyTree, policy_lines, run_bounded, wait_quiet)
from unprivileged import NOBODY, ROOT, make_dir

MINIMUM, LATEST, BELOW = "1.0.30", "1.0.40", "1.0.20"
APP_A, APP_B = "com.example.Alpha", "com.example.Beta"
STORE_PAGE = "https://flathub.org/apps/org.example.App"
IT_URL = "https://it.example/update"
IT_MESSAGE = "<b>IT</b> & co"
WARN = {"mandatory": "warn"}
ENFORCE = {"mandatory": "enforce"}


def gate(**extra) -> dict:
    """MANDATORY for BELOW, OPTIONAL for MINIMUM..LATEST."""
    return {"min_required_version_linux": MINIMUM, "latest_version_linux": LATEST, **extra}


@pytest.fixture(scope="module")
def install():
    machine = Install()
    try:
        yield machine
    finally:
        machine.close()


@pytest.fixture
def case(install, request):
    return Case(install, re.sub(r"[^A-Za-z0-9_.-]", "_", request.node.name)[:60])


def ignored_warning(ran, file: str, why: str | None) -> None:
    """stderr names `file` as ignored, once, with a reason starting with `why`."""
    lines = [w for w in ran.warnings() if w.startswith("policy: %s ignored: " % file)]
    assert len(lines) == 1, "want one warning that %s is ignored\n%s" % (file, ran)
    if why is not None:
        assert lines[0][len("policy: %s ignored: " % file):].startswith(why), (lines[0], why)


def assert_unmanaged_mandatory(ran) -> dict:
    result = ran.json()
    assert (ran.code, result["status"], result["rule"]) == (20, "MANDATORY", "below_minimum"), ran
    assert (result["managed"], result["policy_files"]) == (False, []), result
    return result


# --- the harness itself ---------------------------------------------------------------

PROBE = r'''
import json, os, socket, sys
out = {"ids": [os.getuid(), os.geteuid(), os.getgid(), os.getegid(), os.getgroups()],
       "listed": sorted(os.listdir("/etc/versiongate")),
       "owner": [os.stat(p).st_uid for p in ("/etc/versiongate", "/etc/versiongate/policy.json")],
       "writable": os.access("/etc/versiongate", os.W_OK)}
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2).close()
    out["loopback"] = True
except OSError:
    out["loopback"] = False
print(json.dumps(out))
'''


def test_harness_binds_the_policy_for_the_ordinary_user_only_in_its_namespace(case, install):
    """The user in the namespace is 65534 without groups and sees the test's
    tree at /etc/versiongate (root's, not writable to it); the machine's own
    /etc/versiongate is untouched; the isolated runs cannot reach even the
    host's loopback, the others can."""
    case.policy.write("policy.json", WARN)
    before = sorted(os.listdir(ETC_POLICY)) if install.etc_copy is None else None
    listener = socket.create_server(("127.0.0.1", 0))
    try:
        port = listener.getsockname()[1]
        for isolate in (True, False):
            argv = case.command([install.python, "-c", PROBE, str(port)], isolate_network=isolate)
            ran = run_bounded(argv, case.env.vars(), timeout=30)
            assert ran.code == 0, ran
            seen = json.loads(ran.stdout)
            assert seen["ids"] == [NOBODY, NOBODY, NOBODY, NOBODY, []], seen
            assert seen["listed"] == ["policy.json"] and seen["owner"] == [ROOT, ROOT], seen
            assert seen["writable"] is False
            assert seen["loopback"] is (not isolate), seen
    finally:
        listener.close()
    if before is not None:
        assert sorted(os.listdir(ETC_POLICY)) == before, "the bind leaked out of its namespace"


def test_harness_a_plain_check_as_the_user_blocks(case):
    """The baseline every policy test departs from: no policy, MANDATORY, exit 20."""
    ran = case.check(case.doc(gate()), BELOW)
    assert ran.code == 20, ran
    assert ran.json()["status"] == "MANDATORY"


# --- no policy, mandatory warn and what it never softens ------------------------------

def test_no_policy_is_unmanaged(case):
    ran = case.check(case.doc(gate()), BELOW)
    result = assert_unmanaged_mandatory(ran)
    assert (result["managed_message"], result["managed_url"]) == (None, None), result
    assert not [w for w in ran.warnings() if w.startswith("policy:")], ran


def test_mandatory_warn_makes_the_block_optional(case):
    case.policy.write("policy.json", WARN)
    ran = case.check(case.doc(gate()), BELOW)
    result = ran.json()
    assert (ran.code, result["status"], result["rule"]) == (10, "OPTIONAL", "policy"), ran
    assert (result["managed"], result["policy_files"]) == (True, [POLICY_JSON]), result
    assert "the administrator's policy (%s) accepts it: mandatory warn" % POLICY_JSON in result["reason"], result
    assert (result["managed_message"], result["managed_url"]) == (None, None)
    assert ran.warnings() == [], ran


def test_mandatory_warn_leaves_up_to_date_and_optional_alone(case):
    case.policy.write("policy.json", WARN)
    doc = case.doc(gate())
    up, optional = case.check(doc, LATEST), case.check(doc, MINIMUM)
    assert (up.code, up.json()["status"], up.json()["managed"]) == (0, "UP_TO_DATE", True), up
    assert (optional.code, optional.json()["status"]) == (10, "OPTIONAL"), optional
    assert optional.json()["rule"] != "policy", optional


@pytest.mark.parametrize("extra,rule", [({"blocked_versions_linux": BELOW}, "blocked"),
                                        ({"strict_min_required_linux": "true"}, "below_minimum")])
def test_mandatory_warn_never_softens_the_kill_switch_or_a_strict_minimum(case, extra, rule):
    case.policy.write("policy.json", WARN)
    ran = case.check(case.doc(gate(**extra)), BELOW)
    result = ran.json()
    assert (ran.code, result["status"], result["rule"]) == (20, "MANDATORY", rule), ran
    assert (result["managed"], result["policy_files"]) == (True, [POLICY_JSON]), result


# --- a file that does not count -------------------------------------------------------

def _spoil(case: Case, how: str) -> tuple[str, str | None]:
    """Writes a `mandatory: warn` that must not count; (file, why prefix)."""
    if how == "owned by the user":
        return case.policy.write("policy.json", WARN, uid=NOBODY), "owned by uid 65534, not root"
    if how == "owned by another user":
        return case.policy.write("policy.json", WARN, uid=65533), "owned by uid 65533, not root"
    if how == "mode 0666":
        return case.policy.write("policy.json", WARN, mode=0o666), "writable by group or others (mode 0666)"
    if how == "mode 0664":
        return case.policy.write("policy.json", WARN, mode=0o664), "writable by group or others (mode 0664)"
    if how == "group-writable policy.d":
        case.policy.dropins(mode=0o775)
        return (case.policy.write("policy.d/50-x.json", WARN),
                "directory /etc/versiongate/policy.d is writable by group or others")
    if how == "policy.d owned by the user":
        case.policy.dropins(uid=NOBODY, mode=0o755)
        return (case.policy.write("policy.d/50-x.json", WARN),
                "directory /etc/versiongate/policy.d is owned by uid 65534, not root")
    if how == "/etc/versiongate owned by the user":
        case.policy = PolicyTree(case.policy.path, uid=NOBODY, mode=0o755)
        return case.policy.write("policy.json", WARN), "directory /etc/versiongate is owned by uid 65534, not root"
    if how == "a symbolic link":
        case.policy.write("real-policy.txt", WARN)
        os.symlink("real-policy.txt", case.policy.path / "policy.json")
        return POLICY_JSON, "not a regular file"
    if how == "a directory":
        make_dir(case.policy.path / "policy.json")
        return POLICY_JSON, "not a regular file"
    raise AssertionError(how)


SPOILS = ["owned by the user", "owned by another user", "mode 0666", "mode 0664",
          "group-writable policy.d", "policy.d owned by the user", "/etc/versiongate owned by the user",
          "a symbolic link", "a directory"]


@pytest.mark.parametrize("how", SPOILS)
def test_an_untrusted_file_is_ignored_with_a_warning(case, how):
    file, why = _spoil(case, how)
    ran = case.check(case.doc(gate()), BELOW)
    assert_unmanaged_mandatory(ran)
    ignored_warning(ran, file, why)


def test_the_same_file_trusted_counts(case):
    """The control of the spoiled files: the same bytes, root's and 0644, in a 0755 policy.d."""
    case.policy.dropins()
    case.policy.write("policy.d/50-x.json", WARN)
    ran = case.check(case.doc(gate()), BELOW)
    assert (ran.code, ran.json()["policy_files"]) == (10, [POLICY_D + "/50-x.json"]), ran


BAD_CONTENT = [
    ("malformed JSON", '{"mandatory": "warn",', "not valid JSON"),
    ("mandatory maybe", {"mandatory": "maybe"}, '"mandatory" must be "enforce" or "warn"'),
    ("mandatory true", {"mandatory": True}, '"mandatory" must be "enforce" or "warn"'),
    ("network no", {"mandatory": "warn", "network": "no"}, '"network" must be a boolean'),
    ("optional_prompts 0", {"mandatory": "warn", "optional_prompts": 0}, '"optional_prompts" must be a boolean'),
    ("in_place_updates string", {"mandatory": "warn", "in_place_updates": "false"},
     '"in_place_updates" must be a boolean'),
    ("managed_message number", {"mandatory": "warn", "managed_message": 5}, '"managed_message" must be a string'),
    ("managed_url list", {"mandatory": "warn", "managed_url": [IT_URL]}, '"managed_url" must be a string'),
    ("source number", {"mandatory": "warn", "source": 1}, '"source" must be a string'),
    ("apps list", {"mandatory": "warn", "apps": [APP_A]}, '"apps" must be an object of objects'),
    ("apps of strings", {"mandatory": "warn", "apps": {APP_A: "warn"}}, '"apps" must be an object of objects'),
    ("10 MiB", '{"mandatory": "warn"' + " " * (10 << 20) + "}", "larger than 65536 bytes"),
    ("65537 bytes", '{"mandatory": "warn"' + " " * (65537 - 21) + "}", "larger than 65536 bytes"),
    ("not an object", '["mandatory", "warn"]', None),
]


@pytest.mark.parametrize("content,why", [(c, w) for _, c, w in BAD_CONTENT], ids=[n for n, _, _ in BAD_CONTENT])
def test_a_bad_file_is_ignored_whole_with_a_warning(case, content, why):
    case.policy.write("policy.json", content)
    ran = case.check(case.doc(gate()), BELOW)
    assert_unmanaged_mandatory(ran)
    ignored_warning(ran, POLICY_JSON, why)


def test_a_file_of_exactly_65536_bytes_counts(case):
    text = '{"mandatory": "warn"' + " " * (65536 - 21) + "}"
    assert len(text) == 65536
    case.policy.write("policy.json", text)
    ran = case.check(case.doc(gate()), BELOW)
    assert (ran.code, ran.json()["rule"]) == (10, "policy"), ran


def test_one_bad_file_leaves_the_others_counting(case):
    case.policy.write("policy.json", WARN)
    bad = case.policy.write("policy.d/50-x.json", '{"mandatory": "enforce"')
    ran = case.check(case.doc(gate()), BELOW)
    result = ran.json()
    assert (ran.code, result["rule"], result["managed"]) == (10, "policy", True), ran
    assert result["policy_files"] == [POLICY_JSON], result
    ignored_warning(ran, bad, "not valid JSON")


def test_the_warning_goes_through_the_log_callback_once_per_client(case):
    """Two checks of one client: the warning arrives once, at level warning,
    through the log callback (the library, not only the command)."""
    case.policy.write("policy.json", {"mandatory": "maybe"})
    out = case.library(case.doc(gate()), BELOW, checks=2)
    mine = [r for r in out["log"] if POLICY_JSON in r[1]]
    why = '"mandatory" must be "enforce" or "warn"'
    assert mine == [["WARNING", "policy: %s ignored: %s" % (POLICY_JSON, why)]], out["log"]
    assert [c["json"]["status"] for c in out["checks"]] == ["MANDATORY", "MANDATORY"]


def test_broken_json_is_named_with_its_line_and_column(case):
    """A missing comma: `policy --check`, the command's warning and the log's
    name the file, the line and the column (1-based, in bytes) where the JSON
    breaks, and what was expected there; the other file still counts."""
    case.policy.write("policy.json", WARN)
    bad = case.policy.write("policy.d/50-x.json", '{\n  "managed_message": "Call IT"\n  "network": false\n}\n')
    why = "not valid JSON: expected ',' or '}', found '\"' at line 3, column 3"

    ran = case.run(["policy", "--check"])
    assert ran.code == 1, ran
    assert ran.stdout.splitlines()[1:] == ["%s: ignored: %s" % (bad, why)], ran
    plain = case.run(["policy"])
    assert plain.warnings() == ["policy: %s ignored: %s" % (bad, why)], plain

    out = case.library(case.doc(gate()), BELOW)
    assert out["log"] == [["WARNING", "policy: %s ignored: %s" % (bad, why)]], out["log"]
    assert (out["checks"][0]["policy_files"], out["checks"][0]["json"]["rule"]) == ([POLICY_JSON], "policy")


# --- layers and apps --------------------------------------------------------------------

@pytest.mark.parametrize("first,later,code", [(WARN, ENFORCE, 20), (ENFORCE, WARN, 10)])
def test_policy_d_wins_over_policy_json(case, first, later, code):
    case.policy.write("policy.json", first)
    case.policy.write("policy.d/50-x.json", later)
    ran = case.check(case.doc(gate()), BELOW)
    result = ran.json()
    assert ran.code == code, ran
    assert (result["managed"], result["policy_files"]) == (True, [POLICY_JSON, POLICY_D + "/50-x.json"]), result
    if code == 10:
        assert "the administrator's policy (%s/50-x.json)" % POLICY_D in result["reason"], result


def test_a_later_file_wins_key_by_key_only(case):
    case.policy.write("policy.json", {"mandatory": "warn", "managed_message": "from policy.json"})
    case.policy.write("policy.d/50-x.json", {"managed_message": "from 50-x"})
    result = case.check(case.doc(gate()), BELOW).json()
    assert (result["rule"], result["managed_message"]) == ("policy", "from 50-x"), result


def test_policy_d_is_read_in_byte_order_of_names_skipping_hidden_and_other_names(case):
    """"9-z.json" sorts after "50-x.json" byte by byte (not by number); a
    hidden .json and a name not ending in .json are not read at all."""
    case.policy.write("policy.d/50-x.json", WARN)
    case.policy.write("policy.d/9-z.json", ENFORCE)
    case.policy.write("policy.d/.hidden.json", WARN)
    case.policy.write("policy.d/99-off.json.disabled", WARN)
    case.policy.write("policy.d/README", "not json")
    ran = case.check(case.doc(gate()), BELOW)
    assert ran.code == 20, ran
    assert ran.json()["policy_files"] == [POLICY_D + "/50-x.json", POLICY_D + "/9-z.json"], ran
    assert not ran.warnings(), ran


def test_an_apps_section_applies_to_its_app_only(case):
    case.policy.write("policy.json", {"apps": {APP_A: WARN}})
    doc = case.doc(gate())
    a, b = case.check(doc, BELOW, "app_id=" + APP_A), case.check(doc, BELOW, "app_id=" + APP_B)
    none = case.check(doc, BELOW)
    assert (a.code, a.json()["rule"]) == (10, "policy"), a
    assert (b.code, b.json()["rule"]) == (20, "below_minimum"), b
    assert none.code == 20, none
    for ran in (a, b, none):
        assert (ran.json()["managed"], ran.json()["policy_files"]) == (True, [POLICY_JSON]), ran


def test_an_apps_section_wins_over_the_top_level_of_every_file(case):
    case.policy.write("policy.json", {"apps": {APP_A: ENFORCE}})
    case.policy.write("policy.d/50-x.json", WARN)
    doc = case.doc(gate())
    a, b = case.check(doc, BELOW, "app_id=" + APP_A), case.check(doc, BELOW, "app_id=" + APP_B)
    assert (a.code, b.code) == (20, 10), (a, b)


# --- optional_prompts: false ------------------------------------------------------------

def exec_args(doc, version, probe, *extra):
    return ["exec", "--dialog", "zenity", "--source", doc, "--version", version, *extra, "--", probe, "arg"]


def test_optional_prompts_false_shows_nothing_and_runs_the_app(case):
    case.policy.write("policy.json", {"optional_prompts": False})
    env = case.env
    env.fake("zenity", exit_code=1)
    doc = case.doc(gate())
    ran = case.run(exec_args(doc, MINIMUM, env.probe))
    assert ran.code == 0, ran
    assert env.calls("zenity") == [], "optional_prompts false showed a dialog"
    assert env.probe_out.exists(), "the app did not run"
    env.probe_out.unlink()

    checked = case.check(doc, MINIMUM)
    result = checked.json()
    assert (checked.code, result["status"], result["should_prompt"]) == (10, "OPTIONAL", False), checked
    assert result["managed"] is True

    # The control, in the same login session: no marker was taken, so
    # without the policy the prompt is due and shown.
    ran = case.run(exec_args(doc, MINIMUM, env.probe), policy=case.no_policy)
    assert ran.code == 0, ran
    assert [c[0] for c in env.calls("zenity")] == ["--question"], env.calls("zenity")


def test_a_block_softened_by_warn_shows_nothing_with_optional_prompts_false(case):
    case.policy.write("policy.json", {"mandatory": "warn", "optional_prompts": False})
    case.env.fake("zenity", exit_code=0)
    ran = case.run(exec_args(case.doc(gate()), BELOW, case.env.probe))
    assert ran.code == 0, ran
    assert case.env.calls("zenity") == []
    assert case.env.probe_out.exists(), "the app did not run"


def test_optional_prompts_false_leaves_the_mandatory_prompt(case):
    case.policy.write("policy.json", {"optional_prompts": False})
    case.env.fake("zenity", exit_code=1)
    ran = case.run(exec_args(case.doc(gate()), BELOW, case.env.probe))
    assert ran.code == 20, ran
    assert [c[0] for c in case.env.calls("zenity")] == ["--warning"]
    assert not case.env.probe_out.exists()


# --- managed_message and managed_url ----------------------------------------------------

STORE_SETS = ("store=flathub", "app_id=" + APP_A)


def managed_exec(case, dialog: str, answer: int = 0, sets=STORE_SETS, **variables):
    """A MANDATORY exec whose dialog answers Update (exit 0): the dialog's argv and what was opened
    (`variables`: the environment's, e.g. a language)."""
    env = case.env
    env.fake(dialog, exit_code=answer)
    env.fake("xdg-open")
    env.fake("notify-send")
    doc = case.doc(gate(update_url_linux=STORE_PAGE))
    extra = [a for s in sets for a in ("--set", s)]
    ran = case.run(["exec", "--dialog", dialog, "--source", doc, "--version", BELOW, *extra, "--", env.probe],
                   **variables)
    assert ran.code == 20, ran
    assert not env.probe_out.exists(), "MANDATORY started the app"
    calls = env.calls(dialog)
    assert len(calls) == 1, calls
    return ran, calls[0], env.calls("xdg-open")


def test_managed_message_and_url_replace_the_mandatorys(case):
    case.policy.write("policy.json", {"managed_message": IT_MESSAGE, "managed_url": IT_URL})
    doc = case.doc(gate(update_url_linux=STORE_PAGE))
    ran = case.check(doc, BELOW, *STORE_SETS)
    result = ran.json()
    assert (ran.code, result["status"]) == (20, "MANDATORY"), ran
    assert (result["message"], result["store_url"]) == (IT_MESSAGE + "\n\n" + IT_URL, IT_URL), result
    assert result["action_label"] == "Open help page", result
    assert (result["managed_message"], result["managed_url"], result["managed"]) == (IT_MESSAGE, IT_URL, True), result

    control = case.check(doc, BELOW, *STORE_SETS, policy=case.no_policy).json()
    assert control["message"] != IT_MESSAGE and control["store_url"] not in (None, IT_URL), control
    assert control["action_label"] == "Update", control


def test_the_dialog_shows_the_managed_message_as_text_and_update_opens_the_link(case):
    """zenity gets --no-markup and the text as it is (dialog.c passes remote
    text literally): the markup is shown, never interpreted. Update opens
    the administrator's link, never the store."""
    case.policy.write("policy.json", {"managed_message": IT_MESSAGE, "managed_url": IT_URL})
    ran, argv, opened = managed_exec(case, "zenity")
    assert argv[0] == "--warning" and "--no-markup" in argv, argv
    assert "--text=" + IT_MESSAGE + "\n\n" + IT_URL in argv, argv
    assert "--ok-label=Open help page" in argv, argv
    assert opened == [[IT_URL]], (opened, ran)


def test_kdialog_gets_the_managed_message_escaped(case):
    """kdialog shows rich text: dialog.c escapes it (&lt; &gt; &amp;) inside <qt>."""
    case.policy.write("policy.json", {"managed_message": IT_MESSAGE, "managed_url": IT_URL})
    ran, argv, opened = managed_exec(case, "kdialog")
    sorry = [a for a in argv if a.startswith("--sorry=")]
    assert sorry and sorry[0].startswith("--sorry=<qt>&lt;b&gt;IT&lt;/b&gt; &amp; co") and IT_URL in sorry[0], argv
    assert "--ok-label=Open help page" in argv, argv
    assert opened == [[IT_URL]], (opened, ran)


def test_the_store_is_opened_without_a_policy(case):
    """The control of the two above: Update opens the store page."""
    ran, argv, opened = managed_exec(case, "zenity", sets=())
    assert opened == [[STORE_PAGE]], (opened, ran)
    assert not any(a.startswith("--text=" + IT_MESSAGE) for a in argv) and "--ok-label=Update" in argv, argv


@pytest.mark.parametrize("lang,label", [("en_US.UTF-8", "Open help page"), ("ar_EG.UTF-8", "فتح صفحة المساعدة")])
def test_the_terminal_prompt_names_the_help_page_and_shows_its_link(case, lang, label):
    """The button says what it opens, in the user's language (right to
    left too), and the link is in the text, once."""
    case.policy.write("policy.json", {"managed_message": IT_MESSAGE, "managed_url": IT_URL})
    case.env.fake("xdg-open")
    doc = case.doc(gate(update_url_linux=STORE_PAGE))
    ran = case.run(["exec", "--dialog", "terminal", "--source", doc, "--version", BELOW,
                    *[a for s in STORE_SETS for a in ("--set", s)], "--", case.env.probe], input=b"\n", LANG=lang)
    assert ran.code == 20, ran
    out = ran.stdout
    assert IT_MESSAGE in out and out.count(IT_URL) == 1, out
    assert label in out, out
    assert "Update" not in out.split(IT_URL)[-1], out
    assert case.env.calls("xdg-open") == [[IT_URL]], ran


def test_zenity_names_the_help_page_in_a_right_to_left_language(case):
    case.policy.write("policy.json", {"managed_url": IT_URL})
    ran, argv, opened = managed_exec(case, "zenity", LANG="ar_EG.UTF-8")
    assert "--ok-label=فتح صفحة المساعدة" in argv, argv
    text = [a for a in argv if a.startswith("--text=")]
    assert text and text[0].endswith("\n\n" + IT_URL), argv
    assert opened == [[IT_URL]], (opened, ran)


def test_a_managed_message_without_a_link_opens_nothing(case):
    case.policy.write("policy.json", {"managed_message": IT_MESSAGE})
    result = case.check(case.doc(gate(update_url_linux=STORE_PAGE)), BELOW, *STORE_SETS).json()
    assert (result["message"], result["store_url"], result["managed_url"]) == (IT_MESSAGE, None, None), result
    ran, argv, opened = managed_exec(case, "zenity")
    assert "--text=" + IT_MESSAGE in argv
    assert opened == [], (opened, ran)


def test_the_managed_link_is_not_held_to_allowed_url_hosts(case):
    case.policy.write("policy.json", {"managed_url": IT_URL})
    ran, _, opened = managed_exec(case, "zenity", sets=STORE_SETS + ("allowed_url_hosts=store.example.com",))
    assert opened == [[IT_URL]], (opened, ran)


def test_the_managed_message_is_cut_at_500_characters(case):
    case.policy.write("policy.json", {"managed_message": "é" * 600})
    result = case.check(case.doc(gate()), BELOW).json()
    assert result["managed_message"] == result["message"] == "é" * 500, len(result["message"])


def test_an_http_managed_url_is_dropped_with_a_warning_the_rest_counts(case):
    case.policy.write("policy.json", {"mandatory": "warn", "managed_url": "http://it.example/update"})
    ran = case.check(case.doc(gate(update_url_linux=STORE_PAGE)), BELOW)
    result = ran.json()
    assert (ran.code, result["rule"], result["managed_url"]) == (10, "policy", None), ran
    assert result["policy_files"] == [POLICY_JSON]
    assert 'policy: %s: "managed_url" must be an https URL; ignored' % POLICY_JSON in ran.warnings(), ran


# --- network: false ---------------------------------------------------------------------

@pytest.fixture
def server():
    loopback = CountingServer()
    yield loopback
    loopback.stop()


def test_network_false_asks_nothing_and_decides_from_the_cache(case, server):
    from test_channel import APP_ID, appstream
    sets = ("store=flathub", "app_id=" + APP_ID, "flathub_endpoint=" + server.base)
    source = server.base + "/gate.json"
    server.serve("/gate.json", gate())
    server.serve("/api/v2/appstream/" + APP_ID, appstream("1.0.25"))

    # Control: without the policy the document and the channel are asked.
    ran = case.check(source, BELOW, *sets, policy=case.no_policy, isolate_network=False)
    assert (ran.code, ran.json()["rule"], ran.json()["channel_version"]) == (10, "channel_behind", "1.0.25"), ran
    asked = sorted({path.split("?")[0] for _, path in server.requests})
    assert asked == ["/api/v2/appstream/" + APP_ID, "/gate.json"], server.requests

    # The server now says otherwise and the cache is old at once; with
    # network false nothing is asked and the cache decides.
    server.serve("/gate.json", gate(min_required_version_linux="1.0.10"))
    server.serve("/api/v2/appstream/" + APP_ID, appstream(MINIMUM))
    stale = sets + ("cache_ttl_s=0", "stale_while_revalidate_s=0")
    before = wait_quiet(server.count)
    case.policy.write("policy.json", {"network": False})
    ran = case.check(source, BELOW, *stale, isolate_network=False)
    assert wait_quiet(server.count) == before, server.requests[before:]
    result = ran.json()
    assert (ran.code, result["rule"], result["channel_version"]) == (10, "channel_behind", "1.0.25"), ran
    assert result["managed"] is True

    # Control: the same without the policy asks again.
    case.check(source, BELOW, *stale, policy=case.no_policy, isolate_network=False)
    assert wait_quiet(server.count) > before


def _channel_sets(kind: str, base: str) -> tuple[str, ...]:
    from test_channel import KINDS
    return tuple(KINDS[kind]["sets"](base))


@pytest.mark.parametrize("kind", ["appstore", "snap", "flathub", "firebase"])
def test_network_false_with_nothing_cached_asks_nothing_and_takes_the_defaults(case, server, kind):
    """A remote document (or Firebase) and a channel (or the App Store's
    lookup): nothing is asked, the `defaults` document decides. The control
    afterwards, without the policy, does ask."""
    from test_channel import KINDS
    if kind == "firebase":
        source = "firebase://demo-proj?api_key=test-api-key&app_id=1:123456789012:web:0a1b2c3d4e5f60718293a4"
        sets = ("firebase_endpoint=" + server.base, "firebase_installations_endpoint=" + server.base,
                "package_name=com.example.launcher")
    else:
        source = server.base + "/gate.json"
        sets = _channel_sets(kind, server.base)
        server.serve("/gate.json", gate())
        server.serve(KINDS[kind]["path"], KINDS[kind]["body"]("1.0.25"))
    defaults = case.doc(gate(), name="defaults.json")
    sets += ("defaults=" + str(defaults),)
    case.policy.write("policy.json", {"network": False})
    ran = case.check(source, BELOW, *sets, isolate_network=False)
    assert wait_quiet(server.count) == 0, server.requests
    result = ran.json()
    assert (ran.code, result["status"], result["rule"]) == (20, "MANDATORY", "below_minimum"), ran
    assert result["channel_version"] is None, result
    assert result["managed"] is True

    case.check(source, BELOW, *sets, policy=case.no_policy, isolate_network=False)
    assert wait_quiet(server.count) > 0, "the control asked nothing: the test cannot tell"


def test_network_false_without_a_cache_or_defaults_asks_nothing(case, server):
    server.serve("/gate.json", gate())
    case.policy.write("policy.json", {"network": False})
    ran = case.check(server.base + "/gate.json", BELOW, isolate_network=False)
    assert wait_quiet(server.count) == 0, server.requests
    assert ran.json()["managed"] is True


# --- source ------------------------------------------------------------------------------

def test_the_administrators_source_decides_instead_of_the_apps(case, server):
    admin = case.doc(gate(), name="admin-gate.json")
    server.serve("/app.json", {"min_required_version_linux": "0.1"})
    app_source = server.base + "/app.json"

    control = case.check(app_source, BELOW, policy=case.no_policy, isolate_network=False)
    assert control.code == 0 and wait_quiet(server.count) == 1, control

    case.policy.write("policy.json", {"source": str(admin)})
    ran = case.check(app_source, BELOW, isolate_network=False)
    result = ran.json()
    assert (ran.code, result["status"], result["source"], result["managed"]) == (20, "MANDATORY", str(admin), True), ran
    assert wait_quiet(server.count) == 1, server.requests


def test_the_administrators_source_for_one_app(case):
    admin = case.doc(gate(), name="admin-gate.json")
    app_doc = case.doc({"min_required_version_linux": "0.1"})
    case.policy.write("policy.json", {"apps": {APP_A: {"source": str(admin)}}})
    assert case.check(app_doc, BELOW, "app_id=" + APP_A).code == 20
    assert case.check(app_doc, BELOW, "app_id=" + APP_B).code == 0


@pytest.mark.skipif(shutil.which("minisign") is None, reason="minisign is installed by scripts/setup")
def test_trusted_keys_still_verify_the_administrators_source(case, tmp_path):
    public, secret = tmp_path / "k.pub", tmp_path / "k.key"
    subprocess.run(["minisign", "-G", "-W", "-p", str(public), "-s", str(secret)], check=True, capture_output=True,
                   timeout=30)
    key = public.read_text().splitlines()[1]
    admin = case.doc(gate(), name="admin-gate.json")
    app_doc = case.doc({"min_required_version_linux": "0.1"})
    # The app's own document is signed: only the administrator's lacks a signature.
    subprocess.run(["minisign", "-S", "-s", str(secret), "-m", str(app_doc), "-x", str(app_doc) + ".minisig"],
                   check=True, capture_output=True, timeout=30)
    os.chmod(str(app_doc) + ".minisig", 0o644)
    case.policy.write("policy.json", {"source": str(admin)})
    unsigned = case.check(app_doc, BELOW, "trusted_keys=" + key)
    assert unsigned.code != 20 and unsigned.json()["source"] == str(admin), unsigned
    assert unsigned.json()["error"] != 0, unsigned
    subprocess.run(["minisign", "-S", "-s", str(secret), "-m", str(admin), "-x", str(admin) + ".minisig"],
                   check=True, capture_output=True, timeout=30)
    os.chmod(str(admin) + ".minisig", 0o644)
    signed = case.check(app_doc, BELOW, "trusted_keys=" + key)
    assert (signed.code, signed.json()["error"]) == (20, 0), signed


# --- the result through the library ---------------------------------------------------------

def test_the_binding_reads_managed_and_policy_files(case):
    case.policy.write("policy.json", {"mandatory": "warn", "managed_message": IT_MESSAGE})
    case.policy.write("policy.d/50-x.json", {"managed_url": IT_URL})
    out = case.library(case.doc(gate()), BELOW)
    c = out["checks"][0]
    files = [POLICY_JSON, POLICY_D + "/50-x.json"]
    assert (c["managed"], c["policy_files"]) == (True, files), c
    assert (c["managed_message"], c["managed_url"]) == (IT_MESSAGE, IT_URL), c
    assert c["raw_policy_files"] == "\n".join(files), c
    assert c["json"]["policy_files"] == files and c["json"]["rule"] == "policy"
    assert out["log"] == [], out["log"]

    control = case.library(case.doc(gate()), BELOW, policy=case.no_policy)["checks"][0]
    assert (control["managed"], control["policy_files"], control["json"]["policy_files"]) == (False, [], []), control
    assert control["raw_policy_files"] == "", control  # an empty list is "", not NULL


# --- in_place_updates: false ------------------------------------------------------------------

@pytest.fixture(scope="module")
def appimages(tmp_path_factory):
    if shutil.which("zsyncmake") is None or shutil.which("objcopy") is None:
        pytest.skip("zsync and binutils are installed by scripts/setup")
    from test_appimage_update import World
    world = World(tmp_path_factory.mktemp("policy-appimage"))
    try:
        yield world
    finally:
        world.close()


def place_appimage(case, world) -> tuple[Path, os.stat_result]:
    """v1 in a directory the user owns and may write (so only the policy can keep it from updating)."""
    directory = case.place("apps")
    app = world.place(directory, mode=0o755)
    os.chown(app, NOBODY, NOBODY)
    return app, app.stat()


def assert_untouched(app: Path, before: os.stat_result, world):
    assert app.read_bytes() == world.v1, "the AppImage changed"
    after = app.stat()
    assert (after.st_ino, after.st_mtime_ns, after.st_size) == (before.st_ino, before.st_mtime_ns, before.st_size)
    assert sorted(p.name for p in app.parent.iterdir()) == ["Demo.AppImage"]


def exec_appimage(case, world, app: Path, policy: PolicyTree):
    """exec on a terminal, Enter (Update) at the MANDATORY prompt, as test_appimage_update.py does."""
    from flatpak_world import run_on_terminal
    from test_appimage_update import APP_ID
    env = case.env
    env.script("xdg-open", '#!/bin/sh\necho "$*" >> %s/opened.log\n' % env.root)
    doc = case.doc(world.gate.read_text())
    argv = case.command([case.install.cli, "exec", "--dialog", "terminal", "--source", doc, "--version", "1.0",
                         "--set", "store=flathub", "--set", "app_id=" + APP_ID,
                         "--set", "flathub_endpoint=" + world.base,
                         "--", app, "--flag"], policy=policy)
    env.own()
    output, status = run_on_terminal(argv, env.vars(PATH="%s:/usr/bin:/bin" % env.bin, APPIMAGE=str(app),
                                                    LANG="C.UTF-8"), b"\n", 120)
    opened = (env.root / "opened.log").read_text().split() if (env.root / "opened.log").exists() else []
    return output, status, opened


def test_an_appimage_updates_in_place_without_a_policy(case, appimages):
    """The control: the user, in the namespace, gets v2 by zsync."""
    app, _ = place_appimage(case, appimages)
    before = len(appimages.update_requests())
    output, status, opened = exec_appimage(case, appimages, app, case.no_policy)
    assert "APP VERSION=2.0 args=--flag" in output and status == 0, output
    assert app.read_bytes() == appimages.v2
    assert len(appimages.update_requests()) > before and opened == []


@pytest.mark.parametrize("link", [None, IT_URL])
def test_in_place_updates_false_installs_nothing_and_opens_the_store(case, appimages, link):
    from test_appimage_update import APP_ID
    case.policy.write("policy.json", {"in_place_updates": False, **({"managed_url": link} if link else {})})
    app, stat_before = place_appimage(case, appimages)
    before = len(appimages.update_requests())
    output, status, opened = exec_appimage(case, appimages, app, case.policy)
    assert status == 20, output
    assert "APP VERSION" not in output, output
    assert "the administrator's policy (%s) allows no update in place" % POLICY_JSON in output, output
    assert opened == [link or "appstream:" + APP_ID], (opened, output)
    assert wait_quiet(lambda: len(appimages.update_requests())) == before, appimages.update_requests()[before:]
    assert_untouched(app, stat_before, appimages)


@pytest.mark.parametrize("policy,outcome", [(None, 0), ({"in_place_updates": False}, 3), ({"network": False}, None)],
                         ids=["no policy", "in_place_updates false", "network false"])
def test_the_librarys_update_under_the_policy(case, appimages, policy, outcome):
    """vg_client_update: INSTALLED without a policy; REFUSED (3) naming the
    file with in_place_updates false; with network false no request and
    nothing installed."""
    if policy:
        case.policy.write("policy.json", policy)
    app, stat_before = place_appimage(case, appimages)
    before = len(appimages.update_requests())
    out = case.library(case.doc(appimages.gate.read_text()), "1.0", policy=case.policy if policy else case.no_policy,
                       options={"flathub_endpoint": appimages.base}, update=True, isolate_network=False,
                       APPIMAGE=str(app))
    if policy is None:
        assert out["outcome"] == 0 and app.read_bytes() == appimages.v2, out
        return
    if outcome is not None:
        assert out["outcome"] == outcome, out
        assert out["why"] == "the administrator's policy (%s) allows no update in place" % POLICY_JSON, out
    else:
        assert out["outcome"] != 0, out
    assert wait_quiet(lambda: len(appimages.update_requests())) == before
    assert_untouched(app, stat_before, appimages)


# --- versiongate policy [--check] and explain --------------------------------------------------

FULL = {"mandatory": "warn", "in_place_updates": False, "optional_prompts": False, "managed_message": IT_MESSAGE,
        "managed_url": IT_URL, "network": False, "source": "/srv/example/gate.json",
        "apps": {APP_A: {"mandatory": "enforce", "managed_message": "Alpha: ask IT"}}}


def expect_value(key: str, value) -> str:
    """The VALUE as the spec prints it: mandatory's word, booleans true/false, strings JSON-quoted."""
    if key.split(".")[-1] == "mandatory":
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def parsed_value(key: str, text: str):
    if key.split(".")[-1] == "mandatory" or text in ("true", "false"):
        return text
    return json.loads(text)


def assert_policy_lines(stdout: str, expected: dict[str, tuple[object, str]]):
    lines = policy_lines(stdout)
    got = {key: (parsed_value(key, value), file) for key, value, file in lines}
    assert len(got) == len(lines), "a key printed twice:\n" + stdout
    want = {key: (expect_value(key, value), file) for key, (value, file) in expected.items()}
    assert got == want, stdout


def test_policy_with_no_policy(case):
    for args in (["policy"], ["policy", "--check"]):
        ran = case.run(args)
        assert (ran.code, ran.stdout.splitlines()) == (0, [NO_POLICY_LINE]), ran
        assert ran.stderr == "", ran


def test_policy_prints_every_key_with_its_file(case):
    case.policy.write("policy.json", FULL)
    expected = {k: (v, POLICY_JSON) for k, v in FULL.items() if k != "apps"}
    expected.update({"apps.%s.%s" % (APP_A, k): (v, POLICY_JSON) for k, v in FULL["apps"][APP_A].items()})
    for args in (["policy"], ["policy", "--check"]):
        ran = case.run(args)
        assert ran.code == 0, ran
        assert_policy_lines(ran.stdout, expected)
        assert ran.stderr == "", ran
    printed = {k: v for k, v, _ in policy_lines(case.run(["policy"]).stdout)}
    assert (printed["mandatory"], printed["network"], printed["in_place_updates"]) == ("warn", "false", "false")
    assert printed["managed_message"].startswith('"') and printed["source"].startswith('"'), printed


def test_policy_names_the_file_that_won_each_key(case):
    case.policy.write("policy.json", {"mandatory": "enforce", "network": False})
    case.policy.write("policy.d/50-x.json", WARN)
    case.policy.write("policy.d/10-a.json", {"optional_prompts": False, "mandatory": "enforce"})
    ran = case.run(["policy"])
    assert ran.code == 0, ran
    assert "mandatory = warn (/etc/versiongate/policy.d/50-x.json)" in ran.stdout.splitlines(), ran
    assert_policy_lines(ran.stdout, {"mandatory": ("warn", POLICY_D + "/50-x.json"),
                                     "network": (False, POLICY_JSON),
                                     "optional_prompts": (False, POLICY_D + "/10-a.json")})


def test_policy_for_one_app(case):
    """`versiongate policy` names an app's own keys as apps.ID.KEY."""
    case.policy.write("policy.json", {"mandatory": "enforce", "apps": {APP_A: WARN}})
    ran = case.run(["policy"])
    assert ran.code == 0, ran
    lines = policy_lines(ran.stdout)
    assert ("mandatory", "enforce", POLICY_JSON) in lines, ran
    assert ("apps.%s.mandatory" % APP_A, "warn", POLICY_JSON) in lines, ran


IGNORED_FOR_POLICY = [("malformed JSON", '{"mandatory": ', "not valid JSON"),
                      ("wrong type", {"mandatory": "maybe"}, '"mandatory" must be "enforce" or "warn"'),
                      ("network no", {"network": "no"}, '"network" must be a boolean'),
                      ("10 MiB", '{"mandatory": "warn"' + " " * (10 << 20) + "}", "larger than 65536 bytes")]


@pytest.mark.parametrize("content,why", [(c, w) for _, c, w in IGNORED_FOR_POLICY],
                         ids=[n for n, _, _ in IGNORED_FOR_POLICY])
def test_policy_check_names_an_ignored_file(case, content, why):
    case.policy.write("policy.json", content)
    plain = case.run(["policy"])
    assert (plain.code, plain.stdout.splitlines()) == (0, [NO_POLICY_LINE]), plain
    ignored_warning(plain, POLICY_JSON, why)

    ran = case.run(["policy", "--check"])
    lines = ran.stdout.splitlines()
    assert ran.code == 1, ran
    assert lines[0] == NO_POLICY_LINE and len(lines) == 2, ran
    assert lines[1].startswith("%s: ignored: %s" % (POLICY_JSON, why)), ran


@pytest.mark.parametrize("how", ["owned by the user", "mode 0666", "group-writable policy.d"])
def test_policy_check_names_an_untrusted_file_beside_one_that_counts(case, how):
    file, why = _spoil(case, how)
    good = case.policy.write("policy.d/10-ok.json", {"network": False}) if how != "group-writable policy.d" else None
    if good is None:
        # policy.d is spoiled: the good file is the top one.
        good = case.policy.write("policy.json", {"network": False})
    ran = case.run(["policy", "--check"])
    assert ran.code == 1, ran
    lines = ran.stdout.splitlines()
    assert lines[0] == "network = false (%s)" % good, ran
    assert len(lines) == 2 and lines[1].startswith("%s: ignored: %s" % (file, why)), ran
    plain = case.run(["policy"])
    assert (plain.code, plain.stdout.splitlines()) == (0, lines[:1]), plain


def test_policy_check_reports_an_unknown_key_and_the_file_still_counts(case):
    case.policy.write("policy.json", {"mandatory": "warn", "colour": "blue"})
    ran = case.run(["policy", "--check"])
    assert ran.code == 1, ran
    assert ran.stdout.splitlines() == ["mandatory = warn (%s)" % POLICY_JSON,
                                       '%s: unknown key "colour"' % POLICY_JSON], ran
    plain = case.run(["policy"])
    assert (plain.code, plain.stdout.splitlines()) == (0, ["mandatory = warn (%s)" % POLICY_JSON]), plain
    checked = case.check(case.doc(gate()), BELOW)
    assert (checked.code, checked.json()["policy_files"]) == (10, [POLICY_JSON]), checked


def test_policy_check_is_clean_for_a_good_layered_policy(case):
    case.policy.write("policy.json", WARN)
    case.policy.write("policy.d/50-x.json", {"managed_url": IT_URL})
    ran = case.run(["policy", "--check"])
    assert ran.code == 0, ran
    assert_policy_lines(ran.stdout, {"mandatory": ("warn", POLICY_JSON),
                                     "managed_url": (IT_URL, POLICY_D + "/50-x.json")})


def test_explain_names_which_file_set_which_key(case):
    case.policy.write("policy.json", {"mandatory": "enforce", "managed_message": "from the top"})
    case.policy.write("policy.d/50-x.json", WARN)
    ran = case.run(["explain", "--source", case.doc(gate()), "--version", BELOW])
    assert ran.code == 0, ran
    lines = ran.stdout.splitlines()
    assert any("mandatory" in line and POLICY_D + "/50-x.json" in line for line in lines), ran.stdout
    assert any("managed_message" in line and POLICY_JSON in line for line in lines), ran.stdout
    assert not any("mandatory" in line and "enforce" in line and POLICY_JSON + ")" in line for line in lines)
