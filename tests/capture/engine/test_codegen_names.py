"""The generated entry source binds resume functions and graphs under their real names."""
import re

import torch

from tests.capture.harness import Harness


def toy_example(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def loop(x):
    n = 0
    while x.sum() > 0 and n < 4:
        x = x - 0.3
        n += 1
    return x * n


def test_raw_transformed_source_names_graphs_and_resumes():
    h = Harness()
    f = h.compile(toy_example)
    a, b = torch.ones(4), -torch.ones(4)
    torch.testing.assert_close(f(a, b), toy_example(a, b))
    result = h.results[0]
    src = result.transformed_source
    graph = result.graphs[0].name
    assert re.fullmatch(r"__compiled_fn_\d+", graph) and f"__out = {graph}(a, b)" in src
    names = [r.name for r in result.resumes]
    assert len(names) == 2 and all(re.fullmatch(r"__resume_at_\d+_\d+", n) for n in names)
    for name, record in zip(names, result.resumes):
        assert f"return {name}(" in src
        assert result.fn.__globals__[name] is record.function  # the name is what runs
    assert not re.search(r"\b__c\d+\b", src)


def test_a_resume_that_calls_itself_keeps_calling_the_resume_not_its_entry():
    """A loop's resume entry is named like the resume it calls; the call must go through the resume."""
    h = Harness()
    f = h.compile(loop)
    for make in (lambda: torch.full((3,), 5.0), lambda: torch.full((3,), 0.4), lambda: -torch.ones(3)):
        x = make()
        torch.testing.assert_close(f(x.clone()), loop(x.clone()))
