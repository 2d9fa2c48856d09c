"""Differential test: every pointwise/reduction lowering the Triton backend registers, compiled
against eager on edge values (signed zeros, ±inf, NaN, huge/tiny, quotients whose float rounding
crosses an integer, negative integers, bool, mixed promotion, half types).

The ops come from the registry (``lower.LOWERINGS``), not a hand list: inputs are built from each
op's schema, and a newly registered op with an argument shape this file cannot build fails
:func:`test_every_registered_op_is_exercised` until it is covered here. Results are compared bit
for bit (NaN = NaN, ``-0.0 != 0.0``) except for ops whose aten result is itself an approximation
(transcendentals, float sums), which get a tight tolerance.
"""
from __future__ import annotations

import math
from typing import Callable

import pytest
import torch

pytestmark = [pytest.mark.triton, pytest.mark.filterwarnings("ignore::RuntimeWarning")]  # numpy on inf/NaN

aten = torch.ops.aten

INF, NAN = math.inf, math.nan
# 3.0 / 0.3 rounds to 10.0 in float32 though the exact quotient is below 10; 1e-40 is subnormal
FLOATS = [0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 0.3, -0.3, 0.1, 2.5, -2.5, 0.5, 7.0, 1e30, -1e30, 1e-30, 1e-40,
          INF, -INF, NAN]
INTS = [-128, -7, -3, -2, -1, 0, 1, 2, 3, 7, 100, 127]
SCALARS = [0.3, -2, 3, 2, 0.5, -0.5, 0.0, -0.0, True, NAN]

# ops whose aten result is an approximation of the real function: compared with a tolerance
APPROXIMATE = {"exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tanh",
               "sigmoid", "erf", "pow", "sum", "prod", "mean", "var", "var_mean"}

# ops where aten's own sign of a zero result (max(0.0, -0.0)) depends on the element's position
# (vectorized and scalar loops disagree): ±0 compare equal for them
ZERO_SIGN_UNSPECIFIED = {"clamp", "clamp_min", "clamp_max", "maximum", "minimum"}

# (self dtype, other dtype) pairs for binary ops; one graph holds all of them
PAIRS = [(torch.float32, torch.float32), (torch.float16, torch.float16), (torch.bfloat16, torch.bfloat16),
         (torch.float64, torch.float64), (torch.int32, torch.int32), (torch.int64, torch.int64),
         (torch.int64, torch.float32), (torch.bool, torch.bool), (torch.int32, torch.bool),
         (torch.float16, torch.float32), (torch.bfloat16, torch.float32), (torch.uint8, torch.int8)]
UNARY_DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int32, torch.int64,
                torch.int8, torch.uint8, torch.bool]

# ops with no elementwise/reduction semantics of their own: exercised by their own tests
STRUCTURAL = {"cat", "constant_pad_nd", "slice_scatter", "full", "full_like", "scalar_tensor", "arange", "iota",
              "copy", "clone", "alias", "lift_fresh_copy", "detach", "_to_copy"}


def values(dtype: torch.dtype) -> torch.Tensor:
    if dtype.is_floating_point:
        return torch.tensor(FLOATS, dtype=torch.float64).to(dtype)
    if dtype == torch.bool:
        return torch.tensor([False, True])
    info = torch.iinfo(dtype)
    return torch.tensor([v for v in INTS if info.min <= v <= info.max], dtype=dtype)


def grid(a: torch.dtype, b: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """Every pair of edge values: x[i], y[i] range over the product."""
    x, y = values(a), values(b)
    return x.repeat_interleave(len(y)), y.repeat(len(x))


def registered() -> dict:
    from autograph.backends.triton import lower  # noqa: F401  (imports the lowerings)
    from autograph.backends.triton.lower import LOWERINGS

    return {op: fn for op, fn in LOWERINGS.items() if isinstance(op, torch._ops.OpOverload)}


def kinds(op) -> list[str]:
    """The types of the required positional arguments of ``op``."""
    types = [str(a.type) for a in op._schema.arguments if not a.kwarg_only and not a.has_default_value()]
    return ["Scalar" if t == "number" else t for t in types]


def family(op) -> str:
    return op._schema.name.split("::")[1]


REDUCTION_CALLS = {  # argument lists after ``self`` (dims, keepdim ...) per schema overload
    "sum.dim_IntList": [([1],), ([0, 1], True)], "sum.default": [()], "prod.dim_int": [(1,), (0, True)],
    "prod.default": [()], "amax.default": [([1],), ([0], True)], "amin.default": [([1],), ([0], True)],
    "max.default": [()], "min.default": [()], "argmax.default": [(1,), (0, True), ()],
    "argmin.default": [(1,), (0, True), ()], "mean.dim": [([1],), ([0], True)], "mean.default": [()],
    "var.correction": [([1],), ([0],)], "var_mean.correction": [([1],)], "any.dim": [(1,)], "any.dims": [([0, 1],)],
    "any.default": [()], "all.dim": [(1,)], "all.dims": [([0, 1],)], "all.default": [()],
    "sum.default@prims": [([1],)], "amax.default@prims": [([1],)], "amin.default@prims": [([1],)],
    "var.default@prims": [([1], 1)],
}

MODES = {"div.Tensor_mode": [{"rounding_mode": "floor"}, {"rounding_mode": "trunc"}],
         "div.Scalar_mode": [{"rounding_mode": "floor"}, {"rounding_mode": "trunc"}]}


def key(op) -> str:
    name = f"{family(op)}.{op._overloadname}"
    return name + "@prims" if op._schema.name.startswith("prims::") else name


def calls(op) -> list[tuple]:
    """``(args builder, kwargs)`` cases for ``op``: each builder returns the input tensors per dtype."""
    k = key(op)
    if k in REDUCTION_CALLS:
        return [("reduce", extra, {}) for extra in REDUCTION_CALLS[k]]
    args = kinds(op)
    kwargs_list = MODES.get(k, [{}])
    if family(op) == "clamp" or family(op).startswith("clamp_"):
        return [("clamp", (), {})]
    if args == ["Tensor"]:
        return [("unary", (), kw) for kw in kwargs_list]
    if args in (["Tensor", "Tensor"], ["Tensor", "Tensor", "Tensor"]) and family(op) == "where":
        return [("where", (), {})]
    if args == ["Tensor", "Tensor"]:
        return [("binary", (), kw) for kw in kwargs_list]
    if args == ["Tensor", "Scalar"]:
        return [("tensor_scalar", (s,), kw) for s in SCALARS for kw in kwargs_list]
    if args == ["Scalar", "Tensor"]:
        return [("scalar_tensor", (s,), kw) for s in SCALARS for kw in kwargs_list]
    if family(op) == "where":
        return [("where", (), {})]
    if family(op) == "convert_element_type":
        return [("convert", (), {})]
    return []


def cases(op) -> list[tuple[str, list[torch.Tensor], object]]:
    """(label, inputs, eager function) for every dtype combination of every call of ``op``."""
    out = []
    for kind, extra, kw in calls(op):
        if kind == "unary":
            for dt in UNARY_DTYPES:
                out.append((f"{dt}", [values(dt)], lambda x, kw=kw: op(x, **kw)))
        elif kind == "binary":
            for a, b in PAIRS:
                out.append((f"{a},{b} {kw}", list(grid(a, b)), lambda x, y, kw=kw: op(x, y, **kw)))
        elif kind == "tensor_scalar":
            for dt in UNARY_DTYPES:
                out.append((f"{dt},{extra[0]!r} {kw}", [values(dt)], lambda x, s=extra[0], kw=kw: op(x, s, **kw)))
        elif kind == "scalar_tensor":
            for dt in UNARY_DTYPES:
                out.append((f"{extra[0]!r},{dt} {kw}", [values(dt)], lambda x, s=extra[0], kw=kw: op(s, x, **kw)))
        elif kind == "where":
            for a, b in PAIRS:
                x, y = grid(a, b)
                cond = torch.arange(len(x)) % 3 == 0
                if len(kinds(op)) == 3:
                    out.append((f"{a},{b}", [cond, x, y], lambda c, x, y: op(c, x, y)))
                elif key(op) == "where.ScalarSelf":
                    out.append((f"{b}", [cond, y], lambda c, y: op(c, -0.0, y)))
                elif key(op) == "where.ScalarOther":
                    out.append((f"{a}", [cond, x], lambda c, x: op(c, x, NAN)))
                else:
                    out.append(("scalars", [cond], lambda c: op(c, -0.0, 2)))
        elif kind == "clamp":
            for dt in UNARY_DTYPES[:-1]:
                x = values(dt)
                lo = torch.tensor(-2 if not dt.is_floating_point else -0.0, dtype=dt)
                hi = torch.tensor(3 if not dt.is_floating_point else NAN, dtype=dt)
                name = key(op)
                if name in ("clamp.default", "clamp_min.default", "clamp_max.default"):
                    bounds = ((-2, 3) if name == "clamp.default" else (-2,))
                    out.append((f"{dt}", [x], lambda x, b=bounds: op(x, *b)))
                    if dt.is_floating_point and name == "clamp.default":
                        out.append((f"{dt} -0.0,nan", [x], lambda x: op(x, -0.0, 0.0)))
                else:
                    both = name == "clamp.Tensor"
                    out.append((f"{dt}", [x, lo, hi] if both else [x, lo],
                                (lambda x, lo, hi: op(x, lo, hi)) if both else (lambda x, lo: op(x, lo))))
        elif kind == "convert":
            for src in UNARY_DTYPES:
                for dst in UNARY_DTYPES:
                    if src.is_floating_point and not dst.is_floating_point and dst != torch.bool:
                        continue  # float -> int of inf/NaN/huge is undefined behaviour in aten
                    out.append((f"{src}->{dst}", [values(src)], lambda x, d=dst: op(x, d)))
        elif kind == "reduce":
            for dt in (torch.float32, torch.float16, torch.bfloat16, torch.int32, torch.bool):
                x = values(dt).repeat(4)  # rows of edge values, shifted so each row holds a different mix
                x = x[: len(x) // 4 * 4].reshape(4, -1).roll(1, 0).contiguous()
                out.append((f"{dt} {extra}", [x], lambda x, e=extra: op(x, *e)))
    return out


def identical(got: torch.Tensor, want: torch.Tensor, approximate: bool, zero_sign: bool = True) -> str | None:
    """None when equal; else a description of the first differing element."""
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"dtype/shape {got.dtype}{tuple(got.shape)} vs {want.dtype}{tuple(want.shape)}"
    if approximate and want.dtype.is_floating_point:
        tol = {torch.float16: 2e-3, torch.bfloat16: 1.6e-2}.get(want.dtype, 1e-5)
        g, w = got.double(), want.double()
        close = torch.isclose(g, w, rtol=tol, atol=0, equal_nan=True) | (g.abs() < 1e-30) & (w.abs() < 1e-30)
        close &= torch.isinf(g) == torch.isinf(w)
    elif want.dtype.is_floating_point:
        same_sign = (torch.signbit(got) == torch.signbit(want)) | (not zero_sign)
        close = (got == want) & same_sign | (got.isnan() & want.isnan())
    else:
        close = got == want
    if bool(close.all()):
        return None
    i = int((~close).flatten().nonzero()[0])
    return f"element {i}: compiled {got.flatten()[i].item()!r}, eager {want.flatten()[i].item()!r}"


def op_graph(op) -> tuple[list, Callable, list[torch.Tensor]]:
    """All cases of ``op`` eager accepts, as one function over their flattened inputs:
    ``(cases with eager's results, function, flat inputs)``."""
    good = []
    for label, inputs, fn in cases(op):
        try:
            want = fn(*inputs)
        except (RuntimeError, ZeroDivisionError):
            continue  # eager rejects this dtype combination: nothing to compare
        good.append((label, inputs, fn, want))
    flat = [t for _, inputs, _, _ in good for t in inputs]

    def graph(*args):
        outs, i = [], 0
        for _, inputs, fn, _ in good:
            res = fn(*args[i:i + len(inputs)])
            outs.extend([res[j] for j in range(len(op._schema.returns))] if len(op._schema.returns) > 1 else [res])
            i += len(inputs)
        return tuple(outs)

    return good, graph, flat


def run_op(triton_backend, op) -> list[str]:
    """Compile all cases of ``op`` as one graph (one kernel batch), compare each output with eager."""
    good, graph, flat = op_graph(op)
    if not good:
        return []
    gm = _trace(graph, len(flat))
    compiled = triton_backend(gm, list(flat))
    assert compiled.graphs[0].fallback_reason is None, compiled.graphs[0].fallback_reason
    assert compiled.kernels, f"no case of {key(op)} ran as a Triton kernel"
    got = list(compiled(*flat))
    assert compiled.graphs[0].fallback_reason is None, compiled.graphs[0].fallback_reason  # also on the first call
    errors = []
    approximate = family(op) in APPROXIMATE
    for label, inputs, fn, want in good:
        wants = want if isinstance(want, (tuple, list)) else (want,)
        for j, w in enumerate(wants):
            g = got.pop(0)
            problem = identical(g, w, approximate, family(op) not in ZERO_SIGN_UNSPECIFIED)
            if problem and approximate and w.dtype == torch.bfloat16:
                # aten's bf16 kernels of some maths (pow, erf) round or flush intermediates; the compiled
                # kernel computes in fp32, as Inductor does: it may match the fp32 result instead
                upcast = fn(*[t.float() if t.dtype == torch.bfloat16 else t for t in inputs])
                w32 = (upcast if isinstance(upcast, (tuple, list)) else (upcast,))[j].to(torch.bfloat16)
                problem = problem if identical(g, w32, approximate) else None
            if problem:
                errors.append(f"{key(op)} [{label}] {problem}")
    return errors


def _trace(fn, n: int) -> torch.fx.GraphModule:
    """An fx graph of ``fn`` over ``n`` tensor inputs (symbolic_trace needs named parameters)."""
    names = [f"a{i}" for i in range(n)]
    ns: dict = {"fn": fn}
    exec(f"def wrapper({', '.join(names)}):\n    return fn({', '.join(names)})", ns)
    return torch.fx.symbolic_trace(ns["wrapper"])


def computing_ops() -> list:
    """Registered ops that compute values (not views, not structural ops)."""
    from autograph.backends.triton.lowerings import views

    return [op for op, fn in registered().items() if fn.__module__ != views.__name__ and family(op) not in STRUCTURAL]


def exercised_ops() -> list:
    return sorted((op for op in computing_ops() if calls(op)), key=key)


def test_every_registered_op_is_exercised():
    """A registered pointwise/reduction lowering this file cannot build inputs for must be added."""
    assert [key(op) for op in computing_ops() if not calls(op)] == []


@pytest.mark.parametrize("op", exercised_ops(), ids=key)
def test_lowering_matches_eager_on_edge_values(triton_backend, op):
    errors = run_op(triton_backend, op)
    assert errors == [], "\n".join(errors)


def test_floor_division_whose_float_quotient_rounds_up(compile_fn):
    """3.0 / 0.3 rounds to 10.0 in float32, but 3.0 // 0.3 is 9 (aten computes it from fmod)."""
    x = torch.tensor([3.0, -3.0, 0.9, 7.0])
    fn = lambda x: torch.div(x, 0.3, rounding_mode="floor")  # noqa: E731
    compiled = compile_fn(fn, x)
    assert compiled.kernels
    assert torch.equal(compiled(x), fn(x))


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])  # half: declined
def test_rounding_division_sweep(compile_fn, dtype):
    """Quotients next to integers over many magnitudes: floor/trunc division and remainder-like use."""
    g = torch.Generator().manual_seed(0)
    y = (torch.rand(20000, generator=g, dtype=torch.float64) * 20 - 10) * 10.0 ** torch.randint(-3, 4, (20000,), generator=g)
    k = torch.randint(-1000, 1000, (20000,), generator=g).double()
    x = (k * y * (1 + (torch.rand(20000, generator=g, dtype=torch.float64) - 0.5) * 1e-6)).to(dtype)
    y = y.to(dtype)

    def fn(x, y):
        return torch.div(x, y, rounding_mode="floor"), torch.div(x, y, rounding_mode="trunc"), x // 0.3

    compiled = compile_fn(fn, x, y)
    assert compiled.kernels or dtype == torch.float16  # half rounding division runs as aten
    for got, want in zip(compiled(x, y), fn(x, y)):
        assert identical(got, want, approximate=False) is None


def test_log1p_and_expm1_near_the_float_maximum(compile_fn):
    """log1p(x) for x > ~3.9e36 and expm1(x) for x in (83, 88.7) overflowed an intermediate."""
    x = torch.tensor([3.9e36, 1e37, 1e38, 3.4e38, 83.5, 85.0, 87.0, 88.5, 88.7, 1e-10, -1e-10, 0.5, -0.5])

    def fn(x):
        return torch.log1p(x), torch.expm1(x)

    compiled = compile_fn(fn, x)
    assert compiled.kernels
    for got, want in zip(compiled(x), fn(x)):
        assert identical(got, want, approximate=True) is None


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_var_of_rows_whose_sum_overflows(compile_fn, dtype):
    """Values near the float maximum: the plain sum overflows, the variance does not."""
    big = torch.finfo(dtype).max / 2
    x = torch.tensor([[big, big, big, big], [1.0, 2.0, 3.0, 4.0], [-big, -big, -big, -big]], dtype=dtype)

    def fn(x):
        var, mean = torch.var_mean(x, 1, correction=0)
        return torch.var(x, 1), var, mean

    compiled = compile_fn(fn, x)
    assert compiled.kernels and compiled.graphs[0].fallback_reason is None
    for got, want in zip(compiled(x), fn(x)):
        assert torch.isfinite(want).all()
        assert identical(got, want, approximate=True) is None, (got, want)
