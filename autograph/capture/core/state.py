"""Everything one capture accumulates besides its graph and guards, declared in one place.

A ``Translator`` owns one ``CaptureState`` (``tx.state``); nothing a capture learns is stored
as an undeclared attribute on the translator, on torch's ``ShapeEnv`` or on a value.

* Engine state is a field of ``CaptureState`` (``shape_records``); the world effects replayed
  after the graph are the ``side_effects`` slot of ``families/side_effects.py``.
* A value family's state is a typed slot it declares once with ``registry.state_slot(name,
  factory, owner)`` (the slot says who owns it and what it holds) and reads with
  ``SLOT.of(tx)``; the state makes the slot's empty value on first use.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # pragma: no cover
    from autograph.capture.core.registry import StateSlot

T = TypeVar("T")


@dataclass
class ShapeRecords:
    """What a symbolic capture knows about its symbols (``shapes.py``); empty for a static one."""

    # sympy Symbol -> (source, placeholder node or None, dimension: d for a size, ("stride", d) for a
    # stride, None for a Python scalar)
    symbols: dict = field(default_factory=dict)
    # (source, real value, fake tensor or SymInt/SymFloat, placeholder node or None) per symbolic input
    inputs: list = field(default_factory=list)
    # sympy expression -> the FX node computing it (``shapes.symint_node``)
    nodes: dict = field(default_factory=dict)
    # sources of the nn.Modules the capture read: ``dynamic=True`` keeps ints read through them static
    module_sources: set = field(default_factory=set)
    # per Python number the graph computes from its inputs (``families/scalars.py``): a callable
    # guarding its exact value, called when a ShapeEnv guard decided something on a float
    exact_numbers: list = field(default_factory=list)

    def forget(self) -> None:
        """Drop the records (reals, fakes, nodes): fakes hold their SymNodes from C++, a cycle
        the garbage collector cannot see; nothing needs them after the guards."""
        self.symbols, self.inputs, self.nodes, self.module_sources = {}, [], {}, set()
        self.exact_numbers = []


@dataclass
class CaptureState:
    """The per-capture world model (see the module docstring)."""

    shape_records: ShapeRecords = field(default_factory=ShapeRecords)
    # the family slots in use: StateSlot -> its value
    slots: dict = field(default_factory=dict)

    def slot(self, slot: StateSlot[T]) -> T:
        """The value of ``slot`` in this capture, made empty on first use."""
        try:
            return self.slots[slot]
        except KeyError:
            value = self.slots[slot] = slot.factory()
            return value

    def peek(self, slot: StateSlot[T]) -> T | None:
        """The value of ``slot`` if this capture used it, else None (nothing is made)."""
        return self.slots.get(slot)

