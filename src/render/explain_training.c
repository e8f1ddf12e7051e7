/* explain_training.c: the notes of a trained run (--train): the
 * training, the loss, one update, and the backward pass before the
 * gradients (--grad) (explain_parts.h). */
#include "render/explain_parts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/i18n.h"
#include "model/lesson/trained.h"

/* A trained folder read back (--weights) and trained no further: how
 * its model.json says the model was trained. */
static void explain_read_back(FILE *out, const explain_context *c)
{
    const explain_trained *t = &c->trained;
    if (!t->record) {
        explain_say(out, c->width,
                    _("The model is the trained model that --weights reads "
                      "(its embedding, vocabulary and lm_head included); "
                      "this run trains it no further. Its model.json does "
                      "not say how it was trained. The tables below are "
                      "the model's on the sentence."));
        return;
    }
    char data[512];
    if (t->corpus != NULL)
        snprintf(data, sizeof data, _("the sentences of %s"), t->corpus);
    else
        snprintf(data, sizeof data, "%s", _("one sentence"));
    if (t->steps_before > 0) {
        const size_t last = t->steps - t->steps_before;
        explain_say(
            out, c->width,
            ngettext("The model is the trained model that --weights reads "
                     "(its embedding, vocabulary and lm_head included): its "
                     "model.json says it took %zu steps in all: %zu of an "
                     "earlier training, which it does not describe, then "
                     "%zu step of %s with --lr %g on %s. This run trains it "
                     "no further; the tables below are the model's on the "
                     "sentence.",
                     "The model is the trained model that --weights reads "
                     "(its embedding, vocabulary and lm_head included): its "
                     "model.json says it took %zu steps in all: %zu of an "
                     "earlier training, which it does not describe, then "
                     "%zu steps of %s with --lr %g on %s. This run trains it "
                     "no further; the tables below are the model's on the "
                     "sentence.",
                     last),
            t->steps, t->steps_before, last, t->adam ? "Adam" : "SGD", t->lr,
            data);
        return;
    }
    explain_say(
        out, c->width,
        ngettext("The model is the trained model that --weights reads (its "
                 "embedding, vocabulary and lm_head included): its "
                 "model.json says it took %zu step of %s with --lr %g on %s. "
                 "This run trains it no further; the tables below are the "
                 "model's on the sentence.",
                 "The model is the trained model that --weights reads (its "
                 "embedding, vocabulary and lm_head included): its "
                 "model.json says it took %zu steps of %s with --lr %g on "
                 "%s. This run trains it no further; the tables below are "
                 "the model's on the sentence.",
                 t->steps),
        t->steps, t->adam ? "Adam" : "SGD", t->lr, data);
}

/* What --train did, before the tables (which are the trained model's). */
void explain_training(FILE *out, const explain_context *c)
{
    const char *data =
        c->corpus ? _("the sentences of the corpus, one per step, in turn")
                  : _("this sentence");
    if (c->reloaded && c->steps == 0) {
        explain_read_back(out, c);
        return;
    }
    if (c->reloaded) {
        explain_say(
            out, c->width,
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
    explain_say(
        out, c->width,
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
        explain_say(
            out, c->width,
            _("A word's row is learned from every sentence of the corpus it "
              "appears in, so the tables now depend on the words: what each "
              "word does in the corpus."));
    else
        explain_say(
            out, c->width,
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
        explain_say(
            out, c->width,
            _("Backward pass: loss.backward() goes through the forward pass in "
              "reverse and applies the chain rule at each operation, so every "
              "parameter gets d loss / d parameter, a table of its own shape: "
              "how fast the loss grows when that number grows."));
    if (parts & BACKWARD_LOSS)
        explain_say(
            out, c->width,
            _("Loss: d loss / d logits = (softmax(logits) - onehot(next "
              "word)) / %zu on rows 0 to %zu, and 0 on the last row, which "
              "predicts nothing."),
            T > 1 ? T - 1 : 1, T > 1 ? T - 2 : 0);
    if (parts & BACKWARD_MODULE) {
        explain_say(
            out, c->width,
            _("A linear layer y = x @ W^T + b passes dy back as dx = dy @ W and "
              "takes dW = dy^T @ x (and db = the column sums of dy): "
              "lm_head.weight.grad = dlogits^T @ out, W_query.weight.grad = "
              "dqueries^T @ inputs, and likewise for W_key, W_value and "
              "out_proj."));
        explain_say(
            out, c->width,
            _("Through the attention: with context = P @ values, dP = dcontext "
              "@ values^T and dvalues = P^T @ dcontext; through the softmax, "
              "row by row, dS = P * (dP - rowsum(P * dP))%s; then dqueries = "
              "dS @ keys and dkeys = dS^T @ queries."),
            scaled);
        if (c->causal)
            explain_say(
                out, c->width,
                _("Masked cells get no gradient: their weight P is exactly 0, "
                  "so dS is 0 there, and nothing a token could not see moves "
                  "its scores."));
    }
    if (parts & BACKWARD_EMBEDDING)
        explain_say(
            out, c->width,
            _("Embedding: row w of embedding.weight.grad adds up d inputs over "
              "the places where word w stands (a repeated word collects from "
              "each); a word absent from the sentence gets 0."));
    if (c->positions && (parts & BACKWARD_POSITIONS))
        explain_say(
            out, c->width,
            _("Positions: row t of pos_embedding.weight.grad is row t of d "
              "inputs, and the places past the sentence's end get 0."));
}

/* One update: the optimizer's rule. */
static void explain_update(FILE *out, const explain_context *c)
{
    if (c->adam)
        explain_say(
            out, c->width,
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
        explain_say(
            out, c->width,
            _("SGD (--lr %g): every number of every parameter takes a "
              "step against its gradient, p -= lr * grad; a small enough "
              "step lowers the loss on that step's sentence."),
            c->lr);
}

/* The loss table (N + 1 rows), what one step does, and without --grad
 * the backward pass the steps ran. */
void explain_loss(FILE *out, const explain_context *c, const table *loss,
                  size_t width)
{
    explain_say(
        out, c->width,
        _("Loss: next-word cross-entropy, F.cross_entropy(logits[:-1], "
          "ids[1:]). Softmax turns row t of the logits into probabilities "
          "p, and the loss is the mean over the %zu predictions of -log "
          "p(word t+1): 0 for a sure right guess, log(%zu) = %.4f for a "
          "uniform one."),
        c->tokens > 1 ? c->tokens - 1 : 1, c->vocab, log((double)c->vocab));
    const bool shown = trained_loss_ends_shown(loss);
    if (c->steps == 0 && !shown) {
        // no step: no update, and the backward pass ran for --grad alone
        explain_say(out, c->width,
                    _("No step is taken, so the one row, step0, is the "
                      "sentence's loss at the model's parameters."));
        return;
    }
    if (c->steps > 0)
        explain_say(out, c->width,
                    _("Row step i is the loss before update i; the last row "
                      "is the sentence's loss at the final parameters. Each "
                      "step: forward pass, loss, opt.zero_grad(), "
                      "loss.backward(), then the update."));
    if (shown)
        explain_say(
            out, c->width,
            _("The steps train on the corpus, so the last row, shown, is this "
              "sentence's loss at the final parameters, no step's."));
    if (c->steps == 0)
        return;
    explain_update(out, c);
    if (!c->grad) {
        explain_backward(out, c, width,
                         BACKWARD_START | BACKWARD_LOSS | BACKWARD_MODULE |
                             BACKWARD_EMBEDDING | BACKWARD_POSITIONS);
        explain_say(out, c->width,
                    _("--grad shows these gradients as tables."));
    }
}

/* The note before a gradient table t (--grad), or false for none: what
 * the gradients are before a variant's first, then the part of the
 * backward pass that makes each: the loss's (before logits.grad, the
 * first the backward pass makes), the embedding's, the positions', the
 * module's (before its first parameter). */
bool explain_grad(FILE *out, const table *t, const table *prev,
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
        explain_say(
            out, c->width,
            _("Gradients (--grad): one more forward and backward pass on the "
              "sentence at the final parameters, with no update. Each "
              "<name>.grad table is d loss / d <name>: how fast the loss "
              "changes as each number changes a little; 0: not at all, to "
              "first order."));
    explain_backward(out, c, width, parts);
    return true;
}

/* Most steps the note on generated lists. */
#define STEPS_SAID 10

void explain_picking(FILE *out, const table *t, const explain_context *c)
{
    const size_t N = t->values.rows, W = t->values.cols;
    char text[2048];
    if (!c->how.sample || t->values.v == NULL || W < 5) {
        explain_note(out, c->width,
                     _("Greedy: each step takes the likeliest token of the "
                       "softmax of its logits (probability and p_logits "
                       "are the same)."));
        return;
    }
    // --top-k 0 keeps every token: the count the first step kept
    const size_t kept =
        c->how.top_k != 0 || N == 0 ? c->how.top_k : (size_t)t->values.v[3];
    snprintf(text, sizeof text,
             _("Sampling, as generate(do_sample=True): the logits divided by "
               "the temperature %g (below 1 the distribution sharpens, above "
               "1 it flattens), top-k keeps the %zu likeliest, top-p the "
               "likeliest whose probabilities add up to %g; softmax over "
               "what is left, then one draw (torch.multinomial). Each step: "
               "the tokens left after top-k and top-p, and the token's "
               "probability in the model's softmax, then after the "
               "warpers:"),
             c->how.temperature, kept, c->how.top_p);
    size_t len = strlen(text);
    for (size_t i = 0; i < N && i < STEPS_SAID && len + 64 < sizeof text; i++) {
        const float *row = t->values.v + i * W;
        const int w = snprintf(text + len, sizeof text - len,
                               " %zu: %.0f, %.0f, %.4g → %.4g%s", i + 1,
                               (double)row[3], (double)row[4], (double)row[2],
                               (double)row[1], i + 1 < N ? ";" : ".");
        len += w > 0 ? (size_t)w : 0;
    }
    if (N > STEPS_SAID && len + 8 < sizeof text)
        snprintf(text + len, sizeof text - len, " ...");
    explain_note(out, c->width, text);
}

void explain_lesson_generated(FILE *out, const table *t,
                              const explain_context *c)
{
    const size_t N = t->values.rows;
    explain_say(
        out, c->width,
        _("Generation: the trained model writes one word per step, "
          "from its vocabulary. The lesson's modules keep no KV "
          "cache: each step runs the whole sequence so far again, "
          "through the embedding, the module and lm_head, and takes the "
          "last row's logits, so a step computes every row of each "
          "table, not one; a checkpoint's cache, with --model, "
          "computes only the new row. The last of these %zu steps "
          "ran %zu words."),
        N, c->tokens + (N > 0 ? N - 1 : 0));
    // what a cache would save: the first step runs the prompt's T rows,
    // step s its T + s; a cache computes the T, then one a step
    const size_t T = c->tokens, fed = N > 0 ? N - 1 : 0;
    const size_t rows = N > 0 ? T + fed * T + fed * (fed + 1) / 2 : 0;
    const size_t cached = N > 0 ? T + fed : 0;
    explain_say(out, c->width,
                _("What a cache would save: these %zu steps computed %zu rows "
                  "of queries, keys and values in each head, every position "
                  "again at each step. A KV cache would compute %zu of them, "
                  "the prompt's %zu and then one a step, %zu fewer, and keep "
                  "every position's keys and values instead: kv_cache_size "
                  "counts them with --kv-steps, and the steps' tables show "
                  "the rows a cache would have made."),
                N, rows, cached, T, rows - cached);
    explain_picking(out, t, c);
}
