"""Exceptions users see. Each message says what went wrong, where, and what to do."""
from __future__ import annotations


class AutographError(Exception):
    """Base class of every error autograph raises on its own behalf."""


class SettingsError(AutographError):
    """Invalid settings: bad YAML, unknown key, wrong type, bad rule, unknown backend."""


class CaptureError(AutographError):
    """Capture or compilation failed and ``on_error: raise`` is set.

    ``filename``/``lineno`` point at the user's source line being captured.
    """

    def __init__(self, message: str, filename: str | None = None, lineno: int | None = None):
        self.filename = filename
        self.lineno = lineno
        where = f"{filename}:{lineno}: " if filename and lineno else ""
        super().__init__(where + message)


class BackendError(AutographError):
    """A backend raised or returned something that is not callable."""
