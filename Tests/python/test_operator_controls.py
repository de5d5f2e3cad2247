"""The operator's controls beyond two thresholds, through the real library:
a kill switch (blocked_versions_<platform>), a grace period before a new
minimum blocks (min_required_version_<platform>_effective_at) and a staged
OPTIONAL prompt (latest_version_<platform>_rollout_percent).
"""

from __future__ import annotations

import json
import os
import random
import stat

import pytest

import fake_clock
from conftest import MANDATORY, OPTIONAL, UP_TO_DATE, VG_ECONFIG, VG_OK, flat, vg

DAY = 86400
EFFECTIVE = "2027-03-01T00:00:00Z"
EFFECTIVE_S = 1803859200          # date -u -d 2027-03-01 +%s


def decide(source, version, **options):
    with vg.Client(source=str(source), session_scope="process", **options) as client, client.check(version) as r:
        return r.status, r.error, json.loads(r.json_text)


# -- kill switch ----------------------------------------------------------------

def test_a_blocked_version_is_mandatory_whatever_the_minimum(write_doc):
    src = write_doc(flat("1.0.0", "2.0", blocked_versions_linux=" 1.6 ,1.0.40"))
    status, error, js = decide(src, "1.6.0")              # 1.6 blocks 1.6.0: the version grammar compares
    assert (status, error) == (MANDATORY, VG_OK)
    assert (js["rule"], js["reason"]) == ("blocked", "1.6.0 is in blocked_versions_linux")
    assert js["blocked_versions"] == "1.6,1.0.40"
    assert decide(src, "1.0.40")[0] == MANDATORY
    assert decide(src, "1.6.1")[0] == OPTIONAL           # not listed: the thresholds decide
    assert decide(src, "2.0")[0] == UP_TO_DATE
    assert decide(write_doc(flat(blocked_versions_ios="1.0.40")), "1.0.40")[0] == OPTIONAL   # another platform's list


def test_invalid_blocked_entries_are_ignored_and_reported(write_doc):
    src = write_doc(flat("1.0.0", "2.0", blocked_versions_linux="1.5, banana,,1.7"))
    status, error, js = decide(src, "1.7")
    assert (status, error) == (MANDATORY, VG_ECONFIG)
    assert '"banana" is not a valid version' in js["error_message"]
    assert 'entry "" is not a valid version' in js["error_message"]
    assert decide(src, "1.6")[0] == OPTIONAL


# -- grace period ----------------------------------------------------------------

@pytest.mark.parametrize("locale, date", [
    ("en_US.UTF-8", "March 1, 2027"), ("de_DE.UTF-8", "1. März 2027"), ("fr_FR.UTF-8", "1er mars 2027"),
    ("es_ES.UTF-8", "1 de marzo de 2027"), ("pt_BR.UTF-8", "1º de março de 2027"),
])
def test_before_the_date_a_new_minimum_is_optional_with_the_date(write_doc, monkeypatch, locale, date):
    monkeypatch.setenv("TZ", "UTC")
    src = write_doc(flat(min_required_version_linux_effective_at=EFFECTIVE))
    with fake_clock.clock().frozen_at(EFFECTIVE_S - DAY):
        with vg.Client(source=str(src), session_scope="process", locale=locale) as c, c.check("1.0.38") as r:
            assert (r.status, r.should_prompt, r.error) == (OPTIONAL, True, VG_OK)
            assert date in r.message
            assert (r.rule, r.reason) == ("grace_period", "1.0.38 is below min_required_version_linux 1.0.39, "
                                                          "required from 2027-03-01T00:00:00Z")
            assert r.min_required_effective_at == "2027-03-01T00:00:00Z"
    with fake_clock.clock().frozen_at(EFFECTIVE_S):
        assert decide(src, "1.0.38")[0] == MANDATORY
    with fake_clock.clock().frozen_at(EFFECTIVE_S - DAY):
        assert decide(src, "1.0.40")[0] == OPTIONAL       # above the minimum: an ordinary OPTIONAL
        assert decide(src, "1.0.41")[0] == UP_TO_DATE


def test_the_date_is_the_users_local_date_and_follows_the_operators_message(write_doc, monkeypatch):
    """23:30 UTC on Feb 28 is already March 1 in Berlin."""
    src = write_doc(flat(update_message="Version 2 is here.", min_required_version_linux_effective_at="2027-02-28T23:30:00Z"))
    monkeypatch.setenv("TZ", "Europe/Berlin")
    with fake_clock.clock().frozen_at(EFFECTIVE_S - 10 * DAY):
        with vg.Client(source=str(src), session_scope="process", locale="en") as c, c.check("1.0.38") as r:
            assert r.message == "Version 2 is here. This version will stop working on March 1, 2027. Please update before then."


def test_an_unparsable_date_blocks_now_and_is_reported(write_doc):
    src = write_doc(flat(min_required_version_linux_effective_at="next tuesday"))
    status, error, js = decide(src, "1.0.38")
    assert (status, error) == (MANDATORY, VG_ECONFIG)
    assert "is not an RFC 3339 time; the minimum counts from now" in js["error_message"]


@pytest.mark.parametrize("text", ["2027-03-01", "2027-02-30T00:00:00Z", "2027-03-01T24:00:00Z", "2027-03-01T00:00:00",
                                  "2027-03-01T00:00:00+2:00", "2027-03-01T00:00:00.Z"])
def test_malformed_rfc3339_times_count_from_now(write_doc, text):
    assert decide(write_doc(flat(min_required_version_linux_effective_at=text)), "1.0.38")[:2] == (MANDATORY, VG_ECONFIG)


def test_offsets_and_fractions_are_understood(write_doc):
    src = write_doc(flat(min_required_version_linux_effective_at="2027-03-01T01:00:00.250+01:00"))
    with fake_clock.clock().frozen_at(EFFECTIVE_S - 1):
        assert decide(src, "1.0.38")[0] == OPTIONAL
    with fake_clock.clock().frozen_at(EFFECTIVE_S):
        assert decide(src, "1.0.38")[0] == MANDATORY


# -- staged rollout ----------------------------------------------------------------

def fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def bucket(installation_id: str, latest: str) -> int:
    """The bucket as docs/operators.md ("A staged prompt") and docs/design.md document it."""
    return fnv1a64(installation_id.encode() + b"\n" + latest.encode()) % 100


def test_a_rollout_over_2000_installations(write_doc, tmp_path, monkeypatch):
    """Each installation (its own state directory holding its id) gets
    OPTIONAL exactly when its documented bucket is below the percent: the
    share is within 3 points of it, and every answer is the same on a
    second run."""
    src = write_doc(flat(latest_version_linux_rollout_percent="30"))
    draw = random.Random(2026)     # fixed ids: the share is reproducible, not a coin toss per run
    ids = ["%032x" % draw.getrandbits(128) for _ in range(2000)]
    answers = []
    for run in range(2):
        seen = []
        for n, installation in enumerate(ids):
            state = tmp_path / ("state-%d" % n)
            (state / "versiongate").mkdir(parents=True, mode=0o700, exist_ok=True)
            (state / "versiongate" / "installation-id").write_text(installation + "\n")
            monkeypatch.setenv("XDG_STATE_HOME", str(state))
            status, error, js = decide(src, "1.0.40")
            assert error == VG_OK, js
            seen.append(status)
            assert (status == OPTIONAL) == (bucket(installation, "1.0.41") < 30), (installation, js)
            assert js["rollout_bucket"] == bucket(installation, "1.0.41"), js
            if status == UP_TO_DATE:
                assert js["rule"] == "outside_rollout" and "outside its staged rollout" in js["reason"], js
        answers.append(seen)
    assert answers[0] == answers[1]
    share = answers[0].count(OPTIONAL) / len(ids) * 100
    assert abs(share - 30) <= 3, share          # 28.55 % for these ids


def test_the_installation_id_is_made_once_private(write_doc, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    src = write_doc(flat(latest_version_linux_rollout_percent="50"))
    first = decide(src, "1.0.40")[0]
    path = tmp_path / "state" / "versiongate" / "installation-id"
    made = path.read_text().strip()
    assert len(made) == 32 and int(made, 16) >= 0
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert (first == OPTIONAL) == (bucket(made, "1.0.41") < 50)
    for _ in range(5):
        assert decide(src, "1.0.40")[0] == first
    assert path.read_text().strip() == made


def test_mandatory_is_never_staged_and_edges(write_doc, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    nobody = write_doc(flat(latest_version_linux_rollout_percent="0"))
    assert decide(nobody, "1.0.38")[0] == MANDATORY
    assert decide(nobody, "1.0.40")[0] == UP_TO_DATE
    everybody = write_doc(flat(latest_version_linux_rollout_percent="100"))
    assert decide(everybody, "1.0.40")[0] == OPTIONAL
    status, error, js = decide(write_doc(flat(latest_version_linux_rollout_percent="150")), "1.0.40")
    assert (status, error) == (OPTIONAL, VG_ECONFIG) and "not a whole number 0-100; 100 used" in js["error_message"]


def test_without_a_state_directory_a_staged_prompt_is_not_shown(write_doc, monkeypatch):
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.delenv("HOME", raising=False)
    status, error, js = decide(write_doc(flat(latest_version_linux_rollout_percent="99")), "1.0.40")
    assert (status, error) == (UP_TO_DATE, VG_OK)
    assert js["rule"] == "outside_rollout" and "no installation id" in js["reason"], js
