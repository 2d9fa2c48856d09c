"""Whether a source file is library code (torch, the standard library, installed packages).

A graph break inside inlined library code is a break at the call in the user's function:
the break record names the user's line and says where inside the library it stopped.
"""
from __future__ import annotations

import functools
import os
import sysconfig


@functools.lru_cache(maxsize=1)
def _library_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    return tuple(sorted(os.path.realpath(r) + os.sep for r in roots if r))


@functools.lru_cache(maxsize=4096)
def is_library_file(filename: str) -> bool:
    """True for a file under the standard library or site-packages (not a frozen or generated one)."""
    if not filename or filename.startswith("<"):
        return False
    return os.path.realpath(filename).startswith(_library_roots())
