"""The installed version read from the system (option installed_version_from,
`--version-from`): AppStream metainfo through the real libexpat, a version
file, through the ABI (Python's Client.check() with no version) and the
command. docs/design.md, "The installed version"."""

from __future__ import annotations

import json
import os

import pytest

from cli_helpers import Env, run
from conftest import MANDATORY, UP_TO_DATE, VG_EINVAL, VG_OK, flat, vg

APP = "org.example.App"
EINSTALLED = -16


def metainfo(releases: str) -> str:
    return (f'<?xml version="1.0"?>\n<component type="desktop-application"><id>{APP}</id>'
            f"<releases>{releases}</releases></component>\n")


@pytest.fixture
def system(tmp_path, monkeypatch):
    """A data directory (XDG_DATA_DIRS) and a gate document: minimum 1.0.40."""
    share = tmp_path / "share"
    (share / "metainfo").mkdir(parents=True)
    monkeypatch.setenv("XDG_DATA_DIRS", str(share))
    gate = tmp_path / "gate.json"
    gate.write_text(json.dumps(flat(min_required="1.0.40", latest="1.0.41")))
    return share / "metainfo" / f"{APP}.metainfo.xml", gate


def test_the_abi_reads_the_greatest_stable_release(system):
    path, gate = system
    path.write_text(metainfo('<release version="1.0.41"/><release version="1.0.39"/>'
                             '<release version="2.0.0-rc.1" type="development"/>'))
    with vg.Client(source=str(gate), session_scope="process", installed_version_from=f"appstream:{APP}") as client:
        result = client.check()
        assert (result.status, result.error, result.get("current")) == (UP_TO_DATE, VG_OK, "1.0.41")
        # The file is read at each check: an upgrade (or a downgrade) is seen at once.
        path.write_text(metainfo('<release version="1.0.39"/>'))
        assert (client.check().status, client.check().get("current")) == (MANDATORY, "1.0.39")


def test_appstream_without_an_id_takes_app_id(system):
    path, gate = system
    path.write_text(metainfo('<release version="1.0.&#52;1"/>'))
    with vg.Client(source=str(gate), session_scope="process", installed_version_from="appstream") as client:
        result = client.check()
        assert (result.status, result.error) == (UP_TO_DATE, VG_EINVAL)
        assert "appstream:ID or the app_id option" in result.error_message
        client.set("app_id", APP)
        assert client.check().get("current") == "1.0.41", "the character reference is decoded"


@pytest.mark.parametrize("body, why", [
    (None, "no AppStream metainfo for org.example.App"),
    ('<?xml version="1.0"?>\n<component><releases><release version="1.0.41"/>', "line "),
    (metainfo('<release version="3.0" type="development"/>'), "no stable release"),
    ('<!DOCTYPE c [<!ENTITY v "1.0.41">]><component><releases><release version="&v;"/></releases></component>',
     "declares an entity; refused"),
])
def test_a_metainfo_that_cannot_say_fails_open_naming_the_file(system, body, why):
    path, gate = system
    if body is not None:
        path.write_text(body)
    with vg.Client(source=str(gate), session_scope="process", installed_version_from=f"appstream:{APP}") as client:
        result = client.check()
    assert (result.status, result.error) == (UP_TO_DATE, EINSTALLED), "fails open, never MANDATORY"
    assert why in result.error_message
    if body is not None:
        assert str(path) in result.error_message


def test_a_version_file_first_line(system, tmp_path):
    _, gate = system
    version = tmp_path / "VERSION"
    version.write_text("1.0.39\nbuilt by ci\n")
    with vg.Client(source=str(gate), session_scope="process", installed_version_from=f"file:{version}") as client:
        assert (client.check().status, client.check().get("current")) == (MANDATORY, "1.0.39")
        version.unlink()
        result = client.check()
        assert (result.status, result.error) == (UP_TO_DATE, EINSTALLED) and str(version) in result.error_message


@pytest.mark.parametrize("value", ["appstream:", "appstream:../../etc/passwd", "appstream:single", "file:relative",
                                   "file", "rpm:foo", ""])
def test_bad_values_are_refused(value):
    with vg.Client() as client:
        with pytest.raises(vg.VersionGateError) as refused:
            client.set("installed_version_from", value)
        assert refused.value.code == VG_EINVAL


def test_without_the_option_a_missing_version_is_still_einval(system):
    _, gate = system
    with vg.Client(source=str(gate), session_scope="process") as client:
        result = client.check()
    assert (result.status, result.error) == (UP_TO_DATE, VG_EINVAL)
    assert "installed_version_from is not set" in result.error_message


def test_the_command_reads_it_for_check_explain_and_exec(system, tmp_path):
    path, gate = system
    path.write_text(metainfo('<release version="1.0.39"/>'))
    env = Env(tmp_path)
    env.extra["XDG_DATA_DIRS"] = os.environ["XDG_DATA_DIRS"]
    checked = run(["check", "--source", gate, "--version-from", f"appstream:{APP}", "--json"], env.vars())
    assert checked.returncode == 20, checked.stderr
    assert json.loads(checked.stdout)["current"] == "1.0.39"
    explained = run(["explain", "--source", gate, "--set", f"app_id={APP}", "--version-from", "appstream"], env.vars())
    assert explained.returncode == 0 and "1.0.39" in explained.stdout.decode(), explained.stderr
    ran = run(["exec", "--dialog", "none", "--source", gate, "--version-from", f"appstream:{APP}", "--",
               "/bin/true"], env.vars())
    assert ran.returncode == 20, "below the minimum: the app never starts"
    path.write_text(metainfo('<release version="1.0.41"/>'))
    ran = run(["exec", "--dialog", "none", "--source", gate, "--version-from", f"appstream:{APP}", "--",
               "/bin/true"], env.vars())
    assert ran.returncode == 0, ran.stderr


def test_the_command_fails_open_and_says_why(system, tmp_path):
    _, gate = system
    env = Env(tmp_path)
    env.extra["XDG_DATA_DIRS"] = os.environ["XDG_DATA_DIRS"]
    checked = run(["check", "--source", gate, "--version-from", f"appstream:{APP}"], env.vars())
    assert checked.returncode == 0
    assert b"no AppStream metainfo for org.example.App" in checked.stderr


def test_the_command_wants_one_of_version_and_version_from(system, tmp_path):
    _, gate = system
    env = Env(tmp_path)
    both = run(["check", "--source", gate, "--version", "1.0", "--version-from", "appstream"], env.vars())
    assert both.returncode == 2 and b"exclusive" in both.stderr
    neither = run(["check", "--source", gate], env.vars())
    assert neither.returncode == 2 and b"--version or --version-from is required" in neither.stderr
    bad = run(["check", "--source", gate, "--version-from", "rpm:x"], env.vars())
    assert bad.returncode == 2 and b"installed_version_from" in bad.stderr
