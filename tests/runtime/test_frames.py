"""What a user observes of frames through a compiled call is what plain Python shows
(autograph/runtime/frames.py): ``sys._getframe``, ``inspect.stack()``, ``warnings.warn``'s
``stacklevel`` and tracebacks, on the capturing call, on hits, and after a graph break."""
from __future__ import annotations

import inspect
import sys
import traceback
import warnings

import pytest
import torch

import autograph
from autograph.runtime import frames


@pytest.fixture(autouse=True)
def _fresh():
    autograph.reset()
    yield
    autograph.reset()


# ---------------------------------------------------------------- callees reading their callers

def callers(depth):
    """(function name, line) of the ``depth`` frames above the caller's."""
    frame, seen = sys._getframe(1), []
    for _ in range(depth):
        seen.append((frame.f_code.co_name, frame.f_lineno))
        frame = frame.f_back
    return seen


def stack_names():
    return [(info.function, info.lineno) for info in inspect.stack()[1:4]]


# Each callee breaks the graph first (a data-dependent branch): its caller, compiled, calls it at
# a break and stays compiled (a frame read met while inlining would make the caller run as Python).

def callers_after_a_branch(x, depth):
    if x.sum() > 0:
        x = x + 1
    return x, callers(depth)


def stack_after_a_branch(x):
    if x.sum() > 0:
        x = x + 1
    return x, stack_names()


def warn_after_a_branch(x, level):
    if x.sum() > 0:
        x = x + 1
    warnings.warn("careful", UserWarning, stacklevel=level)
    return x


def fails_after_a_branch(x):
    if x.sum() > 0:
        x = x + 1
    return int("not a number") + x


# ---------------------------------------------------------------- compiled functions

def reads_at_a_break(x):
    y = x * 2
    y, seen = callers_after_a_branch(y, 3)
    return y + 1, seen


def reads_after_a_break(x):
    y = x * 2
    if y.sum() > 0:
        y = y + 1
    y, seen = callers_after_a_branch(y, 3)
    return y, seen


def reads_itself_after_a_break(x):
    y = x * 2
    if y.sum() > 0:
        y = y + 1
    seen = callers(2)
    return y, seen


def stack_at_a_break(x):
    y = x * 2
    y, names = stack_after_a_branch(y)
    return y - 1, names


def warns(x, level):
    y = x + 1
    y = warn_after_a_branch(y, level)
    return y * 2


def warns_after_a_break(x, level):
    y = x + 1
    if y.sum() > 0:
        y = y * 3
    y = warn_after_a_branch(y, level)
    return y


def index_in_graph(x, i):
    y = x * 2
    return y[i]


def index_after_a_break(x, i):
    y = x * 2
    if y.sum() > 0:
        y = y + 1
    return y[i]


def fails_in_a_callee(x):
    y = x * 2
    return fails_after_a_branch(y)


def fails_after_a_break(x):
    y = x * 2
    if y.sum() > 0:
        y = y + 1
    return fails_after_a_branch(y)


class _WithLinear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 2)


def submodule_fails_before_a_break(m, x):
    h = m.lin(x)  # the call breaks: the resume function runs it, as it is, from the user's line
    print(end="")
    return h


# ---------------------------------------------------------------- plain versus compiled

def call_through(fn, *args):
    """``fn(*args)`` as a user calls it, with what the call left: its result, the warnings it
    issued (file, line) and, when it raised, the traceback from here down (name, line, text)."""
    with warnings.catch_warnings(record=True) as issued:
        warnings.simplefilter("always")
        try:
            out = fn(*args)
        except Exception as exc:  # noqa: BLE001 - the traceback is the point
            tb = exc.__traceback__
            out = (type(exc).__name__, [(f.name, f.lineno, f.line) for f in traceback.extract_tb(tb)], tb.tb_lineno)
    out = [o.tolist() if isinstance(o, torch.Tensor) else o for o in (out if isinstance(out, tuple) else (out,))]
    return out, [(w.filename, w.lineno) for w in issued]


def plain_and_compiled(fn, *args, calls=3):
    plain = [call_through(fn, *args) for _ in range(calls)]
    compiled = autograph.compile(fn)
    got = [call_through(compiled, *args) for _ in range(calls)]  # capture, then hits
    assert compiled.entries, "nothing was compiled: the test would not test anything"
    return plain, got


@pytest.mark.parametrize("fn", [reads_at_a_break, reads_after_a_break, reads_itself_after_a_break])
def test_sys_getframe_in_a_callee_sees_the_users_frames(fn):
    plain, got = plain_and_compiled(fn, torch.ones(3))
    assert got == plain
    names = [name for name, _ in plain[0][0][1]]
    assert names[-2:] == [fn.__name__, "call_through"]


def test_inspect_stack_names_the_users_functions():
    plain, got = plain_and_compiled(stack_at_a_break, torch.ones(3))
    assert got == plain
    assert [name for name, _ in plain[0][0][1]] == ["stack_after_a_branch", "stack_at_a_break", "call_through"]


@pytest.mark.parametrize("fn", [warns, warns_after_a_break])
@pytest.mark.parametrize("level", [1, 2, 3])
def test_warnings_stacklevel_names_the_users_file_and_line(fn, level):
    plain, got = plain_and_compiled(fn, torch.ones(2), level)
    assert got == plain
    assert all(filename == __file__ for _, issued in got for filename, _ in issued)


@pytest.mark.parametrize("fn,args", [
    (index_in_graph, (torch.arange(3.0), torch.tensor([7]))),  # raised by the graph
    (index_in_graph, (torch.arange(3.0), 7)),                  # raised where the graph breaks
    (index_after_a_break, (torch.arange(3.0), torch.tensor([7]))),
    (fails_in_a_callee, (torch.ones(2),)),
    (fails_after_a_break, (torch.ones(2),)),
    (submodule_fails_before_a_break, (_WithLinear(), torch.ones(2, 4))),
])
def test_a_traceback_through_a_compiled_call_is_the_plain_one(fn, args):
    plain, got = plain_and_compiled(fn, *args)
    assert got == plain
    names = [name for name, _, _ in plain[0][0][1]]
    assert names[:2] == ["call_through", fn.__name__]
    assert len(names) == len({name for name in names})  # one frame per function


def test_an_error_raised_inside_autograph_keeps_every_frame():
    code = compile("def boom():\n    raise RuntimeError('inside')\n", "autograph_internal.py", "exec")
    namespace = {"__name__": "autograph.runtime.fake"}
    exec(code, namespace)
    try:
        namespace["boom"]()
    except RuntimeError as exc:
        before = [f.name for f in traceback.extract_tb(exc.__traceback__)]
        frames.clean_traceback(exc)
        assert [f.name for f in traceback.extract_tb(exc.__traceback__)] == before == [
            "test_an_error_raised_inside_autograph_keeps_every_frame", "boom"]


def test_a_tail_call_runs_after_the_entry_returned():
    seen = []

    def resume(a, b):
        seen.append(sys._getframe(1).f_code.co_name)
        return a + b

    assert frames.finish_tail(frames.TailCall(resume, 1, 2)) == 3
    assert frames.finish_tail(5) == 5
    assert seen == ["finish_tail"]


def test_a_tail_call_is_not_held_by_the_frame_its_call_raised_in():
    """A TailCall is not tracked by the GC (native/hit_path.c), so no frame a traceback keeps may
    hold one: ``finish_tail`` lets it go before calling (a cycle through it would never be freed)."""
    import gc

    def resume(a):
        raise ValueError(a)

    try:
        frames.finish_tail(frames.TailCall(resume, 1))
    except ValueError as exc:
        held = [frame.f_locals for frame, _ in traceback.walk_tb(exc.__traceback__)]
    assert not any(type(v) is frames.TailCall for f_locals in held for v in f_locals.values())
    if frames.TailCall.__module__ == "autograph._native":
        assert not gc.is_tracked(frames.TailCall(resume, 1))


def test_a_tail_call_holds_its_arguments_and_lets_them_go():
    """TailCalls of every arity (kept ones reused) keep their arguments and release each once."""
    class Arg:
        pass

    items = [Arg() for _ in range(12)]
    before = [sys.getrefcount(i) for i in items]
    for round_ in range(3):
        for n in range(len(items) + 1):
            tail = frames.TailCall(tuple, *items[:n])
            assert tail.fn is tuple and tail.args == tuple(items[:n])
            del tail
        made = [frames.TailCall(len, *items[:n]) for n in (0, 3, 8, 9, 12)]
        assert [t.args for t in made] == [tuple(items[:n]) for n in (0, 3, 8, 9, 12)]
        del made
    assert [sys.getrefcount(i) for i in items] == before
    assert frames.finish_tail(frames.TailCall(lambda *a: len(a), *items)) == 12


def test_frames_stay_the_users_after_a_torch_compile_region_raised():
    """Dynamo's frame evaluator stays installed after an error left a torch.compile region (no
    region is active then): compiled calls still run without autograph's frames between."""
    import torch._dynamo

    def bad_view(x):
        return x.view(-1, 7)

    try:
        with pytest.raises(Exception, match="invalid"):
            torch.compile(bad_view, backend="eager")(torch.ones(3, 4))
        plain, got = plain_and_compiled(reads_at_a_break, torch.ones(3))
        assert got == plain
    finally:
        torch._dynamo.reset()
