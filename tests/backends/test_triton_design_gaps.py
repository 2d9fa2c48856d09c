"""Design gaps against Inductor closed in the Triton backend (issue 28), shown on the generated
kernels (grids, index types, saved tensors) and by interpreter runs."""
from __future__ import annotations

import re

import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

pytestmark = pytest.mark.triton


def generate(fn, *inputs, gpu=True):
    from autograph.backends.triton.backend import TritonBackend, decompositions

    gm = make_fx(fn, decomposition_table=decompositions())(*inputs)
    return TritonBackend("/nonexistent-cache-unused")._generate(gm, gpu=gpu)


# -- split reductions -----------------------------------------------------------------------
def test_full_sum_of_a_large_tensor_is_split_over_many_programs():
    """x.sum() over 4096**2 elements: 1024 partial sums (one program each at XBLOCK=1), then one
    small reduction; before, one program reduced all 16M elements (grid (1,))."""
    record = generate(lambda x: x.sum(), torch.empty(4096, 4096, device="meta"))
    assert len(record["kernels"]) == 2
    launches = re.findall(r"(triton_\w+)\[(grid_\w+)\]\((.*)\)", record["wrapper"])
    assert len(launches) == 2
    first_args = launches[0][2].split(", ")
    assert first_args[-2:] == ["1024", "16384"]  # xnumel = partial programs' rows, rnumel = chunk
    grid = re.search(r"def %s\(meta\):\n\s+return (.*)" % launches[0][1], record["wrapper"]).group(1)
    assert eval(grid, {"meta": {"XBLOCK": 4}}) == (256,)
    second_args = launches[1][2].split(", ")
    assert second_args[-2:] == ["1", "1024"]


def test_split_reductions_match_eager_with_a_padded_last_chunk(compile_fn):
    """257 * 401 elements do not divide into the chunks: the padding is the identity of each kind."""
    x = torch.randn(257, 401)
    x[100, 7] = 9.5
    i = torch.randint(-5, 5, (257, 401))

    def fn(x, i):
        return (x.sum(), (x * 2).amax(), x.amin(), x.mean(), i.sum(), (x.abs() * 1e-3 + 1).prod(),
                x.sum(dim=(0, 1), keepdim=True), i.amax())

    compiled = compile_fn(fn, x, i)
    got = compiled(x, i)
    assert compiled.graphs[0].fallback_reason is None
    assert "[grid_" in compiled.graphs[0].wrapper_source or "(32, )" in compiled.graphs[0].wrapper_source
    for g, w in zip(got, fn(x, i)):
        assert g.shape == w.shape and g.dtype == w.dtype
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-3)


def test_small_full_reductions_stay_one_kernel():
    record = generate(lambda x: x.sum(), torch.empty(64, 64, device="meta"))
    assert len(record["kernels"]) == 1


# -- int64 indexing ------------------------------------------------------------------------
def test_int64_indexing_only_when_offsets_pass_int32():
    small = generate(lambda x: x * 2 + 1, torch.empty(1 << 20, device="meta"))
    large = generate(lambda x: x * 2 + 1, torch.empty((1 << 31) + 8, device="meta"))
    rows = generate(lambda x: x.sum(-1), torch.empty(1 << 20, 4096, device="meta"))
    assert "tl.program_id(0) * XBLOCK" in small["kernels"][0][1]
    assert "tl.program_id(0).to(tl.int64) * XBLOCK" in large["kernels"][0][1]
    assert "tl.program_id(0).to(tl.int64) * XBLOCK" in rows["kernels"][0][1]


# -- min-cut rematerialisation ----------------------------------------------------------------
def test_backward_recomputes_a_pointwise_chain_instead_of_saving_it(compile_fn):
    """The min-cut partitioner saves the chain's input, not its intermediates (the default
    partitioner saved sin, cos and exp results: three more tensors kept for backward)."""
    def fn(x):
        return (x.sin().cos() * 2).exp().sum()

    x = torch.randn(64, requires_grad=True)
    compiled = compile_fn(fn, x)
    compiled(x).backward()
    want = torch.func.grad(fn)(x.detach())
    torch.testing.assert_close(x.grad, want)
    forward = next(g for g in compiled.graphs if g.kind == "forward")
    returned = forward.wrapper_source.rsplit("return", 1)[1]
    assert returned.count(",") + 1 - returned.count(", ]") == 2, returned  # the sum and x


# -- persisted autotune results, and the new kernels through triton's real compiler ----------------
def test_autotune_choices_persist_on_disk():
    record = generate(lambda x: (x * 2).sum(-1), torch.empty(64, 2048, device="meta"))
    assert "cache_results=True" in record["kernels"][0][1]


def test_split_and_int64_kernels_compile_to_ptx(tmp_path):
    pytest.importorskip("triton")
    from tests.backends.ptx import compile_kernels_to_ptx

    split = generate(lambda x: (x.sum(), x.amax(), x.sum(0)), torch.empty(2049, 401, device="meta"))
    wide = generate(lambda x: x * 2 + 1, torch.empty((1 << 31) + 8, device="meta"))
    kernels = split["kernels"] + [(n + "_wide", s.replace(n, n + "_wide")) for n, s in wide["kernels"]]
    signatures = {**split["signatures"], **{n + "_wide": sig for n, sig in wide["signatures"].items()}}
    # the fused full sum/amax (2 stages), the split column sum (2 stages), the int64 kernel
    assert len(compile_kernels_to_ptx({"kernels": kernels, "signatures": signatures}, tmp_path)) == 5


# -- outer (column) reductions ---------------------------------------------------------------------
def test_column_sums_get_wide_column_blocks_and_short_row_steps():
    """x.sum(0) over (8192, 768) (a bias gradient): lanes across columns, a short row step; before,
    RBLOCK=1024 down a column with XBLOCK=4 columns per program."""
    record = generate(lambda x: x.sum(0), torch.empty(8192, 768, device="meta"))
    source = record["kernels"][0][1]
    configs = re.findall(r"'XBLOCK': (\d+), 'RBLOCK': (\d+)", source)
    assert configs and all(int(r) <= 64 for _, r in configs) and max(int(x) for x, _ in configs) >= 64, configs
    rows = generate(lambda x: x.sum(-1), torch.empty(8192, 768, device="meta"))  # row sums unchanged
    assert "'RBLOCK': 1024" in rows["kernels"][0][1]


def _launches(wrapper: str) -> list[tuple[str, int, list[str]]]:
    """(kernel, programs at the kernel's first autotune XBLOCK, call args) per launch."""
    out = []
    for name, grid, args in re.findall(r"(triton_\w+)\[(grid_\w+)\]\((.*)\)", wrapper):
        body = re.search(r"def %s\(meta\):\n\s+return (.*)" % grid, wrapper).group(1)
        out.append((name, body, args.split(", ")))
    return out


def test_column_sum_is_split_over_row_chunks_with_enough_programs():
    """(4096, 768) bf16 summed over dim 0 (a bias gradient): 64 chunks of 64 rows each write a
    partial row, then one small reduction sums the 64 partial rows. Unsplit, 768 columns in
    blocks of 128 gave 6 programs for 132 SMs, each looping over all 4096 rows."""
    record = generate(lambda x: x.sum(0), torch.empty(4096, 768, dtype=torch.bfloat16, device="meta"))
    assert len(record["kernels"]) == 2
    (first, grid1, args1), (second, grid2, args2) = _launches(record["wrapper"])
    assert args1[-2:] == ["49152", "64"] and args2[-2:] == ["768", "64"]
    source = dict(record["kernels"])[first]
    xblocks = [int(x) for x, _ in re.findall(r"'XBLOCK': (\d+), 'RBLOCK': (\d+)", source)]
    assert all(eval(grid1, {"meta": {"XBLOCK": x}})[0] >= 264 for x in xblocks), xblocks
    assert min(xblocks) >= 16  # a program reads runs of >= 16 contiguous columns (coalesced)
    assert "768*r0 + x1" in source  # columns (x) are the contiguous, lane-wise dim
    assert re.search(r"empty_strided\(\(64, 768, \).*dtype=torch.float32\)", record["wrapper"])  # fp32 partials


def test_split_column_reductions_match_eager(compile_fn):
    """Padded last chunks, keepdim, several leading dims, max/prod and integers: same values."""
    x = torch.randn(3, 301, 40)
    i = torch.randint(-5, 5, (777, 24))

    def fn(x, i):
        return (x.sum((0, 1)), x.sum(1, keepdim=True), (x * 2).amax((0, 1)), x.amin(1),
                (x.abs() * 1e-3 + 1).prod(1), i.sum(0), x.mean((0, 1), keepdim=True))

    compiled = compile_fn(fn, x, i)
    got = compiled(x, i)
    assert compiled.graphs[0].fallback_reason is None
    assert re.search(r"empty_strided\(\(5, 3, 40, \)", compiled.graphs[0].wrapper_source)  # x.sum(1): 5 chunks
    for g, w in zip(got, fn(x, i)):
        assert g.shape == w.shape and g.dtype == w.dtype
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-4)


def test_min_cut_with_symbolic_sizes_keeps_the_backward_in_triton_kernels():
    """Min-cut also splits graphs with symbolic sizes: its recomputation brings a
    ``Max(1, s // 2)`` size into backward (a head split), which the kernels now print; before,
    symbolic graphs kept the default partitioner (the backward ran with aten under min-cut)."""
    pytest.importorskip("triton")
    import tempfile

    import autograph
    from autograph.backends.triton.backend import TritonBackend

    def split_heads(x):
        b, t, c = x.shape
        y = x.view(b, t, 2, c // 2).transpose(1, 2)
        return (y.sin().cos() * 3).sum(-1) + y.amax(-1)

    backend = TritonBackend(cache_dir=tempfile.mkdtemp())
    autograph.reset()
    try:
        f = autograph.compile(split_heads, backend=backend, dynamic="always")
        for t in (3, 5, 8):
            x = torch.randn(2, t, 8, requires_grad=True)
            ref_x = x.detach().clone().requires_grad_()
            torch.testing.assert_close(f(x), split_heads(ref_x), atol=1e-5, rtol=1e-5)
            f(x).sum().backward()
            split_heads(ref_x).sum().backward()
            torch.testing.assert_close(x.grad, ref_x.grad, atol=1e-5, rtol=1e-5)
    finally:
        autograph.reset()
    assert [g.kind for g in backend.compiled] == ["forward", "backward"]
    assert all(g.fallback_reason is None for g in backend.compiled), [g.fallback_reason for g in backend.compiled]
    forward = backend.compiled[0]
    returned = forward.wrapper_source.rsplit("return", 1)[1]
    assert returned.count("buf") == 2, returned  # the output and one saved tensor: the chain is recomputed


@pytest.mark.parametrize("kind", ["Max", "Min"])
def test_size_maxima_print_the_same_in_kernels_and_the_wrapper(kind):
    """``Max``/``Min`` of sizes (torch's and sympy's) print as arithmetic Python evaluates like the
    builtin (checked on a grid of sizes); the min-cut test above runs the same spelling in kernels."""
    import sympy
    from torch.utils._sympy import functions as torch_functions

    from autograph.backends.triton.codegen import texpr
    from autograph.backends.triton.indexing import floordiv

    a, b = sympy.Symbol("s0", integer=True, positive=True), sympy.Symbol("s1", integer=True, positive=True)
    builtin = max if kind == "Max" else min
    for make in (getattr(sympy, kind), getattr(torch_functions, kind)):
        source = texpr(make(1, floordiv(a, 2), b))
        for s0 in range(0, 7):
            for s1 in range(1, 4):
                assert eval(source, {"s0": s0, "s1": s1}) == builtin(1, s0 // 2, s1), (source, s0, s1)


# -- loads of one element per row -----------------------------------------------------------
def _row_shifted_sums(x):
    return (x - x[:, :1]).sum(-1), (x * x[:, 3:4]).amax(-1)


def test_an_element_read_for_the_whole_row_is_one_load_per_row():
    """``x[:, :1]`` inside a row reduction (the shift of LayerNorm's two-pass variance): a
    [XBLOCK, 1] load under the row mask, not RBLOCK masked loads of one address per row."""
    record = generate(_row_shifted_sums, torch.empty(64, 768, device="meta"))
    loads = [line for _, source in record["kernels"] for line in source.splitlines() if "tl.load(" in line]
    per_row = [line for line in loads if not re.search(r"\br\d", line.split("tl.load(")[1].split(",")[0])]
    assert per_row and all(", xmask," in line for line in per_row), loads
    assert all(", xrmask," in line for line in loads if line not in per_row), loads


@pytest.mark.parametrize("cols", [768, 5000])  # persistent rows and looped rows
def test_per_row_loads_match_eager(compile_fn, cols):
    x = torch.randn(33, cols)
    compiled = compile_fn(_row_shifted_sums, x)
    assert compiled.graphs[0].fallback_reason is None
    for got, want in zip(compiled(x), _row_shifted_sums(x)):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-3)


# -- contiguous dims read through the flat index ----------------------------------------------
def test_contiguous_buffers_are_indexed_by_the_flat_index():
    """A 3-D pointwise op and a row reduction over contiguous buffers: offsets are ``xindex`` and
    ``768*xindex + r0`` (no division or modulo per element); a broadcast operand still reads
    its own dims."""
    def fn(x, b):
        return torch.tanh(x) * b, x.sum(-1)

    record = generate(fn, torch.empty(8, 512, 768, device="meta"), torch.empty(768, device="meta"))
    offsets = re.findall(r"tl\.(?:load|store)\(\w+ \+ \((.*?)\),", "\n".join(s for _, s in record["kernels"]))
    assert "xindex" in offsets and "768*xindex + r0" in offsets, offsets
    assert not any(re.search(r"\bx\d\b", o) and "xindex" not in o and not re.fullmatch(r"x\d", o)
                   for o in offsets), offsets


def test_flat_index_offsets_match_eager(compile_fn):
    def fn(x, b):
        return torch.tanh(x) * b, x.sum(-1), (x.transpose(0, 1) * 2).sum(-1)

    x, b = torch.randn(3, 5, 7), torch.randn(7)
    compiled = compile_fn(fn, x, b)
    assert compiled.graphs[0].fallback_reason is None
    for got, want in zip(compiled(x, b), fn(x, b)):
        torch.testing.assert_close(got, want)
