"""Torch calls are kept by what their ops do (schema ``Tensor(a!)``, collectives, random draws),
never by whether their result is used; results that are their argument keep its identity."""
from __future__ import annotations

import os
import socket

import pytest
import torch
import torch.nn.functional as F

import autograph
from tests.capture.harness import Harness


def compiled(fn, backend="eager"):
    autograph.reset()
    return autograph.compile(fn, backend=backend)


def assert_like_eager(fn, make_args, backend="eager", calls=2):
    """Compiled and eager calls on equal fresh inputs leave equal results *and* inputs."""
    cf = compiled(fn, backend)
    for i in range(calls):
        torch.manual_seed(i)
        args = make_args()
        eager_args = [a.clone() for a in args]
        expected = fn(*eager_args)
        got = cf(*args)
        for k, (a, e) in enumerate(zip(args, eager_args)):
            assert a.shape == e.shape and a.stride() == e.stride(), f"call {i}, argument {k}: metadata"
            assert torch.equal(a, e), f"call {i}, argument {k}: {a} vs eager {e}"
        if isinstance(expected, torch.Tensor):
            assert torch.allclose(got, expected)
    assert not cf.stats.errors and cf.stats.captures >= 1, cf.stats.errors
    return cf


def _randn(*shapes):
    return lambda: [torch.randn(*s) for s in shapes]


def f_add_out(x, o):
    torch.add(x, 1, out=o)
    return x * 2


def f_matmul_out(a, b, o):
    torch.matmul(a, b, out=o)
    return a + 1


def f_cat_out(a, b, o):
    torch.cat([a, b], out=o)
    return a + 1


def f_sum_out(a, o):
    torch.sum(a, 0, out=o)
    return a + 1


def f_addmm_out(c, a, b, o):
    torch.addmm(c, a, b, out=o)
    return a + 1


def f_relu_inplace(x, t):
    F.relu(t, inplace=True)
    return x + 1


def f_leaky_relu_inplace(x, t):
    F.leaky_relu(t, 0.1, inplace=True)
    return x + 1


def f_out_returns_nothing(x, o):
    torch.mul(x, 2, out=o)


def f_max_out_pair(x, values, indices):
    torch.max(x, 0, out=(values, indices))
    return x + 1


MUTATING_CALLS = [
    (f_add_out, _randn((3,), (3,))),
    (f_matmul_out, _randn((2, 2), (2, 2), (2, 2))),
    (f_cat_out, _randn((2,), (2,), (4,))),
    (f_sum_out, _randn((2, 3), (3,))),
    (f_addmm_out, _randn((2, 2), (2, 2), (2, 2), (2, 2))),
    (f_relu_inplace, _randn((4,), (4,))),
    (f_leaky_relu_inplace, _randn((4,), (4,))),
    (f_out_returns_nothing, _randn((4,), (4,))),
    (f_max_out_pair, lambda: [torch.randn(3, 2), torch.zeros(2), torch.zeros(2, dtype=torch.long)]),
]


@pytest.mark.parametrize("fn, make_args", MUTATING_CALLS, ids=[f.__name__ for f, _ in MUTATING_CALLS])
def test_mutating_call_with_unused_result_stays_in_the_graph(fn, make_args):
    assert_like_eager(fn, make_args)


def test_effects_are_read_from_the_ops_schemas():
    from torch._subclasses.fake_tensor import FakeTensorMode

    from autograph.capture.core import effects

    def kinds(call):
        mode = FakeTensorMode()
        x, o = mode.from_tensor(torch.ones(2, 3)), mode.from_tensor(torch.ones(2, 3))
        recorder = effects.EffectRecorder(effects.storages_of((x, o)))
        with mode, recorder:
            call(x, o)
        return recorder.kinds

    assert kinds(lambda x, o: torch.add(x, 1, out=o)) == [effects.WRITE]
    assert kinds(lambda x, o: F.relu(x, inplace=True)) == [effects.WRITE]
    assert kinds(lambda x, o: x[0].mul_(2)) == [effects.WRITE]  # through a view
    assert kinds(lambda x, o: x.t_()) == [effects.METADATA]
    assert kinds(lambda x, o: torch.randn(3)) == [effects.RANDOM]
    assert kinds(lambda x, o: x + o) == []
    assert kinds(lambda x, o: (x + o).add_(1)) == []  # writes only a tensor made inside the call
    assert effects.by_name("requires_grad_") == [effects.AUTOGRAD]


def test_unused_random_draw_keeps_the_generator_in_step():
    def f(x):
        torch.rand(3)  # result unused: eager still advances the generator
        return x + torch.rand(3)

    cf = compiled(f)
    torch.manual_seed(0)
    expected = f(torch.zeros(3))
    torch.manual_seed(0)
    assert torch.equal(cf(torch.zeros(3)), expected)


@pytest.fixture
def gloo_world_of_one():
    import torch.distributed as dist

    if not dist.is_available():
        pytest.skip("torch.distributed is not available")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=0, world_size=1)
    yield dist
    dist.destroy_process_group()


def test_all_reduce_with_unused_result_is_not_dropped(gloo_world_of_one):
    dist = gloo_world_of_one

    def f(x, t):
        dist.all_reduce(t)
        return x + 1

    cf = compiled(f)
    t = torch.ones(3)
    cf(torch.ones(3), t)
    (entry,) = cf.entries
    (graph,) = entry.result.graphs
    # rewritten to a functional collective copied back into t (capture/families/distributed.py)
    kept = [str(n.target) for n in graph.gm.graph.nodes if n.meta.get("mutates")]
    assert kept == ["_c10d_functional.all_reduce.default", "_c10d_functional.wait_tensor.default", "copy_"]
    assert torch.equal(t, torch.ones(3))  # the sum over one process


# --- identity: results that are their argument -----------------------------------------

def test_inplace_result_is_its_argument():
    def f(x):
        y = x.add_(1)
        return y is x

    assert compiled(f)(torch.ones(3)) is True


def test_inplace_result_returned_is_the_callers_tensor():
    def f(x):
        return x.mul_(2)

    x = torch.ones(3)
    assert compiled(f)(x) is x


def test_out_result_is_the_out_tensor():
    def f(x, o):
        r = torch.add(x, 1, out=o)
        return r is o, r

    o = torch.zeros(3)
    same, r = compiled(f)(torch.ones(3), o)
    assert same is True and r is o and torch.equal(o, torch.full((3,), 2.0))


def test_augmented_assignment_on_a_tensor_keeps_identity():
    def f(x):
        y = x
        y += 1
        return y is x, y

    x = torch.ones(3)
    same, y = compiled(f)(x)
    assert same is True and y is x


def test_call_returning_its_input_unchanged_is_the_input():
    def f(x):
        return +x, x.contiguous(), x.to(torch.float32)

    x = torch.ones(3)
    assert all(r is x for r in compiled(f)(x))


def test_inplace_on_intermediate_returns_the_intermediate():
    def f(x):
        y = x * 2
        z = y.mul_(2)
        return y, z

    y, z = compiled(f)(torch.ones(3))
    assert y is z


def test_identity_of_two_inputs_is_guarded():
    def f(a, b):
        return a is b, a + 1

    cf = compiled(f)
    t = torch.ones(3)
    assert cf(t, torch.ones(3))[0] is False
    assert cf(t, t)[0] is True


@pytest.mark.parametrize("view", [lambda x: x[0], lambda x: x.view(-1), lambda x: x.t(), lambda x: x.diagonal()],
                         ids=["getitem", "view", "t", "diagonal"])
def test_returned_view_of_an_input_is_a_live_view(view):
    cf = compiled(lambda x: view(x))
    x = torch.ones(2, 2)
    v = cf(x)
    v.add_(5)
    expected = torch.ones(2, 2)
    view(expected).add_(5)
    assert torch.equal(x, expected)


def overlapping_inplace_after_side_effects(w, log):
    log.append("before")
    t = w[-1]
    w *= t  # partial overlap: eager raises here, after the append
    log.append("after")
    return w


def test_inplace_op_on_a_tensor_sharing_memory_with_its_operand_runs_in_python():
    """Fake tensors cannot see partial overlap; in the graph the error came before the replayed
    append (fuzz seed 20261203, program 2112)."""
    from tests.capture.harness import Harness
    h = Harness()
    compiled = h.compile(overlapping_inplace_after_side_effects)
    for f in (overlapping_inplace_after_side_effects, compiled, compiled):
        log = []
        with pytest.raises(RuntimeError, match="single memory location"):
            f(torch.ones(3), log)
        assert log == ["before"]
    assert "inplace-overlap" in {b.kind for r in h.results for b in r.breaks}


def test_inplace_op_on_the_same_view_stays_in_the_graph():
    from tests.capture.harness import Harness
    h = Harness()

    def f(w):
        w *= w
        return w + 1

    assert torch.equal(h.compile(f)(torch.full((3,), 2.0)), torch.full((3,), 5.0))
    assert not [b for r in h.results for b in r.breaks]


def test_a_composite_op_writing_its_own_temporaries_is_no_overlap():
    """``nn.GRU``'s forward (``_VF.gru``, a composite op) writes slices of buffers it made itself
    while other slices are operands: no argument's memory is written, so no in-place-overlap
    break (only writes into the call's arguments can overlap differently on real memory)."""
    torch.manual_seed(0)
    gru = torch.nn.GRU(4, 8)

    def run(x):
        return gru(x)[1]

    h = Harness()
    f = h.compile(run)
    x = torch.randn(3, 2, 4)
    assert torch.equal(f(x), run(x))
    assert h.breaks == [], [b.reason for b in h.breaks]
