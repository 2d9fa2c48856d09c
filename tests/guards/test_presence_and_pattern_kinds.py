"""The guard kinds that replaced the families' ad-hoc Python guards (guards/kinds.py,
native/guard_eval.c): HAS_KEY (``key in x``), HAS_ATTR (``hasattr(x, name) is present``),
IS_INSTANCE (``isinstance(x, classes) is answer``), IDENTITY_PATTERN (which sources reach one
object) and OBJECT_EQUALS (``x == obj``). The C case, its Python twin and the generated check
decide alike on passing and failing values, and the C case runs no Python function where the
value's own lookups are C code."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from autograph.guards.check import GuardSet
from autograph.guards.kinds import GuardKind
from autograph.guards.model import has_attr, has_key, identity_pattern_match, is_instance, object_equals
from autograph.guards.sources import AttrSource, LocalSource
from tests.guards.test_native_kinds import C, decisions, one, python_calls_in_c_check


def three(a, b, c):
    return a, b, c


class Plain:
    pass


class Slotted:
    __slots__ = ("a",)


class Dynamic:
    """``__getattr__`` answers some names: only the lookup itself can say."""

    def __getattr__(self, name):
        if name == "magic":
            return 1
        raise AttributeError(name)


class Raising:
    @property
    def a(self):
        raise ValueError("not an AttributeError: hasattr propagates it, the guard fails")


def with_attr(cls, **attrs):
    obj = cls()
    for k, v in attrs.items():
        setattr(obj, k, v)
    return obj


D = LocalSource("d")


def test_has_key():
    gs = GuardSet(one, [has_key(AttrSource(D, "__dict__"), "a")])
    assert gs.guards[0].kind is GuardKind.HAS_KEY and gs.guards[0].src == "'a' in d.__dict__"
    assert decisions(gs, (with_attr(Plain, a=1),)) == {-1}
    assert decisions(gs, (Plain(),)) == {0}
    assert decisions(gs, (with_attr(Plain, b=1),)) == {0}
    assert decisions(gs, (1,)) == {0}  # no __dict__: the read fails, so does the guard


@pytest.mark.parametrize("present", [False, True])
def test_has_attr(present):
    gs = GuardSet(one, [has_attr(D, "a", present)])
    assert gs.guards[0].src == ("hasattr(d, 'a')" if present else "not hasattr(d, 'a')")
    cases = [(Slotted(), False), (with_attr(Slotted, a=1), True), (Plain(), False),
             (with_attr(Plain, a=None), True)]
    for obj, has in cases:
        assert decisions(gs, (obj,)) == {-1 if has is present else 0}, (obj, present)
    assert decisions(gs, (Raising(),)) == {0}  # neither answer: an error fails the guard


def test_has_attr_runs_the_lookup_of_the_class():
    gs = GuardSet(one, [has_attr(D, "magic", False)])
    assert decisions(gs, (Plain(),)) == {-1}
    assert decisions(gs, (Dynamic(),)) == {0}


def test_is_instance_reads_the_instance_flags():
    buffer = torch.nn.Buffer(torch.ones(2))
    for answer in (True, False):
        gs = GuardSet(one, [is_instance(D, torch.nn.Buffer, answer)])
        assert decisions(gs, (buffer,)) == {-1 if answer else 0}
        assert decisions(gs, (torch.ones(2),)) == {0 if answer else -1}
    gs = GuardSet(one, [is_instance(D, (int, str), True)])
    assert decisions(gs, (1,)) == decisions(gs, ("s",)) == {-1} and decisions(gs, (1.0,)) == {0}


X, Y = object(), object()


@pytest.mark.parametrize("want", [(X, Y, 1), (X, X, Y), (X, Y, X), (X, X, X)])
def test_identity_pattern(want):
    sources = [LocalSource(n) for n in "abc"]
    gs = GuardSet(three, [identity_pattern_match(sources, want)])
    for args in [(X, Y, 1), (X, X, Y), (X, Y, X), (X, X, X), (Y, X, 1), (1, 1, 1)]:
        same = [args.index(a) for a in args] == [want.index(w) for w in want]
        assert decisions(gs, args) == {-1 if same else 0}, (want, args)


def test_identity_pattern_words_name_the_shared_sources():
    a, b, c = (LocalSource(n) for n in "abc")
    assert identity_pattern_match([a, b, c], [X, Y, 1]).describe() == "a, b, c are different objects"
    assert identity_pattern_match([a, b, c], [X, Y, X]).describe() == \
        "a and c are one object, the others different objects"


def test_object_equals_compares_with_the_objects_own_equality():
    gs = GuardSet(one, [object_equals(AttrSource(D, "dtype"), np.dtype("float32"))])
    assert decisions(gs, (np.finfo(np.float32),)) == {-1}
    assert decisions(gs, (np.finfo(np.float64),)) == {0}
    assert decisions(gs, (np.zeros(2, np.float32),)) == {-1}


@pytest.mark.skipif(C is None, reason="the C extension is not built")
def test_the_c_cases_run_no_python_function():
    a, b = LocalSource("a"), LocalSource("b")
    checks = [
        (GuardSet(one, [has_key(AttrSource(D, "__dict__"), "a")]), (with_attr(Plain, a=1),)),
        (GuardSet(one, [has_attr(D, "a", False)]), (Slotted(),)),
        (GuardSet(one, [has_attr(D, "a", True)]), (with_attr(Plain, a=1),)),
        (GuardSet(one, [is_instance(D, (int, str), True)]), (1,)),
        (GuardSet(three, [identity_pattern_match([a, b, LocalSource("c")], [X, Y, X])]), (X, Y, X)),
    ]
    for gs, args in checks:
        assert python_calls_in_c_check(gs, args) == [], gs.guards


def set_guards(items: list) -> GuardSet:
    from autograph.capture.core.guard_builder import GuardRecorder
    g = GuardRecorder()
    g.iterates_as(D, items)
    return GuardSet(one, g.guards)


def test_set_contents_are_native_item_guards_that_tell_types_and_signs_apart():
    real = {1, 0.0, (2, 3.0), "s", len}
    gs = set_guards(list(real))
    assert GuardKind.PYTHON not in [g.kind for g in gs.guards]
    assert decisions(gs, (real,)) == {-1}
    for other in ({True, 0.0, (2, 3.0), "s", len}, {1, -0.0, (2, 3.0), "s", len}, {1, 0.0, (2, 3), "s", len},
                  {1, 0.0, (2, 3.0), "s", abs}, {1, 0.0, (2, 3.0), "s"}, {1, 0.0, (2, 3.0), "s", len, 7}):
        assert -1 not in decisions(gs, (other,)), other


@pytest.mark.parametrize("items", [[frozenset({1})], [float("nan")], [(1, float("nan"))], list(range(17))])
def test_set_contents_the_item_guards_cannot_decide_are_the_named_check(items):
    real = set(items)
    gs = set_guards(list(real))
    assert [g.kind for g in gs.guards] == [GuardKind.PYTHON]
    assert gs.index_fn(real) == -1 and gs.index_fn(real | {-1}) == 0


def test_identity_pattern_of_many_sources():
    """A module tree of hundreds of submodules: the C case's table of pointers decides as the twin."""
    from autograph.guards.sources import ItemSource
    objs = [object() for _ in range(300)]
    shared = objs[:150] + objs[:150]
    for want in (objs, shared):
        gs = GuardSet(one, [identity_pattern_match([ItemSource(D, i) for i in range(300)], want)])
        assert decisions(gs, (list(want),)) == {-1}
        for other in (objs, shared, objs[:299] + objs[:1], [objs[1]] + objs[1:]):
            if other is not want:
                assert decisions(gs, (list(other),)) == {0}
