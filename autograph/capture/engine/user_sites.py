"""Operations the transformed code runs for the user, run in a frame at the user's own line.

The breaking call of a graph break is made by the entry itself, whose frame claims the user's
line (codegen.build_entry). Operations made elsewhere for the user -- side effects replayed at
their own lines, helpers of autograph running an operation (``run_at``) -- need a frame at the
user's line of their own. A warning such an operation issues (NumPy's divide-by-zero
``RuntimeWarning``, a deprecation) is attributed by the warnings machinery to the innermost Python frame: without care that is autograph's
generated code or its helpers, so the warning shows autograph's file and line, and the
``"default"`` action's once-per-location registry is autograph's instead of the user's module's.

A :class:`UserSite` makes the call from a tiny function whose code claims the user's file and
line and whose globals are the user's module's: the warnings machinery then sees exactly the
frame plain Python would (file, line, module name, ``__warningregistry__``), so the user's
filters -- ``"error"`` included, which raises from the operation at that point -- and the
registry apply as in plain Python, with no recording and no change to the warning filters
(changing them would clear every module's registry and show ``"default"`` warnings again).
"""
from __future__ import annotations

import types
import weakref
from typing import Any, Callable

from autograph.capture.engine.frame_marks import mark_folded
from autograph.capture.engine.python_methods import _unbound_method

# Each body is on the ``def`` line: every instruction of the code object is on one line, which
# ``co_firstlineno`` then moves to the user's. Helpers come through the closure, never the
# user's globals (which may shadow ``getattr``).
_TEMPLATE = """\
def _factory(_unbound, _getattr, _name):
    def call(__f, /, *__a, **__k): return __f(*__a, **__k)
    def method(__obj, /, *__a, **__k): return _getattr(__obj, _name)(*__a, **__k) if (__d := _unbound(__obj, _name)) is None else (__d(__obj, *__a, **__k) if __k else __d(__obj, *__a))
    return call, method
"""


def _template_codes() -> tuple[types.CodeType, types.CodeType]:
    namespace: dict = {}
    exec(compile(_TEMPLATE, "<autograph user site>", "exec"), namespace)
    codes = {c.co_name: c for c in namespace["_factory"].__code__.co_consts if isinstance(c, types.CodeType)}
    return codes["call"], codes["method"]


_CALL_CODE, _METHOD_CODE = _template_codes()


class UserSite:
    """The user's instruction at ``filename:lineno`` in the module whose globals are ``globals_``."""

    def __init__(self, filename: str, lineno: int, globals_: dict, name: str, qualname: str):
        self.filename, self.lineno, self.globals = filename, lineno, globals_
        self.name, self.qualname = name, qualname
        self._methods: dict[str, Callable] = {}
        self.call = self._function(_CALL_CODE, None)

    def method(self, name: str) -> Callable:
        """``obj.<name>(*args)`` as CPython's LOAD_METHOD + CALL makes it (python_methods.py),
        called as ``method(obj, *args, **kwargs)`` from the user's line."""
        fn = self._methods.get(name)
        if fn is None:
            fn = self._methods[name] = self._function(_METHOD_CODE, name)
        return fn

    def methods(self) -> list[Callable]:
        """The method callers made so far."""
        return list(self._methods.values())

    def method_name(self, caller: Callable) -> str | None:
        """The method ``caller`` (one of :meth:`methods`) calls, or None."""
        return next((name for name, fn in self._methods.items() if fn is caller), None)

    def _function(self, template: types.CodeType, method_name: str | None) -> Callable:
        code = template.replace(co_filename=self.filename, co_firstlineno=self.lineno, co_name=self.name,
                                co_qualname=self.qualname)
        helpers = {"_unbound": _unbound_method, "_getattr": getattr, "_name": method_name}
        closure = tuple(types.CellType(helpers[n]) for n in code.co_freevars)
        mark_folded(code)  # a traceback shows it as the entry's frame it runs for (runtime/frames.py)
        return types.FunctionType(code, self.globals, self.name, None, closure)

    def __repr__(self) -> str:
        return f"<user site {self.filename}:{self.lineno}>"


# shared while some compiled entry uses the site: the entries hold their sites, this table only
# finds them (a strong table would keep every user module's globals alive after the module died)
_SITES: weakref.WeakValueDictionary[tuple, UserSite] = weakref.WeakValueDictionary()


def user_site(code: types.CodeType, lineno: int | None, globals_: dict) -> UserSite | None:
    """The (shared) site of the instruction at ``lineno`` of ``code`` running with ``globals_``;
    None when the instruction has no line (the transformed code's frame is then used)."""
    if lineno is None:
        return None
    key = (code.co_filename, lineno, code.co_name, id(globals_))
    site = _SITES.get(key)
    if site is None or site.globals is not globals_:
        qualname = getattr(code, "co_qualname", code.co_name)
        site = _SITES[key] = UserSite(code.co_filename, lineno, globals_, code.co_name, qualname)
    return site


def run_at(site: UserSite | None, fn: Callable, /, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` from the user's line (helpers running an operation for the user)."""
    if site is None:
        return fn(*args, **kwargs)
    return site.call(fn, *args, **kwargs)
