"""Attribute sweep: every attribute of every kind of value a program meets, used every way.

For each value kind (int, str, list, namedtuple, dataclass and plain instances, NumPy arrays and
scalars, ``torch.dtype``/``device``/``Size``, tensors, dynamic ints, ...) and every name in
``dir(value)`` (dunders included), one case reads the attribute (or calls it with arguments drawn
from a pool) and uses the result: returned, stored in a module list, given to ``type()`` and
``isinstance``, formatted with ``%``/``format``/f-strings, compared and hashed. Each runs with
the value as a constant of the function, as an argument, as an int that changes between calls
(so it becomes dynamic) and after a graph break (a ``print`` to a ``StringIO``).

Which uses a case writes is decided here, on real values: a use is written only when plain
Python gives the same answer for two fresh copies of the value (so the runner can compare eager
and compiled results), and a call only with arguments that Python accepts (else one case checks
that the same exception is raised). Nothing is taken from autograph.
"""
from __future__ import annotations

import math
import random
import re
import sys
import types
import warnings
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np
import torch

from autograph.testing.sweeps.case import SweepCase

SWEEP = "attributes"


@dataclass(frozen=True)
class Kind:
    """A kind of value: ``expr`` builds a fresh one (source text); ``varying`` (in terms of the
    call number ``i``) makes a different one per call, for kinds that become dynamic."""
    name: str
    expr: str
    varying: str | None = None
    mutable: bool = False


# module-level definitions every case has (the program's own classes and the break's sink)
PRELUDE = '''\
import collections
import dataclasses
import io

import numpy as np
import torch

Pt = collections.namedtuple("Pt", "x y")


@dataclasses.dataclass
class DC:
    a: int
    b: str = "b"

    def total(self, k=1):
        return self.a * k


class Plain:
    kind = "plain"

    def __init__(self, a):
        self.a = a

    def scaled(self, k=2):
        return self.a * k

    def __repr__(self):
        return f"Plain({self.a})"

    def __eq__(self, other):
        return type(other) is Plain and other.a == self.a

    def __hash__(self):
        return hash(self.a)


_SINK = io.StringIO()
STORE = []


def world():
    return {"store": list(STORE)}
'''

KINDS = (
    Kind("int", "7", varying="3 + 2 * i"),
    Kind("float", "2.5", varying="1.5 + i"),
    Kind("bool", "True"),
    Kind("complex", "(1+2j)"),
    Kind("str", "'abc'"),
    Kind("bytes", "b'abc'"),
    Kind("list", "[3, 1, 2]", mutable=True),
    Kind("tuple", "(3, 1, 2)"),
    Kind("dict", "{'a': 1, 'b': 2}", mutable=True),
    Kind("set", "{3, 1, 2}", mutable=True),
    Kind("frozenset", "frozenset({3, 1, 2})"),
    Kind("range", "range(1, 7, 2)"),
    Kind("slice", "slice(1, 5, 2)"),
    Kind("None", "None"),
    Kind("type", "int"),
    Kind("namedtuple", "Pt(1, 2)"),
    Kind("dataclass", "DC(1)", mutable=True),
    Kind("plain", "Plain(1)", mutable=True),
    Kind("ndarray", "np.arange(4)", mutable=True),
    Kind("np_float64", "np.float64(1.5)"),
    Kind("np_int64", "np.int64(3)"),
    Kind("dtype", "torch.float32"),
    Kind("device", "torch.device('cpu')"),
    Kind("Size", "torch.Size([2, 3])"),
    Kind("tensor", "torch.arange(4.0)", mutable=True),
)

MODES = ("constant", "argument", "dynamic", "after-break")

# names left out, each with why its answer is not the program's to compare
EXCLUDED = {
    "__sizeof__": "the object's memory footprint: an interpreter detail that differs between runs of equal values",
    "__init__": "re-runs the constructor on the live value: not an attribute programs read",
    "__new__": "allocates through the raw constructor: the result's identity and layout are the interpreter's",
    "__dlpack__": "exports a capsule holding a raw pointer",
    "__dlpack_device__": "a device id pair; kept out with __dlpack__",
    "data_ptr": "a memory address",
    "_cdata": "a memory address",
    "share_memory_": "moves the storage to process-shared memory",
    "pin_memory": "needs an accelerator",
    "is_pinned": "needs an accelerator",
    "record_stream": "needs an accelerator",
    "__reduce__": "pickling state of storages and rebuild functions, not program values",
    "__reduce_ex__": "pickling state of storages and rebuild functions, not program values",
    "__getstate__": "pickling state, not program values",
    "__setstate__": "rewrites pickled state in place",
    "__array_wrap__": "NumPy's internal hook",
    "__array_finalize__": "NumPy's internal hook",
    "__array_prepare__": "NumPy's internal hook",
    "ctypes": "a ctypes view holding a memory address",
    "__array_interface__": "holds a memory address",
    "__array_struct__": "a capsule holding a memory address",
    "tofile": "writes a file",
    "dump": "writes a file",
    "dumps": "pickled bytes",
    "__deepcopy__": "copies through memo dicts keyed by id",
    "__copy__": "fresh copies: compared by the copy module's own tests",
    "register_hook": "installs a callback on autograd",
    "register_post_accumulate_grad_hook": "installs a callback on autograd",
    "backward": "runs autograd",
    "retain_grad": "changes autograd state",
    "new_empty": "uninitialised memory: its values are whatever the allocator left there",
}

# arguments a method is tried with, as source text (``V`` is another fresh value of the kind)
ARGUMENT_POOL = ("", "0", "1", "2", "-1", "'a'", "1, 2", "'a', 'b'", "2.5", "None", "True", "(1, 2)",
                 "[1, 2]", "V", "torch.float64", "0, 1, 2")
MAX_CALL_FORMS = 2
_GENERATION_MODULE = "attributes_sweep_program"
_PRIVATE_SKIPPED = ("tensor", "ndarray", "np_float64", "np_int64")  # their `_x` names are private API


def cases(seed: int) -> Iterator[SweepCase]:
    """Every case once, in an order drawn from ``seed`` (a bounded run sees a spread of kinds)."""
    plan = [(kind, name, mode) for kind in KINDS for name in _names(kind) for mode in _modes(kind)]
    random.Random(seed).shuffle(plan)
    namespace = _namespace()
    for kind, name, mode in plan:
        yield from _cases_for(namespace, kind, name, mode)


def _modes(kind: Kind) -> tuple[str, ...]:
    return tuple(m for m in MODES if m != "dynamic" or kind.varying is not None)


def _namespace() -> dict:
    """The prelude run in a module of its own (dataclasses look their module up in sys.modules)."""
    module = sys.modules.get(_GENERATION_MODULE)
    if module is None:
        module = types.ModuleType(_GENERATION_MODULE)
        sys.modules[_GENERATION_MODULE] = module
        exec(compile(PRELUDE, "<attributes sweep prelude>", "exec"), module.__dict__)  # noqa: S102
    return module.__dict__


def _names(kind: Kind) -> list[str]:
    value = eval(kind.expr, _namespace())  # noqa: S307
    names = []
    for name in sorted(dir(value)):
        if name in EXCLUDED:
            continue
        if kind.name in _PRIVATE_SKIPPED and name.startswith("_") and not name.startswith("__"):
            continue
        names.append(name)
    return names


# ------------------------------------------------------------------------- deciding what to write

def _fresh(namespace: dict, kind: Kind, mode: str) -> Any:
    expr = kind.varying.replace("i", "1") if mode == "dynamic" else kind.expr
    return eval(expr, namespace)  # noqa: S307


def _evaluate(namespace: dict, kind: Kind, mode: str, expr: str, keep: list | None = None) -> tuple[bool, Any]:
    """``expr`` (in terms of ``v``, a fresh value, and ``V``, another) run for real; ``keep``
    holds the values alive (a freed value's address is reused: ``id``-based answers would agree)."""
    scope = dict(namespace, v=_fresh(namespace, kind, mode), V=_fresh(namespace, kind, mode))
    if keep is not None:
        keep.append(scope)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = eval(expr, scope)  # noqa: S307
    except Exception as exc:  # noqa: BLE001 - Python refuses: that is an answer too
        return False, exc
    if keep is not None:
        keep.append(value)
    return True, value


def _plain(value: Any, depth: int = 0) -> bool:
    """Values the runner can compare between two runs (no addresses, no live objects)."""
    if depth > 3:
        return False
    if type(value) is str and _GENERATION_MODULE in value:
        return False  # the program module's name: one per loaded copy
    if value is None or type(value) in (int, float, bool, complex, str, bytes, range, slice, torch.dtype,
                                        torch.device, torch.Size):
        return not (type(value) is float and math.isnan(value))
    if isinstance(value, type):  # (the program's own classes are one per loaded copy: not comparable)
        return value.__module__ != _GENERATION_MODULE
    if type(value) in (tuple, list, set, frozenset) or _is_namedtuple(value):
        return all(_plain(v, depth + 1) for v in value)
    if type(value) is dict:
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in value.items())
    if type(value) is torch.Tensor:
        return value.device.type == "cpu" and value.layout is torch.strided and value.numel() <= 64
    if type(value).__qualname__ in ("DC", "Plain"):
        return _plain(vars(value), depth + 1)
    return False


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def _same(a: Any, b: Any) -> bool:
    from autograph.testing.fuzz.diff import diff_values
    try:
        return diff_values(a, b, "r") is None
    except Exception:  # noqa: BLE001 - not comparable
        return False


def _stable(namespace: dict, kind: Kind, mode: str, expr: str) -> bool:
    """Two fresh copies give the same plain answer (so eager and compiled can be compared)."""
    keep: list = []
    ok1, first = _evaluate(namespace, kind, mode, expr, keep)
    ok2, second = _evaluate(namespace, kind, mode, expr, keep)
    return ok1 and ok2 and _plain(first) and _plain(second) and _same(first, second)


def _hash_stable(namespace: dict, kind: Kind, mode: str, expr: str) -> bool:
    """``hash()`` of two equal values, both alive, agrees. Hashing inside the evaluated text
    (``hash(v.abs())``) frees each temporary before the next is made: the allocator may hand the
    second one the first one's address, and an identity hash (tensors, plain objects) would then
    agree here and differ between the runner's eager runs."""
    keep: list = []
    ok1, first = _evaluate(namespace, kind, mode, expr, keep)
    ok2, second = _evaluate(namespace, kind, mode, expr, keep)
    if not (ok1 and ok2) or first is second:
        return ok1 and ok2 and _hashable(first)
    return _hashable(first) and _hashable(second) and hash(first) == hash(second)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except Exception:  # noqa: BLE001 - unhashable (or a __hash__ that raises)
        return False
    return True


def _text_stable(namespace: dict, kind: Kind, mode: str, expr: str) -> bool:
    keep: list = []
    ok1, first = _evaluate(namespace, kind, mode, f"repr({expr})", keep)
    ok2, second = _evaluate(namespace, kind, mode, f"repr({expr})", keep)
    # (text naming the program's module differs between the eager and the compiled copy)
    return ok1 and ok2 and first == second and " at 0x" not in first and _GENERATION_MODULE not in first


def _uses(namespace: dict, kind: Kind, mode: str, result: str) -> list[str]:
    """Observations of ``r`` (templates; ``result`` is what ``r`` is: an expression of ``v``) that
    plain Python answers stably for fresh values."""
    uses = ["type(r).__name__", "isinstance(r, (int, str, tuple, type))", "callable(r)"]
    if _stable(namespace, kind, mode, result):
        uses += ["r", "r == r", "r != None"]
    if _text_stable(namespace, kind, mode, result):
        uses += ['"%s|%r" % (r, r)', "format(r)", 'f"{r!r:>8}"', "str(r)"]
    if _stable(namespace, kind, mode, result) and _hash_stable(namespace, kind, mode, result):
        uses.append("hash(r)")
    ok, value = _evaluate(namespace, kind, mode, result)
    if ok and isinstance(value, np.ndarray):
        uses += ["r.tolist()", "r.dtype.str"]
    elif ok and isinstance(value, np.generic):
        uses += ["r.item()", "r.dtype.str"]
    return [u for u in uses if _evaluate(namespace, kind, mode, _bind(u, result))[0]]


def _bind(use: str, result: str) -> str:
    """The use with ``r`` replaced by the expression it stands for (as a whole word)."""
    return re.sub(r"\br\b(?!')", f"({result})", use.replace('"%s|%r"', "FMT")).replace("FMT", '"%s|%r"')


def _call_forms(namespace: dict, kind: Kind, mode: str, name: str) -> list[tuple[str, bool]]:
    """``(call expression, Python accepts it)``: up to two argument lists Python accepts, else the
    first tried (the case then checks that the same exception is raised)."""
    forms = []
    for args in ARGUMENT_POOL:
        expr = f"v.{name}({args})"
        if _evaluate(namespace, kind, mode, expr)[0]:
            forms.append((expr, True))
            if len(forms) == MAX_CALL_FORMS:
                break
    return forms or [(f"v.{name}()", False)]


# ------------------------------------------------------------------------- writing the cases

def _cases_for(namespace: dict, kind: Kind, name: str, mode: str) -> Iterator[SweepCase]:
    read = f"v.{name}"
    ok, value = _evaluate(namespace, kind, mode, read)
    if not ok:  # AttributeError and friends: the same exception, compiled
        yield _case(kind, name, mode, "raises", read, [], stored=False)
        return
    uses = _uses(namespace, kind, mode, read)
    if _stable(namespace, kind, mode, f"{read} == {read}"):
        uses.append(f"{read} == {read}")  # two reads
    yield _case(kind, name, mode, "read", read, uses, stored="r" in uses)
    if callable(value) and not isinstance(value, type):
        for n, (call, accepted) in enumerate(_call_forms(namespace, kind, mode, name)):
            uses = _uses(namespace, kind, mode, call) if accepted else []
            yield _case(kind, name, mode, f"call{n}" if accepted else "call-raises", call, uses,
                        stored="r" in uses)


def _observed_argument(kind: Kind) -> str:
    """How the case returns its (possibly changed) argument: as itself, or NumPy's as a list."""
    return "v.tolist()" if kind.name == "ndarray" else "v"


def _case(kind: Kind, name: str, mode: str, form: str, result: str, uses: list[str], stored: bool) -> SweepCase:
    lines = ["    y = x + 1"]
    if mode == "constant":
        lines.append(f"    v = {kind.expr}")
    if "V" in result:
        lines.append("    V = " + ("v" if mode == "dynamic" else kind.expr))
    if mode == "after-break":
        lines.append('    print("break", file=_SINK)')
    lines.append(f"    r = {result}")
    if stored:
        lines.append("    STORE.append(r)")
    lines.append(f"    out = ({''.join(u + ', ' for u in uses)})")
    back = f", {_observed_argument(kind)}" if kind.mutable and mode != "constant" else ""
    lines.append(f"    return y * 2, out{back}")
    params = "x" if mode == "constant" else "x, v"
    arg = kind.varying if mode == "dynamic" else kind.expr
    make_args = "torch.ones(2) * i," if mode == "constant" else f"torch.ones(2) * i, {arg}"
    source = (PRELUDE + f"\n\ndef fn({params}):\n" + "\n".join(lines) + "\n\n\n"
              f"def make_call(i):\n    return ({make_args}), {{}}\n\n\nCALLS = 4\n")
    return SweepCase(SWEEP, f"{SWEEP}:{kind.name}:{name}:{form}:{mode}", source)


def count(seed: int = 0) -> int:
    """How many cases a full sweep has (for reports)."""
    return sum(1 for _ in cases(seed))


# differences known and not yet fixed, by the case name's ``name:form`` part, each with why.
# The ndarray ones stay: handing back an owning copy of a graph output would cut the memory the
# array shares with other arrays and tensors the call returns (``a`` and ``a[1:]``, ``t.numpy()``
# and ``t``); owning exactly when NumPy would own needs the views between outputs tracked.
KNOWN_DIFFERENCES = {
    "ndarray:flags": "an ndarray made by compiled code is a view of the graph's output tensor: flags.owndata is False",
    "ndarray:base": "an ndarray made by compiled code is a view of the graph's output tensor: its base is not None",
    "ndarray:resize": "an ndarray made by compiled code is a view of the graph's output tensor: it cannot resize",
}


def known_difference(case: SweepCase) -> str | None:
    """Why ``case`` is a known, not yet fixed difference (the runner does not count it), or None."""
    return next((why for key, why in KNOWN_DIFFERENCES.items() if f":{key}:" in case.name), None)
