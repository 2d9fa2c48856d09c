"""The frames a user observes through a compiled call: the same as in plain Python.

A plain call ``f(x)`` is one frame of ``f``. Compiled, the same call runs autograph's code
around the user's: the shim, the transformed entry, one resume function per graph break, the
graph's backend. Three things keep that invisible to ``sys._getframe``, ``inspect.stack()``,
``warnings.warn(stacklevel=...)`` and tracebacks:

* **No frame of autograph's between the caller and the user's code**: the shim's hit *and*
  miss paths call from C (``native/hit_path.c``: Python's ``Shim._plan`` only decides what
  runs), and so does the import hook's wrapper (``WrapperCall``).
* **One frame per user call however many breaks**: an entry does not call its resume function;
  it returns ``TailCall(resume, *args)`` and the shim makes the call after the entry's frame is
  gone. The entry and the resume code carry the user's function name, file and lines
  (``capture/engine/codegen.py``).
* **Tracebacks without autograph's frames**: an exception leaving a compiled call loses the
  frames of autograph's runtime between two user frames (the graph's backend), and a graph's
  own frame (``graph_lines.py``) or a user site's (``user_sites.py``) folds into the entry's
  frame it runs for, at the graph's line. An error raised inside autograph keeps every frame.
"""
from __future__ import annotations

import types
from typing import Any

from autograph.capture.engine.frame_marks import TailCall, is_entry, is_folded
from autograph.guards import extension as _extension


def finish_tail(result: Any) -> Any:
    """The value of a call whose result may be a :data:`TailCall` (the Python hit path's twin of C's)."""
    while type(result) is TailCall:
        # the TailCall let go before the call: it is not tracked by the GC (native/hit_path.c),
        # so no frame of a traceback the call raises may hold it
        fn, args, result = result.fn, result.args, None
        result = fn(*args)
    return result


def wrapper_call(shim: Any, pass_instance: bool) -> Any:
    """The import hook's wrapt wrapper calling ``shim`` from C (no Python frame of autograph's
    between the caller and the user's function); None without the extension."""
    if _native is None or not hasattr(_native, "WrapperCall"):
        return None
    return _native.WrapperCall(shim, pass_instance)


def is_internal(frame: types.FrameType) -> bool:
    """A frame of autograph's own runtime (not the user-style model code of ``autograph.testing``)."""
    name = frame.f_globals.get("__name__")
    return isinstance(name, str) and name.startswith("autograph.") and not name.startswith("autograph.testing")


def clean_traceback(exc: BaseException) -> None:
    """Make ``exc.__traceback__`` the one plain Python would show (see the module docstring).

    Called by the shim (C) for each exception leaving a compiled call; edits the chain in place
    (``tb_next``) and makes a new traceback object only for an entry frame that takes a graph's line.
    """
    first = exc.__traceback__
    chain = []
    tb = first
    while tb is not None:
        chain.append(tb)
        tb = tb.tb_next
    if not chain or is_internal(chain[-1].tb_frame):
        return  # raised by autograph itself: every frame stays, for the bug report
    kept: list[list[Any]] = []  # [traceback, line or None (None: unchanged)]
    for tb in chain:
        frame = tb.tb_frame
        if is_internal(frame):
            continue
        code = frame.f_code
        if is_folded(code) and kept and is_entry(kept[-1][0].tb_frame.f_code):
            entry = kept[-1]
            if entry[0].tb_frame.f_code.co_filename == code.co_filename:
                entry[1] = tb.tb_lineno
            continue
        kept.append([tb, None])
    if len(kept) == len(chain):
        return
    following = None
    for tb, line in reversed(kept):
        if line is None or line == tb.tb_lineno:
            tb.tb_next = following
            following = tb
        else:  # no instruction of the entry is at that line: the traceback names it (tb_lasti -1)
            following = types.TracebackType(following, tb.tb_frame, -1, line)
    exc.__traceback__ = following


_native = _extension.load()
if _native is not None and hasattr(_native, "set_frame_hooks"):
    _native.set_frame_hooks(clean_traceback)
