"""versiongate lint and simulate (before publishing thresholds), running the
real command and library; lint once per problem it must report."""

from __future__ import annotations

import json

import pytest

from cli_helpers import Env, run
from conftest import flat, vg


@pytest.fixture
def env(tmp_path):
    return Env(tmp_path)


def lint(env, path, *platforms):
    args = ["lint", path]
    for platform in platforms:
        args += ["--platform", platform]
    proc = run(args, env.vars())
    return proc.returncode, proc.stdout.decode().splitlines()


@pytest.mark.parametrize("document, expected", [
    ('{"min_required_version_linux": "1.0",\n  "latest_version_linux": }',
     "the document is not valid JSON (unexpected '}' at line 2, column 27)"),
    (flat(min_required="1.0.x"), 'min_required_version_linux "1.0.x" is not a valid version; ignored'),
    (flat(latest="banana"), 'latest_version_linux "banana" is not a valid version; ignored'),
    (flat("2.0", "1.9"), "min_required_version_linux 2.0 is above latest_version_linux 1.9: every user below 2.0 "
                         "is blocked with no newer version to update to"),
    (flat(blocked_versions_linux="1.0.1, one"), 'blocked_versions_linux entry "one" is not a valid version; ignored'),
    (flat(blocked_versions_linux="1.0.41"), "blocked_versions_linux blocks latest_version_linux 1.0.41: users are "
                                            "sent to update to a blocked version"),
    (flat(min_required_version_linux_effective_at="2027-02-30T00:00:00Z"),
     'min_required_version_linux_effective_at "2027-02-30T00:00:00Z" is not an RFC 3339 time; the minimum counts from now'),
    (flat(latest_version_linux_rollout_percent="101"),
     'latest_version_linux_rollout_percent "101" is not a whole number 0-100; 100 used'),
    (flat(update_message="x" * 1025), "update_message is 1025 bytes; only the first 1024 are shown"),
    (flat(update_message="Update\u202e now"), "update_message has 1 control or bidi override character(s); "
                                              "they are removed before it is shown"),
    (flat(update_url_linux="https://evil.example/app"),
     'update_url_linux "https://evil.example/app" is refused by the default URL policy: host evil.example is not allowed'),
    (flat(update_message_de="x" * 2000), "update_message_de is 2000 bytes; only the first 1024 are shown"),
    (flat(latest_version_linux_requires="glibc>>2, arch=x86_64"),
     'latest_version_linux_requires clause "glibc>>2" compares with ">2", not a valid version; ignored'),
    (flat(min_required_version_linux_requires="kernel>=6.1, libc>=2"),
     'min_required_version_linux_requires clause "libc>=2" names libc, not one of glibc, kernel, arch, os, '
     'os_version; ignored'),
    (flat(latest_version_linux_require="glibc>=2.31"),
     'unknown key "latest_version_linux_require": did you mean "latest_version_linux_requires"?'),
    (flat(min_requried_version_linux="1.0"),
     'unknown key "min_requried_version_linux": did you mean "min_required_version_linux"?'),
    (flat(latest_version_linux_rolout_percent="5"),
     'unknown key "latest_version_linux_rolout_percent": did you mean "latest_version_linux_rollout_percent"?'),
    (flat(strict_min_required_linux="yes"), 'strict_min_required_linux "yes" is neither true nor false; true used'),
    (flat(strict_min_requird_linux="true"),
     'unknown key "strict_min_requird_linux": did you mean "strict_min_required_linux"?'),
])
def test_lint_reports_each_problem(env, write_doc, document, expected):
    code, lines = lint(env, write_doc(document))
    assert code == 1 and lines == [expected], lines
    assert vg.lint(write_doc(document)) == [expected]    # the same through the binding


def test_a_clean_document_and_a_template_export(env, write_doc):
    assert lint(env, write_doc(flat(update_url_linux="https://flathub.org/apps/org.example.App",
                                    my_own_feature_flag="true", update_message_pt_BR="Olá",
                                    strict_min_required_linux="true"))) == (0, [])
    template = {"parameters": {
        "min_required_version_linux": {"defaultValue": {"value": "1.0"}},
        "latest_version_linux": {"defaultValue": {"value": "0.9"}},
        "min_required_version_ios": {"defaultValue": {"value": "3.x"}},
        "latest_verison_ios": {"defaultValue": {"value": "3.0"}},
    }, "version": {"versionNumber": "7"}}
    code, lines = lint(env, write_doc(json.dumps(template)), "linux", "ios")
    assert code == 1
    assert lines == [
        "min_required_version_linux 1.0 is above latest_version_linux 0.9: every user below 1.0 is blocked with no "
        "newer version to update to",
        'min_required_version_ios "3.x" is not a valid version; ignored',
        'unknown key "latest_verison_ios": did you mean "latest_version_ios"?',
    ]


def test_lint_usage(env, tmp_path):
    assert run(["lint"], env.vars()).returncode == 2
    assert run(["lint", "a.json", "b.json"], env.vars()).returncode == 2
    assert run(["lint", tmp_path / "x.json", "--platform", "Linux!"], env.vars()).returncode == 2
    code, lines = lint(env, tmp_path / "missing.json")
    assert code == 1 and "missing.json" in lines[0]


def test_simulate_against_a_hand_computed_table(env, write_doc, tmp_path):
    """min 1.0.39, latest 1.0.41, 1.0.20 blocked... by hand:
        1.0.20 x 50   blocked -> mandatory            (even though also below min)
        1.0.38 x 100  below min -> mandatory
        1.0.40 x 300  below latest, rollout 40 % -> 120 optional, 180 up to date
        1.0.41 x 500  up to date
        2.0    x 50   up to date
    mandatory 150 (15.0 %), optional 120 (12.0 %), up_to_date 730 (73.0 %) of 1,000."""
    src = write_doc(flat(blocked_versions_linux="1.0.20", latest_version_linux_rollout_percent="40"))
    base = tmp_path / "base.txt"
    base.write_text("# version count\n1.0.20 50\n1.0.38 100\n\n1.0.40 300\n1.0.41 500\n2.0 50\n")
    proc = run(["simulate", "--source", src, "--versions", base], env.vars())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().splitlines() == ["mandatory 150 15.0%", "optional 120 12.0%", "up_to_date 730 73.0%"]
    assert not list(env.state.glob("versiongate/prompted-*")) and not list(env.runtime.glob("versiongate/*"))


def test_simulate_usage(env, write_doc, tmp_path):
    src = write_doc(flat())
    bad = tmp_path / "bad.txt"
    bad.write_text("1.0.40 many\n")
    proc = run(["simulate", "--source", src, "--versions", bad], env.vars())
    assert proc.returncode == 2 and b"line 1: expected VERSION COUNT" in proc.stderr
    assert run(["simulate", "--source", src], env.vars()).returncode == 2
    assert run(["simulate", "--source", src, "--versions", tmp_path / "none.txt"], env.vars()).returncode == 2
