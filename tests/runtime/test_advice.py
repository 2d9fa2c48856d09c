"""Recompile-limit advice fits the failing guard's kind (a float is not a dimension to mark dynamic)."""
from __future__ import annotations

import torch

from autograph.guards.model import equals_match, id_match, tensor_match
from autograph.guards.sources import LocalSource
from autograph.runtime.advice import recompile_advice
from autograph.settings import Settings


def estimate(model, dt):
    return dt


def scale(a):
    return a


def test_a_changing_float_is_advised_to_become_a_tensor():
    advice = recompile_advice(equals_match(LocalSource("dt"), 0.0123), estimate, (None, 0.5), {}, Settings())
    assert "dt is a Python float" in advice and "torch.tensor(dt)" in advice
    assert "dynamic" not in advice and f"'{__name__}:estimate'" in advice


def test_a_changing_int_is_named_as_an_int():
    advice = recompile_advice(equals_match(LocalSource("dt"), 3), estimate, (None, 4), {}, Settings())
    assert "dt is a Python int" in advice and "torch.tensor" not in advice


def test_a_changing_size_is_advised_to_be_marked_dynamic():
    guard = tensor_match(LocalSource("a"), torch.ones(3, 4))
    advice = recompile_advice(guard, scale, (torch.ones(3, 5),), {}, Settings())
    assert "the size of a changes in dimension 1" in advice and "autograph.mark_dynamic(a, 1)" in advice
    static = recompile_advice(guard, scale, (torch.ones(3, 5),), {}, Settings(dynamic="static"))
    assert "dynamic is 'static'" in static


def test_a_changing_dtype_is_not_a_dimension():
    guard = tensor_match(LocalSource("a"), torch.ones(3))
    advice = recompile_advice(guard, scale, (torch.ones(3, dtype=torch.float64),), {}, Settings())
    assert "dtype" in advice and "mark_dynamic" not in advice


def test_a_different_object_each_call_is_named_an_identity():
    guard = id_match(LocalSource("a"), object())
    advice = recompile_advice(guard, scale, (object(),), {}, Settings())
    assert "different object on each call" in advice and "identity" in advice and "dynamic" not in advice
