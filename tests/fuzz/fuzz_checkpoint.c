/* fuzz_checkpoint.c: any bytes as a GPT-2 checkpoint folder (--model).
 *
 * The input is the folder's four files one after another, each ended by
 * the line SEPARATOR: config.json, model.safetensors, vocab.json and
 * merges.txt (a missing part is an empty file). The seeds are the
 * repository's tiny checkpoint so joined (corpus/checkpoint/), and a few
 * spoiled copies of it. The loader must accept or refuse every folder
 * cleanly (a refusal is a status-2 error with a message); whatever it
 * accepts must have every layer's tensors bound, a vocabulary within
 * vocab_size, and tokenize a sentence into ids below vocab_size. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/tokenizers/bpe.h"
#include "model/gpt2/gpt2.h"

#define SEPARATOR "\n--8<-- next file --8<--\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Writes the next part of data[*at..size) to dir/name. */
static int write_part(const char *dir, const char *name, const uint8_t *data,
                      size_t size, size_t *at)
{
    const size_t sep = strlen(SEPARATOR);
    size_t end = *at;
    while (end < size &&
           (size - end < sep || memcmp(data + end, SEPARATOR, sep) != 0))
        end++;
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return -1;
    const int ok = fwrite(data + *at, 1, end - *at, f) == end - *at;
    *at = end < size ? end + sep : size;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* A refusal must say why, with the status of bad input. */
static void refused(const mx_error *err)
{
    if (err->msg[0] == '\0' || err->status != 2)
        abort();
}

static void check_model(const gpt2_model *m, const bpe *b)
{
    const gpt2_config *c = &m->cfg;
    if (m->wte == NULL || m->wpe == NULL || m->ln_f_w == NULL ||
        m->ln_f_b == NULL)
        abort();
    for (size_t i = 0; i < c->n_layer; i++)
        if (m->layers[i].mlp_proj_b == NULL || m->layers[i].c_attn_w == NULL)
            abort();
    if (bpe_vocab_size(b) > c->vocab_size)
        return; /* the run refuses it (model/gpt2_trace.c) */
    int32_t *ids = NULL;
    size_t n = 0;
    mx_error err = {0};
    static const char text[] = "hello, hello world! \xc3\xa9t\xc3\xa9 42";
    if (bpe_encode(&ids, &n, b, text, strlen(text), c->n_positions, &err) !=
        0) {
        refused(&err);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (ids[i] < 0 || (size_t)ids[i] >= bpe_vocab_size(b))
            abort();
        char label[256];
        bpe_label(label, sizeof label, b, ids[i]);
    }
    free(ids);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[] = "/tmp/mha-fuzz-model-XXXXXX";
    if (mkdtemp(dir) == NULL)
        return 0;
    static const char *const names[] = {"config.json", "model.safetensors",
                                        "vocab.json", "merges.txt"};
    size_t at = 0;
    int written = 0;
    for (size_t i = 0; i < 4; i++)
        written |= write_part(dir, names[i], data, size, &at);
    char vocab[256], merges[256];
    snprintf(vocab, sizeof vocab, "%s/vocab.json", dir);
    snprintf(merges, sizeof merges, "%s/merges.txt", dir);
    if (written == 0) {
        gpt2_model m;
        bpe *b = NULL;
        mx_error err = {0};
        if (gpt2_open(&m, dir, &err) != 0) {
            refused(&err);
        } else {
            if (bpe_open(&b, vocab, merges, &err) != 0)
                refused(&err);
            else
                check_model(&m, b);
            bpe_free(b);
            gpt2_close(&m);
        }
    }
    for (size_t i = 0; i < 4; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
    return 0;
}
