"""Map a backend spec from the settings to a backend callable.

A backend has the ``torch.compile`` custom-backend signature
``backend(gm, example_inputs) -> callable``. Every backend returned by
:func:`lookup` is wrapped so that a failure inside it becomes a
:class:`~autograph.errors.BackendError` with the original error chained; the
runtime turns that into an eager fallback or a ``CaptureError``.
"""
from __future__ import annotations

import importlib
import importlib.util
import logging
from typing import Any, Callable

from autograph.errors import BackendError, SettingsError
from autograph.settings import Settings

log = logging.getLogger("autograph.backends")

Backend = Callable[..., Callable]

_REGISTRY: dict[str, Backend] = {}


def register_backend(name: str, fn: Backend) -> None:
    """Make ``fn`` available as ``backend: <name>`` (overrides a built-in of the same name)."""
    if not callable(fn):
        raise SettingsError(f"register_backend({name!r}, ...): {fn!r} is not callable")
    _REGISTRY[name] = fn


def _eager() -> Backend:
    from autograph.backends.eager import eager

    return eager


def _inductor(settings: Settings | None = None) -> Backend:
    from autograph.backends.inductor import inductor, make_inductor_backend

    return inductor if settings is None else make_inductor_backend(settings.cache_path())


def _background(settings: Settings | None = None) -> Backend:
    from autograph.backends.background import make_background_backend

    return make_background_backend(settings.cache_path() if settings is not None else None)


def _triton(settings: Settings | None = None) -> Backend:
    from autograph.backends.triton import make_triton_backend

    return make_triton_backend(cache_dir=settings.cache_path() if settings is not None else None)


def triton_usable(device_hint: str | None = None) -> bool:
    """True when a CUDA device is present (or hinted) and triton can be imported."""
    if importlib.util.find_spec("triton") is None:
        return False
    if device_hint is not None:
        return str(device_hint).startswith("cuda")
    import torch

    return torch.cuda.is_available()


def _from_import_path(spec: str) -> Backend:
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # ImportError, or the module itself failed
        raise SettingsError(
            f"backend {spec!r}: cannot import module {module_name!r} ({type(exc).__name__}: {exc}). "
            "Check that the package is installed and the name is spelled 'module.path:function'."
        ) from exc
    fn = module
    for part in attr.split("."):
        try:
            fn = getattr(fn, part)
        except AttributeError as exc:
            raise SettingsError(
                f"backend {spec!r}: module {module_name!r} has no attribute {attr!r}."
            ) from exc
    if not callable(fn):
        raise SettingsError(f"backend {spec!r}: {attr!r} in {module_name!r} is not callable.")
    return fn


def auto_choice(device_hint: str | None = None) -> tuple[str, str]:
    """What ``auto`` means here, and why: ``("triton", "CUDA device and triton found")`` or ``("eager", ...)``."""
    if triton_usable(device_hint):
        return "triton", "a CUDA device and triton are available"
    if importlib.util.find_spec("triton") is None:
        return "eager", "triton is not installed"
    return "eager", "no CUDA device"


def describe(spec: Any, device_hint: str | None = None) -> str:
    """How reports name a backend spec: ``"auto → eager (no CUDA device)"``, ``"triton"``, a callable's name."""
    if callable(spec):
        return getattr(spec, "__qualname__", None) or getattr(spec, "__name__", None) or repr(spec)
    if spec == "auto":
        name, why = auto_choice(device_hint)
        if name == "eager":
            return f"auto → eager, inductor in the background ({why})"
        return f"auto → {name} ({why})"
    return str(spec)


def _resolve(spec: Any, device_hint: str | None, settings: Settings | None) -> tuple[str, Backend]:
    if callable(spec):
        return getattr(spec, "__name__", repr(spec)), spec
    if not isinstance(spec, str):
        raise SettingsError(f"backend must be a name or a callable, got {type(spec).__name__}: {spec!r}")
    if spec in _REGISTRY:
        return spec, _REGISTRY[spec]
    if spec == "auto":
        spec = auto_choice(device_hint)[0]
        if spec == "eager":  # no compiler worth waiting for: eager now, inductor when ready
            return "background", _background(settings)
    if spec == "eager":
        return spec, _eager()
    if spec == "inductor":
        return spec, _inductor(settings)
    if spec == "triton":
        return spec, _triton(settings)
    if ":" in spec:
        return spec, _from_import_path(spec)
    known = ", ".join(sorted({"auto", "eager", "inductor", "triton", *_REGISTRY}))
    raise SettingsError(
        f"unknown backend {spec!r}. Use one of: {known}, 'module.path:function', or a callable."
    )


def lookup(spec: Any, *, device_hint: str | None = None, settings: Settings | None = None) -> Backend:
    """Return the backend for ``spec``; raise ``SettingsError`` when it cannot be resolved.

    ``spec``: ``"auto" | "eager" | "triton" | "inductor" | "module:function" |`` a callable
    or a name given to :func:`register_backend`. ``device_hint`` ("cpu"/"cuda") steers
    ``"auto"``. ``settings`` (optional) supplies ``cache_dir`` to the Triton backend.
    """
    name, backend = _resolve(spec, device_hint, settings)
    return _checked(name, backend)


def _checked(name: str, backend: Backend) -> Backend:
    """Wrap ``backend`` so failures become ``BackendError`` with the cause chained."""

    def compile_with_backend(gm, example_inputs):
        try:
            compiled = backend(gm, example_inputs)
        except Exception as exc:
            raise BackendError(
                f"backend {name!r} failed to compile graph with {len(gm.graph.nodes)} nodes: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        if not callable(compiled):
            raise BackendError(
                f"backend {name!r} returned {type(compiled).__name__}, not a callable; a backend "
                "must return a function taking the graph inputs."
            )
        return compiled

    compile_with_backend.backend_name = name  # type: ignore[attr-defined]
    compile_with_backend.__wrapped__ = backend  # type: ignore[attr-defined]
    compile_with_backend.__name__ = f"{name}_backend"
    return compile_with_backend
