"""Python scalars that change between calls (automatic dynamic for int/float; families/scalars.py).

Every compiled result is compared with eager Python: same values (bit for bit), same types.
"""
from __future__ import annotations

import math
import random
import warnings

import pytest
import torch

import autograph
from autograph.guards.model import EQUALS_MATCH
from autograph.runtime.dynamic import changed_scalar
from autograph.runtime.shim import RecompileLimitWarning
from tests.dynamic.exact import same


pytestmark = pytest.mark.usefixtures("eager_settings")


def run(fn, calls, **compile_options):
    compiled = autograph.compile(fn, backend="eager", **compile_options)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RecompileLimitWarning)
        for args in calls:
            same(compiled(*args), fn(*args))
    return compiled


class Config:
    n_layer, n_head, n_embd, block_size = 2, 2, 32, 32


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)
        self.config = Config()
        self.lr = 0.1

    def estimate_mfu(self, fwdbwd_per_iter, dt):
        N = self.lin.weight.numel() + self.lin.bias.numel()
        cfg = self.config
        L, H, Q, T = cfg.n_layer, cfg.n_head, cfg.n_embd // cfg.n_head, cfg.block_size
        flops_per_token = 6 * N + 12 * L * H * Q * T
        flops_per_iter = flops_per_token * T * fwdbwd_per_iter
        flops_achieved = flops_per_iter * (1.0 / dt)
        return flops_achieved / 312e12


def test_estimate_mfu_with_a_new_float_each_call_compiles_at_most_twice():
    from tests.runtime.gptlike.model import GPT, GPTConfig

    model = GPT(GPTConfig())
    rng = random.Random(0)
    compiled = autograph.compile(GPT.estimate_mfu, backend="eager")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RecompileLimitWarning)
        for _ in range(20):
            dt = rng.random() * 0.1
            same(compiled(model, 4, dt), GPT.estimate_mfu(model, 4, dt))
    # (get_num_params' own resume function may storm on its generator expression: not a scalar)
    assert not [w for w in caught if str(w.message).startswith("GPT.estimate_mfu ")]
    assert compiled.stats.captures <= 2  # (0 once parameters() is walked at capture: no tensor work left)
    assert all(r.guard_src.startswith("type(dt) is float and dt ==") for r in compiled.stats.recompiles)


def test_float_arithmetic_is_bit_identical_to_python():
    def f(x, dt):
        a = (dt * 0.1) * 3 + dt / 7.0 - dt ** 0.5  # no reassociation: (dt * 0.1) * 3 != dt * 0.3
        b = math.sqrt(dt) + abs(-dt) + min(dt, 0.5) + max(2, dt)
        return x + 1, a, b, int(dt * 1000), round(dt, 3), float(dt), -dt, dt * 2 == dt + dt

    rng = random.Random(1)
    compiled = run(f, [(torch.ones(2), rng.uniform(0.001, 2.0)) for _ in range(12)])
    assert compiled.stats.captures == 2


def test_float_into_a_torch_operation_is_a_graph_input():
    def f(x, dt):
        return x * dt + (1.0 / dt), torch.full((2,), dt * 2), x.new_full((3,), -dt)

    rng = random.Random(2)
    compiled = run(f, [(torch.randn(4), rng.random()) for _ in range(10)])
    assert compiled.stats.captures == 2
    gm = compiled.entries[-1].result.graphs[0].gm
    assert [n.name for n in gm.graph.nodes if n.op == "placeholder"] == ["x", "dt"]


def test_float_in_a_branch_specialises_on_the_decision_only():
    def f(x, dt):
        if dt > 0.5:
            return x * 2, dt
        return x - 1, dt * 3

    calls = [(torch.ones(3), v) for v in (0.1, 0.9, 0.2, 0.3, 0.7, 0.8, 0.05, 0.6, 0.4)]
    compiled = run(f, calls)
    assert compiled.stats.captures == 3  # constant, then one entry per side of the branch
    assert any("dt > 0.5" in g.src for g in compiled.entries[-1].guards.guards)


def test_float_formatted_as_text_is_exact():
    def f(x, dt):
        return x + 1, f"{dt:.3f}", str(dt)

    rng = random.Random(3)
    compiled = run(f, [(torch.ones(1), rng.random()) for _ in range(6)])
    assert compiled.stats.captures == 2  # the text is made in Python (a break), not folded per value


def test_a_float_attribute_read_by_the_code():
    model = Model()

    def f(m, x):
        return m.lin(x) * m.lr, m.lr / 2

    compiled = autograph.compile(f, backend="eager")
    for lr in (0.1, 0.01, 0.001, 0.0001, 0.5):
        model.lr = lr
        same(compiled(model, torch.ones(2, 8)), f(model, torch.ones(2, 8)))
    assert compiled.stats.captures == 2


def test_a_float_read_before_a_store_keeps_its_old_value():
    class Clock:
        t = 0.0

    def tick(clock, x, dt):
        old = clock.t
        clock.t = old + dt
        return x * 2, old, clock.t

    compiled = autograph.compile(tick, backend="eager")
    eager_clock, compiled_clock = Clock(), Clock()
    rng = random.Random(4)
    for _ in range(8):
        dt = rng.random()
        x = torch.ones(2)
        same(compiled(compiled_clock, x, dt), tick(eager_clock, x, dt))
        assert compiled_clock.t == eager_clock.t
    assert compiled.stats.captures == 2


def test_a_float_division_by_zero_raises_as_in_python():
    def f(x, dt):
        return x + 1, 1.0 / dt

    compiled = autograph.compile(f, backend="eager")
    for dt in (0.5, 0.25):
        same(compiled(torch.ones(1), dt), f(torch.ones(1), dt))
    assert any("computes without error" in g.describe() for g in compiled.entries[-1].guards.guards)
    with pytest.raises(ZeroDivisionError, match="float division by zero"):
        compiled(torch.ones(1), 0.0)
    same(compiled(torch.ones(1), 0.125), f(torch.ones(1), 0.125))


def test_int_arithmetic_only_is_symbolic():
    def f(x, n):
        return x * n + n // 3, n * 2 + 1, x[: n % 2 + 1], x.view(n % 1 + 1, -1) + n

    calls = [(torch.arange(6.0), n) for n in (4, 7, 9, 12, 30, 101, 5)]
    compiled = run(f, calls)
    assert compiled.stats.captures == 2


def test_dynamic_true_makes_int_arguments_symbolic_from_the_first_call():
    def f(x, n):
        return x * n + n // 3, n * 2 + 1, x[: n % 2 + 1]

    calls = [(torch.arange(6.0), n) for n in (4, 7, 9, 12, 30, 101, 5)]
    assert run(f, calls, dynamic=True).stats.captures == 1
    assert run(f, calls, dynamic=None).stats.captures > 1  # auto: static first, then symbolic


def test_int_in_range_specialises():
    def f(x, n):
        for _ in range(n):
            x = x * 2
        return x, n

    calls = [(torch.ones(2), n) for n in (3, 4, 5, 4, 3)]
    compiled = run(f, calls)
    assert compiled.stats.captures == 3  # one per distinct n: the loop unrolls
    assert "n" in compiled.stats.recompiles[-1].guard_src


def test_generate_like_function_with_varying_ints():
    emb = torch.nn.Embedding(16, 8)
    head = torch.nn.Linear(8, 16)

    @torch.no_grad()
    def generate(idx, max_new_tokens, temperature=1.0, top_k=None):
        for _ in range(max_new_tokens):
            logits = head(emb(idx))[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("Inf")
            idx_next = torch.multinomial(torch.softmax(logits, dim=-1), num_samples=1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx

    compiled = autograph.compile(generate, backend="eager")
    for i, top_k in enumerate((3, 5, 7, 9, 11, 13, 4, 6)):
        idx = torch.zeros(1, 1, dtype=torch.long)
        torch.manual_seed(i)
        got = compiled(idx, 3, top_k=top_k, temperature=0.5 + i / 10)
        torch.manual_seed(i)
        same(got, generate(idx, 3, top_k=top_k, temperature=0.5 + i / 10))
    assert compiled.stats.captures <= 3  # constant; top_k an input; temperature an input


def test_static_mode_keeps_scalars_constant():
    def f(x, dt):
        return x * dt

    compiled = autograph.compile(f, backend="eager", dynamic=False)
    for dt in (0.1, 0.2, 0.3):
        same(compiled(torch.ones(2), dt), f(torch.ones(2), dt))
    assert compiled.stats.captures == 3


def test_changed_scalar_names_the_kind_of_value():
    def f(x, dt, n):
        return x * dt * n

    compiled = autograph.compile(f, backend="eager", dynamic=False)
    compiled(torch.ones(1), 0.5, 3)
    guards = {g.source.expr: g for g in compiled.entries[0].guards.guards if g.kind is EQUALS_MATCH}
    original = compiled.fn
    assert changed_scalar(guards["dt"], original, (torch.ones(1), 0.25, 3), {}) is float
    assert changed_scalar(guards["n"], original, (torch.ones(1), 0.5, 4), {}) is int
    assert changed_scalar(guards["n"], original, (torch.ones(1), 0.5, 3), {}) is None
    assert changed_scalar(guards["n"], original, (torch.ones(1), 0.5, 3.0), {}) is None  # a type change


def test_other_backends_get_floats_as_constants_in_the_graph():
    seen = []

    def my_backend(gm, example_inputs):  # not the eager backend: no SymFloat placeholders for it
        seen.append([type(v).__name__ for v in example_inputs])
        return gm.forward

    def f(x, dt):
        return x * dt, dt / 3

    compiled = autograph.compile(f, backend=my_backend)
    for dt in (0.5, 0.25, 0.125):
        same(compiled(torch.ones(2), dt), f(torch.ones(2), dt))
    assert all(kinds == ["Tensor"] for kinds in seen)


@pytest.mark.skipif(torch.cuda.is_available(), reason="auto means the Triton backend on a CUDA machine")
def test_auto_on_cpu_takes_floats_as_graph_inputs_and_keeps_such_graphs_eager():
    """``auto`` on CPU runs its graphs eagerly first, so a float that changes every call (a loss
    value passed on, a step size) is a graph input after one recompile, as with ``eager`` (it was
    specialised every call until the recompile limit); such a graph is not sent to the background
    compile (inductor does not lower float inputs), and the report says so."""
    from autograph.explain.find import find_shim

    def f(x, dt):
        return x * dt + 1.0 / dt

    compiled = autograph.compile(f, backend="auto")
    rng = random.Random(3)
    for _ in range(10):
        x, dt = torch.randn(4), rng.uniform(0.1, 2.0)
        same(compiled(x, dt), f(x, dt))
    assert compiled.stats.captures == 2
    describe = find_shim(compiled).entries[-1].result.graphs[0].compiled.describe()
    assert "SymFloat" in describe, describe
