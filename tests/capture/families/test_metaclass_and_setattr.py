"""Instances of classes whose metaclass only hooks class creation or class attribute stores are
modelled like plain classes (families/user_objects.py ``supported_class``), and ``setattr``/``delattr``
with a constant name are attribute stores (families/builtins.py)."""
from __future__ import annotations

import torch

from autograph.testing.compare import assert_same
from tests.capture.harness import Harness


class RenamingMeta(type):
    """Like transformers' ``_BCCacheNameMeta``: only class attribute stores are hooked."""

    def __setattr__(cls, name, value):
        super().__setattr__(name, value)


class Output(metaclass=RenamingMeta):
    def __init__(self, value):
        self.value = value


def m_make_output(x):
    out = Output(x * 2)
    setattr(out, "extra", x + 1)  # noqa: B010 - the builtin is what is tested
    delattr(out, "value")
    return out.extra, hasattr(out, "value")


def test_metaclass_with_class_time_hooks_only_and_setattr_builtin():
    x = torch.randn(3)
    h = Harness()
    out = h.compile(m_make_output)(x)
    assert_same(m_make_output(x), out)
    assert not h.breaks and len(h.backend.graphs) == 1
