"""``==`` between lists and tuples capture cannot fold (an int that changed between calls is
symbolic) follows Python: subclasses compare as their family (a named tuple equals the plain
tuple of its fields), a list never equals a tuple, a user ``__eq__`` is not second-guessed."""
from __future__ import annotations

import collections

import torch

import autograph

Point = collections.namedtuple("Point", "a b")


def _same_as_python(f, calls):
    c = autograph.compile(f, backend="eager")
    for args in calls:
        got, want = c(torch.ones(1), *args), f(torch.ones(1), *args)
        torch.testing.assert_close(got[0], want[0])
        assert got[1:] == want[1:], (args, got[1:], want[1:])


def test_named_tuple_equals_the_plain_tuple_of_its_fields():
    def f(x, p):
        return x * p.b, p == (p.a, p.b), (p.a, p.b) != p

    _same_as_python(f, [(Point(1, 2.0),), (Point(2, 3.0),), (Point(3, 4.0),)])


def test_list_subclass_equals_a_list_and_never_a_tuple():
    class Row(list):
        pass

    def f(x, n):
        r = Row([1, n])
        return x * n, r == [1, n], r == (1, n), [1, n] != r

    _same_as_python(f, [(1,), (2,), (3,)])


def test_user_eq_on_a_tuple_subclass_is_called():
    class Loose(tuple):
        calls = 0

        def __eq__(self, other):
            Loose.calls += 1
            return True

        __hash__ = tuple.__hash__

    def f(x, n):
        return x * n, Loose((n,)) == (n, 99)

    _same_as_python(f, [(1,), (2,), (3,)])
    assert Loose.calls == 6  # each call, compiled and plain
