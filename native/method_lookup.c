/*
 * unbound_method(obj, name): the descriptor CPython's LOAD_METHOD would call with `obj` as its
 * first argument for `obj.name(...)`, or None when LOAD_METHOD binds (or looks the name up some
 * other way). The transformed code calls every method left pending at a graph break through it
 * (autograph/capture/engine/python_methods.py, whose `_python_unbound_method` is the Python twin
 * used without this extension); in Python the lookup walked the MRO at every call.
 *
 * The rule is _PyObject_GetMethod's: the type's tp_getattro is the generic one, the name found
 * on the type is a method descriptor (Py_TPFLAGS_METHOD_DESCRIPTOR: a function, a builtin
 * method_descriptor), and the instance's __dict__ does not shadow it. Nothing is looked up
 * through Python code: no descriptor's __get__, no __getattr__.
 */
#include "autograph_native.h"

static PyObject *native_unbound_method(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "unbound_method(obj, name) takes 2 arguments");
        return NULL;
    }
    PyObject *obj = args[0], *name = args[1];
    PyTypeObject *tp = Py_TYPE(obj);
    if (tp->tp_getattro != PyObject_GenericGetAttr || !PyUnicode_CheckExact(name)) Py_RETURN_NONE;
    PyObject *descr = _PyType_Lookup(tp, name);  /* borrowed; NULL (no exception) when absent */
    if (descr == NULL || !PyType_HasFeature(Py_TYPE(descr), Py_TPFLAGS_METHOD_DESCRIPTOR)) Py_RETURN_NONE;
    Py_INCREF(descr);
    PyObject **dictptr = _PyObject_GetDictPtr(obj);
    if (dictptr != NULL && *dictptr != NULL) {
        PyObject *dict = *dictptr;
        Py_INCREF(dict);
        int shadowed = PyDict_Contains(dict, name);
        Py_DECREF(dict);
        if (shadowed != 0) {
            Py_DECREF(descr);
            if (shadowed < 0) return NULL;
            Py_RETURN_NONE;
        }
    }
    return descr;
}

static PyMethodDef method_lookup_methods[] = {
    {"unbound_method", (PyCFunction)(void (*)(void))native_unbound_method, METH_FASTCALL,
     "unbound_method(obj, name) -> the descriptor LOAD_METHOD calls unbound for obj.name(...), or None"},
    {NULL, NULL, 0, NULL},
};

int method_lookup_init(PyObject *m) {
    return PyModule_AddFunctions(m, method_lookup_methods);
}
