"""Trace rules for code outside the selection (issue 26, docs/ARCHITECTURE.md "Code outside
the selection"): torch, the standard library and unselected packages are inlined whole or
called as one call; they never get shims, resume functions or report rows of their own;
a break inside them is reported at the call in the user's function; torch's "do not
compile" markers are one opaque call."""
from __future__ import annotations

import json

import pytest
import torch

import autograph
from autograph.runtime import shim as shim_mod
from autograph.runtime import stats as stats_mod
from autograph.runtime.outside import library_caller, outside_selection
from autograph.settings import Settings, set_current_settings


@pytest.fixture
def clean():
    set_current_settings(Settings(backend="eager", on_error="raise"))
    autograph.reset()
    yield
    autograph.reset()
    set_current_settings(None)


def _optimizer(restarts=False):
    p = torch.nn.Parameter(torch.ones(3))
    opt = torch.optim.SGD([p], lr=0.1, momentum=0.9)
    if restarts:  # a step() of its own, interpreted
        return p, opt, torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    return p, opt, sched


def step(p, opt, sched, x):
    opt.zero_grad()
    loss = (p * x).sum()
    loss.backward()
    opt.step()
    sched.step()
    return loss.detach()


def step_reading_lr(p, opt, sched, x):
    loss = (p * x).sum()
    sched.step()  # (not a tail call: the rate is read after it, so it is interpreted)
    return loss.detach(), opt.param_groups[0]["lr"]


def _run(fn, steps=4, restarts=False):
    p, opt, sched = _optimizer(restarts)
    losses = [fn(p, opt, sched, torch.full((3,), float(i + 1))) for i in range(steps)]
    return losses, p.detach().clone(), [g["lr"] for g in opt.param_groups]


def _library_rows():
    return [st.qualname for st in stats_mod.all_stats()
            if st.filename and "site-packages" in st.filename]


def test_library_callees_that_break_are_one_call_without_rows_or_shims(clean):
    earlier = {id(s) for s in shim_mod.all_shims()}  # shims other tests made and still hold
    want = _run(step)
    got = _run(autograph.compile(step))
    assert [float(x) for x in got[0]] == [float(x) for x in want[0]]
    assert torch.equal(got[1], want[1]) and got[2] == want[2]
    assert _library_rows() == []
    assert not [s for s in shim_mod.all_shims()
                if id(s) not in earlier and (s.fn.__module__ or "").startswith("torch")]


def test_a_scheduler_step_read_after_it_is_interpreted(clean):
    f = autograph.compile(step_reading_lr)
    assert _run(f, restarts=True)[2] == _run(step_reading_lr, restarts=True)[2]
    assert not [r for st in stats_mod.all_stats() for r in st.break_reasons]


def builds_a_distribution(x):
    y = x * 2
    normal = torch.distributions.Normal(y, torch.ones(3), validate_args=True)  # a data-dependent check
    return normal.mean + 1


def test_break_inside_library_code_is_reported_at_the_users_call(clean):
    x = torch.arange(3.0)
    assert torch.equal(autograph.compile(builds_a_distribution)(x), builds_a_distribution(x))
    reasons = [r for st in stats_mod.all_stats() for r in st.break_reasons]
    assert reasons and all("(inside distribution.py:" in r for r in reasons), reasons
    files = {st.filename for st in stats_mod.all_stats()}
    assert files == {__file__}


def step_keeping_grads(p, opt, sched, x):
    opt.zero_grad(set_to_none=False)  # (with set_to_none=True it runs after the graph: grad_clearing.py)
    loss = (p * x).sum()
    loss.backward()
    opt.step()
    sched.step()
    return loss.detach()


def test_torch_disable_dynamo_marker_is_an_opaque_call(clean):
    f = autograph.compile(step_keeping_grads)
    assert _run(f)[0] == _run(step_keeping_grads)[0]
    kinds = [k for st in stats_mod.all_stats() for k in st.break_kinds]
    reasons = [r for st in stats_mod.all_stats() for r in st.break_reasons]
    assert "compile-disabled" in kinds
    assert any("Optimizer.zero_grad, marked torch._disable_dynamo" in r for r in reasons)


calls: list[str] = []


@torch.compiler.disable
def not_for_compilers(x):
    calls.append("ran")
    return x + 1


def uses_disabled(x):
    return not_for_compilers(x * 2) * 3


def test_torch_compiler_disable_is_one_call_in_python(clean):
    calls.clear()
    f = autograph.compile(uses_disabled)
    x = torch.ones(2)
    for n in range(1, 4):
        assert torch.equal(f(x), (x * 2 + 1) * 3)
        assert calls == ["ran"] * n  # once per call: not inlined, not replayed
    kinds = [k for st in stats_mod.all_stats() for k in st.break_kinds]
    assert "compile-disabled" in kinds and "torch-compile-call" not in kinds


def test_outside_selection_rules():
    settings = Settings(packages={"allow": ["mypkg"]})
    assert outside_selection(torch.optim.SGD.step, settings)
    assert outside_selection(json.dumps, settings)
    ns = {"__name__": "mypkg.train"}
    exec("def train_step():\n    pass\n", ns)
    assert not outside_selection(ns["train_step"], settings)
    other = {"__name__": "otherpkg.util"}
    exec("def helper():\n    pass\n", other)
    assert outside_selection(other["helper"], settings)
    assert not outside_selection(other["helper"], Settings())  # autograph.compile only: the user's


def test_library_caller_skips_module_calls():
    settings = Settings()

    class Layer(torch.nn.Module):
        def forward(self, x):
            import sys
            return library_caller(sys._getframe(1), settings)

    assert Layer()(torch.ones(1)) is None  # model(x): the caller is this test, not Module._call_impl
    seen = []
    torch.nn.Sequential(torch.nn.Identity()).apply(
        lambda m: seen.append(library_caller(__import__("sys")._getframe(1), settings)))
    assert seen and seen[0].startswith("torch.nn.modules.module:Module.apply")


@torch.no_grad()
def decorated_with_break(x):
    y = x * 2
    print("", end="")  # a break inside the decorated function
    return y + 1


def test_resume_functions_of_a_decorators_wrapper_are_reported_under_the_decorated_function(clean):
    f = autograph.compile(decorated_with_break)
    for _ in range(3):
        assert torch.equal(f(torch.ones(2)), torch.ones(2) * 2 + 1)
    rows = [(st.qualname, st.filename) for st in stats_mod.all_stats()]
    assert rows and all(filename == __file__ for _, filename in rows), rows
    assert all(name.startswith("decorated_with_break") for name, _ in rows), rows
