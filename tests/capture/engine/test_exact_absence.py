"""What capture found absent stays guarded: an attribute, a class attribute, a module
attribute, a global shadowing a builtin, a function attribute. Making the name appear
between calls must change the compiled result exactly as it changes Python's."""
from __future__ import annotations

import sys
import types

import torch

from tests.capture.harness import Harness


class Plain:
    pass


class WithSlots:
    __slots__ = ("z",)


def _check_between_calls(f, obj, appear, *, x=None):
    """Compile ``f``, call it, run ``appear()`` (makes a name appear), call again: as eager."""
    c = Harness().compile(f)
    x = torch.ones(2) if x is None else x
    torch.testing.assert_close(c(x, obj), f(x, obj))
    appear()
    torch.testing.assert_close(c(x, obj), f(x, obj))


def test_getattr_default_then_instance_attribute_appears():
    def f(x, o):
        return x + getattr(o, "z", 0)

    o = Plain()
    _check_between_calls(f, o, lambda: setattr(o, "z", 5))


def test_hasattr_then_instance_attribute_appears():
    def f(x, o):
        return x + 1 if hasattr(o, "z") else x * 3

    o = Plain()
    _check_between_calls(f, o, lambda: setattr(o, "z", 5))


def test_hasattr_then_class_attribute_appears():
    class K:
        pass

    def f(x, o):
        return x + 1 if hasattr(o, "flag") else x * 3

    _check_between_calls(f, K(), lambda: setattr(K, "flag", True))


def test_hasattr_then_base_class_attribute_appears():
    class Base:
        pass

    class K(Base):
        pass

    def f(x, o):
        return x + getattr(o, "scale", 1)

    _check_between_calls(f, K(), lambda: setattr(Base, "scale", 4))


def test_unset_slot_then_set():
    def f(x, o):
        return x + getattr(o, "z", 0)

    o = WithSlots()
    _check_between_calls(f, o, lambda: setattr(o, "z", 2))


def test_module_attribute_appears():
    mod = types.ModuleType("exact_absence_mod")
    sys.modules[mod.__name__] = mod
    try:
        def f(x, m):
            return x + getattr(m, "OFFSET", 0)

        _check_between_calls(f, mod, lambda: setattr(mod, "OFFSET", 3))
    finally:
        del sys.modules[mod.__name__]


def test_class_attribute_read_on_the_class_appears():
    class K:
        pass

    def f(x, cls):
        return x * 2 if hasattr(cls, "double") else x

    _check_between_calls(f, K, lambda: setattr(K, "double", True))


def test_function_attribute_appears():
    def g():
        pass

    def f(x, fn):
        return x + 1 if hasattr(fn, "__wrapped__") else x - 1

    _check_between_calls(f, g, lambda: setattr(g, "__wrapped__", print))


def test_data_descriptor_wins_over_the_instance_dict():
    class K:
        @property
        def v(self):
            return 10

    o = K()
    o.__dict__["v"] = 1  # Python ignores it: the property is a data descriptor

    def f(x, o):
        return x + o.v

    c = Harness().compile(f)
    x = torch.ones(2)
    torch.testing.assert_close(c(x, o), f(x, o))


def test_getattr_hook_runs_for_missing_names_only():
    class Lazy:
        def __getattr__(self, name):
            return 7

    def f(x, o):
        return x + o.size_hint

    o = Lazy()
    _check_between_calls(f, o, lambda: setattr(o, "size_hint", 1))



def test_global_defined_later_shadows_a_builtin():
    g = {"__builtins__": __builtins__, "__name__": "exact_absence_globals"}
    exec("def f(x, o):\n    return x + len('abc')\n", g)
    f = g["f"]
    _check_between_calls(f, None, lambda: g.__setitem__("len", lambda s: 10))


def test_attribute_set_on_a_tensor_argument():
    def f(x):
        return x * getattr(x, "scale", 1)

    c = Harness().compile(f)
    x = torch.ones(2)
    torch.testing.assert_close(c(x), f(x))
    y = torch.ones(2)
    y.scale = 3  # same tensor facts (TENSOR_MATCH passes), a new attribute
    torch.testing.assert_close(c(y), f(y))


class Config:
    """Like transformers' configs: a Python __getattribute__ mapping attribute names."""

    attribute_map = {"hidden": "n_embd"}

    def __init__(self):
        self.n_embd = 4

    def __getattribute__(self, key):
        if key != "attribute_map" and key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        return super().__getattribute__(key)


def test_hasattr_through_a_custom_getattribute_then_it_appears():
    def f(x, cfg):
        return x * 2 if hasattr(cfg, "scale") else x + cfg.hidden

    cfg = Config()
    _check_between_calls(f, cfg, lambda: setattr(cfg, "scale", 1.0))
