"""The sweeps in CI: a bounded run of each with a fixed seed fails on any difference."""
import sys
import warnings

import pytest

from autograph.testing.sweeps import runner
from autograph.testing.sweeps.case import SweepCase

SECONDS = 50  # per sweep: the cases run in order, so a slower machine checks a prefix of them


@pytest.mark.parametrize("name", runner.SWEEPS)
def test_sweep_is_clean(name):
    if runner.load_sweep(name) is None:
        pytest.skip(f"sweep {name} is not in this tree")
    bad = [f"{o.case.name}: {o.difference or o.error}"
           for o in runner.run_sweep(name, 0, seconds=SECONDS) if not o.ok]
    assert not bad, "\n".join(bad)


_LEAKY = '''
import sys, io, warnings, torch
def fn(x):
    sys.stdout = io.StringIO()
    warnings.simplefilter("ignore")
    return x + 1
def make_call(i):
    return (torch.ones(2),), {}
'''


def test_runner_restores_process_state_after_a_leaking_case():
    before = (sys.stdout, sys.stderr, list(warnings.filters))
    outcome = runner.check_case(SweepCase("test", "leaky", _LEAKY))
    assert outcome.ok, outcome.difference or outcome.error
    assert (sys.stdout, sys.stderr, list(warnings.filters)) == before


_DIFFERS = '''
import torch
SEEN = []
def fn(x):
    SEEN.append(torch.compiler.is_compiling() or type(x).__name__ != "Tensor")
    return x + 1
def make_call(i):
    return (torch.ones(2),), {}
def world():
    return list(SEEN)
'''


def test_runner_reports_a_difference_in_world():
    outcome = runner.check_case(SweepCase("test", "differs", _DIFFERS))
    assert outcome.error is None and outcome.difference is not None, outcome
    assert "world()" in outcome.difference


def test_runner_reports_state_left_behind():
    """A process-state difference is reported: the compiled side leaves stdout redirected."""
    eager = [runner.CallRecord(state={"sys.stdout": "<the caller's stream>"})]
    compiled = [runner.CallRecord(state={"sys.stdout": ("StringIO", "")})]
    assert "sys.stdout" in runner.diff_records(eager, compiled)


_MODE_LEAK = '''
import torch
def fn(x):
    torch.device("cpu").__enter__()  # never exited: one more function mode per call
    return x + 1
def make_call(i):
    return (torch.ones(2),), {}
'''

_MODE_POP = '''
import torch
def fn(x):
    torch.device("cpu").__exit__(None, None, None)  # pops what a leaky earlier case left
    return x + 1
def make_call(i):
    return (torch.ones(2),), {}
'''


def test_runner_puts_back_torch_function_modes_a_case_leaves():
    """A case entering ``torch.device`` without leaving it does not change what the next case
    meets: each side, and the case after, start from the same mode stack."""
    import torch

    depth = torch._C._len_torch_function_stack()
    outcome = runner.check_case(SweepCase("test", "mode-leak", _MODE_LEAK))
    assert outcome.ok, outcome.difference or outcome.error
    assert torch._C._len_torch_function_stack() == depth
    popped = runner.check_case(SweepCase("test", "mode-pop", _MODE_POP))
    assert popped.ok, popped.difference or popped.error
