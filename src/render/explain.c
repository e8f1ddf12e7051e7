/* explain.c: the words of --explain before each table: a module's
 * opening words (explain_module.c) at its first table, then a note before
 * each step, one row per catalogue table (notes). */
#include "render/explain.h"

#include <math.h>
#include <string.h>

#include "base/i18n.h"
#include "model/lesson/model.h"
#include "model/lesson/variants.h"
#include "model/next_tokens.h"
#include "render/explain_parts.h"

/* The attention width of a variant: --d-out, but d_model for a module
 * whose attention is d_model wide (the block's: its residual adds the
 * attention's output to its input). */
static size_t attention_width(variant_id variant, const explain_context *c)
{
    return variant != VARIANT_INPUT && variant_row_of(variant)->d_model_wide
               ? c->d_model
               : c->d_out;
}

/* What a step's note reads: its table, the run, and the run's shapes. */
typedef struct {
    const table *t;
    const explain_context *c;
    size_t T, D, H; /* tokens, d_model, heads */
    size_t O, hd;   /* the attention's width, a head's */
    size_t S;       /* keys and values: --kv's tokens, else T */
    size_t width;   /* the width of what a head computes: O for the
                       single head, else hd */
    bool fused;     /* the heads split from one projection */
} note_shapes;

typedef void note_fn(FILE *out, const note_shapes *n);

static void note_vocab(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    const size_t T = n->T;
    char tokens[512], vocab[512];
    if (c->chars)
        snprintf(tokens, sizeof tokens,
                 ngettext("Tokenize (--tokens chars): every character "
                          "of the sentence is a token, spaces skipped, "
                          "%zu token.",
                          "Tokenize (--tokens chars): every character "
                          "of the sentence is a token, spaces skipped, "
                          "%zu tokens.",
                          T),
                 T);
    else
        snprintf(tokens, sizeof tokens,
                 ngettext("Tokenize: the sentence is split on whitespace "
                          "into %zu token.",
                          "Tokenize: the sentence is split on whitespace "
                          "into %zu tokens.",
                          T),
                 T);
    if (c->reloaded)
        snprintf(vocab, sizeof vocab,
                 ngettext("Vocabulary: the trained model's, the rows of "
                          "its embedding.weight file (--weights): each "
                          "token is looked up there (%zu entry).",
                          "Vocabulary: the trained model's, the rows of "
                          "its embedding.weight file (--weights): each "
                          "token is looked up there (%zu entries).",
                          c->vocab),
                 c->vocab);
    else if (c->chars)
        snprintf(vocab, sizeof vocab,
                 ngettext("Vocabulary: every distinct character gets an "
                          "id, in the order characters first appear "
                          "(%zu character).",
                          "Vocabulary: every distinct character gets an "
                          "id, in the order characters first appear "
                          "(%zu characters).",
                          c->vocab),
                 c->vocab);
    else
        snprintf(vocab, sizeof vocab,
                 ngettext("Vocabulary: every distinct word gets an id, "
                          "in the order words first appear (%zu word).",
                          "Vocabulary: every distinct word gets an id, "
                          "in the order words first appear (%zu words).",
                          c->vocab),
                 c->vocab);
    /* TRANSLATORS: two sentences of --explain, one after the other */
    explain_say(out, c->width, _("%s %s"), tokens, vocab);
    explain_rules(out, c);
    if (c->train)
        explain_training(out, c);
    else if (!c->embeddings_given)
        explain_say(
            out, c->width,
            _("Drawn weights (torch.manual_seed(%llu)): word i of the "
              "vocabulary gets row i of the embedding table, and words are "
              "numbered in the order they first appear, so the numbers "
              "depend on the seed, the positions and which words "
              "repeat, not on the words themselves. Two sentences of "
              "the same length whose repeated words sit at the same "
              "places give the same tables; a repeated word shares its "
              "row, so its queries, keys and values repeat too. "
              "Training on many sentences (--train N --corpus FILE) "
              "makes them depend on the words: a word's row is learned "
              "from every sentence it appears in."),
            (unsigned long long)c->seed);
}

static void note_tokens(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    explain_say(out, c->width,
                _("Token ids: each position of the sentence gets the id of "
                  "its word; a repeated word repeats its id."));
}

static void note_embedding(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    const size_t D = n->D;
    if (c->reloaded) {
        explain_say(
            out, c->width,
            _("Embeddings: nn.Embedding(%zu, %zu), one row of %zu numbers "
              "per vocabulary word, read from the trained model's "
              "embedding.weight file (--weights), whose rows are the "
              "vocabulary: shape (%zu, %zu)."),
            c->vocab, D, D, c->vocab, D);
    } else if (c->train) {
        explain_say(
            out, c->width,
            _("Embeddings: nn.Embedding(%zu, %zu), one row of %zu numbers "
              "per vocabulary word, drawn after torch.manual_seed(%llu) and "
              "then trained with the rest: shape (%zu, %zu)."),
            c->vocab, D, D, (unsigned long long)c->seed, c->vocab, D);
    } else {
        explain_say(out, c->width,
                    _("Embeddings: nn.Embedding(%zu, %zu) is a table of one "
                      "row of %zu numbers per vocabulary word, drawn from a "
                      "normal distribution after torch.manual_seed(%llu). "
                      "Shape (%zu, %zu)."),
                    c->vocab, D, D, (unsigned long long)c->seed, c->vocab, D);
    }
}

static void note_pos_embedding(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    const table *t = n->t;
    const size_t D = n->D;
    explain_say(out, c->width,
                _("Positions (--positions): pos_embedding = "
                  "nn.Embedding(%zu, %zu), one row per place in the longest "
                  "sentence, added to the words' rows, so the same word at two "
                  "places gets two different vectors."),
                t->values.rows, D);
}

static void note_logits(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    const size_t T = n->T;
    const size_t O = n->O;
    explain_say(out, c->width,
                _("Next-word scores: lm_head = nn.Linear(%zu, %zu, bias=False) "
                  "gives each token one score (logit) per vocabulary word: "
                  "logits = out @ lm_head.weight^T, (%zu, %zu) @ (%zu, %zu) -> "
                  "(%zu, %zu). Row t scores the candidates for word t+1."),
                O, c->vocab, T, O, O, c->vocab, T, c->vocab);
}

static void note_next_tokens(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    const size_t k = c->vocab < NEXT_TOKENS_K ? c->vocab : NEXT_TOKENS_K;
    explain_say(out, c->width,
                _("Next words: torch.softmax(logits, -1) turns row t of the "
                  "logits into probabilities over the %zu words of the "
                  "vocabulary; the table lists the %zu likeliest after "
                  "each token, \"token \u2192 next\", the likeliest "
                  "first: what the trained model predicts."),
                c->vocab, k);
}

static void note_loss(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    const size_t width = n->width;
    explain_loss(out, c, n->t, width);
}

static void note_inputs(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    explain_inputs(out, c);
}

static void note_kv_inputs(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    const size_t D = n->D;
    const size_t S = n->S;
    explain_say(
        out, c->width,
        ngettext("Cross-attention (--kv): the queries come from the "
                 "sentence, the keys and values from this second "
                 "sentence, %zu token looked up in the same embedding "
                 "table: (%zu, %zu). There is no causal mask: every query "
                 "may look at every key.",
                 "Cross-attention (--kv): the queries come from the "
                 "sentence, the keys and values from this second "
                 "sentence, %zu tokens looked up in the same embedding "
                 "table: (%zu, %zu). There is no causal mask: every query "
                 "may look at every key.",
                 S),
        S, S, D);
}

static void note_queries(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    const table *t = n->t;
    const size_t T = n->T;
    const size_t D = n->D;
    const size_t H = n->H;
    const size_t O = n->O;
    const size_t hd = n->hd;
    const size_t width = n->width;
    const bool fused = n->fused;
    if (t->stacked && t->layer > 0)
        explain_say(out, c->width,
                    _("Block %d of the stack reads block %d's out instead of "
                      "the inputs: below, \"inputs\" stands for that out (%zu, "
                      "%zu)."),
                    t->layer, t->layer - 1, T, D);
    if (fused) {
        explain_say(
            out, c->width,
            ngettext(
                "Projections: queries = inputs @ W_query^T, (%zu, %zu) @ "
                "(%zu, %zu) -> (%zu, %zu); keys and values likewise. Each is "
                "then split into %zu head, head h taking columns h*%zu to "
                "h*%zu+%zu:",
                "Projections: queries = inputs @ W_query^T, (%zu, %zu) @ "
                "(%zu, %zu) -> (%zu, %zu); keys and values likewise. Each is "
                "then split into %zu heads, head h taking columns h*%zu to "
                "h*%zu+%zu:",
                H),
            T, D, D, O, T, O, H, hd, hd, hd - 1);
        explain_say(out, c->width,
                    _("(%zu, %zu) -> view (%zu, %zu, %zu) -> transpose (%zu, "
                      "%zu, %zu)"),
                    T, O, T, H, hd, H, T, hd);
    } else
        explain_say(out, c->width,
                    _("Projections: queries = inputs @ W_query^T, (%zu, "
                      "%zu) @ (%zu, %zu) -> (%zu, %zu): what each token "
                      "looks for. keys (what each token offers) and "
                      "values (what it passes on) likewise."),
                    T, D, D, width, T, width);
}

static void note_attn_scores(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    const size_t T = n->T;
    const size_t S = n->S;
    const size_t width = n->width;
    explain_say(out, c->width,
                _("Scores: attn_scores = queries @ keys^T, (%zu, %zu) @ "
                  "(%zu, %zu) -> (%zu, %zu); row i says how well query i "
                  "matches every key.%s"),
                T, width, width, S, T, S,
                c->causal ? _(" Mask: cells where the key comes after the "
                              "query are set to -inf, so a token cannot look "
                              "ahead.")
                          : _(" No mask: every query may look at every key."));
}

static void note_attn_weights(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    const size_t width = n->width;
    const char *masked = c->causal ? _("; masked cells get exactly 0") : "";
    if (c->scale)
        explain_say(out, c->width,
                    _("Scale and softmax: the scores are divided by "
                      "sqrt(%zu) = %.4f so they do not grow with the "
                      "width, then each row becomes exp(s - max) / sum: "
                      "weights in [0, 1] that sum to 1%s."),
                    width, sqrt((double)width), masked);
    else
        explain_say(out, c->width,
                    _("Softmax (--no-scale, so no division by "
                      "sqrt(head_dim)): each row becomes exp(s - max) / sum, "
                      "weights in [0, 1] that sum to 1%s."),
                    masked);
}

static void note_head_context(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    const size_t T = n->T;
    const size_t S = n->S;
    const size_t width = n->width;
    explain_say(out, c->width,
                _("Context: head_context = attn_weights @ values, "
                  "(%zu, %zu) @ (%zu, %zu) -> (%zu, %zu): each token's "
                  "new vector is the weighted average of the values it "
                  "attends to."),
                T, S, S, width, T, width);
}

static void note_dropout_mask(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    explain_say(
        out, c->width,
        _("Dropout (--attn-dropout %g, training mode): self.dropout "
          "keeps each weight with probability 1 - P and multiplies it by "
          "1 / (1 - P) = %.4f, or drops it (0). dropout_mask holds "
          "these factors, drawn with bernoulli_ from the generator; "
          "attn_weights_dropped = attn_weights * dropout_mask is what "
          "the context reads, so its rows no longer sum to 1."),
        c->attn_dropout, 1.0 / (1.0 - c->attn_dropout));
    explain_batch_masks(out, c);
}

static void note_attn_out_dropout_mask(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    explain_say(out, c->width,
                _("Dropout (--dropout %g, training mode): nn.Dropout on "
                  "attn_out before the residual connection. "
                  "attn_out_dropout_mask is 0 where a value is dropped and 1 / "
                  "(1 - P) = %.4f where it is kept; add_norm1 reads attn_out * "
                  "attn_out_dropout_mask."),
                c->dropout, 1.0 / (1.0 - c->dropout));
    explain_batch_masks(out, c);
}

static void note_ffn_out_dropout_mask(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    explain_say(
        out, c->width,
        _("The same dropout on ffn_out, drawn after the first mask: out "
          "= LayerNorm(add_norm1 + ffn_out * ffn_out_dropout_mask)."));
}

static void note_attn_entropy(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    const size_t S = n->S;
    explain_say(
        out, c->width,
        _("The model view of the stack: each block's and head's mean "
          "attention entropy in nats, the mean over the queries of -sum "
          "p ln p over the row's weights (masked cells, 0, add "
          "nothing). 0 for a head that looks at one token; at most ln "
          "%zu = %.2f, for one that spreads its attention evenly over "
          "all %zu keys."),
        S, log((double)S), S);
}

static void note_attn_weights_avg(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    const size_t H = n->H;
    explain_say(out, c->width,
                ngettext("Average: the mean of the %zu head's attention "
                         "weights, as nn.MultiheadAttention returns with "
                         "average_attn_weights=True.",
                         "Average: the mean of the %zu heads' attention "
                         "weights, as nn.MultiheadAttention returns with "
                         "average_attn_weights=True.",
                         H),
                H);
}

static void note_concat_context(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    const size_t T = n->T;
    const size_t H = n->H;
    const size_t O = n->O;
    const size_t hd = n->hd;
    const bool fused = n->fused;
    if (fused) {
        explain_say(out, c->width,
                    _("Concatenation: the heads' contexts side by side "
                      "again, the split undone:"));
        explain_say(out, c->width,
                    _("(%zu, %zu, %zu) -> transpose (%zu, %zu, %zu) -> view "
                      "(%zu, %zu)"),
                    H, T, hd, T, H, hd, T, O);
    } else
        explain_say(out, c->width,
                    ngettext("Concatenation: torch.cat of the %zu head's "
                             "(%zu, %zu) contexts along the last dimension -> "
                             "(%zu, %zu).",
                             "Concatenation: torch.cat of the %zu heads' "
                             "(%zu, %zu) contexts along the last dimension -> "
                             "(%zu, %zu).",
                             H),
                    H, T, hd, T, O);
}

static void note_attn_out(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    const size_t T = n->T;
    const size_t O = n->O;
    explain_say(
        out, c->width,
        _("Attention output: attn_out = concat_context @ "
          "out_proj.weight^T + out_proj.bias, (%zu, %zu) -> (%zu, %zu)."),
        T, O, T, O);
}

static void note_add_norm1(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    const size_t T = n->T;
    const size_t D = n->D;
    explain_say(out, c->width,
                _("Add and norm: add_norm1 = LayerNorm(inputs + attn_out). The "
                  "residual connection keeps the token's own vector; "
                  "LayerNorm then gives every row mean 0 and variance 1 "
                  "(times norm1.weight, plus norm1.bias): (%zu, %zu)."),
                T, D);
}

static void note_ffn_hidden(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    const size_t T = n->T;
    const size_t D = n->D;
    explain_say(out, c->width,
                _("Feed-forward: ffn_hidden = ReLU(add_norm1 @ ff.0.weight^T + "
                  "ff.0.bias), (%zu, %zu) -> (%zu, %zu); ReLU sets negative "
                  "values to 0. Each token is processed on its own."),
                T, D, T, c->ff);
}

static void note_ffn_out(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    const size_t T = n->T;
    const size_t D = n->D;
    explain_say(out, c->width,
                _("Back to the model width: ffn_out = ffn_hidden @ "
                  "ff.2.weight^T + ff.2.bias, (%zu, %zu) -> (%zu, %zu)."),
                T, c->ff, T, D);
}

static void note_out(FILE *out, const note_shapes *n)
{
    const explain_context *c = n->c;
    const table *t = n->t;
    const size_t T = n->T;
    const size_t D = n->D;
    const size_t O = n->O;
    const table_id id = n->t->id;
    if (table_step(id, t->variant) == STEP_NORM2) {
        // the block's out: its second add and norm
        explain_say(
            out, c->width,
            _("Add and norm again: out = LayerNorm(add_norm1 + ffn_out), "
              "(%zu, %zu): the block's output, ready for the next block."),
            T, D);
    } else {
        explain_say(out, c->width,
                    _("Output projection: out = concat_context @ "
                      "out_proj.weight^T + out_proj.bias, (%zu, %zu) @ (%zu, "
                      "%zu) -> (%zu, %zu), mixing what the heads found."),
                    T, O, O, O, T, O);
    }
}

static void note_generated(FILE *out, const note_shapes *n)
{
    explain_lesson_generated(out, n->t, n->c);
}

/* The note before the first table of each step, by catalogue id. A table
 * without one (a parameter) has none: its module's note covered it. */
static note_fn *const notes[TABLE_COUNT] = {
    [TABLE_VOCAB] = note_vocab,
    [TABLE_TOKENS] = note_tokens,
    [TABLE_EMBEDDING] = note_embedding,
    [TABLE_POS_EMBEDDING] = note_pos_embedding,
    [TABLE_LOGITS] = note_logits,
    [TABLE_NEXT_TOKENS] = note_next_tokens,
    [TABLE_LOSS] = note_loss,
    [TABLE_GENERATED] = note_generated,
    [TABLE_INPUTS] = note_inputs,
    [TABLE_KV_INPUTS] = note_kv_inputs,
    [TABLE_QUERIES] = note_queries,
    [TABLE_ATTN_SCORES] = note_attn_scores,
    [TABLE_ATTN_WEIGHTS] = note_attn_weights,
    [TABLE_HEAD_CONTEXT] = note_head_context,
    [TABLE_DROPOUT_MASK] = note_dropout_mask,
    [TABLE_ATTN_OUT_DROPOUT_MASK] = note_attn_out_dropout_mask,
    [TABLE_FFN_OUT_DROPOUT_MASK] = note_ffn_out_dropout_mask,
    [TABLE_ATTN_ENTROPY] = note_attn_entropy,
    [TABLE_ATTN_WEIGHTS_AVG] = note_attn_weights_avg,
    [TABLE_CONCAT_CONTEXT] = note_concat_context,
    [TABLE_ATTN_OUT] = note_attn_out,
    [TABLE_ADD_NORM1] = note_add_norm1,
    [TABLE_FFN_HIDDEN] = note_ffn_hidden,
    [TABLE_FFN_OUT] = note_ffn_out,
    [TABLE_OUT] = note_out,
};

/* Before a trained lesson model's head_scores with --repeat-random N:
 * what the text is, and whose seed drew it: the seed that drew the model
 * before this run trained it, or, for a model read from --weights, the
 * training's seed its model.json records (no --seed) or --seed's. */
static void note_repeat_random(FILE *out, const explain_context *c)
{
    const size_t N = c->repeat_random;
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)c->seed);
    const char *whose =
        !c->read_back  ? N_("The same seed drew the model before its "
                             "training.")
        : !c->seed_set ? N_("Without --seed it is the seed the folder's "
                            "model.json records, the one its training "
                            "started from, so the draw is the training "
                            "run's.")
                       : N_("The model was read from --weights, not drawn "
                            "from this seed: --seed chose the draw alone.");
    explain_say(out, c->width,
                _("The text is no sentence: --repeat-random drew %zu tokens "
                  "at random from the trained vocabulary, then the same %zu "
                  "again: %zu tokens. The draw is torch.randint(0, V, (N,)) "
                  "after torch.manual_seed(%s). %s A random text gives a "
                  "head nothing to follow but positions and repeats: on the "
                  "second half an induction head looks at the token after "
                  "the earlier copy of the current one, and a "
                  "duplicate-token head at the copy itself."),
                N, N, 2 * N, seed, _(whose));
    fputc('\n', out);
}

static bool starts_variant(const table *t, const table *prev)
{
    return prev == NULL || prev->variant != t->variant;
}

void explain_before(FILE *out, const table *t, const table *prev,
                    const void *ctx)
{
    const explain_context *c = ctx;
    // a trained model's interventions and logit lens: tables of the
    // whole model (model/lesson/lesson_lm.h), outside the modules
    if (t->variant == VARIANT_MODEL || t->id == TABLE_LOGIT_LENS) {
        const char *note = explain_lesson_intervention(t);
        if (note != NULL) {
            explain_note(out, c->width, note);
            fputc('\n', out);
        }
        if (t->id == TABLE_HEAD_SCORES && c->repeat_random > 0)
            note_repeat_random(out, c);
        return;
    }
    const size_t T = c->tokens, H = c->heads;
    const size_t O = attention_width(t->variant, c);
    const size_t hd = O / H;
    // how the module makes its heads (variants.h); the input has none
    const enum head_making heads = t->variant != VARIANT_INPUT
                                       ? variant_row_of(t->variant)->heads
                                       : HEADS_APART;
    const note_shapes n = {
        .t = t,
        .c = c,
        .T = T,
        .D = c->d_model,
        .H = H,
        .O = O,
        .hd = hd,
        .S = c->kv_tokens ? c->kv_tokens : T,
        .width = heads == HEADS_ONE ? O : hd,
        .fused = heads == HEADS_SPLIT,
    };

    if (c->ablated > 0 && t->variant != VARIANT_INPUT &&
        (prev == NULL || prev->variant == VARIANT_INPUT)) {
        explain_note(out, c->width, explain_lesson_ablation());
        fputc('\n', out);
    }
    if (t->variant != VARIANT_INPUT && starts_variant(t, prev))
        explain_module(out, t->variant, c);
    if (t->head > 0)
        return; /* the same step again for another head */

    if (t->grad) {
        if (!explain_grad(out, t, prev, c, n.width))
            return;
    } else if (notes[t->id] != NULL) {
        notes[t->id](out, &n);
    } else {
        return; /* a parameter table: the module note covered it */
    }
    fputc('\n', out);
}
