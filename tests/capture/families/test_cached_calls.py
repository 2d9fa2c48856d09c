"""torch's ``functools.cache`` functions called on constants (families/cached_calls.py): the real
cached object, held as one read from outside; its method-wrapper items (families/sets.py) are
keys hashed and compared as the real ones, in sets, frozensets and as frozenset dict keys."""
from __future__ import annotations

import functools

import torch

from tests.capture.checks import check
from tests.capture.harness import Harness


def nowrap_lookup(x):
    funcs = torch.overrides.get_default_nowrap_functions()
    d = {frozenset(funcs): x * 2}
    if torch.Tensor.grad.__get__ in funcs:
        return d[frozenset(funcs)] + x, torch.Tensor.data.__get__ in funcs, len(funcs)
    return x, False, 0


def test_a_cached_torch_table_is_read_as_the_real_object():
    h = check(nowrap_lookup, lambda: (torch.randn(3),))
    assert h.breaks == []


def returns_the_table(x):
    funcs = torch.overrides.get_default_nowrap_functions()
    return x + 1, funcs, {frozenset(funcs): 1}


def test_the_table_and_a_dict_keyed_by_its_frozenset_come_back_as_python_makes_them():
    h = Harness()
    out, funcs, d = h.compile(returns_the_table)(torch.ones(2))
    assert funcs is torch.overrides.get_default_nowrap_functions()
    (key,) = d
    assert type(key) is frozenset and key == frozenset(funcs) and d[frozenset(funcs)] == 1
    assert h.breaks == []


def user_cached_mask_call(x):
    return x + _user_mask(x.shape[-1])


@functools.lru_cache(maxsize=4)
def _user_mask(n):
    return torch.triu(torch.ones(n, n), 1)


def test_a_users_cached_function_is_still_not_called_at_capture():
    """The user's own cached function may have side effects on its first call: not called at capture."""
    h = check(user_cached_mask_call, lambda: (torch.randn(3, 3),))
    assert [b.kind for b in h.breaks] == ["unsupported-call"], [b.reason for b in h.breaks]
