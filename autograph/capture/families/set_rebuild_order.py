"""How rebuilt code makes a set that iterates exactly as one made during capture.

A set's iteration order is its hash table's slot order, which the elements' hashes, the table
size and the history of additions and removals decide (a string's hash is fixed for the process,
so the same constants give the same table on every call). A set live at a graph break is rebuilt
by the resume code from its constant elements. Inserting them in their iteration order does not
always give that order back: an element pushed out of its home slot by an element since removed
(``{"one", "two"} ^ {"one", "three"}``: "two" collided with "one") sits in a later slot than a
fresh insertion puts it. So the recipes tried, each run for real at capture and kept only when
``list(built) == list(real)``:

1. the elements inserted in another order (a collision between them decides who is displaced);
2. for a ``set`` (or a set subclass's table) of builtin constants, small ints (hash ``j``, home slot ``j``) inserted
   first to occupy home slots, then the elements, then the ints removed again: the elements land
   where a removed element made them land. This recipe must also give a table of the real set's
   size (``sys.getsizeof``), so that later additions probe a table of the same size.

The search is bounded; when nothing reproduces the order, the caller breaks as before.
"""
from __future__ import annotations

import sys
from itertools import islice, permutations
from typing import Any, Callable, Iterable

_MAX_ELEMENTS = 32  # larger sets are not searched (each try builds a set: capture time)
_MAX_ORDERS = 720  # insertion orders tried (all of them up to 6 elements)
_MAX_FILLED = 2000  # filler recipes tried
_FILLER_SLOTS = 64  # candidate filler ints 0..63 (home slots of tables up to 64 entries)
# element types whose hashing and comparison with an int filler run no user code
_PLAIN_TYPES = (str, bytes, int, float, complex, bool, type(None))


class FilledSet:
    """Rebuilds a plain ``set``: ``fillers`` and ``elements`` inserted in that order, then the
    fillers removed (a callable constant of the transformed code; one new set per call)."""

    def __init__(self, fillers: tuple, elements: tuple) -> None:
        self.fillers = fillers
        self.elements = elements

    def __call__(self) -> set:
        return self.fill(set())

    def fill(self, table: set) -> set:
        """Fill the empty ``table`` (a set, or a set subclass's instance: set's own C methods)."""
        for item in self.fillers + self.elements:
            set.add(table, item)
        set.difference_update(table, self.fillers)
        return table

    def __repr__(self) -> str:
        return f"FilledSet(fillers={self.fillers!r}, elements={self.elements!r})"


def insertion_order(real: Any, build: Callable[[tuple], Any]) -> tuple | None:
    """Elements of ``real`` in an order from which ``build`` (one-by-one insertion into a new
    table) iterates exactly as ``real``; None when no tried order does."""
    target = list(real)
    if len(target) > _MAX_ELEMENTS:
        return None
    for order in islice(permutations(target), _MAX_ORDERS):
        if list(build(order)) == target:
            return order
    return None


def filled_recipe(real: set) -> FilledSet | None:
    """A :class:`FilledSet` that iterates as ``real`` with a table of its size; None when the
    elements are not all builtin constants or no tried recipe does."""
    if type(real) is not set or len(real) > _MAX_ELEMENTS or not all(type(k) in _PLAIN_TYPES for k in real):
        return None
    target, size = list(real), sys.getsizeof(real)
    free = [j for j in range(_FILLER_SLOTS) if j not in real]
    tries = 0
    for count in (1, 2):
        for fillers in _filler_choices(free, count):
            for order in islice(permutations(target), _MAX_ORDERS):
                recipe = FilledSet(fillers, order)
                built = recipe()
                if list(built) == target and sys.getsizeof(built) == size:
                    return recipe
                tries += 1
                if tries >= _MAX_FILLED:
                    return None
    return None


def _filler_choices(free: list[int], count: int) -> Iterable[tuple[int, ...]]:
    if count == 1:
        return ((j,) for j in free)
    return ((a, b) for i, a in enumerate(free) for b in free[i + 1:])
