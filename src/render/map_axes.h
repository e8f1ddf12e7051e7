/* map_axes.h: what the maps of the interventions show, for --plot
 * (plot/figure_maps.c) and the --html page's Interventions view
 * (html/html_maps.c): --ablate all-heads' ablation_map and --patch's
 * patch_heads (layers x heads), patch_resid (layers x positions), and
 * --head-scores' head_scores (heads x the three scores).
 *
 * Each map is one row: what its rows and columns are keyed by (a layer,
 * a head, a position: the CSV's keys of its cells, render_csv.c and
 * render_csvdir.c), the titles of its axes, the caption of its colour
 * scale, and whether its values are signed (a change, or a score that
 * may pass 1 or go below 0: a diverging map centred on 0, as
 * TransformerLens's patching demos draw them) or a share from 0 to 1 (the
 * head scores: one fixed scale, so that colours compare between runs).
 * The texts are msgids: show them through _(). */
#ifndef MHA_MAP_AXES_H
#define MHA_MAP_AXES_H

#include <stdbool.h>

#include <stddef.h>

#include "model/catalogue.h"
#include "model/trace.h"

/* What a map's rows or columns are keyed by, as the CSV writes them
 * (render_csv.c: the layer and head columns of each cell; render_csvdir.c:
 * the key columns of each row). */
enum map_key {
    MAP_KEY_NONE,       /* labels only (the patterns of head_scores) */
    MAP_KEY_LAYER,      /* row r is layer r */
    MAP_KEY_HEAD,       /* column c is head c */
    MAP_KEY_LAYER_HEAD, /* row r is head r % H of layer r / H, H the
                           table's map_heads ("h.1.0": layer 1, head 0) */
    MAP_KEY_POSITION,   /* column c is position c (its token's label) */
};

typedef struct {
    table_id id;
    const char *rows;     /* the title of its rows' axis */
    const char *cols;     /* and of its columns' */
    const char *measure;  /* what a colour says */
    bool signed_values;   /* centred on 0; else from 0 to 1 */
    bool over_view;       /* --plot draws it rather than the model view;
                            the head scores go on the model view when the
                            run has one (plot/figure_marks.c) */
    bool of_heads;        /* a cell is a head: its row a layer and its
                            column a head, or (head_scores) its row
                            "layer.head" */
    bool picture_only;    /* drawn by --plot only (the logit lens's grid,
                            whose tokens the page shows its own way) */
    bool run_measure;     /* the run names what it measures (the metric
                            of ablation_map: trace_model's map_measure);
                            measure is said when it does not */
    enum map_key row_key; /* what its rows are */
    enum map_key col_key; /* and its columns */
} map_axes;

/* The row of table id, or NULL when it is not a map (or a map of the
 * pictures only). */
const map_axes *map_axes_of(table_id id);

/* The row of table id among the maps --plot draws, or NULL. */
const map_axes *map_axes_of_picture(table_id id);

/* Cell (r, c) of map t (its row m)'s layer and head, each -1 when the
 * map's keys do not give it: what the tidy CSV's layer and head columns
 * hold for the cell. */
void map_axes_cell(int *layer, int *head, const map_axes *m, const table *t,
                   size_t r, size_t c);

/* What a colour of m says in a run whose map_measure is run_measure (a
 * msgid, or NULL): a msgid, show it through _(). */
const char *map_axes_measure(const map_axes *m, const char *run_measure);

#endif
