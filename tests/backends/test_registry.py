"""The backend registry: spec -> backend, and failures -> BackendError."""
from __future__ import annotations

import pytest
import torch

from autograph.backends import registry
from autograph.errors import BackendError, SettingsError


def _graph():
    def f(x, y):
        return torch.sin(x) + y * 2

    return torch.fx.symbolic_trace(f)


def test_eager_runs_generated_code_without_module_call():
    gm = _graph()
    x, y = torch.randn(4), torch.randn(4)
    compiled = registry.lookup("eager")(gm, [x, y])
    torch.testing.assert_close(compiled(x, y), torch.sin(x) + y * 2)
    assert compiled == gm.forward  # bound method of the generated code


def test_auto_is_eager_now_inductor_in_the_background_on_cpu():
    assert registry.lookup("auto", device_hint="cpu").backend_name == "background"


def test_auto_is_triton_when_cuda_hinted():
    assert registry.lookup("auto", device_hint="cuda").backend_name == "triton"


def test_callable_returned_as_is():
    seen = []

    def mine(gm, inputs):
        seen.append(len(inputs))
        return gm.forward

    backend = registry.lookup(mine)
    assert backend.__wrapped__ is mine
    backend(_graph(), [torch.zeros(1), torch.zeros(1)])
    assert seen == [2]


def test_module_function_spec():
    backend = registry.lookup("autograph.backends.eager:eager")
    gm = _graph()
    assert backend(gm, []) == gm.forward


@pytest.mark.parametrize("spec", ["no_such_module_xyz:fn", "autograph.backends.eager:missing", "torch:__version__"])
def test_bad_import_path_is_settings_error(spec):
    with pytest.raises(SettingsError, match=spec.split(":")[0]):
        registry.lookup(spec)


def test_unknown_name_lists_choices():
    with pytest.raises(SettingsError, match="eager"):
        registry.lookup("nonsense")


def test_raising_backend_becomes_backend_error_with_cause():
    def broken(gm, inputs):
        raise ValueError("boom")

    with pytest.raises(BackendError, match="boom") as info:
        registry.lookup(broken)(_graph(), [])
    assert isinstance(info.value.__cause__, ValueError)


def test_non_callable_result_is_backend_error():
    with pytest.raises(BackendError, match="not a callable"):
        registry.lookup(lambda gm, inputs: 42)(_graph(), [])


def test_register_backend_by_name():
    registry.register_backend("test_named", lambda gm, inputs: gm.forward)
    try:
        assert registry.lookup("test_named").backend_name == "test_named"
    finally:
        registry._REGISTRY.pop("test_named")


def test_inductor_resolves_lazily():
    backend = registry.lookup("inductor")
    from autograph.backends.inductor import inductor

    assert backend.__wrapped__ is inductor
