"""The checks that stay Python: each declared once, by name, with why no guard kind expresses it.

Every other guard is a kind of ``kinds.py`` with a native plan node. A check here runs as one
call of a Python function on the hit path (a PYTHON guard, a ``CALL`` node of the plan), so it
is declared with its words for ``explain`` and the reason it cannot be native; the guard
builder's ``python(name, ...)`` accepts only a name declared here (``UndeclaredCheck``
otherwise), and ``tests/guards/test_named_checks.py`` holds every call site to that.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NamedCheck:
    name: str
    words: str  # what the check keeps true, in plain words (``explain`` shows the guard's own words first)
    why_python: str  # why no guard kind with a native plan expresses it


class UndeclaredCheck(KeyError):
    """A PYTHON guard recorded under a name this module does not declare."""


NAMED_CHECKS: dict[str, NamedCheck] = {}


def declare(name: str, words: str, why_python: str) -> NamedCheck:
    """Declare one named Python check (once)."""
    assert name not in NAMED_CHECKS, name
    NAMED_CHECKS[name] = check = NamedCheck(name, words, why_python)
    return check


def named_check(name: str) -> NamedCheck:
    """The declaration of ``name``; ``UndeclaredCheck`` for a name not declared here."""
    try:
        return NAMED_CHECKS[name]
    except KeyError:
        raise UndeclaredCheck(f"{name!r} is not a declared Python check (autograph/guards/named_checks.py): "
                              "use a guard kind, or declare the check with why it cannot be native") from None


# families/builder.py
declare("exact-value", "a tuple or frozenset folded as a constant holds items of the same types, equal",
        "items compared with their exact types and float signs, nested to any depth, a frozenset's in any order")
# families/private.py
declare("deepcopy-state", "the object copy.deepcopy copied has the same state as when compiled",
        "a deep structural walk of an object graph of any shape, each node compared by its type's rules")
# families/scalars.py
declare("scalar-recipe", "a recipe of Python arithmetic over the call's scalars still decides as it did",
        "the recipe calls arbitrary Python operators and math functions over several leaves")
# capture/core/guard_builder.py (iterates_as: an outside set read by families/sets.py)
declare("set-contents", "an outside set holds the same elements, of the same types, in the same iteration order",
        "more items than a plan should hold one guard each for, or frozensets and tuples of other "
        "than constants, compared with their items' exact types and float signs")
# families/deferred_calls.py
declare("scheduler-writes-no-tensor", "the LR scheduler writes no tensor (no tensor in its param groups)",
        "walks every param group of the optimizer, whose number and keys the call may change")
# families/side_effects.py
declare("logging-harmless", "a logger still drops the level, or only writes text to files",
        "the answer walks the logger hierarchy: levels, `disabled`, propagation and each handler's type")

