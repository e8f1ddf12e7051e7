/* fuzz_tokenize.c: any bytes as a sentence, through the whole program.
 *
 * The tokenizer must accept or reject every input cleanly; whatever it
 * accepts runs through a small model and both renderers, whose output
 * must hold no raw control character in text mode. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/model_options.h"
#include "cli/options.h"
#include "model/pipeline.h"
#include "render/render.h"
#include "model/tokenize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tokenized tok;
    mx_error err = {0};
    if (tokenize(&tok, (const char *)data, size, &err) != 0) {
        if (err.msg[0] == '\0' || err.status != EXIT_BAD_INPUT)
            abort(); /* a rejection must say why */
        return 0;
    }
    for (size_t i = 0; i < tok.n_tokens; i++)
        if (tok.ids[i] >= tok.n_vocab || tok.tokens[i][0] == '\0')
            abort();
    for (size_t a = 0; a < tok.n_vocab; a++)
        for (size_t b = a + 1; b < tok.n_vocab; b++)
            if (strcmp(tok.vocab[a], tok.vocab[b]) == 0)
                abort(); /* the vocabulary holds each word once */
    const size_t n_tokens = tok.n_tokens;
    tokenized_free(&tok);
    if (n_tokens > 64)
        return 0; /* keep each run small */

    char *argv[] = {
        "mha-explain", "--average", "--variant", "single,wrapper,fused,block",
        "--d-out",     "3",         "--heads",   "1",
        "x",           NULL};
    options opt;
    if (options_parse(&opt, 9, argv, &err) != 0)
        abort();
    trace tr;
    trace_init(&tr);
    const model_input in = {.sentence = (const char *)data, .len = size};
    const run_request rq = run_request_of(&opt);
    if (pipeline_run(&tr, &rq, &in, &err) != 0)
        abort();

    const size_t n = trace_count(&tr);
    const table **tables = malloc(n * sizeof *tables);
    if (tables == NULL)
        abort();
    for (size_t i = 0; i < n; i++)
        tables[i] = trace_at(&tr, i);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    const text_style style = {.precision = 4};
    const csv_out_style csv = {
        .delimiter = ',', .header = true, .sentence = -1};
    if (out == NULL ||
        render_text(out, (const table *const *)tables, n, &style, &err) != 0)
        abort();
    fclose(out);
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)text[i] < 0x20 && text[i] != '\n')
            abort(); /* tokens reach the terminal escaped */
    free(text);
    out = fopen("/dev/null", "w");
    if (out == NULL ||
        render_csv(out, (const table *const *)tables, n, &csv, &err) != 0)
        abort();
    fclose(out);
    free(tables);
    trace_free(&tr);
    options_free(&opt);
    return 0;
}
