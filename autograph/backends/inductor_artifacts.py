"""A captured graph's inductor compile as one file: made by the compile worker, loaded by the program.

The file is ``torch._inductor.standalone_compile``'s saved artifact (AOTAutograd's and
inductor's cache entries for the forward and backward, with the generated code) behind
a header: a format line and the SHA-256 of the rest, so a truncated or altered file is
refused and compiled again instead of loaded. It lives at ``<cache_dir>/inductor/<key>.bin``;
``key`` hashes the graph (its code and the tensors it holds), the inputs' sizes, strides,
dtypes, devices and ``requires_grad`` (what the entry's guards fix), grad mode and the
caller's autocast state, the options, and the torch and Python versions: a file made by
another torch, or for another graph, is never looked up. Files are written to a temporary name and renamed, so three processes sharing
one cache read either nothing or a whole file; a directory that cannot be written makes
the worker write to a private temporary directory instead (the program still gets it).

Why standalone_compile's artifact (and not inductor's FX graph cache filled by the worker
and hit by the program): a cache hit in the program needs the AOTAutograd trace of the graph
first, seconds of work on the program's thread; loading the artifact skips tracing and
compiling alike. Its AOTAutograd cache asks for ``example_value`` metadata on every node the
worker fills in by running the graph on fake tensors.

A graph no file can be made of (AOTAutograd's cache refuses a call in it: :class:`NotCacheable`;
or torch saved nothing: :class:`NothingSaved`) is compiled by :func:`compile_here` in the
program with the same options, and used without a file; a verdict file remembers that.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import sys
import types
import tempfile
from pathlib import Path
from typing import Any, Callable, NamedTuple

import torch

FORMAT = b"autograph-inductor-artifact-2\n"  # 2: the size guards come first
# The autocast region functions capture puts in a graph (as TorchDynamo does). AOTAutograd's cache
# refuses a graph calling a function it does not know; these two are safe to cache: what they do
# is fixed by their arguments, which are constants in the graph's code, and the code is in the key.
_AUTOCAST_REGION_FUNCTIONS = {"torch.amp.autocast_mode._enter_autocast": "autograph: arguments in the graph's code",
                              "torch.amp.autocast_mode._exit_autocast": "autograph: arguments in the graph's code"}
OPTIONS = {"config_patches": {
    "fallback_random": True,  # random ops draw from torch's generator, as the eager graph does
    "unsafe_marked_cacheable_functions": _AUTOCAST_REGION_FUNCTIONS,
}}


class Unsupported(Exception):
    """This graph cannot be compiled in the worker (the reason is the message)."""


class UnsupportedHere(Unsupported):
    """This graph cannot be compiled with the example values of this run (another run's may do):
    a verdict that is not remembered in the cache."""


class NotCacheable(Unsupported):
    """AOTAutograd's cache refuses the graph (it calls a function the cache cannot vouch for), so no
    file can be saved; inductor compiles it all the same, in the program (:func:`compile_here`)."""


class NothingSaved(Unsupported):
    """Inductor compiled the graph but torch saved nothing to write; ``compiled`` is the compiled
    callable (the lifted graph's: the held tensors are passed after the inputs)."""

    def __init__(self, message: str, compiled: Callable[..., Any]) -> None:
        super().__init__(message)
        self.compiled = compiled


def input_specs(example_inputs: list, hints: dict[str, int] | None = None) -> list[tuple]:
    """What the worker needs to make stand-in inputs: one tuple per input. With ``hints`` (a
    dict to fill), symbolic sizes are described by their expressions and their symbols' example
    values go to ``hints`` (``symbolic_inputs``); without, they are :class:`Unsupported`."""
    from autograph.backends import symbolic_inputs

    specs = []
    for value in example_inputs:
        # a capture with symbolic sizes passes fakes for all its inputs, the static ones included
        if hints is not None and (symbolic_inputs.is_symbolic(value)
                                  or type(value) is torch._subclasses.FakeTensor):
            if isinstance(value, torch.SymInt):
                specs.append(symbolic_inputs.symint_spec(value, hints))
                continue
            if isinstance(value, torch.Tensor) and type(value) in (torch.Tensor, torch.nn.Parameter,
                                                                   torch._subclasses.FakeTensor):
                specs.append(symbolic_inputs.tensor_spec(value, hints))
                continue
            raise Unsupported(f"a graph input is a symbolic {type(value).__name__}")
        if not isinstance(value, torch.Tensor):
            raise Unsupported(f"a graph input is a {type(value).__name__}, not a tensor")
        if isinstance(value, torch._subclasses.FakeTensor) or type(value) is not torch.Tensor and \
                not isinstance(value, torch.nn.Parameter):
            raise Unsupported(f"a graph input is a {type(value).__name__} (symbolic sizes or a tensor subclass)")
        specs.append((tuple(value.shape), tuple(value.stride()), str(value.dtype).removeprefix("torch."),
                       str(value.device), bool(value.requires_grad)))
    return specs


def graph_bytes(gm: torch.fx.GraphModule) -> bytes:
    """The graph as bytes the worker unpickles: node by node (``torch.fx``'s ``GraphPickler``),
    without metadata. Not ``pickle.dumps(gm)``: that traces the graph's code again on loading,
    which turns a factory call (``torch.arange(32)``, ``torch.rand(3)``) into a fixed constant."""
    from torch.fx._graph_pickler import GraphPickler, Options

    try:
        return GraphPickler.dumps(gm, Options(ops_filter=None, node_metadata_key_filter=lambda key: False))
    except Exception as exc:  # noqa: BLE001 - a graph calling something unpicklable stays eager
        raise Unsupported(f"the graph cannot be sent to the worker ({type(exc).__name__}: {exc})") from exc


def graph_fingerprint(gm: torch.fx.GraphModule) -> bytes:
    """What identifies the graph in the cache key, cheaply: its code, what each called function
    is (by its importable name), the tensors and other values in its nodes' arguments, and the
    tensors it holds. A target that cannot be named (a local function) cannot be sent to the
    worker either: :class:`Unsupported`."""
    digest = hashlib.sha256(gm.code.encode())
    for node in gm.graph.nodes:
        if node.op == "call_function":
            digest.update(_importable_name(node.target).encode())
        if node.op in ("call_function", "call_method"):
            torch.fx.node.map_aggregate((node.args, node.kwargs), lambda a: _update_with_value(digest, a))
    for t in held_constants(gm):
        _update_with_tensor(digest, t)
    return digest.digest()


def _update_with_value(digest: Any, value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        _update_with_tensor(digest, value)
    elif not isinstance(value, torch.fx.Node):
        digest.update(f"{type(value).__qualname__}:{value!r}".encode())
    return value


def _update_with_tensor(digest: Any, t: torch.Tensor) -> None:
    digest.update(repr((tuple(t.shape), t.stride(), str(t.dtype), str(t.device))).encode())
    digest.update(t.detach().cpu().contiguous().view(-1).view(torch.uint8).numpy().tobytes())


def _importable_name(value: Any) -> str:
    """``module.name`` under which ``value`` is found again (by qualified name, or by its name
    in its module: ``F.max_pool2d`` is a local function of ``boolean_dispatch`` bound there)."""
    if isinstance(value, types.ModuleType):
        return value.__name__
    if isinstance(value, (torch._ops.OpOverloadPacket, torch._ops.OpOverload)):
        return f"torch.ops.{value}"
    module_name = getattr(value, "__module__", None) or ""
    module = sys.modules.get(module_name)
    for name in (getattr(value, "__qualname__", None), getattr(value, "__name__", None)):
        found: Any = module
        for part in (name or "<none>").split("."):
            found = getattr(found, part, None)
        if found is value:
            return f"{module_name}.{name}"
    if type(value).__name__ == "builtin_function_or_method":  # C functions: named by their binding
        return f"{module_name}.{getattr(value, '__qualname__', '')}.{getattr(value, '__name__', '')}"
    raise Unsupported(f"the graph calls {value!r}, which cannot be named for the worker")


def artifact_key(graph: bytes, specs: list[tuple], options: dict) -> str:
    h = hashlib.sha256()
    for part in (FORMAT, torch.__version__.encode(), platform.python_version().encode(),
                 repr(options).encode(), repr(specs).encode(), graph):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


def artifact_path(cache_dir: Path, key: str) -> Path:
    return cache_dir / "inductor" / f"{key}.bin"


def request(gm: torch.fx.GraphModule, example_inputs: list, cache_dir: Path, symbolic: bool = False) -> dict:
    """A compile request for the worker (raises :class:`Unsupported`). Its ``graph`` entry is
    filled by :func:`serialize` on the thread that sends it. ``symbolic``: a graph with symbolic
    sizes is compiled for every size (its file carries the size guards the compile relied on,
    checked by the loaded callable's ``accepts``); otherwise it is :class:`Unsupported`."""
    hints: dict[str, int] | None = {} if symbolic else None
    specs = input_specs(example_inputs, hints)
    # an inference graph without grad; a graph called inside the caller's autocast region
    options = {**OPTIONS, "grad_enabled": torch.is_grad_enabled(), "autocast": autocast_state()}
    key = artifact_key(graph_fingerprint(gm), specs, options)
    return {"compiler": "autograph.backends.inductor_artifacts:compile_to_file",
            "loader": "autograph.backends.inductor_artifacts:load_request",
            "compiler_here": "autograph.backends.inductor_artifacts:compile_here", "gm": gm,
            "specs": specs, "constants": held_constants(gm), "options": options, "key": key,
            "path": str(artifact_path(cache_dir, key)), "verdict": str(verdict_path(cache_dir, key)),
            "hints": hints or {}, "cache_dir": str(cache_dir)}


def autocast_state() -> tuple[tuple[str, str], ...]:
    """The thread's autocast state that changes what a graph computes: each device autocast is
    on for, with its dtype. A graph captured inside the caller's ``torch.autocast`` region (its
    entry's guards fix this state) is traced by AOTAutograd with the casts made explicit, so the
    worker compiles it under this state and the program loads it under it again (see
    :func:`applied_autocast`)."""
    return tuple((device, str(torch.get_autocast_dtype(device)).removeprefix("torch."))
                 for device in torch._C._autocast_supported_devices() if torch.is_autocast_enabled(device))


def applied_autocast(state: tuple) -> contextlib.ExitStack:
    """A context that turns autocast on as ``state`` (from :func:`autocast_state`) says."""
    stack = contextlib.ExitStack()
    for device, dtype in state:
        stack.enter_context(torch.autocast(device, dtype=getattr(torch, dtype)))
    return stack


def serialize(req: dict) -> dict:
    """The request as the worker gets it: the graph as bytes instead of the live module."""
    out = {k: v for k, v in req.items() if k != "gm"}
    out["graph"] = graph_bytes(req["gm"])
    return out


# ------------------------------------------------------------ in the worker

def check_isas(req: dict) -> None:
    """Inductor's CPU ISA check, done now for a request with CPU tensors, with the load probes
    that succeeded in earlier runs answered from the request's cache (``isa_probes``); once per
    process, like inductor's own."""
    from autograph.backends import isa_probes

    on_cpu = any(len(spec) == 5 and str(spec[3]).startswith("cpu") for spec in req.get("specs", ())) or any(
        isinstance(c, torch.Tensor) and c.device.type == "cpu" for c in req.get("constants", ()))
    if on_cpu:
        cache_dir = req.get("cache_dir")
        isa_probes.valid_isas(Path(cache_dir) if cache_dir else None)


def _stand_in(spec: tuple) -> torch.Tensor:
    shape, stride, dtype, device, requires_grad = spec
    t = torch.empty_strided(shape, stride, dtype=getattr(torch, dtype), device=device)
    if t.is_floating_point() or t.is_complex():
        t.normal_()
    else:
        t.zero_()
    return t.requires_grad_(requires_grad)


def _fill_example_values(gm: torch.fx.GraphModule, inputs: list, mode: Any = None) -> None:
    """``example_value`` on every node: from real stand-ins, or (``mode``) from that mode's fakes."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.passes.fake_tensor_prop import FakeTensorProp

    if mode is None:
        FakeTensorProp(gm, FakeTensorMode(allow_non_fake_inputs=True)).propagate(*inputs)
    else:
        FakeTensorProp(gm, mode).propagate_dont_convert_inputs(*inputs)
    for node in gm.graph.nodes:
        if "val" in node.meta:
            node.meta["example_value"] = node.meta["val"]


def _unpickle_graph(data: bytes) -> torch.fx.GraphModule:
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx._graph_pickler import GraphPickler

    gm = GraphPickler.loads(data, FakeTensorMode())
    gm.recompile()
    return gm


def held_constants(gm: torch.fx.GraphModule) -> list[torch.Tensor]:
    """The tensors ``gm`` holds (``get_attr`` targets), in node order: the worker makes them
    inputs after the others, and the program passes them."""
    return [v for v in (_attr(gm, n.target) for n in gm.graph.nodes if n.op == "get_attr")
            if isinstance(v, torch.Tensor)]


def _attr(gm: torch.fx.GraphModule, target: str) -> Any:
    value: Any = gm
    for part in target.split("."):
        value = getattr(value, part)
    return value


def lifted_graph(data: bytes, expected: list[torch.Tensor]) -> torch.fx.GraphModule:
    """The graph with each tensor it holds made an input after the others, in
    :func:`held_constants`' order (checked against ``expected``, the program's list).
    AOTAutograd passes a graph's buffers as leading arguments, which a loaded artifact does not
    know to do: the program passes them itself, as trailing inputs."""  # noqa: D401
    gm = _unpickle_graph(data)
    graph = gm.graph
    last = [n for n in graph.nodes if n.op == "placeholder"][-1:]
    constants: list[torch.Tensor] = []
    for node in [n for n in graph.nodes if n.op == "get_attr"]:
        value = _attr(gm, node.target)
        if not isinstance(value, torch.Tensor):
            continue
        anchor = last[0] if last else next(iter(graph.nodes))
        with (graph.inserting_after(anchor) if last else graph.inserting_before(anchor)):
            placeholder = graph.placeholder(f"_lifted_constant_{len(constants)}")
        last = [placeholder]
        node.replace_all_uses_with(placeholder)
        graph.erase_node(node)
        constants.append(value)
        owner, _, name = node.target.rpartition(".")
        holder = gm.get_submodule(owner) if owner else gm
        if hasattr(holder, name):  # a buffer AOTAutograd would pass first; two nodes may read one
            delattr(holder, name)
    same = len(constants) == len(expected) and all(
        a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b) for a, b in zip(constants, expected))
    if not same:
        raise Unsupported("the tensors the graph holds were not found in the program's order")
    gm.recompile()
    return gm


NOTHING_SAVED = ("torch saved no cache entry for the compiled graph: AOTAutograd saves one only when inductor "
                 "compiled its forward and its backward, and one of them has no computation (a detach or a "
                 "view of an input, or a backward that only passes gradients on)")


def _check_cacheable(gm: torch.fx.GraphModule, config_patches: dict) -> None:
    """:class:`Unsupported` when AOTAutograd's cache would refuse ``gm``: the compile would make
    nothing to save (its reason is AOTAutograd's own)."""
    import torch._inductor.config
    from torch._functorch._aot_autograd.autograd_cache import BypassAOTAutogradCache, check_cacheable

    with torch._inductor.config.patch(config_patches):
        try:
            check_cacheable(gm)
        except BypassAOTAutogradCache as exc:
            raise NotCacheable(f"AOTAutograd's cache refuses the graph, so no artifact can be saved: {exc}") from exc


def compile_to_file(req: dict) -> str:
    """Compile the request's graph with inductor and write the artifact; returns its path.
    A graph with symbolic sizes is compiled for all of them, on fake inputs
    (``symbolic_inputs``), and its file carries the size guards the compile relied on."""
    artifact, guards = _compile_artifact(req, check_cacheable=True)
    with tempfile.TemporaryDirectory(prefix="autograph-artifact-") as tmp:
        raw = os.path.join(tmp, "artifact.bin")
        try:
            artifact.save(path=raw, format="binary")
        except RuntimeError as exc:
            if "failed to save" not in str(exc):
                raise
            raise NothingSaved(NOTHING_SAVED, artifact) from exc
        with open(raw, "rb") as f:
            payload = f.read()
    code = guards.encode()
    return write_artifact(Path(req["path"]), len(code).to_bytes(8, "little") + code + payload)


def compile_lock() -> Any:
    """The lock every inductor compile or load in this process holds: TorchDynamo's own
    (``torch._dynamo.convert_frame.compile_lock``, a reentrant lock). Inductor keeps a compile's
    state in process globals (its Triton bundler, the cache-artifact recorder, config patches),
    so two compiles on two threads break each other (``TritonBundler.begin_compile``'s assertion,
    seen with ``torch.compile`` on the program's thread while the loader thread compiled); with
    the lock, a ``torch.compile`` of the program waits while the loader thread compiles."""
    from torch._dynamo.convert_frame import compile_lock as lock
    return lock


def compile_here(req: dict) -> Callable[..., Any]:
    """The request's graph compiled by inductor in this process and returned, not saved: for a
    graph whose file cannot be made (:class:`NothingSaved`, :class:`NotCacheable`). Called like the
    graph (the held tensors are passed after the inputs), only where its size guards hold
    (``accepts``) when it was compiled for symbolic sizes. Compiles a copy made from the graph's
    bytes (``req["graph"]``, see :func:`serialize`), never the live module, under the grad mode and
    autocast state the request names, so any thread may call it (grad mode and autocast are
    the calling thread's own)."""
    with compile_lock():
        artifact, guards = _compile_artifact(req, check_cacheable=False)
    compiled = with_constants(artifact, req["constants"])
    if guards:
        from autograph.backends.symbolic_inputs import Guarded
        return Guarded(compiled, guards)
    return compiled


def _compile_artifact(req: dict, check_cacheable: bool) -> tuple[Any, str]:
    """``standalone_compile``'s artifact for the request's graph, and the size guards its compile
    relied on ("" for a graph of fixed sizes)."""
    from autograph.backends import symbolic_inputs

    gm = lifted_graph(req["graph"], req["constants"])
    from torch._inductor import standalone_compile

    check_isas(req)
    options = dict(req["options"])
    grad_enabled, autocast = options.pop("grad_enabled"), options.pop("autocast", ())
    symbolic = symbolic_inputs.specs_are_symbolic(req["specs"])
    with torch.set_grad_enabled(grad_enabled), applied_autocast(autocast):
        if symbolic:
            mode, fakes = symbolic_inputs.fake_inputs(req["specs"], req["hints"])
            inputs = fakes + [mode.from_tensor(c, static_shapes=True) for c in req["constants"]]
            _fill_example_values(gm, inputs, mode)
        else:
            inputs = [_stand_in(spec) for spec in req["specs"]] + list(req["constants"])
            _fill_example_values(gm, inputs)
        if check_cacheable:
            _check_cacheable(gm, options.get("config_patches", {}))
        artifact = standalone_compile(gm, inputs, dynamic_shapes="from_graph" if symbolic else "from_example_inputs",
                                      options=options)
        guards = symbolic_inputs.guard_code(mode, fakes) if symbolic else ""
    return artifact, guards


def write_artifact(path: Path, payload: bytes) -> str:
    """Write ``payload`` with its header at ``path`` (atomically); returns where it went: a
    read-only cache makes it a private temporary directory, so the program still gets it."""
    data = FORMAT + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload
    try:
        _write_atomic(path, data)
    except OSError:
        path = Path(tempfile.mkdtemp(prefix="autograph-inductor-")) / path.name
        _write_atomic(path, data)
    return str(path)


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# ------------------------------------------------------------ verdicts: graphs that stay eager

VERDICT_FORMAT = b"autograph-inductor-verdict-2\n"  # 2: says whether the graph is compiled in the program


class Verdict(NamedTuple):
    """Why the graph's compiled file cannot be made, and whether inductor compiles the graph in the
    program instead (``compile_here``: the file is what fails, not the compile) or it stays eager."""

    reason: str
    compile_here: bool = False


def verdict_path(cache_dir: Path, key: str) -> Path:
    """Where the verdict "this graph's compiled file cannot be made" of the artifact ``key`` lives
    (next to where its artifact would be: the same key, so the same graph, guards, torch and device)."""
    return cache_dir / "inductor" / f"{key}.eager"


def write_verdict(path: Path, key: str, reason: str, compile_here: bool = False) -> bool:
    """Remember that the graph of ``key`` cannot have a compiled file, and why, so that the next
    run of the program does not ask the worker again (``compile_here``: it compiles the graph in
    the program at once). Atomic like the artifacts; a cache that cannot be written keeps nothing
    (returns False: the next run asks again)."""
    body = json.dumps({"key": key, "torch": torch.__version__, "python": platform.python_version(),
                       "reason": reason, "compile_here": compile_here}).encode()
    data = VERDICT_FORMAT + hashlib.sha256(body).hexdigest().encode() + b"\n" + body
    try:
        _write_atomic(path, data)
    except OSError:
        return False
    return True


def read_verdict(path: Path, key: str) -> Verdict | None:
    """The remembered verdict for ``key``; None when there is no verdict file. ``ValueError`` when
    the file is damaged, or was written for another key, torch or Python (stale), or by an older
    autograph: such a file is ignored, the graph is compiled as if there were none, and the new
    verdict replaces it."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return None
    if not data.startswith(VERDICT_FORMAT):
        raise ValueError(f"{path}: not an autograph verdict of this version")
    digest, sep, body = data[len(VERDICT_FORMAT):].partition(b"\n")
    if not sep or hashlib.sha256(body).hexdigest().encode() != digest:
        raise ValueError(f"{path}: corrupt (checksum mismatch)")
    try:
        entry = json.loads(body)
    except ValueError as exc:
        raise ValueError(f"{path}: corrupt ({exc})") from exc
    if not isinstance(entry, dict) or not isinstance(entry.get("reason"), str) \
            or not isinstance(entry.get("compile_here"), bool):
        raise ValueError(f"{path}: corrupt (no reason)")
    mine = {"key": key, "torch": torch.__version__, "python": platform.python_version()}
    stale = [name for name, value in mine.items() if entry.get(name) != value]
    if stale:
        raise ValueError(f"{path}: stale (another {', '.join(stale)})")
    return Verdict(entry["reason"], entry["compile_here"])


# ------------------------------------------------------------ in the program

def read_payload(path: str | Path) -> bytes:
    """The artifact inside the file; ``ValueError`` when the file is not a whole, unaltered one."""
    data = Path(path).read_bytes()
    if not data.startswith(FORMAT):
        raise ValueError(f"{path}: not an autograph inductor artifact")
    rest = data[len(FORMAT):]
    digest, sep, payload = rest.partition(b"\n")
    if not sep or hashlib.sha256(payload).hexdigest().encode() != digest:
        raise ValueError(f"{path}: corrupt (checksum mismatch)")
    return payload


def load_request(path: str | Path, req: dict) -> Callable[..., Any]:
    """:func:`load_file` for a request (the loader a request names)."""
    check_isas(req)
    return load_file(path, req["constants"], req["options"].get("autocast", ()))


def load_file(path: str | Path, constants: list[torch.Tensor], autocast: tuple = ()) -> Callable[..., Any]:
    """The compiled graph from an artifact file, called with the graph's inputs like ``gm.forward``
    (``constants``: the request's, passed after them). Traces nothing, so a thread may call it.

    ``autocast``: the state the graph was compiled under. AOTAutograd's wrapper made on loading
    turns autocast off around the compiled code when it is on at loading time (the casts are in
    the code already), as ``torch.compile``'s does; a loader thread has none, so it is applied."""
    with applied_autocast(autocast):
        compiled, guards = _load_artifact(path)
    compiled = with_constants(compiled, constants)
    if guards:
        from autograph.backends.symbolic_inputs import Guarded
        return Guarded(compiled, guards)
    return compiled


def with_constants(compiled: Callable[..., Any], constants: list[torch.Tensor]) -> Callable[..., Any]:
    """``compiled`` (of the lifted graph) called like the graph: the held tensors passed after the inputs."""
    if not constants:
        return compiled

    def call(*args: Any) -> Any:
        return compiled(*args, *constants)

    return call


def _load_artifact(path: str | Path) -> tuple[Callable[..., Any], str]:
    """The compiled callable in the file, and the size guards it carries ("" for none)."""
    from contextlib import nullcontext

    from torch._inductor.codecache import torch_key
    from torch._inductor.standalone_compile import CacheCompiledArtifact
    from torch.utils._appending_byte_serializer import BytesReader

    payload = read_payload(path)
    size = int.from_bytes(payload[:8], "little")
    if len(payload) < 8 + size:
        raise ValueError(f"{path}: truncated guards")
    guards = payload[8:8 + size].decode()
    reader = BytesReader(payload[8 + size:])
    if reader.read_bytes() != CacheCompiledArtifact.CACHE_HEADER:
        raise ValueError(f"{path}: unknown artifact header")
    if reader.read_bytes() != torch_key():
        raise ValueError(f"{path}: made by another torch build")
    key = reader.read_str()
    artifact_bytes = reader.read_bytes()
    if not reader.is_finished():
        raise ValueError(f"{path}: trailing bytes")
    torch.compiler.load_cache_artifacts(artifact_bytes)
    return CacheCompiledArtifact._load_impl(nullcontext(), key), guards
