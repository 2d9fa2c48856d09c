"""A closure that reaches a capture through a source (a resume function's live local, an
argument) is guarded by its code, globals and defaults layout, not by identity
(families/functions.py ``ClosureFunctionValue``): the function that makes it makes a new one per
call, and guarding the object would recompile on every call. What the capture read through it
(cell contents, default values) is guarded where it was read; identity is guarded only when
something observes it."""
from __future__ import annotations

import torch

import autograph
from autograph.runtime import stats


class Counter:
    def __init__(self):
        self.frames = 0

    def __call__(self, gm, example_inputs):
        self.frames += 1
        return gm.forward


def brk():
    print(end="")


def _recompiles():
    return sum(len(s.recompiles) for s in stats.all_stats())


def lambda_live_at_break(inp):
    g = lambda y: inp + y  # noqa: E731
    brk()
    return g(torch.ones(1))


def inner_function_live_at_break(inp):
    def g(y):
        return inp * y
    brk()
    return g(torch.ones(1))


def nested_function_without_cells(x):
    def g(y):
        return y * 2
    brk()
    return g(x)


def test_closure_made_per_call_does_not_recompile_the_resume():
    for fn in (lambda_live_at_break, inner_function_live_at_break, nested_function_without_cells):
        autograph.reset()
        counter = Counter()
        f = autograph.compile(fn, backend=counter)
        for _ in range(4):
            x = torch.randn(2)
            assert torch.equal(f(x), fn(x))
        assert counter.frames == 1
        assert _recompiles() == 0


def closure_over_a_number(x, n):
    g = lambda y: y * n  # noqa: E731
    brk()
    return g(x)


def test_cell_contents_are_still_guarded():
    autograph.reset()
    f = autograph.compile(closure_over_a_number, backend=Counter())
    x = torch.randn(3)
    assert torch.equal(f(x, 2), x * 2)
    assert torch.equal(f(x, 3), x * 3)  # another closure with another cell value
    assert torch.equal(f(x, 2), x * 2)


def nonlocal_store_between_breaks(x):
    n = 0

    def bump(t):
        nonlocal n
        n += 1
        return t + n
    brk()
    a = bump(x)
    brk()  # the second resume reads n from the cell
    return a, n


def test_nonlocal_store_goes_to_the_cell_of_this_call():
    autograph.reset()
    f = autograph.compile(nonlocal_store_between_breaks, backend=Counter())
    x = torch.randn(2)
    for _ in range(3):  # each call's own cell: n is 1 every time
        out, n = f(x)
        assert n == 1
        assert torch.equal(out, x + 1)


def same_object(x, a, b):
    brk()
    return a(x), a is b


def test_identity_is_guarded_when_observed():
    autograph.reset()
    f = autograph.compile(same_object, backend=Counter())
    x = torch.randn(2)
    c1, c2, c3 = make_adder(1), make_adder(1), make_adder(1)
    assert f(x, c1, c1)[1] is True
    assert f(x, c2, c3)[1] is False  # same code, same cells, other objects
    assert f(x, c2, c2)[1] is True


def closure_with_defaults(x, k):
    def g(y, m=k):
        return y * m
    brk()
    return g(x)


def test_default_values_are_guarded():
    autograph.reset()
    f = autograph.compile(closure_with_defaults, backend=Counter())
    x = torch.randn(2)
    assert torch.equal(f(x, 2), x * 2)
    assert torch.equal(f(x, 5), x * 5)


def named_closure(x, name):
    def g(y):
        return y + 1
    g.__name__ = name
    brk()
    return g(x), g.__name__


def test_function_name_read_is_guarded():
    autograph.reset()
    f = autograph.compile(named_closure, backend=Counter())
    x = torch.randn(2)
    assert f(x, "a")[1] == "a"
    assert f(x, "b")[1] == "b"


def calls_closure_argument(fn, x):
    return fn(x) * 2


def make_adder(k):
    return lambda t: t + k


def test_closure_argument_with_another_code_recompiles():
    autograph.reset()
    f = autograph.compile(calls_closure_argument, backend=Counter())
    x = torch.randn(2)
    assert torch.equal(f(make_adder(1), x), (x + 1) * 2)
    assert torch.equal(f(make_adder(2), x), (x + 2) * 2)  # same code, another cell value
    other = (lambda k: (lambda t: t * k))(3)
    assert torch.equal(f(other, x), (x * 3) * 2)  # another code object


def parameters_of(ps):
    brk()  # the call is a graph break
    return iter(ps)


def count_then_scale(x, ps):
    n = sum(p.numel() for p in parameters_of(ps))  # the genexpr's function is on the stack at the break
    return x * n


def test_generator_expression_on_the_stack_does_not_recompile_the_resume():
    autograph.reset()
    f = autograph.compile(count_then_scale, backend=Counter())
    ps = [torch.randn(2), torch.randn(3)]
    for _ in range(5):
        x = torch.randn(2)
        assert torch.equal(f(x, ps), x * 5)
    assert _recompiles() == 0
