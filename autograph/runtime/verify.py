"""Verify mode (``settings.verify``): the first calls of each cache entry are checked against eager.

For the first ``verify_calls`` calls of a new cache entry, the shim also runs the
*original* function on copies of the arguments (tensors cloned with their
``requires_grad`` and the aliasing between them, other objects deep-copied), from the
same random-number state, with nested compiled functions running their originals.
The compiled call itself runs on the caller's real arguments: its guards were checked
against them, and its code may hold those very objects. Then results, raised
exceptions, every argument (tensors changed in place, containers, object attributes)
and the module globals the call rebound are compared.

The first mismatch of an entry is reported (a ``VerifyMismatchWarning``, the
``autograph.verify`` log channel and the run report) with the function's file:line,
the entry's guards and its graphs; the entry is disabled (calls it matches run the
original from then on), and the caller continues with the *eager* outcome: the
arguments are given the eager run's state, the eager result is returned (or its
exception raised). After ``verify_calls`` clean calls the entry runs unchecked.

What cannot be compared or undone: effects on objects reached only through globals
or closures (a global list appended to, a module in a global changed in place, text
printed) happen in both runs; a call whose arguments cannot be copied (a generator,
an object refusing ``deepcopy``) runs compiled, unverified, and says so once.
"""
from __future__ import annotations

import copy
import logging
import math
import random
import sys
import threading
import types
import warnings
from dataclasses import dataclass
from typing import Any, Callable

log = logging.getLogger("autograph.verify")


class VerifyMismatchWarning(UserWarning):
    """A compiled call behaved differently from the original function (verify mode)."""


class Uncopyable(Exception):
    """The call's arguments cannot be copied, so the call cannot be verified."""


# ------------------------------------------------------------------ copying arguments

_ATOMS = (int, float, complex, bool, str, bytes, type(None), range, slice, type, types.FunctionType,
          types.BuiltinFunctionType, types.MethodType, types.ModuleType)


class Copies:
    """Copies of one call's arguments, and which copy stands for which original."""

    def __init__(self) -> None:
        import torch

        self._torch = torch
        self.memo: dict[int, Any] = {}        # id(original) -> copy (shared with copy.deepcopy)
        self.originals: dict[int, Any] = {}   # id(copy) -> original
        self._storages: dict[tuple, Any] = {}
        # id(copy) -> attributes of the original its copy protocol leaves out (an optimizer's
        # __getstate__ drops the LR scheduler's patched ``step``): not comparable, not compared
        self.dropped: dict[int, frozenset] = {}

    def copy(self, value: Any) -> Any:
        torch = self._torch
        found = self.memo.get(id(value))
        if found is not None:
            return found
        if isinstance(value, _ATOMS) or isinstance(value, (torch.dtype, torch.device, torch.Size)):
            return value
        if type(value) in (torch.Tensor, torch.nn.Parameter):
            made = self._tensor(value)
        elif type(value) is list:
            made = self._remember(value, [])
            made.extend(self.copy(item) for item in value)
        elif type(value) is dict:
            made = self._remember(value, {})
            made.update((key, self.copy(item)) for key, item in value.items())
        elif type(value) is tuple:
            made = tuple(self.copy(item) for item in value)
        elif type(value) in (set, frozenset):
            made = type(value)(self.copy(item) for item in value)
        else:
            try:
                made = copy.deepcopy(value, self.memo)
            except Exception as error:  # noqa: BLE001 - generators, sockets, non-leaf tensors inside objects
                raise Uncopyable(f"cannot copy a {type(value).__qualname__} argument: {type(error).__name__}: "
                                 f"{error}") from None
        self._remember(value, made)
        return made

    def finish(self) -> None:
        """Also map the copies ``copy.deepcopy`` made inside objects back to their originals, and
        note the attributes each object's copy protocol left out."""
        for original in self.memo.get(id(self.memo), ()):
            made = self.memo.get(id(original))
            if made is not None and made is not original:
                self.originals.setdefault(id(made), original)
        torch = self._torch
        for made_id, original in list(self.originals.items()):
            made = self.memo.get(id(original))
            if isinstance(original, torch.Tensor) and isinstance(made, torch.Tensor) and made is not original \
                    and original.is_leaf and made.is_leaf and original.grad is not None and made.grad is None:
                made.grad = self.copy(original.grad)  # Parameter.__deepcopy__ leaves .grad out
            state_o, state_m = _instance_dict(original), _instance_dict(made)
            if state_o is not None and state_m is not None and set(state_o) - set(state_m):
                self.dropped[made_id] = frozenset(set(state_o) - set(state_m))

    def _remember(self, original: Any, made: Any) -> Any:
        self.memo[id(original)] = made
        self.originals[id(made)] = original
        return made

    def _tensor(self, t: Any) -> Any:
        """A clone keeping dtype, strides, requires_grad, the Parameter class and the
        storage sharing between tensors of the same call (views of one base stay views)."""
        torch = self._torch
        if t.grad_fn is not None:
            # a non-leaf stays a non-leaf (in-place ops behave alike), but its graph ends at a
            # leaf of its own: a backward in the reference run must not reach (nor free the
            # saved tensors of) the caller's graph, which the compiled run backpropagates through
            own_leaf = t.detach().clone().requires_grad_(True)
            return own_leaf.clone()
        try:
            storage = t.untyped_storage()
            key = (storage.data_ptr(), storage.nbytes(), str(t.device))
        except Exception:  # noqa: BLE001 - sparse, quantized, ... tensors: a plain clone
            made = t.detach().clone()
        else:
            with torch.no_grad():
                new_storage = self._storages.get(key) if storage.nbytes() else None
                if new_storage is None:
                    new_storage = self._storages[key] = storage.clone()
                made = torch.empty(0, dtype=t.dtype, device=t.device)
                made.set_(new_storage, t.storage_offset(), t.size(), t.stride())
        if type(t) is torch.nn.Parameter:
            made = torch.nn.Parameter(made, requires_grad=t.requires_grad)
        else:
            made.requires_grad_(t.requires_grad)
        if t.grad is not None:  # an optimizer step in the call reads it
            self._remember(t, made)
            made.grad = self.copy(t.grad)
        return made

    def original_of(self, value: Any) -> Any:
        """The caller's object a copy stands for (the value itself when it is no copy)."""
        return self.originals.get(id(value), value)


def _instance_dict(obj: Any) -> dict | None:
    try:
        state = object.__getattribute__(obj, "__dict__")
    except Exception:  # noqa: BLE001 - no instance dict
        return None
    return state if type(state) is dict and not isinstance(obj, type) else None


# ------------------------------------------------------------------ autograd leaves outside the copies

def graph_leaves(values: list, limit: int = 10_000) -> list:
    """The leaf tensors the autograd graphs of ``values`` reach (a ``loss`` passed in: the
    model's parameters)."""
    import torch

    leaves: list = []
    seen: set[int] = set()
    todo = [v.grad_fn for v in values if isinstance(v, torch.Tensor) and v.grad_fn is not None]
    while todo and len(seen) < limit:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        leaf = getattr(node, "variable", None)
        if isinstance(leaf, torch.Tensor):
            leaves.append(leaf)
        todo.extend(next_node for next_node, _ in getattr(node, "next_functions", ()))
    return leaves


# ------------------------------------------------------------------ random-number state

class RngState:
    """torch (CPU and initialised CUDA devices), ``random`` and numpy generators."""

    def __init__(self) -> None:
        import torch

        self.torch = torch.get_rng_state()
        self.cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() and torch.cuda.is_initialized() else None
        self.python = random.getstate()
        numpy = sys.modules.get("numpy")
        self.numpy = numpy.random.get_state() if numpy is not None else None

    def restore(self) -> None:
        import torch

        torch.set_rng_state(self.torch)
        if self.cuda is not None:
            torch.cuda.set_rng_state_all(self.cuda)
        random.setstate(self.python)
        if self.numpy is not None:
            sys.modules["numpy"].random.set_state(self.numpy)


# ------------------------------------------------------------------ comparing

@dataclass
class Outcome:
    value: Any = None
    error: BaseException | None = None


def _run(fn: Callable[..., Any], args: tuple, kwargs: dict) -> Outcome:
    try:
        return Outcome(fn(*args, **kwargs))
    except Exception as error:  # noqa: BLE001 - the exception is part of what is compared
        return Outcome(error=error)


def _tolerance(dtype: Any) -> tuple[float, float]:
    import torch

    if dtype in (torch.float16, torch.bfloat16):
        return 1e-2, 1e-2
    return 1e-4, 1e-5


class Comparer:
    """Compares the compiled run (real objects) with the eager run (copies)."""

    def __init__(self, copies: Copies) -> None:
        import torch

        self._torch = torch
        self.copies = copies
        self._seen: set[tuple[int, int]] = set()

    def diff(self, compiled: Any, eager: Any, path: str, depth: int = 0) -> str | None:
        torch = self._torch
        # identity: where eager holds the copy of an argument, compiled must hold the argument itself
        meant = self.copies.original_of(eager)
        if meant is not eager and meant is not compiled:
            return f"{path}: eager returns the argument object itself, compiled returns another object"
        if compiled is not meant and id(compiled) in self.copies.memo and not isinstance(compiled, _ATOMS):
            return f"{path}: compiled returns an argument object itself, eager returns another object"
        copied_as_base = meant is compiled and isinstance(compiled, type(eager))  # copying may drop a view class
        if type(compiled) is not type(eager) and not copied_as_base:
            return f"{path}: type {type(compiled).__name__} (compiled) vs {type(eager).__name__} (eager)"
        key = (id(compiled), id(eager))
        if key in self._seen or depth > 8:
            return None
        self._seen.add(key)
        if isinstance(eager, torch.Tensor):
            return self._tensor(compiled, eager, path)
        if isinstance(eager, (list, tuple)):
            if len(eager) != len(compiled):
                return f"{path}: length {len(compiled)} (compiled) vs {len(eager)} (eager)"
            for index, (c, e) in enumerate(zip(compiled, eager)):
                found = self.diff(c, e, f"{path}[{index}]", depth + 1)
                if found:
                    return found
            return None
        if isinstance(eager, dict):
            keys_c, keys_e = list(compiled), list(eager)
            if len(keys_c) != len(keys_e) or not all(self._same_key(c, e) for c, e in zip(keys_c, keys_e)):
                return f"{path}: keys {_short_keys(keys_c)} (compiled) vs {_short_keys(keys_e)} (eager)"
            for key_c, key_e in zip(keys_c, keys_e):
                found = self.diff(compiled[key_c], eager[key_e], f"{path}[{_short_key(key_e)}]", depth + 1)
                if found:
                    return found
            return None
        if isinstance(eager, (set, frozenset)):
            mapped = {self.copies.original_of(item) for item in eager}
            return None if compiled == mapped else f"{path}: {compiled!r} (compiled) vs {eager!r} (eager)"
        if isinstance(eager, float):
            if (math.isnan(eager) and math.isnan(compiled)) or math.isclose(compiled, eager, rel_tol=1e-6, abs_tol=1e-9):
                return None
            return f"{path}: {compiled!r} (compiled) vs {eager!r} (eager)"
        if isinstance(eager, BaseException):
            return (None if str(compiled) == str(eager) else f"{path}: message {str(compiled)!r} vs {str(eager)!r}") \
                or self.diff(compiled.args, eager.args, f"{path}.args", depth + 1)
        if isinstance(eager, _ATOMS) or isinstance(eager, (torch.dtype, torch.device)):
            return None if compiled == eager else f"{path}: {compiled!r} (compiled) vs {eager!r} (eager)"
        if isinstance(eager, torch.nn.Module):
            return self._attributes(compiled, eager, path, depth, modules=True)
        return self._attributes(compiled, eager, path, depth)

    def _same_key(self, compiled: Any, eager: Any) -> bool:
        """Dict keys match: the argument a copied key stands for, or equal plain values
        (tensor keys -- an optimizer's state -- by identity: ``==`` on tensors is elementwise)."""
        meant = self.copies.original_of(eager)
        if meant is compiled:
            return True
        if isinstance(eager, self._torch.Tensor) or isinstance(compiled, self._torch.Tensor):
            return False
        try:
            return bool(type(compiled) is type(eager) and compiled == eager)
        except Exception:  # noqa: BLE001 - a key whose __eq__ fails is not the same key
            return False

    def _tensor(self, compiled: Any, eager: Any, path: str) -> str | None:
        torch = self._torch
        if compiled.shape != eager.shape or compiled.dtype != eager.dtype:
            return (f"{path}: shape {tuple(compiled.shape)} {compiled.dtype} (compiled) vs "
                    f"{tuple(eager.shape)} {eager.dtype} (eager)")
        if compiled.requires_grad != eager.requires_grad:
            return f"{path}: requires_grad {compiled.requires_grad} (compiled) vs {eager.requires_grad} (eager)"
        if compiled.device != eager.device:
            return f"{path}: device {compiled.device} (compiled) vs {eager.device} (eager)"
        with torch.no_grad():
            a, b = compiled.detach(), eager.detach()
            if a.is_floating_point() or a.is_complex():
                if torch.equal(a, b):  # the common case, one pass
                    return None
                rtol, atol = _tolerance(a.dtype)
                if torch.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
                    return None
                finite = torch.isfinite(a) & torch.isfinite(b)
                diff = (a - b).abs()[finite].max().item() if finite.any() else float("nan")
                return (f"{path}: max abs difference {diff:.4g} (shape {tuple(a.shape)}, {a.dtype}; "
                        f"tolerance rtol={rtol:g}, atol={atol:g})")
            if torch.equal(a, b):
                return None
            return f"{path}: {int((a != b).sum())} of {a.numel()} elements differ (shape {tuple(a.shape)}, {a.dtype})"

    def _attributes(self, compiled: Any, eager: Any, path: str, depth: int, modules: bool = False) -> str | None:
        state_c, state_e = getattr(compiled, "__dict__", None), getattr(eager, "__dict__", None)
        if not isinstance(state_c, dict) or not isinstance(state_e, dict):
            return None  # nothing comparable without running user code (__eq__ may be anything)
        if self.copies.dropped.get(id(eager)):
            # the copy protocol left attributes out (an optimizer's __getstate__ drops the LR
            # scheduler's patched ``step``), so the runs differ in what they set on it: only
            # the attributes both have are comparable
            both = set(state_c) & set(state_e)
            state_c = {k: v for k, v in state_c.items() if k in both}
            state_e = {k: v for k, v in state_e.items() if k in both}
        if modules:
            return (self._attributes_of(dict(compiled.named_parameters()), dict(eager.named_parameters()),
                                        f"{path} parameter", depth)
                    or self._attributes_of(dict(compiled.named_buffers()), dict(eager.named_buffers()),
                                           f"{path} buffer", depth)
                    or self._attributes_of({k: v for k, v in state_c.items() if not k.startswith("_")},
                                           {k: v for k, v in state_e.items() if not k.startswith("_")},
                                           f"{path}.", depth))
        return self._attributes_of(state_c, state_e, f"{path}.", depth)

    def _attributes_of(self, state_c: dict, state_e: dict, prefix: str, depth: int) -> str | None:
        if sorted(state_c) != sorted(state_e):
            only_c, only_e = sorted(set(state_c) - set(state_e)), sorted(set(state_e) - set(state_c))
            return f"{prefix.rstrip('.')}: attributes only in compiled {only_c}, only in eager {only_e}"
        for name in state_e:
            where = f"{prefix}{name}" if prefix.endswith(".") else f"{prefix} {name!r}"
            found = self.diff(state_c[name], state_e[name], where, depth + 1)
            if found:
                return found
        return None


def _short_key(key: Any) -> str:
    import torch

    if isinstance(key, torch.Tensor):
        return f"<tensor {tuple(key.shape)} at {id(key):#x}>"
    return repr(key)


def _short_keys(keys: list) -> str:
    return "[" + ", ".join(_short_key(k) for k in keys) + "]"


# ------------------------------------------------------------------ making the caller's state eager's

def _to_real(value: Any, copies: Copies, seen: dict[int, Any] | None = None) -> Any:
    """``value`` from the eager run with every copy replaced by the caller's object."""
    seen = {} if seen is None else seen
    original = copies.original_of(value)
    if original is not value or isinstance(value, _ATOMS):
        return original
    if id(value) in seen:
        return seen[id(value)]
    if type(value) is list:
        seen[id(value)] = value
        value[:] = [_to_real(item, copies, seen) for item in value]
    elif type(value) is dict:
        seen[id(value)] = value
        for key in list(value):
            value[key] = _to_real(value[key], copies, seen)
    elif type(value) is tuple:
        return tuple(_to_real(item, copies, seen) for item in value)
    return value


def _adopt(real: Any, made: Any, copies: Copies) -> None:
    """Give the caller's object ``real`` the state its copy ``made`` has after the eager run."""
    import torch

    if isinstance(real, torch.Tensor):
        with torch.no_grad():
            if real.grad_fn is None:
                real.set_(made.untyped_storage(), made.storage_offset(), made.size(), made.stride())
                if real.requires_grad != made.requires_grad:
                    real.requires_grad_(made.requires_grad)
            elif real.shape == made.shape:
                real.copy_(made)
    elif type(real) is list:
        real[:] = [_to_real(item, copies) for item in made]
    elif type(real) is dict:
        real.clear()
        real.update((key, _to_real(item, copies)) for key, item in made.items())
    elif type(real) is set:
        real.clear()
        real.update(_to_real(item, copies) for item in made)
    elif isinstance(getattr(real, "__dict__", None), dict) and not isinstance(real, type):
        for child_real, child_made in zip(_tensors_of(real), _tensors_of(made)):
            _adopt(child_real, child_made, copies)
        if not isinstance(real, torch.nn.Module):  # a module's tensors were adopted above, in place
            state = dict(made.__dict__)
            real.__dict__.clear()
            real.__dict__.update((key, _to_real(value, copies)) for key, value in state.items())


def _tensors_of(obj: Any) -> list[Any]:
    import torch

    if isinstance(obj, torch.nn.Module):
        return [t for _, t in obj.named_parameters()] + [t for _, t in obj.named_buffers()]
    return []


# ------------------------------------------------------------------ the verified entry

_MISSING = object()


@dataclass
class Mismatch:
    """What one verified call found different, with what is needed to look into it."""
    function: str
    where: str
    entry: int
    call: int
    what: str
    guards: list[str]
    graphs: list[tuple[str, str]]

    def message(self) -> str:
        lines = [f"autograph verify: {self.function} ({self.where}) behaved differently compiled than the "
                 f"original function on verified call {self.call} of cache entry {self.entry}:",
                 f"  what differed: {self.what}",
                 "  the entry's guards:"]
        lines += [f"    {guard}" for guard in self.guards] or ["    (none)"]
        for name, code in self.graphs:
            lines.append(f"  graph {name}:")
            lines += [f"    {line}" for line in code.strip("\n").splitlines()]
        if not self.graphs:
            lines.append("  (the entry has no graph)")
        lines.append("  This call continued with the original function's outcome; the entry is disabled "
                     "(calls it matches now run the original). Please report this with the text above.")
        return "\n".join(lines)

    def short(self) -> str:
        return f"cache entry {self.entry}, call {self.call}: {self.what}"


class VerifiedEntry:
    """Stands in for a cache entry's callable during its first ``calls`` calls."""

    def __init__(self, shim: Any, entry: Any, calls: int):
        self.shim, self.entry, self.compiled = shim, entry, entry.fn
        self.left = calls
        self.done = 0
        self._lock = threading.Lock()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        last = False
        with self._lock:
            if self.left <= 0:
                run = None
            else:
                self.left -= 1
                self.done += 1
                run, number, last = self._verified, self.done, self.left == 0
        if run is None:
            return self.compiled(*args, **kwargs)
        try:
            return run(args, kwargs, number)
        finally:
            if last and self.entry.fn is self:
                self.shim._replace_entry_fn(self.entry, self.compiled)

    def _verified(self, args: tuple, kwargs: dict, number: int) -> Any:
        from autograph.runtime.shim import capturing

        fn = self.shim.fn
        stats = self.shim.stats
        try:
            copies = Copies()
            eager_args = tuple(copies.copy(a) for a in args)
            eager_kwargs = {k: copies.copy(v) for k, v in kwargs.items()}
            copies.finish()
        except Uncopyable as why:
            note = f"not verified: {why}"
            if note not in stats.verify_skipped:
                stats.verify_skipped.append(note)
                log.info("%s (%s): %s", fn.__qualname__, _where(fn), note)
            return self.compiled(*args, **kwargs)
        tangled = [leaf for leaf in graph_leaves(list(args) + list(kwargs.values())) if id(leaf) in copies.memo]
        if tangled:
            # the copy of a non-leaf (a ``loss``) ends its graph at a leaf of its own, while the
            # leaves of the caller's graph (the model's parameters) are arguments too: the
            # reference run's backward would not reach their copies, so it is no faithful reference
            note = ("not verified: an argument's autograd graph reaches tensors the call also gets "
                    "directly (e.g. a loss and the model's parameters); copies cannot keep both apart")
            if note not in stats.verify_skipped:
                stats.verify_skipped.append(note)
                log.info("%s (%s): %s", fn.__qualname__, _where(fn), note)
            return self.compiled(*args, **kwargs)
        stats.verified_calls += 1
        scope = fn.__globals__
        before = dict(scope)
        rng = RngState()
        with capturing():  # the reference run: nested compiled functions run their originals
            eager = _run(fn, eager_args, eager_kwargs)
        eager_rng = RngState()
        eager_scope = dict(scope)
        _rebind(scope, before)
        rng.restore()
        compiled = _run(self.compiled, args, kwargs)
        what = _compare(compiled, eager, args, kwargs, eager_args, eager_kwargs, copies, fn,
                        before, eager_scope, scope)
        if what is None:
            if compiled.error is not None:
                raise compiled.error
            return compiled.value
        self._report(what, number)
        # correctness first: the caller continues with the original function's outcome
        for real, made in zip(list(args) + list(kwargs.values()), list(eager_args) + list(eager_kwargs.values())):
            if real is not made:
                _adopt(real, made, copies)
        _rebind(scope, {name: _to_real(value, copies) for name, value in eager_scope.items()})
        eager_rng.restore()
        if eager.error is not None:
            raise eager.error
        return _to_real(eager.value, copies)

    def _report(self, what: str, number: int) -> None:
        fn = self.shim.fn
        entries = list(self.shim.entries)
        index = entries.index(self.entry) + 1 if self.entry in entries else len(entries) + 1
        result = self.entry.result
        graphs = []
        for record in getattr(result, "graphs", ()) or ():
            try:
                code = record.gm.code
            except Exception as error:  # noqa: BLE001
                code = f"(graph code not available: {error})"
            graphs.append((record.name, code))
        try:
            guards = self.entry.guards.describe()
        except Exception:  # noqa: BLE001
            guards = [str(g) for g in getattr(self.entry.guards, "guards", ())]
        mismatch = Mismatch(fn.__qualname__, _where(fn), index, number, what, guards, graphs)
        self.shim.stats.verify_mismatches.append(mismatch.short())
        self.shim._replace_entry_fn(self.entry, fn)
        text = mismatch.message()
        log.info("%s", text)
        code = fn.__code__  # the warning points at the function, not at autograph's frames
        warnings.warn_explicit(text, VerifyMismatchWarning, code.co_filename, code.co_firstlineno,
                               module=getattr(fn, "__module__", None) or "autograph")


def _where(fn: types.FunctionType) -> str:
    code = fn.__code__
    return f"{code.co_filename}:{code.co_firstlineno}"


def _user_name(name: str) -> bool:
    return not name.startswith("__")  # dunders are the module's and autograph's own (__autograph_resumes__)


def _rebind(scope: dict, target: dict) -> None:
    """Make the module globals ``scope`` bind what ``target`` binds (same dict object; dunders left alone)."""
    for name in [name for name in scope if name not in target and _user_name(name)]:
        del scope[name]
    for name, value in target.items():
        if _user_name(name) and scope.get(name, _MISSING) is not value:
            scope[name] = value


def _compare(compiled: Outcome, eager: Outcome, args: tuple, kwargs: dict, eager_args: tuple, eager_kwargs: dict,
             copies: Copies, fn: types.FunctionType, before: dict, eager_scope: dict, scope: dict) -> str | None:
    """What differs between the two runs (None: nothing a caller could see)."""
    comparer = Comparer(copies)
    if (compiled.error is None) != (eager.error is None):
        def said(outcome: Outcome) -> str:
            if outcome.error is None:
                return "returned normally"
            return f"raised {type(outcome.error).__name__}: {outcome.error}"
        return f"the compiled call {said(compiled)}, the original {said(eager)}"
    if eager.error is not None:
        if type(compiled.error) is not type(eager.error):
            return (f"exception type {type(compiled.error).__name__} (compiled) vs "
                    f"{type(eager.error).__name__} (eager)")
        why = comparer.diff(compiled.error, eager.error, "the exception")
    else:
        why = comparer.diff(compiled.value, eager.value, "the result")
    if why:
        return why
    names = _parameter_names(fn, len(args))
    for name, real, made in zip(names, args, eager_args):
        if name.startswith("___stack"):
            # a resume function's stack slot (a `with` block's context manager object made by
            # the compiled code): no name of the user's reaches it, so only results matter
            continue
        why = comparer.diff(real, made, f"argument {name!r} after the call")
        if why:
            return why
    for name, real in kwargs.items():
        why = comparer.diff(real, eager_kwargs[name], f"argument {name!r} after the call")
        if why:
            return why
    for name in sorted(set(eager_scope) | set(scope)):
        if not _user_name(name):
            continue
        e_value, c_value = eager_scope.get(name, _MISSING), scope.get(name, _MISSING)
        if e_value is before.get(name, _MISSING) and c_value is before.get(name, _MISSING):
            continue
        if (e_value is _MISSING) != (c_value is _MISSING):
            state = lambda v: "unbound" if v is _MISSING else "bound"  # noqa: E731
            return f"global {name!r}: {state(c_value)} (compiled) vs {state(e_value)} (eager)"
        why = comparer.diff(c_value, e_value, f"global {name!r}")
        if why:
            return why
    return None


def _parameter_names(fn: types.FunctionType, count: int) -> list[str]:
    code = fn.__code__
    names = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    if code.co_flags & 0x04:  # *args
        names.append(code.co_varnames[code.co_argcount + code.co_kwonlyargcount])
        star = names[-1]
        names = names[:code.co_argcount] + [f"{star}[{i}]" for i in range(max(0, count - code.co_argcount))]
    return names[:count] + [f"#{i}" for i in range(len(names), count)]


def attach(shim: Any, entry: Any, calls: int) -> None:
    """Verify the first ``calls`` calls of ``entry`` (before the shim adds it)."""
    if calls > 0 and not isinstance(entry.fn, VerifiedEntry):
        entry.fn = VerifiedEntry(shim, entry, calls)
