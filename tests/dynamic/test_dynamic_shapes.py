"""Dynamic shapes (issue 8): automatic dynamic, static/always, mark_dynamic/mark_static, shape guards.

Every compiled result is compared with eager; capture counts come from the shim's stats.
"""
from __future__ import annotations

import warnings

import pytest
import torch

import autograph
from autograph.guards.model import SHAPE_RELATION, TENSOR_MATCH


@pytest.fixture(autouse=True)
def _fresh():
    autograph.reset()
    yield
    autograph.reset()


@pytest.fixture(autouse=True)
def _triton_kernels_serve_symbolic_graphs(request):
    """Triton variants: every graph (symbolic ones included) runs as Triton kernels, never
    through the backend's aten fallback (which would still be correct, but not compiled)."""
    import logging

    if getattr(getattr(request.node, "callspec", None), "params", {}).get("backend") != "triton":
        yield
        return
    fallbacks: list[str] = []

    class _Collect(logging.Handler):
        def emit(self, record):
            if "runs with aten" in record.getMessage():
                fallbacks.append(record.getMessage())

    handler = _Collect()
    logger = logging.getLogger("autograph.backends.triton")
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
    assert fallbacks == []


def _shim(compiled):
    return getattr(compiled, "_autograph_shim", compiled)


def captures(compiled) -> int:
    return _shim(compiled).stats.captures


def newest_guards(compiled):
    return _shim(compiled).entries[-1].guards


def relations(compiled) -> list[str]:
    return [g.src for g in newest_guards(compiled).guards if g.kind is SHAPE_RELATION]


def scale_rows(x, w):
    return torch.relu(x @ w) * 2 + x.sum()


BACKENDS = ["eager", pytest.param("triton", marks=pytest.mark.triton)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_auto_compiles_at_most_twice_for_sizes_2_to_11(backend):
    f = autograph.compile(scale_rows, backend=backend)
    w = torch.randn(3, 4)
    for n in range(2, 12):
        x = torch.randn(n, 3)
        torch.testing.assert_close(f(x, w), scale_rows(x, w))
    assert captures(f) <= 2
    tm = [g for g in newest_guards(f).guards if g.kind is TENSOR_MATCH and g.source.expr == "x"][0]
    assert tm.expected.sizes == (None, 3)


def test_static_recompiles_per_size_until_the_limit():
    from autograph.settings import current_settings

    limit = current_settings().recompile_limit
    f = autograph.compile(scale_rows, backend="eager", dynamic="static")
    w = torch.randn(3, 4)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        for n in range(2, 12):
            x = torch.randn(n, 3)
            torch.testing.assert_close(f(x, w), scale_rows(x, w))
    assert captures(f) == min(10, limit)
    if limit < 10:
        assert _shim(f).state.limit_reached
    assert all(g.kind is not SHAPE_RELATION for e in _shim(f).entries for g in e.guards.guards)


@pytest.mark.parametrize("backend", BACKENDS)
def test_always_compiles_once(backend):
    f = autograph.compile(scale_rows, backend=backend, dynamic="always")
    w = torch.randn(3, 4)
    for n in range(2, 12):
        x = torch.randn(n, 3)
        torch.testing.assert_close(f(x, w), scale_rows(x, w))
    assert captures(f) == 1


def test_sizes_0_and_1_stay_specialised_under_always():
    f = autograph.compile(scale_rows, backend="eager", dynamic="always")
    w = torch.randn(3, 4)
    x1 = torch.randn(1, 3)
    torch.testing.assert_close(f(x1, w), scale_rows(x1, w))
    tm = [g for g in newest_guards(f).guards if g.kind is TENSOR_MATCH and g.source.expr == "x"][0]
    assert tm.expected.sizes[0] == 1  # size 1 is specialised, not symbolic
    x5 = torch.randn(5, 3)
    torch.testing.assert_close(f(x5, w), scale_rows(x5, w))
    assert captures(f) == 2  # 1 vs >1 is a different entry
    torch.testing.assert_close(f(x1, w), scale_rows(x1, w))
    assert captures(f) == 2


def test_mark_dynamic_makes_the_first_capture_symbolic():
    f = autograph.compile(scale_rows, backend="eager", dynamic="static")
    w = torch.randn(3, 4)
    x = torch.randn(4, 3)
    autograph.mark_dynamic(x, 0)
    torch.testing.assert_close(f(x, w), scale_rows(x, w))
    for n in (2, 7, 9):
        y = torch.randn(n, 3)
        torch.testing.assert_close(f(y, w), scale_rows(y, w))
    assert captures(f) == 1


def test_mark_static_is_never_made_dynamic():
    f = autograph.compile(scale_rows, backend="eager", dynamic="always")
    w = torch.randn(3, 4)
    x = torch.randn(4, 3)
    autograph.mark_static(x, 0)
    torch.testing.assert_close(f(x, w), scale_rows(x, w))
    tm = [g for g in newest_guards(f).guards if g.kind is TENSOR_MATCH and g.source.expr == "x"][0]
    assert tm.expected.sizes[0] == 4


def relate(x, y):
    return x @ y + 1


def test_relation_between_two_inputs_is_guarded_and_fails_when_broken():
    f = autograph.compile(relate, backend="eager", dynamic="always")
    x, y = torch.randn(4, 5), torch.randn(5, 6)
    torch.testing.assert_close(f(x, y), relate(x, y))
    rels = relations(f)
    assert any("x.size(1)" in r and "y.size(0)" in r and "==" in r for r in rels), rels
    gs = newest_guards(f)
    assert gs.check(torch.randn(7, 3), torch.randn(3, 2))      # relation holds: same entry
    failing = gs.first_failure(torch.randn(4, 5), torch.randn(6, 6))
    assert failing is not None and failing.kind in (SHAPE_RELATION, TENSOR_MATCH)
    with pytest.raises(RuntimeError):
        f(torch.randn(4, 5), torch.randn(6, 6))  # eager raises the same error


def branch_on_size(x):
    if x.size(0) > 4:
        return x * 2
    return x - 1


def test_branch_on_a_symbolic_size_is_guarded_both_ways():
    f = autograph.compile(branch_on_size, backend="eager", dynamic="always")
    x = torch.randn(6, 2)
    torch.testing.assert_close(f(x), branch_on_size(x))
    gs = newest_guards(f)
    assert any(">" in r or "<" in r for r in relations(f)), relations(f)
    assert gs.check(torch.randn(9, 2))
    assert not gs.check(torch.randn(3, 2))                 # the branch relation breaks
    assert gs.first_failure(torch.randn(3, 2)).kind is SHAPE_RELATION
    for n in (2, 3, 4, 5, 6, 10):
        y = torch.randn(n, 2)
        torch.testing.assert_close(f(y), branch_on_size(y))
    assert captures(f) == 2


def halves(x):
    n = x.shape[0] // 2
    return x[:n] + x[n:2 * n], n


def test_size_arithmetic_floordiv_and_returned_size():
    f = autograph.compile(halves, backend="eager")
    for m in range(2, 12):
        x = torch.randn(m, 3)
        out, n = f(x)
        ref, rn = halves(x)
        torch.testing.assert_close(out, ref)
        assert n == rn and type(n) is int
    assert captures(f) <= 3  # static, dynamic, and n == 1 specialisation at most


def heads(x, h: int):
    B, T, C = x.shape
    q = x.view(B, T, h, -1).transpose(1, 2)
    return (q * q.sum(-1, keepdim=True)).transpose(1, 2).reshape(B, T, C)


@pytest.mark.parametrize("backend", BACKENDS)
def test_view_with_sizes_from_shape(backend):
    f = autograph.compile(heads, backend=backend)
    for T in range(2, 10):
        x = torch.randn(2, T, 8)
        torch.testing.assert_close(f(x, 2), heads(x, 2))
    assert captures(f) <= 2


def unrolled(x):
    total = x[0]
    for i in range(1, x.size(0)):
        total = total + x[i] * i
    return total


def test_range_over_a_size_specialises_and_guards_it():
    f = autograph.compile(unrolled, backend="eager", dynamic="always")
    x = torch.randn(3, 2)
    torch.testing.assert_close(f(x), unrolled(x))
    gs = newest_guards(f)
    assert not gs.check(torch.randn(4, 2))  # the unrolled loop holds for size 3 only
    y = torch.randn(5, 2)
    torch.testing.assert_close(f(y), unrolled(y))
    assert captures(f) == 2


def test_strides_of_a_dynamic_input_are_guarded():
    f = autograph.compile(relate, backend="eager", dynamic="always")
    x, y = torch.randn(4, 5), torch.randn(5, 6)
    torch.testing.assert_close(f(x, y), relate(x, y))
    xt = torch.randn(5, 4).t()  # same sizes, transposed strides: not the same entry
    assert not newest_guards(f).check(xt, y)
    torch.testing.assert_close(f(xt, y), relate(xt, y))


def test_guards_agree_between_python_and_native_paths():
    from autograph.guards import native

    f = autograph.compile(relate, backend="eager", dynamic="always")
    x, y = torch.randn(4, 5), torch.randn(5, 6)
    f(x, y)
    gs = newest_guards(f)
    plan = native.plan_for(gs)
    for args in [(torch.randn(7, 3), torch.randn(3, 2)), (torch.randn(4, 5), torch.randn(6, 6)),
                 (torch.randn(1, 5), torch.randn(5, 6)), (torch.randn(5, 4).t(), y)]:
        assert native.check_python(plan, args, {}) == gs.index_fn(*args)


def test_shape_guards_are_readable_in_describe():
    f = autograph.compile(relate, backend="eager", dynamic="always")
    f(torch.randn(4, 5), torch.randn(5, 6))
    text = "\n".join(newest_guards(f).describe())
    assert "x: Tensor float32 cpu size (?, ?)" in text
    assert "y.size(0)" in text or "x.size(1)" in text


def test_failed_symbolic_capture_falls_back_to_static(monkeypatch):
    from autograph.capture.core import shapes

    real = shapes.finish_guards

    def broken(tx):
        if tx.graph.fake_mode.shape_env is not None:  # only the symbolic attempt fails
            raise RuntimeError("boom")
        return real(tx)

    monkeypatch.setattr(shapes, "finish_guards", broken)
    f = autograph.compile(scale_rows, backend="eager", dynamic="always")
    w = torch.randn(3, 4)
    x = torch.randn(5, 3)
    torch.testing.assert_close(f(x, w), scale_rows(x, w))
    assert captures(f) == 1
    assert any("static sizes" in e for e in _shim(f).stats.errors)
    tm = [g for g in newest_guards(f).guards if g.kind is TENSOR_MATCH and g.source.expr == "x"][0]
    assert tm.expected.sizes == (5, 3)


def seq_loss(x, w):
    B, T = x.shape
    h = torch.tanh(x.view(B, T, 1) * w).reshape(B, -1)
    return h.sum(-1).mean()


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradients_through_a_dynamic_entry(backend):
    f = autograph.compile(seq_loss, backend=backend)
    for T in (3, 4, 5, 7):
        x = torch.randn(2, T)
        w = torch.randn(4, requires_grad=True)
        w_ref = w.detach().clone().requires_grad_()
        out = f(x, w)
        out.backward()
        ref = seq_loss(x, w_ref)
        ref.backward()
        torch.testing.assert_close(out, ref)
        torch.testing.assert_close(w.grad, w_ref.grad)
    assert captures(f) == 2


def test_two_inputs_changing_size_together_compile_twice():
    f = autograph.compile(relate, backend="eager")
    for n in range(2, 9):
        x, y = torch.randn(n, n + 1), torch.randn(n + 1, 3)
        torch.testing.assert_close(f(x, y), relate(x, y))
    assert captures(f) == 2
    rels = relations(f)
    assert any("x.size(1)" in r and "y.size(0)" in r for r in rels), rels


def size_across_a_break(x):
    n = x.shape[0] // 2
    x = x * 2
    print("graph break", end="")
    return x[:n] + n


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_size_expression_crosses_a_graph_break(backend, capsys):
    f = autograph.compile(size_across_a_break, backend=backend)
    for m in range(4, 12):
        x = torch.randn(m, 2)
        torch.testing.assert_close(f(x), size_across_a_break(x))
    assert captures(f) <= 2
    assert _shim(f).stats.errors == []
    source = _shim(f).entries[-1].result.transformed_source
    assert "x.size(0) // 2" in source, source


def square_sum(x):
    return x + x.sum(0)


def test_sizes_equal_by_chance_are_not_tied_together():
    f = autograph.compile(square_sum, backend="eager", dynamic="always")
    x = torch.randn(4, 4)
    torch.testing.assert_close(f(x), square_sum(x))
    gs = newest_guards(f)
    assert gs.first_failure(torch.randn(4, 5)) is None  # one symbol per dimension: no x.size(0) == x.size(1)
    assert gs.first_failure(torch.randn(4, 1)).kind is SHAPE_RELATION  # 2 <= x.size(1): size 1 is specialised
    for shape in [(4, 5), (5, 4), (3, 3), (2, 7)]:
        y = torch.randn(*shape)
        torch.testing.assert_close(f(y), square_sum(y))
    assert captures(f) == 1


def size_as_dict_key(x):
    d = {x.shape[0]: 2}
    return x * d[x.shape[0]]


def test_code_that_cannot_be_symbolic_is_captured_statically_and_not_retried():
    f = autograph.compile(size_as_dict_key, backend="eager")
    for n in (3, 4, 5):
        x = torch.randn(n)
        torch.testing.assert_close(f(x), size_as_dict_key(x))
    assert captures(f) == 3  # static entries: sizes used as dict keys cannot be symbolic
    errors = _shim(f).stats.errors
    assert len(errors) == 1 and "static sizes" in errors[0]  # tried symbolically once only


def total_of_each(seqs):
    return [s.sum() * 2 for s in seqs]


def test_sizes_go_dynamic_when_the_miss_was_for_another_guard():
    """A list whose length and element sizes both change: the miss is on the list's length,
    yet the element whose size changed goes dynamic (Dynamo compares every source's sizes)."""
    f = autograph.compile(total_of_each, backend="eager")
    calls = [[torch.ones(n) for n in sizes] for sizes in [(3, 4), (5,), (6, 7), (8,), (9, 10), (11,), (2, 12)]]
    for seqs in calls:
        assert [t.item() for t in f(seqs)] == [t.item() for t in total_of_each(seqs)]
    assert captures(f) <= 3  # [3, 4], then one dynamic entry per length (both may go dynamic at once)


def test_nbytes_of_a_symbolic_tensor_is_a_size_expression():
    """``x.nbytes`` is ``numel() * itemsize``: torch reads it with a C++ ``numel()`` that refuses
    symbolic sizes (the capture failed and fell back to static sizes, one capture per size)."""
    def fn(x):
        return x * 2, x.nbytes, x[1:].nbytes + x.itemsize

    f = autograph.compile(fn, dynamic="always")
    for n in (3, 5, 8):
        x = torch.randn(n, 2)
        got, want = f(x), fn(x)
        torch.testing.assert_close(got[0], want[0])
        assert got[1:] == want[1:] and type(got[1]) is int
    assert captures(f) == 1
    assert not _shim(f).stats.errors, _shim(f).stats.errors
