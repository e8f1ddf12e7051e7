/* test_safetensors.c: bad checkpoint folders get one line naming the
 * problem, with status 2 (io/safetensors.h, model/gpt2/gpt2.h). Each case is a
 * copy of the reference's "tiny" checkpoint (argv[1]/tiny) with one thing
 * broken, written to a temporary folder. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/safetensors.h"
#include "model/gpt2/gpt2.h"
#include "tap.h"

static char tmp[] = "/tmp/mha-st-XXXXXX";

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    unsigned char *b = malloc(*len + 1);
    if (b != NULL && fread(b, 1, *len, f) != *len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

static void spill(const char *name, const void *b, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    FILE *f = fopen(path, "wb");
    if (f != NULL) {
        fwrite(b, 1, len, f);
        fclose(f);
    }
}

static void spill_text(const char *name, const char *text)
{
    spill(name, text, strlen(text));
}

/* model.safetensors with this header (and the data of good) */
static void with_header(const char *header, const unsigned char *good,
                        size_t good_len)
{
    uint64_t old = 0;
    for (int i = 7; i >= 0; i--)
        old = (old << 8) | good[i];
    const size_t n = strlen(header), data = good_len - 8 - (size_t)old;
    unsigned char *b = malloc(8 + n + data);
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)((uint64_t)n >> (8 * i));
    memcpy(b + 8, header, n);
    memcpy(b + 8 + n, good + 8 + old, data);
    spill("model.safetensors", b, 8 + n + data);
    free(b);
}

/* Opening tmp fails with status 2 and one line containing want. */
static void refused(const char *what, const char *want)
{
    gpt2_model m;
    mx_error err = {0};
    const int rc = gpt2_open(&m, tmp, &err);
    ok(rc != 0 && err.status == 2 && strstr(err.msg, want) != NULL &&
           strchr(err.msg, '\n') == NULL,
       "%s: refused with \"%s\" (got: %s)", what, want,
       rc ? err.msg : "accepted");
    if (rc == 0)
        gpt2_close(&m);
}

int main(int argc, char **argv)
{
    if (argc < 2 || mkdtemp(tmp) == NULL) {
        printf("1..0 # SKIP no reference folder\n");
        return 0;
    }
    char path[512];
    size_t st_len, cfg_len;
    snprintf(path, sizeof path, "%s/tiny/model.safetensors", argv[1]);
    unsigned char *st = slurp(path, &st_len);
    snprintf(path, sizeof path, "%s/tiny/config.json", argv[1]);
    unsigned char *cfg = slurp(path, &cfg_len);
    if (!ok(st != NULL && cfg != NULL, "the tiny checkpoint is there"))
        return tap_done();
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--)
        hlen = (hlen << 8) | st[i];
    char *header = malloc((size_t)hlen + 1);
    memcpy(header, st + 8, (size_t)hlen);
    header[hlen] = '\0';

    spill("config.json", cfg, cfg_len);
    spill("model.safetensors", st, st_len);
    gpt2_model m;
    mx_error err;
    if (ok(gpt2_open(&m, tmp, &err) == 0, "the copy opens"))
        gpt2_close(&m);

    spill("model.safetensors", st, 5);
    refused("a file shorter than its header length", "truncated");
    spill("model.safetensors", st, st_len - 7);
    refused("a truncated file", "data_offsets outside");
    unsigned char huge[16] = {0, 0, 0, 0, 0, 1, 0, 0, '{', '}'};
    spill("model.safetensors", huge, sizeof huge);
    refused("a header claiming a terabyte", "past the end of the file");
    with_header("{\"wte.weight\": [", st, st_len);
    refused("a header that is not JSON", "not valid JSON");
    with_header("[1, 2]", st, st_len);
    refused("a header that is not an object", "not a JSON object");

    // the tensors' entries, edited one at a time: wpe.weight's (16 x 8
    // F32 in the tiny checkpoint) and ln_f.bias's name
    const char *wpe = strstr(header, "\"wpe.weight\":{");
    unsigned long b = 0, e = 0;
    const char *offsets = wpe ? strstr(wpe, "\"data_offsets\":[") : NULL;
    if (!ok(offsets != NULL &&
                sscanf(offsets, "\"data_offsets\":[%lu,%lu]", &b, &e) == 2,
            "the header has wpe.weight's offsets"))
        return tap_done();
    char range[64], overlapping[64], outside[64], shape_range[96], turned[96];
    snprintf(range, sizeof range, "\"data_offsets\":[%lu,%lu]", b, e);
    snprintf(overlapping, sizeof overlapping, "\"data_offsets\":[%lu,%lu]",
             b - 4, e - 4);
    snprintf(outside, sizeof outside, "\"data_offsets\":[%lu,99999999]", b);
    snprintf(shape_range, sizeof shape_range, "\"shape\":[16,8],%s", range);
    snprintf(turned, sizeof turned, "\"shape\":[8,16],%s", range);
    struct {
        const char *what, *from, *to, *want;
    } edits[] = {
        {"overlapping offsets", range, overlapping, "overlap"},
        {"an offset past the data", range, outside, "data_offsets outside"},
        {"a shape that does not match its bytes", shape_range,
         "\"shape\":[16,9],\"data_offsets\":[0,0]",
         "its shape in F32 takes 576 bytes, but its data_offsets hold 0"},
        {"a shape the config does not imply", shape_range, turned,
         "config.json implies"},
        {"a dtype that is not a float", "\"wpe.weight\":{\"dtype\":\"F32\"",
         "\"wpe.weight\":{\"dtype\":\"I32\"", "is I32"},
        {"an unknown dtype", "\"wpe.weight\":{\"dtype\":\"F32\"",
         "\"wpe.weight\":{\"dtype\":\"Q4\"", "unknown dtype"},
        {"a missing tensor", "\"ln_f.bias\"", "\"ln_f.bias_gone\"",
         "ln_f.bias is missing"},
        {"a tensor name of invalid UTF-8", "\"ln_f.bias\"", "\"ln_f.bias\xff\"",
         "not valid UTF-8 (at byte"},
        {"a tensor named twice", "\"wpe.weight\"", "\"ln_f.bias\"",
         "tensor ln_f.bias appears twice in the header"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) {
        char *at = strstr(header, edits[i].from);
        if (!ok(at != NULL, "%s: the header has %s", edits[i].what,
                edits[i].from))
            continue;
        const size_t from = strlen(edits[i].from), to = strlen(edits[i].to);
        char *h = malloc(strlen(header) + to + 1);
        memcpy(h, header, (size_t)(at - header));
        memcpy(h + (at - header), edits[i].to, to);
        strcpy(h + (at - header) + to, at + from);
        with_header(h, st, st_len);
        refused(edits[i].what, edits[i].want);
        free(h);
    }
    with_header("{}", st, st_len);
    refused("a header of no tensors", "the 0 tensors of model.safetensors");
    spill("model.safetensors", st, st_len);

    // config.json disagreeing with the tensors, or malformed
    spill_text("config.json", "{\"n_layer\": 2, \"n_head\": 1, \"n_embd\": 8, "
                              "\"n_positions\": 16, \"vocab_size\": 282}");
    refused("more layers in config.json than tensors",
            "n_layer is 2, but the 16 tensors of model.safetensors make at "
            "most 1 layer ");
    spill_text("config.json", "{\"n_layer\": 1, \"n_head\": 3, \"n_embd\": 8, "
                              "\"n_positions\": 16, \"vocab_size\": 282}");
    refused("n_embd not a multiple of n_head", "not a multiple");
    spill_text("config.json", "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 8, "
                              "\"n_positions\": 16, \"vocab_size\": 283}");
    refused("vocab_size disagreeing with wte", "config.json implies");
    spill_text("config.json", "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 8, "
                              "\"n_positions\": 16}");
    // no model_type: read as GPT-2's, which the message says
    refused("no vocab_size", "has no model_type, so it is read as GPT-2's, "
                             "and GPT-2's key vocab_size is missing");
    spill_text("config.json", "{\"n_layer\": 1,");
    refused("config.json not JSON", "not valid JSON");
    spill_text("config.json", "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 8, "
                              "\"n_positions\": 16, \"vocab_size\": 282, "
                              "\"n_layer\": 2}");
    refused("a key of config.json given twice",
            "config.json: the key n_layer appears twice");
    spill_text("config.json", "{\"n_layer\": 4000000000, \"n_head\": 1, "
                              "\"n_embd\": 8, \"n_positions\": 16, "
                              "\"vocab_size\": 282}");
    refused("n_layer past what the tensors make",
            "n_layer is 4000000000, but the 16 tensors of model.safetensors "
            "make at most 1 layer ");
    spill_text("config.json", "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 8, "
                              "\"model_type\": \"gpt\xc0\xaf\", "
                              "\"n_positions\": 16, \"vocab_size\": 282}");
    refused("config.json with an overlong UTF-8 form", "not valid UTF-8");
    char cfg_path[600];
    snprintf(cfg_path, sizeof cfg_path, "%s/config.json", tmp);
    unlink(cfg_path);
    refused("no config.json", "cannot open");
    // a FIFO is refused at once, not waited on
    if (ok(mkfifo(cfg_path, 0600) == 0, "a FIFO config.json is made"))
        refused("a FIFO config.json", "config.json: not a regular file");
    unlink(cfg_path);

    // widening: F16 and BF16 exactly
    ok(st_half_to_float(0x3c00) == 1.0f, "F16 1");
    ok(st_half_to_float(0x0001) == 0x1p-24f, "F16 smallest subnormal");
    ok(st_half_to_float(0x03ff) == 1023 * 0x1p-24f, "F16 largest subnormal");
    ok(st_half_to_float(0x7bff) == 65504.0f, "F16 largest");
    ok(st_half_to_float(0xfc00) == -INFINITY, "F16 -inf");
    ok(isnan(st_half_to_float(0x7e00)), "F16 NaN");
    ok(st_bf16_to_float(0x3f80) == 1.0f && st_bf16_to_float(0xc040) == -3.0f,
       "BF16 1 and -3");

    char st_path[600];
    snprintf(st_path, sizeof st_path, "%s/model.safetensors", tmp);
    unlink(st_path);
    rmdir(tmp);
    free(header);
    free(st);
    free(cfg);
    return tap_done();
}
