"""Attribute stores on real objects that existed before capture, replayed after the graph.

``obj.attr = v`` on an object from outside (a global flag holder, a context-var
wrapper) is recorded instead of breaking; later reads in the same capture see
the stored value, and the transformed code performs the final stores (in first
store order) right after the compiled graph ran, before the breaking
instruction or the return — the state eager would leave at that point.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from autograph.capture.values.base import Value

if TYPE_CHECKING:  # pragma: no cover
    from autograph.capture.codegen import Codegen


def _table(tx) -> dict:
    table = getattr(tx, "attr_stores", None)
    if table is None:
        table = tx.attr_stores = {}
    return table


def record_store(tx, obj_value: Value, real: Any, name: str, value: Value) -> None:
    """Remember ``real.name = value`` (``obj_value`` rebuilds ``real`` in the transformed code)."""
    table = _table(tx)
    key = (id(real), name)
    table.pop(key, None)  # keep the order of the last store per attribute
    table[key] = (obj_value, real, name, value)


def pending(tx, real: Any, name: str) -> Value | None:
    """The value stored into ``real.name`` earlier in this capture, if any."""
    entry = _table(tx).get((id(real), name))
    return entry[3] if entry is not None else None


def replay_lines(cg: "Codegen", tx) -> list[str]:
    """Statements of the transformed code that perform the recorded stores."""
    lines = []
    for obj_value, _real, name, value in _table(tx).values():
        lines.append(f"setattr({cg.reconstruct(obj_value)}, {name!r}, {cg.reconstruct(value)})")
    return lines
