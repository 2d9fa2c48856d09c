"""Every value family is installed by ``families/install.py``, whichever capture module is imported first."""
import json
import os
import subprocess
import sys

import pytest

# one handler per family, by the table it lands in: ``(table, key expression, handler's module)``
_PROBE = r"""
import collections, functools, importlib, json, logging, sys
importlib.import_module(sys.argv[1])
import autograph.capture.engine.api  # noqa: F401  (what every compile goes through)
from autograph.capture.core import registry as r

def owner(fn):
    return getattr(fn, "__module__", None)

out = {
    "super": owner(r.BUILTIN_HANDLERS.get(super)),
    "len": owner(r.BUILTIN_HANDLERS.get(len)),
    "functools.reduce": owner(r.BUILTIN_HANDLERS.get(functools.reduce)),
    "set": owner(r.BUILTIN_HANDLERS.get(set)),
    "collections.namedtuple": owner(r.BUILTIN_HANDLERS.get(collections.namedtuple)),
    "zip": owner(r.BUILTIN_HANDLERS.get(zip)),
    "generator factory": owner(r.generator_factory()),
    "last class-call hook": owner(r.CLASS_CALL_HOOKS[-1]) if r.CLASS_CALL_HOOKS else None,
    "manual_seed breaks": "manual_seed" in r.TORCH_BREAKS,
    "autocast breaks": "_enter_autocast" in r.TORCH_BREAKS,
    "opaque call rules": [owner(f) for f in r.OPAQUE_CALL_RULES],
    "deque wrapper": owner(r.TYPE_WRAPPERS.get(collections.deque)),
    "logger wrapper": owner(r.TYPE_WRAPPERS.get(logging.Logger)),
    "torch.cond": owner(r.TORCH_CALL_OVERRIDES.get(__import__("torch").cond)),
    "random.Random wrapper": owner(r.TYPE_WRAPPERS.get(__import__("random").Random)),
}
try:
    import numpy
    out["ndarray wrapper"] = owner(r.TYPE_WRAPPERS.get(numpy.ndarray))
except ImportError:
    pass
print(json.dumps(out))
"""

_V = "autograph.capture.families."
_EXPECTED = {
    "super": _V + "user_objects",  # replaces the core builtins' entry: user_objects installs after builtins
    "len": _V + "builtins",
    "functools.reduce": _V + "reduce",
    "set": _V + "sets",
    "collections.namedtuple": _V + "named_tuples",
    "zip": _V + "itertools_values",  # itertools wraps the core handler
    "generator factory": _V + "generators",
    "last class-call hook": _V + "user_objects",  # any other class: asked last
    "manual_seed breaks": True,
    "autocast breaks": True,
    "opaque call rules": [_V + "frames", _V + "cached_calls", _V + "side_effects"],
    "deque wrapper": _V + "collections_values",
    "logger wrapper": _V + "side_effects",
    "torch.cond": _V + "cond_branches",
    "random.Random wrapper": _V + "random_draws",
}


@pytest.mark.parametrize("first", ["autograph.capture.engine.api", "autograph.capture.core.registry", _V + "reduce", _V + "contexts",
                                   _V + "generators"])
def test_every_family_is_installed_whichever_module_is_imported_first(first):
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-c", _PROBE, first], capture_output=True, text=True, env=env,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    if "ndarray wrapper" in got:
        assert got.pop("ndarray wrapper") == _V + "numpy_values"
    assert got == _EXPECTED


def test_installing_twice_changes_nothing():
    from autograph.capture.families import install as families
    from autograph.capture.core import registry
    tables = {name: getattr(registry, name) for name in dir(registry) if name.isupper()}
    before = {name: (dict(t) if isinstance(t, dict) else list(t) if isinstance(t, list) else set(t))
              for name, t in tables.items()}
    families.install_all()
    assert {name: (dict(t) if isinstance(t, dict) else list(t) if isinstance(t, list) else set(t))
            for name, t in tables.items()} == before
