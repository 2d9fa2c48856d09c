"""A tiny model package for autograph's demo: ordinary PyTorch code, no autograph in it.

``python -m autograph run examples/train.py`` compiles it because
``config/autograph.yaml`` selects ``tinymodels``.
"""
from tinymodels.layers import MLP, Attention, RMSNorm, swiglu
from tinymodels.model import TinyTransformer

__all__ = ["Attention", "MLP", "RMSNorm", "TinyTransformer", "swiglu"]
