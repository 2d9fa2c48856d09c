"""Capture tests run the interpreter in debug mode: every handler's stack change is checked."""
import pytest


@pytest.fixture(autouse=True)
def _check_stack_effects(monkeypatch):
    import autograph.capture.interpreter as interp
    monkeypatch.setattr(interp, "CHECK_STACK_EFFECTS", True)
    yield
