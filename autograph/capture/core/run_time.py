"""Python values only the run can know, computed by the transformed code after the graph.

``1 in [x]`` is ``bool(x == 1)``: a Python bool decided by a tensor's value. ``str(obj)`` of an
object with ``object``'s ``__repr__`` holds the object's address. Neither is known at capture
time, but neither needs Python to *decide* anything there either when the function only keeps or
returns the result. A :class:`RunTimeValue` stands for such a result: the graph computes what
the operation reads (the comparison tensors, fresh graph outputs no later operation can change)
and the transformed code calls the real operation (``bool``, ``str``) on the real objects after
the graph, once. Anything that needs the value during capture (a branch on it, arithmetic) is
a graph break, as before.
"""
from __future__ import annotations

from typing import Any, Callable

from autograph.capture.core.breaks import Unsupported, break_kind
from autograph.capture.core.base import Value

RUN_TIME_VALUE = break_kind(
    "run-time-value", "a Python value that only the run can know (a tensor's truth, an object's address) "
    "was used to decide something during capture",
    "keep such values out of branches and arithmetic in compiled code, or compute them outside it")


class RunTimeValue(Value):
    """``fn(*args)`` evaluated by the transformed code after the graph (``args`` are rebuilt there)."""

    def __init__(self, fn: Callable, args: list[Value], result_type: type, what: str):
        self.fn = fn
        self.args = list(args)
        self.result_type = result_type
        self.what = what

    def describe(self) -> str:
        return f"run-time value {self.what}"

    def python_type(self) -> type:
        return self.result_type

    def truth(self, tx) -> bool:
        raise Unsupported(f"data-dependent branch on {self.what}, known only at run time", kind=RUN_TIME_VALUE)

    def reconstruct(self, cg) -> str:
        call = f"{cg.const(self.fn)}({', '.join(cg.reconstruct(a) for a in self.args)})"
        return cg.shared(self, call)


# Tensor methods whose Python answer reads what no guard holds (TENSOR_MATCH pins class, dtype,
# device, requires_grad, sizes, strides and dispatch keys): the fake's answer is not the run's
UNGUARDED_ANSWERS = {
    "__hash__": "the tensor's identity",
    "storage_offset": "the tensor's offset in its storage",
    "_is_view": "whether the tensor is a view of another",
    "is_set_to": "whether two tensors share storage, offset, sizes and strides",
    "is_shared": "whether the tensor's memory is shared between processes",
    "is_pinned": "whether the tensor's memory is pinned",
}


def refuse_fake_answer(result: Any, what: str, inputs: Any) -> None:
    """The one check for a Python answer computed during capture from a fake tensor or a symbol
    among ``inputs``, before it is folded into the program as a constant:

    * text (``"%s" % t``, ``t.__repr__()``) shows the fake (``FakeTensor(..., size=())``), never
      the run's values (text from no tensor, ``torch._C._get_privateuse1_backend_name()``, is
      the real function's);
    * the answer of a method reading what no guard holds (``UNGUARDED_ANSWERS``: identity,
      storage offset, view-ness, shared or pinned memory) is the fake's, not the run's tensor's.

    Either is never folded: the operation runs in Python after a break."""
    if _holds_text(result) and _holds_fake(inputs):
        raise Unsupported(f"{what} makes text from a tensor's values (known only at run time)",
                          kind=RUN_TIME_VALUE)
    reads = UNGUARDED_ANSWERS.get(what.rsplit(".", 1)[-1])
    if reads is not None and not _holds_tensor(result) and _holds_fake(inputs):
        raise Unsupported(f"{what} reads {reads}, which no guard holds (known only at run time)",
                          kind=RUN_TIME_VALUE)


def _holds_tensor(result: Any) -> bool:
    import torch
    if isinstance(result, torch.Tensor):
        return True
    return type(result) in (tuple, list) and any(_holds_tensor(r) for r in result)


def _holds_text(result: Any) -> bool:
    if isinstance(result, (str, bytes)):
        return True
    if type(result) in (tuple, list):
        return any(_holds_text(r) for r in result)
    return False


def _holds_fake(x: Any) -> bool:
    import torch
    if isinstance(x, (torch.Tensor, torch.SymInt, torch.SymFloat, torch.SymBool)):
        return True
    if isinstance(x, (tuple, list)):
        return any(_holds_fake(i) for i in x)
    if isinstance(x, dict):
        return any(_holds_fake(i) for i in x.values())
    return False


def any_true(*flags: Any) -> bool:
    """``x in seq``'s loop over the comparisons that capture could not decide: each one's real
    truth in order, stopping at the first true one (``PySequence_Contains``)."""
    return any(map(bool, flags))


def one_element_tensor(value: Value) -> bool:
    """A tensor whose truth cannot raise: exactly one element, known statically (shape guarded)."""
    fake = getattr(value, "fake", None)
    if not value.is_tensor() or fake is None:
        return False
    numel = fake.numel()
    return type(numel) is int and numel == 1
