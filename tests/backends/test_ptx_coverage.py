"""Every registered lowering's CUDA kernels compile to PTX for sm_90 (no GPU needed), in fp32,
fp16 and bf16 (and the integer and bool dtypes its cases use).

The graphs are the exactness test's (``test_triton_exactness.op_graph``: every dtype case of one
op in one graph) plus one graph of the structural lowerings (pad, slice_scatter, flip, iota, cat,
views, factories) per float dtype. Kernels are generated with ``gpu=True`` (autotune configs,
no interpreter rounding) and compiled by triton's real compiler in a child process
(``tests/backends/ptx.py``). The full sweep is slow (a few hundred kernels); a fast subset of the
lowerings that were once left out runs in every CI run.
"""
from __future__ import annotations

import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

from tests.backends.test_triton_exactness import _trace, exercised_ops, key, op_graph

pytestmark = pytest.mark.triton

FLOATS = (torch.float32, torch.float16, torch.bfloat16)
CHUNKS = 4


def structural(dtype: torch.dtype):
    """A graph of the lowerings without elementwise semantics of their own, in ``dtype``."""

    def fn(x, y):
        padded = torch.nn.functional.pad(x, (1, 2, 0, 1), value=-1.5)
        scattered = torch.slice_scatter(x, y[:4, :3], dim=1, start=1, end=4)
        flipped = torch.flip(x, (0, 1))
        iota = torch.arange(x.shape[1], dtype=dtype) * 0.5 + x
        stepped = torch.arange(2, 2 + 2 * x.shape[1], 2, dtype=dtype)
        full = torch.full_like(x, 3.0) + torch.full((x.shape[1],), 2.0, dtype=dtype)
        catted = torch.cat([x, y[:4]], 1)
        views = x.t().contiguous() + y.transpose(0, 1)[: x.shape[1], : x.shape[0]]
        permuted = x.unsqueeze(0).permute(2, 0, 1).reshape(-1, x.shape[0])[0] + x.select(1, 1).expand(x.shape[0])
        converted = x.to(torch.float32) * 2 + x.clone()
        return padded, scattered, flipped, iota, stepped, full, catted, views, permuted, converted

    return fn, [torch.randn(4, 6).to(dtype), torch.randn(6, 6).to(dtype)]


def labels() -> list[str]:
    return [key(op) for op in exercised_ops()] + [f"structural {dtype}" for dtype in FLOATS]


def graphs(wanted: list[str]) -> list[tuple[str, torch.fx.GraphModule]]:
    """(label, aten graph) for the ``wanted`` labels: exercised ops and structural graphs."""
    from autograph.backends.triton.backend import decompositions

    out = []
    for op in exercised_ops():
        good, graph, flat = op_graph(op) if key(op) in wanted else ([], None, [])
        if good:
            out.append((key(op), make_fx(_trace(graph, len(flat)), decomposition_table=decompositions())(*flat)))
    for dtype in FLOATS:
        if f"structural {dtype}" in wanted:
            fn, inputs = structural(dtype)
            out.append((f"structural {dtype}", make_fx(fn, decomposition_table=decompositions())(*inputs)))
    return out


def merged_record(selected: list[tuple[str, torch.fx.GraphModule]], tmp_path) -> tuple[dict, dict[str, int]]:
    """The CUDA kernels of all ``selected`` graphs as one record (names made unique per graph),
    and how many kernels each graph has."""
    from autograph.backends.triton.backend import TritonBackend

    backend = TritonBackend(str(tmp_path / "ag"))
    kernels, signatures, counts = [], {}, {}
    for n, (label, gm) in enumerate(selected):
        record = backend._generate(gm, gpu=True)
        counts[label] = len(record["kernels"])
        for name, source in record["kernels"]:
            unique = f"{name}_g{n}"
            kernels.append((unique, source.replace(name, unique)))
            signatures[unique] = record["signatures"][name]
    return {"kernels": kernels, "signatures": signatures}, counts


def _compile(selected, tmp_path) -> dict[str, int]:
    pytest.importorskip("triton")
    from tests.backends.ptx import compile_kernels_to_ptx

    record, counts = merged_record(selected, tmp_path)
    assert record["kernels"]
    compile_kernels_to_ptx(record, tmp_path / "ptx")
    return counts


# ops the PTX tests left out before (unary maths, floor division, bitwise, var, argmin) and the
# structural graph: fast enough for every run
ONCE_LEFT_OUT = {"log1p.default", "expm1.default", "erf.default", "div.Tensor_mode", "bitwise_xor.Tensor",
                 "var_mean.correction", "argmin.default", "pow.Tensor_Scalar", "sign.default"}


def test_once_left_out_lowerings_compile_to_ptx_in_every_float_dtype(tmp_path):
    selected = graphs(sorted(ONCE_LEFT_OUT) + ["structural torch.bfloat16"])
    assert len(selected) == len(ONCE_LEFT_OUT) + 1
    counts = _compile(selected, tmp_path)
    assert all(counts.values()), counts  # each graph has kernels (not all aten calls)


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_every_registered_lowering_compiles_to_ptx(tmp_path, chunk):
    counts = _compile(graphs(labels()[chunk::CHUNKS]), tmp_path)
    assert all(counts.values()), counts


def test_every_float_dtype_is_in_the_exactness_cases():
    """The graphs above hold fp32, fp16 and bf16 cases of every exercised op with float cases."""
    from tests.backends.test_triton_exactness import PAIRS, UNARY_DTYPES

    for dtype in FLOATS:
        assert dtype in UNARY_DTYPES and any(dtype in pair for pair in PAIRS)
