"""The one contract between a sweep's generator and the runner that checks its cases."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SweepCase:
    """One generated program, as module source text, so it can be regenerated and saved.

    The module text must define:

    * ``fn`` -- the function under test (what the runner compiles);
    * ``make_call(i)`` -- returns ``(args, kwargs)`` for call number ``i``; called once for
      the eager module and once for the compiled module, so each side gets its own fresh
      objects (the "world changed between calls" is expressed here, by ``i``);
    * optionally ``world()`` -- a dict of module-level state a caller could observe after a
      call (objects ``fn`` touched: lists, loggers' records, counters); compared after every
      call together with the process state the runner always checks (``sys.stdout``/``stderr``,
      warning filters, working directory, grad mode, default dtype, ``os.environ``);
    * optionally ``CALLS`` -- how many calls to make (default 4);
    * optionally ``COMPILE_OPTIONS`` -- keyword arguments for the compile call besides the
      backend (``{"dynamic": True}``); default ``{}``, the compiler's default mode.

    ``sweep`` names the generator, ``name`` is unique within a seed and says which construct
    the case exercises (e.g. ``"attributes:int:__class__.__name__:dynamic"``).
    """
    sweep: str
    name: str
    source: str
