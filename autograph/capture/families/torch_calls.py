"""Calling a torch function: into the graph, answered at capture time, or a graph break."""
from __future__ import annotations

import re
import types
from typing import Callable

import torch

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.base import Value
from autograph.capture.families.builtins import _all_constant, fold
from autograph.capture.core.constants import ConstantValue
from autograph.capture.core.grad_reads import READS_GRAD
from autograph.capture.families.tensors import tensor_values
from autograph.capture.core.registry import TORCH_BREAKS, TORCH_CALL_OVERRIDES, add_torch_breaks

# torch functions that change global state: calling one is a graph break
_GLOBAL_STATE_FUNCTIONS = {
    "manual_seed", "seed", "set_grad_enabled", "no_grad", "enable_grad", "inference_mode",
    "set_default_dtype", "set_default_device", "save", "load", "synchronize", "set_printoptions",
    "use_deterministic_algorithms", "compile", "set_num_threads", "get_rng_state", "set_rng_state",
}

# torch.func transforms keep interpreter state in C (vmap/grad levels): not interpreted
_TRANSFORM_MODULES = ("torch._functorch", "torch.func", "torch.autograd.forward_ad")


class TorchFunctionValue(Value):
    """A torch function, ``torch.nn.functional`` function or Tensor method descriptor."""

    def __init__(self, fn: Callable):
        self.fn = fn

    def describe(self):
        return f"{getattr(self.fn, '__module__', 'torch')}.{getattr(self.fn, '__name__', self.fn)}"

    def real_value(self):
        return self.fn

    def getattr(self, tx, name):
        """``Tensor.grad.__get__``: a C descriptor's slot method, a method-wrapper bound to the
        descriptor (made anew on each read, equal and hashed by what it wraps)."""
        if name in ("__get__", "__set__", "__delete__") and hasattr(type(self.fn), name) \
                and type(self.fn).__name__ in ("getset_descriptor", "member_descriptor"):
            return tx.wrap(getattr(self.fn, name), None, trusted=True)
        return super().getattr(tx, name)

    def call(self, tx, args, kwargs):
        from autograph.capture.families.compile_markers import refuse_graph_break_request
        refuse_graph_break_request(self.fn)
        name = getattr(self.fn, "__name__", "")
        if name in TORCH_BREAKS:
            raise Unsupported(f"unsupported: torch.{name}() changes global state", kind="side-effect")
        if self.fn is torch.is_grad_enabled:
            return ConstantValue(torch.is_grad_enabled())
        override = TORCH_CALL_OVERRIDES.get(self.fn)
        if override is not None:
            out = override(tx, args, kwargs)
            if out is not NotImplemented:
                return out
        if self.fn in (torch.is_tensor,) and len(args) == 1:
            return ConstantValue(args[0].is_tensor())
        from autograph.capture.families.state_queries import guard_answer
        if _process_state_builtin(self.fn) and not tensor_values((args, kwargs)):
            raise Unsupported(f"{self.describe()}() is torch's own C function with no tensor argument: it may change "
                              "process state (the mode stacks), so it runs in Python, at run time", kind="side-effect")
        try:
            if isinstance(self.fn, types.FunctionType) and not tensor_values((args, kwargs)):
                # running its body on fake tensors is running it for real (a closure's object
                # changed, a counter bumped) and the graph would run it once more
                raise Unsupported(f"{self.describe()}() gets no tensor argument: not a graph operation "
                                  f"(interpreted, or called once in Python)", kind="unsupported-call")
            out = tx.graph.call("call_function", self.fn, tuple(args), kwargs)
            guard_answer(tx, self.fn, args, kwargs, out, self.describe())  # reads global state
            return out
        except Unsupported as exc:
            constant = _all_constant(args, kwargs) and isinstance(self.fn, types.FunctionType)
            if constant and is_state_query(self.fn):
                # a query without tensor arguments (torch.cuda.is_available(), is_scripting(), ...):
                # run for real at capture and by the guard, so it must not change anything
                result = fold(tx, self.fn, args, kwargs, self.describe())
                if not result.is_tensor():
                    guard_answer(tx, self.fn, args, kwargs, result, self.describe())
                    return result
            if (constant or exc.reason.endswith("passed to a torch operation") or exc.reason.endswith(READS_GRAD)
                    or exc.reason.startswith("torch operation returned")  # (a dict: tensor_grouping.py)
                    or exc.reason.startswith(f"{self.describe()}() gets no tensor argument")) \
                    and type(self.fn) is types.FunctionType \
                    and not (self.fn.__module__ or "").startswith(_TRANSFORM_MODULES):
                # a Python function of torch taking a value that is no graph argument (a class,
                # a function, a Python object): interpreted like user code instead
                from autograph.capture.families.functions import UserFunctionValue
                try:
                    return UserFunctionValue(self.fn).call(tx, list(args), dict(kwargs))
                except Unsupported:
                    pass
            raise

    def reconstruct(self, cg):
        return cg.const(self.fn)


# what a torch function that only reads state is called: ``is_available``, ``get_default_dtype``,
# ``are_deterministic_algorithms_enabled``, ``is_scripting``, ``_profiler_enabled`` ...
_QUERY_NAME = re.compile(r"^_*(is|are|has|get|can)_|_(enabled|available|initialized|precision)$")


def _process_state_builtin(fn: Callable) -> bool:
    """A private C function of ``torch._C`` that is not named as a query: called without a tensor
    it is no graph operation, and the fake run would run it for real at capture time (pushing
    or popping the real mode stacks, ``_pop_torch_function_stack``)."""
    return isinstance(fn, types.BuiltinFunctionType) and getattr(fn, "__module__", None) == "torch._C" \
        and fn.__name__.startswith("_") and not is_state_query(fn)


def is_state_query(fn: Callable) -> bool:
    """Whether ``fn`` (a torch Python function with constant arguments) only reads state by its
    name, so capture may run it for real and the guard call it again. Anything else
    (``opt.step``, a scheduler, a patched wrapper) is interpreted, or called once at run time."""
    return bool(_QUERY_NAME.search(getattr(fn, "__name__", "") or ""))


def install() -> None:
    add_torch_breaks(_GLOBAL_STATE_FUNCTIONS)
