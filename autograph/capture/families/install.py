"""Every value family's ``install()``, called once, in one order: capture's wiring in one place.

A family is a module of ``families/`` that models some kind of Python or library object and
registers its handlers into the tables of ``core/registry.py`` (builtin handlers, class-call
hooks, torch-call overrides, type wrappers, ...). Nothing registers at import time: the
interpreter calls :func:`install_all` once, at the end of its own import (no family
imports the engine at all: ``tests/test_architecture.py``).

The order is part of the behaviour. Class-call hooks are tried newest first, so a family later
in the list is asked before an earlier one (numpy before collections before itertools ...);
``user_objects`` appends its hook last of all (any other class), and ``enums`` (last in the
list) is asked first, before ``user_objects`` refuses the enum metaclass; ``itertools_values`` and
``numpy_values`` wrap handlers ``builtins`` registered (``zip``, ``abs``), so come after it;
``register_*(..., replace=False)`` keeps the first family's entry.
"""
from __future__ import annotations

from autograph.capture.families import (
    builtins, cached_calls, checkpoints, collections_values, cond_branches, contexts, dict_new, distributed, enums, exception_state,
    frames, func_transforms, generators, interpreted_keys, itertools_values, live_iterators, mapping_proxies,
    modules, named_tuples, object_ids, object_keyed_dicts, outside_generators, partials, private,
    profiler_ranges, random_draws, reduce, regex, scripted, saved_tensors_hooks, sdpa_kernel, set_subclasses, sets,
    side_effects, sorting, stdlib, tensor_grouping, tensor_hooks, torch_calls, torch_objects, typed_dicts,
    user_objects, weakrefs, with_exits,
)

try:
    from autograph.capture.families import numpy_values
except ImportError:  # NumPy is optional: without it no ndarray ever reaches capture
    numpy_values = None  # type: ignore[assignment]

# the order is part of the behaviour (see the module docstring)
FAMILIES = [frames, builtins, cached_calls, torch_calls, tensor_grouping, modules, contexts, sdpa_kernel,
            saved_tensors_hooks, distributed, func_transforms, cond_branches, checkpoints, live_iterators, named_tuples,
            object_ids, object_keyed_dicts, partials, private, random_draws, profiler_ranges, reduce, regex, sets,
            interpreted_keys, mapping_proxies, dict_new, set_subclasses, sorting, stdlib, exception_state,
            torch_objects, weakrefs, typed_dicts, scripted, tensor_hooks,
            itertools_values, collections_values,
            *([numpy_values] if numpy_values is not None else []), side_effects, generators, outside_generators, with_exits,
            user_objects, enums]

_installed = False


def install_all() -> None:
    """Register every value family into the capture tables (idempotent)."""
    global _installed
    if _installed:
        return
    _installed = True
    for family in FAMILIES:
        family.install()
