"""Effects before a graph operation that raises at run time happen, in order, as in plain Python.

Each program indexes a tensor with an index only the run can check; the second call is out of
range. Plain Python and the compiled function must leave the same world behind: lists, dicts,
attributes, nonlocals, function attributes, streams, warning filters, working directory.
"""
import contextlib
import io
import logging
import os
import sys
import tempfile
import warnings

import pytest
import torch

import autograph

X = torch.arange(4.0)
CALLS = (torch.tensor([1]), torch.tensor([7]), torch.tensor([2]), torch.tensor([9]))


def _run(fn, world, calls=CALLS):
    """Results (or exception type and text) and ``world()`` after each call."""
    out = []
    for idx in calls:
        try:
            result = fn(X, idx).tolist()
        except Exception as exc:  # noqa: BLE001 - the comparison is the point
            result = (type(exc).__name__, str(exc))
        out.append((result, world()))
    return out


def _same(make):
    """``make()`` -> (fn, world, reset): plain and compiled runs leave the same world."""
    fn, world, reset = make()
    reset()
    plain = _run(fn, world)
    fn, world, reset = make()
    reset()
    compiled = _run(autograph.compile(fn, backend="eager"), world)
    assert compiled == plain


class Box:
    pass


def test_list_append_before_the_error():
    log = []

    def make():
        def f(x, idx):
            log.append(len(log))
            return x[idx] + 1
        return f, lambda: list(log), log.clear
    _same(make)


def test_dict_store_before_the_error():
    d = {}

    def make():
        def f(x, idx):
            d["n"] = d.get("n", 0) + 1
            return x[idx] * 2
        return f, lambda: dict(d), d.clear
    _same(make)


def test_attribute_store_before_the_error():
    box = Box()

    def make():
        def f(x, idx):
            box.n = box.n + 1
            return x[idx] * 2
        return f, lambda: box.n, lambda: setattr(box, "n", 0)
    _same(make)


def test_nonlocal_and_function_attribute_before_the_error():
    def make():
        count = 0

        def f(x, idx):
            nonlocal count
            count += 1
            f.calls += 1
            return torch.gather(x, 0, idx) + 1
        f.calls = 0
        return f, lambda: (count, f.calls), lambda: None
    _same(make)


def test_effects_between_graph_operations():
    log = []

    def make():
        def f(x, idx):
            y = x * 2
            log.append("a")
            z = y[idx]
            log.append("b")
            return z + torch.nn.functional.embedding(idx, y.view(4, 1)).view(-1)
        return f, lambda: list(log), log.clear
    _same(make)


def _stream_world():
    return sys.stdout, sys.stderr


def test_redirect_stdout_exits():
    def make():
        def f(x, idx):
            with contextlib.redirect_stdout(io.StringIO()):
                y = x[idx]
            return y
        return f, _stream_world, lambda: None
    _same(make)


def test_redirect_stderr_exits():
    def make():
        def f(x, idx):
            with contextlib.redirect_stderr(io.StringIO()):
                y = x[idx] + 1
            return y
        return f, _stream_world, lambda: None
    _same(make)


def test_catch_warnings_filter_removed():
    def make():
        def f(x, idx):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                y = x[idx]
            return y
        return f, lambda: len(warnings.filters), lambda: None
    _same(make)


def test_chdir_restored():
    where = tempfile.mkdtemp()

    def make():
        def f(x, idx):
            with contextlib.chdir(where):
                y = x[idx]
            return y
        return f, os.getcwd, lambda: None
    _same(make)


def test_finally_restores_stdout():
    def make():
        def f(x, idx):
            old = sys.stdout
            sys.stdout = io.StringIO()
            try:
                y = x[idx]
            finally:
                sys.stdout = old
            return y
        return f, _stream_world, lambda: None
    _same(make)


class Entered:
    """A user context manager whose exit is seen by the world."""

    log: list = []

    def __enter__(self):
        Entered.log.append("enter")
        return self

    def __exit__(self, *exc):
        Entered.log.append(("exit", exc[0].__name__ if exc[0] else None))
        return False


def test_user_context_manager_entered_before_a_print_break(capsys):
    def make():
        def f(x, idx):
            with Entered():
                print("in block")
                y = x[idx] * 3
            return y
        return f, lambda: list(Entered.log), Entered.log.clear
    _same(make)


def test_user_context_manager_inside_a_loop():
    def make():
        def f(x, idx):
            total = x.sum()
            for k in range(2):
                with Entered():
                    total = total + x[idx + k]
            return total
        return f, lambda: list(Entered.log), Entered.log.clear
    _same(make)


def test_one_hot_and_cross_entropy_targets_after_a_store():
    box = Box()

    def make():
        def f(x, idx):
            box.n += 1
            logits = x.view(1, 4).expand(2, 4)
            loss = torch.nn.functional.cross_entropy(logits, idx.expand(2))
            box.n += 10
            return loss + torch.nn.functional.one_hot(idx, 4).sum()
        return f, lambda: box.n, lambda: setattr(box, "n", 0)
    _same(make)


def test_integer_division_by_zero_after_an_append():
    log = []

    def make():
        def f(x, idx):
            log.append(1)
            return (x.long() // (idx - idx.min())).float()
        return f, lambda: list(log), log.clear
    fn, world, reset = make()
    calls = (torch.tensor([1]), torch.tensor([0]))
    plain = _run(fn, world, calls)
    log.clear()
    fn, world, reset = make()
    assert _run(autograph.compile(fn, backend="eager"), world, calls) == plain


class _Handler(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


@pytest.fixture
def logger():
    lg = logging.getLogger("autograph.tests.effects_survive_errors")
    handler = _Handler()
    lg.addHandler(handler)
    lg.setLevel(logging.INFO)
    lg.propagate = False
    yield lg, handler
    lg.removeHandler(handler)


def test_logging_before_the_error(logger):
    lg, handler = logger

    def make():
        def f(x, idx):
            lg.info("call %d", 1)
            return x[idx]
        return f, lambda: list(handler.messages), handler.messages.clear
    _same(make)


def test_logging_sees_the_tensor_before_a_later_in_place_update(logger):
    lg, handler = logger

    def f(x):
        y = x * 2
        lg.info("y=%s", y)
        y.add_(100)
        return y, len(handler.messages)
    plain = f(torch.ones(2))
    expected = list(handler.messages)
    handler.messages.clear()
    cf = autograph.compile(f, backend="eager")
    for _ in range(2):
        handler.messages.clear()
        got = cf(torch.ones(2))
        assert got[1] == plain[1] and torch.equal(got[0], plain[0])
        assert handler.messages == expected


def test_logging_a_weight_before_its_in_place_update(logger):
    lg, handler = logger
    w = torch.nn.Parameter(torch.ones(2))

    def f(x):
        lg.info("w=%s", w.data)
        with torch.no_grad():
            w.mul_(3)
        return x * w
    w0 = w.detach().clone()
    f(torch.ones(2))
    expected = list(handler.messages)
    handler.messages.clear()
    with torch.no_grad():
        w.copy_(w0)
    autograph.compile(f, backend="eager")(torch.ones(2))
    assert handler.messages == expected


def test_no_split_when_nothing_is_pending():
    """Indexing with no effect pending and outside blocks stays one graph (no break)."""
    from autograph.explain.find import find_shim

    def f(x, idx):
        y = x * 2
        return y[idx] + torch.gather(y, 0, idx)
    cf = autograph.compile(f, backend="eager")
    cf(X, torch.tensor([1]))
    result = find_shim(cf).entries[0].result
    assert result.breaks == [] and len(result.graphs) == 1


def test_unused_index_still_raises():
    """An out-of-range index whose result is unused raises in eager: the graph keeps it."""
    log = []

    def make():
        def f(x, idx):
            log.append(1)
            x[idx]
            return x + 1
        return f, lambda: list(log), log.clear
    _same(make)


def test_grad_mode_switched_before_the_error_stays_switched():
    def g(x, idx):
        torch.set_grad_enabled(False)
        return x[idx]

    def run(fn):
        seen = []
        for idx in CALLS:
            torch.set_grad_enabled(True)
            try:
                fn(X, idx)
            except IndexError:
                pass
            seen.append(torch.is_grad_enabled())
        torch.set_grad_enabled(True)
        return seen
    assert run(autograph.compile(g, backend="eager")) == run(g)


def test_logging_a_numpy_array_before_it_changes_in_place(logger):
    lg, handler = logger

    def f(x):
        a = x.numpy()
        lg.info("a=%s", a)
        a += 5
        return x + 1
    f(torch.zeros(2))
    expected = list(handler.messages)
    handler.messages.clear()
    autograph.compile(f, backend="eager")(torch.zeros(2))
    assert handler.messages == expected


def test_logging_a_list_and_dict_before_they_change(logger):
    """A deferred logging call would format the containers as the capture leaves them."""
    lg, handler = logger

    def f(x):
        items, table = [1], {"a": 1}
        lg.info("items=%s table=%s", items, table)
        items.append(2)
        table["b"] = 2
        return x + len(items)
    f(torch.ones(1))
    expected = list(handler.messages)
    handler.messages.clear()
    autograph.compile(f, backend="eager")(torch.ones(1))
    assert handler.messages == expected


def test_one_hot_in_a_callee_inside_the_callers_block():
    """``one_hot``'s fake run checks nothing (it decomposes): judged by its name."""
    def inner(x, idx):
        return torch.nn.functional.one_hot(idx, 4) + x

    def make():
        def f(x, idx):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return inner(x * 2, idx)
        return f, lambda: len(warnings.filters), lambda: None
    _same(make)


class _Recording:
    """Stands for transformers' output-capturing state: set before the model runs, reset after."""
    active = False


def _hf_style_model():
    """A wrapper that stores state in a ``try/finally`` around a module embedding its input ids
    (the pattern of transformers' output-capturing decorators)."""
    state = _Recording()
    log = []
    emb = torch.nn.Embedding(10, 3)

    def forward(ids):
        state.active = True
        log.append("enter")
        try:
            return emb(ids.view(-1)) * 2
        finally:
            log.append("exit")
            state.active = False
    return forward, lambda: (list(log), state.active), log.clear


def test_hf_style_wrapper_is_one_graph_without_breaks():
    """The embedding of an input is pre-checked before the graph instead of splitting it."""
    from autograph.explain.find import find_shim
    forward, _, _ = _hf_style_model()
    cf = autograph.compile(forward, backend="eager")
    cf(torch.tensor([[1, 2], [3, 4]]))
    result = find_shim(cf).entries[0].result
    assert result.breaks == [] and len(result.graphs) == 1


def test_hf_style_wrapper_out_of_range_id_raises_as_in_eager_with_finally_and_effects():
    calls = [torch.tensor([[1, 2]]), torch.tensor([[1, 10]]), torch.tensor([[-1, 0]]),
             torch.zeros(0, 2, dtype=torch.long), torch.tensor([[9, 0]])]

    def run(fn, world):
        out = []
        for ids in calls:
            try:
                result = fn(ids).shape
            except Exception as exc:  # noqa: BLE001 - the comparison is the point
                result = (type(exc).__name__, str(exc))
            out.append((result, world()))
        return out
    forward, world, _ = _hf_style_model()
    plain = run(forward, world)
    forward, world, _ = _hf_style_model()
    compiled = run(autograph.compile(forward, backend="eager"), world)
    assert compiled == plain
    assert plain[1][0][0] == "IndexError" and plain[1][1] == (["enter", "exit"] * 2, False)


def test_index_computed_in_the_graph_still_splits():
    """No pre-check can see an index the graph computes: the op runs in Python after a split."""
    from autograph.explain.find import find_shim
    log = []

    def make():
        def f(x, idx):
            log.append(1)
            return x[idx + 0]
        return f, lambda: list(log), log.clear
    _same(make)
    cf = autograph.compile(make()[0], backend="eager")
    cf(X, torch.tensor([1]))
    kinds = [b.kind for b in find_shim(cf).entries[0].result.breaks]
    assert kinds == ["effects-before-run-time-error"]


def test_cross_entropy_targets_under_inference_mode():
    """Under inference mode a dispatch mode sees ``cross_entropy_loss`` whole (not ``nll_loss``):
    it is value-checked too."""
    log = []

    def make():
        def f(x, idx):
            log.append(1)
            with torch.inference_mode():
                return torch.nn.functional.cross_entropy(x.view(1, 4), idx).view(1) + x
        return f, lambda: list(log), log.clear
    _same(make)
