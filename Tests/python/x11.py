"""A private X server (Xvfb) for the tests and scripts that drive the real
zenity: started on a free display (-displayfd), stopped by its pid."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

TOOLS = {"Xvfb": "xvfb", "zenity": "zenity", "xdotool": "xdotool"}


def missing_tools() -> list[str]:
    """Debian packages of the tools that are not on PATH."""
    return [package for tool, package in TOOLS.items() if not shutil.which(tool)]


class Xvfb:
    def __init__(self, size: str = "1024x768x24"):
        read, write = os.pipe()
        self.proc = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", size, "-nolisten", "tcp"],
                                     pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        number = b""
        deadline = time.monotonic() + 20
        while not number.endswith(b"\n") and time.monotonic() < deadline:
            chunk = os.read(read, 16)
            if not chunk:
                break
            number += chunk
        os.close(read)
        if not number.strip():
            self.stop()
            raise RuntimeError("Xvfb did not report a display")
        self.display = ":" + number.decode().strip()

    def window(self, name: str, timeout: float = 20) -> str:
        """The id of the first mapped window whose name is `name`, waiting
        for it (a window that exists but is not mapped yet cannot take focus)."""
        proc = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", "^%s$" % name],
                              capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "DISPLAY": self.display})
        return proc.stdout.split()[0]

    def key(self, window: str, key: str, attempts: int = 10) -> None:
        """Focus `window`, then press `key`. Focusing can still fail with
        BadMatch while GTK maps the dialog under load: a few tries, 0.2 s apart."""
        env = {**os.environ, "DISPLAY": self.display}
        for attempt in range(attempts):
            focus = subprocess.run(["xdotool", "windowfocus", "--sync", window], env=env, capture_output=True,
                                   text=True, timeout=20)
            if focus.returncode == 0:
                break
            if attempt == attempts - 1:
                raise RuntimeError("xdotool windowfocus %s: %s" % (window, focus.stderr.strip()))
            time.sleep(0.2)
        subprocess.run(["xdotool", "key", "--clearmodifiers", key], env=env, check=True, timeout=20)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
