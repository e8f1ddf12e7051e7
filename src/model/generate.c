/* generate.c: the generation loop over a family's step (generate.h). */
#include "model/generate.h"

#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"

void generation_free(generation *g)
{
    free(g->tokens);
    *g = (generation){0};
}

/* The GENERATE_TOP likeliest of p (V): the larger probability first, then
 * the smaller id. */
static void top_tokens(generated_token *t, const float *p, size_t V)
{
    size_t n = 0;
    for (size_t v = 0; v < V; v++) {
        size_t at = n;
        while (at > 0 && p[v] > t->top_p[at - 1])
            at--;
        if (at >= GENERATE_TOP)
            continue;
        if (n < GENERATE_TOP)
            n++;
        memmove(t->top + at + 1, t->top + at, (n - 1 - at) * sizeof *t->top);
        memmove(t->top_p + at + 1, t->top_p + at,
                (n - 1 - at) * sizeof *t->top_p);
        t->top[at] = (int32_t)v;
        t->top_p[at] = p[v];
    }
    t->n_top = n;
}

/* Whether the generated text (its bytes so far, text[0..len)) ends with
 * --stop's text. */
static bool ends_with(const unsigned char *text, size_t len, const char *stop)
{
    const size_t n = strlen(stop);
    return n > 0 && len >= n && memcmp(text + len - n, stop, n) == 0;
}

/* The stop text is found when it lies in the bytes the last token added
 * or straddles them: any end from before the token to its last byte. */
static bool found_stop(const unsigned char *text, size_t before, size_t len,
                       const char *stop)
{
    for (size_t end = before + 1; end <= len; end++)
        if (ends_with(text, end, stop))
            return true;
    return false;
}

/* Whether token is one of the model's end-of-text tokens. */
static bool is_end(const generate_model *gm, int32_t token)
{
    for (size_t i = 0; i < gm->n_more_ends; i++)
        if (token == gm->more_ends[i])
            return true;
    return token == gm->end;
}

int generate_run(generation *out, const generate_model *gm,
                 const generate_options *o, const int32_t *prompt, size_t T,
                 mx_error *err)
{
    *out = (generation){0};
    const size_t V = gm->vocab;
    float *logits = malloc(V * sizeof *logits);
    unsigned char *text = NULL;
    size_t text_len = 0, text_cap = 0;
    sampling_room room;
    if (logits == NULL || sampling_room_init(&room, V, err) != 0) {
        free(logits);
        return logits == NULL ? err_nomem(err, _("logits")) : -1;
    }
    out->tokens = calloc(o->n > 0 ? o->n : 1, sizeof *out->tokens);
    int rc = -1;
    if (out->tokens == NULL) {
        err_nomem(err, _("tokens"));
        goto done;
    }
    // torch.manual_seed(seed), then model.generate(...)
    torch_rng g;
    rng_seed(&g, o->seed);
    if (gm->step(gm->ctx, logits, prompt, T, err) != 0)
        goto done;
    size_t positions = T;
    out->end = GENERATE_END_LENGTH;
    for (size_t i = 0; i < o->n; i++) {
        generated_token *t = &out->tokens[out->n++];
        sampling_pick(&t->token, &t->effect, &room, logits, &o->how, &g);
        t->p = room.probs[t->token];
        t->p_logits = room.model_probs[t->token];
        t->positions = positions;
        top_tokens(t, room.probs, V);
        if (is_end(gm, t->token)) {
            out->end = GENERATE_END_TOKEN;
            break;
        }
        if (o->stop != NULL) {
            unsigned char piece[1024];
            const size_t n = gm->bytes(gm->ctx, piece, sizeof piece, t->token);
            if (text_len + n > text_cap) {
                const size_t cap = 2 * (text_len + n) + 64;
                unsigned char *grown = realloc(text, cap);
                if (grown == NULL) {
                    err_nomem(err, _("tokens"));
                    goto done;
                }
                text = grown;
                text_cap = cap;
            }
            memcpy(text + text_len, piece, n);
            const size_t before = text_len;
            text_len += n;
            if (found_stop(text, before, text_len, o->stop)) {
                out->end = GENERATE_END_STOP;
                break;
            }
        }
        if (i + 1 == o->n)
            break;
        if (positions == gm->context) {
            out->end = GENERATE_END_CONTEXT;
            break;
        }
        // the next step: one token over the kept cache
        if (gm->step(gm->ctx, logits, &t->token, 1, err) != 0)
            goto done;
        positions++;
    }
    rc = 0;
done:
    if (rc != 0)
        generation_free(out);
    free(text);
    free(logits);
    sampling_room_free(&room);
    return rc;
}
