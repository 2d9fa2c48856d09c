"""``torch.utils.checkpoint.checkpoint(fn, *args, use_reentrant=False)`` (families/checkpoints.py):
the function is traced into a subgraph and the graph holds one
``torch.ops.higher_order.tag_activation_checkpoint`` node; the eager backend runs it as the real
``checkpoint`` (backends/checkpoints.py), so values, gradients, the RNG state and the recomputation
in backward are Python's; options or functions that cannot be modelled are a break at the call."""
from __future__ import annotations

import warnings

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

from autograph.backends.eager import eager
from tests.capture.harness import Harness, Recorder

TAG = torch.ops.higher_order.tag_activation_checkpoint
aten = torch.ops.aten


class EagerRecorder(Recorder):
    """Records each graph and runs it with the real eager backend (not ``gm.forward``)."""

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return eager(gm, example_inputs)


def _tags(h: Harness) -> list:
    return [n for gm in h.backend.graphs for n in gm.graph.nodes if n.target is TAG]


def _run(fn, make_args, params=(), seed=0):
    """Call ``fn``, backward its sum; return outputs, grads of arguments and ``params``, and the
    next random draw (the RNG state the call leaves)."""
    torch.manual_seed(seed)
    args = make_args()
    for p in params:
        p.grad = None
    out = fn(*args)
    out.sum().backward()
    grads = [a.grad for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
    grads += [p.grad for p in params]
    return [out.detach(), *grads, torch.rand(3)]


def _assert_bit_identical(fn, make_args, params=(), calls=3) -> Harness:
    h = Harness(backend=EagerRecorder())
    compiled = h.compile(fn)
    for seed in range(calls):
        expected, got = _run(fn, make_args, params, seed), _run(compiled, make_args, params, seed)
        assert len(expected) == len(got)
        for e, g in zip(expected, got):
            assert g is not None and torch.equal(e, g), (e, g)
    return h


torch.manual_seed(0)
BLOCK = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 8))
DROPPING = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Dropout(0.4), torch.nn.Linear(16, 8))


def _x():
    return (torch.randn(4, 8, requires_grad=True),)


def mlp_block(x, w1, w2):
    def block(h):
        return torch.relu(h @ w1) @ w2

    return checkpoint(block, x * 2, use_reentrant=False) + x


def test_a_checkpointed_mlp_block_is_one_graph_with_one_tag_node():
    h = _assert_bit_identical(mlp_block, lambda: (torch.randn(4, 8, requires_grad=True),
                                                  torch.randn(8, 16, requires_grad=True),
                                                  torch.randn(16, 8, requires_grad=True)))
    assert h.captures == 1 and not h.breaks
    (node,) = _tags(h)
    assert node.kwargs == {"use_reentrant": False}
    sub = h.backend.graphs[0].checkpointed_0
    assert [n.target for n in sub.graph.nodes if n.op == "call_function"].count(torch.relu) == 1


def module_block(x):
    return checkpoint(BLOCK, x, use_reentrant=False).tanh()


def test_a_checkpointed_module_is_one_graph_and_bit_identical_with_parameter_grads():
    h = _assert_bit_identical(module_block, _x, params=list(BLOCK.parameters()))
    assert h.captures == 1 and not h.breaks and len(_tags(h)) == 1


def closure_over_tensor(x, scale):
    shift = scale.exp()

    def fn(a):
        return (a * shift).sin() + scale

    return checkpoint(fn, x, use_reentrant=False)


def test_a_closure_over_tensors_lifts_them_into_operands():
    h = _assert_bit_identical(closure_over_tensor, lambda: (torch.randn(5, requires_grad=True),
                                                            torch.randn(5, requires_grad=True)))
    assert h.captures == 1 and not h.breaks
    (node,) = _tags(h)
    assert len(node.args) == 4  # the subgraph, x, then shift and scale lifted


def with_keywords(x, y):
    def fn(a, b=None, scale=1.0):
        return a * b * scale

    return checkpoint(fn, x, use_reentrant=False, b=y, scale=3.0)


def test_keywords_go_to_the_function_and_non_tensors_stay_constants():
    h = _assert_bit_identical(with_keywords, lambda: (torch.randn(3, requires_grad=True),
                                                      torch.randn(3, requires_grad=True)))
    assert h.captures == 1 and not h.breaks and len(_tags(h)) == 1


def dropout_block(x):
    return checkpoint(DROPPING, x, use_reentrant=False)


def test_dropout_inside_gives_python_values_grads_and_rng_state():
    h = _assert_bit_identical(dropout_block, _x, params=list(DROPPING.parameters()), calls=4)
    assert h.captures == 1 and not h.breaks and len(_tags(h)) == 1


def test_preserve_rng_state_false_is_passed_on():
    def f(x):
        return checkpoint(DROPPING, x, use_reentrant=False, preserve_rng_state=False)

    h = _assert_bit_identical(f, _x, params=list(DROPPING.parameters()))
    assert h.captures == 1 and not h.breaks
    (node,) = _tags(h)
    assert node.kwargs == {"use_reentrant": False, "preserve_rng_state": False}


class _Count(TorchDispatchMode):
    def __init__(self, op):
        super().__init__()
        self.op, self.calls = op, 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.calls += func is self.op
        return func(*args, **(kwargs or {}))


def sin_then_gelu(x):
    return checkpoint(lambda a: torch.nn.functional.gelu(a.sin()), x, use_reentrant=False).sum()


def test_the_function_runs_again_in_backward():
    h = Harness(backend=EagerRecorder())
    compiled = h.compile(sin_then_gelu)
    x = torch.randn(6, requires_grad=True)
    y = compiled(x)
    with _Count(aten.sin.default) as backward:
        y.backward()
    assert h.captures == 1 and not h.breaks and len(_tags(h)) == 1
    # gelu's input ``a.sin()`` is recomputed in backward, not saved (without checkpointing: 0)
    assert backward.calls == 1
    assert torch.equal(x.grad, torch.autograd.grad(sin_then_gelu(x), x)[0])


def _break_of(fn, *args):
    h = Harness(backend=EagerRecorder())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = h.compile(fn)(*[a.clone() for a in args])
        expected = fn(*args)
    assert torch.equal(got, expected)
    assert h.breaks, "expected a break at the checkpoint call"
    return h.breaks[0]


@pytest.mark.parametrize(("options", "words"), [
    ({}, "`use_reentrant` is not given"),
    ({"use_reentrant": True}, "use_reentrant=True"),
    ({"use_reentrant": False, "debug": True}, "debug=True"),
    ({"use_reentrant": False, "determinism_check": "none"}, "determinism_check"),
    ({"use_reentrant": False, "context_fn": lambda: (torch.no_grad(), torch.no_grad())}, "context_fn"),
])
def test_options_that_cannot_be_modelled_are_a_checkpoint_options_break(options, words):
    def f(x):
        return checkpoint(torch.sin, x, **options) * 2

    brk = _break_of(f, torch.randn(3))
    assert brk.kind == "checkpoint-options" and words in brk.reason


SEEN: list = []


def appends(x):
    def fn(a):
        SEEN.append(1)
        return a.cos()

    return checkpoint(fn, x, use_reentrant=False)


def prints(x):
    def fn(a):
        print("inside")
        return a.cos()

    return checkpoint(fn, x, use_reentrant=False)


def breaks_inside(x):
    def fn(a):
        return a.cos() * float(a.sum())  # a data-dependent Python number: a break

    return checkpoint(fn, x, use_reentrant=False)


def returns_a_number(x):
    return checkpoint(lambda a: (a.cos(), 3), x, use_reentrant=False)[0]


def writes_its_input(x):
    def fn(a):
        a.add_(1)
        return a.cos()

    with torch.no_grad():
        return checkpoint(fn, x, use_reentrant=False)


def returns_one_tensor_twice(x):
    a, b = checkpoint(lambda t: (t.cos(),) * 2, x, use_reentrant=False)
    return a if a is b else a + 1


@pytest.mark.parametrize(("fn", "words"), [
    (appends, "changes something outside itself"),
    (returns_one_tensor_twice, "the same tensor twice"),
    (prints, "print()"),
    (breaks_inside, "cannot be traced"),
    (returns_a_number, "not tensors"),
    (writes_its_input, "writes a tensor from outside it"),
])
def test_a_function_that_cannot_be_a_subgraph_is_a_checkpoint_function_break(fn, words):
    SEEN.clear()
    brk = _break_of(fn, torch.randn(3))
    assert brk.kind == "checkpoint-function" and words in brk.reason, brk.reason
    if fn is appends:
        assert SEEN == [1, 1]  # once compiled (in Python, at the break), once plain


def test_a_checkpoint_inside_a_cond_branch_is_refused():
    def f(x):
        return torch.cond(x.sum() > 0, lambda a: checkpoint(torch.sin, a, use_reentrant=False),
                          lambda a: a.cos(), (x,))

    h = Harness(backend=EagerRecorder())
    x = torch.randn(4)
    assert torch.equal(h.compile(f)(x), f(x))
    assert not _tags(h)
    (brk,) = h.breaks
    assert brk.kind == "torch-cond" and "a checkpoint inside a torch.cond branch" in brk.reason


def test_the_graph_a_plain_backend_gets_holds_the_higher_order_op_torch_understands():
    h = Harness()  # gm.forward: the op's own eager implementation
    compiled = h.compile(module_block)
    x = torch.randn(4, 8, requires_grad=True)
    assert torch.allclose(compiled(x), module_block(x))
    assert h.captures == 1 and not h.breaks and len(_tags(h)) == 1


def sequential_segments(x):
    return checkpoint_sequential(DROPPING, 3, x, use_reentrant=False)


def test_checkpoint_sequential_is_one_graph_with_one_node_per_segment():
    h = _assert_bit_identical(sequential_segments, _x, params=list(DROPPING.parameters()))
    assert h.captures == 1 and not h.breaks
    assert len(_tags(h)) == 2  # (the last segment runs without checkpoint, as checkpoint_sequential does)


def test_the_default_backend_runs_the_real_checkpoint():
    import autograph

    compiled = autograph.compile(dropout_block)  # ``auto``: on the CPU the graph runs eagerly first
    params = list(DROPPING.parameters())
    for seed in range(2):
        for e, g in zip(_run(dropout_block, _x, params, seed), _run(compiled, _x, params, seed)):
            assert torch.equal(e, g)
    (entry,) = compiled.entries
    assert not entry.result.breaks and len(entry.result.graphs) == 1


def passes_options(x, context_fn):
    return checkpoint(torch.sin, x, use_reentrant=False, context_fn=context_fn, debug=False,
                      determinism_check="default", early_stop=False)


def test_default_options_given_explicitly_are_one_graph_and_a_new_context_fn_is_not_served_by_it():
    from torch.utils.checkpoint import noop_context_fn
    h = Harness(backend=EagerRecorder())
    compiled = h.compile(passes_options)
    x = torch.randn(3, requires_grad=True)
    assert torch.equal(compiled(x, noop_context_fn), passes_options(x, noop_context_fn))
    assert h.captures == 1 and not h.breaks
    (node,) = _tags(h)
    assert node.kwargs == {"use_reentrant": False, "early_stop": False}
    calls = []

    def context_fn():
        calls.append(1)
        return noop_context_fn()

    assert torch.equal(compiled(x, context_fn), passes_options(x, context_fn))
    assert len(calls) == 2 and h.breaks[-1].kind == "checkpoint-options"


class AutoEncoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.Tanh())
        self.dec = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Dropout(0.2),
                                       torch.nn.Linear(16, 8))

    def forward(self, x):
        z = self.enc(x)
        return torch.nn.functional.mse_loss(checkpoint(self.dec, z, use_reentrant=False), x)


def _train(model, forward, steps=3):
    torch.manual_seed(0)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = forward(torch.randn(5, 8))
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return losses, [p.detach().clone() for p in model.parameters()]


def test_a_compiled_module_checkpointing_a_submodule_trains_like_python():
    import copy

    import autograph

    torch.manual_seed(0)
    plain = AutoEncoder()
    model = copy.deepcopy(plain)
    compiled = autograph.compile(model)
    expected, got = _train(plain, plain), _train(model, compiled)
    for e, g in zip(expected[0] + expected[1], got[0] + got[1]):
        assert torch.equal(e, g)
    (entry,) = type(compiled)._autograph_shim.entries
    assert not entry.result.breaks and len(entry.result.graphs) == 1
