/* generation.c: a generation's tokens freed and compared, and a token's
 * label (generation.h). */
#include "model/generation.h"

#include <stdio.h>
#include <stdlib.h>

void generation_free(generation *g)
{
    free(g->tokens);
    *g = (generation){0};
}

void generate_token_label(char *buf, size_t size, const generate_model *gm,
                          int32_t id)
{
    if (gm->label != NULL)
        gm->label(gm->ctx, buf, size, id);
    else
        snprintf(buf, size, "%ld", (long)id);
}

size_t generation_common(const generation *a, const generation *b)
{
    size_t k = 0;
    while (k < a->n && k < b->n && a->tokens[k].token == b->tokens[k].token)
        k++;
    return k;
}
