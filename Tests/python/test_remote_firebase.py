"""Firebase Remote Config end to end: the real libversiongate.so, a loopback
server speaking the recorded wire formats (Tests/Server/firebase_routes.py),
real cache and state files. Time moves by freezing the process's wall clock
with libfaketime (remote_helpers.check, fake_clock.py), never by sleeping.
"""

import json
import os
import re
from pathlib import Path

import pytest

from remote_helpers import DAY, HOUR, REPO, T0, check, server_fixture  # noqa: F401  (the server fixture)

FIXTURES = Path(os.environ.get("VG_FIXTURES", REPO / "Tests" / "Fixtures"))

APP_ID = "1:123456789012:web:0a1b2c3d4e5f60718293a4"
FID = re.compile(r"^[cdef][A-Za-z0-9_-]{21}$")


@pytest.fixture
def xdg(tmp_path, monkeypatch):
    for name in ("cache", "state", "home"):
        (tmp_path / name).mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    monkeypatch.setenv("TZ", "Europe/Berlin")
    return tmp_path


def control(server, **spec):
    status, body = server._call("POST", "/__firebase", json.dumps(spec).encode())
    assert status == 200, body
    return json.loads(body)


def firebase_check(server, version, now, **options):
    base = "http://127.0.0.1:%d" % server.port
    return check("firebase://demo-proj?api_key=test-api-key&app_id=" + APP_ID, version, now=now,
                 firebase_endpoint=base, firebase_installations_endpoint=base,
                 package_name="com.example.launcher", **options)


def requests(server, kind):
    paths = {"fetch": ":fetch", "register": "/installations", "token": "authTokens:generate"}
    return [r for r in server.requests() if r["path"].split("?")[0].endswith(paths[kind])]


def template(min_required, latest, version):
    return {"entries": {"min_required_version_linux": min_required, "latest_version_linux": latest},
            "templateVersion": version}


def test_first_fetch_registers_then_sends_the_sdk_body_and_token(server, xdg):
    control(server, template=template("2.1.0", "2.4.1", "42"))
    result = firebase_check(server, "2.0.0", T0)
    assert (result["status"], result["origin"], result["error"]) == ("MANDATORY", "fresh_fetch", 0)
    assert result["template_version"] == 42

    [register] = requests(server, "register")
    [fetch] = requests(server, "fetch")
    fid = json.loads(register["body"])["fid"]
    assert FID.match(fid)
    assert "key=test-api-key" in fetch["path"]
    body = json.loads(fetch["body"])
    assert body["appInstanceId"] == fid
    assert body["appId"] == APP_ID
    assert body["appVersion"] == "2.0.0"
    assert body["packageName"] == "com.example.launcher"
    assert body["languageCode"] == "de-DE"
    assert body["countryCode"] == "DE"
    assert body["timeZone"] == "Europe/Berlin"
    assert body["sdkVersion"] and body["platformVersion"]
    token = fetch["headers"].get("x-goog-firebase-installations-auth")
    assert token and body["appInstanceIdToken"] == token
    assert "if-none-match" not in fetch["headers"]


def test_restart_reuses_installation_revalidates_and_follows_changes(server, xdg):
    control(server, template=template("2.1.0", "2.4.1", "42"))
    assert firebase_check(server, "2.2.0", T0)["status"] == "OPTIONAL"

    # Within cache_ttl_s: no request at all.
    within = firebase_check(server, "2.2.0", T0 + 30 * 60)
    assert (within["status"], within["origin"]) == ("OPTIONAL", "cache_hit")
    assert len(requests(server, "fetch")) == 1

    # After it: the same installation and token, If-None-Match, NO_CHANGE keeps the thresholds.
    later = firebase_check(server, "2.2.0", T0 + 2 * HOUR)
    assert (later["status"], later["origin"], later["config_age_s"]) == ("OPTIONAL", "fresh_fetch", 0)
    fetches = requests(server, "fetch")
    assert len(fetches) == 2 and len(requests(server, "register")) == 1
    assert fetches[1]["headers"].get("if-none-match")
    assert fetches[1]["headers"]["x-goog-firebase-installations-auth"] == \
        fetches[0]["headers"]["x-goog-firebase-installations-auth"]

    # The operator raises the minimum: the next due fetch obeys it.
    control(server, template=template("2.3.0", "2.4.1", "43"))
    raised = firebase_check(server, "2.2.0", T0 + 4 * HOUR)
    assert (raised["status"], raised["template_version"]) == ("MANDATORY", 43)


@pytest.mark.parametrize("state", ["EMPTY_CONFIG", "NO_TEMPLATE"])
def test_no_config_states_mean_no_thresholds(server, xdg, state):
    control(server, next=[{"state": state}])
    result = firebase_check(server, "0.0.1", T0)
    assert (result["status"], result["error"], result["origin"]) == ("UP_TO_DATE", 0, "fresh_fetch")


@pytest.mark.parametrize("fixture,throttled", [
    ("errors/rc_400_api_key_invalid.json", False),
    ("errors/rc_403_permission_denied.json", False),
    ("errors/rc_429_resource_exhausted.json", True),
    ("errors/rc_500_internal.json", True),
    ("errors/rc_503_unavailable.json", True),
])
def test_error_fixtures_fail_open_and_throttle_where_due(server, xdg, fixture, throttled):
    status = int(re.search(r"rc_(\d+)_", fixture).group(1))
    control(server, next=[{"status": status, "body_fixture": fixture}])
    result = firebase_check(server, "0.0.1", T0)
    assert (result["status"], result["error_name"]) == ("UP_TO_DATE", "VG_EHTTP")
    google = json.loads((FIXTURES / fixture).read_text())["error"]["message"]
    assert google[:40] in result["error_message"]

    # An immediate recheck: no request while backing off, for the throttling statuses only.
    again = firebase_check(server, "0.0.1", T0 + 1)
    fetches = len(requests(server, "fetch"))
    if throttled:
        assert (fetches, again["error_name"]) == (1, "VG_EBACKOFF")
    else:
        assert (fetches, again["error_name"]) == (2, "VG_OK")


def test_instance_state_unspecified_is_an_error(server, xdg):
    control(server, next=[{"state": "INSTANCE_STATE_UNSPECIFIED"}])
    result = firebase_check(server, "0.0.1", T0)
    assert result["status"] == "UP_TO_DATE" and result["error"] != 0
    assert "INSTANCE_STATE_UNSPECIFIED" in result["error_message"]


def test_installations_down_still_fetches_without_token(server, xdg):
    control(server, fis={"fail": True}, template=template("2.1.0", "2.4.1", "42"))
    result = firebase_check(server, "2.0.0", T0)
    assert (result["status"], result["error"]) == ("MANDATORY", 0)
    assert "Installations" in (result["note"] or "")
    [fetch] = requests(server, "fetch")
    assert "x-goog-firebase-installations-auth" not in fetch["headers"]


def test_rollback_to_an_older_template_is_rejected(server, xdg):
    control(server, template=template("2.1.0", "2.4.1", "42"))
    assert firebase_check(server, "2.0.0", T0)["status"] == "MANDATORY"
    control(server, template=template("1.0.0", "1.0.0", "41"))
    result = firebase_check(server, "2.0.0", T0 + 2 * HOUR)
    assert (result["status"], result["template_version"], result["origin"]) == ("MANDATORY", 42, "cache_after_error")
    assert "41" in result["fetch_error_message"] and "42" in result["fetch_error_message"]


def test_server_down_keeps_a_recent_cache_and_drops_an_old_one(server, xdg):
    control(server, template=template("2.1.0", "2.4.1", "42"))
    assert firebase_check(server, "2.0.0", T0)["status"] == "MANDATORY"
    server.stop()
    recent = firebase_check(server, "2.0.0", T0 + 2 * HOUR)
    assert (recent["status"], recent["origin"], recent["error"]) == ("MANDATORY", "cache_after_error", 0)
    assert recent["fetch_error"] == -6 and recent["fetch_error_message"]
    old = firebase_check(server, "2.0.0", T0 + 2 * DAY)
    assert (old["status"], old["origin"]) == ("UP_TO_DATE", "none")
    assert old["error_name"] == "VG_ENETWORK"


# Issue 16: Remote Config parameters update_message_<lang>, chosen by the
# same chain as the built-in texts (the locale option, else LANGUAGE, else
# LC_ALL/LC_MESSAGES/LANG), then update_message, then the built-in text.
@pytest.mark.parametrize("env,options,expected", [
    ({"LANG": "pt_BR.UTF-8"}, {}, "Mensagem para o Brasil"),
    ({"LANG": "pt_PT.UTF-8"}, {}, "Mensagem para Portugal"),
    ({"LANGUAGE": "xx:de_CH", "LANG": "fr_FR.UTF-8"}, {}, "Nachricht auf Deutsch"),
    ({"LANG": "fr_FR.UTF-8"}, {}, "Generic message"),
    ({"LANG": "fr_FR.UTF-8"}, {"locale": "pt_BR"}, "Mensagem para o Brasil"),
    ({"LANGUAGE": "de", "LC_ALL": "C"}, {}, "Generic message"),
])
def test_per_language_update_message_parameters(server, xdg, monkeypatch, env, options, expected):
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    entries = template("2.1.0", "2.4.1", "42")
    entries["entries"].update({"update_message": "Generic message", "update_message_pt_BR": "Mensagem para o Brasil",
                               "update_message_pt": "Mensagem para Portugal", "update_message_de": "Nachricht auf Deutsch"})
    control(server, template=entries)
    result = firebase_check(server, "2.0.0", T0, **options)
    assert (result["status"], result["message"]) == ("MANDATORY", expected)


def test_per_language_update_message_parameters_fall_back_to_built_in(server, xdg):
    control(server, template={"entries": {"min_required_version_linux": "2.1.0", "update_message_fr": "Message"},
                              "templateVersion": "42"})
    result = firebase_check(server, "2.0.0", T0)  # LANG=de_DE.UTF-8 (the xdg fixture)
    assert (result["status"], result["locale"]) == ("MANDATORY", "de")
    assert result["message"] == "Diese Version wird nicht mehr unterstützt. Bitte aktualisieren Sie die App, um fortzufahren."
