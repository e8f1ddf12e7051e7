/* explain_module.c: the words of --explain that open a module and
 * its inputs: the module's sentence (its row's) and its parameters
 * counted, the inputs looked up, read or drawn, the masks of a batch,
 * and the rules that made the words (explain_parts.h). */
#include <stdio.h>
#include <string.h>

#include "base/i18n.h"
#include "model/lesson/model.h"
#include "model/lesson/variants.h"
#include "render/explain_parts.h"

/* A param_fn: adds a present parameter's values to the weights or the
 * biases (ctx: size_t[2]). */
static int count_param(const param_info *p, void *ctx)
{
    size_t *counts = ctx;
    const bool bias = p->kind == PARAM_BIAS || p->kind == PARAM_NORM_BIAS;
    if (p->present)
        counts[bias] += p->rows * p->cols;
    return 0;
}

/* The run's sizes, as the modules' parameters are made from them. */
static model_dims dims_of(const explain_context *c)
{
    return (model_dims){
        .d_model = c->d_model,
        .d_out = c->d_out,
        .heads = c->heads,
        .ff = c->ff,
        .qkv_bias = c->qkv_bias,
        .layers = c->layers,
        .attn_only = c->attn_only,
    };
}

void count_parameters(variant_id variant, const explain_context *c,
                      size_t *weights, size_t *biases)
{
    const model_dims dims = dims_of(c);
    const variant_info *v = variant_by_id(variant);
    size_t counts[2] = {0, 0};
    if (v != NULL)
        model_params_each(v->bit, &dims, NULL, count_param, counts);
    *weights = counts[0];
    *biases = counts[1];
}

/* n with thousands separators, "1,050,624", into buf (64 bytes). The
 * separator is the language's (a comma in English and Chinese, a no-break
 * space in Portuguese and Spanish, whose comma is a decimal comma), never
 * the locale's: numbers do not follow the locale. */
static const char *with_separators(char *buf, size_t n)
{
    /* TRANSLATORS: the thousands separator of parameter counts such as
     * "1,050,624". The tables write decimals with a point whatever the
     * language, so where a comma reads as a decimal comma use a no-break
     * space (U+00A0), never a point. */
    const char *sep = _(",");
    const size_t sep_len = strlen(sep) < 8 ? strlen(sep) : 1;
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%zu", n);
    char *w = buf;
    for (int i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0) {
            memcpy(w, sep, sep_len);
            w += sep_len;
        }
        *w++ = digits[i];
    }
    *w = '\0';
    return buf;
}

/* The module's sentence (its row's, variants.h), then its parameters. */
void explain_module(FILE *out, variant_id variant, const explain_context *c)
{
    const variant_row *row = variant_row_of(variant);
    const model_dims run = dims_of(c);
    const model_dims dims = variant_dims(row, &run);
    char text[2048];
    row->explain(text, sizeof text, &dims);
    explain_say(out, c->width, "%s", text);
    if ((variant_by_id(variant)->tables & DROPOUT_TABLES) && c->dropout > 0)
        explain_say(out, c->width,
                    _("With --dropout %g it runs in training mode instead: "
                      "nn.Dropout(%g) on attn_out and on ffn_out, before each "
                      "residual connection."),
                    c->dropout, c->dropout);
    size_t w, b;
    char nw[64], nb[64], nt[64];
    count_parameters(variant, c, &w, &b);
    explain_say(out, c->width, _("Parameters: %s weights + %s biases = %s."),
                with_separators(nw, w), with_separators(nb, b),
                with_separators(nt, w + b));
    fputc('\n', out);
}

/* With --batch B > 1: the masks cover the batch, element 0's shown. */
void explain_batch_masks(FILE *out, const explain_context *c)
{
    if (c->batch > 1)
        explain_say(out, c->width,
                    _("The mask is drawn for the whole batch of %zu, one value "
                      "per value of the batch; element 0's part is shown."),
                    c->batch);
}

/* The inputs: looked up, given in a file or drawn (--randn-input); then
 * the order of --draw. */
void explain_inputs(FILE *out, const explain_context *c)
{
    const size_t T = c->tokens, D = c->d_model;
    if (c->randn_input) {
        explain_say(
            out, c->width,
            ngettext("Inputs (--randn-input): x = torch.randn(%zu, %zu, %zu) "
                     "instead of an embedding lookup, a batch of %zu "
                     "random sentence of %zu rows. Batch element 0, x[0], "
                     "is shown: (%zu, %zu). The tokens only label the "
                     "rows: each position gets its own random row, so a "
                     "repeated word gets two different vectors, where "
                     "nn.Embedding gives it the same row twice.",
                     "Inputs (--randn-input): x = torch.randn(%zu, %zu, %zu) "
                     "instead of an embedding lookup, a batch of %zu "
                     "random sentences of %zu rows. Batch element 0, x[0], "
                     "is shown: (%zu, %zu). The tokens only label the "
                     "rows: each position gets its own random row, so a "
                     "repeated word gets two different vectors, where "
                     "nn.Embedding gives it the same row twice.",
                     c->batch),
            c->batch, T, D, c->batch, T, T, D);
        if (c->batch > 1)
            explain_say(
                out, c->width,
                _("The other elements of the batch are drawn, so they move "
                  "the draws that come after them, but no table shows "
                  "them."));
    } else if (c->embeddings_given)
        explain_say(out, c->width,
                    _("Inputs: the vectors given in the file, one row "
                      "per token: (%zu, %zu)."),
                    T, D);
    else if (c->positions)
        explain_say(
            out, c->width,
            _("Inputs: each token's row plus its place's row, inputs = "
              "embedding.weight[ids] + pos_embedding.weight[:%zu]: (%zu, "
              "%zu). Attention works on these vectors."),
            T, T, D);
    else
        explain_say(out, c->width,
                    _("Inputs: each token's row is looked up in the "
                      "table, inputs = embedding.weight[ids]: (%zu, %zu). "
                      "Attention works on these vectors."),
                    T, D);
    if (c->n_draw == 0)
        return;
    char order[256] = "";
    for (size_t i = 0; i < c->n_draw; i++) {
        const size_t used = strlen(order);
        snprintf(order + used, sizeof order - used, "%s%s", i ? ", " : "",
                 variant_id_name(c->draw[i]));
    }
    explain_say(
        out, c->width,
        _("Order of draws (--draw): after one torch.manual_seed(%llu), "
          "%s, one after another, as a notebook builds them; each "
          "module's forward pass, and its dropout masks, as soon as the "
          "module and the input exist. Without --draw every module starts "
          "again from the seed, after the input."),
        (unsigned long long)c->seed, order);
}

/* ---- how words are made (--lower, --punct, --unk) ---------------------- */

/* The rules that made the tokens, after the tokens' note. */
void explain_rules(FILE *out, const explain_context *c)
{
    if (c->rules.lower)
        explain_say(
            out, c->width,
            _("Words are lower-cased first (--lower): 'O' and 'o' are one "
              "word."));
    if (c->rules.punct == PUNCT_SPLIT)
        explain_say(
            out, c->width,
            _("Punctuation at either end of a word is split off, each mark "
              "a token of its own (--punct split): 'peixe.' is 'peixe' and "
              "'.'."));
    else if (c->rules.punct == PUNCT_DROP)
        explain_say(out, c->width,
                    _("Punctuation at either end of a word is dropped (--punct "
                      "drop): 'peixe.' is 'peixe'."));
    if (c->unk)
        explain_say(
            out, c->width,
            _("A word outside the trained vocabulary is read as the word "
              "<unk> (--unk), which the model learns like any other."));
}
