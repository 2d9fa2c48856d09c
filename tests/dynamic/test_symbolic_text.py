"""Text made from a Python int that became symbolic (automatic dynamic) says the run's value,
never the symbol's name (fuzz-found: ``'{}/{}'.format(s, n)`` returned 's/s9')."""
from __future__ import annotations

import pytest
import torch

import autograph


@pytest.mark.parametrize("make_text", [
    lambda n: "{}/{}".format("a", n),
    lambda n: f"{n}",
    lambda n: "%d" % n,
    lambda n: "-".join([str(n), "x"]),
    lambda n: "abc"[n % 3],
], ids=["str.format", "f-string", "percent", "join-of-str", "index"])
def test_text_of_a_changing_int_matches_eager(make_text):
    def fn(x, n):
        return x + 1, make_text(n)

    compiled = autograph.compile(fn, backend="eager")
    for n in (1, 2, 4, 5):  # the second value makes n symbolic
        assert compiled(torch.ones(1), n)[1] == fn(torch.ones(1), n)[1]
