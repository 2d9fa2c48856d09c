"""Named tuples and structseqs (families/named_tuples.py): class kept, fields by name, methods inlined."""
from __future__ import annotations

import collections
from typing import NamedTuple

import pytest
import torch

from tests.capture.checks import check
from tests.capture.harness import Harness

Point = collections.namedtuple("Point", ["x", "y", "z"], defaults=(1.0,))


class Pair(NamedTuple):
    first: torch.Tensor
    second: torch.Tensor

    def total(self):
        return self.first + self.second

    @staticmethod
    def one() -> int:
        return 1

    @classmethod
    def name(cls) -> str:
        return cls.__name__


def two():
    return torch.randn(3, 4), torch.randn(3, 4)


def construct_and_read(a, b):
    p = Point(a, y=b)
    return p.x + p.y * p.z, p[1], p._fields, len(p), p


def typing_namedtuple_methods(a, b):
    pair = Pair(a, b)
    return pair.total(), pair.one(), pair.name(), isinstance(pair, tuple), hasattr(pair, "_asdict")


def tuple_operations_give_plain_tuples(a, b):
    p = Point(a, b, 2.0)
    return p[:2], p + (3,), p * 2, list(p), a in p


def structseq_result(a, b):
    r = torch.max(a, dim=0)
    v, i = torch.sort(b, dim=1)
    return r.values + 1, r.indices, r[0], v * 2, i, r


def namedtuple_input(p):
    return p.x * p.z + p.y, p._fields


def size_has_no_fields(a, b):
    return a + 1 if hasattr(a.shape, "_fields") else a - 1


@pytest.mark.parametrize("fn", [construct_and_read, typing_namedtuple_methods, tuple_operations_give_plain_tuples,
                                structseq_result, size_has_no_fields])
def test_named_tuples_match_eager_in_one_graph(fn):
    h = check(fn, two)
    assert h.breaks == [], [str(b) for b in h.breaks]


def test_a_namedtuple_argument_is_read_by_field():
    h = check(namedtuple_input, lambda: (Point(torch.randn(2), torch.randn(2), 3.0),))
    assert h.breaks == []


def test_a_structseq_live_at_a_break_keeps_its_class():
    def fn(x):
        r = torch.max(x, dim=0)
        print("graph break")
        return r.values + 1, r

    h = Harness()
    out, r = h.compile(fn)(torch.randn(3, 3))
    assert type(r) is torch.return_types.max and torch.equal(out, r.values + 1)
    assert len(h.breaks) == 1


def test_membership_and_index_check_identity_before_equality():
    """``x in (x, y)``, ``.index``, ``.count``, ``.remove``: an identical item matches without ``==``."""
    def fn(a, b):
        items = [b, a, a]
        items.remove(b)
        return a in (a, b), (a, b).index(a), items.count(a), len(items)

    h = check(fn, two)
    assert h.breaks == []


def replace_field(x):
    return Point(x, x * 2)._replace(y=x + 1)


def make_from_list(x):
    return Pair._make([x, x + 1]).total()


def make_with_wrong_count(x):
    return Point._make([x, x])  # Point has three fields: TypeError from _make


def replace_in_function_class(x):
    Local = collections.namedtuple("Local", "a b")
    return Local(x, 2)._replace(a=x * 3)


@pytest.mark.parametrize("fn", [replace_field, make_from_list])
def test_make_and_replace_build_through_tuple_new(fn):
    """``_make``/``_replace`` end in ``tuple.__new__(cls, iterable)``: an instance of the class
    holding the items, no break (it was an unsupported-call break)."""
    h = check(fn, lambda: (torch.randn(3),))
    assert h.breaks == [], [b.reason for b in h.breaks]


def test_make_with_a_wrong_count_raises_its_type_error():
    """``_make`` checks the count itself: its TypeError, raised by Python where it raises."""
    h = check(make_with_wrong_count, lambda: (torch.randn(3),))
    assert [b.kind for b in h.breaks] == ["python-exception"]


def test_replace_on_a_class_made_in_the_call_keeps_each_calls_class():
    h = Harness()
    f = h.compile(replace_in_function_class)
    x = torch.randn(3)
    first, second, want = f(x), f(x), replace_in_function_class(x)
    for got in (first, second):
        assert type(got).__name__ == "Local" and got._fields == ("a", "b") and got.b == 2
        assert torch.equal(got.a, want.a)
    assert type(first) is not type(second)  # a new class on every call, as in Python
    assert h.breaks == [], [b.reason for b in h.breaks]
