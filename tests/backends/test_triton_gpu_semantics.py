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

import functools
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


@pytest.fixture
def gpu_frem_and_libdevice_fmod(monkeypatch):
    """The interpreter's ``%`` of floats as the GPU computes it, and libdevice's ``fmod``.

    LLVM's NVPTX backend expands ``frem`` (triton's float ``%``) as ``a - b * trunc(a / b)``,
    each step rounded in the operands' type: ``3.0 % 0.3`` is 0.0 there, not the exact
    0.29999989 (numpy's ``fmod``, which the interpreter uses). CUDA's ``fmod``/``fmodf``
    (libdevice) is exact, as numpy's, but triton links libdevice flushing float32 denormals:
    ``fmodf`` reads its operands with ``abs.ftz.f32`` (``fmod(1e-40, 2)`` is 0, ``fmod(2, 1e-40)``
    NaN) and its fast path rounds with ``fma.rn.ftz.f32`` (a denormal remainder is 0)."""
    pytest.importorskip("triton")
    import triton.language as tl
    from triton.language.extra import libdevice
    from triton.runtime import interpreter

    def frem(self, lhs, rhs):
        a, b = lhs.data, rhs.data
        with np.errstate(all="ignore"):
            return interpreter.TensorHandle(a - np.trunc(a / b) * b, lhs.dtype.scalar)

    def fmod(a, b):  # libdevice's functions are stubs the compiler replaces; here numpy's fmod
        data = a.handle.data
        other = b.handle.data if isinstance(b, tl.core.tensor) else np.asarray(b, data.dtype)
        if data.dtype == np.float32:  # float64 keeps its denormals (.ftz is for .f32 only)
            with np.errstate(invalid="ignore"):
                return tl.core.tensor(interpreter.TensorHandle(_flush(np.fmod(_flush(data), _flush(other))),
                                                               a.dtype), a.type)
        return tl.core.tensor(interpreter.TensorHandle(np.fmod(data, other), a.dtype), a.type)

    monkeypatch.setattr(interpreter.InterpreterBuilder, "create_frem", frem)
    monkeypatch.setattr(libdevice, "fmod", fmod)


def _run_cuda_kernel(directory, name: str, source: str, *tensors, numel: int):
    """A CUDA kernel's source run by the interpreter (autotuning left out: one block)."""
    import importlib.util

    path = directory / f"{name}.py"
    path.write_text(re.sub(r"^@triton\.autotune\(.*\)\n", "", source, flags=re.M))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    getattr(module, name)[(1,)](*tensors, numel, XBLOCK=1 << (numel - 1).bit_length())


def _div_floor_kernel_cuda(x: np.ndarray, b: float, acc) -> np.ndarray:
    """aten's div_floor_kernel_cuda for a CPU scalar ``b`` (op-math type ``acc``), in numpy."""
    a, b = x.astype(acc), acc(b)
    inverse = acc(1) / b
    mod = np.fmod(a, b)
    div = (a - mod) * inverse
    div = np.where((mod != 0) & ((b < 0) != (mod < 0)), div - acc(1), div)
    floored = np.floor(div)
    floored = np.where(div - floored > acc(0.5), floored + acc(1), floored)
    return np.where(div == 0, np.copysign(np.zeros_like(div), a * inverse), floored)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int32, torch.float32, torch.float64])
def test_cuda_floor_division_by_a_scalar_uses_an_exact_fmod(gpu_frem_and_libdevice_fmod, tmp_path, dtype):
    """uint8 [3] // 0.3 is 9 on CUDA: div_floor_kernel_cuda computes (a - fmod(a, b)) * (1 / b)
    with the exact fmod. The kernel used triton's float ``%``, which the GPU computes as
    a - b * trunc(a / b): 3 % 0.3 was 0 there, and 3 // 0.3 gave 10."""
    values = [3, 6, 9, 15, 30, 60, 100, 127, 1, 0, 2, 7, 12, 21, 33, 45]
    record = _cuda_record(lambda x: x // 0.3, ((len(values),), dtype))
    (name, source), = record["kernels"]
    x = torch.tensor(values, dtype=dtype)
    out = torch.empty(len(values), dtype=torch.float64 if dtype == torch.float64 else torch.float32)
    _run_cuda_kernel(tmp_path, name, source, x, out, numel=len(values))
    acc = np.float64 if dtype == torch.float64 else np.float32
    want = _div_floor_kernel_cuda(x.numpy(), 0.3, acc)
    assert np.array_equal(out.numpy(), want), (out, want)
    assert out[0].item() == (10.0 if dtype == torch.float64 else 9.0)  # float64 0.3 is below 3/10


def test_cuda_floor_division_compiles_with_libdevice_fmod(tmp_path):
    pytest.importorskip("triton")
    from tests.backends.ptx import compile_kernels_to_ptx

    record = _cuda_record(lambda x, y, d: (x // 0.3, x // y, d // 0.3, y // 2, y // -3, 2 // y, d // 0.0,
                                           torch.floor_divide(d, d * 2), y // float("nan"), d // float("inf")),
                          ((64,), torch.uint8), ((64,), torch.float32), ((64,), torch.float64))
    assert all("libdevice.fmod" in source for _, source in record["kernels"])
    compile_kernels_to_ptx(record, tmp_path)


def _div_floor_floating(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """c10's div_floor_floating (aten's CUDA kernel of a tensor divisor), in numpy: IEEE, no flushing."""
    with np.errstate(all="ignore"):
        mod = np.fmod(a, b)
        div = (a - mod) / b
        div = np.where((mod != 0) & ((b < 0) != (mod < 0)), div - a.dtype.type(1), div)
        floored = np.floor(div)
        floored = np.where(div - floored > a.dtype.type(0.5), floored + a.dtype.type(1), floored)
        floored = np.where(div == 0, np.copysign(np.zeros_like(div), a / b), floored)
        return np.where(b == 0, a / b, floored)


DENORMAL_EDGES = [0.0, -0.0, 1.0, -2.0, 0.3, 7.0, 3e38, -1e-40, 1e-40, 1e-45, -1e-30, float("inf"), float("nan")]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy on inf, nan and zero divisors
def test_cuda_floor_division_of_denormals_is_not_flushed(gpu_front_end, gpu_frem_and_libdevice_fmod, tmp_path):
    """On an H200, 1e-40 // -2 gave 0.0 (eager CUDA: -1.0) and 0.0 // 1e-40 NaN (eager: 0.0): the
    float32 fmod was libdevice's, which triton links flushing denormals (fmod(1e-40, -2) was 0,
    fmod(0, 1e-40) NaN). Run here with the GPU's flushing fmodf and floor."""
    edges = np.array(DENORMAL_EDGES, dtype=np.float32)
    x, y = (torch.from_numpy(v.copy()) for v in (np.repeat(edges, len(edges)), np.tile(edges, len(edges))))
    (name, source), = _cuda_record(lambda x, y: torch.div(x, y, rounding_mode="floor"),
                                   ((len(x),), torch.float32), ((len(y),), torch.float32))["kernels"]
    out = torch.empty(len(x))
    _run_cuda_kernel(tmp_path, name, source, x, y, out, numel=len(x))
    want = _div_floor_floating(x.numpy(), y.numpy())
    assert _same(out, torch.from_numpy(want)), [(a, b, g, w) for a, b, g, w in zip(x.tolist(), y.tolist(),
                                                out.tolist(), want.tolist()) if not _same(torch.tensor(g), torch.tensor(w))]
    for scalar in (-2, -0.5, 0.3, 1e-40):  # div_floor_kernel_cuda: a CPU scalar divisor
        (name, source), = _cuda_record(functools.partial(torch.div, other=scalar, rounding_mode="floor"),
                                       ((len(edges),), torch.float32))["kernels"]
        a, out = torch.from_numpy(edges.copy()), torch.empty(len(edges))
        _run_cuda_kernel(tmp_path, name, source, a, out, numel=len(edges))
        with np.errstate(all="ignore"):
            want = _div_floor_kernel_cuda(edges, scalar, np.float32)
        assert _same(out, torch.from_numpy(want)), (scalar, out, want)
        if scalar < 0:  # the H200's case: 1e-40 // -2 is -1 on eager CUDA
            assert out[DENORMAL_EDGES.index(1e-40)].item() == -1.0


# eager CUDA on an H200 (torch 2.11.0+cu130): x // y and x // -2 of float32 denormals and neighbours
H200_X = [1e-40, -1e-40, 1e-45, -3e-39, 1.1e-38, 0.0, -130.0, -140.0, -149.0, -127.5, 0.3, -2.0, 5e-39, -7e-40, 3.0, 1e-30]
H200_Y = [-2.0, 3.0, 1e-40, -1e-40, 0.3, 1e-40, 7.0, -2.0, 1e-45, 2.0, 1e-40, 1e-40, -2.0, -0.5, 1e-40, 3e-39]
H200_X_FLOOR_Y = [-1.0, -1.0, 0.0, 30.0, 0.0, 0.0, -19.0, 70.0, -float("inf"), -64.0, float("inf"), -float("inf"),
                  -1.0, 0.0, float("inf"), 333333248.0]
H200_X_FLOOR_MINUS_2 = [-1.0, 0.0, -1.0, 0.0, -1.0, -0.0, 65.0, 70.0, 74.0, 63.0, -1.0, 1.0, -1.0, 0.0, -2.0, -1.0]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_cuda_floor_division_of_denormals_gives_the_values_measured_on_an_h200(
        gpu_front_end, gpu_frem_and_libdevice_fmod, tmp_path):
    x, y = torch.tensor(H200_X), torch.tensor(H200_Y)
    for fn, inputs, want in ((lambda x, y: torch.div(x, y, rounding_mode="floor"), (x, y), H200_X_FLOOR_Y),
                             (functools.partial(torch.div, other=-2, rounding_mode="floor"), (x,), H200_X_FLOOR_MINUS_2)):
        (name, source), = _cuda_record(fn, *[((len(x),), torch.float32)] * len(inputs))["kernels"]
        out = torch.empty(len(x))
        _run_cuda_kernel(tmp_path, name, source, *inputs, out, numel=len(x))
        assert _same(out, torch.tensor(want)), (out, want)


# floor, whose flushing of a negative denormal FastOps.floor corrects; every other .ftz
# instruction on the floor-division path would read a denormal operand as zero
CORRECTED_FTZ = {"cvt.rmi.ftz.f32.f32"}


def test_cuda_floor_division_compiles_without_flushing_denormals(tmp_path):
    pytest.importorskip("triton")
    from tests.backends.ptx import compile_kernels_to_ptx

    record = _cuda_record(lambda x, y, i, h: (torch.div(x, y, rounding_mode="floor"), x // -2, x // -0.5, x // 0.3,
                                              torch.div(i, y, rounding_mode="floor"), h.float() // y),
                          ((64,), torch.float32), ((64,), torch.float32), ((64,), torch.int64), ((64,), torch.float16))
    compile_kernels_to_ptx(record, tmp_path)
    ptx = "\n".join((tmp_path / f"{name}.ptx").read_text() for name, _ in record["kernels"])
    flushing = set(re.findall(r"^\s*([a-z0-9.]*\.ftz[a-z0-9.]*)", ptx, re.M)) - CORRECTED_FTZ
    assert not flushing, flushing
    assert "cvt.f64.f32" in ptx and "cvt.rn.f32.f64" in ptx  # float32's fmod taken in float64


@pytest.fixture
def gpu_flushing_sin_and_erf(monkeypatch):
    """libdevice's ``sinf`` and ``erff`` as triton links them (flushing denormals): a float32
    denormal operand is read as zero, a denormal result is zero."""
    pytest.importorskip("triton")
    from triton.runtime import interpreter

    def flushing(original):
        def op(self, arg):
            if arg.data.dtype != np.float32:
                return original(self, arg)
            out = original(self, interpreter.TensorHandle(_flush(arg.data), arg.dtype.scalar))
            return interpreter.TensorHandle(_flush(out.data), out.dtype.scalar)
        return op

    for name in ("create_sin", "create_erf"):
        monkeypatch.setattr(interpreter.InterpreterBuilder, name, flushing(getattr(interpreter.InterpreterBuilder, name)))


def test_cuda_sin_and_erf_of_denormals_are_not_flushed(gpu_flushing_sin_and_erf, tmp_path):
    """sin(1e-40) is 1e-40 and erf(1e-40) 1.128e-40 in eager CUDA; libdevice's flushing sinf and
    erff gave 0.0 (hidden from the exactness test, which takes results below 1e-30 as equal).
    float32 only: the interpreter's bfloat16 conversions do not keep denormals."""
    dtype = torch.float32
    x = torch.tensor([1e-40, -1e-40, 1e-45, -3e-39, 1.1e-38, 0.0, -0.0], dtype=dtype)
    (name, source), = _cuda_record(lambda x: (torch.sin(x), torch.erf(x)), ((len(x),), dtype))["kernels"]
    sin, erf = torch.empty_like(x), torch.empty_like(x)
    _run_cuda_kernel(tmp_path, name, source, x, sin, erf, numel=len(x))
    assert _same(sin, torch.sin(x)), (sin, torch.sin(x))
    # eager CUDA rounds erf once (measured on an H200); aten on the CPU is 1 ulp off at -3e-39
    rounded = torch.erf(x.double()).to(dtype)
    assert _same(erf, rounded), (erf, rounded)


def test_cuda_exp2_compiles_to_the_unflushed_instruction(tmp_path):
    """aten's exp2 kernel calls exp2f: ex2.approx.f32, whose results below 2**-126 are denormals
    (exp2(-130) is 7.3e-40). libdevice's exp2f, linked flushing denormals, is ex2.approx.ftz.f32: 0."""
    pytest.importorskip("triton")
    from tests.backends.ptx import compile_kernels_to_ptx

    record = _cuda_record(lambda x, b: (torch.exp2(x), torch.exp2(b)), ((64,), torch.float32), ((64,), torch.bfloat16))
    compile_kernels_to_ptx(record, tmp_path)
    ptx = "\n".join((tmp_path / f"{name}.ptx").read_text() for name, _ in record["kernels"])
    assert "ex2.approx.f32" in ptx and "ex2.approx.ftz" not in ptx, ptx
