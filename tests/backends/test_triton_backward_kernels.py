"""Kernels of a transformer block's backward that did more memory work than Inductor's (issue 28):
the q/k/v gradients concatenated for the qkv Linear, and the GELU backward with its bias
gradient. Shown on the generated kernels (index expressions, loads per kernel, PTX vector
loads) and by interpreter runs against eager."""
from __future__ import annotations

import re

import pytest
import torch
import torch.nn.functional as F

from tests.backends.test_triton_design_gaps import generate

pytestmark = pytest.mark.triton

B, T, H, D = 2, 8, 3, 4


def _merge_heads_cat(q, k, v):
    """The qkv Linear's input gradient: per-head (B, H, T, D) tensors back to (B, T, 3C)."""
    b, h, t, d = q.shape
    return torch.cat([z.transpose(1, 2).reshape(b, t, h * d) for z in (q, k, v)], dim=2)


def _heads(*shape, device="cpu"):
    """A (B, H, T, D) tensor laid out as (B, T, H, D) in memory (what attention's backward returns)."""
    b, h, t, d = shape
    if device == "meta":
        return torch.empty(b, t, h, d, device="meta", dtype=torch.bfloat16).transpose(1, 2)
    return torch.randn(b, t, h, d).transpose(1, 2)


def _loads(source: str) -> list[str]:
    return re.findall(r"tl\.load\((\w+) \+ \((.*?)\), ", source)


# -- reshapes split only the dims they change -----------------------------------------------------------
def test_cat_of_merged_heads_reads_each_input_at_a_shifted_contiguous_offset():
    """Each input is read at ``-offset + 393216*x0 + 768*x1 + x2`` (no ``//`` or ``%`` of the
    index): before, the reshape's whole flat index was split again, leaving ``((x2 - 1536) // 64)
    % 12`` and ``// 393216`` terms that hid the contiguity from triton (scalar 2-byte loads)."""
    q, k, v = (_heads(8, 12, 512, 64, device="meta") for _ in range(3))
    record = generate(_merge_heads_cat, q, k, v)
    assert len(record["kernels"]) == 1
    loads = _loads(record["kernels"][0][1])
    assert len(loads) == 3 and len({ptr for ptr, _ in loads}) == 3  # one load per input
    offsets = sorted(offset for _, offset in loads)
    assert offsets == ["-1536 + 393216*x0 + 768*x1 + x2", "-768 + 393216*x0 + 768*x1 + x2",
                       "393216*x0 + 768*x1 + x2"], offsets


def test_reshape_keeps_unchanged_dims_and_joins_split_ones():
    """(8, 512, 768) -> (8, 512, 12, 64) -> permute -> reshape back: the index is the identity's."""
    def fn(x):
        y = x.view(8, 512, 12, 64).permute(0, 2, 1, 3)
        return (y.transpose(1, 2).reshape(8, 512, 768) * 2)

    record = generate(fn, torch.empty(8, 512, 768, device="meta"))
    offsets = [offset for _, offset in _loads(record["kernels"][0][1])]
    assert offsets == ["xindex"], offsets  # (the flat row index: the kept dims are contiguous)


def test_merged_heads_cat_loads_are_vectorized_in_ptx(tmp_path):
    """Compiled for sm_90 with the launcher's 16-byte alignment facts and the 1024-element,
    4-warp config (8 bf16 per thread): each input is read with 128-bit ``ld.global.v4.b32``."""
    pytest.importorskip("triton")
    from tests.backends.ptx import compile_kernels_to_ptx

    q, k, v = (_heads(8, 12, 512, 64, device="meta") for _ in range(3))
    record = generate(_merge_heads_cat, q, k, v)
    (name, source), = record["kernels"]
    configs = re.findall(r"triton\.Config\(\{'XBLOCK': (\d+)\}, num_warps=(\d+)\)", source)
    config = configs.index(("1024", "4"))
    compile_kernels_to_ptx(record, tmp_path, config=config, aligned=True)
    ptx = (tmp_path / f"{name}.ptx").read_text()
    assert len(re.findall(r"ld\.global(?:\.\w+)*\.v4\.b32", ptx)) == 3, re.findall(r"ld\.global\S*", ptx)
    assert not re.search(r"ld\.global(?:\.\w+)*\.b16", ptx)


@pytest.mark.parametrize("shape", [(B, H, T, D), (1, 5, 3, 7)])
def test_merged_heads_cat_matches_eager(compile_fn, shape):
    q, k, v = (_heads(*shape) for _ in range(3))
    compiled = compile_fn(_merge_heads_cat, q, k, v)
    assert compiled.graphs[0].fallback_reason is None
    torch.testing.assert_close(compiled(q, k, v), _merge_heads_cat(q, k, v), rtol=0, atol=0)


def test_reshape_groups_pair_dims_with_equal_products():
    import sympy

    from autograph.backends.triton.lowerings.views import reshape_groups

    assert reshape_groups((8, 512, 768), (8, 512, 12, 64)) == [((0, 1), (0, 1)), ((1, 2), (1, 2)), ((2, 3), (2, 4))]
    assert reshape_groups((6, 4), (4, 6)) == [((0, 2), (0, 2))]  # no finer grouping exists
    assert reshape_groups((8, 1, 768), (8, 768)) == [((0, 1), (0, 1)), ((1, 3), (1, 2))]
    assert reshape_groups((), (1, 1)) == [((0, 0), (0, 2))]
    s0 = sympy.Symbol("s0", integer=True, positive=True)
    assert reshape_groups((s0, 768), (s0, 12, 64)) == [((0, 1), (0, 1)), ((1, 2), (1, 3))]
    assert reshape_groups((s0 * 768,), (s0, 768)) is None  # symbolic products: one flat group


@pytest.mark.parametrize("case", ["split", "merge", "flatten", "unflatten_shifted"])
def test_reshapes_match_eager(compile_fn, case):
    """Reshapes that split, merge, flatten and unflatten dims (also of a slice, whose index is
    shifted): grouped reshape indexing and joined dims give eager's values."""
    x = torch.randn(4, 6, 10)

    def fn(x):
        if case == "split":
            return x.reshape(4, 2, 3, 5, 2) + 1
        if case == "merge":
            return x.transpose(0, 1).reshape(6, 40) * 2
        if case == "flatten":
            return x.permute(2, 0, 1).reshape(-1) - 1
        return torch.cat([x[:, 1:, :].reshape(4, 5, 2, 5), x[:, :1, :].reshape(4, 1, 2, 5)], dim=1) * 3

    compiled = compile_fn(fn, x)
    assert compiled.graphs[0].fallback_reason is None
    torch.testing.assert_close(compiled(x), fn(x), rtol=0, atol=0)


# -- a value already in memory is read, not recomputed ----------------------------------------------------
class _MLP(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc, self.proj = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)

    def forward(self, x):
        return self.proj(F.gelu(self.fc(x), approximate="tanh"))


def _mlp_backward(compile_fn, d=8, rows=16):
    torch.manual_seed(0)
    mlp = _MLP(d)
    x = torch.randn(2, rows, d, requires_grad=True)
    gm = torch.fx.symbolic_trace(mlp)
    compiled = compile_fn(gm, x)
    compiled(x).pow(2).sum().backward()
    backward = next(g for g in compiled.graphs if g.kind == "backward")
    return mlp, x, backward


def _generated_backward(module: torch.nn.Module, x: torch.Tensor) -> dict:
    """The backward aten graph AOTAutograd gives ``module`` (partitioned as the backend does),
    generated for CUDA; runs on meta tensors (full sizes, nothing computed)."""
    from torch._functorch.aot_autograd import aot_module_simplified

    from autograph.backends.triton.backend import TritonBackend, decompositions, partitioner

    graphs = {}

    def capture(kind):
        def compiler(gm, inputs):
            graphs[kind] = gm
            return gm

        return compiler

    class Flat(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = module

        def forward(self, x):
            return (self.inner(x),)

    fn = aot_module_simplified(Flat(), [x], fw_compiler=capture("forward"), bw_compiler=capture("backward"),
                               decompositions=decompositions(), partition_fn=partitioner())
    fn(x)[0].sum().backward()
    return TritonBackend("/nonexistent-cache-unused")._generate(graphs["backward"], gpu=True)


def test_gelu_backward_bias_gradient_reads_the_matmul_operand():
    """GPT-2's MLP on (8, 512, 768) in bf16: the bias gradient of ``fc`` is a column sum of the
    GELU backward's output viewed as (4096, 3072), which the backward's matmuls need in memory
    anyway. Its kernel reads
    that one bf16 buffer; before, it recomputed the whole GELU backward from the saved
    pre-activation, the output gradient and a float32 tanh (8 bytes per element instead of 2),
    and the GELU kernel stored that tanh for it (4 more bytes per element written)."""
    mlp = _MLP(768).to(device="meta", dtype=torch.bfloat16)
    x = torch.empty(8, 512, 768, device="meta", dtype=torch.bfloat16, requires_grad=True)
    record = _generated_backward(mlp, x)
    kernels = dict(record["kernels"])
    gelu = [name for name, s in kernels.items() if "tanh" in s]
    assert len(gelu) == 1, list(kernels)  # computed once, in one kernel
    assert kernels[gelu[0]].count("tl.store(") == 1  # only the input gradient: no tanh buffer
    launches = re.findall(r"(triton_\w+)\[grid_\w+\]\((.*)\)", record["wrapper"])
    gelu_out = [args.split(", ") for name, args in launches if name == gelu[0]][0][-2]
    readers = [name for name, args in launches if gelu_out in args.split(", ") and name != gelu[0]]
    assert readers, "the bias gradient does not read the GELU gradient from memory"
    for name in readers:  # the column sum's first stage: one load, of the GELU gradient
        assert len(_loads(kernels[name])) == 1 and "tanh" not in kernels[name], kernels[name]


def test_gelu_backward_matches_eager(compile_fn):
    mlp, x, backward = _mlp_backward(compile_fn)
    got = [x.grad] + [p.grad for p in mlp.parameters()]
    ref = _MLP(8)
    ref.load_state_dict(mlp.state_dict())
    x2 = x.detach().clone().requires_grad_(True)
    ref(x2).pow(2).sum().backward()
    want = [x2.grad] + [p.grad for p in ref.parameters()]
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)


def test_a_value_stored_as_float32_is_recomputed_from_its_half_precision_input():
    """Reading a stored value must not read more bytes than recomputing it: ``x.float() * 2`` is
    in memory for the matmul (4 bytes per element), but the sum after the matmul reads the bf16
    ``x`` (2 bytes) again."""
    def fn(x, w):
        y = x.float() * 2
        z = y @ w
        return z, (y * z.sum()).sum(0)

    record = generate(fn, torch.empty(64, 32, dtype=torch.bfloat16, device="meta"),
                      torch.empty(32, 16, device="meta"))
    launches = re.findall(r"(triton_\w+)\[grid_\w+\]\((.*)\)", record["wrapper"])
    stored = launches[0][1].split(", ")[-2]  # y, the matmul's operand, in float32
    after_mm = re.findall(r"(triton_\w+)\[grid_\w+\]\((.*)\)", record["wrapper"].split("aten.mm.default", 1)[1])
    readers_of_y = [args.split(", ") for _, args in after_mm if "x_1" in args.split(", ")]
    assert readers_of_y and not any(stored in args.split(", ") for _, args in after_mm), after_mm


# -- per-row operands of a row reduction are loaded once per row ---------------------------------------
def _layer_norm_input_grad(x, g, w, mean, rstd):
    """LayerNorm's input gradient as the decomposed backward computes it (per-row mean, rstd)."""
    xhat = (x.float() - mean) * rstd
    gw = g.float() * w.float()
    n = x.shape[-1]
    dx = (rstd / n) * (gw * n - gw.sum(-1, keepdim=True) - xhat * (gw * xhat).sum(-1, keepdim=True))
    return dx.to(x.dtype)


def _ln_inputs(rows, n, device="meta", dtype=torch.bfloat16):
    make = (lambda *s, dtype=dtype: torch.empty(*s, device="meta", dtype=dtype)) if device == "meta" else \
        (lambda *s, dtype=dtype: torch.randn(*s, dtype=dtype))
    return make(rows, n), make(rows, n), make(n), make(rows, 1, dtype=torch.float32), \
        make(rows, 1, dtype=torch.float32).abs() + 0.5


def test_per_row_operands_of_a_row_reduction_are_row_blocks():
    """The mean and rstd of a LayerNorm backward are read with ``xmask`` (an ``[XBLOCK, 1]``
    block), not ``xrmask``: before, each of the row's lanes loaded the same element and the
    division ``rstd / 768`` ran once per element."""
    record = generate(_layer_norm_input_grad, *_ln_inputs(4096, 768))
    (name, source), = record["kernels"]
    per_row = re.findall(r"tl\.load\(in_ptr\d \+ \((x0)\), (\w+), other=0\)", source)
    assert len(per_row) == 2 and all(mask == "xmask" for _, mask in per_row), per_row
    assert all(mask == "xrmask" for offset, mask in re.findall(r"tl\.load\(in_ptr\d \+ \((.*?)\), (\w+),", source)
               if "r0" in offset)


def test_per_row_operands_compile_to_one_load_and_one_division_per_row(tmp_path):
    pytest.importorskip("triton")
    from tests.backends.ptx import compile_kernels_to_ptx

    record = generate(_layer_norm_input_grad, *_ln_inputs(4096, 768))
    (name, source), = record["kernels"]
    configs = re.findall(r"triton\.Config\(\{'XBLOCK': (\d+), 'RBLOCK': (\d+)\}, num_warps=(\d+)\)", source)
    config = configs.index(("1", "1024", "4"))  # one row per program, 4 warps
    compile_kernels_to_ptx(record, tmp_path, config=config, aligned=True)
    ptx = (tmp_path / f"{name}.ptx").read_text()
    loads = re.findall(r"ld\.global\S*", ptx)
    scalar = [ld for ld in loads if not re.search(r"\.v\d\.", ld)]
    assert len(scalar) == 2 and all(ld.endswith(".b32") for ld in scalar), loads  # mean and rstd
    assert len(re.findall(r"\bdiv\.rn\.f32", ptx)) == 1


@pytest.mark.parametrize("n", [48, 1500])  # one block per row, and a looped row
def test_per_row_operands_match_eager(compile_fn, n):
    torch.manual_seed(0)
    x, g, w, mean, rstd = _ln_inputs(6, n, device="cpu", dtype=torch.float32)

    def fn(x, g, w, mean, rstd):
        dx = _layer_norm_input_grad(x, g, w, mean, rstd)
        scaled = (rstd * 3).expand(6, n) + 0  # per-row only, stored over the full space
        return dx, scaled, (x * rstd).var(-1), (x - mean).amax(-1)

    compiled = compile_fn(fn, x, g, w, mean, rstd)
    assert compiled.graphs[0].fallback_reason is None
    for got, want in zip(compiled(x, g, w, mean, rstd), fn(x, g, w, mean, rstd)):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)


# -- the same cat when attention's backward returns contiguous (B, H, T, D) gradients --------------------
def test_cat_of_transposed_heads_is_vectorized_in_ptx(tmp_path):
    """Contiguous (B, H, T, D) gradients (CUDA attention backwards allocate them so): each input
    is read in runs of 64 elements. The offset is written over ``xindex``
    (``32768*((xindex // 64) % 36) + ... + (xindex % 64)``): over the loop variable ``x2 =
    xindex % 2304`` (``x2 // 64``, ``x2 % 64``) triton's axis analysis saw no contiguity and
    read 2 bytes at a time."""
    pytest.importorskip("triton")
    from tests.backends.ptx import compile_kernels_to_ptx

    q, k, v = (torch.empty(8, 12, 512, 64, device="meta", dtype=torch.bfloat16) for _ in range(3))
    record = generate(_merge_heads_cat, q, k, v)
    (name, source), = record["kernels"]
    assert len(_loads(source)) == 3 and "(xindex % 64)" in source and "x2 % 64" not in source
    configs = re.findall(r"triton\.Config\(\{'XBLOCK': (\d+)\}, num_warps=(\d+)\)", source)
    compile_kernels_to_ptx(record, tmp_path, config=configs.index(("1024", "4")), aligned=True)
    ptx = (tmp_path / f"{name}.ptx").read_text()
    assert len(re.findall(r"ld\.global(?:\.\w+)*\.v4\.b32", ptx)) == 3, re.findall(r"ld\.global\S*", ptx)


@pytest.mark.parametrize("shape", [(B, H, T, D), (2, 3, 5, 8)])
def test_cat_of_transposed_heads_matches_eager(compile_fn, shape):
    q, k, v = (torch.randn(*shape) for _ in range(3))
    compiled = compile_fn(_merge_heads_cat, q, k, v)
    assert compiled.graphs[0].fallback_reason is None
    torch.testing.assert_close(compiled(q, k, v), _merge_heads_cat(q, k, v), rtol=0, atol=0)


def test_bias_gradient_of_the_cat_reads_the_cat_buffer():
    """The qkv bias gradient sums the concatenated gradients the matmul reads: its kernel reads
    that buffer (one unmasked load), as many bytes as the three masked loads of the inputs."""
    def fn(q, k, v, w):
        flat = _merge_heads_cat(q, k, v).view(-1, 3 * 768)
        return flat @ w, flat.sum(0)

    q, k, v = (_heads(8, 12, 512, 64, device="meta") for _ in range(3))
    record = generate(fn, q, k, v, torch.empty(2304, 768, device="meta", dtype=torch.bfloat16))
    sums = [s for _, s in record["kernels"] if "tl.sum(" in s]
    assert sums and all(len(_loads(s)) == 1 and ">=" not in s for s in sums), sums
