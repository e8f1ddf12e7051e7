/* map_axes.c: what the maps of the interventions show (map_axes.h). */
#include "render/map_axes.h"

#include <stddef.h>

#include "base/i18n.h"

static const map_axes maps[] = {
    /* TRANSLATORS: the axes and colour scales of the maps of the
     * interventions (--ablate all-heads, --patch, --head-scores) in
     * --plot and the --html page */
    {TABLE_ABLATE_MAP, N_("layer"), N_("head ablated"),
     N_("change of the mean loss (or of --metric)"), true, true, true},
    {TABLE_PATCH_HEADS, N_("layer"), N_("head patched"),
     N_("restored: 0 corrupted, 1 clean"), true, true, true},
    {TABLE_PATCH_RESID, N_("layer"),
     N_("position patched (residual stream before the layer)"),
     N_("restored: 0 corrupted, 1 clean"), true, true, false},
    {TABLE_HEAD_SCORES, N_("head (layer.head)"), N_("pattern"),
     N_("share of attention on the pattern"), false, false, true},
};

const map_axes *map_axes_of(table_id id)
{
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
        if (maps[i].id == id)
            return &maps[i];
    return NULL;
}
