"""Python values only the run can know, computed by the transformed code after the graph
(core/run_time.py): ``1 in [x]`` (a one-element tensor's comparison) and ``str``/``repr`` of an
object with ``object``'s ``__repr__`` (its address) keep the function in one graph, with eager's
results; deciding anything on them during capture is still a break."""
from __future__ import annotations

import torch

import autograph
from autograph.runtime import stats


class Counter:
    def __init__(self):
        self.frames = 0

    def __call__(self, gm, example_inputs):
        self.frames += 1
        return gm.forward


def _compile(fn, **kw):
    autograph.reset()
    counter = Counter()
    return autograph.compile(fn, backend=counter, **kw), counter


def _fallbacks() -> int:
    return sum(bool(s.errors) for s in stats.all_stats())


def constant_in_list_of_tensor(x):
    x.add_(1)
    return 1 in [x]


def test_constant_in_list_of_one_element_tensor_is_decided_after_the_graph():
    f, counter = _compile(constant_in_list_of_tensor, fullgraph=True)
    for start in (0.0, 1.0, -3.0):
        x, ref = torch.tensor([start]), torch.tensor([start])
        out = f(x)
        assert out is constant_in_list_of_tensor(ref)  # a real bool, eager's
        assert torch.equal(x, ref)
    assert counter.frames == 1 and _fallbacks() == 0


def membership_then_mutation(x, y):
    found = 2 in [x, 3, y]
    missing = 2 not in [x, y]
    x.add_(1)  # after the comparison: must not change the answer
    return found, missing, x


def test_membership_reads_the_values_at_the_comparison():
    f, counter = _compile(membership_then_mutation, fullgraph=True)
    for a, b in ((2.0, 1.0), (1.0, 2.0), (1.0, 1.0)):
        got = f(torch.tensor([a]), torch.tensor([b]))
        ref = membership_then_mutation(torch.tensor([a]), torch.tensor([b]))
        assert got[0] is ref[0] and got[1] is ref[1] and torch.equal(got[2], ref[2])
    assert counter.frames == 1


def branch_on_membership(x):
    if 1 in [x]:
        return x + 1
    return x - 1


def test_branching_on_it_is_still_a_break():
    f, _ = _compile(branch_on_membership)
    for v in (1.0, 0.0):
        assert torch.equal(f(torch.tensor([v])), branch_on_membership(torch.tensor([v])))


class Plain:
    pass


def str_of_new_object(x):
    a = Plain()
    return x * 2, str(a), repr(a)


def test_str_and_repr_of_an_object_with_default_repr():
    f, counter = _compile(str_of_new_object, fullgraph=True)
    x = torch.randn(3)
    got, ref = f(x), str_of_new_object(x)
    assert torch.equal(got[0], ref[0]) and got[1] == got[2]  # one object, one address
    assert got[1].split(" object at 0x")[0] == ref[1].split(" object at 0x")[0]
    assert counter.frames == 1 and _fallbacks() == 0


def str_returned(x):
    a = Plain()
    return x + 1, str(a), a


def test_str_names_the_returned_object():
    f, counter = _compile(str_returned, fullgraph=True)
    _, text, obj = f(torch.randn(2))
    assert text == object.__repr__(obj)  # the address of the very object returned
    assert counter.frames == 1 and _fallbacks() == 0
