"""Members of C++ enums bound by pybind11 (``SDPBackend.MATH``, ``ProfilerActivity.CPU``) are
immutable values folded as constants (core/constants.is_literal): set elements, dict keys (also
inside tuples), ``==`` and ``int()``, with no graph break; one passed in is guarded by value."""
from __future__ import annotations

import torch
from torch.nn.attention import SDPBackend
from torch.profiler import ProfilerActivity

from autograph.capture.core.constants import is_literal
from tests.capture.harness import Harness


def test_members_are_literals_and_other_pybind_objects_are_not():
    assert is_literal(SDPBackend.MATH) and is_literal(ProfilerActivity.CPU)
    assert not is_literal(torch._C._autograd._ProfilerResult) and not is_literal(object())


def test_sets_keys_and_comparisons_of_members_are_captured():
    def f(x, backend):
        table = {(ProfilerActivity.CPU, backend): 2}
        chosen = {SDPBackend.MATH, backend, SDPBackend.MATH}
        scale = table[(ProfilerActivity.CPU, backend)] + int(backend) + len(chosen)
        return x * scale, backend == SDPBackend.MATH, SDPBackend.FLASH_ATTENTION in chosen

    h = Harness()
    compiled = h.compile(f)
    x = torch.ones(2)
    for backend in (SDPBackend.MATH, SDPBackend.FLASH_ATTENTION):
        out, same, found = compiled(x, backend)
        expected = f(x, backend)
        assert torch.equal(out, expected[0]) and (same, found) == expected[1:]
    assert not h.breaks
    assert h.captures == 2  # the member passed in is guarded by value
