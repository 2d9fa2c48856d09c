"""An LR scheduler's ``sched.step()`` is recorded and run after the graph, once per call, in
program order, with no graph break (families/deferred_calls.py): losses, parameters, the
learning rates and the scheduler's state stay bit-identical to plain Python, the capturing call
included; what follows the call in the function and reads what it changed sees the new rates."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.optim import lr_scheduler as lrs

import autograph
from autograph.runtime import stats as stats_mod
from autograph.settings import Settings, set_current_settings


@pytest.fixture
def clean():
    set_current_settings(Settings(backend="eager", on_error="raise"))
    autograph.reset()
    yield
    autograph.reset()
    set_current_settings(None)


def train_step(model, opt, sched, x, y):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    sched.step()
    return loss.detach()


def train_step_returning_loss(model, opt, sched, x, y):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    sched.step()
    return loss


def split_step(model, opt, sched, x, y):
    """``sched.step()`` first in a resume function, with ``loss`` one of its inputs."""
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    torch._dynamo.graph_break()
    sched.step()
    return loss.detach()


def read_after(model, opt, sched, x, y):
    loss = F.cross_entropy(model(x), y)
    sched.step()
    return loss.detach(), opt.param_groups[0]["lr"]


def in_try(model, opt, sched, x, y):
    loss = F.cross_entropy(model(x), y)
    try:
        sched.step()
    except ZeroDivisionError:
        return loss.detach(), "caught"
    return loss.detach(), "stepped"


SCHEDULERS = {
    "OneCycleLR": lambda opt: lrs.OneCycleLR(opt, max_lr=0.1, total_steps=10),
    "StepLR": lambda opt: lrs.StepLR(opt, step_size=2, gamma=0.5),
    "CosineAnnealingLR": lambda opt: lrs.CosineAnnealingLR(opt, T_max=3),
    "LambdaLR": lambda opt: lrs.LambdaLR(opt, lambda epoch: 1.0 / (epoch + 1)),
}


def _run(step, make_sched, lr=0.05, steps=5):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    sched = make_sched(opt)
    gen = torch.Generator().manual_seed(1)
    out, rates = [], []
    for _ in range(steps):
        out.append(step(model, opt, sched, torch.randn(5, 6, generator=gen), torch.randint(0, 3, (5,), generator=gen)))
        rates.append(opt.param_groups[0]["lr"])
    state = {k: v for k, v in sched.state_dict().items() if k != "lr_lambdas"}
    return out, rates, [p.detach().clone() for p in model.parameters()], state


def _same(a, b):
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and torch.equal(a, b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _break_reasons():
    return [r for st in stats_mod.all_stats() for r in st.break_reasons]


@pytest.mark.parametrize("step", [train_step, train_step_returning_loss], ids=["detach", "loss"])
@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_step_runs_after_the_graph_with_no_break(clean, name, step):
    want = _run(step, SCHEDULERS[name])
    got = _run(autograph.compile(step), SCHEDULERS[name])
    assert _same(got, want)
    # loss.backward(), opt.step() and sched.step() all run after the graph (engine/deferred_breaks.py)
    kinds = [k for st in stats_mod.all_stats() for k in st.break_kinds]
    if step is train_step:  # `loss.detach()` of the loss backward() was given: in Python after them
        assert kinds == ["after-deferred-call"], _break_reasons()
    else:
        assert kinds == [], _break_reasons()


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_step_first_in_a_resume_function(clean, name):
    want = _run(split_step, SCHEDULERS[name])
    got = _run(autograph.compile(split_step), SCHEDULERS[name])
    assert _same(got, want)
    reasons = _break_reasons()
    kinds = [k for st in stats_mod.all_stats() for k in st.break_kinds]
    # loss.backward(), opt.step() (the graph_break() after them is no tail) and graph_break()
    assert kinds[:3] == ["unsupported-call", "unsupported-call", "forced-break"], reasons
    if name == "LambdaLR":  # a user lr_lambda might write the input `loss`
        assert kinds[3:] == ["after-deferred-call"], reasons
        return
    assert len(kinds) == 3, reasons  # sched.step() breaks nothing
    assert not any("lr_scheduler" in r or "sched" in r for r in reasons), reasons


def test_a_tensor_lr_is_guarded(clean):
    def make(opt):
        return lrs.StepLR(opt, step_size=1, gamma=0.5)
    want = _run(split_step, make, lr=torch.tensor(0.05))
    got = _run(autograph.compile(split_step), make, lr=torch.tensor(0.05))
    assert _same(got, want)
    assert "after-deferred-call" in [k for st in stats_mod.all_stats() for k in st.break_kinds]


def test_scheduler_step_runs_once_per_call(clean):
    calls = []

    def counting(epoch):
        calls.append(epoch)
        return 0.9 ** epoch
    want = _run(train_step, lambda opt: lrs.LambdaLR(opt, counting))
    plain_calls, calls[:] = list(calls), []
    got = _run(autograph.compile(train_step), lambda opt: lrs.LambdaLR(opt, counting))
    assert _same(got, want) and calls == plain_calls


def test_a_read_after_the_step_sees_the_new_rate(clean):
    want = _run(read_after, SCHEDULERS["StepLR"])
    got = _run(autograph.compile(read_after), SCHEDULERS["StepLR"])
    assert _same(got, want)
    assert "after-deferred-call" in [k for st in stats_mod.all_stats() for k in st.break_kinds]


def test_a_step_inside_try_runs_where_its_handler_can_see_its_error(clean):
    def failing(epoch):
        if epoch == 3:
            raise ZeroDivisionError
        return 1.0
    want = _run(in_try, lambda opt: lrs.LambdaLR(opt, failing))
    got = _run(autograph.compile(in_try), lambda opt: lrs.LambdaLR(opt, failing))
    assert _same(got, want) and any(out[1] == "caught" for out in want[0])


def step_then_read(opt, sched, t):
    sched.step()
    return t.mul(1)


def test_an_entry_for_float_rates_is_not_used_for_a_tensor_rate(clean):
    compiled = autograph.compile(step_then_read)
    for lr in (0.05, torch.tensor(0.05)):
        results = []
        for fn in (compiled, step_then_read):
            opt = torch.optim.SGD([nn.Parameter(torch.ones(2))], lr=lr.clone() if isinstance(lr, torch.Tensor) else lr)
            sched = lrs.StepLR(opt, step_size=1, gamma=0.5)
            t = opt.param_groups[0]["lr"] if isinstance(lr, torch.Tensor) else torch.tensor(0.05)
            results.append([fn(opt, sched, t) for _ in range(3)])
        assert _same(results[0], results[1]), results
