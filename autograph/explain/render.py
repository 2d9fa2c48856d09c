"""Shared text helpers: turn autograph's artifacts into code and words a user can read.

Everything here reads the public data of other rooms (``CaptureResult``,
``GuardSet``, ``Guard``, FX ``GraphModule``, backend callables) and never
changes it.  Every accessor is defensive: a missing attribute gives a short
"n/a" text rather than an exception, because explaining must never break a run.
"""
from __future__ import annotations

import dis
import inspect as _pyinspect
import linecache
import os
import types
from typing import Any, Iterable

MARKER = "<== resumes here"


def short_file(filename: str) -> str:
    """``/long/path/model.py`` -> ``model.py`` (the name users recognise)."""
    return os.path.basename(filename) if filename and not filename.startswith("<") else filename


def where(code: types.CodeType, lineno: int | None = None) -> str:
    """``model.py:3`` for a code object (first line unless ``lineno`` is given)."""
    return f"{short_file(code.co_filename)}:{lineno if lineno is not None else code.co_firstlineno}"


def indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line if line.strip() else line.rstrip() for line in text.rstrip("\n").split("\n"))


# ---------------------------------------------------------------- source code

def source_lines(code: types.CodeType) -> tuple[list[str], int] | None:
    """The original source of ``code`` and its first line number, or None when unavailable."""
    try:
        lines, start = _pyinspect.getsourcelines(code)
    except (OSError, TypeError):
        linecache.checkcache(code.co_filename)
        line = linecache.getline(code.co_filename, code.co_firstlineno)
        if not line:
            return None
        return [line], code.co_firstlineno
    return [line.rstrip("\n") for line in lines], max(start, 1)


def source_with_marker(code: types.CodeType, lineno: int | None, marker: str = MARKER) -> str:
    """The original function's source with ``marker`` on line ``lineno`` (dedented)."""
    found = source_lines(code)
    if found is None:
        return f"(source of {code.co_qualname} is not available; it resumes at line {lineno})"
    lines, start = found
    import textwrap

    lines = textwrap.dedent("\n".join(lines)).split("\n")
    width = max((len(line.rstrip()) for line in lines), default=0) + 4
    out = []
    for i, line in enumerate(lines):
        line = line.rstrip()
        if lineno is not None and start + i == lineno:
            line = line.ljust(width) + marker
        out.append(line)
    return "\n".join(out)


# ---------------------------------------------------------------- transformed code

def decompile(code: types.CodeType) -> tuple[str, str]:
    """``(text, how)``: Python source from ``depyf``, or ``dis`` text when depyf cannot."""
    try:
        import depyf

        return depyf.decompile(code).rstrip() + "\n", "decompiled"
    except Exception as exc:  # noqa: BLE001 - any decompiler failure falls back to dis
        reason = f"{type(exc).__name__}: {exc}".strip()
        return dis.Bytecode(code).dis(), f"bytecode; depyf could not decompile it ({reason[:120]})"


def transformed_text(result: Any) -> tuple[str, str]:
    """``(text, how)``: the transformed code of a capture as ``inspect``, dumps and the
    ``bytecode`` log all show it -- the Python source capture generated and compiled (exact;
    resume functions and subgraphs under their real names), decompiled only when a result
    carries no source."""
    code = getattr(result, "transformed_code", None)
    if code is None:
        return "", "none"
    source = getattr(result, "transformed_source", "") or ""
    if source.strip():
        return source.rstrip() + "\n", "generated Python"
    return decompile(code)


# ---------------------------------------------------------------- graphs and kernels

def graph_code(gm: Any) -> str:
    """The FX graph's Python code (with capture's ``# File: ...`` source-line comments)."""
    try:
        code = gm.code
    except Exception as exc:  # noqa: BLE001
        return f"(graph code not available: {exc})"
    return code.strip("\n") + "\n"


def kernels_of(compiled: Any) -> list[tuple[str, str]]:
    """``(name, source)`` of each kernel a backend exposes on its compiled callable (Triton)."""
    out: list[tuple[str, str]] = []
    seen = compiled
    for _ in range(4):  # backends may wrap the callable; follow __wrapped__ a little
        kernels = getattr(seen, "kernels", None)
        if kernels is not None:
            try:
                for k in list(kernels):
                    out.append((str(getattr(k, "name", "kernel")), str(getattr(k, "source", k))))
            except Exception:  # noqa: BLE001
                pass
            return out
        seen = getattr(seen, "__wrapped__", None)
        if seen is None:
            break
    return out


def wrapper_source(compiled: Any) -> str:
    """The backend's wrapper code, following ``__wrapped__`` as :func:`kernels_of` does."""
    for _ in range(4):
        if compiled is None or getattr(compiled, "wrapper_source", None):
            break
        compiled = getattr(compiled, "__wrapped__", None)
    return str(getattr(compiled, "wrapper_source", "") or "")


# ---------------------------------------------------------------- guards

_STATE_WORDS = {
    ("grad_enabled", True): "grad mode on",
    ("grad_enabled", False): "grad mode off",
    ("deterministic", False): "deterministic algorithms off",
    ("deterministic", True): "deterministic algorithms on",
    ("inference_mode", False): "inference mode off",
    ("inference_mode", True): "inference mode on",
    ("torch_function_modes", 0): "no torch function mode",
    ("torch_dispatch_modes", 0): "no torch dispatch mode",
    ("functorch_level", None): "outside functorch transforms",
    ("autocast_any", False): "autocast off",
    ("autocast_any", True): "autocast on",
}


def _state_words(guard: Any) -> str:
    kind = getattr(getattr(guard, "source", None), "kind", None)
    value = getattr(guard, "expected", None)
    try:
        words = _STATE_WORDS.get((kind, value))
    except TypeError:
        words = None
    if words:
        return words
    if kind == "default_dtype":
        return f"default dtype {str(value).replace('torch.', '')}"
    if kind == "dispatch_tls":
        return "dispatch key state as when compiled"
    return str(getattr(guard, "src", guard))


def guard_words(guards: Iterable[Any]) -> list[str]:
    """Plain words, one line per guard; global-state guards folded into two lines, the guards
    of each module tree into one (``explain/module_words.py``)."""
    from autograph.explain.module_words import fold

    lines: list[str] = []
    state: list[str] = []
    grad = None
    for _, g in fold(guards):
        if isinstance(g, str):
            lines.append(g)
            continue
        if str(getattr(g, "kind", "")) == "GLOBAL_STATE":
            words = _state_words(g)
            if getattr(getattr(g, "source", None), "kind", None) == "grad_enabled":
                grad = words
            else:
                state.append(words)
            continue
        try:
            lines.append(g.describe())
        except Exception:  # noqa: BLE001
            lines.append(str(getattr(g, "src", g)))
    if grad:
        lines.append(grad)
    if state:
        lines.append("global state as when compiled: " + ", ".join(state))
    return lines


def guard_source(guardset: Any) -> str:
    return str(getattr(guardset, "source_text", "") or "").rstrip() + "\n"
