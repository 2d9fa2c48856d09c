"""The explicit API: ``compile``, ``reset``, ``skip``, ``mark_dynamic``, ``mark_static``.

``compile`` is the decorator/call form over the same shim the import hook
installs; per-call overrides (backend, dynamic, fullgraph) travel with the
shim into capture.
"""
from __future__ import annotations

import sys
import types
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def _overrides(backend: Any, fullgraph: bool, dynamic: Any) -> dict:
    out: dict[str, Any] = {}
    if backend is not None:
        out["backend"] = backend
    if fullgraph:
        out["fullgraph"] = True
    if dynamic is not None:
        out["dynamic"] = {True: "always", False: "static"}.get(dynamic, dynamic)
    return out


TORCH_MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


class CompileArgumentWarning(UserWarning):
    """A ``torch.compile`` argument autograph accepts but does not apply as torch would."""


def _warn(message: str) -> None:
    import warnings

    warnings.warn(message, CompileArgumentWarning, stacklevel=4)


def _check_torch_arguments(mode: str | None, options: dict | None) -> None:
    """``mode``/``options`` as ``torch.compile`` checks them; what autograph does instead, said once."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in TORCH_MODES:
        raise RuntimeError(f"Unrecognized mode={mode!r}, should be one of: {', '.join(TORCH_MODES)}")
    if mode == "reduce-overhead":
        if not _cuda_available():
            _warn("autograph.compile: mode='reduce-overhead' replays the Triton backend's static-shape CUDA "
                  "graphs from CUDA graphs; without a CUDA device there are no CUDA graphs here")
    elif mode not in (None, "default"):
        _warn(f"autograph.compile: mode={mode!r} is not applied: autograph has no max-autotune mode; "
              "the backend compiles each graph with its defaults (choose one with backend=...)")
    if options:
        _warn(f"autograph.compile: options={sorted(options)} are not applied: autograph's backends take no "
              "options; pass a backend callable (backend=my_compiler) to control compilation")


def _cuda_available() -> bool:
    torch = sys.modules.get("torch")  # never imported here for this check
    return bool(torch is not None and torch.cuda.is_available())


def compile(fn_or_module: Any = None, *, fullgraph: bool = False, dynamic: Any = None, backend: Any = None,
            mode: str | None = None, options: dict | None = None, disable: bool = False) -> Any:
    """Compile a function, any callable or an ``nn.Module`` with autograph (decorator or call).

    The signature is ``torch.compile``'s. ``dynamic``: ``True``/``"always"``, ``False``/``"static"``
    or ``"auto"``; ``fullgraph``: a graph break is an error; ``backend``: a name or a callable;
    ``disable=True`` returns the target unchanged; ``mode``/``options`` are checked as torch
    checks them; ``mode="reduce-overhead"`` gives the Triton backend CUDA graphs on CUDA, other
    modes and ``options`` are not applied (a :class:`CompileArgumentWarning` says so).
    A module gets back a module sharing parameters, buffers, submodules and ``state_dict``
    keys with the original, whose ``forward`` is compiled. Builtins (``torch.add``), ``functools.partial``
    objects and callable objects are compiled as a call of them; an already compiled function is
    returned as it is (never wrapped twice).
    """
    _check_torch_arguments(mode, options)
    overrides = _overrides(backend, fullgraph, dynamic)
    if mode == "reduce-overhead":  # CUDA graphs for the Triton backend's CUDA graphs
        from autograph.backends.triton.reduce_overhead import ReduceOverhead

        overrides["backend"] = ReduceOverhead(overrides.get("backend"))

    def apply(target: Any) -> Any:
        return target if disable else _compile_one(target, overrides)

    if fn_or_module is None:
        return apply
    return apply(fn_or_module)


_report_checked = False


def _report_at_exit_if_asked() -> None:
    """``AUTOGRAPH_REPORT=1`` (or ``report:``) with ``autograph.compile`` alone, no hook: the run
    report is printed at exit as under the launcher (checked once, at the first compile)."""
    global _report_checked
    if _report_checked:
        return
    _report_checked = True
    from autograph.errors import SettingsError
    from autograph.settings import current_settings

    try:
        settings = current_settings()
    except SettingsError:
        return  # the first compiled call reports it, with its message
    if settings.report:
        from autograph.hook.startup import print_report_at_exit

        print_report_at_exit(settings)


def _compile_one(target: Any, overrides: dict) -> Any:
    import functools

    from autograph.runtime.shim import Shim, shim_for

    _report_at_exit_if_asked()

    if isinstance(target, Shim):  # already compiled: the same shim, or one over its function
        if not overrides or target.overrides == overrides:
            return target
        return _compile_one(target.fn, overrides)
    compiled_view = getattr(type(target), "_autograph_orig_mod", None)
    if compiled_view is not None and getattr(type(target), "_autograph_shim", None) is not None:
        return target if not overrides else _compile_one(compiled_view, overrides)
    if isinstance(target, types.MethodType) and isinstance(target.__func__, Shim):
        return target if not overrides else _compile_one(types.MethodType(target.__func__.fn, target.__self__),
                                                         overrides)
    if isinstance(target, functools.partial) and isinstance(target.func, (types.FunctionType, types.MethodType)):
        compiled = _compile_one(target.func, overrides)
        return functools.partial(compiled, *target.args, **target.keywords)
    if isinstance(target, (types.BuiltinFunctionType, types.BuiltinMethodType, functools.partial)) or (
            _is_c_callable(target)):
        return _compile_call_of(target, overrides)

    if isinstance(target, types.MethodType):
        shim = Shim(target.__func__, overrides) if overrides else shim_for(target.__func__)
        shim.explicit = True  # compiled on purpose: captured even when called without tensors
        return types.MethodType(shim, target.__self__)
    if isinstance(target, types.FunctionType):
        shim = Shim(target, overrides) if overrides else shim_for(target)
        shim.explicit = True
        return shim
    torch = sys.modules.get("torch")  # no module exists before torch is imported: never import it here
    if torch is not None and isinstance(target, torch.nn.Module):
        return _compile_module(target, overrides)
    if _is_library_callable(target):
        return _compile_call_of(target, overrides)
    call = getattr(target, "__call__", None)  # noqa: B004 - a bound Python __call__, not callable()
    if isinstance(call, types.MethodType):
        return _compile_one(call, overrides)
    if callable(target):
        return _compile_call_of(target, overrides)
    raise TypeError(f"autograph.compile expects a Python function, another callable or an nn.Module, "
                    f"got {type(target).__name__}")


def _is_c_callable(target: Any) -> bool:
    """A callable with no Python code of its own: a builtin, a method descriptor, an op overload
    (``torch.ops.aten.add.Tensor``), a ufunc-like object."""
    if isinstance(target, (types.FunctionType, types.MethodType, type)):
        return False
    call = getattr(type(target), "__call__", None)  # noqa: B004 - the class's __call__: Python code or not
    return callable(target) and not isinstance(call, types.FunctionType)


def _is_library_callable(target: Any) -> bool:
    """A callable object of a library autograph never instruments (``torch.ops.aten.add.Tensor``):
    its call is recorded, its own Python is not captured."""
    from autograph.settings import never_instrumented

    if isinstance(target, (types.FunctionType, types.MethodType, type)) or not callable(target):
        return False
    return never_instrumented(type(target).__module__ or "")


def _compile_call_of(target: Any, overrides: dict) -> Any:
    """A compiled function that calls ``target``: capture records the call as one graph node
    (a torch builtin) or follows it (a partial of Python code), as ``torch.compile(torch.add)`` does."""
    from autograph.runtime.shim import Shim

    def call(*args: Any, **kwargs: Any) -> Any:
        return target(*args, **kwargs)

    name = getattr(target, "__name__", None) or type(target).__name__
    module = getattr(target, "__module__", None) or type(target).__module__
    call.__name__ = name
    call.__qualname__ = name
    call.__doc__ = getattr(target, "__doc__", None)
    # a code object of its own: statistics, cache entries and the recompile limit are per code object
    call.__code__ = call.__code__.replace(co_name=name, co_qualname=name,
                                          co_filename=f"<autograph.compile of {module}.{name}>")
    shim = Shim(call, overrides)
    shim.explicit = True
    return shim


def _compile_module(module: Any, overrides: dict) -> Any:
    """A view of ``module`` (same ``__dict__``) whose class compiles ``forward``.

    Sharing ``__dict__`` keeps parameters, buffers, submodules, hooks, the
    ``training`` flag and ``state_dict`` keys identical to the original (no
    ``_orig_mod.`` prefix), while the original module itself stays eager.
    """
    from autograph.runtime.shim import Shim

    wrapped = _wrapped_module_attribute(module)
    if wrapped is not None:
        return _compile_wrapper(module, wrapped, overrides)
    cls = type(module)
    forward = cls.forward
    if not isinstance(forward, types.FunctionType):
        raise TypeError(f"autograph.compile: {cls.__qualname__}.forward is not a Python function")
    shim = Shim(forward, overrides)
    shim.explicit = True

    def compiled_forward(self, *args: Any, **kwargs: Any) -> Any:
        # ``forward`` runs on the original module, as torch.compile's does: ``self is other``
        # and ``self`` stored or returned are the module the caller knows, not this view
        return shim(module if self is view else self, *args, **kwargs)

    compiled_forward.__name__ = "forward"
    compiled_forward.__qualname__ = f"{cls.__qualname__}.forward"
    compiled_forward.__doc__ = forward.__doc__
    compiled_forward.__wrapped__ = forward
    compiled_forward._torchdynamo_inline = forward  # torch.compile traces the original (runtime/dynamo.py)
    from autograph.runtime import dynamo
    dynamo.skip_frames(compiled_forward)
    compiled_cls = type(cls.__name__, (cls,), {
        "forward": compiled_forward,
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "_autograph_shim": shim,
        "_autograph_orig_mod": module,
        "__reduce_ex__": lambda self, protocol: (_original_module, (module,)),
        "__repr__": lambda self: f"Compiled({module!r})",
    })
    view = object.__new__(compiled_cls)
    object.__setattr__(view, "__dict__", module.__dict__)
    return view


def _wrapped_module_attribute(module: Any) -> str | None:
    """The submodule a wrapper's ``forward`` delegates to, when the wrapper's own Python must run
    eagerly: ``DistributedDataParallel`` prepares its reducer (gradient buckets, hooks) around
    ``self.module(...)``. None for ordinary modules."""
    import sys

    ddp = sys.modules.get("torch.nn.parallel.distributed")
    if ddp is not None and isinstance(module, ddp.DistributedDataParallel):
        return "module"
    return None


def _compile_wrapper(module: Any, attr: str, overrides: dict) -> Any:
    """A view of a wrapper module (``DDP``) whose own ``forward`` runs eagerly, as torch.compile
    leaves it, and whose wrapped submodule ``attr`` is compiled: DDP's forward reads
    ``self.module`` and gets the compiled view of the same module (parameters shared, so DDP's
    gradient hooks and buckets work exactly as in eager)."""
    cls = type(module)
    cache: dict[str, Any] = {}

    def compiled_inner(self: Any) -> Any:
        inner = self._modules[attr]
        if cache.get("inner") is not inner:  # compiled once per wrapped module
            cache["inner"], cache["view"] = inner, _compile_module(inner, overrides)
        return cache["view"]

    first = compiled_inner(module)
    compiled_cls = type(cls.__name__, (cls,), {
        attr: property(compiled_inner),
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "_autograph_shim": type(first)._autograph_shim,       # inspect/explain: the wrapped module's
        "_autograph_orig_mod": module._modules[attr],
        "__reduce_ex__": lambda self, protocol: (_original_module, (module,)),
        "__repr__": lambda self: f"Compiled({module!r})",
    })
    view = object.__new__(compiled_cls)
    object.__setattr__(view, "__dict__", module.__dict__)
    return view


def _original_module(module: Any) -> Any:
    """Unpickling a compiled module gives the original (eager) module back."""
    return module


def reset() -> None:
    """Drop every cache entry and statistic; the next calls capture afresh."""
    import sys

    from autograph.runtime.shim import all_shims, reset_all

    codegen = sys.modules.get("autograph.capture.engine.codegen")
    resumes_attr = getattr(codegen, "RESUMES_ATTR", None)  # None while another thread still imports it
    if resumes_attr is not None:  # resume functions cached in the globals of captured functions
        for shim in all_shims():
            shim.fn.__globals__.pop(resumes_attr, None)
    resume = sys.modules.get("autograph.bytecode.resume")
    if resume is not None and hasattr(resume, "clear_cache"):
        resume.clear_cache()
    optimizer_update = sys.modules.get("autograph.backends.optimizer_update")
    if optimizer_update is not None:  # optimizers' compiled updates (imported once a step was compiled)
        optimizer_update.forget()
    reset_all()
    _clear_torch_caches()


def _clear_torch_caches() -> None:
    """Empty torch's class-level caches that keep past captures alive.

    ``lru_cache``s on ``ShapeEnv`` methods are keyed on the ShapeEnv itself
    (up to 256 past ShapeEnvs each); the fake-tensor dispatch cache keys hold
    symbolic sizes.
    """
    import sys

    module = sys.modules.get("torch.fx.experimental.symbolic_shapes")
    shape_env = getattr(module, "ShapeEnv", None)
    for value in vars(shape_env).values() if shape_env is not None else ():
        if callable(getattr(value, "cache_clear", None)):
            value.cache_clear()
    fake = sys.modules.get("torch._subclasses.fake_tensor")
    fake_mode = getattr(fake, "FakeTensorMode", None)
    if callable(getattr(fake_mode, "cache_clear", None)):
        fake_mode.cache_clear()


def skip(fn: F) -> F:
    """Never compile ``fn`` (the import hook leaves it unwrapped)."""
    target = fn.__func__ if isinstance(fn, (staticmethod, classmethod)) else fn
    try:
        target.__autograph_skip__ = True
    except (AttributeError, TypeError):
        raise TypeError(f"autograph.skip cannot mark {fn!r}: it has no attribute dictionary") from None
    return fn


def _dims_attr(tensor: Any, name: str) -> set:
    dims = getattr(tensor, name, None)
    if dims is None:
        dims = set()
        setattr(tensor, name, dims)
    return dims


def _norm_dims(tensor: Any, dim: Any) -> list[int]:
    dims = [dim] if isinstance(dim, int) else list(dim)
    out = []
    for d in dims:
        nd = tensor.dim()
        if not -nd <= d < nd:
            raise IndexError(f"dimension {d} out of range for a tensor with {nd} dimensions")
        out.append(d % nd)
    return out


def mark_dynamic(tensor: Any, dim: Any) -> None:
    """Compile ``tensor``'s dimension(s) ``dim`` for any size (recorded on the tensor)."""
    for d in _norm_dims(tensor, dim):
        _dims_attr(tensor, "_autograph_dynamic_dims").add(d)
        _dims_attr(tensor, "_autograph_static_dims").discard(d)


def mark_static(tensor: Any, dim: Any) -> None:
    """Always specialise ``tensor``'s dimension(s) ``dim`` (never made dynamic automatically)."""
    for d in _norm_dims(tensor, dim):
        _dims_attr(tensor, "_autograph_static_dims").add(d)
        _dims_attr(tensor, "_autograph_dynamic_dims").discard(d)
