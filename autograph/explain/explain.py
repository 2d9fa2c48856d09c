"""``autograph.explain(fn, *args, **kwargs)``: run ``fn`` once under capture and say what happened.

The function is captured afresh (its live cache is neither read nor changed),
with the ``eager`` backend (explaining is about graphs and breaks, not
kernels), and run to the end: every resume function or breaking callee reached
is captured in turn, so the counts cover the whole call, like
``torch._dynamo.explain``.  The call's result is kept on ``.result``.
"""
from __future__ import annotations

import sys
import time
import types
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from autograph.explain import render
from autograph.explain.find import find_shim, is_shim

if TYPE_CHECKING:
    from autograph.settings import Settings

_MAX_DEPTH = 64  # nested resume/callee captures followed in one explained call


@dataclass
class BreakReason:
    """One graph break, in the user's terms."""

    reason: str
    filename: str
    lineno: int | None
    source_line: str
    user_stack: list[tuple[str, int, str]] = field(default_factory=list)
    function: str = ""           # qualname of the function being captured when it broke
    kind: str = "unsupported"    # a capture.breaks.BREAK_KINDS name (docs/graph-breaks.md)

    @property
    def where(self) -> str:
        return f"{render.short_file(self.filename)}:{self.lineno}"

    @property
    def explanation(self) -> str:
        from autograph.explain.break_kinds import describe

        return describe(self.kind).explanation

    @property
    def hint(self) -> str:
        from autograph.explain.break_kinds import describe

        return describe(self.kind).hint

    def __str__(self) -> str:
        out = [f"[{self.kind}] {self.reason}",
               f"   at {self.where}" + (f": {self.source_line}" if self.source_line else "")]
        if len(self.user_stack) > 1:
            out.append("   user stack: " + " -> ".join(
                f"{name} ({render.short_file(f)}:{line})" for f, line, name in self.user_stack))
        out.append(f"   why: {self.explanation}")
        out.append(f"   what to do: {self.hint}")
        return "\n".join(out)


@dataclass
class CaptureFailure:
    """A function that could not be captured at all (it ran eagerly)."""

    function: str
    message: str
    filename: str | None
    lineno: int | None

    def __str__(self) -> str:
        loc = f" ({render.short_file(self.filename)}:{self.lineno})" if self.filename else ""
        return f"{self.function}: {self.message}{loc}"


@dataclass
class ExplainOutput:
    """What one explained call produced; ``str()`` summarises it."""

    name: str
    where: str
    graph_count: int = 0
    graph_break_count: int = 0
    break_reasons: list[BreakReason] = field(default_factory=list)
    op_count: int = 0
    graphs: list[Any] = field(default_factory=list)          # torch.fx.GraphModule, in run order
    graph_names: list[str] = field(default_factory=list)
    ops_per_graph: list[list[str]] = field(default_factory=list)
    guards: list[list[str]] = field(default_factory=list)    # plain words, per capture
    failures: list[CaptureFailure] = field(default_factory=list)
    eager_functions: list[str] = field(default_factory=list)  # captured but nothing worth compiling
    capture_seconds: float = 0.0
    compile_seconds: float = 0.0
    result: Any = field(default=None, repr=False)

    def __str__(self) -> str:
        s = lambda n, word: f"{n} {word}{'' if n == 1 else 's'}"  # noqa: E731
        out = [f"{self.name} ({self.where}): {s(self.graph_count, 'graph')}, "
               f"{s(self.graph_break_count, 'graph break')}, {s(self.op_count, 'op')}."]
        if self.break_reasons:
            out.append("Graph breaks:")
            for i, b in enumerate(self.break_reasons, 1):
                out.append(render.indent(f"{i}. {b}", "  "))
        if self.graphs:
            out.append("Graphs:")
            for i, (name, ops) in enumerate(zip(self.graph_names, self.ops_per_graph), 1):
                out.append(f"  {i}. {name}: {s(len(ops), 'op')}: {', '.join(ops)}")
        for f in self.failures:
            out.append(f"Not compiled (runs eagerly): {f}")
        for name in self.eager_functions:
            out.append(f"No tensor work, runs eagerly: {name}")
        out.append(f"Time: capture {self.capture_seconds:.3f}s, compile {self.compile_seconds:.3f}s.")
        return "\n".join(out)


def explain(fn: Any, *args: Any, **kwargs: Any) -> ExplainOutput:
    """Run ``fn(*args, **kwargs)`` once under a fresh capture and explain graphs and breaks.

    ``fn`` may be a plain function, what ``autograph.compile`` returned, a bound
    method or an ``nn.Module`` (its ``forward`` is explained).
    """
    target, args = _target(fn, args)
    code = target.__code__
    out = ExplainOutput(target.__qualname__, render.where(code))
    out.result = _Explainer(out, _settings()).call(target, args, kwargs, 0)
    return out


def _settings() -> Any:
    from autograph.settings import current_settings

    settings = current_settings()
    try:
        return settings.model_copy(update={"backend": "eager", "on_error": "fallback"})
    except Exception:  # noqa: BLE001 - non-pydantic settings objects (tests, embedding)
        return settings


def _target(fn: Any, args: tuple) -> tuple[types.FunctionType, tuple]:
    """The original Python function to capture and the arguments (``self`` first for methods)."""
    shim = find_shim(fn)
    self_obj = None
    if isinstance(fn, types.MethodType):
        self_obj = fn.__self__
    else:
        orig_mod = getattr(type(fn), "_autograph_orig_mod", None)
        if orig_mod is not None:
            self_obj = orig_mod
        else:
            torch = sys.modules.get("torch")  # no module exists before torch is imported: never import it here
            if torch is not None and isinstance(fn, torch.nn.Module):
                self_obj = fn
        bound = getattr(fn, "_self_instance", None)  # import-hook wrapper bound to an instance
        if self_obj is None and bound is not None and not isinstance(bound, type):
            self_obj = bound
    if shim is not None:
        target = shim.fn
    elif isinstance(fn, types.MethodType) and isinstance(fn.__func__, types.FunctionType):
        target = fn.__func__
    elif self_obj is not None and isinstance(getattr(type(self_obj), "forward", None), types.FunctionType):
        target = type(self_obj).forward
    elif isinstance(fn, types.FunctionType):
        target = fn
    else:
        wrapped = getattr(fn, "__wrapped__", None)
        if isinstance(wrapped, types.FunctionType):
            target = wrapped
        else:
            raise TypeError(f"autograph.explain expects a Python function, method or nn.Module, "
                            f"got {type(fn).__name__}")
    if self_obj is not None:
        args = (self_obj, *args)
    return target, args


class _Explainer:
    def __init__(self, out: ExplainOutput, settings: Settings):
        self.out = out
        self.settings = settings

    def call(self, fn: types.FunctionType, args: tuple, kwargs: dict, depth: int) -> Any:
        """Capture ``fn`` afresh for this call, record what capture made, run it, return its result."""
        from autograph.capture.engine.api import capture
        from autograph.errors import CaptureError
        from autograph.explain.progress import progress
        from autograph.runtime.shim import capturing, shim_for

        if depth > _MAX_DEPTH:
            return fn(*args, **kwargs)
        t0 = time.perf_counter()
        try:
            with progress(f"explaining {fn.__qualname__}"), capturing():
                result = capture(fn, args, kwargs, self.settings, wrap_nested=shim_for)
        except CaptureError as exc:
            self.out.capture_seconds += time.perf_counter() - t0
            filename, lineno = getattr(exc, "filename", None), getattr(exc, "lineno", None)
            message = str(exc).removeprefix(f"{filename}:{lineno}: ")
            self.out.failures.append(CaptureFailure(fn.__qualname__, message, filename, lineno))
            return fn(*args, **kwargs)
        self._record(fn, result)
        if getattr(result, "no_tensor_work", False) or getattr(result, "transformed_code", None) is None:
            self.out.eager_functions.append(fn.__qualname__)
            return fn(*args, **kwargs)
        return self._redirected(result.fn, depth)(*args, **kwargs)

    def _record(self, fn: types.FunctionType, result: Any) -> None:
        out = self.out
        out.capture_seconds += getattr(result, "capture_seconds", 0.0)
        out.compile_seconds += getattr(result, "compile_seconds", 0.0)
        for b in getattr(result, "breaks", ()) or ():
            out.break_reasons.append(BreakReason(b.reason, b.filename, b.lineno, b.source_line,
                                                 list(b.user_stack or ()), fn.__qualname__,
                                                 getattr(b, "kind", "unsupported")))
            out.graph_break_count += 1
        for g in getattr(result, "graphs", ()) or ():
            out.graphs.append(g.gm)
            out.graph_names.append(g.name)
            out.ops_per_graph.append(_ops(g.gm))
            out.graph_count += 1
            out.op_count += g.op_count
        guards = getattr(getattr(result, "guards", None), "guards", None)
        if guards is not None:
            out.guards.append(render.guard_words(guards))

    def _redirected(self, entry: types.FunctionType, depth: int) -> Callable[..., Any]:
        """``entry`` whose calls of shimmed resume functions / callees are explained too.

        The transformed code reaches them through names in its own globals; a copy
        of those globals maps each shim to a fresh capture of its function, so
        no live cache is used or filled.
        """
        ns = dict(entry.__globals__)
        for key, value in entry.__globals__.items():
            shim = value if is_shim(value) else None
            if shim is not None:
                ns[key] = self._explaining(shim.fn, depth + 1)
        fresh = types.FunctionType(entry.__code__, ns, entry.__name__, entry.__defaults__, entry.__closure__)
        fresh.__kwdefaults__ = entry.__kwdefaults__
        return fresh

    def _explaining(self, fn: types.FunctionType, depth: int) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            return self.call(fn, args, kwargs, depth)
        return call


def _ops(gm: Any) -> list[str]:
    """Readable names of the operations of an FX graph, in order."""
    names = []
    for node in gm.graph.nodes:
        if node.op == "call_function":
            t = node.target
            names.append(getattr(t, "__name__", None) or str(t))
        elif node.op in ("call_method", "call_module"):
            names.append(str(node.target))
    return names
