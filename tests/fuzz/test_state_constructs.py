"""The fuzzer writes training loops, counting-hash keys, NumPy ints, errors leaving ``with``
blocks and generators read across calls, and its checker compares the state they leave:
gradients, parameters, optimizer and scheduler state, counters, generator positions."""
from __future__ import annotations

import collections
import re

import numpy as np
import pytest
import torch

from autograph.testing import fuzz
from autograph.testing.fuzz.diff import diff_values

SEEDS = range(300)
# construct -> a pattern that shows it in a program's source
CONSTRUCTS = {
    "backward": r"\.backward\(", "optimizer step": r"OPT\.step\(\)", "zero_grad": r"zero_grad\(",
    "scheduler step": r"SCHED\.step\(\)", "grad read": r"\.grad\b", "no_grad update": r"if p\.grad is not None:",
    "train/eval": r"NET\.(train|eval)\(", "tensor hook": r"register_hook\(", "autograd.grad": r"torch\.autograd\.grad\(",
    "requires_grad_": r"requires_grad_\(", "counting key": r"CountingKey\(\d|CountingKey\(\w+\)",
    "effectful counters read": r"HASHES\[0\] \+ 10 \* EQS\[0\]", "numpy int": r"def fn\(.*\bm\b",
    "error in with": r"with (Tracked|logged|Swallowing)\(.*\n(.*\n){0,6}.*(index_select|raise ValueError|// \()",
    "stream": r"next\(STREAM\)|islice\(STREAM|zip\(STREAM|for v in STREAM", "pending generator": r"next\(PENDING",
    "list iterator": r"next\(ITEMS",
    "gradient clipping": r"clip_grad_norm_\(", "learning rate written": r"\['lr'\] = ",
    "frozen parameter": r"NET\.\w+\.\w+\.requires_grad_\(", "retain_grad": r"\.retain_grad\(\)",
    "module hook": r"NET\.register_forward(_pre)?_hook\(", "autocast": r"torch\.autocast\(",
    "grad mode set by a call": r"^\s+torch\.(autograd\.)?set_grad_enabled\((True|False)\)$",
}


def test_the_new_constructs_are_generated():
    found: collections.Counter = collections.Counter()
    for seed in SEEDS:
        program = fuzz.generate_program(seed)
        for name, pattern in CONSTRUCTS.items():
            if re.search(pattern, program.source, re.MULTILINE):
                found[name] += 1
    missing = [name for name in CONSTRUCTS if found[name] < 2]
    assert not missing, f"written by fewer than 2 of {len(SEEDS)} programs: {missing} ({dict(found)})"


def test_numpy_int_parameters_change_class_and_value():
    program = next(p for p in map(fuzz.generate_program, SEEDS) if any(q.kind == "npint" for q in p.params))
    at = [q.kind for q in program.params if q.kind != "float"].index("npint")
    module = fuzz.load_program(program.source)
    try:
        values = [fuzz.make_inputs(program, call, module)[at] for call in range(fuzz.CALLS)]
    finally:
        fuzz.unload_program(module)
    assert type(values[0]) is np.int64 and type(values[fuzz.ALT_INT_CALL]) is np.int32
    assert int(values[fuzz.ALT_INT_CALL]) == program.ints[1]


def test_generation_is_deterministic_per_seed():
    for seed in range(20):
        assert fuzz.generate_program(seed) == fuzz.generate_program(seed)


def _net_and_optimizer():
    torch.manual_seed(0)
    net = torch.nn.Linear(3, 3)
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    net(torch.ones(2, 3)).sum().backward()
    opt.step()
    return net, opt


def test_gradients_optimizer_state_and_train_flags_are_compared():
    net_e, opt_e = _net_and_optimizer()
    net_c, opt_c = _net_and_optimizer()
    assert diff_values({"NET": net_e, "OPT": opt_e}, {"NET": net_c, "OPT": opt_c}, "globals") is None
    net_c.weight.grad.mul_(2)
    assert ".grad" in diff_values(net_e, net_c, "NET")
    net_c.weight.grad = None
    assert "weight.grad" in diff_values(net_e, net_c, "NET")
    net_c.weight.grad = net_e.weight.grad.clone()
    opt_c.state[net_c.weight]["momentum_buffer"].add_(1)
    assert "momentum_buffer" in diff_values(opt_e, opt_c, "OPT")
    sched_e = torch.optim.lr_scheduler.StepLR(opt_e, 1)
    sched_c = torch.optim.lr_scheduler.StepLR(opt_c, 1)
    with pytest.warns(UserWarning):  # stepped before the optimizer: torch says so
        sched_c.step()
    assert "last_epoch" in diff_values(sched_e, sched_c, "SCHED") or "lr" in diff_values(sched_e, sched_c, "SCHED")
    seq_e, seq_c = torch.nn.Sequential(torch.nn.Linear(2, 2)), torch.nn.Sequential(torch.nn.Linear(2, 2))
    seq_c.load_state_dict(seq_e.state_dict())
    seq_c[0].eval()
    assert "0.training" in diff_values(seq_e, seq_c, "NET")


def test_a_leaf_tensors_gradient_and_leafness_are_compared():
    a, b = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    (a * 2).sum().backward()
    assert ".grad" in diff_values(a, b, "x")
    assert "is_leaf" in diff_values(a * 1, torch.ones(2, requires_grad=True), "y")


def _counting(start):
    i = start
    while True:
        yield i
        i += 1


def test_generator_and_iterator_positions_are_compared_without_advancing_them():
    g_e, g_c = _counting(0), _counting(0)
    next(g_e), next(g_c)
    assert diff_values(g_e, g_c, "STREAM") is None
    next(g_c)
    assert "locals" in diff_values(g_e, g_c, "STREAM")
    assert next(g_e) == 1 and next(g_c) == 2  # the comparison advanced neither
    items = [torch.ones(2), torch.zeros(2)]
    i_e, i_c = iter(items), iter(items)
    next(i_c)
    assert "position" in diff_values(i_e, i_c, "ITEMS")
    assert next(i_e) is items[0]


class _Key:
    hashes = 0

    def __init__(self, k):
        self.k = k

    def __hash__(self):
        _Key.hashes += 1
        return hash(self.k)


def test_dict_keys_are_compared_without_hashing_them():
    d_e, d_c, other = {_Key(1): 1.0}, {_Key(1): 1.0}, {_Key(2): 1.0}
    before = _Key.hashes
    assert diff_values(d_e, d_c, "TABLE") is None
    assert "keys" in diff_values(d_e, other, "TABLE")
    assert _Key.hashes == before


TRAINING = '''import torch

NET = torch.nn.Linear(3, 3)
OPT = torch.optim.SGD(NET.parameters(), lr=0.1, momentum=0.9)


def fn(x):
    loss = NET(x).pow(2).mean()
    loss.backward()
    OPT.step()
    return loss.detach()
'''


class _ForgetsGradients:
    """A broken compiler: its calls leave no gradients behind."""

    def __call__(self, fn):
        def run(*args):
            out = fn(*args)
            fn.__globals__["NET"].zero_grad()
            return out
        return run


def test_the_checker_sees_gradients_a_compiler_did_not_leave():
    program = fuzz.Program(source=TRAINING, params=(fuzz.Param("x", "tensor", ("A", "B")),),
                           dims=(("A", 2), ("B", 3), ("C", 2)), alt_a=4)
    assert fuzz.check_program(program, fuzz.identity_compiler()) == []
    differences = fuzz.check_program(program, _ForgetsGradients())
    assert differences and differences[0].kind == "global_state" and ".grad" in differences[0].detail


def test_threshold_compiler_runs_the_first_calls_eagerly():
    from autograph.runtime.stats import all_stats
    compiler = fuzz.autograph_compiler("eager", threshold=2)
    program = fuzz.Program(source=TRAINING, params=(fuzz.Param("x", "tensor", ("A", "B")),),
                           dims=(("A", 2), ("B", 3), ("C", 2)), alt_a=4)
    module = fuzz.load_program(program.source)
    try:
        compiled = compiler(module.fn)
        for call in range(3):
            compiled(*fuzz.make_inputs(program, call, module))
        stats = [s for s in all_stats() if s.qualname == "fn" and s.calls == 3]
        assert stats and stats[-1].cold_calls == 1
    finally:
        fuzz.unload_program(module)
        compiler.reset()


@pytest.mark.fuzz
@pytest.mark.parametrize(("seed", "threshold"), [(36, None), (7, 2)])
def test_programs_with_state_constructs_behave_like_eager(seed, threshold):
    """Two programs of the state-keeping families (36: training, counting keys, a NumPy int,
    generators read across calls; 7: training and an error leaving with blocks), compiled on the
    first call and, as the import hook does, after a warm-up call."""
    config = fuzz.DEFAULT_CONFIG.without(*(fuzz.EXACTNESS_FEATURES - fuzz.STATE_FEATURES), "made_objects")
    program = fuzz.generate_program(29_000_000 + seed, config)
    differences = fuzz.check_program(program, fuzz.autograph_compiler("eager", threshold=threshold), timeout_s=60.0)
    assert not differences, fuzz.format_failure(program, differences)


class _LeavesDefaultDtype:
    """A broken compiler: its calls leave the default dtype changed."""

    def __call__(self, fn):
        def run(*args):
            torch.set_default_dtype(torch.float64)
            return fn(*args)
        return run


def test_the_checker_sees_process_state_a_call_left_and_puts_it_back():
    program = fuzz.Program(source="import torch\n\n\ndef fn(x):\n    return x * 2\n",
                           params=(fuzz.Param("x", "tensor", ("A", "B")),), dims=(("A", 2), ("B", 3), ("C", 2)),
                           alt_a=4)
    differences = fuzz.check_program(program, _LeavesDefaultDtype())
    assert differences and differences[0].kind == "process_state" and "float64" in differences[0].detail
    assert torch.get_default_dtype() == torch.float32
