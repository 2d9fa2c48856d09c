"""Shared pytest configuration: only process-wide state every room depends on.

Each room's fixtures live in its folder. What is here must happen before any test module
imports triton, whatever order pytest collects in and whatever the caller exported:

* triton decides once per process, at its first import, whether ``@triton.jit`` builds
  interpreter functions (``TRITON_INTERPRET``). The suite runs Triton kernels on CPU
  tensors, so the variable is forced to ``1`` here (a caller's ``TRITON_INTERPRET=0`` would
  otherwise make the backend tests fail or pass by collection order). Tests that need
  triton's real compiler run it in a child process (``tests/backends/ptx.py``).
* triton's on-disk caches (``TRITON_HOME``, ``TRITON_CACHE_DIR``, dumps, overrides) go to a
  directory of this session, removed at the end: nothing a previous run or the caller's
  cache left behind can change a result.
"""
from __future__ import annotations

import os
import shutil
import tempfile

_TRITON_HOME = tempfile.mkdtemp(prefix="autograph-tests-triton-")
os.environ.update(TRITON_INTERPRET="1", TRITON_HOME=_TRITON_HOME,
                  TRITON_CACHE_DIR=os.path.join(_TRITON_HOME, "cache"),
                  TRITON_DUMP_DIR=os.path.join(_TRITON_HOME, "dump"),
                  TRITON_OVERRIDE_DIR=os.path.join(_TRITON_HOME, "override"))


def pytest_unconfigure(config) -> None:
    shutil.rmtree(_TRITON_HOME, ignore_errors=True)
