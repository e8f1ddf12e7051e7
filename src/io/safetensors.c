/* safetensors.c: checking a .safetensors file's bytes and reading its
 * tensors (safetensors.h); safetensors_map.c maps the file. */
#include "io/safetensors.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "io/json.h"

static const struct {
    const char *name;
    enum st_dtype dtype;
    size_t size;
} dtypes[] = {
    {"F32", ST_F32, 4},    {"F16", ST_F16, 2},       {"BF16", ST_BF16, 2},
    {"F64", ST_OTHER, 8},  {"I64", ST_OTHER, 8},     {"I32", ST_OTHER, 4},
    {"I16", ST_OTHER, 2},  {"I8", ST_OTHER, 1},      {"U8", ST_OTHER, 1},
    {"BOOL", ST_OTHER, 1}, {"U16", ST_OTHER, 2},     {"U32", ST_OTHER, 4},
    {"U64", ST_OTHER, 8},  {"F8_E4M3", ST_OTHER, 1}, {"F8_E5M2", ST_OTHER, 1},
};

static int by_begin(const void *a, const void *b)
{
    const st_tensor *x = a, *y = b;
    return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* One tensor's entry m of the header into t. */
static int read_entry(st_tensor *t, const json_doc *doc, const json_node *m,
                      const safetensors *st, mx_error *err)
{
    const char *name = json_key(doc, m);
    const json_node *dt = json_get(doc, m, "dtype");
    const json_node *shape = json_get(doc, m, "shape");
    const json_node *off = json_get(doc, m, "data_offsets");
    if (m->type != JSON_OBJECT || dt == NULL || dt->type != JSON_STRING ||
        shape == NULL || shape->type != JSON_ARRAY || off == NULL ||
        off->type != JSON_ARRAY || off->len != 2)
        return err_input(
            err,
            _("%s: tensor %s: the header needs its dtype, shape and data_offsets"),
            st->path, name);
    size_t k = 0;
    while (k < sizeof dtypes / sizeof *dtypes &&
           strcmp(dtypes[k].name, json_str(doc, dt)) != 0)
        k++;
    if (k == sizeof dtypes / sizeof *dtypes)
        return err_input(err, _("%s: tensor %s: unknown dtype %s"), st->path,
                         name, json_str(doc, dt));
    t->dtype = dtypes[k].dtype;
    snprintf(t->dtype_name, sizeof t->dtype_name, "%s", dtypes[k].name);
    if (shape->len > SAFETENSORS_MAX_DIMS)
        return err_input(err, _("%s: tensor %s: more than %d dimensions"),
                         st->path, name, SAFETENSORS_MAX_DIMS);
    size_t bytes = dtypes[k].size;
    int overflow = 0;
    t->ndim = 0;
    for (const json_node *d = json_first(doc, shape); d;
         d = json_next(doc, d)) {
        if (!json_size(d, (uint64_t)1 << 48, &t->shape[t->ndim]))
            return err_input(
                err, _("%s: tensor %s: a dimension is not a whole number"),
                st->path, name);
        if (t->shape[t->ndim] != 0 && bytes > SIZE_MAX / t->shape[t->ndim])
            overflow = 1;
        bytes *= t->shape[t->ndim++];
    }
    const json_node *b = json_first(doc, off), *e = json_next(doc, b);
    if (!json_size(b, (uint64_t)1 << 52, &t->begin) ||
        !json_size(e, (uint64_t)1 << 52, &t->end) || t->end < t->begin ||
        t->end > st->data_len)
        return err_input(
            err,
            _("%s: tensor %s: data_offsets outside the file's %zu bytes of data"),
            st->path, name, st->data_len);
    if (!overflow && t->end - t->begin != bytes)
        return err_input(
            err,
            _("%s: tensor %s: its shape in %s takes %zu bytes, but its data_offsets hold %zu"),
            st->path, name, t->dtype_name, bytes, t->end - t->begin);
    if (overflow)
        return err_input(
            err, _("%s: tensor %s: its shape does not match its %zu bytes"),
            st->path, name, t->end - t->begin);
    return 0;
}

/* The data as the safetensors library lays it out (Metadata::validate
 * safetensors/src/tensor.rs, which refuses a gap as InvalidOffset): no
 * two tensors share a byte, and each starts where the one before ends
 * (the first at 0). Bytes after the last tensor are not read (the
 * library refuses them too, as MetadataIncompleteBuffer). */
static int check_layout(const safetensors *st, mx_error *err)
{
    st_tensor *sorted = malloc((st->n ? st->n : 1) * sizeof *sorted);
    if (sorted == NULL)
        return err_nomem(err, st->path);
    memcpy(sorted, st->tensors, st->n * sizeof *sorted);
    qsort(sorted, st->n, sizeof *sorted, by_begin);
    int rc = 0;
    size_t end = 0;
    for (size_t i = 0; i < st->n && rc == 0; i++) {
        if (i > 0 && sorted[i].begin < sorted[i - 1].end &&
            sorted[i].begin != sorted[i].end)
            rc = err_input(err, _("%s: tensors %s and %s overlap"), st->path,
                           sorted[i - 1].name, sorted[i].name);
        else if (sorted[i].begin > end)
            rc = err_input(err,
                           _("%s: %zu unused bytes before tensor %s (each "
                             "tensor starts where the one before ends)"),
                           st->path, sorted[i].begin - end, sorted[i].name);
        if (sorted[i].end > end)
            end = sorted[i].end;
    }
    free(sorted);
    return rc;
}

/* __metadata__, where the header has it: names to strings (the
 * safetensors library reads it as a HashMap<String, String>). */
static int check_metadata(const safetensors *st, const json_doc *doc,
                          mx_error *err)
{
    const json_node *meta = json_get(doc, json_root(doc), "__metadata__");
    bool strings = meta == NULL || meta->type == JSON_OBJECT;
    for (const json_node *m = meta != NULL && strings ? json_first(doc, meta)
                                                      : NULL;
         m != NULL; m = json_next(doc, m))
        strings = strings && m->type == JSON_STRING;
    if (!strings)
        return err_input(err,
                         _("%s: the header's __metadata__ must map names to "
                           "strings"),
                         st->path);
    return 0;
}

static int read_header(safetensors *st, const char *text, size_t len,
                       mx_error *err)
{
    json_doc doc;
    if (json_parse(&doc, text, len, st->path, err) != 0)
        return -1;
    int rc = -1;
    const json_node *root = json_root(&doc);
    if (root->type != JSON_OBJECT) {
        err_input(err, _("%s: the header is not a JSON object"), st->path);
        goto out;
    }
    const char *twice;
    const int repeated = json_repeated_key(&twice, &doc, root);
    if (repeated != 0) {
        if (repeated > 0)
            err_input(err, _("%s: tensor %s appears twice in the header"),
                      st->path, twice);
        else
            err_nomem(err, st->path);
        goto out;
    }
    st->tensors = calloc(root->len ? root->len : 1, sizeof *st->tensors);
    st->names = malloc(doc.strings_len ? doc.strings_len : 1);
    if (st->tensors == NULL || st->names == NULL) {
        err_nomem(err, st->path);
        goto out;
    }
    if (doc.strings_len > 0) // "{}" has no strings at all
        memcpy(st->names, doc.strings, doc.strings_len);
    if (check_metadata(st, &doc, err) != 0)
        goto out;
    for (const json_node *m = json_first(&doc, root); m;
         m = json_next(&doc, m)) {
        if (strcmp(json_key(&doc, m), "__metadata__") == 0)
            continue;
        st_tensor *t = &st->tensors[st->n];
        t->name = st->names + m->key;
        if (read_entry(t, &doc, m, st, err) != 0)
            goto out;
        st->n++;
    }
    rc = check_layout(st, err);
out:
    json_free(&doc);
    return rc;
}

int safetensors_read(safetensors *st, const char *path,
                     const unsigned char *bytes, size_t size, mx_error *err)
{
    *st = (safetensors){.path = path};
    if (size < 8)
        return err_input(
            err,
            _("%s: truncated: %zu bytes, too short for a safetensors header"),
            path, size);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = (n << 8) | bytes[i];
    if (n > size - 8)
        return err_input(
            err,
            _("%s: the header's length (%llu bytes) is past the end of the file (%zu bytes)"),
            path, (unsigned long long)n, size);
    if (n > SAFETENSORS_MAX_HEADER)
        return err_input(err, _("%s: the header is %llu bytes, more than %zu"),
                         path, (unsigned long long)n, SAFETENSORS_MAX_HEADER);
    st->data = bytes + 8 + n;
    st->data_len = size - 8 - (size_t)n;
    if (read_header(st, (const char *)bytes + 8, (size_t)n, err) != 0) {
        safetensors_forget(st);
        return -1;
    }
    return 0;
}

void safetensors_forget(safetensors *st)
{
    free(st->tensors);
    free(st->names);
    st->tensors = NULL;
    st->names = NULL;
    st->n = 0;
    st->data = NULL;
    st->data_len = 0;
}

const st_tensor *safetensors_find(const safetensors *st, const char *name)
{
    for (size_t i = 0; i < st->n; i++)
        if (strcmp(st->tensors[i].name, name) == 0)
            return &st->tensors[i];
    return NULL;
}

size_t st_tensor_count(const st_tensor *t)
{
    size_t n = 1;
    for (size_t d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    return n;
}

float st_half_to_float(unsigned short h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000 | (man << 13);
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    } else if (man == 0) {
        bits = sign;
    } else {
        // subnormal: shift the mantissa up until it is normal
        exp = 113;
        while (!(man & 0x400)) {
            man <<= 1;
            exp--;
        }
        bits = sign | (exp << 23) | ((man & 0x3ff) << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

float st_bf16_to_float(unsigned short h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

int safetensors_floats(const float **values, float **owned,
                       const safetensors *st, const st_tensor *t, mx_error *err)
{
    *owned = NULL;
    const unsigned char *src = st->data + t->begin;
    const size_t n = st_tensor_count(t);
    if (t->dtype == ST_OTHER)
        return err_input(err,
                         _("%s: tensor %s is %s; F32, F16 or BF16 is needed"),
                         st->path, t->name, t->dtype_name);
    if (t->dtype == ST_F32 && (uintptr_t)src % _Alignof(float) == 0) {
        *values = (const float *)(const void *)src;
        return 0;
    }
    float *out = malloc((n ? n : 1) * sizeof *out);
    if (out == NULL)
        return err_nomem(err, t->name);
    // one loop per dtype: the BF16 one, the largest checkpoints' (each
    // value its 16 bits on top of 16 zero bits), is a plain shift
    if (t->dtype == ST_F32) {
        memcpy(out, src, n * sizeof *out);
    } else if (t->dtype == ST_BF16) {
        for (size_t i = 0; i < n; i++) {
            const uint32_t bits =
                (uint32_t)src[2 * i] << 16 | (uint32_t)src[2 * i + 1] << 24;
            memcpy(&out[i], &bits, sizeof bits);
        }
    } else {
        for (size_t i = 0; i < n; i++)
            out[i] = st_half_to_float(
                (unsigned short)(src[2 * i] | (src[2 * i + 1] << 8)));
    }
    safetensors_release(st, src, n * (t->dtype == ST_F32 ? 4 : 2));
    *values = out;
    *owned = out;
    return 0;
}
