/* draws.c: the generator through a notebook's order of draws (draws.h). */
#include "model/lesson/draws.h"

/* The input's draws, then the forward passes that waited for it. */
static void draw_input(draw_plan *plan, const draw_order *o, const bool *built,
                       torch_rng *g)
{
    if (o->input_n > 0)
        rng_normal_fill(o->input, o->input_n, 0.0, 1.0, g);
    for (size_t i = 0; i < o->n; i++) {
        const variant_id v = o->order[i];
        if (v != VARIANT_INPUT && built[v]) {
            plan->forward[v] = *g;
            rng_bernoulli_skip(o->forward_draws[v], g);
        }
    }
}

int draws_plan(draw_plan *plan, const draw_order *o, torch_rng *g,
               mx_error *err)
{
    bool input = true; /* the input is drawn first unless the order names
                          it */
    for (size_t i = 0; i < o->n; i++)
        if (o->order[i] == VARIANT_INPUT)
            input = false;
    bool built[VARIANT_ID_COUNT] = {false};
    if (input)
        draw_input(plan, o, built, g);
    for (size_t i = 0; i < o->n; i++) {
        const variant_id v = o->order[i];
        if (v == VARIANT_INPUT) {
            draw_input(plan, o, built, g);
            input = true;
            continue;
        }
        plan->build[v] = *g;
        if (o->build(v, g, o->ctx, err) != 0)
            return -1;
        if (input) {
            // the input is there: the module's forward pass right away
            plan->forward[v] = *g;
            rng_bernoulli_skip(o->forward_draws[v], g);
        } else
            built[v] = true;
    }
    return 0;
}
