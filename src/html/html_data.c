/* html_data.c: the --html page's data, as JSON.
 *
 *   {"masked": true, "scaled": true, "cross": false,
 *    "queries": ["the", ...], "keys": ["the", ...],
 *    "steps": [...],                        (the input's steps)
 *    "variants": [{"name": "fused", "divisor": M, "steps": [...],
 *                  "heads": [{"head": 0, "scores": M,
 *                             "exps": M, "rowMax": M, "rowSum": M,
 *                             "queries": M, "keys": M}, ...]}, ...]}
 *
 * Each M is {"rows": r, "cols": c, "f32": base64}: the r x c float32
 * values row by row, each as its four bytes, least significant first, so
 * the page reads back exactly the program's floats (it writes them as the
 * CSV does, shortest round-trip decimal). exps, rowMax and rowSum are the
 * softmax's own intermediate values (softmax_steps). The attention
 * weights are exps * (1 / rowSum) in float, as softmax_rows makes them:
 * the page computes them so. Should a head's weights ever differ from
 * that, bit for bit, they are written too ("weights": M), and the page
 * takes them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "html/html_parts.h"
#include "base/i18n.h"
#include "html/json_out.h"
#include "numerics/tensor.h"
#include "render/colormap.h"

/* ["the","cat"] */
static void json_labels(FILE *out, const labels *l)
{
    fputc('[', out);
    for (size_t i = 0; i < l->n; i++) {
        if (i > 0)
            fputc(',', out);
        json_string(out, l->s[i]);
    }
    fputc(']', out);
}

static void json_matrix(FILE *out, const table *t)
{
    if (t == NULL)
        fputs("null", out);
    else
        json_floats(out, t->values.v, t->values.rows, t->values.cols);
}

/* ,"exps":M,"rowMax":M,"rowSum":M: the softmax of scores, step by step
 * (and ,"weights":M should the weights not follow from them). */
/* Whether weights (T, S) are exps * (1 / sums) bit for bit. */
static bool weights_follow(const matrix *weights, const matrix *exps,
                           const float *sums)
{
    for (size_t t = 0; t < exps->rows; t++) {
        const float inverse = 1.0f / sums[t];
        for (size_t s = 0; s < exps->cols; s++) {
            const float w = *matrix_at(exps, t, s) * inverse;
            if (memcmp(&w, matrix_at(weights, t, s), sizeof w) != 0)
                return false;
        }
    }
    return true;
}

static int json_softmax(FILE *out, const matrix *scores, const matrix *weights,
                        float divisor, mx_error *err)
{
    // exps is (T, S), row_max and row_sum (T)
    const size_t T = scores->rows, S = scores->cols;
    matrix exps = {0};
    float *row_max = calloc(T > 0 ? T : 1, sizeof *row_max);
    float *row_sum = calloc(T > 0 ? T : 1, sizeof *row_sum);
    int rc = -1;
    if (row_max == NULL || row_sum == NULL) {
        err_nomem(err, _("the --html page's data"));
        goto done;
    }
    if (matrix_alloc(&exps, T, S, N_("the --html page's data"), err) != 0)
        goto done;
    softmax_steps(&exps, row_max, row_sum, scores, divisor);
    if (!weights_follow(weights, &exps, row_sum)) {
        fputs(",\n\"weights\":", out);
        json_floats(out, weights->v, T, S);
    }
    fputs(",\n\"exps\":", out);
    json_floats(out, exps.v, T, S);
    fputs(",\n\"rowMax\":", out);
    json_floats(out, row_max, 1, T);
    fputs(",\n\"rowSum\":", out);
    json_floats(out, row_sum, 1, T);
    rc = 0;
done:
    matrix_free(&exps);
    free(row_max);
    free(row_sum);
    return rc;
}

/* The variant of w0, the attn_weights table of its first head shown
 * (or its block of a stack, named as the headings name it: "block.1"):
 * its heads shown, of the run's heads (the most of a variant). */
static int json_variant(FILE *out, const trace *tr, const table *w0,
                        size_t heads, const html_page *page, mx_error *err)
{
    const variant_id variant = w0->variant;
    char place[16];
    fputs("{\"name\":", out);
    json_string(out, table_place(place, sizeof place, w0));
    const table *q0 = trace_find_beside(tr, w0, 0, TABLE_QUERIES);
    const float divisor =
        score_divisor(q0 != NULL ? q0->values.cols : 1, page->scaled);
    fputs(",\"divisor\":", out);
    json_floats(out, &divisor, 1, 1);
    fputs(",\n\"steps\":", out);
    if (html_write_steps(out, tr, variant, w0->layer, page, err) != 0)
        return -1;
    fputs(",\n\"heads\":[", out);
    // the heads shown (--show-heads may leave some out, head 0 too)
    for (int h = w0->head; h < (int)heads; h++) {
        const table *w = trace_find_beside(tr, w0, h, TABLE_ATTN_WEIGHTS);
        const table *s = trace_find_beside(tr, w0, h, TABLE_ATTN_SCORES);
        if (w == NULL || s == NULL)
            continue;
        fprintf(out,
                "%s{\"head\":%d,\n\"scores\":", h > w0->head ? ",\n" : "\n", h);
        json_matrix(out, s);
        if (json_softmax(out, &s->values, &w->values, divisor, err) != 0)
            return -1;
        fputs(",\n\"queries\":", out);
        json_matrix(out, trace_find_beside(tr, w0, h, TABLE_QUERIES));
        fputs(",\n\"keys\":", out);
        json_matrix(out, trace_find_beside(tr, w0, h, TABLE_KEYS));
        fputc('}', out);
    }
    fputc(']', out);
    html_write_training(out, tr, w0);
    fputc('}', out);
    return 0;
}

/* The page's words (page.js shows each through tr()): written with their
 * translations as "labels", so the page speaks the run's language. */
static const char *const page_words[] = {
    N_("View"),
    N_("Variant"),
    N_("Heads"),
    N_("Show"),
    N_("Head"),
    N_("Query"),
    N_("Key"),
    N_("Head view"),
    N_("Matrix view"),
    N_("Neuron view"),
    N_("Step through"),
    N_("Model view"),
    /* TRANSLATORS: the --html model view; {0} is a layer's name (h.3,
     * block.1, fused), {1} a head */
    N_("{0} head {1}: open it in the head and matrix views"),
    N_("Every layer's heads, weights from 0 to 1. Click a head, or move "
       "with the arrow keys and press Enter, to open it in the head and "
       "matrix views."),
    N_("Previous"),
    N_("Next"),
    /* TRANSLATORS: the --html page's theme menu and its choices */
    N_("Theme"),
    N_("Automatic"),
    N_("Light"),
    N_("Dark"),
    N_("High contrast"),
    /* TRANSLATORS: the --html page's menu of the languages it is
     * installed in */
    N_("Language"),
    /* TRANSLATORS: the --html page's button of its presentation mode
     * (one view, the whole window, large type); p is its key */
    N_("Present (p)"),
    N_("Escape leaves the presentation"),
    N_("This run has no attention weights."),
    /* TRANSLATORS: {0} and {1} are numbers */
    N_("This run has {0} lines, more than {1} can be drawn at once: hover or "
       "focus (Tab) a token to draw its lines."),
    N_("Hover or focus (Tab) a token to follow its lines; its weights appear "
       "beside the other column, one per shown head."),
    N_("A click keeps its lines shown; the arrow keys move from token to "
       "token; a double-click on a line shows only its head (again: every "
       "head)."),
    /* TRANSLATORS: the --html step-through's counter; {0} and {1} are
     * numbers; keep the arrows; Space, Enter and PageDown are keys (as
     * the keyboard's keys are named in your language) */
    N_("step {0} of {1} (→, Space, Enter or PageDown: next; ←: back)"),
    /* TRANSLATORS: the titles of the --html page's steps */
    N_("Tokens"),
    N_("Embeddings"),
    N_("The module and its parameters"),
    N_("Queries, keys and values"),
    N_("Scores"),
    N_("Attention weights"),
    N_("Context"),
    N_("Concatenation"),
    N_("Output"),
    N_("Add and norm"),
    N_("Feed-forward"),
    N_("Add and norm again"),
    /* TRANSLATORS: the titles of a pre-norm block's (GPT-2's, Llama's)
     * ln_1 and ln_2 steps: the normalisation comes before the sublayer,
     * the residual sum after it */
    N_("Normalisation before attention"),
    N_("Normalisation before the feed-forward"),
    N_("Backward pass"),
    N_("Training: the loss at each step"),
    N_("heads: {0}"),
    /* TRANSLATORS: the live page's head view: a button on each head
     * that runs the model again with that head's output set to zero
     * (--ablate), and the mark of such a head in the model view */
    N_("Switch this head off"),
    N_("Switch this head on"),
    N_("{0}: switched off"),
    N_("Ablated heads (--ablate-mode)"),
    N_("causal mask"),
    N_("no mask"),
    N_("scores scaled by 1/√head_dim"),
    N_("scores not scaled"),
    /* TRANSLATORS: between the parts of the --html page's summary line */
    N_(", "),
    N_("head {0}"),
    /* TRANSLATORS: the --html head view's column titles */
    N_("queries"),
    N_("keys"),
    N_("keys (--kv)"),
    /* TRANSLATORS: the --html head view's readout: {0} a token's number,
     * {1} the token, {2} the weights of the other side's tokens */
    N_("query {0} \"{1}\" → {2}"),
    N_("key {0} \"{1}\" → {2}"),
    /* TRANSLATORS: the --html head view's names for a screen reader: a
     * token ({0} its number, {1} the token), the lines of a variant or
     * layer ({0}, kept as is) */
    N_("query {0}: {1}"),
    N_("key {0}: {1}"),
    N_("attention lines of {0}"),
    /* TRANSLATORS: the --html matrix view; {0} is a variant's name, {1} a
     * head, {2} and {4} token numbers, {3} and {5} the tokens, {6}
     * attn_weights or attn_scores (kept as is), {7} the value (kept last) */
    N_("{0} head {1}, query {2} \"{3}\", key {4} \"{5}\": {6} = {7}"),
    /* TRANSLATORS: {3} x {4} are the rows and columns of a heat map */
    N_("{0} head {1}: {2}, {3} x {4}; arrow keys move a cursor whose value "
       "is written above"),
    /* TRANSLATORS: the corner of a matrix: queries down, keys across */
    N_("query \\ key"),
    /* TRANSLATORS: the ends of the --html matrix view's colour legend */
    N_("lowest score of the head"),
    N_("lowest weight of the head"),
    N_("lowest of its row"),
    N_("highest"),
    N_("A double-click on a map shows only its head (again: every head)."),
    N_("Queries down, keys across; grey: masked. Point at a value, or focus "
       "a map (Tab) and move with the arrow keys, for its exact value."),
    N_("Cells show two decimals; hover or focus a cell for its exact value."),
    N_("Hover or focus a cell for its exact value."),
    /* TRANSLATORS: the --html neuron view; q and k name the vectors */
    N_("query q"),
    N_("key k"),
    N_("sum of the products = the raw score (attn_scores)"),
    N_("the key comes after the query: the score is -inf before softmax, its "
       "weight exactly 0"),
    /* TRANSLATORS: {0} is head_dim, {1} its square root */
    N_("scaled: score / √{0} ({1})"),
    N_("not scaled (--no-scale): score / 1"),
    N_("the row's largest scaled score (max)"),
    N_("exp(scaled − max)"),
    N_("sum of the row's exps"),
    N_("1 / sum"),
    N_("exp × (1 / sum)"),
    N_("attention weight (attn_weights)"),
    /* TRANSLATORS: the columns of a softmax row */
    N_("key"),
    N_("score"),
    N_("scaled"),
    N_("weight"),
    /* TRANSLATORS: {0} is a query's number, {1} its token */
    N_("Softmax of query {0} \"{1}\": its weights sum to 1"),
    N_("Every number is the program's float32 value, written as its CSV "
       "writes it (the shortest decimal that reads back as the same float). "
       "The products, the scaled scores, 1 / sum and exp × (1 / sum) are "
       "float32 operations done here exactly as the program does them; the "
       "score, the exps, the sum and the weight are the program's own. The "
       "score is summed by the program, in its own order, so a sum done by "
       "hand may differ in the last bit."),
    /* TRANSLATORS: the --html page on paper; {0} is a variant's name */
    N_("Step by step: {0}"),
    /* TRANSLATORS: {0} is a view's name (lowercased), {1} a variant's name,
     * {2} empty or what the view shows in parentheses */
    N_("Above: the {0} of {1}{2}. Below: every step of {1}."),
    /* TRANSLATORS: starts with a space; {0} {1} {2} are numbers */
    N_(" (head {0}, query {1}, key {2})"),
    /* TRANSLATORS: the live --html page's editor (editor.js) */
    N_("Edit the run"),
    N_("Any change recomputes every table here, in the browser, with the "
       "program's own code."),
    N_("Sentence"),
    N_("Keys and values from another sentence (--kv; empty: none)"),
    N_("Seed (--seed)"),
    N_("Width of the embeddings (--d-model)"),
    N_("Width of the output (--d-out)"),
    N_("Number of heads (--heads)"),
    N_("Variants (--variant)"),
    N_("Attention"),
    N_("Causal mask (off: --no-causal)"),
    N_("Scores scaled by 1/√head_dim (off: --no-scale)"),
    N_("Biases in W_query, W_key, W_value (--qkv-bias)"),
    N_("Tokens (--tokens)"),
    N_("Blocks stacked (--layers, with block; empty: one)"),
    N_("Learned positions added to the embeddings (--positions)"),
    N_("Training (--train)"),
    N_("Steps (0: no training)"),
    N_("Optimizer (--optimizer)"),
    N_("Learning rate (--lr; empty: the optimizer's default)"),
    N_("Gradients at the final parameters (--grad)"),
    /* TRANSLATORS: the live page's status while it trains; {0} is a
     * number of steps */
    N_("Training {0} steps…"),
    /* TRANSLATORS: the live page's status while it recomputes a long
     * sentence; {0} is a number of tokens */
    N_("Recomputing {0} tokens…"),
    /* TRANSLATORS: {0} and {1} are numbers of tokens; the command line
     * is shown below the message */
    N_("A sentence of {0} tokens is longer than the {1} this page "
       "recomputes; run it on the command line (below)."),
    /* TRANSLATORS: the choices of --tokens words|chars */
    N_("words"),
    N_("characters"),
    N_("The same run on the command line:"),
    /* TRANSLATORS: {0} is a number of milliseconds */
    N_("Recomputed in {0} ms."),
    N_("Loading the page's core…"),
    N_("This page cannot recompute: the program that wrote it was built "
       "without its WebAssembly core. Run mha-explain again to change the "
       "run."),
    N_("This run cannot be edited on the page (it reads files, or uses "
       "--draw or --tables)."),
    N_("This browser cannot run the page's WebAssembly core; the page shows "
       "the run it was written with."),
    /* TRANSLATORS: {0} is the browser's description of the fault */
    N_("The page's core stopped ({0}); change a setting to try again."),
    /* TRANSLATORS: the editor of a trained model's page; {0} is a number
     * of words, which the words themselves follow */
    N_("This trained model knows {0} words; a sentence of them runs over "
       "it, as --weights runs it:"),
    /* TRANSLATORS: {0} is the options that made the words: --lower
     * --punct split */
    N_("Words are made by {0}, as the training made them."),
    N_("The model is in this page only: --csv-dir DIR saves it as a folder "
       "for --weights."),
    /* TRANSLATORS: the live --html page's "Open a model" (model_open.js):
     * a checkpoint folder on the reader's computer run in the page */
    N_("Open a model"),
    N_("Choose a checkpoint folder on this computer, or drop it here "
       "(config.json, model.safetensors, vocab.json and merges.txt). It is "
       "read here; nothing is sent anywhere."),
    /* TRANSLATORS: {0} is a folder's name */
    N_("This page was made from the folder {0}: choose it to run the model "
       "here."),
    N_("Text"),
    /* TRANSLATORS: {0} is a file, {1} its size, {2} the largest size */
    N_("{0}: {1} bytes, more than the {2} bytes the page can hold"),
    /* TRANSLATORS: {0} is a file's name, {1} and {2} numbers */
    N_("Reading {0} ({1} of {2})…"),
    /* TRANSLATORS: {0} is the folder of the model: the status while a
     * folder's first run reads its model (and says what is wrong with
     * it) */
    N_("Loading the model in {0}…"),
    /* TRANSLATORS: the legend of a trained model's training fields */
    N_("Keep training (--train, on --corpus)"),
    /* TRANSLATORS: {0} is a number of sentences, {1} the corpus's file,
     * {2} its column */
    N_("The page carries the {0} sentences of {1} (column {2}): more steps "
       "of training on them start from this trained model, as --weights "
       "DIR --train N --corpus FILE does."),
    /* TRANSLATORS: the mark on a word of the sentence */
    N_("Not in the trained vocabulary: the program refuses the sentence."),
    N_("Not in the trained vocabulary: read as <unk>."),
};

/* "text":"translation", with a comma after it. */
static void json_word(FILE *out, const char *text, const char *translation)
{
    json_string(out, text);
    fputc(':', out);
    json_string(out, translation);
    fputs(",\n", out);
}

/* The words of "Open a model" in the page of a checkpoint's run, whose
 * worker reads Llama-style and BERT folders (model_runner.js): only
 * there, as the worker is. */
static const char *const checkpoint_words[] = {
    /* TRANSLATORS: the page of a --model run, whose worker reads
     * Llama-style and BERT folders too */
    N_("Choose a checkpoint folder on this computer, or drop it here "
       "(config.json, its .safetensors files, and tokenizer.json or "
       "vocab.json and merges.txt). It is read here; nothing is sent "
       "anywhere."),
    /* TRANSLATORS: {0} and {1} are numbers: the model's layers are read
     * one after another */
    N_("Loading layer {0} of {1}…"),
    /* TRANSLATORS: the model runs over the typed text */
    N_("Running the model…"),
};

/* Whether the run is a checkpoint's (--model): its tables name the
 * model. */
static bool checkpoint_run(const trace *tr)
{
    for (size_t i = 0; i < trace_count(tr); i++)
        if (table_model_name(trace_at(tr, i)) != NULL)
            return true;
    return false;
}

/* "labels":{"Head view":"Vista de cabezas",...}, the counts of the
 * summary line in the plural form of this run's numbers: tokens, key/value
 * tokens (kv) and heads. */
static void json_page_words(FILE *out, const trace *tr, size_t tokens,
                            size_t kv, size_t heads, bool layered)
{
    fputs("\"labels\":{", out);
    json_word(out, "{0} tokens", ngettext("{0} token", "{0} tokens", tokens));
    json_word(out, "{0} key/value tokens (--kv)",
              ngettext("{0} key/value token (--kv)",
                       "{0} key/value tokens (--kv)", kv));
    json_word(out, "{0} heads", ngettext("{0} head", "{0} heads", heads));
    for (size_t i = 0; i < sizeof page_words / sizeof page_words[0]; i++) {
        if (i > 0)
            fputs(",\n", out);
        json_string(out, page_words[i]);
        fputc(':', out);
        json_string(out, _(page_words[i]));
    }
    html_write_training_words(out, tr);
    html_write_maps_words(out, tr);
    html_write_lens_words(out, tr);
    for (size_t i = 0; checkpoint_run(tr) &&
                       i < sizeof checkpoint_words / sizeof checkpoint_words[0];
         i++) {
        fputs(",\n", out);
        json_string(out, checkpoint_words[i]);
        fputc(':', out);
        json_string(out, _(checkpoint_words[i]));
    }
    // the buttons of a checkpoint's layers or a stack's blocks: "Layer"
    // (page.js), where a lesson's run says "Variant"
    if (layered) {
        fputs(",\n", out);
        json_string(out, "Layer");
        fputc(':', out);
        json_string(out, _("Layer"));
    }
    fputs("},\n", out);
}

/* The 256 colours of a map (colormap.h) as base64 of their bytes, red,
 * green and blue of each in turn (768 bytes: no padding). */
static void json_colormap(FILE *out, const char *name)
{
    colormap m;
    colormap_find(&m, name);
    fputc('"', out);
    base64_out b = {.out = out};
    for (int i = 0; i < COLORMAP_ENTRIES; i++) {
        rgb c = colormap_color(&m, (i + 0.5) / COLORMAP_ENTRIES);
        base64_put(&b, c.r);
        base64_put(&b, c.g);
        base64_put(&b, c.b);
    }
    base64_end(&b);
    fputc('"', out);
}

/* "colors": the matrix view's colours as --plot draws them
 * (plot_style.h): the scale ("table", "row" or "fixed"), the map for
 * values of one sign and for both, whether both signs are centred on 0,
 * and the numbers in the cells. */
static void json_colors(FILE *out, const plot_style *look)
{
    plot_style d = plot_style_default();
    if (look == NULL)
        look = &d;
    static const char *const scales[] = {
        [SCALE_TABLE] = "table", [SCALE_ROW] = "row", [SCALE_FIXED] = "fixed"};
    colormap m;
    bool given = look->cmap != NULL && colormap_find(&m, look->cmap);
    fprintf(out,
            "\"colors\":{\"scale\":\"%s\",\"numbers\":%s,"
            "\"decimals\":%d,\"centred\":%s,\n\"map\":",
            scales[look->scale], look->numbers ? "true" : "false",
            look->decimals,
            !given || colormap_diverging(&m) ? "true" : "false");
    json_colormap(out, given ? look->cmap : PLOT_CMAP);
    fputs(",\n\"mapBoth\":", out);
    json_colormap(out, given ? look->cmap : PLOT_CMAP_BOTH_SIGNS);
    fputs("},\n", out);
}

/* Whether t is the attn_weights of its variant's (or layer's) first head
 * shown: head 0, or the lowest --show-heads kept. */
static bool first_head_shown(const trace *tr, const table *t)
{
    if (t->id != TABLE_ATTN_WEIGHTS || t->head == NO_HEAD || t->grad ||
        t->step > 0)
        return false;
    for (int h = 0; h < t->head; h++)
        if (trace_find_beside(tr, t, h, TABLE_ATTN_WEIGHTS) != NULL)
            return false;
    return true;
}

/* The most heads a variant (or layer) of the run shows, of head numbers
 * below `bound`: its count of heads' attn_weights, which --show-heads may
 * make fewer than its largest head number (the summary line's "{0}
 * heads"). */
static size_t heads_shown(const trace *tr, size_t bound)
{
    size_t most = 0;
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        if (!first_head_shown(tr, t))
            continue;
        size_t n = 0;
        for (int h = t->head; h < (int)bound; h++)
            n += trace_find_beside(tr, t, h, TABLE_ATTN_WEIGHTS) != NULL;
        most = n > most ? n : most;
    }
    return most;
}

int html_write_data(FILE *out, const trace *tr, const html_page *page,
                    mx_error *err)
{
    const table *inputs = trace_find_tokens(tr);
    const table *kv = trace_find_input(tr, TABLE_KV_INPUTS);
    size_t heads = 0;                   /* the largest head number + 1 */
    bool layered = false, flat = false; /* a checkpoint's layers or a
                                           stack's blocks; a variant */
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        if (t->step > 0) // a generation step's: the Generation view's
            continue;
        if (t->id == TABLE_ATTN_WEIGHTS && t->head != NO_HEAD && !t->grad &&
            (size_t)t->head + 1 > heads)
            heads = (size_t)t->head + 1;
        if (t->id == TABLE_ATTN_WEIGHTS && !t->grad) {
            layered |= table_model_layer(t) >= 0;
            flat |= table_model_layer(t) < 0;
        }
    }
    fputc('{', out);
    json_page_words(out, tr, inputs->rows->n, kv != NULL ? kv->rows->n : 0,
                    heads_shown(tr, heads), layered && !flat);
    json_colors(out, page->look);
    html_write_maps(out, tr);
    if (html_write_generation(out, tr, err) != 0 ||
        html_write_lens(out, tr, err) != 0)
        return -1;
    fprintf(out, "\"masked\":%s,\"scaled\":%s,\"cross\":%s,\n\"queries\":",
            page->masked ? "true" : "false", page->scaled ? "true" : "false",
            kv != NULL ? "true" : "false");
    json_labels(out, inputs->rows);
    fputs(",\n\"keys\":", out);
    json_labels(out, kv != NULL ? kv->rows : inputs->rows);
    fputs(",\n\"steps\":", out);
    if (html_write_steps(out, tr, VARIANT_INPUT, 0, page, err) != 0)
        return -1;
    fputs(",\n\"variants\":[", out);

    /* variants in trace order: each has one attn_weights table of its
     * first head shown */
    size_t n = 0;
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        if (!first_head_shown(tr, t))
            continue;
        if (n++ > 0)
            fputs(",\n", out);
        if (json_variant(out, tr, t, heads, page, err) != 0)
            return -1;
    }
    fputs("]}", out);
    return 0;
}
