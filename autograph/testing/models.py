"""Small real models with random weights, built from configs (nothing is downloaded).

``build(name)`` returns ``(model, example_kwargs)``. HuggingFace models need the
``models`` extra (transformers); the CNN needs only torch.
"""
from __future__ import annotations

from typing import Any, Callable

import torch
from torch import nn

SEQUENCE = (2, 16)  # (batch, sequence length) of the example input_ids
VOCAB = 128


def _input_ids(seq_len: int = SEQUENCE[1]) -> dict[str, torch.Tensor]:
    return {"input_ids": torch.randint(0, VOCAB, (SEQUENCE[0], seq_len))}


def gpt2() -> nn.Module:
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(n_layer=2, n_head=4, n_embd=64, vocab_size=VOCAB, n_positions=64,
                        bos_token_id=0, eos_token_id=0)
    return GPT2LMHeadModel(config)


def bert() -> nn.Module:
    from transformers import BertConfig, BertModel

    config = BertConfig(num_hidden_layers=2, num_attention_heads=4, hidden_size=64,
                        intermediate_size=128, vocab_size=VOCAB, max_position_embeddings=64)
    return BertModel(config)


def llama() -> nn.Module:
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         hidden_size=64, intermediate_size=128, vocab_size=VOCAB,
                         max_position_embeddings=64, bos_token_id=0, eos_token_id=0)
    return LlamaForCausalLM(config)


class ResidualBlock(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return torch.relu(out + x)


class SmallCNN(nn.Module):
    """conv + batchnorm + residual add + pooling + linear head."""

    def __init__(self, channels: int = 8, classes: int = 10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, channels, 3, padding=1), nn.BatchNorm2d(channels), nn.ReLU())
        self.blocks = nn.Sequential(ResidualBlock(channels), ResidualBlock(channels))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(channels, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.blocks(self.stem(x))
        x = nn.functional.max_pool2d(x, 2)
        return self.head(torch.flatten(self.pool(x), 1))


def cnn() -> nn.Module:
    return SmallCNN()


# small sizes for any transformers architecture built by model type (names a config lacks are skipped)
_SMALL = dict(num_hidden_layers=2, num_attention_heads=4, hidden_size=64, intermediate_size=128,
              vocab_size=VOCAB, max_position_embeddings=64, num_key_value_heads=2, head_dim=16,
              d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
              encoder_ffn_dim=128, decoder_ffn_dim=128, num_layers=2, num_heads=4, d_ff=128, d_kv=16,
              n_layer=2, n_head=4, n_embd=64, num_decoder_layers=2, ffn_dim=128, word_embed_proj_dim=64,
              num_local_experts=4, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=64,
              rotary_dim=16, embedding_size=64, image_size=32, patch_size=8, num_channels=3, embed_dim=32,
              depths=[1, 1], hidden_sizes=[16, 32], num_stages=2, window_size=2)
_VISION = {"vit", "deit", "swin", "convnext", "resnet", "dinov2", "beit", "regnet", "efficientnet"}


def hf_model(model_type: str) -> tuple[nn.Module, dict[str, Any]]:
    """A small transformers model of any architecture (``AutoConfig.for_model``) and its inputs."""
    from transformers import AutoConfig, AutoModel, AutoModelForCausalLM

    config = AutoConfig.for_model(model_type)
    for key, value in _SMALL.items():
        if hasattr(config, key):
            if model_type == "swin" and key == "num_heads":
                value = [2, 4]
            try:
                setattr(config, key, value)
            except (AttributeError, TypeError, ValueError):
                pass
    if model_type in _VISION:
        return AutoModel.from_config(config), {"pixel_values": torch.randn(2, 3, 32, 32)}
    try:
        model = AutoModelForCausalLM.from_config(config)
    except ValueError:  # encoders and encoder-decoders without a causal-LM head
        model = AutoModel.from_config(config)
    inputs = _input_ids(12)
    if getattr(config, "is_encoder_decoder", False):
        inputs["decoder_input_ids"] = inputs["input_ids"][:, :6]
    return model, inputs


_BUILDERS: dict[str, tuple[Callable[[], nn.Module], Callable[[], dict[str, Any]]]] = {
    "gpt2": (gpt2, _input_ids),
    "bert": (bert, _input_ids),
    "llama": (llama, _input_ids),
    "cnn": (cnn, lambda: {"x": torch.randn(4, 3, 16, 16)}),
}

NAMES = tuple(_BUILDERS)


def build(name: str, *, seed: int = 0) -> tuple[nn.Module, dict[str, Any]]:
    """The model ``name`` with seeded random weights and example keyword inputs.

    ``"hf:<model_type>"`` builds any transformers architecture small (``hf_model``).
    """
    if name.startswith("hf:"):
        torch.manual_seed(seed)
        return hf_model(name[3:])
    if name not in _BUILDERS:
        raise KeyError(f"unknown model {name!r}; known: {', '.join(NAMES)}")
    make_model, make_inputs = _BUILDERS[name]
    torch.manual_seed(seed)
    model = make_model()
    return model, make_inputs()
