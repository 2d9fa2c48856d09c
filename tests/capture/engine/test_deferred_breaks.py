"""A statement call that would be a graph break is made after the graph instead, in program
order, when the code after it cannot tell (engine/deferred_breaks.py): no resume function, the
same effects in the same order as plain Python. Anything else after it keeps the break at the call."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

import autograph
from autograph.settings import Settings, set_current_settings
from tests.capture.harness import Harness


@torch.compiler.disable
def note(box: list, what) -> None:
    """A call capture never follows (compile-disabled): a break where it is made."""
    box.append(what if not isinstance(what, Holder) else ("holder", what.seen))


class Holder:
    seen = 0

    def act(self, box: list) -> None:
        box.append("class method")


@torch.compiler.disable
def rebind(holder: Holder) -> None:
    holder.act = lambda box: box.append("instance attribute")


def _store_then_note(x, box, holder):
    y = x.sin()
    holder.seen = 1  # recorded, made before the deferred call
    note(box, holder)
    box.append(y)  # a method of a local after it: made after it, in order
    return y


def test_statement_calls_that_break_run_after_the_graph_in_order():
    x = torch.randn(3)
    want_box, got_box = [], []
    want = _store_then_note(x, want_box, Holder())
    h = Harness()
    got = h.compile(_store_then_note)(x, got_box, Holder())
    assert h.breaks == [] and h.captures == 1
    assert torch.equal(got, want)
    assert got_box[0] == want_box[0] == ("holder", 1) and torch.equal(got_box[1], want_box[1])


def _rebind_then_act(x, holder, box):
    y = x + 1
    rebind(holder)
    holder.act(box)  # looked up after rebind() ran, as Python does
    return y


def test_a_later_method_call_is_looked_up_when_it_runs():
    x = torch.randn(3)
    want_box, got_box = [], []
    _rebind_then_act(x, Holder(), want_box)
    h = Harness()
    h.compile(_rebind_then_act)(x, Holder(), got_box)
    assert got_box == want_box == ["instance attribute"]
    assert h.breaks == []


def _step(model, opt, x, y):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


def test_backward_and_the_optimizer_step_run_after_the_graph():
    def run(step, opt_cls):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
        opt = opt_cls(model.parameters(), lr=0.1)
        seen = [step(model, opt, torch.randn(5, 4), torch.randint(0, 3, (5,))) for _ in range(3)]
        return seen + [p.detach().clone() for p in model.parameters()]
    for opt_cls in (torch.optim.SGD, torch.optim.AdamW):
        want = run(_step, opt_cls)
        h = Harness()
        got = run(h.compile(_step), opt_cls)
        assert all(torch.equal(a, b) for a, b in zip(got, want))
        assert h.breaks == [] and h.captures == 1


def _reads_after(x, box):
    y = x * 2
    note(box, 1)
    return y, len(box)  # reads what the call changed


def _in_try(x, box):
    y = x * 2
    try:
        note(box, 1)
    except ValueError:
        pass
    return y


def _own_graph_break(x):
    y = x * 2
    torch._dynamo.graph_break()
    return y


def test_the_break_stays_where_the_code_after_could_tell():
    x = torch.randn(3)
    for fn, args in ((_reads_after, (x, [])), (_in_try, (x, [])), (_own_graph_break, (x,))):
        want = fn(*[list(a) if isinstance(a, list) else a for a in args])
        h = Harness()
        got = h.compile(fn)(*args)
        assert len(h.breaks) == 1, (fn.__name__, h.breaks)
        assert repr(got) == repr(want)


@torch.compiler.disable
def bump(t: torch.Tensor) -> None:
    t.add_(1)


def _bump_then_read(x):
    y = x * 2
    bump(y)  # writes the tensor it is given
    return y.sin()


def test_a_tensor_the_deferred_call_is_given_is_read_after_it():
    x = torch.randn(3)
    want = _bump_then_read(x)
    h = Harness()
    got = h.compile(_bump_then_read)(x)
    assert torch.equal(got, want)
    # bump() still runs after the graph; y.sin() then runs after it, in a compiled resume function
    assert [b.kind for b in h.breaks] == ["after-deferred-call"], h.breaks
    assert h.captures == 2 and len(h.backend.graphs) == 2  # x * 2, then y.sin()
    assert "sin" in str(h.backend.targets(1))


def _logs_only(x, log):
    y = x * 2
    torch._dynamo.graph_break()
    log.warning("value %s", 1)  # in the resume function, with no graph: deferred all the same
    return y


def test_a_deferred_call_without_graph_work_is_still_made_from_the_users_line():
    import io
    import logging
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(funcName)s:%(lineno)d %(message)s"))
    log = logging.getLogger("tests.deferred_breaks")
    log.addHandler(handler)
    log.propagate = False
    set_current_settings(Settings(backend="eager", on_error="raise"))
    autograph.reset()
    try:
        _logs_only(torch.ones(1), log)
        autograph.compile(_logs_only)(torch.ones(1), log)
    finally:
        log.removeHandler(handler)
        autograph.reset()
        set_current_settings(None)
    first, second = stream.getvalue().splitlines()
    assert first == second and first.startswith("_logs_only:")
