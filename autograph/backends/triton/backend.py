"""Placeholder entry point of the Triton backend (being written): runs eager."""
from __future__ import annotations

import logging

log = logging.getLogger("autograph.backends.triton")


class TritonBackend:
    def __init__(self, cache_dir=None):
        self.cache_dir = cache_dir

    def __call__(self, gm, example_inputs):
        log.warning("triton backend not implemented yet; running eager")
        return gm.forward
