"""Log channels on/off, the new-entry subscription, and the TTY-only progress line."""
import io
import logging
import time

import pytest
import torch

import autograph
from autograph.explain import events, logs
from autograph.explain.progress import progress
from tests.explain import seeds
from autograph.settings import Settings


@pytest.fixture
def stream():
    s = io.StringIO()
    yield s
    logs.configure([])


def _call_toy():
    f = autograph.compile(seeds.toy_example, backend="eager")
    f(torch.ones(4), -torch.ones(4))
    f(torch.ones(5), -torch.ones(5))  # recompile
    return f


def test_breaks_channel_on(stream):
    events.activate(Settings(log=("graph_breaks",)))
    logs.configure(["graph_breaks"], stream=stream)
    _call_toy()
    text = stream.getvalue()
    line = seeds.line_of(seeds.toy_example, "if b.sum() < 0:")
    assert f"[autograph.breaks] graph break in toy_example at seeds.py:{line}: data-dependent branch" in text
    assert "[autograph.guards]" not in text and "[autograph.recompiles]" not in text


def test_every_entry_channel(stream):
    channels = ("breaks", "recompiles", "guards", "graphs", "bytecode")
    events.activate(Settings(log=channels))
    logs.configure(channels, stream=stream)
    _call_toy()
    text = stream.getvalue()
    assert "[autograph.guards] guards of toy_example (seeds.py:" in text
    assert "a: Tensor float32 cpu size (4,) stride (1,) requires_grad=False" in text
    assert "[autograph.graphs] graph __compiled_fn_" in text and "torch.abs(a)" in text
    assert "[autograph.bytecode] transformed code of toy_example" in text and "__resume_at_" in text
    assert "[autograph.recompiles] recompiling toy_example" in text and "___check_tensor(a," in text


def test_channels_off_log_nothing(stream):
    events.activate(Settings())
    logs.configure([], stream=stream)
    _call_toy()
    assert stream.getvalue() == ""
    assert not logs.enabled("breaks") and not logs.enabled("guards")


def test_deactivate_stops_entry_logs(stream):
    events.activate(Settings(log=("guards",)))
    logs.configure(["guards"], stream=stream)
    f = autograph.compile(seeds.toy_example, backend="eager")
    f(torch.ones(4), torch.ones(4))
    assert "[autograph.guards] guards of toy_example" in stream.getvalue()
    events.deactivate()  # the channel stays configured, but new entries are no longer followed
    size = len(stream.getvalue())
    f(torch.ones(7), torch.ones(7))
    assert len(f.entries) == 2 and len(stream.getvalue()) == size


def test_channel_names():
    assert logs.loggers_for(["graph_breaks", "breaks"]) == ["autograph.breaks"]
    assert logs.loggers_for(["backend"]) == ["autograph.kernels"]
    assert set(logs.loggers_for(["all"])) >= {"autograph.breaks", "autograph.recompiles", "autograph.guards",
                                              "autograph.graphs", "autograph.bytecode", "autograph.kernels"}
    with pytest.raises(ValueError, match="unknown log channel 'brakes'"):
        logs.loggers_for(["brakes"])
    assert logs.logger("breaks") is logging.getLogger("autograph.breaks")


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_shows_on_a_tty_after_the_delay_and_erases_itself():
    s = _Tty()
    with progress("capturing toy_example", stream=s, delay=0.05, interval=0.02) as p:
        time.sleep(0.3)
    out = s.getvalue()
    assert p.shown and "autograph: capturing toy_example ... " in out
    assert out.endswith("\r\x1b[K") and "\n" not in out


def test_progress_is_silent_for_short_work_and_off_a_tty():
    fast = _Tty()
    with progress("x", stream=fast, delay=1.0):
        pass
    assert fast.getvalue() == ""
    pipe = io.StringIO()
    with progress("x", stream=pipe, delay=0.0, interval=0.01):
        time.sleep(0.05)
    assert pipe.getvalue() == ""


def test_progress_never_goes_through_logging(caplog):
    with caplog.at_level(logging.DEBUG):
        with progress("x", stream=_Tty(), delay=0.0, interval=0.01):
            time.sleep(0.05)
    assert not [r for r in caplog.records if "autograph: x" in r.getMessage()]


def _slow_capture_backend(gm, example_inputs):
    """An eager backend slow enough for the progress line to appear (delay is shortened below)."""
    time.sleep(0.3)
    return gm.forward


def test_a_live_capture_shows_progress_on_a_tty(monkeypatch):
    """The runtime wraps each capture (not only ``explain``) in the progress line."""
    import autograph.explain.progress as progress_mod

    tty = _Tty()
    monkeypatch.setattr(progress_mod, "progress",
                        lambda what: progress(what, stream=tty, delay=0.05, interval=0.02))
    f = autograph.compile(seeds.toy_example, backend=_slow_capture_backend)
    a, b = torch.ones(4), -torch.ones(4)
    torch.testing.assert_close(f(a, b), seeds.toy_example(a, b))
    out = tty.getvalue()
    assert "autograph: capturing toy_example ... " in out
    assert out.endswith("\r\x1b[K") and "\n" not in out
    tty.truncate(0), tty.seek(0)
    f(a, b)  # a cache hit captures nothing: no progress line
    assert tty.getvalue() == ""


def test_a_live_capture_off_a_tty_writes_nothing(monkeypatch, capsys):
    f = autograph.compile(seeds.toy_example, backend=_slow_capture_backend)
    f(torch.ones(3), torch.ones(3))
    assert "autograph:" not in capsys.readouterr().err
