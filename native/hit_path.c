/*
 * The C cache-hit path of autograph._native: the HitPath type, base of
 * autograph.runtime.shim.Shim.
 *   _table: (entries, plans, fns) replaced as a whole by Python when an entry is added
 *   _fast:  False when the code object is marked eager (the Python side decides)
 * A call runs the first entry whose plan passes (guard_eval.c decides); anything but a
 * clean hit goes to the Python method ``_slow(args, kwargs)``: misses, mode "off", captures
 * in progress (thread-local check in Python), and calls whose arguments do not bind (Python
 * then raises its own TypeError). Off the C path (autograph/guards/extension.py
 * use_c_path(False)) every call goes to ``self._python_hit(*args, **kwargs)``, the Python hit path.
 */
#include "autograph_native.h"
#include <structmember.h>

static int g_off = 0;         /* settings mode "off" */
static int g_python = 0;      /* the C path is switched off: the Python hit path runs */
/* Compiled code running inside compiled code in this thread (a chain of resume functions
 * is one level per break): past the limit, the shim runs the original function, so a
 * long chain can never exhaust the interpreter's recursion limit. */
static _Thread_local long t_nesting = 0;
static long g_max_nesting = 32;
static long g_captures = 0;   /* captures in progress in any thread */
static PyObject *s_slow, *s_python_hit, *s_hits, *s_one;

typedef struct {
    PyObject_HEAD
    PyObject *table;
    char fast;
} HitPath;

static PyObject *hitpath_slow(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *kw = kwargs ? kwargs : PyDict_New();
    if (!kw) return NULL;
    PyObject *r = PyObject_CallMethodObjArgs(self, s_slow, args, kw, NULL);
    if (!kwargs) Py_DECREF(kw);
    return r;
}

/* Another frame evaluator is installed (TorchDynamo while a thread is in a torch.compile region):
 * Python decides whether this call belongs to torch.compile (autograph/runtime/dynamo.py). */
static inline int foreign_eval_frame(void) {
    return _PyInterpreterState_GetEvalFrameFunc(PyThreadState_GET()->interp) != _PyEval_EvalFrameDefault;
}

static PyObject *hitpath_call(PyObject *op, PyObject *args, PyObject *kwargs) {
    HitPath *self = (HitPath *)op;
    if (g_python) {  /* self._python_hit(*args, **kwargs): the Python hit path */
        PyObject *python_hit = PyObject_GetAttr(op, s_python_hit);
        if (!python_hit) return NULL;
        PyObject *result = PyObject_Call(python_hit, args, kwargs);
        Py_DECREF(python_hit);
        return result;
    }
    PyObject *table = self->table;
    if (!self->fast || g_off || g_captures || t_nesting >= g_max_nesting || !table || !PyTuple_Check(table) ||
        PyTuple_GET_SIZE(table) != 3 || foreign_eval_frame())
        return hitpath_slow(op, args, kwargs);
    PyObject *entries = PyTuple_GET_ITEM(table, 0), *plans = PyTuple_GET_ITEM(table, 1),
             *fns = PyTuple_GET_ITEM(table, 2);
    Py_ssize_t n = PyTuple_GET_SIZE(plans), hit = -1;
    Py_INCREF(table);  /* keep this table alive even if another thread swaps it */
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t r = plan_check(PyTuple_GET_ITEM(plans, i), args, kwargs);
        if (r == -2) { PyErr_Clear(); break; }   /* does not bind: Python reports it */
        if (r == -1) { hit = i; break; }
    }
    if (hit < 0) {
        Py_DECREF(table);
        return hitpath_slow(op, args, kwargs);
    }
    PyObject *entry = PyTuple_GET_ITEM(entries, hit);
    PyObject *hits = PyObject_GetAttr(entry, s_hits);
    if (hits) {
        PyObject *more = PyNumber_Add(hits, s_one);
        Py_DECREF(hits);
        if (more) { PyObject_SetAttr(entry, s_hits, more); Py_DECREF(more); }
    }
    PyErr_Clear();  /* statistics never fail a call */
    PyObject *fn = PyTuple_GET_ITEM(fns, hit);
    Py_INCREF(fn);
    Py_DECREF(table);
    t_nesting++;
    PyObject *result = PyObject_Call(fn, args, kwargs);
    t_nesting--;
    Py_DECREF(fn);
    return result;
}

static int hitpath_traverse(PyObject *op, visitproc visit, void *arg) {
    Py_VISIT(((HitPath *)op)->table);
    return 0;
}

static int hitpath_clear(PyObject *op) {
    Py_CLEAR(((HitPath *)op)->table);
    return 0;
}

/* Python subclasses (Shim) are deallocated by subtype_dealloc, which calls this
   and drops the reference to the heap type itself. */
static void hitpath_dealloc(PyObject *op) {
    PyObject_GC_UnTrack(op);
    hitpath_clear(op);
    Py_TYPE(op)->tp_free(op);
}

static PyMemberDef hitpath_members[] = {
    {"_table", T_OBJECT, offsetof(HitPath, table), 0, "(entries, plans, fns) of the cache"},
    {"_fast", T_BOOL, offsetof(HitPath, fast), 0, "whether the C hit path may run entries"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject HitPathType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "autograph._native.HitPath",
    .tp_basicsize = sizeof(HitPath),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "C cache-hit path; subclassed by autograph.runtime.shim.Shim",
    .tp_call = hitpath_call,
    .tp_traverse = hitpath_traverse,
    .tp_clear = hitpath_clear,
    .tp_dealloc = hitpath_dealloc,
    .tp_members = hitpath_members,
    .tp_new = PyType_GenericNew,
};

/* nesting(delta=0, limit=None) -> this thread's nesting after adding delta; sets the limit when given */
static PyObject *native_nesting(PyObject *self, PyObject *const *argv, Py_ssize_t argc) {
    if (argc > 2) { PyErr_SetString(PyExc_TypeError, "nesting(delta=0, limit=None)"); return NULL; }
    if (argc >= 1) {
        long delta = PyLong_AsLong(argv[0]);
        if (delta == -1 && PyErr_Occurred()) return NULL;
        t_nesting += delta;
    }
    if (argc == 2 && argv[1] != Py_None) {
        long limit = PyLong_AsLong(argv[1]);
        if (limit == -1 && PyErr_Occurred()) return NULL;
        g_max_nesting = limit;
    }
    return PyLong_FromLong(t_nesting);
}

static PyObject *native_set_flags(PyObject *self, PyObject *const *argv, Py_ssize_t argc) {
    if (argc != 2 && argc != 3) {
        PyErr_SetString(PyExc_TypeError, "set_flags(off: bool, captures: int, python: bool = False)");
        return NULL;
    }
    int off = PyObject_IsTrue(argv[0]);
    long captures = PyLong_AsLong(argv[1]);
    int python = argc == 3 ? PyObject_IsTrue(argv[2]) : 0;
    if (off < 0 || python < 0 || (captures == -1 && PyErr_Occurred())) return NULL;
    g_off = off;
    g_captures = captures;
    g_python = python;
    Py_RETURN_NONE;
}


static PyMethodDef hit_path_methods[] = {
    {"nesting", (PyCFunction)(void (*)(void))native_nesting, METH_FASTCALL,
     "nesting(delta=0, limit=None) -> compiled-code nesting of this thread (after adding delta)"},
    {"set_flags", (PyCFunction)(void (*)(void))native_set_flags, METH_FASTCALL,
     "set_flags(off, captures, python=False): switches read by HitPath (settings mode off, captures "
     "in progress, C path switched off)"},
    {NULL, NULL, 0, NULL},
};

int hit_path_init(PyObject *m) {
    s_slow = PyUnicode_InternFromString("_slow");
    s_python_hit = PyUnicode_InternFromString("_python_hit");
    s_hits = PyUnicode_InternFromString("hits");
    s_one = PyLong_FromLong(1);
    if (!s_slow || !s_python_hit || !s_hits || !s_one) return -1;
    if (PyType_Ready(&HitPathType) < 0) return -1;
    Py_INCREF(&HitPathType);
    if (PyModule_AddObject(m, "HitPath", (PyObject *)&HitPathType) < 0) {
        Py_DECREF(&HitPathType);
        return -1;
    }
    return PyModule_AddFunctions(m, hit_path_methods);
}
