"""``opt.zero_grad()`` / ``model.zero_grad()`` (``set_to_none=True``) run after the graph with
no graph break (families/grad_clearing.py); ``set_to_none=False`` and a subclass's own
``zero_grad`` still break. Gradients, losses and parameters stay bit-identical to plain Python."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from tests.capture.harness import Harness


def _optimizer_step(model, opt, x, y):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    return loss


def _module_step(model, opt, x, y):
    model.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    return loss


def _keep_grads_step(model, opt, x, y):
    opt.zero_grad(set_to_none=False)
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    return loss


class _OwnZeroGrad(torch.optim.SGD):
    def zero_grad(self, set_to_none: bool = True) -> None:
        self.cleared = getattr(self, "cleared", 0) + 1
        super().zero_grad(set_to_none)


def _run(step, compiled: bool, opt_cls=torch.optim.SGD):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    opt = opt_cls(model.parameters(), lr=0.1, momentum=0.9)
    h = Harness()
    fn = h.compile(step) if compiled else step
    seen = []
    for i in range(4):
        x, y = torch.randn(5, 4), torch.randint(0, 3, (5,))
        seen.append(fn(model, opt, x, y))
        seen.extend(p.grad.clone() for p in model.parameters())
        opt.step()
    seen.extend(p.detach().clone() for p in model.parameters())
    return seen, h


def _same(step, opt_cls=torch.optim.SGD):
    want, _ = _run(step, False, opt_cls)
    got, h = _run(step, True, opt_cls)
    assert len(got) == len(want) and all(torch.equal(a, b) for a, b in zip(got, want))
    return h


def test_optimizer_zero_grad_runs_after_the_graph_without_a_break():
    h = _same(_optimizer_step)
    assert h.breaks == []  # (loss.backward() runs after the graph too: engine/deferred_breaks.py)


def test_module_zero_grad_runs_after_the_graph_without_a_break():
    h = _same(_module_step)
    assert h.breaks == []  # (loss.backward() runs after the graph too: engine/deferred_breaks.py)


def test_zero_grad_keeping_grad_tensors_still_breaks():
    h = _same(_keep_grads_step)
    assert any("zero_grad" in b.reason for b in h.breaks)


def test_a_subclass_zero_grad_is_not_deferred():
    h = _same(_optimizer_step, _OwnZeroGrad)
    assert h.captures > 1  # its own code runs in the capture: the counter it bumps is guarded


def _computed_targets_step(model, opt, x, y):
    opt.zero_grad()  # first: made before the graph, so the checked loss below stays in the graph
    loss = F.cross_entropy(model(x), (y + 1) % 3)
    loss.backward()
    return loss


def test_zero_grad_first_runs_before_the_graph_which_stays_whole():
    h = _same(_computed_targets_step)
    assert h.breaks == [] and h.captures == 1


def _late_zero_grad_step(model, opt, x, y):
    h = model(x)
    opt.zero_grad()  # after a graph operation: replayed after the graph
    return F.cross_entropy(h, y - 1)  # raises on the real values when a target is 0 (index -1)


def test_zero_grad_after_graph_work_clears_grads_even_when_the_loss_raises():
    def run(step):
        torch.manual_seed(0)
        model = nn.Linear(4, 3)
        model(torch.randn(2, 4)).sum().backward()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        outcomes = []
        for y in ([1, 2], [0, 2], [2, 1], [0, 0]):
            model.weight.grad = torch.ones(3, 4)
            try:
                outcomes.append(step(model, opt, torch.randn(2, 4), torch.tensor(y)))
            except (IndexError, RuntimeError) as exc:
                outcomes.append(type(exc))
            outcomes.append(model.weight.grad)
        return outcomes
    want = run(_late_zero_grad_step)
    got = run(Harness().compile(_late_zero_grad_step))
    assert want[3] is None and [type(o) for o in got] == [type(o) for o in want]
    assert all(torch.equal(a, b) for a, b in zip(got, want) if isinstance(a, torch.Tensor))
    assert [o for o in got if isinstance(o, type)] == [o for o in want if isinstance(o, type)]


_TRAINED = {}


def _zero_grad_first_then_a_mode_switch(x):
    _TRAINED["opt"].zero_grad()  # made first of all, before the graph
    _TRAINED["net"].train(False)  # an attribute store replayed after the graph
    return x * 2


def test_zero_grad_made_first_reads_the_optimizer_where_it_runs():
    """The first-of-all call read the optimizer through a name the entry bound only later, after
    the graph (with effects to replay, sources are read into names before the replay): every call
    raised UnboundLocalError (found by the fuzzer's training constructs)."""
    net = nn.Linear(2, 2)
    net(torch.ones(1, 2)).sum().backward()
    _TRAINED.update(net=net, opt=torch.optim.SGD(net.parameters(), lr=0.1))
    fn = Harness().compile(_zero_grad_first_then_a_mode_switch)
    for _ in range(2):
        net.train()
        assert torch.equal(fn(torch.ones(2)), torch.full((2,), 2.0))
        assert net.training is False and net.weight.grad is None
        net(torch.ones(1, 2)).sum().backward()
