"""Keys standing for real objects read from outside (families/sets.py ``key_of``): an enum member
read from an attribute is the same key as that member held as a constant (a dict from outside's
key), alone or inside a tuple, and the object a lookup used is guarded, so a later call passing
another object looks up anew."""
from __future__ import annotations

import enum

import torch

from tests.capture.harness import Harness


class Action(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2


class Holder:
    def __init__(self, current):
        self.current = current


TABLE = {Action.RECORD: "r", Action.NONE: "n", (Action.NONE, Action.RECORD): "start",
         (Action.NONE, Action.NONE): "idle", (Action.RECORD, None): "stop"}


def look_up_members(x, h, table):
    return (x + 1, table.get(h.current), h.current in table, table.get((Action.NONE, h.current)),
            (h.current, None) in table, {Action.RECORD: 3}.get(h.current))


def _run(fn, cases, make_args):
    h = Harness()
    compiled = h.compile(fn)
    for case in cases:
        got, ref = compiled(*make_args(case)), fn(*make_args(case))
        torch.testing.assert_close(got[0], ref[0])
        assert got[1:] == ref[1:], (case, got[1:], ref[1:])
    return h


def test_an_enum_member_from_an_attribute_finds_the_constant_key_of_a_dict_from_outside():
    """torch.profiler.profile's action table: a dict keyed by tuples of enum members, looked up
    with ``(ProfilerAction.NONE, self.current_action)``."""
    h = _run(look_up_members, [Action.RECORD, Action.NONE, Action.RECORD, Action.WARMUP],
             lambda c: (torch.ones(2), Holder(c), TABLE))
    assert h.breaks == [] and h.captures == 3  # one capture per member looked up


class Plain:
    pass


A, B = Plain(), Plain()


def look_up_object(x, h):
    return x + 1, {A: 3}.get(h.current), h.current in {A: 1}


def test_an_object_from_outside_keying_a_made_dict_is_guarded_by_identity():
    h = _run(look_up_object, [A, B, A, B], lambda c: (torch.ones(2), Holder(c)))
    assert h.breaks == [] and h.captures == 2


def typing_keys(x):
    from typing import Optional, Union
    d = {Union[int, str]: x * 2, Optional[float]: x * 3}  # noqa: UP007
    return d[Union[str, int]] + d[Union[float, None]], Union[int, str] in d  # noqa: UP007


def test_typing_aliases_are_keys_hashed_and_compared_by_typing():
    from tests.capture.checks import check
    h = check(typing_keys, lambda: (torch.randn(3),))
    assert h.breaks == []


def alias_lookup(x, h):
    from typing import Union
    return x + 1, {Union[int, str]: 1}.get(h.current)  # noqa: UP007


def test_a_typing_alias_from_outside_is_guarded_by_equality():
    from typing import Union
    aliases = [Union[int, str], Union[str, int], Union[int, float]]  # noqa: UP007
    assert aliases[0] == aliases[1] and aliases[0] is not aliases[1]
    h = _run(alias_lookup, aliases, lambda c: (torch.ones(2), Holder(c)))
    assert h.breaks == [] and h.captures == 2  # an equal alias: the same answer, no new capture
