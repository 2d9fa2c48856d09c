"""autograph: JIT-compiles the PyTorch code of selected packages.

The public API is loaded lazily so that ``import autograph`` (done at
interpreter start by the ``.pth`` hook) stays cheap and never imports torch.
"""
from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> "module:attribute"
_PUBLIC = {
    "compile": "autograph.api:compile",
    "reset": "autograph.api:reset",
    "skip": "autograph.api:skip",
    "mark_dynamic": "autograph.api:mark_dynamic",
    "mark_static": "autograph.api:mark_static",
    "install": "autograph.hook.install:install",
    "uninstall": "autograph.hook.install:uninstall",
    "inspect": "autograph.explain.inspect:inspect",
    "explain": "autograph.explain.explain:explain",
    "report": "autograph.explain.report:report",
    "Settings": "autograph.settings:Settings",
    "load_settings": "autograph.settings:load_settings",
    "CaptureError": "autograph.errors:CaptureError",
    "SettingsError": "autograph.errors:SettingsError",
}

__all__ = sorted(_PUBLIC) + ["__version__"]


def __getattr__(name: str) -> Any:
    target = _PUBLIC.get(name)
    if target is None:
        raise AttributeError(f"module 'autograph' has no attribute {name!r}")
    module_name, attr = target.split(":")
    value = getattr(importlib.import_module(module_name), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
