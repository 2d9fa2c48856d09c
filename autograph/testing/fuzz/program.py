"""Programs: their source text, parameters and the plan of calls the harness makes."""
from __future__ import annotations

import dataclasses
import types
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import torch

# A compiler maps the original function to a callable that must behave like it.
Compiler = Callable[[types.FunctionType], Callable[..., Any]]

ENTRY = "fn"
# Module-level function the harness runs before every call of ``fn`` (in the eager and the
# compiled module alike): it changes objects and globals between calls, as a caller would.
BETWEEN_CALLS = "between_calls"

# State that outlives a call: training loops (model, optimizer, scheduler, grads, hooks),
# keys whose hash/== count their calls, NumPy ints, errors leaving with blocks, generators read
# a little per call (training_constructs.py, flow_constructs.py).
STATE_FEATURES = frozenset({"training", "counting_keys", "numpy_ints", "with_errors", "partial_iterators"})

# Python-level constructs whose exact behaviour compilers get wrong silently (issue 13).
EXACTNESS_FEATURES = frozenset({
    "strings", "dict_views", "attributes", "iterators", "identity", "out_args",
    "rebind_globals", "raise_caught", "fresh_objects", "aliased_inputs", "with_blocks",
    "grad_modes", "tensor_queries",
}) | STATE_FEATURES

# Every feature family the generator knows; a FuzzConfig may switch some off.
# ``made_objects``: objects ``fn`` makes itself whose identity a caller sees — the exceptions
# of its ``raise`` and ``assert`` statements, exceptions and ``object()`` made and returned.
# Plain Python makes a new one on every call; a compiler that makes one at capture and hands
# it out again differs (identity, attributes a handler set, ``__traceback__``). Without it,
# ``exceptions`` writes only errors torch or Python operations raise (shapes, indexing, ``//``).
FEATURES = frozenset({
    "python_numbers", "containers", "comprehensions", "helpers", "modules",
    "branch_python", "branch_tensor", "loops", "inplace", "list_append", "globals",
    "print", "exceptions", "made_objects", "try_except", "data_dependent", "dynamic_shapes",
}) | EXACTNESS_FEATURES


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


@dataclass(frozen=True)
class Param:
    """One parameter of ``fn``.

    kind: ``tensor`` (shape in dim symbols), ``int``, ``list`` (of ``length`` tensors of
    ``shape``), ``float`` (has a default, never passed), ``str`` (the program's strings),
    ``obj`` (the module's persistent ``OBJ``, changed between calls), ``iter`` (a list
    iterator over ``length`` tensors), ``gen`` (the module's ``numbers(length)``
    generator), ``dict`` (``{'a': tensor, 'b': tensor}``) or ``npint`` (a NumPy integer of the
    int values: ``np.int64``, ``np.int32`` on the int-changing call).
    """
    name: str
    kind: str
    shape: tuple[str, ...] = ()
    length: int = 0


@dataclass(frozen=True)
class Program:
    """A generated program and the plan of calls made to its ``fn``.

    ``dims`` binds the dim symbols (``A``, ``B``, ``C``) to sizes; call number
    ``ALT_SHAPE_CALL`` uses ``alt_a`` for ``A``; ``ints`` are the values of the int
    parameter, the second one used by call ``ALT_INT_CALL`` only; ``strings`` likewise
    for a str parameter (the second on ``ALT_STR_CALL``); with ``alias_inputs`` call
    ``ALIAS_CALL`` passes the first (A, B) tensor for the second (A, B) tensor parameter too.
    """
    source: str
    params: tuple[Param, ...]
    dims: tuple[tuple[str, int], ...]
    alt_a: int
    ints: tuple[int, int] = (2, 3)
    inputs_seed: int = 0
    generator_seed: int | None = None
    strings: tuple[str, str] = ("abc", "xyz")
    alias_inputs: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "params": [dataclasses.asdict(p) for p in self.params],
            "dims": [list(d) for d in self.dims],
            "alt_a": self.alt_a,
            "ints": list(self.ints),
            "inputs_seed": self.inputs_seed,
            "generator_seed": self.generator_seed,
            "strings": list(self.strings),
            "alias_inputs": self.alias_inputs,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Program":
        strings = data.get("strings", ("abc", "xyz"))
        return cls(
            source=data["source"],
            params=tuple(Param(p["name"], p["kind"], tuple(p["shape"]), p["length"]) for p in data["params"]),
            dims=tuple((str(k), int(v)) for k, v in data["dims"]),
            alt_a=int(data["alt_a"]),
            ints=(int(data["ints"][0]), int(data["ints"][1])),
            inputs_seed=int(data["inputs_seed"]),
            generator_seed=data.get("generator_seed"),
            strings=(str(strings[0]), str(strings[1])),
            alias_inputs=bool(data.get("alias_inputs", False)),
        )

    def with_source(self, source: str) -> "Program":
        return dataclasses.replace(self, source=source)


# Calls 0..4: fresh values (aliased inputs on 1), a new int value, a new batch size, a new string.
CALLS = 5
ALIAS_CALL = 1
ALT_INT_CALL = 2
ALT_SHAPE_CALL = 3
ALT_STR_CALL = 4
MODULE_KINDS = frozenset({"obj", "gen"})  # parameters whose value comes from the loaded module


def call_dims(program: Program, call: int) -> dict[str, int]:
    dims = dict(program.dims)
    if call == ALT_SHAPE_CALL:
        dims["A"] = program.alt_a
    return dims


def make_inputs(program: Program, call: int, module: types.ModuleType | None = None) -> list[Any]:
    """The arguments of call number ``call``: deterministic in (inputs_seed, call).

    ``obj`` and ``gen`` parameters need the loaded ``module`` (its ``OBJ`` and ``numbers``).
    """
    generator = torch.Generator().manual_seed(program.inputs_seed * 1009 + call)
    dims = call_dims(program, call)

    def tensor(shape: tuple[str, ...]) -> torch.Tensor:
        return torch.randn([dims[d] if d in dims else int(d) for d in shape], generator=generator)

    args: list[Any] = []
    for param in program.params:
        if param.kind in MODULE_KINDS and module is None:
            raise ValueError(f"parameter {param.name!r} ({param.kind}) needs the loaded program module")
        if param.kind == "tensor":
            args.append(tensor(param.shape))
        elif param.kind == "int":
            args.append(program.ints[1] if call == ALT_INT_CALL else program.ints[0])
        elif param.kind == "list":
            args.append([tensor(param.shape) for _ in range(param.length)])
        elif param.kind == "str":
            args.append(program.strings[1] if call == ALT_STR_CALL else program.strings[0])
        elif param.kind == "obj":
            args.append(module.OBJ)
        elif param.kind == "iter":
            args.append(iter([tensor(param.shape) for _ in range(param.length)]))
        elif param.kind == "gen":
            args.append(module.numbers(param.length))
        elif param.kind == "dict":
            args.append({"a": tensor(param.shape), "b": tensor(param.shape)})
        elif param.kind == "npint":
            args.append(np.int32(program.ints[1]) if call == ALT_INT_CALL else np.int64(program.ints[0]))
        # "float" parameters keep their default
    if program.alias_inputs and call == ALIAS_CALL:
        passed = [p for p in program.params if p.kind != "float"]
        pair = [i for i, p in enumerate(passed) if p.kind == "tensor" and p.shape == ("A", "B")][:2]
        if len(pair) == 2:
            args[pair[1]] = args[pair[0]]
    return args
