"""Real stand-ins for symbolic values, so real library code can run over them.

Capture folds a Python operation only by running the real operation. The iterators and
containers of ``itertools`` and ``collections`` are C types that move items around, hash and
compare them, and call functions on them. Running the *real* type over tokens -- one real
object per symbolic value, whose Python protocol (``==``, ``hash``, ``bool``, ``+``, calls,
iteration) runs the symbolic operation -- gives their exact semantics, laziness and order of
evaluation without re-implementing any of them.

* ``to_real(tx, value)``: an immutable constant is passed as itself, a tuple made during capture
  as a real tuple of stand-ins, an object made for real by capture (a deque, a chain) as that
  object, anything else as its :class:`Token` (one per value: identity is kept).
* ``from_real(tx, obj)``: the way back.
* Hashing a token is allowed only for values hashed by identity in Python (tensors, functions,
  modules, plain objects); anything else raises ``Unsupported``.
"""
from __future__ import annotations

import collections.abc
import types
from typing import Any

import torch

from autograph.capture.core.breaks import CaptureBug, Unsupported
from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue, is_literal
from autograph.capture.core.registry import FROM_REAL_HOOKS, state_slot

# at most this many items are drawn from an iterator in one go (``list(itertools.count())``)
MAX_ITEMS = 100_000


# {"tokens": {id(real): ...}, "made": {id(real): (real, value)}}: the real stand-ins of this capture
REAL_STAND_INS = state_slot("real_stand_ins", lambda: {"tokens": {}, "made": {}}, __name__)


def _state(tx) -> dict:
    return REAL_STAND_INS.of(tx)


def register_made(tx, real: Any, value: Value) -> None:
    """``real`` was made by capture (a real deque of tokens, say) and stands for ``value``."""
    _state(tx)["made"][id(real)] = (real, value)


def made_value(tx, real: Any) -> Value | None:
    hit = _state(tx)["made"].get(id(real))
    return hit[1] if hit is not None and hit[0] is real else None


def _immutable_constant(obj: Any) -> bool:
    if type(obj) is tuple:
        return all(_immutable_constant(x) for x in obj)
    return type(obj) is not set and (is_literal(obj) or isinstance(obj, (int, float, str, bytes, complex)))


def to_real(tx, value: Value) -> Any:
    """The real object standing for ``value`` in real library code."""
    from autograph.capture.families.containers import TupleValue
    real = getattr(value, "real_stand_in", None)
    if real is not None:
        return real(tx)
    if value.is_constant():
        const = value.as_python_constant()
        if _immutable_constant(const):
            return const
    if type(value) is TupleValue and value.source is None:
        return tuple(to_real(tx, item) for item in value.items)
    tokens = _state(tx)["tokens"]
    key = token_key(tx, value)
    token = tokens.get(key)
    if token is None:
        token = (CallableToken if _is_callable(tx, value) else MappingToken if _is_mapping(value) else Token)(tx, value)
        tokens[key] = token
    return token


def token_key(tx, value: Value) -> tuple:
    """Values standing for one real object share one token: tensors by their input (or graph
    node), other objects capture knows by their real identity, the rest by the value itself."""
    state = _state(tx)
    if value.is_tensor():
        node = value.node
        real = None
        if node.op == "placeholder":
            real = next((r for _, r, n in tx.graph.inputs if n is node), None)
        elif node.op == "get_attr":
            real = getattr(tx.graph.root, node.target, None)
        if real is None:
            return ("node", node)
    else:
        try:
            real = value.real_value()
        except Unsupported:
            return ("value", id(value))
        if _immutable_constant(real):
            return ("value", id(value))
    state.setdefault("kept", []).append(real)  # ids stay unique while the capture runs
    return ("real", id(real))


def register_token(tx, value: Value, token: "Token") -> None:
    """``token`` (made before ``value`` was known) is the stand-in of ``value`` from now on."""
    _state(tx)["tokens"].setdefault(token_key(tx, value), token)


def from_real(tx, obj: Any) -> Value:
    """The value standing for a real object produced by real library code."""
    if isinstance(obj, Token):
        return obj.value
    made = made_value(tx, obj)
    if made is not None:
        return made
    if type(obj) is tuple:
        from autograph.capture.families.containers import TupleValue
        return TupleValue([from_real(tx, x) for x in obj])
    if _immutable_constant(obj):
        return ConstantValue(obj)
    if type(obj) is list:  # a new list made by the real operation (Counter.most_common, say)
        from autograph.capture.families.containers import ListValue
        return ListValue([from_real(tx, x) for x in obj])
    for hook in FROM_REAL_HOOKS:
        out = hook(tx, obj)
        if out is not None:
            return out
    raise Unsupported(f"a {type(obj).__qualname__} object made by library code during capture", kind="unsupported-operation")




def run_real(tx, what: str, fn, *args, **kwargs) -> Any:
    """Run real library code over stand-ins; its exception becomes Python's (raised natively)."""
    try:
        return fn(*args, **kwargs)
    except (Unsupported, CaptureBug):
        raise
    except Exception as exc:  # noqa: BLE001 - the operation's own error, raised where Python raises it
        known = None if _mentions_token(exc) else exc
        raise Unsupported(f"{what} raised {type(exc).__name__}: {exc}", generic=True, exc=known, kind="python-exception") from None


def _mentions_token(exc: BaseException) -> bool:
    return any(isinstance(a, Token) or (type(a) is tuple and any(isinstance(x, Token) for x in a))
               for a in getattr(exc, "args", ()))


def _is_mapping(value: Value) -> bool:
    try:
        cls = value.python_type()
    except Unsupported:
        return False
    return isinstance(cls, type) and issubclass(cls, collections.abc.Mapping)


def _is_callable(tx, value: Value) -> bool:
    from autograph.capture.families.builtins import _callable
    try:
        return bool(_callable(tx, value).as_python_constant())
    except Unsupported:
        return False


def identity_hashed(value: Value) -> bool:
    """Whether Python hashes and compares the value's object by identity."""
    if value.is_tensor():
        return True
    try:
        cls = value.python_type()
    except Unsupported:
        return False
    if isinstance(cls, type) and issubclass(cls, (types.FunctionType, types.ModuleType, type,
                                                  types.BuiltinFunctionType, torch.nn.Module)):
        return True
    return getattr(cls, "__hash__", None) is object.__hash__ and getattr(cls, "__eq__", None) is object.__eq__


def _binary(symbol: str, reflected: bool = False):
    def method(self, other):
        tx = self.tx
        a, b = self.value, from_real(tx, other)
        if reflected:
            a, b = b, a
        return to_real(tx, tx.binary(symbol, a, b))
    method.__name__ = f"__{'r' if reflected else ''}{symbol}__"
    return method


def _compare(symbol: str):
    def method(self, other):
        tx = self.tx
        return tx.compare(self.value, symbol, from_real(tx, other)).truth(tx)
    return method


class Token:
    """A real object standing for one symbolic value inside real library code."""

    __slots__ = ("tx", "value", "__weakref__")

    def __init__(self, tx, value: Value):
        self.tx = tx
        self.value = value

    def __repr__(self) -> str:
        return f"<{self.value.describe()}>"

    def __hash__(self) -> int:
        if identity_hashed(self.value):
            return object.__hash__(self)
        from autograph.capture.families.sets import raise_if_unhashable
        raise_if_unhashable(self.value)  # a list or dict: Python's TypeError
        from autograph.capture.families.interpreted_keys import interpreted_hash
        hashed = interpreted_hash(self.tx, self.value)  # a class's own Python __hash__, inlined
        if hashed is not None:
            return hashed
        raise Unsupported(f"hashing {self.value.describe()} (a dict/set key or a Counter item)", kind="unsupported-operation")

    __eq__ = _compare("==")
    __ne__ = _compare("!=")
    __lt__ = _compare("<")
    __le__ = _compare("<=")
    __gt__ = _compare(">")
    __ge__ = _compare(">=")

    def __bool__(self) -> bool:
        return self.value.truth(self.tx)

    def __index__(self) -> int:  # an int argument of library code: its value is not known now
        raise Unsupported(f"{self.value.describe()} used where library code needs an int", kind="unsupported-operation")

    __int__ = __float__ = __index__

    def __iter__(self):
        return drain(self.tx, iterator_of(self.tx, self.value), self.value)  # iter() now, as Python does

    def __getitem__(self, key):
        tx = self.tx
        return to_real(tx, tx.getitem(self.value, from_real(tx, key)))

    def __neg__(self):
        return to_real(self.tx, self.tx.unary("-", self.value))


for _sym, _name in (("+", "add"), ("-", "sub"), ("*", "mul"), ("/", "truediv"), ("//", "floordiv"),
                    ("%", "mod"), ("**", "pow"), ("@", "matmul"), ("&", "and"), ("|", "or"), ("^", "xor"),
                    ("<<", "lshift"), (">>", "rshift")):
    setattr(Token, f"__{_name}__", _binary(_sym))
    setattr(Token, f"__r{_name}__", _binary(_sym, reflected=True))


def iterator_of(tx, value: Value) -> Value:
    """``iter(value)``: an iterator is its own iterator (GET_ITER's rule)."""
    from autograph.capture.families.containers import ListIteratorValue
    return value if isinstance(value, ListIteratorValue) else value.get_iter(tx)


def drain(tx, it: Value, what: Value):
    """A real generator over the items of symbolic iterator ``it``, drawn one at a time."""
    limit = MAX_ITEMS
    for _ in range(limit):
        item = it.next(tx)
        if item is None:
            return
        yield to_real(tx, item)
    raise Unsupported(f"more than {limit} items drawn from {what.describe()}", kind="unsupported-operation")


class CallableToken(Token):
    """The stand-in of a callable value: calling it calls the value symbolically."""

    __slots__ = ()

    def __call__(self, *args, **kwargs):
        tx = self.tx
        return to_real(tx, tx.call(self.value, [from_real(tx, a) for a in args],
                                   {k: from_real(tx, v) for k, v in kwargs.items()}))



class MappingToken(Token):
    """The stand-in of a mapping: ``keys()`` and ``[]`` (what ``dict.update``/``dict(m)`` read)."""

    __slots__ = ()

    def keys(self):
        tx = self.tx
        return [to_real(tx, k) for k in self.value.iter_items(tx)]

    def items(self):
        return [(k, self[k]) for k in self.keys()]

    def values(self):
        return [self[k] for k in self.keys()]

    def get(self, key, default=None):
        tx = self.tx
        if not self.value.contains(tx, from_real(tx, key)).truth(tx):
            return default
        return self[key]

    def __contains__(self, key) -> bool:
        tx = self.tx
        return self.value.contains(tx, from_real(tx, key)).truth(tx)

    def __len__(self) -> int:
        return self.value.length(self.tx)


# library code asks ``isinstance(m, Mapping)`` to tell a mapping from an iterable of keys
# (``Counter({"a": 3})`` counts 3, ``Counter(["a"])`` counts 1)
collections.abc.Mapping.register(MappingToken)
