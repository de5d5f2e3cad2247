"""One decision, told the same way by every door (issue 21): for each rule,
the result JSON, vg_result_rule and vg_result_get (raw ctypes), the Python
binding, `versiongate check --json`, `explain` and `exec` agree on the
status, the rule and the reason, and the reason is true (written out here
by hand for each case).

Every door of a case runs with the same XDG directories, so the staged
rollout places the same installation id in the same bucket.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import Env, run
from conftest import BINDING_DIR, LIB_PATH

GRACE_AT = "2099-01-01T00:00:00Z"
BASE = {"min_required_version_linux": "1.0.30", "latest_version_linux": "1.0.41"}

#: name: (document or None for a missing file, version, status, rule, reason or a regex for it)
CASES = {
    "blocked": ({**BASE, "blocked_versions_linux": "1.0.40"}, "1.0.40", "MANDATORY", "blocked",
                "1.0.40 is in blocked_versions_linux"),
    "grace_period": ({**BASE, "min_required_version_linux_effective_at": GRACE_AT}, "1.0.20", "OPTIONAL",
                     "grace_period", "1.0.20 is below min_required_version_linux 1.0.30, required from " + GRACE_AT),
    "below_minimum": (BASE, "1.0.20", "MANDATORY", "below_minimum",
                      "1.0.20 is below min_required_version_linux 1.0.30"),
    "below_latest": (BASE, "1.0.35", "OPTIONAL", "below_latest", "1.0.35 is below latest_version_linux 1.0.41"),
    "outside_rollout": ({**BASE, "latest_version_linux_rollout_percent": "0"}, "1.0.35", "UP_TO_DATE",
                        "outside_rollout",
                        re.compile(r"1\.0\.35 is below latest_version_linux 1\.0\.41, outside its staged rollout "
                                   r"\(bucket (\d+), shown below 0\)")),
    "up_to_date": (BASE, "1.0.41", "UP_TO_DATE", "up_to_date",
                   "1.0.41 is not below min_required_version_linux 1.0.30 or latest_version_linux 1.0.41"),
    "requirements_unmet": ({**BASE, "latest_version_linux_requires": "arch=x86_64|aarch64, glibc>=99"}, "1.0.35",
                           "UP_TO_DATE", "requirements_unmet",
                           re.compile(r"1\.0\.35 is below latest_version_linux 1\.0\.41, but this system does not meet "
                                      r"its requirement glibc>=99 \(glibc 2\.\d+\)")),
    "missing_document": (None, "1.0.20", "UP_TO_DATE", "fail_open", re.compile(r".*gate\.json.*")),
    "invalid_version": (BASE, "1.0.x", "UP_TO_DATE", "fail_open", 'current version "1.0.x" is not a valid version'),
}

#: The ABI through raw ctypes and the binding, in one child with the case's environment.
CHILD = r"""
import ctypes, json, sys
import versiongate as vg
source, version = sys.argv[1], sys.argv[2]
lib = ctypes.CDLL(vg.LIBRARY_PATH)
for name, args in (("vg_result_rule", [ctypes.c_void_p]), ("vg_result_get", [ctypes.c_void_p, ctypes.c_char_p]),
                   ("vg_result_json", [ctypes.c_void_p])):
    getattr(lib, name).restype = ctypes.c_char_p
    getattr(lib, name).argtypes = args
with vg.Client(source=source) as client, client.check(version) as r:
    handle = r._h()
    document = json.loads(lib.vg_result_json(handle))
    got = {key: lib.vg_result_get(handle, key.encode()) for key in document}
    print(json.dumps({
        "json": document,
        "get": {k: None if v is None else v.decode() for k, v in got.items()},
        "abi_rule": lib.vg_result_rule(handle).decode(),
        "python": {"status": r.status.name, "rule": r.rule, "reason": r.reason,
                   "rollout_bucket": r.rollout_bucket},
    }))
"""


def reason_matches(expected, reason: str) -> bool:
    return bool(expected.fullmatch(reason)) if isinstance(expected, re.Pattern) else reason == expected


@pytest.fixture
def env(tmp_path):
    return Env(tmp_path)


def source_for(env: Env, document) -> Path:
    path = env.root / "doc" / "gate.json"
    path.parent.mkdir(exist_ok=True)
    if document is not None:
        path.write_text(json.dumps(document))
    return path


def library_doors(env: Env, source: Path, version: str) -> dict:
    variables = env.vars(PYTHONPATH=str(BINDING_DIR), VERSIONGATE_LIBRARY=os.path.abspath(LIB_PATH),
                         PATH=os.environ.get("PATH", "/usr/bin:/bin"))
    done = subprocess.run([sys.executable, "-c", CHILD, str(source), version], env=variables, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def explain_fields(output: str) -> dict:
    """`status:`, `rule:` and `reason:` of explain's Decision section."""
    section = output.split("3. Decision\n", 1)[1].split("\n4.", 1)[0]
    fields = {}
    for line in section.splitlines():
        label, _, value = line.strip().partition(":")
        fields[label] = value.strip()
    return fields


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_door_tells_the_same_decision(case, env):
    document, version, status, rule, reason = CASES[case]
    source = source_for(env, document)
    doors = library_doors(env, source, version)

    decided = doors["json"]
    assert (decided["status"], decided["rule"]) == (status, rule), decided
    assert reason_matches(reason, decided["reason"]), decided["reason"]
    if rule == "outside_rollout":
        bucket = int(reason.fullmatch(decided["reason"]).group(1))
        assert decided["rollout_bucket"] == bucket and decided["rollout_percent"] == 0
    assert doors["abi_rule"] == rule
    assert (doors["get"]["status"], doors["get"]["rule"], doors["get"]["reason"]) == (status, rule, decided["reason"])
    assert doors["python"] == {"status": status, "rule": rule, "reason": decided["reason"],
                               "rollout_bucket": decided["rollout_bucket"]}

    checked = run(["check", "--source", source, "--version", version, "--json"], env.vars())
    from_cli = json.loads(checked.stdout)
    assert (from_cli["status"], from_cli["rule"], from_cli["reason"]) == (status, rule, decided["reason"])
    assert checked.returncode == {"MANDATORY": 20, "OPTIONAL": 10, "UP_TO_DATE": 0}[status]

    explained = run(["explain", "--source", source, "--version", version], env.vars())
    assert explained.returncode == 0, explained.stderr
    assert explain_fields(explained.stdout.decode()) == {"status": status, "rule": rule, "reason": decided["reason"]}

    env.fake("app")
    executed = run(["exec", "--source", source, "--version", version, "--dialog", "none", "--", "app", "--started"],
                   env.vars())
    if status == "MANDATORY":
        assert executed.returncode == 20 and env.calls("app") == []
        assert ("versiongate: app not started: %s (%s)\n" % (decided["reason"], rule)) in executed.stderr.decode()
    else:
        assert executed.returncode == 0 and env.calls("app") == [["--started"]], executed.stderr
