"""inspect/explain/dump accept functions and modules instrumented by the import hook."""
import sys

import torch

import autograph
from autograph.explain.dump import dump_source
from autograph.settings import Settings


def test_instrumented_function_and_method(tmp_path, monkeypatch):
    pkg = tmp_path / "explainpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "model.py").write_text(
        "import torch\n\n"
        "def toy_example(a, b):\n    x = a / (torch.abs(a) + 1)\n    if b.sum() < 0:\n        b = b * -1\n"
        "    return x * b\n\n"
        "class Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.lin = torch.nn.Linear(4, 3)\n\n    def forward(self, x):\n"
        "        return torch.relu(self.lin(x))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with autograph.install("explainpkg", settings=Settings(backend="eager", compile_threshold=1)):
        from explainpkg import model

        model.toy_example(torch.ones(3), -torch.ones(3))
        net = model.Net()
        net(torch.randn(2, 4))
        text = str(autograph.inspect(model.toy_example))
        assert text.startswith("toy_example (model.py:3) is compiled by autograph. It has 1 cache entry.")
        assert "b = b * -1" in text and "<== resumes here" in text
        net_text = str(autograph.inspect(net))
        assert net_text.startswith("Net.forward (model.py:14) is compiled by autograph. It has 1 cache entry.")
        assert str(autograph.inspect(net.forward)) == net_text
        assert "def forward(self, x):" in dump_source(net)
        out = autograph.explain(net, torch.randn(2, 4))
        assert out.graph_count == 1 and out.ops_per_graph == [["linear", "relu"]]
        out = autograph.explain(model.toy_example, torch.ones(3), -torch.ones(3))
        assert (out.graph_count, out.graph_break_count) == (2, 1)
    sys.modules.pop("explainpkg.model", None)
    sys.modules.pop("explainpkg", None)
