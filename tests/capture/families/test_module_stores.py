"""``module.flag = constant`` from outside the graph (``model.train()``/``model.eval()`` on every
step): replayed after the graph with ``object.__setattr__``, what ``nn.Module.__setattr__`` ends
in for such a value, guarded by the class's ``__setattr__`` and the name's absence from the
module's ``_parameters``/``_buffers``/``_modules`` (families/modules.py)."""
from __future__ import annotations

import pytest
import torch
from torch import nn

import autograph
from autograph.explain.find import find_shim


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.fc(x))


def switch(model, x, flag):
    model.train(flag)
    model.note = flag
    return model(x)


def test_train_and_eval_switches_store_directly_and_match_plain():
    cf = autograph.compile(switch, backend="eager")
    for flag in (True, False, True):
        models = [Net(), Net()]
        models[1].load_state_dict(models[0].state_dict())
        x = torch.randn(2, 3)
        torch.manual_seed(1)
        want = switch(models[0], x, flag)
        torch.manual_seed(1)
        got = cf(models[1], x, flag)
        assert torch.equal(got, want)
        assert [m.training for m in models[1].modules()] == [flag] * 3 and models[1].note is flag
    source = find_shim(cf).entries[0].result.transformed_source
    assert "setattr(" not in source.replace("__setattr__", ""), source  # no nn.Module.__setattr__ frame


class Recording(nn.Linear):
    pass


def test_a_setattr_patched_on_the_class_later_runs():
    cf = autograph.compile(switch, backend="eager")
    model, x = Recording(3, 3), torch.randn(2, 3)
    cf(model, x, False)
    seen = []

    def recording(self, name, value):
        seen.append(name)
        nn.Module.__setattr__(self, name, value)
    Recording.__setattr__ = recording
    try:
        cf(model, x, False)
    finally:
        del Recording.__setattr__
    assert seen == ["training", "note"] and model.training is False


def test_a_name_that_became_a_parameter_slot_raises_as_plain():
    cf = autograph.compile(switch, backend="eager")
    model, x = Net(), torch.randn(2, 3)
    cf(model, x, True)
    model._parameters["note"] = None  # `model.note = True` now means a parameter: TypeError
    with pytest.raises(TypeError, match="cannot assign"):
        switch(model, x, True)
    model.training = False
    with pytest.raises(TypeError, match="cannot assign"):
        cf(model, x, True)


class Counting(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.register_buffer("calls", torch.zeros((), dtype=torch.long))
        self.register_buffer("ema", torch.zeros(3), persistent=False)

    def forward(self, x):
        self.calls += 1
        y = self.fc(x)
        with torch.no_grad():
            self.ema *= 0.9
            self.ema += 0.1 * y.mean(0)
        return y * 2


def test_an_in_place_update_of_a_buffer_stored_back_is_one_graph():
    """``self.calls += 1``: the in-place op returns the buffer and ``nn.Module.__setattr__`` stores it
    back under its name, which changes nothing: no break (it was a side-effect break)."""
    plain, compiled = Counting(), Counting()
    compiled.load_state_dict(plain.state_dict())
    buffers = (compiled.calls, compiled.ema)
    cf = autograph.compile(compiled, backend="eager")
    for _ in range(3):
        x = torch.randn(2, 3)
        assert torch.equal(cf(x), plain(x))
    assert torch.equal(compiled.calls, plain.calls) and torch.equal(compiled.ema, plain.ema)
    assert (compiled.calls, compiled.ema) == buffers and all(a is b for a, b in zip((compiled.calls, compiled.ema), buffers))
    assert list(compiled.state_dict()) == list(plain.state_dict()) == ["calls", "fc.weight", "fc.bias"]
    report = autograph.explain(Counting(), torch.randn(2, 3))
    assert "1 graph, 0 graph breaks" in str(report), str(report)


def test_a_buffer_registration_hook_still_sees_the_store():
    """A global buffer-registration hook runs on every store back of a buffer: with one registered
    the store is not dropped (the hook is called as often as in plain Python)."""
    from torch.nn.modules.module import register_module_buffer_registration_hook

    seen = []
    cf = autograph.compile(Counting(), backend="eager")
    cf(torch.randn(2, 3))  # compiled without the hook
    handle = register_module_buffer_registration_hook(lambda module, name, tensor: seen.append(name))
    try:
        cf(torch.randn(2, 3))
        compiled_seen = list(seen)
        seen.clear()
        Counting()(torch.randn(2, 3))
    finally:
        handle.remove()
    assert compiled_seen == seen[-len(compiled_seen):] == ["calls", "ema", "ema"], (compiled_seen, seen)
