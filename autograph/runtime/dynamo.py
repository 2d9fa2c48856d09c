"""Living beside ``torch.compile``: inside a TorchDynamo region autograph steps aside.

Two things keep the two compilers from compiling each other:

* **While Dynamo traces** a function that calls an instrumented function, it must see
  the user's original code, not autograph's wrapper. The hook's wrappers (and the
  ``forward`` of ``autograph.compile(module)``) expose the original through
  ``_torchdynamo_inline``, the attribute Dynamo follows for wrappers it should look
  through (as for ``torch.jit`` wrappers), so Dynamo inlines the original.
* **While Dynamo's compiled code runs** (this thread's eval-frame callback is set) an
  instrumented function reached natively (after one of Dynamo's graph breaks, or a
  ``torch.compile(f)`` of a wrapped ``f``) runs the original at once: Dynamo compiles
  and runs that frame itself, so autograph neither captures nor runs its own entries
  there. The few Python frames of autograph on that path (the wrapper, the shim's slow
  path) are marked "skip" for Dynamo's frame evaluation, so Dynamo never tries to
  compile autograph's own code; with ``torch._dynamo`` loaded, autograph's rooms are
  also on Dynamo's skip list (a call into them is never traced).

Nothing here imports torch: :func:`callback` is a cheap C call once torch is loaded.
"""
from __future__ import annotations

import sys
import threading
import types
from typing import Any, Callable

from autograph.guards import extension as _extension

_lock = threading.Lock()
_skip_codes: list[types.CodeType] = []   # autograph's frames on the path into the original
_skipped: set[int] = set()               # ids of codes already marked for Dynamo
_traced_rules = False                    # autograph's rooms added to Dynamo's trace-rule skip list

# Rooms Dynamo must never trace into (``autograph.testing`` holds user-style model code, and
# ``autograph.explain`` the report's TorchFunctionMode, which Dynamo traces as a mode: left out).
_ROOMS = ("autograph.api", "autograph.runtime", "autograph.hook", "autograph.capture", "autograph.guards",
          "autograph.backends", "autograph.bytecode", "autograph.settings", "autograph.errors")


def torch_imported() -> bool:
    """Whether torch is imported *and done initialising*: an instrumented function (an import
    finder of a package selected by ``'*'``) can run while ``import torch`` is in progress, and
    importing ``torch._C._dynamo`` then crashes the interpreter."""
    torch = sys.modules.get("torch")
    return torch is not None and not getattr(getattr(torch, "__spec__", None), "_initializing", False)


def _not_loaded() -> Any:
    """``callback`` before torch is imported: no Dynamo region can exist yet."""
    if torch_imported():
        connect()
        return callback()
    return None


# this thread's Dynamo eval-frame callback (None outside a torch.compile region); replaced by
# ``torch._C._dynamo.eval_frame.get_eval_frame_callback`` once torch is imported
callback: Callable[[], Any] = _not_loaded


def in_torch_compile() -> bool:
    """True when this thread runs inside a ``torch.compile`` region (Dynamo's callback is set)."""
    return callback() is not None


def skip_frames(*fns: Any) -> None:
    """Mark the code of ``fns`` (functions or code objects) as autograph frames Dynamo must not compile."""
    with _lock:
        for fn in fns:
            code = fn if isinstance(fn, types.CodeType) else getattr(fn, "__code__", None)
            if code is not None and all(c is not code for c in _skip_codes):
                _skip_codes.append(code)
    if torch_imported():
        connect()


def connect() -> None:
    """Once torch is imported: use Dynamo's own callback query and register autograph's skips."""
    global callback, _traced_rules
    try:
        from torch._C._dynamo import eval_frame as _ef
    except Exception:  # noqa: BLE001 - a torch without Dynamo: no region can exist
        return
    with _lock:
        strategy = _ef._FrameExecStrategy(_ef._FrameAction.SKIP, _ef._FrameAction.DEFAULT)
        for code in _skip_codes:
            if id(code) not in _skipped:
                _ef.set_code_exec_strategy(code, strategy)
                _skipped.add(id(code))
        callback = _ef.get_eval_frame_callback
        # the C hit path asks it too when Dynamo's frame evaluator is installed (it stays installed
        # after an error left a torch.compile region, with no region active)
        native = _extension.load()
        if native is not None and hasattr(native, "set_region_query"):
            native.set_region_query(callback)
    if not _traced_rules and "torch._dynamo" in sys.modules:
        _traced_rules = True
        _add_trace_rules()


def entered_region() -> None:
    """Called (rarely) when a shim first finds itself inside a Dynamo region: finish registering."""
    if not _traced_rules:
        connect()


def _add_trace_rules() -> None:
    try:
        from torch._dynamo import trace_rules
    except Exception:  # noqa: BLE001
        return
    for room in _ROOMS:
        try:
            trace_rules.add(room)
        except Exception:  # noqa: BLE001 - a room that is not importable here
            pass


skip_frames(_not_loaded, connect, entered_region, _add_trace_rules, in_torch_compile)
