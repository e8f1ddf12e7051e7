/* html_lens.c: --logit-lens's tables in the --html page's data
 * (html_parts.h), for the Logit lens view (page/lens.js, in such a page
 * only).
 *
 *   "logitLens":{"layers":["h.0","h.1"],"tokens":["the"," cat"],
 *     "next":[["<a6>","4"],[" sat","."]],   the likeliest next token
 *     "p":M,                               its probability (L x T)
 *     "lmHeadAlone":true}                  only for a model without a
 *                                          final norm (model/lm.h)
 *
 * Layer L's table logit_lens (model/intervene/logit_lens.h, T·k x 1)
 * has position t's k likeliest next tokens at rows t·k to t·k + k - 1,
 * the likeliest first, each labelled "token → next": the grid takes row
 * t·k of each, its next token and its probability. A layer is named as
 * the page names its heads' layer (its attn_weights' place). M is a
 * matrix as every matrix of the page (html_data.c). */
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "html/html_parts.h"
#include "model/family.h"

/* The page's words of the Logit lens view (lens.js). */
static const char *const lens_words[] = {
    /* TRANSLATORS: the --html page's view of --logit-lens */
    N_("Logit lens"),
    N_("What the model would say next if it stopped after each layer (the "
       "final norm and lm_head applied to the residual stream there): the "
       "likeliest next token at each position, and its probability. Click "
       "a cell, or move with the arrow keys and press Enter, to open its "
       "layer in the head view."),
    N_("What the model would say next if it stopped after each layer (its "
       "lm_head applied to the residual stream there: this model has no "
       "final norm): the likeliest next token at each position, and its "
       "probability. Click a cell, or move with the arrow keys and press "
       "Enter, to open its layer in the head view."),
    /* TRANSLATORS: {0} a layer, {1} a position's token, {2} the
     * likeliest next token there, {3} its probability */
    N_("{0}, after {1}: {2} with probability {3}; open the layer"),
    /* TRANSLATORS: the axes of the logit lens grid */
    N_("layer"),
    N_("position"),
    /* TRANSLATORS: above the logit lens grid of a lesson model's page,
     * whose editor recomputes in a core without the lens */
    N_("This lens is the run of the command line the page was written "
       "with, over its sentence: the page's core makes no logit lens, so "
       "a change in the editor starts a run without it."),
    /* TRANSLATORS: the Logit lens view of a lesson model's page once its
     * editor recomputed the run; {0} is the sentence the page was written
     * with */
    N_("The logit lens was the run of the command line the page was "
       "written with, over its sentence \"{0}\": the page's core makes "
       "none, so the run on view has no lens. mha-explain with "
       "--logit-lens on the command line makes it."),
};

bool html_has_lens(const trace *tr)
{
    for (size_t i = 0; i < trace_count(tr); i++)
        if (trace_at(tr, i)->id == TABLE_LOGIT_LENS && !trace_at(tr, i)->grad)
            return true;
    return false;
}

void html_write_lens_words(FILE *out, const trace *tr)
{
    if (!html_has_lens(tr))
        return;
    for (size_t i = 0; i < sizeof lens_words / sizeof *lens_words; i++) {
        fputs(",\n", out);
        json_string(out, lens_words[i]);
        fputc(':', out);
        json_string(out, _(lens_words[i]));
    }
}

/* The label's next token: what follows "token → " (the whole label
 * when it does not start so). */
static const char *next_of(const char *label, const char *token)
{
    static const char arrow[] = " \u2192 ";
    const size_t n = strlen(token);
    if (strncmp(label, token, n) == 0 &&
        strncmp(label + n, arrow, sizeof arrow - 1) == 0)
        return label + n + sizeof arrow - 1;
    return label;
}

int html_write_lens(FILE *out, const trace *tr, mx_error *err)
{
    const labels *tokens = trace_find_tokens(tr)->rows;
    const size_t T = tokens->n;
    size_t L = 0;
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        L += t->id == TABLE_LOGIT_LENS && !t->grad && t->values.rows >= T &&
             T > 0 && t->values.rows % T == 0;
    }
    if (L == 0)
        return 0;
    const table **lens = calloc(L, sizeof *lens);
    float *p = malloc(L * T * sizeof *p);
    if (lens == NULL || p == NULL) {
        free(lens);
        free(p);
        return err_nomem(err, _("the table list"));
    }
    L = 0;
    for (size_t i = 0; i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        if (t->id == TABLE_LOGIT_LENS && !t->grad && t->values.rows >= T &&
            T > 0 && t->values.rows % T == 0)
            lens[L++] = t;
    }
    fputs("\"logitLens\":{\"layers\":[", out);
    for (size_t l = 0; l < L; l++) {
        const table_key key = {lens[l]->variant, lens[l]->layer, 0,
                               TABLE_ATTN_WEIGHTS, false};
        const table *w = trace_find(tr, &key);
        char place[16];
        fputs(l > 0 ? "," : "", out);
        json_string(out,
                    table_place(place, sizeof place, w != NULL ? w : lens[l]));
    }
    fputs("],\n\"tokens\":[", out);
    for (size_t t = 0; t < T; t++) {
        fputs(t > 0 ? "," : "", out);
        json_string(out, tokens->s[t]);
    }
    fputs("],\n\"next\":[", out);
    for (size_t l = 0; l < L; l++) {
        const size_t k = lens[l]->values.rows / T;
        fputs(l > 0 ? ",\n[" : "[", out);
        for (size_t t = 0; t < T; t++) {
            fputs(t > 0 ? "," : "", out);
            json_string(out, next_of(lens[l]->rows->s[t * k], tokens->s[t]));
            p[l * T + t] = lens[l]->values.v[t * k];
        }
        fputc(']', out);
    }
    fputs("],\n\"p\":", out);
    json_floats(out, p, L, T);
    // a model without a final norm (lm.h): the view says the lm_head alone
    const model_family *family = tr->family;
    if (family != NULL && family->lm != NULL && family->lm->lm_head_alone)
        fputs(",\"lmHeadAlone\":true", out);
    fputs("},\n", out);
    free(lens);
    free(p);
    return 0;
}
