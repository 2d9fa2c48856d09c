"""capture's engine: the bytecode interpreter, FX graph building, codegen and ``capture()``.

Imports ``core`` and ``families``; nothing imports it but the rest of autograph.
"""
