/* lesson_size.c: how much a run of the lesson's variants holds, before
 * it runs (lesson_size.h). */
#include "model/lesson/lesson_size.h"

#include "base/i18n.h"
#include "model/lesson/trained.h"
#include "model/lesson/variants.h"
#include "model/next_tokens.h"

/* A param_fn: adds a parameter's size, present or not (ctx: a double). */
static int add_param_size(const param_info *p, void *ctx)
{
    *(double *)ctx += (double)p->rows * (double)p->cols;
    return 0;
}

/* The sizes of the lesson's modules of architecture m for a run of width
 * D (d_model). */
model_dims lesson_dims(const model_config *m, size_t D)
{
    return (model_dims){
        .d_model = D,
        .d_out = m->d_out,
        .heads = m->heads,
        .ff = m->ff ? m->ff : 4 * D,
        .qkv_bias = m->qkv_bias,
        .layers = m->block_layers,
        .attn_only = m->attn_only,
    };
}

/* Whether variant v makes attn_weights_avg in this run: with --average,
 * in a module whose tables include it (one of several heads). */
bool lesson_averages(const run_request *rq, const variant_info *v)
{
    return rq->average && (v->tables & TABLE_BIT(ATTN_WEIGHTS_AVG));
}

/* Adds the parameters of the run's variants, present or not, to *n. */
static void add_params_size(double *n, const run_request *rq,
                            const model_dims *dims)
{
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if (rq->variants & model_variants[i].bit)
            model_params_each(model_variants[i].bit, dims, NULL, add_param_size,
                              n);
}

/* The values of --randn-input's batch (B x T, D), held through the run. */
static double randn_size(const run_request *rq, double t, double d)
{
    return rq->randn_input ? (double)(rq->batch > 1 ? rq->batch : 1) * t * d
                           : 0;
}

/* The blocks of the block variant: --layers N stacks N, else one. */
size_t lesson_blocks(const model_config *m)
{
    return m->block_layers > 0 ? m->block_layers : 1;
}

/* Whether variant id's dropout is the block's, on its outputs
 * (--dropout), rather than the modules' on the weights (--attn-dropout). */
bool lesson_drops_outputs(variant_id id)
{
    return (variant_by_id(id)->tables & DROPOUT_TABLES) != 0;
}

/* The dropout tables a variant adds: with --attn-dropout a mask and the
 * dropped weights (T, S) per head, with the block's --dropout a mask
 * (T, D) on each of its two outputs. */
typedef struct {
    double module;   /* the block's masks */
    double per_head; /* one head's mask and dropped weights */
} dropout_size;

static dropout_size dropout_tables(const run_request *rq,
                                   const variant_info *info, double t, double d)
{
    dropout_size n = {0, 0};
    if (lesson_drops_outputs(info->id))
        n.module = rq->model.dropout > 0
                       ? 2 * t * d * (double)lesson_blocks(&rq->model)
                       : 0;
    else
        n.per_head = rq->model.attn_dropout > 0 ? 2 * t * t : 0;
    return n;
}

/* --train: what a trained run holds besides a run's tables. Each
 * variant keeps its trained embedding, positions, parameters and lm_head
 * (p values), with --grad their gradients and the intermediates', its
 * logits (T, V), next_tokens (T x k), the losses and attn_weights_steps. While a variant
 * trains (one at a time) it holds besides: p for the parameters, p for
 * their gradients and (Adam) 2p for the running lesson_averages, lm_head packed
 * once more for the logits' product, the top's logits, log-probabilities,
 * their gradient and its transpose (4 x C x V), and the backward pass's
 * tape, about twice the variant's tables over C tokens. C is the longest
 * sentence trained on; T the shown sentence. */
static double training_size(const run_request *rq, const model_dims *dims,
                            double t, double c, double v, double d)
{
    if (!rq->train)
        return 0;
    const double copies = rq->training.optimizer == OPTIMIZER_ADAM ? 4.0 : 2.0;
    const double steps = (double)rq->training.steps + 1;
    const double shots = steps < TRAIN_CHECKPOINTS ? steps : TRAIN_CHECKPOINTS;
    double kept = 0, training = 0;
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        const variant_info *info = &model_variants[i];
        if (!(rq->variants & info->bit))
            continue;
        const variant_row *row = variant_row_of(info->id);
        const model_dims module = variant_dims(row, dims);
        const double heads = row->heads == HEADS_ONE ? 1 : (double)module.heads;
        const double lm_head = v * (double)module.d_out;
        double params = v * d + lm_head + (rq->model.positions ? c * d : 0);
        model_params_each(info->bit, dims, NULL, add_param_size, &params);
        kept += (rq->grad ? 2 : 1) * params + t * v + t * NEXT_TOKENS_K +
                steps + (rq->grad ? row->size(&module, t).tables : 0) +
                (rq->checkpoints ? shots * heads * t * t : 0);
        const double pass = copies * params + lm_head + 4 * c * v +
                            2 * row->size(&module, c).tables;
        if (pass > training)
            training = pass;
    }
    return kept + training;
}

/* About how many float values the whole trace of this run holds, counted
 * in double so that absurd sizes cannot overflow: T tokens shown, C the
 * longest sentence a trained run learns from (T without --train). */
double lesson_trace_size(const run_request *rq, size_t D, size_t T, size_t C,
                         size_t V)
{
    const double t = (double)T, v = (double)V, d = (double)D;
    const model_dims dims = lesson_dims(&rq->model, D);
    double n = v * d + t * d + v + t + randn_size(rq, t, d) +
               training_size(rq, &dims, t, (double)C, v, d);
    add_params_size(&n, rq, &dims);
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        const variant_info *info = &model_variants[i];
        if (!(rq->variants & info->bit))
            continue;
        const variant_row *row = variant_row_of(info->id);
        const model_dims module = variant_dims(row, &dims);
        const dropout_size drop = dropout_tables(rq, info, t, d);
        const double heads = row->heads == HEADS_ONE ? 1 : (double)dims.heads;
        n += row->size(&module, t).tables + drop.module + heads * drop.per_head;
    }
    return n;
}

/* What a streamed run (trace.h) holds at its worst moment with b heads in
 * flight: about kept + work + b * per_head values. */
typedef struct {
    double kept;     /* tables kept to the end: the input tables, the
                        parameters, each variant's output */
    double work;     /* the most one variant's pass holds besides: Q, K, V
                        (fused, block), the heads' contexts, concat_context */
    double per_head; /* one head's queries, keys, values, scores, weights */
} stream_size;

static stream_size streamed_size(const run_request *rq, size_t D, size_t T,
                                 size_t C, size_t V)
{
    const double t = (double)T, v = (double)V, d = (double)D;
    const model_dims dims = lesson_dims(&rq->model, D);
    stream_size n = {.kept = v * d + t * d + v + t + randn_size(rq, t, d) +
                             training_size(rq, &dims, t, (double)C, v, d)};
    add_params_size(&n.kept, rq, &dims);
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        const variant_info *info = &model_variants[i];
        if (!(rq->variants & info->bit))
            continue;
        const variant_row *row = variant_row_of(info->id);
        const model_dims module = variant_dims(row, &dims);
        const variant_size s = row->size(&module, t);
        const dropout_size drop = dropout_tables(rq, info, t, d);
        // --average: the table, and while the heads run their sum and
        // head 0's scores
        const bool avg = lesson_averages(rq, info);
        n.kept += s.kept + drop.module + (avg ? 2 * t * t : 0);
        if (avg && s.work + t * t > n.work)
            n.work = s.work + t * t;
        if (s.work > n.work)
            n.work = s.work;
        const double head = 2 * t * t + 3 * t * s.head_width + drop.per_head;
        if (head > n.per_head)
            n.per_head = head;
    }
    return n;
}

/* The heads a streamed run computes at once: one per thread, fewer when
 * more would not fit MAX_TRACE_VALUES (at least one). */
static size_t heads_at_once(const stream_size *n, size_t threads)
{
    const double room = (double)MAX_TRACE_VALUES - n->kept - n->work;
    size_t b = 1;
    while (b < threads && (double)(b + 1) * n->per_head <= room)
        b++;
    return b;
}

/* The model width: --d-model, or the embeddings' width. */
size_t lesson_width(const run_request *rq, const model_input *in)
{
    return in->embeddings != NULL ? in->embeddings->cols : rq->model.d_model;
}

/* Whether the run has a variant whose attention is d_model wide (the
 * block's), whose heads must then divide d_model. */
static bool runs_d_model_wide(const run_request *rq)
{
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if ((rq->variants & model_variants[i].bit) &&
            variant_row_of(model_variants[i].id)->d_model_wide)
            return true;
    return false;
}

/* The run fits the limits; *values is the size of its whole trace. C is
 * the longest sentence trained on (--train; else the tokens). A
 * streamed run (trace.h) is held to what it holds at once with one head
 * in flight; *batch is how many heads it may then compute at once on
 * `threads` threads. */
int lesson_check_size(double *values, size_t *batch, const run_request *rq,
                      const model_input *in, const tokenized *tok, size_t C,
                      bool streamed, size_t threads, mx_error *err)
{
    const size_t D = lesson_width(rq, in);
    if (in->embeddings != NULL && rq->d_model_given && rq->model.d_model != D)
        return err_detail_set(err, RUN_D_MODEL_EMBEDDINGS, 0, rq->model.d_model,
                              D);
    if (runs_d_model_wide(rq) && D % rq->model.heads != 0)
        return err_detail_set(err, RUN_HEADS_DIVIDE, 0, rq->model.heads, D);
    const double whole =
        lesson_trace_size(rq, D, tok->n_tokens, C, tok->n_vocab);
    const stream_size part =
        streamed_size(rq, D, tok->n_tokens, C, tok->n_vocab);
    const double least = part.kept + part.work + part.per_head;
    const double max = (double)MAX_TRACE_VALUES;
    *values = whole;
    *batch = streamed ? heads_at_once(&part, threads) : 0;
    if (streamed ? least > max : whole > max && least > max)
        return err_input(err,
                         _("the run would hold about %.0f million values (at "
                           "most %zu million): use fewer tokens, heads or "
                           "variants, or smaller widths"),
                         (streamed ? least : whole) / 1e6,
                         MAX_TRACE_VALUES / 1000000);
    if (whole > max && !streamed)
        return err_input(err,
                         _("the run would hold about %.0f million values (at "
                           "most %zu million) with every table kept to the "
                           "end, as --html, --plot and --layout grid "
                           "need: without them the "
                           "tables go out as they are made and it fits"),
                         whole / 1e6, MAX_TRACE_VALUES / 1000000);
    return 0;
}
