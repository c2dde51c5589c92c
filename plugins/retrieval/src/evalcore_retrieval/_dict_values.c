/* The numbers of pytrec_eval-style dicts ({qid: {docid: value}}) read into float64 arrays.
 *
 * Only plain dicts holding Python floats and ints are read here; anything else returns None and
 * the caller reads the values with numpy instead (which also names a bad value).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>

/* The value as a double: Python floats (numpy's float64 is one) and ints other than bool. */
static int number(PyObject *value, double *out)
{
    if (PyFloat_Check(value)) {
        *out = PyFloat_AS_DOUBLE(value);
        return 1;
    }
    if (!PyLong_Check(value) || PyBool_Check(value))
        return 0;
    *out = PyLong_AsDouble(value);
    if (*out == -1.0 && PyErr_Occurred()) {
        PyErr_Clear(); /* beyond the float range: the numpy path decides */
        return 0;
    }
    return 1;
}

static PyObject *float_array(Py_ssize_t count, double **data)
{
    PyObject *array = PyByteArray_FromStringAndSize(NULL, count * (Py_ssize_t)sizeof(double));
    if (array)
        *data = (double *)PyByteArray_AS_STRING(array);
    return array;
}

/* values(dicts, count): every value of every dict, in order, as float64 bytes; None unless every
 * one is a dict of numbers with `count` values in all. */
static PyObject *values(PyObject *module, PyObject *args)
{
    PyObject *dicts;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "O!n", &PyList_Type, &dicts, &count))
        return NULL;
    double *out;
    PyObject *array = float_array(count, &out);
    if (!array)
        return NULL;
    Py_ssize_t at = 0;
    for (Py_ssize_t q = 0; q < PyList_GET_SIZE(dicts); q++) {
        PyObject *dict = PyList_GET_ITEM(dicts, q), *key, *value;
        Py_ssize_t position = 0;
        if (!PyDict_Check(dict) || PyDict_GET_SIZE(dict) > count - at)
            goto other;
        while (PyDict_Next(dict, &position, &key, &value))
            if (!number(value, &out[at++]))
                goto other;
    }
    if (at == count)
        return array;
other:
    Py_DECREF(array);
    Py_RETURN_NONE;
}

/* looked_up(runs, judged, selected): for each query q, in order, the value in runs[q] of each key
 * of judged[q] whose place (counted over all queries) is set in `selected` (bytes of 0/1), NaN
 * when runs[q] lacks it; float64 bytes, or None where a value is not a number. */
static PyObject *looked_up(PyObject *module, PyObject *args)
{
    PyObject *runs, *judged;
    Py_buffer selected;
    if (!PyArg_ParseTuple(args, "O!O!y*", &PyList_Type, &runs, &PyList_Type, &judged, &selected))
        return NULL;
    PyObject *array = NULL;
    const char *chosen = selected.buf;
    Py_ssize_t count = 0, at = 0, place = 0;
    for (Py_ssize_t i = 0; i < selected.len; i++)
        count += chosen[i] != 0;
    double *out;
    if (PyList_GET_SIZE(runs) != PyList_GET_SIZE(judged) || !(array = float_array(count, &out)))
        goto done;
    for (Py_ssize_t q = 0; q < PyList_GET_SIZE(judged); q++) {
        PyObject *run = PyList_GET_ITEM(runs, q), *judgements = PyList_GET_ITEM(judged, q), *key, *grade;
        Py_ssize_t position = 0;
        if (!PyDict_Check(run) || !PyDict_Check(judgements))
            goto other;
        while (PyDict_Next(judgements, &position, &key, &grade)) {
            if (place >= selected.len)
                goto other;
            if (!chosen[place++])
                continue;
            PyObject *score = PyDict_GetItemWithError(run, key);
            if (!score) {
                if (PyErr_Occurred())
                    goto fail;
                out[at++] = NAN;
            } else if (!number(score, &out[at++])) {
                goto other;
            }
        }
    }
    if (at == count && place == selected.len)
        goto done;
other:
    Py_DECREF(array);
    array = Py_NewRef(Py_None);
    goto done;
fail:
    Py_CLEAR(array);
done:
    PyBuffer_Release(&selected);
    return array;
}

static PyMethodDef methods[] = {
    {"values", values, METH_VARARGS,
     "values(dicts, count) -> float64 bytes of every value of the dicts in order, or None"},
    {"looked_up", looked_up, METH_VARARGS,
     "looked_up(runs, judged, selected) -> float64 bytes of runs[q].get(key, nan) for the selected keys "
     "of judged[q], or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef dict_values_module = {
    PyModuleDef_HEAD_INIT, "_dict_values", "The numbers of pytrec_eval-style dicts read into float64 arrays.", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__dict_values(void) { return PyModule_Create(&dict_values_module); }
