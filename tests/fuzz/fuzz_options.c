/* fuzz_options.c: any bytes as a command line.
 *
 * The input is split at NUL bytes into arguments after "mha-explain".
 * Parsing must succeed with values inside the documented limits, or fail
 * with a message and status 2. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"

#define MAX_FUZZ_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1);
    if (copy == NULL)
        return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    char *argv[MAX_FUZZ_ARGS + 2] = {"mha-explain"};
    int argc = 1;
    for (size_t start = 0; start <= size && argc <= MAX_FUZZ_ARGS;) {
        argv[argc++] = copy + start;
        start += strlen(copy + start) + 1;
    }
    argv[argc] = NULL;

    options opt;
    mx_error err = {0};
    if (options_parse(&opt, argc, argv, &err) == 0) {
        if (opt.d_model < 1 || opt.d_model > MAX_WIDTH || opt.d_out < 1 ||
            opt.d_out > MAX_WIDTH || opt.heads < 1 ||
            (!opt.show_help && !opt.show_version &&
             opt.d_out % opt.heads != 0) ||
            opt.precision < 0 || opt.precision > MAX_PRECISION)
            abort();
    } else if (err.status != EXIT_BAD_INPUT || err.msg[0] == '\0') {
        abort();
    }
    options_free(&opt);
    free(copy);
    return 0;
}
