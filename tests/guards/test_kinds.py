"""Each guard kind is defined once (autograph/guards/kinds.py): its text, Python check, plan node
and twin; the model, the generated check and the native plan read it there."""
import re
from pathlib import Path

import pytest

from autograph.guards import extension, kinds, native
from autograph.guards.check import GuardSet
from autograph.guards.kinds import KINDS, TWINS, GuardKind, Op
from autograph.guards.model import length_match
from autograph.guards.sources import LocalSource

GUARDS = Path(kinds.__file__).parent


def test_every_kind_and_opcode_has_one_definition():
    assert set(KINDS) == set(GuardKind)
    assert set(TWINS) == {int(op) for op in Op} == {int(spec.op) for spec in KINDS.values()}
    assert {f"G_{op.name}" for op in Op} <= set(extension.SHARED_CONSTANTS)  # asserted against C at load


@pytest.mark.parametrize("consumer", ["check.py", "native.py", "model.py"])
def test_consumers_do_not_branch_on_kinds(consumer):
    """No `if kind is X` outside kinds.py: the model only names kinds in its constructors."""
    text = (GUARDS / consumer).read_text()
    names = "|".join(k.name for k in GuardKind)
    assert not re.search(rf"\b(is|==|!=|in)\s*\(?\s*(GuardKind\.)?({names})\b", text)
    assert "Op." not in text and not re.search(r"\bG_[A-Z]", text)


def lengths(a):
    return a


class AtLeast(kinds.LengthMatch):
    """LENGTH_MATCH changed in its one place: ``len(x) >= n``, with its own text."""

    def src(self, expr, length):
        return f"len({expr}) >= {length}"

    def words(self, where, guard):
        return f"{where}: has at least {guard.expected} items"

    def python(self, gen, guard):
        return f"len({gen.expr(guard.source)}) >= {guard.expected}"

    def plan(self, guard, node):
        return (int(Op.CALL), (node(guard.source),), lambda v, n=guard.expected: len(v) >= n)


def test_a_kind_changed_in_its_entry_changes_text_check_and_plan(monkeypatch):
    monkeypatch.setitem(KINDS, GuardKind.LENGTH_MATCH, AtLeast())
    guard = length_match(LocalSource("a"), 2)
    assert guard.src == "len(a) >= 2" and guard.describe() == "a: has at least 2 items"
    gs = GuardSet(lengths, [guard])
    assert "len(a) >= 2" in gs.source_text
    plan = native.plan_for(gs)
    assert plan[5][0][0] == Op.CALL
    native_module = extension.load()
    for value, want in (([1, 2, 3], -1), ([1, 2], -1), ([1], 0)):
        got = {gs.index_fn(value), native.check_python(plan, (value,), None)}
        if native_module is not None:
            got.add(native_module.check(plan, (value,), None))
        assert got == {want}, value
