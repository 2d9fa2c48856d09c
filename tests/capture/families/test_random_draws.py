"""Python's ``random`` inside compiled code (families/random_draws.py): a ``random.Random(seed)``
made in the call is captured (its draws are the real ones, folded); draws from a generator from
outside break at the user's call and run in Python once, in program order."""
from __future__ import annotations

import random

import pytest
import torch

from tests.capture.harness import Harness


def _outcome(fn, *args):
    try:
        return fn(*args)
    except (IndexError, ValueError, RuntimeError) as exc:
        return type(exc)


def _same(a, b):
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and torch.equal(a, b)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _compare_with_global_stream(fn, calls):
    """Each call from the same global random state, eager then compiled: same outcome, same state."""
    h = Harness()
    compiled = h.compile(fn)
    for seed, args in calls:
        random.seed(seed)
        want = _outcome(fn, *args)
        want_state = random.getstate()
        random.seed(seed)
        got = _outcome(compiled, *args)
        assert _same(want, got), (want, got)
        assert random.getstate() == want_state
    return h


def _global_draws(x):
    y = x + 1
    z = y * random.random()
    k = random.randint(0, 5)
    return z + k, k, random.choice([1, 2, 3])


def test_global_draws_break_at_the_call_and_advance_the_stream_as_eager():
    h = _compare_with_global_stream(_global_draws, [(0, (torch.ones(2),)), (1, (torch.zeros(3),)),
                                                    (2, (torch.ones(2),))])
    assert {b.kind for b in h.breaks} == {"python-random"}
    assert "add" in [getattr(t, "__name__", str(t)) for t in h.backend.targets()]  # the code around is captured


def _index_then_draw(x, i):
    y = x[i + 1]  # out of range only on the real values: raises in the graph
    return y * random.random()


def _draw_then_index(x, i):
    r = random.random()
    return x[i + 1] * r


@pytest.mark.parametrize("fn", [_index_then_draw, _draw_then_index])
def test_a_run_time_error_before_or_after_the_draw_leaves_the_stream_as_eager(fn):
    x = torch.arange(4.0)
    h = _compare_with_global_stream(fn, [(0, (x, torch.tensor([0]))), (1, (x, torch.tensor([5]))),
                                         (2, (x, torch.tensor([1]))), (3, (x, torch.tensor([9])))])
    assert {b.kind for b in h.breaks} == {"python-random"}  # one precise break, at the draw


def _seeded(x, seed):
    r = random.Random(seed)
    items = [1, 2, 3, 4, 5]
    r.shuffle(items)
    a = r.random()
    b = r.randint(0, 100)
    c = r.uniform(-1.0, 1.0)
    d = r.gauss(0.0, 1.0)
    e = r.choice(items)
    f = r.sample(range(20), 3)
    g = r.getrandbits(12)
    return x * a + b * c + d, items, b, e, f, g, type(a).__name__


def test_a_seeded_generator_made_in_the_call_is_captured_with_the_real_draws():
    h = Harness()
    compiled = h.compile(_seeded)
    for seed in (0, 7, 7, 0, "text"):
        state = random.getstate()
        want = _seeded(torch.ones(3), seed)
        got = compiled(torch.ones(3), seed)
        assert _same(want, got), (want, got)
        assert random.getstate() == state  # the global stream is never touched
    assert not h.breaks
    assert h.captures == 3  # one per seed: the seed is guarded


def _escapes(x):
    r = random.Random(11)
    y = x * r.random()
    return y, r


def _live_at_a_break(x):
    r = random.Random(5)
    y = x * r.random()
    print(end="")  # a break while r is live
    return y + r.randint(0, 9), r.random()


@pytest.mark.parametrize("fn", [_escapes, _live_at_a_break])
def test_a_generator_that_escapes_is_made_in_python_and_draws_as_eager(fn):
    h = Harness()
    compiled = h.compile(fn)
    for _ in range(3):
        want, got = fn(torch.ones(2)), compiled(torch.ones(2))
        assert torch.equal(want[0], got[0])
        if isinstance(want[1], random.Random):
            assert type(got[1]) is random.Random and got[1].getstate() == want[1].getstate()
        else:
            assert want[1] == got[1]
    assert "python-random" in {b.kind for b in h.breaks}


RNG = random.Random(0)


def _outside_generator(x, rng):
    return x * rng.random() + RNG.randint(0, 3)


def test_a_generator_from_outside_breaks_at_each_draw_and_advances_exactly():
    h = Harness()
    compiled = h.compile(_outside_generator)
    for seed in (1, 2):
        RNG.seed(seed)
        mine = random.Random(seed + 10)
        want = _outside_generator(torch.ones(2), mine)
        want_states = (RNG.getstate(), mine.getstate())
        RNG.seed(seed)
        mine = random.Random(seed + 10)
        got = compiled(torch.ones(2), mine)
        assert torch.equal(want, got) and (RNG.getstate(), mine.getstate()) == want_states
    assert {b.kind for b in h.breaks} == {"python-random"}


def _bad_range(x):
    r = random.Random(1)
    return x + r.randint(5, 1)  # ValueError: empty range


def test_an_error_of_a_seeded_draw_is_pythons():
    h = Harness()
    with pytest.raises(ValueError) as want:
        _bad_range(torch.ones(1))
    with pytest.raises(ValueError) as got:
        h.compile(_bad_range)(torch.ones(1))
    assert str(got.value) == str(want.value)
    # the generator is live where the error is raised: made in Python there, and the draw raises in Python
    assert {b.kind for b in h.breaks} <= {"python-exception", "python-random"}


def _seeded_module_stream(x, seed):
    random.seed(seed)
    a = random.random()
    y = x * a + random.randint(0, 9)
    items = [1, 2, 3, 4]
    random.shuffle(items)
    return y, items, random.choice(items), random.uniform(0.0, 1.0)


def _seeded_then_index(x, seed, i):
    random.seed(seed)
    a = random.random()
    return x[i + 1] * a  # out of range on the real values: raises in the graph, after the draws


@pytest.mark.parametrize("fn,calls,kinds", [
    (_seeded_module_stream, [(0, (torch.ones(2), 1)), (1, (torch.ones(3), 2)), (2, (torch.ones(2), 2))], set()),
    (_seeded_then_index, [(0, (torch.arange(3.0), 5, torch.tensor([0]))),
                          (1, (torch.arange(3.0), 5, torch.tensor([4])))], {"effects-before-run-time-error"}),
])
def test_the_module_stream_seeded_in_the_call_is_captured_and_left_as_eager_leaves_it(fn, calls, kinds):
    h = _compare_with_global_stream(fn, calls)
    assert {b.kind for b in h.breaks} == kinds
