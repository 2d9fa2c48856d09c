"""Backend tests run Triton kernels on CPU tensors in triton's interpreter.

TRITON_INTERPRET is forced for the whole suite in ``tests/conftest.py`` (it must be set
before triton is first imported); the backend itself also wraps kernels for CPU tensors
in the interpreter explicitly.
"""
from __future__ import annotations

import contextlib
import os

import pytest
import torch


@pytest.fixture
def triton_backend(tmp_path):
    pytest.importorskip("triton")
    from autograph.backends.triton.backend import TritonBackend

    return TritonBackend(cache_dir=str(tmp_path / "cache"))


@pytest.fixture
def compile_fn(triton_backend):
    """Trace ``fn`` with torch.fx and compile it with the Triton backend."""

    def compile_(fn, *inputs):
        gm = fn if isinstance(fn, torch.fx.GraphModule) else torch.fx.symbolic_trace(fn)
        return triton_backend(gm, list(inputs))

    return compile_


@contextlib.contextmanager
def permission_checks():
    """Run the body where file permissions apply: root ignores a directory's missing write bit, so
    as root the effective user is ``nobody`` for the body (the real user stays root, which lets
    ``seteuid`` switch back). Files the body makes are nobody's: make them in ``/tmp``."""
    if os.geteuid() != 0:
        yield
        return
    os.seteuid(65534)
    try:
        yield
    finally:
        os.seteuid(0)
