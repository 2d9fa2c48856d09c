import pickle

import pytest
import torch

import autograph.api as api
from autograph.runtime import shim as shim_mod
from autograph.runtime.stats import all_stats

from tests.runtime.fakes import FakeCapture, runtime_settings


@pytest.fixture
def cap():
    capture = FakeCapture()
    previous = shim_mod.configure(settings_provider=runtime_settings, capture=capture)
    yield capture
    shim_mod.restore(previous)


def test_decorator_and_call_forms(cap):
    @api.compile
    def f(x):
        """doc of f"""
        return x + 1

    @api.compile(backend="eager", dynamic=True)
    def g(x):
        return x * 2

    assert f.__name__ == "f" and f.__doc__ == "doc of f"
    assert torch.equal(f(torch.ones(2)), torch.full((2,), 2.0))
    assert torch.equal(g(torch.ones(2)), torch.full((2,), 2.0))
    assert repr(f) == "<autograph compiled function test_decorator_and_call_forms.<locals>.f, 1 cache entry>"
    assert cap.settings_seen[-1].backend == "eager" and cap.settings_seen[-1].dynamic == "always"


def test_module_shares_state_and_compiles_forward(cap):
    m = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU())
    cm = api.compile(m)
    x = torch.randn(2, 3)
    assert torch.equal(cm(x), m(x))
    assert cap.calls == 1
    assert list(cm.state_dict()) == list(m.state_dict())
    assert isinstance(cm, torch.nn.Sequential)
    assert [p is q for p, q in zip(cm.parameters(), m.parameters())] == [True, True]
    cm.eval()
    assert m.training is False
    with torch.no_grad():
        m[0].weight.zero_()
    assert torch.equal(cm(x), torch.relu(m[0].bias.expand(2, 4)))
    m2 = pickle.loads(pickle.dumps(cm))
    assert type(m2) is torch.nn.Sequential and list(m2.state_dict()) == list(m.state_dict())


def test_bound_method(cap):
    class A:
        def f(self, x):
            return x + 1

    a = A()
    cf = api.compile(a.f)
    assert torch.equal(cf(torch.ones(1)), torch.full((1,), 2.0))
    assert cap.calls == 1


def test_reset_clears_caches_and_stats(cap):
    @api.compile
    def h(x):
        return x - 1

    h(torch.ones(1))
    assert len(h.entries) == 1 and any(s.qualname.endswith("h") for s in all_stats())
    api.reset()
    assert h.entries == () and not any(s.qualname.endswith("h") for s in all_stats())
    h(torch.ones(1))
    assert cap.calls == 2


def test_reset_drops_the_optimizers_compiled_updates():
    """``opt.step()`` reached from code compiled for ``inductor`` keeps a record per optimizer (its
    compiled update, once traced); ``reset()`` drops them with every other cache."""
    from autograph.backends import optimizer_update

    opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(2))], lr=0.1)
    opt.param_groups[0]["params"][0].grad = torch.ones(2)
    step = optimizer_update.OptimizerStep(lambda o: o.step(), "inductor")
    step(opt)  # the first step of an optimizer is always the real one: nothing traced or compiled
    assert optimizer_update.update_of(opt) is not None and optimizer_update.updates()
    api.reset()
    assert optimizer_update.update_of(opt) is None and optimizer_update.updates() == []


def test_skip_marks_function():
    def f():
        pass

    assert api.skip(f) is f and f.__autograph_skip__ is True
    sm = staticmethod(f)
    assert api.skip(sm) is sm


def test_mark_dynamic_and_static():
    t = torch.ones(2, 3)
    api.mark_dynamic(t, 0)
    api.mark_dynamic(t, -1)
    assert t._autograph_dynamic_dims == {0, 1}
    api.mark_static(t, 1)
    assert t._autograph_dynamic_dims == {0} and t._autograph_static_dims == {1}
    with pytest.raises(IndexError):
        api.mark_dynamic(t, 2)


def test_compile_rejects_non_callables():
    with pytest.raises(TypeError, match="expects a Python function"):
        api.compile(3)


def test_compiled_module_runs_the_original_modules_hooks():
    """Forward and pre-forward hooks, including ones registered after compiling, run as in eager."""
    import torch
    import autograph

    module = torch.nn.Linear(4, 4)
    calls = []
    module.register_forward_pre_hook(lambda mod, inp: calls.append("pre"))
    module.register_forward_hook(lambda mod, inp, out: out * 2)
    compiled = autograph.compile(module, backend="eager")
    x = torch.randn(2, 4)
    assert torch.allclose(compiled(x), module(x))
    assert calls == ["pre", "pre"]
    module.register_forward_hook(lambda mod, inp, out: out + 1)
    assert torch.allclose(compiled(x), module(x))
    assert torch.allclose(compiled(x), torch.nn.functional.linear(x, module.weight, module.bias) * 2 + 1)


class _SelfCompare(torch.nn.Module):
    def forward(self, x, other):
        if self is other:
            return x + 1, self
        return x - 1, self


def test_compiled_module_forward_runs_on_the_original_module():
    """As with torch.compile, ``self`` in the compiled forward is the module compiled, not the
    view ``compile`` returns: ``m_compiled(x, m)`` sees ``self is other``."""
    import autograph

    module = _SelfCompare()
    compiled = autograph.compile(module, backend="eager")
    x = torch.ones(2)
    for _ in range(2):
        out, me = compiled(x, module)
        assert torch.equal(out, x + 1) and me is module
        out, me = compiled(x, _SelfCompare())
        assert torch.equal(out, x - 1) and me is module


def test_compile_of_ddp_compiles_the_wrapped_module_and_keeps_ddp_eager(tmp_path):
    """``autograph.compile(DDP(m))``: DDP's own forward (reducer, buckets) runs eagerly and reads
    ``self.module``, the compiled view of ``m`` (one process; two in tests/distributed)."""
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    import autograph
    if not dist.is_available():  # pragma: no cover
        pytest.skip("torch.distributed is not available")
    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1)
    try:
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
        ddp = DDP(net, bucket_cap_mb=0.001)
        compiled = autograph.compile(ddp)
        assert isinstance(compiled, DDP) and compiled.module.__dict__ is net.__dict__
        assert compiled.state_dict().keys() == ddp.state_dict().keys()
        x = torch.randn(3, 4)
        expected = torch.autograd.grad(ddp(x).sum(), list(net.parameters()))
        out = compiled(x)
        got = torch.autograd.grad(out.sum(), list(net.parameters()))
        assert all(torch.equal(a, b) for a, b in zip(got, expected))
        inner = type(compiled)._autograph_shim
        assert inner.fn is type(net).forward and len(inner.entries) == 1
        e = autograph.explain(compiled, x)
        assert (e.graph_count, e.graph_break_count, e.op_count) == (1, 0, 3)
    finally:
        dist.destroy_process_group()
