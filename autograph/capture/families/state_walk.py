"""A fingerprint of capture state: whether some interpretation changed any value it could reach.

Used where capture must know that running user code symbolically left the world as it was: a
``torch.cond`` branch (families/cond_branches.py), a Python ``__hash__`` (families/interpreted_keys.py).
Values are compared by identity and length, walked through their fields and containers in a fixed
order; real objects are leaves (their changes are side effects, recorded apart).
"""
from __future__ import annotations

import types

import torch
import torch.fx

from autograph.capture.core.breaks import Unsupported

_MAX_WALKED = 200_000  # values walked before the capture gives up and breaks
_IMMUTABLE_LEAVES = (str, bytes, int, float, complex, bool, type(None), type, types.CodeType,
                     types.FunctionType, types.BuiltinFunctionType, torch.Tensor, torch.fx.Node)


class TooMuchState(Unsupported):
    """More than ``limit`` values are reachable: too many to compare."""


def walk_state(tx, roots: list, limit: int = _MAX_WALKED) -> list:
    """The identity and length of every capture value reachable from ``roots``, in a fixed order
    (equal before and after some interpretation exactly when it changed none of them)."""
    skip = (type(tx), type(tx.graph), type(tx.guards))
    out: list = []
    seen: set[int] = set()
    stack = list(reversed(roots))
    while stack:
        obj = stack.pop()
        key = id(obj)
        if isinstance(obj, _IMMUTABLE_LEAVES) or isinstance(obj, skip):
            out.append(key)
            continue
        if key in seen:
            out.append(("again", key))
            continue
        seen.add(key)
        if len(seen) > limit:
            raise TooMuchState("the values to check for changes are too many", kind="unsupported-operation")
        if isinstance(obj, dict):
            out.append((key, "dict", len(obj)))
            children = [c for kv in obj.items() for c in kv]
        elif isinstance(obj, (list, tuple)):
            out.append((key, type(obj).__name__, len(obj)))
            children = list(obj)
        elif isinstance(obj, (set, frozenset)):
            out.append((key, "set", len(obj)))
            children = sorted(obj, key=id)
        elif isinstance(obj, types.CellType):
            out.append((key, "cell"))
            try:
                children = [obj.cell_contents]
            except ValueError:
                children = []
        elif (type(obj).__module__ or "").startswith("autograph.") and hasattr(obj, "__dict__"):
            state = vars(obj)
            out.append((key, type(obj).__qualname__, tuple(state)))
            children = list(state.values())
        else:
            out.append(key)  # a real object: its changes are the side effects' business
            continue
        stack.extend(reversed(children))
    return out
