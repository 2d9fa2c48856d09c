"""Kernels that are exact under triton's *compiled* semantics, not only in its interpreter.

The first GPU run (H100, triton 3.6) found results the interpreter hides: there, triton's front
end makes a float constant equal to zero the null value (+0.0) and a float's unary minus ``0 - x``;
float32 ``/`` is the approximate ``div.full.f32``; ``tl.sqrt``/``tl.rsqrt`` are approximate and,
like libdevice's ``floor``/``ceil`` (linked with ftz=1), flush denormals to zero. A float literal
is typed float32 in any triton, so float64 maths with ``0.3`` used float32 0.3.

The ``gpu_front_end`` fixture makes the interpreter behave that way (the old front end's two
constant rules; flushing ``floor``/``ceil``/approximate ``sqrt``/``rsqrt``; ``/`` of float32 as
a multiply by the reciprocal), so the kernels' results are checked under those rules on CPU;
the PTX tests check that the IEEE instructions are what reaches the GPU.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

pytestmark = pytest.mark.triton


def _flush(data):
    """Denormals to (signed) zero, as the GPU's ftz instructions read them."""
    if data.dtype not in (np.float32, np.float64):
        return data
    tiny = np.finfo(data.dtype).tiny
    return np.where(np.abs(data) < tiny, np.copysign(np.zeros_like(data), data), data)


@pytest.fixture
def gpu_front_end(monkeypatch):
    pytest.importorskip("triton")
    from triton.language import semantic as sem
    from triton.runtime import interpreter

    builder = interpreter.InterpreterBuilder
    for name in ("create_ceil", "create_floor", "create_sqrt", "create_rsqrt", "create_fdiv"):
        if not hasattr(builder, name):
            pytest.skip(f"this triton's interpreter has no {name}")
    original_constant, original_minus = sem.TritonSemantic.scalar_constant, sem.TritonSemantic.minus

    def scalar_constant(self, value, dtype):  # triton < 3.7: a constant equal to 0 is the null value
        if value == 0 and dtype.is_floating():
            return self.make_tensor(self.builder.get_null_value(dtype.to_ir(self.builder)), dtype)
        return original_constant(self, value, dtype)

    def minus(self, x):  # triton < 3.7: -x is 0 - x for floats too
        if x.type.scalar.is_floating():
            zero = self.make_tensor(self.builder.get_null_value(x.type.scalar.to_ir(self.builder)), x.type.scalar)
            return self.sub(zero, x, True)
        return original_minus(self, x)

    def flushing(op):
        return lambda self, arg: interpreter.TensorHandle(_flush(op(_flush(arg.data))), arg.dtype.scalar)

    def approximate_divide(self, lhs, rhs):
        if lhs.data.dtype != np.float32:
            return self.binary_op(lhs, rhs, np.divide)
        with np.errstate(divide="ignore", invalid="ignore"):
            inverse = np.float32(1) / rhs.data.astype(np.float32)
        return self.binary_op(lhs, interpreter.TensorHandle(inverse, rhs.dtype.scalar), np.multiply)

    monkeypatch.setattr(sem.TritonSemantic, "scalar_constant", scalar_constant)
    monkeypatch.setattr(sem.TritonSemantic, "minus", minus)
    monkeypatch.setattr(builder, "create_ceil", flushing(np.ceil))
    monkeypatch.setattr(builder, "create_floor", flushing(np.floor))
    monkeypatch.setattr(builder, "create_sqrt", flushing(np.sqrt))
    monkeypatch.setattr(builder, "create_rsqrt", flushing(lambda d: 1 / np.sqrt(d)))
    monkeypatch.setattr(builder, "create_fdiv", approximate_divide)


def _same(got: torch.Tensor, want: torch.Tensor) -> bool:
    both_nan = got.isnan() & want.isnan()
    return bool(((got == want) & (got.signbit() == want.signbit()) | both_nan).all())


def _check(compile_fn, fn, *inputs):
    compiled = compile_fn(fn, *inputs)
    assert compiled.graphs[0].fallback_reason is None and compiled.kernels
    got, want = compiled(*inputs), fn(*inputs)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype and _same(g, w), (i, g, w)


EDGES = [-0.0, 0.0, 1.0, -2.0, 0.3, 3.0, 7.0, -1e-40, 1e-40, float("inf"), float("nan")]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_signed_zero_scalars_and_negation(compile_fn, gpu_front_end, dtype):
    x = torch.tensor(EDGES, dtype=dtype)
    _check(compile_fn, lambda x: (x + -0.0, x * -0.0, -0.0 - x, x - 0.0, -x, torch.neg(x * 2), x / -0.0), x)


def test_float64_maths_with_python_floats_stays_float64(compile_fn):
    x = torch.tensor([0.3, 0.1, 1 / 3, 2.5], dtype=torch.float64)
    _check(compile_fn, lambda x: (x == 0.3, x < 0.3, x * 0.1, x + 1 / 3, torch.where(x > 0.2, x, 0.7)), x)
    y = torch.tensor([0.3, 8.0, 1000.0, 7.0], dtype=torch.float64)
    compiled = compile_fn(lambda y: (torch.log2(y), torch.log10(y)), y)
    for got, want in zip(compiled(y), (torch.log2(y), torch.log10(y))):  # within a few float64 ulps
        torch.testing.assert_close(got, want, rtol=1e-15, atol=0)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_comparisons_with_a_python_float_compare_in_the_half_dtype(compile_fn, dtype):
    x = torch.tensor([0.3, 0.29, 0.31, -0.3], dtype=dtype)
    _check(compile_fn, lambda x: (x == 0.3, x != 0.3, x < 0.3, x <= 0.3, x > 0.3, x >= 0.3), x)


def test_float32_division_square_roots_and_rounding_of_denormals(compile_fn, gpu_front_end):
    x = torch.tensor([3.0, 7.0, 1e-40, -1e-40, 0.3, -0.0, 2.0, 1e30], dtype=torch.float32)
    y = torch.tensor([7.0, 3.0, 3.0, 7.0, 0.7, 2.0, 0.3, 0.3], dtype=torch.float32)
    _check(compile_fn, lambda x, y: (x / y, torch.reciprocal(y), torch.sqrt(x.abs()), torch.rsqrt(x.abs()),
                                     torch.ceil(x), torch.floor(x), torch.trunc(x), x.abs() ** 0.5), x, y)


def _cuda_record(fn, *shapes_dtypes):
    """The CUDA kernels (``gpu=True``) of ``fn`` traced on fake CUDA tensors (no GPU needed)."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    from autograph.backends.triton.backend import TritonBackend, decompositions

    with FakeTensorMode(allow_non_fake_inputs=True):
        inputs = [torch.empty(shape, dtype=dtype, device="cuda") for shape, dtype in shapes_dtypes]
    gm = make_fx(fn, tracing_mode="fake", decomposition_table=decompositions())(*inputs)
    return TritonBackend("/nonexistent-unused")._generate(gm, gpu=True)


def test_cuda_graphs_follow_aten_cuda_kernels_in_their_source():
    # x / 3 on CUDA is x * (1 / 3) rounded once (div_true_kernel_cuda); relu(-0.0) is +0.0 there
    record = _cuda_record(lambda x, d, h: (x / 3, torch.relu(x), d / 3, h ** 0.5, h == 0.3,
                                           torch.div(x, 0.3, rounding_mode="floor")),
                          ((8,), torch.float32), ((8,), torch.float64), ((8,), torch.float16))
    source = "\n".join(s for _, s in record["kernels"])
    assert f"== {float(torch.tensor(0.3, dtype=torch.float16))!r}" in source  # CompareEqFunctor<Half>
    assert f"* {float(np.float32(1) / np.float32(3))!r}" in source
    assert f"tl.full([], {1 / 3!r}, tl.float64)" in source
    assert "<= 0, 0," in source
    assert f"* {float(np.float32(1) / np.float32(0.3))!r}" in source  # div_floor_kernel_cuda's reciprocal
    assert "tl.math.sqrt_rn" in source  # float16 ** 0.5 is sqrt on CUDA (exp/log on the CPU)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int64, torch.float32, torch.float64])
def test_cuda_trunc_division_by_a_scalar_multiplies_by_its_reciprocal(dtype):
    """div_trunc_kernel_cuda computes trunc(a * (1 / b)) for a CPU scalar b (eager CUDA: uint8
    [3, 15, 30, 60] / 0.3 truncates to [10, 50, 100, 200]; a true division gives 49, 99, 199)."""
    record = _cuda_record(lambda x: torch.div(x, 0.3, rounding_mode="trunc"), ((8,), dtype))
    source = "\n".join(s for _, s in record["kernels"])
    acc = torch.float64 if dtype == torch.float64 else torch.float32
    inverse = float(torch.tensor(1.0, dtype=acc) / torch.tensor(0.3, dtype=acc))
    assert "div_rn" not in source and " / " not in source.split("@triton.jit")[1], source
    assert repr(inverse) in source, source


def test_float32_maths_compiles_to_ieee_instructions(tmp_path):
    pytest.importorskip("triton")
    from tests.backends.ptx import compile_kernels_to_ptx

    record = _cuda_record(lambda x, y, d: (x / y, torch.sqrt(x), torch.rsqrt(y), torch.reciprocal(x), x.mean(),
                                           d == 0.3, -x, torch.log2(d), torch.log10(x)),
                          ((64,), torch.float32), ((64,), torch.float32), ((64,), torch.float64))
    compile_kernels_to_ptx(record, tmp_path)
    ptx = "\n".join((tmp_path / f"{name}.ptx").read_text() for name, _ in record["kernels"])
    assert "div.rn.f32" in ptx and "sqrt.rn.f32" in ptx
    for approximate in (r"div\.full\.f32", r"div\.approx", r"(?<!r)sqrt\.approx", r"rsqrt\.approx\.ftz"):
        assert not re.search(approximate, ptx), approximate
    assert "rsqrt.approx.f32" in ptx  # aten's rsqrtf, denormals kept
    assert "0d3FD3333333333333" in ptx  # float64 0.3 itself, not float32 0.3 widened (0d3FD3333340000000)
