"""The ``sys.meta_path`` finder: intercept selected modules, instrument them after they run.

The finder never loads anything itself. For a selected module it asks the finders
that follow it in ``sys.meta_path`` (path finder, zip imports, editable installs'
finders, pytest's assertion rewriter, ...) for their spec and wraps *their* loader,
so every kind of module keeps loading exactly as before; only after the module's
code has run are its selected functions wrapped. The module's ``__loader__`` and
``__spec__.loader`` are set back to the real loader once it is loaded, so code that
inspects them sees no difference.
"""
from __future__ import annotations

import importlib.abc
import sys
import threading
import types
from importlib.machinery import ModuleSpec
from typing import Any, Callable, Sequence

from autograph.hook.select import Selection


class InstrumentingLoader(importlib.abc.Loader):
    """Delegates to the real loader, then calls ``on_loaded(module)``."""

    def __init__(self, loader: Any, on_loaded: Callable[[types.ModuleType], None]):
        self.loader = loader
        self._on_loaded = on_loaded

    def create_module(self, spec: ModuleSpec) -> types.ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        try:
            self.loader.exec_module(module)
        finally:
            # Hand the module its real loader back, whether or not its code raised.
            if getattr(module, "__loader__", None) is self:
                module.__loader__ = self.loader
            spec = getattr(module, "__spec__", None)
            if spec is not None and spec.loader is self:
                spec.loader = self.loader
        self._on_loaded(module)

    def __getattr__(self, name: str) -> Any:
        # get_source, get_code, get_filename, is_package, get_resource_reader, ...
        return getattr(self.loader, name)

    def __repr__(self) -> str:
        return f"<autograph InstrumentingLoader of {self.loader!r}>"


class AutographFinder(importlib.abc.MetaPathFinder):
    """Finds nothing on its own: chains to the next finders for selected modules."""

    def __init__(self, selection: Selection, on_loaded: Callable[[types.ModuleType], None]):
        self.selection = selection
        self._on_loaded = on_loaded
        self._busy = threading.local()  # names being looked up by this thread (re-entrancy guard)

    def find_spec(self, fullname: str, path: Sequence[str] | None = None, target: types.ModuleType | None = None) -> ModuleSpec | None:
        if not self.selection.selects_module(fullname):
            return None
        busy = getattr(self._busy, "names", None)
        if busy is None:
            busy = self._busy.names = set()
        if fullname in busy:
            return None  # a finder further down asked importlib about the same module
        busy.add(fullname)
        try:
            spec = self._next_spec(fullname, path, target)
        finally:
            busy.discard(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec  # namespace package (nothing to wrap) or a legacy loader: leave as found
        if isinstance(spec.loader, InstrumentingLoader):
            return spec
        spec.loader = InstrumentingLoader(spec.loader, self._on_loaded)
        return spec

    def _next_spec(self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None) -> ModuleSpec | None:
        """The spec the rest of ``sys.meta_path`` would have produced without us."""
        finders = list(sys.meta_path)
        try:
            finders = finders[finders.index(self) + 1:]  # those before us already said no
        except ValueError:
            pass
        for finder in finders:
            if finder is self or isinstance(finder, AutographFinder):
                continue
            find_spec = getattr(finder, "find_spec", None)
            if find_spec is None:
                continue
            spec = find_spec(fullname, path, target)
            if spec is not None:
                return spec
        return None
