"""Opcode inventory: every opcode of the running Python (``dis.opmap``, 3.11-3.13) is handled by
the capture interpreter, rewritten away by ``bytecode.instructions.normalize``, or a known graph
break listed below with its reason. A new Python version's opcodes fail here until placed.

Torch-free (runs under every Python ``scripts/test`` finds): the handler table is read from the
``handler(...)`` registrations in ``autograph/capture`` without importing it;
``tests/capture/engine/test_handler_table.py`` checks that reading against the real ``HANDLERS``.
"""
from __future__ import annotations

import ast
import dis
import importlib
import opcode
import sys
import types
from pathlib import Path

from autograph.bytecode.instructions import REWRITTEN, normalize

CAPTURE = Path(__file__).resolve().parents[2] / "autograph" / "capture"
VERSION = sys.version_info[:2]
# instrumented (sys.monitoring) and pseudo (compiler-only) opcodes: dis never shows them in a
# code object (it reports the base opcode), so capture never meets them
FIRST_HIDDEN = getattr(opcode, "MIN_INSTRUMENTED_OPCODE", 256)

# Opcodes the interpreter has no handler for: capture breaks the graph there (the function runs
# that part in Python), with the reason users see in the break record.
KNOWN_BREAKS: dict[str, str] = {
    # module and class bodies: autograph compiles functions, never runs these
    "STORE_NAME": "module/class-body store",
    "DELETE_NAME": "module/class-body delete",
    "LOAD_CLASSDEREF": "class-body read of a closure variable",
    "LOAD_FROM_DICT_OR_DEREF": "class-body read of a closure variable",
    "LOAD_FROM_DICT_OR_GLOBALS": "class-body global read (PEP 695 scopes)",
    "LOAD_LOCALS": "class-body locals() (PEP 695 scopes)",
    "SETUP_ANNOTATIONS": "module/class-body annotations",
    "LOAD_BUILD_CLASS": "a class statement inside a compiled function",
    "IMPORT_STAR": "`from m import *` (only legal at module level)",
    "PRINT_EXPR": "interactive-mode expression statement",
    "DELETE_DEREF": "`del` of a closure variable",
    # exceptional paths: capture breaks before a handler that would run user code
    "CALL_INTRINSIC_2": "`except*` re-raise and PEP 695 generic definitions (3.12+)",
    # asynchronous code: coroutines and async generators run eagerly
    "ASYNC_GEN_WRAP": "async generator",
    "BEFORE_ASYNC_WITH": "`async with`",
    "END_ASYNC_FOR": "`async for`",
    "GET_AITER": "`async for`",
    "GET_ANEXT": "`async for`",
    "GET_AWAITABLE": "`await`",
    "CLEANUP_THROW": "generator.throw() / close() inside `yield from` / `await`",
    # structural pattern matching
    "MATCH_CLASS": "`match` class pattern",
    "MATCH_KEYS": "`match` mapping pattern",
    "MATCH_MAPPING": "`match` mapping pattern",
    "MATCH_SEQUENCE": "`match` sequence pattern",
    "GET_LEN": "`match` length check",
    # exception groups
    "CHECK_EG_MATCH": "`except*`",
    "PREP_RERAISE_STAR": "`except*`",
    # interpreter-internal
    "INTERPRETER_EXIT": "interpreter-internal (never in a function's code)",
    "ENTER_EXECUTOR": "interpreter-internal (tier-2 executor entry)",
    "RESERVED": "interpreter-internal (reserved)",
    "RETURN_GENERATOR": "generator/coroutine frame start (generator functions are called, not inlined)",
    # 3.13 opcodes without a handler yet: autograph's capture runs under 3.11 (the torch wheel's
    # Python); only the torch-free bytecode layer is tested under 3.12/3.13. A function using them
    # breaks the graph there under 3.13.
    "TO_BOOL": "3.13: truth test before a conditional jump (no handler yet)",
    "FORMAT_SIMPLE": "3.13: f-string field without a format spec (no handler yet)",
    "FORMAT_WITH_SPEC": "3.13: f-string field with a format spec (no handler yet)",
    "CONVERT_VALUE": "3.13: f-string !r/!s/!a conversion (no handler yet)",
    "SET_FUNCTION_ATTRIBUTE": "3.13: defaults/closure of a nested function (no handler yet)",
    "EXIT_INIT_CHECK": "3.13: __init__ returned a value check (no handler yet)",
}


def registered_handlers(version: tuple[int, int]) -> set[str]:
    """Opnames with a ``handler(...)`` registration in ``autograph/capture`` active at ``version``."""
    names: set[str] = set()
    for path in CAPTURE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not (isinstance(node, ast.Call) and node.args and _is_handler(node.func)):
                continue
            if not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args):
                continue
            kw = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
            if kw.get("min_version", (3, 0)) <= version <= kw.get("max_version", (9, 99)):
                names.update(a.value for a in node.args)
    return names


def _is_handler(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id == "handler") or (
        isinstance(func, ast.Attribute) and func.attr == "handler")


def visible_opnames() -> set[str]:
    return {name for name, code in dis.opmap.items() if code < FIRST_HIDDEN}


def test_every_opcode_is_handled_rewritten_or_a_known_break():
    handled = registered_handlers(VERSION)
    unplaced = sorted(visible_opnames() - handled - set(REWRITTEN) - set(KNOWN_BREAKS))
    assert not unplaced, (
        f"Python {VERSION}: opcodes neither handled by capture nor rewritten by normalize nor listed "
        f"in KNOWN_BREAKS: {unplaced}")


def test_known_breaks_are_not_handled():
    handled = registered_handlers(VERSION)
    assert not sorted(handled & set(KNOWN_BREAKS) & visible_opnames())


def test_rewritten_opcodes_have_no_handler_and_never_leave_normalize():
    handled = registered_handlers(VERSION)
    assert not sorted(handled & (set(REWRITTEN) - {"JUMP"}))
    seen: set[str] = set()
    for code in _corpus():
        seen.update(i.opname for i in normalize(code))
    assert not sorted(seen & set(REWRITTEN))
    # the corpus is wide enough to have met most of them raw
    raw = {i.opname for code in _corpus() for i in dis.get_instructions(code)}
    assert len(raw & set(REWRITTEN)) >= 4, raw & set(REWRITTEN)


def _corpus() -> list[types.CodeType]:
    """Every code object of a few large stdlib modules (all statement kinds, calls with keywords,
    slices, comprehensions, try/with, generators)."""
    out: list[types.CodeType] = []
    for name in ("argparse", "dataclasses", "inspect", "typing", "json.decoder", "textwrap"):
        module = importlib.import_module(name)
        stack = [compile(Path(module.__file__).read_text(), module.__file__, "exec")]
        while stack:
            code = stack.pop()
            out.append(code)
            stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return out
