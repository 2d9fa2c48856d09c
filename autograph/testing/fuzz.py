"""Differential fuzzing: random small PyTorch programs, run eager and compiled, compared.

A compiled function must behave exactly like eager. This module generates the
*source text* of small Python modules (a function ``fn`` plus helper functions,
closures and ``nn.Module``s), execs each into two fresh module namespaces backed
by a real file (so a bytecode-level compiler sees real code objects and line
numbers), calls ``fn`` several times with fresh random inputs — once with a
different batch size and once with a different int argument, so guards and
recompiles are exercised — and compares eager with compiled on everything a
caller can observe: returned values, raised exceptions (type and message),
mutated input tensors and lists, module globals and module state, printed output.

Public pieces:
* ``generate_program(seed)`` / ``programs()`` — the generator (plain ``random`` or a
  hypothesis strategy; both drive the same ``ProgramBuilder``).
* ``check_program(program, compiler)`` — the differential checker; returns the
  ``Difference`` s found (empty list: compiled behaved like eager).
* ``minimize(program, compiler, difference)`` — removes statements while the same
  kind of difference persists, for readable regression tests.
* ``regression_test_source(...)`` — the text of a regression test file.
* ``autograph_compiler()`` / ``dynamo_compiler()`` — compilers to check.
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib.util
import io
import itertools
import json
import linecache
import math
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import types
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence, TypeVar

import torch

from autograph.testing.compare import same

T = TypeVar("T")

# A compiler maps the original function to a callable that must behave like it.
Compiler = Callable[[types.FunctionType], Callable[..., Any]]

ENTRY = "fn"

# Every feature family the generator knows; a FuzzConfig may switch some off.
FEATURES = frozenset({
    "python_numbers", "containers", "comprehensions", "helpers", "modules",
    "branch_python", "branch_tensor", "loops", "inplace", "list_append", "globals",
    "print", "exceptions", "try_except", "data_dependent", "dynamic_shapes",
})


@dataclass(frozen=True)
class FuzzConfig:
    """What the generator may use; ``min/max_statements`` bound ``fn``'s body."""
    features: frozenset[str] = FEATURES
    min_statements: int = 3
    max_statements: int = 12

    def without(self, *names: str) -> "FuzzConfig":
        unknown = set(names) - FEATURES
        if unknown:
            raise ValueError(f"unknown fuzz features {sorted(unknown)}; known: {sorted(FEATURES)}")
        return dataclasses.replace(self, features=self.features - set(names))


DEFAULT_CONFIG = FuzzConfig()


# ---------------------------------------------------------------------------
# Programs: source text + how to call it
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Param:
    """One parameter of ``fn``: ``tensor`` (shape in dim symbols), ``int``, ``list``
    (of ``length`` tensors of ``shape``) or ``float`` (has a default, never passed)."""
    name: str
    kind: str
    shape: tuple[str, ...] = ()
    length: int = 0


@dataclass(frozen=True)
class Program:
    """A generated program and the plan of calls made to its ``fn``.

    ``dims`` binds the dim symbols (``A``, ``B``, ``C``) to sizes; call number
    ``ALT_SHAPE_CALL`` uses ``alt_a`` for ``A``; ``ints`` are the values of the int
    parameter, the second one used by call ``ALT_INT_CALL`` only.
    """
    source: str
    params: tuple[Param, ...]
    dims: tuple[tuple[str, int], ...]
    alt_a: int
    ints: tuple[int, int] = (2, 3)
    inputs_seed: int = 0
    generator_seed: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "params": [dataclasses.asdict(p) for p in self.params],
            "dims": [list(d) for d in self.dims],
            "alt_a": self.alt_a,
            "ints": list(self.ints),
            "inputs_seed": self.inputs_seed,
            "generator_seed": self.generator_seed,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Program":
        return cls(
            source=data["source"],
            params=tuple(Param(p["name"], p["kind"], tuple(p["shape"]), p["length"]) for p in data["params"]),
            dims=tuple((str(k), int(v)) for k, v in data["dims"]),
            alt_a=int(data["alt_a"]),
            ints=(int(data["ints"][0]), int(data["ints"][1])),
            inputs_seed=int(data["inputs_seed"]),
            generator_seed=data.get("generator_seed"),
        )

    def with_source(self, source: str) -> "Program":
        return dataclasses.replace(self, source=source)


# Calls 0..4: same shapes with fresh values, a new int value, a new batch size, back again.
CALLS = 5
ALT_INT_CALL = 2
ALT_SHAPE_CALL = 3


def call_dims(program: Program, call: int) -> dict[str, int]:
    dims = dict(program.dims)
    if call == ALT_SHAPE_CALL:
        dims["A"] = program.alt_a
    return dims


def make_inputs(program: Program, call: int) -> list[Any]:
    """The arguments of call number ``call``: deterministic in (inputs_seed, call)."""
    generator = torch.Generator().manual_seed(program.inputs_seed * 1009 + call)
    dims = call_dims(program, call)

    def tensor(shape: tuple[str, ...]) -> torch.Tensor:
        return torch.randn([dims[d] if d in dims else int(d) for d in shape], generator=generator)

    args: list[Any] = []
    for param in program.params:
        if param.kind == "tensor":
            args.append(tensor(param.shape))
        elif param.kind == "int":
            args.append(program.ints[1] if call == ALT_INT_CALL else program.ints[0])
        elif param.kind == "list":
            args.append([tensor(param.shape) for _ in range(param.length)])
        # "float" parameters keep their default
    return args


# ---------------------------------------------------------------------------
# Choosers: where the generator's decisions come from
# ---------------------------------------------------------------------------

class RandomChooser:
    """Decisions from ``random.Random(seed)``: fast, reproducible by seed."""

    def __init__(self, seed: int):
        self._random = random.Random(seed)

    def integer(self, low: int, high: int) -> int:
        return self._random.randint(low, high)

    def chance(self, probability: float) -> bool:
        return self._random.random() < probability


class DrawChooser:
    """Decisions drawn from hypothesis, so failures shrink toward option 0."""

    def __init__(self, draw: Callable[[Any], Any]):
        from hypothesis import strategies as st
        self._draw = draw
        self._st = st

    def integer(self, low: int, high: int) -> int:
        return self._draw(self._st.integers(low, high))

    def chance(self, probability: float) -> bool:
        # shrinking draws toward 0, i.e. toward "no": simpler programs
        return self._draw(self._st.integers(0, 999)) >= round((1 - probability) * 1000)


def _pick(chooser: Any, options: Sequence[T]) -> T:
    return options[chooser.integer(0, len(options) - 1)]


# ---------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Ty:
    """Static type of a generated variable.

    kind: ``tensor`` (shape), ``int`` (``small``: safe as a loop bound or index),
    ``float``, ``tlist``/``ttuple`` (``length`` tensors of ``shape``; a list may be
    longer at run time), ``tdict`` (``keys`` -> tensors of ``shape``).
    """
    kind: str
    shape: tuple[str, ...] = ()
    small: bool = False
    length: int = 0
    keys: tuple[str, ...] = ()


_UNARY = (
    "torch.sin({0})", "{0}.cos()", "torch.tanh({0})", "torch.relu({0})", "{0}.sigmoid()",
    "{0}.abs()", "-{0}", "torch.exp({0}.clamp(max=3.0))", "torch.sqrt({0}.abs() + 1)",
    "{0}.clamp(min=-0.5, max=0.5)", "F.gelu({0})", "{0} ** 2", "torch.log1p({0}.abs())",
    "F.silu({0})", "{0}.float()", "torch.sqrt({0})", "{0}.neg().exp()",
)
_BINARY_OP = ("+", "-", "*", "/")
_BINARY_FN = ("torch.maximum({0}, {1})", "torch.where({0} > {1}, {0}, {1})", "torch.add({0}, {1}, alpha=0.5)",
              "torch.minimum({0}, {1})")
_TENSOR_CONDITIONS = ("{0}.sum() > 0", "{0}.mean() < 0.1", "({0} > 0).any()", "{0}.max() > 1.0",
                      "bool(({0} > 0.5).all())", "{0}.sum().item() > 0.5", "float({0}.min()) < -1.0")


def _broadcast(left: tuple[str, ...], right: tuple[str, ...]) -> tuple[str, ...] | None:
    """Result shape of broadcasting two symbolic shapes, or None when not provably valid."""
    result = []
    for index in range(1, max(len(left), len(right)) + 1):
        a = left[-index] if index <= len(left) else "1"
        b = right[-index] if index <= len(right) else "1"
        if a == b or b == "1":
            result.append(a)
        elif a == "1":
            result.append(b)
        else:
            return None
    return tuple(reversed(result))


class ProgramBuilder:
    """Builds one program from a chooser's decisions, tracking the static type of
    every variable so that most programs run (errors are generated on purpose)."""

    def __init__(self, chooser: Any, config: FuzzConfig = DEFAULT_CONFIG):
        self.c = chooser
        self.config = config
        self.lines: list[str] = []
        self.indent = 0
        self.env: dict[str, Ty] = {}
        self.counter = itertools.count()
        self.used_globals: set[str] = set()  # names fn assigns (need `global`)
        self.helpers: list[tuple[str, str]] = []  # (name, calling convention)
        self.modules: list[str] = []
        self.int_param: str | None = None
        self.list_param: str | None = None
        self.tensor_params: list[str] = []

    # -- small utilities --------------------------------------------------
    def on(self, feature: str, probability: float = 1.0) -> bool:
        return feature in self.config.features and self.c.chance(probability)

    def pick(self, options: Sequence[T]) -> T:
        return _pick(self.c, options)

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self.counter)}"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def names(self, kind: str, predicate: Callable[[Ty], bool] = lambda ty: True) -> list[str]:
        return [name for name, ty in self.env.items() if ty.kind == kind and predicate(ty)]

    @contextlib.contextmanager
    def block(self, header: str) -> Iterator[None]:
        """An indented block; names first bound inside it are forgotten after it
        (they may be unbound at run time), reassigned outer names keep their type."""
        self.emit(header)
        saved = dict(self.env)
        self.indent += 1
        start = len(self.lines)
        yield
        if len(self.lines) == start:
            self.emit("pass")
        self.indent -= 1
        self.env = saved

    # -- expressions --------------------------------------------------------
    def number(self) -> str:
        """A Python number expression: a literal or an int/float variable."""
        pool = self.names("int") + self.names("float")
        if pool and self.c.chance(0.4):
            return self.pick(pool)
        return self.pick(("2", "0.5", "1.5", "3", "-1.0", "0.25"))

    def same_shape_expr(self, name: str) -> str:
        """An expression with the type of tensor ``name``."""
        shape = self.env[name].shape
        roll = self.c.integer(0, 9)
        if roll <= 3:
            return self.pick(_UNARY).format(name)
        if roll <= 6:
            partners = [other for other in self.names("tensor") if _broadcast(shape, self.env[other].shape) == shape]
            other = self.pick(partners) if partners and self.c.chance(0.7) else None
            if other is None:
                return f"{name} {self.pick(_BINARY_OP)} {self.number()}"
            if self.c.chance(0.6):
                return f"{name} {self.pick(_BINARY_OP)} {other}"
            return self.pick(_BINARY_FN).format(name, other)
        if roll == 7 and len(shape) >= 1:
            return self.pick((f"torch.softmax({name}, dim=-1)", f"F.log_softmax({name}, dim=-1)",
                              f"{name} - {name}.mean(dim=-1, keepdim=True)", f"{name}.cumsum(dim=-1)"))
        if roll == 8:
            return f"{self.number()} * {name} + {self.number()}"
        return self.pick(_UNARY).format(f"({self.pick(_UNARY).format(name)})")

    def shape_changing(self, name: str) -> tuple[str, tuple[str, ...]] | None:
        """A new tensor expression from ``name`` with its resulting shape."""
        shape = self.env[name].shape
        options: list[tuple[str, tuple[str, ...]]] = [
            (f"{name}.sum()", ()), (f"{name}.mean()", ()), (f"{name}.unsqueeze(0)", ("1",) + shape),
        ]
        if len(shape) >= 1:
            options += [
                (f"{name}.sum(dim=-1)", shape[:-1]), (f"{name}.amax(dim=-1, keepdim=True)", shape[:-1] + ("1",)),
                (f"{name}.mean(dim=0)", shape[1:]), (f"torch.stack([{name}, {name} * 2])", ("2",) + shape),
                (f"torch.cat([{name}, {name}.cos()], dim=0)", (self.fresh("d"),) + shape[1:]),
                (f"{name}.reshape(-1)", (self.fresh("d"),)),
            ]
            if shape[0] in ("A", "B", "C"):
                options.append((f"{name}[0]", shape[1:]))
                options.append((f"{name}[1:]", (self.fresh("d"),) + shape[1:]))
                options.append((f"{name}[-1]", shape[1:]))
        if len(shape) == 2:
            options += [(f"{name}.t()", (shape[1], shape[0])), (f"{name}.transpose(0, 1).contiguous()", (shape[1], shape[0])),
                        (f"{name} @ {name}.t()", (shape[0], shape[0])), (f"{name}[:, :1]", (shape[0], "1")),
                        (f"{name}.flatten()", (self.fresh("d"),))]
            if shape[1] in ("B", "C"):
                options.append((f"{name}.view(-1, {self.dim(shape[1])})", (self.fresh("d"), shape[1])))
            for other in self.names("tensor"):
                other_shape = self.env[other].shape
                if len(other_shape) == 2 and other_shape[0] == shape[1]:
                    options.append((f"{name} @ {other}", (shape[0], other_shape[1])))
                    options.append((f"torch.matmul({name}, {other})", (shape[0], other_shape[1])))
        if "dynamic_shapes" in self.config.features:
            options.append((f"{name}[{name} > 0]", (self.fresh("d"),)))
            options.append((f"torch.nonzero({name} > 0).float()", (self.fresh("d"), str(len(shape)))))
        return self.pick(options)

    def dim(self, symbol: str) -> str:
        return str(dict(self.dims)[symbol])

    def condition(self) -> str:
        """A branch condition: on Python values, or on tensor values (data-dependent)."""
        tensors = self.names("tensor")
        if tensors and self.on("branch_tensor", 0.5):
            return self.pick(_TENSOR_CONDITIONS).format(self.pick(tensors))
        options = [f"{self.pick(tensors)}.shape[0] > 3", f"{self.pick(tensors)}.dim() == 2"] if tensors else ["True"]
        if self.int_param:
            options += [f"{self.int_param} > 2", f"{self.int_param} % 2 == 0"]
        options += [f"{name} > 1" for name in self.names("int")]
        options += [f"{name} > 0.5" for name in self.names("float")]
        if self.list_param:
            options.append(f"len({self.list_param}) > 1")
        if "globals" in self.config.features:
            options.append("FLAG")
        return self.pick(options)

    def small_int(self) -> str:
        pool = self.names("int", lambda ty: ty.small)
        if pool and self.c.chance(0.6):
            return f"min({self.pick(pool)}, 4)"
        return self.pick(("2", "3", "1", "0"))

    # -- statements ---------------------------------------------------------
    def statement(self, depth: int) -> None:
        """One statement (maybe a compound one) at the current indent."""
        kinds: list[tuple[str, int]] = [("new_tensor", 6), ("update_tensor", 4), ("shape_change", 3)]
        f = self.config.features
        if "python_numbers" in f:
            kinds.append(("number", 2))
        if "containers" in f:
            kinds.append(("container", 2))
        if "comprehensions" in f:
            kinds.append(("comprehension", 1))
        if "helpers" in f and self.helpers:
            kinds.append(("call_helper", 3))
        if "modules" in f and self.modules:
            kinds.append(("call_module", 2))
        if depth < 2 and ("branch_python" in f or "branch_tensor" in f):
            kinds.append(("branch", 3))
        if depth < 2 and "loops" in f:
            kinds.append(("loop", 2))
        if "inplace" in f:
            kinds.append(("inplace", 1))
        if "list_append" in f and self.list_param:
            kinds.append(("append", 1))
        if "globals" in f:
            kinds.append(("global", 1))
        if "print" in f:
            kinds.append(("print", 1))
        if "exceptions" in f:
            kinds.append(("raise", 1))
        if depth < 2 and "try_except" in f:
            kinds.append(("try", 1))
        if "data_dependent" in f:
            kinds.append(("item", 1))
        total = sum(weight for _, weight in kinds)
        roll = self.c.integer(0, total - 1)
        for kind, weight in kinds:
            if roll < weight:
                getattr(self, f"stmt_{kind}")(depth)
                return
            roll -= weight

    def body(self, depth: int, low: int, high: int) -> None:
        for _ in range(self.c.integer(low, high)):
            self.statement(depth)

    def stmt_new_tensor(self, depth: int) -> None:
        source = self.pick(self.names("tensor"))
        name = self.fresh("t")
        self.emit(f"{name} = {self.same_shape_expr(source)}")
        self.env[name] = self.env[source]

    def stmt_update_tensor(self, depth: int) -> None:
        target = self.pick(self.names("tensor"))
        if "inplace" in self.config.features and self.c.chance(0.25):
            others = [o for o in self.names("tensor") if _broadcast(self.env[target].shape, self.env[o].shape) == self.env[target].shape]
            # augmented assignment: in place when the target is an input alias
            self.emit(f"{target} {self.pick(('+=', '*=', '-='))} {self.pick(others) if others else self.number()}")
        else:
            self.emit(f"{target} = {self.same_shape_expr(target)}")

    def stmt_shape_change(self, depth: int) -> None:
        source = self.pick(self.names("tensor"))
        expr, shape = self.shape_changing(source)
        name = self.fresh("t")
        self.emit(f"{name} = {expr}")
        self.env[name] = Ty("tensor", shape)

    def stmt_number(self, depth: int) -> None:
        tensors = self.names("tensor")
        options: list[tuple[str, Ty]] = [
            (f"{self.small_int()} + 1", Ty("int", small=True)),
            (f"{self.pick(tensors)}.shape[0]", Ty("int", small=True)),
            (f"{self.pick(tensors)}.dim()", Ty("int", small=True)),
            (f"{self.pick(tensors)}.numel() // 2", Ty("int")),
            (f"{self.number()} * 0.5", Ty("float")),
            (f"math.cos({self.number()})", Ty("float")),
        ]
        if self.int_param:
            options.append((f"{self.int_param} * 2 - 1", Ty("int", small=True)))
        if self.list_param:
            options.append((f"len({self.list_param})", Ty("int", small=True)))
        if "globals" in self.config.features:
            options.append(("SCALE * 2", Ty("float")))
        expr, ty = self.pick(options)
        name = self.fresh("k" if ty.kind == "int" else "f")
        self.emit(f"{name} = {expr}")
        self.env[name] = ty

    def stmt_item(self, depth: int) -> None:
        source = self.pick(self.names("tensor"))
        name = self.fresh("f")
        expr = self.pick((f"{source}.sum().item()", f"float({source}.mean())", f"{source}.max().item() * 2"))
        self.emit(f"{name} = {expr}")
        self.env[name] = Ty("float")
        if self.c.chance(0.3):
            k = self.fresh("k")
            self.emit(f"{k} = int({source}.argmax()) % 3")
            self.env[k] = Ty("int", small=True)

    def stmt_container(self, depth: int) -> None:
        tensors = self.names("tensor")
        source = self.pick(tensors)
        shape = self.env[source].shape
        mates = [t for t in tensors if self.env[t].shape == shape]
        items = [self.pick(mates) for _ in range(self.c.integer(2, 3))]
        roll = self.c.integer(0, 5)
        if roll == 0:  # tuple then unpack
            pair = self.fresh("p")
            self.emit(f"{pair} = ({', '.join(items)},)")
            targets = [self.fresh("t") for _ in items]
            self.emit(f"{', '.join(targets)} = {pair}")
            self.env[pair] = Ty("ttuple", shape, length=len(items))
            for target in targets:
                self.env[target] = Ty("tensor", shape)
        elif roll == 1:  # list, index, slice
            lst = self.fresh("l")
            self.emit(f"{lst} = [{', '.join(items)}]")
            self.env[lst] = Ty("tlist", shape, length=len(items))
            name = self.fresh("t")
            self.emit(f"{name} = {lst}[{self.pick(('0', '-1', '1'))}] + {lst}[0]")
            self.env[name] = Ty("tensor", shape)
            if self.c.chance(0.5):
                self.emit(f"{lst} = {lst}[1:] + {lst}[:1]")
        elif roll == 2:  # dict
            d = self.fresh("d")
            keys = tuple(f"k{i}" for i in range(len(items)))
            self.emit(f"{d} = {{{', '.join(repr(k) + ': ' + v for k, v in zip(keys, items))}}}")
            self.env[d] = Ty("tdict", shape, keys=keys)
            name = self.fresh("t")
            self.emit(f"{name} = {d}[{keys[-1]!r}] * 2 + {d}.get('missing', {items[0]})")
            self.env[name] = Ty("tensor", shape)
        elif roll == 3:  # star unpacking
            first, rest = self.fresh("t"), self.fresh("l")
            self.emit(f"{first}, *{rest} = [{', '.join(items)}]")
            self.env[first] = Ty("tensor", shape)
            self.env[rest] = Ty("tlist", shape, length=len(items) - 1)
        elif roll == 4:  # reduce over a list/tuple with builtins
            name = self.fresh("t")
            self.emit(f"{name} = {self.pick(('sum', 'max'))}([{', '.join(i + '.sum()' for i in items)}])")
            self.env[name] = Ty("tensor", ())
        else:  # index into an existing container
            containers = self.names("tlist") + self.names("ttuple") + self.names("tdict")
            if not containers:
                return self.stmt_new_tensor(depth)
            container = self.pick(containers)
            ty = self.env[container]
            name = self.fresh("t")
            if ty.kind == "tdict":
                self.emit(f"{name} = {container}[{self.pick(ty.keys)!r}]")
            else:
                if ty.length < 1:
                    return self.stmt_new_tensor(depth)
                self.emit(f"{name} = {container}[{self.c.integer(0, ty.length - 1)}]")
            self.env[name] = Ty("tensor", ty.shape)

    def stmt_comprehension(self, depth: int) -> None:
        source = self.pick(self.names("tensor"))
        shape = self.env[source].shape
        roll = self.c.integer(0, 3)
        name = self.fresh("l")
        if roll == 0:
            count = self.c.integer(1, 3)
            self.emit(f"{name} = [{source} * i for i in range({count})]")
            self.env[name] = Ty("tlist", shape, length=count)
        elif roll == 1:
            lists = self.names("tlist", lambda ty: ty.shape == shape)
            src_list = self.pick(lists) if lists else f"[{source}, {source} + 1]"
            self.emit(f"{name} = [{self.pick(_UNARY).format('v')} for v in {src_list}]")
            self.env[name] = Ty("tlist", shape, length=self.env[src_list].length if lists else 2)
        elif roll == 2:
            d = self.fresh("d")
            self.emit(f"{d} = {{f'k{{i}}': {source} + i for i in range(2)}}")
            self.env[d] = Ty("tdict", shape, keys=("k0", "k1"))
        else:
            t = self.fresh("t")
            self.emit(f"{t} = sum({source}[i] for i in range(min({source}.shape[0], 3)))" if shape and shape[0] in ("A", "B", "C")
                      else f"{t} = sum(v.sum() for v in [{source}, {source}.abs()])")
            self.env[t] = Ty("tensor", shape[1:] if shape and shape[0] in ("A", "B", "C") else ())

    def stmt_call_helper(self, depth: int) -> None:
        helper, convention = self.pick(self.helpers)
        args = self.names("tensor", lambda ty: ty.shape == ("A", "B"))
        if not args:
            return self.stmt_new_tensor(depth)
        a, b = self.pick(args), self.pick(args)
        name = self.fresh("t")
        if convention == "ab":
            self.emit(f"{name} = {helper}({a}, {b})")
        elif convention == "defaults":
            self.emit(f"{name} = {helper}({a}{self.pick(('', ', 2.0', ', shift=' + self.number(), ', 0.5, 1'))})")
        elif convention == "varargs":
            self.emit(f"{name} = {helper}({', '.join(self.pick(args) for _ in range(self.c.integer(1, 3)))})")
        elif convention == "kwargs":
            self.emit(f"{name} = {helper}({a}, scale={self.number()})")
        elif convention == "pair":
            other = self.fresh("t")
            self.emit(f"{name}, {other} = {helper}({a})")
            self.env[other] = Ty("tensor", ("A", "B"))
        else:  # closure
            self.emit(f"{name} = {helper}({a})")
        self.env[name] = Ty("tensor", ("A", "B"))

    def stmt_call_module(self, depth: int) -> None:
        args = self.names("tensor", lambda ty: ty.shape == ("A", "B"))
        if not args:
            return self.stmt_new_tensor(depth)
        name = self.fresh("t")
        self.emit(f"{name} = {self.pick(self.modules)}({self.pick(args)})")
        self.env[name] = Ty("tensor", ("A", "B"))

    def stmt_branch(self, depth: int) -> None:
        with self.block(f"if {self.condition()}:"):
            self.body(depth + 1, 1, 3)
        if self.c.chance(0.5):
            with self.block("else:"):
                self.body(depth + 1, 1, 2)

    def stmt_loop(self, depth: int) -> None:
        tensors = self.names("tensor")
        acc = self.pick(tensors)
        roll = self.c.integer(0, 4)
        # never iterate the input list: the body may append to it
        lists = [name for name in self.names("tlist") + self.names("ttuple") if name != self.list_param]
        if roll == 0 or not lists:
            index = self.fresh("i")
            with self.block(f"for {index} in range({self.small_int()}):"):
                self.emit(f"{acc} = {acc} * 0.5 + {index}")
                self.body(depth + 1, 0, 2)
        elif roll == 1:
            lst = self.pick(lists)
            item = self.fresh("v")
            with self.block(f"for {item} in {lst}:"):
                if _broadcast(self.env[acc].shape, self.env[lst].shape) == self.env[acc].shape:
                    self.emit(f"{acc} = {acc} + {item}")
                self.env[item] = Ty("tensor", self.env[lst].shape)
                self.body(depth + 1, 0, 1)
        elif roll == 2:
            lst = self.pick(lists)
            index, item = self.fresh("i"), self.fresh("v")
            with self.block(f"for {index}, {item} in enumerate({lst}):"):
                self.env[item] = Ty("tensor", self.env[lst].shape)
                self.env[index] = Ty("int", small=True)
                self.emit(f"{item} = {item} * {index}")
                self.body(depth + 1, 0, 2)
        elif roll == 3:
            lst = self.pick(lists)
            item, index = self.fresh("v"), self.fresh("i")
            with self.block(f"for {item}, {index} in zip({lst}, range(2)):"):
                self.env[item] = Ty("tensor", self.env[lst].shape)
                if _broadcast(self.env[acc].shape, self.env[lst].shape) == self.env[acc].shape:
                    self.emit(f"{acc} = {acc} - {item} * {index}")
                self.body(depth + 1, 0, 1)
        else:
            counter = self.fresh("j")
            self.emit(f"{counter} = 0")
            with self.block(f"while {counter} < {self.small_int()}:"):
                self.emit(f"{counter} += 1")
                self.emit(f"{acc} = {self.same_shape_expr(acc)}")
                if self.c.chance(0.3):
                    with self.block(f"if {acc}.sum() > 10:" if "branch_tensor" in self.config.features else "if True:"):
                        self.emit("break")

    def stmt_inplace(self, depth: int) -> None:
        target = self.pick(self.tensor_params + self.names("tensor"))
        if target not in self.env:
            target = self.pick(self.names("tensor"))
        shape = self.env[target].shape
        options = [f"{target}.add_(1)", f"{target}.mul_(0.5)", f"{target}.clamp_(-1.0, 1.0)", f"{target}.sin_()"]
        if shape and shape[0] in ("A", "B", "C"):
            options += [f"{target}[0] = 0.0", f"{target}[-1] += 1.0"]
        if self.list_param and self.env.get(self.list_param):
            options.append(f"{self.list_param}[0].mul_(2)")
        self.emit(self.pick(options))

    def stmt_append(self, depth: int) -> None:
        lst = self.list_param
        tensors = self.names("tensor", lambda ty: ty.shape == self.env[lst].shape)
        if tensors and self.c.chance(0.7):
            value = self.pick(tensors)
            self.emit(self.pick((f"{lst}.append({value})", f"{lst}.extend([{value}])", f"{lst}.insert(0, {value})")))
        else:
            self.emit(f"{lst}.append({self.number()})")
        if tensors and self.c.chance(0.3):
            name = self.fresh("t")
            self.emit(f"{name} = {lst}[0] * 2" if self.env[lst].length >= 1 else f"{name} = {self.pick(tensors)}")
            self.env[name] = Ty("tensor", self.env[lst].shape)

    def stmt_global(self, depth: int) -> None:
        tensors = self.names("tensor")
        roll = self.c.integer(0, 4)
        if roll == 0:
            self.used_globals.add("COUNTER")
            self.emit(f"COUNTER += {self.pick(('1', '2'))}")
        elif roll == 1:
            self.emit(f"LOG.append({self.pick(tensors)}.shape[-1] if {self.pick(tensors)}.dim() else 0)")
        elif roll == 2:
            self.used_globals.add("LAST")
            self.emit(f"LAST = {self.pick(tensors)}")
        elif roll == 3:
            name = self.fresh("t")
            source = self.pick(self.names("tensor", lambda ty: bool(ty.shape) and ty.shape[-1] == "B") or tensors)
            if self.env[source].shape and self.env[source].shape[-1] == "B":
                self.emit(f"{name} = {source} * SCALE + SHIFT")
            else:
                self.emit(f"{name} = {source} * SCALE")
            self.env[name] = self.env[source]
        else:
            self.used_globals.add("SCALE")
            self.emit("SCALE = SCALE * 0.5 + 1")

    def stmt_print(self, depth: int) -> None:
        tensors = self.names("tensor")
        source = self.pick(tensors)
        options = [f'print("shape", tuple({source}.shape))', f'print("at", {self.number()})',
                   f'print(f"mean={{float({source}.mean()):.3f}}")' if "data_dependent" in self.config.features
                   else f'print("dims", {source}.dim())']
        self.emit(self.pick(options))

    def stmt_raise(self, depth: int) -> None:
        tensors = self.names("tensor")
        source = self.pick(tensors)
        roll = self.c.integer(0, 5)
        if roll == 0:
            condition = f"{source}.sum() > 2.0" if "branch_tensor" in self.config.features else f"{source}.shape[0] > 4"
            with self.block(f"if {condition}:"):
                self.emit(f'raise ValueError(f"{source} too large: shape {{tuple({source}.shape)}}")')
        elif roll == 1:
            mates = [t for t in tensors if self.env[t].shape != self.env[source].shape
                     and _broadcast(self.env[t].shape, self.env[source].shape) is None]
            name = self.fresh("t")
            if mates:  # a shape mismatch in a torch op
                self.emit(f"{name} = {source} + {self.pick(mates)}")
            else:
                self.emit(f"{name} = {source}.view(-1, 7)")
            self.env[name] = self.env[source]
        elif roll == 2:
            lists = self.names("tlist")
            if lists:
                name, lst = self.fresh("t"), self.pick(lists)
                self.emit(f"{name} = {lst}[{self.small_int()}]")
                self.env[name] = Ty("tensor", self.env[lst].shape)
            else:
                self.emit(f'assert {source}.dim() < 2, "expected a vector"')
        elif roll == 3 and self.int_param:
            name = self.fresh("k")
            self.emit(f"{name} = 12 // ({self.int_param} - 3)")
            self.env[name] = Ty("int")
        elif roll == 4:
            self.emit(f'assert {source}.shape[0] != 5, "five rows are not allowed"')
        else:
            with self.block(f"if {self.condition()}:"):
                self.emit(f'raise RuntimeError("stop at {source}")')

    def stmt_try(self, depth: int) -> None:
        lists = self.names("tlist")
        source = self.pick(self.names("tensor"))
        with self.block("try:"):
            if lists and self.c.chance(0.5):
                self.emit(f"{source} = {source} + {self.pick(lists)}[{self.small_int()}].sum()")
            else:
                self.body(depth + 1, 1, 2)
                if "exceptions" in self.config.features and self.c.chance(0.5):
                    with self.block(f"if {self.condition()}:"):
                        self.emit('raise KeyError("inner")')
        exc = self.pick(("IndexError", "KeyError", "Exception", "(IndexError, RuntimeError)"))
        with self.block(f"except {exc} as e:"):
            self.emit(f"{source} = {source} * 0.5")
            if "print" in self.config.features and self.c.chance(0.5):
                self.emit('print("caught", type(e).__name__)')

    # -- helpers and modules ------------------------------------------------
    def helper_definitions(self) -> None:
        shape = ("A", "B")
        for index in range(self.c.integer(0, 3) if "helpers" in self.config.features else 0):
            convention = self.pick(("ab", "defaults", "varargs", "closure", "kwargs", "pair"))
            name = f"helper_{index}"
            saved_env, saved_lines, saved_globals = self.env, self.lines, set(self.used_globals)
            self.lines = []
            if convention == "closure":
                self.emit(f"def make_{name}(c):")
                self.indent = 1
                self.emit("def inner(a):")
                self.indent = 2
                self.env = {"a": Ty("tensor", shape)}
                self.emit(f"return {self.same_shape_expr('a')} * c + c")
                self.indent = 1
                self.emit("return inner")
                self.indent = 0
                self.emit(f"{name} = make_{name}({self.pick(('1.5', '0.5', 'SHIFT'))})")
            else:
                header = {"ab": "(a, b)", "defaults": "(a, scale=1.5, shift=0)", "varargs": "(*ts)",
                          "kwargs": "(a, **opts)", "pair": "(a)"}[convention]
                self.emit(f"def {name}{header}:")
                self.indent = 1
                self.env = {"a": Ty("tensor", shape)}
                if convention == "ab":
                    self.env["b"] = Ty("tensor", shape)
                if convention == "varargs":
                    self.emit("a = ts[0]")
                    with self.block("for extra in ts[1:]:"):
                        self.emit("a = a + extra")
                self.used_globals = set()
                self.int_param = self.list_param = None
                outer_config = self.config
                self.config = dataclasses.replace(outer_config, features=outer_config.features & {
                    "python_numbers", "branch_python", "branch_tensor", "loops", "containers", "globals", "inplace"})
                self.body(1, 1, 3)
                self.config = outer_config
                if self.used_globals:
                    self.lines.insert(1, "    global " + ", ".join(sorted(self.used_globals)))
                tensors = self.names("tensor", lambda ty: ty.shape == shape)
                if convention == "defaults":
                    self.emit(f"return {self.pick(tensors)} * scale + shift")
                elif convention == "kwargs":
                    self.emit(f"return {self.pick(tensors)} * opts.get('scale', 1.0)")
                elif convention == "pair":
                    self.emit(f"return {self.pick(tensors)}, {self.pick(tensors)}.cos()")
                else:
                    self.emit(f"return {tensors[-1] if self.c.chance(0.7) else self.pick(tensors)}")
                self.indent = 0
            self.helpers.append((name, convention))
            saved_lines.extend(self.lines + [""])
            self.env, self.lines, self.used_globals = saved_env, saved_lines, saved_globals

    def module_definitions(self) -> None:
        b = self.dim("B")
        for index in range(self.c.integer(0, 2) if "modules" in self.config.features else 0):
            name = f"Block{index}"
            kind = self.pick(("linear", "layers", "training", "counter"))
            lines = [f"class {name}(torch.nn.Module):", "    def __init__(self):", "        super().__init__()"]
            if kind == "layers":
                lines += [f"        self.layers = torch.nn.ModuleList([torch.nn.Linear({b}, {b}) for _ in range(2)])"]
                weights = ["self.layers[0]", "self.layers[1]"]
            else:
                lines += [f"        self.lin = torch.nn.Linear({b}, {b}, bias={self.pick(('True', 'False'))})"]
                weights = ["self.lin"]
            lines += [f"        self.register_buffer('offset', torch.linspace(-1.0, 1.0, {b}))",
                      "        self.scale = 0.5", "        self.calls = 0", "        with torch.no_grad():"]
            for layer in weights:
                lines += [f"            for p in {layer}.parameters():",
                          "                p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape))"]
            lines += ["", "    def forward(self, x):"]
            if kind == "layers":
                lines += ["        for layer in self.layers:", "            x = torch.relu(layer(x))", "        return x + self.offset"]
            elif kind == "training":
                lines += ["        if self.training:", "            x = x * self.scale", "        return self.lin(x) - self.offset"]
            elif kind == "counter":
                lines += ["        self.calls += 1", "        return torch.tanh(self.lin(x)) * self.calls"]
            else:
                lines += [f"        return {self.pick(('torch.relu', 'torch.sigmoid', 'F.gelu'))}(self.lin(x) * self.scale + self.offset)"]
            instance = f"block{index}"
            lines += ["", "", f"{instance} = {name}()"]
            if kind == "training" and self.c.chance(0.5):
                lines.append(f"{instance}.eval()")
            self.lines.extend(lines + [""])
            self.modules.append(instance)

    # -- the whole program --------------------------------------------------
    def build(self, inputs_seed: int, generator_seed: int | None = None) -> Program:
        b, c_dim = self.c.integer(2, 5), self.c.integer(2, 5)
        a = self.c.integer(2, 5)
        alt_a = self.pick([v for v in range(1, 7) if v != a])
        self.dims = (("A", a), ("B", b), ("C", c_dim))
        self.lines = ["import math", "", "import torch", "import torch.nn.functional as F", "",
                      "SCALE = 1.5", "COUNTER = 0", "FLAG = True", "LOG = []", "LAST = None",
                      f"SHIFT = torch.linspace(-1.0, 1.0, {b})", "", ""]
        self.helper_definitions()
        self.module_definitions()

        params = [Param("x", "tensor", ("A", "B"))]
        if self.c.chance(0.5):
            params.append(Param("y", "tensor", ("A", "B")))
        if self.c.chance(0.4):
            params.append(Param("w", "tensor", ("B", "C")))
        if self.c.chance(0.3):
            params.append(Param("bias", "tensor", ("B",)))
        if self.c.chance(0.5):
            params.append(Param("n", "int"))
            self.int_param = "n"
        if self.c.chance(0.4):
            params.append(Param("items", "list", ("A", "B"), length=self.c.integer(1, 2)))
            self.list_param = "items"
        if self.c.chance(0.3):
            params.append(Param("alpha", "float"))
        self.tensor_params = [p.name for p in params if p.kind == "tensor"]
        for p in params:
            if p.kind == "tensor":
                self.env[p.name] = Ty("tensor", p.shape)
            elif p.kind == "int":
                self.env[p.name] = Ty("int", small=True)
            elif p.kind == "list":
                self.env[p.name] = Ty("tlist", p.shape, length=p.length)
            else:
                self.env[p.name] = Ty("float")
        signature = ", ".join(p.name + ("=0.5" if p.kind == "float" else "") for p in params)
        header_at = len(self.lines)
        self.emit(f"def {ENTRY}({signature}):")
        self.indent = 1
        self.used_globals = set()
        self.body(0, self.config.min_statements, self.config.max_statements)
        if self.used_globals:
            self.lines.insert(header_at + 1, "    global " + ", ".join(sorted(self.used_globals)))
        self.emit(f"return {self.return_expr()}")
        self.indent = 0
        source = "\n".join(self.lines) + "\n"
        a_values = (self.c.integer(0, 4), self.c.integer(0, 4))
        return Program(source=source, params=tuple(params), dims=self.dims, alt_a=alt_a,
                       ints=a_values, inputs_seed=inputs_seed, generator_seed=generator_seed)

    def return_expr(self) -> str:
        values = list(self.env)
        tensors = self.names("tensor")
        last = [name for name in tensors][-1]
        roll = self.c.integer(0, 4)
        if roll == 0:
            return last
        if roll == 1:
            extra = self.pick(values)
            return f"{last}, {extra}" if extra != last else last
        if roll == 2:
            return f"{{'out': {last}, 'extra': {self.pick(values)}}}"
        if roll == 3:
            return f"[{last}, {self.pick(values)}, {self.pick(values)}]"
        return f"({last}.sum(), {last})"


def generate_program(seed: int, config: FuzzConfig = DEFAULT_CONFIG) -> Program:
    """The program for ``seed``: the same seed always gives the same program."""
    return ProgramBuilder(RandomChooser(seed), config).build(inputs_seed=seed, generator_seed=seed)


def programs(config: FuzzConfig = DEFAULT_CONFIG) -> Any:
    """A hypothesis strategy of ``Program`` s (shrinks toward simpler choices)."""
    from hypothesis import strategies as st

    @st.composite
    def _programs(draw: Callable[[Any], Any]) -> Program:
        inputs_seed = draw(st.integers(0, 2**16))
        return ProgramBuilder(DrawChooser(draw), config).build(inputs_seed=inputs_seed)

    return _programs()


# ---------------------------------------------------------------------------
# Loading a program into a fresh module
# ---------------------------------------------------------------------------

_load_counter = itertools.count()
_MODULE_PREFIX = "autograph_fuzz_program_"
_source_dir: str | None = None


def _program_file(source: str) -> str:
    """A real file holding ``source`` (so tracebacks and inspect see the lines)."""
    global _source_dir
    if _source_dir is None:
        _source_dir = tempfile.mkdtemp(prefix="autograph_fuzz_")
    digest = hashlib.sha1(source.encode()).hexdigest()[:12]
    path = os.path.join(_source_dir, f"fuzz_program_{digest}.py")
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(source)
    return path


def load_program(source: str) -> types.ModuleType:
    """Exec ``source`` into a new module registered in ``sys.modules``."""
    path = _program_file(source)
    name = f"{_MODULE_PREFIX}{next(_load_counter)}"
    module = types.ModuleType(name)
    module.__file__ = path
    linecache.checkcache(path)
    sys.modules[name] = module
    # module-level code may draw random numbers (e.g. nn.Linear's init): same draws in every load
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        exec(compile(source, path, "exec"), module.__dict__)
    return module


def unload_program(module: types.ModuleType) -> None:
    sys.modules.pop(module.__name__, None)


# ---------------------------------------------------------------------------
# Running and comparing
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Difference:
    """One way the compiled run differed from eager, at call number ``call``.

    kind: ``result``, ``exception``, ``stdout``, ``input_mutation``, ``global_state``,
    ``alias``, ``timeout``, ``compiler_error``. ``eager_exception`` is the type name
    eager raised on that call (None when it returned), used to keep minimisation
    from wandering onto a different failure.
    """
    call: int
    kind: str
    detail: str
    eager_exception: str | None = None

    def __str__(self) -> str:
        return f"call {self.call}: {self.kind}: {self.detail}"

    def signature(self) -> str:
        """A short key that groups differences with the same cause (numbers and
        generated names removed)."""
        detail = re.sub(r"\b[tklfpdvij]\d+\b", "<var>", self.detail)
        detail = re.sub(r"'\w+'", "'<name>'", detail)
        detail = re.sub(r"[-+]?\d+(\.\d+)?(e[-+]?\d+)?", "N", detail)
        detail = re.sub(r"0x[0-9a-f]+", "ADDR", detail)
        return f"{self.kind}: {detail[:160]}"


class ProgramTimeout(Exception):
    """A call ran longer than the checker's per-call time limit."""


@dataclass
class Outcome:
    value: Any = None
    error: BaseException | None = None
    stdout: str = ""
    seconds: float = 0.0


@contextlib.contextmanager
def _time_limit(seconds: float | None) -> Iterator[None]:
    if not seconds or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def _expired(signum: int, frame: Any) -> None:
        raise ProgramTimeout(f"call did not finish within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, _expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_call(fn: Callable[..., Any], args: list[Any], timeout_s: float | None = None) -> Outcome:
    """Call ``fn(*args)`` capturing stdout and the exception, if any."""
    buffer = io.StringIO()
    outcome = Outcome()
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(buffer), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with _time_limit(timeout_s):
                outcome.value = fn(*args)
    except ProgramTimeout as error:
        outcome.error = error
    except Exception as error:  # noqa: BLE001 - the user's exception is the observation
        outcome.error = error
    outcome.seconds = time.perf_counter() - start
    outcome.stdout = buffer.getvalue()
    return outcome


@dataclass(frozen=True)
class Tolerance:
    atol: float = 1e-5
    rtol: float = 1e-5
    check_strides: bool = True


def _alias_names(args: list[Any], params: Sequence[Param]) -> dict[int, str]:
    names = [p.name for p in params if p.kind != "float"]
    return {id(arg): name for arg, name in zip(args, names) if isinstance(arg, (torch.Tensor, list))}


def _same_program_class(a: type, b: type) -> bool:
    """The eager and compiled modules each define their own copy of a program's classes."""
    return (a.__qualname__ == b.__qualname__ and a.__module__.startswith(_MODULE_PREFIX)
            and b.__module__.startswith(_MODULE_PREFIX))


def diff_values(eager: Any, compiled: Any, path: str, tol: Tolerance = Tolerance(),
                aliases: tuple[dict[int, str], dict[int, str]] | None = None,
                _seen: set[int] | None = None) -> str | None:
    """Where ``compiled`` differs from ``eager`` (None when it does not): types exactly,
    structure, tensors by ``same`` (NaN-aware) plus requires_grad and strides, floats
    NaN-aware, modules by their state; identity with an input when ``aliases`` given."""
    if aliases is not None:
        a, b = aliases[0].get(id(eager)), aliases[1].get(id(compiled))
        if a != b:
            what = lambda n: f"the input {n!r} itself" if n else "a new object"  # noqa: E731
            return f"{path}: eager returns {what(a)}, compiled returns {what(b)}"
    if type(eager) is not type(compiled) and not _same_program_class(type(eager), type(compiled)):
        return f"{path}: type {type(eager).__name__} vs {type(compiled).__name__}"
    seen = _seen if _seen is not None else set()
    if id(eager) in seen:
        return None
    if isinstance(eager, torch.Tensor):
        ok, why = same(eager, compiled, atol=tol.atol, rtol=tol.rtol)
        if not ok:
            return f"{path}: {why}"
        if eager.requires_grad != compiled.requires_grad:
            return f"{path}: requires_grad {eager.requires_grad} vs {compiled.requires_grad}"
        if tol.check_strides and eager.numel() > 1 and eager.stride() != compiled.stride():
            return f"{path}: strides {eager.stride()} vs {compiled.stride()}"
        return None
    if isinstance(eager, (list, tuple)):
        if len(eager) != len(compiled):
            return f"{path}: length {len(eager)} vs {len(compiled)}"
        for index, (a, b) in enumerate(zip(eager, compiled)):
            found = diff_values(a, b, f"{path}[{index}]", tol, aliases, seen)
            if found:
                return found
        return None
    if isinstance(eager, dict):
        if list(eager) != list(compiled):
            return f"{path}: keys {list(eager)} vs {list(compiled)}"
        for key in eager:
            found = diff_values(eager[key], compiled[key], f"{path}[{key!r}]", tol, aliases, seen)
            if found:
                return found
        return None
    if isinstance(eager, float):
        if math.isnan(eager) and math.isnan(compiled):
            return None
        if eager == compiled or math.isclose(eager, compiled, rel_tol=tol.rtol, abs_tol=tol.atol):
            return None
        return f"{path}: {eager!r} != {compiled!r}"
    if isinstance(eager, torch.nn.Module):
        seen.add(id(eager))
        state_e = {k: v for k, v in vars(eager).items() if not k.startswith("_")}
        state_c = {k: v for k, v in vars(compiled).items() if not k.startswith("_")}
        return (diff_values(state_e, state_c, f"{path}.__dict__", tol, None, seen)
                or diff_values(dict(eager.state_dict()), dict(compiled.state_dict()), f"{path}.state_dict()", tol, None, seen))
    if isinstance(eager, (int, bool, str, bytes, type(None), torch.dtype, torch.device)):
        return None if eager == compiled else f"{path}: {eager!r} != {compiled!r}"
    return None if eager == compiled else f"{path}: {eager!r} != {compiled!r}"


def _user_state(module: types.ModuleType) -> dict[str, Any]:
    """Module globals a program's run can change (no dunders, modules, functions, classes)."""
    state = {}
    for name, value in vars(module).items():
        if name.startswith("__") or isinstance(value, (types.ModuleType, types.FunctionType, type)):
            continue
        if callable(value) and not isinstance(value, torch.nn.Module):
            continue
        state[name] = value
    return state


def _describe_error(error: BaseException | None) -> str:
    return "returned normally" if error is None else f"raised {type(error).__module__}.{type(error).__qualname__}: {error}"


def compare_call(call: int, eager: Outcome, compiled: Outcome, eager_args: list[Any], compiled_args: list[Any],
                 params: Sequence[Param], eager_module: types.ModuleType, compiled_module: types.ModuleType,
                 tol: Tolerance = Tolerance()) -> list[Difference]:
    """Every observable difference between the two runs of call number ``call``."""
    found: list[Difference] = []
    eager_exc = type(eager.error).__name__ if eager.error is not None else None

    def add(kind: str, detail: str) -> None:
        found.append(Difference(call, kind, detail, eager_exc))

    if isinstance(compiled.error, ProgramTimeout):
        add("timeout", str(compiled.error))
        return found
    if (eager.error is None) != (compiled.error is None) or (
            eager.error is not None and (type(eager.error) is not type(compiled.error) or str(eager.error) != str(compiled.error))):
        add("exception", f"eager {_describe_error(eager.error)}; compiled {_describe_error(compiled.error)}")
    elif eager.error is None:
        aliases = (_alias_names(eager_args, params), _alias_names(compiled_args, params))
        why = diff_values(eager.value, compiled.value, "result", tol, aliases)
        if why:
            add("result", why)
    if eager.stdout != compiled.stdout:
        add("stdout", f"eager printed {eager.stdout!r}, compiled printed {compiled.stdout!r}")
    names = [p.name for p in params if p.kind != "float"]
    for name, a, b in zip(names, eager_args, compiled_args):
        why = diff_values(a, b, f"argument {name!r} after the call", tol)
        if why:
            add("input_mutation", why)
    state_e, state_c = _user_state(eager_module), _user_state(compiled_module)
    why = diff_values(state_e, state_c, "module globals", tol)
    if why:
        add("global_state", why)
    return found


def check_program(program: Program, compiler: Compiler, *, tol: Tolerance = Tolerance(),
                  timeout_s: float | None = 60.0) -> list[Difference]:
    """Run every planned call eagerly and compiled; the differences of the first call
    that differs (later calls would only repeat it), or [] when all agree."""
    try:
        eager_module, compiled_module = load_program(program.source), load_program(program.source)
    except Exception:  # noqa: BLE001 - an invalid program (e.g. a minimisation step): nothing to compare
        return []
    try:
        eager_fn = getattr(eager_module, ENTRY)
        try:
            compiled_fn = compiler(getattr(compiled_module, ENTRY))
        except Exception as error:  # noqa: BLE001
            return [Difference(-1, "compiler_error", f"the compiler raised {_describe_error(error)}")]
        for call in range(CALLS):
            eager_args, compiled_args = make_inputs(program, call), make_inputs(program, call)
            eager = run_call(eager_fn, eager_args, timeout_s)
            if isinstance(eager.error, ProgramTimeout):
                return []  # the program itself is too slow: nothing to compare
            compiled = run_call(compiled_fn, compiled_args, timeout_s)
            found = compare_call(call, eager, compiled, eager_args, compiled_args, program.params,
                                 eager_module, compiled_module, tol)
            if found:
                return found
        return []
    finally:
        unload_program(eager_module)
        unload_program(compiled_module)
        reset = getattr(compiler, "reset", None)
        if callable(reset):
            reset()


def eager_outcomes(program: Program) -> list[Outcome]:
    """The eager outcome of each planned call (for statistics and sanity checks)."""
    module = load_program(program.source)
    try:
        return [run_call(getattr(module, ENTRY), make_inputs(program, call), 30.0) for call in range(CALLS)]
    finally:
        unload_program(module)


def format_failure(program: Program, differences: Sequence[Difference]) -> str:
    """A readable failure report: what differed, the inputs plan, the program."""
    lines = ["compiled run differs from eager:"] + [f"  - {d}" for d in differences]
    lines.append(f"dims {dict(program.dims)}, batch {program.alt_a} on call {ALT_SHAPE_CALL}, "
                 f"ints {program.ints}, inputs_seed {program.inputs_seed}, generator_seed {program.generator_seed}")
    lines.append("program:")
    lines += [f"  {i + 1:3d} | {line}" for i, line in enumerate(program.source.splitlines())]
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Minimisation
# ---------------------------------------------------------------------------

def _blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) of each removable statement: a line plus the deeper-indented lines after it."""
    spans = []
    for start, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith(("import ", "def fn(", "return ", "global ")):
            continue
        indent = len(line) - len(line.lstrip())
        end = start + 1
        while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
            end += 1
        spans.append((start, end))
    return spans


def minimize(program: Program, compiler: Compiler, difference: Difference, *,
             max_checks: int = 150, max_seconds: float = 120.0, tol: Tolerance = Tolerance(),
             previous: Sequence[Program] = ()) -> Program:
    """Drop statements (largest first) while the same kind of difference, with the
    same eager behaviour on that call, still shows; returns the smallest program found."""
    deadline = time.monotonic() + max_seconds
    checks = 0

    def still_fails(candidate: Program) -> bool:
        nonlocal checks
        checks += 1
        try:
            compile(candidate.source, "<candidate>", "exec")
        except SyntaxError:
            return False
        for earlier in previous:  # a failure that needs state left by earlier programs
            check_program(earlier, compiler, tol=tol, timeout_s=20.0)
        found = check_program(candidate, compiler, tol=tol, timeout_s=20.0)
        return any(d.kind == difference.kind and d.eager_exception == difference.eager_exception
                   and d.eager_exception not in ("NameError", "UnboundLocalError") for d in found)

    current = program
    progress = True
    while progress and checks < max_checks and time.monotonic() < deadline:
        progress = False
        lines = current.source.splitlines()
        for start, end in sorted(_blocks(lines), key=lambda span: span[0] - span[1]):
            if checks >= max_checks or time.monotonic() >= deadline:
                break
            candidate = current.with_source("\n".join(lines[:start] + lines[end:]) + "\n")
            if still_fails(candidate):
                current, progress = candidate, True
                break
    return current


# ---------------------------------------------------------------------------
# Regression test files
# ---------------------------------------------------------------------------

def regression_test_source(program: Program, differences: Sequence[Difference], *, found_by: str,
                           backend: str = "eager", xfail_reason: str | None = None,
                           previous: Sequence[Program] = ()) -> str:
    """The text of a pytest file that re-checks ``program`` against ``autograph.compile``;
    ``previous`` programs are checked first in the same process (state-dependent failures)."""
    observed = "\n".join(str(d) for d in differences)
    data = program.to_dict()
    source = data.pop("source")
    marker = ""
    if xfail_reason is not None:
        marker = f"@pytest.mark.xfail(strict=True, reason={xfail_reason!r})\n"
    # a crash of the interpreter itself is re-checked in a child interpreter
    isolated = any(d.kind == "crash" for d in differences)
    check = "check_program_isolated(PROGRAM, BACKEND)" if isolated \
        else "check_program(PROGRAM, autograph_compiler(BACKEND))"
    # import only what the test uses (the lint gate runs over tests/)
    names = "Program, autograph_compiler, check_program, " + ("check_program_isolated, " if isolated else "")
    return (
        f'"""Fuzz regression (found by {found_by}).\n\nObserved difference:\n'
        + textwrap.indent(observed.replace("\\", "/").replace('"""', "'''"), "    ") + '\n"""\n'
        "import pytest\n\n"
        f"from autograph.testing.fuzz import ({names}format_failure)\n\n"
        f"SOURCE = {source!r}\n\n"
        f"PROGRAM = Program.from_dict(dict({data!r}, source=SOURCE))\n"
        f"OBSERVED = {observed!r}\n"
        f"BACKEND = {backend!r}\n"
        f"# checked first, in the same process: the difference needs the state they leave behind\n"
        f"PREVIOUS = [{', '.join(f'Program.from_dict({p.to_dict()!r})' for p in previous)}]\n\n\n"
        "@pytest.mark.fuzz\n"
        f"{marker}"
        "def test_compiled_matches_eager():\n"
        "    for earlier in PREVIOUS:\n"
        "        check_program(earlier, autograph_compiler(BACKEND))\n"
        f"    differences = {check}\n"
        "    assert not differences, format_failure(PROGRAM, differences)\n"
    )


_ISOLATED_CHECK = """
import dataclasses, json, sys
from autograph.testing import fuzz
program = fuzz.Program.from_dict(json.load(sys.stdin))
found = fuzz.check_program(program, fuzz.autograph_compiler(sys.argv[1]))
print("FUZZ-RESULT " + json.dumps([dataclasses.asdict(d) for d in found]))
"""


def check_program_isolated(program: Program, backend: str = "eager", *, timeout_s: float = 600.0) -> list[Difference]:
    """``check_program`` against ``autograph.compile`` in a child interpreter, so that a
    crash (segfault, abort) or a hang becomes a ``crash``/``timeout`` Difference."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        proc = subprocess.run([sys.executable, "-X", "faulthandler", "-c", _ISOLATED_CHECK, backend],
                              input=json.dumps(program.to_dict()), capture_output=True, text=True,
                              timeout=timeout_s, env=env, cwd=root)
    except subprocess.TimeoutExpired:
        return [Difference(-1, "timeout", f"the check did not finish within {timeout_s:g} s")]
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("FUZZ-RESULT "):
            return [Difference(**d) for d in json.loads(line[len("FUZZ-RESULT "):])]
    return [Difference(-1, "crash", f"the interpreter died ({describe_exit(proc.returncode)}); "
                                    f"stderr ends with: {proc.stderr[-1500:]}")]


def describe_exit(returncode: int) -> str:
    """'killed by SIGSEGV' or 'exit code 3' (a shell's 128+N counts as signal N)."""
    number = -returncode if returncode < 0 else returncode - 128 if returncode > 128 else None
    if number:
        try:
            return f"killed by {signal.Signals(number).name}"
        except ValueError:
            pass
    return f"exit code {returncode}"


def regression_file_name(difference: Difference, program: Program) -> str:
    digest = hashlib.sha1((difference.signature() + program.source).encode()).hexdigest()[:10]
    return f"test_fuzz_{difference.kind}_{digest}.py"


# ---------------------------------------------------------------------------
# Compilers
# ---------------------------------------------------------------------------

def autograph_compile_or_reason() -> tuple[Callable[..., Any] | None, str]:
    """``autograph.compile`` when importable, else None and why not."""
    if importlib.util.find_spec("autograph.api") is None:
        return None, "autograph/api.py does not exist yet (autograph.compile is not implemented)"
    try:
        from autograph.api import compile as autograph_compile
    except Exception as error:  # noqa: BLE001
        return None, f"autograph.api does not import: {type(error).__name__}: {error}"
    return autograph_compile, ""


class _Compiler:
    def __init__(self, compile_fn: Callable[[Any], Any], reset: Callable[[], None] | None, name: str):
        self._compile_fn, self._reset, self.name = compile_fn, reset, name

    def __call__(self, fn: types.FunctionType) -> Callable[..., Any]:
        return self._compile_fn(fn)

    def reset(self) -> None:
        if self._reset is not None:
            self._reset()

    def __repr__(self) -> str:
        return f"<compiler {self.name}>"


def autograph_compiler(backend: str = "eager") -> _Compiler:
    """``autograph.compile(fn, backend=backend)``; raises ImportError while it is missing."""
    compile_fn, reason = autograph_compile_or_reason()
    if compile_fn is None:
        raise ImportError(reason)

    def reset() -> None:
        try:
            from autograph.api import reset as autograph_reset
        except ImportError:
            return
        autograph_reset()

    return _Compiler(lambda fn: compile_fn(fn, backend=backend), reset, f"autograph.compile(backend={backend!r})")


def dynamo_compiler(backend: str = "eager") -> _Compiler:
    """``torch.compile(fn, backend=backend)``: the reference the harness is validated with."""
    import torch._dynamo
    return _Compiler(lambda fn: torch.compile(fn, backend=backend), torch._dynamo.reset,
                     f"torch.compile(backend={backend!r})")


def identity_compiler() -> _Compiler:
    """The function itself: must never differ (checks the harness's determinism)."""
    return _Compiler(lambda fn: fn, None, "identity")
