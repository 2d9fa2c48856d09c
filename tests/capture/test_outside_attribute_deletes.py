"""``del obj.name`` on an object passed in (values/objects.py ``ObjectValue.delattr``): a plain
instance-``__dict__`` entry is deleted after the graph, in order with the attribute stores
(values/side_effects.py); its presence is guarded, a missing one raises Python's AttributeError,
and a read of the name after the ``del`` in the same call breaks."""
from __future__ import annotations

import torch

from tests.capture.harness import Harness


class Plain:
    shadowed = "class value"


def _made(with_a: bool = True):
    obj = Plain()
    if with_a:
        obj.a = 1
    obj.shadowed = 2
    obj.tensor = torch.ones(2)
    return obj


def deletes(x, obj):
    obj.c = 3
    del obj.c
    del obj.shadowed
    del obj.a
    return x + obj.tensor


def _outcome(fn, *args):
    try:
        return repr(fn(*args)), None
    except AttributeError as exc:
        return None, repr(exc)


def test_deletes_are_replayed_and_presence_guarded():
    h = Harness()
    compiled = h.compile(deletes)
    for with_a in (True, True, False, True):
        mine, theirs = _made(with_a), _made(with_a)
        assert _outcome(compiled, torch.ones(2), mine) == _outcome(deletes, torch.ones(2), theirs)
        assert vars(mine).keys() == vars(theirs).keys()
    assert h.captures == 2
    assert [b.kind for b in h.breaks] == ["python-exception"]  # the call without `a` only


def read_after_delete(x, obj):
    del obj.a
    return x + 1, hasattr(obj, "a")


def test_read_after_delete_breaks_and_matches():
    h = Harness()
    compiled = h.compile(read_after_delete)
    mine, theirs = _made(), _made()
    assert _outcome(compiled, torch.ones(2), mine) == _outcome(read_after_delete, torch.ones(2), theirs)
    assert vars(mine).keys() == vars(theirs).keys()
    assert [b.kind for b in h.breaks] == ["unsupported-operation"]
