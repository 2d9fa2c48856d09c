"""Statements whose effects outlive a line: counting-hash keys, NumPy ints, errors leaving
``with`` blocks in the middle of graph work, and generators read a little on each call.

* ``counting_keys``: dicts and sets keyed by ``CountingKey`` (its ``__hash__``/``__eq__``
  count their calls in ``HASHES``/``EQS``; keys 0 and 3 collide, so lookups call ``__eq__``),
  a module-level ``TABLE`` kept across calls, the counters read back inside ``fn``.
* ``numpy_ints``: a NumPy integer parameter (``np.int64``, ``np.int32`` on the int-changing
  call) used with tensors, as an index, in ``range``, in f-strings, in NumPy arithmetic.
* ``with_errors``: graph work, then one to three nested context managers (``Tracked``,
  ``logged()`` with a ``finally``, ``no_grad``/``enable_grad``, ``Swallowing``, ``suppress``)
  with graph work at each level, and inside an error only the call decides (an index the int
  parameter puts out of range, a tensor's sign, a division by zero); caught around the blocks
  or left to reach the caller; graph work after.
* ``partial_iterators``: the endless generator ``STREAM``, the list iterator ``ITEMS`` and a
  generator ``PENDING`` one call makes and later calls go on reading, each advanced a few
  items per call (``next``, a ``for`` that breaks, ``islice``, ``zip`` that pulls one more).

The harness compares the counters, ``TABLE``, ``TRACE`` and where each generator stands
(``diff.py``: state and locals, never advancing it) after every call. A mixin of
``ProgramBuilder`` like ``constructs.ExactnessConstructs``.
"""
from __future__ import annotations

from autograph.testing.fuzz.static import Ty

_NP_USES = (
    ("{x} * {m}", "tensor"), ("{x} + {m} * 0.5", "tensor"), ("{x} * ({m} % 3)", "tensor"),
    ("torch.full_like({x}, {m})", "tensor"), ("{x} + torch.tensor({m})", "tensor"),
    ("{x}[{m} % {x}.shape[0]] + {x}", "tensor"), ("{x} / ({m} + 1)", "tensor"),
    ("int({m}) % 3", "int"), ("f'{{{m}}}:{{type({m}).__name__}}'", "str"), ("{m} > 2", "bool"),
    ("isinstance({m}, int)", "bool"), ("hash({m}) % 5", "int"), ("float({m}) * 0.5", "float"),
    ("np.int64({k}) * {m} + 1", "npint"), ("{m} * np.int32(2 ** 30)", "npint"), ("{m} // 2 - {m} % 2", "npint"),
    ("{m} == {k}", "bool"), ("[10, 20, 30][{m} % 3]", "bigint"),
)
_MANAGERS = ("Tracked({name!r})", "logged({name!r})", "torch.no_grad()", "torch.enable_grad()",
             "Swallowing()", "contextlib.suppress(ZeroDivisionError)", "torch.set_grad_enabled(False)")
_CAUGHT = "(IndexError, RuntimeError, ValueError, ZeroDivisionError)"


class FlowConstructs:
    """The statement kinds above; ``setup_flow`` decides which fixtures a program holds."""

    np_param: str | None = None
    streams: bool = False

    def setup_flow(self) -> None:
        f = self.config.features
        if "counting_keys" in f and self.c.chance(0.35):
            self.fixtures.add("CountingKey")
        self.streams = "partial_iterators" in f and self.c.chance(0.35)
        if self.streams:
            self.fixtures.add("STREAM")

    def flow_params(self) -> list:
        from autograph.testing.fuzz.program import Param
        if "numpy_ints" in self.config.features and self.c.chance(0.3):
            self.np_param = "m"
            self.fixtures.add("np")
            return [Param("m", "npint")]
        return []

    def flow_kinds(self, depth: int) -> list[tuple[str, int]]:
        kinds: list[tuple[str, int]] = []
        if "CountingKey" in self.fixtures:
            kinds.append(("counting_key", 7))
        if self.np_param:
            kinds.append(("numpy_int", 3))
        if depth < 2 and "with_errors" in self.config.features:
            kinds.append(("with_error", 2))
        if self.streams:
            kinds.append(("stream", 8))
        return kinds

    # -- keys whose hash and == have effects --------------------------------------------
    def stmt_counting_key(self, depth: int) -> None:
        tensors = self.names("tensor")
        src = self.pick(tensors)
        tables, sets = self.names("keyed"), self.names("keyset")
        roll = self.c.integer(0, 8)
        k = self.an_int()
        if roll == 0 or (roll <= 2 and not tables):
            self.bind("kd", f"{{CountingKey({k}): {src}.sum(), CountingKey(3): {self.pick(tensors)}.sum()}}",
                      Ty("keyed"))
        elif roll == 1:
            table = self.pick(tables)
            if self.c.chance(0.5):
                self.bind("t", f"{table}.get(CountingKey({self.pick(('0', '3', k))}), {src}.sum()) * 2",
                          Ty("tensor", ()))
            else:
                self.bind("flag", f"CountingKey({k}) in {table}", Ty("bool"))
        elif roll == 2:
            table = self.pick(tables)
            self.emit(self.pick((f"{table}[CountingKey(0)] = {src}.sum()", f"{table}.pop(CountingKey({k}), None)",
                                 f"{table}.setdefault(CountingKey(6), {src}.mean())")))
        elif roll == 3:
            self.emit(self.pick((f"TABLE[CountingKey({k})] = round(float({src}.sum()), 3)",
                                 f"TABLE.setdefault(CountingKey({k}), len(TABLE))",
                                 f"TABLE.pop(CountingKey({k}), None)")))
        elif roll == 4 and sets:
            ks = self.pick(sets)
            self.emit(self.pick((f"{ks}.add(CountingKey({k}))", f"{ks}.discard(CountingKey({k}))")))
            self.bind("flag", f"CountingKey(4) in {ks}", Ty("bool"))
        elif roll <= 4:
            self.bind("ks", f"{{CountingKey(1), CountingKey(4), CountingKey({k})}}", Ty("keyset"))
        elif roll in (5, 8):  # what the hashing so far did, read back mid-function
            name = self.bind("k", "HASHES[0] + 10 * EQS[0]", Ty("int"))
            self.bind("t", f"{src} + {name}", self.env[src])
        elif roll == 6 and "print" in self.config.features:  # a graph break between the stores and the reads
            self.emit("print('keys', HASHES[0], len(TABLE))")
        else:
            self.bind("k", "len(TABLE) + sum(key.k for key in TABLE)", Ty("int"))

    # -- NumPy integers -----------------------------------------------------------------
    def stmt_numpy_int(self, depth: int) -> None:
        m = self.np_param if self.c.chance(0.7) or not self.names("npint") else self.pick(self.names("npint"))
        x = self.pick(self.names("tensor", lambda ty: len(ty.shape) >= 1) or self.names("tensor"))
        expr, kind = self.pick(_NP_USES)
        if "{x}[" in expr and not self.env[x].shape:
            expr, kind = "{x} * {m}", "tensor"
        if kind == "tensor" and self.c.chance(0.2) and depth < 2:
            with self.block(f"for i in range({m} % 3):"):
                self.emit(f"{x} = {x} + i")
            return
        text = expr.format(x=x, m=m, k=self.an_int())
        ty = {"tensor": self.env[x], "int": Ty("int", small=True), "bigint": Ty("int")}.get(kind, Ty(kind))
        prefix = {"tensor": "t", "int": "k", "bigint": "k", "npint": "nk", "str": "s", "bool": "flag", "float": "f"}
        self.bind(prefix[kind], text, ty)

    # -- errors leaving with blocks in the middle of graph work ----------------------------
    def stmt_with_error(self, depth: int) -> None:
        # ``logged`` is a ``try``/``finally`` of its own: only where the program may have one
        options = _MANAGERS if "try_except" in self.config.features else tuple(
            m for m in _MANAGERS if not m.startswith("logged"))
        src = self.pick(self.names("tensor"))
        acc = self.bind("w", f"{src} * 2 + 1", self.env[src])
        managers = [self.pick(options).format(name=self.pick(("a", "b", "c"))) for _ in range(self.c.integer(1, 3))]
        self.fixtures |= {"Tracked", "Swallowing"} | ({"logged"} if any(m.startswith("logged") for m in managers)
                                                       else set())
        caught = "try_except" in self.config.features and self.c.chance(0.8)
        if caught:
            with self.block("try:"):
                self._error_nest(managers, acc, src)
            with self.block(f"except {_CAUGHT} as e:"):
                self.emit(f"{acc} = {acc} + float(torch.is_grad_enabled()) + len(TRACE)")
                self.emit("TRACE.append(type(e).__name__)")
        else:
            self._error_nest(managers, acc, src)
        self.emit(f"{acc} = {acc}.cos() + len(TRACE)")

    def _error_nest(self, managers: list[str], acc: str, src: str) -> None:
        with self.block(f"with {managers[0]}:"):
            self.emit(f"{acc} = {acc} * 2 - {src}")
            if len(managers) > 1:
                self._error_nest(managers[1:], acc, src)
            else:
                if "print" in self.config.features and self.c.chance(0.3):
                    self.emit('print("before", len(TRACE))')
                self._call_decided_error(acc, src)
            self.emit(f"{acc} = {acc} + float(torch.is_grad_enabled())")

    def _call_decided_error(self, acc: str, src: str) -> None:
        """A statement that raises on some calls only (which ones the call's values decide)."""
        roll = self.c.integer(0, 3)
        if roll == 2 and not {"exceptions", "made_objects"} <= self.config.features:
            roll = 3  # the function raises no exception object of its own: torch's and Python's only
        if roll == 0 and self.int_param and self.env[src].shape:
            index = f"torch.tensor([{src}.shape[0] - 1 + {self.int_param} % 2])"
            self.emit(f"{acc} = {acc} + torch.index_select({src}, 0, {index}).sum()")
        elif roll == 1 and self.int_param:
            self.emit(f"{acc} = {acc} + 6 // ({self.int_param} - {self.pick(('2', '3', '1'))})")
        elif roll == 2:
            with self.block(f"if {acc}.sum() > 0:"):
                self.emit('raise ValueError("positive")')
        else:
            with self.block(f"if {acc}.mean().item() < 0.2:"):
                self.emit(f"{acc} = {acc}[{acc}.shape[0] + 5] if {acc}.dim() else {acc}.view(-1, 7)")

    # -- generators and iterators read a little on each call ---------------------------------
    def stmt_stream(self, depth: int) -> None:
        roll = self.c.integer(0, 8)
        if roll == 0:
            self.bind("f", self.pick(("next(STREAM)", "next(STREAM) + next(STREAM)")), Ty("float"))
        elif roll == 1:
            self.bind("f", "sum(itertools.islice(STREAM, 2))", Ty("float"))
        elif roll == 2:  # zip pulls one item more from STREAM than it yields
            pairs = self.bind("l", "list(zip(STREAM, range(2)))", Ty("pylist"))
            self.bind("f", f"{pairs}[-1][0]", Ty("float"))
        elif roll == 3 and depth < 2:
            acc = self.pick(self.names("tensor"))
            threshold = self.pick(("1.0", "3.0", "0.0"))
            with self.block("for v in STREAM:"):
                self.emit(f"{acc} = {acc} + v")
                with self.block(f"if v > {threshold} or v > 20:"):
                    self.emit("break")
        elif roll == 4:
            src = self.pick(self.names("tensor", lambda ty: bool(ty.shape) and ty.shape[-1] == "B") or ["x"])
            item = self.bind("it", "next(ITEMS, None)", Ty("item"))
            self.bind("t", f"{src} + ({item} if {item} is not None else 0.0)", self.env[src])
        elif roll == 5:  # a generator made on one call, read on later ones
            self.used_globals.add("PENDING")
            with self.block("if PENDING is None:"):
                self.emit(self.pick((f"PENDING = counting({self.an_int()})",
                                     f"PENDING = (float(v.sum()) for v in ({self.pick(self.names('tensor'))}, SHIFT))")))
            self.bind("f", "next(PENDING, -1.0)", Ty("float"))
        elif roll == 7 and depth < 2:  # a live iterator left where a tensor's value says
            accs = self.names("tensor", lambda ty: bool(ty.shape) and ty.shape[-1] == "B")
            if not accs:
                return self.stmt_stream(depth)
            acc = self.pick(accs)
            with self.block("for item in ITEMS:"):
                self.emit(f"{acc} = {acc} + item")
                with self.block(f"if {acc}.sum() > {self.pick(('0', '2.0', '-1.0'))}:"):
                    self.emit("break")
        elif roll == 8 and "g" in self.iter_left:  # the caller's generator kept for later calls
            self.used_globals.add("PENDING")
            self.iter_left["g"] = 0
            self.emit("PENDING = g")
        else:
            self.used_globals.add("PENDING")
            self.emit("PENDING = None")
