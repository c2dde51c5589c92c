/* One pass over the bytes of a TREC qrels or run file, and the grade of every run line.
 *
 * scan(buffer, qrels) reads trec_eval 10's format (fields separated by ASCII whitespace, lines by
 * '\n', '#' comment lines, blank lines, a UTF-8 byte order mark at the start) into columns. It
 * returns None for anything it does not take as it is -- a bad line, a number it does not parse
 * exactly as Python's int() / float() would, invalid UTF-8 in a query id -- so that the caller
 * reads the file line by line, which accepts every valid file and names the first bad line.
 *
 * judge(...) gives each run line of a range of queries the grade of its (query, document)
 * judgement, NaN when the pair is not judged, comparing the document ids' bytes (a small hash table
 * per query), and the first line of each file among theirs that repeats a pair of its file. Two
 * threads may judge two ranges into the same output at once.
 *
 * rank(...) orders each query's documents as trec_eval does (or by score alone, ties in input order).
 *
 * All three release the GIL for the work over the lines.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* ------------------------------------------------------------------ numbers */

static const double EXACT_POWERS[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* An integer as Python's int() reads it, for [+-]?[0-9]{1,18} (anything else: 0). */
static int parse_grade(const char *p, Py_ssize_t n, int64_t *out)
{
    int negative = 0;
    if (n && (*p == '+' || *p == '-')) {
        negative = *p == '-';
        p++;
        n--;
    }
    if (n < 1 || n > 18)
        return 0;
    int64_t value = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!is_digit(p[i]))
            return 0;
        value = value * 10 + (p[i] - '0');
    }
    *out = negative ? -value : value;
    return 1;
}

/* m * 10^e correctly rounded, through the x87 80-bit long double, or 0 when the result could be
 * rounded twice (or the platform has no such long double). */
static int scale_extended(uint64_t m, int e, double *out)
{
#if LDBL_MANT_DIG == 64 && (defined(__x86_64__) || defined(__i386__))
    /* exact: 10^k = 5^k * 2^k, and 5^27 < 2^64 fits the 64-bit significand */
    static const long double powers[] = {
        1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L, 1e9L, 1e10L, 1e11L, 1e12L, 1e13L,
        1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L,
    };
    if (e < -27 || e > 27)
        return 0;
    /* one correctly rounded operation to 64 significant bits; the results here are normal doubles */
    const long double wide = e < 0 ? (long double)m / powers[-e] : (long double)m * powers[e];
    uint64_t significand;
    memcpy(&significand, &wide, sizeof(significand)); /* x87 layout: the 64-bit significand first */
    if ((significand & 0x7FF) == 0x400)
        return 0; /* exactly between two doubles: rounding again could pick the wrong one */
    *out = (double)wide; /* otherwise rounding the 64-bit result rounds the exact value */
    return 1;
#else
    (void)m; (void)e; (void)out;
    return 0;
#endif
}

/* Whether the 8 bytes at p are all ASCII digits. */
static int eight_digits(const char *p)
{
    uint64_t word;
    memcpy(&word, p, 8);
    return !(((word + 0x4646464646464646ULL) | (word - 0x3030303030303030ULL)) & 0x8080808080808080ULL);
}

/* The value of the 8 ASCII digits at p (most significant first). */
static uint64_t eight_digit_value(const char *p)
{
    uint64_t word;
    memcpy(&word, p, 8);
    word -= 0x3030303030303030ULL;
    word = word * 10 + (word >> 8);
    return (((word & 0x000000FF000000FFULL) * 0x000F424000000064ULL)
            + (((word >> 16) & 0x000000FF000000FFULL) * 0x0000271000000001ULL)) >> 32;
}

/* Append the digits at *at to *mantissa while it holds at most 19 digits (leading zeros of the
 * number are not counted), eight at a time where it can; the others set *dropped and, before the
 * point (`whole`), raise *exponent. After the point each kept digit lowers *exponent. */
static Py_ssize_t read_digits(const char **at, const char *end, int whole, uint64_t *mantissa, int *digits,
                              int *dropped, int *exponent)
{
    const char *p = *at;
    while (end - p >= 8 && *digits + 8 <= 19 && eight_digits(p)) {
        *mantissa = *mantissa * 100000000ULL + eight_digit_value(p);
        if (*mantissa)
            *digits += 8; /* counts some leading zeros when the number starts here: only errs to strtod */
        if (!whole)
            *exponent -= 8;
        p += 8;
    }
    for (; p < end && is_digit(*p); p++) {
        if (*digits < 19) {
            if (*mantissa || *p != '0') {
                *mantissa = *mantissa * 10 + (uint64_t)(*p - '0');
                (*digits)++;
            }
            if (!whole)
                (*exponent)--;
        } else {
            *dropped = 1;
            if (whole)
                (*exponent)++;
        }
    }
    const Py_ssize_t count = p - *at;
    *at = p;
    return count;
}

/* A decimal number as Python's float() reads it, for [+-]?digits[.digits][(e|E)[+-]digits]
 * (at least one mantissa digit; anything else, or a result that is not finite: 0). */
static int parse_score(const char *p, Py_ssize_t n, double *out)
{
    const char *start = p, *end = p + n;
    int negative = 0;
    if (p < end && (*p == '+' || *p == '-'))
        negative = *p++ == '-';
    uint64_t mantissa = 0;
    int digits = 0, dropped = 0, exponent = 0;
    Py_ssize_t seen = read_digits(&p, end, 1, &mantissa, &digits, &dropped, &exponent);
    if (p < end && *p == '.') {
        p++;
        seen += read_digits(&p, end, 0, &mantissa, &digits, &dropped, &exponent);
    }
    if (!seen)
        return 0;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        int minus = 0, given = 0, value = 0;
        if (p < end && (*p == '+' || *p == '-'))
            minus = *p++ == '-';
        for (; p < end && is_digit(*p); p++, given++)
            if (value < 100000)
                value = value * 10 + (*p - '0');
        if (!given)
            return 0;
        exponent += minus ? -value : value;
    }
    if (p != end)
        return 0;
    double value;
    if (mantissa == 0) {
        value = 0.0;
    } else if (!dropped && mantissa < ((uint64_t)1 << 53) && exponent >= -22 && exponent <= 22) {
        value = exponent < 0 ? (double)mantissa / EXACT_POWERS[-exponent]
                             : (double)mantissa * EXACT_POWERS[exponent];
    } else if (dropped || !scale_extended(mantissa, exponent, &value)) {
        char text[64];
        if (n >= (Py_ssize_t)sizeof(text))
            return 0;
        memcpy(text, start, (size_t)n);
        text[n] = '\0';
        char *stop;
        value = strtod(text, &stop);
        if (stop != text + n)
            return 0;
        value = fabs(value);
    }
    if (!isfinite(value))
        return 0;
    *out = negative ? -value : value;
    return 1;
}

/* ------------------------------------------------------------------ lines */

static int is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

typedef struct {
    Py_ssize_t line;        /* first data line of a run of lines with one query id */
    Py_ssize_t start, size; /* the query id's bytes */
} Head;

typedef struct {
    /* in */
    const char *bytes;
    Py_ssize_t size;
    int qrels;
    /* out (allocated by the caller for the largest possible number of lines) */
    int64_t *docno_offsets;
    char *docno_bytes;
    void *values; /* int64 grades or double scores */
    Head *heads;
    Py_ssize_t lines, n_heads, docno_size;
    int high_bytes; /* a byte >= 0x80 in a data line */
} Scan;

#define ONES 0x0101010101010101ULL
#define HIGH_BITS 0x8080808080808080ULL

/* The first byte at or after p that is below 0x21 (whitespace, '\n', or another control byte),
 * or end; eight bytes at a time. Every byte read is or-ed into *seen. */
static const char *next_low(const char *p, const char *end, uint64_t *seen)
{
    while (end - p >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        *seen |= word;
        const uint64_t low = (word - ONES * 0x21) & ~word & HIGH_BITS; /* exact for the lowest byte */
        if (low)
            return p + (__builtin_ctzll(low) >> 3);
        p += 8;
    }
    while (p < end && (unsigned char)*p > 0x20)
        *seen |= (unsigned char)*p++;
    return p;
}

/* Read the line at *at: its fields (at most `wanted` kept), and *at moved past its '\n'.
 * Returns the number of fields: 0 for a blank or comment line. */
static int read_line(const char **at, const char *end, const char **starts, Py_ssize_t *sizes, int wanted,
                     uint64_t *seen)
{
    const char *p = *at;
    int count = 0;
    uint64_t bits = 0;
    for (;;) {
        while (p < end && is_space((unsigned char)*p))
            p++;
        if (p == end || *p == '\n')
            break;
        const char *field = p;
        if (count == 0 && *field == '#') { /* a comment line */
            const char *stop = memchr(p, '\n', (size_t)(end - p));
            *at = stop ? stop + 1 : end;
            return 0;
        }
        for (;;) {
            p = next_low(p, end, &bits);
            if (p == end || *p == '\n' || is_space((unsigned char)*p))
                break;
            p++; /* a control byte that is not whitespace belongs to the field */
        }
        if (count < wanted) {
            starts[count] = field;
            sizes[count] = p - field;
        }
        count++;
    }
    *at = p < end ? p + 1 : end;
    *seen |= bits;
    return count;
}

#if defined(__SSE2__)
#include <emmintrin.h>

/* read_line for the usual line: shorter than 64 bytes, fields separated by spaces only. The bytes
 * of the line are classified 16 at a time and its fields found from bit masks. Returns -2 for any
 * other line (read_line takes it). */
static int read_plain_line(const char **at, const char *end, const char **starts, Py_ssize_t *sizes, int wanted,
                           uint64_t *seen)
{
    const char *p = *at;
    if (end - p < 64)
        return -2;
    const __m128i space = _mm_set1_epi8(' '), newline = _mm_set1_epi8('\n');
    uint64_t low = 0, spaces = 0, newlines = 0, high = 0;
    for (int k = 0; k < 4; k++) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * k));
        const int shift = 16 * k;
        low |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(v, space), v)) << shift;
        spaces |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, space)) << shift;
        newlines |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, newline)) << shift;
        high |= (uint64_t)(unsigned)_mm_movemask_epi8(v) << shift;
    }
    if (!newlines)
        return -2; /* 64 bytes or longer */
    const int length = __builtin_ctzll(newlines);
    if (length == 0) {
        *at = p + 1;
        return 0;
    }
    const uint64_t line = ~0ULL >> (64 - length);
    low &= line;
    if (low != (spaces & line))
        return -2; /* a tab, carriage return or other control byte */
    if (high & line)
        *seen |= HIGH_BITS;
    const uint64_t field = ~low & line;
    *at = p + length + 1;
    if (!field || p[__builtin_ctzll(field)] == '#')
        return 0; /* a blank or comment line */
    uint64_t first = field & ~(field << 1), last = field & ~(field >> 1);
    int count = 0;
    for (; first; first &= first - 1, last &= last - 1, count++)
        if (count < wanted) {
            const int from = __builtin_ctzll(first);
            starts[count] = p + from;
            sizes[count] = __builtin_ctzll(last) - from + 1;
        }
    return count;
}
#endif

static int scan_lines(Scan *s)
{
    const char *p = s->bytes, *end = s->bytes + s->size;
    if (s->size >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
        p += 3;
    const int wanted = s->qrels ? 4 : 6;
    const char *starts[6];
    Py_ssize_t sizes[6];
    const char *qid = NULL;
    Py_ssize_t qid_size = -1, lines = 0, heads = 0, docno_size = 0;
    uint64_t seen = 0;
    s->docno_offsets[0] = 0;
    while (p < end) {
#if defined(__SSE2__)
        int count = read_plain_line(&p, end, starts, sizes, wanted, &seen);
        if (count == -2)
            count = read_line(&p, end, starts, sizes, wanted, &seen);
#else
        const int count = read_line(&p, end, starts, sizes, wanted, &seen);
#endif
        if (count == 0)
            continue;
        if (count < wanted || (s->qrels && count > wanted))
            return 0;
        if (s->qrels) {
            if (!parse_grade(starts[3], sizes[3], (int64_t *)s->values + lines))
                return 0;
        } else if (!parse_score(starts[4], sizes[4], (double *)s->values + lines)) {
            return 0;
        }
        if (sizes[0] != qid_size || memcmp(starts[0], qid, (size_t)qid_size) != 0) {
            qid = starts[0];
            qid_size = sizes[0];
            s->heads[heads++] = (Head){lines, qid - s->bytes, qid_size};
        }
        memcpy(s->docno_bytes + docno_size, starts[2], (size_t)sizes[2]);
        docno_size += sizes[2];
        s->docno_offsets[++lines] = docno_size;
    }
    s->lines = lines;
    s->n_heads = heads;
    s->docno_size = docno_size;
    s->high_bytes = (seen & HIGH_BITS) != 0;
    return 1;
}

/* Ask for the pages of a large buffer to be huge ones, as numpy does for its arrays: a 4 KiB page
 * is cleared by the kernel at its first write, which costs about as much as scanning the lines
 * that fill it; a huge page is cleared at a fraction of that per byte. */
static void *huge_pages(void *buffer, size_t size)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (buffer && size >= ((size_t)4 << 20)) {
        const uintptr_t start = ((uintptr_t)buffer + 4095) & ~(uintptr_t)4095;
        (void)madvise((void *)start, (uintptr_t)buffer + size - start, MADV_HUGEPAGE); /* only a hint */
    }
#else
    (void)size;
#endif
    return buffer;
}

static PyObject *new_bytes(Py_ssize_t size)
{
    PyObject *array = PyByteArray_FromStringAndSize(NULL, size);
    if (array)
        huge_pages(PyByteArray_AS_STRING(array), (size_t)size);
    return array;
}

/* The query of every line (an index into the distinct query ids, in order of first appearance)
 * and those ids, from the runs of lines that share a query id. */
static PyObject *query_codes(const Scan *s, PyObject *query)
{
    PyObject *codes = PyDict_New(), *qids = PyList_New(0);
    if (!codes || !qids)
        goto fail;
    int64_t *out = (int64_t *)PyByteArray_AS_STRING(query);
    for (Py_ssize_t h = 0; h < s->n_heads; h++) {
        const Head head = s->heads[h];
        PyObject *text = PyUnicode_DecodeUTF8(s->bytes + head.start, head.size, "strict");
        if (!text)
            goto fail;
        PyObject *code = PyDict_GetItemWithError(codes, text);
        if (!code) {
            if (PyErr_Occurred() || !(code = PyLong_FromSsize_t(PyList_GET_SIZE(qids)))
                || PyDict_SetItem(codes, text, code) < 0 || PyList_Append(qids, text) < 0) {
                Py_XDECREF(code);
                Py_DECREF(text);
                goto fail;
            }
            Py_DECREF(code);
        }
        Py_DECREF(text);
        const int64_t value = PyLong_AsLongLong(code);
        const Py_ssize_t stop = h + 1 < s->n_heads ? s->heads[h + 1].line : s->lines;
        for (Py_ssize_t line = head.line; line < stop; line++)
            out[line] = value;
    }
    Py_DECREF(codes);
    return qids;
fail:
    Py_XDECREF(codes);
    Py_XDECREF(qids);
    return NULL;
}

static int shrink(PyObject *array, Py_ssize_t size) { return PyByteArray_Resize(array, size); }

static PyObject *scan(PyObject *module, PyObject *args)
{
    Py_buffer view;
    int qrels;
    if (!PyArg_ParseTuple(args, "y*p", &view, &qrels))
        return NULL;
    Scan s = {.bytes = view.buf, .size = view.len, .qrels = qrels};
    /* a data line has at least one byte per field and one separator or newline after it */
    const Py_ssize_t most = view.len / (2 * (qrels ? 4 : 6)) + 1;
    PyObject *offsets = new_bytes((most + 1) * 8), *docnos = new_bytes(view.len + 1),
             *values = new_bytes(most * 8), *query = NULL, *qids = NULL, *result = NULL;
    s.heads = huge_pages(PyMem_RawMalloc((size_t)most * sizeof(Head)), (size_t)most * sizeof(Head));
    if (!offsets || !docnos || !values || !s.heads) {
        PyErr_NoMemory();
        goto done;
    }
    s.docno_offsets = (int64_t *)PyByteArray_AS_STRING(offsets);
    s.docno_bytes = PyByteArray_AS_STRING(docnos);
    s.values = PyByteArray_AS_STRING(values);
    int ok;
    Py_BEGIN_ALLOW_THREADS
    ok = scan_lines(&s);
    Py_END_ALLOW_THREADS
    if (!ok) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    if (shrink(offsets, (s.lines + 1) * 8) < 0 || shrink(docnos, s.docno_size) < 0
        || shrink(values, s.lines * 8) < 0 || !(query = new_bytes(s.lines * 8)))
        goto done;
    qids = query_codes(&s, query);
    if (!qids) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))
            goto done;
        PyErr_Clear(); /* invalid UTF-8 in a query id: the line reader names it */
        result = Py_NewRef(Py_None);
        goto done;
    }
    result = Py_BuildValue("(OOOOOO)", query, qids, offsets, docnos, values, s.high_bytes ? Py_True : Py_False);
done:
    PyMem_RawFree(s.heads);
    Py_XDECREF(offsets);
    Py_XDECREF(docnos);
    Py_XDECREF(values);
    Py_XDECREF(query);
    Py_XDECREF(qids);
    PyBuffer_Release(&view);
    return result;
}

/* ------------------------------------------------------------------ judgements */

typedef struct {
    const int64_t *query;   /* per line */
    const int64_t *offsets; /* document id of line i: bytes[offsets[i]:offsets[i + 1]] */
    const char *bytes, *bytes_end;
    Py_ssize_t lines;
    int64_t *order;         /* lines grouped by query, file order within (NULL: already grouped) */
    int64_t *starts;        /* lines of query q: order[starts[q]:starts[q + 1]] */
} Side;

static int64_t line_at(const Side *side, int64_t k) { return side->order ? side->order[k] : k; }

static uint64_t hash_doc(const Side *side, int64_t i)
{
    const char *p = side->bytes + side->offsets[i];
    int64_t n = side->offsets[i + 1] - side->offsets[i];
    uint64_t h = (uint64_t)n * 0x9E3779B97F4A7C15ULL;
    for (; n > 0; p += 8, n -= 8) {
        uint64_t word = 0;
        if (side->bytes_end - p >= 8) {
            memcpy(&word, p, 8);
            if (n < 8)
                word &= ~(uint64_t)0 >> (8 * (8 - n)); /* the document id's own bytes (little-endian) */
        } else {
            memcpy(&word, p, (size_t)n);
        }
        h ^= word;
        h *= 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 29;
    }
    h ^= h >> 30;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 27;
    h *= 0x94D049BB133111EBULL;
    h ^= h >> 31;
    return h;
}

/* starts (and order, unless the lines are already grouped by query) of one side. */
static int group(Side *side, Py_ssize_t n_queries)
{
    side->order = NULL;
    side->starts = calloc((size_t)n_queries + 1, sizeof(int64_t));
    if (!side->starts)
        return 0;
    int grouped = 1;
    for (Py_ssize_t i = 0; i < side->lines; i++) {
        side->starts[side->query[i] + 1]++;
        grouped &= i == 0 || side->query[i] >= side->query[i - 1];
    }
    for (Py_ssize_t q = 0; q < n_queries; q++)
        side->starts[q + 1] += side->starts[q];
    if (grouped)
        return 1;
    side->order = malloc((size_t)(side->lines ? side->lines : 1) * sizeof(int64_t));
    int64_t *next = malloc((size_t)(n_queries ? n_queries : 1) * sizeof(int64_t));
    if (!side->order || !next) {
        free(next);
        return 0;
    }
    memcpy(next, side->starts, (size_t)n_queries * sizeof(int64_t));
    for (Py_ssize_t i = 0; i < side->lines; i++)
        side->order[next[side->query[i]]++] = i;
    free(next);
    return 1;
}

/* What a table slot holds: a judged document not retrieved (yet), a judged document the run
 * retrieved, or a retrieved document with no judgement. */
enum { JUDGED, JUDGED_RETRIEVED, RETRIEVED };

/* One query's documents, its judged ones first, then the ones its run retrieves: each run line
 * is hashed and looked up once, finding its judgement or an earlier line of the run. */
typedef struct {
    int64_t *line;  /* -1: empty; else a qrels line (JUDGED*) or a run line (RETRIEVED) */
    uint64_t *hash;
    uint8_t *kind;
    uint64_t mask;
} Table;

static int same_doc(const Side *a, int64_t i, const Side *b, int64_t j)
{
    const int64_t size = a->offsets[i + 1] - a->offsets[i];
    return size == b->offsets[j + 1] - b->offsets[j]
        && memcmp(a->bytes + a->offsets[i], b->bytes + b->offsets[j], (size_t)size) == 0;
}

/* The slot of the document of line i of `side` (hash h), or the empty slot where it belongs. */
static uint64_t find(const Table *t, const Side *judged, const Side *run, const Side *side, int64_t i, uint64_t h)
{
    uint64_t slot = h & t->mask;
    while (t->line[slot] >= 0
           && !(t->hash[slot] == h && same_doc(t->kind[slot] == RETRIEVED ? run : judged, t->line[slot], side, i)))
        slot = (slot + 1) & t->mask;
    return slot;
}

static uint64_t table_size(int64_t entries)
{
    uint64_t size = 4;
    while (size < 2 * (uint64_t)entries)
        size *= 2;
    return size;
}

static void clear(Table *t, int64_t entries)
{
    const uint64_t size = table_size(entries);
    t->mask = size - 1;
    memset(t->line, 0xff, size * sizeof(int64_t));
}

static void fill(Table *t, uint64_t slot, int64_t line, uint64_t h, uint8_t kind)
{
    t->line[slot] = line;
    t->hash[slot] = h;
    t->kind[slot] = kind;
}

static void note_repeat(int64_t *repeated, int64_t line)
{
    if (*repeated < 0 || line < *repeated)
        *repeated = line;
}

static int64_t longest(const Side *side, Py_ssize_t n_queries)
{
    int64_t most = 0;
    for (Py_ssize_t q = 0; q < n_queries; q++)
        if (side->starts[q + 1] - side->starts[q] > most)
            most = side->starts[q + 1] - side->starts[q];
    return most;
}

static int new_table(Table *t, int64_t entries)
{
    const uint64_t size = table_size(entries);
    t->line = malloc(size * sizeof(int64_t));
    t->hash = malloc(size * sizeof(uint64_t));
    t->kind = malloc(size);
    return t->line && t->hash && t->kind;
}

/* The grades of the run lines of queries first .. stop - 1 (NaN where not judged), and the first
 * line of each file among theirs that repeats a pair of its file. */
static int judge_lines(Side *judged, const double *grades_of_judged, Side *run, Py_ssize_t n_queries,
                       Py_ssize_t first, Py_ssize_t stop, double *grade, int64_t *repeated)
{
    int ok = 0;
    Table table = {0};
    if (!group(judged, n_queries) || !group(run, n_queries)
        || !new_table(&table, longest(judged, n_queries) + longest(run, n_queries)))
        goto done;
    repeated[0] = repeated[1] = -1;
    for (Py_ssize_t q = first; q < stop; q++) {
        clear(&table, judged->starts[q + 1] - judged->starts[q] + run->starts[q + 1] - run->starts[q]);
        for (int64_t k = judged->starts[q]; k < judged->starts[q + 1]; k++) {
            const int64_t i = line_at(judged, k);
            const uint64_t h = hash_doc(judged, i);
            const uint64_t slot = find(&table, judged, run, judged, i, h);
            if (table.line[slot] >= 0)
                note_repeat(&repeated[0], i);
            else
                fill(&table, slot, i, h, JUDGED);
        }
        for (int64_t k = run->starts[q]; k < run->starts[q + 1]; k++) {
            const int64_t i = line_at(run, k);
            const uint64_t h = hash_doc(run, i);
            const uint64_t slot = find(&table, judged, run, run, i, h);
            grade[i] = NAN;
            if (table.line[slot] < 0) {
                fill(&table, slot, i, h, RETRIEVED);
            } else if (table.kind[slot] == JUDGED) {
                grade[i] = grades_of_judged[table.line[slot]];
                table.kind[slot] = JUDGED_RETRIEVED;
            } else {
                note_repeat(&repeated[1], i);
            }
        }
    }
    ok = 1;
done:
    free(table.line);
    free(table.hash);
    free(table.kind);
    free(judged->order);
    free(judged->starts);
    free(run->order);
    free(run->starts);
    return ok;
}

static int side_of(Py_buffer *query, Py_buffer *offsets, Py_buffer *bytes, Side *side)
{
    side->lines = query->len / 8;
    if (offsets->len < (side->lines + 1) * 8) {
        PyErr_SetString(PyExc_ValueError, "one document id offset per line and one more are needed");
        return 0;
    }
    side->query = query->buf;
    side->offsets = offsets->buf;
    side->bytes = bytes->buf;
    side->bytes_end = side->bytes + bytes->len;
    return 1;
}

static int queries_in_range(const Side *side, Py_ssize_t n_queries)
{
    for (Py_ssize_t i = 0; i < side->lines; i++)
        if (side->query[i] < 0 || side->query[i] >= n_queries) {
            PyErr_SetString(PyExc_ValueError, "a query index is out of range");
            return 0;
        }
    return 1;
}

static PyObject *judge(PyObject *module, PyObject *args)
{
    Py_ssize_t n_queries, first, stop;
    Py_buffer bufs[8] = {{0}};
    if (!PyArg_ParseTuple(args, "nnny*y*y*y*y*y*y*w*", &n_queries, &first, &stop, &bufs[0], &bufs[1], &bufs[2],
                          &bufs[3], &bufs[4], &bufs[5], &bufs[6], &bufs[7]))
        return NULL;
    PyObject *result = NULL;
    Side judged = {0}, run = {0};
    int64_t repeated[2];
    if (!side_of(&bufs[0], &bufs[1], &bufs[2], &judged) || !side_of(&bufs[4], &bufs[5], &bufs[6], &run)
        || !queries_in_range(&judged, n_queries) || !queries_in_range(&run, n_queries))
        goto done;
    if (bufs[3].len < judged.lines * 8 || bufs[7].len < run.lines * 8) {
        PyErr_SetString(PyExc_ValueError, "one grade per qrels line and one output per run line are needed");
        goto done;
    }
    if (first < 0 || stop < first || stop > n_queries) {
        PyErr_SetString(PyExc_ValueError, "the queries to judge are out of range");
        goto done;
    }
    int ok;
    Py_BEGIN_ALLOW_THREADS
    ok = judge_lines(&judged, bufs[3].buf, &run, n_queries, first, stop, bufs[7].buf, repeated);
    Py_END_ALLOW_THREADS
    if (!ok) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_BuildValue("(LL)", (long long)repeated[0], (long long)repeated[1]);
done:
    for (int i = 0; i < 8; i++)
        if (bufs[i].obj)
            PyBuffer_Release(&bufs[i]);
    return result;
}

/* ------------------------------------------------------------------ ranks */

typedef struct {
    const double *score;      /* per entry */
    const int64_t *row;       /* per entry: its line in the document id columns */
    const int64_t *offsets;   /* document id of line i: bytes[offsets[i]:offsets[i + 1]] */
    const char *bytes;
    int trec;                 /* trec_eval's order, else scores as given with ties in input order */
} Order;

/* trec_eval compares scores as C floats (-0 as 0) */
static float trec_score(double score) { return (float)score + 0.0f; }

/* Whether entry a comes after entry b. */
static int after(const Order *o, int64_t a, int64_t b)
{
    if (!o->trec)
        return o->score[a] < o->score[b];
    const float x = trec_score(o->score[a]), y = trec_score(o->score[b]);
    if (x != y)
        return x < y;
    /* equal scores: document ids descending, compared as strcmp compares them */
    const int64_t ra = o->row[a], rb = o->row[b];
    const int64_t na = o->offsets[ra + 1] - o->offsets[ra], nb = o->offsets[rb + 1] - o->offsets[rb];
    const int c = memcmp(o->bytes + o->offsets[ra], o->bytes + o->offsets[rb], (size_t)(na < nb ? na : nb));
    return c != 0 ? c < 0 : na < nb; /* the smaller id comes after */
}

/* Stable merge sort of entries[0:n] by `after`, through scratch[0:n]. */
static void sort_entries(const Order *o, int64_t *entries, int64_t *scratch, int64_t n)
{
    for (int64_t width = 1; width < n; width *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * width) {
            const int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                scratch[k++] = after(o, entries[i], entries[j]) ? entries[j++] : entries[i++];
            while (i < mid)
                scratch[k++] = entries[i++];
            while (j < hi)
                scratch[k++] = entries[j++];
        }
        memcpy(entries, scratch, (size_t)n * sizeof(int64_t));
    }
}

static int rank_entries(const Order *o, const int64_t *starts, Py_ssize_t first, Py_ssize_t stop, int64_t *position)
{
    int64_t longest = 1;
    for (Py_ssize_t q = first; q < stop; q++)
        if (starts[q + 1] - starts[q] > longest)
            longest = starts[q + 1] - starts[q];
    int64_t *entries = malloc((size_t)longest * sizeof(int64_t)), *scratch = malloc((size_t)longest * sizeof(int64_t));
    if (!entries || !scratch) {
        free(entries);
        free(scratch);
        return 0;
    }
    for (Py_ssize_t q = first; q < stop; q++) {
        const int64_t a = starts[q], n = starts[q + 1] - a;
        int64_t k = 1;
        while (k < n && !after(o, a + k - 1, a + k))
            k++;
        if (k >= n) { /* already in order: the usual run file */
            for (k = 0; k < n; k++)
                position[a + k] = k;
            continue;
        }
        for (k = 0; k < n; k++)
            entries[k] = a + k;
        sort_entries(o, entries, scratch, n);
        for (k = 0; k < n; k++)
            position[entries[k]] = k;
    }
    free(entries);
    free(scratch);
    return 1;
}

/* rank(starts, scores, rows, docno_offsets, docno_bytes, trec, first, stop, out): writes the 0-based rank
 * of each entry of queries first .. stop - 1 within its query (entries of query q: starts[q]:starts[q + 1])
 * into out. */
static PyObject *rank(PyObject *module, PyObject *args)
{
    Py_buffer bufs[5] = {{0}}, out = {0};
    int trec;
    Py_ssize_t first, stop;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*pnnw*", &bufs[0], &bufs[1], &bufs[2], &bufs[3], &bufs[4], &trec,
                          &first, &stop, &out))
        return NULL;
    PyObject *result = NULL;
    const Py_ssize_t n_queries = bufs[0].len / 8 - 1, n = bufs[1].len / 8;
    const int64_t *starts = bufs[0].buf, *rows = bufs[2].buf, *offsets = bufs[3].buf;
    const Py_ssize_t n_lines = bufs[3].len / 8 - 1;
    if (n_queries < 0 || starts[0] != 0 || starts[n_queries] != n || bufs[2].len != bufs[1].len
        || out.len != bufs[1].len) {
        PyErr_SetString(PyExc_ValueError, "starts must bound the entries, one row and one output per score");
        goto done;
    }
    if (first < 0 || stop > n_queries || first > stop) {
        PyErr_SetString(PyExc_ValueError, "first and stop must be a range of the queries");
        goto done;
    }
    for (Py_ssize_t q = first; q < stop; q++)
        if (starts[q + 1] < starts[q]) {
            PyErr_SetString(PyExc_ValueError, "starts must not decrease");
            goto done;
        }
    for (Py_ssize_t i = starts[first]; i < starts[stop]; i++)
        if (rows[i] < 0 || rows[i] >= n_lines) {
            PyErr_SetString(PyExc_ValueError, "a row is out of range");
            goto done;
        }
    const Order order = {bufs[1].buf, rows, offsets, bufs[4].buf, trec};
    int ok;
    Py_BEGIN_ALLOW_THREADS
    ok = rank_entries(&order, starts, first, stop, (int64_t *)out.buf);
    Py_END_ALLOW_THREADS
    if (ok)
        result = Py_NewRef(Py_None);
    else
        PyErr_NoMemory();
done:
    for (int i = 0; i < 5; i++)
        if (bufs[i].obj)
            PyBuffer_Release(&bufs[i]);
    if (out.obj)
        PyBuffer_Release(&out);
    return result;
}

/* ------------------------------------------------------------------ module */

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS,
     "scan(buffer, qrels) -> (query, qids, docno_offsets, docno_bytes, values, high_bytes) or None\n\n"
     "The data lines of a TREC qrels (qrels=True) or run file: each line's query (int64 index into\n"
     "qids), the distinct query ids, the document ids as int64 offsets into their bytes, the values\n"
     "(int64 grades or float64 scores) and whether a byte >= 0x80 occurs; None when the file needs\n"
     "the line-by-line reader."},
    {"judge", judge, METH_VARARGS,
     "judge(n_queries, first, stop, qrels_query, qrels_offsets, qrels_bytes, qrels_grades, run_query,\n"
     "      run_offsets, run_bytes, out) -> (qrels_repeat, run_repeat)\n\n"
     "Writes the float64 grade of every run line of queries first .. stop - 1 into out (NaN: not\n"
     "judged; other lines are left as they are), and gives the first line of each file among theirs\n"
     "that repeats a (query, document) pair of its file (-1: none). Queries are int64 indices below\n"
     "n_queries, grades float64, offsets int64."},
    {"rank", rank, METH_VARARGS,
     "rank(starts, scores, rows, docno_offsets, docno_bytes, trec, first, stop, out)\n\n"
     "Writes the 0-based rank of each entry of queries first .. stop - 1 within its query (entries of\n"
     "query q: starts[q]:starts[q + 1]) into out (int64, one per entry; other entries are left as they are):\n"
     "trec=True: scores descending as C floats, equal ones by document id descending (trec_eval);\n"
     "trec=False: scores descending, equal ones in entry order. rows[i] is entry i's line in the\n"
     "document id columns. starts and rows int64, scores float64."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef trec_scan_module = {PyModuleDef_HEAD_INIT, "_trec_scan",
                                    "TREC files read in one compiled pass, and judgements matched.", -1, methods,
                                               NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__trec_scan(void) { return PyModule_Create(&trec_scan_module); }
