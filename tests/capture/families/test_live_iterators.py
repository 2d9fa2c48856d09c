"""Real tuple/list iterators of arbitrary items (capture/families/live_iterators.py): taken one
item at a time, guarded per item taken, advanced for real after the graph."""
from __future__ import annotations

import pytest
import torch
import torch.nn as nn

import autograph


def _layers(n=3):
    torch.manual_seed(0)
    return [nn.Linear(4, 4) for _ in range(n)]


def test_an_iterator_of_modules_is_compiled_and_left_exhausted():
    def f(it, x):
        for layer in it:
            x = layer(x)
        return x

    layers = _layers()
    x = torch.randn(2, 4)
    expected = f(iter(tuple(layers)), x)
    compiled = autograph.compile(f)
    it = iter(tuple(layers))
    assert torch.equal(compiled(it, x), expected)
    assert next(it, "done") == "done"  # consumed, as Python leaves it
    (entry,) = compiled.entries
    assert not entry.result.breaks and entry.result.graphs[0].op_count == 3


def test_a_partly_consumed_iterator_stays_where_python_leaves_it():
    def f(it, x):
        for layer in it:
            x = layer(x)
            if x.shape[0] == 2:  # decided at capture time: leave after one item
                break
        return x

    layers = _layers()
    x = torch.randn(2, 4)
    compiled = autograph.compile(f)
    it = iter(list(layers))
    assert torch.equal(compiled(it, x), layers[0](x))
    assert next(it) is layers[1]
    assert not compiled.entries[0].result.breaks


def test_only_the_items_taken_are_guarded():
    def f(it, x):
        return next(it)(x)

    layers = _layers()
    compiled = autograph.compile(f)
    x = torch.randn(2, 4)
    assert torch.equal(compiled(iter((layers[0], layers[1])), x), layers[0](x))
    assert torch.equal(compiled(iter((layers[0], layers[2], layers[1])), x), layers[0](x))
    assert len(compiled.entries) == 1  # the rest of the iterator does not matter
    assert not compiled.entries[0].result.breaks and compiled.entries[0].result.graphs
    assert torch.equal(compiled(iter((layers[1],)), x), layers[1](x))  # another first item: recapture


def test_tensors_taken_from_an_iterator_are_graph_inputs():
    def f(it, x):
        for t in it:
            x = x + t
        return x

    ts = (torch.ones(2), torch.full((2,), 2.0))
    compiled = autograph.compile(f)
    it = iter(ts)
    assert torch.equal(compiled(it, torch.zeros(2)), torch.full((2,), 3.0))
    assert next(it, "end") == "end"
    it = iter((torch.full((2,), 5.0), torch.ones(2)))
    assert torch.equal(compiled(it, torch.zeros(2)), torch.full((2,), 6.0))  # read live, not baked in
    assert len(compiled.entries) == 1 and not compiled.entries[0].result.breaks


_NUMBERS = iter(range(10_000))
_WORDS = iter(("a", "b", "c", "d", "e", "f", "g", "h"))


def _two_reads_of_a_global_iterator(x):
    k = next(_NUMBERS)
    y = x + 1
    k2 = next(_NUMBERS)
    return y * k + k2, k, k2


def _words_and_the_rest(x):
    first = next(_WORDS)
    second = next(_WORDS, None)
    return x * 2, first, second


@pytest.mark.parametrize("fn, it", [(_two_reads_of_a_global_iterator, "_NUMBERS"), (_words_and_the_rest, "_WORDS")])
def test_a_global_iterator_read_twice_continues_where_it_stopped(fn, it):
    """Each ``next(ITER)`` loads the global anew: both reads are one iterator, advanced once each."""
    import autograph
    compiled = autograph.compile(fn, backend="eager")
    for i in range(3):
        before = globals()[it].__reduce__()
        want = fn(torch.ones(2) * i)
        after_eager = globals()[it].__reduce__()
        globals()[it] = _rebuilt(before)  # the same position again, for the compiled call
        got = compiled(torch.ones(2) * i)
        assert str(got) == str(want)
        assert globals()[it].__reduce__() == after_eager


def _rebuilt(state):
    """A fresh iterator at the position ``state`` (``it.__reduce__()``) describes."""
    fn, args, *pos = state
    it = fn(*args)
    if pos:
        it.__setstate__(pos[0])
    return it


def test_an_iterator_of_constants_is_guarded_on_each_items_type():
    """Items of an outside iterator of constants are folded as constants: ``1``, ``1.0`` and
    ``True`` are equal yet fold differently, so the guard compares each item's type too (one
    entry per typing), and it is a native plan (``remaining(it)`` is one node)."""
    from autograph.guards import native

    def names(x, it):
        out = []
        for v in it:
            out.append(type(v).__name__)
            x = x + v
        return x, out

    compiled = autograph.compile(names, backend="eager")
    x = torch.ones(2)
    for items in ([1, True], [1, 1], [1, 1.0], [1, True], (2, 3), range(2, 4)):
        want, got = names(x, iter(items)), compiled(x, iter(items))
        assert got[1] == want[1] and torch.equal(got[0], want[0]), items
    assert all(isinstance(native.plan_for(e.guards), tuple) for e in compiled.entries)


def _sum_all(it, x):
    for v in it:
        x = x + v
    return x


@pytest.mark.parametrize("items", [[1.0, 2.0], [torch.ones(2), torch.full((2,), 2.0)], []],
                         ids=["constants", "tensors", "empty"])
def test_an_iterator_the_loop_ran_to_its_end_is_exhausted_for_good(items):
    """The loop's last ``next`` found nothing left: Python's list iterator then drops its list, so
    an item appended later is never yielded. The compiled call advanced the real iterator by the
    items taken only, leaving it at the end but not exhausted (found by the fuzzer: a global
    iterator read a few items per call)."""
    compiled = autograph.compile(_sum_all)
    for fn in (_sum_all, compiled, compiled):
        seq = list(items)
        it = iter(seq)
        torch.testing.assert_close(fn(it, torch.zeros(2)), _sum_all(iter(list(items)), torch.zeros(2)))
        seq.append(torch.ones(2))
        assert list(it) == [], fn
