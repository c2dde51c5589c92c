/* pytrec_eval-style dicts ({qid: {docid: value}}) read into the grades of each query's ranking.
 *
 * ranked_grades(qrels, run, qids, trec) reads, for each query, the scores of its run and the grades
 * of its judgements; ranks the run's documents (trec_eval's order: scores descending as C floats, equal
 * ones by document id descending; or scores descending with ties in dict order) and gives the
 * grade of each ranked document, NaN when it is not judged. It reads plain dicts with str keys and
 * Python float or int values only, and returns None for anything else (or a NaN), so that the
 * caller reads those dicts with numpy, which also names a bad value.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>

/* The value as a double: Python floats (numpy's float64 is one) and ints other than bool; not NaN. */
static int number(PyObject *value, double *out)
{
    if (PyFloat_Check(value)) {
        *out = PyFloat_AS_DOUBLE(value);
        return !isnan(*out);
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

typedef struct {
    PyObject *key; /* borrowed from the dict; NULL: empty slot */
    Py_hash_t hash;
    double grade;
} Slot;

typedef struct {
    PyObject *key;
    double score, gain;
} Entry;

static int same_key(PyObject *a, Py_hash_t ha, PyObject *b, Py_hash_t hb)
{
    return a == b || (ha == hb && PyUnicode_Compare(a, b) == 0);
}

/* Whether entry a ranks after entry b. */
static int after(const Entry *a, const Entry *b, int trec)
{
    if (!trec)
        return a->score < b->score;
    const float x = (float)a->score + 0.0f, y = (float)b->score + 0.0f; /* as trec_eval: C floats, -0 as 0 */
    if (x != y)
        return x < y;
    return PyUnicode_Compare(a->key, b->key) < 0; /* code point order, as strcmp on UTF-8 */
}

/* Stable merge sort of entries[0:n] by `after` (of equal ones the earlier first), through scratch[0:n]. */
static void sort_entries(Entry *entries, Entry *scratch, Py_ssize_t n, int trec)
{
    for (Py_ssize_t width = 1; width < n; width *= 2) {
        for (Py_ssize_t lo = 0; lo < n; lo += 2 * width) {
            const Py_ssize_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            Py_ssize_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                scratch[k++] = after(&entries[i], &entries[j], trec) ? entries[j++] : entries[i++];
            while (i < mid)
                scratch[k++] = entries[i++];
            while (j < hi)
                scratch[k++] = entries[j++];
        }
        memcpy(entries, scratch, (size_t)n * sizeof(Entry));
    }
}

static PyObject *new_array(Py_ssize_t count, size_t item, void *data)
{
    PyObject *array = PyByteArray_FromStringAndSize(NULL, count * (Py_ssize_t)item);
    if (array)
        *(char **)data = PyByteArray_AS_STRING(array);
    return array;
}

/* Put query q's judgements in the table (size a power of two, mask size - 1) and their grades in out. */
static int fill(Slot *table, size_t mask, PyObject *judgements, double *out)
{
    memset(table, 0, (mask + 1) * sizeof(Slot));
    PyObject *key, *value;
    Py_ssize_t position = 0;
    while (PyDict_Next(judgements, &position, &key, &value)) {
        if (!PyUnicode_CheckExact(key) || !number(value, out))
            return 0;
        const Py_hash_t hash = PyObject_Hash(key); /* cached in the str */
        size_t slot = (size_t)hash & mask;
        while (table[slot].key)
            slot = (slot + 1) & mask;
        table[slot] = (Slot){key, hash, *out++};
    }
    return 1;
}

static double grade_of(const Slot *table, size_t mask, PyObject *key, Py_hash_t hash)
{
    for (size_t slot = (size_t)hash & mask; table[slot].key; slot = (slot + 1) & mask)
        if (same_key(table[slot].key, table[slot].hash, key, hash))
            return table[slot].grade;
    return NAN;
}

/* The dicts of each query (borrowed): judged[q] = qrels[qids[q]], runs[q] = run.get(qids[q]) (NULL when
 * absent), and the totals and longest of each; 0 unless all are plain dicts. */
typedef struct {
    PyObject **judged, **runs;
    Py_ssize_t judged_total, run_total, judged_longest, run_longest;
} Queries;

static int find_queries(PyObject *qrels, PyObject *run, PyObject *qids, Queries *out)
{
    const Py_ssize_t n = PyList_GET_SIZE(qids);
    for (Py_ssize_t q = 0; q < n; q++) {
        PyObject *qid = PyList_GET_ITEM(qids, q);
        PyObject *judgements = PyDict_GetItemWithError(qrels, qid), *ranked = PyDict_GetItemWithError(run, qid);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        if (!judgements || !PyDict_CheckExact(judgements) || (ranked && !PyDict_CheckExact(ranked)))
            return 0;
        out->judged[q] = judgements;
        out->runs[q] = ranked;
        const Py_ssize_t j = PyDict_GET_SIZE(judgements), r = ranked ? PyDict_GET_SIZE(ranked) : 0;
        out->judged_total += j;
        out->run_total += r;
        out->judged_longest = j > out->judged_longest ? j : out->judged_longest;
        out->run_longest = r > out->run_longest ? r : out->run_longest;
    }
    return 1;
}

static PyObject *ranked_grades(PyObject *module, PyObject *args)
{
    PyObject *qrels, *run, *qids;
    int trec;
    if (!PyArg_ParseTuple(args, "OOO!p", &qrels, &run, &PyList_Type, &qids, &trec))
        return NULL;
    if (!PyDict_CheckExact(qrels) || !PyDict_CheckExact(run))
        Py_RETURN_NONE;
    const Py_ssize_t n_queries = PyList_GET_SIZE(qids);
    Queries queries = {PyMem_Malloc((size_t)(n_queries + 1) * sizeof(PyObject *)),
                       PyMem_Malloc((size_t)(n_queries + 1) * sizeof(PyObject *)), 0, 0, 1, 1};
    PyObject *result = NULL, *arrays[5] = {NULL};
    Slot *table = NULL;
    Entry *entries = NULL, *scratch = NULL;
    if (!queries.judged || !queries.runs) {
        PyErr_NoMemory();
        goto done;
    }
    if (!find_queries(qrels, run, qids, &queries))
        goto other;
    size_t size = 4;
    while (size < 2 * (size_t)queries.judged_longest)
        size *= 2;
    double *gains, *grades;
    int64_t *lengths, *judged_lengths;
    char *present;
    arrays[0] = new_array(queries.run_total, sizeof(double), &gains);
    arrays[1] = new_array(queries.judged_total, sizeof(double), &grades);
    arrays[2] = new_array(n_queries, sizeof(int64_t), &lengths);
    arrays[3] = new_array(n_queries, sizeof(int64_t), &judged_lengths);
    arrays[4] = new_array(n_queries, 1, &present);
    table = PyMem_Malloc(size * sizeof(Slot));
    entries = PyMem_Malloc((size_t)queries.run_longest * sizeof(Entry));
    scratch = PyMem_Malloc((size_t)queries.run_longest * sizeof(Entry));
    if (!arrays[0] || !arrays[1] || !arrays[2] || !arrays[3] || !arrays[4] || !table || !entries || !scratch) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t q = 0; q < n_queries; q++) {
        PyObject *ranked = queries.runs[q], *judgements = queries.judged[q], *key, *value;
        if (!fill(table, size - 1, judgements, grades))
            goto other;
        grades += judged_lengths[q] = PyDict_GET_SIZE(judgements);
        present[q] = ranked != NULL;
        Py_ssize_t position = 0, n = 0;
        int ordered = 1;
        while (ranked && PyDict_Next(ranked, &position, &key, &value)) {
            Entry *entry = &entries[n];
            if (!PyUnicode_CheckExact(key) || !number(value, &entry->score))
                goto other;
            entry->key = key;
            entry->gain = grade_of(table, size - 1, key, PyObject_Hash(key));
            ordered &= n == 0 || !after(entry - 1, entry, trec);
            n++;
        }
        if (!ordered)
            sort_entries(entries, scratch, n, trec);
        for (Py_ssize_t k = 0; k < n; k++)
            *gains++ = entries[k].gain;
        lengths[q] = n;
    }
    result = PyTuple_Pack(5, arrays[0], arrays[1], arrays[2], arrays[3], arrays[4]);
    goto done;
other:
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(queries.judged);
    PyMem_Free(queries.runs);
    PyMem_Free(table);
    PyMem_Free(entries);
    PyMem_Free(scratch);
    for (int i = 0; i < 5; i++)
        Py_XDECREF(arrays[i]);
    return result;
}

static PyMethodDef methods[] = {
    {"ranked_grades", ranked_grades, METH_VARARGS,
     "ranked_grades(qrels, run, qids, trec) -> (gains, grades, lengths, judged_lengths, present) or None\n\n"
     "For the queries qids (each a key of qrels): the grade of every document of run[qid] in rank order,\n"
     "query after query (float64 bytes, NaN: not judged); every grade of qrels[qid] in dict order; the\n"
     "number of each (int64 bytes); whether qid is a key of run (bytes of 0/1). trec=True: trec_eval's\n"
     "order; False: scores descending, ties in dict order. None unless every dict is a plain dict (str\n"
     "keys and numbers for the documents)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef dict_values_module = {
    PyModuleDef_HEAD_INIT, "_dict_values", "pytrec_eval-style dicts read into the grades of each query's ranking.",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__dict_values(void) { return PyModule_Create(&dict_values_module); }
