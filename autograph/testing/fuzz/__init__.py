"""Differential fuzzing: random small PyTorch programs, run eager and compiled, compared.

A compiled function must behave exactly like eager. The generator writes the *source
text* of small Python modules (a function ``fn`` plus helper functions, closures,
``nn.Module``s and the module-level objects ``fn`` uses), execs each into two fresh
module namespaces backed by a real file (so a bytecode-level compiler sees real code
objects and line numbers), calls ``fn`` several times — fresh random inputs, the same
tensor for two parameters once, a different int, batch size and string — with the
program's ``between_calls(call)`` run before each call (attributes appear and disappear,
globals are rebound), and compares eager with compiled on everything a caller can
observe: returned values and their identity (paired over all calls: an input returned as
itself, a fresh object per call), raised exceptions (type, message, arguments,
attributes, a fresh object per call), mutated arguments (tensors, lists, dicts, the
caller's object, the position of iterators and generators passed in), module globals
and the objects they hold (models with their gradients and train flags, optimizers' and
schedulers' ``state_dict``, where generators stand), printed output.

Modules: ``program`` (Program, Param, the call plan), ``choosers``, ``generator``
(ProgramBuilder: tensor code, control flow, helpers, modules), ``constructs`` (the
Python-level constructs: strings, dict views, attributes, iterators, identity, ``out=``,
rebound globals, exceptions, fresh objects), ``mode_constructs`` (grad modes, tensor
queries), ``training_constructs`` (a model, optimizer and LR scheduler trained across calls:
backward, ``.grad``, hooks, ``no_grad`` updates, train/eval), ``flow_constructs`` (keys whose
hash/== count their calls, NumPy ints, errors leaving ``with`` blocks mid-graph, generators
read a little per call), ``fixtures`` (module-level objects and
``between_calls``), ``loading``, ``diff`` (value/identity comparison), ``harness``
(running and comparing), ``minimize``, ``regression`` (regression files, isolated
checks), ``compilers``.

Public pieces:
* ``generate_program(seed)`` / ``programs()`` — the generator (plain ``random`` or a
  hypothesis strategy; both drive the same ``ProgramBuilder``).
* ``check_program(program, compiler)`` — the differential checker; returns the
  ``Difference`` s found (empty list: compiled behaved like eager).
* ``minimize(program, compiler, difference)`` — removes statements while the same
  kind of difference persists, for readable regression tests.
* ``regression_test_source(...)`` — the text of a regression test file.
* ``autograph_compiler()`` / ``dynamo_compiler()`` — compilers to check.
"""
from __future__ import annotations

from autograph.testing.fuzz.choosers import DrawChooser, RandomChooser
from autograph.testing.fuzz.compilers import (autograph_compiler, dynamo_compiler,
                                              identity_compiler)
from autograph.testing.fuzz.diff import Pairing, Tolerance, diff_values
from autograph.testing.fuzz.generator import ProgramBuilder, generate_program, programs
from autograph.testing.fuzz.harness import (Difference, Outcome, ProgramTimeout, check_program, compare_call,
                                            eager_outcomes, format_failure, run_call, touch)
from autograph.testing.fuzz.loading import load_program, unload_program
from autograph.testing.fuzz.minimize import minimize
from autograph.testing.fuzz.program import (ALIAS_CALL, ALT_INT_CALL, ALT_SHAPE_CALL, ALT_STR_CALL, BETWEEN_CALLS,
                                            CALLS, DEFAULT_CONFIG, ENTRY, EXACTNESS_FEATURES, FEATURES, STATE_FEATURES,
                                            Compiler, FuzzConfig, Param, Program, call_dims, make_inputs)
from autograph.testing.fuzz.regression import (check_program_isolated, describe_exit, regression_file_name,
                                               regression_test_source)

__all__ = [
    "ALIAS_CALL", "ALT_INT_CALL", "ALT_SHAPE_CALL", "ALT_STR_CALL", "BETWEEN_CALLS", "CALLS", "DEFAULT_CONFIG",
    "ENTRY", "EXACTNESS_FEATURES", "FEATURES", "Compiler", "Difference", "DrawChooser", "FuzzConfig", "Outcome",
    "Pairing", "Param", "Program", "ProgramBuilder", "ProgramTimeout", "RandomChooser", "STATE_FEATURES", "Tolerance",
    "autograph_compiler", "call_dims", "check_program", "check_program_isolated",
    "compare_call", "describe_exit", "diff_values", "dynamo_compiler", "eager_outcomes", "format_failure",
    "generate_program", "identity_compiler", "load_program", "make_inputs", "minimize", "programs",
    "regression_file_name", "regression_test_source", "run_call", "touch", "unload_program",
]
