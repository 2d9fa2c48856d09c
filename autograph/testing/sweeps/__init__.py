"""Sweeps: generators that write whole classes of constructs, and one runner that checks them.

Each sweep module (``attributes``, ``blocks``, ``effects``) exposes
``cases(seed: int) -> Iterator[SweepCase]``; ``runner`` runs a case eagerly and compiled and
compares everything a caller can observe (``case.SweepCase`` states the contract).
"""
