/* generate_maps.h: what --plot draws of a generation with --kv-steps
 * (generate.h): each layer's heads attending as the text grows, and the
 * probability of each token chosen.
 *
 *   attn_weights_generated   per layer and head, R x R (R = T + S: the
 *                            prompt's T positions and the S tokens fed
 *                            after it): row i < T the prompt's
 *                            attn_weights row i, row T + s - 1 the
 *                            weights of step s's new token over the
 *                            cache (its --kv-steps table); the keys a
 *                            row cannot see are NaN (masked). Rows
 *                            "Q:<token>", columns "K:<token>", the
 *                            generated tokens between the new text's
 *                            marks, "⟦token⟧".
 *   generated_p (1 x N)      the probability of each chosen token where
 *                            it was picked (the table generated's
 *                            column probability), the columns its
 *                            tokens
 *
 * The last token chosen is never fed, so it has a probability and no
 * row. Both tables are on request in text and CSV (catalogue.h's
 * ON_REQUEST_TABLES); a head whose steps' tables the trace did not keep
 * (--layers, --show-heads) has none.
 */
#ifndef MHA_GENERATE_MAPS_H
#define MHA_GENERATE_MAPS_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/generate.h"
#include "model/trace.h"

/* Appends the tables above to tr, after generation g from the prompt's T
 * tokens fed S steps (seq: the T + S tokens fed): for the heads of
 * variant v, generated_p under v (a lesson model's), or with v
 * VARIANT_INPUT for every head, generated_p under VARIANT_MODEL. */
int generation_put_maps(trace *tr, const generate_model *gm, const int32_t *seq,
                        size_t T, size_t S, const generation *g, variant_id v,
                        mx_error *err);

#endif
