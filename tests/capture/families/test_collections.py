"""collections.deque / defaultdict / Counter / OrderedDict in compiled code
(families/collections_values.py): real containers of stand-ins; made fresh per call at a break or
return; containers passed in are mirrored and their final contents written back after the graph."""
from __future__ import annotations

import collections

import torch

from tests.capture.harness import Harness


def same(got, expected, path="result"):
    """Eager's and the compiled call's values: same types, same items (tensors by value)."""
    assert type(got) is type(expected), f"{path}: {type(got).__name__} vs {type(expected).__name__}"
    if isinstance(expected, torch.Tensor):
        torch.testing.assert_close(got, expected, msg=lambda m: f"{path}: {m}")
    elif isinstance(expected, (list, tuple, collections.deque)):
        assert len(got) == len(expected), f"{path}: length"
        for i, (g, e) in enumerate(zip(got, expected)):
            same(g, e, f"{path}[{i}]")
        if isinstance(expected, collections.deque):
            assert got.maxlen == expected.maxlen
    elif isinstance(expected, dict):
        assert [type(k) for k in got] == [type(k) for k in expected], f"{path}: keys"
        for (gk, gv), (ek, ev) in zip(got.items(), expected.items()):
            if not isinstance(ek, torch.Tensor):
                assert gk == ek, f"{path}: key {gk!r} vs {ek!r}"
            same(gv, ev, f"{path}[{ek!r}]")
        if isinstance(expected, collections.defaultdict):
            assert (got.default_factory is None) == (expected.default_factory is None)
    else:
        assert got == expected, f"{path}: {got!r} vs {expected!r}"


def compare(fn, make_args, calls=3, graphs=1):
    """Compiled ``fn`` against eager on fresh arguments: results and the arguments afterwards."""
    h = Harness()
    compiled = h.compile(fn)
    for i in range(calls):
        torch.manual_seed(i)
        eager_args = make_args()
        torch.manual_seed(i)
        comp_args = make_args()
        same(compiled(*comp_args), fn(*eager_args))
        same(list(comp_args), list(eager_args), "arguments after the call")
    if graphs is not None:
        assert not h.breaks, [b.reason for b in h.breaks]
        assert len(h.backend.graphs) == graphs
    return h


def x_only():
    return (torch.randn(3),)


def test_deque_made_in_capture():
    def f(a):
        b = a * 2
        d = collections.deque([a, b])
        d.append(a + 1)
        d.extend([a, b])
        d.insert(0, "foo")
        tmp = d.pop()
        another = collections.deque([tmp])
        d.extendleft(another)
        another.clear()
        d[2] = "setitem"
        d = d.copy()
        d.append(d.popleft())
        d.rotate(2)
        bounded = collections.deque(range(5), maxlen=3)
        bounded.append(a)
        return list(d), d, bounded, len(d), a in d
    compare(f, x_only)


def test_deque_returned_is_fresh_per_call():
    h = Harness()
    compiled = h.compile(lambda a: (a + 1, collections.deque([a, 1])))
    a = torch.randn(2)
    r1, r2 = compiled(a), compiled(a)
    assert r1[1] is not r2[1] and r1[1][0] is a and list(r1[1])[1] == 1
    assert len(h.backend.graphs) == 1 and not h.breaks


def test_defaultdict_made_calls_its_factory():
    def f(a):
        groups = collections.defaultdict(list)
        for i, t in enumerate([a, a + 1, a * 3]):
            groups[i % 2].append(t)
        counts = collections.defaultdict(int)
        for w in "abcab":
            counts[w] += 1
        nested = collections.defaultdict(lambda: dict())
        nested["x"]["y"] = a
        return groups, counts, nested, groups[1][0] - groups[0][1], "zz" in counts
    compare(f, x_only)


def test_defaultdict_passed_in_is_changed_in_place():
    param = torch.nn.Parameter(torch.ones([2, 2]))

    def f(x, dd):
        dd["a"] = x + 1
        dd[param] = 123
        dd["c"] = x * 2
        return dd["b"], dd

    def args():
        return torch.randn(2, 2), collections.defaultdict(list, {"z": 5})
    h = compare(f, args)
    x, dd = args()
    out = h.compile(f)(x, dd)
    assert out[1] is dd and out[0] is dd["b"] and list(dd) == ["z", "a", param, "c", "b"]


def test_counter():
    def f(a, words):
        c = collections.Counter(words)
        c.update(["a", "z"])
        c2 = c + collections.Counter("zz")
        c2.subtract({"a": 1})
        return a * c["a"], c.most_common(2), c2, dict(c2), c2.total()
    compare(f, lambda: (torch.randn(3), ["a", "b", "a", "c"]))


def test_ordered_dict_methods():
    def f(a):
        o = collections.OrderedDict()
        o["a"] = a
        o["b"] = a + 1
        o["c"] = 3
        o.move_to_end("a")
        o.move_to_end("c", last=False)
        k, v = o.popitem(last=False)
        total = a
        for key, val in o.items():
            total = total + val
        return o, k, v, total, list(o.keys())
    compare(f, x_only)


def test_containers_passed_in_are_written_back():
    def f(x, od, q):
        q.append(x + 1)
        y = q.popleft()           # read before the write-back replaces the deque's contents
        od["n"] += 1
        od.move_to_end("a")
        return y * od["n"], q[0]

    def args():
        return torch.randn(2), collections.OrderedDict(a=1, n=2), collections.deque([torch.ones(2), 5])
    h = compare(f, args)
    x, od, q = args()
    h.compile(f)(x, od, q)
    assert list(od.items()) == [("n", 3), ("a", 1)] and len(q) == 2 and q[0] == 5


def test_unchanged_container_passed_in_is_only_read():
    def f(x, dd):
        out = x
        for k, v in dd.items():
            out = out * v
        return out + dd["a"], len(dd)
    h = compare(f, lambda: (torch.randn(2), collections.defaultdict(int, {"a": 2, "b": 3})))
    assert "write_back" not in h.results[0].transformed_source


def test_one_container_reached_two_ways():
    def f(x, d1, d2):
        d1.append(x)
        return len(d2), d2[-1] + 1
    shared = collections.deque([1])
    h = Harness()
    out = h.compile(f)(torch.ones(2), shared, shared)
    assert out[0] == 2 and torch.equal(out[1], torch.full((2,), 2.0)) and len(shared) == 2


def test_fromkeys():
    def f(x, y):
        lst = ["a", "b"]
        d = dict.fromkeys(lst)
        d1 = dict.fromkeys(d, x + 1)
        d2 = collections.defaultdict.fromkeys(iter(d1), x - 2)
        d3 = collections.OrderedDict.fromkeys(tuple(lst), y)
        d4 = collections.defaultdict.fromkeys("a", "b")
        d4.setdefault("c")
        return d1["a"] * d2["b"] + d3["a"], d4, d3
    compare(f, lambda: (torch.randn(2), torch.randn(2)))


def test_errors_are_pythons():
    def f(x):
        d = collections.deque([1, 2])
        y = x + 1
        d.remove(5)
        return y, d
    h = Harness()
    compiled = h.compile(f)
    messages = []
    for fn in (f, compiled):
        try:
            fn(torch.ones(2))
        except ValueError as exc:
            messages.append(str(exc))
    assert len(messages) == 2 and messages[0] == messages[1]


def test_counter_of_a_mapping_counts_its_values_not_its_keys():
    # Counter/OrderedDict/defaultdict tell a mapping from an iterable of keys by isinstance(Mapping)
    def f(a):
        c = collections.Counter({"a": 3, "b": 1})
        c.update({"b": 4})
        o = collections.OrderedDict({"k": a, "j": a + 1})
        d = collections.defaultdict(int, {"z": 2})
        return a * c["a"], c.most_common(), dict(c), o, d, c.get("b"), "b" in c
    compare(f, x_only)


def test_comparisons_and_unary_operators_run_the_real_ones():
    def f(a):
        o = collections.OrderedDict(k=a, j=1)
        c = collections.Counter(x=-1, y=2)
        return (o == {"k": a, "j": 1}, {"j": 1, "k": a} == o, o == collections.OrderedDict(j=1, k=a),
                c == {"x": -1, "y": 2}, collections.deque([1, a]) == [1, a], collections.deque([1]) < collections.deque([2]),
                collections.Counter(x=1) <= c, -c, +c, a + 1)
    compare(f, x_only)
