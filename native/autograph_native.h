/*
 * autograph._native, shared between its files (Python C API only, no torch headers):
 *   guard_eval.c  evaluates a plan (the guards of one cache entry) for one call
 *   hit_path.c    the HitPath type: the per-call cache-hit path over a shim's entries
 *   method_lookup.c  LOAD_METHOD's lookup for method calls the transformed code makes
 *   module.c      the module: each file adds its functions, types and constants
 * The plan's opcodes and node kinds are the Python ones (autograph/guards/kinds.py `Op`,
 * autograph/guards/extension.py `N_*`); the module exports its values and
 * autograph/guards/extension.py refuses an extension whose values differ.
 */
#ifndef AUTOGRAPH_NATIVE_H
#define AUTOGRAPH_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Index of the first failing guard of plan, -1 when all pass; -2 error (exception set). */
Py_ssize_t plan_check(PyObject *plan, PyObject *args, PyObject *kwargs);

/* Add each file's functions, types and constants to the module; 0 ok, -1 error. */
int guard_eval_init(PyObject *module);
int hit_path_init(PyObject *module);
int method_lookup_init(PyObject *module);

/* Add the (name, value) integer constants to the module; 0 ok, -1 error. */
typedef struct { const char *name; long value; } NativeConstant;
int add_constants(PyObject *module, const NativeConstant *constants, size_t n);

#endif
