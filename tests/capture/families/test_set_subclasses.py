"""set/frozenset subclasses made in the function (families/set_subclasses.py) and set's C methods
called through the class: results, types, errors and rebuilt objects as Python's."""
from __future__ import annotations

import pytest
import torch

from tests.capture.checks import check
from tests.capture.harness import Harness


def two():
    return torch.randn(3), torch.randn(3)


class PlainSet(set):
    pass


class PlainFrozen(frozenset):
    pass


class AddsOne(set):
    def add(self, item):
        return super().add(item + 1)

    def doubled(self):
        return len(self) * 2


class Tagged(frozenset):
    def __new__(cls, items, tag):
        obj = super().__new__(cls, items)
        obj.tag = tag
        return obj


class WithInit(set):
    def __init__(self, items, scale):
        super().__init__(x * scale for x in items)
        self.scale = scale


def operators_return_the_base_type(a, b):
    p, q = PlainSet("abc"), PlainSet("bef")
    r = p | q
    p |= {"z"}  # in place: the object itself
    f = PlainFrozen("abc") - {"a"}
    return (a + len(r), type(r), sorted(r), type(p), sorted(p), type(f), sorted(f),
            p < PlainSet("abcfz"), p == set("abcz"), PlainFrozen("ab") == frozenset("ab"))


def methods_and_unbound_methods(a, b):
    p = PlainSet([1, 2])
    p.add(3)
    PlainSet.discard(p, 1)
    c = p.copy()
    u = PlainFrozen([1]).union([2])
    s = {1, 2}
    set.add(s, 5)
    m = s.add
    m(6)
    return (a * len(p), type(c), sorted(c), type(u), sorted(u), sorted(s), s.__contains__(5),
            set.__sub__(s, {1}) == {2, 5, 6}, set.__eq__(s, 1), PlainSet.__or__(p, {9}) == {2, 3, 9})


def overrides_new_init_and_attributes(a, b):
    s = AddsOne([1, 2])
    s.add(3)
    t = Tagged("xy", tag="t")
    w = WithInit([1, 2], 10)
    w.extra = "e"
    return a + s.doubled(), sorted(s), type(t), t.tag, sorted(t), sorted(w), w.scale, w.extra


def returned_objects_are_rebuilt(a, b):
    s = AddsOne([1, 2])
    s.attr = 7
    return a, s, Tagged([3], "q"), PlainFrozen("ab")


def set_keys_and_membership(a, b):
    s = {frozenset("ab"), 1}
    found = PlainFrozen("ab") in s
    s.remove({"a", "b"})  # a set key is looked up as the frozenset of its items
    t = PlainSet([frozenset("xy")])
    t.discard(set("xy"))
    return a, found, sorted(s), len(t)


def frozenset_constant_dunders(a, b):
    p = frozenset("abc")
    return (a, p.__eq__(set("abc")), p.__eq__(set("ab")), p.__or__({"z"}) == set("abcz"), p.__ne__(1),
            p.__contains__({"a"}), frozenset.__eq__(p, set(p)), frozenset.union(p, {1}) == p | {1})


def formatted(a, b):
    return a, f"{PlainSet([1])} {PlainFrozen()!r}", str(PlainSet(["q"])), repr(PlainFrozen([2]))


@pytest.mark.parametrize("fn", [operators_return_the_base_type, methods_and_unbound_methods,
                                overrides_new_init_and_attributes, returned_objects_are_rebuilt,
                                set_keys_and_membership, frozenset_constant_dunders, formatted])
def test_set_subclasses_match_eager_in_one_graph(fn):
    h = check(fn, two)
    assert h.captures == 1 and h.breaks == []


def _errors(kind):
    def fn(a, b):
        p = kind("abc")
        caught = []
        for call in (lambda: p.union(1), lambda: p.issubset([[]]), lambda: p - 1, lambda: kind(1),
                     lambda: kind("a", "b"), lambda: kind(x="a")):
            try:
                call()
            except TypeError as exc:
                caught.append(str(exc))
        if hasattr(p, "add"):
            for call in (lambda: p.add([]), lambda: p.remove("q"), lambda: kind().pop()):
                try:
                    call()
                except (TypeError, KeyError) as exc:
                    caught.append((type(exc).__name__, str(exc)))
        return a, caught
    return fn


@pytest.mark.parametrize("kind", [set, frozenset, PlainSet, PlainFrozen])
def test_set_errors_are_pythons_and_caught_in_the_graph(kind):
    h = check(_errors(kind), two)
    assert h.captures == 1 and h.breaks == []


class OwnOr(set):
    def __or__(self, other):
        return "own"

    def __eq__(self, other):
        return "eq"

    __hash__ = None


def own_operator_and_comparison(a, b):
    p = OwnOr([1])
    return a, p | {2}, {2} | p, p == {1}, {1} == p


def test_a_subclass_overriding_an_operator_runs_its_own_code():
    h = check(own_operator_and_comparison, two)
    assert h.breaks == [] or all("OwnOr" in b.reason or "set" in b.reason for b in h.breaks)


def test_a_set_subclass_made_in_the_function_is_new_per_call():
    def fn(a):
        s = PlainSet([1, 2])
        s.add(3)
        return a + 1, s

    h = Harness()
    compiled = h.compile(fn)
    x = torch.randn(2)
    first, second = compiled(x)[1], compiled(x)[1]
    assert type(first) is PlainSet and first == {1, 2, 3} and first is not second
    assert h.breaks == []


class SubSub(PlainSet):
    pass


def operator_matrix(a, k1, k2):
    p, q = k1("abcd"), k2("cdef")
    out = [(type(r).__name__, sorted(r)) for r in (p | q, p & q, p - q, p ^ q)]
    out.append((p == q, p != q, p < q, p <= q, p > q, p >= q))
    if hasattr(p, "add"):
        p |= q
        out.append((type(p).__name__, list(p)))
        p ^= {"z"}
        p &= q | {"z", "a"}
        p -= {"c"}
        out.append((type(p).__name__, sorted(p)))
    out.append((p.union(q) == set(p) | set(q), type(p.union(q)).__name__, p.issubset(q), q.issuperset(p)))
    out.append((len(p), bool(p), "a" in p, type(set(p)).__name__, type(frozenset(q)).__name__))
    return a, out


@pytest.mark.parametrize("k1,k2", [(set, PlainFrozen), (frozenset, PlainSet), (PlainSet, PlainFrozen),
                                   (PlainFrozen, SubSub), (SubSub, PlainSet), (PlainSet, frozenset)])
def test_operators_and_methods_across_set_kinds_match_eager_in_one_graph(k1, k2):
    h = check(operator_matrix, lambda: (torch.randn(1), k1, k2))
    assert h.captures == 1 and h.breaks == []


def unhashable_keys_in_library_code(a, b):
    from torch.utils._ordered_set import OrderedSet
    caught = []
    for call in (lambda: OrderedSet([[]]), lambda: dict.fromkeys([[1]])):
        try:
            call()
        except TypeError as exc:
            caught.append(str(exc))
    return a, caught


def test_an_unhashable_key_met_by_library_code_raises_pythons_type_error_in_the_graph():
    h = check(unhashable_keys_in_library_code, two)
    assert h.captures == 1 and h.breaks == []
