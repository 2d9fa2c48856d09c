"""The program generator: tensor code, helpers, modules, control flow, side effects.

The Python-level constructs (strings, dict views, attributes, iterators, identity,
exceptions, fresh objects, ``out=`` calls) live in ``constructs.py`` and plug in as a
mixin; the harness-side objects they use are declared in ``fixtures.py``.
"""
from __future__ import annotations

import contextlib
import dataclasses
import itertools
from typing import Any, Callable, Iterator, Sequence

from autograph.testing.fuzz.choosers import DrawChooser, RandomChooser, T, _pick
from autograph.testing.fuzz.constructs import STRING_VALUES, ExactnessConstructs
from autograph.testing.fuzz.fixtures import between_calls_source, fixture_source
from autograph.testing.fuzz.flow_constructs import FlowConstructs
from autograph.testing.fuzz.mode_constructs import ModeConstructs
from autograph.testing.fuzz.program import CALLS, DEFAULT_CONFIG, ENTRY, FuzzConfig, Param, Program
from autograph.testing.fuzz.static import Ty, broadcast as _broadcast
from autograph.testing.fuzz.training_constructs import TrainingConstructs


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


class ProgramBuilder(ExactnessConstructs, ModeConstructs, TrainingConstructs, FlowConstructs):
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
        self.fixtures: set[str] = set()      # module-level objects fn uses (fixtures.py)
        self.str_param: str | None = None
        self.obj_param: str | None = None
        self.dict_param: str | None = None
        self.iter_left: dict[str, int] = {}

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
        if self.config.features & {"strings", "identity", "dict_views"} and self.c.chance(0.3):
            return self.python_condition()
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
        kinds += self.exactness_kinds(depth)
        kinds += self.mode_kinds(depth)
        kinds += self.training_kinds(depth)
        kinds += self.flow_kinds(depth)
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
        if roll == 2 and not lists:  # enumerate a literal list of the accumulator
            lst = self.fresh("l")
            self.emit(f"{lst} = [{acc}, {acc} * 2]")
            self.env[lst] = Ty("tlist", self.env[acc].shape, length=2)
            lists = [lst]
        if roll == 0 or (not lists and roll != 4):
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
        if roll == 3 and not self.int_param:
            roll = 5
        if "made_objects" not in self.config.features and roll != 3:
            roll = 2 if roll == 2 and self.names("tlist") else 1  # only errors torch or Python raise
        if roll == 0:
            condition = f"{source}.sum() > 2.0" if "branch_tensor" in self.config.features else f"{source}.shape[0] > 4"
            with self.block(f"if {condition}:"):
                self.emit(f'raise ValueError(f"{source} too large: shape {{tuple({source}.shape)}}")')
        elif roll == 1:
            self.shape_error(source, tensors)
        elif roll == 2:
            lists = self.names("tlist")
            if lists:
                name, lst = self.fresh("t"), self.pick(lists)
                self.emit(f"{name} = {lst}[{self.small_int()}]")
                self.env[name] = Ty("tensor", self.env[lst].shape)
            else:
                self.emit(f'assert {source}.dim() < 2, "expected a vector"')
        elif roll == 3:
            name = self.fresh("k")
            self.emit(f"{name} = 12 // ({self.int_param} - 3)")
            self.env[name] = Ty("int")
        elif roll == 4:
            self.emit(f'assert {source}.shape[0] != 5, "five rows are not allowed"')
        else:
            with self.block(f"if {self.condition()}:"):
                self.emit(f'raise RuntimeError("stop at {source}")')

    def shape_error(self, source: str, tensors: list[str]) -> None:
        """A torch op that raises on these shapes (torch makes the exception)."""
        mates = [t for t in tensors if self.env[t].shape != self.env[source].shape
                 and _broadcast(self.env[t].shape, self.env[source].shape) is None]
        name = self.fresh("t")
        if mates:  # a shape mismatch in a torch op
            self.emit(f"{name} = {source} + {self.pick(mates)}")
        else:
            self.emit(f"{name} = {source}.view(-1, 7)")
        self.env[name] = self.env[source]

    def stmt_try(self, depth: int) -> None:
        lists = self.names("tlist")
        source = self.pick(self.names("tensor"))
        with self.block("try:"):
            if lists and self.c.chance(0.5):
                self.emit(f"{source} = {source} + {self.pick(lists)}[{self.small_int()}].sum()")
            else:
                self.body(depth + 1, 1, 2)
                if {"exceptions", "made_objects"} <= self.config.features and self.c.chance(0.5):
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
            kind = self.pick(("linear", "layers", "training", "counter", "derived"))
            lines = [f"class {name}(torch.nn.Module):", "    def __init__(self):", "        super().__init__()"]
            if kind == "derived":  # a subclass whose forward calls super().forward, maybe after a break
                lines = [f"class {name}Base(torch.nn.Module):", "    def forward(self, x):",
                         "        return self.lin(x) * self.scale", "", "",
                         f"class {name}({name}Base):", "    def __init__(self):", "        super().__init__()"]
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
            elif kind == "derived":
                lines += ["        x = x + self.offset"]
                if "print" in self.config.features and self.c.chance(0.7):
                    lines += ['        print("calls", self.calls)']  # a graph break before super()
                lines += ["        return super().forward(x) - self.offset"]
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
        params += self.exactness_params()
        params += self.flow_params()
        self.setup_training()
        self.setup_flow()
        if self.c.chance(0.3):
            params.append(Param("alpha", "float"))
        self.tensor_params = [p.name for p in params if p.kind == "tensor"]
        param_types = {"tensor": "tensor", "list": "tlist", "str": "str", "obj": "obj", "iter": "iter",
                       "gen": "gen", "dict": "pdict", "float": "float", "npint": "npint"}
        for p in params:
            if p.kind == "int":
                self.env[p.name] = Ty("int", small=True)
            else:
                self.env[p.name] = Ty(param_types[p.kind], p.shape, length=p.length)
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
        fn_source = "\n".join(self.lines[header_at:])
        rebinds = fn_source if "rebind_globals" in self.config.features else ""  # globals fn reads
        self.lines += between_calls_source(self.c, rebinds, CALLS, always=("OBJ",) if "Obj" in self.fixtures else ())
        self.lines[header_at:header_at] = fixture_source(self.fixtures, b)
        source = "\n".join(self.lines) + "\n"
        a_values = (self.c.integer(0, 4), self.c.integer(0, 4))
        first = self.pick(STRING_VALUES)
        strings = (first, self.pick([value for value in STRING_VALUES if value != first]))
        alias = "aliased_inputs" in self.config.features and self.c.chance(0.25)
        return Program(source=source, params=tuple(params), dims=self.dims, alt_a=alt_a,
                       ints=a_values, inputs_seed=inputs_seed, generator_seed=generator_seed,
                       strings=strings, alias_inputs=alias)

    def exactness_params(self) -> list[Param]:
        """Parameters of the issue-13 constructs: a string, the caller's object, iterators, a dict."""
        f = self.config.features
        params: list[Param] = []
        if "strings" in f and self.c.chance(0.5):
            params.append(Param("s", "str"))
            self.str_param = "s"
        if "attributes" in f and self.c.chance(0.4):
            params.append(Param("o", "obj"))
            self.obj_param = "o"
            self.fixtures.add("Obj")
        if "iterators" in f and self.c.chance(0.3):
            params.append(Param("it", "iter", ("A", "B"), length=3))
            self.iter_left["it"] = 3
        if "iterators" in f and self.c.chance(0.25):
            params.append(Param("g", "gen", length=4))
            self.iter_left["g"] = 4
            self.fixtures.add("numbers")
        if "dict_views" in f and self.c.chance(0.3):
            params.append(Param("d", "dict", ("A", "B")))
            self.dict_param = "d"
        return params

    def return_expr(self) -> str:
        values = [name for name, ty in self.env.items() if ty.kind not in ("iter", "gen", "keyset")]
        fresh = self.fresh_objects()
        if fresh and self.c.chance(0.7):  # objects made in fn: a caller keeps and changes them
            values = fresh
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

