/*
 * The guard evaluator of autograph._native: one plan, one call.
 *
 * A "plan" (built by autograph/guards/native.py from a GuardSet) is a tuple
 *   (npos, nrequired, has_varargs, None, nodes, guards, fallback,
 *    positional_names, kwonly_names, nposonly, has_varkw)
 * nodes:  tuple of (kind, a, b) describing how to reach each guarded value;
 *         a node only depends on earlier nodes, values are computed lazily.
 * guards: tuple of (op, node_or_nodes, e1, e2, ...).
 * fallback: the generated Python check (same signature as the function),
 *         used when the call does not bind (Python then raises its TypeError).
 * Keyword arguments are bound here as Python binds them: a positional parameter
 * named by keyword, keyword-only parameters, and the rest into **kwargs.
 * Decisions (and the index of the first failing guard) are identical to the
 * generated Python check in autograph/guards/check.py; a guard whose
 * evaluation raises fails.
 */
#include "autograph_native.h"
#include <math.h>

/* node kinds (autograph/guards/extension.py N_*) and guard opcodes (autograph/guards/kinds.py Op) */
enum { N_POS = 0, N_VARARGS = 1, N_CONST = 2, N_GLOBAL = 3, N_GLOBAL_OR_BUILTIN = 4,
       N_CELL = 5, N_ATTR = 6, N_ITEM = 7, N_CALL = 8, N_KWONLY = 9, N_VARKW = 10, N_APPLY = 11,
       N_ITER_ITEMS = 12, N_ITER_SEQUENCE = 13 };
enum { G_TENSOR = 0, G_TYPE = 1, G_ID = 2, G_CONST = 3, G_LEN = 4, G_EQ = 5, G_CALL = 6, G_NO_KEY = 7,
       G_NO_HOOKS = 8, G_IS = 9, G_KEYS = 10, G_ITEMS_LEFT = 11, G_HAS_KEY = 12, G_HAS_ATTR = 13,
       G_IS_INSTANCE = 14, G_IDENTITY_PATTERN = 15 };

#define MAX_NODES 1024

static PyObject *s_dtype, *s_device, *s_requires_grad, *s_size, *s_stride, *s_is_contiguous;

typedef struct {
    PyObject *args;       /* the call's positional args (borrowed) */
    PyObject *kwargs;     /* the call's keyword args (borrowed), NULL when none */
    PyObject *plan;       /* borrowed */
    PyObject *nodes;      /* borrowed */
    PyObject *values[MAX_NODES];  /* owned or NULL */
    Py_ssize_t nvalues;
} Frame;

static void frame_clear(Frame *f) {
    for (Py_ssize_t i = 0; i < f->nvalues; i++) Py_CLEAR(f->values[i]);
}

/* Index of name in a tuple of str, or -1. */
static Py_ssize_t name_index(PyObject *names, PyObject *name) {
    Py_ssize_t n = PyTuple_GET_SIZE(names);
    for (Py_ssize_t i = 0; i < n; i++)
        if (PyTuple_GET_ITEM(names, i) == name) return i;
    for (Py_ssize_t i = 0; i < n; i++)
        if (PyUnicode_Compare(PyTuple_GET_ITEM(names, i), name) == 0) return i;
    return -1;
}

/* Whether keyword arguments bind to the plan's parameters like Python binds them
 * (no duplicate, no unexpected keyword, every required positional parameter given). */
static int kwargs_bind(PyObject *plan, Py_ssize_t nargs, PyObject *kwargs) {
    if (PyTuple_GET_SIZE(plan) < 11) return 0;
    PyObject *pos = PyTuple_GET_ITEM(plan, 7), *kwonly = PyTuple_GET_ITEM(plan, 8);
    Py_ssize_t nposonly = PyLong_AsSsize_t(PyTuple_GET_ITEM(plan, 9));
    Py_ssize_t nrequired = PyLong_AsSsize_t(PyTuple_GET_ITEM(plan, 1));
    int varkw = PyTuple_GET_ITEM(plan, 10) == Py_True;
    Py_ssize_t it = 0, supplied = 0;
    PyObject *key, *value;
    while (PyDict_Next(kwargs, &it, &key, &value)) {
        if (!PyUnicode_Check(key)) return 0;
        Py_ssize_t i = name_index(pos, key);
        if (i >= nposonly) {
            if (i < nargs) return 0;         /* given twice */
            if (i < nrequired) supplied++;
            continue;
        }
        if (name_index(kwonly, key) >= 0) continue;
        if (!varkw) return 0;                /* unexpected keyword */
    }
    return supplied == (nrequired > nargs ? nrequired - nargs : 0);
}

/* The **kwargs dict of the call: keywords that name no positional-or-keyword or
 * keyword-only parameter, in call order. */
static PyObject *varkw_dict(Frame *f) {
    PyObject *d = PyDict_New();
    if (!d || !f->kwargs) return d;
    PyObject *pos = PyTuple_GET_ITEM(f->plan, 7), *kwonly = PyTuple_GET_ITEM(f->plan, 8);
    Py_ssize_t nposonly = PyLong_AsSsize_t(PyTuple_GET_ITEM(f->plan, 9));
    Py_ssize_t it = 0;
    PyObject *key, *value;
    while (PyDict_Next(f->kwargs, &it, &key, &value)) {
        if (name_index(pos, key) >= nposonly || name_index(kwonly, key) >= 0) continue;
        if (PyDict_SetItem(d, key, value) < 0) { Py_DECREF(d); return NULL; }
    }
    return d;
}

/* The fields CPython's list and tuple iterators share (listiterobject, tupleiterobject): the
 * index of the next item and the sequence, NULL once exhausted. guard_eval_init checks this
 * layout on live iterators; when it does not hold, their __length_hint__ is called (or
 * a node's reader) instead. */
typedef struct {
    PyObject_HEAD
    Py_ssize_t it_index;
    PyObject *it_seq;
} SeqIter;
static int g_seqiter_layout = 0;

/* An N_ITER_ITEMS / N_ITER_SEQUENCE node read in place: for a list or tuple iterator over an
 * exact list or tuple, the items it will still yield (a new tuple: what the reader's
 * tuple(seq[index:]) gives) or the sequence it walks (None once exhausted or when empty: what
 * its __reduce__ names). Returns 1 with *out set (NULL on error), 0 when `it` is another kind of
 * iterator (or the layout is not known): the node's reader is called instead. */
static int seq_iter_read(PyObject *it, int sequence, PyObject **out) {
    if (!g_seqiter_layout || (Py_TYPE(it) != &PyListIter_Type && Py_TYPE(it) != &PyTupleIter_Type)) return 0;
    SeqIter *s = (SeqIter *)it;
    PyObject *seq = s->it_seq;
    if (seq && !PyList_CheckExact(seq) && !PyTuple_CheckExact(seq)) return 0;  /* a subclass slices its own way */
    if (sequence) {
        *out = seq && Py_SIZE(seq) ? seq : Py_None;
        Py_INCREF(*out);
        return 1;
    }
    Py_ssize_t start = s->it_index, n = seq ? Py_SIZE(seq) : 0;
    if (start >= n) { *out = PyTuple_New(0); return 1; }
    if (PyTuple_CheckExact(seq)) { *out = PyTuple_GetSlice(seq, start, n); return 1; }
    PyObject *items = PyTuple_New(n - start);
    if (items)
        for (Py_ssize_t i = start; i < n; i++) {
            PyObject *x = PyList_GET_ITEM(seq, i);
            Py_INCREF(x);
            PyTuple_SET_ITEM(items, i - start, x);
        }
    *out = items;
    return 1;
}

/* New reference to node i's value, or NULL with an exception set. */
static PyObject *node_value(Frame *f, Py_ssize_t i) {
    if (f->values[i]) { Py_INCREF(f->values[i]); return f->values[i]; }
    PyObject *node = PyTuple_GET_ITEM(f->nodes, i);
    long kind = PyLong_AsLong(PyTuple_GET_ITEM(node, 0));
    PyObject *a = PyTuple_GET_ITEM(node, 1), *b = PyTuple_GET_ITEM(node, 2);
    PyObject *v = NULL, *base = NULL;
    switch (kind) {
    case N_POS: {  /* (N_POS, index, default, name) */
        Py_ssize_t idx = PyLong_AsSsize_t(a);
        if (idx < PyTuple_GET_SIZE(f->args)) v = PyTuple_GET_ITEM(f->args, idx);
        else if (f->kwargs) v = PyDict_GetItemWithError(f->kwargs, PyTuple_GET_ITEM(node, 3));
        if (!v && !PyErr_Occurred()) v = b;  /* the default (binding was checked up front) */
        Py_XINCREF(v);
        break;
    }
    case N_KWONLY:  /* (N_KWONLY, name, default) */
        v = f->kwargs ? PyDict_GetItemWithError(f->kwargs, a) : NULL;
        if (!v && !PyErr_Occurred()) v = b;
        Py_XINCREF(v);
        break;
    case N_VARKW:
        v = varkw_dict(f);
        break;
    case N_VARARGS: {
        Py_ssize_t start = PyLong_AsSsize_t(a), n = PyTuple_GET_SIZE(f->args);
        v = PyTuple_GetSlice(f->args, start < n ? start : n, n);
        break;
    }
    case N_CONST: v = a; Py_INCREF(v); break;
    case N_GLOBAL:
        v = PyDict_GetItemWithError(a, b);
        if (v) Py_INCREF(v);
        else if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, b);
        break;
    case N_GLOBAL_OR_BUILTIN: {
        /* same order as the Python twin: ___G.get(name, ___B[name]) */
        PyObject *builtins = PyTuple_GET_ITEM(b, 1), *name = PyTuple_GET_ITEM(b, 0);
        PyObject *bv = PyObject_GetItem(builtins, name);
        if (!bv) break;
        v = PyDict_GetItemWithError(a, name);
        if (v) { Py_INCREF(v); Py_DECREF(bv); }
        else if (PyErr_Occurred()) Py_DECREF(bv);
        else v = bv;
        break;
    }
    case N_CELL:
        v = PyCell_GET(a);
        if (v) Py_INCREF(v); else PyErr_SetString(PyExc_ValueError, "Cell is empty");
        break;
    case N_ATTR:
        base = node_value(f, PyLong_AsSsize_t(a));
        if (base) { v = PyObject_GetAttr(base, b); Py_DECREF(base); }
        break;
    case N_ITEM:
        base = node_value(f, PyLong_AsSsize_t(a));
        if (base) { v = PyObject_GetItem(base, b); Py_DECREF(base); }
        break;
    case N_CALL:
        v = PyObject_Call(a, b, NULL);
        break;
    case N_APPLY:  /* (N_APPLY, base node, reader): reader(base) */
        base = node_value(f, PyLong_AsSsize_t(a));
        if (base) { v = PyObject_CallOneArg(b, base); Py_DECREF(base); }
        break;
    case N_ITER_ITEMS:     /* (kind, iterator node, reader): reader(it), read in place where */
    case N_ITER_SEQUENCE:  /* seq_iter_read can */
        base = node_value(f, PyLong_AsSsize_t(a));
        if (base) {
            if (!seq_iter_read(base, kind == N_ITER_SEQUENCE, &v)) v = PyObject_CallOneArg(b, base);
            Py_DECREF(base);
        }
        break;
    default:
        PyErr_Format(PyExc_SystemError, "autograph._native: unknown node kind %ld", kind);
    }
    if (v && !f->values[i]) { Py_INCREF(v); f->values[i] = v; }
    return v;
}

/* Python's `a == b` truthiness (no identity shortcut, like the generated code). 1/0, -1 error. */
static int py_eq(PyObject *a, PyObject *b) {
    PyObject *r = PyObject_RichCompare(a, b, Py_EQ);
    if (!r) return -1;
    int t = PyObject_IsTrue(r);
    Py_DECREF(r);
    return t;
}

/* check_const: same type, equal; tuples element by element. */
static int const_eq(PyObject *v, PyObject *e) {
    if (Py_TYPE(v) != Py_TYPE(e)) return 0;
    if (PyTuple_CheckExact(e)) {
        Py_ssize_t n = PyTuple_GET_SIZE(e);
        if (PyTuple_GET_SIZE(v) != n) return 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            int r = const_eq(PyTuple_GET_ITEM(v, i), PyTuple_GET_ITEM(e, i));
            if (r != 1) return r;
        }
        return 1;
    }
    if (v == Py_None || PyBool_Check(v)) return v == e;
    if (PyFloat_CheckExact(e)) {  /* 0.0 == -0.0, yet 1 / x, copysign and repr tell them apart */
        double a = PyFloat_AS_DOUBLE(v), b = PyFloat_AS_DOUBLE(e);
        return a == b && signbit(a) == signbit(b);
    }
    if (PyComplex_CheckExact(e)) {
        Py_complex a = PyComplex_AsCComplex(v), b = PyComplex_AsCComplex(e);
        return a.real == b.real && a.imag == b.imag && signbit(a.real) == signbit(b.real)
            && signbit(a.imag) == signbit(b.imag);
    }
    return py_eq(v, e);
}

/* Compare a torch.Size / stride tuple with expected (None entries = dynamic). */
static int dims_eq(PyObject *got, PyObject *expected) {
    if (!got) return -1;
    if (!PyTuple_Check(got)) { Py_DECREF(got); return 0; }
    Py_ssize_t n = PyTuple_GET_SIZE(expected);
    int ok = PyTuple_GET_SIZE(got) == n;
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        PyObject *e = PyTuple_GET_ITEM(expected, i);
        if (e == Py_None) continue;
        PyObject *g = PyTuple_GET_ITEM(got, i);
        if (g == e) continue;
        Py_ssize_t gi = PyLong_AsSsize_t(g);
        if (gi == -1 && PyErr_Occurred()) { Py_DECREF(got); return -1; }
        ok = gi == PyLong_AsSsize_t(e);
    }
    Py_DECREF(got);
    return ok;
}

/* The 64-bit value of a torch DispatchKeySet object. pybind11 keeps a small C++ value
 * behind a pointer stored right after PyObject_HEAD (its "simple layout"); DispatchKeySet
 * is one uint64_t. This reads pybind's layout, so autograph/guards/native.py only uses it
 * after checking, at load time, that it agrees with raw_repr() on several distinct key sets;
 * otherwise plans carry None and the comparison goes through ==. */
static unsigned long long keyset_raw(PyObject *keys) {
    void *value = *(void **)((char *)keys + sizeof(PyObject));
    return value ? *(unsigned long long *)value : ~0ULL;
}

static PyObject *native_keyset_raw(PyObject *self, PyObject *keys) {
    return PyLong_FromUnsignedLongLong(keyset_raw(keys));
}

/* Reading a tensor's dispatch keys without calling torch._C._dispatch_keys (~0.3 us, most of a
 * TENSOR_MATCH): a torch tensor object holds its TensorImpl pointer at a fixed offset after
 * PyObject_HEAD (THPVariable::cdata), and the TensorImpl holds key_set_ at a fixed offset.
 * autograph/guards/native.py finds both offsets by probing live tensors against _cdata and
 * _dispatch_keys(t).raw_repr(), verifies them on other tensors, and only then enables the
 * direct read with set_tensor_layout(); until then (or when probing fails) -1 disables it. */
static Py_ssize_t g_cdata_off = -1, g_keys_off = -1;
#define MAX_IMPL_PROBE 200  /* sizeof(TensorImpl) is at least this on 64-bit builds */

static int tensor_keys_direct(PyObject *t, unsigned long long *out) {
    if (g_keys_off < 0) return 0;
    const char *impl = *(const char *const *)((const char *)t + g_cdata_off);
    if (!impl) return 0;
    *out = *(const unsigned long long *)(impl + g_keys_off);
    return 1;
}

/* probe_object_word(obj, offset): the pointer-sized word at offset inside obj's own struct */
static PyObject *native_probe_object_word(PyObject *self, PyObject *const *argv, Py_ssize_t argc) {
    Py_ssize_t off = argc == 2 ? PyLong_AsSsize_t(argv[1]) : -1;
    if (off == -1 && PyErr_Occurred()) return NULL;
    if (argc != 2 || off < (Py_ssize_t)sizeof(PyObject) || off % sizeof(void *) ||
        off + (Py_ssize_t)sizeof(void *) > Py_TYPE(argv[0])->tp_basicsize) {
        PyErr_SetString(PyExc_ValueError, "probe_object_word(obj, offset): offset outside the object");
        return NULL;
    }
    return PyLong_FromVoidPtr(*(void **)((char *)argv[0] + off));
}

/* probe_impl_word(tensor, cdata_offset, offset): the 64-bit word at offset inside the TensorImpl */
static PyObject *native_probe_impl_word(PyObject *self, PyObject *const *argv, Py_ssize_t argc) {
    if (argc != 3) { PyErr_SetString(PyExc_TypeError, "probe_impl_word(tensor, cdata_offset, offset)"); return NULL; }
    Py_ssize_t coff = PyLong_AsSsize_t(argv[1]), off = PyLong_AsSsize_t(argv[2]);
    if (PyErr_Occurred()) return NULL;
    if (coff < (Py_ssize_t)sizeof(PyObject) || coff % sizeof(void *) ||
        coff + (Py_ssize_t)sizeof(void *) > Py_TYPE(argv[0])->tp_basicsize ||
        off < 0 || off % 8 || off + 8 > MAX_IMPL_PROBE) {
        PyErr_SetString(PyExc_ValueError, "probe_impl_word: offset out of range");
        return NULL;
    }
    const char *impl = *(const char *const *)((const char *)argv[0] + coff);
    if (!impl) Py_RETURN_NONE;
    return PyLong_FromUnsignedLongLong(*(const unsigned long long *)(impl + off));
}

static PyObject *native_set_tensor_layout(PyObject *self, PyObject *const *argv, Py_ssize_t argc) {
    if (argc != 2) { PyErr_SetString(PyExc_TypeError, "set_tensor_layout(cdata_offset, keys_offset)"); return NULL; }
    Py_ssize_t coff = PyLong_AsSsize_t(argv[0]), koff = PyLong_AsSsize_t(argv[1]);
    if (PyErr_Occurred()) return NULL;
    if (coff < 0 || koff < 0) { g_cdata_off = g_keys_off = -1; Py_RETURN_NONE; }
    if (coff < (Py_ssize_t)sizeof(PyObject) || coff % sizeof(void *) || koff % 8 || koff + 8 > MAX_IMPL_PROBE) {
        PyErr_SetString(PyExc_ValueError, "set_tensor_layout: offsets out of range");
        return NULL;
    }
    g_cdata_off = coff;
    g_keys_off = koff;
    Py_RETURN_NONE;
}

/* tensor_keys(t): the raw key set read directly (None when the layout is not enabled);
 * the caller guarantees t is a torch tensor */
static PyObject *native_tensor_keys(PyObject *self, PyObject *t) {
    unsigned long long raw;
    if (!tensor_keys_direct(t, &raw)) Py_RETURN_NONE;
    return PyLong_FromUnsignedLongLong(raw);
}

/* Sizes and strides read straight from the TensorImpl's SizesAndStrides (c10): a word holding
 * the number of dimensions, then (up to C10_SIZES_AND_STRIDES_MAX_INLINE_SIZE = 5 dimensions)
 * the sizes inline, then the strides inline. autograph/guards/tensor_layout.py finds the offset
 * by probing live tensors against size()/stride(), verifies it on others and only then enables
 * it with set_tensor_dims_layout(); -1 disables. Only used for tensors whose dispatch keys were
 * just read directly and matched a plain dense key set (their sizes policy is the default one). */
static Py_ssize_t g_dims_off = -1;
#define DIMS_INLINE 5

/* 1: *ndim set and sizes/strides point at the inline storage; 0: not readable this way */
static int tensor_dims_direct(PyObject *t, Py_ssize_t *ndim, const long long **sizes, const long long **strides) {
    if (g_dims_off < 0 || g_cdata_off < 0) return 0;
    const char *impl = *(const char *const *)((const char *)t + g_cdata_off);
    if (!impl) return 0;
    unsigned long long n = *(const unsigned long long *)(impl + g_dims_off);
    if (n > DIMS_INLINE) return 0;
    *ndim = (Py_ssize_t)n;
    *sizes = (const long long *)(impl + g_dims_off + 8);
    *strides = *sizes + DIMS_INLINE;
    return 1;
}

static PyObject *native_set_tensor_dims_layout(PyObject *self, PyObject *offset) {
    Py_ssize_t off = PyLong_AsSsize_t(offset);
    if (off == -1 && PyErr_Occurred()) return NULL;
    if (off < 0) { g_dims_off = -1; Py_RETURN_NONE; }
    if (off % 8 || off + 8 * (1 + 2 * DIMS_INLINE) > MAX_IMPL_PROBE) {
        PyErr_SetString(PyExc_ValueError, "set_tensor_dims_layout: offset out of range");
        return NULL;
    }
    g_dims_off = off;
    Py_RETURN_NONE;
}

/* tensor_dims(t): (sizes, strides) read directly; None when disabled or beyond the inline storage;
 * the caller guarantees t is a torch tensor */
static PyObject *native_tensor_dims(PyObject *self, PyObject *t) {
    Py_ssize_t n;
    const long long *sizes, *strides;
    if (!tensor_dims_direct(t, &n, &sizes, &strides)) Py_RETURN_NONE;
    PyObject *a = PyTuple_New(n), *b = PyTuple_New(n);
    if (!a || !b) { Py_XDECREF(a); Py_XDECREF(b); return NULL; }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLongLong(sizes[i]), *y = PyLong_FromLongLong(strides[i]);
        if (!x || !y) { Py_XDECREF(x); Py_XDECREF(y); Py_DECREF(a); Py_DECREF(b); return NULL; }
        PyTuple_SET_ITEM(a, i, x);
        PyTuple_SET_ITEM(b, i, y);
    }
    return Py_BuildValue("(NN)", a, b);
}

/* expected dims (a tuple, None entries dynamic) against n words; 1 equal, 0 not, -1 error */
static int words_eq(const long long *got, Py_ssize_t n, PyObject *expected) {
    if (!PyTuple_Check(expected) || PyTuple_GET_SIZE(expected) != n) return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = PyTuple_GET_ITEM(expected, i);
        if (e == Py_None) continue;
        long long want = PyLong_AsLongLong(e);
        if (want == -1 && PyErr_Occurred()) return -1;
        if (got[i] != want) return 0;
    }
    return 1;
}

/* The same decision as the generic TENSOR_MATCH below for a plan marked dims_direct (g[14]):
 * keys first (read directly), then sizes and strides read directly. -2: not applicable here,
 * take the generic path. Class, dtype and requires_grad were checked by the caller. */
static int tensor_check_direct(PyObject *t, PyObject *g) {
    if (PyTuple_GET_SIZE(g) <= 14 || PyTuple_GET_ITEM(g, 14) != Py_True || PyTuple_GET_ITEM(g, 13) != Py_True)
        return -2;
    unsigned long long raw;
    Py_ssize_t n;
    const long long *sizes, *strides;
    if (!tensor_keys_direct(t, &raw)) return -2;
    unsigned long long want = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(g, 11));
    if (PyErr_Occurred()) return -1;
    if (raw != want) return 0;
    if (!tensor_dims_direct(t, &n, &sizes, &strides)) return -2;
    int ok = words_eq(sizes, n, PyTuple_GET_ITEM(g, 6));
    if (ok != 1) return ok;
    ok = words_eq(strides, n, PyTuple_GET_ITEM(g, 7));
    if (ok != 1) return ok;
    if (PyTuple_GET_ITEM(g, 4) != Py_None) {
        PyObject *x = PyObject_GetAttr(t, s_device);
        if (!x) return -1;
        ok = py_eq(x, PyTuple_GET_ITEM(g, 4));
        Py_DECREF(x);
    }
    return ok;
}

/* (op, node, cls, dtype, device, requires_grad, sizes, strides, keys, keys_fn[, keys_type, keys_raw,
 *  strides_by_contiguity, keys_direct[, dims_direct]]) */
static int tensor_check(PyObject *t, PyObject *g) {
    if ((PyObject *)Py_TYPE(t) != PyTuple_GET_ITEM(g, 2)) return 0;
    PyObject *x = PyObject_GetAttr(t, s_dtype);
    if (!x) return -1;
    int ok = x == PyTuple_GET_ITEM(g, 3);
    Py_DECREF(x);
    if (!ok) return 0;
    x = PyObject_GetAttr(t, s_requires_grad);
    if (!x) return -1;
    ok = x == PyTuple_GET_ITEM(g, 5);
    Py_DECREF(x);
    if (!ok) return 0;
    ok = tensor_check_direct(t, g);
    if (ok != -2) return ok;
    ok = dims_eq(PyObject_CallMethodNoArgs(t, s_size), PyTuple_GET_ITEM(g, 6));
    if (ok != 1) return ok;
    if (PyTuple_GET_SIZE(g) > 12 && PyTuple_GET_ITEM(g, 12) == Py_True) {
        /* sizes all >= 2 and expected strides row-major: equal strides <=> is_contiguous() */
        x = PyObject_CallMethodNoArgs(t, s_is_contiguous);
        if (!x) return -1;
        ok = x == Py_True;
        Py_DECREF(x);
    } else {
        ok = dims_eq(PyObject_CallMethodNoArgs(t, s_stride), PyTuple_GET_ITEM(g, 7));
    }
    if (ok != 1) return ok;
    if (PyTuple_GET_ITEM(g, 4) != Py_None) {  /* None: a CPU device, pinned by the dispatch keys */
        x = PyObject_GetAttr(t, s_device);
        if (!x) return -1;
        ok = py_eq(x, PyTuple_GET_ITEM(g, 4));
        Py_DECREF(x);
        if (ok != 1) return ok;
    }
    if (PyTuple_GET_SIZE(g) > 13 && PyTuple_GET_ITEM(g, 13) == Py_True) {
        unsigned long long raw;  /* cls (checked above) is a torch tensor type */
        if (tensor_keys_direct(t, &raw)) {
            unsigned long long want = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(g, 11));
            return PyErr_Occurred() ? -1 : raw == want;
        }
    }
    x = PyObject_CallOneArg(PyTuple_GET_ITEM(g, 9), t);
    if (!x) return -1;
    if (PyTuple_GET_SIZE(g) > 11 && PyTuple_GET_ITEM(g, 11) != Py_None &&
        (PyObject *)Py_TYPE(x) == PyTuple_GET_ITEM(g, 10)) {
        /* verified layout (see keyset_raw): compare the 64-bit key sets, skipping pybind's == */
        unsigned long long want = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(g, 11));
        ok = !PyErr_Occurred() && keyset_raw(x) == want;
        Py_DECREF(x);
        return PyErr_Occurred() ? -1 : ok;
    }
    ok = py_eq(x, PyTuple_GET_ITEM(g, 8));
    Py_DECREF(x);
    return ok;
}

/* NO_HOOKS: each v.__dict__[name] (names: a tuple of str) is empty; a missing entry or an
 * object without an instance dict fails. Same as autograph.guards.model.no_hooks_hold. */
static int no_hooks_check(PyObject *v, PyObject *names) {
    PyObject *d = PyObject_GenericGetDict(v, NULL);
    if (!d) return -1;
    int ok = 1;
    Py_ssize_t n = PyTuple_GET_SIZE(names);
    for (Py_ssize_t i = 0; ok == 1 && i < n; i++) {
        PyObject *x = PyDict_GetItemWithError(d, PyTuple_GET_ITEM(names, i));
        if (!x) { ok = PyErr_Occurred() ? -1 : 0; break; }
        Py_ssize_t size = PyDict_Check(x) ? PyDict_GET_SIZE(x) : PyObject_Size(x);
        ok = size < 0 ? -1 : size == 0;
    }
    Py_DECREF(d);
    return ok;
}

/* One key of a DICT_KEYS guard (kinds.keys_match): the same object, or (by value) of the same
 * type and equal. */
static int key_eq(PyObject *a, PyObject *b, int by_value) {
    if (a == b) return 1;
    if (!by_value || Py_TYPE(a) != Py_TYPE(b)) return 0;
    return py_eq(a, b);
}

/* DICT_KEYS: len(d) is len(keys) and iter(d) yields keys first, in order (kinds.keys_match).
 * A plain dict is read in place with PyDict_Next, which walks its entries in the order its
 * iterator yields them; a size change while a key compares (Python code in an __eq__) fails as
 * the iterator's RuntimeError does. Any other mapping goes through len() and iter(). */
static int keys_check(PyObject *d, PyObject *keys, PyObject *by_value) {
    Py_ssize_t n = PyTuple_GET_SIZE(keys);
    int ok = 1;
    if (PyDict_CheckExact(d)) {
        Py_ssize_t used = PyDict_GET_SIZE(d), pos = 0;
        PyObject *k, *value;
        if (used != n) return 0;
        for (Py_ssize_t i = 0; ok == 1 && i < n; i++) {
            if (PyDict_GET_SIZE(d) != used) return -1;  /* "dictionary changed size during iteration" */
            if (!PyDict_Next(d, &pos, &k, &value)) return 0;
            Py_INCREF(k);
            ok = key_eq(k, PyTuple_GET_ITEM(keys, i), PyTuple_GET_ITEM(by_value, i) == Py_True);
            Py_DECREF(k);
        }
        return ok;
    }
    Py_ssize_t size = PyObject_Size(d);
    if (size < 0) return -1;
    if (size != n) return 0;
    PyObject *it = PyObject_GetIter(d);
    if (!it) return -1;
    for (Py_ssize_t i = 0; ok == 1 && i < n; i++) {
        PyObject *k = PyIter_Next(it);
        if (!k) { ok = PyErr_Occurred() ? -1 : 0; break; }
        ok = key_eq(k, PyTuple_GET_ITEM(keys, i), PyTuple_GET_ITEM(by_value, i) == Py_True);
        Py_DECREF(k);
    }
    Py_DECREF(it);
    return ok;
}


/* How many items a list or tuple iterator will still yield (its __length_hint__);
 * -2 when `it` is another kind of iterator, -1 on error. */
static Py_ssize_t seq_iter_left(PyObject *it) {
    if (Py_TYPE(it) != &PyListIter_Type && Py_TYPE(it) != &PyTupleIter_Type) return -2;
    if (!g_seqiter_layout) return PyObject_LengthHint(it, 0);
    SeqIter *s = (SeqIter *)it;
    if (!s->it_seq) return 0;
    Py_ssize_t n = Py_SIZE(s->it_seq) - s->it_index;
    return n > 0 ? n : 0;
}

static int seq_iter_probe_one(PyObject *seq) {
    PyObject *it = PyObject_GetIter(seq);
    if (!it) return -1;
    int ok = Py_TYPE(it)->tp_basicsize == (Py_ssize_t)sizeof(SeqIter);
    for (Py_ssize_t i = 0; ok && i <= Py_SIZE(seq); i++) {
        SeqIter *s = (SeqIter *)it;
        PyObject *hint = PyObject_CallMethod(it, "__length_hint__", NULL);
        if (!hint) { Py_DECREF(it); return -1; }
        Py_ssize_t want = PyLong_AsSsize_t(hint);
        Py_DECREF(hint);
        ok = (s->it_seq == NULL || (s->it_seq == seq && s->it_index == i)) && seq_iter_left(it) == want
             && want == Py_SIZE(seq) - i;
        PyObject *x = PyIter_Next(it);
        Py_XDECREF(x);
        if (!x && PyErr_Occurred()) { Py_DECREF(it); return -1; }
    }
    ok = ok && ((SeqIter *)it)->it_seq == NULL && seq_iter_left(it) == 0;
    Py_DECREF(it);
    return ok;
}

/* Whether list and tuple iterators have the SeqIter layout (checked once, at import). */
static int seq_iter_probe(void) {
    PyObject *list = Py_BuildValue("[iii]", 1, 2, 3), *tuple = Py_BuildValue("(ii)", 1, 2);
    int ok = -1;
    if (list && tuple) {
        g_seqiter_layout = 1;
        ok = seq_iter_probe_one(list);
        if (ok == 1) ok = seq_iter_probe_one(tuple);
        g_seqiter_layout = ok == 1;
    }
    Py_XDECREF(list);
    Py_XDECREF(tuple);
    return ok < 0 ? -1 : 0;
}

static PyObject *native_seq_iter_layout(PyObject *self, PyObject *unused) {
    return PyBool_FromLong(g_seqiter_layout);
}

/* ITER_REMAINING: (op, node, count, more, reader); kinds.items_left, then > count or == count */
static int items_left_check(PyObject *it, PyObject *g) {
    Py_ssize_t left = seq_iter_left(it);
    if (left == -2) {
        PyObject *items = PyObject_CallOneArg(PyTuple_GET_ITEM(g, 4), it);
        if (!items) return -1;
        left = PyObject_Size(items);
        Py_DECREF(items);
    }
    if (left < 0) return -1;
    Py_ssize_t count = PyLong_AsSsize_t(PyTuple_GET_ITEM(g, 2));
    if (count == -1 && PyErr_Occurred()) return -1;
    return PyTuple_GET_ITEM(g, 3) == Py_True ? left > count : left == count;
}

/* HAS_ATTR: (op, node, name, present); hasattr(v, name) is present: the lookup builtin hasattr
 * makes (only AttributeError is absence; a lookup of a generic getattr makes no exception) */
static int has_attr_check(PyObject *v, PyObject *name, PyObject *present) {
    PyObject *a = NULL;
#if PY_VERSION_HEX >= 0x030D0000
    int has = PyObject_GetOptionalAttr(v, name, &a);
#else
    int has = _PyObject_LookupAttr(v, name, &a);
#endif
    Py_XDECREF(a);
    if (has < 0) return -1;
    return has == (present == Py_True);
}

/* IDENTITY_PATTERN: (op, (nodes...), want); for each value, the index of the first value that
 * is the same object equals want[i] (kinds.identity_pattern); every value is read first. The
 * first index of each object is found in an open-addressing table of pointers: linear in n (a
 * module tree may have thousands of submodules). */
static int identity_pattern_check(Frame *f, PyObject *nodeidx, PyObject *want) {
    Py_ssize_t n = PyTuple_GET_SIZE(nodeidx);
    if (!PyTuple_Check(want) || PyTuple_GET_SIZE(want) != n) return 0;
    size_t cap = 8;
    while (cap < 2 * (size_t)n) cap <<= 1;
    PyObject **v = PyMem_Malloc((n ? n : 1) * sizeof(PyObject *));
    Py_ssize_t *slot = PyMem_Malloc(cap * sizeof(Py_ssize_t));  /* index into v, -1 empty */
    if (!v || !slot) { PyMem_Free(v); PyMem_Free(slot); PyErr_NoMemory(); return -1; }
    for (size_t k = 0; k < cap; k++) slot[k] = -1;
    int ok = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        v[i] = node_value(f, PyLong_AsSsize_t(PyTuple_GET_ITEM(nodeidx, i)));
        if (!v[i]) { ok = -1; break; }
        Py_DECREF(v[i]);  /* the frame holds it */
    }
    for (Py_ssize_t i = 0; ok == 1 && i < n; i++) {
        size_t k = (size_t)(((uintptr_t)v[i] >> 4) * 0x9E3779B97F4A7C15ull) & (cap - 1);
        while (slot[k] != -1 && v[slot[k]] != v[i]) k = (k + 1) & (cap - 1);
        if (slot[k] == -1) slot[k] = i;
        Py_ssize_t expected = PyLong_AsSsize_t(PyTuple_GET_ITEM(want, i));
        if (expected == -1 && PyErr_Occurred()) ok = -1;
        else ok = slot[k] == expected;
    }
    PyMem_Free(v);
    PyMem_Free(slot);
    return ok;
}

/* 1 pass, 0 fail, -1 error (counts as fail) */
static int guard_check(Frame *f, PyObject *g) {
    long op = PyLong_AsLong(PyTuple_GET_ITEM(g, 0));
    PyObject *nodeidx = PyTuple_GET_ITEM(g, 1);
    if (op == G_CALL) {
        Py_ssize_t n = PyTuple_GET_SIZE(nodeidx);
        PyObject *argv = PyTuple_New(n);
        if (!argv) return -1;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *v = node_value(f, PyLong_AsSsize_t(PyTuple_GET_ITEM(nodeidx, i)));
            if (!v) { Py_DECREF(argv); return -1; }
            PyTuple_SET_ITEM(argv, i, v);
        }
        PyObject *r = PyObject_Call(PyTuple_GET_ITEM(g, 2), argv, NULL);
        Py_DECREF(argv);
        if (!r) return -1;
        int t = PyObject_IsTrue(r);
        Py_DECREF(r);
        return t;
    }
    if (op == G_IS) {  /* (op, (a, b), same): a is b, or a is not b */
        PyObject *a = node_value(f, PyLong_AsSsize_t(PyTuple_GET_ITEM(nodeidx, 0)));
        if (!a) return -1;
        PyObject *b = node_value(f, PyLong_AsSsize_t(PyTuple_GET_ITEM(nodeidx, 1)));
        Py_DECREF(a);  /* the frame holds both values */
        if (!b) return -1;
        Py_DECREF(b);
        return (a == b) == (PyTuple_GET_ITEM(g, 2) == Py_True);
    }
    if (op == G_IDENTITY_PATTERN) return identity_pattern_check(f, nodeidx, PyTuple_GET_ITEM(g, 2));
    PyObject *v = node_value(f, PyLong_AsSsize_t(nodeidx));
    if (!v) return -1;
    int ok;
    PyObject *e = PyTuple_GET_ITEM(g, 2);
    switch (op) {
    case G_TENSOR: ok = tensor_check(v, g); break;
    case G_TYPE: ok = (PyObject *)Py_TYPE(v) == e; break;
    case G_ID: ok = v == e; break;
    case G_CONST: ok = const_eq(v, e); break;
    case G_LEN: {
        Py_ssize_t n = PyObject_Size(v);
        ok = n < 0 ? -1 : n == PyLong_AsSsize_t(e);
        break;
    }
    case G_EQ: ok = py_eq(v, e); break;
    case G_NO_HOOKS: ok = no_hooks_check(v, e); break;
    case G_KEYS: ok = keys_check(v, e, PyTuple_GET_ITEM(g, 3)); break;
    case G_ITEMS_LEFT: ok = items_left_check(v, g); break;
    case G_NO_KEY: {
        int has = PySequence_Contains(v, e);
        ok = has < 0 ? -1 : !has;
        break;
    }
    case G_HAS_KEY: ok = PySequence_Contains(v, e); break;
    case G_HAS_ATTR: ok = has_attr_check(v, e, PyTuple_GET_ITEM(g, 3)); break;
    case G_IS_INSTANCE: {
        int is = PyObject_IsInstance(v, e);
        ok = is < 0 ? -1 : is == (PyTuple_GET_ITEM(g, 3) == Py_True);
        break;
    }
    default:
        PyErr_Format(PyExc_SystemError, "autograph._native: unknown guard op %ld", op);
        ok = -1;
    }
    Py_DECREF(v);
    return ok;
}

/* Guard evaluation in progress in this thread: guards read tensor metadata, and a torch
 * function mode sees those reads; autograph's torch-call counting asks in_guards(). */
static _Thread_local int t_in_guards = 0;

static Py_ssize_t plan_check_inner(PyObject *plan, PyObject *args, PyObject *kwargs);

/* Index of the first failing guard, -1 all pass; -2 error (exception set). */
Py_ssize_t plan_check(PyObject *plan, PyObject *args, PyObject *kwargs) {
    t_in_guards++;
    Py_ssize_t r = plan_check_inner(plan, args, kwargs);
    t_in_guards--;
    return r;
}

static Py_ssize_t plan_check_inner(PyObject *plan, PyObject *args, PyObject *kwargs) {
    if (!PyTuple_Check(plan)) {  /* a Python check function (fallback for this entry) */
        PyObject *r = PyObject_Call(plan, args, kwargs);
        if (!r) return -2;
        Py_ssize_t i = PyLong_AsSsize_t(r);
        Py_DECREF(r);
        return (i == -1 && PyErr_Occurred()) ? -2 : i;
    }
    Py_ssize_t nargs = PyTuple_GET_SIZE(args);
    if (kwargs && !PyDict_GET_SIZE(kwargs)) kwargs = NULL;
    int binds;
    if (nargs > PyLong_AsSsize_t(PyTuple_GET_ITEM(plan, 0)) && PyTuple_GET_ITEM(plan, 2) != Py_True)
        binds = 0;
    else if (kwargs)
        binds = kwargs_bind(plan, nargs, kwargs);
    else
        binds = nargs >= PyLong_AsSsize_t(PyTuple_GET_ITEM(plan, 1));
    if (!binds)  /* a call that does not bind: Python's binding decides (and raises) */
        return plan_check(PyTuple_GET_ITEM(plan, 6), args, kwargs);
    Frame f;
    f.args = args;
    f.kwargs = kwargs;
    f.plan = plan;
    f.nodes = PyTuple_GET_ITEM(plan, 4);
    f.nvalues = PyTuple_GET_SIZE(f.nodes);
    if (f.nvalues > MAX_NODES) return plan_check(PyTuple_GET_ITEM(plan, 6), args, kwargs);
    memset(f.values, 0, sizeof(PyObject *) * f.nvalues);
    PyObject *guards = PyTuple_GET_ITEM(plan, 5);
    Py_ssize_t n = PyTuple_GET_SIZE(guards), result = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        int ok = guard_check(&f, PyTuple_GET_ITEM(guards, i));
        if (ok != 1) {
            if (ok < 0) PyErr_Clear();
            result = i;
            break;
        }
    }
    frame_clear(&f);
    return result;
}

static PyObject *native_check(PyObject *self, PyObject *const *argv, Py_ssize_t argc) {
    if (argc != 3 || !PyTuple_Check(argv[1]) || (argv[2] != Py_None && !PyDict_Check(argv[2]))) {
        PyErr_SetString(PyExc_TypeError, "check(plan, args: tuple, kwargs: dict | None)");
        return NULL;
    }
    Py_ssize_t r = plan_check(argv[0], argv[1], argv[2] == Py_None ? NULL : argv[2]);
    if (r == -2) return NULL;
    return PyLong_FromSsize_t(r);
}

/* dispatch(plans, args, kwargs) -> index of the first entry whose guards pass, or -1 */
static PyObject *native_dispatch(PyObject *self, PyObject *const *argv, Py_ssize_t argc) {
    if (argc != 3 || !PyTuple_Check(argv[0]) || !PyTuple_Check(argv[1]) ||
        (argv[2] != Py_None && !PyDict_Check(argv[2]))) {
        PyErr_SetString(PyExc_TypeError, "dispatch(plans: tuple, args: tuple, kwargs: dict | None)");
        return NULL;
    }
    PyObject *kwargs = argv[2] == Py_None ? NULL : argv[2];
    Py_ssize_t n = PyTuple_GET_SIZE(argv[0]);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t r = plan_check(PyTuple_GET_ITEM(argv[0], i), argv[1], kwargs);
        if (r == -2) return NULL;
        if (r == -1) return PyLong_FromSsize_t(i);
    }
    return PyLong_FromLong(-1);
}


static PyObject *native_in_guards(PyObject *self, PyObject *unused) {
    return PyBool_FromLong(t_in_guards > 0);
}


static PyMethodDef guard_eval_methods[] = {
    {"check", (PyCFunction)(void (*)(void))native_check, METH_FASTCALL,
     "check(plan, args, kwargs) -> index of the first failing guard, or -1"},
    {"dispatch", (PyCFunction)(void (*)(void))native_dispatch, METH_FASTCALL,
     "dispatch(plans, args, kwargs) -> index of the first passing entry, or -1"},
    {"keyset_raw", native_keyset_raw, METH_O,
     "keyset_raw(dispatch_key_set) -> int read from pybind's simple layout (verified by the caller)"},
    {"probe_object_word", (PyCFunction)(void (*)(void))native_probe_object_word, METH_FASTCALL,
     "probe_object_word(obj, offset) -> word inside obj's struct (layout probing)"},
    {"probe_impl_word", (PyCFunction)(void (*)(void))native_probe_impl_word, METH_FASTCALL,
     "probe_impl_word(tensor, cdata_offset, offset) -> 64-bit word inside the TensorImpl (layout probing)"},
    {"set_tensor_layout", (PyCFunction)(void (*)(void))native_set_tensor_layout, METH_FASTCALL,
     "set_tensor_layout(cdata_offset, keys_offset): enable direct key reads (-1, -1 disables)"},
    {"tensor_keys", native_tensor_keys, METH_O,
     "tensor_keys(tensor) -> raw dispatch key set read directly, or None when disabled"},
    {"set_tensor_dims_layout", native_set_tensor_dims_layout, METH_O,
     "set_tensor_dims_layout(offset): enable direct size/stride reads (-1 disables)"},
    {"tensor_dims", native_tensor_dims, METH_O,
     "tensor_dims(tensor) -> (sizes, strides) read directly, or None when disabled or over 5 dims"},
    {"seq_iter_layout", native_seq_iter_layout, METH_NOARGS,
     "seq_iter_layout() -> whether list/tuple iterators are read in place (else through __length_hint__)"},
    {"in_guards", native_in_guards, METH_NOARGS,
     "in_guards() -> whether this thread is evaluating guards (their tensor reads are not user calls)"},
    {NULL, NULL, 0, NULL},
};

int guard_eval_init(PyObject *m) {
    s_dtype = PyUnicode_InternFromString("dtype");
    s_device = PyUnicode_InternFromString("device");
    s_requires_grad = PyUnicode_InternFromString("requires_grad");
    s_size = PyUnicode_InternFromString("size");
    s_stride = PyUnicode_InternFromString("stride");
    s_is_contiguous = PyUnicode_InternFromString("is_contiguous");
    if (!s_is_contiguous || !s_dtype || !s_device || !s_requires_grad || !s_size || !s_stride) return -1;
    if (PyModule_AddFunctions(m, guard_eval_methods) < 0) return -1;
    if (seq_iter_probe() < 0) return -1;
    /* the plan's node kinds, guard opcodes and size limit, checked against Python's at load */
    static const NativeConstant constants[] = {
        {"N_POS", N_POS}, {"N_VARARGS", N_VARARGS}, {"N_CONST", N_CONST}, {"N_GLOBAL", N_GLOBAL},
        {"N_GLOBAL_OR_BUILTIN", N_GLOBAL_OR_BUILTIN}, {"N_CELL", N_CELL}, {"N_ATTR", N_ATTR},
        {"N_ITEM", N_ITEM}, {"N_CALL", N_CALL}, {"N_KWONLY", N_KWONLY}, {"N_VARKW", N_VARKW},
        {"N_APPLY", N_APPLY}, {"N_ITER_ITEMS", N_ITER_ITEMS}, {"N_ITER_SEQUENCE", N_ITER_SEQUENCE},
        {"G_IS", G_IS}, {"G_KEYS", G_KEYS}, {"G_ITEMS_LEFT", G_ITEMS_LEFT},
        {"G_TENSOR", G_TENSOR}, {"G_TYPE", G_TYPE}, {"G_ID", G_ID}, {"G_CONST", G_CONST},
        {"G_LEN", G_LEN}, {"G_EQ", G_EQ}, {"G_CALL", G_CALL}, {"G_NO_KEY", G_NO_KEY},
        {"G_NO_HOOKS", G_NO_HOOKS}, {"G_HAS_KEY", G_HAS_KEY}, {"G_HAS_ATTR", G_HAS_ATTR},
        {"G_IS_INSTANCE", G_IS_INSTANCE}, {"G_IDENTITY_PATTERN", G_IDENTITY_PATTERN}, {"MAX_NODES", MAX_NODES},
    };
    return add_constants(m, constants, sizeof(constants) / sizeof(constants[0]));
}
