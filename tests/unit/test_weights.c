/* test_weights.c: --weights reads the files its folder check found, even
 * when one is removed or replaced between the check and the load.
 *
 * Usage: test_weights (the reference directory argument is not used)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/lesson/weights.h"
#include "model/pipeline.h"
#include "model/lesson/variants.h"
#include "tap.h"

static void bail(const char *what)
{
    printf("Bail out! %s\n", what);
    exit(1);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL || fputs(text, f) == EOF || fclose(f) != 0)
        bail(path);
}

/* The single module's W_query.weight of a run of "a b" (D 2, O 2) over
 * files, into got[4]; 0, or -1 with err set. */
static int run_query_weight(float got[4], const weights_files *files,
                            mx_error *err)
{
    const run_request rq = {
        .seed = 123,
        .model.d_model = 2,
        .model.d_out = 2,
        .model.heads = 1,
        .model.scale = true,
        .variants = VARIANT_SINGLE,
        .threads = 1,
        .weights = files,
        .weights_style = {',', false},
    };
    const model_input in = {.sentence = "a b", .len = 3};
    trace tr;
    trace_init(&tr);
    int rc = pipeline_run(&tr, &rq, &in, err);
    bool found = false;
    for (size_t i = 0; rc == 0 && i < trace_count(&tr); i++) {
        const table *t = trace_at(&tr, i);
        if (t->id == TABLE_PARAM && strcmp(t->param, "W_query.weight") == 0) {
            memcpy(got, t->values.v, 4 * sizeof *got);
            found = true;
        }
    }
    trace_free(&tr);
    return rc == 0 && found ? 0 : -1;
}

int main(void)
{
    char dir[] = "/tmp/test_weights.XXXXXX";
    if (mkdtemp(dir) == NULL)
        bail("mkdtemp");
    char path[256];
    snprintf(path, sizeof path, "%s/single.W_query.weight.csv", dir);
    write_text(path, "token,in0,in1\nout0,1,2\nout1,3,4\n");

    mx_error err = {0};
    weights_files files;
    if (weights_open_dir(&files, dir, VARIANT_SINGLE, 1, 0, false, &err) != 0)
        bail(err.msg);
    ok(files.n == 1, "the check opens the one parameter file (%zu)", files.n);

    /* the file vanishes after the check: the run still reads it */
    unlink(path);
    float got[4] = {0};
    int rc = run_query_weight(got, &files, &err);
    ok(rc == 0 && got[0] == 1 && got[1] == 2 && got[2] == 3 && got[3] == 4,
       "a file removed after the check is read, not replaced by seeded "
       "values (%s)",
       rc == 0 ? "read" : err.msg);

    /* another file put in its place is not read either; a second run (the
     * next sentence of --input) reads the same values again */
    write_text(path, "token,in0,in1\nout0,9,9\nout1,9,9\n");
    float again[4] = {0};
    rc = run_query_weight(again, &files, &err);
    ok(rc == 0 && memcmp(got, again, sizeof got) == 0,
       "the next run reads the checked file from its start");
    weights_files_free(&files);

    /* a folder whose parameter file cannot be opened: the check fails
     * naming it */
    unlink(path);
    if (symlink("/nonexistent/x.csv", path) != 0)
        bail("symlink");
    err = (mx_error){0};
    rc = weights_open_dir(&files, dir, VARIANT_SINGLE, 1, 0, false, &err);
    ok(rc != 0 && strstr(err.msg, "single.W_query.weight.csv") != NULL,
       "a parameter file that cannot be opened fails the check naming it "
       "(%s)",
       err.msg);
    unlink(path);
    rmdir(dir);
    return tap_done();
}
