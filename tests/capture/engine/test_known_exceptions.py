"""Exceptions capture knows exactly run the function's own ``except`` during capture (no
graph break): a missing dict key, with the KeyError's args; ``issubclass`` between classes."""
from __future__ import annotations

import torch

from tests.capture.checks import check


def key_error_caught(x, d):
    try:
        a = d["b"]
    except KeyError as e:
        return x * 2, e.args, str(e)
    return x * a


def pop_missing_key_else(d, x):
    try:
        d.pop("b")
    except KeyError:
        return torch.sin(x)
    else:
        return torch.cos(x)


def missing_key_of_a_dict_made_here(x):
    d = {"a": 1}
    try:
        del d["z"]
    except KeyError:
        d["z"] = 3
    return x * d["z"]


def subclass_tests(x, c):
    return x + issubclass(ZeroDivisionError, ArithmeticError) + 2 * issubclass(c, (KeyError, OSError))


def test_key_error_of_a_missing_key_runs_the_handler_in_capture():
    h = check(key_error_caught, lambda: (torch.randn(3), {"a": 1}))
    assert h.breaks == []


def test_pop_of_a_missing_key_is_guarded_by_the_keys():
    calls = iter([{"a": 1}, {"a": 1, "b": 2}, {"a": 1}])
    h = check(pop_missing_key_else, lambda: (next(calls), torch.randn(3)))
    assert h.breaks == []


def test_del_of_a_missing_key():
    assert check(missing_key_of_a_dict_made_here, lambda: (torch.randn(3),)).breaks == []


def test_issubclass_between_classes_is_folded():
    calls = iter([ValueError, KeyError, FileNotFoundError])
    h = check(subclass_tests, lambda: (torch.randn(2), next(calls)))
    assert h.breaks == []


class _Mapping:
    def __init__(self, d):
        self._d = d

    def __getitem__(self, key):
        try:
            return self._d[key]
        except KeyError:
            raise KeyError(key) from None


_MAPPING = _Mapping({"a": 10})


def raise_from_none_in_a_callee(x, key):
    try:
        value = _MAPPING[key]
    except KeyError as e:
        return x, e.__cause__, e.__suppress_context__, e.args
    return x + value


def raise_from_an_exception(x):
    try:
        raise ValueError("v") from TypeError("t")
    except ValueError as e:
        return x + 1, str(e.__cause__), type(e.__cause__).__name__


def raised_from_and_returned(x):
    e = RuntimeError("r")
    try:
        raise e from KeyError
    except RuntimeError:
        pass
    return x, type(e.__cause__).__name__, e.__suppress_context__


def test_raise_from_none_runs_the_handler_in_capture():
    keys = iter(["m", "a", "m"])
    assert check(raise_from_none_in_a_callee, lambda: (torch.randn(2), next(keys))).breaks == []


def test_raise_from_sets_cause():
    assert check(raise_from_an_exception, lambda: (torch.randn(2),)).breaks == []


def test_raise_from_a_class_sets_a_new_cause_on_the_returned_exception():
    assert check(raised_from_and_returned, lambda: (torch.randn(2),)).breaks == []
