"""Calling a ``TypedDict`` class (families/typed_dicts.py) makes a plain dict, as ``dict(...)``."""
from __future__ import annotations

import typing

import pytest
import torch
import typing_extensions

from tests.capture.harness import Harness

T = typing.TypeVar("T")


class Batch(typing.TypedDict):
    ids: torch.Tensor
    scale: float


class Partial(typing.TypedDict, total=False):
    mask: torch.Tensor


class Extended(typing_extensions.TypedDict):
    value: torch.Tensor


class Boxed(typing.TypedDict, typing.Generic[T]):
    item: T


def _keywords(x):
    b = Batch(ids=x, scale=2.0)
    b["extra"] = 1  # a plain dict: no checks
    return b["ids"] * b["scale"], b, type(b) is dict, len(b)


def _positional(x):
    p = Partial({"mask": x > 0}, more=x.sum())
    e = Extended([("value", x + 1)])
    g = Boxed(item=x)
    return p, e, g, sorted(p)


@pytest.mark.parametrize("fn", [_keywords, _positional])
def test_a_typed_dict_call_is_a_plain_dict_made_in_the_graph_code(fn):
    h = Harness()
    compiled = h.compile(fn)
    for x in (torch.arange(3.0) - 1, torch.ones(2)):
        want, got = fn(x), compiled(x)
        assert repr(want) == repr(got) and [type(v) for v in want] == [type(v) for v in got]
    assert not h.breaks
    first, second = compiled(torch.ones(1)), compiled(torch.ones(1))
    assert first[0] is not second[0]  # a new dict every call


def _wrong_arguments(x):
    return Batch(1, 2)  # dict's own TypeError


def test_dicts_error_is_raised_as_python_raises_it():
    with pytest.raises(TypeError) as want:
        _wrong_arguments(torch.ones(1))
    h = Harness()
    with pytest.raises(TypeError) as got:
        h.compile(_wrong_arguments)(torch.ones(1))
    assert str(got.value) == str(want.value)
    assert {b.kind for b in h.breaks} == {"python-exception"}  # foreseen at capture: dict's own error


def _keyword_named_like_a_parameter(x):
    return dict(it=x, other=1)


def test_a_keyword_is_always_a_key():
    h = Harness()
    got = h.compile(_keyword_named_like_a_parameter)(torch.ones(1))
    assert list(got) == ["it", "other"] and not h.breaks
