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
static PyObject *s_slow, *s_plan, *s_python_hit, *s_hits, *s_one;
/* autograph/runtime/frames.py: the cleaner of an exception leaving a compiled call (set_frame_hooks) */
static PyObject *g_cleaner = NULL;

/* ------------------------------------------------------------ TailCall
 * What a compiled entry returns instead of calling its resume function itself
 * (``return __tail(resume, *args)``): the shim calls it, so the entry's frame is gone by then
 * and a user's function is one frame deep however many graph breaks it has.
 * The arguments are held inline and passed on by vectorcall (no tuple). Not tracked by the GC:
 * a TailCall lives from the entry's return to the shim's call, referenced only by the shim's C
 * code (or finish_tail's frame, which lets it go before the call), so it is never in a cycle;
 * an untracked object also costs no GC link and does not count towards a collection. */
typedef struct {
    PyObject_VAR_HEAD
    PyObject *fn;
    PyObject *items[1];   /* ob_size arguments */
} TailCall;

static PyTypeObject TailCallType;

/* A few freed TailCalls of up to TAILCALL_SMALL arguments kept for the next (one per graph break
 * of each hit: no allocator call on the common path). Touched with the GIL held only. */
#define TAILCALL_SMALL 8
#define TAILCALL_KEPT 4
static PyObject *g_tailcall_kept[TAILCALL_KEPT];
static int g_tailcall_nkept = 0;

/* A TailCall of fn(*args[0:n]) (new references). */
static PyObject *tailcall_make(PyObject *fn, PyObject *const *args, Py_ssize_t n) {
    TailCall *self;
    if (n <= TAILCALL_SMALL && g_tailcall_nkept > 0) {
        self = (TailCall *)g_tailcall_kept[--g_tailcall_nkept];
    } else {
        Py_ssize_t room = n <= TAILCALL_SMALL ? TAILCALL_SMALL : n;
        self = (TailCall *)PyObject_Malloc(offsetof(TailCall, items) + (size_t)room * sizeof(PyObject *));
        if (!self) return PyErr_NoMemory();
    }
    PyObject_InitVar((PyVarObject *)self, &TailCallType, n);
    self->fn = Py_NewRef(fn);
    for (Py_ssize_t i = 0; i < n; i++) self->items[i] = Py_NewRef(args[i]);
    return (PyObject *)self;
}

static PyObject *tailcall_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    if ((kwargs && PyDict_GET_SIZE(kwargs)) || PyTuple_GET_SIZE(args) < 1) {
        PyErr_SetString(PyExc_TypeError, "TailCall(fn, *args)");
        return NULL;
    }
    return tailcall_make(PyTuple_GET_ITEM(args, 0), &PyTuple_GET_ITEM(args, 1), PyTuple_GET_SIZE(args) - 1);
}

/* TailCall(fn, *args) called from bytecode: no argument tuple of the call itself (CPython's
 * CALL takes a type's vectorcall) and none of its own. */
static PyObject *tailcall_vectorcall(PyObject *type, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if ((kwnames && PyTuple_GET_SIZE(kwnames)) || nargs < 1) {
        PyErr_SetString(PyExc_TypeError, "TailCall(fn, *args)");
        return NULL;
    }
    return tailcall_make(args[0], args + 1, nargs - 1);
}

static void tailcall_dealloc(PyObject *op) {
    TailCall *self = (TailCall *)op;
    Py_DECREF(self->fn);
    Py_ssize_t n = Py_SIZE(self);
    for (Py_ssize_t i = 0; i < n; i++) Py_DECREF(self->items[i]);
    if (n <= TAILCALL_SMALL && g_tailcall_nkept < TAILCALL_KEPT) {  /* room for TAILCALL_SMALL: kept */
        g_tailcall_kept[g_tailcall_nkept++] = op;
        return;
    }
    PyObject_Free(op);
}

static PyObject *tailcall_args(PyObject *op, void *closure) {
    TailCall *self = (TailCall *)op;
    PyObject *args = PyTuple_New(Py_SIZE(self));
    if (!args) return NULL;
    for (Py_ssize_t i = 0, n = Py_SIZE(self); i < n; i++) PyTuple_SET_ITEM(args, i, Py_NewRef(self->items[i]));
    return args;
}

static PyMemberDef tailcall_members[] = {
    {"fn", T_OBJECT, offsetof(TailCall, fn), READONLY, "the resume function to call"},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef tailcall_getset[] = {
    {"args", tailcall_args, NULL, "its arguments (a new tuple)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject TailCallType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "autograph._native.TailCall",
    .tp_basicsize = offsetof(TailCall, items),
    .tp_itemsize = sizeof(PyObject *),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "TailCall(fn, *args): a call a compiled entry leaves to its shim",
    .tp_dealloc = tailcall_dealloc,
    .tp_members = tailcall_members,
    .tp_getset = tailcall_getset,
    .tp_new = tailcall_new,
    .tp_vectorcall = tailcall_vectorcall,
};

/* The value of a call whose result may be a TailCall (steals ``result``). */
static PyObject *finish_tail(PyObject *result) {
    while (result && Py_IS_TYPE(result, &TailCallType)) {
        TailCall *tail = (TailCall *)result;
        PyObject *next = PyObject_Vectorcall(tail->fn, tail->items, Py_SIZE(tail), NULL);
        Py_DECREF(result);
        result = next;
    }
    return result;
}

/* An exception leaves a compiled call: the cleaner drops autograph's frames from its traceback
 * (autograph/runtime/frames.py). Never fails: the exception stays as it was if the cleaner does. */
static void clean_traceback(void) {
    if (!g_cleaner) return;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value && tb && PyExceptionInstance_Check(value)) {
        PyException_SetTraceback(value, tb);
        PyObject *r = PyObject_CallOneArg(g_cleaner, value);
        if (r) {
            Py_DECREF(r);
            PyObject *cleaned = PyException_GetTraceback(value);
            Py_DECREF(tb);
            tb = cleaned;
        } else {
            PyErr_Clear();
        }
    }
    PyErr_Restore(type, value, tb);
}

/* The rare outcomes of a call (steals ``result``): a TailCall resolved, an exception's traceback cleaned. */
static PyObject *finish_call(PyObject *result) {
    result = finish_tail(result);
    if (!result) clean_traceback();
    return result;
}

/* run(*args, **kwargs) as the shim's call: the common outcome (a plain value) costs two tests. */
static inline PyObject *run_call(PyObject *run, PyObject *args, PyObject *kwargs) {
    PyObject *result = PyObject_Call(run, args, kwargs);
    if (result == NULL || Py_IS_TYPE(result, &TailCallType)) return finish_call(result);
    return result;
}

typedef struct {
    PyObject_HEAD
    PyObject *table;
    char fast;
} HitPath;

/* Dynamo's query for this thread's eval-frame callback (set_region_query; None until torch is loaded) */
static PyObject *g_region_query = NULL;

/* This thread may be in a torch.compile region: another frame evaluator is installed and, when
 * Dynamo's query is known, this thread's callback is set (Dynamo's evaluator stays installed
 * after an error left a region: then this thread is not in one). Python decides what such a call
 * does (autograph/runtime/dynamo.py). */
static inline int foreign_eval_frame(void) {
    if (_PyInterpreterState_GetEvalFrameFunc(PyThreadState_GET()->interp) == _PyEval_EvalFrameDefault)
        return 0;
    if (!g_region_query) return 1;
    PyObject *callback = PyObject_CallNoArgs(g_region_query);
    if (!callback) { PyErr_Clear(); return 1; }
    int in_region = callback != Py_None;
    Py_DECREF(callback);
    return in_region;
}

/* Anything but a clean hit. Python's ``_plan(args, kwargs)`` decides what runs -- the original,
 * an entry, a fresh capture's entry -- and returns ``(run, done)``; this calls ``run`` and then
 * ``done()`` (when not None), so no frame of autograph's sits between the caller and the user's
 * code. Inside a Dynamo region ``_slow`` runs the call in Python as before (dynamo.py). */
static PyObject *hitpath_slow(PyObject *self, PyObject *args, PyObject *kwargs) {
    PyObject *kw = kwargs ? kwargs : PyDict_New();
    if (!kw) return NULL;
    if (foreign_eval_frame()) {
        PyObject *r = PyObject_CallMethodObjArgs(self, s_slow, args, kw, NULL);
        if (!kwargs) Py_DECREF(kw);
        return r;
    }
    PyObject *plan = PyObject_CallMethodObjArgs(self, s_plan, args, kw, NULL);
    if (!kwargs) Py_DECREF(kw);
    if (!plan) return NULL;
    if (!PyTuple_Check(plan) || PyTuple_GET_SIZE(plan) != 2) {
        Py_DECREF(plan);
        PyErr_SetString(PyExc_SystemError, "Shim._plan must return (run, done)");
        return NULL;
    }
    PyObject *run = PyTuple_GET_ITEM(plan, 0), *done = PyTuple_GET_ITEM(plan, 1);
    PyObject *result = run_call(run, args, kwargs);
    if (done != Py_None) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyObject *r = PyObject_CallNoArgs(done);
        if (r) {
            Py_DECREF(r);
            PyErr_Restore(type, value, tb);
        } else if (result) {  /* done() failed after a clean run: its error is the call's */
            Py_CLEAR(result);
        } else {
            PyErr_Clear();
            PyErr_Restore(type, value, tb);
        }
    }
    Py_DECREF(plan);
    return result;
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
    if (result == NULL || Py_IS_TYPE(result, &TailCallType)) {  /* rare: outside the common path */
        t_nesting++;  /* the resume function runs at the entry's nesting */
        result = finish_call(result);
        t_nesting--;
    }
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


/* ------------------------------------------------------------ WrapperCall
 * The import hook's wrapt wrapper function, ``wrapper(wrapped, instance, args, kwargs)``, made in C
 * so the call of a wrapped function has no Python frame of autograph's: ``shim(*args, **kwargs)``,
 * or ``shim(instance, *args, **kwargs)`` when bound (a method) and the binding passes it. */
typedef struct {
    PyObject_HEAD
    PyObject *shim;
    char pass_instance;
} WrapperCall;

static PyObject *wrappercall_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *shim;
    int pass_instance;
    if (kwargs && PyDict_GET_SIZE(kwargs)) {
        PyErr_SetString(PyExc_TypeError, "WrapperCall(shim, pass_instance)");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "Op:WrapperCall", &shim, &pass_instance)) return NULL;
    WrapperCall *self = (WrapperCall *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    self->shim = Py_NewRef(shim);
    self->pass_instance = (char)pass_instance;
    return (PyObject *)self;
}

static PyObject *wrappercall_call(PyObject *op, PyObject *args, PyObject *kwargs) {
    WrapperCall *self = (WrapperCall *)op;
    if (PyTuple_GET_SIZE(args) != 4 || (kwargs && PyDict_GET_SIZE(kwargs)) ||
        !PyTuple_Check(PyTuple_GET_ITEM(args, 2))) {
        PyErr_SetString(PyExc_TypeError, "wrapper(wrapped, instance, args, kwargs)");
        return NULL;
    }
    PyObject *instance = PyTuple_GET_ITEM(args, 1), *call_args = PyTuple_GET_ITEM(args, 2),
             *call_kwargs = PyTuple_GET_ITEM(args, 3);
    if (call_kwargs == Py_None || (PyDict_Check(call_kwargs) && !PyDict_GET_SIZE(call_kwargs))) call_kwargs = NULL;
    if (!self->pass_instance || instance == Py_None)
        return PyObject_Call(self->shim, call_args, call_kwargs);
    Py_ssize_t n = PyTuple_GET_SIZE(call_args);
    PyObject *full = PyTuple_New(n + 1);
    if (!full) return NULL;
    PyTuple_SET_ITEM(full, 0, Py_NewRef(instance));
    for (Py_ssize_t i = 0; i < n; i++) PyTuple_SET_ITEM(full, i + 1, Py_NewRef(PyTuple_GET_ITEM(call_args, i)));
    PyObject *result = PyObject_Call(self->shim, full, call_kwargs);
    Py_DECREF(full);
    return result;
}

static int wrappercall_traverse(PyObject *op, visitproc visit, void *arg) {
    Py_VISIT(((WrapperCall *)op)->shim);
    return 0;
}

static int wrappercall_clear(PyObject *op) {
    Py_CLEAR(((WrapperCall *)op)->shim);
    return 0;
}

static void wrappercall_dealloc(PyObject *op) {
    PyObject_GC_UnTrack(op);
    wrappercall_clear(op);
    Py_TYPE(op)->tp_free(op);
}

static PyMemberDef wrappercall_members[] = {
    {"shim", T_OBJECT, offsetof(WrapperCall, shim), READONLY, "the shim called"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject WrapperCallType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "autograph._native.WrapperCall",
    .tp_basicsize = sizeof(WrapperCall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "WrapperCall(shim, pass_instance): the import hook's wrapt wrapper function, in C",
    .tp_call = wrappercall_call,
    .tp_traverse = wrappercall_traverse,
    .tp_clear = wrappercall_clear,
    .tp_dealloc = wrappercall_dealloc,
    .tp_members = wrappercall_members,
    .tp_new = wrappercall_new,
};

/* set_frame_hooks(cleaner): the callable an exception leaving a compiled call is handed to (or None) */
static PyObject *native_set_frame_hooks(PyObject *self, PyObject *cleaner) {
    Py_XDECREF(g_cleaner);
    g_cleaner = cleaner == Py_None ? NULL : Py_NewRef(cleaner);
    Py_RETURN_NONE;
}

/* set_region_query(query): query() is this thread's Dynamo eval-frame callback (None outside a region) */
static PyObject *native_set_region_query(PyObject *self, PyObject *query) {
    Py_XDECREF(g_region_query);
    g_region_query = query == Py_None ? NULL : Py_NewRef(query);
    Py_RETURN_NONE;
}

static PyMethodDef hit_path_methods[] = {
    {"set_region_query", native_set_region_query, METH_O,
     "set_region_query(query): query() -> this thread's Dynamo eval-frame callback, asked when another "
     "frame evaluator is installed"},
    {"set_frame_hooks", native_set_frame_hooks, METH_O,
     "set_frame_hooks(cleaner): cleaner(exc) edits the traceback of an exception leaving a compiled call"},
    {"nesting", (PyCFunction)(void (*)(void))native_nesting, METH_FASTCALL,
     "nesting(delta=0, limit=None) -> compiled-code nesting of this thread (after adding delta)"},
    {"set_flags", (PyCFunction)(void (*)(void))native_set_flags, METH_FASTCALL,
     "set_flags(off, captures, python=False): switches read by HitPath (settings mode off, captures "
     "in progress, C path switched off)"},
    {NULL, NULL, 0, NULL},
};

int hit_path_init(PyObject *m) {
    s_slow = PyUnicode_InternFromString("_slow");
    s_plan = PyUnicode_InternFromString("_plan");
    s_python_hit = PyUnicode_InternFromString("_python_hit");
    s_hits = PyUnicode_InternFromString("hits");
    s_one = PyLong_FromLong(1);
    if (!s_slow || !s_plan || !s_python_hit || !s_hits || !s_one) return -1;
    if (PyType_Ready(&HitPathType) < 0 || PyType_Ready(&TailCallType) < 0 || PyType_Ready(&WrapperCallType) < 0)
        return -1;
    Py_INCREF(&TailCallType);
    if (PyModule_AddObject(m, "TailCall", (PyObject *)&TailCallType) < 0) {
        Py_DECREF(&TailCallType);
        return -1;
    }
    Py_INCREF(&WrapperCallType);
    if (PyModule_AddObject(m, "WrapperCall", (PyObject *)&WrapperCallType) < 0) {
        Py_DECREF(&WrapperCallType);
        return -1;
    }
    Py_INCREF(&HitPathType);
    if (PyModule_AddObject(m, "HitPath", (PyObject *)&HitPathType) < 0) {
        Py_DECREF(&HitPathType);
        return -1;
    }
    return PyModule_AddFunctions(m, hit_path_methods);
}
