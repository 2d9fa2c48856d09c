"""``capture(fn, args, kwargs, settings, wrap_nested=...) -> CaptureResult``.

Restart-style graph breaks: interpret; on the first break at root instruction
*i*, interpret again from the start and stop right before *i*, then compile the
graph so far and write the entry that runs *i* natively and continues in a
resume function. Any internal failure becomes ``CaptureError`` (file:line).
"""
from __future__ import annotations

import itertools
import time
import types
from typing import Any, Callable

from autograph.capture.breaks import BreakRecord, CaptureBug, Unsupported, source_line
from autograph.capture.codegen import Codegen, _Expr, build_entry, origin_of
from autograph.capture.interpreter import BreakAt, Return, Stopped, Translator, _resolve_callable
from autograph.capture.result import CaptureResult, GraphRecord
from autograph.capture.values import side_effects
from autograph.capture.values.base import NULL
from autograph.errors import CaptureError

_graph_counter = itertools.count()

_NATIVE_STORES = ("STORE_ATTR", "STORE_SUBSCR", "STORE_GLOBAL", "DELETE_SUBSCR", "DELETE_ATTR")
_COND_JUMPS = ("POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE",
               "JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP")


def capture(fn: types.FunctionType, args: tuple, kwargs: dict, settings: Any, *,
            wrap_nested: Callable[[types.FunctionType], Callable]) -> CaptureResult:
    t0 = time.perf_counter()
    code = fn.__code__
    try:
        return _capture(fn, args, kwargs, settings, wrap_nested, t0)
    except CaptureError:
        raise
    except Unsupported as exc:
        where = exc.user_stack[-1] if exc.user_stack else (code.co_filename, code.co_firstlineno, "")
        raise CaptureError(f"cannot capture {fn.__qualname__}: {exc.reason}", where[0], where[1]) from exc
    except Exception as exc:  # a bug in autograph: never change the program's result
        raise CaptureError(f"internal error while capturing {fn.__qualname__}: {type(exc).__name__}: {exc}",
                           code.co_filename, code.co_firstlineno) from exc


def _capture(fn, args, kwargs, settings, wrap_nested, t0) -> CaptureResult:
    breaks: list[BreakRecord] = []
    stop_index = None
    brk: BreakAt | None = None
    tx = Translator(fn, args, kwargs)
    try:
        outcome = tx.run()
    except BreakAt as exc:
        brk = exc
        breaks.append(_record(fn, exc))
        if getattr(settings, "fullgraph", False):
            b = breaks[-1]
            raise CaptureError(f"graph break in {fn.__qualname__} with fullgraph=True: {b.reason}. "
                               "Remove the construct or compile without fullgraph.", b.filename, b.lineno)
        stop_index = exc.inst.index
        tx = Translator(fn, args, kwargs, stop_index=stop_index)
        try:
            outcome = tx.run()
        except BreakAt as again:
            raise CaptureBug(f"capture is not deterministic: break at {again.inst} while replaying "
                             f"up to {exc.inst}")
        if not isinstance(outcome, Stopped):
            raise CaptureBug("replay did not stop at the break")
    tx.guards.global_state()
    capture_seconds = time.perf_counter() - t0

    if isinstance(outcome, Return) and tx.graph.op_count == 0:
        return _eager_result(fn, tx, breaks, capture_seconds, no_tensor_work=True)

    cg = Codegen(tx, fn, wrap_nested)
    if isinstance(outcome, Return):
        body = [f"return {cg.reconstruct(outcome.value)}"]
    else:
        frame, inst = outcome.frame, outcome.inst
        body = _plan_break(cg, frame, inst, generic=brk.cause.generic if brk else False)
    body = side_effects.replay_lines(cg, tx) + body  # attribute stores on outside objects, in order

    t1 = time.perf_counter()
    graph_name = None
    graphs: list[GraphRecord] = []
    # run the graph when it produces something or mutates something (in-place ops on inputs)
    has_graph = bool(cg.outputs) or any(n.meta.get("mutates") for n in tx.graph.graph.nodes)
    input_exprs: list[str] = []
    if has_graph:
        from autograph.backends.registry import lookup
        gm = tx.graph.finish(cg.outputs)
        example_inputs = [real for _, real, _ in tx.graph.inputs]
        backend = lookup(getattr(settings, "backend", "eager"), settings=settings)
        from autograph.capture import shapes
        compiled = backend(gm, shapes.backend_inputs(tx.graph, example_inputs))
        from autograph.capture.graph_lines import with_user_lines  # errors at run time name user lines
        compiled = with_user_lines(gm, compiled, fn.__code__.co_filename, fn.__code__.co_firstlineno)
        graph_name = f"__compiled_fn_{next(_graph_counter)}"
        cg.ns[graph_name] = compiled
        input_exprs = [cg.source_expr(src) for src, _, _ in tx.graph.inputs]
        ops = sum(1 for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module"))
        graphs.append(GraphRecord(graph_name, gm, compiled, ops))
    compile_seconds = time.perf_counter() - t1
    entry = build_entry(cg, fn.__name__, body, has_graph, graph_name, input_exprs)
    from autograph.capture.shapes import finish_guards
    finish_guards(tx)  # dynamic inputs: None sizes in TENSOR_MATCH + SHAPE_RELATION guards
    tx.graph.release_fake_values()
    from autograph.guards.check import GuardSet
    return CaptureResult(
        fn=entry, guards=GuardSet(fn, tx.guards.guards), transformed_code=entry.__code__,
        graphs=graphs, resumes=list(cg.resumes), breaks=breaks, no_tensor_work=False,
        capture_seconds=capture_seconds, compile_seconds=compile_seconds,
        transformed_source=entry.__autograph_source__)


def _eager_result(fn, tx, breaks, seconds, *, no_tensor_work: bool) -> CaptureResult:
    from autograph.guards.check import GuardSet
    return CaptureResult(fn=fn, guards=GuardSet(fn, tx.guards.guards), transformed_code=None,
                         breaks=breaks, no_tensor_work=no_tensor_work, capture_seconds=seconds)


def _record(fn, exc: BreakAt) -> BreakRecord:
    stack = exc.cause.user_stack
    filename, lineno, _ = stack[-1] if stack else (fn.__code__.co_filename, exc.inst.lineno, "")
    reason = exc.cause.reason
    line = source_line(filename, lineno)
    if reason.startswith("data-dependent branch") and line:
        reason = f"{reason} (`{line}`, {_short(filename)}:{lineno})"
    return BreakRecord(reason, filename, lineno, line, list(stack), exc.inst.offset, exc.cause.kind)


def _short(filename: str) -> str:
    import os
    return os.path.basename(filename)


def _plan_break(cg: Codegen, frame, inst, *, generic: bool) -> list[str]:
    """Lines that run ``inst`` natively and continue in resume function(s)."""
    stack = list(frame.stack)
    insts = frame.instructions
    op = inst.opname
    if inst.exn is not None:
        generic = True  # the instruction must run where the exception table covers it
    if not generic and op in _COND_JUMPS:
        rest = stack[:-1]
        keep = op.startswith("JUMP_IF_")
        target_stack = stack if keep else rest
        taken = cg.resume_call(frame, inst.target, target_stack, wrap=True)
        fall = cg.resume_call(frame, insts[inst.index + 1], rest, wrap=True)
        cond = cg.reconstruct(stack[-1])
        test = {"POP_JUMP_IF_TRUE": f"{cond}", "JUMP_IF_TRUE_OR_POP": f"{cond}",
                "POP_JUMP_IF_FALSE": f"not {cond}", "JUMP_IF_FALSE_OR_POP": f"not {cond}",
                "POP_JUMP_IF_NONE": f"{cond} is None", "POP_JUMP_IF_NOT_NONE": f"{cond} is not None"}[op]
        return [f"if {test}:", f"    return {taken}", f"return {fall}"]
    if not generic and op == "CALL":
        argc = inst.arg
        kw_names = inst.argval or ()
        items = stack[len(stack) - argc:] if argc else []
        slots = stack[len(stack) - argc - 2:len(stack) - argc]
        fn_v, args = _resolve_callable(None, slots, items)
        callee, args = cg.native_callable(fn_v, args)
        npos = len(args) - len(kw_names)
        parts = [cg.reconstruct(a) for a in args[:npos]]
        parts += [f"{k}={cg.reconstruct(v)}" for k, v in zip(kw_names, args[npos:])]
        line = f"__r = {callee}({', '.join(parts)})"
        rest = stack[:len(stack) - argc - 2] + [_Expr("__r")]
        return [line, f"return {cg.resume_call(frame, insts[inst.index + 1], rest, wrap=True)}"]
    if not generic and op == "CALL_FUNCTION_EX":
        has_kw = inst.arg & 1
        kw = stack[-1] if has_kw else None
        a = stack[-1 - has_kw]
        fn_v = stack[-2 - has_kw]
        callee, extra = cg.native_callable(fn_v, [])
        parts = [cg.reconstruct(x) for x in extra] + [f"*{cg.reconstruct(a)}"]
        if kw is not None:
            parts.append(f"**{cg.reconstruct(kw)}")
        rest = stack[:len(stack) - 3 - has_kw] + [_Expr("__r")]
        return [f"__r = {callee}({', '.join(parts)})",
                f"return {cg.resume_call(frame, insts[inst.index + 1], rest, wrap=True)}"]
    if not generic and op in _NATIVE_STORES:
        if op == "STORE_ATTR":
            obj, val = stack[-1], stack[-2]
            line, n = f"setattr({cg.reconstruct(obj)}, {inst.argval!r}, {cg.reconstruct(val)})", 2
        elif op == "DELETE_ATTR":
            line, n = f"delattr({cg.reconstruct(stack[-1])}, {inst.argval!r})", 1
        elif op == "STORE_SUBSCR":
            key, obj, val = stack[-1], stack[-2], stack[-3]
            line, n = f"{cg.reconstruct(obj)}[{cg.reconstruct(key)}] = {cg.reconstruct(val)}", 3
        elif op == "DELETE_SUBSCR":
            line, n = f"del {cg.reconstruct(stack[-2])}[{cg.reconstruct(stack[-1])}]", 2
        else:
            line, n = f"__G[{inst.argval!r}] = {cg.reconstruct(stack[-1])}", 1
        rest = stack[:len(stack) - n]
        return [line, f"return {cg.resume_call(frame, insts[inst.index + 1], rest, wrap=True)}"]
    # anything else: continue in Python from the breaking instruction itself
    if op == "CALL":
        stack = _callee_through_its_shim(cg, stack, inst.arg)
    return [f"return {cg.resume_call(frame, inst, stack, wrap=False)}"]


def _callee_through_its_shim(cg: Codegen, stack: list, argc: int) -> list:
    """The stack with the callable of a pending CALL replaced by its shim (same behaviour),
    so a callee that broke inside a ``try`` region is still compiled when Python calls it."""
    try:
        base = len(stack) - argc - 2
        first, second = stack[base], stack[base + 1]
        fn_v, args = _resolve_callable(None, [first, second], stack[base + 2:])
        callee, new_args = cg.native_callable(fn_v, args)
    except Unsupported:
        return stack
    stack = list(stack)
    if new_args is args:
        stack[base if first is not NULL else base + 1] = _Expr(callee)
    elif first is NULL:  # a bound method or module in one slot: bind the shim to its object
        stack[base + 1] = _Expr(f"{cg.const(types.MethodType)}({callee}, {cg.reconstruct(new_args[0])})")
    else:               # [function, self] layout: self stays in its slot
        stack[base] = _Expr(callee)
    return stack
