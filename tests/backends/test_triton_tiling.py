"""2-D tiled pointwise kernels for operands read through a transpose (``tiling.py``): the
generated kernel (2-D grid, each access's index along its contiguous tile axis) and exact
results against eager in the interpreter."""
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


def meta(*shape, dtype=torch.float32):
    return torch.empty(*shape, dtype=dtype, device="meta")


def _grid(wrapper: str, name: str) -> str:
    return re.search(r"def grid_%s\(meta\):\n\s+return (.*)" % name, wrapper).group(1)


def test_transposed_operand_gets_a_2d_tile_with_each_access_along_its_contiguous_axis():
    """x + y.t() over (256, 128): y is read with stride 256 along the output's rows. The kernel
    walks [YBLOCK, XBLOCK] tiles on a 2-D grid; y's load steps by 1 along the y axis, x's and
    the store's along the x axis. Before, a 1-D kernel read y at ``256*x1 + x0`` lane by lane."""
    record = generate(lambda x, y: x + y.t(), meta(256, 128), meta(128, 256))
    (name, source), = record["kernels"]
    assert "yindex = yoffset + tl.arange(0, YBLOCK)[:, None]" in source
    assert "xindex = xoffset + tl.arange(0, XBLOCK)[None, :]" in source
    assert "tl.program_id(1) * YBLOCK" in source
    assert "tl.load(in_ptr1 + (256*x1 + y0)" in source  # y.t(): contiguous along the y axis
    assert "tl.load(in_ptr0 + (128*y0 + x1)" in source  # x: contiguous along the x axis
    assert "tl.store(out_ptr0 + (128*y0 + x1)" in source
    grid = _grid(record["wrapper"], name)
    assert eval(grid, {"meta": {"XBLOCK": 32, "YBLOCK": 64}}) == (4, 4)
    configs = re.findall(r"'XBLOCK': (\d+), 'YBLOCK': (\d+)", source)
    assert configs and all(int(y) >= 16 for _, y in configs), configs


def test_permuted_3d_operand_tiles_over_the_dims_up_to_its_contiguous_one():
    """out[a, b, c] = x[a, b, c] + y.permute(0, 2, 1)[a, b, c]: y steps by 1 along b, so the y
    axis covers (a, b) and the x axis c."""
    record = generate(lambda x, y: x * 2 + y.permute(0, 2, 1), meta(4, 96, 80), meta(4, 80, 96))
    (name, source), = record["kernels"]
    assert "y1 = yindex % 96" in source and "y0 = (yindex // 96)" in source and "x2 = xindex" in source
    assert "7680*y0 + 96*x2 + y1" in source
    assert eval(_grid(record["wrapper"], name), {"meta": {"XBLOCK": 16, "YBLOCK": 32}}) == (5, 12)


def test_contiguous_and_broadcast_operands_stay_1d():
    plain = generate(lambda x, b: x * 2 + b, meta(256, 128), meta(128))
    column = generate(lambda x, b: x + b, meta(256, 128), meta(256, 1))
    for record in (plain, column):
        (_, source), = record["kernels"]
        assert "YBLOCK" not in source and "tl.program_id(1)" not in source


def test_transposed_output_layout_is_tiled_too():
    """A graph output eager lays out transposed (x.t() * 2 keeps x's memory order) is stored
    along the y axis while its contiguous input is read along the other."""
    record = generate(lambda x, y: (x.t() * 2, x.t() + y), meta(64, 48), meta(48, 64))
    sources = [s for _, s in record["kernels"]]
    assert any("YBLOCK" in s for s in sources)


CASES = {
    "transpose": (lambda x, y: x + y.t(), [(37, 53), (53, 37)]),
    "transpose_both_dtypes": (lambda x, y: (x * y.t()).to(torch.float16), [(129, 65), (65, 129)]),
    "permute3d": (lambda x, y: x - y.permute(0, 2, 1) * 3, [(3, 17, 29), (3, 29, 17)]),
    "permute3d_outer": (lambda x, y: x + y.permute(2, 0, 1), [(7, 5, 33), (5, 33, 7)]),
    "broadcast": (lambda x, y, b: x + y.t() * b, [(31, 45), (45, 31), (45,)]),
    "broadcast_rows": (lambda x, y, b: x + y.t() + b, [(31, 45), (45, 31), (31, 1)]),
    "odd_sizes": (lambda x, y: torch.where(x > 0, x, y.transpose(0, 2)), [(5, 1, 7), (7, 1, 5)]),
    "odd_sizes_2": (lambda x, y: torch.maximum(x, y.transpose(1, 2)), [(2, 3, 1025), (2, 1025, 3)]),
    "chain": (lambda x, y: ((x + y.t()).abs() - 1).relu() * x, [(66, 130), (130, 66)]),
    "output_transposed": (lambda x, y: (x.t() * 2, x.t() + y), [(19, 23), (23, 19)]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_tiled_kernels_match_eager_exactly(compile_fn, case):
    fn, shapes = CASES[case]
    torch.manual_seed(0)
    inputs = [torch.randn(*s) for s in shapes]
    compiled = compile_fn(fn, *inputs)
    got, want = compiled(*inputs), fn(*inputs)
    assert compiled.graphs[0].fallback_reason is None
    assert any("YBLOCK" in k.source for k in compiled.kernels)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert g.shape == w.shape and g.dtype == w.dtype
        torch.testing.assert_close(g, w, rtol=0, atol=0, equal_nan=True)


def test_transcendental_chain_through_a_transpose(compile_fn):
    """exp and sin are approximations in aten too: the tolerance of the exactness tests."""
    x, y = torch.randn(66, 130), torch.randn(130, 66)

    def fn(x, y):
        return ((x + y.t()).exp() - 1).relu() * y.t().sin()

    compiled = compile_fn(fn, x, y)
    torch.testing.assert_close(compiled(x, y), fn(x, y), rtol=1e-6, atol=1e-6)
    assert any("YBLOCK" in k.source for k in compiled.kernels)


def test_integer_and_bool_operands_through_a_transpose(compile_fn):
    i = torch.randint(-100, 100, (40, 24), dtype=torch.int32)
    j = torch.randint(-100, 100, (24, 40), dtype=torch.int64)
    m = torch.rand(24, 40) > 0.5

    def fn(i, j, m):
        return (i + j.t()) * m.t(), i & j.t().to(torch.int32)

    compiled = compile_fn(fn, i, j, m)
    for g, w in zip(compiled(i, j, m), fn(i, j, m)):
        assert g.dtype == w.dtype and torch.equal(g, w)
    assert any("YBLOCK" in k.source for k in compiled.kernels)


def test_tiled_kernels_compile_to_ptx(tmp_path):
    pytest.importorskip("triton")
    from tests.backends.ptx import compile_kernels_to_ptx

    record = generate(lambda x, y, z: (x + y.t(), (x.half() * z.permute(1, 0)).float()),
                      meta(300, 200), meta(200, 300), meta(200, 300, dtype=torch.float16))
    assert all("YBLOCK" in s for _, s in record["kernels"])
    params = compile_kernels_to_ptx(record, tmp_path)
    assert all("ynumel" in p for p in params)
