import abc
import functools
import inspect
import types

import torch


def step(x, lr=0.1, *, momentum=0.0):
    """One step."""
    return x * (1 - lr) + momentum


class Base(abc.ABC):
    @abc.abstractmethod
    def loss(self, x):
        ...

    @staticmethod
    def scale(x):
        return x * 2

    @classmethod
    def make(cls):
        return cls()

    def run(self, x):
        return self.loss(self.scale(x))


class Impl(Base):
    def loss(self, x):
        return x.pow(2).sum()


class Partial(Base):
    pass


def call_with_supported(fn, **kwargs):
    params = inspect.signature(fn).parameters
    return fn(**{k: v for k, v in kwargs.items() if k in params})


def describe(fn):
    return (fn.__name__, fn.__qualname__, fn.__doc__, fn.__module__.split(".")[-1],
            isinstance(fn, types.FunctionType), inspect.isfunction(fn), callable(fn),
            list(inspect.signature(fn).parameters), fn.__defaults__, fn.__kwdefaults__,
            fn.__code__.co_argcount, fn.__code__.co_name)


def main():
    torch.set_num_threads(1)
    print(describe(step))
    print(call_with_supported(step, x=torch.ones(2), lr=0.5, unknown=1).tolist())
    print(Impl.make().run(torch.ones(3)).item(), inspect.isabstract(Partial), inspect.isabstract(Impl))
    try:
        Partial()
    except TypeError as e:
        print("TypeError", e)
    print(isinstance(Base.__dict__["scale"], staticmethod), isinstance(Base.__dict__["make"], classmethod))
    print(inspect.ismethod(Impl().run), inspect.ismethod(Impl.make), Impl().run.__func__ is Impl.run)
    print(Impl().run.__name__, Impl.run.__qualname__, sorted(n for n in vars(Impl) if not n.startswith("_")))
    p = functools.partial(step, lr=0.25)
    print(p(torch.ones(1)).tolist(), p.func is step, inspect.signature(p))
    print(sorted(Base.__abstractmethods__), getattr(Base.loss, "__isabstractmethod__", False))
    print(step == step, step is globals()["step"], hash(step) == hash(step))
