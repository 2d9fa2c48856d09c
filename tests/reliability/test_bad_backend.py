"""A backend that raises or returns garbage: eager fallback with the error reported, or CaptureError."""
from __future__ import annotations

import pytest
import torch

import autograph
from autograph.errors import CaptureError
from autograph.runtime import stats


def _step(x):
    return (x + 1).tanh() * 2


def raising_backend(gm, example_inputs):
    raise ValueError("backend exploded on purpose")


def garbage_backend(gm, example_inputs):
    return 42  # not callable


def _only_stats():
    [st] = [s for s in stats.all_stats() if s.qualname == "_step"]
    return st


@pytest.mark.parametrize("backend,cause", [(raising_backend, "backend exploded on purpose"),
                                           (garbage_backend, "int")])
def test_bad_backend_falls_back_to_eager_and_reports(eager_settings, backend, cause):
    fn = autograph.compile(_step, backend=backend)
    for _ in range(3):
        x = torch.randn(5)
        torch.testing.assert_close(fn(x), _step(x))
    st = _only_stats()
    assert st.errors and cause in st.errors[0], st.errors
    assert st.eager_reason and "capture failed" in st.eager_reason
    assert st.calls == 3 and st.eager_calls == 3
    assert "errors" in st.as_dict() and st.as_dict()["errors"] == st.errors  # what the report shows


@pytest.mark.parametrize("backend,cause", [(raising_backend, "backend exploded on purpose"),
                                           (garbage_backend, "int")])
def test_bad_backend_raises_capture_error_under_on_error_raise(eager_settings, backend, cause):
    eager_settings(on_error="raise")
    fn = autograph.compile(_step, backend=backend)
    with pytest.raises(CaptureError) as info:
        fn(torch.randn(5))
    chain = f"{info.value} {info.value.__cause__!r} {getattr(info.value.__cause__, '__cause__', None)!r}"
    assert cause in chain, chain
