"""Run engine/local/probe.py in the interpreter under test: ``python -m … PROBE MODEL [options]``.

The probe asks faulthandler for Python 3.14's ``c_stack=False``; the musl CPython here is 3.13
(Debian trixie's sources), which lacks that option and gets the call without it. Nothing else
of the probe changes.
"""

from __future__ import annotations

import faulthandler
import functools
import runpy
import sys

_enable = faulthandler.enable


@functools.wraps(_enable)
def _enable_without_c_stack(*args: object, c_stack: bool = True, **kwargs: object) -> None:
    _enable(*args, **kwargs)  # type: ignore[arg-type]


try:
    faulthandler.enable(c_stack=False)
except TypeError:  # before Python 3.14
    faulthandler.enable = _enable_without_c_stack
faulthandler.disable()

if __name__ == "__main__":
    probe = sys.argv[1]
    sys.argv = sys.argv[1:]
    runpy.run_path(probe, run_name="__main__")
