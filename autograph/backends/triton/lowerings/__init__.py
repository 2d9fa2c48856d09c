"""aten/prims op lowerings, one module per family; importing them fills ``lower.LOWERINGS``."""
