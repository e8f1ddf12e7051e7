/* generation.c: a generation's tokens freed, and a token's label
 * (generation.h). */
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
