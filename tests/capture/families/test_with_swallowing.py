"""Tensor operations inside a ``with`` block whose ``__exit__`` may swallow an exception
(``Frame.may_swallow``, families/exit_swallow.py): an error only the run can raise (an index out
of range) must reach ``__exit__`` as it does in eager Python, so such operations run in Python;
blocks that never swallow (torch state contexts, exits returning only None/False,
``@contextmanager`` without a handler around its ``yield``) keep their operations in the graph."""
from __future__ import annotations

import contextlib

import pytest
import torch

from tests.capture.harness import Harness


class Swallow:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return True


class Timer:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.done = True
        return None


@contextlib.contextmanager
def swallowing():
    try:
        yield
    except IndexError:
        pass


@contextlib.contextmanager
def plain():
    yield


def suppress_block(x, i):
    y = x * 2
    with contextlib.suppress(IndexError, RuntimeError):
        y = torch.index_select(x, 0, i) + 1
    return y


def user_swallow_block(x, i):
    y = x * 2
    with Swallow():
        y = x[i] + 1
    return y


def contextmanager_swallow_block(x, i):
    y = x * 2
    with swallowing():
        y = torch.index_select(x, 0, i) + 1
    return y


def outcome(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 - compared with the compiled call's
        return type(exc)


@pytest.mark.parametrize("fn", [suppress_block, user_swallow_block, contextmanager_swallow_block])
def test_run_time_error_reaches_a_swallowing_exit(fn):
    cfn = Harness().compile(fn)
    x = torch.arange(4.0)
    for i in (torch.tensor([1]), torch.tensor([1]), torch.tensor([7]), torch.tensor([2])):
        expected, got = outcome(fn, x, i), outcome(cfn, x, i)
        assert isinstance(expected, torch.Tensor), expected
        assert isinstance(got, torch.Tensor), f"{fn.__name__}: compiled raised {got}"
        assert torch.equal(expected, got)


def no_grad_block(x):
    with torch.no_grad():
        y = x.sin() + 1
    return y * 2


def timer_block(x):
    with Timer():
        y = x.sin() + 1
    return y * 2


def nullcontext_block(x):
    with contextlib.nullcontext():
        y = x.sin() + 1
    return y * 2


def plain_contextmanager_block(x):
    with plain():
        y = x.sin() + 1
    return y * 2


@pytest.mark.parametrize("fn", [no_grad_block, timer_block, nullcontext_block, plain_contextmanager_block])
def test_blocks_that_never_swallow_stay_in_one_graph(fn):
    h = Harness()
    cfn = h.compile(fn)
    x = torch.randn(4)
    assert torch.equal(cfn(x), fn(x))
    assert len(h.backend.graphs) == 1
    assert not [b for r in h.results for b in r.breaks]


def test_swallowing_block_inside_a_state_context_runs_its_operation_in_python():
    def fn(x, i):
        with torch.no_grad():
            y = x * 2
            with contextlib.suppress(IndexError):
                y = torch.index_select(x, 0, i)
        return y

    cfn = Harness().compile(fn)
    x = torch.arange(4.0, requires_grad=True)
    for i in (torch.tensor([0]), torch.tensor([9]), torch.tensor([9])):
        assert torch.equal(cfn(x, i), fn(x, i))
    assert torch.is_grad_enabled()


def out_of_range_under_no_grad(x, i):
    with torch.no_grad():
        y = torch.index_select(x, 0, i) + 1
    return y


def out_of_range_under_autocast(x, i):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = torch.index_select(x, 0, i) @ x.T
    return y


@pytest.mark.parametrize("fn", [out_of_range_under_no_grad, out_of_range_under_autocast])
def test_state_switched_by_a_graph_is_restored_when_it_raises(fn):
    """graph_state.py: eager leaves the block through __exit__; the graph must not leave grad
    mode off or autocast on behind its error."""
    h = Harness()
    cfn = h.compile(fn)
    x = torch.ones(4, 4, requires_grad=True)
    for _ in range(2):
        cfn(x, torch.tensor([1]))
    assert h.backend.graphs
    with pytest.raises(IndexError):
        cfn(x, torch.tensor([7]))
    assert torch.is_grad_enabled()
    assert not torch.is_autocast_enabled("cpu")
    assert torch.get_autocast_dtype("cpu") == torch.bfloat16  # CPU's default, as before the call
    assert torch.autocast_increment_nesting() == 1
    torch.autocast_decrement_nesting()
