/* lesson_tables.c: which tables a lesson's run makes (lesson_run.h's
 * lesson_makes_table), from the catalogue's rows, the variants' rows and
 * their parameters, and the run's request: what --tables may name. */
#include <string.h>

#include "model/lesson/lesson_run.h"
#include "model/lesson/lesson_size.h"
#include "model/lesson/variants.h"

/* A param_fn: stops the listing (returns 1) at the present parameter
 * whose name ctx (a const char *) points to. */
static int is_present_named(const param_info *p, void *ctx)
{
    const char *const *name = ctx;
    return p->present && strcmp(p->name, *name) == 0;
}

/* Whether the run makes the input table id (lesson_run). */
static bool makes_input(table_id id, const run_request *rq,
                        const model_input *in)
{
    switch (id) {
    case TABLE_KV_TOKENS:
    case TABLE_KV_INPUTS:
        return in->kv != NULL;
    case TABLE_EMBEDDING:
        return in->embeddings == NULL && !rq->randn_input;
    case TABLE_POS_EMBEDDING:
        return rq->model.positions;
    default:
        return true;
    }
}

/* Whether a trained run (--train) makes the table p names besides the
 * tables of a run without training: lm_head.weight, logits, loss, and
 * with --grad the gradients of the parameters it makes. */
static bool trained_makes(const run_request *rq, const model_input *in,
                          const table_pick *p)
{
    if (p->grad) {
        if (!rq->grad)
            return false;
        run_request plain = *rq;
        plain.grad = false;
        const table_pick base = {p->id, p->name, false};
        // every table but the ids, the loss and the mean of the heads
        const table_id id = p->id;
        return id != TABLE_VOCAB && id != TABLE_TOKENS && id != TABLE_LOSS &&
               id != TABLE_ATTN_WEIGHTS_AVG &&
               lesson_makes_table(&plain, in, &base);
    }
    const table_id id = p->id;
    return id == TABLE_LM_HEAD || id == TABLE_LOGITS ||
           id == TABLE_NEXT_TOKENS || id == TABLE_LOSS ||
           ((id == TABLE_GENERATED || id == TABLE_GENERATED_TOP) &&
            rq->generate > 0) ||
           ((id == TABLE_KV_CACHE_SIZE ||
             (id != TABLE_COUNT && (table_bit(id) & GENERATE_MAP_TABLES))) &&
            rq->generate > 0 && rq->kv_steps) ||
           ((id == TABLE_ATTN_WEIGHTS_STEPS || id == TABLE_HEAD_SCORES_STEPS) &&
            rq->checkpoints);
}

bool lesson_makes_table(const run_request *rq, const model_input *in,
                        const table_pick *p)
{
    if (rq->train && trained_makes(rq, in, p))
        return true;
    // a gradient comes only from a trained run
    if (p->grad)
        return false;
    const table_id id = p->id;
    const char *name = p->name;
    if (id != TABLE_COUNT && table_info_of(id)->kind == KIND_INPUT)
        return makes_input(id, rq, in);
    const model_dims dims = {.heads = rq->model.heads,
                             .qkv_bias = rq->model.qkv_bias,
                             .layers = rq->model.block_layers,
                             .attn_only = rq->model.attn_only};
    // --attn-only: the block makes attn_out and out, none of these
    const table_set feed_forward = TABLE_BIT(ADD_NORM1) |
                                   TABLE_BIT(FFN_HIDDEN) | TABLE_BIT(FFN_OUT) |
                                   DROPOUT_TABLES;
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        const variant_info *v = &model_variants[i];
        if (!(rq->variants & v->bit))
            continue;
        if (id == TABLE_COUNT) { /* a parameter's name, or no table's */
            if (model_params_each(v->bit, &dims, NULL, is_present_named,
                                  &name) != 0)
                return true;
            continue;
        }
        // every head's tables (the dropout's with --attn-dropout in the
        // modules that drop weights), and what the module makes once (the
        // block's masks with --dropout)
        const bool head_dropout =
            id == TABLE_DROPOUT_MASK || id == TABLE_ATTN_WEIGHTS_DROPPED;
        // (no lesson module has rotary positions)
        if (table_info_of(id)->kind == KIND_PER_HEAD &&
            (table_bit(id) & ROTARY_HEAD_TABLES) == 0 &&
            (!head_dropout ||
             (rq->model.attn_dropout > 0 && !lesson_drops_outputs(v->id))))
            return true;
        // a stack of blocks adds the model view (STACK_TABLES)
        const table_set stack =
            variant_row_of(v->id)->stacks && rq->model.block_layers > 0
                ? STACK_TABLES
                : 0;
        const table_set left_out = rq->model.attn_only ? feed_forward : 0;
        if (((v->tables | stack) & ~left_out & table_bit(id)) &&
            (id != TABLE_ATTN_WEIGHTS_AVG || lesson_averages(rq, v)) &&
            (!(DROPOUT_TABLES & table_bit(id)) || rq->model.dropout > 0))
            return true;
    }
    return false;
}
