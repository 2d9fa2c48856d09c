"""Values the transformed code reads from live state are read in eager's order relative to the
side effects it replays after the graph (fuzz-found, issue 13)."""
from __future__ import annotations

import torch

import autograph


class Counter:
    def __init__(self):
        self.count = 0


def test_attribute_incremented_twice_with_a_symbolic_count():
    """The second capture makes ``o.count`` a symbolic int; both replayed stores must compute
    from the value before the call (``o.count + 1``, ``o.count + 2``), not re-read it."""
    def fn(x, o):
        for _ in range(2):
            o.count += 1
        return x + 1

    compiled = autograph.compile(fn, backend="eager")
    eager_obj, compiled_obj = Counter(), Counter()
    for _ in range(4):
        fn(torch.ones(2), eager_obj)
        compiled(torch.ones(2), compiled_obj)
        assert compiled_obj.count == eager_obj.count


class FuzzError(Exception):
    pass


def test_iterator_over_a_dict_view_made_after_the_dict_changed():
    """``d.update`` is replayed after the graph; a live iterator over ``d.keys()`` made after the
    update must not be rebuilt before that replay (it raised 'dictionary changed size')."""
    def fn(x, d):
        try:
            keys = d.keys()
            d.update(e=x)
            for key in keys:
                x = x + len(key)
            raise FuzzError("bad")
        except FuzzError:
            x = x + 1
        return x

    compiled = autograph.compile(fn, backend="eager")
    for _ in range(2):
        d_eager, d_compiled = {"a": torch.ones(2)}, {"a": torch.ones(2)}
        expected = fn(torch.ones(2), d_eager)
        torch.testing.assert_close(compiled(torch.ones(2), d_compiled), expected)
        assert list(d_compiled) == list(d_eager)
