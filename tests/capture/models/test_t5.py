"""T5 (encoder-decoder, random weights, small config) called inside ``with torch.no_grad():`` from a
compiled function: one graph, no break. Its cache set-up deep-copies the config and renames keys
on the copy (families/private.py); the ``with`` block is interpreted (families/contexts.py)."""
from __future__ import annotations

import pytest
import torch

pytest.importorskip("transformers")

from autograph.testing.compare import assert_same  # noqa: E402
from tests.capture.harness import Harness  # noqa: E402

pytestmark = pytest.mark.slow


def _model(cls_name: str):
    import transformers
    torch.manual_seed(0)
    config = transformers.T5Config(vocab_size=128, d_model=64, d_kv=16, d_ff=128, num_layers=2,
                                   num_decoder_layers=2, num_heads=4, dropout_rate=0.0)
    return getattr(transformers, cls_name)(config).eval()


def run_t5(model, input_ids, decoder_input_ids):
    with torch.no_grad():
        out = model(input_ids=input_ids, decoder_input_ids=decoder_input_ids)
    return out


def _tensors(out):
    return [out[k] for k in ("logits", "last_hidden_state", "encoder_last_hidden_state") if out.get(k) is not None]


@pytest.mark.parametrize("cls_name", ["T5Model", "T5ForConditionalGeneration"])
def test_t5_in_no_grad_is_one_graph_without_breaks(cls_name):
    model = _model(cls_name)
    ids = torch.randint(0, 128, (2, 12))
    dec = torch.randint(0, 128, (2, 6))
    h = Harness()
    f = h.compile(run_t5)
    out = f(model, ids, dec)
    ref = run_t5(model, ids, dec)
    assert not h.breaks, [f"{b.reason} at {b.filename}:{b.lineno}" for b in h.breaks]
    assert len(h.backend.graphs) == 1
    assert_same(_tensors(ref), _tensors(out))
    assert not out[_tensors_key(out)].requires_grad
    n = h.captures
    out2 = f(model, torch.randint(0, 128, (2, 12)), torch.randint(0, 128, (2, 6)))
    assert h.captures == n  # a second call with new inputs reuses the entry
    assert _tensors(out2)


def _tensors_key(out):
    return "logits" if out.get("logits") is not None else "last_hidden_state"
