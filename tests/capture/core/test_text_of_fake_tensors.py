"""Text computed from a graph tensor during capture shows the fake, never the run's values: it
is never folded into the program (issue 25 class F, issue 24 item 3); the formatting runs in
Python on the real tensor."""
from __future__ import annotations

import pytest
import torch

import autograph

FORMATS = {
    "percent": lambda y: "loss %s" % y.sum(),
    "percent-tuple": lambda y: "loss %s" % (y.sum(),),
    "percent-repr": lambda y: "%r" % y,
    "percent-two": lambda y: "%s|%s" % (y, 3),
    "dunder-repr": lambda y: y.__repr__(),
    "dunder-format": lambda y: y.__format__(""),
    "format": lambda y: format(y),
    "str": lambda y: str(y.sum()),
    "str-format": lambda y: "{:}".format(y),
}


@pytest.mark.parametrize("make_text", list(FORMATS.values()), ids=list(FORMATS))
def test_text_of_a_graph_tensor_says_its_values(make_text):
    def fn(x, log):
        y = x * 2
        log.append(make_text(y))
        return y + 1

    compiled = autograph.compile(fn, backend="eager")
    for i in range(3):
        got_log, expected_log = [], []
        got, expected = compiled(torch.ones(2) * i, got_log), fn(torch.ones(2) * i, expected_log)
        assert torch.equal(got, expected)
        assert got_log == expected_log
        assert "Fake" not in got_log[0]
