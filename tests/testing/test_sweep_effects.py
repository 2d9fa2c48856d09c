"""The effects sweep writes functions that read back what their effect did (issue 25 E).

A logging call deferred past the rest of the function ran its handler too late: the function's
own ``len(HANDLER.messages)`` counted the records before the call. The generator only
returned the tensor, ``STATE.n`` and ``len(items)``, so it could not see that.
"""
from __future__ import annotations

from autograph.testing.sweeps import effects, runner


def test_every_effect_is_read_back_by_the_function():
    assert set(effects.READ_BACK) == set(effects.EFFECTS)
    for effect, read_back in effects.READ_BACK.items():
        source = effects._function(effect, "int", "graph_break", None)
        assert source.rstrip().splitlines()[-1].endswith(read_back)


def test_a_handler_read_back_after_a_logging_call_is_the_same_compiled():
    case = next(c for c in effects.cases(0) if c.name.startswith("effects:logging:") and
                c.name.endswith(":mutate_graph_tensor"))
    outcome = runner.check_case(case)
    assert outcome.error is None, outcome.error
    assert outcome.difference is None, outcome.difference
