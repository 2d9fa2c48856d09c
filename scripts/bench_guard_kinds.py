"""Cost of the recurring guard kinds on the C path, one guard set per kind.

    PYTHONPATH=$PWD .venv/bin/python scripts/bench_guard_kinds.py

The training programs of scripts/bench_guard_passes.py record none of these kinds, so each is
timed here alone: DICT_KEYS on a module's ``_modules`` of 8 entries, ITER_REMAINING on a list
iterator (the loop over ``self.blocks`` resumed after a break), PINNED_IDENTITY through a lambda
getter, SAME_OBJECT on two arguments, and whole entries: a loop over an outside iterator of
three tensors (``remaining(it)[k]`` per item), a call that changes a list beside an iterator
from outside (the iterator kept apart from it) and a bound method read through a class
attribute of an object made in the call (a pinned read); and entries whose guards were Python
callbacks before they became kinds (an unset slot, a module tree walk, a state query's answer,
an ndarray input, ``isinstance`` of a flagged tensor). Thread CPU time per check, best of 7, microseconds. Uses only the guard
constructors of ``autograph.guards.model``, so the same script times an older checkout too.
"""
from __future__ import annotations

import time

import torch


def _best(fn, n: int = 20000) -> float:
    best = float("inf")
    for _ in range(7):
        t0 = time.thread_time()
        for _ in range(n):
            fn()
        best = min(best, (time.thread_time() - t0) / n)
    return best * 1e6


def one(d):
    return d


def two(a, b):
    return a, b


def none():
    return None


def walk(x, it):
    for v in it:
        x = x + v
    return x


def sum_after_append(x, it, items):
    items.append(9)
    return x + sum(it)


class _Helper:
    def __init__(self, k):
        self.k = k

    def scale(self, x):
        return x * self.k


class _Op:
    fn = _Helper(2).scale

    def run(self, x):
        return self.fn(x)


def pinned_method(x):
    return _Op().run(x) + 1


class _Slotted:
    __slots__ = ("a",)


def slot_branch(x, s):
    return x + 1 if hasattr(s, "a") else x - 1


class _Pair(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(2, 2)
        self.b = torch.nn.Linear(2, 2)


def count_modules(x, m):
    n = 0
    for _ in m.modules():
        n += 1
    return x + n


def profiled_branch(x):
    return x + 1 if torch.autograd._profiler_enabled() else x - 1


def double(a):
    return a * 2


def buffer_branch(x, t):
    return x + 1 if isinstance(t, torch.nn.Buffer) else x - 1


def _entry_row(c, native, title: str, fn, warm, args) -> None:
    """The C check of ``fn``'s one entry, as this checkout's capture records it."""
    import autograph

    f = autograph.compile(fn)
    for _ in range(3):
        f(*warm())
    (entry,) = f.entries
    plan = native.plan_for(entry.guards)
    kind = "C plan" if isinstance(plan, tuple) else "C calling the generated check"
    assert c.check(plan, args, None) == -1
    print(f"{title:<34} {kind} {_best(lambda: c.check(plan, args, None)):6.3f} us ({len(entry.guards)} guards)")


def main() -> None:
    torch.set_num_threads(1)
    import autograph
    from autograph.capture.families.live_iterators import remaining
    from autograph.guards import extension, native
    from autograph.guards.check import GuardSet
    from autograph.guards.model import dict_keys, iterator_remaining, pinned_identity, same_object
    from autograph.guards.sources import LocalSource
    from autograph.settings import Settings, set_current_settings

    c = extension.load()
    if c is None:
        raise SystemExit("autograph._native is not built")
    modules = {str(i): torch.nn.Linear(2, 2) for i in range(8)}
    holder = {"obj": modules["0"]}
    sets = {
        "DICT_KEYS (8 str keys)": (GuardSet(one, [dict_keys(LocalSource("d"), list(modules), [True] * 8)]),
                                   (modules,)),
        "ITER_REMAINING (list iterator)": (GuardSet(one, [iterator_remaining(LocalSource("d"), remaining, 1, True)]),
                                           (iter([1, 2, 3]),)),
        "PINNED_IDENTITY (lambda getter)": (GuardSet(none, [pinned_identity(lambda: holder["obj"], "holder",
                                                                            modules["0"])]), ()),
        "SAME_OBJECT": (GuardSet(two, [same_object(LocalSource("a"), LocalSource("b"))]), (holder, holder)),
    }
    for name, (gs, args) in sets.items():
        plan = native.plan_for(gs)
        print(f"{name:<34} C plan {_best(lambda p=plan, a=args: c.check(p, a, None)):6.3f} us   "
              f"generated Python check {_best(lambda g=gs, a=args: g.index_fn(*a)):6.3f} us")

    set_current_settings(Settings(backend="eager"))
    f = autograph.compile(walk)
    x, items = torch.ones(3), [torch.ones(3) for _ in range(3)]
    for _ in range(3):
        f(x, iter(items))
    (entry,) = f.entries
    plan = native.plan_for(entry.guards)
    kind = "C plan" if isinstance(plan, tuple) else "C calling the generated check"
    args = (x, iter(items))
    print(f"{'loop over an outside iterator':<34} {kind} {_best(lambda: c.check(plan, args, None)):6.3f} us "
          f"({len(entry.guards)} guards)")
    _entry_row(c, native, "iterator beside a list it changes", sum_after_append,
               lambda: (x, iter([1, 2]), [1, 2]), (x, iter([1, 2]), [1, 2]))
    _entry_row(c, native, "method read through a pinned class", pinned_method, lambda: (x,), (x,))
    # guards that were PYTHON callbacks before the named-check registry (kinds of their own now)
    import numpy as np
    slotted, pair, arr, buffer = _Slotted(), _Pair(), np.ones(3, np.float32), torch.nn.Buffer(torch.ones(3))
    _entry_row(c, native, "unset slot (hasattr)", slot_branch, lambda: (x, slotted), (x, slotted))
    _entry_row(c, native, "module tree walk (2 submodules)", count_modules, lambda: (x, pair), (x, pair))
    _entry_row(c, native, "state query answer", profiled_branch, lambda: (x,), (x,))
    _entry_row(c, native, "ndarray input", double, lambda: (arr,), (arr,))
    _entry_row(c, native, "isinstance of nn.Buffer", buffer_branch, lambda: (x, buffer), (x, buffer))


if __name__ == "__main__":
    main()
