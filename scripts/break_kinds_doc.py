#!/usr/bin/env python
"""Writes docs/graph-breaks.md: every graph-break kind with its explanation and hint
(tests/explain/test_break_kinds.py fails when the page and the registered kinds differ)."""
from __future__ import annotations

from pathlib import Path

from autograph.explain.break_kinds import markdown

if __name__ == "__main__":
    path = Path(__file__).resolve().parents[1] / "docs" / "graph-breaks.md"
    path.write_text(markdown())
    print(f"wrote {path}")
