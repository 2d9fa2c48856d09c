"""``auto`` on CPU: eager at once, the optimising compile in a worker process, the faster version kept.

The worker runs a stand-in compiler (``autograph.testing.slow_compiler``: it sleeps, then writes
a marker file; its loaded graph counts its calls), so these tests take seconds; the one test with
inductor itself is marked slow.
"""
from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
import torch

import autograph
from autograph.backends import background, compile_worker
from autograph.testing import slow_compiler
from torch.nn.utils.clip_grad import _get_total_norm

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fake_compiler(monkeypatch, tmp_path):
    """Background compiles with the stand-in compiler, asked for at the first call, cache in tmp."""
    monkeypatch.setattr(background, "HOT_CALLS", 1)
    monkeypatch.setattr(background, "HOT_SECONDS", 0.0)
    defaults = dict(slow_compiler.SETTINGS)
    monkeypatch.setattr(background, "REQUEST_DEFAULTS", defaults)
    slow_compiler.CALLS.clear()
    autograph.reset()
    gc.collect()  # holders of earlier tests (a holder's stage is a bound method: a cycle)
    yield defaults
    autograph.reset()


def _compiled(fn, tmp_path):
    """``fn`` compiled with what ``auto`` is on CPU, its cache in ``tmp_path``."""
    return autograph.compile(fn, backend=background.make_background_backend(tmp_path / "cache"))


def _holders():
    """The live graphs that asked (or will ask) the worker for a compile."""
    return [g for g in background.graphs() if g.request is not None and "key" in g.request]


def _until(predicate, call, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out: {[g.describe() for g in _holders()]}")
        call()
        time.sleep(0.02)


def test_calls_return_while_the_compile_runs_and_the_compiled_graph_is_swapped_in_later(fake_compiler, tmp_path):
    fake_compiler["fake_sleep"] = 3.0

    def f(x):
        return torch.sin(x) * 2 + 1

    cf = _compiled(f, tmp_path)
    x = torch.randn(16)
    t0 = time.perf_counter()
    torch.testing.assert_close(cf(x), f(x))
    (holder,) = _holders()
    returned_while_compiling = 0
    while holder.state == "pending":  # each call returns at once, with the eager graph's result
        t = time.perf_counter()
        torch.testing.assert_close(cf(x), f(x))
        assert time.perf_counter() - t < 1.0
        returned_while_compiling += 1
        if time.perf_counter() - t0 < 1.0:
            assert not holder.job.done
        time.sleep(0.05)
    assert returned_while_compiling >= 5
    assert not slow_compiler.CALLS  # the compiled version has not run yet
    _until(lambda: holder.state in ("eager", "inductor"), lambda: cf(x))
    assert slow_compiler.CALLS  # the trial ran the swapped-in version on real calls
    assert "median of" in holder.reason
    torch.testing.assert_close(cf(x), f(x))


def test_the_faster_version_is_kept():
    def slow(x):
        time.sleep(0.004)
        return x + 1

    def fast(x):
        return x + 1

    for eager, compiled, expected in ((slow, fast, "inductor"), (fast, slow, "eager")):
        holder = background.SwappableGraph(eager, {"specs": []}, None)
        holder._start_trial(compiled)
        for _ in range(2 * (background.TRIAL_CALLS + 1)):
            assert holder(torch.zeros(1)).item() == 1
        assert holder.state == expected, holder.describe()
        assert holder.fn is (compiled if expected == "inductor" else eager)
        assert "median of" in holder.describe()


def _loaded_machine(base_seconds, loaded):
    """A version that takes ``base_seconds`` per call, plus 20 ms on the calls ``loaded(i)`` picks
    (the i-th call of that version): another process taking the core, which only adds time."""
    calls = []

    def version(x):
        i = len(calls)
        calls.append(i)
        time.sleep(base_seconds + (0.02 if loaded(i) else 0.0))
        return x + 1
    return version, calls


def test_the_trial_is_not_fooled_when_the_load_slows_most_calls_of_one_version():
    # eager is the faster (no sleep against 5 ms), but two calls in three of it are slowed down
    eager, _ = _loaded_machine(0.0, lambda i: i % 3 != 0)
    compiled, _ = _loaded_machine(0.005, lambda i: False)
    holder = background.SwappableGraph(eager, {"specs": []}, None)
    holder._start_trial(compiled)
    for _ in range(2 * (background.TRIAL_CALLS + 1)):
        assert holder(torch.zeros(1)).item() == 1
    assert holder.state == "eager", holder.describe()
    assert "lower quartile of" in holder.describe()


def test_the_trial_goes_on_while_a_load_burst_makes_its_halves_disagree():
    # eager is the faster, but its first four timed calls ran during a burst of load
    eager, eager_calls = _loaded_machine(0.0, lambda i: 1 <= i <= 4)
    compiled, _ = _loaded_machine(0.005, lambda i: False)
    holder = background.SwappableGraph(eager, {"specs": []}, None)
    holder._start_trial(compiled)
    calls = 0
    while holder.state == "trial":
        assert holder(torch.zeros(1)).item() == 1
        calls += 1
        assert calls <= 200
    assert calls > 2 * (background.TRIAL_CALLS + 1)  # the first calls alone did not decide
    assert holder.state == "eager", holder.describe()


class _SlowBackward(torch.autograd.Function):
    """x + 1 whose backward takes 40 ms: a compiled graph with a fast forward and a slow backward."""

    @staticmethod
    def forward(ctx, x):
        return x + 1

    @staticmethod
    def backward(ctx, grad):
        time.sleep(0.04)
        return grad


def test_the_trial_of_a_trained_graph_times_its_backward_too():
    def slow_forward(x):  # 4 ms more forward, a cheap backward
        time.sleep(0.004)
        return x + 1

    def slow_backward(x):
        return _SlowBackward.apply(x)

    for eager, compiled, expected in ((slow_forward, slow_backward, "eager"), (slow_backward, slow_forward, "inductor")):
        holder = background.SwappableGraph(eager, {"specs": []}, None)
        holder._start_trial(compiled)
        w = torch.zeros(1, requires_grad=True)
        for _ in range(2 * (background.TRIAL_CALLS + 1)):
            out = holder(w * 1)
            assert out.item() == 1
            (out * 2).sum().backward()  # other nodes of the backward pass are not the graph's
        assert holder.state == expected, holder.describe()
        assert "forward and backward" in holder.describe()
        assert not holder.timers and w.grad.item() == 2 * 2 * (background.TRIAL_CALLS + 1)


def test_the_trial_counts_the_time_between_the_backward_nodes_of_an_eager_graph():
    # an eager graph's backward is one autograd node per operation, and the engine's work between
    # them is its cost too (a compiled graph's backward is one node); a tensor hook that takes
    # 30 ms between the two nodes of the eager version stands in for that work
    def eager(x):
        a = x * 2
        a.register_hook(lambda grad: time.sleep(0.03))
        return a.sin()

    def compiled(x):  # 10 ms more forward, a one-node backward
        time.sleep(0.01)
        return (x * 2).sin()

    holder = background.SwappableGraph(eager, {"specs": []}, None)
    holder._start_trial(compiled)
    w = torch.zeros(1, requires_grad=True)
    for _ in range(2 * (background.TRIAL_CALLS + 1)):
        holder(w * 1).sum().backward()
    assert holder.state == "inductor", holder.describe()
    assert "forward and backward" in holder.describe()


def test_the_backward_of_a_trial_call_is_timed_from_its_first_node_to_its_last():
    ends = []
    x = torch.ones(3, requires_grad=True)
    first = background._BackwardTimer.sequence_number()
    out = (x * 2).sin().cos()  # a chain of three nodes: one starts the call's backward, one ends it
    sample = background._Sample(0.0, None)
    timer = background._BackwardTimer.attach(out, first, sample, ends.append)
    assert len(timer.handles) == 2  # a pre-hook on the first node, a hook on the last
    (out * 3).sum().backward()  # nodes of the pass that are not the call's
    assert ends == [timer] and not timer.handles
    assert sample.backward is not None and sample.backward > 0


def test_a_trained_graph_whose_backward_never_runs_is_decided_on_forward_times():
    def slow(x):
        time.sleep(0.004)
        return x + 1

    def fast(x):
        return x + 1

    holder = background.SwappableGraph(slow, {"specs": []}, None)
    holder._start_trial(fast)
    w = torch.zeros(1, requires_grad=True)
    calls = 0
    while holder.state == "trial":
        holder(w)  # outputs that require grad, but no backward (a validation pass under grad)
        calls += 1
        assert calls <= 2 * (background.FORWARD_ONLY_AFTER + 1)
    assert holder.state == "inductor" and "forward only" in holder.describe()
    assert calls > 2 * background.TRIAL_CALLS and not holder.timers  # the pending timers' hooks removed


def test_a_failed_compile_leaves_the_eager_graph_with_the_reason(fake_compiler, tmp_path):
    fake_compiler["fake_fail"] = "the compiler gave up on purpose"

    def f(x):
        return torch.cos(x) - x

    cf = _compiled(f, tmp_path)
    x = torch.randn(8)
    cf(x)
    (holder,) = _holders()
    _until(lambda: holder.state == "eager", lambda: torch.testing.assert_close(cf(x), f(x)))
    assert "the compiler gave up on purpose" in holder.describe()
    assert holder.fn is holder.eager
    torch.testing.assert_close(cf(x), f(x))


def test_a_graph_the_worker_cannot_take_stays_eager_with_the_reason(tmp_path):
    gm = torch.fx.symbolic_trace(lambda x: (x * 2,))
    held = background.make_background_backend(tmp_path)(gm, ["not a tensor"])
    assert held.state == "eager" and held.fn is held.eager
    assert "not a tensor" in held.describe()


def test_a_second_run_loads_the_compiled_file_from_the_cache(fake_compiler, tmp_path):
    def f(x):
        return torch.tanh(x) + x

    x = torch.randn(4)
    cf = _compiled(f, tmp_path)
    cf(x)
    (first,) = _holders()
    _until(lambda: first.state in ("eager", "inductor"), lambda: cf(x))
    autograph.reset()
    slow_compiler.CALLS.clear()
    cf = _compiled(f, tmp_path)  # the same program again: no compile asked for
    cf(x)
    (second,) = [g for g in _holders() if g is not first]
    assert second.job is None and second.reason == "loaded from the cache"
    _until(lambda: second.state in ("eager", "inductor"), lambda: cf(x), timeout=20)
    assert second.job is None and slow_compiler.CALLS


def test_a_corrupt_cached_file_is_compiled_again(fake_compiler, tmp_path):
    def f(x):
        return torch.exp(x) * 3

    x = torch.randn(4)
    cf = _compiled(f, tmp_path)
    cf(x)
    (first,) = _holders()
    _until(lambda: first.state in ("eager", "inductor"), lambda: cf(x))
    path = Path(first.loaded_from)
    path.write_bytes(path.read_bytes()[:-3])  # truncated
    autograph.reset()
    cf = _compiled(f, tmp_path)
    cf(x)
    (second,) = [g for g in _holders() if g is not first]
    _until(lambda: second.job is not None, lambda: torch.testing.assert_close(cf(x), f(x)))
    assert "checksum" in second.reason or second.state != "loading"
    _until(lambda: second.state in ("eager", "inductor"), lambda: cf(x))
    assert "compiled in the background" in second.reason


_PROGRAM = textwrap.dedent("""
    import os, sys, time, signal, torch, autograph
    from autograph.backends import background, compile_worker
    from autograph.testing import slow_compiler
    background.HOT_CALLS, background.HOT_SECONDS = 1, 0.0
    background.REQUEST_DEFAULTS = dict(slow_compiler.SETTINGS, fake_sleep=120.0)
    from pathlib import Path
    cf = autograph.compile(lambda x: torch.sin(x) + 1,
                           backend=background.make_background_backend(Path(sys.argv[2])))
    cf(torch.randn(4))
    while compile_worker.client().pid is None:
        time.sleep(0.01)
    print(compile_worker.client().pid, flush=True)
    time.sleep(0.5)
    how = sys.argv[1]
    if how == "fork":
        pid = os.fork()
        if pid == 0:
            for _ in range(20):
                cf(torch.randn(4))  # the child runs on, eagerly, and may start its own worker
            os._exit(0)
        os.waitpid(pid, 0)
        print("child done", flush=True)
    elif how == "sigint":
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(30)
    print("exiting", flush=True)
""")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie waiting for its parent's wait() is gone for our purpose
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("how", ["exit", "sigint", "fork"])
def test_exit_ctrl_c_and_fork_stay_clean_while_a_compile_runs(how, tmp_path):
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", _PROGRAM, how, str(tmp_path / "cache")], env=env,
                          capture_output=True, text=True, timeout=90)
    elapsed = time.monotonic() - t0
    worker = int(proc.stdout.split()[0])
    assert elapsed < 60, proc.stderr  # nobody waited for the 120-second compile
    if how == "sigint":
        assert "KeyboardInterrupt" in proc.stderr and proc.returncode != 0
    else:
        assert proc.returncode == 0, proc.stderr
        assert "exiting" in proc.stdout
    if how == "fork":
        assert "child done" in proc.stdout
    deadline = time.monotonic() + 10
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(worker), "the compile worker outlived the program"


def test_the_worker_leaves_when_its_program_is_killed(tmp_path):
    client = compile_worker.WorkerClient()
    job = client.submit(dict(slow_compiler.SETTINGS, fake_sleep=120.0, path=str(tmp_path / "x.bin"), key="k"))
    deadline = time.monotonic() + 30
    while client.pid is None and time.monotonic() < deadline:
        time.sleep(0.01)
    pid = client.pid
    assert pid is not None and not job.done
    client._proc.stdin.close()  # what the program's death does to the worker's input
    deadline = time.monotonic() + 20
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)
    deadline = time.monotonic() + 10
    while not job.done and time.monotonic() < deadline:
        time.sleep(0.05)
    assert job.done and "exited" in job.error


def test_the_worker_is_out_of_reach_of_the_terminals_ctrl_c(tmp_path):
    client = compile_worker.WorkerClient()
    job = client.submit(dict(slow_compiler.SETTINGS, fake_sleep=0.5, path=str(tmp_path / "y.bin"), key="k"))
    while client.pid is None:
        time.sleep(0.01)
    assert os.getsid(client.pid) != os.getsid(0)  # a session of its own: SIGINT to ours misses it
    deadline = time.monotonic() + 30
    while not job.done and time.monotonic() < deadline:
        time.sleep(0.05)
    assert job.done and job.error is None and Path(job.path).is_file()
    client.shutdown()


@pytest.mark.slow
def test_inductor_in_the_background_runs_the_same_function(monkeypatch, tmp_path):
    autograph.reset()
    gc.collect()  # no holder of an earlier test in _holders()
    monkeypatch.setattr(background, "HOT_CALLS", 1)
    monkeypatch.setattr(background, "HOT_SECONDS", 0.0)
    lin = torch.nn.Linear(8, 8)

    def f(x):
        return torch.nn.functional.gelu(lin(x)).view(-1) * 2

    cf = _compiled(f, tmp_path)
    x = torch.randn(4, 8)
    cf(x)
    (holder,) = _holders()
    _until(lambda: holder.state in ("eager", "inductor", "trial"), lambda: cf(x), timeout=600)
    assert "failed" not in (holder.reason or ""), holder.describe()
    for _ in range(4):  # trial calls run the inductor version on every other call
        out = cf(x)
        out.sum().backward()
        torch.testing.assert_close(out, f(x), rtol=1e-4, atol=1e-5)
    autograph.reset()


def test_the_report_says_which_version_each_graph_runs(fake_compiler, tmp_path):
    fake_compiler["fake_fail"] = "no compiler today"
    cf = _compiled(lambda x: x.sin() + 2, tmp_path)
    x = torch.randn(3)
    cf(x)
    (holder,) = _holders()
    _until(lambda: holder.state == "eager", lambda: cf(x))
    text = str(autograph.report())
    assert "graphs compiled in the background" in text and "no compiler today" in text


def test_a_graph_that_cannot_be_described_still_runs_eagerly(tmp_path):
    class HoldsAMetaTensor(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("b", torch.empty(2, device="meta"))  # no bytes to hash

        def forward(self, x):
            return (x * self.b,)

    gm = torch.fx.symbolic_trace(HoldsAMetaTensor())
    held = background.make_background_backend(tmp_path)(gm, [torch.randn(2, device="meta")])
    assert held.state == "eager" and "cannot describe" in held.describe()


def test_a_compiled_graph_that_raises_gives_way_to_the_eager_one(fake_compiler, tmp_path):
    fake_compiler["fake_compiled_raises"] = True

    def f(x):
        return torch.sigmoid(x) * 4

    cf = _compiled(f, tmp_path)
    x = torch.randn(5)
    cf(x)
    (holder,) = _holders()
    assert holder.rerunnable  # writes no input: the eager graph may run after a failed call
    _until(lambda: holder.state == "eager", lambda: torch.testing.assert_close(cf(x), f(x)))
    assert slow_compiler.CALLS and "the compiled graph failed" in holder.describe()
    torch.testing.assert_close(cf(x), f(x))


def _linear_gelu(x, w, b):
    return (torch.nn.functional.gelu(torch.nn.functional.linear(x, w, b)) * 2,)


def _linear_gelu_in_an_autocast_region():
    """The graph capture records for a ``with torch.autocast(...)`` block: region nodes, as TorchDynamo."""
    from torch.amp.autocast_mode import _enter_autocast, _exit_autocast

    graph = torch.fx.Graph()
    x, w, b = (graph.placeholder(name) for name in "xwb")
    ctx = graph.call_function(_enter_autocast, ("cpu", torch.bfloat16, True, True))
    y = graph.call_function(torch.nn.functional.linear, (x, w, b))
    y = graph.call_function(torch.nn.functional.gelu, (y,))
    graph.call_function(_exit_autocast, (ctx,))
    graph.output((graph.call_function(torch.mul, (y, 2)),))
    return torch.fx.GraphModule(torch.nn.Module(), graph)


@pytest.mark.slow
@pytest.mark.parametrize("where", ["the caller's autocast", "an autocast region in the graph"])
def test_an_autocast_graph_swaps_to_its_artifact_bit_identical_to_inductors_own(monkeypatch, tmp_path, where):
    import contextlib

    from torch._inductor.compile_fx import compile_fx

    autograph.reset()
    gc.collect()
    monkeypatch.setattr(background, "HOT_CALLS", 1)
    monkeypatch.setattr(background, "HOT_SECONDS", 0.0)
    torch.manual_seed(0)
    x, w, b = torch.randn(8, 16), torch.randn(16, 16, requires_grad=True), torch.randn(16, requires_grad=True)
    caller = torch.autocast("cpu", dtype=torch.bfloat16) if where == "the caller's autocast" \
        else contextlib.nullcontext()

    def graph():
        return torch.fx.symbolic_trace(_linear_gelu) if where == "the caller's autocast" \
            else _linear_gelu_in_an_autocast_region()

    with caller:
        held = background.make_background_backend(tmp_path)(graph(), [x, w, b])
        assert held.state == "warming", held.describe()
        _until(lambda: held.state != "warming" and held.state not in ("pending", "loading"),
               lambda: held(x, w, b), timeout=600)
        assert held.compiled is not None, held.describe()  # the trial: the artifact was loaded
        mine = held.compiled(x, w, b)[0]
        theirs = compile_fx(graph(), [x, w, b])(x, w, b)[0]
        want = graph()(x, w, b)[0]
    assert mine.dtype == theirs.dtype == want.dtype == torch.bfloat16
    assert torch.equal(mine, theirs)  # inductor's own compile of the graph, to the bit
    torch.testing.assert_close(mine, want)  # and eager's, within bf16's tolerance
    grads = torch.autograd.grad(mine.float().sum(), (w, b))
    want_grads = torch.autograd.grad(want.float().sum(), (w, b))
    for got, expected in zip(grads, want_grads):
        torch.testing.assert_close(got, expected, rtol=2e-2, atol=2e-2)
    assert not torch.is_autocast_enabled("cpu")
    autograph.reset()


@pytest.mark.slow
def test_a_graph_whose_compiled_file_cannot_be_saved_is_compiled_in_the_program(monkeypatch, tmp_path):
    from autograph.backends import inductor_artifacts as ia

    autograph.reset()
    gc.collect()
    monkeypatch.setattr(background, "HOT_CALLS", 1)
    monkeypatch.setattr(background, "HOT_SECONDS", 0.0)
    gm = torch.fx.symbolic_trace(lambda loss: (loss.detach(),))  # nothing for inductor to compile
    loss = torch.randn((), requires_grad=True)
    held = background.make_background_backend(tmp_path)(gm, [loss])
    _until(lambda: held.state in ("trial", "eager", "inductor"), lambda: held(loss), timeout=600)
    assert "failed" not in held.reason and "compiled in this process" in held.reason, held.describe()
    assert "torch saved no cache entry" in held.reason, held.reason
    _until(lambda: held.state in ("eager", "inductor"), lambda: held(loss), timeout=60)
    assert "inductor is not faster" in held.reason or "faster than eager" in held.reason  # the trial decided
    assert held(loss)[0] is not loss and torch.equal(held(loss)[0], loss)
    (verdict,) = (tmp_path / "inductor").glob("*.eager")  # the next run compiles it here at once
    assert ia.read_verdict(verdict, held.request["key"]).compile_here


_UNSAVABLE_PROGRAM = textwrap.dedent("""
    import json, sys, time, torch, autograph
    from pathlib import Path
    from autograph.backends import background, compile_worker
    from autograph.testing import slow_compiler
    background.HOT_CALLS, background.HOT_SECONDS = 1, 0.0
    background.REQUEST_DEFAULTS = dict(slow_compiler.SETTINGS, fake_unsupported="torch saved nothing to write")
    cf = autograph.compile(lambda x: torch.sin(x) + 1,
                           backend=background.make_background_backend(Path(sys.argv[1])))
    x = torch.randn(4)
    cf(x)
    (holder,) = [g for g in background.graphs() if g.request is not None]
    deadline = time.monotonic() + 60
    while holder.state not in ("eager", "inductor") and time.monotonic() < deadline:
        assert torch.equal(cf(x), torch.sin(x) + 1)
        time.sleep(0.02)
    assert torch.equal(cf(x), torch.sin(x) + 1)
    print(json.dumps({"state": holder.state, "asked": holder.job is not None,
                      "worker": compile_worker._client is not None and compile_worker._client.pid is not None,
                      "report": str(autograph.report())}))
""")


def _run_unsavable(cache: Path) -> dict:
    import json

    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    proc = subprocess.run([sys.executable, "-c", _UNSAVABLE_PROGRAM, str(cache)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_graph_whose_file_cannot_be_made_is_not_sent_to_the_worker_again_on_the_next_run(tmp_path):
    cache = tmp_path / "cache"
    first = _run_unsavable(cache)
    assert first["state"] == "eager" and first["asked"] and first["worker"]
    assert "torch saved nothing to write" in first["report"]
    (verdict,) = (cache / "inductor").glob("*.eager")
    second = _run_unsavable(cache)  # a warm start: the verdict is read, no compile is asked for
    assert second["state"] == "eager" and not second["asked"] and not second["worker"]
    assert "remembered from an earlier run" in second["report"] and "torch saved nothing to write" in second["report"]
    for damage in (lambda data: data[:-4], lambda data: data.replace(b"torch saved", b"torch SAVED")):
        verdict.write_bytes(damage(verdict.read_bytes()))
        third = _run_unsavable(cache)  # a damaged verdict is ignored: the graph is compiled as usual
        assert third["state"] == "eager" and third["asked"] and "remembered" not in third["report"]
    assert not _run_unsavable(cache)["asked"]  # and the new verdict replaced the damaged one


def test_a_stale_verdict_is_ignored(tmp_path, monkeypatch):
    from autograph.backends import inductor_artifacts as ia

    path = tmp_path / "inductor" / "k.eager"
    assert ia.read_verdict(path, "k") is None  # no verdict: nothing remembered
    assert ia.write_verdict(path, "k", "why not")
    assert ia.read_verdict(path, "k") == ("why not", False)
    with pytest.raises(ValueError, match="stale"):
        ia.read_verdict(path, "another key")  # a file copied or renamed under another key
    monkeypatch.setattr(torch, "__version__", "0.0.0-another-build")
    with pytest.raises(ValueError, match="stale"):
        ia.read_verdict(path, "k")


def test_a_verdict_of_the_first_format_is_ignored(tmp_path):
    """Format 1 kept graphs whose file cannot be saved eager; they are now compiled in the program."""
    import hashlib
    import json
    import platform

    from autograph.backends import inductor_artifacts as ia

    body = json.dumps({"key": "k", "torch": torch.__version__, "python": platform.python_version(),
                       "reason": "torch saved no cache entry"}).encode()
    path = tmp_path / "inductor" / "k.eager"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"autograph-inductor-verdict-1\n" + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
    with pytest.raises(ValueError, match="not an autograph verdict of this version"):
        ia.read_verdict(path, "k")
    assert background._remembered({"verdict": str(path), "key": "k"}) is None  # compiled as if there were none


def test_a_verdict_in_a_read_only_cache_is_not_kept_and_nothing_fails(tmp_path):
    from autograph.backends import inductor_artifacts as ia
    from tests.backends.conftest import permission_checks

    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o500)
    try:
        with permission_checks():
            assert not ia.write_verdict(cache / "inductor" / "k.eager", "k", "why not")
            background._remember({"verdict": str(cache / "inductor" / "k.eager"), "key": "k"}, "why not")
    finally:
        cache.chmod(0o700)
    assert ia.read_verdict(cache / "inductor" / "k.eager", "k") is None


def test_a_graph_with_symbolic_sizes_is_compiled_in_the_background_and_swapped_in(fake_compiler, tmp_path):
    def f(x, n):
        return torch.sin(x) * n + x.shape[0]

    cf = _compiled(f, tmp_path)
    sizes = [3, 5, 8, 11, 6, 9, 4, 7, 10, 12]
    for size in sizes[:3]:  # recaptures: a symbolic first dimension, then n too
        x = torch.randn(size, 4)
        torch.testing.assert_close(cf(x, size), f(x, size))
    (holder,) = [g for g in _holders() if len(g.request["hints"]) == 2]
    assert sorted(holder.request["hints"].values()) == [8, 8]  # the size and n: two symbols, one value
    calls = iter(sizes * 20)

    def call_at_the_next_size():
        size = next(calls)
        x = torch.randn(size, 4)
        torch.testing.assert_close(cf(x, size), f(x, size))

    _until(lambda: holder.state in ("eager", "inductor"), call_at_the_next_size)
    assert "median of" in holder.reason and slow_compiler.CALLS
    for size in sizes:  # whichever version it settled on, every size is right
        call_at_the_next_size()


def test_a_compiled_graph_runs_only_where_its_size_guards_hold():
    from autograph.backends.symbolic_inputs import Guarded

    compiled_calls = []

    def compiled(x):
        compiled_calls.append(x.shape[0])
        return x + 1

    guarded = Guarded(compiled, "2 <= L['t0'].size()[0] and L['t0'].size()[0] <= 8")
    holder = background.SwappableGraph(lambda x: x + 1, {"specs": []}, None)
    holder._start_trial(guarded)
    for size in (1, 4, 9, 8):
        assert torch.equal(holder.compiled(torch.zeros(size)), torch.ones(size))
    assert compiled_calls == [4, 8]  # sizes 1 and 9 ran eagerly


@pytest.mark.slow
def test_inductor_compiles_a_graph_with_symbolic_sizes_once_for_all_of_them(tmp_path):
    from autograph.backends import inductor_artifacts as ia

    seen = []

    def recording(gm, example_inputs):
        seen.append((gm, example_inputs))
        return gm.forward

    def f(x, y, n):
        return ((torch.sin(x) @ y).relu() * n + x.shape[0],)

    cf = autograph.compile(f, backend=recording)
    for size in (4, 6, 9):  # the third capture: symbolic sizes and n
        cf(torch.randn(size, 5), torch.randn(5, size + 1), size)
    gm, example_inputs = seen[-1]
    assert len(example_inputs) == 3 and isinstance(example_inputs[2], torch.SymInt)
    with pytest.raises(ia.Unsupported, match="symbolic"):
        ia.request(gm, example_inputs, tmp_path)  # the inductor backend's request: compile_fx does it
    req = ia.request(gm, example_inputs, tmp_path, symbolic=True)
    assert req["key"] == ia.request(*seen[-1], tmp_path, symbolic=True)["key"]
    compiled = ia.load_request(ia.compile_to_file(ia.serialize(req)), req)
    for size in (3, 7, 12, 2):
        args = (torch.randn(size, 5), torch.randn(5, size + 1), size)
        assert compiled.accepts(args)
        torch.testing.assert_close(compiled(*args)[0], f(*args)[0], rtol=1e-4, atol=1e-4)
    assert not compiled.accepts((torch.randn(1, 5), torch.randn(5, 2), 1))  # 0 and 1 were not compiled for
    assert not compiled.accepts((torch.randn(4, 5), torch.randn(5, 6).t().contiguous().t(), 4))  # another layout
    autograph.reset()


def test_a_second_run_loads_the_cached_file_only_once_the_graph_is_hot(fake_compiler, tmp_path, monkeypatch):
    def f(x):
        return torch.tanh(x) * 3

    x = torch.randn(4)
    cf = _compiled(f, tmp_path)
    cf(x)
    (first,) = _holders()
    _until(lambda: first.state in ("eager", "inductor"), lambda: cf(x))
    autograph.reset()
    monkeypatch.setattr(background, "HOT_CALLS", 3)
    cf = _compiled(f, tmp_path)  # the same program again: the file is there
    for _ in range(2):  # its first calls (the program's first steps) do not pay for loading it
        torch.testing.assert_close(cf(x), f(x))
        (second,) = [g for g in _holders() if g is not first]
        assert second.state == "warming" and second.loaded_from is None, second.describe()
    cf(x)
    assert second.state in ("loading", "trial") and second.reason == "loaded from the cache" and second.job is None
    _until(lambda: second.state in ("eager", "inductor"), lambda: cf(x), timeout=20)
    assert second.job is None


@pytest.mark.parametrize("error, remembered", [("Unsupported: the graph calls a local function", True),
                                               ("UnsupportedHere: the symbolic size s0 is 1 in the example", False)])
def test_only_verdicts_true_of_the_graph_whatever_its_example_values_are_remembered(tmp_path, error, remembered):
    from autograph.backends import inductor_artifacts as ia

    verdict = tmp_path / "inductor" / "k.eager"
    holder = background.SwappableGraph(lambda x: x + 1, {"specs": [], "key": "k", "verdict": str(verdict)}, tmp_path)
    holder.job = compile_worker.Job(1, holder.request, done=True, error=error)
    holder.state, holder.fn = "pending", holder._pending
    assert holder(torch.zeros(1)).item() == 1
    assert holder.state == "eager" and error.partition(": ")[2] in holder.describe()
    assert (ia.read_verdict(verdict, "k") == (error.partition(": ")[2], False)) if remembered else not verdict.exists()


def test_a_graph_with_symbolic_sizes_and_parameters_is_compiled_in_the_background(fake_compiler, tmp_path):
    lin = torch.nn.Linear(4, 3)

    def f(x):
        return torch.relu(lin(x)) * 2

    cf = _compiled(f, tmp_path)
    sizes = [3, 5, 8, 6, 9, 4, 7]
    for size in sizes[:2]:  # the second call recaptures with a symbolic batch size
        x = torch.randn(size, 4)
        torch.testing.assert_close(cf(x), f(x))
    (holder,) = [g for g in _holders() if g.request["hints"]]
    static = [spec for spec in holder.request["specs"] if not any(isinstance(d, str) for d in spec[0])]
    assert sorted(spec[0] for spec in static) == [(3,), (3, 4)]  # the parameters: fakes of fixed sizes
    calls = iter(sizes * 20)

    def call_at_the_next_size():
        x = torch.randn(next(calls), 4)
        torch.testing.assert_close(cf(x), f(x))

    _until(lambda: holder.state in ("eager", "inductor"), call_at_the_next_size)
    assert "median of" in holder.reason and slow_compiler.CALLS


@pytest.mark.slow
def test_inductor_in_the_background_trains_a_graph_with_symbolic_sizes_at_every_size(monkeypatch, tmp_path):
    autograph.reset()
    gc.collect()
    monkeypatch.setattr(background, "HOT_CALLS", 1)
    monkeypatch.setattr(background, "HOT_SECONDS", 0.0)
    lin = torch.nn.Linear(16, 16)

    def f(x):
        return torch.nn.functional.gelu(lin(x)).sum(-1) * 2

    cf = _compiled(f, tmp_path)
    sizes = iter([3, 5, 8, 11, 6, 9, 4, 7, 1, 10, 12] * 200)

    def step():
        x = torch.randn(next(sizes), 16, requires_grad=True)
        out = cf(x)
        (grad,) = torch.autograd.grad(out.sum(), x)
        x2 = x.detach().requires_grad_()
        want = f(x2)
        torch.testing.assert_close(out, want, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(grad, torch.autograd.grad(want.sum(), x2)[0], rtol=1e-4, atol=1e-4)

    for _ in range(3):
        step()
    (holder,) = [g for g in _holders() if g.request["hints"]]
    _until(lambda: holder.state in ("eager", "inductor"), step, timeout=600)
    assert "median of" in holder.reason and "compiled in the background" in holder.reason, holder.describe()
    for _ in range(11):  # every size again, 1 included (its own capture), on the version kept
        step()
    autograph.reset()


@pytest.mark.parametrize("error", ["NothingSaved: torch saved no cache entry",
                                   "NotCacheable: AOTAutograd's cache refuses the graph"])
def test_a_graph_no_file_can_be_made_of_is_compiled_in_the_program_and_remembered_so(fake_compiler, tmp_path,
                                                                                      error):
    from autograph.backends import inductor_artifacts as ia

    slow_compiler.HERE.clear()
    verdict = tmp_path / "inductor" / "k.eager"
    gm = torch.fx.symbolic_trace(lambda x: (x.sin() + 1,))
    request = dict(fake_compiler, specs=[], key="k", verdict=str(verdict), gm=gm, constants=[],
                   options={"grad_enabled": True, "autocast": ()})
    holder = background.SwappableGraph(gm.forward, request, tmp_path)
    holder.job = compile_worker.Job(1, holder.request, done=True, error=error)
    holder.state, holder.fn = "pending", holder._pending
    x = torch.randn(3)
    assert torch.equal(holder(x)[0], x.sin() + 1)  # the answer is read: the compile is queued, eager runs
    assert holder.state in ("loading", "trial") and "compiled in this process" in holder.reason, holder.describe()
    _until(lambda: holder.state == "trial", lambda: holder(x))
    assert slow_compiler.HERE[-1]["thread"] == "autograph-graph-loader"  # not the program's thread
    assert slow_compiler.HERE[-1]["locked"]  # holding Dynamo's compile lock: a torch.compile meanwhile waits
    _until(lambda: holder.state in ("eager", "inductor"), lambda: holder(x))
    assert slow_compiler.CALLS.count("k") >= background.TRIAL_CALLS  # the compiled version ran in the trial
    assert ia.read_verdict(verdict, "k") == (error.partition(": ")[2], True)


def test_a_remembered_compile_in_the_program_asks_no_worker_and_a_failed_one_leaves_eager(fake_compiler, tmp_path):
    from autograph.backends import inductor_artifacts as ia

    fake_compiler["fake_no_file"] = "AOTAutograd's cache refuses the graph"
    slow_compiler.HERE.clear()

    def f(x):
        return x.cos() * 3

    cf = _compiled(f, tmp_path)
    x = torch.randn(5)
    cf(x)
    (first,) = _holders()
    _until(lambda: first.state in ("eager", "inductor"), lambda: cf(x))
    assert first.job is not None and len(slow_compiler.HERE) == 1
    (verdict,) = (tmp_path / "cache" / "inductor").glob("*.eager")
    assert ia.read_verdict(verdict, first.request["key"]).compile_here

    first = cf = None  # the first run's graph goes
    autograph.reset()
    gc.collect()
    fake_compiler["fake_here_fails"] = "no inductor today"
    cf = _compiled(f, tmp_path)  # the next run: compiled here once hot, no worker
    cf(x)
    (second,) = _holders()
    _until(lambda: second.state in ("eager", "inductor"), lambda: cf(x))
    assert second.job is None and len(slow_compiler.HERE) == 2
    assert second.state == "eager" and "no inductor today" in second.reason, second.describe()
    assert torch.equal(cf(x), x.cos() * 3)


def _linear_gelu_norm(region: bool) -> torch.fx.GraphModule:
    """Linear, gelu and a call AOTAutograd's cache refuses (``_get_total_norm``, a private torch
    function), in an autocast region as capture records one (``region``) or not."""
    from torch.amp.autocast_mode import _enter_autocast, _exit_autocast

    graph = torch.fx.Graph()
    x, w, b = (graph.placeholder(name) for name in "xwb")
    ctx = graph.call_function(_enter_autocast, ("cpu", torch.bfloat16, True, True)) if region else None
    y = graph.call_function(torch.nn.functional.linear, (x, w, b))
    y = graph.call_function(torch.nn.functional.gelu, (y,))
    norm = graph.call_function(_get_total_norm, ([y],))
    if region:
        graph.call_function(_exit_autocast, (ctx,))
    graph.output((graph.call_function(torch.mul, (y, 2)), norm))
    return torch.fx.GraphModule(torch.nn.Module(), graph)


@pytest.mark.slow
@pytest.mark.parametrize("where", ["the caller's autocast", "an autocast region in the graph"])
def test_an_autocast_graph_the_artifact_cache_refuses_is_compiled_in_the_program_under_its_autocast(
        monkeypatch, tmp_path, where):
    """The compile runs on the loader thread, which has none of the program's autocast state: it is
    applied from the request, so the compiled graph computes what the eager one computes under it."""
    import contextlib

    from autograph.backends import inductor_artifacts as ia

    autograph.reset()
    gc.collect()
    monkeypatch.setattr(background, "HOT_CALLS", 1)
    monkeypatch.setattr(background, "HOT_SECONDS", 0.0)
    compiled_here = []
    real = getattr(ia, "compile_here", None)  # (None on b997d6a, where the graph then stays eager)
    monkeypatch.setattr(ia, "compile_here", lambda req: compiled_here.append(
        (threading.current_thread().name, torch.is_autocast_enabled("cpu"))) or real(req), raising=False)
    torch.manual_seed(0)
    x, w, b = torch.randn(8, 16), torch.randn(16, 16, requires_grad=True), torch.randn(16, requires_grad=True)
    caller = torch.autocast("cpu", dtype=torch.bfloat16) if where == "the caller's autocast" \
        else contextlib.nullcontext()

    def graph():
        return _linear_gelu_norm(region=where != "the caller's autocast")

    with caller:
        held = background.make_background_backend(tmp_path)(graph(), [x, w, b])
        _until(lambda: held.state not in ("warming", "pending", "loading"), lambda: held(x, w, b), timeout=600)
        assert held.compiled is not None and "compiled in this process" in held.reason, held.describe()
        assert "AOTAutograd's cache refuses" in held.reason, held.reason
        mine = held.compiled(x, w, b)
        want = graph()(x, w, b)
    assert compiled_here == [("autograph-graph-loader", False)]  # a thread without the caller's autocast
    assert mine[0].dtype == want[0].dtype == torch.bfloat16  # autocast applied to the compile
    torch.testing.assert_close(mine[0], want[0])
    torch.testing.assert_close(mine[1], want[1], rtol=2e-2, atol=2e-2)
    grads = torch.autograd.grad(mine[0].float().sum(), (w, b))
    want_grads = torch.autograd.grad(want[0].float().sum(), (w, b))
    for got, expected in zip(grads, want_grads):
        torch.testing.assert_close(got, expected, rtol=2e-2, atol=2e-2)
    assert not torch.is_autocast_enabled("cpu")
    autograph.reset()
