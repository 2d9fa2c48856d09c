"""A torch call without a tensor result is run on fake tensors at capture time; its answer is
folded into the program only when the fake answers as the real tensor would. ``None`` tells
nothing (``t.storage_type()`` is None on a fake, whose storage is on the meta device): the call
runs in Python."""
from __future__ import annotations

import warnings

import torch

import autograph


def test_storage_type_is_the_real_tensors_legacy_storage_class():
    def fn(t):
        kind = t.storage_type()
        return t + 1, kind, type(kind).__name__

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TypedStorage is deprecated
        x = torch.randn(3)
        want = fn(x)
        got = autograph.compile(fn, backend="eager")(x)
    assert torch.equal(got[0], want[0])
    assert got[1:] == want[1:] == (torch.FloatStorage, "_LegacyStorageMeta")


# ---------------------------------------------------------------- answers no guard holds

def _same_guarded_facts_other_memory():
    """Tensors alike for TENSOR_MATCH (class, dtype, device, sizes, strides, requires_grad) that
    differ in what it does not look at: offset in their storage, view or not, shared memory."""
    base = torch.arange(40.0)
    return [base[1:5], base[7:11], torch.arange(4.0) * 3, torch.zeros(4).share_memory_(), torch.zeros(4)]


def _agree(fn, inputs):
    compiled = autograph.compile(fn, backend="eager")
    for x in inputs:
        want, got = fn(x), compiled(x)
        assert torch.equal(want[0], got[0])
        assert want[1:] == got[1:], (fn.__name__, want[1:], got[1:])


def test_storage_offset_is_the_run_tensors():
    def offsets(x):
        return x * 2, x.storage_offset(), x[1:].storage_offset()
    _agree(offsets, _same_guarded_facts_other_memory())


def test_view_and_shared_memory_are_the_run_tensors():
    def views(x):
        return x * 2, x._is_view(), x[1:]._is_view(), x.is_shared(), x.is_pinned()
    _agree(views, _same_guarded_facts_other_memory())


def test_is_set_to_is_the_run_tensors():
    def same_storage(x, y):
        return x * 2, x.is_set_to(y)
    b = torch.zeros(4)
    compiled = autograph.compile(same_storage, backend="eager")
    for y in (b, torch.zeros(4), b, b[:]):
        assert compiled(b, y)[1:] == same_storage(b, y)[1:]


def test_hash_method_of_a_computed_tensor_is_its_identity():
    def hashed(x):
        y = x * 2
        return y, y.__hash__()
    compiled = autograph.compile(hashed, backend="eager")
    for _ in range(3):
        y, h = compiled(torch.ones(3))
        assert h == hash(y)


def test_is_leaf_of_an_input_that_requires_grad_is_the_run_tensors():
    def leaf(x):
        return x * 2, x.is_leaf
    compiled = autograph.compile(leaf, backend="eager")
    for x in (torch.ones(3, requires_grad=True), torch.ones(3, requires_grad=True) * 2) * 2:
        assert compiled(x)[1] is leaf(x)[1]


def test_answers_from_guarded_facts_are_still_folded():
    def meta(x):
        return x * 2, x.dim(), x.is_contiguous(), x.is_floating_point(), x.element_size(), x.is_leaf
    compiled = autograph.compile(meta, backend="eager")
    for x in _same_guarded_facts_other_memory():
        assert compiled(x)[1:] == meta(x)[1:]
    assert len(compiled.entries) == 1
