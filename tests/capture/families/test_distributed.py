"""torch.distributed in captured code (capture/families/distributed.py), in one process.

A gloo process group of one rank: collectives run for real (their result is the input),
so these tests check what goes into the graph, the guards and the breaks; values across
two processes are checked by tests/distributed/test_multiprocess.py.
"""
from __future__ import annotations

import pytest
import torch

import autograph

dist = pytest.importorskip("torch.distributed")
if not dist.is_available():  # pragma: no cover
    pytest.skip("torch.distributed is not available", allow_module_level=True)
import torch.distributed._functional_collectives as funcol  # noqa: E402

from tests.capture.harness import Harness  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def process_group(tmp_path_factory):
    store = tmp_path_factory.mktemp("pg") / "store"
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=0, world_size=1)
    yield dist.group.WORLD
    dist.destroy_process_group()


def _targets(gm) -> list[str]:
    return [str(n.target) for n in gm.graph.nodes if n.op in ("call_function", "call_method")]


def _capture(fn, *args):
    h = Harness()
    out = h.compile(fn)(*args)
    return h, out


def test_in_place_all_reduce_is_a_functional_collective_copied_back():
    def f(x):
        y = x * 2
        dist.all_reduce(y)
        return y + 1

    h, out = _capture(f, torch.ones(3))
    assert torch.equal(out, f(torch.ones(3)))
    (gm,) = h.backend.graphs
    targets = _targets(gm)
    assert "_c10d_functional.all_reduce.default" in targets
    assert "_c10d_functional.wait_tensor.default" in targets
    assert "copy_" in targets  # the write back into y
    assert not any(t.startswith("c10d.") for t in targets)


def test_all_reduce_on_an_input_writes_the_input_and_its_result_is_none():
    def f(x):
        r = dist.all_reduce(x, op=dist.ReduceOp.MAX)
        return r, x * 2

    h, (r, out) = _capture(f, torch.ones(3))
    assert r is None and torch.equal(out, torch.full((3,), 2.0))
    copy = [n for n in h.backend.graphs[0].graph.nodes if n.target == "copy_"]
    assert copy and copy[0].args[0].op == "placeholder"
    assert "'max'" in h.backend.graphs[0].code


@pytest.mark.parametrize("form", ["all_gather_into_tensor", "reduce_scatter_tensor", "all_to_all_single",
                                  "broadcast"])
def test_each_in_place_form_is_one_graph(form):
    def f(x):
        out = torch.empty_like(x)
        if form == "broadcast":
            dist.broadcast(x, src=0)
            return x + 1
        getattr(dist, form)(out, x + 1)
        return out * 2

    h, out = _capture(f, torch.arange(4.0))
    assert torch.equal(out, f(torch.arange(4.0)))
    assert len(h.backend.graphs) == 1 and not h.results[0].breaks
    assert any(t.startswith("_c10d_functional.") for t in _targets(h.backend.graphs[0]))


def test_functional_collectives_are_inlined_and_waited():
    def f(x):
        y = funcol.all_reduce(x * 2, "sum", dist.group.WORLD)
        z = funcol.all_gather_tensor(x, 0, dist.group.WORLD)
        return funcol.wait_tensor(y) + z.sum()

    h, out = _capture(f, torch.ones(2))
    assert torch.equal(out, f(torch.ones(2)))
    assert len(h.backend.graphs) == 1 and not h.results[0].breaks
    targets = _targets(h.backend.graphs[0])
    assert sum("wait_tensor" in t for t in targets) >= 2


def test_a_functional_collectives_result_answers_as_an_async_collective_tensor():
    def f(x):
        y = funcol.all_reduce(x * 2, "sum", dist.group.WORLD)
        return y.wait() + 1, isinstance(y, funcol.AsyncCollectiveTensor), y

    h, (out, is_act, y) = _capture(f, torch.ones(2))
    e_out, e_is_act, e_y = f(torch.ones(2))
    assert torch.equal(out, e_out) and is_act is e_is_act is True
    assert type(y) is type(e_y) is funcol.AsyncCollectiveTensor and torch.equal(y, e_y)
    assert len(h.backend.graphs) == 1 and not h.results[0].breaks


def test_an_async_collective_tensor_live_at_a_break_is_the_wrapper():
    def f(x):
        y = funcol.all_reduce(x * 2, "sum", dist.group.WORLD)
        print("break")
        return y.wait() + 1

    h, out = _capture(f, torch.ones(2))
    assert torch.equal(out, f(torch.ones(2)))
    assert h.results[0].breaks


def test_an_async_collective_tensor_passed_in_is_waited_and_kept_as_itself():
    def f(y):
        return y, y * 2, y.wait()

    y = funcol.all_reduce(torch.ones(2), "sum", dist.group.WORLD)
    h, (same, doubled, waited) = _capture(f, y)
    assert same is y and torch.equal(doubled, y * 2) and type(waited) is torch.Tensor
    assert len(h.backend.graphs) == 1 and not h.results[0].breaks
    assert "_c10d_functional.wait_tensor.default" in _targets(h.backend.graphs[0])


def test_a_collective_whose_result_is_unused_stays_in_the_graph():
    def f(x):
        funcol.all_reduce(x, "sum", dist.group.WORLD)
        return x + 1

    h, _ = _capture(f, torch.ones(2))
    assert any("all_reduce" in t for t in _targets(h.backend.graphs[0]))


def test_process_group_and_rank_queries_are_guarded():
    def f(x):
        if dist.get_rank() == 0 and dist.get_world_size(dist.group.WORLD) == 1:
            return x * 2
        return x

    compiled = autograph.compile(f)
    assert torch.equal(compiled(torch.ones(2)), torch.full((2,), 2.0))
    text = str(autograph.inspect(compiled))
    assert "torch.distributed.get_rank(): equals 0 (type int)" in text
    assert "torch.distributed.GroupMember.WORLD: the ProcessGroup object (same object as when compiled)" in text
    assert "get_world_size(<ProcessGroup" in text


def test_reduce_op_from_an_argument_is_guarded_by_identity():
    def f(x, op):
        dist.all_reduce(x, op=op)
        return x + 1

    compiled = autograph.compile(f)
    compiled(torch.ones(2), dist.ReduceOp.MAX)
    compiled(torch.ones(2), dist.ReduceOp.MIN)
    assert len(compiled.entries) == 2  # a different op recaptures
    codes = [e.result.graphs[0].gm.code for e in compiled.entries]
    assert any("'max'" in c for c in codes) and any("'min'" in c for c in codes)


def test_async_collective_wait_stays_in_the_graph():
    def f(x):
        work = dist.all_reduce(x, async_op=True)
        y = x + 1
        done = work.wait()
        return y, done

    h, (y, done) = _capture(f, torch.ones(2))
    assert done is True and torch.equal(y, torch.full((2,), 2.0))
    assert len(h.backend.graphs) == 1 and not h.results[0].breaks


def test_an_async_work_object_that_escapes_breaks_at_the_collective():
    def f(x):
        y = x * 2
        work = dist.all_reduce(y, async_op=True)
        return work, y

    compiled = autograph.compile(f)
    work, y = compiled(torch.ones(2))
    assert isinstance(work, dist.Work) and work.wait() and torch.equal(y, torch.full((2,), 2.0))
    (entry,) = compiled.entries
    assert "work object of an async collective" in entry.result.breaks[0].reason
    assert entry.result.breaks[0].kind == "distributed-async-work"


@pytest.mark.parametrize("call, kind", [("barrier", "distributed-barrier"), ("object", "distributed-call")])
def test_barrier_and_object_collectives_run_in_python(call, kind):
    def f(x):
        y = x + 1
        if call == "barrier":
            dist.barrier()
        else:
            dist.all_gather_object([None], 1)  # an object collective: Python
        return y * 2

    h = Harness()
    out = h.compile(f)(torch.ones(2))
    assert torch.equal(out, torch.full((2,), 4.0))
    assert [b.kind for b in h.results[0].breaks] == [kind]


def test_a_non_contiguous_tensor_runs_in_python():
    """c10d backends differ on non-contiguous tensors (NCCL refuses them): Python decides."""
    def f(x):
        y = x * 2
        dist.all_reduce(y.t())
        return y

    h = Harness()
    out = h.compile(f)(torch.ones(2, 3))
    assert torch.equal(out, f(torch.ones(2, 3)))
    assert "not contiguous" in h.results[0].breaks[0].reason


def test_get_rank_without_a_process_group_raises_like_eager(process_group):
    other = dist.new_group([0])
    dist.destroy_process_group(other)

    def f(x):
        return x + dist.get_rank(other)

    with pytest.raises(Exception) as eager:
        f(torch.ones(1))
    with pytest.raises(type(eager.value)):
        autograph.compile(f)(torch.ones(1))


@pytest.mark.triton
def test_triton_backend_keeps_collectives_as_extern_calls():
    pytest.importorskip("triton")

    def f(x):
        y = x.sin()
        dist.all_reduce(y)
        return y * 2

    compiled = autograph.compile(f, backend="triton")
    x = torch.randn(8)
    assert torch.allclose(compiled(x), f(x))
    (graph,) = compiled.entries[0].result.graphs
    (aten_graph,) = graph.compiled.graphs
    assert aten_graph.fallback_reason is None
    assert any(e.startswith("_c10d_functional.all_reduce") for e in aten_graph.externs)
    assert "extern_" in graph.compiled.wrapper_source


def test_a_ddp_module_called_from_compiled_code_runs_in_python():
    from torch.nn.parallel import DistributedDataParallel as DDP

    torch.manual_seed(0)
    ddp = DDP(torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1)))

    def step(model, x):
        return model(x).sum() * 2

    x = torch.randn(3, 4)
    expected = step(ddp, x)
    h = Harness()
    assert torch.equal(h.compile(step)(ddp, x), expected)
    assert [b.kind for b in h.results[0].breaks] == ["ddp-forward"]
    assert DDP.forward not in h._shims  # DDP's own forward is not captured (the step's resume is)


def test_an_in_place_collective_on_a_tensor_that_requires_grad_runs_in_python():
    """c10d's in-place collectives are not differentiable (the functional ones are): Python keeps
    eager's gradients."""
    def f(x):
        y = x * 2
        dist.all_reduce(y)
        return (y * 3).sum()

    h = Harness()
    x = torch.ones(3, requires_grad=True)
    h.compile(f)(x).backward()
    assert torch.equal(x.grad, torch.full((3,), 6.0))
    assert "requires grad" in h.results[0].breaks[0].reason
    with torch.no_grad():  # nothing to differentiate: in the graph
        h2 = Harness()
        h2.compile(f)(torch.ones(3, requires_grad=True))
        assert not h2.results[0].breaks
