"""The Triton backend with symbolic sizes (issue 8): one set of kernels serves every size.

Functions are compiled through ``autograph.compile`` with a ``TritonBackend`` instance
(so the test can see what it compiled) and checked against eager, forward and backward,
on several sizes; kernel launches are counted to show the kernels really ran.
"""
from __future__ import annotations

import pytest
import sympy
import torch
import torch.nn.functional as F

import autograph
from autograph.backends.triton.indexing import floordiv, modulo, symbol

pytestmark = pytest.mark.triton


@pytest.fixture(autouse=True)
def _fresh():
    autograph.reset()
    yield
    autograph.reset()


class _CountingLaunch:
    def __init__(self, kernel, counts, name):
        self.kernel, self.counts, self.name = kernel, counts, name

    def __getitem__(self, grid):
        launch = self.kernel[grid]

        def run(*args, **kwargs):
            self.counts[self.name] = self.counts.get(self.name, 0) + 1
            return launch(*args, **kwargs)

        return run


@pytest.fixture
def backend(tmp_path):
    pytest.importorskip("triton")
    from autograph.backends.triton.backend import TritonBackend

    b = TritonBackend(cache_dir=str(tmp_path / "cache"))
    b.launches = {}
    load = b.cache.load_kernel

    def counting_load(name, source, *, interpret):
        return _CountingLaunch(load(name, source, interpret=interpret), b.launches, name)

    b.cache.load_kernel = counting_load
    return b


def _eager_and_grads(fn, *args):
    leaves = [a.detach().clone().requires_grad_(a.requires_grad) for a in args]
    out = fn(*leaves)
    return out, leaves


def _check_fwd_bwd(compiled, fn, *args):
    out = compiled(*args)
    ref, ref_leaves = _eager_and_grads(fn, *args)
    torch.testing.assert_close(out, ref, atol=1e-5, rtol=1e-5)
    if any(a.requires_grad for a in args):
        g = torch.randn_like(ref)
        out.backward(g)
        ref.backward(g)
        for a, r in zip(args, ref_leaves):
            if a.requires_grad:
                torch.testing.assert_close(a.grad, r.grad, atol=1e-5, rtol=1e-5)
                a.grad = None


def _captures(compiled) -> int:
    return getattr(compiled, "_autograph_shim", compiled).stats.captures


def _symbolic_kernels(backend):
    return [k for g in backend.compiled for k in g.kernels]


def pointwise_and_sum(x, w):
    return (torch.relu(x) * 2 + w).sum(-1) + torch.sigmoid(x).mean()


def test_one_set_of_kernels_serves_every_size_forward_and_backward(backend):
    f = autograph.compile(pointwise_and_sum, backend=backend, dynamic="always")
    w = torch.randn(5, requires_grad=True)
    for n in (3, 4, 7, 9):
        _check_fwd_bwd(f, pointwise_and_sum, torch.randn(n, 5, requires_grad=True), w)
        if n == 3:
            graphs_after_first = len(backend.compiled)
            kernels_after_first = sorted(k.name for k in _symbolic_kernels(backend))
    assert _captures(f) == 1
    assert [g.kind for g in backend.compiled] == ["forward", "backward"]
    assert len(backend.compiled) == graphs_after_first
    assert sorted(k.name for k in _symbolic_kernels(backend)) == kernels_after_first
    assert all(g.fallback_reason is None for g in backend.compiled), [g.fallback_reason for g in backend.compiled]
    # every kernel ran once per call (forward and backward), for all four sizes
    assert backend.launches and all(count == 4 for count in backend.launches.values()), backend.launches
    # sizes are kernel arguments, bound in the wrapper from the inputs' sizes
    fwd = backend.compiled[0]
    assert any(".size(0)" in line for line in fwd.wrapper_source.splitlines())
    import re

    signatures = [line for k in fwd.kernels for line in k.source.splitlines() if line.startswith("def ")]
    assert any(re.search(r"\bs\d+\b", sig) for sig in signatures), signatures  # a size symbol parameter


def norm_softmax(x, w):
    y = F.layer_norm(x, (x.shape[-1],), w)
    return torch.softmax(y * 2, -1) + F.gelu(x)


def test_layer_norm_and_softmax_with_symbolic_rows_and_columns(backend):
    f = autograph.compile(norm_softmax, backend=backend, dynamic="always")
    for n, d in ((3, 8), (5, 8), (4, 13)):
        w = torch.randn(d, requires_grad=True)
        _check_fwd_bwd(f, norm_softmax, torch.randn(n, d, requires_grad=True), w)
    assert _captures(f) == 1
    assert all(g.fallback_reason is None for g in backend.compiled), [g.fallback_reason for g in backend.compiled]
    assert len(backend.compiled) == 2 and all(g.kernels for g in backend.compiled)
    # every kernel ran once per call in each graph that launches it (min-cut recomputes the
    # normalisation statistics in backward with the forward's own kernel)
    assert all(count in (3, 6) for count in backend.launches.values()), backend.launches


def split_heads(x):
    b, t, c = x.shape
    y = x.view(b, t, 2, c // 2).transpose(1, 2)
    return (y * 3).sum(-1) + y.amax(-1)


def test_view_with_sizes_from_shape_matches_eager(backend):
    f = autograph.compile(split_heads, backend=backend, dynamic="always")
    for shape in ((2, 3, 8), (3, 5, 8), (2, 4, 6)):
        _check_fwd_bwd(f, split_heads, torch.randn(*shape, requires_grad=True))
    assert all(g.fallback_reason is None for g in backend.compiled), [g.fallback_reason for g in backend.compiled]


def test_automatic_dynamic_second_entry_uses_symbolic_kernels(backend):
    f = autograph.compile(pointwise_and_sum, backend=backend)  # dynamic: auto
    w = torch.randn(5)
    for n in range(2, 8):
        x = torch.randn(n, 5)
        torch.testing.assert_close(f(x, w), pointwise_and_sum(x, w), atol=1e-5, rtol=1e-5)
    assert _captures(f) <= 2
    assert len(backend.compiled) <= 2
    assert all(g.fallback_reason is None for g in backend.compiled)
    symbolic = backend.compiled[-1]
    assert any("size(" in line for line in symbolic.wrapper_source.splitlines())


def test_symbolic_graph_is_cached_on_disk_by_its_symbolic_source(tmp_path):
    pytest.importorskip("triton")
    from autograph.backends.triton.backend import TritonBackend

    cache = str(tmp_path / "cache")
    first = TritonBackend(cache_dir=cache)
    f = autograph.compile(pointwise_and_sum, backend=first, dynamic="always")
    w = torch.randn(5)
    x = torch.randn(3, 5)
    torch.testing.assert_close(f(x, w), pointwise_and_sum(x, w))
    autograph.reset()
    second = TritonBackend(cache_dir=cache)
    g = autograph.compile(pointwise_and_sum, backend=second, dynamic="always")
    x = torch.randn(6, 5)  # another size: the symbolic graph is the same
    torch.testing.assert_close(g(x, w), pointwise_and_sum(x, w))
    assert [c.cache_hit for c in second.compiled] == [True]
    assert second.compiled[0].fallback_reason is None


def test_floordiv_and_modulo_simplify_with_a_symbolic_divisor():
    s = sympy.Symbol("s901", integer=True, positive=True)  # any symbol but an iteration variable is a size
    x0, x1 = symbol("x0", s), symbol("x1", 4)
    flat = x1 * s + x0  # a [4, s] index flattened
    assert floordiv(flat, s) == x1
    assert modulo(flat, s) == x0
    # not provable (the remainder may reach the divisor): stays an explicit division
    y0 = symbol("y0", 2 * s)
    assert floordiv(y0, s) != 0 and str(floordiv(y0, s)).startswith("FloorDiv")


PATTERNS = {
    "slice_and_shift": lambda x: x[1:] * 2 + x[:-1],
    "cat": lambda x: torch.cat([x, x * 2], 0).sin(),
    "rmsnorm": lambda x: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6),
    "var_over_symbolic_rows": lambda x: x.var(0),
    "flatten_then_unflatten": lambda x: (x.reshape(-1) * 2).view(x.shape[0], -1).sum(0),
    "softmax_over_rows": lambda x: torch.softmax(x, 0),
    "flip": lambda x: x.flip(0) + 1,
    "matmul_epilogue": lambda x: torch.relu(x @ x.t()),
    "causal_mask_softmax": lambda x: x.masked_fill(
        torch.ones(x.shape[0], x.shape[1], dtype=torch.bool).tril().logical_not(), -1e9).softmax(-1),
    "full_of_symbolic_size": lambda x: torch.full((x.shape[0], 1), 2.0) * x,
    "gather_rows": lambda x: x[torch.arange(x.shape[0] - 1)] * 2,
    "amax_keepdim": lambda x: x - x.amax(-1, keepdim=True),
    "expand_column": lambda x: x[:, :1].expand(-1, x.shape[1]) + x,
    "sum_and_mean_of_all": lambda x: x.sum() + x.mean(),
}


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_symbolic_patterns_run_as_kernels_and_match_eager(backend, name):
    fn = PATTERNS[name]
    f = autograph.compile(fn, backend=backend, dynamic="always")
    for n in (3, 5, 6):
        _check_fwd_bwd(f, fn, torch.randn(n, n + 4, requires_grad=True))
    symbolic = [g for g in backend.compiled if ".size(" in g.wrapper_source]
    assert symbolic, [g.wrapper_source for g in backend.compiled]
    assert all(g.fallback_reason is None for g in symbolic), [g.fallback_reason for g in symbolic]
    assert symbolic[0].kernels  # the forward (a backward may be a lone aten view, e.g. flip's)
    needs_concrete = [e for g in symbolic for e in g.externs if "concrete size" in e]
    assert needs_concrete == []  # every op of these patterns is lowered symbolically


def test_what_needs_a_concrete_size_becomes_an_aten_call_not_a_wrong_kernel(backend):
    fn = lambda x: x.argmax(-1) + x.sum(-1).long()  # noqa: E731 - argmax over a symbolic range
    f = autograph.compile(fn, backend=backend, dynamic="always")
    for n in (3, 5):
        x = torch.randn(n, n + 4)
        torch.testing.assert_close(f(x), fn(x))
    symbolic = [g for g in backend.compiled if ".size(" in g.wrapper_source]
    assert symbolic and all(g.fallback_reason is None for g in symbolic)
    assert any("argmax" in e and "concrete size" in e for g in symbolic for e in g.externs)


@pytest.mark.slow
def test_symbolic_cuda_kernels_compile_to_ptx_with_sizes_as_arguments(tmp_path):
    """Without a GPU: the CUDA variant of symbolic kernels goes through triton's real compiler
    (in a child process with its own TRITON_INTERPRET and caches, tests/backends/ptx.py)."""
    pytest.importorskip("triton")
    from torch.fx.experimental.proxy_tensor import make_fx

    from autograph.backends.triton.backend import TritonBackend, decompositions
    from tests.backends.ptx import compile_kernels_to_ptx

    def fn(x, w):
        return torch.softmax(F.layer_norm(x, (x.shape[-1],), w) * 2, -1), (x.relu() + w).sum(0)

    aten_gm = make_fx(fn, decomposition_table=decompositions(), tracing_mode="symbolic")(
        torch.randn(6, 40), torch.randn(40))
    record = TritonBackend(str(tmp_path))._generate(aten_gm, gpu=True)
    compile(record["wrapper"], "<wrapper>", "exec")  # the wrapper (grid lambdas) is valid Python
    assert "lambda meta" in record["wrapper"] and ".size(" in record["wrapper"]
    for params in compile_kernels_to_ptx(record, tmp_path):
        assert any(p.startswith("s") and p[1:].isdigit() for p in params), params


def test_a_lowering_error_with_symbolic_sizes_is_logged_and_recorded(backend, monkeypatch, caplog):
    """A lowering that raises with symbolic sizes runs the op as aten (still correct) but says
    so: a warning on the `backend` channel and an entry in the graph's ``lowering_errors``."""
    import logging

    from autograph.backends.triton import lower

    def broken(L, node, a):
        raise TypeError("cannot determine truth value of Relational")

    monkeypatch.setitem(lower.LOWERINGS, torch.ops.aten.sin.default, broken)
    f = autograph.compile(lambda x: (x * 2).sin() + 1, backend=backend, dynamic="always")
    x = torch.randn(5, 3)
    with caplog.at_level(logging.WARNING, logger="autograph.kernels"):
        torch.testing.assert_close(f(x), (x * 2).sin() + 1)
    errors = [e for c in backend.compiled for e in c.lowering_errors]
    assert len(errors) == 1 and "aten.sin" in errors[0] and "TypeError" in errors[0], errors
    assert any("aten.sin" in r.getMessage() for r in caplog.records if r.name == "autograph.kernels")
