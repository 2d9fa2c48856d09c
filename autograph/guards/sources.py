"""Where a guarded value comes from.

A ``Source`` is a small frozen description of how to reach a value from the
call of a function: a parameter, a module global, a closure cell, an attribute
or item of another source, or a piece of global interpreter state.  Each has
``expr`` (the readable Python a user sees, e.g. ``self.training``) and
``fetch(frame_locals, fn)`` (the value now), and ``render(ctx)``: the code that
reads it inside generated Python (guard checks and capture's transformed entries
both render through it; ``ctx`` is a ``SourceRenderer``).  ``native`` turns
sources into a small plan for the C fast path.
"""
from __future__ import annotations

import keyword
import types
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Mapping, Protocol


class SourceRenderer(Protocol):
    """What generated code offers a source rendering itself (guard checks, transformed entries)."""

    fn: types.FunctionType

    def expr(self, source: "Source") -> str:
        """Code reading ``source`` (bases recurse through here, so a renderer may reuse temps)."""

    def constant(self, obj: Any, hint: str) -> str:
        """A name bound to ``obj`` in the generated code's namespace."""

    def global_read(self, name: str) -> str:
        """Code reading global ``name`` of ``fn`` (falling back to builtins)."""

    def global_state(self, kind: str) -> str:
        """Code reading a piece of global interpreter state (``GLOBAL_STATE_KINDS``)."""


class Source:
    """Base of every source; subclasses are frozen dataclasses (hashable)."""

    @property
    def expr(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def fetch(self, frame_locals: Mapping[str, Any], fn: types.FunctionType) -> Any:
        """The value this source names, given the bound arguments of ``fn``."""
        raise NotImplementedError  # pragma: no cover - abstract

    def render(self, ctx: SourceRenderer) -> str:
        """Python code reading this source inside code generated for ``ctx.fn``."""
        raise NotImplementedError  # pragma: no cover - abstract

    @property
    def base(self) -> "Source | None":
        return None

    def __str__(self) -> str:
        return self.expr


@dataclass(frozen=True)
class LocalSource(Source):
    """A parameter of the function (``*args``/``**kwargs`` included, by their names)."""

    name: str

    @property
    def expr(self) -> str:
        return self.name

    def fetch(self, frame_locals, fn):
        return frame_locals[self.name]

    def render(self, ctx):
        return self.name


@dataclass(frozen=True)
class GlobalSource(Source):
    """A name in the function's module globals, read as ``G['name']``."""

    name: str

    @property
    def expr(self) -> str:
        return f"G[{self.name!r}]"

    def fetch(self, frame_locals, fn):
        g = fn.__globals__
        if self.name in g:
            return g[self.name]
        builtins = g.get("__builtins__", {})
        if isinstance(builtins, types.ModuleType):
            builtins = builtins.__dict__
        return builtins[self.name]

    def render(self, ctx):
        return ctx.global_read(self.name)


@dataclass(frozen=True)
class ClosureSource(Source):
    """The contents of the cell of a free variable of the function."""

    name: str

    @property
    def expr(self) -> str:
        return self.name

    def cell(self, fn: types.FunctionType) -> types.CellType:
        try:
            index = fn.__code__.co_freevars.index(self.name)
        except ValueError:
            raise KeyError(f"{fn.__qualname__} has no free variable {self.name!r}") from None
        return (fn.__closure__ or ())[index]

    def fetch(self, frame_locals, fn):
        return self.cell(fn).cell_contents

    def render(self, ctx):
        return f"{ctx.constant(self.cell(ctx.fn), 'cell')}.cell_contents"


@dataclass(frozen=True)
class AttrSource(Source):
    """``base.attr``."""

    base_source: Source
    attr: str

    def __init__(self, base: Source, attr: str):
        object.__setattr__(self, "base_source", base)
        object.__setattr__(self, "attr", attr)

    @property
    def base(self) -> Source:
        return self.base_source

    @property
    def expr(self) -> str:
        if self.attr.isidentifier() and not keyword.iskeyword(self.attr):
            return f"{self.base_source.expr}.{self.attr}"
        return f"getattr({self.base_source.expr}, {self.attr!r})"

    def fetch(self, frame_locals, fn):
        return getattr(self.base_source.fetch(frame_locals, fn), self.attr)

    def render(self, ctx):
        base = ctx.expr(self.base_source)
        if self.attr.isidentifier() and not self.attr.startswith("__"):  # no name mangling surprises
            return f"{base}.{self.attr}"
        return f"getattr({base}, {self.attr!r})"


@dataclass(frozen=True)
class ItemSource(Source):
    """``base[key]`` for a constant key (int, str, tuple of those)."""

    base_source: Source
    key: Any

    def __init__(self, base: Source, key: Any):
        object.__setattr__(self, "base_source", base)
        object.__setattr__(self, "key", key)

    @property
    def base(self) -> Source:
        return self.base_source

    @property
    def expr(self) -> str:
        return f"{self.base_source.expr}[{self.key!r}]"

    def fetch(self, frame_locals, fn):
        return self.base_source.fetch(frame_locals, fn)[self.key]

    def render(self, ctx):
        key = self.key
        text = repr(key) if type(key) in (int, str) else ctx.constant(key, "key")
        return f"{ctx.expr(self.base_source)}[{text}]"


@dataclass(frozen=True, init=False)
class MemberSource(ItemSource):
    """``owner.<store>[name]`` (read directly), shown as ``owner.name``.

    ``torch.nn.Module`` keeps submodules, parameters and buffers in ``_modules``,
    ``_parameters`` and ``_buffers``; ``owner.name`` reaches them through a Python
    ``__getattr__`` (about a microsecond each), the dict read costs nanoseconds.
    """

    base_source: AttrSource  # owner.<store>

    def __init__(self, owner: Source, store: str, name: str):
        super().__init__(AttrSource(owner, store), name)

    @property
    def expr(self) -> str:
        owner, name = self.base_source.base_source.expr, self.key
        if name.isidentifier() and not keyword.iskeyword(name):
            return f"{owner}.{name}"
        if name.isdigit():
            return f"{owner}[{name}]"
        return f"getattr({owner}, {name!r})"


def is_module_state(source: Source) -> bool:
    """Whether ``source`` reads a parameter or buffer of an ``nn.Module`` (``owner._parameters[n]``
    or ``owner._buffers[n]``): their sizes are the module's structure, kept static (never made
    dynamic automatically), as TorchDynamo keeps parameter shapes static."""
    return isinstance(source, MemberSource) and source.base_source.attr in ("_parameters", "_buffers")


class ObjectSource(Source):
    """A fixed object reached without a source from the call (another module's globals
    dict, a callee's function object): guards read *through* it, e.g. ``ItemSource(
    ObjectSource(vars(mod), "vars(mod)"), "CONFIG")``.  Equal when the object is the same."""

    __slots__ = ("obj", "what")

    def __init__(self, obj: Any, what: str):
        self.obj = obj
        self.what = what

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ObjectSource) and other.obj is self.obj

    def __hash__(self) -> int:
        return hash((ObjectSource, id(self.obj)))

    def __repr__(self) -> str:
        return f"ObjectSource({self.what})"

    @property
    def expr(self) -> str:
        return self.what

    def fetch(self, frame_locals, fn):
        return self.obj

    def render(self, ctx):
        return ctx.constant(self.obj, "obj")


class PinnedSource(Source):
    """The value ``getter()`` returns: a location capture read without a source path (a trusted
    or pinned read), read again by calling ``getter``. Equal when the getter is the same object."""

    __slots__ = ("getter", "what")

    def __init__(self, getter: Callable[[], Any], what: str):
        self.getter = getter
        self.what = what

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PinnedSource) and other.getter is self.getter

    def __hash__(self) -> int:
        return hash((PinnedSource, id(self.getter)))

    def __repr__(self) -> str:
        return f"PinnedSource({self.what})"

    @property
    def expr(self) -> str:
        return self.what

    def fetch(self, frame_locals, fn):
        return self.getter()

    def render(self, ctx):
        return f"{ctx.constant(self.getter, 'pin')}()"


ITER_ITEMS = "items"  # AppliedSource.in_place: reader(it) is the tuple of the items ``it`` will still yield
ITER_SEQUENCE = "sequence"  # ... reader(it) is the list or tuple ``it`` walks, None once exhausted or empty


@dataclass(frozen=True)
class AppliedSource(Source):
    """``reader(base)``: a value a function reads from another source's value without changing
    it (the items an iterator will still yield, say). Subclasses are frozen dataclasses whose
    first field is ``base_source`` (the base, then their own fields: ``Sub(base, key)``) and
    say which function reads (``reader()``; ``expr`` shows it by its ``__name__`` unless they
    say otherwise); a native plan reads it as one call on the base's node, or, where
    ``in_place`` says what the reader answers (``ITER_ITEMS``, ``ITER_SEQUENCE``), reads a list
    or tuple iterator's fields in place and calls the reader for iterators of other types."""

    base_source: Source
    in_place: ClassVar[str | None] = None

    @property
    def base(self) -> Source:
        return self.base_source

    @property
    def expr(self) -> str:
        return f"{self.reader().__name__}({self.base_source.expr})"

    def reader(self) -> Callable[[Any], Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def fetch(self, frame_locals, fn):
        return self.reader()(self.base.fetch(frame_locals, fn))

    def render(self, ctx):
        return f"{ctx.constant(self.reader(), 'read')}({ctx.expr(self.base)})"


@dataclass(frozen=True)
class StoredItemSource(AppliedSource):
    """``base[key]`` of a dict whose type has ``__missing__`` (``defaultdict``), read as the entry
    it holds: a guard or a rebuild that read it with ``[]`` would insert the key when it is
    absent (the default factory runs), an effect plain Python never has. Absent: KeyError."""

    key: Any

    @property
    def expr(self) -> str:
        return f"{self.base_source.expr}[{self.key!r}]"

    def reader(self) -> Callable[[Any], Any]:
        return _stored_item_reader(self.key)


@dataclass(frozen=True)
class FunctionOfSource(AppliedSource):
    """``fn(base)`` for a function of C code that only reads its argument (``os.fspath`` of a
    ``pathlib`` path); ``name`` is how ``expr`` shows it."""

    fn: Callable[[Any], Any]
    name: str = field(default="", compare=False)

    @property
    def expr(self) -> str:
        return f"{self.name or self.fn.__name__}({self.base_source.expr})"

    def reader(self) -> Callable[[Any], Any]:
        return self.fn


_ABSENT = object()
_STORED_ITEM_READERS: dict = {}


def _stored_item_reader(key: Any) -> Callable[[Any], Any]:
    """One reader per constant key (a plan and a check name it once)."""
    cached = type(key) in (int, str, bytes, float, bool, type(None))
    if cached and (type(key), key) in _STORED_ITEM_READERS:
        return _STORED_ITEM_READERS[(type(key), key)]

    def stored_item(mapping: Any) -> Any:
        value = dict.get(mapping, key, _ABSENT)
        if value is _ABSENT:
            raise KeyError(key)
        return value

    if cached:
        _STORED_ITEM_READERS[(type(key), key)] = stored_item
    return stored_item


def _autocast(device_type: str) -> Callable[[], bool]:
    def read() -> bool:
        import torch

        return torch.is_autocast_enabled(device_type)

    return read


def _autocast_dtype(device_type: str) -> Callable[[], Any]:
    def read() -> Any:
        import torch

        return torch.get_autocast_dtype(device_type)

    return read


def _torch_call(name: str) -> Callable[[], Any]:
    """Reader calling ``torch.<name>()`` (dotted names allowed), resolved on first use."""
    def read() -> Any:
        import torch

        target: Any = torch
        for part in name.split("."):
            target = getattr(target, part)
        return target()

    read.__name__ = name
    return read


def _dispatch_tls():
    import torch

    return (torch._C._dispatch_tls_local_include_set().raw_repr(),
            torch._C._dispatch_tls_local_exclude_set().raw_repr())


# kind -> (readable expression, zero-argument reader)
GLOBAL_STATE_KINDS: dict[str, tuple[str, Callable[[], Any]]] = {
    "grad_enabled": ("torch.is_grad_enabled()", _torch_call("is_grad_enabled")),
    "autocast_any": ("torch._C._is_any_autocast_enabled()", _torch_call("_C._is_any_autocast_enabled")),
    "autocast_cpu": ("torch.is_autocast_enabled('cpu')", _autocast("cpu")),
    "autocast_cuda": ("torch.is_autocast_enabled('cuda')", _autocast("cuda")),
    "autocast_dtype_cpu": ("torch.get_autocast_dtype('cpu')", _autocast_dtype("cpu")),
    "autocast_dtype_cuda": ("torch.get_autocast_dtype('cuda')", _autocast_dtype("cuda")),
    "default_dtype": ("torch.get_default_dtype()", _torch_call("get_default_dtype")),
    "deterministic": ("torch.are_deterministic_algorithms_enabled()",
                      _torch_call("are_deterministic_algorithms_enabled")),
    "inference_mode": ("torch.is_inference_mode_enabled()", _torch_call("is_inference_mode_enabled")),
    "torch_function_modes": ("torch._C._len_torch_function_stack()", _torch_call("_C._len_torch_function_stack")),
    "torch_dispatch_modes": ("torch._C._len_torch_dispatch_stack()", _torch_call("_C._len_torch_dispatch_stack")),
    "functorch_level": ("torch._C._functorch.maybe_current_level()",
                        _torch_call("_C._functorch.maybe_current_level")),
    "dispatch_tls": ("___dispatch_tls()", _dispatch_tls),
}


@dataclass(frozen=True)
class GlobalStateSource(Source):
    """A piece of interpreter-wide state (grad mode, autocast, default dtype...)."""

    kind: str

    def __post_init__(self):
        if self.kind not in GLOBAL_STATE_KINDS:
            raise ValueError(f"unknown global state {self.kind!r}; known: {sorted(GLOBAL_STATE_KINDS)}")

    @property
    def expr(self) -> str:
        return GLOBAL_STATE_KINDS[self.kind][0]

    @property
    def reader(self) -> Callable[[], Any]:
        return GLOBAL_STATE_KINDS[self.kind][1]

    def fetch(self, frame_locals, fn):
        return self.reader()

    def render(self, ctx):
        return ctx.global_state(self.kind)


def GradModeSource() -> GlobalStateSource:
    """The grad-mode switch (``torch.is_grad_enabled()``)."""
    return GlobalStateSource("grad_enabled")


def root_of(source: Source) -> Source:
    """The innermost source (a local, global, closure or global state)."""
    while source.base is not None:
        source = source.base
    return source
