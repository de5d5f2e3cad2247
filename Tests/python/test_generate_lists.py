"""The lists scripts/generate writes (issue 53, item 4): rules, update
outcomes, statuses, event kinds, the decided event's members, channels and the
exported functions. Each is declared once; a name added in one place only (a
generated copy, or the declaration alone) fails --check, naming every file it
did not reach; a run writes it everywhere, and a second run changes nothing.
On a copy of the repository's declarations and generated files (test_generate's
`root` fixture)."""

from __future__ import annotations

import re

import pytest

from test_generate import HEADER, PYTHON, edit, root, run, snapshot  # noqa: F401 (root is a fixture)

GATE_RULE = "Sources/VersionGateCore/Policy/GateRule.swift"
GATE_STATUS = "Sources/VersionGateCore/Policy/Gate.swift"
OUTCOME = "Sources/VersionGateCore/Update/UpdateOutcome.swift"
EVENT_KIND = "Sources/VersionGateCore/Events/EventKind.swift"
EVENTS = "Sources/VersionGate/Events.swift"
SHIM = "Sources/PortalShim/include/portal_shim.h"
LISTS = "Tests/VersionGateTests/DeclaredLists.generated.swift"
EXPORTS = "scripts/exports.map"
SYMBOLS = "debian/libversiongate1.symbols"
API = "docs/api.md"


def differing(stderr: str) -> list[str]:
    """The 'file: what' of each line --check printed."""
    return re.findall(r"differs from its declaration: (.*)", stderr)


@pytest.mark.parametrize("name,what,old,new", [
    (GATE_RULE, "region rules", "    case policy\n", "    case policy\n    case newRule\n"),
    (GATE_RULE, "region rule_names", '        case .policy: return "policy"\n',
     '        case .policy: return "policy"\n        case .newRule: return "new_rule"\n'),
    (HEADER, "region rules", " * END GENERATED rules\n", ' *   "new_rule"  a new rule: OPTIONAL\n * END GENERATED rules\n'),
    (API, "region rules", "<!-- END GENERATED rules -->", "| `new_rule` | OPTIONAL | 1.5 | a new rule |\n"
                                                            "<!-- END GENERATED rules -->"),
    (OUTCOME, "region update_outcomes", "    case verifyFailed = 8\n", "    case verifyFailed = 8\n    case other = 9\n"),
    (OUTCOME, "region update_outcome_names", '        case .verifyFailed: "verify_failed"\n',
     '        case .verifyFailed: "verify_failed"\n        case .other: "other"\n'),
    (SHIM, "region update_outcomes", "    VGP_AFTER_EXIT = 9\n", "    VGP_AFTER_EXIT = 9,\n    VGP_OTHER = 10\n"),
    (PYTHON, "region update_outcomes", "    VERIFY_FAILED = 8\n", "    VERIFY_FAILED = 8\n    OTHER = 9\n"),
    (HEADER, "region update_outcomes", "package's update is not from a trusted repository */\n",
     "package's update is not from a trusted repository */\n    , VG_UPDATE_OTHER = 9\n"),
    (API, "region update_outcomes", "<!-- END GENERATED update_outcomes -->",
     "| 9 | `VG_UPDATE_OTHER` | `other` | another |\n<!-- END GENERATED update_outcomes -->"),
    (EVENT_KIND, "region events", '    case updateFailed = "update_failed"\n',
     '    case updateFailed = "update_failed"\n    case updateSkipped = "update_skipped"\n'),
    (HEADER, "region events", " * END GENERATED events\n", " *   update_skipped    a new kind\n * END GENERATED events\n"),
    (API, "region events", "<!-- END GENERATED events -->", "| `update_skipped` | 1.5 | a new kind |\n"
                                                              "<!-- END GENERATED events -->"),
    (EVENTS, "region decided", '        "policy_files",\n', '        "policy_files",\n        "proxy",\n'),
    (GATE_STATUS, "region statuses", "    case mandatory = 2\n", "    case mandatory = 2\n    case blocking = 3\n"),
    (PYTHON, "region statuses", "    MANDATORY = 2\n", "    MANDATORY = 2\n    BLOCKING = 3\n"),
    (LISTS, "the whole file", '"flatpak", "package"]', '"flatpak", "package", "winget"]'),
    (EXPORTS, "region exports", "        vg_policy_report;\n", "        vg_policy_report;\n        vg_client_new;\n"),
    (SYMBOLS, "the symbol lines", " vg_strerror@VERSIONGATE_1.0 1.0.0\n",
     " vg_strerror@VERSIONGATE_1.0 1.0.0\n vg_unknown@VERSIONGATE_1.4 1.4.0\n"),
])
def test_a_name_added_to_one_copy_only_fails_check_naming_it(root, name, what, old, new):
    pristine = snapshot(root)
    edit(root / name, old, new)
    edited = snapshot(root)
    done = run(root, "--check")
    assert done.returncode == 1, done.stderr
    assert differing(done.stderr) == ["%s: %s" % (name, what)], done.stderr
    assert snapshot(root) == edited                                   # --check writes nothing
    assert run(root).returncode == 0 and snapshot(root) == pristine   # a run restores it
    done = run(root)
    assert done.returncode == 0 and done.stdout == "" and snapshot(root) == pristine   # idempotent


def append(root, declaration: str, text: str) -> None:
    with (root / "declarations" / declaration).open("a", encoding="utf-8") as file:
        file.write(text)


def check_then_write(root, expected: list[str]) -> None:
    """--check names exactly `expected`; a run writes them; a second run nothing."""
    done = run(root, "--check")
    assert done.returncode == 1
    assert sorted(differing(done.stderr)) == sorted(expected), done.stderr
    assert run(root).returncode == 0
    assert run(root, "--check").returncode == 0
    assert run(root).stdout == ""


def test_a_rule_added_to_the_declaration_only_is_named_in_every_copy(root):
    append(root, "rules.decl", "name: new_rule\nswift: newRule\nstatus: OPTIONAL\nsince: 1.5\n"
                               "means: a rule of this test,\n    on two lines\n\n")
    check_then_write(root, ["%s: region rules" % HEADER, "%s: region rules" % GATE_RULE,
                            "%s: region rule_names" % GATE_RULE, "%s: region rules" % API])
    assert ' *   "new_rule"           a rule of this test,\n *                        on two lines: OPTIONAL (1.5)\n' \
        in (root / HEADER).read_text()
    swift = (root / GATE_RULE).read_text()
    assert "    /// A rule of this test,\n    /// on two lines: OPTIONAL.\n    case newRule\n" in swift
    assert '        case .newRule: return "new_rule"\n' in swift
    assert "| `new_rule` | OPTIONAL | 1.5 | a rule of this test, on two lines |" in (root / API).read_text()


def test_an_outcome_added_to_the_declaration_only_is_named_in_every_copy(root):
    append(root, "update_outcomes.decl", "name: deferred\nvalue: 10\nswift: deferred\nmeans: since 1.5: later\n\n")
    check_then_write(root, ["%s: region update_outcomes" % HEADER, "%s: region update_outcomes" % SHIM,
                            "%s: region update_outcomes" % OUTCOME, "%s: region update_outcome_names" % OUTCOME,
                            "%s: region update_outcomes" % PYTHON, "%s: region update_outcomes" % API])
    assert re.search(r"^    VG_UPDATE_AFTER_EXIT = 9, +/\* since 1\.4", (root / HEADER).read_text(), re.M)
    assert re.search(r"^    VG_UPDATE_DEFERRED = 10 +/\* since 1\.5: later \*/$", (root / HEADER).read_text(), re.M)
    assert "    VGP_AFTER_EXIT = 9,\n    VGP_DEFERRED = 10\n" in (root / SHIM).read_text()
    assert "    /// Since 1.5: later.\n    case deferred = 10\n" in (root / OUTCOME).read_text()
    assert '        case .deferred: "deferred"\n' in (root / OUTCOME).read_text()
    assert "    AFTER_EXIT = 9\n    DEFERRED = 10\n" in (root / PYTHON).read_text()


def test_an_event_kind_and_a_decided_member_reach_every_copy(root):
    append(root, "events.decl", "name: update_skipped\nswift: updateSkipped\nsince: 1.5\n"
                                "summary: the user skipped the update\nmeans: vg_client_report: latest\n\n")
    append(root, "decided.decl", "proxy\n")
    check_then_write(root, ["%s: region events" % HEADER, "%s: region events" % EVENT_KIND,
                            "%s: region events" % API, "%s: region decided" % EVENTS])
    header = (root / HEADER).read_text()
    assert " *   update_skipped    vg_client_report: latest\n" in header
    assert re.search(r"decided +every vg_client_check: status, rule,.*policy_files, proxy \(the", header, re.S)
    assert '    /// The user skipped the update.\n    case updateSkipped = "update_skipped"\n' \
        in (root / EVENT_KIND).read_text()
    assert '        "policy_files",\n        "proxy",\n        // END GENERATED decided' in (root / EVENTS).read_text()


def test_a_channel_reaches_the_result_field_and_the_swift_list(root):
    append(root, "channels.decl", "name: winget\nsince: 1.5\nmeans: the Windows package manager\n\n")
    check_then_write(root, ["%s: region result_fields" % HEADER, "%s: region result_fields" % API,
                            "man/versiongate.1: region result_fields", "%s: region result_fields" % PYTHON,
                            "%s: region channels" % API, "%s: the whole file" % LISTS])
    assert '"apt", "flatpak", "package" or "winget"' in (root / HEADER).read_text()
    assert "| `winget` | 1.5 | the Windows package manager |" in (root / API).read_text()
    assert 'let declaredChannels = ["appstore", "snap", "flathub", "apt", "flatpak", "package", "winget"]' \
        in (root / LISTS).read_text()


def test_a_function_of_a_new_release_gets_its_node_and_symbol_line(root):
    edit(root / HEADER, "\n#ifdef __cplusplus\n}", "\n/* Since 1.6 (symbol version VERSIONGATE_1.6): a test's. */\n"
                                                   "int vg_client_new_thing(vg_client *client);\n\n#ifdef __cplusplus\n}")
    check_then_write(root, ["%s: region exports" % EXPORTS, "%s: the symbol lines" % SYMBOLS])
    assert "VERSIONGATE_1.6 {\n    global:\n        vg_client_new_thing;\n} VERSIONGATE_1.5;\n" \
        in (root / EXPORTS).read_text()
    symbols = (root / SYMBOLS).read_text()
    assert " vg_client_new_thing@VERSIONGATE_1.6 1.6.0\n vg_client_open_url@VERSIONGATE_1.3 1.3.0\n" in symbols
    assert symbols.startswith("libversiongate.so.1 libversiongate1 #MINVER#\n")


def test_the_header_sections_give_each_function_its_release(root):
    """Read from the header as it is: the banners, the "Since" comments over
    a section or a function, and 1.0 where none says otherwise."""
    from test_generate import generator
    releases = dict(generator().exports(root))
    assert releases["vg_client_check"] == "1.0" and releases["vg_lint"] == "1.0"
    assert releases["vg_events_funnel"] == "1.1"
    assert releases["vg_client_get"] == releases["vg_client_restart"] == "1.2"
    assert releases["vg_client_open_url"] == "1.3" and releases["vg_policy_report"] == "1.4"
    assert releases["vg_client_watch"] == releases["vg_client_unwatch"] == "1.5"
    assert releases["vg_result_free"] == "1.0"


@pytest.mark.parametrize("declaration,old,new,message", [
    ("rules.decl", "status: UP_TO_DATE\nsince: 1.0\nmeans: below neither",
     "status: CURRENT\nsince: 1.0\nmeans: below neither", "status 'CURRENT' is not in statuses.decl"),
    ("update_outcomes.decl", "value: 5\n", "value: 15\n", "0, 1, 2, ... in order"),
    ("statuses.decl", "swift: optional\n", "swift: Optional\n", "camelCase"),
    ("decided.decl", "\nmanaged\n", "\nmanagement\n", "not: management"),
    ("result_fields.decl", "text    {statuses}", "text    {states}", "unknown {states}"),
    ("channels.decl", "name: snap\n", "name: appstore\n", "must be unique"),
])
def test_a_bad_list_declaration_stops_it_naming_the_file(root, declaration, old, new, message):
    edit(root / "declarations" / declaration, old, new)
    before = snapshot(root)
    for args in [("--check",), ()]:
        done = run(root, *args)
        assert done.returncode == 1 and declaration in done.stderr and message in done.stderr, done.stderr
    assert snapshot(root) == before
