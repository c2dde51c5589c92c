/* sacrebleu's translation edit rate (sacrebleu/metrics/lib_ter.py) in C, with the same results.
 *
 * translation_edit_rate(words_hyp, words_ref) -> (num_edits, ref_length) follows lib_ter step by step:
 * the beam edit distance (BeamEditDistance: a band of 25 cells either side of the length-scaled
 * diagonal, the last row whole; of equal costs the no-op/substitution first, then the deletion, then
 * the insertion), the trace and its alignment, the shift candidates in the order _find_shifted_pairs
 * yields them (at most 10 words, at most 50 positions apart), the same filters, the same ranking of
 * candidates (edit distance gained, then longest, then earliest start, then earliest target; the
 * first of equals kept) and the same limit of 1000 candidates over the whole sentence pair.
 *
 * sacrebleu's prefix cache of matrix rows only saves time. Here a candidate's matrix starts from the
 * rows it shares with the current hypothesis (those of their common prefix), which is the same saving.
 * Words are compared as integer ids: equal strings get equal ids (a dict per call), so comparing ids
 * is comparing the words. The matrix work runs without the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

/* lib_ter's limits */
#define MAX_SHIFT_SIZE 10
#define MAX_SHIFT_DIST 50
#define BEAM_WIDTH 25
#define MAX_SHIFT_CANDIDATES 1000
#define INF ((int64_t)10000000000000000LL) /* _INT_INFINITY = int(1e16) */

/* lib_ter's operation codes (as characters, for reading) */
#define OP_INS 'i'
#define OP_DEL 'd'
#define OP_NOP ' '
#define OP_SUB 's'
#define OP_UNDEF 'x'

/* One sentence pair's work: the reference, the current hypothesis and every buffer, allocated once. */
typedef struct {
    Py_ssize_t n, m;     /* hypothesis and reference lengths (every shifted hypothesis has length n) */
    const int *ref;      /* m reference word ids */
    int *words;          /* n: the current hypothesis */
    int *shifted;        /* n: a shift candidate */
    Py_ssize_t *lo, *hi; /* n + 1: the beam of row i is the columns lo[i] .. hi[i] - 1 */
    int64_t *cost;       /* (n + 1) x (m + 1): the current hypothesis's distance matrix */
    char *op;            /* (n + 1) x (m + 1): the operation that gave each cell its cost */
    int64_t *row_a, *row_b; /* m + 1 each: rows of a candidate's matrix, in turn */
    char *trace;         /* n + m: the operations from the matrix's start to its end */
    Py_ssize_t *align;   /* m: reference position -> hypothesis position (-1: before the first) */
    char *ref_err;       /* m: 1 where the reference word is not matched */
    char *hyp_err;       /* n: 1 where the hypothesis word is not matched */
} Ter;

/* The beam of every row, as BeamEditDistance._edit_distance computes it (the same double arithmetic). */
static void set_beam(Ter *t)
{
    const Py_ssize_t n = t->n, m = t->m;
    const double ratio = n ? (double)m / (double)n : 1.0;
    Py_ssize_t width = BEAM_WIDTH;
    if (BEAM_WIDTH < ratio / 2) /* very unequal lengths: a wider beam, so that rows still overlap */
        width = (Py_ssize_t)ceil(ratio / 2 + BEAM_WIDTH);
    t->lo[0] = 0;
    t->hi[0] = m + 1;
    for (Py_ssize_t i = 1; i <= n; i++) {
        const Py_ssize_t diag = (Py_ssize_t)floor((double)i * ratio);
        t->lo[i] = diag - width > 0 ? diag - width : 0;
        t->hi[i] = i == n || diag + width > m + 1 ? m + 1 : diag + width;
    }
}

/* Row i's costs from row i - 1's (prev) for hypothesis word `word`: the least of substitution (or
 * no-op), deletion and insertion inside the beam; cells outside it stay INF. */
static void cost_row(const Ter *t, Py_ssize_t i, int word, const int64_t *prev, int64_t *cur)
{
    for (Py_ssize_t j = 0; j <= t->m; j++)
        cur[j] = INF;
    for (Py_ssize_t j = t->lo[i]; j < t->hi[i]; j++) {
        if (j == 0) {
            cur[0] = prev[0] + 1;
            continue;
        }
        const int64_t sub = prev[j - 1] + (word == t->ref[j - 1] ? 0 : 1), del = prev[j] + 1, ins = cur[j - 1] + 1;
        int64_t best = cur[j];
        if (best > sub)
            best = sub;
        if (best > del)
            best = del;
        if (best > ins)
            best = ins;
        cur[j] = best;
    }
}

/* The whole matrix of the current hypothesis with each cell's operation (for the trace); returns
 * its edit distance. Of equal costs the first of substitution, deletion, insertion wins. */
static int64_t full_matrix(Ter *t)
{
    const Py_ssize_t n = t->n, w = t->m + 1;
    for (Py_ssize_t j = 0; j < w; j++) { /* the first row: insert the reference */
        t->cost[j] = j;
        t->op[j] = OP_INS;
    }
    for (Py_ssize_t i = 1; i <= n; i++) {
        int64_t *cur = t->cost + i * w;
        const int64_t *prev = cur - w;
        char *ops = t->op + i * w;
        const int word = t->words[i - 1];
        for (Py_ssize_t j = 0; j < w; j++) {
            cur[j] = INF;
            ops[j] = OP_UNDEF;
        }
        for (Py_ssize_t j = t->lo[i]; j < t->hi[i]; j++) {
            if (j == 0) {
                cur[0] = prev[0] + 1;
                ops[0] = OP_DEL;
                continue;
            }
            const int same = word == t->ref[j - 1];
            const int64_t sub = prev[j - 1] + (same ? 0 : 1), del = prev[j] + 1, ins = cur[j - 1] + 1;
            if (cur[j] > sub) {
                cur[j] = sub;
                ops[j] = same ? OP_NOP : OP_SUB;
            }
            if (cur[j] > del) {
                cur[j] = del;
                ops[j] = OP_DEL;
            }
            if (cur[j] > ins) {
                cur[j] = ins;
                ops[j] = OP_INS;
            }
        }
    }
    return t->cost[n * w + t->m];
}

/* The edit distance of t->shifted, from the rows it shares with the current hypothesis on. */
static int64_t shifted_distance(Ter *t)
{
    const Py_ssize_t n = t->n, w = t->m + 1;
    Py_ssize_t p = 0; /* common prefix: rows 0 .. p are the current hypothesis's */
    while (p < n && t->shifted[p] == t->words[p])
        p++;
    const int64_t *prev = t->cost + p * w;
    int64_t *cur = t->row_a, *spare = t->row_b;
    for (Py_ssize_t i = p + 1; i <= n; i++) {
        cost_row(t, i, t->shifted[i - 1], prev, cur);
        prev = cur;
        cur = spare;
        spare = (int64_t *)prev;
    }
    return prev[t->m];
}

/* The trace of the current matrix and, from it flipped (rewriting the reference into the
 * hypothesis), the alignment and the error positions (lib_ter's _flip_trace + trace_to_alignment).
 * Returns -1 on an undefined cell (lib_ter raises there; the band makes it unreachable). */
static int alignment(Ter *t)
{
    const Py_ssize_t w = t->m + 1;
    Py_ssize_t i = t->n, j = t->m, k = t->n + t->m;
    while (i > 0 || j > 0) { /* backwards from the end; the trace fills trace[k .. n + m - 1] */
        const char op = t->op[i * w + j];
        t->trace[--k] = op;
        if (op == OP_SUB || op == OP_NOP) {
            i--;
            j--;
        } else if (op == OP_INS) {
            j--;
        } else if (op == OP_DEL) {
            i--;
        } else {
            return -1;
        }
    }
    Py_ssize_t pos_hyp = -1, pos_ref = -1;
    for (; k < t->n + t->m; k++) {
        const char op = t->trace[k];
        if (op == OP_NOP || op == OP_SUB) {
            pos_hyp++;
            pos_ref++;
            t->align[pos_ref] = pos_hyp;
            t->hyp_err[pos_hyp] = t->ref_err[pos_ref] = op == OP_SUB;
        } else if (op == OP_DEL) { /* flipped: an insertion into the hypothesis */
            pos_hyp++;
            t->hyp_err[pos_hyp] = 1;
        } else { /* OP_INS, flipped: a deletion from the reference */
            pos_ref++;
            t->align[pos_ref] = pos_hyp;
            t->ref_err[pos_ref] = 1;
        }
    }
    return 0;
}

/* words[start .. start + length - 1] moved before position target, into out (lib_ter's _perform_shift,
 * with Python's slice bounds). */
static void perform_shift(const int *words, Py_ssize_t n, Py_ssize_t start, Py_ssize_t length, Py_ssize_t target,
                          int *out)
{
    Py_ssize_t k = 0;
#define COPY(from, to)                                                                                            \
    do {                                                                                                        \
        const Py_ssize_t a_ = (from) < n ? (from) : n, b_ = (to) < n ? (to) : n;                                  \
        for (Py_ssize_t x_ = a_; x_ < b_; x_++)                                                                  \
            out[k++] = words[x_];                                                                               \
    } while (0)
    if (target < start) {
        COPY(0, target);
        COPY(start, start + length);
        COPY(target, start);
        COPY(start + length, n);
    } else if (target > start + length) {
        COPY(0, start);
        COPY(start + length, target);
        COPY(start, start + length);
        COPY(target, n);
    } else {
        COPY(0, start);
        COPY(start + length, length + target);
        COPY(start, start + length);
        COPY(length + target, n);
    }
#undef COPY
}

/* A shift candidate's rank: lib_ter's tuple (gain, length, -start, -target), compared in order. */
typedef struct {
    int64_t gain;
    Py_ssize_t length, start, target;
} Candidate;

static int better(const Candidate *a, const Candidate *b)
{
    if (a->gain != b->gain)
        return a->gain > b->gain;
    if (a->length != b->length)
        return a->length > b->length;
    if (a->start != b->start)
        return a->start < b->start;
    return a->target < b->target; /* equal in all four: the same shifted words; the first stays */
}

/* The candidates of one matching pair (lib_ter's _shift loop body): skipped where the hypothesis
 * words are all matched, the reference words are all matched, or the target lies inside the moved
 * words; else every distinct target position around the reference match is tried. */
static void try_pair(Ter *t, int64_t pre_score, Py_ssize_t start_h, Py_ssize_t start_r, Py_ssize_t length,
                     Candidate *best, int *found, Py_ssize_t *checked)
{
    int wrong = 0;
    for (Py_ssize_t x = start_h; x < start_h + length; x++)
        wrong |= t->hyp_err[x];
    if (!wrong)
        return;
    wrong = 0;
    for (Py_ssize_t x = start_r; x < start_r + length; x++)
        wrong |= t->ref_err[x];
    if (!wrong)
        return;
    if (start_h <= t->align[start_r] && t->align[start_r] < start_h + length)
        return;
    Py_ssize_t prev_idx = -1;
    for (Py_ssize_t offset = -1; offset < length; offset++) {
        const Py_ssize_t pos = start_r + offset;
        Py_ssize_t idx;
        if (pos == -1)
            idx = 0; /* insert before the beginning */
        else if (pos >= 0 && pos < t->m)
            idx = t->align[pos] + 1; /* just after the hypothesis word aligned to it */
        else
            break;
        if (idx == prev_idx)
            continue;
        prev_idx = idx;
        perform_shift(t->words, t->n, start_h, length, idx, t->shifted);
        const Candidate c = {pre_score - shifted_distance(t), length, start_h, idx};
        ++*checked;
        if (!*found || better(&c, best)) {
            *best = c;
            *found = 1;
        }
    }
}

/* One round of lib_ter's _shift on the current hypothesis, whose edit distance is pre_score: the best
 * shift's gain (0 where there is none) in *gain and, where there is one, the shifted words in t->shifted.
 * Returns -1 on an undefined trace cell. */
static int best_shift(Ter *t, int64_t pre_score, int64_t *gain, Py_ssize_t *checked)
{
    if (alignment(t) < 0)
        return -1;
    Candidate best = {0, 0, 0, 0};
    int found = 0;
    const Py_ssize_t n = t->n, m = t->m;
    /* _find_shifted_pairs: every (start_h, start_r) at most MAX_SHIFT_DIST apart, each match length
     * 1 .. MAX_SHIFT_SIZE in turn; stopped after the pair that reaches MAX_SHIFT_CANDIDATES */
    for (Py_ssize_t start_h = 0; start_h < n; start_h++) {
        for (Py_ssize_t start_r = 0; start_r < m; start_r++) {
            if (start_r - start_h > MAX_SHIFT_DIST || start_h - start_r > MAX_SHIFT_DIST)
                continue;
            Py_ssize_t length = 0;
            while (t->words[start_h + length] == t->ref[start_r + length] && length < MAX_SHIFT_SIZE) {
                length++;
                try_pair(t, pre_score, start_h, start_r, length, &best, &found, checked);
                if (*checked >= MAX_SHIFT_CANDIDATES) /* below it on entry: this pair was tried */
                    goto done;
                if (n == start_h + length || m == start_r + length)
                    break;
            }
        }
    }
done:
    *gain = found ? best.gain : 0;
    if (found)
        perform_shift(t->words, n, best.start, best.length, best.target, t->shifted);
    return 0;
}

/* lib_ter's translation_edit_rate loop for a non-empty reference: shift while a shift lowers the
 * edit distance and fewer than MAX_SHIFT_CANDIDATES candidates were tried; the shifts plus the
 * final edit distance. Returns -1 on an undefined trace cell. */
static int64_t edits(Ter *t)
{
    set_beam(t);
    int64_t shifts = 0;
    Py_ssize_t checked = 0;
    for (;;) {
        const int64_t pre_score = full_matrix(t);
        int64_t gain = 0;
        if (best_shift(t, pre_score, &gain, &checked) < 0)
            return -1;
        if (checked >= MAX_SHIFT_CANDIDATES || gain <= 0)
            return shifts + pre_score; /* the current hypothesis's distance, as lib_ter's last call */
        shifts++;
        int *swap = t->words;
        t->words = t->shifted;
        t->shifted = swap;
    }
}

/* Word ids of a sequence into ids[0 .. len - 1], equal words equal ids through the dict `seen`. */
static int word_ids(PyObject *seq, PyObject *seen, int *ids)
{
    const Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t k = 0; k < len; k++) {
        PyObject *id = PyDict_GetItemWithError(seen, items[k]);
        if (id == NULL) {
            if (PyErr_Occurred())
                return -1;
            id = PyLong_FromSsize_t(PyDict_GET_SIZE(seen));
            if (id == NULL)
                return -1;
            const int status = PyDict_SetItem(seen, items[k], id);
            Py_DECREF(id);
            if (status < 0)
                return -1;
            ids[k] = (int)(PyDict_GET_SIZE(seen) - 1);
        } else {
            ids[k] = (int)PyLong_AsLong(id);
        }
    }
    return 0;
}

/* Bytes for count items of size each, added to *total; 0 on overflow. */
static int add_size(size_t *total, size_t count, size_t size)
{
    if (size && count > (SIZE_MAX - *total) / size)
        return 0;
    *total += count * size;
    return 1;
}

/* The buffers of a pair in one block (freed with PyMem_RawFree(t->words)); -1 with MemoryError. */
static int allocate(Ter *t, const int *ref)
{
    const size_t n = (size_t)t->n, m = (size_t)t->m, cells = (n + 1) * (m + 1);
    if (cells / (n + 1) != m + 1)
        goto no_memory;
    /* the int64 and Py_ssize_t arrays first, then the ints, then the chars: each stays aligned */
    size_t total = 0;
    if (!add_size(&total, cells, sizeof(int64_t)) || !add_size(&total, 2 * (m + 1), sizeof(int64_t)) ||
        !add_size(&total, 2 * (n + 1) + m, sizeof(Py_ssize_t)) || !add_size(&total, 2 * n, sizeof(int)) ||
        !add_size(&total, cells + 2 * (n + m), 1))
        goto no_memory;
    char *block = PyMem_RawMalloc(total ? total : 1);
    if (block == NULL)
        goto no_memory;
    t->cost = (int64_t *)block;
    t->row_a = t->cost + cells;
    t->row_b = t->row_a + (m + 1);
    t->lo = (Py_ssize_t *)(t->row_b + (m + 1));
    t->hi = t->lo + (n + 1);
    t->align = t->hi + (n + 1);
    t->words = (int *)(t->align + m);
    t->shifted = t->words + n;
    t->op = (char *)(t->shifted + n);
    t->trace = t->op + cells;
    t->ref_err = t->trace + (n + m);
    t->hyp_err = t->ref_err + m;
    t->ref = ref;
    return 0;
no_memory:
    PyErr_NoMemory();
    return -1;
}

PyDoc_STRVAR(translation_edit_rate_doc,
             "translation_edit_rate(words_hyp, words_ref, /)\n--\n\n"
             "sacrebleu's lib_ter.translation_edit_rate: (number of edits, reference length) of two lists of words.");

static PyObject *translation_edit_rate(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "translation_edit_rate takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    PyObject *hyp = NULL, *ref = NULL, *seen = NULL, *result = NULL;
    int *ref_ids = NULL;
    Ter t = {0};
    int64_t total = 0;
    hyp = PySequence_Fast(args[0], "words_hyp must be a sequence of words");
    if (hyp == NULL)
        goto out;
    ref = PySequence_Fast(args[1], "words_ref must be a sequence of words");
    if (ref == NULL)
        goto out;
    t.n = PySequence_Fast_GET_SIZE(hyp);
    t.m = PySequence_Fast_GET_SIZE(ref);
    if (t.m == 0) { /* an empty reference: every hypothesis word is an edit */
        result = Py_BuildValue("(ni)", t.n, 0);
        goto out;
    }
    if (t.n > INT_MAX - t.m) { /* the ids are ints */
        PyErr_SetString(PyExc_OverflowError, "too many words for translation_edit_rate");
        goto out;
    }
    ref_ids = PyMem_RawMalloc((size_t)t.m * sizeof(int));
    if (ref_ids == NULL) {
        PyErr_NoMemory();
        goto out;
    }
    if (allocate(&t, ref_ids) < 0)
        goto out;
    seen = PyDict_New();
    if (seen == NULL || word_ids(ref, seen, ref_ids) < 0 || word_ids(hyp, seen, t.words) < 0)
        goto out;
    Py_BEGIN_ALLOW_THREADS
    total = edits(&t);
    Py_END_ALLOW_THREADS
    if (total < 0)
        PyErr_SetString(PyExc_RuntimeError, "translation_edit_rate: unknown operation 'x' in the trace");
    else
        result = Py_BuildValue("(Ln)", (long long)total, t.m);
out:
    PyMem_RawFree(t.cost); /* the whole block; NULL where it was not allocated */
    PyMem_RawFree(ref_ids);
    Py_XDECREF(seen);
    Py_XDECREF(hyp);
    Py_XDECREF(ref);
    return result;
}

static PyMethodDef ter_methods[] = {
    {"translation_edit_rate", (PyCFunction)(void (*)(void))translation_edit_rate, METH_FASTCALL,
     translation_edit_rate_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef ter_module = {
    PyModuleDef_HEAD_INIT, "_ter", "sacrebleu's translation edit rate (lib_ter) in C, with the same results.", -1,
    ter_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__ter(void) { return PyModule_Create(&ter_module); }
