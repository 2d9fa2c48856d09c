"""``torch.autograd.graph.disable_saved_tensors_hooks(message)`` is a torch state context
(families/saved_tensors_hooks.py): its switches are graph nodes, the message is set for the
capture inside the block, a graph break inside the block resumes inside it, and the message is
put back as Python puts it back (also when the graph raises)."""
from __future__ import annotations

import pytest
import torch
from torch.autograd.graph import disable_saved_tensors_hooks

from tests.capture.harness import Harness

message_now = torch._C._autograd._saved_tensors_hooks_get_disabled_error_message


def test_block_is_captured_with_switches_in_the_graph():
    def f(x):
        with disable_saved_tensors_hooks("not here") as v:
            y = x.sin()
            inside = message_now()
        return y, v, inside, message_now()

    h = Harness()
    got = h.compile(f)(torch.ones(2))
    assert not h.breaks
    assert torch.equal(got[0], torch.ones(2).sin()) and got[1:] == (None, "not here", None)
    assert message_now() is None
    assert torch._C._autograd._saved_tensors_hooks_disable in h.backend.targets()


def test_graph_break_inside_nested_blocks_resumes_inside_them():
    def f(x):
        with disable_saved_tensors_hooks("outer"):
            with disable_saved_tensors_hooks("inner"):
                y = x + 1
                torch._dynamo.graph_break()
                z = y * 2
                inside = message_now()
            middle = message_now()
        return z, inside, middle

    h = Harness()
    compiled = h.compile(f)
    for _ in range(2):
        z, inside, middle = compiled(torch.ones(2))
        assert torch.equal(z, torch.full((2,), 4.0)) and (inside, middle) == ("inner", "outer")
        assert message_now() is None
    assert [b.kind for b in h.breaks] == ["forced-break"]


def test_a_message_set_by_the_caller_is_guarded_and_put_back():
    def f(x):
        with disable_saved_tensors_hooks("mine"):
            y = x * 3
        return y, message_now()

    h = Harness()
    compiled = h.compile(f)
    assert compiled(torch.ones(1))[1] is None
    with disable_saved_tensors_hooks("caller's"):
        assert compiled(torch.ones(1))[1] == "caller's"
    assert message_now() is None and h.captures == 2


def test_an_error_of_the_graph_inside_the_block_puts_the_message_back():
    def f(x, idx):
        with disable_saved_tensors_hooks("m"):
            y = torch.nn.functional.embedding(idx, x.view(-1, 1)).view(-1)
        return y + 1

    h = Harness()
    compiled = h.compile(f)
    x = torch.arange(4.0)
    compiled(x, torch.tensor([1]))
    with pytest.raises(IndexError):
        compiled(x, torch.tensor([9]))
    assert message_now() is None
