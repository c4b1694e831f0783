// warp_interactive._native.FastPlan: the first tier of a repeated CPU forward wp.launch.
//
// runtime/fastlaunch.py makes one per kernel plan. It knows the byte layout of the kernel's
// argument struct and, per parameter, the one Python type it takes without conversion (an exact
// wp.array of the right dtype/ndim/device, a float, an int that fits, a bool, an instance of the
// exact vector/matrix type). run(dim, inputs, outputs) checks the launch state word, packs the
// values straight into its own buffer and launches; anything else returns False having run
// nothing, and the Python plan (which converts) or the general path (which validates and raises
// the errors) takes over. So this file never produces a user-facing error: it only declines.
//
// Every Python object it reads is compared by identity or exact type, so a value whose class
// overrides attribute access or the buffer protocol cannot reach the packer.

#include <Python.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "launch_py.h"

namespace {

enum Kind : int { kArray = 0, kF32 = 1, kF64 = 2, kInt = 3, kBool = 4, kExact = 5, kOther = 6 };

struct Param {
    int kind;
    Py_ssize_t offset;
    Py_ssize_t size;     // bytes written (array: 72, int: 1/2/4/8, exact: the type's size)
    bool is_signed;      // kInt
    PyObject* type;      // kArray: the dtype; kExact: the value type (borrowed from `keep`)
    long ndim;           // kArray
};

struct FastPlan {
    PyObject_HEAD
    uintptr_t entry;
    char* buf;
    Py_ssize_t buf_size;
    std::vector<Param>* params;
    PyObject* bounds;     // dict: dim -> (record, address, size)
    PyObject* array_type;
    PyObject* device;
    PyObject* state;      // launch_state.fast: a list whose item 0 is the state word
    PyObject* epoch;      // the state word this plan may run with (None: disarmed)
    PyObject* config;     // wp.config (num_threads)
    PyObject* keep;       // the tuple of parameter specs (owns the dtypes and types)
    bool busy;
};

PyObject* s_dtype;
PyObject* s_ndim;
PyObject* s_device;
PyObject* s_desc;
PyObject* s_num_threads;

// The value's bytes into `dst` if it is exactly the type described; false otherwise.
bool pack_exact(const Param& p, PyObject* v, const FastPlan* self, char* dst) {
    switch (p.kind) {
    case kF32:
        if (!PyFloat_CheckExact(v)) return false;
        {
            const float f = float(PyFloat_AS_DOUBLE(v));
            std::memcpy(dst, &f, 4);
        }
        return true;
    case kF64:
        if (!PyFloat_CheckExact(v)) return false;
        {
            const double d = PyFloat_AS_DOUBLE(v);
            std::memcpy(dst, &d, 8);
        }
        return true;
    case kBool:
        if (v != Py_True && v != Py_False) return false;
        *dst = v == Py_True ? 1 : 0;
        return true;
    case kInt: {
        if (!PyLong_CheckExact(v)) return false;
        int overflow = 0;
        const long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow || (x == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return false;   // uint64 above 2^63 and out-of-range values: the general path
        }
        const int bits = int(p.size) * 8;
        if (p.is_signed) {
            if (bits < 64 && (x < -(1LL << (bits - 1)) || x >= (1LL << (bits - 1)))) return false;
        } else {
            if (x < 0 || (bits < 64 && x >= (1LL << bits))) return false;
        }
        const unsigned long long u = (unsigned long long)x;   // two's complement, little endian
        std::memcpy(dst, &u, size_t(p.size));
        return true;
    }
    case kArray: {
        if ((PyObject*)Py_TYPE(v) != self->array_type) return false;
        bool ok = false;
        PyObject* dtype = PyObject_GetAttr(v, s_dtype);
        PyObject* device = dtype ? PyObject_GetAttr(v, s_device) : nullptr;
        PyObject* ndim = device ? PyObject_GetAttr(v, s_ndim) : nullptr;
        PyObject* desc = ndim ? PyObject_GetAttr(v, s_desc) : nullptr;
        if (desc && dtype == p.type && device == self->device && PyLong_CheckExact(ndim) &&
            PyLong_AsLong(ndim) == p.ndim && desc != Py_None) {
            Py_buffer view;
            if (PyObject_GetBuffer(desc, &view, PyBUF_SIMPLE) == 0) {
                if (view.len == p.size) {
                    std::memcpy(dst, view.buf, size_t(p.size));
                    ok = true;
                }
                PyBuffer_Release(&view);
            }
        }
        Py_XDECREF(dtype);
        Py_XDECREF(device);
        Py_XDECREF(ndim);
        Py_XDECREF(desc);
        if (!ok) PyErr_Clear();
        return ok;
    }
    case kExact: {
        if ((PyObject*)Py_TYPE(v) != p.type) return false;
        Py_buffer view;
        if (PyObject_GetBuffer(v, &view, PyBUF_SIMPLE) != 0) {
            PyErr_Clear();
            return false;
        }
        const bool ok = view.len == p.size;
        if (ok) std::memcpy(dst, view.buf, size_t(p.size));
        PyBuffer_Release(&view);
        return ok;
    }
    default:
        return false;
    }
}

// Packs inputs + outputs; false (nothing set) when any value is not of its exact type.
bool pack_all(FastPlan* self, PyObject* inputs, PyObject* outputs) {
    const std::vector<Param>& params = *self->params;
    const Py_ssize_t n_in = PySequence_Fast_GET_SIZE(inputs);
    const Py_ssize_t n_out = outputs ? PySequence_Fast_GET_SIZE(outputs) : 0;
    if (n_in + n_out != Py_ssize_t(params.size())) return false;
    PyObject** in = PySequence_Fast_ITEMS(inputs);
    PyObject** out = outputs ? PySequence_Fast_ITEMS(outputs) : nullptr;
    for (Py_ssize_t i = 0; i < Py_ssize_t(params.size()); ++i) {
        PyObject* v = i < n_in ? in[i] : out[i - n_in];
        if (!pack_exact(params[i], v, self, self->buf + params[i].offset)) return false;
    }
    return true;
}

bool is_list_or_tuple(PyObject* o) { return PyList_CheckExact(o) || PyTuple_CheckExact(o); }

// The dims the records are learned for: an int or a tuple of ints, exactly. The dict lookup
// alone would find the record of 1 for True or 1.0 (equal and of equal hash), which the general
// path refuses. An int dim costs one compare; tuples are checked out of line.
__attribute__((noinline)) bool is_int_tuple(PyObject* dim) {
    if (!PyTuple_CheckExact(dim)) return false;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(dim); ++i)
        if (!PyLong_CheckExact(PyTuple_GET_ITEM(dim, i))) return false;
    return true;
}

// run(dim, inputs, outputs): True when launched, False when declined (nothing ran).
PyObject* fast_plan_run(PyObject* obj, PyObject* const* argv, Py_ssize_t argc) {
    auto* self = reinterpret_cast<FastPlan*>(obj);
    if (argc != 3) {
        PyErr_SetString(PyExc_TypeError, "FastPlan.run(dim, inputs, outputs)");
        return nullptr;
    }
    PyObject* word = PyList_GET_SIZE(self->state) ? PyList_GET_ITEM(self->state, 0) : nullptr;
    if (self->busy || word == nullptr || self->epoch == Py_None) Py_RETURN_FALSE;
    if (word != self->epoch) {
        const int eq = PyObject_RichCompareBool(word, self->epoch, Py_EQ);
        if (eq != 1) {
            PyErr_Clear();
            Py_RETURN_FALSE;
        }
    }
    PyObject* inputs = argv[1];
    PyObject* outputs = argv[2];
    if (!is_list_or_tuple(inputs)) Py_RETURN_FALSE;
    if (is_list_or_tuple(outputs)) {
        if (PySequence_Fast_GET_SIZE(outputs) == 0) outputs = nullptr;
    } else {
        Py_RETURN_FALSE;
    }
    if (!PyLong_CheckExact(argv[0]) && !is_int_tuple(argv[0])) Py_RETURN_FALSE;
    PyObject* rec = PyDict_GetItemWithError(self->bounds, argv[0]);   // borrowed
    if (rec == nullptr) {
        PyErr_Clear();   // unseen or unhashable dim
        Py_RETURN_FALSE;
    }
    if (!PyTuple_CheckExact(rec) || PyTuple_GET_SIZE(rec) != 3) Py_RETURN_FALSE;
    const uintptr_t bounds = uintptr_t(PyLong_AsUnsignedLongLongMask(PyTuple_GET_ITEM(rec, 1)));
    const long long total = PyLong_AsLongLong(PyTuple_GET_ITEM(rec, 2));
    if (PyErr_Occurred()) return nullptr;
    if (!pack_all(self, inputs, outputs)) Py_RETURN_FALSE;

    long nthreads = 0;
    PyObject* nt = PyObject_GetAttr(self->config, s_num_threads);
    if (nt == nullptr) return nullptr;
    if (nt != Py_None) nthreads = PyLong_AsLong(nt);
    Py_DECREF(nt);
    if (nthreads == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_FALSE;   // an odd wp.config.num_threads: let the general path deal with it
    }
    if (total <= 0) Py_RETURN_TRUE;
    self->busy = true;   // the buffer is in use while the GIL is released
    Py_INCREF(rec);      // and the bounds record: another thread may clear the dict meanwhile
    const bool ok = wpi_py::run_launch(self->entry, self->buf, reinterpret_cast<const void*>(bounds),
                                       total, int(nthreads));
    Py_DECREF(rec);
    self->busy = false;
    if (!ok) return nullptr;
    Py_RETURN_TRUE;
}

// FastPlan(entry, size, specs, bounds, array_type, device, state, config)
//   specs: one tuple per parameter, in struct order: (kind, offset, size, type, ndim, signed)
int fast_plan_init(PyObject* obj, PyObject* args, PyObject* kwds) {
    auto* self = reinterpret_cast<FastPlan*>(obj);
    unsigned long long entry;
    Py_ssize_t size;
    PyObject *specs, *bounds, *array_type, *device, *state, *config;
    if (!PyArg_ParseTuple(args, "KnO!O!OOO!O", &entry, &size, &PyTuple_Type, &specs, &PyDict_Type,
                          &bounds, &array_type, &device, &PyList_Type, &state, &config))
        return -1;
    auto* params = new std::vector<Param>();
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(specs); ++i) {
        Param p{};
        int is_signed = 0;
        PyObject* type = nullptr;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(specs, i), "innOlp", &p.kind, &p.offset, &p.size, &type,
                              &p.ndim, &is_signed)) {
            delete params;
            return -1;
        }
        p.is_signed = is_signed != 0;
        p.type = type;
        if (p.offset < 0 || p.size < 0 || p.offset + p.size > size ||
            (p.kind == kInt && p.size != 1 && p.size != 2 && p.size != 4 && p.size != 8)) {
            delete params;
            PyErr_SetString(PyExc_ValueError, "FastPlan: parameter outside the argument struct");
            return -1;
        }
        params->push_back(p);
    }
    self->entry = uintptr_t(entry);
    self->buf = static_cast<char*>(std::calloc(size_t(size > 8 ? size : 8), 1));
    self->buf_size = size;
    self->params = params;
    Py_INCREF(specs);
    self->keep = specs;
    Py_INCREF(bounds);
    self->bounds = bounds;
    Py_INCREF(array_type);
    self->array_type = array_type;
    Py_INCREF(device);
    self->device = device;
    Py_INCREF(state);
    self->state = state;
    Py_INCREF(config);
    self->config = config;
    Py_INCREF(Py_None);
    self->epoch = Py_None;
    self->busy = false;
    return 0;
}

void fast_plan_dealloc(PyObject* obj) {
    auto* self = reinterpret_cast<FastPlan*>(obj);
    delete self->params;
    std::free(self->buf);
    Py_XDECREF(self->keep);
    Py_XDECREF(self->bounds);
    Py_XDECREF(self->array_type);
    Py_XDECREF(self->device);
    Py_XDECREF(self->state);
    Py_XDECREF(self->config);
    Py_XDECREF(self->epoch);
    Py_TYPE(obj)->tp_free(obj);
}

PyObject* get_epoch(PyObject* obj, void*) {
    PyObject* e = reinterpret_cast<FastPlan*>(obj)->epoch;
    Py_INCREF(e);
    return e;
}

int set_epoch(PyObject* obj, PyObject* value, void*) {
    if (value == nullptr) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete epoch");
        return -1;
    }
    auto* self = reinterpret_cast<FastPlan*>(obj);
    Py_INCREF(value);
    Py_SETREF(self->epoch, value);
    return 0;
}

PyMethodDef fast_plan_methods[] = {
    {"run", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&fast_plan_run)), METH_FASTCALL,
     "run(dim, inputs, outputs) -> bool: launch if every value has its exact type, else False"},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef fast_plan_getset[] = {
    {"epoch", &get_epoch, &set_epoch, "the launch-state word this plan runs with (None: disarmed)",
     nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyTypeObject FastPlanType = {PyVarObject_HEAD_INIT(nullptr, 0)};

}  // namespace

namespace wpi_py {

PyObject* fast_plan_type() {
    if (FastPlanType.tp_name == nullptr) {
        s_dtype = PyUnicode_InternFromString("dtype");
        s_ndim = PyUnicode_InternFromString("ndim");
        s_device = PyUnicode_InternFromString("device");
        s_desc = PyUnicode_InternFromString("_desc");
        s_num_threads = PyUnicode_InternFromString("num_threads");
        FastPlanType.tp_name = "warp_interactive._native.FastPlan";
        FastPlanType.tp_basicsize = sizeof(FastPlan);
        FastPlanType.tp_flags = Py_TPFLAGS_DEFAULT;
        FastPlanType.tp_doc = "Per-kernel packer and launcher for exact-typed launch arguments.";
        FastPlanType.tp_new = PyType_GenericNew;
        FastPlanType.tp_init = &fast_plan_init;
        FastPlanType.tp_dealloc = &fast_plan_dealloc;
        FastPlanType.tp_methods = fast_plan_methods;
        FastPlanType.tp_getset = fast_plan_getset;
        if (PyType_Ready(&FastPlanType) < 0) return nullptr;
    }
    Py_INCREF(&FastPlanType);
    return reinterpret_cast<PyObject*>(&FastPlanType);
}

}  // namespace wpi_py
