"""``cls.__dict__`` read by one constant name: answered from the class, guarded both ways."""
import torch

import autograph


class A:
    x = 4

    def method(self):
        return 1


class B(A):
    pass


def _no_breaks(fn, *args):
    explained = autograph.explain(fn, *args)
    assert explained.graph_break_count == 0, [str(b) for b in explained.break_reasons]
    assert explained.graph_count == 1


def test_in_class_dict_is_captured_and_follows_later_changes():
    def fn(obj, t):
        if "x" in type(obj).__dict__:
            return t + 1
        return t + 2

    t = torch.zeros(2)
    _no_breaks(fn, A(), t)
    compiled = autograph.compile(fn, backend="eager")
    assert torch.equal(compiled(A(), t), t + 1)
    assert torch.equal(compiled(B(), t), t + 2)  # inherited, not B's own
    B.x = 7
    try:
        assert torch.equal(compiled(B(), t), t + 1)  # B gained its own x: recaptured
    finally:
        del B.x
    assert torch.equal(compiled(B(), t), t + 2)


def test_item_and_get_of_class_dict():
    def fn(t):
        return t * A.__dict__["x"] + A.__dict__.get("y", 10), A.__dict__.get("method") is A.method

    t = torch.ones(2)
    _no_breaks(fn, t)
    compiled = autograph.compile(fn, backend="eager")
    got, same = compiled(t)
    assert torch.equal(got, t * 4 + 10) and same is True
    A.y = 1
    try:
        assert torch.equal(compiled(t)[0], t * 4 + 1)
    finally:
        del A.y


def test_missing_name_raises_key_error_as_python():
    def fn(t):
        try:
            return A.__dict__["nope"]
        except KeyError as exc:
            return t + len(exc.args)

    t = torch.zeros(1)
    assert torch.equal(autograph.compile(fn, backend="eager")(t), fn(t))
    _no_breaks(fn, t)
