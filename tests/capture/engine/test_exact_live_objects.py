"""Objects whose state a compiled function reads or changes live behave as in Python:
dict views, iterators over lists the loop extends, lazy ``zip``/``map``, the caller's
iterators, in-place operators on lists, identity between objects of the call and
objects passed in."""
from __future__ import annotations

import torch

from tests.capture.harness import Harness


def _run(f, *args):
    h = Harness()
    c = h.compile(f)
    return c(*args), f(*args), h


def test_dict_values_view_sees_later_insertions():
    def f(x):
        d = {"a": x}
        v = d.values()
        d["new"] = x
        return x * len(v)

    got, want, _ = _run(f, torch.ones(2))
    torch.testing.assert_close(got, want)


def test_dict_keys_view_of_an_argument_is_live():
    def f(x, d):
        keys = d.keys()
        n0 = len(keys)
        local = dict(d)
        local["z"] = 1
        return x + n0 + len(local.keys()) + ("z" in keys)

    got, want, _ = _run(f, torch.ones(2), {"a": 1})
    torch.testing.assert_close(got, want)


def test_dict_items_view_returned_is_a_live_view():
    def f(x):
        d = {"a": 1}
        return x + 1, d.items(), d

    c = Harness().compile(f)
    _, items, d = c(torch.ones(2))
    d["b"] = 2
    assert list(items) == [("a", 1), ("b", 2)] and type(items) is type({}.items())


def test_next_on_the_callers_iterator_advances_it():
    def f(x, it):
        return x + next(it)

    c = Harness().compile(f)
    it = iter([1, 2, 3, 4])
    outs = [c(torch.zeros(1), it).item() for _ in range(2)]
    assert outs == [1.0, 2.0] and list(it) == [3, 4]


def test_loop_over_the_callers_iterator_exhausts_it():
    def f(x, it):
        for v in it:
            x = x + v
        return x

    c = Harness().compile(f)
    it = iter((1, 2, 3))
    torch.testing.assert_close(c(torch.zeros(1), it), torch.tensor([6.0]))
    assert list(it) == []


def test_loop_sees_items_appended_to_the_list_it_iterates():
    def f(x):
        work = [1]
        for n in work:  # a work list: Python's list iterator reaches appended items
            if n < 4:
                work.append(n + 1)
        return x * len(work), work

    got, want, _ = _run(f, torch.ones(2))
    assert got[1] == want[1]
    torch.testing.assert_close(got[0], want[0])


def test_list_iterator_live_across_a_graph_break():
    def f(x):
        items = [1, 2, 3]
        it = iter(items)
        first = next(it)
        print("", end="")  # graph break with `it` live
        items.append(4)
        return x + first + sum(it)

    got, want, h = _run(f, torch.zeros(1))
    torch.testing.assert_close(got, want)
    assert h.breaks


def test_zip_is_lazy_over_a_shared_iterator():
    def f(x):
        it = iter([10, 20, 30, 40])
        pairs = list(zip(range(2), it))  # consumes 2 items of `it` (and tries range once more)
        return x + sum(a for _, a in pairs) + sum(it)

    got, want, _ = _run(f, torch.zeros(1))
    torch.testing.assert_close(got, want)


def test_map_calls_its_function_lazily():
    def f(x):
        log = []

        def record(v):
            log.append(v)
            return v

        m = map(record, [1, 2])
        log.append("start")
        total = sum(m)
        return x + total, log

    got, want, _ = _run(f, torch.zeros(1))
    assert got[1] == want[1] == ["start", 1, 2]


def test_enumerate_and_zip_live_at_a_graph_break():
    def f(x, names):
        out = []
        for i, (n, v) in enumerate(zip(names, [1, 2, 3]), 1):
            if x.sum() > i:  # data-dependent branch: a break inside the loop
                out.append(n)
            x = x + v
        return x, out

    got, want, _ = _run(f, torch.full((2,), 2.0), ["a", "b", "c"])
    torch.testing.assert_close(got[0], want[0])
    assert got[1] == want[1]


def test_reversed_list_is_live():
    def f(x):
        items = [1, 2, 3]
        r = reversed(items)
        items[0] = 100
        return x + sum(r)

    got, want, _ = _run(f, torch.zeros(1))
    torch.testing.assert_close(got, want)


def test_in_place_repeat_changes_every_alias():
    def f(x):
        a = [1]
        b = a
        a *= 3
        a += (4,)
        return x + len(b), b

    got, want, _ = _run(f, torch.zeros(1))
    assert got[1] == want[1]


def test_identity_of_a_list_passed_twice():
    def f(x, a, b):
        return x + 1 if a is b else x - 1

    c = Harness().compile(f)
    x, shared = torch.zeros(1), [1]
    torch.testing.assert_close(c(x, shared, shared), f(x, shared, shared))
    torch.testing.assert_close(c(x, shared, [1]), f(x, shared, [1]))


def test_identity_of_an_object_passed_in_against_a_global_default():
    marker = object()

    def f(x, o):
        return x + 1 if o is marker else x - 1

    c = Harness().compile(f)
    x = torch.zeros(1)
    torch.testing.assert_close(c(x, marker), f(x, marker))
    other = object()
    torch.testing.assert_close(c(x, other), f(x, other))


def test_equality_of_plain_objects_is_identity():
    class Token:
        pass

    t = Token()

    def f(x, a, b):
        return x + 1 if a == b else x - 1

    c = Harness().compile(f)
    x = torch.zeros(1)
    torch.testing.assert_close(c(x, t, t), f(x, t, t))
    torch.testing.assert_close(c(x, t, Token()), f(x, t, Token()))


def test_inequality_of_objects_with_their_own_ne_runs_it():
    class AlwaysDifferent:  # object's __eq__, its own __ne__: `!=` is not identity
        def __ne__(self, other):
            return True

    t = AlwaysDifferent()

    def f(x, a, b):
        return x + 1 if a != b else x - 1

    c = Harness().compile(f)
    x = torch.zeros(1)
    torch.testing.assert_close(c(x, t, t), f(x, t, t))


def test_object_made_in_the_call_is_not_an_argument():
    def f(x, o):
        fresh = []
        return x + 1 if fresh is o else x - 1

    got, want, _ = _run(f, torch.zeros(1), [])
    torch.testing.assert_close(got, want)


def test_dict_changed_during_iteration_raises_as_in_python():
    import autograph

    def f_dict_changed(x):
        d = {"a": 1}
        it = iter(d)
        d["b"] = 2
        try:
            next(it)
        except RuntimeError:
            return x - 1
        return x + 1

    c = autograph.compile(f_dict_changed, backend="eager")
    x = torch.zeros(1)
    torch.testing.assert_close(c(x), f_dict_changed(x))
    torch.testing.assert_close(c(x), f_dict_changed(x))


def test_enum_member_compared_with_a_string():
    import enum

    class Mode(enum.Enum):
        TRAIN = "train"

    def f(x, m):
        return x + 1 if m == "train" else x - 1  # an Enum member is never equal to a str

    got, want, h = _run(f, torch.zeros(1), Mode.TRAIN)
    torch.testing.assert_close(got, want)
    assert not h.breaks
