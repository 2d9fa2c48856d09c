"""docs/graph-breaks.md lists exactly the registered graph-break kinds, each with its words."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from autograph.explain.break_kinds import all_kinds, markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "graph-breaks.md"


def test_docs_list_exactly_the_registered_kinds():
    listed = re.findall(r"^## `([^`]+)`$", DOC.read_text(), flags=re.M)
    assert sorted(listed) == sorted(all_kinds())


def test_docs_page_is_the_generated_one():
    assert DOC.read_text() == markdown(), "run scripts/break_kinds_doc.py to regenerate docs/graph-breaks.md"


def test_every_kind_has_an_explanation_and_a_hint():
    for kind in all_kinds().values():
        assert kind.explanation.strip() and kind.hint.strip(), kind.name


def test_all_kinds_does_not_depend_on_what_was_imported_before():
    # a fresh interpreter: kinds registered by modules capture imports lazily (core/run_time.py)
    # must be listed before anything used them
    code = ("from autograph.explain.break_kinds import all_kinds; first = set(all_kinds()); "
            "import autograph.capture.core.run_time; "
            "from autograph.capture.core.breaks import BREAK_KINDS; assert set(BREAK_KINDS) == first, set(BREAK_KINDS) - first")
    subprocess.run([sys.executable, "-c", code], check=True, env=os.environ.copy())
