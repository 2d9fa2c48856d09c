"""Graph breaks: each kind, both branches, compared with eager (results, output, side effects)."""
from __future__ import annotations

import pytest
import torch

from tests.capture.checks import check
from tests.capture.harness import Harness


def pos(*shape):
    return lambda: (torch.rand(*shape) + 0.1,)


def neg(*shape):
    return lambda: (-torch.rand(*shape) - 0.1,)


def mixed(*shape):
    return lambda: (torch.randn(*shape),)


def b_if_sum(x):
    y = x * 2
    if y.sum() > 0:
        y = torch.sin(y)
    else:
        y = torch.cos(y)
    return y + 1


def b_bool(x):
    flag = bool((x > 0).all())
    return x * 2 if flag else x * 3


def b_item(x):
    k = x.sum().item()
    return x * k


def b_item_branch(x):
    if x.max().item() > 0:
        return x + 1
    return x - 1


def b_tolist(x):
    vals = x.tolist()
    return x * len(vals) + vals[0]


def b_while_tensor(x):
    n = 0
    while x.sum() > 0 and n < 5:
        x = x - 0.3
        n += 1
    return x * n


def b_for_with_break(x):
    total = x * 0
    for i in range(4):
        total = total + x * i
        if total.sum() > 2:
            return total, i
    return total, -1


def b_live_list(x):
    xs = [x * 2, x * 3]
    if x.sum() > 0:
        xs.append(x)
    return torch.stack(xs).sum(0) + len(xs)


def b_live_dict(x):
    d = {"a": x + 1}
    if x.mean() > 0:
        d["b"] = x * 2
    return d


def b_or_tensor(x):
    y = (x.sum() > 0) or (x.mean() < -1)
    return x * 2 if y else x


def b_nested_data_dependent(x):
    if x.sum() > 0:
        if x.max() > 0.5:
            return x * 4
        return x * 3
    return x * 2


def _helper_with_branch(x):
    if x.sum() > 0:
        return x * 10
    return x * -10


def b_in_callee(x):
    y = x + 1
    z = _helper_with_branch(y)
    return z - y


def b_in_callee_kwargs(x):
    return _scale(x, factor=3) + 1


def _scale(x, factor=2):
    if x.sum() > 0:
        return x * factor
    return x / factor


@pytest.mark.parametrize("fn", [b_if_sum, b_bool, b_item, b_item_branch, b_tolist, b_while_tensor,
                                b_for_with_break, b_live_list, b_live_dict, b_or_tensor,
                                b_nested_data_dependent, b_in_callee, b_in_callee_kwargs],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("make", [pos(3), neg(3), mixed(3)], ids=["positive", "negative", "mixed"])
def test_data_dependent_breaks_match_eager(fn, make):
    h = check(fn, make, calls=3)
    assert h.breaks, "expected a graph break"


def test_break_reason_names_line_and_kind():
    h = check(b_if_sum, pos(3), calls=1)
    reason = h.breaks[0].reason
    assert "data-dependent branch on a tensor value" in reason and "if y.sum() > 0" in reason
    assert h.breaks[0].lineno == b_if_sum.__code__.co_firstlineno + 2
    h = check(b_item, pos(3), calls=1)
    assert ".item()" in h.breaks[0].reason


def b_print(x):
    y = x * 2
    print("value", y.shape)
    return y + 1


def b_print_in_loop(x):
    for i in range(3):
        x = x + i
        print("step", i)
    return x


def _noisy(x):
    print("noisy", x.shape)
    return x * 2


def b_print_in_callee(x):
    return _noisy(x + 1) - 1


@pytest.mark.parametrize("fn", [b_print, b_print_in_loop, b_print_in_callee], ids=lambda f: f.__name__)
def test_print_breaks_and_prints_like_eager(fn, capsys):
    x = torch.randn(3)
    fn(x)
    expected = capsys.readouterr().out
    h = Harness()
    compiled = h.compile(fn)
    torch.testing.assert_close(compiled(x), fn(x))
    capsys.readouterr()
    torch.testing.assert_close(compiled(x), fn(x))
    out = capsys.readouterr().out
    assert out == expected * 2
    assert any("print() — a Python side effect" in b.reason for b in h.breaks)
    assert len(h.backend.graphs) >= 2  # work before and after the print is compiled


def b_numpy(x):
    import numpy as np
    return x + torch.from_numpy(np.ones(3, dtype="float32"))


NP = __import__("numpy")


def b_numpy_global(x):
    y = x * 2
    z = torch.from_numpy(NP.ones(3, dtype="float32"))
    return y + z


def b_opaque_global(x):
    y = x * 2
    z = torch.tensor(JSON.loads("[1.0, 2.0, 3.0]"))
    return y + z


JSON = __import__("json")


def test_unsupported_call_breaks_and_matches():
    h = check(b_opaque_global, mixed(3))
    assert any("json" in b.reason or "unsupported" in b.reason for b in h.breaks)
    h = check(b_numpy_global, mixed(3))  # NumPy with a torch._numpy counterpart: in the graph
    assert not h.breaks
    check(b_numpy, mixed(3))  # an import inside: runs eagerly from there


class Box:
    def __init__(self):
        self.count = 0
        self.items = []


def s_attr_store(x, box):
    y = x * 2
    box.count = box.count + 1
    return y + box.count


def s_list_append_input(x, xs):
    y = x + 1
    xs.append(y)
    return y * len(xs)


COUNTER = 0


def s_global_store(x):
    global COUNTER
    y = x * 3
    COUNTER = COUNTER + 1
    return y + COUNTER


def s_inplace_input(x):
    x.add_(1)
    x.mul_(2)
    return x.sum()


def s_setitem_input(x):
    x[0] = 5.0
    return x * 2


def s_dict_store_input(x, d):
    d["seen"] = x * 2
    return x + 1


def test_attribute_store_replayed():
    box_e, box_c = Box(), Box()
    h = Harness()
    f = h.compile(s_attr_store)
    for _ in range(3):
        x = torch.randn(3)
        torch.testing.assert_close(f(x, box_c), s_attr_store(x, box_e))
    assert box_c.count == box_e.count == 3


def test_list_append_on_input_replayed():
    check(s_list_append_input, lambda: (torch.randn(3), [torch.ones(3)]))


def test_global_store_replayed():
    global COUNTER
    COUNTER = 0
    expected = [s_global_store(torch.ones(2)) for _ in range(3)]
    COUNTER = 0
    h = Harness()
    f = h.compile(s_global_store)
    got = [f(torch.ones(2)) for _ in range(3)]
    for g, e in zip(got, expected):
        torch.testing.assert_close(g, e)
    assert COUNTER == 3


@pytest.mark.parametrize("fn", [s_inplace_input, s_setitem_input], ids=lambda f: f.__name__)
def test_inplace_on_input_matches(fn):
    h = check(fn, mixed(3))
    assert h.breaks == []


def test_dict_store_on_input():
    check(s_dict_store_input, lambda: (torch.randn(3), {}))


def e_raise(x):
    if x.dim() == 1:
        raise ValueError("need a matrix, got a vector")
    return x


def e_raise_data_dependent(x):
    if x.sum() > 100:
        return x
    raise RuntimeError(f"too small: {x.dim()}")


def e_index_error(x):
    xs = [x]
    return xs[3]


def e_key_error(x):
    d = {"a": x}
    return d["b"]


def e_shape_error(x):
    return x @ x


def e_attribute_error(x):
    return x.not_a_method()


def e_zero_division(x):
    k = 0
    return x * (1 / k)


@pytest.mark.parametrize("fn", [e_raise, e_raise_data_dependent, e_index_error, e_key_error,
                                e_shape_error, e_attribute_error, e_zero_division], ids=lambda f: f.__name__)
def test_exceptions_like_eager(fn):
    check(fn, mixed(3))


def c_try_except(x):
    try:
        y = x * 2
        if y.sum() > 0:
            y = y + 1
    except ValueError:
        y = x
    return y


def c_try_raise_inside(x):
    try:
        if x.sum() > 0:
            raise KeyError("k")
        return x * 2
    except KeyError:
        return x * 3


def c_with_no_grad(x):
    y = x * 2
    with torch.no_grad():
        z = y * 3
    return z + y


def c_with_no_grad_requires_grad(x):
    x = x.requires_grad_()
    with torch.no_grad():
        z = x * 3
    return z.requires_grad, (x * 2).requires_grad


def c_finally(x):
    try:
        return x * 2
    finally:
        x.add_(1)


@pytest.mark.parametrize("fn", [c_try_except, c_try_raise_inside, c_with_no_grad,
                                c_with_no_grad_requires_grad, c_finally], ids=lambda f: f.__name__)
@pytest.mark.parametrize("make", [pos(3), neg(3)], ids=["positive", "negative"])
def test_try_with_regions_match_eager(fn, make):
    check(fn, make)


class Hooked(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.calls = 0
        self.lin.register_forward_hook(self._hook)

    def _hook(self, mod, inp, out):
        self.calls += 1

    def forward(self, x):
        return self.lin(x * 2) + 1


def test_module_with_hooks_called_natively():
    m = Hooked()
    h = Harness()
    f = h.compile(Hooked.forward)
    x = torch.randn(2, 3)
    torch.testing.assert_close(f(m, x), m(x))
    assert m.calls == 2  # the hook ran for the compiled call too
    assert any("hooks" in b.reason for b in h.breaks)


def k_closure_cell_break(x):
    k = 2

    def inner(y):
        return y * k
    if x.sum() > 0:
        return inner(x)
    return inner(-x)


def k_comprehension_cell_break(x):
    w = 3
    ys = [x * w for _ in range(2)]
    if x.sum() > 0:
        w = 4
    return sum(ys) + x * w + sum([x * w for _ in range(2)])


@pytest.mark.parametrize("make", [pos(3), neg(3)], ids=["positive", "negative"])
def test_break_in_function_with_closure_cells(make):
    h = check(k_comprehension_cell_break, make)
    assert h.breaks and len(h.backend.graphs) >= 2


def test_break_with_a_live_closure_rebuilds_it():
    import autograph
    autograph.reset()
    f = autograph.compile(k_closure_cell_break, backend="eager")
    for make in (pos(3), neg(3)):
        (x,) = make()
        torch.testing.assert_close(f(x), k_closure_cell_break(x))
    assert not f.stats.errors  # the closure is rebuilt at the break (tests/capture/engine/test_closures_at_breaks.py)


def t_call_in_try(x):
    try:
        y = _helper_with_branch(x + 1)
    finally:
        x = x * 2
    return y + x


@pytest.mark.parametrize("make", [pos(3), neg(3)], ids=["positive", "negative"])
def test_callee_breaking_inside_try_still_compiled_through_its_shim(make):
    h = check(t_call_in_try, make, calls=2)
    captured = {getattr(r.fn, "__name__", "") for r in h.results}
    assert "_helper_with_branch" in captured  # the callee got its own capture


def s_inplace_returns_input(x):
    x.mul_(2)
    return x


def s_inplace_returns_none(x, y):
    x.add_(y)


@pytest.mark.parametrize("fn, make", [(s_inplace_returns_input, mixed(3)),
                                      (s_inplace_returns_none, lambda: (torch.randn(3), torch.randn(3)))],
                         ids=["returns_input", "returns_none"])
def test_graph_with_only_mutations_still_runs(fn, make):
    h = check(fn, make)
    assert len(h.backend.graphs) == 1


def test_returning_an_input_returns_the_same_object():
    h = Harness()
    f = h.compile(s_inplace_returns_input)
    x = torch.randn(3)
    assert f(x) is x


def a_two_args(x, y):
    x.add_(1)
    return x + y


def test_aliased_inputs_are_guarded():
    h = Harness()
    f = h.compile(a_two_args)
    x = torch.zeros(3)
    expected_x = torch.zeros(3)
    torch.testing.assert_close(f(x, x), a_two_args(expected_x, expected_x))
    p, q = torch.zeros(3), torch.ones(3)
    torch.testing.assert_close(f(p, q), a_two_args(torch.zeros(3), torch.ones(3)))
    assert h.captures == 2  # distinct tensors fail the `x is y` guard


# fuzz-found: augmented assignment on an input / a view must stay in the graph though unused
def m_isub_input(x, y):
    x -= y
    return y.unsqueeze(0)


def m_imul_view(a):
    t6 = a[1:]
    t7, *_rest = [t6, t6]
    t7 *= t6
    return a * 1.5 - 1.0


def m_dunder_iadd(x):
    x.__iadd__(1)
    return x * 2


@pytest.mark.parametrize("fn, make", [(m_isub_input, lambda: (torch.randn(4, 4), torch.randn(4, 4))),
                                      (m_imul_view, mixed(5, 4)), (m_dunder_iadd, mixed(3))],
                         ids=["isub_input", "imul_view", "dunder_iadd"])
def test_unused_inplace_results_keep_their_effect(fn, make):
    check(fn, make)


# fuzz-found (seed 23000224): a value read from an input list before the list is mutated natively
def s_read_then_insert(y, n, items):
    t2 = items[0]
    items.insert(0, y)
    try:
        t2 = t2 + items[min(n, 4)].sum()
    except KeyError:
        t2 = t2 * 0.5
    return t2


def test_values_from_sources_are_read_before_the_native_instruction():
    check(s_read_then_insert, lambda: (torch.randn(2), 1, [torch.randn(2), torch.randn(2)]))
