"""autograph's Triton-lowering backend (aten graph -> loop IR -> fused Triton kernels).

Modules, in pipeline order:

* ``backend.py``  — ``TritonBackend(gm, example_inputs)``: AOTAutograd with a
  decomposition table, one compile per aten graph (forward/backward/inference),
  fallbacks to aten with a logged reason, and the exposed ``.kernels``.
* ``lower.py``    — aten node -> IR value (pointwise, view, reduction) or an extern
  aten call in the wrapper when there is no lowering; the per-op lowerings live in
  ``lowerings/{pointwise,views,reductions}.py``.
* ``ir.py``       — values (``Buffer``, ``Pointwise``, ``View``) and scheduled items; a
  pointwise value computes with the operations of ``ops.py`` (no target text).
* ``ops.py``      — the ops protocol between lowering and code generation.
* ``indexing.py`` — sympy index expressions with exact floor-div/mod simplification.
* ``fuse.py``     — groups items into kernels (vertical, horizontal, reduction
  prologues/epilogues; at most 64 ops per kernel).
* ``codegen.py``  — the only writer of Triton: the ops handler ``TritonOps`` and the source of one kernel (``triton_poi_*``, ``triton_per_*``
  persistent reductions for rows <= 1024, ``triton_red_*`` looped ones) and launch
  heuristics (autotuned among a few configs on the GPU only).
* ``tiling.py``   — 2-D ``[YBLOCK, XBLOCK]`` tiles for pointwise kernels with transposed accesses.
* ``online.py``   — one-pass statistics of looped rows: online softmax, Welford mean/M2.
* ``wrapper.py``  — the Python ``call(args)`` that allocates, launches and calls externs.
* ``reduce_overhead.py`` — ``compile(mode="reduce-overhead")``: CUDA graphs (``cudagraphs.py``).
* ``runtime.py``  — kernel loading (triton's interpreter for CPU tensors) and the
  on-disk cache of kernels and whole graphs under ``cache_dir``.
"""
from __future__ import annotations

from typing import Callable


def make_triton_backend(cache_dir: str | None = None, *, cuda_graphs: bool = False) -> Callable:
    """Return a backend ``(gm, example_inputs) -> callable`` writing kernels under ``cache_dir``;
    ``cuda_graphs``: replay static CUDA inference graphs from CUDA graphs (``reduce_overhead.py``)."""
    from autograph.backends.triton.backend import TritonBackend

    return TritonBackend(cache_dir=cache_dir, cuda_graphs=cuda_graphs)
