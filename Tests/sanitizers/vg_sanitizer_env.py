"""pytest plugin for running the Python tests against a sanitized .so.

A sanitized libversiongate.so needs its sanitizer runtime loaded first
(LD_PRELOAD), plus the sanitizer's options. Several tests start child
processes with a minimal, explicit environment (conftest.child_env), which
drops LD_PRELOAD: the child then cannot load the library ("undefined symbol:
__asan_..."). This plugin copies the sanitizer variables of the pytest
process into every child environment that does not set them itself, so the
children run under the same sanitizer as the parent. It changes nothing else
in the children's environments, and nothing at all when the pytest process
has none of these variables.

Used by scripts/proof:  PYTHONPATH=Tests/sanitizers python3 -m pytest -p vg_sanitizer_env ...
"""

from __future__ import annotations

import os
import subprocess

CARRIED = ("LD_PRELOAD", "ASAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS",
           "LSAN_OPTIONS")

_inherited = {k: os.environ[k] for k in CARRIED if k in os.environ}
_original_init = subprocess.Popen.__init__


def _init_with_sanitizer_env(self, *args, **kwargs):
    env = kwargs.get("env")
    if env is not None and _inherited:
        env = dict(env)
        for key, value in _inherited.items():
            env.setdefault(key, value)
        kwargs["env"] = env
    _original_init(self, *args, **kwargs)


if _inherited:
    subprocess.Popen.__init__ = _init_with_sanitizer_env
