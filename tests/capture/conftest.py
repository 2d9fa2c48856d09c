"""Capture tests run the interpreter in debug mode: every handler's stack change is checked."""
import importlib.util

import pytest


@pytest.fixture(autouse=True)
def _check_stack_effects(monkeypatch):
    if importlib.util.find_spec("torch") is None:  # torch-free tests (instructions) under 3.12
        yield
        return
    import autograph.capture.engine.interpreter as interp
    monkeypatch.setattr(interp, "CHECK_STACK_EFFECTS", True)
    yield
