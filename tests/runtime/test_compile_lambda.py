"""A lambda compiles like any function (its name "<lambda>" is not an identifier)."""
import torch

import autograph


def test_lambda_is_captured_and_matches_eager():
    fn = lambda x: torch.sin(x) + 1  # noqa: E731 - the point of the test
    compiled = autograph.compile(fn)
    x = torch.randn(4)
    for _ in range(2):
        assert torch.equal(compiled(x), fn(x))
    assert compiled.stats.captures == 1 and not compiled.stats.errors
    assert len(compiled.entries) == 1
