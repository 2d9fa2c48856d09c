"""A torch function written in Python, run on fake tensors as one graph node, gets copies of the
lists and dicts passed to it: one that writes into them is no graph operation, and is left to
Python, so the program sees its writes once, in order (engine/argument_writes.py)."""
from __future__ import annotations

import pytest
import torch
from torch.optim.lr_scheduler import _update_param_group_val

from autograph.capture.core.breaks import Unsupported
from autograph.capture.engine import argument_writes
from tests.capture.harness import Harness


def _deepcopy_into(x, memo):
    y = x * 2
    z = y.__deepcopy__(memo)  # Tensor.__deepcopy__ (Python) stores into memo
    return z + 1, z


def test_a_torch_python_method_writing_a_dict_argument_keeps_its_write():
    x = torch.randn(3)
    want_memo: dict = {}
    want, want_z = _deepcopy_into(x, want_memo)
    h = Harness()
    for _ in range(2):  # the capture's call, then the cached entry's
        memo: dict = {}
        got, got_z = h.compile(_deepcopy_into)(x, memo)
        assert torch.equal(got, want)
        assert len(memo) == len(want_memo)
        assert any(v is got_z for v in memo.values())  # the tensor it answered is the one it stored
        assert not any(isinstance(v, torch._subclasses.FakeTensor) for v in memo.values())


def _set_lr(x, group, log):
    y = x * 2
    _update_param_group_val(group, "lr", y.sum())  # torch.optim's helper: group["lr"] = val
    log.append(group["lr"])
    return y + 1


def test_a_torch_python_function_writing_a_dict_argument_matches_python():
    x = torch.randn(3)
    want_group, want_log = {"lr": 0.5}, []
    want = _set_lr(x, want_group, want_log)
    h = Harness()
    for _ in range(2):
        group, log = {"lr": 0.5}, []
        got = h.compile(_set_lr)(x, group, log)
        assert torch.equal(got, want)
        assert torch.equal(group["lr"], want_group["lr"]) and type(group["lr"]) is torch.Tensor
        assert len(log) == 1 and log[0] is group["lr"]
    assert h.breaks == []  # interpreted like user code: its dict write is a recorded side effect


def test_pure_tensor_helpers_stay_in_the_graph():
    def f(x, xs):
        return torch.nn.functional.normalize(x) + torch.functional.broadcast_tensors(*xs)[0]

    x = torch.randn(2, 3)
    h = Harness()
    got = h.compile(f)(x, [x, x])
    assert torch.equal(got, f(x, [x, x]))
    assert h.breaks == []


class _Box:
    pass


def test_a_real_mutable_object_is_refused_before_the_fake_run():
    box = _Box()
    with pytest.raises(Unsupported, match="passed to a torch operation"):
        argument_writes.fingerprint(({"k": box},), {}, "f")
    assert argument_writes.python_body("call_method", "__deepcopy__", (torch.ones(1),))
    assert not argument_writes.python_body("call_method", "add", (torch.ones(1),))
    assert not argument_writes.python_body("call_function", torch.add, ())
