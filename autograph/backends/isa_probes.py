"""Inductor's CPU ISA check answered from earlier runs: each load probe that succeeded once is remembered.

Before inductor loads or compiles a CPU graph it checks which vector ISAs work here
(``cpu_vec_isa.valid_vec_isa_list``): per ISA a dry compile of a probe library, cached on disk by
inductor itself, and a ``python -c`` that loads it (``VecISA._probe_load``), six processes on an
AVX-512 machine, 0.8-1.8 s of every process that uses inductor (a warm start's first step and
each compile worker). Only the loads are repeated per process, so only their successes are kept
here: a file per probe in ``<cache_dir>/isa-probes/``, named by the hash of everything
the load depends on (the probe library's path, size and modification time, which change when
inductor builds it again; the CPU's flags; the interpreter, torch's library and the probe's
library path) and holding that description, compared whole on reading. A failed or hung probe
is never remembered, so it runs again in the next process; a damaged or stale file is a miss.
What inductor chooses is unchanged: its own check runs, with remembered loads answered True.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import sys
import threading
from pathlib import Path
from typing import Any

import torch

from autograph.backends.inductor_artifacts import _write_atomic

_patch_lock = threading.Lock()


def valid_isas(cache_dir: Path | None) -> list:
    """``cpu_vec_isa.valid_vec_isa_list()`` (torch caches it for the process), with the load
    probes of earlier runs that succeeded answered from ``cache_dir`` (None: every probe runs)."""
    from torch._inductor import cpu_vec_isa

    if cache_dir is None or "_probe_load" not in vars(cpu_vec_isa.VecISA) or not cpu_flags():
        return cpu_vec_isa.valid_vec_isa_list()
    directory = Path(cache_dir) / "isa-probes"
    with _patch_lock:  # torch caches the check's results, so later checks never call the probe again
        probe = vars(cpu_vec_isa.VecISA)["_probe_load"]

        def remembered_probe(isa: Any, output_path: str) -> bool:
            description = probe_description(isa, output_path)
            if description is not None and _recorded(directory, description):
                return True
            ok = probe(isa, output_path)
            if ok and description is not None:
                _record(directory, description)
            return ok

        cpu_vec_isa.VecISA._probe_load = remembered_probe
        try:
            return cpu_vec_isa.valid_vec_isa_list()
        finally:
            cpu_vec_isa.VecISA._probe_load = probe


def probe_description(isa: Any, output_path: str) -> str | None:
    """What one load probe's result depends on, as text; None when the probe library cannot be
    described (not built: nothing to remember)."""
    try:
        library = os.stat(output_path)
        torch_lib = Path(torch.__file__).parent / "lib"
        libtorch = os.stat(torch_lib / "libtorch_cpu.so") if (torch_lib / "libtorch_cpu.so").exists() else None
        env = isa._build_probe_env() if hasattr(isa, "_build_probe_env") else {}
    except OSError:
        return None
    return json.dumps({
        "isa": str(isa), "flags": isa.build_arch_flags(),
        "library": [os.path.abspath(output_path), library.st_size, library.st_mtime_ns],
        "cpu": [platform.machine(), platform.release(), cpu_flags()],
        "python": [sys.executable, platform.python_version()],
        "torch": [torch.__version__, str(torch_lib), libtorch and [libtorch.st_size, libtorch.st_mtime_ns]],
        "ld_library_path": env.get("LD_LIBRARY_PATH", ""),
        "probe": getattr(type(isa), "_avx_py_load", ""),
    }, sort_keys=True)


def _path(directory: Path, description: str) -> Path:
    return directory / f"{hashlib.sha256(description.encode()).hexdigest()}.ok"


def _recorded(directory: Path, description: str) -> bool:
    try:
        return _path(directory, description).read_text() == description
    except (OSError, UnicodeDecodeError):
        return False


def _record(directory: Path, description: str) -> None:
    """Remember a successful probe; a cache that cannot be written remembers nothing."""
    with contextlib.suppress(OSError):
        _write_atomic(_path(directory, description), description.encode())


_flags: list[str | None] = []


def cpu_flags() -> str | None:
    """The CPU's feature flags as the kernel reports them (what decides whether an ISA's code
    runs); None where they cannot be read (then nothing is remembered)."""
    if not _flags:
        found = None
        with contextlib.suppress(OSError):
            with open("/proc/cpuinfo") as f:
                for line in f:
                    name, sep, value = line.partition(":")
                    if sep and name.strip() in ("flags", "Features", "features"):
                        found = " ".join(sorted(value.split()))
                        break
        _flags.append(found)
    return _flags[0]
