"""Small functions covering the constructs the bytecode layer must survive.

Each entry of ``CASES`` is ``(function, args)``; calling ``function(*args)``
must be deterministic and must not mutate ``args`` in place, so the same call
can be replayed (round trips, resume functions).
"""
from __future__ import annotations

import functools


class Box:
    def __init__(self, v):
        self.v = v

    def get(self, k=1):
        return self.v * k

    @property
    def double(self):
        return self.v * 2


class CM:
    """Context manager recording enter/exit into a shared log list."""

    def __init__(self, log, swallow=False):
        self.log = log
        self.swallow = swallow

    def __enter__(self):
        self.log.append("enter")
        return len(self.log)

    def __exit__(self, et, ev, tb):
        self.log.append(("exit", et.__name__ if et else None))
        return self.swallow and et is not None and issubclass(et, Exception)


def helper(a, b=2, *, c=3):
    return a * 100 + b * 10 + c


def straight(a, b):
    x = a + b
    y = x * 2 - a
    z = (x, y, [a, b], {"k": y})
    return z, y // 3, a ** 2 % 7


def branches(a, b):
    if a > b:
        r = a - b
    elif a == b:
        r = 0
    else:
        r = b - a
    r2 = r if r % 2 else -r
    return r, r2, (a and b), (a or b), not a


def loops(n):
    t = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        t += i
        if t > 40:
            break
    else:
        t = -t
    k = 0
    while k < n:
        k += 2
        t ^= k
    return t, k


def nested_loops(rows):
    out = []
    for r in rows:
        s = 0
        for v in r:
            if v < 0:
                break
            s += v
        out.append(s)
    return out


def calls(a, b):
    box = Box(a)
    r1 = helper(a, c=b)
    r2 = helper(b, a)
    r3 = box.get(k=3) + box.get() + box.double
    r4 = sorted([b, a], key=lambda v: -v)
    r5 = max(a, b, *[1, 2], **{})
    r6 = functools.reduce(lambda x, y: x + y, [a, b, 3])
    return r1, r2, r3, r4, r5, r6


def slicing(seq):
    s = list(seq)
    a = s[1:3]
    s[0:2] = [9, 9, 9]
    b = s[::2]
    del s[-1:]
    return a, b, s


def try_except(a):
    try:
        v = 10 // a
    except ZeroDivisionError as e:
        v = str(e)
    except (TypeError, ValueError):
        v = "type"
    else:
        v = v + 1
    finally:
        a = a or 1
    return v, a


def try_finally_return(a):
    log = []
    try:
        log.append(1)
        if a:
            return log, "early"
        log.append(2)
    finally:
        log.append(3)
    return log, "late"


def nested_try(a):
    out = []
    for x in (a, 0, "s"):
        try:
            try:
                out.append(10 // x)
            except ZeroDivisionError:
                out.append("zero")
                raise ValueError("again")
        except ValueError as e:
            out.append(str(e))
        except TypeError:
            out.append("type")
    return out


def with_blocks(a):
    log = []
    with CM(log) as n:
        log.append(n + a)
    with CM(log, swallow=True):
        log.append(a)
        raise KeyError("swallowed")
    try:
        with CM(log):
            log.append(1 / a)
    except ZeroDivisionError:
        log.append("zde")
    return log


def comprehensions(n):
    x = 7
    sq = [x * x for x in range(n)]
    ev = {k: v for k, v in zip(range(n), sq) if k % 2 == 0}
    nested = [[i * j for j in range(i)] for i in range(n)]
    gen = sum(v for v in sq if v > 2)
    st = {v % 3 for v in sq}
    return x, sq, ev, nested, gen, st


def closures(a):
    c = a * 2

    def inner(k):
        return k + c + a

    d = [inner(i) for i in range(3)]
    c = 100  # inner sees the new value through the cell
    return d, inner(1)


def nonlocal_counter(n):
    count = 0

    def bump(k):
        nonlocal count
        count += k
        return count

    for i in range(n):
        bump(i)
    return count, bump(0)


def make_adder(base):
    def add(x, y=1):
        total = x + y + base
        return total
    return add


closure_add = make_adder(1000)


def generators(n):
    def gen(m):
        for i in range(m):
            yield i * i
        return "done"
    g = gen(n)
    first = next(g)
    rest = list(g)
    return first, rest


def raising(a):
    if a < 0:
        raise ValueError(f"negative: {a}")
    return {"a": a}[a and "a"]


def unpacking(t):
    a, (b, c), *rest = t
    first, *mid, last = rest or [0, 0]
    d = {**{"a": a}, "b": b}
    return a, b, c, rest, first, mid, last, d


def fstrings_and_formats(a, b):
    return f"{a}-{b!r}-{a:>5}-{b:{a}}", "%s/%d" % (a, b)


def walrus_and_ternary(xs):
    out = []
    for x in xs:
        if (y := x * 2) > 5:
            out.append(y)
        else:
            out.append(-y if y else None)
    return out


def is_none_checks(a, b=None):
    r = []
    if a is None:
        r.append("a none")
    if b is not None:
        r.append("b set")
    if a is not b:
        r.append("differ")
    return r, a in (1, 2), b not in [None]


def global_use(a):
    global COUNTER
    COUNTER = a
    return COUNTER + len(str(a))


COUNTER = 0


def many_locals(a):
    v0 = a + 0
    v1 = v0 + 1
    v2 = v1 * 2
    v3 = v2 - v0
    v4 = [v0, v1, v2, v3]
    if v3 > 10:
        v5 = sum(v4)
    else:
        v5 = min(v4)
    return v5, v4


def class_method_super(a):
    class A:
        def f(self, x):
            return x + 1

    class B(A):
        def f(self, x):
            return super().f(x) * 2

    return B().f(a)


CASES = [
    (straight, (3, 4)),
    (branches, (5, 2)),
    (branches, (2, 2)),
    (branches, (1, 3)),
    (loops, (10,)),
    (loops, (30,)),
    (nested_loops, ([[1, 2, 3], [4, -1, 5], []],)),
    (calls, (2, 5)),
    (slicing, ((1, 2, 3, 4, 5),)),
    (try_except, (5,)),
    (try_except, (0,)),
    (try_except, ("x",)),
    (try_finally_return, (0,)),
    (try_finally_return, (1,)),
    (nested_try, (5,)),
    (with_blocks, (2,)),
    (with_blocks, (0,)),
    (comprehensions, (5,)),
    (closures, (3,)),
    (nonlocal_counter, (5,)),
    (closure_add, (1, 2)),
    (generators, (4,)),
    (raising, (3,)),
    (raising, (-1,)),
    (raising, (0,)),
    (unpacking, ((1, (2, 3), 4, 5, 6),)),
    (unpacking, ((1, (2, 3)),)),
    (fstrings_and_formats, (3, 4)),
    (walrus_and_ternary, ([1, 2, 3, 0],)),
    (is_none_checks, (None, 2)),
    (is_none_checks, (1,)),
    (global_use, (12,)),
    (many_locals, (4,)),
    (many_locals, (0,)),
    (class_method_super, (3,)),
]


def outcome(fn, args):
    """What a call does: ('ok', result) or ('raise', type name, message)."""
    try:
        return ("ok", fn(*args))
    except Exception as e:  # noqa: BLE001 - we compare exceptions too
        return ("raise", type(e).__name__, str(e))
