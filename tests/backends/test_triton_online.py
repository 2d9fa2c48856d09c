"""One-pass statistics of wide (looped) rows (``online.py``): the passes the generated kernels
make over a row, and results against eager within the float-sum tolerance of the exactness
tests (rtol 1e-5 for float32, 2e-3 for float16, 1.6e-2 for bfloat16)."""
from __future__ import annotations

import math

import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

pytestmark = pytest.mark.triton

TOL = {torch.float32: 1e-5, torch.float16: 2e-3, torch.bfloat16: 1.6e-2}


def generate(fn, *inputs, gpu=True):
    from autograph.backends.triton.backend import TritonBackend, decompositions

    gm = make_fx(fn, decomposition_table=decompositions())(*inputs)
    return TritonBackend("/nonexistent-cache-unused")._generate(gm, gpu=gpu)


def passes(record) -> list[int]:
    """Loops over the row per kernel."""
    return [source.count("for roffset in range(") for _, source in record["kernels"]]


def close(got: torch.Tensor, want: torch.Tensor, atol: float = 0.0) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    g, w = got.double(), want.double()
    ok = torch.isclose(g, w, rtol=TOL[want.dtype], atol=atol, equal_nan=True) | (g.abs() < 1e-30) & (w.abs() < 1e-30)
    ok &= torch.isinf(g) == torch.isinf(w)
    assert bool(ok.all()), (g[~ok][:5], w[~ok][:5])


def test_wide_softmax_takes_two_passes_over_the_row():
    """Before: a max loop, a sum-of-exp loop and the normalising loop (3 passes)."""
    wide = generate(lambda x: torch.softmax(x, -1), torch.empty(64, 4096, device="meta"))
    assert passes(wide) == [2]
    (_, source), = wide["kernels"]
    assert "tl.exp(acc0 - tmp3)" in source or "* tmp4 + tmp5" in source  # the running sum is rescaled
    log = generate(lambda x: torch.log_softmax(x, -1), torch.empty(64, 4096, device="meta"))
    assert passes(log) == [2]


def test_persistent_rows_keep_the_exact_two_pass_form():
    narrow = generate(lambda x: torch.softmax(x, -1), torch.empty(64, 1024, device="meta"))
    assert passes(narrow) == [0]
    (_, source), = narrow["kernels"]
    assert "acc" not in source


def _rows(width: int, dtype: torch.dtype) -> torch.Tensor:
    torch.manual_seed(0)
    x = torch.randn(9, width) * 4
    x[1, ::7] = -math.inf  # masked positions, as an attention mask makes them
    x[2, : width // 2] = -math.inf  # the running max starts at -inf for half the row
    x[3] = -math.inf  # a fully masked row: NaN in eager
    x[4, width - 3] = math.inf
    x[5, 17] = math.nan
    x[6] = torch.linspace(-80, 80, width)  # the max grows along the row (many rescales)
    x[7] = torch.linspace(80, -80, width)
    x[8] *= 30  # exp underflows for most elements
    return x.to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("width", [1025, 3001, 4096])
def test_online_softmax_matches_eager(compile_fn, dtype, width):
    x = _rows(width, dtype)

    def fn(x):
        return torch.softmax(x, -1), torch.log_softmax(x, -1), torch.logsumexp(x.float(), -1)

    compiled = compile_fn(fn, x)
    got = compiled(x)
    assert compiled.graphs[0].fallback_reason is None
    assert any("tl.exp(acc" in k.source for k in compiled.kernels)
    want = list(fn(x))
    if dtype != torch.float32:  # eager's CPU log_softmax of half rows rounds an intermediate to the
        # half type (off by up to 2.0 at -394 in bfloat16, also before online softmax): compare
        # with the float32 result rounded once, which the kernel computes
        want[1] = torch.log_softmax(x.float(), -1).to(dtype)
    # the log of a sum carries the sum's relative rounding (a few float32 ulps) as an absolute
    # error: log_softmax of a row's dominant element is 0 or -1.2e-7 depending on the sum order
    for g, w, atol in zip(got, want, (0.0, 4 * 2.0 ** -23, 0.0)):
        close(g, w, atol)


def test_softmax_over_a_middle_dim_and_with_a_scale(compile_fn):
    x = torch.randn(3, 1500, 5)

    def fn(x):
        return torch.softmax(x * 0.125, 1), torch.softmax(x.transpose(1, 2), -1)

    compiled = compile_fn(fn, x)
    for g, w in zip(compiled(x), fn(x)):
        close(g, w)


# -- Welford ------------------------------------------------------------------------------------
def test_wide_var_mean_and_layer_norm_take_one_pass_for_their_statistics():
    """Before: the sum, the shifted sum and the squared deviations each looped over the row (3
    passes; LayerNorm 4 with its output)."""
    stats = generate(lambda x: torch.var_mean(x, -1), torch.empty(64, 4096, device="meta"))
    assert passes(stats) == [1]
    norm = generate(lambda x, w, b: torch.nn.functional.layer_norm(x, (4096,), w, b),
                    torch.empty(64, 4096, device="meta"), torch.empty(4096, device="meta"),
                    torch.empty(4096, device="meta"))
    assert passes(norm) == [2]
    narrow = generate(lambda x: torch.var_mean(x, -1), torch.empty(64, 1024, device="meta"))
    assert "welford" not in narrow["kernels"][0][0]  # persistent rows: the exact shifted two-pass


def _stat_rows(width: int) -> torch.Tensor:
    torch.manual_seed(1)
    x = torch.randn(10, width)
    x[1] = x[1] * 1e-3 + 1e4  # a large mean, a small spread (cancellation in a plain two-pass)
    x[2] = 3.0e38 * torch.sign(x[2])  # the plain sum overflows, the deviations overflow: var inf
    x[3] = torch.rand(width) * 1e38 + 2e38  # the sum overflows, the variance is finite
    x[4, 5] = math.inf
    x[5, width - 1] = -math.inf
    x[6, 100] = math.nan
    x[7] = 2.5  # constant: var 0
    x[8, ::2] = math.inf
    x[9] = torch.linspace(-1, 2, width) ** 3
    return x


@pytest.mark.parametrize("width", [1025, 2048, 5000])
def test_welford_statistics_match_eager(compile_fn, width):
    x = _stat_rows(width)

    def fn(x):
        v, m = torch.var_mean(x, -1)
        return v, m, torch.var(x, -1, correction=0), torch.std(x, -1, keepdim=True), x.var(-1, correction=2)

    compiled = compile_fn(fn, x)
    assert compiled.graphs[0].fallback_reason is None
    assert any("welford" in k.name for k in compiled.kernels)
    got, want = list(compiled(x)), list(fn(x))
    # the mean of a row holding inf depends on the order eager's own Welford loop meets it (NaN
    # or inf), and of row 2 eager accumulates in float64 (finite) where the float32 shift
    # overflows (NaN, also before this change): compared on the other rows
    rows = [0, 1, 3, 7, 9]
    got[1], want[1] = got[1][rows], want[1][rows]
    # std of rows 2 and 3: eager takes the square root in float64, finite where the float32
    # variance overflows (inf here and before this change)
    rows = [0, 1, 4, 5, 6, 7, 8, 9]
    got[3], want[3] = got[3][rows], want[3][rows]
    # a mean near 0 of values near 1 (row 0) has an absolute error of a few float32 ulps of 1
    for g, w, atol in zip(got, want, (0.0, 1e-6, 0.0, 0.0, 0.0)):
        close(g, w, atol)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_wide_layer_norm_matches_eager(compile_fn, dtype):
    torch.manual_seed(2)
    x = (torch.randn(6, 3000) * 3 + 1).to(dtype)
    w, b = torch.randn(3000).to(dtype), torch.randn(3000).to(dtype)

    def fn(x, w, b):
        return torch.nn.functional.layer_norm(x, (3000,), w, b)

    compiled = compile_fn(fn, x, w, b)
    got = compiled(x, w, b)
    assert any("welford" in k.name for k in compiled.kernels)
    want = fn(x.float(), w.float(), b.float()).to(dtype) if dtype != torch.float32 else fn(x, w, b)
    close(got, want, atol=1e-5)


def test_welford_over_several_dims(compile_fn):
    x = torch.randn(4, 40, 30) * 2 + 5

    def fn(x):
        v, m = torch.var_mean(x, (1, 2), keepdim=True)
        return v, m, x.var((0, 2))

    compiled = compile_fn(fn, x)
    assert any("welford" in k.name for k in compiled.kernels)
    for g, w in zip(compiled(x), fn(x)):
        close(g, w)


def test_one_pass_kernels_compile_to_ptx(tmp_path):
    pytest.importorskip("triton")
    from tests.backends.ptx import compile_kernels_to_ptx

    record = generate(lambda x, h: (torch.softmax(x, -1), torch.var_mean(x, -1), torch.log_softmax(h.float(), -1),
                                    torch.var(h, -1)),
                      torch.empty(16, 3000, device="meta"), torch.empty(16, 2048, dtype=torch.float16, device="meta"))
    sources = "\n".join(s for _, s in record["kernels"])
    assert "tl.exp(acc" in sources and "welford" in sources
    compile_kernels_to_ptx(record, tmp_path)
