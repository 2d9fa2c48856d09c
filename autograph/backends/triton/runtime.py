"""Loading generated kernels, with an on-disk cache shared between processes.

Kernel modules are written to ``<cache_dir>/kernels/<name>_<hash>.py`` (triton
needs a real file to read a kernel's source) and imported from there; a second
process finds the file and skips writing it. Whole-graph results (wrapper and
kernel sources) are stored as JSON under ``<cache_dir>/graphs/<key>.json`` so a
second process skips lowering and code generation as well; each record holds the
hash of its content and key, and one that does not match is recompiled (logged on
the ``backend`` channel).

On CPU tensors kernels run in triton's interpreter: the function is wrapped in
``InterpretedFunction`` directly, which works whether or not ``TRITON_INTERPRET``
was set before triton was imported (:func:`interpreted`: triton's own ``@jit`` helpers
called from the kernel run in the interpreter too).
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import logging
import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable

import torch

FORMAT_VERSION = "2"  # 2: records carry a digest of their content
log = logging.getLogger("autograph.kernels")  # the ``backend`` log channel


def default_cache_dir() -> Path:
    return Path.home() / ".cache" / "autograph"


def source_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


class KernelCache:
    """Kernel modules and compiled-graph records under ``cache_dir``."""

    def __init__(self, cache_dir: str | os.PathLike | None = None):
        self.root = Path(cache_dir) if cache_dir else default_cache_dir()
        self._modules: dict[str, Any] = {}
        self.graph_hits = 0
        self.graph_misses = 0

    def load_kernel(self, name: str, source: str, *, interpret: bool):
        """Import kernel ``name`` from ``source`` (written once per source hash)."""
        digest = source_hash(source)
        module = self._modules.get(digest)
        if module is None:
            path = self.root / "kernels" / f"{name}_{digest}.py"
            if not path.exists() or path.read_text() != source:
                _atomic_write(path, source)
            mod_name = f"autograph_kernel_{name}_{digest}"
            spec = importlib.util.spec_from_file_location(mod_name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[mod_name] = module
            spec.loader.exec_module(module)
            self._modules[digest] = module
        kernel = getattr(module, name)
        if interpret:
            from triton.runtime.interpreter import InterpretedFunction

            if not isinstance(kernel, InterpretedFunction):
                kernel = interpreted(getattr(kernel, "fn", kernel))
        return kernel

    def graph_path(self, key: str) -> Path:
        return self.root / "graphs" / f"{key}.json"

    def get_graph(self, key: str) -> dict | None:
        """The record stored under ``key``, or None (recompile) when missing, stale or altered.

        A record carries the hash of its own content and key: one changed on disk (by hand,
        a partial copy, another version) but still valid JSON is never used.
        """
        path = self.graph_path(key)
        try:
            record = json.loads(path.read_text())
        except FileNotFoundError:
            self.graph_misses += 1
            return None
        except (OSError, ValueError) as exc:
            return self._reject(path, f"unreadable ({type(exc).__name__})")
        if not isinstance(record, dict) or record.get("format") != FORMAT_VERSION:
            return self._reject(path, "written by another version")
        digest = record.pop("digest", None)
        if digest != record_digest(key, record):
            return self._reject(path, "its content does not match its hash (altered on disk)")
        self.graph_hits += 1
        return record

    def _reject(self, path: Path, why: str) -> None:
        self.graph_misses += 1
        log.info("triton backend: cached graph %s not used, recompiling: %s", path, why)
        return None

    def put_graph(self, key: str, record: dict) -> None:
        record = {"format": FORMAT_VERSION, **record}
        try:
            _atomic_write(self.graph_path(key), json.dumps({**record, "digest": record_digest(key, record)}))
        except OSError:
            pass  # a read-only cache only costs recompiles


_interpreting = threading.local()  # depth of interpreted kernels running on this thread


def interpreted(fn):
    """``fn`` as a kernel run by triton's interpreter, in a process where triton was imported
    without ``TRITON_INTERPRET``.

    There ``@triton.jit`` built real ``JITFunction`` objects, also for triton's own helpers
    (``tl.sum``, ``tl.max``...), and calling one raises "Cannot call @triton.jit'd outside of
    the scope of a kernel". While one of our interpreted kernels runs, such a call is run by
    the interpreter instead (what the helper would be in interpreter mode); outside it,
    ``JITFunction`` behaves as triton wrote it.
    """
    from triton.runtime.interpreter import InterpretedFunction

    _route_nested_jit_calls()

    class ScopedInterpretedFunction(InterpretedFunction):
        def run(self, *args, **kwargs):
            _interpreting.depth = getattr(_interpreting, "depth", 0) + 1
            try:
                return super().run(*args, **kwargs)
            finally:
                _interpreting.depth -= 1

    return ScopedInterpretedFunction(fn)


@functools.lru_cache(maxsize=None)
def _route_nested_jit_calls() -> None:
    """Install (once) the ``JITFunction.__call__`` that runs helpers in the interpreter inside
    our interpreted kernels (see :func:`interpreted`)."""
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    original = JITFunction.__call__
    helpers: dict[int, InterpretedFunction] = {}

    def call(self, *args, **kwargs):
        if not getattr(_interpreting, "depth", 0):
            return original(self, *args, **kwargs)
        helper = helpers.get(id(self))
        if helper is None:
            helper = helpers[id(self)] = InterpretedFunction(self.fn)
        return helper(*args, **kwargs)

    JITFunction.__call__ = call


def record_digest(key: str, record: dict) -> str:
    """Hash of a graph record's content and the key it is stored under."""
    return hashlib.sha256((key + "\n" + json.dumps(record, sort_keys=True)).encode()).hexdigest()


def graph_key(gm: torch.fx.GraphModule, inputs: list, gpu: bool) -> str | None:
    """Key of an aten graph for the disk cache; None when the graph holds tensor constants."""
    if any(n.op == "get_attr" for n in gm.graph.nodes):
        return None
    parts = [FORMAT_VERSION, torch.__version__, "gpu" if gpu else "interp", gm.code]
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            val = node.meta.get("val")
            if isinstance(val, torch.Tensor):
                parts.append(f"{tuple(val.shape)}|{tuple(val.stride())}|{val.dtype}|{val.device.type}")
            else:
                parts.append(repr(val))
    return source_hash("\n".join(parts) + _backend_version())


@functools.lru_cache(maxsize=None)
def _backend_version() -> str:
    """Hash of this backend's own sources: a changed lowering never reuses stale cached graphs."""
    here = Path(__file__).parent
    return source_hash("".join(p.read_text() for p in sorted(here.rglob("*.py"))))


def restride(t: torch.Tensor, size: tuple, stride: tuple) -> torch.Tensor:
    """Copy ``t`` into the strides the kernels were generated for."""
    out = torch.empty_strided(size, stride, dtype=t.dtype, device=t.device)
    out.copy_(t)
    return out


def _reinterpret_entry() -> Callable:
    """torch's C++ alias constructor Inductor's wrappers use (no dispatcher), else ``as_strided``."""
    guards = getattr(getattr(torch._C, "_dynamo", None), "guards", None)
    fast = getattr(guards, "_reinterpret_tensor", None)
    if fast is not None:
        return fast

    def reinterpret(t: torch.Tensor, size: tuple, stride: tuple, offset: int) -> torch.Tensor:
        return torch.as_strided(t, size, stride, t.storage_offset() + offset)

    return reinterpret


reinterpret_tensor = _reinterpret_entry()  # (t, size, stride, storage offset added to t's)


def ensure_strides(t: torch.Tensor, size: tuple, stride: tuple) -> torch.Tensor:
    if tuple(t.stride()) == stride or t.numel() <= 1:
        return t
    return restride(t, size, stride)


def _fast_allocators() -> tuple[Callable | None, Callable | None, Callable | None]:
    """torch's C++ allocation entry points Inductor's wrappers use (``(size, stride, dtype)``,
    no argument parsing), and the current CUDA device; None where this torch lacks one."""
    guards = getattr(getattr(torch._C, "_dynamo", None), "guards", None)
    return (getattr(guards, "_empty_strided_cpu", None), getattr(guards, "_empty_strided_cuda", None),
            getattr(torch._C, "_cuda_getDevice", None))


_EMPTY_CPU, _EMPTY_CUDA, _CUDA_DEVICE = _fast_allocators()


def empty_strided(size: tuple, stride: tuple, *, device: torch.device, dtype: torch.dtype) -> torch.Tensor:
    """``torch.empty_strided`` for the wrapper's buffers, a few microseconds faster per buffer.

    The fast CUDA entry point allocates on the current device, so it is used only when that is
    the buffer's device; anything else goes through ``torch.empty_strided``."""
    kind = device.type
    if kind == "cuda":
        if _EMPTY_CUDA is not None and device.index is not None and device.index == _CUDA_DEVICE():
            return _EMPTY_CUDA(size, stride, dtype)
    elif kind == "cpu" and _EMPTY_CPU is not None:
        return _EMPTY_CPU(size, stride, dtype)
    return torch.empty_strided(size, stride, device=device, dtype=dtype)
