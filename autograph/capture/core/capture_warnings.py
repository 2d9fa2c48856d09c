"""Operations evaluated during capture must not warn: a warning is the run's, not capture's.

Folding ``np.float64(1.0) / 0`` evaluates it once, at capture time: its ``RuntimeWarning`` would
be shown once, from autograph's own line, where plain Python shows it at every call from the
user's line (subject to the user's filters and the module's ``__warningregistry__``). An
evaluation that issues any warning is therefore refused: the operation runs in Python at run
time (a graph break there), where the warning is the user's own. Nothing is shown at capture:
the run of an operation on fake tensors (which the graph repeats on real ones) is
:func:`silenced`.

The check swaps the filters for one ``"always"`` filter and collects what is shown, without
``warnings.catch_warnings``: that one bumps the filters' version, which clears every module's
registry, so a ``"default"`` warning the user has seen once would be shown again.
"""
from __future__ import annotations

import contextlib
import logging
import warnings
from typing import Any, Callable, Iterator

from autograph.capture.core.breaks import Unsupported, break_kind

WARNS_AT_CAPTURE = break_kind(
    "warns", "an operation on known values issues a warning, which plain Python shows at every call "
    "from the user's line, so it runs in Python at run time",
    "nothing to do: the operation runs in Python (silence the warning, e.g. np.errstate, if it is not wanted)")

_ALWAYS = [("always", None, Warning, None, 0)]
_IGNORE = [("ignore", None, Warning, None, 0)]


# torch logs the traceback of an operation that fails on fake tensors ("failed while attempting to
# run meta for aten.mm.default") before raising; the error is the program's, raised again by the
# real run (or caught by the program), so capture shows nothing of it
_FAKE_TENSOR_LOG = logging.getLogger("torch._subclasses.fake_tensor")


@contextlib.contextmanager
def silenced() -> Iterator[None]:
    """Warnings issued inside are dropped, and so is torch's log of an operation failing on fake
    tensors: a run on fake tensors at capture time warns or fails where the real operation will
    warn or fail again when the graph runs (from the user's line), at every call."""
    saved, log_was_disabled = warnings.filters, _FAKE_TENSOR_LOG.disabled
    warnings.filters = list(_IGNORE)  # (no version bump: the modules' registries stay as they are)
    _FAKE_TENSOR_LOG.disabled = True
    try:
        yield
    finally:
        warnings.filters = saved
        _FAKE_TENSOR_LOG.disabled = log_was_disabled


def evaluate_quietly(fn: Callable, args: list, kwargs: dict, what: str) -> Any:
    """``fn(*args, **kwargs)`` now; any warning it issues refuses the evaluation (nothing shown)."""
    shown: list = []
    saved = warnings.filters, warnings.showwarning, warnings._showwarnmsg_impl  # type: ignore[attr-defined]
    warnings.filters = list(_ALWAYS)
    warnings.showwarning = warnings._showwarning_orig  # type: ignore[attr-defined]
    warnings._showwarnmsg_impl = shown.append  # type: ignore[attr-defined]
    try:
        result = fn(*args, **kwargs)
    finally:
        warnings.filters, warnings.showwarning, warnings._showwarnmsg_impl = saved  # type: ignore[attr-defined]
    if shown:
        first = shown[0]
        raise Unsupported(f"{what} issues {first.category.__name__}: {first.message}", generic=True,
                          kind=WARNS_AT_CAPTURE)
    return result
