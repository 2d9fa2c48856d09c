"""Compare a captured function with eager: results, raised exceptions, input mutation."""
from __future__ import annotations

import copy

import torch

from tests.capture.harness import Harness


def _clone(obj):
    if isinstance(obj, torch.nn.Module):
        return obj
    if isinstance(obj, torch.Tensor):
        return obj.detach().clone().requires_grad_(obj.requires_grad)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a namedtuple: fields by position
        return type(obj)(*(_clone(o) for o in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_clone(o) for o in obj)
    if isinstance(obj, dict):
        return {k: _clone(v) for k, v in obj.items()}
    return copy.copy(obj)


def assert_same(got, expected, path="result"):
    if isinstance(expected, torch.Tensor):
        assert isinstance(got, torch.Tensor), f"{path}: {type(got)} is not a tensor"
        torch.testing.assert_close(got, expected, msg=lambda m: f"{path}: {m}")
    elif isinstance(expected, (list, tuple)):
        assert type(got) is type(expected), f"{path}: {type(got)} vs {type(expected)}"
        assert len(got) == len(expected), f"{path}: length {len(got)} vs {len(expected)}"
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_same(g, e, f"{path}[{i}]")
    elif isinstance(expected, dict):
        assert type(got) is type(expected) and list(got) == list(expected), f"{path}: keys differ"
        for k in expected:
            assert_same(got[k], expected[k], f"{path}[{k!r}]")
    elif hasattr(expected, "__dict__") and not isinstance(expected, type) and type(expected).__eq__ is object.__eq__:
        assert type(got) is type(expected), f"{path}: {type(got)} vs {type(expected)}"
        assert_same(vars(got), vars(expected), f"{path}.__dict__")
    else:
        assert type(got) is type(expected) and got == expected, f"{path}: {got!r} vs {expected!r}"


def _run(fn, args, kwargs):
    try:
        return fn(*args, **kwargs), None
    except Exception as exc:  # compared with eager's
        return None, exc


def check(fn, make_args, calls: int = 3, kwargs=None, harness: Harness | None = None, seed: int = 0):
    """Run ``fn`` compiled and eager on ``calls`` fresh inputs from ``make_args()``; compare all."""
    h = harness or Harness()
    compiled = h.compile(fn)
    for i in range(calls):
        torch.manual_seed(seed + i)
        args = make_args()
        eager_args, comp_args = _clone(args), _clone(args)
        kw = kwargs or {}
        expected, eexc = _run(fn, eager_args, dict(kw))
        got, gexc = _run(compiled, comp_args, dict(kw))
        if eexc is not None or gexc is not None:
            assert type(gexc) is type(eexc), f"call {i}: raised {gexc!r}, eager raised {eexc!r}"
            assert str(gexc) == str(eexc)
        else:
            assert_same(got, expected)
        assert_same(comp_args, eager_args, "arguments after the call")
    return h
