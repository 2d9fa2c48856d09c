"""Explain tests start from an empty runtime (no cache entries, no statistics) and restore logging."""
import pytest


@pytest.fixture(autouse=True)
def _fresh_runtime():
    import autograph

    autograph.reset()
    yield
    from autograph.explain import events

    events.deactivate()
    autograph.reset()
