"""Torch-free bytecode layer: normalised instructions, assembly, liveness, resume code.

Import the submodules directly (``autograph.bytecode.instructions`` ...); this
package imports nothing so that it stays cheap.
"""
