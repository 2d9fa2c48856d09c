"""What the CUDA kernels of pointwise chains and norms cost, read from their source and PTX (sm_90,
no GPU needed): tanh is CUDA's own (libdevice, as aten's kernels and Inductor call it), not a
formula of an exp, a log and two IEEE divisions per element; the autotune configs include
Inductor's for large pointwise kernels and wide persistent rows."""
from __future__ import annotations

import re

import pytest
import torch

from tests.backends.test_triton_gpu_semantics import _cuda_record

pytestmark = pytest.mark.triton


def _chain(x):  # scripts/gpu_check.py's LongChain
    for _ in range(4):
        x = torch.tanh(x * 1.1 + 0.1) * torch.sigmoid(x)
    return x


def _instructions(ptx: str) -> list[str]:
    return [line.strip() for line in ptx.splitlines()
            if line.strip() and not line.strip().startswith((".", "//", "$", "{", "}", ")", "("))]


def test_tanh_chains_call_libdevice_tanh_without_ieee_divisions(tmp_path):
    pytest.importorskip("triton")
    from tests.backends.ptx import compile_kernels_to_ptx

    chain = _cuda_record(_chain, ((4096, 4096), torch.bfloat16))
    gelu = _cuda_record(lambda x: torch.nn.functional.gelu(x, approximate="tanh"), ((4096, 3072), torch.bfloat16))
    record = {"kernels": chain["kernels"] + gelu["kernels"], "signatures": {**chain["signatures"], **gelu["signatures"]}}
    assert len(record["kernels"]) == 2
    for _, source in record["kernels"]:
        assert "libdevice.tanh(" in source and "tl.log(" not in source, source
    compile_kernels_to_ptx(record, tmp_path)
    (chain_name, _), (gelu_name, _) = record["kernels"]
    chain_ptx = _instructions((tmp_path / f"{chain_name}.ptx").read_text())
    gelu_ptx = _instructions((tmp_path / f"{gelu_name}.ptx").read_text())
    assert not [i for i in chain_ptx + gelu_ptx if i.startswith(("div.rn", "lg2"))]
    # before: 504 and 154 instructions (an exp, a log and two div.rn.f32 per tanh)
    assert len(chain_ptx) < 300 and len(gelu_ptx) < 120, (len(chain_ptx), len(gelu_ptx))


def _configs(source: str) -> list[tuple[dict, int]]:
    return [(dict((k, int(v)) for k, v in re.findall(r"'(\w+)': (\d+)", kw)), int(w))
            for kw, w in re.findall(r"triton\.Config\(\{([^}]*)\}, num_warps=(\d+)\)", source)]


def test_large_bf16_pointwise_kernels_try_eight_elements_per_thread():
    """XBLOCK=1024 over 4 warps (Inductor's config): 8 bf16 elements, one 16-byte load per thread;
    before, 256/4 warps and 1024/8 warps gave 4- and 8-byte loads only."""
    record = _cuda_record(lambda x: x * 2 + 1, ((4096, 4096), torch.bfloat16))
    per_thread = [c["XBLOCK"] // (32 * w) for c, w in _configs(record["kernels"][0][1])]
    assert 8 in per_thread, per_thread
