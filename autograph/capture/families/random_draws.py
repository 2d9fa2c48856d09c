"""Python's ``random`` module inside compiled code.

Two cases, two strategies:

* **A ``random.Random(seed)`` made in the call with a constant seed** is deterministic: each
  call of the function makes a fresh generator in the same state and draws the same numbers.
  Capture makes the real generator now and holds it as a *private* object (families/private.py):
  its methods run for real on it (C methods: ``random``, ``getrandbits``, ``seed``, ...), its
  Python methods (``randint``, ``choice``, ``shuffle``, ``gauss``...) are inlined with the
  private generator as ``self``, so their results are the real draws, folded as constants. The
  seed is a constant (guarded where it was read). Nothing else can observe the generator while
  only this capture holds it; when it escapes (live at a break, returned, stored outside) the
  break moves to its construction, which then runs in Python.
* **Draws from a generator from outside** -- the module functions (``random.random()``,
  ``random.randint``, bound to the module's hidden instance), a ``random.Random`` passed in or
  held by a global -- read and advance state the caller shares, and their values are known only
  at run time: the call is a break of kind :data:`PYTHON_RANDOM` at the user's call site, made
  before anything of the library is inlined. The draw then runs in Python, once, in program
  order; the code before and after it is captured (the graphs around the break).

* **The module's stream after ``random.seed(c)`` in the call** (a constant seed) is known too: a
  private generator seeded the same way mirrors it, the module functions draw from the mirror,
  and the transformed code sets the module's state to the mirror's final state after the graph
  (a replayed effect, recorded at the seed). Draws before any seed in the call break as above.

NumPy's global random state (``np.random.rand()``) breaks in families/numpy_values.py (kind
``numpy``).
"""
from __future__ import annotations

import random
import types
from typing import Any

from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.breaks import Unsupported, break_kind
from autograph.capture.families import private, side_effects
from autograph.capture.families.objects import ObjectValue
from autograph.guards.sources import AttrSource

PYTHON_RANDOM = break_kind(
    "python-random", "a draw from Python's `random` module or a `random.Random` from outside the call: "
    "its stream is not torch's and its value is known only at run time, so the call runs in Python "
    "between two graphs (a `random.Random(seed)` made in the call with a constant seed is captured)",
    "draw with torch (`torch.rand`, a `torch.Generator`) inside compiled code, or draw outside and pass "
    "the number in")

# seeds whose generator state is a function of their value alone (``random.seed``'s own rules)
_SEED_TYPES = (int, float, str, bytes, bytearray)


def _private_generator(tx, obj: Any) -> bool:
    return id(obj) in private.PRIVATE_OBJECTS.of(tx)


class RandomDrawValue(Value):
    """A method of a ``random.Random`` from outside (``random.random`` is one): calling it breaks.
    Rebuilt from its source, or as ``owner.name`` of the generator's value."""

    def __init__(self, method: Any, source=None, owner: Value | None = None, name: str = ""):
        self.method = method
        self.source = source
        self.owner = owner
        self.name = name

    def describe(self) -> str:
        return f"random.{getattr(self.method, '__name__', '?')}"

    def real_value(self) -> Any:
        return self.method

    def call(self, tx, args, kwargs):
        if getattr(self.method, "__self__", None) is _MODULE_GENERATOR:
            out = _module_stream_call(tx, self.method.__name__, args, kwargs)
            if out is not None:
                return out
        raise Unsupported(f"{self.describe()}() draws from a Python random generator from outside the call",
                          kind=PYTHON_RANDOM)

    def reconstruct(self, cg) -> str:
        if self.source is not None:
            return cg.source_expr(self.source)
        return f"{cg.reconstruct(self.owner)}.{self.name}"


class _GeneratorMethod(Value):
    """A C method of a private generator (``r.random``, ``r.getrandbits``): run for real on it."""

    def __init__(self, method: Any):
        self.method = method

    def describe(self) -> str:
        return f"method {getattr(self.method, '__name__', '?')} of a random.Random made in the call"

    def call(self, tx, args, kwargs):
        real_args = [private.real_argument(tx, a) for a in args]
        real_kwargs = {k: private.real_argument(tx, v) for k, v in kwargs.items()}
        out = private.run_real(tx, self.describe(), lambda: self.method(*real_args, **real_kwargs))
        return private.result_value(tx, out)

    def reconstruct(self, cg) -> str:
        raise Unsupported("a method of a random.Random made in the call is live where the graph ends",
                          kind=private.LIVE_COPY)


def _wrap_method(tx, obj: Any, source) -> Value | None:
    """``CALLABLE_WRAPPERS`` hook: a bound method of a ``random.Random`` (exactly that class)."""
    owner = getattr(obj, "__self__", None)
    if type(owner) is not random.Random or not callable(obj):
        return None
    if _private_generator(tx, owner):
        if isinstance(getattr(obj, "__func__", None), types.FunctionType):
            return None  # a Python method: inlined with the private generator as self
        return _GeneratorMethod(obj)
    if source is None:
        return None  # (rebuilt through the generator's value: _OutsideGenerator)
    tx.guards.id_(source, obj)
    return RandomDrawValue(obj, source)


def _wrap_generator(tx, obj: Any, source) -> Value:
    """``TYPE_WRAPPERS`` entry for a ``random.Random`` from outside: its methods break at the call."""
    if source is not None:
        tx.guards.type_(source, obj)
    return _OutsideGenerator(obj, source)


class _OutsideGenerator(ObjectValue):
    def getattr(self, tx, name):
        attr = getattr(type(self.obj), name, None)
        if callable(attr) and not isinstance(attr, type) and not name.startswith("__"):
            src = AttrSource(self.source, name) if self.source is not None else None
            return RandomDrawValue(getattr(self.obj, name), src, self, name)
        return super().getattr(tx, name)


class _PrivateGenerator(private.PrivateValue):
    """A ``random.Random(seed)`` made in the call, held by this capture only."""

    def describe(self) -> str:
        return "random.Random made in the call"

    def reconstruct(self, cg) -> str:
        raise Unsupported("a random.Random made in the call is live where the graph ends (it is made in Python)",
                          kind=PYTHON_RANDOM)


# the generator behind the module functions (``random.random`` is ``_inst.random``)
_MODULE_GENERATOR = getattr(random, "_inst", None)
# per capture: the private generator mirroring the module's stream after a ``random.seed(c)``
MODULE_MIRROR = registry.state_slot("random_module_mirror", dict, __name__)


def _module_stream_call(tx, name: str, args: list[Value], kwargs: dict[str, Value]) -> Value | None:
    """A module function (``random.seed``, ``random.random``, ...) once the call seeded the module's
    stream with a constant: the stream is then known, so a private generator seeded the same way
    stands for it (its draws are the real ones, folded), and the transformed code sets the module's
    state to the mirror's final state after the graph (a replayed effect recorded at the seed, in
    program order). None: not modelled (draws before any seed in the call are known only at run
    time)."""
    mirror = MODULE_MIRROR.of(tx)
    if name == "seed":
        if kwargs or len(args) != 1 or not args[0].is_constant() \
                or type(args[0].as_python_constant()) not in _SEED_TYPES:
            return None
        generator = random.Random(args[0].as_python_constant())
        first = "value" not in mirror
        mirror["value"] = private.adopt_value(tx, generator, _PrivateGenerator)
        if first:
            state = mirror  # read when the entry is written: the state the capture left the stream in
            side_effects.record_replay(tx, lambda cg: f"{cg.const(_MODULE_GENERATOR.setstate)}"
                                                      f"({cg.const(state['value'].obj.getstate())})")
        from autograph.capture.core.constants import ConstantValue
        return ConstantValue(None)
    if "value" not in mirror:
        return None
    return mirror["value"].getattr(tx, name).call(tx, args, kwargs)


def _construct(tx, cls: Any, args: list[Value], kwargs: dict[str, Value]) -> Value:
    """``CLASS_CALL_HOOKS`` entry: ``random.Random(seed)`` with a constant seed."""
    if cls is not random.Random:
        return NotImplemented
    if kwargs or len(args) > 1:
        return NotImplemented
    if not args or not args[0].is_constant() or type(args[0].as_python_constant()) not in _SEED_TYPES:
        raise Unsupported("random.Random() without a constant seed draws a stream only the run knows",
                          kind=PYTHON_RANDOM)
    generator = random.Random(args[0].as_python_constant())
    out = private.adopt_value(tx, generator, _PrivateGenerator)
    out.created_step = tx.step  # live at a break: the break moves here and the generator is made in Python
    return out


def install() -> None:
    """Register the generator hooks."""
    registry.add_class_call_hook(_construct)
    registry.add_callable_wrapper(_wrap_method)
    registry.register_type_wrapper(random.Random, _wrap_generator)
