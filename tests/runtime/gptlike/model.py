"""The nanoGPT-shaped model of ``tests/programs/nanogpt/model.py``, defined again in this module.

That file belongs to a program run on its own (its directory is the working directory and
``AUTOGRAPH_PACKAGES=model`` selects it), so it stays self-contained. The tests here select
this package by name (``AUTOGRAPH_PACKAGES=tests.runtime.gptlike``, ``autograph.install``), and
``scripts/bench_beside_torch_compile.py`` loads a second, plain copy from this file: both need
the classes defined in this module. Running the program's source here gives one text for both.
"""
from pathlib import Path

_PROGRAM_MODEL = Path(__file__).resolve().parents[2] / "programs" / "nanogpt" / "model.py"
_doc = __doc__
exec(compile(_PROGRAM_MODEL.read_text(encoding="utf-8"), str(_PROGRAM_MODEL), "exec"), globals())
__doc__ = _doc
