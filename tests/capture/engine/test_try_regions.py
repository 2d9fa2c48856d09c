"""Tensor operations under a user's ``except`` run where the handler can catch them.

Fake tensors cannot predict every run-time error (memory overlap of in-place ops,
out-of-range tensor indices), so such an op must not move into a compiled graph that
runs outside the try block. ``with`` blocks and ``finally`` alone do not count: they
re-raise, so the error still reaches the caller with its type and message.
"""
import torch

import autograph


def _overlap_in_try(x):
    view = x.unsqueeze(0)
    try:
        view *= x  # eager: RuntimeError (input and output share memory)
        caught = False
    except RuntimeError:
        caught = True
    return x + 1, caught


def _index_in_try(x, idx):
    try:
        return x[idx] * 2
    except IndexError:
        return x.sum()


def _callee(x, idx):
    return x[idx] + 1


def _inlined_callee_in_try(x, idx):
    try:
        return _callee(x, idx)
    except IndexError:
        return x.sum()


def _finally_runs(x, idx, log):
    try:
        try:
            return x[idx] * 3
        finally:
            log.append("finally")
    except IndexError:
        log.append("caught")
        return x.sum()


def _with_in_try(x, idx):
    try:
        with torch.no_grad():
            y = x[idx] - 1
    except IndexError:
        y = x.sum()
    return y


def _with_only(x):
    with torch.no_grad():
        y = x.sin() * 2
    return y + 1


def _compiled(fn):
    return autograph.compile(fn, backend="eager")


def test_in_place_overlap_error_is_caught_like_eager():
    compiled = _compiled(_overlap_in_try)
    out, caught = compiled(torch.ones(3, 2))
    expected, expected_caught = _overlap_in_try(torch.ones(3, 2))
    assert caught is expected_caught is True
    assert torch.equal(out, expected)


def test_out_of_range_tensor_index_reaches_the_handler():
    compiled = _compiled(_index_in_try)
    x = torch.arange(4.0)
    assert torch.equal(compiled(x, torch.tensor([1])), _index_in_try(x, torch.tensor([1])))
    assert torch.equal(compiled(x, torch.tensor([9])), _index_in_try(x, torch.tensor([9])))


def test_callee_inlined_from_a_try_block_keeps_the_handler():
    compiled = _compiled(_inlined_callee_in_try)
    x = torch.arange(4.0)
    assert torch.equal(compiled(x, torch.tensor([9])), _inlined_callee_in_try(x, torch.tensor([9])))
    assert torch.equal(compiled(x, torch.tensor([2])), _inlined_callee_in_try(x, torch.tensor([2])))


def _finally_only(x):
    out = x
    try:
        out = x.sin() * 3
    finally:
        out = out + 1
    return out


def test_try_finally_alone_stays_in_one_graph():
    report = autograph.explain(_finally_only, torch.randn(3))
    assert report.graph_count == 1 and report.graph_break_count == 0
    compiled = _compiled(_finally_only)
    x = torch.randn(3)
    assert torch.equal(compiled(x), _finally_only(x))


def test_finally_inside_except_still_runs_when_the_op_raises():
    compiled = _compiled(_finally_runs)
    log = []
    out = compiled(torch.arange(4.0), torch.tensor([9]), log)
    assert log == ["finally", "caught"]
    assert torch.equal(out, torch.arange(4.0).sum())


def test_with_block_inside_try_is_still_covered():
    compiled = _compiled(_with_in_try)
    x = torch.arange(4.0)
    assert torch.equal(compiled(x, torch.tensor([9])), _with_in_try(x, torch.tensor([9])))


def test_ops_under_try_are_reported_as_a_break():
    report = autograph.explain(_index_in_try, torch.arange(4.0), torch.tensor([1]))
    assert report.graph_break_count >= 1
    assert "inside a try/except" in report.break_reasons[0].reason


def test_with_block_alone_stays_in_one_graph():
    report = autograph.explain(_with_only, torch.randn(3))
    assert report.graph_count == 1 and report.graph_break_count == 0


def _shape_ops_in_try(x):
    try:
        y = x.view(2, -1).expand(3, 2, -1)
        return y.amax(-1) + y.flip(0).cumsum(0).prod(-1), "ok"
    except RuntimeError as exc:
        return x, str(exc).split("\n")[0]


def test_ops_whose_errors_depend_on_sizes_only_stay_in_the_graph_under_try():
    """``view``/``expand``/``amax``/``flip``/``cumsum``/``prod`` raise only on sizes and dtypes, which
    the guards fix and the fake run already checked: no break under ``except``, and a size that
    makes ``view`` fail reaches the handler with eager's message."""
    compiled = _compiled(_shape_ops_in_try)
    for x in (torch.randn(6), torch.randn(5)):
        got, want = compiled(x), _shape_ops_in_try(x)
        assert torch.equal(got[0], want[0]) and got[1] == want[1], (got, want)
    report = autograph.explain(_shape_ops_in_try, torch.randn(6))
    assert report.graph_break_count == 0, report.break_reasons
