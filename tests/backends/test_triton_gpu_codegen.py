"""Without a GPU: the CUDA variant of generated kernels goes through triton's compiler to PTX.

This checks what the interpreter cannot: that the sources are valid for triton's
real front end and NVIDIA back end (types, masks, reductions, autotune configs).
"""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.fx.experimental.proxy_tensor import make_fx

pytestmark = pytest.mark.triton


def graphs():
    def norms(x, w, m):
        y = F.layer_norm(x, (x.shape[-1],), w).relu()
        r = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
        return y, r, torch.softmax(y.masked_fill(m, float("-inf")), -1), x.argmax(-1), (x > 0).any(-1)

    def long_rows(x):
        return x.sum(-1), torch.softmax(x, -1), x.amax(-1), (x * 0.5 + 1).prod(-1)

    def mixed(x, i, h):
        return (i * 3 + 1, x.to(torch.int64), h * 2, torch.cat([x, -x], 1).tanh(), x.sum(0))

    yield norms, [torch.randn(8, 64), torch.randn(64), torch.rand(8, 64) > 0.5]
    yield long_rows, [torch.randn(4, 3000)]
    yield mixed, [torch.randn(4, 8), torch.randint(0, 9, (4, 8)), torch.randn(4, 8).half()]


@pytest.mark.slow
@pytest.mark.parametrize("case", list(range(3)))
def test_cuda_kernels_compile_to_ptx(tmp_path, case):
    # the kernels go through triton's compiler in a child process with its own TRITON_INTERPRET
    # and caches (tests/backends/ptx.py): the result does not depend on what this process ran
    pytest.importorskip("triton")
    from autograph.backends.triton.backend import TritonBackend, decompositions
    from tests.backends.ptx import compile_kernels_to_ptx

    fn, inputs = list(graphs())[case]
    aten_gm = make_fx(fn, decomposition_table=decompositions())(*inputs)
    record = TritonBackend(str(tmp_path))._generate(aten_gm, gpu=True)
    assert record["kernels"]
    compile_kernels_to_ptx(record, tmp_path)
