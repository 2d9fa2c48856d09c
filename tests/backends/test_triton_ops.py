"""Each lowered aten op against eager, on CPU tensors in the triton interpreter."""
from __future__ import annotations

import types

import pytest
import torch

pytestmark = pytest.mark.triton


def _wrap(op):
    def fn(x):
        return op(x)

    return fn


def check(compile_fn, fn, *inputs, externs_ok=False, atol=1e-5, rtol=1e-5):
    if not isinstance(fn, types.FunctionType):  # torch builtins cannot be fx-traced directly
        fn = _wrap(fn)
    compiled = compile_fn(fn, *inputs)
    got, want = compiled(*inputs), fn(*inputs)
    got = got if isinstance(got, (tuple, list)) else (got,)
    want = want if isinstance(want, (tuple, list)) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        torch.testing.assert_close(g, w, atol=atol, rtol=rtol, equal_nan=True)
    graph = compiled.graphs[0]
    assert graph.fallback_reason is None
    assert len(compiled.kernels) >= 1, "nothing ran as a Triton kernel"
    if not externs_ok:  # views of tensors in memory are zero-copy aten calls by design
        assert [e for e in graph.externs if "view of a tensor" not in e] == [], graph.externs
    return compiled


UNARY = {
    "exp": torch.exp, "exp2": torch.exp2, "log": lambda x: torch.log(x.abs() + 0.1),
    "log2": lambda x: torch.log2(x.abs() + 0.1), "log10": lambda x: torch.log10(x.abs() + 0.1),
    "log1p": lambda x: torch.log1p(x.abs()), "expm1": torch.expm1,
    "sqrt": lambda x: torch.sqrt(x.abs()), "rsqrt": lambda x: torch.rsqrt(x.abs() + 0.1),
    "sin": torch.sin, "cos": torch.cos, "tanh": torch.tanh, "sigmoid": torch.sigmoid, "erf": torch.erf,
    "reciprocal": lambda x: torch.reciprocal(x + 3), "floor": torch.floor, "ceil": torch.ceil,
    "trunc": torch.trunc, "neg": torch.neg, "abs": torch.abs, "relu": torch.relu, "sign": torch.sign,
    "isnan": lambda x: torch.isnan(x / x.abs().clamp(max=0.5).floor()), "gelu": torch.nn.functional.gelu,
    "gelu_tanh": lambda x: torch.nn.functional.gelu(x, approximate="tanh"), "silu": torch.nn.functional.silu,
    "leaky_relu": torch.nn.functional.leaky_relu, "hardtanh": torch.nn.functional.hardtanh,
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(compile_fn, name):
    x = torch.randn(5, 7) * 2
    check(compile_fn, UNARY[name], x)


BINARY = {
    "add": lambda a, b: a + b, "add_alpha": lambda a, b: torch.add(a, b, alpha=3), "sub": lambda a, b: a - b,
    "rsub": lambda a, b: 1 - a, "mul": lambda a, b: a * b, "div": lambda a, b: a / (b.abs() + 1),
    "div_floor": lambda a, b: torch.div(a, b.abs() + 1, rounding_mode="floor"),
    "div_trunc": lambda a, b: torch.div(a, b.abs() + 1, rounding_mode="trunc"),
    "maximum": lambda a, b: torch.maximum(a, b), "minimum": lambda a, b: torch.minimum(a, b), "pow2": lambda a, b: a ** 2, "pow3": lambda a, b: a ** 3,
    "pow_half": lambda a, b: a.abs() ** 0.5, "pow_neg": lambda a, b: (a.abs() + 1) ** -1,
    "pow_frac": lambda a, b: (a.abs() + 0.1) ** 1.7, "pow_tensor_base": lambda a, b: 2.0 ** a,
    "eq": lambda a, b: (a * 2).floor() == (b * 2).floor(), "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b, "gt": lambda a, b: a > 0.5, "ge": lambda a, b: a >= b,
    "where": lambda a, b: torch.where(a > b, a, b * 2), "where_scalar": lambda a, b: torch.where(a > 0, a, 0.0),
    "clamp": lambda a, b: a.clamp(-0.5, 0.7), "clamp_min": lambda a, b: a.clamp(min=0.1),
    "masked_fill": lambda a, b: a.masked_fill(b > 0, -1e9), "logical_and": lambda a, b: (a > 0) & (b > 0),
    "logical_or": lambda a, b: (a > 0) | (b > 0), "logical_not": lambda a, b: ~(a > 0),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(compile_fn, name):
    a, b = torch.randn(6, 5), torch.randn(6, 5)
    check(compile_fn, BINARY[name], a, b)


REDUCTIONS = {
    "sum_dim": lambda x: x.sum(1), "sum_dim0": lambda x: x.sum(0), "sum_all": lambda x: x.sum(),
    "sum_keepdim": lambda x: x.sum(-1, keepdim=True), "sum_multi": lambda x: x.sum((0, 2)),
    "mean": lambda x: x.mean(-1), "mean_all": lambda x: x.mean(), "amax": lambda x: x.amax(1),
    "amin": lambda x: x.amin((1, 2), keepdim=True), "max_all": lambda x: x.max(), "min_all": lambda x: x.min(),
    "argmax": lambda x: x.argmax(-1), "argmin_keepdim": lambda x: x.argmin(1, keepdim=True),
    "argmax_flat": lambda x: x.argmax(), "prod": lambda x: (x * 0.5 + 1).prod(-1), "var": lambda x: x.var(-1),
    "var_unbiased0": lambda x: x.var(1, correction=0, keepdim=True),
    "var_fractional_correction": lambda x: x.var(-1, correction=0.5), "std": lambda x: x.std(-1),
    "logsumexp": lambda x: torch.logsumexp(x, -1), "norm": lambda x: torch.linalg.vector_norm(x, dim=-1),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction(compile_fn, name):
    x = torch.randn(3, 6, 5)
    check(compile_fn, REDUCTIONS[name], x)


VIEWS = {
    "permute": lambda x: x.permute(2, 0, 1) * 2, "transpose": lambda x: x.transpose(0, 2).sin(),
    "reshape": lambda x: x.reshape(9, 10) + 1, "reshape_transposed": lambda x: x.transpose(1, 2).reshape(3, 30).cos(),
    "expand": lambda x: x[:, :1, :].expand(3, 4, 5) * 3, "slice_step": lambda x: x[:, 1::2, 1:4] + 1,
    "select": lambda x: x[:, 2] * 2, "unsqueeze_squeeze": lambda x: x.unsqueeze(1).sum(-1).squeeze(1) + 1,
    "flatten_sum": lambda x: x.flatten(1).sum(-1), "negative_slice": lambda x: x[..., -2:] * 2,
    "view_only_output": lambda x: (x + 1).permute(1, 0, 2),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_view(compile_fn, name):
    x = torch.randn(3, 6, 5)
    check(compile_fn, VIEWS[name], x)


def test_broadcasting_three_ways(compile_fn):
    check(compile_fn, lambda a, b, c: a * b + c, torch.randn(4, 1, 5), torch.randn(3, 1), torch.randn(5))


def test_transposed_and_strided_inputs(compile_fn):
    a = torch.randn(5, 4).t()
    b = torch.randn(4, 10)[:, ::2]
    check(compile_fn, lambda a, b: (a * b).sum(-1) + a.sin().mean(0).sum(), a, b)


def test_zero_dim_and_scalar(compile_fn):
    check(compile_fn, lambda x, s: x * s + s.exp() + 2.5, torch.randn(3, 4), torch.tensor(0.7))


def test_zero_dim_output(compile_fn):
    check(compile_fn, lambda s: (s * 3).exp(), torch.tensor(0.25))


def test_int_dtype(compile_fn):
    a = torch.randint(-5, 5, (4, 6))
    b = torch.randint(-5, 5, (6,))
    check(compile_fn, lambda a, b: (a * b + 3 - a.abs(), (a > b), a.sum(-1), torch.maximum(a, b)), a, b)


def test_int32_promotes_with_float(compile_fn):
    a = torch.randint(0, 9, (4, 6), dtype=torch.int32)
    check(compile_fn, lambda a, x: (a * x, a / 2, a.to(torch.float32).sqrt(), a.sum(1)), a, torch.randn(4, 6))


def test_bool_dtype(compile_fn):
    m = torch.rand(4, 5) > 0.5
    x = torch.randn(4, 5)
    check(compile_fn, lambda m, x: (m & (x > 0), ~m, torch.where(m, x, -x), m.to(torch.float32) * x, m.sum(1)), m, x)


def test_dtype_conversions(compile_fn):
    x = torch.randn(4, 5) * 10
    check(compile_fn, lambda x: (x.to(torch.int64), x.to(torch.int32) + 1, (x > 0).to(torch.int64), x.to(torch.bool),
                                 x.to(torch.float16).to(torch.float32)), x)


def test_float16_storage(compile_fn):
    x = torch.randn(4, 8).half()
    check(compile_fn, lambda x: (x * 2 + 1, torch.softmax(x.float(), -1).half()), x, atol=1e-3, rtol=1e-3)


def test_constants_and_iota(compile_fn):
    def f(x):
        return x + torch.arange(5, dtype=torch.float32) + torch.ones(5) * 2 + torch.zeros_like(x)

    check(compile_fn, f, torch.randn(3, 5))


def test_full_reduction_looped(compile_fn):
    """rnumel > 1024: the non-persistent reduction loops over the row."""
    x = torch.randn(3, 1500)
    compiled = check(compile_fn, lambda x: (x.sum(-1), torch.softmax(x, -1), x.amax(-1)), x, atol=1e-5, rtol=1e-4)
    assert any(k.name.startswith("triton_red_") for k in compiled.kernels)
    assert "for roffset in range(0, rnumel, RBLOCK)" in compiled.kernels[0].source


def test_unsupported_op_falls_back_to_aten_inside_the_wrapper(compile_fn):
    def f(x, i):
        return torch.cumsum(x, 0).sin() + x[i].sum()

    x, i = torch.randn(5, 3), torch.tensor([0, 2])
    compiled = check(compile_fn, f, x, i, externs_ok=True)
    assert any("cumsum" in e for e in compiled.graphs[0].externs)
    assert "aten.cumsum.default" in compiled.graphs[0].wrapper_source


def test_nan_semantics_match_torch(compile_fn):
    x = torch.randn(4, 6)
    x[1, 2] = float("nan")
    x[3, 0] = float("nan")
    check(compile_fn, lambda x: (x.amax(-1), x.amin(0), x.max(), x.argmax(-1), x.argmin(-1), x.relu(),
                                 x.clamp(-0.5, 0.5), torch.maximum(x, x.flip(0))), x)


def test_nan_in_looped_reduction(compile_fn):
    x = torch.randn(2, 1300)
    x[0, 1234] = float("nan")
    check(compile_fn, lambda x: (x.amax(-1), x.amin(-1)), x)


def test_input_mutation_is_seen_in_order(compile_fn):
    def f(x, y):
        z = x * 2  # read before the mutation
        x.add_(y)
        return z + x  # x after the mutation

    x, y = torch.randn(5), torch.randn(5)
    compiled = compile_fn(f, x.clone(), y)
    xc, xe = x.clone(), x.clone()
    torch.testing.assert_close(compiled(xc, y), f(xe, y))
    torch.testing.assert_close(xc, xe)


def test_tuple_output_stays_a_tuple(compile_fn):
    x = torch.randn(3)
    out = compile_fn(lambda x: (x + 1, x * 2), x)(x)
    assert isinstance(out, tuple) and len(out) == 2


def test_cat_of_computed_values(compile_fn):
    def f(x, y):
        return torch.cat([x.sin(), y * 2, x[:, :1]], dim=1) + 1

    check(compile_fn, f, torch.randn(4, 3), torch.randn(4, 5))


def test_rotate_half_with_cat(compile_fn):
    def rotate_half(x):
        x1, x2 = x[..., :4], x[..., 4:]
        return torch.cat((-x2, x1), dim=-1) * 0.5 + x

    check(compile_fn, rotate_half, torch.randn(2, 3, 8))


def test_constant_pad(compile_fn):
    check(compile_fn, lambda x: torch.nn.functional.pad(x.exp(), (1, 2, 0, 1), value=-3.0), torch.randn(3, 4))


def test_slice_scatter(compile_fn):
    def f(base, src, src2):
        out = torch.slice_scatter(base * 2, src.exp(), dim=1, start=1, end=4)
        return torch.slice_scatter(out, src2, dim=0, start=0, end=6, step=2)

    check(compile_fn, f, torch.randn(6, 5), torch.randn(6, 3), torch.randn(3, 5))


def test_any_all_and_arange(compile_fn):
    def f(x):
        steps = torch.arange(2, 2 + 3 * x.shape[1], 3)
        return (x > 0.5).any(-1), (x > -2).all(0), (x != 0).any(), x * steps, torch.arange(x.shape[0]) + 1

    x = torch.randn(4, 5)
    x[2] = -1.0
    check(compile_fn, f, x)


def test_float64_and_small_int_dtypes(compile_fn):
    x = torch.randn(4, 5, dtype=torch.float64)
    u = torch.randint(0, 200, (4, 5), dtype=torch.uint8)
    i8 = torch.randint(-100, 100, (4, 5), dtype=torch.int8)
    check(compile_fn, lambda x, u, i8: (x.sin() * 3 + x.sum(-1, keepdim=True), u + 7, i8 * 2, u.sum(), x * u),
          x, u, i8)
