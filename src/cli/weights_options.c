/* weights_options.c: the run a --weights folder makes (weights_options.h). */
#include "cli/weights_options.h"

#include <stdio.h>
#include <string.h>

#include "base/i18n.h"
#include "model/lesson/manifest.h"

/* The variants of the run whose folder holds a trained embedding. */
static unsigned trained_variants(const weights_files *files)
{
    unsigned set = 0;
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if (weights_has_table(files, model_variants[i].id, TABLE_EMBEDDING))
            set |= model_variants[i].bit;
    return set;
}

/* One size of model.json against its option: the option given with
 * another value is an error naming both. */
static int take_size(size_t *value, bool given, const char *option,
                     const char *field, size_t saved, const char *dir,
                     mx_error *err)
{
    if (given && *value != saved)
        return err_usage(err,
                         _("%s %zu: the trained model in %s has %s %zu "
                           "(its %s); leave the option out, or give %zu"),
                         option, *value, dir, field, saved, MANIFEST_NAME,
                         saved);
    *value = saved;
    return 0;
}

/* model.json's d_out against --d-out: the attention's width, which a
 * folder of the block alone has from d_model (manifest.h). */
static int take_d_out(options *run, const trained_manifest *m, const char *dir,
                      mx_error *err)
{
    const bool given = run->given[OPT_D_OUT];
    if (given && run->d_out != m->d_out &&
        (m->variants & variants_taking(TAKES_D_OUT)) == 0) {
        char saved[64];
        variant_names_separated(saved, sizeof saved, m->variants, ",");
        return err_usage(err,
                         _("--d-out %zu: the trained model in %s has the "
                           "variants %s, whose attention is d_model %zu "
                           "wide (its %s); leave the option out, or give %zu"),
                         run->d_out, dir, saved, m->d_model, MANIFEST_NAME,
                         m->d_model);
    }
    return take_size(&run->d_out, given, "--d-out", "d_out", m->d_out, dir,
                     err);
}

/* One yes-or-no of model.json against the option that turns it on or
 * off (on: the option gives true). */
static int take_flag(bool *value, bool given, const char *option,
                     const char *field, bool saved, const char *dir,
                     mx_error *err)
{
    if (given && *value != saved)
        return err_usage(err,
                         _("%s: the trained model in %s has %s %s (its %s); "
                           "leave the option out"),
                         option, dir, field, saved ? "true" : "false",
                         MANIFEST_NAME);
    *value = saved;
    return 0;
}

/* The options of a folder with model.json. */
static int take_manifest(options *run, const trained_manifest *m,
                         const char *dir, mx_error *err)
{
    const bool *given = run->given;
    char saved[64], asked[64];
    variant_names_separated(saved, sizeof saved, m->variants, ",");
    variant_names_separated(asked, sizeof asked, run->variants, ",");
    if (given[OPT_VARIANT] && (run->variants & ~m->variants))
        return err_usage(err,
                         _("--variant %s: the trained model in %s has the "
                           "variants %s (its %s): choose among them, or "
                           "leave the option out"),
                         asked, dir, saved, MANIFEST_NAME);
    if (!given[OPT_VARIANT])
        run->variants = m->variants;
    if (given[OPT_LAYERS] && m->layers == 0)
        return err_usage(err,
                         _("--layers %zu: the trained model in %s is one "
                           "block, not a stack (its %s); leave the option "
                           "out"),
                         run->block_layers, dir, MANIFEST_NAME);
    bool positions = run->positions;
    if (take_size(&run->block_layers, given[OPT_LAYERS], "--layers", "layers",
                  m->layers, dir, err) != 0 ||
        take_size(&run->d_model, given[OPT_D_MODEL], "--d-model", "d_model",
                  m->d_model, dir, err) != 0 ||
        take_d_out(run, m, dir, err) != 0 ||
        take_size(&run->heads, given[OPT_HEADS], "--heads", "heads", m->heads,
                  dir, err) != 0 ||
        take_size(&run->ff, given[OPT_FF] && m->ff != 0, "--ff", "ff", m->ff,
                  dir, err) != 0 ||
        take_flag(&run->attn_only, given[OPT_ATTN_ONLY], "--attn-only",
                  "attn_only", m->attn_only, dir, err) != 0 ||
        take_flag(&run->qkv_bias, given[OPT_QKV_BIAS], "--qkv-bias", "qkv_bias",
                  m->qkv_bias, dir, err) != 0 ||
        take_flag(&run->causal, given[OPT_NO_CAUSAL], "--no-causal", "causal",
                  m->causal, dir, err) != 0 ||
        take_flag(&run->scale, given[OPT_NO_SCALE], "--no-scale", "scale",
                  m->scale, dir, err) != 0 ||
        take_flag(&positions, given[OPT_POSITIONS], "--positions", "positions",
                  m->positions > 0, dir, err) != 0)
        return -1;
    run->positions = positions;
    const enum token_mode tokens = m->tokens;
    if (given[OPT_TOKENS] && run->tokens != tokens)
        return err_usage(err,
                         _("--tokens %s: the trained model in %s has tokens "
                           "%s (its %s); leave the option out"),
                         run->tokens == TOKENS_CHARS ? "chars" : "words", dir,
                         tokens == TOKENS_CHARS ? "chars" : "words",
                         MANIFEST_NAME);
    run->tokens = tokens;
    static const char *const punct[] = {"keep", "split", "drop"};
    if (given[OPT_PUNCT] && run->rules.punct != m->rules.punct)
        return err_usage(err,
                         _("--punct %s: the trained model in %s has punct "
                           "%s (its %s); leave the option out"),
                         punct[run->rules.punct], dir, punct[m->rules.punct],
                         MANIFEST_NAME);
    run->rules.punct = m->rules.punct;
    bool lower = run->rules.lower, unk = run->unk;
    if (take_flag(&lower, given[OPT_LOWER], "--lower", "lower", m->rules.lower,
                  dir, err) != 0 ||
        take_flag(&unk, given[OPT_UNK], "--unk", "unk", m->unk, dir, err) != 0)
        return -1;
    run->rules.lower = lower;
    run->unk = unk;
    /* the training's seed, unless --seed chooses another draw */
    if (m->has_seed && !given[OPT_SEED])
        run->seed = m->seed;
    run->given[OPT_D_MODEL] = true;
    return 0;
}

/* A folder without model.json (from an older version): the trained
 * variants run, each with the options' sizes. */
static int take_trained(options *run, unsigned trained, const char *dir,
                        mx_error *err)
{
    if (!run->given[OPT_VARIANT]) {
        run->variants = trained;
        return 0;
    }
    const unsigned seeded = run->variants & ~trained;
    if (seeded == 0)
        return 0;
    char have[64], lack[64];
    variant_names_separated(have, sizeof have, trained, ",");
    variant_names_separated(lack, sizeof lack, seeded, ",");
    return err_usage(err,
                     _("--variant: %s has a trained %s but no trained %s "
                       "(no embedding.weight file): a run does not mix "
                       "trained and seeded modules; choose among %s"),
                     dir, have, lack, have);
}

int weights_options(options *run, const options *opt,
                    const weights_files *files, mx_error *err)
{
    *run = *opt;
    // the copy reads --ablate's heads into a list of its own (its
    // options_validate), which the caller frees (interventions_free)
    run->ablate_heads = NULL;
    run->n_ablate_heads = 0;
    run->weight_files = files;
    run->weights_read = true;
    const trained_manifest *m = &files->manifest;
    const unsigned trained = m->present ? m->variants : trained_variants(files);
    if (trained == 0) /* parameters edited by hand: the options' sizes */
        return options_validate(run, err);
    /* the folder, not --train, makes the run a trained one */
    const char *other = options_training_conflict(opt);
    if (!opt->train && other != NULL) {
        const variant_info *first =
            variant_by_id(variant_of_bit(trained & (0u - trained)));
        return err_usage(err,
                         _("--weights %s: the folder holds a trained "
                           "embedding (%s.embedding.weight.csv), which makes "
                           "the run a trained one: it does not go with %s"),
                         opt->weights, first->name, other);
    }
    run->train = true;
    int rc = m->present ? take_manifest(run, m, opt->weights, err)
                        : take_trained(run, trained, opt->weights, err);
    if (rc != 0)
        return rc;
    for (size_t i = 0; !m->present && i < MODEL_N_VARIANTS; i++)
        if ((run->variants & model_variants[i].bit) &&
            weights_has_table(files, model_variants[i].id, TABLE_POS_EMBEDDING))
            run->positions = true;
    return options_validate(run, err);
}
