"""Type stub of the C extension built from native/ (guard_eval.c: the guard evaluator; hit_path.c:
the C hit path); autograph/guards/extension.py loads it; guards/native.py, guards/tensor_layout.py
and runtime/shim.py use it."""
from typing import Any, Callable

# plan node kinds, guard ops and size limit (checked against guards/extension.py and kinds.Op at load)
N_POS: int
N_VARARGS: int
N_CONST: int
N_GLOBAL: int
N_GLOBAL_OR_BUILTIN: int
N_CELL: int
N_ATTR: int
N_ITEM: int
N_CALL: int
N_KWONLY: int
N_VARKW: int
N_APPLY: int
G_TENSOR: int
G_TYPE: int
G_ID: int
G_CONST: int
G_LEN: int
G_EQ: int
G_CALL: int
G_NO_KEY: int
G_NO_HOOKS: int
G_IS: int
G_KEYS: int
G_ITEMS_LEFT: int
MAX_NODES: int

class HitPath:
    """Base of runtime.shim.Shim: the hit path in C (dispatch over ``_table``, else ``self._slow``;
    every call goes to ``self._python_hit`` while the C path is switched off)."""

    _table: tuple[tuple[Any, ...], tuple[Any, ...], tuple[Callable[..., Any], ...]]
    _fast: bool
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

def check(plan: Any, args: tuple[Any, ...], kwargs: dict[str, Any] | None, /) -> int: ...
def dispatch(plans: Any, args: tuple[Any, ...], kwargs: dict[str, Any] | None, /) -> int: ...
def keyset_raw(dispatch_key_set: Any, /) -> int: ...
def probe_object_word(obj: object, offset: int, /) -> int: ...
def probe_impl_word(tensor: Any, cdata_offset: int, offset: int, /) -> int: ...
def set_tensor_layout(cdata_offset: int, keys_offset: int, /) -> None: ...
def tensor_keys(tensor: Any, /) -> int | None: ...
def set_tensor_dims_layout(offset: int, /) -> None: ...
def tensor_dims(tensor: Any, /) -> tuple[tuple[int, ...], tuple[int, ...]] | None: ...
def nesting(delta: int = 0, limit: int | None = None, /) -> int: ...
def in_guards() -> bool: ...
def seq_iter_layout() -> bool: ...
def set_flags(off: bool, captures: int, python: bool = False, /) -> None: ...
def set_frame_hooks(cleaner: Any, /) -> None: ...
def set_region_query(query: Any, /) -> None: ...
