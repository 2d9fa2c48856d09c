"""Calling a module with forward hooks at a graph break: the hooks in Python, the forward compiled.

A module whose forward (pre-)hooks are registered (FSDP2's ``fully_shard`` unshards
parameters in a pre-hook and reshards them in a post-hook; user hooks log or edit
activations) is a graph break in the caller: hooks are arbitrary Python with effects
on state autograph does not model.  The call then runs natively through
:func:`hooked_call`, which does what ``nn.Module.__call__`` does for forward hooks —
same hooks, same order, same arguments (the module itself), same handling of what they
return — but calls the module's ``forward`` through its own shim, so the forward is
compiled once per class of module (one cache shared by every block of a model) instead
of running eagerly.

Anything beyond forward hooks on the module (backward hooks, global hooks, hooks that
must run when forward raises, a jit trace, ``module.compile()``, a ``forward`` or
``__call__`` replaced) makes the call plain ``module(*args, **kwargs)``: exact, with an
eager forward.
"""
from __future__ import annotations

from typing import Any, Callable

import torch
from torch.nn.modules import module as _nn_module

from autograph.capture.core.base import mro_lookup

MODULE_HOOKS = "module-hooks"  # registered with the shared kinds in capture/core/breaks.py


def class_forward(cls: type) -> Any:
    """The ``forward`` a class holds, as stored (an import-hook wrapper stays that wrapper)."""
    return mro_lookup(cls, "forward")[1]


def _only_forward_hooks(module: torch.nn.Module, raw_forward: Any) -> bool:
    """What ``hooked_call`` reproduces of ``nn.Module.__call__``: module-level forward hooks only."""
    cls = type(module)
    return (cls.__call__ is torch.nn.Module.__call__
            and cls._call_impl is torch.nn.Module._call_impl
            and class_forward(cls) is raw_forward
            and "forward" not in module.__dict__
            and getattr(module, "_compiled_call_impl", None) is None
            and not torch._C._get_tracing_state()
            and not module._backward_hooks and not module._backward_pre_hooks
            and not module._forward_hooks_always_called
            and not _nn_module._global_forward_hooks and not _nn_module._global_forward_pre_hooks
            and not _nn_module._global_backward_hooks and not _nn_module._global_backward_pre_hooks)


def hooked_call(forward: Callable, raw_forward: Any) -> Callable:
    """``call(module, *args, **kwargs)``: ``module(*args, **kwargs)`` with ``forward`` (the shim of
    the class's ``forward``, ``raw_forward`` as the class stores it) in place of the eager forward."""

    def call(module: torch.nn.Module, *args: Any, **kwargs: Any) -> Any:
        if not _only_forward_hooks(module, raw_forward):
            return module(*args, **kwargs)
        # the same steps as nn.Module._call_impl's inner(), for module-level forward hooks
        for hook_id, hook in tuple(module._forward_pre_hooks.items()):
            if hook_id in module._forward_pre_hooks_with_kwargs:
                args_kwargs = hook(module, args, kwargs)
                if args_kwargs is not None:
                    if isinstance(args_kwargs, tuple) and len(args_kwargs) == 2:
                        args, kwargs = args_kwargs
                    else:
                        raise RuntimeError("forward pre-hook must return None or a tuple "
                                           f"of (new_args, new_kwargs), but got {args_kwargs}.")
            else:
                new_args = hook(module, args)
                if new_args is not None:
                    args = new_args if isinstance(new_args, tuple) else (new_args,)
        result = forward(module, *args, **kwargs)
        for hook_id, hook in tuple(module._forward_hooks.items()):
            if hook_id in module._forward_hooks_with_kwargs:
                new_result = hook(module, args, kwargs, result)
            else:
                new_result = hook(module, args, result)
            if new_result is not None:
                result = new_result
        return result

    call.__name__ = call.__qualname__ = "hooked_call"
    return call
