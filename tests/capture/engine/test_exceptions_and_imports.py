"""Exceptions capture knows exactly are handled by the user's own except blocks; imports; sets."""
from __future__ import annotations

import pytest
import torch

from tests.capture.checks import check


def x_except_folded(x):
    try:
        k = int("not a number")
    except ValueError:
        k = 3
    return x * k


def x_except_in_callee(x):
    try:
        k = _parse("oops")
    except (KeyError, ValueError) as err:
        k = len(str(err)) % 5 + 1
    return x * k


def _parse(s):
    return int(s)


def x_except_not_matching(x):
    try:
        k = {"a": 1}["b"]
    except ValueError:
        k = 2
    return x * k


def x_except_finally(x):
    out = x
    try:
        out = out + int("1")
        out = out * int("z")
    except ValueError:
        out = out - 1
    finally:
        out = out * 2
    return out


def x_hasattr_tensor(x):
    if hasattr(x, "jax"):
        return x
    return x + 1


def x_getattr_default(x):
    scale = getattr(x, "scale", 2.0)
    return x * scale


def x_import_inside(x):
    import math
    from torch.nn import functional as F
    return F.relu(x) * math.pi


def x_set_ops(x):
    names = {"a", "b"}
    names.add("c")
    allowed = {n for n in ("a", "z")}
    return x * len(names) + len(allowed) + ("c" in names)


def x_frozen_membership(x):
    if "relu" in frozenset({"relu", "gelu"}):
        return torch.relu(x)
    return x


@pytest.mark.parametrize("fn", [x_except_folded, x_except_in_callee, x_hasattr_tensor,
                                x_getattr_default, x_import_inside, x_set_ops, x_frozen_membership],
                         ids=lambda f: f.__name__)
def test_handled_in_one_graph(fn):
    h = check(fn, lambda: (torch.randn(4),))
    assert h.breaks == [], [str(b) for b in h.breaks]
    assert len(h.backend.graphs) == 1


def x_index_under_except(x, i):
    out = x * 2
    try:
        out = torch.index_select(x, 0, i) + 1
    except IndexError:
        out = out - 1
    return out


def test_tensor_ops_under_except_run_in_python_and_match_eager():
    """Tensor work that may raise at run time (an index only the run checks) breaks under an
    ``except``: its error must reach the handler."""
    h = check(x_index_under_except, lambda: (torch.arange(4.0), torch.tensor([9])))
    assert any("inside a try/except" in str(b) for b in h.breaks), [str(b) for b in h.breaks]


def test_tensor_ops_that_cannot_raise_at_run_time_stay_in_the_graph_under_except():
    """Arithmetic's errors are all foreseen by the fake run (shapes, dtypes): no break."""
    h = check(x_except_finally, lambda: (torch.randn(4),))
    assert not any("inside a try/except" in str(b) for b in h.breaks), [str(b) for b in h.breaks]


def test_unhandled_exception_raises_like_eager():
    check(x_except_not_matching, lambda: (torch.randn(4),))


# fuzz-found (seed 7000318): a missing method on a constant inside `try` must be caught there
def x_missing_method_in_try(y, items, alpha=0.5):
    items.append(alpha)
    try:
        y = y + items[2].sum()
    except Exception:
        y = y * 0.5
    return y


def test_missing_method_on_constant_caught_by_user_handler():
    check(x_missing_method_in_try, lambda: (torch.randn(3), [torch.randn(3), torch.randn(3)]))


def x_format_size(x):
    if x.shape[0] > 100:
        return x, "", ""
    return x * 2, f"shape {tuple(x.shape)}", str(x.shape[0])


def test_dynamic_sizes_are_not_formatted_symbolically():
    import autograph
    autograph.reset()
    f = autograph.compile(x_format_size, backend="eager")
    for n in (4, 5, 6, 7):  # the second size makes the first dimension dynamic
        x = torch.randn(n, 3)
        got, expected = f(x), x_format_size(x)
        assert got[1:] == expected[1:]
        torch.testing.assert_close(got[0], expected[0])
