"""The benchmark workloads: a model, a batch maker, a loss, and one training and one inference step.

A workload's steps are plain functions of this module's siblings (``models``), so the import
hook selects them by naming ``autograph.testing.programs``. Batches are made once per run
from a seeded generator: a step's time is the model's, not the data's.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import torch
import torch.nn.functional as F

from autograph.testing.programs import models


@dataclass(frozen=True)
class Workload:
    """One benchmark program: ``make_model()``, ``make_batch(gen)`` and the loss on a batch."""

    name: str
    make_model: Callable[[], torch.nn.Module]
    make_batch: Callable[[torch.Generator], tuple]
    loss: Callable[[torch.nn.Module, tuple], torch.Tensor]
    infer: Callable[[torch.nn.Module, tuple], Any]

    def build(self, seed: int = 0) -> tuple[torch.nn.Module, torch.optim.Optimizer, tuple]:
        """The model (seeded), its Adam optimizer and one batch."""
        torch.manual_seed(seed)
        model = self.make_model()
        gen = torch.Generator().manual_seed(seed)
        return model, torch.optim.Adam(model.parameters(), lr=1e-3), self.make_batch(gen)


def train_step(workload: Workload, model: torch.nn.Module, opt: torch.optim.Optimizer, batch: tuple) -> float:
    """One optimizer step; returns the loss as a float (a real synchronisation point)."""
    opt.zero_grad(set_to_none=True)
    loss = workload.loss(model, batch)
    loss.backward()
    opt.step()
    return loss.item()


def infer_step(workload: Workload, model: torch.nn.Module, batch: tuple) -> Any:
    """One forward under ``no_grad``."""
    with torch.no_grad():
        return workload.infer(model, batch)


def _tokens(vocab: int, batch: int, seq: int) -> Callable[[torch.Generator], tuple]:
    def make(gen: torch.Generator) -> tuple:
        idx = torch.randint(0, vocab, (batch, seq + 1), generator=gen)
        return idx[:, :-1].contiguous(), idx[:, 1:].contiguous()
    return make


def _lm_loss(model: torch.nn.Module, batch: tuple) -> torch.Tensor:
    idx, target = batch
    logits = model(idx)
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), target.reshape(-1))


def _lm_infer(model: torch.nn.Module, batch: tuple) -> torch.Tensor:
    return model(batch[0])


def _images(batch: int, size: int, classes: int) -> Callable[[torch.Generator], tuple]:
    def make(gen: torch.Generator) -> tuple:
        return torch.randn(batch, 3, size, size, generator=gen), torch.randint(0, classes, (batch,), generator=gen)
    return make


def _class_loss(model: torch.nn.Module, batch: tuple) -> torch.Tensor:
    return F.cross_entropy(model(batch[0]), batch[1])


def _denoise_batch(gen: torch.Generator) -> tuple:
    clean = torch.randn(4, 3, 32, 32, generator=gen)
    return clean + 0.1 * torch.randn(clean.shape, generator=gen), clean


def _denoise_loss(model: torch.nn.Module, batch: tuple) -> torch.Tensor:
    return F.mse_loss(model(batch[0]), batch[1])


def _bert_batch(gen: torch.Generator) -> tuple:
    idx = torch.randint(0, 256, (8, 32), generator=gen)
    pad = torch.zeros(8, 32, dtype=torch.bool)
    pad[:, 28:] = True
    return idx, pad, torch.randint(0, 2, (8,), generator=gen)


def _bert_loss(model: torch.nn.Module, batch: tuple) -> torch.Tensor:
    return F.cross_entropy(model(batch[0], batch[1]), batch[2])


def _bert_infer(model: torch.nn.Module, batch: tuple) -> torch.Tensor:
    return model(batch[0], batch[1])


def _first_input(model: torch.nn.Module, batch: tuple) -> torch.Tensor:
    return model(batch[0])


WORKLOADS: dict[str, Workload] = {
    "gpt": Workload("gpt", models.GPT, _tokens(256, 8, 32), _lm_loss, _lm_infer),
    "resnet": Workload("resnet", models.ResNet, _images(8, 32, 10), _class_loss, _first_input),
    "unet": Workload("unet", models.UNet, _denoise_batch, _denoise_loss, _first_input),
    "bert": Workload("bert", models.BERT, _bert_batch, _bert_loss, _bert_infer),
    "llama": Workload("llama", models.Llama, _tokens(256, 8, 32), _lm_loss, _lm_infer),
}
