"""Functions torch makes while running (``torch.vmap(f)``'s wrapper) are no graph targets: no
module attribute names them. Those of the ``torch.func`` transforms are called natively at a
break (they keep interpreter state in C) and the call behaves as eager's (values, identity)."""
from __future__ import annotations

import torch

import autograph


def vmapped_inplace(x):
    y = torch.vmap(torch.Tensor.acos_)(x)
    return y is x, y + 1


def test_vmap_wrapper_runs_natively_and_keeps_identity():
    autograph.reset()
    f = autograph.compile(vmapped_inplace, backend="eager")
    for _ in range(3):
        x, ref = torch.rand(4, 1), None
        e = x.clone()
        ref = vmapped_inplace(e)
        out = f(x)
        assert out[0] is ref[0] is True
        assert torch.equal(out[1], ref[1]) and torch.equal(x, e)
