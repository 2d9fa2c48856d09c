"""Enum members in captured code (families/enums.py): ``member.name``/``member.value`` are read,
guarded through the member's source, and ``Color(2)`` is the class's own lookup (a value with no
member raises Python's ValueError), all without a break."""
from __future__ import annotations

import enum

import torch

from tests.capture.checks import check


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Shade(enum.Enum):
    DARK = (0, "d")
    LIGHT = (1, "l")

    def __new__(cls, index, code):
        member = object.__new__(cls)
        member._value_ = index
        member.code = code
        return member


def by_member(x, color, shade):
    if color is Color.RED:
        return x + color.value, color.name, Color(2).name, Shade(1).code, shade.value
    return x - color.value, color.name, Color(1) is Color.RED, shade.name


def test_enum_member_attributes_and_lookup():
    h = check(by_member, lambda: (torch.randn(2), Color.RED, Shade.LIGHT))
    check(by_member, lambda: (torch.randn(2), Color.GREEN, Shade.DARK), harness=h)
    assert h.breaks == []


def missing_member(x):
    return x + Color(3).value


def test_enum_lookup_of_a_missing_value_raises_value_error():
    h = check(missing_member, lambda: (torch.randn(2),))
    assert [b.kind for b in h.breaks] == ["python-exception"]  # predicted, raised by Python


def functional_api(x):
    import collections
    members = collections.OrderedDict(a=1, b=2)
    made = enum.Enum("Made", members)
    return x + made.a.value + made(2).value, made.b.name, made.__module__


def test_an_enum_class_made_by_the_functional_api_is_read():
    h = check(functional_api, lambda: (torch.ones(2),))
    assert h.breaks == []
