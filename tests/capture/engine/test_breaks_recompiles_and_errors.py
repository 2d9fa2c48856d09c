"""End to end on small programs, compared with eager on fresh random inputs: a data-dependent
branch as a graph break with resume functions, no real kernel during capture, one graph with
module guards, one recompile per changed guard property, the recompile limit, `on_error`."""
from __future__ import annotations

import operator
import warnings

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

import autograph
from autograph.errors import CaptureError
from tests.capture.harness import Harness, Recorder


def toy_example(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def foo2(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    if a.sum() < 0:
        x = x * -1
    x = 2 * x
    return x * b


def _with_sign(n, positive):
    t = torch.rand(n) + 0.1
    return t if positive else -t


def test_toy_example_first_graph_branch_and_resumes():
    h = Harness()
    fn = h.compile(toy_example)
    a, b = torch.randn(10), _with_sign(10, True)
    torch.testing.assert_close(fn(a, b), toy_example(a, b))
    first = h.backend.graphs[0]
    targets = h.backend.targets(0)
    assert targets[:2] == [torch.abs, operator.add]
    assert operator.truediv in targets and "sum" in targets and operator.lt in targets
    out_node = [n for n in first.graph.nodes if n.op == "output"][0]
    returned = [n.target for n in out_node.args[0]]
    assert sorted(map(str, returned)) == sorted(map(str, [operator.truediv, operator.lt]))
    assert len(h.breaks) == 1 and "data-dependent branch" in h.breaks[0].reason
    assert "b.sum() < 0" in h.breaks[0].reason
    # the first call took the "b.sum() >= 0" path: one resume graph so far
    assert len(h.backend.graphs) == 2
    a, b = torch.randn(10), _with_sign(10, False)
    torch.testing.assert_close(fn(a, b), toy_example(a, b))
    assert len(h.backend.graphs) == 3  # the other resume got its own graph on first use
    n = len(h.backend.graphs)
    for _ in range(6):
        a, b = torch.randn(10), torch.randn(10)
        torch.testing.assert_close(fn(a, b), toy_example(a, b))
    assert len(h.backend.graphs) == n  # nothing compiles any more


def test_foo2_four_paths_compile_once_each():
    h = Harness()
    fn = h.compile(foo2)
    seen = []
    for sa in (True, False):
        for sb in (True, False):
            a, b = _with_sign(8, sa), _with_sign(8, sb)
            torch.testing.assert_close(fn(a, b), foo2(a, b))
            seen.append(len(h.backend.graphs))
    n = len(h.backend.graphs)
    # entry graph, one per resume after the first `if` (each ends in the second `if`), and one per
    # resume after the second `if`: resumes are generated from the original code and cached per
    # offset, so both first-level resumes share the two second-level ones.
    assert n == 1 + 2 + 2
    assert {r.original_code for res in h.results for r in res.resumes} == {foo2.__code__}
    a, b = _with_sign(8, False), _with_sign(8, True)
    torch.testing.assert_close(fn(a, b), foo2(a, b))
    assert len(h.backend.graphs) == n


class SinCos(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(3, 2)

    def forward(self, x):
        x = x * 2
        if x.sum() > 0:
            x = torch.sin(x)
        if x.mean() > 0:
            x = torch.cos(x)
        x = self.linear(x)
        return x


class _RealKernelsOutsideGraphs(TorchDispatchMode):
    """Records kernels that ran on real (non-fake) tensors outside the compiled graphs' runs."""

    def __init__(self, recorder: Recorder):
        super().__init__()
        self.recorder = recorder
        self.outside = []
        self.inside = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        from torch._subclasses.fake_tensor import FakeTensor
        leaves = torch.utils._pytree.tree_leaves((args, kwargs))
        real = [t for t in leaves if isinstance(t, torch.Tensor) and not isinstance(t, FakeTensor)]
        if real:
            if self.recorder.in_graph:
                self.inside += 1
            else:
                self.outside.append(func)
        return func(*args, **(kwargs or {}))


def test_sincos_module_no_sin_cos_and_no_real_kernel_during_capture():
    torch.manual_seed(0)
    m = SinCos()
    h = Harness()
    fwd = h.compile(SinCos.forward)
    x = -torch.ones(3)
    expected = m(x)
    with _RealKernelsOutsideGraphs(h.backend) as counter:
        got = fwd(m, x)
    torch.testing.assert_close(got, expected)
    all_targets = h.backend.targets()
    assert torch.sin not in all_targets and torch.cos not in all_targets
    assert counter.inside > 0
    # outside the graphs only the two `if`s read their condition (as eager does); capture ran nothing
    assert [str(f) for f in counter.outside] == ["aten._local_scalar_dense.default"] * 2


def test_capture_runs_no_real_kernel():
    h = Harness()
    h.compile(toy_example)
    a, b = torch.randn(10), torch.randn(10)
    seen = []

    class Spy(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append((func, (args, kwargs)))
            return func(*args, **(kwargs or {}))
    from autograph.capture.engine.api import capture
    from torch._subclasses.fake_tensor import FakeTensor
    with Spy():
        capture(toy_example, (a, b), {}, h.settings, wrap_nested=h.wrap)
    real = [f for f, args in seen if any(isinstance(t, torch.Tensor) and not isinstance(t, FakeTensor)
                                         for t in torch.utils._pytree.tree_leaves(args))]
    assert real == []
    assert seen  # the spy did see the fake propagation


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(128, 10)

    def forward(self, x):
        x = self.fc(x)
        x = torch.nn.functional.relu(x)
        return x


def test_linear_relu_one_graph_zero_breaks_with_module_guards():
    net = Net()
    h = Harness()
    fwd = h.compile(Net.forward)
    x = torch.randn(2, 128)
    torch.testing.assert_close(fwd(net, x), net(x))
    assert len(h.backend.graphs) == 1 and h.breaks == []
    srcs = [g.src for g in h.results[0].guards.guards]
    # the module's structure is guarded, not its identity
    assert "type(self.fc) is torch.nn.modules.linear.Linear" in srcs, srcs
    assert any(s.startswith("___check_tensor(self.fc.weight") for s in srcs), srcs
    assert not any(s.startswith(("___check_obj_id(self,", "___check_obj_id(self.fc,")) for s in srcs), srcs
    # parameters are graph inputs: the backend gets the real Parameters
    gm = h.backend.graphs[0]
    assert dict(gm.named_parameters()) == {}
    assert any(t is net.fc.weight for t in h.backend.example_inputs[0])
    net.eval()  # Linear never reads `training`: nothing to recompile
    torch.testing.assert_close(fwd(net, x), net(x))
    assert h.captures == 1
    other = Net()  # another instance of the same structure: the same entry, its own weights
    torch.testing.assert_close(fwd(other, x), other(x))
    assert h.captures == 1


def _guarded(fn, make_args, change):
    autograph.reset()
    compiled = autograph.compile(fn, backend="eager")
    args = make_args()
    torch.testing.assert_close(compiled(*args), fn(*args))
    stats = compiled.stats
    before = stats.captures
    args2 = change(args)
    torch.testing.assert_close(compiled(*args2), fn(*args2))
    torch.testing.assert_close(compiled(*args2), fn(*args2))
    return stats.captures - before, [r.guard_src for r in stats.recompiles]


def _f(x):
    return x * 2 + 1


@pytest.mark.parametrize("change", [
    lambda a: (a[0].double(),),                          # dtype
    lambda a: (torch.randn(5, 4),),                      # shape
    lambda a: (torch.randn(4, 3).t(),),                  # stride (non-contiguous)
    lambda a: (torch.randn(3, 4, requires_grad=True),),  # requires_grad
    lambda a: (a[0].to(torch.float16),),               
], ids=["dtype", "shape", "stride", "requires_grad", "half"])
def test_each_guard_property_recompiles_once(change):
    n, reasons = _guarded(_f, lambda: (torch.randn(3, 4),), change)
    assert n == 1
    assert reasons and reasons[-1].startswith("___check_tensor(x, torch.float32, 'cpu', (3, 4), (4, 1)")


def test_grad_mode_recompiles_once():
    autograph.reset()
    compiled = autograph.compile(_f, backend="eager")
    x = torch.randn(3)
    compiled(x)
    before = compiled.stats.captures
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), _f(x))
        compiled(x)
    assert compiled.stats.captures - before == 1
    assert "grad" in compiled.stats.recompiles[-1].guard_src


SCALE = 2.0


def _uses_global(x):
    return x * SCALE


def test_global_change_recompiles_once():
    global SCALE
    autograph.reset()
    compiled = autograph.compile(_uses_global, backend="eager")
    x = torch.randn(3)
    torch.testing.assert_close(compiled(x), _uses_global(x))
    SCALE = 3.0
    try:
        torch.testing.assert_close(compiled(x), _uses_global(x))
        compiled(x)
        assert compiled.stats.captures == 2
        assert "SCALE" in compiled.stats.recompiles[-1].guard_src
    finally:
        SCALE = 2.0


def test_recompile_limit_falls_back_with_one_warning():
    autograph.reset()
    from autograph.runtime.shim import Shim
    compiled = Shim(_f, {"recompile_limit": 2, "backend": "eager"})
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64):
            x = torch.randn(4).to(dtype)  # a dtype change always recompiles (sizes may go dynamic)
            torch.testing.assert_close(compiled(x), _f(x))
    assert compiled.stats.captures == 2
    assert len([x for x in w if "recompile" in str(x.message)]) == 1


def _deep_callee(x):
    return x.numpy_unsupported_thing()  # AttributeError raised by eager too


def test_on_error_fallback_keeps_eager_result(monkeypatch):
    import autograph.capture.engine.interpreter as interp

    def boom(tx, frame, inst):
        raise RuntimeError("simulated bug")
    monkeypatch.setitem(interp.HANDLERS, "BINARY_OP", boom)
    h = Harness(on_error="fallback")
    from autograph.capture.engine.api import capture
    with pytest.raises(CaptureError) as info:
        capture(_f, (torch.randn(3),), {}, h.settings, wrap_nested=h.wrap)
    assert "test_breaks_recompiles_and_errors.py" in str(info.value) and info.value.lineno
    autograph.reset()
    compiled = autograph.compile(_f, backend="eager")
    x = torch.randn(3)
    torch.testing.assert_close(compiled(x), _f(x))  # default on_error: fallback
    assert compiled.stats.errors


def test_on_error_raise_names_file_line(monkeypatch):
    import autograph.capture.engine.interpreter as interp

    def boom(tx, frame, inst):
        raise RuntimeError("simulated bug")
    monkeypatch.setitem(interp.HANDLERS, "BINARY_OP", boom)
    autograph.reset()
    from autograph.runtime.shim import Shim
    compiled = Shim(_f, {"on_error": "raise", "backend": "eager"})
    compiled.explicit = True  # as autograph.compile makes it: captured on the first call
    with pytest.raises(autograph.CaptureError) as info:
        compiled(torch.randn(3))
    assert "test_breaks_recompiles_and_errors.py:" in str(info.value)


def test_device_change_recompiles_once():
    autograph.reset()
    compiled = autograph.compile(_f, backend="eager")
    compiled(torch.randn(3))
    out = compiled(torch.randn(3, device="meta"))
    compiled(torch.randn(3, device="meta"))
    assert out.device.type == "meta" and out.shape == (3,)
    assert compiled.stats.captures == 2
    assert compiled.stats.recompiles[-1].guard_src.startswith("___check_tensor(x, torch.float32, 'cpu'")
