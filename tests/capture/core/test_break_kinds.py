"""Every graph break raised in capture names a registered kind (capture/core/breaks.py), so the
report can count breaks by kind; checked over the source, so paths no test reaches count too."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from autograph.capture.core.breaks import Unsupported
from autograph.explain.break_kinds import all_kinds

CAPTURE = Path(__file__).resolve().parents[3] / "autograph" / "capture"


def _raise_sites():
    for path in sorted(CAPTURE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Unsupported":
                yield f"{path.relative_to(CAPTURE)}:{node.lineno}", node


def test_every_raise_site_passes_a_kind():
    missing = [where for where, call in _raise_sites() if not any(k.arg == "kind" for k in call.keywords)]
    assert not missing, f"Unsupported(...) without kind=: {missing}"


def test_every_literal_kind_is_registered():
    kinds = set(all_kinds())
    literals = [(where, name) for where, call in _raise_sites() for k in call.keywords if k.arg == "kind"
                for name in _results(k.value)]
    unknown = [(where, name) for where, name in literals if name not in kinds]
    assert literals and not unknown, unknown


def _results(expr: ast.expr) -> list[str]:
    """The string constants ``expr`` can evaluate to (through conditional expressions)."""
    if isinstance(expr, ast.IfExp):
        return _results(expr.body) + _results(expr.orelse)
    return [expr.value] if isinstance(expr, ast.Constant) and isinstance(expr.value, str) else []


def test_an_unregistered_kind_is_refused():
    with pytest.raises(KeyError, match="register it with break_kind"):
        Unsupported("x", kind="no-such-kind")
