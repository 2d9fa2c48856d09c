"""Tensors: an FX node plus its fake value (``node.meta['example_value']``).

Metadata (shape, dtype, device, ...) is read from the fake tensor and becomes a
constant (shapes are static; the TENSOR_MATCH guard keeps that valid). Anything
that needs the tensor's *values* in Python (truth, ``item()``, ``tolist()``)
is a graph break.
"""
from __future__ import annotations

import operator

import torch

from autograph.capture.core.breaks import Unsupported, break_kind
from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue
from autograph.capture.core.registry import INDEX_CONVERSIONS, TENSOR_METHOD_OVERRIDES
from autograph.guards.sources import AttrSource

# attributes answered from the fake tensor's metadata. The layout and backend queries (``is_nested``,
# ``is_sparse``, ``is_mkldnn``, ``is_cpu``...) follow from the dispatch keys, device and layout that
# TENSOR_MATCH guards on an input (a graph-made tensor's are fixed by the graph); ``itemsize`` and
# ``nbytes`` from its dtype and shape (a size expression when the sizes are symbolic).
_META_ATTRS = {"shape", "dtype", "device", "ndim", "requires_grad", "layout", "is_leaf",
               "is_cpu", "is_cuda", "is_xpu", "is_mps", "is_mtia", "is_maia", "is_ipu", "is_xla", "is_vulkan",
               "is_meta", "is_sparse", "is_sparse_csr", "is_quantized", "is_mkldnn", "is_nested",
               "itemsize", "nbytes"}
# attributes that are graph operations
_OP_ATTRS = {"T", "mT", "H", "mH", "real", "imag", "data", "grad"}
# a tensor's own state: the C-level attributes whose store changes what the tensor is
_TENSOR_STATE = frozenset({"data", "grad", "requires_grad", "names", "retains_grad", "is_leaf", "grad_fn"})
# methods whose answer is metadata only
_META_METHODS = {"size", "dim", "stride", "numel", "nelement", "element_size", "is_contiguous",
                 "is_floating_point", "is_complex", "get_device", "ndimension", "type"}
# methods that need real values or are side effects beyond the graph
_BREAK_METHODS = {
    "item": "`.item()` reads a tensor value into Python",
    "tolist": "`.tolist()` reads tensor values into Python",
    "numpy": "`.numpy()` leaves torch",
    "backward": "`.backward()` runs autograd outside the graph",
    "__bool__": "data-dependent branch on a tensor value",
    "register_hook": "`.register_hook(fn)` adds a backward hook to the tensor",
    "register_post_accumulate_grad_hook": "`.register_post_accumulate_grad_hook(fn)` adds a hook to the tensor",
    "data_ptr": "`.data_ptr()`",
}



TENSOR_HOOK = break_kind(
    "tensor-hook", "registering an autograd hook on a tensor the graph computes or a non-leaf passed in "
    "(`t.register_hook(fn)`) changes what backward will run, state no graph output carries: the "
    "registration runs in Python between graphs (a hook on a leaf passed in is registered after the "
    "graph; its handle used in the call, or `torch.autograd.grad` after it, also break here)",
    "register the hook outside the compiled function (on the input or parameter, or on the result "
    "it returns), or do the hook's work in a `torch.autograd.Function`'s backward")
TENSOR_STATE_STORE = break_kind(
    "tensor-state-store", "assigning a tensor's own state (`t.data = ...`, `t.grad = ...`, "
    "`t.requires_grad = ...`) swaps what the tensor object is, which a graph cannot express: the "
    "assignment runs in Python between graphs",
    "for `t.data = v` write `with torch.no_grad(): t.copy_(v)` when shapes agree; set `.grad` and "
    "`.requires_grad` outside the compiled function, or use `t.requires_grad_()`")


def _break_kind(method: str) -> str:
    if method in ("item", "tolist", "numpy", "__bool__"):
        return "data-dependent-branch"
    return TENSOR_HOOK if method.startswith("register_") else "unsupported-call"


def _converted_index(tx, key: Value) -> Value:
    if not INDEX_CONVERSIONS:
        return key
    from autograph.capture.families.containers import TupleValue

    def one(v):
        for hook in INDEX_CONVERSIONS:
            out = hook(tx, v)
            if out is not None:
                return out
        return v
    if type(key) is TupleValue:
        items = [one(i) for i in key.items]
        return key if all(a is b for a, b in zip(items, key.items)) else TupleValue(items)
    return one(key)


class TensorValue(Value):
    real_cls = None  # the class of the real tensor an input or parameter stands for (guarded)

    def __init__(self, node: torch.fx.Node, fake: torch.Tensor, source=None):
        self.node = node
        self.fake = fake
        self.source = source

    def describe(self) -> str:
        return f"tensor {self.node.name}"

    def is_tensor(self) -> bool:
        return True

    def constant_index(self) -> int | None:
        """``operator.index(t)`` run on the real tensor when the fake tensor mode knows its value:
        a tensor made from constants only (``torch.as_tensor(2)``), which it tracks as
        ``FakeTensor.constant`` and forgets once the tensor is written to. None otherwise."""
        real = getattr(self.fake, "constant", None)
        if real is None:
            return None
        try:
            return operator.index(real)
        except TypeError:  # a float tensor: Python raises, at run time too
            return None

    def python_type(self) -> type:
        if self.real_cls is not None:
            return self.real_cls
        return type(self.fake) if not isinstance(self.fake, torch._subclasses.FakeTensor) else torch.Tensor

    def truth(self, tx) -> bool:
        raise Unsupported("data-dependent branch on a tensor value", kind="data-dependent-branch")

    def _instance_attribute(self, tx, name: str) -> Value:
        """An attribute torch.Tensor lacks: the tensor's own ``__dict__`` (``x.tag = ...``) decides,
        guarded either way (TENSOR_MATCH does not look at it)."""
        real = self._real(tx)
        if real is not None and name in real.__dict__:
            if self.source is None:
                raise Unsupported(f"attribute `.{name}` set on a tensor", kind="unsupported-torch-value")
            return tx.wrap(real.__dict__[name], AttrSource(self.source, name))
        if self.source is not None:
            tx.guards.key_absent(AttrSource(self.source, "__dict__"), name)
        elif real is not None:
            raise Unsupported(f"attribute `.{name}` of a tensor reached without a source",
                kind="unsupported-torch-value")
        err = AttributeError(f"'Tensor' object has no attribute '{name}'")
        raise Unsupported(f"AttributeError: {err}", generic=True, exc=err, kind="python-exception")

    def _real(self, tx):
        """The real tensor an input or parameter stands for (None for a tensor the graph computes)."""
        if self.node.op == "placeholder":
            return next((real for _, real, node in tx.graph.inputs if node is self.node), None)
        if self.node.op == "get_attr":
            return getattr(tx.graph.root, self.node.target, None)
        return None

    def _grad_input(self, tx) -> Value:
        """``p.grad`` of a leaf from outside (a parameter, a tensor that needs no grad), read
        through its source as a graph input (None guarded as None): the list of a model's
        gradients that clipping or loss-scale unscaling works on. Not after a ``zero_grad()`` this
        capture recorded (it clears the slots only after the graph), nor of any other tensor."""
        from autograph.capture.families.grad_clearing import clears_grads
        real = self._real(tx)
        leaf = isinstance(real, torch.Tensor) and (isinstance(real, torch.nn.Parameter) and self.real_cls is type(real)
                                                   or not real.requires_grad)
        if self.node.op != "placeholder" or self.source is None or not leaf or clears_grads(tx):
            raise Unsupported("reading `.grad` of a tensor", kind="unsupported-operation")
        return tx.wrap(real.grad, AttrSource(self.source, "grad"))

    def getattr(self, tx, name: str) -> Value:
        from autograph.capture.families.builder import wrap_fake_result
        if name == "is_leaf" and self.fake.requires_grad and self.node.op in ("placeholder", "get_attr"):
            # a tensor from outside that requires grad may have been computed (no guard holds its
            # autograd history): its fake is always a leaf
            raise Unsupported("`.is_leaf` of a tensor from outside that requires grad (its autograd history "
                              "is known only at run time)", kind="run-time-value")
        if name == "nbytes":  # (torch reads it with a C++ numel(), which refuses symbolic sizes)
            return ConstantValue(self.fake.numel() * self.fake.element_size())
        if name in _META_ATTRS:
            value = getattr(self.fake, name)
            if name == "shape":
                return wrap_fake_result(tx.graph, None, value)
            return ConstantValue(value() if callable(value) else value)
        if name in _OP_ATTRS:
            if name == "grad":
                return self._grad_input(tx)
            return tx.graph.call("call_function", getattr, (self, name), {})
        if name in _BREAK_METHODS:
            return TensorMethodValue(self, name)
        if name == "__class__":  # the Python class TENSOR_MATCH guards
            return tx.wrap(self.python_type(), None, trusted=True)
        attr = getattr(torch.Tensor, name, None)
        if attr is None:
            return self._instance_attribute(tx, name)
        if callable(attr):
            return TensorMethodValue(self, name)
        raise Unsupported(f"tensor attribute `.{name}`", kind="unsupported-operation")

    def setattr(self, tx, name, value):
        if name in _TENSOR_STATE:
            raise Unsupported(f"setting `.{name}` of a tensor", kind=TENSOR_STATE_STORE)
        raise Unsupported(f"setting `.{name}` on a tensor — a side effect", kind="side-effect")

    def getitem(self, tx, key: Value) -> Value:
        return tx.graph.call("call_function", operator.getitem, (self, _converted_index(tx, key)), {})

    def setitem(self, tx, key, value):
        tx.graph.call("call_function", operator.setitem,
                      (self, _converted_index(tx, key), value), {})  # (``t[i] = ndarray`` raises TypeError)

    def iter_items(self, tx):
        if self.fake.dim() == 0:
            raise Unsupported("iteration over a 0-d tensor", generic=True, kind="python-exception")
        return [self.getitem(tx, ConstantValue(i)) for i in range(self.fake.shape[0])]

    def length(self, tx):
        if self.fake.dim() == 0:
            raise Unsupported("len() of a 0-d tensor", generic=True, kind="python-exception")
        return int(self.fake.shape[0])

    def reconstruct(self, cg) -> str:
        return cg.tensor(self)


def _tensor_type_name(value: Value) -> Value:
    """``x.type(torch.HalfTensor)``: the legacy tensor type as the dotted name ``Tensor.type``
    imports back to the same class (a plain constant in the graph)."""
    try:
        real = value.real_value()
    except Unsupported:
        return value
    if isinstance(real, type(torch.FloatTensor)):
        return ConstantValue(f"{real.__module__}.{real.__name__}")
    return value


class TensorMethodValue(Value):
    """``tensor.method`` waiting to be called."""

    def __init__(self, tensor: TensorValue, name: str):
        self.tensor = tensor
        self.name = name

    def describe(self):
        return f"Tensor.{self.name}"

    def call(self, tx, args, kwargs):
        override = TENSOR_METHOD_OVERRIDES.get(self.name)
        if override is not None:
            out = override(tx, self.tensor, args, kwargs)
            if out is not NotImplemented:
                return out
        if self.name in _BREAK_METHODS:
            raise Unsupported(_BREAK_METHODS[self.name], kind=_break_kind(self.name))
        if self.name == "type" and args:
            args = [_tensor_type_name(args[0]), *args[1:]]
        if self.name in _META_METHODS:
            from autograph.capture.families.builder import wrap_fake_result
            with tx.graph.fake_mode:
                try:
                    result = getattr(self.tensor.fake, self.name)(*to_fake_arg(args), **to_fake_arg(kwargs))
                except Exception as exc:
                    raise Unsupported(f"Tensor.{self.name} failed: {type(exc).__name__}", generic=True,
                                      kind="python-exception")
            if not isinstance(result, torch.Tensor):
                return wrap_fake_result(tx.graph, None, result)
        if self.name in ("tolist", "item"):
            raise Unsupported(_BREAK_METHODS[self.name],
                              kind="data-dependent-branch" if self.name in ("item", "tolist", "numpy", "__bool__")
                              else "unsupported-call")
        return tx.graph.call("call_method", self.name, (self.tensor, *args), kwargs)

    def reconstruct(self, cg):
        return f"{cg.reconstruct(self.tensor)}.{self.name}"


def tensor_values(obj) -> list:
    """The tensor values among a call's symbolic arguments (one level into containers)."""
    from autograph.capture.families.containers import BaseSequenceValue, DictValue

    def values(obj) -> list:  # (the import above made once per call, not once per item)
        if isinstance(obj, TensorValue):
            return [obj]
        if isinstance(obj, BaseSequenceValue):
            return [t for i in obj.items for t in values(i)]
        if isinstance(obj, DictValue):
            return [t for v in obj.items.values() for t in values(v)]
        if isinstance(obj, (tuple, list)):
            return [t for o in obj for t in values(o)]
        if isinstance(obj, dict):
            return [t for o in obj.values() for t in values(o)]
        return []

    return values(obj)


def to_fake_arg(obj):
    """The fake-tensor-mode argument a value stands for (tensors: their fake; containers: rebuilt)."""
    from autograph.capture.families.containers import BaseSequenceValue, DictValue, SliceValue

    def fake(obj):  # (the import above made once per call, not once per item)
        if isinstance(obj, TensorValue):
            return obj.fake
        if isinstance(obj, SliceValue):
            return slice(*(fake(p) for p in obj.parts))
        if isinstance(obj, BaseSequenceValue):
            return obj.kind(fake(i) for i in obj.items)
        if isinstance(obj, DictValue):
            return {k: fake(v) for k, v in obj.items.items()}
        if isinstance(obj, tuple):
            return tuple(fake(o) for o in obj)
        if isinstance(obj, list):
            return [fake(o) for o in obj]
        if isinstance(obj, dict):
            return {k: fake(v) for k, v in obj.items()}
        if isinstance(obj, Value):
            if obj.is_symbolic_scalar():
                return obj.graph_arg()[1]
            return obj.as_python_constant()
        return obj

    return fake(obj)
