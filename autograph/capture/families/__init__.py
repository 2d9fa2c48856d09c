"""capture's modelled-value families (one module per family) and the builder.

Imports ``core`` only; families plug into the engine through ``core.registry``.
"""
