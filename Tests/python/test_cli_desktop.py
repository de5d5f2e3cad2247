"""The example .desktop file's Exec= read the way a launcher reads it (the
Desktop Entry Specification 1.5: string escapes, then quoting, then field
codes), and run; and the shell-script launcher run."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from cli_helpers import CLI, Env, probe_output
from conftest import REPO, flat

DESKTOP = REPO / "examples" / "desktop" / "example-app.desktop"
LAUNCHER = REPO / "examples" / "desktop" / "example-app-launcher.sh"
METAINFO = REPO / "examples" / "desktop" / "org.example.App.metainfo.xml"
RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def desktop_entry(text: str) -> dict[str, str]:
    """The [Desktop Entry] group's keys (comments and other groups skipped)."""
    entry, group = {}, None
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("["):
            group = line.strip()
            continue
        if group == "[Desktop Entry]":
            key, _, value = line.partition("=")
            entry[key.strip()] = value.strip()
    return entry


def unescape_string(value: str) -> str:
    """The string type's escapes: \\s \\n \\t \\r \\\\."""
    out, i = [], 0
    while i < len(value):
        if value[i] == "\\" and i + 1 < len(value) and value[i + 1] in "sntr\\":
            out.append({"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}[value[i + 1]])
            i += 2
        else:
            out.append(value[i])
            i += 1
    return "".join(out)


def split_exec(value: str) -> list[tuple[str, bool]]:
    """Arguments of an Exec value, each with whether it was quoted. Inside
    double quotes a backslash escapes " ` $ and \\; unquoted arguments may
    not hold reserved characters."""
    args, current, quoted, in_quotes, started, i = [], [], False, False, False, 0
    while i < len(value):
        c = value[i]
        if in_quotes:
            if c == "\\" and i + 1 < len(value) and value[i + 1] in '"`$\\':
                current.append(value[i + 1])
                i += 2
                continue
            if c == '"':
                in_quotes = False
            else:
                current.append(c)
        elif c == '"':
            in_quotes, quoted, started = True, True, True
        elif c == " ":
            if started:
                args.append(("".join(current), quoted))
            current, quoted, started = [], False, False
        else:
            if c in RESERVED:
                raise ValueError("reserved character %r outside quotes" % c)
            current.append(c)
            started = True
        i += 1
    if in_quotes:
        raise ValueError("unterminated quote")
    if started:
        args.append(("".join(current), quoted))
    return args


def expand(args: list[tuple[str, bool]], entry: dict, urls: list[str], files: list[str]) -> list[str]:
    """Field codes: %U %F (lists, alone), %u %f (one), %i %c %k, %%;
    deprecated ones removed. None inside quoted arguments."""
    out = []
    for arg, quoted in args:
        if quoted:
            assert "%" not in arg.replace("%%", ""), "field code inside quotes: %r" % arg
            out.append(arg)
            continue
        if arg in ("%U", "%F"):
            out.extend(urls if arg == "%U" else files)
            continue
        if arg == "%i":
            out.extend(["--icon", entry["Icon"]] if "Icon" in entry else [])
            continue
        text, i = [], 0
        while i < len(arg):
            if arg[i] == "%" and i + 1 < len(arg):
                code = arg[i + 1]
                text.append({"%": "%", "u": urls[0] if urls else "", "f": files[0] if files else "",
                             "c": entry.get("Name", ""), "k": str(DESKTOP)}.get(code, ""))
                i += 2
            else:
                text.append(arg[i])
                i += 1
        out.append("".join(text))
    return out


PARSE_ROWS = [
    ('app "a b" c', [("app", False), ("a b", True), ("c", False)]),
    (r'app "say \"hi\"" "\$HOME" "back\\slash" "\`x\`"', [("app", False), ('say "hi"', True), ("$HOME", True),
                                                         ("back\\slash", True), ("`x`", True)]),
    ('app "" x', [("app", False), ("", True), ("x", False)]),
    ("app  %U", [("app", False), ("%U", False)]),
]


@pytest.mark.parametrize("value, args", PARSE_ROWS)
def test_exec_parser_follows_the_spec(value, args):
    assert split_exec(value) == args


def test_exec_parser_refuses_what_the_spec_forbids():
    for bad in ('app "open', "app a;b", "app $HOME"):
        with pytest.raises(ValueError):
            split_exec(bad)


@pytest.fixture
def installed(tmp_path):
    """The example's /opt/Example App tree under tmp_path, the probe as the app."""
    root = tmp_path / "opt" / "Example App"
    (root / "bin").mkdir(parents=True)
    (root / "share").mkdir()
    env = Env(tmp_path)
    shutil.copy(env.probe, root / "bin" / "example-app")
    os.symlink(CLI, env.bin / "versiongate")
    # The example's metainfo, installed where the launchers read the version (1.0.40).
    share = tmp_path / "share"
    (share / "metainfo").mkdir(parents=True)
    shutil.copy(METAINFO, share / "metainfo" / METAINFO.name)
    env.extra["XDG_DATA_DIRS"] = str(share)
    return env, root


def desktop_argv(root, urls):
    entry = desktop_entry(DESKTOP.read_text())
    assert entry["Type"] == "Application" and entry["TryExec"] == "versiongate"
    argv = expand(split_exec(unescape_string(entry["Exec"])), entry, urls, [])
    # The example installs under /opt/Example App; this test's copy is under tmp.
    return [a.replace("/opt/Example App", str(root)) for a in argv]


@pytest.mark.parametrize("urls", [[], ["example://open?id=1&x=$y"], ["https://a.example/x y", "file:///tmp/%20"]])
def test_desktop_exec_runs_the_app(installed, urls):
    env, root = installed
    (root / "share" / "gate.json").write_text(__import__("json").dumps(flat(latest="1.0.40")))
    argv = desktop_argv(root, urls)
    assert argv[:3] == ["versiongate", "exec", "--source"] and "--" in argv
    proc = subprocess.Popen(argv, env=env.vars(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    seen = probe_output(env)
    assert seen["pid"] == proc.pid
    assert seen["argv"] == [str(root / "bin" / "example-app"), *urls]


def test_desktop_exec_below_the_minimum_never_starts_the_app(installed):
    env, root = installed
    (root / "share" / "gate.json").write_text(__import__("json").dumps(flat(min_required="1.0.41")))
    proc = subprocess.run(desktop_argv(root, ["example://x"]), env=env.vars(), stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=60)
    assert proc.returncode == 20
    assert not env.probe_out.exists()


def test_desktop_exec_follows_the_installed_metainfo(installed, tmp_path):
    # An upgrade installs a new metainfo; the desktop entry is the same line.
    env, root = installed
    (root / "share" / "gate.json").write_text(__import__("json").dumps(flat(min_required="1.0.41")))
    installed_metainfo = tmp_path / "share" / "metainfo" / METAINFO.name
    installed_metainfo.write_text(METAINFO.read_text().replace(
        '<release version="1.0.40"', '<release version="1.0.41"/>\n    <release version="1.0.40"'))
    proc = subprocess.run(desktop_argv(root, []), env=env.vars(), stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert probe_output(env)["argv"] == [str(root / "bin" / "example-app")]


def test_shell_launcher_execs_the_app(installed, tmp_path):
    env, root = installed
    script = tmp_path / "launcher.sh"
    gate = tmp_path / "gate.json"          # the script's paths hold no spaces; nor do these
    gate.write_text(__import__("json").dumps(flat()))
    app = tmp_path / "example-app"
    shutil.copy(env.probe, app)
    text = LAUNCHER.read_text().replace("/usr/share/example-app/gate.json", str(gate)) \
        .replace("/usr/lib/example-app/example-app", str(app))
    script.write_text(text)
    script.chmod(0o755)
    proc = subprocess.Popen([str(script), "a b", "", "--"], env=env.vars(PATH="%s:/usr/bin:/bin" % env.bin),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    seen = probe_output(env)
    assert seen["pid"] == proc.pid           # sh, versiongate and the app: one process
    assert seen["argv"][1:] == ["a b", "", "--"]
