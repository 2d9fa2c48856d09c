"""The guards that stay Python are declared once, by name, with why they cannot be native
(guards/named_checks.py): the guard builder's ``python`` accepts only a declared name, every
call site in capture/ names one as a literal, every declared name is used, and no other module
makes a PYTHON guard (``model.python_guard``) past the builder."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import autograph
from autograph.capture.core.guard_builder import GuardRecorder
from autograph.guards.kinds import GuardKind
from autograph.guards.named_checks import NAMED_CHECKS, UndeclaredCheck
from autograph.guards.sources import LocalSource

PACKAGE = Path(autograph.__file__).parent
CAPTURE = PACKAGE / "capture"


def python_guard_calls(path: Path) -> list[tuple[str, ast.Call]]:
    """Every ``<x>.python(...)`` call in ``path`` (capture calls no other method of that name)."""
    return [(f"{path.relative_to(PACKAGE.parent)}:{n.lineno}", n) for n in ast.walk(ast.parse(path.read_text()))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "python"]


def named_call_sites() -> dict[str, list[str]]:
    """Declared name -> call sites; an undeclared or non-literal name fails the scan."""
    used: dict[str, list[str]] = {}
    bad = []
    for path in sorted(CAPTURE.rglob("*.py")):
        for where, call in python_guard_calls(path):
            first = call.args[0] if call.args else None
            if not (isinstance(first, ast.Constant) and first.value in NAMED_CHECKS):
                bad.append(where)
                continue
            used.setdefault(first.value, []).append(where)
    assert bad == [], "guards.python(...) needs a name declared in guards/named_checks.py: " + ", ".join(bad)
    return used


def test_every_python_guard_names_a_declared_check():
    used = named_call_sites()
    assert set(used) == set(NAMED_CHECKS), f"declared but never used: {sorted(set(NAMED_CHECKS) - set(used))}"


def test_each_declaration_says_what_and_why():
    for check in NAMED_CHECKS.values():
        assert check.words and check.why_python, check.name


def test_the_scan_sees_an_undeclared_name():
    probe = CAPTURE / "_named_check_probe.py"
    try:
        probe.write_text("def f(tx):\n    tx.guards.python(('adhoc', 1), 'x', lambda: True)\n")
        ((where, call),) = python_guard_calls(probe)
        assert where == "autograph/capture/_named_check_probe.py:2"
        with pytest.raises(AssertionError, match="_named_check_probe.py:2"):
            named_call_sites()
    finally:
        probe.unlink()


def test_the_builder_refuses_an_undeclared_name():
    g = GuardRecorder()
    with pytest.raises(UndeclaredCheck, match="'adhoc' is not a declared Python check"):
        g.python("adhoc", 1, "x", lambda: True)
    assert g.guards == []


def test_a_declared_check_is_a_python_guard_with_the_declared_words():
    g = GuardRecorder()
    g.python("logging-harmless", 1, "check()", lambda: True)
    g.python("logging-harmless", 1, "check()", lambda: True)  # once per (name, key)
    g.python("deepcopy-state", 2, "same(d)", lambda d: True, [LocalSource("d")], words="d: same state")
    assert [x.kind for x in g.guards] == [GuardKind.PYTHON, GuardKind.PYTHON]
    assert g.guards[0].describe() == NAMED_CHECKS["logging-harmless"].words
    assert g.guards[1].describe() == "d: same state"


def test_python_guards_are_made_only_by_the_builder():
    """``model.python_guard`` (a PYTHON guard, a Python call on the hit path) is called only in
    guards/ and by the guard builder."""
    allowed = {PACKAGE / "capture" / "core" / "guard_builder.py"}
    uses = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path in allowed or path.parent == PACKAGE / "guards":
            continue
        uses += [f"{path.relative_to(PACKAGE.parent)}:{n.lineno}" for n in ast.walk(ast.parse(path.read_text()))
                 if isinstance(n, ast.Attribute) and n.attr == "python_guard"]
    assert uses == []
