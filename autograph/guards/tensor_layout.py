"""How the C path reads tensor facts fast: dispatch keys as 64-bit values (pybind's layout, or
straight from the TensorImpl) and strides by contiguity, each enabled only after probing live
tensors agrees with torch's own answers (otherwise plans keep the generic comparisons)."""
from __future__ import annotations

import functools
from typing import Any, Callable

from autograph.guards.extension import load


@functools.lru_cache(maxsize=None)
def raw_keys_verified() -> bool:
    """Whether the C extension reads DispatchKeySet values correctly (pybind layout check).

    Comparing two key sets with pybind's ``==`` costs about as much as the rest of a
    TENSOR_MATCH; the extension can compare the 64-bit values instead, but only when
    its read of pybind's object layout agrees with ``raw_repr()`` on distinct key sets.
    """
    native = load()
    if native is None or not hasattr(native, "keyset_raw"):
        return False
    import torch

    try:
        samples = [torch.empty(2), torch.empty(2, dtype=torch.int64), torch.empty(2, device="meta"),
                   torch.empty(2, dtype=torch.complex64).conj(), torch.empty(2).requires_grad_()]
        sets = [torch._C._dispatch_keys(t) for t in samples]
        raws = [k.raw_repr() for k in sets]
        return len(set(raws)) >= 3 and all(native.keyset_raw(k) == r for k, r in zip(sets, raws))
    except Exception:  # noqa: BLE001 - any surprise: keep the == comparison
        return False


def _layout_samples() -> list:
    """Tensors whose key sets differ in many bits: backends, autograd, conj/neg, inference, views."""
    import torch

    with torch.inference_mode():
        inference = torch.empty(3)
    z = torch.empty(2, dtype=torch.complex64)
    return [torch.empty(2), torch.empty(2, dtype=torch.int64), torch.empty(2, device="meta"),
            z.conj(), torch.empty(2).requires_grad_(), inference, torch.nn.Parameter(torch.empty(2)),
            torch.empty(4, 4).t(), z._neg_view(), torch.empty(2, dtype=torch.bool)[:1],
            torch.empty(3).to_sparse(), torch.empty(2, dtype=torch.float16, device="meta").requires_grad_()]


def _probe_offset(offsets: range, word: Callable[[int], Any], want: int) -> int | None:
    for off in offsets:
        if word(off) == want:
            return off
    return None


@functools.lru_cache(maxsize=None)
def direct_keys_enabled() -> bool:
    """Whether the extension reads a tensor's dispatch keys straight from its TensorImpl.

    Finds the offset of the TensorImpl pointer in a tensor object (it equals ``t._cdata``)
    and of ``key_set_`` in the TensorImpl (it equals ``_dispatch_keys(t).raw_repr()``) on
    half of the samples, enables the read, and keeps it only when every sample then reads
    back its own key set; any disagreement or surprise leaves the ``_dispatch_keys`` call.
    """
    native = load()
    if native is None or not hasattr(native, "set_tensor_layout"):
        return False
    import torch

    try:
        samples = _layout_samples()
        raws = [torch._C._dispatch_keys(t).raw_repr() for t in samples]
        if len(set(raws)) < 6:
            return False
        found = set()
        for t, raw in zip(samples[::2], raws[::2]):
            cdata = _probe_offset(range(16, type(t).__basicsize__ - 7, 8),
                                  functools.partial(native.probe_object_word, t), t._cdata)
            if cdata is None:
                return False
            keys = _probe_offset(range(0, 200 - 7, 8),
                                 functools.partial(native.probe_impl_word, t, cdata), raw)
            found.add((cdata, keys))
        if len(found) != 1 or None in next(iter(found)):
            return False
        native.set_tensor_layout(*found.pop())
        if all(native.tensor_keys(t) == raw for t, raw in zip(samples, raws)):
            return True
        native.set_tensor_layout(-1, -1)
    except Exception:  # noqa: BLE001 - any surprise: keep calling _dispatch_keys
        native.set_tensor_layout(-1, -1)
    return False


def _dims_samples() -> list:
    """Tensors of 0 to 5 dimensions with distinct sizes and strides (views, a parameter, a
    transpose, a slice), and one of 6 dimensions (beyond the inline storage: not read directly)."""
    import torch

    return [torch.empty(7, 11, 13).transpose(0, 2), torch.empty(()), torch.empty(17),
            torch.nn.Parameter(torch.empty(3, 19)), torch.empty(2, 3, 5, 7, 9)[:, 1:, :, ::2],
            torch.empty(23, 4).t(), torch.empty(6, 29, dtype=torch.int64), torch.empty(3, 5, 7, 2),
            torch.empty(5, 3, 1, 4, 2).permute(4, 3, 2, 1, 0), torch.empty(2, 2, 2, 2, 2, 3)]


@functools.lru_cache(maxsize=None)
def direct_dims_enabled() -> bool:
    """Whether the extension reads a tensor's sizes and strides straight from its TensorImpl.

    ``t.size()`` and ``t.stride()`` cost most of a TENSOR_MATCH on a parameter. Needs the direct
    key read (same TensorImpl pointer); finds the offset of c10's SizesAndStrides (a word with
    the dimension count, then five sizes and five strides inline) on half of the samples,
    enables the read, and keeps it only when every sample reads back its own ``size()`` and
    ``stride()`` (None for more than five dimensions); any disagreement keeps the calls.
    """
    native = load()
    if native is None or not hasattr(native, "set_tensor_dims_layout") or not direct_keys_enabled():
        return False
    try:
        samples = _dims_samples()
        wants = [(tuple(t.size()), t.stride()) if t.dim() <= 5 else None for t in samples]
        cdata = _cdata_offset(native, samples[0])
        if cdata is None:
            return False
        found: set[int] = set()
        for t, want in zip(samples[::2], wants[::2]):
            if want is None:
                continue
            words = [native.probe_impl_word(t, cdata, off) for off in range(0, 200 - 7, 8)]
            hits = {8 * i for i in range(len(words) - 11)
                    if words[i] == t.dim() and tuple(words[i + 1:i + 1 + t.dim()]) == want[0]
                    and tuple(words[i + 6:i + 6 + t.dim()]) == want[1]}
            found = hits if not found else found & hits
            if not found:
                return False
        if len(found) != 1:
            return False
        native.set_tensor_dims_layout(found.pop())
        if all(native.tensor_dims(t) == want for t, want in zip(samples, wants)):
            return True
        native.set_tensor_dims_layout(-1)
    except Exception:  # noqa: BLE001 - any surprise: keep calling size() and stride()
        native.set_tensor_dims_layout(-1)
    return False


def _cdata_offset(native: Any, t: Any) -> int | None:
    return _probe_offset(range(16, type(t).__basicsize__ - 7, 8), functools.partial(native.probe_object_word, t),
                         t._cdata)


# Dispatch keys of plain dense tensors: their TensorImpl keeps sizes and strides in SizesAndStrides
# under the default policy (nested, sparse, functorch, functional, Python-subclass and fake tensors
# each carry a key outside this set)
DENSE_KEYS = frozenset({"CPU", "CUDA", "ADInplaceOrView", "AutogradCPU", "AutogradCUDA", "AutocastCPU",
                        "AutocastCUDA", "Conjugate", "Negative"})


def dims_direct(cls: type, keys: Any, sizes: Any, strides: Any) -> bool:
    """Whether the C path may read this guard's sizes and strides from the TensorImpl: a plain
    tensor or parameter whose expected key set (checked first, read directly) is a dense one."""
    import torch

    if cls not in (torch.Tensor, torch.nn.Parameter) or keys is None:
        return False
    if not isinstance(sizes, tuple) or not isinstance(strides, tuple) or len(sizes) != len(strides):
        return False
    if len(sizes) > 5 or not direct_dims_enabled():
        return False
    text = str(keys)
    if not (text.startswith("DispatchKeySet(") and text.endswith(")")):
        return False
    names = {n.strip() for n in text[len("DispatchKeySet("):-1].split(",") if n.strip()}
    return bool(names) and names <= DENSE_KEYS


def raw_keys(cls: type, keys: Any) -> tuple[Any, Any, bool]:
    """(DispatchKeySet type or None, its 64-bit value or None, read directly) for the C path.

    The value is compared with a direct read from the tensor when that is enabled (only for
    torch tensor classes), else with the pybind object's value when its layout is verified;
    with neither, the key sets are compared with ``==``.
    """
    import torch

    if keys is None:
        return None, None, False
    direct = direct_keys_enabled() and isinstance(cls, type) and issubclass(cls, torch._C.TensorBase)
    pybind = raw_keys_verified()
    if not (direct or pybind):
        return None, None, False
    return (type(keys) if pybind else None), keys.raw_repr(), direct


def strides_by_contiguity(cls: type, sizes: tuple, strides: tuple) -> bool:
    """Whether ``t.is_contiguous()`` decides the stride guard exactly (once sizes matched).

    True when every size is a known int >= 2 (PyTorch skips size-1 dimensions and empty
    tensors when computing contiguity) and the expected strides are the row-major ones:
    then contiguous <=> strides equal.  Only for plain tensors and parameters, whose
    ``is_contiguous`` is TensorImpl's maintained flag (a subclass may override it).
    """
    import torch

    if cls not in (torch.Tensor, torch.nn.Parameter) or sizes is None or strides is None:
        return False
    if len(sizes) != len(strides) or any(type(s) is not int or s < 2 for s in sizes):
        return False
    expected, step = [], 1
    for s in reversed(sizes):
        expected.append(step)
        step *= s
    return tuple(reversed(expected)) == tuple(strides)
