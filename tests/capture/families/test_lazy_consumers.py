"""Methods that consume an iterable into the container they change (``list.extend``, ``+=``,
``set.update``, ``dict.update``) take one item at a time, as CPython does: an iterable that
reads the container sees the items already added."""
from __future__ import annotations

import torch

from tests.capture.checks import check


def one(*shape):
    return lambda: (torch.randn(*shape),)


def list_extend_reads_itself(x):
    y = [1]
    y.extend(y[-1] + z for z in range(3))
    return x + 1, y


def list_iadd_reads_itself(x):
    y = [1]
    y += (y[-1] + z for z in range(3))
    return x + 1, y


def list_extend_with_itself(x):
    y = [1, 2]
    y.extend(y)
    return x + 1, y


def set_update_reads_itself(x):
    s = {1}
    s.update(len(s) + z for z in range(3))
    return x + 1, sorted(s)


def dict_update_reads_itself(x):
    d = {0: x}
    d.update((len(d) + z, x * z) for z in range(3))
    return d


def test_list_extend_takes_one_item_at_a_time():
    assert check(list_extend_reads_itself, one(3)).breaks == []


def test_list_iadd_takes_one_item_at_a_time():
    assert check(list_iadd_reads_itself, one(3)).breaks == []


def test_list_extend_with_itself_copies_first():
    assert check(list_extend_with_itself, one(3)).breaks == []


def test_set_update_takes_one_item_at_a_time():
    check(set_update_reads_itself, one(3))


def test_dict_update_takes_one_pair_at_a_time():
    check(dict_update_reads_itself, one(3))
