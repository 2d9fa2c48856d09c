/*
 * autograph._native: the guard evaluator (guard_eval.c) and the C hit path (hit_path.c)
 * in one extension module; see autograph/guards/native.py and autograph/runtime/shim.py.
 */
#include "autograph_native.h"

int add_constants(PyObject *m, const NativeConstant *constants, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (PyModule_AddIntConstant(m, constants[i].name, constants[i].value) < 0) return -1;
    return 0;
}

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "autograph._native",
    "Guard fast path of autograph (see autograph/guards/native.py).", -1, NULL,
    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (guard_eval_init(m) < 0 || hit_path_init(m) < 0 || method_lookup_init(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
