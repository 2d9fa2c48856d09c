"""Loading a program's source into a fresh module backed by a real file."""
from __future__ import annotations

import atexit
import hashlib
import itertools
import linecache
import os
import shutil
import sys
import tempfile
import types

import torch

_load_counter = itertools.count()
_MODULE_PREFIX = "autograph_fuzz_program_"
_source_dir: str | None = None


def _program_file(source: str) -> str:
    """A real file holding ``source`` (so tracebacks and inspect see the lines)."""
    global _source_dir
    if _source_dir is None:
        _source_dir = tempfile.mkdtemp(prefix="autograph_fuzz_")
        atexit.register(shutil.rmtree, _source_dir, ignore_errors=True)
    digest = hashlib.sha1(source.encode()).hexdigest()[:12]
    path = os.path.join(_source_dir, f"fuzz_program_{digest}.py")
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(source)
    return path


def load_program(source: str) -> types.ModuleType:
    """Exec ``source`` into a new module registered in ``sys.modules``."""
    path = _program_file(source)
    name = f"{_MODULE_PREFIX}{next(_load_counter)}"
    module = types.ModuleType(name)
    module.__file__ = path
    linecache.checkcache(path)
    sys.modules[name] = module
    # module-level code may draw random numbers (e.g. nn.Linear's init): same draws in every load
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        exec(compile(source, path, "exec"), module.__dict__)
    return module


def unload_program(module: types.ModuleType) -> None:
    sys.modules.pop(module.__name__, None)

