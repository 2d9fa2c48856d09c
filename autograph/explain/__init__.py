"""Explainability: ``inspect``, ``explain``, the run report, log channels, dumps, progress.

``autograph.explain`` names both this package and the function
``autograph.explain.explain.explain``: importing any submodule (``autograph.explain.dump``)
makes Python bind the *package* to ``autograph.explain``.  So the package itself is
callable and forwards to the function: ``autograph.explain(fn, *args)`` works whichever
was imported first.  Importing this package stays cheap (no torch).
"""
from __future__ import annotations

import sys
import types
from typing import Any


class _CallableModule(types.ModuleType):
    def __call__(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        from autograph.explain.explain import explain

        return explain(fn, *args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
