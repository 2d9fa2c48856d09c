"""CUDA graphs for compiled inference graphs (cudagraphs.py), checked on CPU.

Which graphs may be recorded is decided from the aten graph and its example inputs (fake CUDA
tensors here). Recording and replay run against a stand-in for ``torch.cuda``'s graph API that
keeps CUDA graph semantics: a replay recomputes into the addresses recorded, from the
addresses recorded.
"""
from __future__ import annotations

import contextlib

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.proxy_tensor import make_fx

from autograph.backends.triton import cudagraphs
from autograph.backends.triton.cudagraphs import CudaGraphCall, cuda_graph_refusal


def fake_cuda(*shape, device="cuda"):
    with FakeTensorMode(allow_non_fake_inputs=True):
        return torch.empty(*shape, device=device)


def graph_of(fn, *inputs):
    return make_fx(fn)(*[torch.zeros(t.shape) for t in inputs])


def test_static_cuda_inference_graphs_may_be_recorded():
    x, w = fake_cuda(4, 8), fake_cuda(8)
    assert cuda_graph_refusal(graph_of(lambda x, w: (x * w).relu(), x, w), [x, w]) is None


@pytest.mark.parametrize("case", ["cpu tensor", "cpu only", "two devices", "no tensor"])
def test_graphs_not_wholly_on_one_cuda_device_are_not_recorded(case):
    x = fake_cuda(4, 8)
    other = {"cpu tensor": torch.zeros(8), "cpu only": None, "two devices": fake_cuda(8, device="cuda:1"),
             "no tensor": None}[case]
    inputs = {"cpu only": [torch.zeros(4, 8), torch.zeros(8)], "no tensor": [3]}.get(case, [x, other])
    assert cuda_graph_refusal(graph_of(lambda x, w: x + w, torch.zeros(4, 8), torch.zeros(8)), inputs)


def test_mutating_and_random_graphs_are_not_recorded():
    x = fake_cuda(4, 8)
    assert "mutates" in cuda_graph_refusal(graph_of(lambda x: x.add_(1), x), [x])
    assert "random" in cuda_graph_refusal(graph_of(lambda x: x + torch.rand_like(x), x), [x])


def test_symbolic_sizes_are_not_recorded():
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    mode = FakeTensorMode(shape_env=ShapeEnv())
    with mode:
        sym = torch.empty(mode.shape_env.create_unbacked_symint(), 8, device="cuda")
    gm = graph_of(lambda x: x * 2, torch.zeros(4, 8))
    assert "symbolic" in cuda_graph_refusal(gm, [sym])
    assert "symbolic" in cuda_graph_refusal(gm, [fake_cuda(4, 8), mode.shape_env.create_unbacked_symint()])


class FakeGraph:
    """A CUDA graph stand-in: what ran while recording runs again, on the same tensors."""

    capturing = None

    def __init__(self):
        self.steps = []

    def replay(self):
        for step in self.steps:
            step()


class FakeStream:
    def wait_stream(self, other):
        pass


class FakeCuda:
    def __init__(self):
        self.Stream = FakeStream
        self.CUDAGraph = FakeGraph

    current_stream = FakeStream

    stream = staticmethod(lambda s: contextlib.nullcontext())

    @staticmethod
    @contextlib.contextmanager
    def graph(g):
        FakeGraph.capturing = g
        try:
            yield
        finally:
            FakeGraph.capturing = None


@pytest.fixture
def fake_cuda_graphs(monkeypatch):
    monkeypatch.setattr(cudagraphs.torch, "cuda", FakeCuda())


def compiled_call(log):
    """A boxed compiled graph ``[x * w + 1]``; its launches are recorded while capturing."""
    def call(args):
        x, w = args
        out = torch.empty_like(x)

        def launch():
            torch.add(x * w, 1, out=out)

        launch()
        if FakeGraph.capturing is not None:
            FakeGraph.capturing.steps.append(launch)
        log.append("call")
        return [out]

    return call


def test_replays_copy_inputs_in_and_hand_out_fresh_outputs(fake_cuda_graphs):
    log = []
    w = torch.nn.Parameter(torch.full((3,), 2.0), requires_grad=False)
    fn = CudaGraphCall(compiled_call(log), "inference")
    x1, x2, x3 = torch.tensor([1.0, 2, 3]), torch.tensor([4.0, 5, 6]), torch.tensor([7.0, 8, 9])
    (o1,) = fn([x1, w])
    (o2,) = fn([x2, w])  # recorded here (a warm-up and the recording itself call the wrapper)
    calls_after_recording = len(log)
    (o3,) = fn([x3, w])
    assert len(log) == calls_after_recording and fn.replays == 2
    assert o1.tolist() == [3, 5, 7] and o2.tolist() == [9, 11, 13] and o3.tolist() == [15, 17, 19]
    assert o2.data_ptr() != o3.data_ptr() and o3.data_ptr() != fn.static_outputs[0].data_ptr()
    with torch.no_grad():
        w.mul_(10)  # an in-place update of a parameter is read by the replay
    (o4,) = fn([x1, w])
    assert o4.tolist() == [21, 41, 61] and o3.tolist() == [15, 17, 19]
    assert x1.tolist() == [1, 2, 3]  # the caller's inputs are never written


def test_a_parameter_at_another_address_runs_without_the_graph(fake_cuda_graphs):
    log = []
    fn = CudaGraphCall(compiled_call(log), "inference")
    x = torch.ones(3)
    w = torch.nn.Parameter(torch.ones(3), requires_grad=False)
    fn([x, w])
    fn([x, w])
    replays, calls = fn.replays, len(log)
    other = torch.nn.Parameter(torch.full((3,), 5.0), requires_grad=False)
    assert fn([x, other])[0].tolist() == [6, 6, 6]
    assert fn.replays == replays and len(log) == calls + 1


def test_outputs_sharing_memory_with_inputs_are_not_replayed(fake_cuda_graphs):
    def call(args):
        return [args[0][1:]]

    fn = CudaGraphCall(call, "inference")
    x = torch.arange(4.0)
    for _ in range(3):
        assert fn([x])[0].data_ptr() == x[1:].data_ptr()
    assert "shares memory" in fn.disabled_reason and fn.replays == 0


def test_a_failed_recording_leaves_the_ordinary_call(monkeypatch):
    class Broken(FakeCuda):
        @staticmethod
        def graph(g):
            raise RuntimeError("operation not permitted when stream is capturing")

    monkeypatch.setattr(cudagraphs.torch, "cuda", Broken())
    log = []
    fn = CudaGraphCall(compiled_call(log), "inference")
    w = torch.nn.Parameter(torch.ones(3), requires_grad=False)
    outs = [fn([torch.full((3,), float(i)), w])[0].tolist() for i in range(3)]
    assert outs == [[1, 1, 1], [2, 2, 2], [3, 3, 3]]
    assert "recording failed" in fn.disabled_reason


def test_reduce_overhead_is_a_no_op_on_cpu(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    pytest.importorskip("triton")
    from autograph.backends.triton.backend import TritonBackend

    seen = []
    original = cudagraphs.maybe_cuda_graph

    def spy(call, gm, inputs, kind):
        wrapped = original(call, gm, inputs, kind)
        seen.append(wrapped is call)
        return wrapped

    monkeypatch.setattr("autograph.backends.triton.backend.maybe_cuda_graph", spy)
    torch._dynamo.reset()
    fn = torch.compile(lambda x: (x * 2).relu() + 1, backend=TritonBackend(str(tmp_path), cuda_graphs=True))
    x = torch.randn(16)
    for _ in range(3):
        torch.testing.assert_close(fn(x), (x * 2).relu() + 1)
    assert seen == [True]  # asked, and refused: CPU tensors are never recorded
    torch._dynamo.reset()
