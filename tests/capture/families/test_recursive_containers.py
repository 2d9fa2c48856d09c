"""Lists and dicts that hold themselves (families/cycles.py, builder.wrap_real): capture neither
recurses forever nor folds them as constants; made in the call they are rebuilt empty and then
filled (so ``l[1] is l`` holds after a break or on return), passed in they are one value per
real container with the aliasing guarded."""
from __future__ import annotations

import contextlib
import io

import torch

from tests.capture.checks import check
from tests.capture.harness import Harness


def made_in_the_call(x):
    items = [1]
    items.append(items)
    table = {"a": 1}
    table["me"] = table
    return x + 1, items, table, items == items, items[1] is items, len(items[1][1]), repr(items), repr(table)


def test_self_holding_containers_made_in_the_call():
    h = Harness()
    compiled = h.compile(made_in_the_call)
    for _ in range(2):
        got, expected = compiled(torch.ones(2)), made_in_the_call(torch.ones(2))
        torch.testing.assert_close(got[0], expected[0])
        assert got[1][1] is got[1] and got[2]["me"] is got[2]
        assert repr(got[1:]) == repr(expected[1:])


def kept_across_a_break(x):
    outer = [1]
    inner = [outer]
    outer.append(inner)
    print("break")
    return x + 1, outer[1][0] is outer, inner[0][1] is inner


def test_mutual_holding_lists_across_a_break():
    with contextlib.redirect_stdout(io.StringIO()):
        h = check(kept_across_a_break, lambda: (torch.randn(2),))
    assert [b.kind for b in h.breaks] == ["side-effect"]


def _self_holding():
    items = [1]
    items.append(items)
    return items


def passed_in(x, items):
    items.append(3)
    return x + len(items[1]), items[1] is items


def test_self_holding_list_passed_in():
    h = Harness()
    compiled = h.compile(passed_in)
    for make in (_self_holding, _self_holding, lambda: [1, [1, 2]], _self_holding):
        mine, theirs = make(), make()
        got, expected = compiled(torch.ones(1), mine), passed_in(torch.ones(1), theirs)
        torch.testing.assert_close(got[0], expected[0])
        assert got[1] == expected[1] and repr(mine) == repr(theirs)
    assert h.captures == 2 and h.breaks == []
