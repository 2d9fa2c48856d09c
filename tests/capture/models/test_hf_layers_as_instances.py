"""transformers models with only their layer classes compiled (the top-level model classes
denied, so eager code calls each layer): every layer instance shares its class's cache
entries — each layer class compiles at most twice for all layers (a second sequence length
makes one dimension dynamic) — and results and gradients equal a plain run's."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("transformers")
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]

RUN = """
import json, sys, torch
import transformers as T
name, out = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
small = dict(num_attention_heads=4, hidden_size=64, intermediate_size=128, vocab_size=128,
             max_position_embeddings=64)
if name == "gpt2":
    model = T.GPT2LMHeadModel(T.GPT2Config(n_layer=6, n_head=4, n_embd=64, vocab_size=128, n_positions=64))
elif name == "bert":
    model = T.BertModel(T.BertConfig(num_hidden_layers=6, **small))
else:
    model = T.LlamaForCausalLM(T.LlamaConfig(num_hidden_layers=6, num_key_value_heads=2, **small))
model.eval()
ids = torch.randint(0, 128, (2, 16))
results = {}
for step, length in enumerate((16, 12, 9)):
    kwargs = {"input_ids": ids[:, :length]}
    if name != "bert":
        kwargs["use_cache"] = False
    first = model(**kwargs)[0]
    first.float().pow(2).mean().backward()
    results[f"out{step}"] = first.detach().clone()
for pname, p in model.named_parameters():
    if p.grad is not None:
        results["grad." + pname] = p.grad.clone()
torch.save(results, out)
try:
    from autograph.runtime.stats import all_stats
except ImportError:
    stats = []
else:
    stats = [{"qualname": s.qualname, "captures": s.captures, "calls": s.calls, "eager_calls": s.eager_calls,
              "errors": list(s.errors)} for s in all_stats()]
print(json.dumps(stats))
"""

CASES = {
    # model: (package selected, denied top-level classes, layer classes and how many layers each model has)
    "gpt2": ("transformers.models.gpt2", ["GPT2LMHeadModel", "GPT2Model"], {"GPT2Block.forward": 6}),
    "bert": ("transformers.models.bert", ["BertModel", "BertEncoder"], {"BertLayer.forward": 6}),
    "llama": ("transformers.models.llama", ["LlamaForCausalLM", "LlamaModel"], {"LlamaDecoderLayer.forward": 6}),
}


def _run(tmp_path, name: str, env: dict, tag: str) -> tuple[dict, list]:
    import torch

    script = tmp_path / "run.py"
    script.write_text(RUN)
    out = tmp_path / f"{tag}.pt"
    proc = subprocess.run([sys.executable, str(script), name, str(out)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return torch.load(out), json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", sorted(CASES))
def test_layer_classes_compile_at_most_twice_for_all_layers(tmp_path, name):
    import torch

    package, denied, layers = CASES[name]
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRAPH")}
    env["PYTHONPATH"] = str(ROOT)
    plain, _ = _run(tmp_path, name, env, "plain")
    # compile_threshold=1: every call counts from the first (the default hotness policy
    # runs a function's first calls eagerly)
    hooked_env = dict(env, AUTOGRAPH_PACKAGES=package, AUTOGRAPH_BACKEND="eager",
                      AUTOGRAPH_COMPILE_THRESHOLD="1",
                      AUTOGRAPH_DENY=",".join(f"{package}:{cls}" for cls in denied))
    hooked, stats = _run(tmp_path, name, hooked_env, "hooked")
    assert plain.keys() == hooked.keys()
    for key in plain:
        torch.testing.assert_close(hooked[key], plain[key], rtol=1e-5, atol=1e-5, msg=key)
    by_name = {s["qualname"]: s for s in stats}
    for qualname, count in layers.items():
        s = by_name[qualname]
        assert s["calls"] == 3 * count and s["eager_calls"] == 0 and not s["errors"], s
        assert 1 <= s["captures"] <= 2, s
