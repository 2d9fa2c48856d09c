"""Constants the graph's generated code must spell: NumPy scalars, an input named ``self``."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from tests.capture.checks import check


BIG = np.float64(1e30)
THREE = np.int16(3)
TWO = np.float32(2.0)


def numpy_scalar_operands(x):
    return x + BIG / 2, x * THREE, x.pow(TWO), x.to(torch.int64) * THREE


def numpy_scalar_as_data(x):
    return torch.tensor(np.float64(1.5)) + x  # float64 data: its NumPy type matters


def first_parameter_named_self(self, x):
    return self + x * 2


def test_numpy_scalars_as_operands_are_numbers_in_the_graph():
    h = check(numpy_scalar_operands, lambda: (torch.randn(3),))
    assert h.breaks == []


def test_numpy_scalar_passed_to_a_torch_function_runs_in_python():
    h = check(numpy_scalar_as_data, lambda: (torch.randn(3),))
    assert any("NumPy scalar" in b.reason for b in h.breaks)


@pytest.mark.parametrize("calls", [1, 2])
def test_an_input_named_self_does_not_clash_with_the_graph_module(calls):
    h = check(first_parameter_named_self, lambda: (torch.randn(3), torch.randn(3)), calls=calls)
    assert h.breaks == [] and len(h.backend.graphs) == 1
