"""A ``defaultdict`` made in the function and filled across graph breaks (found by the adversary
programs, tests/programs/foreign/p22_sorted_dict_tensors.py).

``groups[int(v)].append(v)`` breaks at each ``int(v)``; each resume function gets the real
dict, mirrored with its items' guards (families/collections_values.py). Called with keys
``[1, 1, 0]`` and then ``[0, 2, 3]``, the compiled function's dict had the keys ``[0, 1, 2, 3]``:
checking an entry made for the first call read ``groups[1]`` with ``[]``, and the default
factory inserted the key. Items of a dict with ``__missing__`` are read as stored
(guards/sources.py ``StoredItemSource``).
"""
from __future__ import annotations

import collections

import pytest
import torch

import autograph


def bucketize(keys):
    groups = collections.defaultdict(list)
    for v in keys:
        groups[int(v)].append(v)
    return list(groups)


@pytest.mark.parametrize("calls", [([1, 1, 0], [0, 2, 3]), ([2, 1, 1, 2], [0, 2, 0], [1, 1, 1], [0, 2, 5])])
def test_the_keys_are_the_ones_this_call_made(calls):
    compiled = autograph.compile(bucketize, backend="eager")
    for ks in calls:
        values = [torch.tensor(k) for k in ks]
        assert compiled(values) == bucketize(values)


def test_checking_a_guard_on_an_absent_item_does_not_insert_it():
    from autograph.guards.sources import LocalSource, StoredItemSource
    groups = collections.defaultdict(list, {0: [1]})
    source = StoredItemSource(LocalSource("groups"), 1)
    with pytest.raises(KeyError):
        source.reader()(groups)
    assert list(groups) == [0] and source.reader()(groups | {1: [2]}) == [2]
