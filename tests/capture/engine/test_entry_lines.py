"""The entry is compiled once and placed at the user's lines (codegen.build_entry): the shim's
tail-calling twin and the plain entry are one code but for the global they call resumes through,
every code unit claims a user's line of the original, and both run as the original does."""
from __future__ import annotations

import inspect
import types

import torch

from autograph.capture.engine import codegen
from autograph.runtime.frames import TailCall
from tests.capture.harness import Harness


def branchy(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def with_a_comprehension(a, n):
    scale = [float(i) for i in range(n)]
    y = a * sum(scale)
    if y.sum() > 0:
        return y + 1
    return y - 1


def _codes(code: types.CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _user_lines(fn) -> set[int]:
    lines, first = inspect.getsourcelines(fn)
    return set(range(first, first + len(lines)))


def _entry_with_twin(fn, *args):
    h = Harness()
    h.compile(fn)(*args)
    result = next(r for r in h.results if getattr(r.fn, "__autograph_tail__", None) is not None)
    return result, result.fn, result.fn.__autograph_tail__


def test_plain_entry_is_the_twin_calling_resumes_directly():
    a, b = torch.randn(5), -torch.rand(5) - 0.1
    _, entry, twin = _entry_with_twin(branchy, a, b)
    plain, tail = entry.__code__, twin.__code__
    assert plain.co_code == tail.co_code and plain.co_linetable == tail.co_linetable
    assert [n for n in plain.co_names if n not in tail.co_names] == [codegen._PLAIN_CALL]
    assert [n for n in tail.co_names if n not in plain.co_names] == [codegen._TAIL_CALL]
    assert plain.co_name == tail.co_name == "branchy" and plain.co_firstlineno == branchy.__code__.co_firstlineno
    # the plain entry, called directly, runs the resume itself; the twin leaves it to its caller
    torch.testing.assert_close(entry(a, b), branchy(a, b))
    assert type(twin(a, b)) is TailCall
    assert (entry.__name__, entry.__qualname__, entry.__defaults__) == (twin.__name__, twin.__qualname__,
                                                                           twin.__defaults__)


def test_every_position_is_a_whole_user_line():
    """Every code unit of the entry (and of code nested in it) is at a line of the original
    function, spanning its whole text, or has no location; the ``def`` line holds only RESUME."""
    for fn, args in ((branchy, (torch.randn(5), -torch.rand(5) - 0.1)), (with_a_comprehension, (torch.ones(3), 3))):
        h = Harness()
        h.compile(fn)(*args)
        lines = _user_lines(fn)
        source_lines = inspect.getsourcefile(fn)
        text = open(source_lines).read().splitlines()
        for result in h.results:
            for code in _codes(result.fn.__code__):
                assert code.co_filename == fn.__code__.co_filename
                for line, end, column, end_column in code.co_positions():
                    if line is None:
                        continue
                    assert line in lines and end == line, (code.co_name, line)
                    if (column, end_column) != (0, 0):
                        assert (column, end_column) == (0, len(text[line - 1].rstrip()))


def test_a_name_the_user_code_reads_compiles_both_texts(monkeypatch):
    """When the generated text already reads the plain entry's call name, the plain entry is
    compiled from its own text (calling resumes directly), still right."""
    monkeypatch.setattr(codegen, "_PLAIN_CALL", "__out")  # a name every entry text with a graph has
    a, b = torch.randn(5), -torch.rand(5) - 0.1
    _, entry, twin = _entry_with_twin(branchy, a, b)
    assert "__out" not in entry.__code__.co_names and entry.__code__.co_code != twin.__code__.co_code
    assert codegen._TAIL_CALL not in entry.__code__.co_names and codegen._TAIL_CALL in twin.__code__.co_names
    assert entry.__code__.co_firstlineno == twin.__code__.co_firstlineno
    assert list(entry.__code__.co_lines())[-1][2] == list(twin.__code__.co_lines())[-1][2]
    torch.testing.assert_close(entry(a, b), branchy(a, b))


def test_a_tail_call_is_made_alike_however_it_is_called():
    """``TailCall(fn, *args)`` as the entry's bytecode calls it (the C type's vectorcall) and
    through ``type.__call__`` (its ``tp_new``) holds the same call, and refuses the same misuse."""
    def resume(a, b):
        return a + b

    made = [TailCall(resume, 1, 2), type.__call__(TailCall, resume, 1, 2), TailCall(*(resume, 1, 2))]
    assert all(type(t) is TailCall and t.fn is resume and t.args == (1, 2) for t in made)
    assert TailCall(resume).args == ()
    for bad in (lambda: TailCall(), lambda: TailCall(resume, b=2), lambda: type.__call__(TailCall, resume, b=2)):
        try:
            bad()
        except TypeError:
            continue
        raise AssertionError("accepted")
