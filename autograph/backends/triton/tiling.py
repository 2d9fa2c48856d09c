"""2-D tiles for pointwise kernels whose operands are contiguous along different dims.

A 1-D pointwise kernel walks its output in row-major order: an operand read through a
transpose (``x + y.t()``, a permute of a 3-D tensor, an output stored in a transposed layout)
steps by a large stride between neighbouring lanes, so every lane touches another memory
segment. As Inductor does, such a kernel is split into a *y* part (the leading dims, up to the
dim along which the transposed access is contiguous) and an *x* part (the remaining dims,
ending with the output's innermost dim), and it runs over ``[YBLOCK, XBLOCK]`` tiles on a 2-D
grid. Each access then has a tile axis along which consecutive elements are consecutive in
memory; triton's coalescing pass gives each load and store the register layout that reads
along that axis (going through shared memory where the two disagree).

The choice is read off a 1-D probe of the kernel (:func:`choose_tile`): the flat index of
each load and store, as linear functions of the loop variables.
"""
from __future__ import annotations

import math
from collections import Counter

import sympy

from autograph.backends.triton.indexing import is_static

GPU_GRID_Y_LIMIT = 65535  # CUDA's limit on gridDim.y
MIN_YBLOCK = 16  # the smallest YBLOCK of the GPU configs (tile_configs)


def contiguous_dim(flat: sympy.Expr, syms: list) -> int | None:
    """The loop dim along which ``flat`` (an access's flat index) steps by exactly 1, if any.

    Only dims whose variable appears linearly (not inside a ``//`` or ``%`` of a reshape) count."""
    flat = sympy.expand(flat)
    for d, sym in enumerate(syms):
        if not isinstance(sym, sympy.Symbol) or sym not in flat.free_symbols:
            continue
        coeff = flat.coeff(sym)
        if coeff == 1 and not (flat - sym).has(sym):
            return d
    return None


def choose_tile(group, accesses: list[tuple[object, sympy.Expr]], syms: list, gpu: bool) -> int | None:
    """How many leading dims of a pointwise ``group`` form the tile's y part, or None for 1-D.

    ``accesses`` are ``(buffer, flat index)`` of the probe's loads and stores over loop variables
    ``syms`` (one per dim, an Integer for size-1 dims). A 2-D tile is chosen when some access is
    contiguous along the innermost non-1 dim and another steps along that dim by a stride but is
    contiguous along an earlier dim ``j`` (the most common such ``j``): the y part is dims ``0..j``. Static sizes only (the y grid is bounded on
    the GPU: at most 65535 programs)."""
    if group.kind != "pointwise" or not all(is_static(s) for s in group.xshape):
        return None
    real = [d for d, s in enumerate(group.xshape) if s != 1]
    if len(real) < 2:
        return None
    last = real[-1]
    dims = [(contiguous_dim(flat, syms), syms[last] in flat.free_symbols) for _, flat in accesses]
    if (last, True) not in dims:
        return None
    # an access that does not depend on the innermost dim reads one address per row (a broadcast
    # column): its lanes are not scattered, it needs no tile
    others = Counter(d for d, strided in dims if d is not None and d != last and strided)
    if not others:
        return None
    j = max(others, key=lambda d: (others[d], d))
    split = j + 1
    ynumel = math.prod(int(s) for s in group.xshape[:split])
    if gpu and -(-ynumel // MIN_YBLOCK) > GPU_GRID_Y_LIMIT:
        return None
    return split


def tile_numels(group, split: int) -> tuple[int, int]:
    """``(x part numel, y part numel)`` of a tiled group."""
    return math.prod(group.xshape[split:]), math.prod(group.xshape[:split])


def _pow2(n: int) -> int:
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


def tile_config(xnumel: int, ynumel: int, gpu: bool) -> dict[str, int]:
    """Block sizes of a tiled kernel (the interpreter prefers few, large blocks)."""
    if gpu:
        return {"XBLOCK": min(64, _pow2(xnumel)), "YBLOCK": min(64, _pow2(ynumel))}
    xblock = min(1024, _pow2(xnumel))
    return {"XBLOCK": xblock, "YBLOCK": min(_pow2(ynumel), max(1, 8192 // xblock))}


def tile_configs(xnumel: int, ynumel: int) -> list[tuple[int, int, int]]:
    """``(XBLOCK, YBLOCK, num_warps)`` autotune candidates (Inductor's 2-D pointwise shapes),
    clipped to the problem; YBLOCK stays >= 16 unless the y part is smaller (grid y limit)."""
    out = set()
    for x, y in ((32, 32), (64, 64), (256, 16), (16, 256), (128, 32)):
        x, y = min(x, _pow2(xnumel)), min(y, _pow2(ynumel))
        out.add((x, y, min(8, max(1, _pow2(x * y // 256)))))
    return sorted(out)
