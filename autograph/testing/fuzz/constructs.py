"""Statements on Python values whose exact behaviour a compiler owes the caller (issue 13).

Strings and f-strings, dict views kept across mutations, attributes of an object the
harness changes between calls, iterators and generators passed in, identity tests,
``out=``/``inplace=True`` calls whose result is unused, globals rebound between calls,
exceptions raised with constant arguments and caught, objects made in the function and
returned. A mixin of ``ProgramBuilder``: it uses the builder's ``emit``/``block``/
``pick``/``env`` and records the module-level fixtures it needs in ``self.fixtures``.
"""
from __future__ import annotations

from autograph.testing.fuzz.static import Ty

STRING_VALUES = ("abc", "xyz", "ab", "b-a", "aXb", "", "abcabc", "ba", "cab")

_STR_EXPRS = (
    "{s}.upper()", "{s}[1:]", "{s}[::-1]", "{s} + '_x'", 'f"{{{s}}}-{{{n}}}"', "{s}.replace('b', 'B')",
    "'-'.join([{s}, 'z'])", "{s}.strip('a')", "{s} * 2", "{s}.split('b')[0]", "{s}.title()",
    'f"{{{s}!r}}:{{{n}:02d}}"', "{s}.center(6, '*')", "'{{}}/{{}}'.format({s}, {n})", "str(len({s}))",
    "{s}.partition('b')[2]", "{s}.lstrip('ab')", "'%s.%d' % ({s}, {n})", 'f"<{{{s}.upper()}}>"',
    'f"{{{s}[:2]}}{{{n} + 1}}"', 'f"{{{n}}}{{{s}}}{{{s}}}"',
)
_STR_CONDITIONS = (
    "'ab' in {s}", "'b' not in {s}", "'a' in {s}", "'bc' in {s}", "{s} in 'xabcx'", "{s}.startswith('a')", "{s}.endswith(('c', 'z'))", "{s} == 'abc'",
    "{s} != 'xyz'", "{s} < 'b'", "len({s}) > 2", "{s}.isalpha()", "{s} in ('abc', 'ab')", "{s}[:1] == 'a'",
    "{s}.upper() == 'ABC'", "({n}, {s}) < (2, 'b')", "{s}.find('c') >= 0", "not {s}", "{s}.count('a') == 1",
    "max({s}, default='') > 'b'", "'a' <= {s}[-1:] <= 'b'",
)
_STR_INTS = ("len({s})", "{s}.count('a')", "{s}.find('b') + 1", "len({s}.split('b'))", "sorted({s}).index(min({s})) if {s} else 0")
_INPLACE_SELF = ("add_(1)", "mul_(0.5)", "clamp_(-1.0, 1.0)", "sub_(0.25)", "abs_()", "copy_({src})", "zero_()")
_OUT_CALLS = ("torch.add({src}, 1, out={out})", "torch.mul({src}, 2, out={out})", "torch.sin({src}, out={out})",
              "torch.clamp({src}, -0.5, 0.5, out={out})", "torch.add({src}, {src}, alpha=2, out={out})",
              "torch.tanh({src}, out={out})", "torch.neg({src}, out={out})")
_INPLACE_FN = ("F.relu({t}, inplace=True)", "torch.relu_({t})", "F.hardtanh({t}, -0.5, 0.5, inplace=True)",
               "F.leaky_relu({t}, 0.1, inplace=True)", "F.threshold({t}, 0.1, 0.0, inplace=True)",
               "torch.sigmoid_({t})", "F.elu({t}, inplace=True)")
FRESH_KINDS = ("pyset", "pylist", "pydict", "box", "exc")


class ExactnessConstructs:
    """The issue-13 statement kinds; ``exactness_kinds`` says which apply here."""

    # set by ProgramBuilder.__init__/build
    fixtures: set[str]
    str_param: str | None
    obj_param: str | None
    dict_param: str | None
    iter_left: dict[str, int]   # iterator/generator parameter -> items surely left

    def exactness_kinds(self, depth: int) -> list[tuple[str, int]]:
        f = self.config.features
        kinds: list[tuple[str, int]] = []
        if "strings" in f:
            kinds.append(("string", 3))
        if "dict_views" in f:
            kinds.append(("dict_view", 2))
        if "attributes" in f and self.obj_param:
            kinds.append(("attribute", 3))
        if "iterators" in f and self.iter_left:
            kinds.append(("iterator", 3))
        if "identity" in f:
            kinds.append(("identity", 2))
        if "out_args" in f:
            kinds.append(("out_arg", 2))
        if "rebind_globals" in f:
            kinds.append(("read_global", 2))
        if depth < 2 and {"raise_caught", "exceptions", "made_objects"} <= f:
            kinds.append(("raise_caught", 2))
        if "fresh_objects" in f:
            kinds.append(("fresh_object", 2))
        if depth < 2 and "with_blocks" in f:
            kinds.append(("with_block", 2))
        return kinds

    # -- with blocks of Python context managers, nested, with a graph break inside --
    def stmt_with_block(self, depth: int) -> None:
        """``with Tracked(...):`` (its ``__enter__``/``__exit__`` log to ``TRACE``), maybe nested
        and maybe with a ``print`` (a graph break) in the innermost block: each exit runs once, in
        order, and the exit of a block entered after a break reaches the code after it."""
        if self.int_param and self.names("tensor") and self.c.chance(0.3):
            return self.run_time_error_swallowed()
        self.fixtures.add("Tracked")
        names = ["outer", "inner"] if depth == 0 and self.c.chance(0.5) else [self.pick(("a", "b"))]
        headers = [f"with Tracked({n!r}){' as cm' + str(i) if self.c.chance(0.3) else ''}:"
                   for i, n in enumerate(names)]
        self._with_nest(depth, headers)

    def run_time_error_swallowed(self) -> None:
        """An index only the run can find out of range (the int parameter decides, call by
        call) inside a block that swallows the error: ``suppress``, a class whose ``__exit__``
        returns true, ``@contextmanager`` with a handler around ``yield``, or ``no_grad`` under
        ``try`` (grad mode must be back on after the error)."""
        self.fixtures.add("Swallowing")
        src = self.pick(self.names("tensor"))
        name = self.fresh("r")
        index = f"torch.tensor([{src}.shape[0] - 1 + {self.int_param} % 2])"
        self.emit(f"{name} = {src} * 2")
        body = f"{name} = {src} + torch.index_select({src}, 0, {index}).sum()"
        headers = ["with contextlib.suppress(IndexError, RuntimeError):", "with Swallowing():"]
        header = self.pick(headers + (["with swallowed():", "try:"] if "try_except" in self.config.features else []))
        if header == "with swallowed():":
            self.fixtures.add("swallowed")
        with self.block(header):
            if header == "try:":
                with self.block("with torch.no_grad():"):
                    self.emit(body)
            else:
                self.emit(body)
        if header == "try:":
            with self.block("except (IndexError, RuntimeError):"):
                self.emit(f"{name} = {name} + float(torch.is_grad_enabled())")
        self.env[name] = self.env[src]

    def _with_nest(self, depth: int, headers: list[str]) -> None:
        with self.block(headers[0]):
            self.statement(depth + 1)
            if len(headers) > 1:
                self._with_nest(depth + 1, headers[1:])
                return
            if "print" in self.config.features and self.c.chance(0.6):
                self.emit('print("in", TRACE[-1])')
            self.statement(depth + 1)

    # -- small helpers ------------------------------------------------------------
    def ab_tensors(self) -> list[str]:
        return self.names("tensor", lambda ty: ty.shape == ("A", "B"))

    def a_string(self) -> str:
        """A str-valued expression: the str parameter, a str variable, a global or a literal."""
        pool = self.names("str")
        if self.str_param:
            pool += [self.str_param] * 2
        if "rebind_globals" in self.config.features and self.c.chance(0.2):
            self.fixtures.add("MODE")
            pool.append("MODE")
        if self.obj_param and self.c.chance(0.15):
            pool.append(f"{self.obj_param}.tag")
        return self.pick(pool) if pool else repr(self.pick(STRING_VALUES))

    def an_int(self) -> str:
        pool = self.names("int")
        return self.pick(pool) if pool and self.c.chance(0.6) else str(self.c.integer(0, 3))

    def string_condition(self) -> str:
        return self.pick(_STR_CONDITIONS).format(s=self.a_string(), n=self.an_int())

    def python_condition(self) -> str:
        """A condition on Python values of these constructs (for ``condition()``)."""
        bools = self.names("bool")
        if bools and self.c.chance(0.5):
            name = self.pick(bools)
            return name if self.c.chance(0.7) else f"not {name}"
        if self.c.chance(0.15):
            return self.sequence_condition()
        return self.string_condition()

    def sequence_condition(self) -> str:
        """``==`` between a named tuple, a tuple and a list holding a number only known at run
        time (a float): Python compares tuple subclasses as tuples, lists never equal tuples."""
        floats = self.names("float")
        v = self.pick(floats) if floats else self.an_int()
        s = self.a_string()
        self.fixtures.add("Pair")
        return self.pick((f"Pair({v}, {s}) == ({v}, {s})", f"({v}, {s}) != Pair({v}, {s})",
                          f"[{v}, {s}] == ({v}, {s})", f"Pair({v}, {s}) == Pair({v}, 'abc')"))

    def bind(self, prefix: str, expr: str, ty: Ty) -> str:
        name = self.fresh(prefix)
        self.emit(f"{name} = {expr}")
        self.env[name] = ty
        return name

    # -- strings --------------------------------------------------------------------
    def stmt_string(self, depth: int) -> None:
        s, n = self.a_string(), self.an_int()
        roll = self.c.integer(0, 5)
        if roll == 0:
            self.bind("s", self.pick(_STR_EXPRS).format(s=s, n=n), Ty("str"))
        elif roll == 1 and "branch_python" in self.config.features:
            with self.block(f"if {self.string_condition()}:"):
                self.body(depth + 1, 1, 2)
            if self.c.chance(0.5):
                with self.block("else:"):
                    self.body(depth + 1, 1, 1)
        elif roll == 2:
            self.bind("flag", self.string_condition(), Ty("bool"))
        elif roll == 3:
            self.bind("k", self.pick(_STR_INTS).format(s=s), Ty("int", small=True))
        elif roll == 4:
            source = self.pick(self.names("tensor"))
            self.bind("t", f"{source} * (1.5 if {self.string_condition()} else -0.5)", self.env[source])
        else:  # a dict keyed by strings, looked up with a string that may or may not be there
            source = self.pick(self.names("tensor"))
            table = self.bind("sd", f"{{{s}: {source}, 'abc': {source} * 2}}", Ty("pydict"))
            self.bind("t", f"{table}.get({self.a_string()}, {source} + 1)", self.env[source])

    # -- dict views -----------------------------------------------------------------
    def stmt_dict_view(self, depth: int) -> None:
        tensors = self.ab_tensors()
        if not tensors:
            return self.stmt_string(depth)
        views = self.names("view")
        if views and self.c.chance(0.35):  # read a view bound earlier, after later mutations
            view = self.pick(views)
            which = self.env[view].keys[0]
            if which == "values":
                self.bind("t", f"sum({view}, {self.pick(tensors)} * 0)", Ty("tensor", ("A", "B")))
            elif which == "keys":
                self.bind("flag", f"'n' in {view}", Ty("bool"))
            else:
                self.bind("k", f"len({view})", Ty("int", small=True))
            return None
        if self.dict_param and self.c.chance(0.6):
            table = self.dict_param
        else:
            table = self.bind("dd", f"{{'a': {self.pick(tensors)}, 'b': {self.pick(tensors)}}}", Ty("pydict"))
        which = self.pick(("values", "keys", "items"))
        view = self.bind("dv", f"{table}.{which}()", Ty("view", keys=(which,)))
        mutation = self.pick((f"{table}['n'] = {self.pick(tensors)}", f"{table}.pop('a', None)",
                              f"{table}.setdefault('c', {self.pick(tensors)})", f"{table}.update(e={self.pick(tensors)})",
                              f"{table}['b'] = {self.pick(tensors)} * 2"))
        self.emit(mutation)
        roll = self.c.integer(0, 3)
        if roll == 0:
            self.bind("k", f"len({view})", Ty("int", small=True))
        elif roll == 1 and which == "values":
            self.bind("t", f"sum({view}, {self.pick(tensors)} * 0)", Ty("tensor", ("A", "B")))
        elif roll == 2:
            self.bind("l", f"list({view})", Ty("pylist"))
        else:
            acc = self.pick(tensors)
            item = {"values": "v", "keys": "key", "items": "key, v"}[which]
            with self.block(f"for {item} in {view}:"):
                if which == "keys":
                    self.emit(f"{acc} = {acc} + len(key)")
                else:
                    self.emit(f"{acc} = {acc} + v")

    # -- attributes of an object the caller changes between calls ------------------
    def stmt_attribute(self, depth: int) -> None:
        o = self.obj_param if self.c.chance(0.8) else "OBJ"
        tensors = self.names("tensor")
        roll = self.c.integer(0, 9)
        if roll == 0:
            self.bind("k", f"getattr({o}, 'z', 0)", Ty("int"))
        elif roll == 1 and "branch_python" in self.config.features:
            with self.block(f"if hasattr({o}, 'z'):"):
                source = self.pick(tensors)
                self.emit(f"{source} = {source} + {o}.z")
            if self.c.chance(0.5):
                with self.block("else:"):
                    self.body(depth + 1, 1, 1)
        elif roll == 2:
            source = self.pick(tensors)
            scale = self.pick(("getattr({o}, 'scale', 1.0)", "{o}.scale")).format(o=o)
            self.bind("t", f"{source} * {scale}", self.env[source])
        elif roll == 3:
            self.emit(self.pick((f"{o}.count += 1", f"{o}.count = {o}.count + {self.an_int()}")))
        elif roll == 4:
            value = self.pick([self.a_string(), self.an_int()] + [f"{t}.sum()" for t in tensors[:2]])
            self.emit(self.pick((f"setattr({o}, 'last', {value})", f"{o}.last = {value}")))
        elif roll == 5:
            self.bind("flag", self.pick((f"{o}.tag == 'abc'", f"'ab' in {o}.tag", f"{o}.flag")), Ty("bool"))
        elif roll == 6:
            self.bind("flag", self.pick((f"'z' in vars({o})", f"{o}.__dict__.get('z') is None",
                                         f"'scale' in {o}.__dict__")), Ty("bool"))
        elif roll == 7:
            with self.block(f"if hasattr({o}, 'tmp'):"):
                self.emit(f"del {o}.tmp")
            with self.block("else:"):
                self.emit(f"{o}.tmp = {self.an_int()}")
        elif roll == 8:
            self.bind("s", self.pick((f"type({o}).kind", f"{o}.kind", "Obj.kind")), Ty("str"))
        else:
            self.bind("v", f"getattr({o}, {self.a_string()}, None) is None", Ty("bool"))

    # -- iterators and generators passed in ------------------------------------------
    def stmt_iterator(self, depth: int) -> None:
        name = self.pick(sorted(self.iter_left))
        kind = self.env[name].kind
        surely = depth == 0 and self.iter_left[name] > 0  # straight-line code: next() cannot run out
        tensors = self.ab_tensors()
        roll = self.c.integer(0, 3)
        if kind == "iter":
            default = self.pick(tensors) if tensors else "None"
            if roll <= 1 and tensors:
                self.iter_left[name] -= 1
                item = f"next({name})" if surely and roll == 0 else f"next({name}, {default})"
                self.bind("t", f"{self.pick(tensors)} + {item}", Ty("tensor", ("A", "B")))
            elif roll == 2 and tensors:
                acc = self.pick(tensors)
                self.iter_left[name] = 0
                with self.block(f"for v in {name}:"):
                    self.emit(f"{acc} = {acc} + v")
                    with self.block(f"if {acc}.sum() > 0:" if "branch_tensor" in self.config.features
                                    else f"if {self.python_condition()}:"):
                        self.emit("break")
            else:
                self.iter_left[name] = 0
                self.bind("k", f"sum(1 for _ in {name})", Ty("int", small=True))
        else:
            if roll <= 1:
                self.iter_left[name] -= 1
                self.bind("f", f"next({name})" if surely and roll == 0 else f"next({name}, -1.0)", Ty("float"))
            elif roll == 2:
                self.iter_left[name] = 0
                threshold = self.pick(("0.4", "0.9", "0.0"))
                with self.block(f"for v in {name}:"):
                    with self.block(f"if v > {threshold}:"):
                        self.emit("break")
            else:
                self.iter_left[name] = 0
                self.bind("f", f"max({name}, default=0.0)", Ty("float"))

    # -- identity ---------------------------------------------------------------------
    def stmt_identity(self, depth: int) -> None:
        tensors = self.names("tensor")
        target = self.pick(self.tensor_params if self.tensor_params and self.c.chance(0.5) else tensors)
        if target not in self.env:
            target = self.pick(tensors)
        roll = self.c.integer(0, 6)
        if roll == 0:
            mates = [t for t in tensors if self.env[t].shape == self.env[target].shape and t != target]
            method = self.pick(_INPLACE_SELF).format(src=self.pick(mates) if mates else "1.0")
            if method.startswith("copy_(1.0"):
                method = "fill_(1.0)"
            result = self.bind("y", f"{target}.{method}", self.env[target])
            self.bind("flag", f"{result} is {target}", Ty("bool"))
        elif roll == 1:
            view = self.bind("y", self.pick((f"{target}.view(-1)", f"{target}.reshape(-1)", f"{target}[:]",
                                             f"{target}.view_as({target})")), Ty("tensorview"))
            self.bind("flag", self.pick((f"{view} is {target}", f"{view} is not {target}")), Ty("bool"))
        elif roll == 2 and len(tensors) >= 2:
            a, b = self.pick(tensors), self.pick(tensors)
            self.bind("flag", self.pick((f"{a} is {b}", f"id({a}) == id({b})", f"{a} is not {b}")), Ty("bool"))
        elif roll == 3 and self.obj_param:
            self.bind("flag", self.pick((f"{self.obj_param} is OBJ", f"id({self.obj_param}) == id(OBJ)")), Ty("bool"))
        elif roll == 4 and len(self.env[target].shape) == 2:
            self.bind("flag", f"{target}.t_().t_() is {target}", Ty("bool"))
        elif roll == 5 and self.list_param:
            alias = self.bind("l", self.list_param, Ty("pylist"))  # not iterated: the body may append to it
            self.emit(f"{alias}.append({target})")
            self.bind("flag", f"{alias} is {self.list_param}", Ty("bool"))
        else:
            self.bind("flag", f"{target}.detach() is {target}", Ty("bool"))

    # -- out= and inplace=True calls whose result is unused ------------------------------
    def stmt_out_arg(self, depth: int) -> None:
        tensors = self.names("tensor")
        src = self.pick(tensors)
        shape = self.env[src].shape
        roll = self.c.integer(0, 6)
        if roll <= 1:
            buf = self.bind("buf", f"torch.zeros_like({src})", Ty("tensor", shape))
            self.emit_out_call(self.pick(_OUT_CALLS).format(src=src, out=buf), src)
        elif roll == 2:
            outs = [p for p in self.tensor_params if p in self.env and self.env[p].shape == shape]
            out = self.pick(outs) if outs else src
            self.emit_out_call(self.pick(_OUT_CALLS).format(src=src, out=out), src)
        elif roll == 3:
            target = self.pick(self.tensor_params) if self.tensor_params and self.c.chance(0.5) else src
            if target not in self.env:
                target = src
            self.emit_out_call(self.pick(_INPLACE_FN).format(t=target), target)
        elif roll == 4 and len(shape) == 2:
            buf = self.bind("buf", f"{src}.new_zeros({src}.shape[-1])", Ty("tensor", (shape[1],)))
            self.emit_out_call(f"torch.sum({src}, dim=0, out={buf})", src)
        elif roll == 5 and len(shape) == 2:
            partners = [o for o in tensors if len(self.env[o].shape) == 2 and self.env[o].shape[0] == shape[1]]
            if not partners:
                buf = self.bind("buf", f"{src}.new_empty(0)", Ty("tensor", (self.fresh("d"),) + shape[1:]))
                self.emit_out_call(f"torch.cat([{src}, {src} * 2], dim=0, out={buf})", src)
                return
            other = self.pick(partners)
            out_shape = (shape[0], self.env[other].shape[1])
            buf = self.bind("buf", f"{src}.new_zeros({src}.shape[0], {other}.shape[1])", Ty("tensor", out_shape))
            if self.c.chance(0.5):
                self.emit_out_call(f"torch.matmul({src}, {other}, out={buf})", src, other)
            else:
                self.emit_out_call(f"torch.addmm({buf}, {src}, {other}, out={buf})", src, other)
        else:
            buf = self.bind("buf", f"{src}.new_empty(0)", Ty("tensor", (self.fresh("d"),) + shape[1:]))
            self.emit_out_call(f"torch.cat([{src}, {src}.cos()], dim=0, out={buf})" if shape
                               else f"torch.stack([{src}, {src}], out={buf})", src)
            if not shape:
                self.env[buf] = Ty("tensor", ("2",))

    def emit_out_call(self, call: str, *sources: str) -> None:
        """An ``out=``/in-place call; under ``no_grad`` unless every source is a parameter
        (values computed from module weights require grad, and out= refuses those)."""
        if all(source in self.tensor_params for source in sources):
            self.emit(call)
            return
        with self.block("with torch.no_grad():"):
            self.emit(call)

    # -- globals rebound between calls -------------------------------------------------
    def stmt_read_global(self, depth: int) -> None:
        tensors = self.names("tensor")
        roll = self.c.integer(0, 4)
        if roll == 0 and "branch_python" in self.config.features:
            self.fixtures.add("MODE")
            with self.block("if MODE == 'fast':"):
                self.body(depth + 1, 1, 1)
            with self.block("else:"):
                self.body(depth + 1, 1, 1)
        elif roll == 1:
            source = self.pick(tensors)
            self.bind("t", f"{source} * SCALE", self.env[source])
        elif roll == 2:
            sources = [t for t in tensors if self.env[t].shape and self.env[t].shape[-1] == "B"]
            if not sources:
                return self.stmt_string(depth)
            self.fixtures.add("WEIGHT")
            source = self.pick(sources)
            self.bind("t", f"{source} * WEIGHT", self.env[source])
        elif roll == 3:
            self.bind("flag", "FLAG and SCALE > 1", Ty("bool"))
        else:
            self.fixtures.add("MODE")
            self.bind("s", f"MODE + {self.a_string()}", Ty("str"))

    # -- exceptions with constant arguments, raised and caught -------------------------
    def stmt_raise_caught(self, depth: int) -> None:
        if self.int_param and self.c.chance(0.25):
            return self.division_caught()
        self.fixtures.add("FuzzError")
        tensors = self.names("tensor")
        source = self.pick(tensors)
        raise_line = self.pick(('raise FuzzError("bad", code=42)', 'raise FuzzError("bad", 7)',
                                'raise FuzzError("bad")', 'raise ValueError("bad value", 3)'))
        caught = "ValueError" if "ValueError" in raise_line else "FuzzError"
        if self.c.chance(0.15) and depth == 0:  # not caught: reaches the caller (rarely: most programs return)
            with self.block(f"if {self.python_condition()} and {self.python_condition()}:"):
                self.emit(raise_line)
            return
        with self.block("try:"):
            if self.c.chance(0.5):
                self.body(depth + 1, 1, 1)
            if self.c.chance(0.6):
                with self.block(f"if {self.python_condition()}:"):
                    self.emit(raise_line)
            else:
                self.emit(raise_line)
        with self.block(f"except {caught} as e:"):
            handlers = [f"{source} = {source} * len(e.args)", f"{source} = {source} + 1"]
            if caught == "FuzzError":
                handlers += ["e.code += 1", "e.code += 1", f"{source} = {source} * e.code"]
            if "globals" in self.config.features:
                self.fixtures.add("CAUGHT")
                handlers.append("CAUGHT.append(e)")
            if self.obj_param:
                handlers.append(f"{self.obj_param}.last_error = e")
            if "print" in self.config.features:  # a graph break in the handler (moved to the raise)
                handlers.append('print("caught", len(e.args))')
            for _ in range(self.c.integer(1, 2)):
                self.emit(self.pick(handlers))

    def division_caught(self) -> None:
        """A division by the int parameter's function that is zero on some calls only: whether
        it raises is the call's business, not the capture's."""
        n = self.int_param
        divisor = self.pick((f"({n} % 2)", f"({n} - 2)", f"({n} - 3)", f"({n} - 1)"))
        expr = self.pick((f"6 // {divisor}", f"7 % {divisor}", f"1.5 / {divisor}", f"divmod(9, {divisor})[0]"))
        name = self.fresh("q")
        with self.block("try:"):
            self.emit(f"{name} = {expr}")
        with self.block("except ZeroDivisionError as e:"):
            self.emit(f"{name} = len(str(e))")
        self.env[name] = Ty("float") if "/ " in expr and "//" not in expr else Ty("int")

    # -- objects made in the function (and returned) ---------------------------------------
    def stmt_fresh_object(self, depth: int) -> None:
        tensors = self.names("tensor")
        roll = self.c.integer(0, 5 if "made_objects" in self.config.features else 3)
        if roll == 0:
            tags = self.bind("tags", "set()", Ty("pyset"))
            self.emit(f"{tags}.add({self.pick([self.a_string(), self.an_int()])})")
        elif roll == 1:
            acc = self.bind("acc", "[]", Ty("pylist"))
            self.emit(f"{acc}.append({self.pick([self.an_int(), self.pick(tensors) + '.sum()'])})")
        elif roll == 2:
            info = self.bind("info", "{}", Ty("pydict"))
            self.emit(f"{info}[{self.a_string()}] = {self.pick([self.an_int(), self.pick(tensors)])}")
        elif roll == 3:
            self.fixtures.add("Box")
            box = self.bind("box", "Box()", Ty("box"))
            self.emit(f"{box}.value = {self.pick(tensors)}")
        elif roll == 4:
            self.bind("err", self.pick(('ValueError("made here", 3)', 'KeyError("k")')), Ty("exc"))
        else:
            self.bind("marker", "object()", Ty("box"))

    def fresh_objects(self) -> list[str]:
        return [name for name, ty in self.env.items() if ty.kind in FRESH_KINDS]

