"""What the families guard with is a guard kind with a native plan, not a Python callback:
identity patterns of a module tree (IDENTITY_PATTERN), ``isinstance`` of a flagged tensor
(IS_INSTANCE), an attribute ``del`` deletes (HAS_KEY), an unset slot (HAS_ATTR), NumPy arrays and
limits (TYPE_MATCH, OBJECT_EQUALS, EQUALS_MATCH on their facts), answers of state queries (one
call of the query, then EQUALS_MATCH), an unstarted generator (its fields), ``os.fspath`` of a
path, the caller's handled exception. Each entry's plan is native and holds no PYTHON guard (on
2cafad7 each of these was one), and each guard still fails when its condition changes: the next
call takes eager's path."""
from __future__ import annotations

import os
import pathlib
import sys

import numpy as np
import pytest
import torch
from torch.autograd.graph import disable_saved_tensors_hooks
from torch.nn.attention import SDPBackend, _cur_sdpa_kernel_backends, sdpa_kernel

import autograph
from autograph.guards import native
from autograph.guards.kinds import GuardKind
from autograph.settings import Settings, set_current_settings


@pytest.fixture(autouse=True)
def _eager():
    set_current_settings(Settings(backend="eager"))
    autograph.reset()
    yield
    autograph.reset()
    set_current_settings(None)


def same(a, b) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.dtype == b.dtype and torch.equal(a, b)
    if isinstance(a, np.ndarray):
        return type(b) is np.ndarray and a.dtype == b.dtype and a.shape == b.shape and (a == b).all()
    if isinstance(a, tuple):
        return type(b) is tuple and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def calls_as_eager(f, compiled, *arg_lists) -> None:
    for make in arg_lists:
        got, want = compiled(*make()), f(*make())
        assert same(got, want), (got, want)


def kinds(compiled) -> list:
    return [g.kind for entry in compiled.entries for g in entry.guards.guards]


def assert_native(compiled, kind: GuardKind, entries: int) -> None:
    assert len(compiled.entries) == entries
    assert kind in kinds(compiled)
    python = [g.src for entry in compiled.entries for g in entry.guards.guards if g.kind is GuardKind.PYTHON]
    assert python == []
    assert all(isinstance(native.plan_for(entry.guards), tuple) for entry in compiled.entries)


X = torch.ones(2)


class Pair(torch.nn.Module):
    def __init__(self, shared: bool = False):
        super().__init__()
        self.a = torch.nn.Linear(2, 2)
        self.b = self.a if shared else torch.nn.Linear(2, 2)


def count_modules(x, m):
    n = 0
    for _ in m.modules():
        n += 1
    return x + n


def sum_parameters(x, m):
    for _, p in m.named_parameters():
        x = x + p.sum()
    return x


def test_module_tree_identity_is_an_identity_pattern():
    m = Pair()
    f = autograph.compile(count_modules)
    calls_as_eager(count_modules, f, lambda: (X, m), lambda: (X, m))
    assert_native(f, GuardKind.IDENTITY_PATTERN, 1)
    m.b = m.a  # one submodule twice now: modules() yields it once
    calls_as_eager(count_modules, f, lambda: (X, m), lambda: (X, m))
    assert len(f.entries) == 2


def test_shared_parameters_are_an_identity_pattern():
    m = Pair()
    f = autograph.compile(sum_parameters)
    with torch.no_grad():
        calls_as_eager(sum_parameters, f, lambda: (X, m), lambda: (X, m))
        assert_native(f, GuardKind.IDENTITY_PATTERN, 1)
        m.b.weight = m.a.weight  # one parameter reached twice: yielded once
        calls_as_eager(sum_parameters, f, lambda: (X, m))


def buffer_branch(x, t):
    return x + 1 if isinstance(t, torch.nn.Buffer) else x - 1


def test_isinstance_of_a_flagged_tensor_is_an_is_instance_guard():
    f = autograph.compile(buffer_branch)
    buffer = torch.nn.Buffer(torch.ones(2))
    calls_as_eager(buffer_branch, f, lambda: (X, buffer), lambda: (X, buffer))
    assert_native(f, GuardKind.IS_INSTANCE, 1)
    calls_as_eager(buffer_branch, f, lambda: (X, torch.ones(2)))  # no flag: the guard fails
    assert len(f.entries) == 2


class Bag:
    pass


def delete_a(x, o):
    del o.a
    return x + 1


def test_an_attribute_del_deletes_is_a_has_key_guard():
    f = autograph.compile(delete_a)
    for _ in range(2):
        o = Bag()
        o.a = 1
        assert same(f(X, o), X + 1) and not hasattr(o, "a")
    assert_native(f, GuardKind.HAS_KEY, 1)
    with pytest.raises(AttributeError):
        f(X, Bag())  # nothing to delete: Python's AttributeError


class Slotted:
    __slots__ = ("a",)


def slot_branch(x, s):
    return x + 1 if hasattr(s, "a") else x - 1


def test_an_unset_slot_is_a_has_attr_guard():
    f = autograph.compile(slot_branch)
    calls_as_eager(slot_branch, f, lambda: (X, Slotted()), lambda: (X, Slotted()))
    assert_native(f, GuardKind.HAS_ATTR, 1)
    s = Slotted()
    s.a = 1
    calls_as_eager(slot_branch, f, lambda: (X, s))


def scale_by_eps(x, fi):
    return x * fi.eps


def test_numpy_limits_are_a_type_and_a_dtype():
    f = autograph.compile(scale_by_eps)
    calls_as_eager(scale_by_eps, f, lambda: (X, np.finfo(np.float32)), lambda: (X, np.finfo(np.float32)))
    assert_native(f, GuardKind.OBJECT_EQUALS, 1)
    calls_as_eager(scale_by_eps, f, lambda: (X, np.finfo(np.float64)))
    assert len(f.entries) == 2


def double(a):
    return a * 2


@pytest.mark.parametrize("other", [
    lambda: np.ones(3, np.float64),  # dtype
    lambda: np.ones(4, np.float32),  # shape
    lambda: np.ones(6, np.float32)[::2],  # strides
])
def test_an_ndarray_input_is_guarded_by_its_facts(other):
    f = autograph.compile(double)
    calls_as_eager(double, f, lambda: (np.ones(3, np.float32),), lambda: (np.ones(3, np.float32),))
    assert_native(f, GuardKind.EQUALS_MATCH, 1)
    assert native.check_python(native.plan_for(f.entries[0].guards), (other(),), None) >= 0
    calls_as_eager(double, f, lambda: (other(),))


def test_a_read_only_ndarray_fails_the_guard():
    f = autograph.compile(double)
    calls_as_eager(double, f, lambda: (np.ones(3, np.float32),))
    ro = np.ones(3, np.float32)
    ro.flags.writeable = False
    assert native.check_python(native.plan_for(f.entries[0].guards), (ro,), None) >= 0
    calls_as_eager(double, f, lambda: (ro,))


def current_backends(x):
    return x + 1, _cur_sdpa_kernel_backends()


def test_state_query_answers_are_pinned_calls():
    f = autograph.compile(current_backends)
    calls_as_eager(current_backends, f, lambda: (X,), lambda: (X,))
    assert_native(f, GuardKind.OBJECT_EQUALS, 1)
    with sdpa_kernel([SDPBackend.MATH]):
        assert f(X)[1] == [SDPBackend.MATH]
    assert len(f.entries) == 2


def hooks_message(x):
    return x + 1, torch._C._autograd._saved_tensors_hooks_get_disabled_error_message()


def test_the_saved_tensors_hooks_message_is_a_pinned_call():
    f = autograph.compile(hooks_message)
    calls_as_eager(hooks_message, f, lambda: (X,), lambda: (X,))
    assert_native(f, GuardKind.EQUALS_MATCH, 1)
    with disable_saved_tensors_hooks("caller's"):
        assert f(X)[1] == "caller's"
    assert len(f.entries) == 2


def profiled_branch(x):
    return x + 1 if torch.autograd._profiler_enabled() else x - 1


def test_a_query_answer_is_a_pinned_call():
    f = autograph.compile(profiled_branch)
    calls_as_eager(profiled_branch, f, lambda: (X,), lambda: (X,))
    assert_native(f, GuardKind.EQUALS_MATCH, 1)
    with torch.autograd.profiler.profile():
        assert same(f(X), X + 1)


def counting():
    yield 1
    yield 2
    yield 3


def drain(x, g):
    for v in g:
        x = x + v
    return x


def started():
    g = counting()
    next(g)
    return g


def test_an_unstarted_generator_is_guarded_by_its_fields():
    f = autograph.compile(drain)
    calls_as_eager(drain, f, lambda: (X, counting()), lambda: (X, counting()))
    assert_native(f, GuardKind.ID_MATCH, 1)
    calls_as_eager(drain, f, lambda: (X, started()))  # started: not what the entry ran


def path_length(x, p):
    return x + len(os.fspath(p))


def test_fspath_of_a_path_is_an_equals_match_on_one_call():
    f = autograph.compile(path_length)
    calls_as_eager(path_length, f, lambda: (X, pathlib.Path("/tmp/a")), lambda: (X, pathlib.Path("/tmp/a")))
    assert_native(f, GuardKind.EQUALS_MATCH, 1)
    assert any(g.src.startswith("type(os.fspath(p)) is str") for g in f.entries[0].guards.guards)
    calls_as_eager(path_length, f, lambda: (X, pathlib.Path("/tmp/longer")))
    assert len(f.entries) == 2


def handled_branch(x):
    return x + 1 if sys.exc_info()[1] is None else x - 1


def test_no_handled_exception_is_an_identity_guard():
    f = autograph.compile(handled_branch)
    calls_as_eager(handled_branch, f, lambda: (X,), lambda: (X,))
    assert_native(f, GuardKind.ID_MATCH, 1)
    try:
        raise KeyError("handled by the caller")
    except KeyError:
        assert same(f(X), X - 1)


ALLOWED = {"a", "b", 2}


def allowed_branch(x, k):
    return x + 1 if k in ALLOWED else x - 1


def test_an_outside_set_is_its_length_and_items_in_order():
    f = autograph.compile(allowed_branch)
    calls_as_eager(allowed_branch, f, lambda: (X, "c"), lambda: (X, "c"))
    assert_native(f, GuardKind.LENGTH_MATCH, 1)
    assert any(g.src.startswith("len(list(G['ALLOWED'])) == 3") for g in f.entries[0].guards.guards)
    ALLOWED.add("c")
    try:
        calls_as_eager(allowed_branch, f, lambda: (X, "c"))
    finally:
        ALLOWED.discard("c")
