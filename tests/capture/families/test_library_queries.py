"""Queries answered at capture time: torch.compiler.is_compiling(), torch.finfo, inspect.signature,
os.environ (families/torch_objects.py, families/stdlib.py)."""
from __future__ import annotations

import inspect
import os

import torch

from autograph.testing.compare import assert_same
from tests.capture.harness import Harness


def test_is_compiling_is_true_inside_capture_like_dynamo():
    def f(a):
        if torch.compiler.is_compiling():
            return a + 1
        return a - 1

    h = Harness()
    a = torch.randn(3)
    assert torch.equal(h.compile(f)(a), a + 1)
    assert not h.breaks


def test_finfo_of_a_constant_dtype():
    def f(a):
        return a.clamp(min=torch.finfo(a.dtype).min / 2, max=torch.iinfo(torch.int8).max)

    h = Harness()
    a = torch.randn(4) * 1000
    assert_same(f(a), h.compile(f)(a))
    assert not h.breaks


def test_inspect_signature_of_function_and_bound_method():
    class M:
        def chunk(self, x, y):
            return x + y

    def plain(x):
        return x

    def f(a):
        n = len(inspect.signature(M().chunk).parameters) + len(inspect.signature(plain).parameters)
        return a * n

    h = Harness()
    a = torch.randn(2)
    assert_same(f(a), h.compile(f)(a))
    assert not h.breaks


def test_environ_read_is_guarded(monkeypatch):
    monkeypatch.delenv("AUTOGRAPH_TEST_FLAG", raising=False)

    def f(a):
        if os.environ.get("AUTOGRAPH_TEST_FLAG", "0") == "1":
            return a + 1
        return a - 1

    h = Harness()
    fc = h.compile(f)
    a = torch.randn(3)
    assert torch.equal(fc(a), a - 1)
    monkeypatch.setenv("AUTOGRAPH_TEST_FLAG", "1")
    assert torch.equal(fc(a), a + 1)  # the guard saw the change: recaptured
    assert h.captures == 2 and not h.breaks
