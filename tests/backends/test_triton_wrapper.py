"""The generated wrapper (autograph/backends/triton/wrapper.py): views of tensors in memory are
made without a dispatcher call (``reinterpret_tensor`` with the layout fixed when compiling),
list-of-views ops whose pieces became such views are not called at all, and what cannot be
known when compiling (symbolic sizes) stays an aten call. Checked on the wrapper source and by
interpreter runs against eager (values, sizes, strides, storage offsets, shared storage)."""
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


def qkv_split(x, w, b):
    """A fused q/k/v projection split into heads: mm, view, split, views, transposes."""
    bsz, t, c = x.shape
    q, k, v = torch.nn.functional.linear(x, w, b).split(c, dim=2)
    q, k, v = (z.view(bsz, t, 2, c // 2).transpose(1, 2) for z in (q, k, v))
    return (q * 2 + k).sum(-1), v * 3


def test_views_in_the_wrapper_are_reinterpreted_with_their_offsets():
    x, w, b = torch.empty(2, 8, 16, device="meta"), torch.empty(48, 16, device="meta"), torch.empty(48, device="meta")
    wrapper = generate(qkv_split, x, w, b)["wrapper"]
    calls = re.findall(r"= (aten\.\w+\.\w+|reinterpret_tensor)\(", wrapper)
    assert [c for c in calls if c != "reinterpret_tensor"] == ["aten.addmm.default"], wrapper
    assert "split" not in wrapper and "[0]" not in wrapper
    offsets = re.findall(r"reinterpret_tensor\(\w+, \(2, 8, 16, \), \(384, 48, 1, \), (\d+)\)", wrapper)
    assert offsets == ["0", "16", "32"], wrapper


def test_reinterpreted_views_give_eager_values_and_layouts(compile_fn):
    x, w, b = torch.randn(2, 8, 16), torch.randn(48, 16), torch.randn(48)
    compiled = compile_fn(qkv_split, x, w, b)
    assert compiled.graphs[0].fallback_reason is None
    assert "reinterpret_tensor" in compiled.graphs[0].wrapper_source
    for got, want in zip(compiled(x, w, b), qkv_split(x, w, b)):
        torch.testing.assert_close(got, want)


def test_views_returned_from_the_graph_keep_eager_layout_and_storage(compile_fn):
    def fn(x):
        y = x * 2  # a kernel's output, then views of it and of the input
        return y[:, 1:].t(), x[1].unsqueeze(0), y.view(-1)[3:9].view(2, 3), x.expand(2, 5, 6)[1]

    x = torch.randn(5, 6)
    compiled = compile_fn(fn, x)
    assert "reinterpret_tensor" in compiled.graphs[0].wrapper_source
    got, want = compiled(x), fn(x)
    for g, w in zip(got, want):
        assert (g.shape, g.stride(), g.storage_offset()) == (w.shape, w.stride(), w.storage_offset())
        torch.testing.assert_close(g, w)
    assert got[1].untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert got[3].untyped_storage().data_ptr() == x.untyped_storage().data_ptr()


def test_views_with_symbolic_sizes_stay_aten_calls(triton_backend):
    def fn(x):
        return (x.view(-1, 4) * 2).view(x.shape[0], -1).t()

    x = torch.randn(6, 8)
    torch._dynamo.reset()
    compiled = torch.compile(fn, backend=triton_backend, dynamic=True)
    torch.testing.assert_close(compiled(x), fn(x))
    x2 = torch.randn(10, 8)
    torch.testing.assert_close(compiled(x2), fn(x2))
    wrapper = triton_backend.compiled[-1].wrapper_source
    assert "aten.view.default" in wrapper or "aten.permute.default" in wrapper, wrapper
    torch._dynamo.reset()
