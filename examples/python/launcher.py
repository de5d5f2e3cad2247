#!/usr/bin/env python3
"""A launcher that asks VersionGate "may this version run?" before starting.

    launcher.py [--source PATH] VERSION

- MANDATORY: prints the title, the message and the single "Update" action,
  then the store URL, and exits 2 (the app does not start).
- OPTIONAL, when the result says to prompt now (once per session): prints the
  title, the message and both labels; asks on a terminal, and without one
  (no interactive stdin) takes "Later". Choosing the update prints the store
  URL and exits 2; "Later" starts the app.
- UP_TO_DATE (also every error, which is reported on stderr): starts the app.

"Starting the app" is printing "Starting app …" and exiting 0. Needs the
binding: `pip install ./python`. A launcher started from a desktop menu has
no terminal: use `versiongate exec` there (examples/desktop/), which shows a
real dialog.
Default source: examples/gate.json in this repository.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

try:
    import versiongate as vg   # pip install ./python (from the repository root)
except (ImportError, OSError) as e:  # no library: the user still gets the app
    print("versiongate unavailable: %s" % e, file=sys.stderr)
    vg = None

DEFAULT_SOURCE = Path(__file__).resolve().parents[1] / "gate.json"

EXIT_START = 0
EXIT_UPDATE = 2


def interactive() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):  # closed stdin
        return False


def ask(action: str, dismiss: str) -> bool:
    """True when the user picks the update action."""
    try:
        answer = input("[1] %s  [2] %s > " % (action, dismiss))
    except EOFError:
        return False
    return answer.strip().lower() in ("1", action.strip().lower())


def open_store(result) -> int:
    url = result.store_url
    if url:
        print("Opening %s" % url)
        # xdg-open without a shell; the web page when no store app handles it.
        code = vg.open_url(url)
        if code != vg.Error.OK:
            print("Could not open it (%s); please visit it yourself." % vg.strerror(code))
    else:
        print("No store URL is known; please update the app from your store.")
    return EXIT_UPDATE


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default=str(DEFAULT_SOURCE),
                        help="gate document (path or file:// URL); "
                             "default: %(default)s")
    parser.add_argument("version", help="the installed version of the app")
    args = parser.parse_args(argv)

    client = None
    try:
        if vg is not None:
            client = vg.Client(source=args.source)
    except vg.VersionGateError as e:
        # A bad --source is the operator's mistake; the user still gets the app.
        print("versiongate: %s" % e, file=sys.stderr)

    if client is not None:
        with client, client.check(args.version) as result:
            if result.error != vg.Error.OK:
                print("versiongate: %s: %s" % (result.error_name,
                                               result.error_message),
                      file=sys.stderr)

            if result.status is vg.Status.MANDATORY:
                print(result.title)
                print(result.message)
                print("[%s]" % result.action_label)
                return open_store(result)

            if result.status is vg.Status.OPTIONAL and result.should_prompt:
                print(result.title)
                print(result.message)
                print("[%s]  [%s]" % (result.action_label,
                                      result.dismiss_label))
                if interactive():
                    if ask(result.action_label, result.dismiss_label):
                        return open_store(result)
                else:
                    print("(no terminal: %s)" % result.dismiss_label)

    print("Starting app %s …" % args.version)
    return EXIT_START


if __name__ == "__main__":
    sys.exit(main())
