"""``autograph.install()`` / ``autograph.uninstall()``: turn the import hook on and off.

Installing puts an :class:`AutographFinder` first in ``sys.meta_path`` (future imports
of selected modules get instrumented) and instruments the selected modules that are
already imported, in place. References taken earlier with ``from x import f`` still
point at the original function; one :class:`AliasWarning` names them. Uninstalling
removes the finder and puts every original back. One installation is active at a
time; installing again replaces it.
"""
from __future__ import annotations

import logging
import sys
import threading
import types
import warnings
from typing import Iterable

from autograph.errors import SettingsError
from autograph.hook.finder import AutographFinder
from autograph.hook.instrument import Patch, instrument_module, restore_all
from autograph.hook.select import Selection
from autograph.settings import (
    Rule,
    Settings,
    check_allow_rule,
    check_deny_rule,
    current_settings,
    loaded_settings,
    set_current_settings,
)

log = logging.getLogger("autograph.hook")


class AliasWarning(UserWarning):
    """Selected functions were bound elsewhere (``from x import f``) before autograph was installed."""


class Installation:
    """An active import hook. A context manager: leaving the ``with`` block uninstalls it."""

    def __init__(self, settings: Settings, previous: Settings | None):
        self.settings = settings
        self.selection = Selection.from_settings(settings)
        self.patches: list[Patch] = []
        self.finder: AutographFinder | None = None
        self._previous_settings = previous
        self._lock = threading.Lock()

    @property
    def active(self) -> bool:
        return self.finder is not None

    def _instrument(self, module: types.ModuleType) -> list[Patch]:
        try:
            patches = instrument_module(module, self.selection)
        except Exception as exc:  # never break the user's import because of us
            warnings.warn(
                f"autograph: could not instrument module {module.__name__!r} ({type(exc).__name__}: {exc}); "
                "it runs uncompiled",
                RuntimeWarning,
                stacklevel=2,
            )
            return []
        with self._lock:
            self.patches.extend(patches)
        if patches:
            log.debug("wrapped %d functions of %s", len(patches), module.__name__)
        return patches

    def _start(self) -> None:
        self.finder = AutographFinder(self.selection, self._instrument)
        sys.meta_path.insert(0, self.finder)
        before = len(self.patches)
        for name, module in list(sys.modules.items()):
            if isinstance(module, types.ModuleType) and self.selection.selects_module(name):
                self._instrument(module)
        if len(self.patches) > before:
            self._handle_aliases(self.patches[before:])

    def _handle_aliases(self, patches: list[Patch]) -> None:
        """Rebind ``from x import f`` copies inside selected modules; warn about the others."""
        by_id = {id(p.original): p for p in patches if isinstance(p.owner, types.ModuleType)}
        if not by_id:
            return
        stale: list[str] = []
        seen: set[int] = set()
        for name, module in list(sys.modules.items()):
            namespace = getattr(module, "__dict__", None)
            if not isinstance(module, types.ModuleType) or not isinstance(namespace, dict) or id(module) in seen:
                continue  # (one module can be registered twice: __main__ and __mp_main__)
            seen.add(id(module))
            if name == "autograph" or name.startswith("autograph."):
                continue
            for attr, value in list(namespace.items()):
                patch = by_id.get(id(value))
                if patch is None or value is not patch.original or module is patch.owner:
                    continue
                if self.selection.selects_module(name):
                    setattr(module, attr, patch.wrapper)
                    with self._lock:
                        self.patches.append(Patch(module, attr, value, patch.wrapper, patch.module, patch.qualname))
                else:
                    stale.append(f"{name}.{attr} (is {patch.module}.{patch.qualname})")
        if stale:
            warnings.warn(
                "autograph: these names were bound with `from ... import` before autograph was installed and "
                "still call the original, uncompiled function: " + ", ".join(sorted(stale)) + ". Install autograph "
                "before those imports (AUTOGRAPH_PACKAGES=... or `python -m autograph run`), or call the "
                "function through its module.",
                AliasWarning,
                stacklevel=4,
            )

    def unmatched_rules(self) -> list[str]:
        """Allow rules that selected no module imported so far (likely misspelt or never imported)."""
        names = [name for name, module in list(sys.modules.items()) if isinstance(module, types.ModuleType)]
        return [rule.text for rule in self.selection.allow
                if not any(rule.matches_module(name) and self.selection.selects_module(name) for name in names)]

    def uninstall(self) -> None:
        """Remove the finder and restore every original function."""
        global _active
        with _install_lock:
            if self.finder is not None:
                try:
                    sys.meta_path.remove(self.finder)
                except ValueError:
                    pass
                self.finder = None
            with self._lock:
                patches, self.patches = self.patches, []
            restored = restore_all(patches)
            log.debug("restored %d originals", restored)
            if _active is self:
                _active = None
                set_current_settings(self._previous_settings)

    def __enter__(self) -> "Installation":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.uninstall()

    def __repr__(self) -> str:
        state = "active" if self.active else "inactive"
        return f"<autograph Installation {state} {self.selection!r}, {len(self.patches)} functions wrapped>"


_install_lock = threading.RLock()
_active: Installation | None = None


def install(*rules: str, deny: Iterable[str] = (), settings: Settings | None = None) -> Installation:
    """Compile the selected packages from now on; returns the (context-manager) installation.

    ``rules`` and ``deny`` are appended to the allow/deny rules of ``settings``
    (default: the process settings, i.e. the environment and ``autograph.yaml``).
    ``install("mymodels")`` is the in-code twin of ``AUTOGRAPH_PACKAGES=mymodels``.
    """
    global _active
    try:
        allow = tuple(Rule.parse(r).text for r in rules)
        denied = tuple(Rule.parse(r).text for r in deny)
        for text in allow:
            check_allow_rule(Rule.parse(text))
        for text in denied:
            check_deny_rule(Rule.parse(text))
    except ValueError as exc:
        raise SettingsError(f"autograph.install: {exc}") from None
    with _install_lock:
        previous = _active
        if previous is not None:
            previous.uninstall()  # restores the settings that were in force before it
        prior = loaded_settings()
        base = settings if settings is not None else (prior if prior is not None else current_settings())
        if allow or denied:
            packages = base.packages.model_copy(
                update={
                    "allow": tuple(dict.fromkeys(base.packages.allow + allow)),
                    "deny": tuple(dict.fromkeys(base.packages.deny + denied)),
                }
            )
            base = base.model_copy(update={"packages": packages})
        installation = Installation(base, prior)
        set_current_settings(base)
        _active = installation
        if base.mode != "off" and installation.selection:
            installation._start()
        return installation


def uninstall() -> None:
    """Undo :func:`install`: remove the hook and restore every original function."""
    with _install_lock:
        if _active is not None:
            _active.uninstall()


def active_installation() -> Installation | None:
    """The installation in force, if any."""
    return _active
