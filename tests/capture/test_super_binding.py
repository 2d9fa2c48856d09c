"""``super().name`` runs the descriptor protocol with the object super was given
(values/user_objects.py ``_bind_found_by_super``): a classmethod found in a base binds to the
object's own class, a property runs its getter on the object, and super bound to a class (in a
classmethod) leaves functions unbound and binds classmethods to that class."""
from __future__ import annotations

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
