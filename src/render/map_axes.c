/* map_axes.c: what the maps of the interventions show (map_axes.h). */
#include "render/map_axes.h"

#include <stddef.h>

#include "base/i18n.h"

static const map_axes maps[] = {
    /* TRANSLATORS: the axes and colour scales of the maps of the
     * interventions (--ablate all-heads, --patch, --head-scores) in
     * --plot and the --html page */
    {TABLE_ABLATE_MAP, N_("layer"), N_("head ablated"),
     N_("change of the mean loss (or of --metric)"), true, true, true, false,
     true, MAP_KEY_LAYER, MAP_KEY_HEAD},
    {TABLE_PATCH_HEADS, N_("layer"), N_("head patched"),
     N_("restored: 0 corrupted, 1 clean"), true, true, true, false, false,
     MAP_KEY_LAYER, MAP_KEY_HEAD},
    {TABLE_PATCH_RESID, N_("layer"),
     N_("position patched (residual stream before the layer)"),
     N_("restored: 0 corrupted, 1 clean"), true, true, false, false, false,
     MAP_KEY_LAYER, MAP_KEY_POSITION},
    {TABLE_HEAD_SCORES, N_("head (layer.head)"), N_("pattern"),
     N_("share of attention on the pattern"), false, false, true, false, false,
     MAP_KEY_LAYER_HEAD, MAP_KEY_NONE},
    /* TRANSLATORS: the axes and colour scale of --logit-lens's grid in
     * --plot: a cell is the likeliest next token at a position, read
     * after a layer */
    {TABLE_LOGIT_LENS_GRID, N_("layer"), N_("position (the token read)"),
     N_("probability of the likeliest next token"), false, true, false, true,
     false, MAP_KEY_LAYER, MAP_KEY_POSITION},
    /* TRANSLATORS: the axes and colour scale of the strip under a
     * generation's heads in --plot: the probability of each token the
     * model chose */
    {TABLE_GENERATED_P, N_("chosen"), N_("token generated, step by step"),
     N_("probability of the chosen token"), false, true, false, true, false,
     MAP_KEY_NONE, MAP_KEY_NONE},
};

const map_axes *map_axes_of_picture(table_id id)
{
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
        if (maps[i].id == id)
            return &maps[i];
    return NULL;
}

const char *map_axes_measure(const map_axes *m, const char *run_measure)
{
    return m->run_measure && run_measure != NULL ? run_measure : m->measure;
}

const map_axes *map_axes_of(table_id id)
{
    const map_axes *m = map_axes_of_picture(id);
    return m != NULL && !m->picture_only ? m : NULL;
}

void map_axes_cell(int *layer, int *head, const map_axes *m, const table *t,
                   size_t r, size_t c)
{
    *layer = *head = -1;
    if (m->row_key == MAP_KEY_LAYER) {
        *layer = (int)r;
    } else if (m->row_key == MAP_KEY_LAYER_HEAD && t->map_heads > 0) {
        *layer = (int)(r / t->map_heads);
        *head = (int)(r % t->map_heads);
    }
    if (m->col_key == MAP_KEY_HEAD)
        *head = (int)c;
}
