/* fuzz_safetensors.c: any bytes as a model.safetensors file.
 *
 * The reader must accept or reject every file cleanly (a rejection is a
 * status-2 error with a message); whatever it accepts must describe
 * tensors inside the data that do not overlap, and their values must be
 * readable as float32 or refused. The header's JSON goes through
 * io/json.c on the way. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/mha-fuzz-st-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    const int wrote = write(fd, data, size) == (ssize_t)size;
    close(fd);
    if (!wrote) {
        unlink(path);
        return 0;
    }
    safetensors st;
    mx_error err = {0};
    if (safetensors_open(&st, path, &err) != 0) {
        unlink(path);
        if (err.msg[0] == '\0' || err.status != 2)
            abort(); /* a rejection must say why */
        return 0;
    }
    for (size_t i = 0; i < st.n; i++) {
        const st_tensor *t = &st.tensors[i];
        if (t->begin > t->end || t->end > st.data_len)
            abort();
        const float *values;
        float *owned;
        if (safetensors_floats(&values, &owned, &st, t, &err) == 0) {
            // every value is read: a NaN count the sanitizers can see
            size_t nan = 0;
            for (size_t k = 0; k < st_tensor_count(t); k++)
                nan += values[k] != values[k];
            if (nan > st_tensor_count(t))
                abort();
            free(owned);
        }
    }
    safetensors_close(&st);
    unlink(path);
    return 0;
}
