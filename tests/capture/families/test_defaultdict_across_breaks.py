"""A ``defaultdict`` made in the function and filled across graph breaks (found by the adversary
programs, tests/programs/foreign/p22_sorted_dict_tensors.py; not fixed yet).

``groups[int(v)].append(v)`` breaks at each ``int(v)``; each resume function gets the real
dict. Called with keys ``[1, 1, 0]`` and then ``[0, 2, 3]``, the compiled function's dict has
the keys ``[0, 1, 2, 3]``: a key ``1`` that plain Python never makes (on 3ce077f as well).
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


@pytest.mark.xfail(strict=True, reason="a stale key appears (issue 25 adversary programs, p22)")
def test_the_keys_are_the_ones_this_call_made():
    compiled = autograph.compile(bucketize, backend="eager")
    for ks in ([1, 1, 0], [0, 2, 3]):
        values = [torch.tensor(k) for k in ks]
        assert compiled(values) == bucketize(values)
