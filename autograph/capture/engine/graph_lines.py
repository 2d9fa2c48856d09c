"""Point a graph's Python code at the user's source lines, so errors raised while it runs do too.

An error raised while a compiled graph *runs* (an index out of range, a shape a
fake tensor could not foresee) would otherwise show a frame ``<eval_with_key>.0``
line 5 and nothing in the user's file.  For a backend that runs the FX graph's own
Python code (the eager backend returns ``gm.forward``), the same code is compiled
again with the user's file name and each statement at the line of the user code
that produced its node.  The traceback then reads::

    File ".../model.py", line 12, in forward
      return y[idx] * 2

The executed operations are unchanged (same source, same globals): only the
code object's file name and line table differ.  Statements that came from
another file (an inlined callee elsewhere) point at the function's ``def`` line.
"""
from __future__ import annotations

import ast
import linecache
import re
import types
from typing import Any, Callable

from autograph.capture.engine.frame_marks import mark_folded

_FILE_LINE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')


def _node_line(node: Any, filename: str) -> int | None:
    """The line of ``filename`` the node came from (innermost matching frame of its stack trace)."""
    found = None
    for m in _FILE_LINE.finditer(getattr(node, "stack_trace", None) or ""):
        if m.group("file") == filename:
            found = int(m.group("line"))
    return found


def with_user_lines(gm: Any, compiled: Callable, filename: str, default_line: int,
                    user_globals: dict | None = None) -> Callable:
    """``compiled`` with user file:line frames when it is ``gm``'s own forward; otherwise unchanged.

    With ``user_globals`` (the user's module's), a warning an operation of the graph issues is
    also the user module's: the warnings machinery reads the module name (for ``module=``
    filters) and the ``__warningregistry__`` (``"default"``: once per location) from the
    frame's globals, so the graph's globals get the user's name and registry.

    A graph whose version is swapped while it runs (``backends/background.py``) gets the
    user-line copy as its eager version."""
    replace_eager = getattr(compiled, "replace_eager", None)
    if replace_eager is not None:
        replace_eager(with_user_lines(gm, compiled.eager, filename, default_line, user_globals))
        return compiled
    func = getattr(compiled, "__func__", None)
    if getattr(compiled, "__self__", None) is not gm or func is None or func is not type(gm).forward:
        return compiled  # the backend made something else (kernels, a wrapper): leave it alone
    try:
        python_code = gm.graph.python_code(root_module="self")
        nodes = list(gm.graph.nodes)
        src_line_to_user: dict[int, int] = {}
        for key, index in python_code._lineno_map.items():
            line = _node_line(nodes[index], filename) if index < len(nodes) else None
            src_line_to_user[key + python_code._prologue_start] = line or default_line
        tree = ast.parse(python_code.src)
        for fn_def in tree.body:
            for stmt in getattr(fn_def, "body", ()):
                line = src_line_to_user.get(stmt.lineno, default_line)
                width = len(linecache.getline(filename, line).rstrip())
                for sub in ast.walk(stmt):  # the whole user line: no carets under graph code columns
                    if hasattr(sub, "lineno"):
                        sub.lineno = sub.end_lineno = line
                        sub.col_offset, sub.end_col_offset = 0, width
            if hasattr(fn_def, "lineno"):
                fn_def.lineno = fn_def.end_lineno = default_line
        namespace = dict(python_code.globals)
        if user_globals is not None and isinstance(user_globals.get("__name__"), str):
            namespace["__name__"] = user_globals["__name__"]
            namespace["__warningregistry__"] = user_globals.setdefault("__warningregistry__", {})
        exec(compile(tree, filename, "exec"), namespace)
        forward = namespace["forward"]
    except Exception:  # noqa: BLE001 - line mapping is a readability aid; never break a capture for it
        return compiled
    mark_folded(forward.__code__)  # a traceback shows its line in the entry's frame (runtime/frames.py)
    return types.MethodType(forward, gm)
