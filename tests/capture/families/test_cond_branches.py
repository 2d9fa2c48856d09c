"""``torch.cond(pred, true_fn, false_fn, operands)`` (families/cond_branches.py): with a tensor
predicate both branches are traced into subgraphs and the graph holds one
``torch.ops.higher_order.cond`` node, so one capture serves both outcomes; tensors a branch reads
from around it are lifted into extra operands; a branch that changes something outside itself is
a ``torch-cond`` break where Python runs the call."""
from __future__ import annotations

import pytest
import torch

import autograph
from autograph.runtime import stats
from tests.capture.checks import assert_same
from tests.capture.harness import Harness

COND = torch.ops.higher_order.cond


def _run_both_ways(fn, make_args, h: Harness | None = None, calls: int = 4):
    """Call ``fn`` compiled and eager with arguments whose predicate alternates; compare all."""
    h = h or Harness()
    compiled = h.compile(fn)
    for i in range(calls):
        torch.manual_seed(i)
        args = make_args(i % 2 == 0)
        eager_args = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
        got, expected = compiled(*args), fn(*eager_args)
        assert_same(got, expected)
        assert_same(list(args), eager_args, "arguments after the call")
    return h


def _conds(h: Harness) -> list:
    return [n for gm in h.backend.graphs for n in gm.graph.nodes if n.target is COND]


def _signed(positive: bool, *shape):
    x = torch.rand(*shape) + 0.1
    return x if positive else -x


def two_branches(x):
    return torch.cond(x.sum() > 0, lambda a: a.sin() * 2, lambda a: a.cos() - 1, (x,))


def test_tensor_predicate_is_one_graph_for_both_outcomes():
    h = _run_both_ways(two_branches, lambda pos: (_signed(pos, 3),))
    assert h.captures == 1 and not h.breaks
    assert len(_conds(h)) == 1
    true_gm = h.backend.graphs[0].cond_true_0
    assert [n.target for n in true_gm.graph.nodes if n.op == "call_method"] == ["sin"]


def closure_over_tensors(x, w):
    scale = w * 3

    def true_fn(a):
        return a * scale + w

    def false_fn(a):
        return a - scale

    return torch.cond(x.mean() > 0, true_fn, false_fn, (x,))


def test_tensors_a_branch_closes_over_are_lifted_operands():
    h = _run_both_ways(closure_over_tensors, lambda pos: (_signed(pos, 4), torch.randn(4)))
    assert h.captures == 1 and not h.breaks
    (node,) = _conds(h)
    assert len(node.args[3]) == 3  # x, then scale and w, lifted in the same order into both branches
    for gm in (h.backend.graphs[0].cond_true_0, h.backend.graphs[0].cond_false_0):
        assert len([n for n in gm.graph.nodes if n.op == "placeholder"]) == 3


def branch_appends(x, seen):
    def true_fn(a):
        seen.append(1)
        return a + 1

    return torch.cond(x.sum() > 0, true_fn, lambda a: a - 1, (x,))


def made_list_appended(x):
    seen = []

    def true_fn(a):
        seen.append(1)
        return a + 1

    return torch.cond(x.sum() > 0, true_fn, lambda a: a - 1, (x,)), len(seen)


def test_a_branch_mutating_a_list_is_a_cond_break():
    h = Harness()
    f = h.compile(branch_appends)
    seen = []
    with pytest.raises(Exception):  # torch's own refusal, where Python runs torch.cond  # noqa: B017
        f(torch.ones(3), seen)
    assert [b.kind for b in h.breaks] == ["torch-cond"]
    assert "changes something outside itself" in h.breaks[0].reason


def test_a_branch_mutating_a_list_made_in_the_call_is_a_cond_break():
    h = Harness()
    f = h.compile(made_list_appended)
    with pytest.raises(Exception):  # noqa: B017 - torch refuses it in eager too
        f(torch.ones(3))
    assert [b.kind for b in h.breaks] == ["torch-cond"]


def printing_branch(x):
    def true_fn(a):
        print("true branch")
        return a + 1

    return torch.cond(x.sum() > 0, true_fn, lambda a: a - 1, (x,))


def test_a_branch_that_prints_is_a_cond_break(capsys):
    h = Harness()
    f = h.compile(printing_branch)
    try:
        f(torch.ones(3))
    except Exception:  # noqa: BLE001 - whatever torch.cond does in Python is eager's
        pass
    assert [b.kind for b in h.breaks] == ["torch-cond"]


def nested(x, y):
    def inner_true(a, b):
        return torch.cond(b.sum() > 0, lambda p, q: p + q, lambda p, q: p - q, (a, b))

    return torch.cond(x.sum() > 0, inner_true, lambda a, b: a * b, (x, y))


def test_nested_cond():
    def args(pos):
        return _signed(pos, 3), torch.randn(3)
    h = _run_both_ways(nested, args, calls=6)
    assert h.captures == 1 and not h.breaks
    outer = h.backend.graphs[0]
    assert [n.target for n in outer.cond_true_0.graph.nodes if n.op == "call_function"].count(COND) == 1


class Gate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.register_buffer("shift", torch.full((4,), 0.5))

    def up(self, x):
        return self.lin(x) + self.shift

    def down(self, x):
        return self.lin(x) - self.shift

    def forward(self, x):
        return torch.cond(x.sum() > 0, self.up, self.down, (x,)).relu()


def test_cond_in_a_module_forward_with_method_branches():
    m = Gate()
    h = Harness()
    f = h.compile(Gate.forward)
    for i in range(4):
        x = _signed(i % 2 == 0, 2, 4)
        assert_same(f(m, x), m(x))
    assert h.captures == 1 and not h.breaks
    (node,) = _conds(h)
    assert len(node.args[3]) == 4  # x, then the weight, bias and buffer read in the branches


def test_backward_through_cond_matches_eager_with_the_default_backend():
    def fn(x, w):
        return torch.cond(x.sum() > 0, lambda a, b: (a * b).sin(), lambda a, b: a.cos() * b, (x, w)).sum()

    autograph.reset()
    compiled = autograph.compile(fn)
    for i in range(4):
        x = _signed(i % 2 == 0, 3)
        w1 = torch.randn(3, requires_grad=True)
        w2 = w1.detach().clone().requires_grad_()
        got, expected = compiled(x, w1), fn(x, w2)
        got.backward()
        expected.backward()
        assert torch.allclose(got, expected) and torch.allclose(w1.grad, w2.grad)
    (fn_stats,) = [s for s in stats.all_stats() if s.qualname.endswith("fn")]
    assert fn_stats.captures == 1 and fn_stats.breaks == 0 and not fn_stats.errors


class Bumped(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.ones(4))

    def forward(self, p, x):
        def true_fn(a):
            a.add_(1)
            self.buf.add_(1)
            return a + self.buf

        x = x.clone()
        out = torch.cond(p, true_fn, true_fn, (x,))
        return x + self.buf + out


def test_branch_writes_operands_and_buffers_under_no_grad():
    plain, compiled_module = Bumped(), Bumped()
    h = Harness()
    f = h.compile(Bumped.forward)
    with torch.no_grad():
        for p in (torch.tensor(True), torch.tensor(False), torch.tensor(True)):
            x = torch.randn(4)
            assert_same(f(compiled_module, p, x.clone()), plain(p, x.clone()))
    assert torch.equal(compiled_module.buf, plain.buf)
    assert h.captures == 1 and not h.breaks


def writes_operand(x):
    return torch.cond(x.sum() > 0, lambda a: a.add_(1) * 2, lambda a: a * 2, (x,))


def test_branch_writing_an_operand_with_grad_enabled_is_a_cond_break():
    h = Harness()
    f = h.compile(writes_operand)
    try:
        f(torch.ones(3))
    except Exception:  # noqa: BLE001 - torch.cond refuses it in Python too
        pass
    assert [b.kind for b in h.breaks] == ["torch-cond"]


def returns_operand(x):
    return torch.cond(x.sum() > 0, lambda a: a, lambda a: a + 1, (x,))


def test_branch_returning_its_operand_is_a_cond_break():
    h = Harness()
    f = h.compile(returns_operand)
    try:
        f(torch.ones(3))
    except Exception:  # noqa: BLE001 - whatever torch.cond does in Python is eager's
        pass
    assert [b.kind for b in h.breaks] == ["torch-cond"]


def python_predicate(x, flag):
    return torch.cond(flag, lambda a: a + 1, lambda a: a - 1, (x,))


def test_python_bool_predicate_calls_one_branch_inline():
    h = Harness()
    f = h.compile(python_predicate)
    for flag in (True, False):
        x = torch.randn(3)
        assert_same(f(x, flag), python_predicate(x, flag))
    assert not h.breaks and not _conds(h)


def tuple_outputs(x, y):
    return torch.cond(x.sum() > y.sum(), lambda a, b: (a + b, [a * b]), lambda a, b: (a - b, [a / (b.abs() + 1)]),
                      [x, y])


def test_branches_returning_nested_tuples_and_lists():
    h = _run_both_ways(tuple_outputs, lambda pos: (_signed(pos, 3), torch.zeros(3)))
    assert h.captures == 1 and not h.breaks


def mismatched_outputs(x):
    return torch.cond(x.sum() > 0, lambda a: a.sum(), lambda a: a * 2, (x,))


def test_branches_whose_outputs_differ_are_a_cond_break():
    h = Harness()
    f = h.compile(mismatched_outputs)
    try:
        f(torch.ones(3))
    except Exception:  # noqa: BLE001 - torch's error, in Python
        pass
    assert [b.kind for b in h.breaks] == ["torch-cond"]


def through_the_op(x):
    from torch._higher_order_ops.cond import cond_op
    return cond_op(x.sum() > 0, lambda a: a + 1, lambda a: a - 1, (x,))


def test_the_higher_order_op_itself():
    h = _run_both_ways(through_the_op, lambda pos: (_signed(pos, 3),))
    assert h.captures == 1 and not h.breaks and len(_conds(h)) == 1


OFFSETS = [1.0, 2.0]


def reads_outside_list(x):
    return torch.cond(x.sum() > 0, lambda a: a + OFFSETS[1], lambda a: a * len(OFFSETS), (x,))


def appends_to_outside_list(x):
    def true_fn(a):
        OFFSETS.append(3.0)
        return a + 1

    return torch.cond(x.sum() > 0, true_fn, lambda a: a * 2, (x,))


def test_a_branch_may_read_a_list_from_outside_but_not_change_it():
    h = _run_both_ways(reads_outside_list, lambda pos: (_signed(pos, 3),))
    assert h.captures == 1 and not h.breaks
    h = Harness()
    try:
        h.compile(appends_to_outside_list)(torch.ones(3))
    except Exception:  # noqa: BLE001 - torch.cond refuses it in Python
        pass
    assert OFFSETS == [1.0, 2.0]
    assert [b.kind for b in h.breaks] == ["torch-cond"]


class Flagged(torch.nn.Module):
    def forward(self, x):
        def true_fn(a):
            self.flag = True
            return a + 1

        return torch.cond(x.sum() > 0, true_fn, lambda a: a * 2, (x,))


def test_a_branch_storing_an_attribute_is_a_cond_break():
    m = Flagged()
    h = Harness()
    try:
        h.compile(Flagged.forward)(m, torch.ones(3))
    except Exception:  # noqa: BLE001 - torch.cond refuses it in Python
        pass
    assert not hasattr(m, "flag")
    assert [b.kind for b in h.breaks] == ["torch-cond"]


def sized_branches(x):
    n = x.shape[0]
    return torch.cond(x.sum() > 0, lambda a: a.sin() * n, lambda a: a.cos()[: a.shape[0] - 1].sum() + a, (x,))


def test_cond_with_symbolic_sizes_is_one_capture():
    autograph.reset()
    compiled = autograph.compile(sized_branches, dynamic=True)
    for n in (3, 4, 5, 6):
        for positive in (True, False):
            x = _signed(positive, n)
            assert torch.allclose(compiled(x), sized_branches(x))
    (fn_stats,) = [s for s in stats.all_stats() if s.qualname == "sized_branches"]
    assert fn_stats.captures == 1 and fn_stats.breaks == 0 and not fn_stats.errors


def parameter_operand(x, w):
    return torch.cond(x.sum() > 0, lambda a, b: a * (2 if isinstance(b, torch.nn.Parameter) else 3),
                      lambda a, b: a - 1, (x, w))


def test_an_operand_is_itself_in_the_branch_and_unused_operands_are_dropped():
    h = Harness()
    f = h.compile(parameter_operand)
    w = torch.nn.Parameter(torch.ones(3))
    for positive in (True, False):
        x = _signed(positive, 3)
        got, expected = f(x, w), parameter_operand(x, w)
        assert_same(got, expected)  # the Parameter check, and no grad through the unused parameter
        assert got.requires_grad is expected.requires_grad is False
    assert h.captures == 1 and not h.breaks
    (node,) = _conds(h)
    assert len(node.args[3]) == 1


class Choose(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(3, 3)
        self.b = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.ReLU())

    def forward(self, x):
        return torch.cond(x.sum() > 0, self.a, self.b, (x,))


def test_submodules_as_branches():
    m = Choose()
    h = Harness()
    f = h.compile(Choose.forward)
    for positive in (True, False, True):
        x = _signed(positive, 2, 3)
        assert_same(f(m, x), m(x))
    assert h.captures == 1 and not h.breaks and len(_conds(h)) == 1
