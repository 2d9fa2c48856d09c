"""``super().name`` runs the descriptor protocol with the object super was given
(families/user_objects.py ``_bind_found_by_super``): a classmethod found in a base binds to the
object's own class, a property runs its getter on the object, and super bound to a class (in a
classmethod) leaves functions unbound and binds classmethods to that class."""
from __future__ import annotations

import contextlib
import io

import torch

from tests.capture.checks import check


class Parent:
    label = "parent-label"

    def hi(self, x):
        return x + 1

    @classmethod
    def greet(cls):
        return cls.__name__

    @staticmethod
    def triple(v):
        return v * 3

    @property
    def kind(self):
        return type(self).__name__ + "-kind"


class Child(Parent):
    def hi(self, x):
        return super().hi(x) * 2

    @classmethod
    def greet(cls):
        return "child:" + super().greet()


class GrandChild(Child):
    def hi(self, x):
        return super().hi(x) + 10

    def names(self):
        return super().greet(), super().triple(2), super().kind, super().label


def through_super(x, obj):
    return obj.hi(x), obj.names()


def test_classmethod_through_super_binds_the_objects_class():
    h = check(through_super, lambda: (torch.randn(3), GrandChild()))
    assert h.breaks == []


def made_in_the_call(x):
    obj = GrandChild()
    return obj.hi(x), obj.names(), GrandChild.greet(), Child.greet()


def test_super_in_a_classmethod_and_on_an_object_made_in_the_call():
    h = check(made_in_the_call, lambda: (torch.randn(3),))
    assert h.breaks == []


class Noisy:
    def hi(self, x, tag):
        print("in Noisy.hi", tag)  # a break inside the method reached through super()
        return x + 1


class Quiet(Noisy):
    def go(self, x):
        lookup = super()
        y = lookup.hi(x, "a")
        return lookup.hi(y, "b"), type(lookup) is super


def super_kept_across_a_break(x, obj):
    return obj.go(x)


def test_super_object_live_at_a_break_is_rebuilt():
    with contextlib.redirect_stdout(io.StringIO()):
        h = check(super_kept_across_a_break, lambda: (torch.randn(3), Quiet()))
    assert {b.kind for b in h.breaks} <= {"side-effect"}
