"""The Triton backend: ``backend(gm, example_inputs) -> callable``.

Pipeline: AOTAutograd (forward and, when inputs require grad, backward aten
graphs, decomposed by :data:`DECOMPOSITIONS`) -> ``lower.py`` (loop IR) ->
``fuse.py`` (kernels) -> ``codegen.py`` (Triton source) + ``wrapper.py``
(launches and extern calls) -> ``runtime.py`` (kernel loading, disk cache).

A graph this backend cannot handle at all (bf16 on the CPU interpreter, several
devices, data-dependent sizes) runs with aten instead, with a log line saying
why; an op without a lowering becomes an aten call inside the wrapper.

Symbolic sizes (dynamic shapes): sizes are sympy expressions over the ShapeEnv's
symbols all the way through lowering; kernels take the symbols as scalar
arguments and the wrapper binds them from the inputs' sizes at call time, so one
compiled graph serves every size. A lowering that needs a concrete size becomes
an aten call in that graph.
"""
from __future__ import annotations

import functools
import importlib.util
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
import torch.fx

from autograph.backends.checkpoints import with_real_checkpoints
from autograph.backends.functionalize import run_as_captured
from autograph.backends.triton.codegen import CannotFuse, kernel_source, launch_config
from autograph.backends.triton.cudagraphs import maybe_cuda_graph
from autograph.backends.triton.fuse import KernelGroup, fuse
from autograph.backends.triton.ir import ExternItem
from autograph.backends.triton.launch import FastLaunch
from autograph.backends.triton.lower import LOWERING_ERROR, GraphNotLowerable, Lowering
from autograph.backends.triton.precompile import precompile, shorten_autotuning
from autograph.backends.triton.runtime import (KernelCache, empty_strided, ensure_strides, graph_key,
                                              reinterpret_tensor, restride)
from autograph.backends.triton.tiling import choose_tile
from autograph.backends.triton.wrapper import generate_wrapper

log = logging.getLogger("autograph.backends.triton")

aten = torch.ops.aten


@dataclass(frozen=True)
class KernelSource:
    name: str
    source: str


@dataclass
class CompiledAtenGraph:
    """One aten graph (forward, backward or inference) as this backend compiled it."""

    kind: str
    kernels: list[KernelSource] = field(default_factory=list)
    wrapper_source: str = ""
    externs: list[str] = field(default_factory=list)  # why each extern call is one

    @property
    def lowering_errors(self) -> list[str]:
        """Externs that exist because a lowering raised with symbolic sizes (logged too)."""
        return [e for e in self.externs if LOWERING_ERROR in e]
    fallback_reason: str | None = None  # set when the whole graph runs with aten
    cache_hit: bool = False
    compile_seconds: float = 0.0


@functools.lru_cache(maxsize=None)
def decompositions() -> dict:
    """Core aten decompositions plus the ones turning softmax/norms/GELU into primitives.

    matmul, convolution and embedding are kept whole: they run as extern calls.
    (Building the core table costs ~0.4 s once per process; a curated subset was
    tried and lost fusion, because several ops then decompose through prims.)
    """
    from torch._decomp import core_aten_decompositions, get_decompositions

    table = dict(core_aten_decompositions())
    table.update(get_decompositions([
        aten._softmax, aten._log_softmax, aten.native_layer_norm, aten.gelu, aten.leaky_relu, aten.hardtanh,
        aten.linalg_vector_norm, aten.elu, aten.logsumexp, aten.silu,
    ]))
    for keep in (aten.addmm.default, aten.mm.default, aten.bmm.default, aten.embedding.default,
                 aten.convolution.default, aten.native_dropout.default):
        table.pop(keep, None)
    # Fused attention stays one aten call: decomposing the CPU flash forward while its
    # backward stays whole gives wrong gradients (the saved logsumexp does not match).
    for op in [op for op in table if "scaled_dot_product" in str(op)]:
        table.pop(op)
    return table


def partitioner() -> Callable:
    """How the joint forward+backward graph is split: Inductor's min-cut rematerialisation.

    It saves for backward the cheapest set of tensors to keep (often the inputs of a pointwise
    chain instead of its intermediates) and recomputes the rest inside backward kernels, where
    the recomputation fuses into loads that happen anyway: less memory between the passes and
    less traffic. (The default partitioner saves every intermediate backward reads.) With
    symbolic sizes its recomputation brings ``Max(1, s0 // 2)``-style size expressions into
    backward, which ``codegen.texpr`` prints."""
    from torch._functorch.partitioners import min_cut_rematerialization_partition

    return min_cut_rematerialization_partition


def aten_graph_device(gm: torch.fx.GraphModule) -> str:
    """The device type an aten graph's kernels run on: its inputs' (the caller refuses mixed
    devices), or for a graph without tensor inputs the device its factory ops create tensors on;
    "cpu" (the interpreter) when it holds no tensor at all."""
    for nodes in (gm.graph.find_nodes(op="placeholder"), gm.graph.nodes):
        devices = set()
        for node in nodes:
            val = node.meta.get("val")
            for v in val if isinstance(val, (tuple, list)) else (val,):
                if isinstance(v, torch.Tensor):
                    devices.add(v.device.type)
        if devices:
            return "cuda" if devices == {"cuda"} else "cpu"
    return "cpu"


def _devices(inputs) -> set[str]:
    return {t.device.type for t in inputs if isinstance(t, torch.Tensor)}


class TritonBackend:
    """Callable backend; one instance shares its kernel cache across graphs."""

    def __init__(self, cache_dir: str | None = None, *, fuse: bool = True, cuda_graphs: bool = False):
        """``cuda_graphs``: replay inference graphs on CUDA from a CUDA graph (``torch.compile``'s
        ``mode="reduce-overhead"``; see cudagraphs.py for which graphs qualify)."""
        self.cache = KernelCache(cache_dir)
        self.fuse = fuse
        self.cuda_graphs = cuda_graphs
        self.compiled: list[CompiledAtenGraph] = []

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: list) -> Callable:
        from torch._functorch.aot_autograd import aot_module_simplified

        as_captured = run_as_captured(gm, "triton")
        if as_captured is not None:
            return as_captured
        devices = _devices(example_inputs)
        if importlib.util.find_spec("triton") is None or len(devices) > 1 or not devices <= {"cpu", "cuda"}:
            log.warning("triton backend: cannot compile here (triton missing or devices %s); running eager", devices)
            return with_real_checkpoints(gm).forward
        graphs: list[CompiledAtenGraph] = []
        training = _any_grad(list(example_inputs) + list(gm.parameters()))

        def compiler(kind):
            def compile_graph(aten_gm, inputs):
                record = self.compile_aten(aten_gm, inputs, kind if kind != "forward" or training else "inference")
                graphs.append(record.info)
                self.compiled.append(record.info)
                if self.cuda_graphs and record.info.kind == "inference" and record.info.fallback_reason is None:
                    return maybe_cuda_graph(record.call, aten_gm, inputs, record.info.kind)
                return record.call

            return compile_graph

        flat_gm, unflatten = _flat_outputs(gm)
        fn = aot_module_simplified(flat_gm, example_inputs, fw_compiler=compiler("forward"),
                                   bw_compiler=compiler("backward"), decompositions=decompositions(),
                                   partition_fn=partitioner(), keep_inference_input_mutations=True)

        def compiled(*args):
            return unflatten(fn(*args))

        return _attach(compiled, graphs)

    # -- one aten graph --------------------------------------------------
    def compile_aten(self, gm: torch.fx.GraphModule, inputs: list, kind: str) -> "_Result":
        start = time.perf_counter()
        info = CompiledAtenGraph(kind)
        try:
            result = self._compile(gm, info)
        except Exception as exc:  # never fail the user's program because of this backend
            info.fallback_reason = f"{type(exc).__name__}: {exc}"
            if not isinstance(exc, (GraphNotLowerable, NotImplementedError, CannotFuse)):
                log.debug("triton backend internal error", exc_info=True)
            log.warning("triton backend: %s graph runs with aten instead of Triton kernels: %s",
                        kind, info.fallback_reason)
            result = _Result(info, gm.forward)
        info.compile_seconds = time.perf_counter() - start
        return result

    def _compile(self, gm: torch.fx.GraphModule, info: CompiledAtenGraph) -> "_Result":
        metas = [n.meta.get("val") for n in gm.graph.nodes if n.op == "placeholder"]
        gpu = aten_graph_device(gm) == "cuda"
        key = graph_key(gm, metas, gpu)
        record = self.cache.get_graph(key) if key else None
        if record is not None:
            info.cache_hit = True
        else:
            record = self._generate(gm, gpu)
            if key and record.pop("cacheable"):
                self.cache.put_graph(key, record)
            else:
                record.pop("cacheable", None)
        info.kernels = [KernelSource(n, s) for n, s in record["kernels"]]
        info.wrapper_source = record["wrapper"]
        info.externs = record["externs"]
        namespace: dict[str, Any] = {
            "torch": torch, "aten": aten, "prims": torch.ops.prims,
            "empty_strided": empty_strided, "restride": restride, "ensure_strides": ensure_strides,
            "reinterpret_tensor": reinterpret_tensor,
        }
        namespace.update(record.get("_constants", {}))
        for var, dev in record["devices"].items():
            namespace[var] = torch.device(dev)
        for k in info.kernels:
            kernel = self.cache.load_kernel(k.name, k.source, interpret=not gpu)
            namespace[k.name] = FastLaunch(kernel) if gpu else kernel
        if gpu:
            for k in info.kernels:
                shorten_autotuning(namespace[k.name].kernel)
            precompile({k.name: namespace[k.name].kernel for k in info.kernels}, record)
        exec(compile(info.wrapper_source, f"<autograph wrapper {info.kind}>", "exec"), namespace)
        return _Result(info, _first_call_checked(namespace["call"], gm, info), boxed=True)

    def _generate(self, gm: torch.fx.GraphModule, gpu: bool) -> dict:
        lowered = Lowering(gm).run()
        schedule = fuse(lowered.items, ctx=lowered.ctx, gpu=gpu, enabled=self.fuse, needed=lowered.needed)
        groups = [s for s in schedule if isinstance(s, KernelGroup)]
        # pass 1: which buffers each kernel reads, so pass 2 stores only what is read elsewhere
        read_elsewhere: dict[int, set[str]] = {}
        for g in groups:
            _, writer = kernel_source(g, "probe", persistent=g.persistent, stores=None, gpu=False, ctx=lowered.ctx)
            for other in groups:
                if other is not g:
                    read_elsewhere.setdefault(id(other), set()).update(writer.in_args)
        kernels: dict = {}
        sources: list[tuple[str, str]] = []
        signatures: dict[str, dict[str, str]] = {}
        for i, g in enumerate(groups):
            stores = {item.buffer for item in g.items
                      if item.buffer.name in lowered.needed or item.buffer.name in read_elsewhere.get(id(g), set())}
            _, probe = kernel_source(g, "probe", persistent=g.persistent, stores=stores, gpu=gpu, ctx=lowered.ctx)
            prefix = "poi" if g.kind == "pointwise" else ("per" if g.persistent else "red")
            name = f"triton_{prefix}_fused_{'_'.join(_short(n) for n in probe.op_names[:4]) or 'copy'}_{i}"
            tile = choose_tile(g, probe.accesses, probe.xsyms, gpu)
            source, writer = kernel_source(g, name, persistent=g.persistent, stores=stores, gpu=gpu, ctx=lowered.ctx,
                                           tile=tile)
            kernels[g] = (name, writer, launch_config(g, g.persistent, gpu, lowered.ctx, tile))
            sources.append((name, source))
            signatures[name] = {ptr: "*" + _TRITON_TYPES[writer.arg_buffers[buf].dtype]
                                for buf, ptr in list(writer.in_args.items()) + list(writer.out_args.items())}
        wrapper, constants = generate_wrapper(lowered, schedule, kernels, gpu)
        devices = {k: str(v) for k, v in constants.items() if isinstance(v, torch.device) and k.startswith("device")}
        other = {k: v for k, v in constants.items() if k not in devices}
        externs = [s.reason for s in schedule if isinstance(s, ExternItem)]
        return {"kernels": sources, "wrapper": wrapper, "devices": devices, "externs": externs,
                "signatures": signatures,
                "cacheable": not other, "_constants": other}


def _first_call_checked(call: Callable, gm: torch.fx.GraphModule, info: CompiledAtenGraph) -> Callable:
    """Run the generated wrapper; if its first call fails, log why and use aten from then on.

    Only the first call is guarded (a kernel the interpreter or the GPU cannot run
    fails there); the wrapper writes only into fresh buffers before its last
    step, so running the aten graph afterwards is safe.
    """
    impl = [None]

    def first(args):
        try:
            out = call(args)
        except Exception as exc:  # noqa: BLE001 - the user's program must not fail because of us
            info.fallback_reason = f"first call failed: {type(exc).__name__}: {exc}"
            log.warning("triton backend: %s graph runs with aten from now on: %s", info.kind, info.fallback_reason)
            impl[0] = lambda a: list(gm.forward(*a))
            return impl[0](args)
        impl[0] = call
        return out

    impl[0] = first

    def dispatch(args):
        return impl[0](args)

    return dispatch


_TRITON_TYPES = {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16", torch.float64: "fp64",
                 torch.int64: "i64", torch.int32: "i32", torch.int16: "i16", torch.int8: "i8", torch.uint8: "u8",
                 torch.bool: "i1"}


def _short(op: str) -> str:
    return op.replace("_", "")[:12]


class _Result:
    """A compiled aten graph: ``call(args_list)`` in AOTAutograd's boxed convention."""

    def __init__(self, info: CompiledAtenGraph, call: Callable, boxed: bool = False):
        from functorch.compile import make_boxed_func

        self.info = info
        if boxed:
            call._boxed_call = True
            self.call = call
        else:
            self.call = make_boxed_func(call)


def _any_grad(inputs) -> bool:
    return torch.is_grad_enabled() and any(isinstance(t, torch.Tensor) and t.requires_grad for t in inputs)


def _flat_outputs(gm: torch.fx.GraphModule):
    """AOTAutograd wants a flat tuple of outputs; rewrite the graph if it returns anything else.

    Returns the graph to compile and the function rebuilding the user's output
    structure from AOTAutograd's flat list.
    """
    out_node = next(n for n in reversed(gm.graph.nodes) if n.op == "output")
    out = out_node.args[0]
    if isinstance(out, tuple) and all(not isinstance(o, (list, tuple, dict)) for o in out):
        return gm, tuple  # AOTAutograd returns a list; the graph returned a tuple
    from torch.utils._pytree import tree_flatten, tree_unflatten

    flat, spec = tree_flatten(out)
    graph = torch.fx.Graph()
    env: dict = {}
    for node in gm.graph.nodes:
        if node.op == "output":
            graph.output(tuple(env[o] if isinstance(o, torch.fx.Node) else o for o in flat))
        else:
            env[node] = graph.node_copy(node, lambda n: env[n])
    new_gm = torch.fx.GraphModule(gm, graph)
    return new_gm, lambda result: tree_unflatten(list(result), spec)


def _attach(compiled: Callable, graphs: list[CompiledAtenGraph]) -> Callable:
    """Expose what was generated on the returned callable (for explain/dump)."""

    compiled.graphs = graphs
    compiled.kernels = _LiveKernels(graphs)
    compiled.wrapper_source = graphs[0].wrapper_source if graphs else ""
    return compiled


class _LiveKernels:
    """A list-like view of all kernels so far (the backward graph compiles on first use)."""

    def __init__(self, graphs: list[CompiledAtenGraph]):
        self._graphs = graphs

    def _all(self) -> list[KernelSource]:
        return [k for g in self._graphs for k in g.kernels]

    def __iter__(self):
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __getitem__(self, i):
        return self._all()[i]

    def __repr__(self) -> str:
        return repr(self._all())
