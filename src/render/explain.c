/* explain.c: the words of --explain. */
#include "render/explain.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <utf8proc.h>

#include "base/i18n.h"
#include "model/lesson/model.h"
#include "model/lesson/variants.h"

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

/* The attention width of a variant: --d-out, but d_model for a module
 * whose attention is d_model wide (the block's: its residual adds the
 * attention's output to its input). */
static size_t attention_width(variant_id variant, const explain_context *c)
{
    return variant != VARIANT_INPUT && variant_row_of(variant)->d_model_wide
               ? c->d_model
               : c->d_out;
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

#define NOTE_WIDTH 76
#define MIN_NOTE_WIDTH 20 /* narrower screens get lines this long */

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

/* A line may break at the space p[i], unless that splits a shape "(5, 2,
 * 2)", a chain "(5, 4) -> view (5, 2, 2)" or a product "(5, 3) @ (3, 4)". */
static bool break_allowed(const char *p, size_t i)
{
    if (p[i] != ' ')
        return false;
    int depth = 0;
    for (size_t k = 0; k < i; k++)
        depth += p[k] == '(' ? 1 : (p[k] == ')' ? -1 : 0);
    if (depth != 0)
        return false;
    const bool arrow_after =
        strncmp(p + i + 1, "->", 2) == 0 || p[i + 1] == '@';
    const bool arrow_before = (i >= 2 && strncmp(p + i - 2, "->", 2) == 0) ||
                              (i >= 1 && p[i - 1] == '@');
    /* "view (5, 2, 2)": a word stays with the shape after it */
    const bool before_shape =
        i >= 1 && p[i - 1] != ')' && p[i - 1] != ',' && p[i + 1] == '(';
    return !arrow_after && !arrow_before && !before_shape;
}

/* The code point at s (U+FFFD for a bad byte) and its length in *len. */
static utf8proc_int32_t code_point(const char *s, size_t *len)
{
    utf8proc_int32_t c;
    utf8proc_ssize_t n = utf8proc_iterate((const utf8proc_uint8_t *)s, -1, &c);
    *len = n > 0 ? (size_t)n : 1;
    return n > 0 ? c : 0xFFFD;
}

/* Terminal cells of the code point c: 2 for ideographs, 0 for marks. */
static size_t cells(utf8proc_int32_t c)
{
    int w = utf8proc_charwidth(c);
    return w > 0 ? (size_t)w : 0;
}

/* Nonzero when c is one of the n code points of set. */
static bool one_of(utf8proc_int32_t c, const utf8proc_int32_t *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (set[i] == c)
            return true;
    return false;
}

/* A line of Chinese may also break between two characters when one of
 * them is wide (an ideograph), outside a shape, and not before closing
 * or after opening punctuation. i starts a code point, i > 0. */
static bool wide_break_allowed(const char *p, size_t i)
{
    static const utf8proc_int32_t closing[] = {
        0xFF0C, 0x3002, 0x3001, 0xFF1A, 0xFF1B, 0xFF01, 0xFF1F,
        0xFF09, 0x300D, 0x300F, 0x201D, 0x2019}; /* ，。、：；！？）」』”’ */
    static const utf8proc_int32_t opening[] = {0xFF08, 0x300C, 0x300E, 0x201C,
                                               0x2018}; /* （「『“‘ */
    size_t start = i - 1, len;
    while (start > 0 && ((unsigned char)p[start] & 0xC0) == 0x80)
        start--;
    const utf8proc_int32_t before = code_point(p + start, &len);
    const utf8proc_int32_t after = code_point(p + i, &len);
    if ((cells(before) != 2 && cells(after) != 2) || before == ' ' ||
        after == ' ' ||
        one_of(after, closing, sizeof closing / sizeof closing[0]) ||
        one_of(before, opening, sizeof opening / sizeof opening[0]))
        return false;
    int depth = 0;
    for (size_t k = 0; k < i; k++)
        depth += p[k] == '(' ? 1 : (p[k] == ')' ? -1 : 0);
    return depth == 0;
}

/* Prints a note as "# " lines of at most NOTE_WIDTH display cells (an
 * ideograph counts two), fewer on a screen narrower than that (screen 0:
 * no limit). Lines break at spaces, or between Chinese characters. */
/* clang-format off */
__attribute__((format(printf, 3, 4)))
static void say(FILE *out, size_t screen, const char *fmt, ...)
/* clang-format on */
{
    size_t note_width = NOTE_WIDTH;
    if (screen > 0 && screen < NOTE_WIDTH + 2)
        note_width = screen > 2 + MIN_NOTE_WIDTH ? screen - 2 : MIN_NOTE_WIDTH;
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (screen == EXPLAIN_NO_WRAP) {
        fprintf(out, "# %s\n", text);
        return;
    }
    const char *p = text;
    while (*p != '\0') {
        /* the last break within note_width cells; failing one, the last
         * space; failing that, the last character that fits */
        size_t i = 0, used = 0, best = 0, space = 0, fits = 0;
        while (p[i] != '\0' && used <= note_width) {
            if (i > 0 && (break_allowed(p, i) || wide_break_allowed(p, i)))
                best = i;
            if (i > 0 && p[i] == ' ')
                space = i;
            fits = i;
            size_t len;
            used += cells(code_point(p + i, &len));
            i += len;
        }
        size_t cut = strlen(p);
        if (used > note_width)
            cut = best > 0 ? best : (space > 0 ? space : fits);
        fprintf(out, "# %.*s\n", (int)cut, p);
        p += cut;
        while (*p == ' ')
            p++;
    }
}

/* The module's sentence (its row's, variants.h), then its parameters. */
static void explain_module(FILE *out, variant_id variant,
                           const explain_context *c)
{
    const variant_row *row = variant_row_of(variant);
    const model_dims run = dims_of(c);
    const model_dims dims = variant_dims(row, &run);
    char text[2048];
    row->explain(text, sizeof text, &dims);
    say(out, c->width, "%s", text);
    if ((variant_by_id(variant)->tables & DROPOUT_TABLES) && c->dropout > 0)
        say(out, c->width,
            _("With --dropout %g it runs in training mode instead: "
              "nn.Dropout(%g) on attn_out and on ffn_out, before each "
              "residual connection."),
            c->dropout, c->dropout);
    size_t w, b;
    char nw[64], nb[64], nt[64];
    count_parameters(variant, c, &w, &b);
    say(out, c->width, _("Parameters: %s weights + %s biases = %s."),
        with_separators(nw, w), with_separators(nb, b),
        with_separators(nt, w + b));
    fputc('\n', out);
}

/* With --batch B > 1: the masks cover the batch, element 0's shown. */
static void explain_batch_masks(FILE *out, const explain_context *c)
{
    if (c->batch > 1)
        say(out, c->width,
            _("The mask is drawn for the whole batch of %zu, one value "
              "per value of the batch; element 0's part is shown."),
            c->batch);
}

/* The inputs: looked up, given in a file or drawn (--randn-input); then
 * the order of --draw. */
static void explain_inputs(FILE *out, const explain_context *c)
{
    const size_t T = c->tokens, D = c->d_model;
    if (c->randn_input) {
        say(out, c->width,
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
            say(out, c->width,
                _("The other elements of the batch are drawn, so they move "
                  "the draws that come after them, but no table shows "
                  "them."));
    } else if (c->embeddings_given)
        say(out, c->width,
            _("Inputs: the vectors given in the file, one row "
              "per token: (%zu, %zu)."),
            T, D);
    else if (c->positions)
        say(out, c->width,
            _("Inputs: each token's row plus its place's row, inputs = "
              "embedding.weight[ids] + pos_embedding.weight[:%zu]: (%zu, "
              "%zu). Attention works on these vectors."),
            T, T, D);
    else
        say(out, c->width,
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
    say(out, c->width,
        _("Order of draws (--draw): after one torch.manual_seed(%llu), "
          "%s, one after another, as a notebook builds them; each "
          "module's forward pass, and its dropout masks, as soon as the "
          "module and the input exist. Without --draw every module starts "
          "again from the seed, after the input."),
        (unsigned long long)c->seed, order);
}

/* ---- a trained run (--train) ------------------------------------------ */

/* What --train did, before the tables (which are the trained model's). */
static void explain_training(FILE *out, const explain_context *c)
{
    const char *data =
        c->corpus ? _("the sentences of the corpus, one per step, in turn")
                  : _("this sentence");
    if (c->reloaded) {
        // what the saved model was trained on is not known here
        say(out, c->width,
            ngettext("Training (--train %zu): each variant starts from the "
                     "trained model that --weights reads (its embedding, "
                     "vocabulary and lm_head included), not from "
                     "torch.manual_seed, and takes %zu step of %s on %s. "
                     "The tables below are the model's on the sentence.",
                     "Training (--train %zu): each variant starts from the "
                     "trained model that --weights reads (its embedding, "
                     "vocabulary and lm_head included), not from "
                     "torch.manual_seed, and takes %zu steps of %s on %s. "
                     "The tables below are the model's on the sentence.",
                     c->steps),
            c->steps, c->steps, c->adam ? "Adam" : "SGD", data);
        return;
    }
    say(out, c->width,
        ngettext("Training (--train %zu): each variant starts from weights "
                 "drawn after torch.manual_seed(%llu), its own embedding "
                 "and lm_head included, and takes %zu step of %s on %s, "
                 "learning to predict every next word. The tables below "
                 "are the trained model's on the sentence.",
                 "Training (--train %zu): each variant starts from weights "
                 "drawn after torch.manual_seed(%llu), its own embedding "
                 "and lm_head included, and takes %zu steps of %s on %s, "
                 "learning to predict every next word. The tables below "
                 "are the trained model's on the sentence.",
                 c->steps),
        c->steps, (unsigned long long)c->seed, c->steps,
        c->adam ? "Adam" : "SGD", data);
    if (c->corpus)
        say(out, c->width,
            _("A word's row is learned from every sentence of the corpus it "
              "appears in, so the tables now depend on the words: what each "
              "word does in the corpus."));
    else
        say(out, c->width,
            _("Trained on this sentence alone, the model learns its order of "
              "ids: a sentence whose repeated words sit at the same places "
              "would train to the same numbers. --corpus FILE trains on many "
              "sentences, where the words themselves matter."));
}

/* The parts of the backward pass's note, in the order loss.backward()
 * runs them: from the loss back to the embedding. */
enum backward_part {
    BACKWARD_START = 1,      /* the chain rule */
    BACKWARD_LOSS = 2,       /* d loss / d logits */
    BACKWARD_MODULE = 4,     /* a linear layer, the attention, the mask */
    BACKWARD_EMBEDDING = 8,  /* the embedding */
    BACKWARD_POSITIONS = 16, /* the positions (--positions) */
};

/* The parts of the backward pass's note (a set of backward_part).
 * width: a head's width. */
static void explain_backward(FILE *out, const explain_context *c, size_t width,
                             unsigned parts)
{
    const size_t T = c->tokens;
    char scaled[128] = "";
    if (c->scale)
        snprintf(scaled, sizeof scaled,
                 _(", divided by sqrt(%zu) as the "
                   "scores were"),
                 width);
    if (parts & BACKWARD_START)
        say(out, c->width,
            _("Backward pass: loss.backward() goes through the forward pass in "
              "reverse and applies the chain rule at each operation, so every "
              "parameter gets d loss / d parameter, a table of its own shape: "
              "how fast the loss grows when that number grows."));
    if (parts & BACKWARD_LOSS)
        say(out, c->width,
            _("Loss: d loss / d logits = (softmax(logits) - onehot(next "
              "word)) / %zu on rows 0 to %zu, and 0 on the last row, which "
              "predicts nothing."),
            T > 1 ? T - 1 : 1, T > 1 ? T - 2 : 0);
    if (parts & BACKWARD_MODULE) {
        say(out, c->width,
            _("A linear layer y = x @ W^T + b passes dy back as dx = dy @ W and "
              "takes dW = dy^T @ x (and db = the column sums of dy): "
              "lm_head.weight.grad = dlogits^T @ out, W_query.weight.grad = "
              "dqueries^T @ inputs, and likewise for W_key, W_value and "
              "out_proj."));
        say(out, c->width,
            _("Through the attention: with context = P @ values, dP = dcontext "
              "@ values^T and dvalues = P^T @ dcontext; through the softmax, "
              "row by row, dS = P * (dP - rowsum(P * dP))%s; then dqueries = "
              "dS @ keys and dkeys = dS^T @ queries."),
            scaled);
        if (c->causal)
            say(out, c->width,
                _("Masked cells get no gradient: their weight P is exactly 0, "
                  "so dS is 0 there, and nothing a token could not see moves "
                  "its scores."));
    }
    if (parts & BACKWARD_EMBEDDING)
        say(out, c->width,
            _("Embedding: row w of embedding.weight.grad adds up d inputs over "
              "the places where word w stands (a repeated word collects from "
              "each); a word absent from the sentence gets 0."));
    if (c->positions && (parts & BACKWARD_POSITIONS))
        say(out, c->width,
            _("Positions: row t of pos_embedding.weight.grad is row t of d "
              "inputs, and the places past the sentence's end get 0."));
}

/* One update: the optimizer's rule. */
static void explain_update(FILE *out, const explain_context *c)
{
    if (c->adam)
        say(out, c->width,
            _("Adam with --lr %g and torch.optim.Adam's defaults beta1 = "
              "0.9, beta2 = 0.999, eps = 1e-8: per number, m = beta1*m + "
              "(1-beta1)*grad and v = beta2*v + (1-beta2)*grad^2, both "
              "starting at 0; at step k the bias corrections m / (1 - "
              "beta1^k) and v / (1 - beta2^k) undo their start at 0; then p "
              "-= lr * m_corrected / (sqrt(v_corrected) + eps). Each number "
              "moves by at most about lr per step, whatever the size of its "
              "gradient."),
            c->lr);
    else
        say(out, c->width,
            _("SGD (--lr %g): every number of every parameter takes a "
              "step against its gradient, p -= lr * grad; a small enough "
              "step lowers the loss on that step's sentence."),
            c->lr);
}

/* The loss table (N + 1 rows), what one step does, and without --grad
 * the backward pass the steps ran. */
static void explain_loss(FILE *out, const explain_context *c, size_t width)
{
    say(out, c->width,
        _("Loss: next-word cross-entropy, F.cross_entropy(logits[:-1], "
          "ids[1:]). Softmax turns row t of the logits into probabilities "
          "p, and the loss is the mean over the %zu predictions of -log "
          "p(word t+1): 0 for a sure right guess, log(%zu) = %.4f for a "
          "uniform one."),
        c->tokens > 1 ? c->tokens - 1 : 1, c->vocab, log((double)c->vocab));
    say(out, c->width,
        _("Row step i is the loss before update i; the last row is the "
          "sentence's loss at the final parameters. Each step: forward "
          "pass, loss, opt.zero_grad(), loss.backward(), then the update."));
    explain_update(out, c);
    if (!c->grad) {
        explain_backward(out, c, width,
                         BACKWARD_START | BACKWARD_LOSS | BACKWARD_MODULE |
                             BACKWARD_EMBEDDING | BACKWARD_POSITIONS);
        say(out, c->width, _("--grad shows these gradients as tables."));
    }
}

/* The note before a gradient table t (--grad), or false for none: what
 * the gradients are before a variant's first, then the part of the
 * backward pass that makes each: the loss's (before logits.grad, the
 * first the backward pass makes), the embedding's, the positions', the
 * module's (before its first parameter). */
static bool explain_grad(FILE *out, const table *t, const table *prev,
                         const explain_context *c, size_t width)
{
    const bool first =
        prev == NULL || !prev->grad || prev->variant != t->variant;
    unsigned parts = first ? BACKWARD_START : 0;
    if (t->id == TABLE_EMBEDDING)
        parts |= BACKWARD_EMBEDDING;
    else if (t->id == TABLE_POS_EMBEDDING)
        parts |= BACKWARD_POSITIONS;
    else if (t->id == TABLE_LOGITS)
        parts |= BACKWARD_LOSS;
    else if (t->id == TABLE_PARAM && (first || prev->id != TABLE_PARAM))
        parts |= BACKWARD_MODULE;
    if (parts == 0)
        return false;
    if (first)
        say(out, c->width,
            _("Gradients (--grad): one more forward and backward pass on the "
              "sentence at the final parameters, with no update. Each "
              "<name>.grad table is d loss / d <name>: how fast the loss "
              "changes as each number changes a little; 0: not at all, to "
              "first order."));
    explain_backward(out, c, width, parts);
    return true;
}

void explain_note(FILE *out, size_t screen, const char *text)
{
    say(out, screen, "%s", text);
}

static bool starts_variant(const table *t, const table *prev)
{
    return prev == NULL || prev->variant != t->variant;
}

void explain_before(FILE *out, const table *t, const table *prev,
                    const void *ctx)
{
    const explain_context *c = ctx;
    const size_t T = c->tokens, D = c->d_model, H = c->heads;
    const size_t O = attention_width(t->variant, c);
    const size_t hd = O / H;
    // how the module makes its heads (variants.h); the input has none
    const enum head_making heads = t->variant != VARIANT_INPUT
                                       ? variant_row_of(t->variant)->heads
                                       : HEADS_APART;
    const bool fused = heads == HEADS_SPLIT;
    const bool single = heads == HEADS_ONE;
    const size_t width = single ? O : hd;
    const size_t S = c->kv_tokens ? c->kv_tokens : T; /* keys and values */

    if (t->variant != VARIANT_INPUT && starts_variant(t, prev))
        explain_module(out, t->variant, c);
    if (t->head > 0)
        return; /* the same step again for another head */

    const table_id id = t->id;
    if (t->grad) {
        if (!explain_grad(out, t, prev, c, width))
            return;
    } else if (id == TABLE_VOCAB) {
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
        say(out, c->width, _("%s %s"), tokens, vocab);
        if (c->train)
            explain_training(out, c);
        else if (!c->embeddings_given)
            say(out, c->width,
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
    } else if (id == TABLE_TOKENS) {
        say(out, c->width,
            _("Token ids: each position of the sentence gets the id of "
              "its word; a repeated word repeats its id."));
    } else if (id == TABLE_EMBEDDING && c->reloaded) {
        say(out, c->width,
            _("Embeddings: nn.Embedding(%zu, %zu), one row of %zu numbers "
              "per vocabulary word, read from the trained model's "
              "embedding.weight file (--weights), whose rows are the "
              "vocabulary: shape (%zu, %zu)."),
            c->vocab, D, D, c->vocab, D);
    } else if (id == TABLE_EMBEDDING && c->train) {
        say(out, c->width,
            _("Embeddings: nn.Embedding(%zu, %zu), one row of %zu numbers "
              "per vocabulary word, drawn after torch.manual_seed(%llu) and "
              "then trained with the rest: shape (%zu, %zu)."),
            c->vocab, D, D, (unsigned long long)c->seed, c->vocab, D);
    } else if (id == TABLE_EMBEDDING) {
        say(out, c->width,
            _("Embeddings: nn.Embedding(%zu, %zu) is a table of one "
              "row of %zu numbers per vocabulary word, drawn from a "
              "normal distribution after torch.manual_seed(%llu). "
              "Shape (%zu, %zu)."),
            c->vocab, D, D, (unsigned long long)c->seed, c->vocab, D);
    } else if (id == TABLE_POS_EMBEDDING) {
        say(out, c->width,
            _("Positions (--positions): pos_embedding = "
              "nn.Embedding(%zu, %zu), one row per place in the longest "
              "sentence, added to the words' rows, so the same word at two "
              "places gets two different vectors."),
            t->values.rows, D);
    } else if (id == TABLE_LOGITS) {
        say(out, c->width,
            _("Next-word scores: lm_head = nn.Linear(%zu, %zu, bias=False) "
              "gives each token one score (logit) per vocabulary word: "
              "logits = out @ lm_head.weight^T, (%zu, %zu) @ (%zu, %zu) -> "
              "(%zu, %zu). Row t scores the candidates for word t+1."),
            O, c->vocab, T, O, O, c->vocab, T, c->vocab);
    } else if (id == TABLE_LOSS) {
        explain_loss(out, c, width);
    } else if (id == TABLE_INPUTS) {
        explain_inputs(out, c);
    } else if (id == TABLE_KV_INPUTS) {
        say(out, c->width,
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
    } else if (id == TABLE_QUERIES) {
        if (t->stacked && t->layer > 0)
            say(out, c->width,
                _("Block %d of the stack reads block %d's out instead of "
                  "the inputs: below, \"inputs\" stands for that out (%zu, "
                  "%zu)."),
                t->layer, t->layer - 1, T, D);
        if (fused) {
            say(out, c->width,
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
            say(out, c->width,
                _("(%zu, %zu) -> view (%zu, %zu, %zu) -> transpose (%zu, "
                  "%zu, %zu)"),
                T, O, T, H, hd, H, T, hd);
        } else
            say(out, c->width,
                _("Projections: queries = inputs @ W_query^T, (%zu, "
                  "%zu) @ (%zu, %zu) -> (%zu, %zu): what each token "
                  "looks for. keys (what each token offers) and "
                  "values (what it passes on) likewise."),
                T, D, D, width, T, width);
    } else if (id == TABLE_ATTN_SCORES) {
        say(out, c->width,
            _("Scores: attn_scores = queries @ keys^T, (%zu, %zu) @ "
              "(%zu, %zu) -> (%zu, %zu); row i says how well query i "
              "matches every key.%s"),
            T, width, width, S, T, S,
            c->causal ? _(" Mask: cells where the key comes after the "
                          "query are set to -inf, so a token cannot look "
                          "ahead.")
                      : _(" No mask: every query may look at every key."));
    } else if (id == TABLE_ATTN_WEIGHTS) {
        const char *masked = c->causal ? _("; masked cells get exactly 0") : "";
        if (c->scale)
            say(out, c->width,
                _("Scale and softmax: the scores are divided by "
                  "sqrt(%zu) = %.4f so they do not grow with the "
                  "width, then each row becomes exp(s - max) / sum: "
                  "weights in [0, 1] that sum to 1%s."),
                width, sqrt((double)width), masked);
        else
            say(out, c->width,
                _("Softmax (--no-scale, so no division by "
                  "sqrt(head_dim)): each row becomes exp(s - max) / sum, "
                  "weights in [0, 1] that sum to 1%s."),
                masked);
    } else if (id == TABLE_HEAD_CONTEXT) {
        say(out, c->width,
            _("Context: head_context = attn_weights @ values, "
              "(%zu, %zu) @ (%zu, %zu) -> (%zu, %zu): each token's "
              "new vector is the weighted average of the values it "
              "attends to."),
            T, S, S, width, T, width);
    } else if (id == TABLE_DROPOUT_MASK) {
        say(out, c->width,
            _("Dropout (--attn-dropout %g, training mode): self.dropout "
              "keeps each weight with probability 1 - P and multiplies it by "
              "1 / (1 - P) = %.4f, or drops it (0). dropout_mask holds "
              "these factors, drawn with bernoulli_ from the generator; "
              "attn_weights_dropped = attn_weights * dropout_mask is what "
              "the context reads, so its rows no longer sum to 1."),
            c->attn_dropout, 1.0 / (1.0 - c->attn_dropout));
        explain_batch_masks(out, c);
    } else if (id == TABLE_ATTN_OUT_DROPOUT_MASK) {
        say(out, c->width,
            _("Dropout (--dropout %g, training mode): nn.Dropout on "
              "attn_out before the residual connection. "
              "attn_out_dropout_mask is 0 where a value is dropped and 1 / "
              "(1 - P) = %.4f where it is kept; add_norm1 reads attn_out * "
              "attn_out_dropout_mask."),
            c->dropout, 1.0 / (1.0 - c->dropout));
        explain_batch_masks(out, c);
    } else if (id == TABLE_FFN_OUT_DROPOUT_MASK) {
        say(out, c->width,
            _("The same dropout on ffn_out, drawn after the first mask: out "
              "= LayerNorm(add_norm1 + ffn_out * ffn_out_dropout_mask)."));
    } else if (id == TABLE_ATTN_ENTROPY) {
        say(out, c->width,
            _("The model view of the stack: each block's and head's mean "
              "attention entropy in nats, the mean over the queries of -sum "
              "p ln p over the row's weights (masked cells, 0, add "
              "nothing). 0 for a head that looks at one token; at most ln "
              "%zu = %.2f, for one that spreads its attention evenly over "
              "all %zu keys."),
            S, log((double)S), S);
    } else if (id == TABLE_ATTN_WEIGHTS_AVG) {
        say(out, c->width,
            ngettext("Average: the mean of the %zu head's attention "
                     "weights, as nn.MultiheadAttention returns with "
                     "average_attn_weights=True.",
                     "Average: the mean of the %zu heads' attention "
                     "weights, as nn.MultiheadAttention returns with "
                     "average_attn_weights=True.",
                     H),
            H);
    } else if (id == TABLE_CONCAT_CONTEXT) {
        if (fused) {
            say(out, c->width,
                _("Concatenation: the heads' contexts side by side "
                  "again, the split undone:"));
            say(out, c->width,
                _("(%zu, %zu, %zu) -> transpose (%zu, %zu, %zu) -> view "
                  "(%zu, %zu)"),
                H, T, hd, T, H, hd, T, O);
        } else
            say(out, c->width,
                ngettext("Concatenation: torch.cat of the %zu head's "
                         "(%zu, %zu) contexts along the last dimension -> "
                         "(%zu, %zu).",
                         "Concatenation: torch.cat of the %zu heads' "
                         "(%zu, %zu) contexts along the last dimension -> "
                         "(%zu, %zu).",
                         H),
                H, T, hd, T, O);
    } else if (id == TABLE_ATTN_OUT) {
        say(out, c->width,
            _("Attention output: attn_out = concat_context @ "
              "out_proj.weight^T + out_proj.bias, (%zu, %zu) -> (%zu, %zu)."),
            T, O, T, O);
    } else if (id == TABLE_ADD_NORM1) {
        say(out, c->width,
            _("Add and norm: add_norm1 = LayerNorm(inputs + attn_out). The "
              "residual connection keeps the token's own vector; "
              "LayerNorm then gives every row mean 0 and variance 1 "
              "(times norm1.weight, plus norm1.bias): (%zu, %zu)."),
            T, D);
    } else if (id == TABLE_FFN_HIDDEN) {
        say(out, c->width,
            _("Feed-forward: ffn_hidden = ReLU(add_norm1 @ ff.0.weight^T + "
              "ff.0.bias), (%zu, %zu) -> (%zu, %zu); ReLU sets negative "
              "values to 0. Each token is processed on its own."),
            T, D, T, c->ff);
    } else if (id == TABLE_FFN_OUT) {
        say(out, c->width,
            _("Back to the model width: ffn_out = ffn_hidden @ "
              "ff.2.weight^T + ff.2.bias, (%zu, %zu) -> (%zu, %zu)."),
            T, c->ff, T, D);
    } else if (id == TABLE_OUT && table_step(id, t->variant) == STEP_NORM2) {
        // the block's out: its second add and norm
        say(out, c->width,
            _("Add and norm again: out = LayerNorm(add_norm1 + ffn_out), "
              "(%zu, %zu): the block's output, ready for the next block."),
            T, D);
    } else if (id == TABLE_OUT) {
        say(out, c->width,
            _("Output projection: out = concat_context @ "
              "out_proj.weight^T + out_proj.bias, (%zu, %zu) @ (%zu, "
              "%zu) -> (%zu, %zu), mixing what the heads found."),
            T, O, O, O, T, O);
    } else {
        return; /* a parameter table: the module note covered it */
    }
    fputc('\n', out);
}
