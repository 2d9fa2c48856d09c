"""Fixtures for the import-hook tests: package trees on disk, a recording shim, cleanup."""
from __future__ import annotations

import importlib
import sys
import textwrap
import types
from pathlib import Path
from typing import Callable

import pytest

import autograph.runtime.shim as runtime_shim
from autograph.hook import install as install_module
from autograph.settings import Settings, set_current_settings


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write ``{relative path: source}`` under ``root`` (sources are dedented)."""
    for relative, source in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
    importlib.invalidate_caches()  # FileFinder caches directory listings
    return root


class RecordingShim:
    """Stands in for ``autograph.runtime.shim.shim_for``: records each call, then runs the original."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple, dict]] = []
        self.shimmed: list[types.FunctionType] = []

    def __call__(self, fn: types.FunctionType) -> Callable:
        self.shimmed.append(fn)

        def shim(*args, **kwargs):
            self.calls.append((fn.__qualname__, args, kwargs))
            return fn(*args, **kwargs)

        return shim

    def names(self) -> list[str]:
        return [name for name, _, _ in self.calls]


@pytest.fixture
def fake_shim(monkeypatch) -> RecordingShim:
    recorder = RecordingShim()
    monkeypatch.setattr(runtime_shim, "shim_for", recorder)
    return recorder


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """A directory on sys.path for test packages; every module imported from it is forgotten afterwards."""
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    meta_path = list(sys.meta_path)
    set_current_settings(Settings())
    yield tmp_path
    install_module.uninstall()
    for name in set(sys.modules) - before:
        module = sys.modules.get(name)
        if str(tmp_path) in str(getattr(module, "__file__", "") or "") or str(tmp_path) in str(getattr(module, "__path__", "")):
            del sys.modules[name]
    sys.meta_path[:] = meta_path
    set_current_settings(None)
    importlib.invalidate_caches()
