import pytest
import torch

from autograph.testing.compare import flatten, same
from autograph.testing.models import NAMES, build


def test_equal_nested_structures_match():
    a = {"x": torch.ones(2), "y": (torch.zeros(3), 4)}
    assert same(a, {"x": torch.ones(2), "y": (torch.zeros(3), 4)})[0]


def test_value_difference_is_reported_with_leaf_index():
    ok, why = same((torch.ones(2), torch.ones(2)), (torch.ones(2), torch.ones(2) * 2))
    assert not ok and "leaf 1" in why


def test_shape_and_dtype_differences_fail():
    assert not same(torch.ones(2), torch.ones(3))[0]
    assert not same(torch.ones(2), torch.ones(2, dtype=torch.float64))[0]


def test_python_leaves_compared_by_equality():
    assert not same([1, 2], [1, 3])[0]
    assert not same([1, 2], [1, 2, 3])[0]


def test_rmse_against_fp64_reference_accepts_rounding_noise():
    torch.manual_seed(0)
    x = torch.randn(1000, dtype=torch.float64)
    ref = x.sin()
    eager = x.float().sin() + 1e-3 * torch.randn(1000)
    compiled = x.float().sin() + 1e-3 * torch.randn(1000)
    assert not same(eager, compiled)[0]
    assert same(eager, compiled, reference=ref)[0]
    assert not same(eager, compiled + 1.0, reference=ref)[0]


def test_objects_holding_tensors_are_compared_by_state():
    class Holder:
        def __init__(self, t):
            self.t = t

    assert same(Holder(torch.ones(2)), Holder(torch.ones(2)))[0]
    assert not same(Holder(torch.ones(2)), Holder(torch.zeros(2)))[0]
    assert flatten(Holder(torch.ones(1)))[0] == "Holder"


@pytest.mark.parametrize("name", NAMES)
def test_model_zoo_builds_deterministic_models(name):
    pytest.importorskip("transformers") if name != "cnn" else None
    first, inputs = build(name, seed=1)
    second, _ = build(name, seed=1)
    first.eval(), second.eval()
    with torch.no_grad():
        assert same(first(**inputs), second(**inputs))[0]


def test_unknown_model_name_lists_known_ones():
    with pytest.raises(KeyError, match="gpt2"):
        build("nope")
