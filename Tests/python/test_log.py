"""The log callback through the Python logging bridge (Client(logger=...),
Client.log_to), against the real library and a loopback server.

What a check reports, by level: the fail-open reason naming the file or URL
(error for the operator's config, warning for the network), each fetch and
its outcome (info), the decision (debug). Nothing is ever printed by the
library itself.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import threading

import versiongate as vg
from conftest import child_env
from remote_helpers import flat_doc, server_fixture  # noqa: F401 (fixture)


class Lines(logging.Handler):
    """Records (levelname, message) of what reaches it."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines: list[tuple[str, str]] = []

    def emit(self, record):
        self.lines.append((record.levelname, record.getMessage()))


def logger_with(name: str, level: int) -> tuple[logging.Logger, Lines]:
    logger = logging.getLogger("versiongate.test." + name)
    logger.propagate = False
    logger.setLevel(level)
    lines = Lines()
    logger.handlers = [lines]
    return logger, lines


def test_a_missing_document_is_reported_with_its_path(tmp_path):
    missing = tmp_path / "gate.json"
    logger, lines = logger_with("missing", logging.WARNING)
    with vg.Client(source=str(missing), session_scope="process", logger=logger) as client:
        with client.check("1.0.38") as result:
            assert result.status is vg.Status.UP_TO_DATE
    assert len(lines.lines) == 1, lines.lines
    level, message = lines.lines[0]
    assert level in ("ERROR", "WARNING") and str(missing) in message


def test_levels_filter(server, tmp_path, monkeypatch):
    """The logger's level sets log_level: WARNING hears no fetch, INFO hears
    the fetch and its outcome, DEBUG the decision too."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    heard = {}
    for n, level in enumerate((logging.WARNING, logging.INFO, logging.DEBUG)):
        name = "levels-%d" % n
        server.document(name, flat_doc())
        logger, lines = logger_with(name, level)
        with vg.Client(source=server.url(name), session_scope="process", logger=logger) as client:
            client.check("1.0.38").close()
        heard[level] = lines.lines
    assert heard[logging.WARNING] == []
    info = [message for _, message in heard[logging.INFO]]
    assert any("fetching" in m for m in info) and any("fetched a new config" in m for m in info), info
    assert {lvl for lvl, _ in heard[logging.INFO]} == {"INFO"}
    assert any(lvl == "DEBUG" and m.startswith("MANDATORY (below_minimum: 1.0.38 is below") for lvl, m in heard[logging.DEBUG])


def test_a_failed_fetch_names_the_url_and_turning_it_off(server, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    name = "failing"
    server.document(name, flat_doc(), next=[{"status": 500}, {"status": 500}])
    logger, lines = logger_with(name, logging.WARNING)
    with vg.Client(source=server.url(name), session_scope="process", logger=logger) as client:
        client.check("1.0.38").close()
        # A 500 asks for a backoff (docs/design.md, "Sources and the cache"): both the backoff and the fail-open are warnings.
        assert [level for level, _ in lines.lines] == ["WARNING", "WARNING"], lines.lines
        backoff, failure = (message for _, message in lines.lines)
        assert server.url(name) in backoff and "back off" in backoff
        assert failure.startswith("fails open:") and server.url(name) in failure and "HTTP 500" in failure
        client.log_to(None)
        client.check("1.0.38").close()
    assert len(lines.lines) == 2


def test_nothing_is_printed_without_a_callback(tmp_path):
    """A child process checks a missing file, an invalid version and an
    unreachable server at log_level=debug, with no callback: its stdout and
    stderr stay empty."""
    code = (
        "import versiongate as vg\n"
        "with vg.Client(source=%r, session_scope='process', log_level='debug', timeout_ms='300') as c:\n"
        "    c.check('1.0.38').close(); c.check('not a version').close()\n"
        "    c.set('source', 'https://127.0.0.1:1/gate.json'); c.check('1.0.38').close()\n"
    ) % str(tmp_path / "none.json")
    env = child_env(XDG_CACHE_HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout == b"" and out.stderr == b""


def test_many_threads_and_a_handler_that_checks(write_doc):
    """8 threads check at once; the handler itself checks on another client.
    With a library lock held during the callback this would deadlock."""
    gate = write_doc({"min_required_version_linux": "1.0.39", "latest_version_linux": "1.0.41"})
    inner = vg.Client(source=str(gate), session_scope="process")

    class Checking(Lines):
        def emit(self, record):
            super().emit(record)
            inner.check("1.0.40").close()

    logger = logging.getLogger("versiongate.test.threads")
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    handler = Checking()
    logger.handlers = [handler]
    with inner, vg.Client(source=str(gate), session_scope="process", logger=logger) as outer:
        def work():
            for _ in range(25):
                outer.check("1.0.38").close()

        threads = [threading.Thread(target=work, daemon=True) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert not any(t.is_alive() for t in threads), "a check deadlocked in its log callback"
    assert len(handler.lines) == 8 * 25   # one debug line, the decision, per check
