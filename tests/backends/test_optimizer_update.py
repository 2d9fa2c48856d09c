"""``opt.step()`` compiled under ``backend: inductor`` (backends/optimizer_update.py, issues 26/27).

A compiled function's ``opt.step()`` runs the optimizer's update traced and compiled by
inductor; the parameters match torch's eager step and ``torch.compile``'s compiled step within
float tolerance; each call makes exactly one step; whatever the trace did not cover (hooks, a
closure, the profiler, GradScaler's ``grad_scale``, a parameter losing its grad, an LR schedule
changing hyperparameters every step, a compiled call that raises) runs the real step, or
traces again, with the reason in ``describe()``.
"""
from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.optim.optimizer import register_optimizer_step_pre_hook

import autograph
from autograph.backends import optimizer_update
from autograph.settings import Settings, set_current_settings


@pytest.fixture(scope="module", autouse=True)
def settings():
    set_current_settings(Settings(backend="inductor", on_error="raise", compile_threshold=1))
    autograph.reset()
    yield
    autograph.reset()
    set_current_settings(None)


def apply_step(opt):
    opt.step()


def train_step(model, opt, x, y):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss.detach()


def _model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))


def _grads(model: nn.Module, i: int) -> None:
    gen = torch.Generator().manual_seed(100 + i)
    for p in model.parameters():
        p.grad = torch.randn(p.shape, generator=gen)


def _run(step, opt_cls, kwargs, steps=5):
    """Parameters and optimizer after ``steps`` calls of ``step(opt)``, each with fresh grads."""
    model = _model()
    opt = opt_cls(model.parameters(), **kwargs)
    for i in range(steps):
        _grads(model, i)
        step(opt)
    return [p.detach().clone() for p in model.parameters()], opt


CASES = [
    (torch.optim.SGD, dict(lr=0.1)),
    (torch.optim.SGD, dict(lr=0.1, momentum=0.9)),
    (torch.optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    (torch.optim.Adam, dict(lr=1e-2)),
    (torch.optim.AdamW, dict(lr=1e-2, weight_decay=0.1)),
    (torch.optim.Adam, dict(lr=1e-2, amsgrad=True, foreach=True)),
]
IDS = [f"{c.__name__}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for c, kw in CASES]


def _close(got, want):
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("opt_cls,kwargs", CASES, ids=IDS)
def test_update_is_compiled_and_matches_eager(opt_cls, kwargs):
    want, eager_opt = _run(apply_step, opt_cls, kwargs)
    got, opt = _run(autograph.compile(apply_step), opt_cls, kwargs)
    _close(got, want)
    update = optimizer_update.update_of(opt)
    assert update is not None and update.compiled is not None, update and update.describe()
    # the first step runs for real (it makes the state), the second too while a shadow of the
    # optimizer is traced, then the compiled update
    assert (update.real_calls, update.compiled_calls) == (2, 3), update.describe()
    assert "compiled update (inductor" in update.describe()
    for p in opt.state:
        if "step" in opt.state[p]:
            assert float(opt.state[p]["step"]) == 5  # exactly one step per call, the tracing one included


SLOW_CASES = CASES + [(torch.optim.Adam, dict(lr=torch.tensor(1e-2))),
                      (torch.optim.AdamW, dict(lr=1e-2, fused=True, amsgrad=True))]


@pytest.mark.slow
@pytest.mark.parametrize("opt_cls,kwargs", SLOW_CASES, ids=[f"{c.__name__}-{sorted(k)}" for c, k in SLOW_CASES])
def test_update_matches_torch_compile(opt_cls, kwargs):
    torch._dynamo.reset()
    want, _ = _run(torch.compile(lambda opt: opt.step(), backend="inductor"), opt_cls, kwargs)
    got, _ = _run(autograph.compile(apply_step), opt_cls, kwargs)
    _close(got, want)


def test_training_step_compiles_its_update():
    def train(step):
        model = _model()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)
        gen = torch.Generator().manual_seed(1)
        for _ in range(4):
            step(model, opt, torch.randn(5, 6, generator=gen), torch.randint(0, 3, (5,), generator=gen))
        return [p.detach().clone() for p in model.parameters()], opt

    want, _ = train(train_step)
    got, opt = train(autograph.compile(train_step))
    _close(got, want)
    assert optimizer_update.update_of(opt).compiled_calls == 2  # after a real step and a traced one
    assert any("AdamW.step: compiled update" in u.describe() for u in optimizer_update.updates())


def test_the_report_says_which_version_each_optimizer_step_runs(compiled_adam):
    from autograph.explain.report import report

    rep = report()
    assert any(line.startswith("optimizer step Adam.step: compiled update (inductor")
               for line in rep.summary().splitlines())
    assert "optimizer step Adam.step: compiled update (inductor" in str(rep)
    saved = type(rep).from_dict(rep.as_dict())  # a saved report keeps them (`autograph report r.json`)
    assert saved.optimizer_steps == rep.optimizer_steps and "optimizer step Adam.step" in saved.summary()
    assert "optimizer step" not in type(rep)(rep.functions).summary()  # another report does not show them


def test_not_used_with_the_eager_backend():
    _, opt = _run(autograph.compile(apply_step, backend="eager"), torch.optim.Adam, dict(lr=1e-2), steps=3)
    assert optimizer_update.update_of(opt) is None


@pytest.fixture(scope="module")
def compiled_adam():
    """One Adam whose update is compiled, shared by the fallback tests (each restores it)."""
    model = _model()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    step = autograph.compile(apply_step)
    for i in range(3):
        _grads(model, i)
        step(opt)
    update = optimizer_update.update_of(opt)
    assert update.compiled is not None
    return model, opt, step, update


def _steps(opt) -> list[float]:
    return [float(s["step"]) for s in opt.state.values()]


def _one_real_step(compiled_adam, why: str, **call) -> None:
    """The next call runs the real step, once, with ``why``; the one after it is compiled again."""
    model, opt, step, update = compiled_adam
    real, compiled, before = update.real_calls, update.compiled_calls, _steps(opt)
    _grads(model, 7)
    step(opt, **call)
    assert (update.real_calls, update.compiled_calls) == (real + 1, compiled)
    assert _steps(opt) == [s + 1 for s in before]
    assert why in update.describe()


def _compiled_again(compiled_adam) -> None:
    model, opt, step, update = compiled_adam
    compiled = update.compiled_calls
    _grads(model, 8)
    step(opt)
    assert update.compiled_calls == compiled + 1


def test_step_hooks_run_the_real_step(compiled_adam):
    _, opt, _, _ = compiled_adam
    seen = []
    handles = [opt.register_step_pre_hook(lambda *a: seen.append("pre")),
               opt.register_step_post_hook(lambda *a: seen.append("post"))]
    try:
        _one_real_step(compiled_adam, "step hooks are registered")
    finally:
        for h in handles:
            h.remove()
    assert seen == ["pre", "post"]
    handle = register_optimizer_step_pre_hook(lambda *a: seen.append("global"))
    try:
        _one_real_step(compiled_adam, "step hooks are registered")
    finally:
        handle.remove()
    assert seen[-1] == "global"
    _compiled_again(compiled_adam)


def stepping_with(opt, closure):
    opt.step(closure)


def test_closure_runs_the_real_step(compiled_adam):
    model, opt, _, update = compiled_adam
    calls = []
    compiled, before = update.compiled_calls, _steps(opt)

    def closure():
        calls.append(1)
        return torch.tensor(0.0)

    _grads(model, 9)
    autograph.compile(stepping_with)(opt, closure)
    assert calls == [1] and update.compiled_calls == compiled and _steps(opt) == [s + 1 for s in before]
    _compiled_again(compiled_adam)


def test_profiler_runs_the_real_step(compiled_adam):
    with torch.autograd.profiler.profile() as prof:
        _one_real_step(compiled_adam, "the profiler is on")
    assert any("Optimizer.step#Adam.step" in e.name for e in prof.function_events)
    _compiled_again(compiled_adam)


def test_grad_scale_runs_the_real_step(compiled_adam):
    _, opt, _, _ = compiled_adam
    opt.grad_scale = None
    try:
        _one_real_step(compiled_adam, "grad_scale/found_inf are set")
    finally:
        del opt.grad_scale
    _compiled_again(compiled_adam)


def _compiled_sgd():
    """An SGD with momentum whose update is compiled (three steps through compiled code)."""
    model = _model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    step = autograph.compile(apply_step)
    for i in range(3):
        _grads(model, i)
        step(opt)
    return model, opt, step, optimizer_update.update_of(opt)


def test_a_param_losing_its_grad_traces_again():
    model, opt, step, update = _compiled_sgd()
    assert update.traces == 1 and update.compiled is not None
    first = list(model.parameters())[0]
    kept = first.detach().clone()
    for i in range(3, 6):
        _grads(model, i)
        first.grad = None
        step(opt)
    assert torch.equal(first.detach(), kept)  # a parameter with no grad is not stepped
    assert update.traces == 2 and update.compiled is not None, update.describe()


def test_lr_schedule_settles_on_the_real_step_with_a_reason():
    def run(step):
        model = _model()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=20)
        for i in range(8):
            _grads(model, i)
            step(opt)
            sched.step()
        return [p.detach().clone() for p in model.parameters()], opt

    want, _ = run(apply_step)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "lr_scheduler.step() before optimizer.step()": _opt_called kept
        got, opt = run(autograph.compile(apply_step))
    _close(got, want)
    update = optimizer_update.update_of(opt)
    assert update.traces == 1, update.describe()  # compiled once, not on every step
    assert "hyperparameters change between steps" in update.describe()
    assert opt._opt_called


def test_a_step_that_cannot_be_traced_runs_the_real_step():
    """SGD with a tensor ``lr`` reads its value (``.item()``) in the body: make_fx refuses, and
    every call makes the real step, bit-identical to plain Python."""
    def kwargs():
        return dict(lr=torch.tensor(0.1), momentum=0.9)

    want, _ = _run(apply_step, torch.optim.SGD, kwargs())
    got, opt = _run(autograph.compile(apply_step), torch.optim.SGD, kwargs())
    assert all(torch.equal(a, b) for a, b in zip(got, want))
    update = optimizer_update.update_of(opt)
    assert update.compiled is None and "the step cannot be traced" in update.describe()
    assert (update.traces, update.real_calls) == (1, 5)


def test_a_trace_that_changes_the_optimizer_is_refused():
    """A trace whose body changed the optimizer's Python state (here: its first step, which makes
    the state) keeps the step it made, and is not compiled."""
    model = _model()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    update = optimizer_update.CompiledUpdate("Adam", "inductor")
    update.ready = True  # as if a real step had run: the trace then meets the state's creation
    _grads(model, 0)
    update.step(opt, type(opt).step)
    assert update.compiled is None and "changed the optimizer's Python state" in update.describe()
    assert _steps(opt) == [1.0] * 4


def test_a_compiled_call_that_raises_settles_on_the_real_step():
    model, opt, step, update = _compiled_sgd()

    def broken(*args):
        raise RuntimeError("kernel failed")

    update.compiled = broken
    _grads(model, 3)
    with pytest.raises(RuntimeError, match="kernel failed"):
        step(opt)
    assert "the compiled update raised RuntimeError: kernel failed" in update.describe()
    before = [p.detach().clone() for p in model.parameters()]
    _grads(model, 4)
    step(opt)
    assert not torch.equal(before[0], list(model.parameters())[0].detach())  # the real step ran


def test_auto_runs_the_real_step_until_a_background_compile_wins_a_trial(monkeypatch, tmp_path):
    """``auto``: bit-identical real steps (the tracing call's included) while the worker compiles
    (a stand-in compiler here), then the trial runs the compiled update on real calls."""
    import time

    from autograph.backends import background
    from autograph.testing import slow_compiler

    monkeypatch.setattr(background, "HOT_CALLS", 1)
    monkeypatch.setattr(background, "HOT_SECONDS", 0.0)
    monkeypatch.setattr(background, "REQUEST_DEFAULTS", dict(slow_compiler.SETTINGS))
    slow_compiler.CALLS.clear()
    autograph.reset()
    set_current_settings(Settings(backend="auto", on_error="raise", compile_threshold=1, cache_dir=str(tmp_path)))
    try:
        model, ref = _model(), _model()
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        ref_opt = torch.optim.Adam(ref.parameters(), lr=1e-2)
        step = autograph.compile(apply_step)
        calls, deadline = 0, time.monotonic() + 120
        while not slow_compiler.CALLS:
            assert time.monotonic() < deadline, optimizer_update.update_of(opt).describe()
            _grads(model, calls)
            _grads(ref, calls)
            step(opt)
            ref_opt.step()
            calls += 1
            if not slow_compiler.CALLS:  # the real step ran: exactly as plain Python
                assert all(torch.equal(p, q) for p, q in zip(model.parameters(), ref.parameters()))
            time.sleep(0.01)
        update = optimizer_update.update_of(opt)
        assert update.swappable is not None and "the eager version is the real step" in update.describe()
        for i in range(40):  # through the trial
            _grads(model, calls + i)
            _grads(ref, calls + i)
            step(opt)
            ref_opt.step()
        _close(list(model.parameters()), list(ref.parameters()))
        assert _steps(opt) == [float(calls + 40)] * 4  # one step per call, whichever version ran
        assert update.compiled_calls >= 1
    finally:
        set_current_settings(Settings(backend="inductor", on_error="raise", compile_threshold=1))
        autograph.reset()
