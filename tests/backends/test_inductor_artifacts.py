"""The compiled-graph files of background compiles: keys, transport, and a cache that may be damaged or shared."""
from __future__ import annotations

import os
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


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_read_only_cache_puts_the_file_elsewhere(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o500)
    try:
        path = Path(ia.write_artifact(cache / "k.bin", b"abc"))
        assert path.is_file() and path.parent != cache
    finally:
        cache.chmod(0o700)


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
