"""Dumps: one readable Python file per compiled function, plus its kernel sources.

The file spells out the whole dispatch the shim performs::

    def toy_example(a, b):
        if guard_0(a, b):
            return transformed_0(a, b)
        return autograph_miss(a, b)   # no entry matched: capture anew (or run eagerly)

with, above it, every guard function (plain words in comments and the generated
check), every transformed function (with its generated names resolved to
``__compiled_fn_N`` / ``__resume_at_...``), every subgraph as an ``nn.Module``
class with source-line comments, and every resume function's own dispatch,
guards and code, headed by the original source marked ``<== resumes here``.
Kernel sources (Triton backend) go to ``<file>.<graph>.kernels.py`` next to it.
Every file is valid Python (``compile()`` accepts it); names starting with
``___`` or ``__c`` are objects bound at compile time, listed in comments.

Where: ``dump(f, directory)``; ``dump_all(directory)`` for every function run so
far; with ``settings.dump`` set, :mod:`autograph.explain.events` rewrites a
function's file whenever it gets a new cache entry.
"""
from __future__ import annotations

import inspect as _pyinspect
import os
import re
import types
from pathlib import Path
from typing import Any, Iterable

from autograph.explain import render
from autograph.explain.find import find_shim, is_shim

_RULE = "# " + "=" * 78


def _safe(name: str) -> str:
    return re.sub(r"[^\w.]+", "_", name.replace("<locals>", "locals")).strip("_") or "function"


def file_name(fn: types.FunctionType) -> str:
    """``model.toy_example.py``: module and qualname, safe for any file system."""
    module = fn.__globals__.get("__name__", "") if hasattr(fn, "__globals__") else ""
    module = module.rpartition(".")[2] if module and module != "__main__" else \
        os.path.splitext(render.short_file(fn.__code__.co_filename))[0]
    return f"{_safe(module)}.{_safe(fn.__qualname__)}.py"


def _call_args(fn: types.FunctionType) -> str:
    """The argument list forwarding ``fn``'s parameters unchanged: ``a, b, *args, k=k, **kw``."""
    code = fn.__code__
    names = code.co_varnames
    npos, nkw = code.co_argcount, code.co_kwonlyargcount
    parts = list(names[:npos])
    idx = npos + nkw
    if code.co_flags & _pyinspect.CO_VARARGS:
        parts.append("*" + names[idx])
        idx += 1
    parts += [f"{n}={n}" for n in names[npos:npos + nkw]]
    if code.co_flags & _pyinspect.CO_VARKEYWORDS:
        parts.append("**" + names[idx])
    return ", ".join(parts)


def _params(fn: types.FunctionType) -> str:
    from autograph.guards.check import signature_source

    return signature_source(fn, {})[0]


def _rename_def(source: str, new_name: str) -> str:
    return re.sub(r"^def [A-Za-z_]\w*\(", f"def {new_name}(", source.lstrip("\n"), count=1, flags=re.M)


def _comment(text: str) -> str:
    return "\n".join(("# " + line).rstrip() for line in text.rstrip("\n").split("\n"))


def _bound_names(ns: dict, keys: Iterable[str], skip: set[str]) -> list[str]:
    lines = []
    for key in keys:
        if key in skip or key not in ns:
            continue
        value = ns[key]
        try:
            text = repr(value)
        except Exception:  # noqa: BLE001
            text = f"<{type(value).__name__}>"
        text = text.replace("\n", " ")
        lines.append(f"#   {key} = {text[:100]}")
    return lines


def _natural(name: str) -> tuple[str, int]:
    """Sort key putting ``___state3`` before ``___state10``."""
    m = re.search(r"(\d+)$", name)
    return (name[:m.start()], int(m.group(1))) if m else (name, -1)


class _Writer:
    """Builds the text of one function's dump (the function and its resume functions)."""

    def __init__(self, directory: Path | None, base: str):
        self.directory = directory
        self.base = base
        self.parts: list[str] = ["import torch", ""]
        self.kernel_files: list[Path] = []
        self.done: set[int] = set()

    def function(self, shim: Any, prefix: str, title: str) -> str:
        """Append the sections of ``shim`` (entries first, dispatch last); return the dispatch name."""
        self.done.add(id(shim))
        fn = shim.fn
        dispatch = prefix.rstrip("_") if prefix else fn.__name__
        params, args = _params(fn), _call_args(fn)
        branches = []
        for i, entry in enumerate(shim.entries):
            guard_name, body_name = f"{prefix}guard_{i}", f"{prefix}transformed_{i}"
            self.entry(entry, guard_name, body_name, f"{title}, cache entry {i}", params, args)
            result = getattr(entry, "result", None)
            target = body_name if getattr(result, "transformed_code", None) is not None else None
            branches.append((guard_name, target))
        lines = [_RULE, f"# {title}: the dispatch (what the shim does on every call)", _RULE,
                 f"def {dispatch}({params}):"]
        for guard_name, target in branches:
            lines.append(f"    if {guard_name}({args}):")
            lines.append(f"        return {target}({args})" if target else
                         f"        return {fn.__name__}_original({args})  # this entry runs the original function")
        state = getattr(shim, "state", None)
        if getattr(state, "eager", False):
            lines.append(f"    # runs eagerly on a miss: {getattr(state, 'eager_reason', '')}")
        lines.append(f"    return autograph_miss({args})  # no entry matched: capture anew (or run eagerly)")
        self.parts.append("\n".join(lines) + "\n")
        return dispatch

    def entry(self, entry: Any, guard_name: str, body_name: str, title: str, params: str, args: str) -> None:
        guards = getattr(entry, "guards", None)
        out = [_RULE, f"# {title}", _RULE, "# Guards, in plain words:"]
        out += [f"#   {line}" for line in render.guard_words(getattr(guards, "guards", ()) or ())] or ["#   (none)"]
        check = render.guard_source(guards)
        m = re.match(r"def ([A-Za-z_]\w*)\(", check)
        check_name = f"{guard_name}_first_failure"
        if m:
            check = _rename_def(check, check_name)
        ns = getattr(guards, "_ns", {}) or {}
        found = set(re.findall(r"\b___\w+", check))
        bound = _bound_names(ns, sorted(found, key=_natural),
                             {"___i", "___G", "___B", "___torch"} | {f"___s{i}" for i in range(100)})
        if bound:
            out.append("# Objects the check uses (bound when the entry was compiled):")
            out += bound
        out.append(check.rstrip())
        out.append(f"\n\ndef {guard_name}({params}):\n    \"\"\"True when every guard of this entry holds.\"\"\"\n"
                   f"    return {check_name}({args}) == -1\n")
        self.parts.append("\n".join(out) + "\n")
        result = getattr(entry, "result", None)
        if result is None or getattr(result, "transformed_code", None) is None:
            return
        resumes = list(getattr(result, "resumes", ()) or ())
        # resume functions first (the transformed code calls them by their dispatch name)
        for r in resumes:
            inner = find_shim(r.function)
            header = [f"# Resume function {r.name} continues at {render.where(r.original_code, r.lineno)}:",
                      _comment(render.source_with_marker(r.original_code, r.lineno))]
            self.parts.append("\n".join(header) + "\n")
            if inner is not None and id(inner) not in self.done:
                self.function(inner, f"{r.name}_", r.name)
            elif inner is not None:
                self.parts.append(f"# ({r.name} is written above)\n")
        for g in getattr(result, "graphs", ()) or ():
            self.graph(g)
        source, _ = render.transformed_text(result)
        fn_obj = getattr(result, "fn", None)
        text = _rename_def(source, body_name)
        fn_ns = getattr(fn_obj, "__globals__", {}) or {}
        used = [k for k in sorted(set(re.findall(r"\b__c\d+\b", text)))]
        notes = []
        for k in used:
            value = fn_ns.get(k)
            if is_shim(value):
                notes.append(f"#   {k} = {value.fn.__qualname__}, through its own autograph cache "
                             f"(see {file_name(value.fn)})")
        notes += _bound_names(fn_ns, [k for k in used if not is_shim(fn_ns.get(k))], set())
        block = ["# Transformed code of this entry (runs instead of the original when the guards hold):"]
        if notes:
            block.append("# Objects it uses (bound when the entry was compiled):")
            block += notes
        block.append(text.rstrip())
        self.parts.append("\n".join(block) + "\n")

    def graph(self, g: Any) -> None:
        code = render.graph_code(g.gm)
        body = render.indent(code)
        out = [f"# Subgraph {g.name}: {g.op_count} ops, compiled by the backend "
               f"(this class is the graph it was given)",
               f"class {g.name}_graph(torch.nn.Module):", body, "",
               f"{g.name} = {g.name}_graph()"]
        kernels = render.kernels_of(g.compiled)
        wrapper = render.wrapper_source(g.compiled)
        if (kernels or wrapper) and self.directory is None:
            out.append(f"# its kernels: {len(kernels)} (written next to this file when dumping to a directory)")
        elif kernels or wrapper:
            path = self.directory / f"{self.base}.{g.name}.kernels.py"
            text = [f"# Kernels generated for {g.name} of {self.base}", ""]
            if wrapper:
                text += ["# ---- wrapper (calls the kernels) ----", wrapper.rstrip(), ""]
            for name, src in kernels:
                text += [f"# ---- kernel {name} ----", src.rstrip(), ""]
            path.write_text("\n".join(text) + "\n", encoding="utf-8")
            self.kernel_files.append(path)
            out.append(f"# its kernels: {path.name}")
        self.parts.append("\n".join(out) + "\n")


def dump_source(f: Any, directory: str | os.PathLike | None = None) -> str:
    """The dump text of ``f`` (kernels are written only when ``directory`` is given)."""
    shim = _shim_or_error(f)
    text, _ = _build(shim, Path(directory) if directory is not None else None)
    return text


def _shim_or_error(f: Any) -> Any:
    shim = find_shim(f)
    if shim is None:
        raise TypeError(f"{getattr(f, '__qualname__', f)!r} is not compiled by autograph: nothing to dump "
                        f"(pass what autograph.compile returned)")
    return shim


def _build(shim: Any, directory: Path | None) -> tuple[str, list[Path]]:
    fn = shim.fn
    name = file_name(fn)
    w = _Writer(directory, name[:-3])
    code = fn.__code__
    n = len(shim.entries)
    head = [f"# autograph dump of {fn.__qualname__} ({code.co_filename}:{code.co_firstlineno})",
            f"# {n} cache entr{'y' if n == 1 else 'ies'}. The shim tries the entries in order and runs the",
            "# first whose guards hold; read from the dispatch at the bottom upwards.",
            "# For reading and stepping through; it is not meant to be imported.", ""]
    w.function(shim, "", fn.__qualname__)
    return "\n".join(head) + "\n\n".join(w.parts), w.kernel_files


def dump(f: Any, directory: str | os.PathLike) -> list[Path]:
    """Write the dump of ``f`` (and its kernel sources) into ``directory``; return the files."""
    shim = _shim_or_error(f)
    return _write(shim, Path(directory))


def _write(shim: Any, directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    text, kernels = _build(shim, directory)
    path = directory / file_name(shim.fn)
    path.write_text(text, encoding="utf-8")
    return [path, *kernels]


def dump_all(directory: str | os.PathLike) -> list[Path]:
    """Dump every function autograph has compiled so far (resume functions inside their parent's file)."""
    directory = Path(directory)
    files: list[Path] = []
    for shim in _live_shims():
        if shim.entries and not shim.fn.__name__.startswith("__resume_at_"):
            files += _write(shim, directory)
    return files


def _live_shims() -> list[Any]:
    """Every live shim, in source order (file, line)."""
    from autograph.runtime.shim import all_shims

    return sorted(all_shims(), key=lambda s: (s.fn.__code__.co_filename, s.fn.__code__.co_firstlineno,
                                               s.fn.__qualname__))
