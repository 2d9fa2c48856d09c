"""``capture(fn, args, kwargs, settings, wrap_nested=...) -> CaptureResult``.

Restart-style graph breaks: interpret; on the first break at root instruction
*i*, interpret again from the start and stop right before *i*, then compile the
graph so far and write the entry that runs *i* natively and continues in a
resume function. Any internal failure becomes ``CaptureError`` (file:line).
"""
from __future__ import annotations

import functools
import itertools
import time
import types
from typing import Callable

import torch

from autograph.capture.core.breaks import FRAME_INSPECTION, BreakRecord, CaptureBug, Unsupported, source_line
from autograph.capture.engine.codegen import Codegen, _Expr, build_entry
from autograph.capture.engine import deferred_breaks
from autograph.capture.engine.interpreter import BreakAt, Return, Stopped, Translator, _resolve_callable
from autograph.capture.engine.graph_state import restore_state_on_error
from autograph.capture.engine.result import CaptureResult, GraphRecord
from autograph.capture.core.shapes import NeedsStaticSizes
from autograph.capture.core import registry
from autograph.capture.families import side_effects
from autograph.capture.core.base import NULL
from autograph.errors import CaptureError
from autograph.settings import Settings
from autograph.guards.check import GuardSet
from autograph.guards.model import alias_pattern

_graph_counter = itertools.count()

_NATIVE_STORES = ("STORE_ATTR", "STORE_SUBSCR", "STORE_GLOBAL", "DELETE_SUBSCR", "DELETE_ATTR")
_COND_JUMPS = ("POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE",
               "JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP")


def capture(fn: types.FunctionType, args: tuple, kwargs: dict, settings: Settings, *,
            wrap_nested: Callable[[types.FunctionType], Callable]) -> CaptureResult:
    t0 = time.perf_counter()
    code = fn.__code__
    try:
        return _capture(fn, args, kwargs, settings, wrap_nested, t0)
    except CaptureError:
        raise
    except NeedsStaticSizes as exc:  # the runtime captures again with static sizes
        raise CaptureError(f"cannot capture {fn.__qualname__} with symbolic sizes: {exc}",
                           code.co_filename, code.co_firstlineno) from exc
    except Unsupported as exc:
        where = exc.user_stack[-1] if exc.user_stack else (code.co_filename, code.co_firstlineno, "")
        raise CaptureError(f"cannot capture {fn.__qualname__}: {exc.reason}", where[0], where[1]) from exc
    except Exception as exc:  # a bug in autograph: never change the program's result
        raise CaptureError(f"internal error while capturing {fn.__qualname__}: {type(exc).__name__}: {exc}",
                           code.co_filename, code.co_firstlineno) from exc


def _capture(fn, args, kwargs, settings, wrap_nested, t0) -> CaptureResult:
    translators: list[Translator] = []
    try:
        return _capture_with(translators, fn, args, kwargs, settings, wrap_nested, t0)
    finally:
        # every translator's fakes and ShapeEnv records go, the replayed-away first pass and
        # failed captures included: with symbolic sizes they form cycles through C++ that the
        # garbage collector cannot free (ShapeEnvs would outlive autograph.reset())
        for tx in translators:
            tx.graph.release_fake_values()
            tx.release_inputs()


def _capture_with(translators, fn, args, kwargs, settings, wrap_nested, t0) -> CaptureResult:
    breaks: list[BreakRecord] = []
    read = _reads_its_frames(fn, settings)
    if read is not None:  # no frame of compiled code (nor of a resume function) is Python's own
        translators.append(Translator(fn, args, kwargs))
        breaks.append(read)
        return _eager_result(fn, translators[-1], breaks, time.perf_counter() - t0, no_tensor_work=False,
                             run_eagerly=f"{read.reason} ({_short(read.filename)}:{read.lineno})")
    stop, generic, order_only = None, False, False
    moved: Unsupported | None = None  # why the break being planned was moved earlier
    defer: dict[int, BreakAt] = {}  # the breaks at calls made after the graph instead
    while True:
        tx = Translator(fn, args, kwargs, stop_step=stop, defer_steps={s: b.cause for s, b in defer.items()})
        translators.append(tx)
        try:
            try:
                outcome = tx.run()
            except BreakAt as exc:
                if exc.step in defer:  # not deferrable where the replay got to it: the break it was
                    del defer[exc.step]
                elif stop is None and deferred_breaks.deferrable(tx.root.instructions, exc):
                    defer[exc.step] = exc
                    continue  # replay, making that call after the graph
                elif defer and deferred_breaks.undoes(exc.cause):
                    # the code after the deferred calls breaks anyway: break at the first of them
                    exc = defer.pop(min(defer))
                    defer.clear()
                if stop is not None:
                    raise CaptureBug(f"capture is not deterministic: break at {exc.inst} while replaying "
                                     f"up to step {stop}")
                breaks.append(_record(fn, exc))
                if settings.fullgraph:
                    b = breaks[-1]
                    raise CaptureError(f"graph break in {fn.__qualname__} with fullgraph=True: {b.reason}. "
                                       "Remove the construct or compile without fullgraph.", b.filename, b.lineno)
                if exc.cause.kind == FRAME_INSPECTION:  # no frame of compiled code is Python's own
                    return _eager_result(fn, tx, breaks, time.perf_counter() - t0, no_tensor_work=False,
                                         run_eagerly=f"{breaks[-1].reason} ({_short(breaks[-1].filename)}:"
                                                     f"{breaks[-1].lineno})")
                stop, generic, order_only = exc.step, exc.cause.generic, deferred_breaks.is_order_break(exc.cause)
                continue  # replay up to the break, then plan it
            if stop is not None and not isinstance(outcome, Stopped):
                raise CaptureBug("replay did not stop at the break")
            if moved is not None:
                breaks[-1:] = [_moved(fn, breaks[-1] if breaks else None, outcome.inst, moved)]
                moved = None
            return _finish(fn, tx, outcome, breaks, generic, settings, wrap_nested, t0, order_only)
        except Unsupported as exc:
            # what is live at the break cannot be carried over (a running generator, a handler's
            # exception, a state context entered by hand): break earlier, where it was made
            if exc.retry_step is None or (stop is not None and exc.retry_step >= stop):
                raise
            # without its traceback: its frames hold this capture (and the objects it read) in a
            # cycle, which would keep them alive past the call (a generator closed late)
            stop, generic, order_only, moved = exc.retry_step, False, False, exc.with_traceback(None)


def _reads_its_frames(fn, settings) -> BreakRecord | None:
    """The record of the frame read :func:`frames.static_frame_read` finds in ``fn``'s code."""
    from autograph.capture.families.frames import static_frame_read
    found = static_frame_read(fn.__code__)
    if found is None:
        return None
    lineno, what = found
    code = fn.__code__
    lineno = lineno or code.co_firstlineno
    if settings.fullgraph:
        raise CaptureError(f"graph break in {fn.__qualname__} with fullgraph=True: {what} inspects the calling "
                           "frames. Remove the construct or compile without fullgraph.", code.co_filename, lineno)
    return BreakRecord(f"{what} inspects the calling frames", code.co_filename, lineno,
                       source_line(code.co_filename, lineno), [(code.co_filename, lineno, code.co_name)], 0,
                       FRAME_INSPECTION)


def _moved(fn, original: BreakRecord | None, inst, cause: Unsupported) -> BreakRecord:
    """The record of a break planned earlier than where capture first stopped."""
    filename = fn.__code__.co_filename
    lineno = inst.lineno or fn.__code__.co_firstlineno
    first = f"{original.reason} (line {original.lineno}); " if original is not None else ""
    reason = f"{first}the graph breaks earlier, at line {lineno}, because {cause.reason}"
    return BreakRecord(reason, filename, lineno, source_line(filename, lineno),
                       [(filename, lineno, fn.__code__.co_name)], inst.offset, cause.kind)


def _finish(fn, tx, outcome, breaks, generic, settings, wrap_nested, t0, order_only=False) -> CaptureResult:
    if isinstance(outcome, Return):
        for check in registry.ROOT_RETURN_CHECKS:
            check(tx)
    for check in registry.CAPTURE_END_CHECKS:
        check(tx)
    tx.guards.global_state()
    capture_seconds = time.perf_counter() - t0

    if isinstance(outcome, Return) and tx.graph.op_count == 0 and not deferred_breaks.made_any(tx):
        return _eager_result(fn, tx, breaks, capture_seconds, no_tensor_work=True)

    cg = Codegen(tx, fn, wrap_nested, settings.backend)
    user_line = None  # the line the entry's frame claims: the breaking instruction's
    if isinstance(outcome, Return):
        # read before the replayed effects run: a value read from an object the capture then
        # changed (an attribute store, a mutated outside container) is the one read then
        cg.pre.append(f"__ret = {cg.reconstruct(outcome.value)}")
        body = ["return __ret"]
    else:
        frame, inst = outcome.frame, outcome.inst
        user_line = inst.lineno
        body = _plan_break(cg, frame, inst, generic=generic,
                           compiled_resume=order_only)
    body = side_effects.replay_lines(cg, tx) + body  # attribute stores on outside objects, in order
    if tx.final_grad is not None:  # grad mode switched outside `with` blocks: set it as eager leaves it
        body = [f"{cg.const(torch_set_grad_enabled())}({tx.final_grad!r})"] + body

    t1 = time.perf_counter()
    graph_name = None
    graphs: list[GraphRecord] = []
    # run the graph when it produces something, mutates something (in-place ops on inputs) or
    # may raise (an unused out-of-range index raises in eager too)
    # (state switches alone are not worth a graph: what they leave behind is set by the entry)
    has_graph = bool(cg.outputs) or any((n.meta.get("mutates") or n.meta.get("may_raise"))
                                        and not n.meta.get("state") for n in tx.graph.graph.nodes) \
        or tx.graph.has_unused_ops_that_may_raise(cg.outputs)
    writes, held = False, []
    input_exprs: list[str] = []
    backend_name = None
    if has_graph:
        from autograph.backends.registry import describe, lookup
        gm = tx.graph.finish(cg.outputs)
        example_inputs = [real for _, real, _ in tx.graph.inputs]
        writes = _writes_something(gm.graph)
        held = _held_tensors(gm)
        gm.meta["inputs_share_memory"] = writes and _share_memory(example_inputs + held)
        from autograph.backends.routing import graph_device, ran_as  # route by the graph's device
        device = graph_device(gm, example_inputs)
        from autograph.backends.routing import eager_only
        why_eager = None if callable(settings.backend) or settings.backend == "eager" else eager_only(gm)
        backend = lookup("eager" if why_eager else settings.backend, settings=settings, device_hint=device)
        from autograph.capture.core import shapes
        compiled = backend(gm, shapes.backend_inputs(tx.graph, example_inputs))
        backend_name = f"eager ({why_eager})" if why_eager else ran_as(describe(settings.backend, device), compiled)
        from autograph.capture.engine.graph_lines import with_user_lines  # errors at run time name user lines
        compiled = with_user_lines(gm, compiled, fn.__code__.co_filename, fn.__code__.co_firstlineno,
                                   fn.__globals__)
        compiled = restore_state_on_error(gm, compiled)
        graph_name = f"__compiled_fn_{next(_graph_counter)}"
        cg.ns[graph_name] = compiled
        input_exprs = [cg.source_expr(src) for src, _, _ in tx.graph.inputs]
        if tx.graph.pre_checks:  # inputs read once, checked, then passed to the graph (prechecks.py)
            from autograph.capture.engine import prechecks
            names = [f"__in{i}" for i in range(len(input_exprs))]
            # snapshots the input reads use (``__rem0 = remaining(it)``: live_iterators.py) are taken
            # before them: the checks come first of all, before the prologue
            snapshots, cg.prologue = cg.prologue, []
            cg.checks = snapshots + [f"{name} = {expr}" for name, expr in zip(names, input_exprs)] + prechecks.entry_lines(
                cg, tx.graph.pre_checks, [(node, name) for (_, _, node), name in zip(tx.graph.inputs, names)])
            input_exprs = names
        ops = sum(1 for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module"))
        graphs.append(GraphRecord(graph_name, gm, compiled, ops))
    compile_seconds = time.perf_counter() - t1
    cg.checks = side_effects.leading_lines(cg, tx) + cg.checks  # calls made before anything else
    entry = build_entry(cg, fn.__name__, body, has_graph, graph_name, input_exprs, user_line)
    from autograph.capture.core.shapes import finish_guards
    finish_guards(tx)  # dynamic inputs: None sizes in TENSOR_MATCH + SHAPE_RELATION guards
    if writes:  # what one input's write does to another depends on whether they share memory
        tx.guards.aliasing([(src, real) for src, real, _ in tx.graph.inputs], held)
    tx.graph.release_fake_values()
    return CaptureResult(
        fn=entry, guards=GuardSet(fn, tx.guards.guards), transformed_code=entry.__code__,
        graphs=graphs, resumes=list(cg.resumes), breaks=breaks, no_tensor_work=False,
        capture_seconds=capture_seconds, compile_seconds=compile_seconds,
        transformed_source=entry.__autograph_source__, backend=backend_name)


def torch_set_grad_enabled():
    import torch
    return torch._C._set_grad_enabled


def _writes_something(graph) -> bool:
    """Whether a node of ``graph`` writes (data or metadata) into an input, parameter or buffer."""
    return any(n.meta.get("writes_input") for n in graph.nodes)


def _held_tensors(gm) -> list:
    """The parameters and buffers the graph reads through ``get_attr`` nodes."""
    return [t for t in (getattr(gm, n.target, None) for n in gm.graph.nodes if n.op == "get_attr")
            if isinstance(t, torch.Tensor)]


def _share_memory(tensors: list) -> bool:
    return any(first != i for i, (first, _) in enumerate(alias_pattern(tensors)))


def _eager_result(fn, tx, breaks, seconds, *, no_tensor_work: bool, run_eagerly: str | None = None) -> CaptureResult:
    return CaptureResult(fn=fn, guards=GuardSet(fn, tx.guards.guards), transformed_code=None,
                         breaks=breaks, no_tensor_work=no_tensor_work, run_eagerly=run_eagerly,
                         capture_seconds=seconds)


def _record(fn, exc: BreakAt) -> BreakRecord:
    stack = exc.cause.user_stack
    filename, lineno, _ = stack[-1] if stack else (fn.__code__.co_filename, exc.inst.lineno, "")
    reason = exc.cause.reason
    from autograph.capture.core.library_files import is_library_file
    users = [entry for entry in stack if not is_library_file(entry[0])]
    if users and users[-1] is not stack[-1]:  # inside inlined library code: the break is the call
        reason = f"{reason} (inside {_short(filename)}:{lineno})"
        filename, lineno, _ = users[-1]
    line = source_line(filename, lineno)
    if reason.startswith("data-dependent branch") and line:
        reason = f"{reason} (`{line}`, {_short(filename)}:{lineno})"
    return BreakRecord(reason, filename, lineno, line, list(stack), exc.inst.offset, exc.cause.kind)


def _short(filename: str) -> str:
    import os
    return os.path.basename(filename)


def _plan_break(cg: Codegen, frame, inst, *, generic: bool, compiled_resume: bool = False) -> list[str]:
    """Lines that run ``inst`` natively and continue in resume function(s). ``compiled_resume``:
    ``inst`` itself can be captured (only its order after calls made after the graph broke
    there): an instruction not run natively starts a resume function compiled when called."""
    stack = list(frame.stack)
    step = None if generic else _native_step(cg, frame, inst, stack)
    if step is None and compiled_resume:
        return [f"return {cg.resume_call(frame, inst, stack, wrap=True)}"]
    if step is None:
        # anything else: continue in Python from the breaking instruction itself
        if inst.opname == "CALL":
            stack = _callee_through_its_shim(cg, stack, inst.arg, _user_site(cg, frame, inst))
        return [f"return {cg.resume_call(frame, inst, stack, wrap=False)}"]
    run, then = step
    return _inside_blocks(cg, frame, inst, stack, run) + then


def _native_step(cg: Codegen, frame, inst, stack: list) -> tuple[list[str], list[str]] | None:
    """``(lines running inst, lines continuing after it)``, or None when Python must run it."""
    insts = frame.instructions
    op = inst.opname
    if op in _COND_JUMPS:
        rest = stack[:-1]
        keep = op.startswith("JUMP_IF_")
        target_stack = stack if keep else rest
        taken = cg.resume_call(frame, inst.target, target_stack, wrap=True)
        fall = cg.resume_call(frame, insts[inst.index + 1], rest, wrap=True)
        cond = cg.reconstruct(stack[-1])
        test = {"POP_JUMP_IF_TRUE": f"{cond}", "JUMP_IF_TRUE_OR_POP": f"{cond}",
                "POP_JUMP_IF_FALSE": f"not {cond}", "JUMP_IF_FALSE_OR_POP": f"not {cond}",
                "POP_JUMP_IF_NONE": f"{cond} is None", "POP_JUMP_IF_NOT_NONE": f"{cond} is not None"}[op]
        if inst.exn is None:
            return [], [f"if {test}:", f"    return {taken}", f"return {fall}"]
        return [f"__b = bool({test})"], ["if __b:", f"    return {taken}", f"return {fall}"]
    if op == "CALL":
        argc = inst.arg
        kw_names = inst.argval or ()
        items = stack[len(stack) - argc:] if argc else []
        slots = stack[len(stack) - argc - 2:len(stack) - argc]
        fn_v, args = _resolve_callable(None, slots, items)
        site = _user_site(cg, frame, inst)
        callee, args = cg.native_callable(fn_v, args, site)
        npos = len(args) - len(kw_names)
        parts = [cg.reconstruct(a) for a in args[:npos]]
        parts += [f"{k}={cg.reconstruct(v)}" for k, v in zip(kw_names, args[npos:])]
        rest = stack[:len(stack) - argc - 2] + [_Expr("__r")]
        return [f"__r = {_call_text(cg, site, callee, parts)}"], \
            [f"return {cg.resume_call(frame, insts[inst.index + 1], rest, wrap=True)}"]
    if op == "CALL_FUNCTION_EX":
        has_kw = inst.arg & 1
        kw = stack[-1] if has_kw else None
        a = stack[-1 - has_kw]
        fn_v = stack[-2 - has_kw]
        site = _user_site(cg, frame, inst)
        callee, extra = cg.native_callable(fn_v, [], site)
        parts = [cg.reconstruct(x) for x in extra] + [f"*{cg.reconstruct(a)}"]
        if kw is not None:
            parts.append(f"**{cg.reconstruct(kw)}")
        rest = stack[:len(stack) - 3 - has_kw] + [_Expr("__r")]
        return [f"__r = {callee}({', '.join(parts)})"], \
            [f"return {cg.resume_call(frame, insts[inst.index + 1], rest, wrap=True)}"]
    if op == "BINARY_SUBSCR" and _tensor_indexing(stack[-2], stack[-1]):  # an index only the run checks
        run = [f"__r = {cg.reconstruct(stack[-2])}[{cg.reconstruct(stack[-1])}]"]
        rest = stack[:-2] + [_Expr("__r")]
        return run, [f"return {cg.resume_call(frame, insts[inst.index + 1], rest, wrap=True)}"]
    if op == "BEFORE_WITH":  # enter for real; the resume continues inside the block with the live exit
        from autograph.capture.families.contexts import before_with
        # (not ``__x``: when the enter runs under a try that hands its exception on, that name
        # holds the exception, and the exit would be lost on the way to the resume)
        run = [f"__with_exit, __r = {cg.const(before_with)}({cg.reconstruct(stack[-1])})"]
        rest = stack[:-1] + [_Expr("__with_exit"), _Expr("__r")]
        return run, [f"return {cg.resume_call(frame, insts[inst.index + 1], rest, wrap=True)}"]
    if op in _NATIVE_STORES:
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
        return [line], [f"return {cg.resume_call(frame, insts[inst.index + 1], rest, wrap=True)}"]
    return None


def _tensor_indexing(obj, key) -> bool:
    """``tensor[key]`` with a tensor or constant key (indexes checked only on real values)."""
    from autograph.capture.families.tensors import TensorValue
    return isinstance(obj, TensorValue) and (isinstance(key, TensorValue) or key.is_constant())


def _inside_blocks(cg: Codegen, frame, inst, stack: list, run: list[str]) -> list[str]:
    """``run`` where the breaking instruction ran: under the state contexts of the open ``with``
    blocks (entered afresh), and -- when a handler of its own would run user code (an ``except``,
    a ``finally``, a Python ``__exit__``) -- with its exception handed to a resume function that
    raises it at the instruction, so the original's handlers run exactly as they would have."""
    if not run:
        return run
    lines = list(run)
    for v in reversed(stack):
        fresh = v.reentered_context(cg) if v is not NULL else None
        if fresh is not None:
            lines = [f"with {fresh}:"] + ["    " + line for line in lines]
    if inst.exn is None or not _handlers_run_user_code(cg, frame, inst):
        return lines
    depth = inst.exn.depth  # the unwinder drops the slots above it: their values do not matter
    below = [v if i < depth else _Expr("None") for i, v in enumerate(stack)]
    unwind = cg.resume_call(frame, inst, below, wrap=False, raise_exc="__x.pop()")
    return (["try:"] + ["    " + line for line in lines]
            + ["except BaseException as __e:", "    __x = [__e]", "else:", "    __x = None",
               "if __x is not None:", f"    return {unwind}"])


def _handlers_run_user_code(cg: Codegen, frame, inst) -> bool:
    """Whether an exception of ``inst`` would reach a handler other than the exit of a re-entered
    state context (those only restore state, which leaving the fresh context does too)."""
    entry, seen = inst.exn, set()
    while entry is not None:
        handler = entry.target
        if handler.index in seen:
            return True
        seen.add(handler.index)
        if handler.opname != "PUSH_EXC_INFO":  # a cleanup that only passes the exception on
            entry = handler.exn
            continue
        after = frame.instructions[handler.index + 1]
        if after.opname != "WITH_EXCEPT_START" or not 0 < entry.depth <= len(frame.stack):
            return True
        exit_slot = frame.stack[entry.depth - 1]
        if exit_slot is NULL or exit_slot.reentered_context(cg) is None:
            return True
        entry = after.exn
    return False


def _user_site(cg: Codegen, frame, inst):
    """The user's instruction ``inst`` (engine/user_sites.py): its file, line and module."""
    from autograph.capture.engine.codegen import origin_of
    from autograph.capture.engine.user_sites import user_site
    code, _ = origin_of(frame.code, inst.offset)
    return user_site(code, inst.lineno, cg.fn.__globals__)


def _call_text(cg: Codegen, site, callee: str, parts: list[str]) -> str:
    """The call of ``callee`` made by the entry itself, whose frame claims the user's line and module
    (codegen.build_entry), as the user's frame made it: a pending method call (``site.method``) is
    written out as CPython's LOAD_METHOD + CALL make it (python_methods.py), without a frame of its own."""
    caller = cg.ns.get(callee)
    name = site.method_name(caller) if site is not None and caller is not None else None
    if name is None or not parts:
        return f"{callee}({', '.join(parts)})"
    from autograph.capture.engine.python_methods import _unbound_method
    obj, rest = parts[0], ", ".join(parts[1:])
    with_self = ", ".join(["__mself", *parts[1:]])
    return (f"{cg.const(getattr)}(__mself, {name!r})({rest}) if (__mdescr := {cg.const(_unbound_method)}"
            f"((__mself := {obj}), {name!r})) is None else __mdescr({with_self})")


def _callee_through_its_shim(cg: Codegen, stack: list, argc: int, site=None) -> list:
    """The stack with the callable of a pending CALL replaced by its shim (same behaviour),
    so a callee that broke inside a ``try`` region is still compiled when Python calls it."""
    try:
        base = len(stack) - argc - 2
        first, second = stack[base], stack[base + 1]
        fn_v, args = _resolve_callable(None, [first, second], stack[base + 2:])
        callee, new_args = cg.native_callable(fn_v, args, site)
    except Unsupported:
        return stack
    stack = list(stack)
    if new_args is args:
        stack[base if first is not NULL else base + 1] = _Expr(callee)
    elif first is NULL:  # a bound method or module in one slot: bind the shim to its object
        # (a partial, not a method: the object may be None, `None.__format__()`)
        stack[base + 1] = _Expr(f"{cg.const(functools.partial)}({callee}, {cg.reconstruct(new_args[0])})")
    elif len(new_args) == len(args) + 1:  # 3.11's with-exit call: [bound exit, None, None, None]
        stack[base] = _Expr(f"{cg.const(types.MethodType)}({callee}, {cg.reconstruct(new_args[0])})")
    else:               # [function, self] layout: self stays in its slot
        stack[base] = _Expr(callee)
    return stack
