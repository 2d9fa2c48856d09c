"""An entry with pre-checks reads its inputs first of all; an input read from a live iterator's
remaining items uses the iterator's snapshot, which is then taken before them (engine/api.py).

Found by the constructs sweep's ``defaultdict_grouped_by_tensor_values`` (issue 25): the resume
function after ``int(v)`` in ``for v in x`` read ``__rem0[0]`` in its checks before the
prologue assigned ``__rem0``: UnboundLocalError on the first call.
"""
from __future__ import annotations

import collections

import torch

import autograph


def groups_by_value(x, idx):
    groups = collections.defaultdict(list)
    for v in x:
        _ = x[idx]  # a data-dependent index: the graph gets pre-checks
        groups[int(v) % 3].append(v)
    return list(groups), [len(g) for g in groups.values()]


def test_inputs_read_from_a_live_iterator_in_the_checks():
    compiled = autograph.compile(groups_by_value, backend="eager")
    for i in range(4):
        x, idx = torch.arange(4.0) + i, torch.tensor([1 + 5 * (i % 2)])
        try:
            want = groups_by_value(x, idx)
        except IndexError as exc:
            want = type(exc)
        try:
            got = compiled(x, idx)
        except IndexError as exc:
            got = type(exc)
        assert got == want
