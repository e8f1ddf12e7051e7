/* safetensors.h: a .safetensors file, memory-mapped and checked, as
 * Hugging Face writes model.safetensors.
 *
 *   8 bytes      N, the header's length (little-endian u64)
 *   N bytes      JSON: {"name": {"dtype": "F32", "shape": [...],
 *                "data_offsets": [begin, end]}, ..., "__metadata__": {}}
 *   the data     little-endian, row-major; offsets count from here
 *
 * The file is mapped, not read: an F32 tensor is used where it lies. The
 * header is checked before anything is allocated for it (its length
 * against the file's, and at most SAFETENSORS_MAX_HEADER bytes, the limit
 * of the reference implementation), then every tensor: a known dtype,
 * a shape whose size matches its bytes, offsets inside the data, no two
 * tensors overlapping.
 */
#ifndef MHA_SAFETENSORS_H
#define MHA_SAFETENSORS_H

#include <stddef.h>

#include "base/error.h"

#define SAFETENSORS_MAX_HEADER ((size_t)100 * 1000 * 1000)
#define SAFETENSORS_MAX_DIMS 8

enum st_dtype { ST_F32, ST_F16, ST_BF16, ST_OTHER };

typedef struct {
    const char *name; /* points into the owner's names */
    enum st_dtype dtype;
    char dtype_name[8]; /* as the header spells it ("F32", "I64", ...) */
    size_t ndim;
    size_t shape[SAFETENSORS_MAX_DIMS];
    size_t begin, end; /* bytes of the data */
} st_tensor;

typedef struct {
    const char *path; /* as given; not owned */
    void *map;        /* the whole file, mapped; owned */
    size_t map_len;
    const unsigned char *data; /* the data section, in map */
    size_t data_len;
    st_tensor *tensors; /* n tensors, in the header's order; owned */
    size_t n;
    char *names; /* their names, NUL-terminated one after another; owned */
} safetensors;

/* Maps and checks the file at path (which must outlive st), with
 * safetensors_read (safetensors_map.c). */
int safetensors_open(safetensors *st, const char *path, mx_error *err);
/* Drops from memory the mapped pages wholly inside [src, src + len), a
 * tensor's bytes once they are widened to float32 (nothing when st holds
 * bytes it did not map) (safetensors_map.c). */
void safetensors_release(const safetensors *st, const unsigned char *src,
                         size_t len);
/* Unmaps and forgets; accepts a zeroed or closed st. */
void safetensors_close(safetensors *st);

/* Checks the size bytes of the file at path (bytes and path must outlive
 * st, which does not own them: st->map stays NULL) and reads its header.
 * On failure nothing is kept. */
int safetensors_read(safetensors *st, const char *path,
                     const unsigned char *bytes, size_t size, mx_error *err);
/* Frees what safetensors_read allocated (the tensors and their names). */
void safetensors_forget(safetensors *st);

/* The tensor named name, or NULL. */
const st_tensor *safetensors_find(const safetensors *st, const char *name);

/* The number of values of t (the product of its shape). */
size_t st_tensor_count(const st_tensor *t);

/* t's values as float32: *values points into the map for an aligned F32
 * tensor (*owned NULL), or into *owned, allocated here (F16 and BF16
 * widened exactly, a misaligned F32 copied, and the file's pages under
 * it then dropped from memory: they are read again only if used again);
 * the caller frees *owned. Any other dtype is refused. */
int safetensors_floats(const float **values, float **owned,
                       const safetensors *st, const st_tensor *t,
                       mx_error *err);

/* An IEEE half or a bfloat16, widened exactly to float. */
float st_half_to_float(unsigned short h);
float st_bf16_to_float(unsigned short h);

#endif
