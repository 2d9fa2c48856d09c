"""autograph beside torch.compile (autograph/runtime/dynamo.py): each compiler leaves the other's code alone."""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

import autograph
from autograph.runtime import dynamo as ag_dynamo
from autograph.settings import Settings, set_current_settings

REPO = Path(__file__).resolve().parents[2]

MODEL = """
import torch
from torch import nn


def helper(x):
    return torch.sin(x) * 2


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(helper(self.lin(x))) + x


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(), Block()])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x.sum()
"""


@pytest.fixture
def hooked(tmp_path, monkeypatch):
    """``agdyn.model`` imported under the hook (eager backend); everything undone afterwards."""
    (tmp_path / "agdyn").mkdir()
    (tmp_path / "agdyn" / "__init__.py").write_text("")
    (tmp_path / "agdyn" / "model.py").write_text(textwrap.dedent(MODEL))
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    set_current_settings(Settings(backend="eager"))
    autograph.reset()
    torch._dynamo.reset()
    with autograph.install("agdyn"):
        import agdyn.model as model
        yield model
    for name in [n for n in sys.modules if n == "agdyn" or n.startswith("agdyn.")]:
        del sys.modules[name]
    autograph.reset()
    torch._dynamo.reset()
    set_current_settings(None)


class GraphCounter:
    """A torch.compile backend counting the graphs Dynamo hands it."""

    def __init__(self):
        self.graphs = 0

    def __call__(self, gm, example_inputs):
        self.graphs += 1
        return gm.forward


def _shim_of(wrapper):
    return autograph.hook.instrument.original_function(wrapper).__dict__["__autograph_shim__"]


def test_dynamo_traces_the_original_of_a_hooked_module(hooked):
    net = hooked.Net().eval()
    counter = GraphCounter()
    x = torch.randn(4, 8)
    out = torch.compile(net, backend=counter)(x)
    assert counter.graphs == 1  # one graph: no break at autograph's wrappers, nothing of autograph traced
    for fn in (hooked.Net.forward, hooked.Block.forward, hooked.helper):
        assert _shim_of(fn).stats.captures == 0  # autograph compiled nothing inside Dynamo's region
    assert torch.equal(out, net(x))


def test_losses_equal_torch_compile_alone_with_dropout(hooked):
    def run(use_hook: bool):
        torch.manual_seed(0)
        net = hooked.Net()
        if not use_hook:
            autograph.uninstall()
        compiled = torch.compile(net, backend="aot_eager")
        torch.manual_seed(1)
        out = []
        for _ in range(4):
            loss = compiled(torch.ones(4, 8))
            loss.backward()
            out.append(loss.item())
        return out

    with_hook = run(True)
    torch._dynamo.reset()
    alone = run(False)
    assert with_hook == alone


def test_torch_compile_of_a_hooked_function_compiles_the_original(hooked):
    counter = GraphCounter()  # Dynamo calls the wrapper natively: autograph hands it the original frame
    x = torch.randn(5)
    assert torch.equal(torch.compile(hooked.helper, backend=counter)(x), torch.sin(x) * 2)
    assert counter.graphs == 1
    shim = _shim_of(hooked.helper)
    assert shim.stats.captures == 0 and shim.stats.torch_compile_calls >= 1
    from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list

    from autograph.hook.instrument import _call_through
    from autograph.runtime.shim import _ShimLogic
    for code in (_call_through(None, "function").__code__, _ShimLogic._slow.__code__):
        assert _debug_get_cache_entry_list(code) == []  # Dynamo never compiled autograph's own frames


def test_autograph_compile_inside_a_torch_compile_region_leaves_the_call_to_dynamo():
    autograph.reset()
    calls = []

    def inner(x):
        calls.append(1)  # a side effect Dynamo must run once per call, as eagerly
        return torch.cos(x) + 1

    ag_inner = autograph.compile(inner, backend="eager")

    def outer(x):
        return ag_inner(x) * 3

    x = torch.randn(6)
    out = torch.compile(outer, backend="eager")(x)
    assert torch.equal(out, (torch.cos(x) + 1) * 3)
    assert ag_inner.stats.captures == 0 and ag_inner.stats.torch_compile_calls == 1
    assert len(calls) == 1
    torch._dynamo.reset()


def test_autograph_compiled_module_inside_torch_compile_is_traced_by_dynamo():
    autograph.reset()
    lin = torch.nn.Linear(4, 4)
    counter = GraphCounter()
    compiled = torch.compile(autograph.compile(lin, backend="eager"), backend=counter)
    x = torch.randn(2, 4)
    assert torch.equal(compiled(x), lin(x))
    assert counter.graphs == 1
    assert compiled._orig_mod._autograph_shim.stats.captures == 0
    torch._dynamo.reset()


def test_torch_compiled_function_inside_autograph_is_a_graph_break():
    autograph.reset()

    def inner(x):
        return torch.sin(x) * 2

    tc_inner = torch.compile(inner, backend="eager")

    def outer(x):
        return tc_inner(x * 3) + 1

    f = autograph.compile(outer, backend="eager")
    x = torch.randn(5)
    assert torch.equal(f(x), outer(x))
    [reason] = f.stats.break_reasons
    assert reason.startswith("call of torch.compile(") and "inner" in reason
    torch._dynamo.reset()


def test_torch_compiled_module_inside_autograph_runs_under_torch_compile():
    autograph.reset()
    lin = torch.nn.Linear(4, 4)
    tc_lin = torch.compile(lin, backend="eager")

    def outer(x):
        return tc_lin(x * 2) - 1

    f = autograph.compile(outer, backend="eager")
    x = torch.randn(3, 4)
    assert torch.equal(f(x), lin(x * 2) - 1)
    assert len(f.stats.break_reasons) == 1 and "torch.compile" in f.stats.break_reasons[0]
    torch._dynamo.reset()


def test_in_torch_compile_tells_a_region_apart():
    from torch._C._dynamo import eval_frame

    ag_dynamo.connect()
    assert ag_dynamo.callback is eval_frame.get_eval_frame_callback
    seen = [ag_dynamo.in_torch_compile()]

    def region(x):
        torch._dynamo.graph_break()
        seen.append(ag_dynamo.in_torch_compile())
        return x

    torch.compile(region, backend="eager")(torch.ones(1))
    assert seen == [False, True]
    torch._dynamo.reset()


# --- whole program, in a subprocess ------------------------------------------------------

def _train(env: dict[str, str], timeout: float = 600) -> tuple[dict, str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOGRAPH", "TORCH_LOGS"))}
    full["PYTHONPATH"] = os.pathsep.join([str(REPO), full.get("PYTHONPATH", "")])
    full.update(env)
    proc = subprocess.run([sys.executable, "-m", "tests.runtime.gptlike.train"], cwd=REPO, env=full,
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


def _no_autograph_frames(log: str) -> None:
    lines = [line for line in log.splitlines() if "autograph" in line and "graph_break" not in line.lower()]
    assert not [line for line in lines if "/autograph/" in line], "\n".join(lines[:20])


def test_gpt_program_under_the_hook_with_torch_compile_matches_torch_compile_alone():
    env = {"TC": "aot_eager", "STEPS": "10", "TORCH_LOGS": "graph_breaks,recompiles"}
    alone, _ = _train(env)
    hooked, log = _train({**env, "AUTOGRAPH_PACKAGES": "tests.runtime.gptlike"})
    assert hooked["losses"] == alone["losses"]  # dropout on: same random numbers consumed
    _no_autograph_frames(log)
    assert "Graph break" not in log and "Recompiling" not in log, log[-3000:]


@pytest.mark.slow
def test_gpt_program_under_the_hook_with_inductor_matches_inductor_alone():
    env = {"TC": "inductor", "STEPS": "10", "TORCH_LOGS": "graph_breaks,recompiles"}
    alone, _ = _train(env, timeout=1200)
    hooked, log = _train({**env, "AUTOGRAPH_PACKAGES": "tests.runtime.gptlike"}, timeout=1200)
    assert hooked["losses"] == alone["losses"]
    _no_autograph_frames(log)


def test_report_mode_counter_is_transparent_to_dynamo(hooked):
    from autograph.explain import torch_calls

    was_active = torch_calls.active()
    torch_calls.start()  # AUTOGRAPH_REPORT=1: a TorchFunctionMode counts torch calls
    try:
        net = hooked.Net().eval()
        counter = GraphCounter()
        x = torch.randn(4, 8)
        out = torch.compile(net, backend=counter)(x)
        assert counter.graphs == 1
    finally:
        if not was_active:
            torch_calls.stop()
    assert torch.equal(out, net(x))
