"""Inductor's imports and its CPU ISA check, overlapped, before a graph is loaded or compiled.

Loading a compiled graph on CPU makes inductor choose the CPU's vector ISA
(``cpu_vec_isa.valid_vec_isa_list``): per ISA a dry compile (cached on disk) and a ``python -c``
that loads the probe library. On this project's loaded 2-core machine that is 2-3 s of a warm
start's first step, nearly all of it waiting for those processes, and ``torch.compile``'s warm
start pays it too. The check does not depend on the graph, so here it runs on a thread while the
program's thread imports the rest of inductor (``compile_fx``, 1-2 s): the waits overlap the
import. The thread runs torch's own function, whose result torch caches, so what inductor
chooses is unchanged; the program's thread waits for it before inductor would ask. The probes
that succeeded in an earlier run with the same cache are answered from it (``isa_probes``), so on
a warm start the thread has little left to do.
"""
from __future__ import annotations

import threading
from pathlib import Path

from autograph.backends import isa_probes

_lock = threading.Lock()
_done = False


def prepare_inductor(cache_dir: Path | None = None) -> None:
    """Import what loading or compiling a CPU graph with inductor needs, with the ISA check
    running meanwhile; once per process (later calls return at once). ``cache_dir``: where the
    check's load probes that succeeded in earlier runs are remembered (``isa_probes``)."""
    global _done
    with _lock:
        if _done:
            return
        _done = True
        from torch._inductor import config, cpu_vec_isa

        if config.cpp.vec_isa_ok is not None or _isa_known(cpu_vec_isa):  # nothing to wait for
            import torch._inductor.compile_fx  # noqa: F401
            return
        # Everything the check imports is imported here first, on this thread: two threads
        # importing the same modules can see each other's half-initialised modules.
        import torch._inductor.codecache  # noqa: F401
        import torch._inductor.cpp_builder  # noqa: F401
        import torch.utils._filelock  # noqa: F401
        import torch.utils.cpp_extension  # noqa: F401  - the check's options import it
        isa_probes.cpu_flags()  # read here too: the thread goes straight to the check

        checker = threading.Thread(target=_check_isa, args=(cache_dir,), name="autograph-isa-check", daemon=True)
        checker.start()
        try:
            import torch._inductor.compile_fx  # noqa: F401
            import torch._inductor.standalone_compile  # noqa: F401
        finally:
            checker.join()


def _isa_known(cpu_vec_isa) -> bool:
    """Whether inductor has checked the ISAs in this process already (its result is cached)."""
    info = getattr(cpu_vec_isa.valid_vec_isa_list, "cache_info", None)
    return info is not None and info().currsize > 0


def _check_isa(cache_dir: Path | None) -> None:
    try:
        isa_probes.valid_isas(cache_dir)
    except Exception:  # noqa: BLE001 - not cached then: inductor runs the check itself and reports
        pass
