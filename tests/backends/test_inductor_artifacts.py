"""The compiled-graph files of background compiles: keys, transport, and a cache that may be damaged or shared."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from autograph.backends import inductor_artifacts as ia

ROOT = Path(__file__).resolve().parents[2]


def _graph(fn):
    return torch.fx.symbolic_trace(fn)


def _key(gm, inputs, grad=True):
    with torch.set_grad_enabled(grad):
        return ia.request(gm, inputs, Path("/nonexistent"))["key"]


def test_the_key_changes_with_torch_python_inputs_grad_mode_and_held_tensors(monkeypatch):
    gm = _graph(lambda x: x * 2 + 1)
    x = torch.randn(3)
    key = _key(gm, [x])
    assert key == _key(gm, [torch.randn(3)])  # values of inputs do not matter
    assert key != _key(gm, [torch.randn(4)])
    assert key != _key(gm, [torch.randn(3, dtype=torch.float64)])
    assert key != _key(gm, [torch.randn(3).requires_grad_()])
    assert key != _key(gm, [torch.randn(6)[::2]])  # strides
    assert key != _key(gm, [x], grad=False)
    monkeypatch.setattr(torch, "__version__", torch.__version__ + "+other")
    assert key != _key(gm, [x])  # a file made by another torch is never looked up
    monkeypatch.undo()
    monkeypatch.setattr(ia.platform, "python_version", lambda: "3.0.0")
    assert key != _key(gm, [x])


def test_the_key_changes_with_the_callers_autocast_state():
    gm = _graph(lambda x: torch.nn.functional.linear(x, x))
    x = torch.randn(3, 3)
    plain = _key(gm, [x])
    with torch.autocast("cpu", dtype=torch.bfloat16):
        bf16 = _key(gm, [x])
        req = ia.request(gm, [x], Path("/nonexistent"))
    with torch.autocast("cpu", dtype=torch.float16):
        f16 = _key(gm, [x])
    assert len({plain, bf16, f16}) == 3
    assert req["options"]["autocast"] == (("cpu", "bfloat16"),)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=False):
        assert _key(gm, [x]) == plain


def test_a_graph_compiled_under_autocast_is_loaded_under_it_on_any_thread(monkeypatch, tmp_path):
    """AOTAutograd's wrapper, made on loading, turns autocast off around the compiled code only
    when autocast is on while it is made: the loader thread has none of the program's."""
    import threading

    seen = []
    monkeypatch.setattr(ia, "_load_artifact", lambda path: seen.append(
        (torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))) or ((lambda *a: a), ""))
    gm = _graph(lambda x: torch.nn.functional.linear(x, x))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        req = ia.request(gm, [torch.randn(3, 3)], tmp_path)
    thread = threading.Thread(target=ia.load_request, args=(tmp_path / "k.bin", req))
    thread.start()
    thread.join()
    plain = ia.request(gm, [torch.randn(3, 3)], tmp_path)
    ia.load_request(tmp_path / "k.bin", plain)
    assert seen == [(True, torch.bfloat16), (False, torch.get_autocast_dtype("cpu"))]
    assert not torch.is_autocast_enabled("cpu")


def test_autocast_regions_in_a_graph_are_cacheable_and_unknown_functions_are_refused():
    from torch.amp.autocast_mode import _enter_autocast, _exit_autocast

    graph = torch.fx.Graph()  # as capture records a `with torch.autocast(...)` block
    x = graph.placeholder("x")
    ctx = graph.call_function(_enter_autocast, ("cpu", torch.bfloat16, True, True))
    y = graph.call_function(torch.nn.functional.linear, (x, x))
    graph.call_function(_exit_autocast, (ctx,))
    graph.output((y,))
    gm = torch.fx.GraphModule(torch.nn.Module(), graph)
    ia._fill_example_values(gm, [torch.randn(3, 3)])
    ia._check_cacheable(gm, ia.OPTIONS["config_patches"])  # the region functions are allowed
    with pytest.raises(ia.Unsupported, match="AOTAutograd's cache refuses"):
        ia._check_cacheable(gm, {})  # as AOTAutograd alone would refuse them

    def unknown(x):
        return (_not_in_torch(x),)

    gm = _graph(unknown)
    with pytest.raises(ia.Unsupported, match="_not_in_torch"):
        ia._check_cacheable(gm, ia.OPTIONS["config_patches"])


def test_the_key_changes_with_a_held_tensors_values():
    class M(torch.nn.Module):
        def __init__(self, c):
            super().__init__()
            self.register_buffer("c", c)

        def forward(self, x):
            return x + self.c

    x = torch.randn(3)
    a, b = _graph(M(torch.zeros(3))), _graph(M(torch.ones(3)))
    assert _key(a, [x]) != _key(b, [x])
    assert _key(a, [x]) == _key(_graph(M(torch.zeros(3))), [x])


@torch.fx.wrap
def _not_in_torch(x):
    return x + 1


def test_a_graph_calling_a_local_function_is_refused():
    def local_helper(x):
        return x + 1

    gm = _graph(lambda x: x * 2)
    node = next(n for n in gm.graph.nodes if n.op == "call_function")
    node.target = local_helper
    gm.recompile()
    with pytest.raises(ia.Unsupported, match="cannot be named"):
        ia.request(gm, [torch.randn(2)], Path("/nonexistent"))


def test_factory_calls_reach_the_worker_as_calls_not_constants():
    graph = torch.fx.Graph()  # as capture builds it: the factory calls are nodes
    x = graph.placeholder("x")
    r = graph.call_function(torch.rand, (3,))
    a = graph.call_function(torch.arange, (3,))
    graph.output(graph.call_function(torch.add, (graph.call_function(torch.add, (x, r)), a)))
    gm = torch.fx.GraphModule(torch.nn.Module(), graph)
    gm2 = ia._unpickle_graph(ia.graph_bytes(gm))
    targets = [n.target for n in gm2.graph.nodes if n.op == "call_function"]
    assert torch.rand in targets and torch.arange in targets
    assert not [n for n in gm2.graph.nodes if n.op == "get_attr"]
    x = torch.zeros(3)
    assert not torch.equal(gm2(x), gm2(x))  # still random on each call


def test_held_tensors_are_lifted_in_the_programs_order():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("a", torch.arange(3.0))
            self.register_buffer("b", torch.ones(3))

        def forward(self, x):
            return x * self.b + self.a

    gm = _graph(M())
    constants = ia.held_constants(gm)
    lifted = ia.lifted_graph(ia.graph_bytes(gm), constants)
    assert not list(lifted.named_buffers())
    x = torch.randn(3)
    torch.testing.assert_close(lifted(x, *constants), gm(x))
    with pytest.raises(ia.Unsupported, match="order"):
        ia.lifted_graph(ia.graph_bytes(gm), constants[::-1])


def test_a_damaged_file_is_refused(tmp_path):
    path = Path(ia.write_artifact(tmp_path / "k.bin", b"payload" * 100))
    assert ia.read_payload(path) == b"payload" * 100
    data = path.read_bytes()
    damaged = {"truncated": data[:-5], "flipped": data[:-1] + bytes([data[-1] ^ 1]),
               "foreign": b"not ours at all", "empty": b""}
    for name, content in damaged.items():
        bad = tmp_path / f"{name}.bin"
        bad.write_bytes(content)
        with pytest.raises(ValueError):
            ia.read_payload(bad)


def test_an_unwritable_cache_puts_the_file_elsewhere(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory should be")
    path = Path(ia.write_artifact(blocker / "inductor" / "k.bin", b"abc"))
    assert path.is_file() and not str(path).startswith(str(blocker))
    assert ia.read_payload(path) == b"abc"


def test_a_read_only_cache_puts_the_file_elsewhere(tmp_path):
    from tests.backends.conftest import permission_checks

    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o500)
    try:
        with permission_checks():
            path = Path(ia.write_artifact(cache / "k.bin", b"abc"))
            assert path.is_file() and path.parent != cache
            assert ia.read_payload(path) == b"abc"
    finally:
        cache.chmod(0o700)
    assert not list(cache.iterdir())
    shutil.rmtree(path.parent, ignore_errors=True)


_WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from autograph.backends import inductor_artifacts as ia
    path, me = Path(sys.argv[1]), int(sys.argv[2])
    seen = set()
    for i in range(200):
        ia.write_artifact(path, bytes([me]) * (1000 + 997 * ((i + me) % 7)))
        payload = ia.read_payload(path)  # raises on a torn or mixed file
        assert len(set(payload)) == 1, "a file mixing two writers"
        seen.add(payload[0])
    print(sorted(seen))
""")


def test_three_processes_sharing_one_cache_read_only_whole_files(tmp_path):
    path = tmp_path / "shared" / "inductor" / "same-key.bin"
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(path), str(me)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for me in (1, 2, 3)]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    assert not [p for p in path.parent.iterdir() if p.name != path.name]  # no temporary file left
    assert len(set(ia.read_payload(path))) == 1


def test_functions_bound_under_another_name_are_named_by_their_binding():
    import torch.nn.functional as F

    gm = _graph(lambda x: F.max_pool2d(x, 2))  # boolean_dispatch's local function
    node = next(n for n in gm.graph.nodes if n.op == "call_function")
    assert "<locals>" in node.target.__qualname__
    assert ia.request(gm, [torch.randn(1, 1, 4, 4)], Path("/nonexistent"))["key"]


# ---- backend="inductor" through the artifact cache (a stand-in compiler; the real one in the slow test)

@pytest.fixture
def fake_inductor(monkeypatch):
    """``backend="inductor"`` with the stand-in compiler; records its compiles; compile_fx forbidden."""
    import autograph
    import torch._inductor.compile_fx
    from autograph.backends import inductor
    from autograph.testing import slow_compiler

    monkeypatch.setattr(inductor, "REQUEST_DEFAULTS", dict(slow_compiler.SETTINGS))
    compiles: list[str] = []
    real = slow_compiler.compile
    monkeypatch.setattr(slow_compiler, "compile", lambda req: compiles.append(req["key"]) or real(req))

    def no_compile_fx(*args, **kwargs):
        raise AssertionError("compile_fx was called")

    monkeypatch.setattr(torch._inductor.compile_fx, "compile_fx", no_compile_fx)
    slow_compiler.CALLS.clear()
    autograph.reset()
    yield compiles
    autograph.reset()


def _run_inductor(fn, cache, *args, autocast=None):
    """One "run of the program": a fresh capture of ``fn`` with the inductor backend on ``cache``,
    called inside ``torch.autocast("cpu", dtype=autocast)`` when ``autocast`` is a dtype."""
    import contextlib

    import autograph
    from autograph.backends.inductor import make_inductor_backend

    autograph.reset()
    region = torch.autocast("cpu", dtype=autocast) if autocast is not None else contextlib.nullcontext()
    with region:
        return autograph.compile(fn, backend=make_inductor_backend(cache))(*args)


def _f(x):
    return torch.tanh(x) * 3 + x


def test_a_second_run_of_the_inductor_backend_loads_the_artifact_without_compiling(fake_inductor, tmp_path):
    from autograph.testing import slow_compiler

    x = torch.randn(5)
    torch.testing.assert_close(_run_inductor(_f, tmp_path / "cache", x), _f(x))
    assert len(fake_inductor) == 1 and slow_compiler.CALLS  # compiled once, and the loaded file ran
    (artifact,) = (tmp_path / "cache" / "inductor").iterdir()
    slow_compiler.CALLS.clear()
    torch.testing.assert_close(_run_inductor(_f, tmp_path / "cache", x), _f(x))
    assert len(fake_inductor) == 1 and slow_compiler.CALLS  # loaded: no second compile
    assert [p.name for p in (tmp_path / "cache" / "inductor").iterdir()] == [artifact.name]


def test_a_graph_under_autocast_never_loads_the_file_made_without_it(fake_inductor, tmp_path):
    x = torch.randn(5)
    for dtype in (None, torch.bfloat16, torch.float16, None, torch.bfloat16):
        torch.testing.assert_close(_run_inductor(_f, tmp_path / "cache", x, autocast=dtype), _f(x))
    assert len(fake_inductor) == 3  # one file per autocast state, each loaded on its second run
    assert len(list((tmp_path / "cache" / "inductor").iterdir())) == 3


@pytest.mark.parametrize("autocast", [None, torch.bfloat16], ids=["plain", "autocast"])
@pytest.mark.parametrize("damage", ["truncated", "another graph's file"])
def test_a_damaged_or_stale_artifact_is_compiled_again_by_the_inductor_backend(fake_inductor, tmp_path, damage,
                                                                                autocast):
    x = torch.randn(5)
    _run_inductor(_f, tmp_path / "cache", x, autocast=autocast)
    (artifact,) = (tmp_path / "cache" / "inductor").iterdir()
    if damage == "truncated":
        artifact.write_bytes(artifact.read_bytes()[:-4])
    else:  # a whole, checked file that is not this graph's (the stand-in loader checks the key)
        ia.write_artifact(artifact, b"fake compiled graph" + b"0" * 64)
    torch.testing.assert_close(_run_inductor(_f, tmp_path / "cache", x, autocast=autocast), _f(x))
    assert len(fake_inductor) == 2  # compiled again, and the file replaced by a good one
    ia.read_payload(artifact)
    torch.testing.assert_close(_run_inductor(_f, tmp_path / "cache", x, autocast=autocast), _f(x))
    assert len(fake_inductor) == 2


@pytest.mark.parametrize("autocast", [None, torch.bfloat16], ids=["plain", "autocast"])
@pytest.mark.parametrize("how", ["read-only", "not a directory"])
def test_the_inductor_backend_runs_with_a_cache_it_cannot_write(fake_inductor, tmp_path, how, autocast):
    cache = tmp_path / "cache"
    cache.mkdir()
    if how == "read-only":
        if os.geteuid() == 0:
            pytest.skip("root writes into read-only directories")
        (cache / "inductor").mkdir()
        (cache / "inductor").chmod(0o500)
    else:
        (cache / "inductor").write_text("a file where the directory should be")
    try:
        x = torch.randn(5)
        torch.testing.assert_close(_run_inductor(_f, cache, x, autocast=autocast), _f(x))
        assert len(fake_inductor) == 1  # compiled, written elsewhere, loaded from there
        assert how != "read-only" or not list((cache / "inductor").iterdir())
    finally:
        if how == "read-only":
            (cache / "inductor").chmod(0o700)


_INDUCTOR_RUN = textwrap.dedent("""
    import sys, torch, autograph
    from pathlib import Path
    from autograph.backends import inductor
    from autograph.testing import slow_compiler
    inductor.REQUEST_DEFAULTS = dict(slow_compiler.SETTINGS, fake_sleep=float(sys.argv[2]))
    f = lambda x: torch.sigmoid(x) * 2 - x
    x = torch.arange(6.0)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=sys.argv[3] == "autocast"):
        out = autograph.compile(f, backend=inductor.make_inductor_backend(Path(sys.argv[1])))(x)
    assert torch.equal(out, f(x)) and slow_compiler.CALLS
    print("ok")
""")


@pytest.mark.parametrize("autocast", ["plain", "autocast"])
def test_three_processes_share_one_inductor_artifact_cache(tmp_path, autocast):
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    procs = [subprocess.Popen([sys.executable, "-c", _INDUCTOR_RUN, str(tmp_path / "cache"), "0.5", autocast], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    for proc in procs:
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0 and "ok" in out, err[-3000:]
    files = list((tmp_path / "cache" / "inductor").iterdir())
    assert len(files) == 1 and ia.read_payload(files[0])  # one whole file, no temporary left
    again = subprocess.run([sys.executable, "-c", _INDUCTOR_RUN, str(tmp_path / "cache"), "0", autocast], env=env,
                           capture_output=True, text=True, timeout=180)
    assert again.returncode == 0 and "ok" in again.stdout, again.stderr[-3000:]


_REAL_INDUCTOR_RUN = textwrap.dedent("""
    import sys, time, torch, autograph
    import torch._inductor.compile_fx, torch._inductor.standalone_compile
    torch.manual_seed(0)
    lin = torch.nn.Linear(8, 8)
    def f(x):
        return torch.nn.functional.gelu(lin(x)) * 2
    if sys.argv[1] == "warm":  # the second run: neither compiler may run
        def refuse(*a, **k):
            raise AssertionError("compiled on a warm start")
        torch._inductor.compile_fx.compile_fx = refuse
        torch._inductor.standalone_compile.standalone_compile = refuse
        torch._inductor.standalone_compile = refuse
    x = torch.randn(4, 8, requires_grad=True)
    cf = autograph.compile(f, backend="inductor")
    t0 = time.perf_counter()
    out = cf(x)
    first = time.perf_counter() - t0
    out.sum().backward()
    want = f(x)
    torch.testing.assert_close(out, want, rtol=1e-4, atol=1e-5)
    print("first", first)
""")


@pytest.mark.slow
def test_the_inductor_backends_warm_start_loads_the_artifact_with_real_inductor(tmp_path):
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               AUTOGRAPH_CACHE_DIR=str(tmp_path / "autograph"), TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "torch"))
    for run in ("cold", "warm"):
        proc = subprocess.run([sys.executable, "-c", _REAL_INDUCTOR_RUN, run], env=env, capture_output=True,
                              text=True, timeout=900)
        assert proc.returncode == 0, proc.stderr[-4000:]
    assert len(list((tmp_path / "autograph" / "inductor").iterdir())) == 1


@pytest.mark.slow
def test_the_inductor_backend_runs_a_graph_whose_file_cannot_be_saved_without_compiling_it_twice(
        monkeypatch, tmp_path):
    from autograph.backends import inductor

    compiles = []
    real = ia.compile_to_file
    monkeypatch.setattr(ia, "compile_to_file", lambda req: compiles.append(req["key"]) or real(req))
    gm = torch.fx.symbolic_trace(lambda loss: (loss.detach(),))  # nothing for inductor to compile
    loss = torch.randn(3, requires_grad=True)
    compiled = inductor.through_artifact(gm, [loss], tmp_path)
    assert compiled is not None and len(compiles) == 1  # inductor's compile runs; compile_fx is not asked
    assert not (tmp_path / "inductor").exists() or not list((tmp_path / "inductor").iterdir())
    (out,) = compiled(loss)
    assert torch.equal(out, loss) and not out.requires_grad


@pytest.mark.slow
def test_the_inductor_backend_compiles_a_graph_the_artifact_cache_refuses_with_the_artifacts_options(
        monkeypatch, tmp_path):
    """A graph calling a function AOTAutograd's cache cannot vouch for: refused before any compile,
    then compiled by the same standalone_compile under the caller's autocast, not by compile_fx."""
    from torch.nn.utils.clip_grad import _get_total_norm

    from autograph.backends import inductor

    here = []
    real = getattr(ia, "compile_here", None)  # (None on b997d6a, where the graph then stays eager)
    monkeypatch.setattr(ia, "compile_here", lambda req: here.append(req["options"]["autocast"]) or real(req),
                        raising=False)

    graph = torch.fx.Graph()
    xn, wn = graph.placeholder("x"), graph.placeholder("w")
    y = graph.call_function(torch.nn.functional.linear, (xn, wn))
    graph.output((graph.call_function(torch.mul, (y, 2)), graph.call_function(_get_total_norm, ([y],))))
    gm = torch.fx.GraphModule(torch.nn.Module(), graph)
    x, w = torch.randn(4, 8), torch.randn(8, 8, requires_grad=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        compiled = inductor.through_artifact(gm, [x, w], tmp_path)
        assert compiled is not None and here == [(("cpu", "bfloat16"),)]
        got, want = compiled(x, w), gm(x, w)
    assert got[0].dtype == want[0].dtype == torch.bfloat16
    torch.testing.assert_close(got[0], want[0])
    torch.testing.assert_close(got[1], want[1], rtol=2e-2, atol=2e-2)
    assert not list((tmp_path / "inductor").glob("*.bin"))  # no file: compiled again on each start
