"""tests/dynamic: triton runs in interpreter mode (set for the whole suite in tests/conftest.py)."""
from __future__ import annotations

import pytest

import autograph
from autograph.settings import Settings, set_current_settings


@pytest.fixture
def eager_settings():
    """A clean autograph with the eager backend for the test, nothing left behind after it."""
    set_current_settings(Settings(backend="eager"))
    autograph.reset()
    yield
    autograph.reset()
    set_current_settings(None)
