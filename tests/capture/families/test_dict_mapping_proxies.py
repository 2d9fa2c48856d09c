"""``types.MappingProxyType`` (families/mapping_proxies.py): a read-only live view of a mapping,
made in the call or passed in; writes raise CPython's errors."""
from __future__ import annotations

import types

import torch

from tests.capture.checks import check
from tests.capture.harness import Harness

SHARED = {"a": 2, "b": 3}


def arg():
    return (torch.randn(3),)


def reads_of_a_local_proxy(x):
    d = {"a": 2, "b": 3, "c": 5}
    mp = types.MappingProxyType(d)
    y = torch.sin(x * mp["a"])
    for v in mp.values():
        y = y + torch.cos(x * v)
    d["e"] = 7  # the proxy is live
    return y, len(mp), "e" in mp, mp.get("z", 1), list(mp), mp == d, type(mp.copy()), mp | {"f": 1}, mp, \
        types.MappingProxyType({"a": 1}) == {"a": 1}


def test_a_proxy_made_in_the_call_reads_its_dict_live():
    h = check(reads_of_a_local_proxy, arg)
    assert h.breaks == []
    out = h.compile(reads_of_a_local_proxy)(torch.randn(3))[-2]
    assert type(out) is types.MappingProxyType and list(out) == ["a", "b", "c", "e"]


def writes_raise(x):
    mp = types.MappingProxyType({"a": 1})
    errors = []
    for write in (lambda: mp.__setitem__("a", 2), lambda: mp.__delitem__("a"), lambda: mp.update(a=3)):
        try:
            write()
        except (TypeError, AttributeError) as e:
            errors.append((type(e).__name__, str(e)))
    try:
        mp["b"] = 2
    except TypeError as e:
        errors.append(str(e))
    try:
        del mp["a"]
    except TypeError as e:
        errors.append(str(e))
    try:
        types.MappingProxyType([1])
    except TypeError as e:
        errors.append(str(e))
    return x + 1, errors, dict(mp)


def test_writes_raise_as_cpython():
    assert check(writes_raise, arg).breaks == []


def proxy_of_an_outside_dict(x):
    mp = types.MappingProxyType(SHARED)
    y = x * mp["a"]
    SHARED["d"] = 4
    return y, mp["d"], mp


def test_a_proxy_of_a_dict_from_outside_stays_live():
    try:
        h = check(proxy_of_an_outside_dict, arg)
        assert h.breaks == []
        mp = h.compile(proxy_of_an_outside_dict)(torch.randn(3))[-1]
        SHARED["e"] = 5
        assert mp["e"] == 5
    finally:
        SHARED.clear()
        SHARED.update(a=2, b=3)


def reads_a_proxy_passed_in(x, mp):
    y = torch.sin(x * mp["a"])
    for v in mp.values():
        y = y + torch.cos(x * v)
    return y, isinstance(mp, types.MappingProxyType), dict(mp)


def test_a_proxy_passed_in_is_guarded_by_its_contents():
    d = {"a": 2, "b": 3}
    mp = types.MappingProxyType(d)
    h = Harness()
    f = h.compile(reads_a_proxy_passed_in)
    x = torch.randn(3)
    for change in (lambda: None, lambda: d.__setitem__("a", 3), lambda: d.pop("b")):
        change()
        got, ref = f(x, mp), reads_a_proxy_passed_in(x, mp)
        torch.testing.assert_close(got[0], ref[0])
        assert got[1:] == ref[1:]
    assert h.breaks == [] and h.captures == 3


def changes_the_dict_a_proxy_passed_in_views(x, d, mp):
    before = mp["a"]
    d["a"] = 10
    return x * before, mp["a"]


def test_a_proxy_passed_in_is_not_read_stale():
    h = Harness()
    f = h.compile(changes_the_dict_a_proxy_passed_in_views)
    for _ in range(2):
        d = {"a": 1}
        x = torch.randn(3)
        y, second = f(x, d, types.MappingProxyType(d))
        torch.testing.assert_close(y, x)
        assert second == 10 and d == {"a": 10}
    assert h.breaks  # (the second read runs in Python)


def view_mapping(x):
    d = {"a": 1}
    m = d.keys().mapping
    d["b"] = 2
    return x + 1, isinstance(m, types.MappingProxyType), dict(m), m == d


def test_dict_view_mapping_is_a_live_proxy():
    assert check(view_mapping, arg).breaks == []
