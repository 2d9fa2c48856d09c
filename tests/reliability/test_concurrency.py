"""Eight threads call one compiled function with several shapes at once (real capture, eager backend)."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import torch

import autograph
from autograph.runtime import stats


def _body(x, y):
    z = torch.relu(x * 2 + y)
    return z.sum(dim=-1) - y.mean()


def _stats_of(fn):
    [st] = [s for s in stats.all_stats() if s.qualname == fn.__qualname__ and s.lineno == fn.__code__.co_firstlineno]
    return st


def _hammer(fn, shapes, threads=8, rounds=6, timeout=60.0):
    """Call ``fn`` from ``threads`` threads released together; every result checked against eager."""
    barrier = threading.Barrier(threads)

    def worker(seed: int) -> int:
        barrier.wait(timeout=timeout)
        checked = 0
        for _r in range(rounds):
            for shape in shapes[seed % len(shapes):] + shapes[:seed % len(shapes)]:
                x = torch.randn(shape)
                y = torch.randn(shape)
                torch.testing.assert_close(fn(x, y), _body(x, y))
                checked += 1
        return checked

    with ThreadPoolExecutor(threads) as pool:
        futures = [pool.submit(worker, i) for i in range(threads)]
        # result(timeout=...) turns a deadlock into a failure instead of a hung suite
        return sum(f.result(timeout=timeout) for f in futures)


def test_eight_threads_several_shapes_capture_each_shape_once(eager_settings):
    eager_settings(dynamic="static")
    fn = autograph.compile(_body)
    shapes = [(4, 3), (5, 3), (2, 7), (6, 1)]
    done = _hammer(fn, shapes)
    assert done == 8 * 6 * len(shapes)
    st = _stats_of(_body)
    # one capture per distinct shape: a concurrent first call must not capture twice
    assert st.captures == len(shapes), st.as_dict()
    assert len(fn.entries) == len(shapes)
    assert st.errors == []
    assert st.calls == done


def test_eight_threads_dynamic_auto_no_duplicate_entries(eager_settings):
    eager_settings(dynamic="auto")
    fn = autograph.compile(_body)
    shapes = [(4, 3), (5, 3), (7, 3), (9, 3)]
    _hammer(fn, shapes)
    st = _stats_of(_body)
    # static first entry + one dynamic entry at most: sizes differ in one dimension only
    assert 1 <= st.captures <= 2, st.as_dict()
    guards = [e.guards.source_text for e in fn.entries]
    assert len(set(guards)) == len(guards), "two entries with identical guards: a duplicate capture"


def test_recompile_limit_respected_under_threads(eager_settings):
    eager_settings(dynamic="static", recompile_limit=3)
    fn = autograph.compile(_body)
    shapes = [(n, 2) for n in range(1, 9)]
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        done = _hammer(fn, shapes, rounds=3)
    st = _stats_of(_body)
    assert st.captures == 3
    assert len(fn.entries) == 3
    assert st.eager_reason and "recompile limit" in st.eager_reason
    assert st.calls == done


def _branchy(x, w):
    y = x @ w
    if y.sum() > 1e9:  # a graph break: entries with resume functions
        y = y * 0
    return torch.relu(y) + x.size(0)


def test_reset_from_another_thread_during_eight_threads_of_calls(eager_settings):
    """autograph.reset() while 8 threads call (sizes change: automatic dynamic, captures, resumes):
    every result equals eager, reset() never raises, no capture fails inside autograph."""
    import logging
    import time

    compiled = autograph.compile(_branchy, backend="eager")
    stop = threading.Event()
    problems: list[str] = []

    class InternalErrors(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "internal error" in record.getMessage():
                problems.append(record.getMessage())

    handler = InternalErrors()
    logging.getLogger("autograph").addHandler(handler)

    def worker(seed: int) -> None:
        gen = torch.Generator().manual_seed(seed)
        while not stop.is_set():
            n = int(torch.randint(2, 12, (1,), generator=gen))
            x, w = torch.randn(n, 4, generator=gen), torch.randn(4, 4, generator=gen)
            try:
                torch.testing.assert_close(compiled(x, w), _branchy(x, w))
            except Exception as exc:  # noqa: BLE001 - reported below
                problems.append(f"call: {exc!r}")
                stop.set()

    def resetter() -> None:
        while not stop.is_set():
            try:
                autograph.reset()
            except Exception as exc:  # noqa: BLE001 - reported below
                problems.append(f"reset: {exc!r}")
            time.sleep(0.002)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)] + [threading.Thread(target=resetter)]
    try:
        for t in threads:
            t.start()
        time.sleep(8.0)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=120)
        logging.getLogger("autograph").removeHandler(handler)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert problems == []
