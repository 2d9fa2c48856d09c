"""Exception state CPython sets implicitly, modelled during capture (families/exception_state.py):
``__context__`` chaining (with its cycle breaking), ``raise ... from``, the handled exception seen
by ``sys.exc_info()`` and a bare ``raise``, and exception classes with a Python ``__init__``."""
from __future__ import annotations

import sys

import torch

from tests.capture.checks import check
from tests.capture.harness import Harness


def _x():
    return (torch.randn(3),)


def context_in_except(x):
    try:
        try:
            raise ValueError(1)
        except ValueError:
            raise TypeError(2)
    except TypeError as e:
        got = (type(e.__context__), e.__context__.args, e.__suppress_context__, e.__cause__)
    return x + 1, got


def context_in_finally(x):
    try:
        try:
            raise ValueError(1)
        finally:
            raise TypeError(2)
    except TypeError as e:
        got = (type(e.__context__), e.__context__.args)
    return x + 1, got


def raise_from(x):
    try:
        raise TypeError(2) from ValueError(3)
    except TypeError as e:
        got = (type(e.__cause__), e.__cause__.args, e.__suppress_context__, e.__context__)
    return x + 1, got


def from_none_keeps_the_context(x):
    try:
        try:
            {}["k"]
        except KeyError:
            raise ValueError("v") from None
    except ValueError as e:
        got = (type(e.__context__), e.__context__.args, e.__cause__, e.__suppress_context__)
    return x + 1, got


def reraise_breaks_the_cycle(x):
    try:
        raise ValueError(1)
    except ValueError as a:
        try:
            raise TypeError(2)
        except TypeError as b:
            try:
                raise a
            except ValueError as c:
                got = (c is a, a.__context__ is b, b.__context__)
    return x + 1, got


def bare_raise(x):
    try:
        try:
            _ = 1 / 0
        except ZeroDivisionError:
            for cls in (KeyError, IndexError):
                try:
                    raise cls
                except cls as inner:
                    assert isinstance(inner.__context__, ZeroDivisionError)
            raise
    except ZeroDivisionError as e:
        got = (e.args, e.__context__)
    return x + 1, got


def exc_info_inside_and_after(x):
    before = sys.exc_info()
    try:
        raise ValueError(5)
    except ValueError as e:
        inside = sys.exc_info()[:2]
        same = inside[1] is e and sys.exception() is e
    return x + 1, before, inside[0], inside[1].args, same, sys.exc_info(), sys.exception()


def assign_context_and_cause(x):
    e = TypeError(1)
    e.__context__ = ValueError(2)
    e.__cause__ = KeyError(3)
    first = e.__suppress_context__
    e.__suppress_context__ = False
    return x + 1, e.__context__.args, e.__cause__.args, first, e.__suppress_context__


def assign_a_bad_cause(x):
    e = TypeError(1)
    try:
        e.__cause__ = 3
    except TypeError as err:
        return x + 1, str(err)
    return x


class WithArgs(Exception):
    def __init__(self, a, b=None):
        self.a = a
        self.b = b


class WithMessage(ValueError):
    def __init__(self, a, b):
        super().__init__(f"{a}-{b}")
        self.total = a + b


def custom_init(x):
    try:
        raise WithArgs(2, b=3)
    except ValueError:
        return x
    except WithArgs as e:
        got = (e.args, e.a, e.b, str(e))
    return x + 1, got


def custom_init_super(x):
    try:
        raise WithMessage(1, 2)
    except ValueError as e:
        got = (e.args, e.total, str(e))
    return x + 1, got


def custom_init_returned(x):
    return x + 1, WithMessage(3, 4)


def escapes_with_context(x):
    y = x + 1
    try:
        {}["k"]
    except KeyError:
        raise ValueError(y.shape)


def escapes_with_cause(x):
    y = x + 1
    raise TypeError(len(y)) from KeyError("cause")


def reads_traceback(x):
    try:
        raise ValueError(1)
    except ValueError as e:
        tb = e.__traceback__ is None
    return x + 1, tb


def reads_context_outside_handlers(x):
    try:
        raise ValueError(1)
    except ValueError as e:
        got = (type(e.__context__), e.__suppress_context__ is False)
    return x + 1, got


def returns_caught(x):
    try:
        raise ValueError(1)
    except ValueError as e:
        return x + 1, e


def test_context_is_set_in_an_except_block():
    assert check(context_in_except, _x).breaks == []


def test_context_is_set_in_a_finally_reached_by_an_exception():
    assert check(context_in_finally, _x).breaks == []


def test_raise_from_sets_cause_and_suppress_context():
    assert check(raise_from, _x).breaks == []


def test_raise_from_none_keeps_the_context_of_a_folded_key_error():
    assert check(from_none_keeps_the_context, _x).breaks == []


def test_raising_the_handled_ones_context_breaks_the_cycle():
    assert check(reraise_breaks_the_cycle, _x).breaks == []


def test_bare_raise_reraises_the_handled_exception_after_inner_handlers():
    assert check(bare_raise, _x).breaks == []


def test_sys_exc_info_inside_and_after_a_handler():
    assert check(exc_info_inside_and_after, _x).breaks == []


def test_assigning_context_cause_and_suppress_context():
    assert check(assign_context_and_cause, _x).breaks == []


def test_assigning_a_non_exception_cause_raises_pythons_type_error():
    assert check(assign_a_bad_cause, _x).breaks == []


def test_exception_with_a_python_init_is_constructed_in_capture():
    assert check(custom_init, _x).breaks == []


def test_exception_init_calling_super_init_sets_args():
    assert check(custom_init_super, _x).breaks == []


def test_exception_with_a_python_init_is_made_anew_on_every_call():
    h = Harness()
    compiled = h.compile(custom_init_returned)
    x = torch.randn(2)
    first, second = compiled(x)[1], compiled(x)[1]
    assert h.breaks == [] and first is not second
    assert (type(first), first.args, first.total) == (WithMessage, ("3-4",), 7)
    assert vars(first) == vars(second) == vars(custom_init_returned(x)[1])


def _chain(exc):
    out = []
    while exc is not None:
        out.append((type(exc), exc.args, type(exc.__cause__), exc.__suppress_context__))
        exc = exc.__context__
    return out


def _raised(fn, x):
    try:
        fn(x)
    except Exception as exc:  # noqa: BLE001 - the chains are compared
        return exc
    raise AssertionError("no exception")


def test_exceptions_leaving_the_function_carry_eagers_chain():
    for fn in (escapes_with_context, escapes_with_cause):
        compiled = Harness().compile(fn)
        x = torch.randn(3)
        for _ in range(2):
            assert _chain(_raised(compiled, x)) == _chain(_raised(fn, x))


def test_context_from_the_callers_handled_exception():
    """Called inside an ``except``, an exception raised with nothing handled in the call gets the
    caller's exception as context: read, it is None under a guard, and the capture made while the
    caller handles one breaks."""
    h = Harness()
    compiled = h.compile(reads_context_outside_handlers)
    x = torch.randn(2)
    assert compiled(x)[1] == (type(None), True)
    assert h.breaks == []
    try:
        raise KeyError("outer")
    except KeyError:
        assert compiled(x)[1] == reads_context_outside_handlers(x)[1] == (KeyError, True)
    assert any("an exception is being handled" in b.reason for b in h.breaks)


def test_a_raised_exception_live_after_the_call_breaks_where_raised():
    h = Harness()
    got = h.compile(returns_caught)(torch.randn(2))[1]
    assert got.__traceback__ is not None  # Python raised it, as eager does
    assert any("its traceback cannot be rebuilt" in b.reason for b in h.breaks)


def test_sys_exc_info_while_the_caller_handles_an_exception_breaks():
    h = Harness()
    compiled = h.compile(exc_info_inside_and_after)
    x = torch.randn(2)
    try:
        raise KeyError("outer")
    except KeyError as outer:
        got = compiled(x)
        assert got[1][1] is outer and got[5][1] is outer
    assert any("an exception is being handled" in b.reason for b in h.breaks)


def test_traceback_of_a_raised_exception_breaks():
    h = Harness()
    x = torch.randn(2)
    assert h.compile(reads_traceback)(x)[1] is False
    assert any("`.__traceback__` of ValueError" in b.reason for b in h.breaks)


def _one():
    yield 1


def throw_while_handling(x):
    it = _one()
    next(it)
    try:
        raise KeyError("k")
    except KeyError:
        try:
            it.throw(ValueError("v"))
        except ValueError as e:
            got = (type(e.__context__), e.__context__)
    return x + 1, got


def _paused_in_except():
    try:
        raise ValueError("in generator")
    except ValueError:
        yield sys.exc_info()[1].args


def generator_keeps_its_handled_exception(x):
    it = _paused_in_except()
    inside = next(it)
    return x + 1, inside, sys.exc_info()


def test_throw_restores_the_exception_without_chaining_it():
    assert check(throw_while_handling, _x).breaks == []


def test_a_generator_paused_in_an_except_keeps_its_handled_exception_to_itself():
    assert check(generator_keeps_its_handled_exception, _x).breaks == []


def raises_an_argument(x, err):
    try:
        raise err
    except ValueError:
        pass
    return x + 1


def test_raising_an_exception_from_outside_runs_in_python():
    """Raising sets the object's ``__traceback__``: an argument must be raised by Python."""
    h = Harness()
    eager_err, err = ValueError(1), ValueError(1)
    raises_an_argument(torch.randn(2), eager_err)
    h.compile(raises_an_argument)(torch.randn(2), err)
    assert (err.__traceback__ is None) == (eager_err.__traceback__ is None) == False  # noqa: E712
    assert any("raising" in b.reason for b in h.breaks)
