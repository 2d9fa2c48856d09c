"""itertools iterators made in compiled code (families/itertools_values.py): the real C iterators
run over stand-ins, lazily, with their items mapped back to the symbolic values."""
from __future__ import annotations

import itertools
import operator

import pytest
import torch

from autograph.capture.families.itertools_values import LIVE_ITERATOR
from tests.capture.checks import check
from tests.capture.harness import Harness


def two():
    return torch.randn(3), torch.randn(3)


def one_graph(fn, make_args=two, calls=2):
    """Compiled equals eager on fresh inputs, in one graph with no break."""
    h = check(fn, make_args, calls=calls)
    assert not h.breaks, [b.reason for b in h.breaks]
    assert len(h.backend.graphs) == 1
    return h


def product_of_tensors(a, b):
    v = a
    for x, i in itertools.product([a, b], [1, 2]):
        v = v + x * i
    return v, list(itertools.product("ab", repeat=2))


def chain_and_from_iterable(a, b):
    v = a
    for x in itertools.chain([a, b], [1, 2]):
        v = v + x
    for x in itertools.chain.from_iterable([[a, b], (3,)]):
        v = v * x
    return v


def combinatorics(a, b):
    out = [torch.ones(size) for size in itertools.combinations((1, 2, 3), 2)]
    perms = list(itertools.permutations([a, b]))
    reps = list(itertools.combinations_with_replacement("xy", 2))
    return out, perms[1][0] - perms[0][0], reps, len(list(itertools.permutations(range(4), 2)))


def zip_longest_fill(a, b):
    pairs = list(itertools.zip_longest([a, b, a], [1, 2], fillvalue=None))
    return a.sin(), pairs[2][1] is None, pairs[0][0] + pairs[1][1]


def accumulate_calls_functions(a, b):
    sums = list(itertools.accumulate([a, b, a]))
    prods = list(itertools.accumulate([a, b], operator.mul, initial=b))
    maxes = list(itertools.accumulate([3, 1, 4, 1, 5], max))
    return sums[-1], prods[-1], maxes


def islice_count_repeat_cycle(a, b):
    tmp1 = [a + 1, a + 2]
    tmp2 = [a + 3, a + 4]
    x, y = list(itertools.islice(itertools.chain(tmp1, tmp2), 1, 3))
    c = next(itertools.islice(tmp1, 1, None))
    counted = list(itertools.islice(itertools.count(2, 3), 4))
    cycled = list(itertools.islice(itertools.cycle([a, b]), 5))
    return x - y / c, counted, sum(itertools.repeat(b, 3)), cycled[4] - cycled[0]


def groupby_starmap_pairwise_tee(a, b):
    groups = [(k, len(list(g))) for k, g in itertools.groupby("aabccc")]
    by_key = [(k, [t * 1 for t in g]) for k, g in itertools.groupby([(1, a), (1, b), (2, a)], key=lambda p: p[0])]
    added = list(itertools.starmap(torch.add, [(a, b), (b, b)]))
    diffs = [y - x for x, y in itertools.pairwise([a, b, a * 2])]
    left, right = itertools.tee([a, b])
    return groups, by_key[0][1][1][1], added[1], diffs[1], next(right) - next(left)


def compress_takewhile_filterfalse(a, b):
    picked = list(itertools.compress([a, b, a], [1, 0, 1]))
    small = list(itertools.takewhile(lambda n: n < 3, [1, 2, 3, 1]))
    odd = list(itertools.filterfalse(lambda n: n % 2 == 0, range(7)))
    return picked[1] * 2, small, odd


@pytest.mark.parametrize("fn", [product_of_tensors, chain_and_from_iterable, combinatorics, zip_longest_fill,
                                accumulate_calls_functions, islice_count_repeat_cycle, groupby_starmap_pairwise_tee,
                                compress_takewhile_filterfalse])
def test_itertools_in_one_graph(fn):
    one_graph(fn)


def test_inputs_are_pulled_lazily():
    def lazy(a, b):
        seen = []

        def gen():
            for i in range(3):
                seen.append(i)
                yield a * i
        it = itertools.chain(gen(), [b])
        first = next(it)
        pulled = len(seen)  # eager: 1 (chain pulls one item at a time)
        rest = list(it)
        return first, pulled, len(rest), len(seen)
    one_graph(lazy)


def test_unadvanced_iterator_returned_is_made_per_call():
    def make(a, b):
        return a + 1, itertools.chain([a, 2], "xy"), itertools.islice(itertools.repeat(b), 2)
    h = Harness()
    compiled = h.compile(make)
    a, b = two()
    r1, r2 = compiled(a, b), compiled(a, b)
    assert type(r1[1]) is itertools.chain and r1[1] is not r2[1]
    items = list(r1[1])
    assert items[0] is a and items[1:] == [2, "x", "y"]
    assert [t is b for t in r1[2]] == [True, True]
    assert len(h.backend.graphs) == 1 and not h.breaks


def test_advanced_iterator_live_at_a_break_moves_the_break():
    def f(x):
        it = itertools.count(5)
        a = next(it)
        if x.sum() > 0:
            y = x + a
        else:
            y = x - a
        return y, next(it)
    h = check(f, lambda: (torch.randn(4),), calls=4)
    assert any(b.kind == LIVE_ITERATOR for b in h.breaks)


def test_unadvanced_iterator_survives_a_break():
    def f(x):
        it = itertools.product([x, 1], "ab")
        if x.sum() > 0:
            y = x + 1
        else:
            y = x - 1
        return y, [p[1] for p in it], next(iter(itertools.islice(it, 1)), None)
    h = check(f, lambda: (torch.randn(4),), calls=4)
    assert not any(b.kind == LIVE_ITERATOR for b in h.breaks)


def test_errors_are_pythons():
    def bad(a, b):
        return a + 1, list(itertools.islice([a, b], -1))
    check(bad, two, calls=1)


def test_drawing_without_end_is_a_break_not_a_hang(monkeypatch):
    from autograph.capture.families import tokens

    def drain(a, b):
        return a + 1, len(list(itertools.islice(itertools.count(), 50)))
    monkeypatch.setattr(tokens, "MAX_ITEMS", 10)
    h = check(drain, two, calls=1)
    assert h.breaks and "more than 10 items" in h.breaks[0].reason


def zip_map_filter_enumerate_over_endless_iterators(a, b):
    v = a
    for i, x in zip(itertools.count(1), [a, b]):        # lazy: as many as [a, b] has
        v = v + i * x
    scaled = list(map(torch.mul, [a, b], itertools.repeat(2)))
    evens = filter(lambda i: i % 2 == 0, itertools.count())
    for (n, x), k in zip(enumerate(itertools.cycle([a, b])), [next(evens), next(evens), next(evens)]):
        v = v + n * k * x
    return v, scaled


def test_zip_map_filter_enumerate_stay_lazy_over_endless_iterators():
    one_graph(zip_map_filter_enumerate_over_endless_iterators)
