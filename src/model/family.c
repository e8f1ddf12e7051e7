/* family.c: the rows of the model families (family.h). */
#include "model/family.h"

#include <stdio.h>
#include <string.h>

#include "base/i18n.h"
#include "io/file_read.h"
#include "io/model_type.h"
#include "model/gpt2/gpt2_lm.h"
#include "model/bert/bert.h"
#include "model/bert/bert_lm.h"
#include "model/bert/bert_notes.h"
#include "model/bert/bert_trace.h"
#include "model/gpt2/gpt2.h"
#include "model/gpt2/gpt2_notes.h"
#include "model/gpt2/gpt2_trace.h"
#include "model/lesson/lesson_ablate.h"
#include "model/lesson/lesson_lm.h"
#include "model/lesson/lesson_run.h"
#include "model/lesson/lesson_tokens.h"
#include "model/llama/llama.h"
#include "model/llama/llama_lm.h"
#include "model/llama/llama_notes.h"
#include "model/llama/llama_trace.h"

/* The model_types each checkpoint family reads (config.json's
 * "model_type"): family_of claims by them, and its refusal lists them. */
static const char *const bert_types[] = {"bert", NULL};
static const char *const llama_types[] = {"llama", "qwen2", "mistral", NULL};
static const char *const gpt2_types[] = {"gpt2", NULL};

/* The files of a checkpoint folder that hold its tokenizer: GPT-2's
 * vocabulary and merges, or its tokenizer.json where the folder has
 * neither; BERT's and the Llama style's tokenizer.json alone. Each
 * tokenizer.json is read with the tokenizer_config.json beside it.
 * GPT-2's vocabulary keeps "<|endoftext|>" whole, with the special tokens
 * tokenizer_config.json, special_tokens_map.json and added_tokens.json
 * name (vocab_specials.h), as transformers' GPT2Tokenizer does. */
static const tokenizer_files gpt2_tokenizer = {
    .vocab = "vocab.json",
    .merges = "merges.txt",
    .json = "tokenizer.json",
    .json_config = "tokenizer_config.json",
    .special = "<|endoftext|>",
    .special_map = "special_tokens_map.json",
    .added = "added_tokens.json",
};
static const tokenizer_files json_tokenizer = {
    .json = "tokenizer.json",
    .json_config = "tokenizer_config.json",
};

/* BERT reads the checkpoints whose config.json says "model_type": "bert",
 * the Llama-style family those it names (llama, qwen2, mistral), GPT-2's
 * "gpt2" and those naming no model_type, the lesson's every run without
 * --model (the last row). */
static const model_family families[] = {
    {
        .model_name = "bert",
        .title = N_("BERT"),
        .layer_name = "layer",
        .notes = &bert_notes,
        .positions_key = BERT_POSITIONS_KEY,
        .model_types = bert_types,
        .tokenizer = &json_tokenizer,
        .check = bert_trace_check,
        .tokens = bert_trace_tokens,
        .run = bert_trace_run,
        .makes_table = bert_trace_makes_table,
        .scores_only = &bert_scores_lm, /* no lm_head: head scores only */
        .pairs = true,
        .bidirectional = true,
        .param_name = bert_param_name,
    },
    {
        .model_name = "llama",
        .title = N_("Llama-style"),
        .layer_name = "layers",
        .notes = &llama_notes,
        .positions_key = LLAMA_POSITIONS_KEY,
        .generates = true,
        .generates_ablated = true,
        .model_types = llama_types,
        .tokenizer = &json_tokenizer,
        .check = llama_trace_check,
        .tokens = llama_trace_tokens,
        .run = llama_trace_run,
        .makes_table = llama_trace_makes_table,
        .lm = &llama_lm,
        .param_name = llama_param_name,
    },
    {
        .model_name = "gpt2",
        .title = N_("GPT-2"),
        .layer_name = "h",
        .notes = &gpt2_notes,
        .positions_key = GPT2_POSITIONS_KEY,
        .generates = true,
        .generates_ablated = true,
        .model_types = gpt2_types,
        .untyped = true,
        .tokenizer = &gpt2_tokenizer,
        .check = gpt2_trace_check,
        .tokens = gpt2_trace_tokens,
        .run = gpt2_trace_run,
        .makes_table = gpt2_trace_makes_table,
        .lm = &gpt2_lm,
        .param_name = gpt2_param_name,
    },
    {
        .model_name = NULL,
        .title = N_("lesson"),
        .layer_name = NULL,
        .notes = NULL,
        .generates = true, /* once trained (model/lesson/lesson_generate.h) */
        .model_types = NULL,
        .check = lesson_check,
        .tokens = lesson_tokens,
        .run = lesson_run,
        .makes_table = lesson_makes_table,
        .lm = &lesson_lm, /* once trained, --variant block (lesson_lm.h) */
        .ablate_alone = lesson_ablate_alone, /* untrained (lesson_ablate.h) */
    },
};

#define N_FAMILIES (sizeof families / sizeof families[0])

const model_family *family_default(void)
{
    return &families[N_FAMILIES - 1];
}

bool family_param_name(const char *name)
{
    for (size_t i = 0; i < N_FAMILIES; i++)
        if (families[i].param_name != NULL &&
            families[i].param_name(name, NULL))
            return true;
    return false;
}

/* Whether row lists type. */
static bool lists(const model_family *row, const char *type)
{
    for (size_t i = 0; row->model_types != NULL && row->model_types[i]; i++)
        if (strcmp(row->model_types[i], type) == 0)
            return true;
    return false;
}

/* The model_types of the rows for which which(row) holds, joined with
 * ", " into known (size bytes). */
static void types_joined(char *known, size_t size,
                         bool (*which)(const model_family *))
{
    size_t used = 0;
    known[0] = '\0';
    for (size_t i = 0; i < N_FAMILIES; i++)
        for (size_t j = 0;
             which(&families[i]) && families[i].model_types != NULL &&
             families[i].model_types[j] != NULL;
             j++) {
            int n = snprintf(known + used, size - used, "%s%s",
                             used > 0 ? ", " : "", families[i].model_types[j]);
            if (n > 0 && (size_t)n < size - used)
                used += (size_t)n;
        }
}

static bool every_row(const model_family *row)
{
    (void)row;
    return true;
}

static bool generates_ablated(const model_family *row)
{
    return row->generates_ablated;
}

void family_types_generating_ablated(char *out, size_t size)
{
    types_joined(out, size, generates_ablated);
}

/* Whether pick names row. */
static bool picked(const model_family *row, enum family_pick pick)
{
    if (row->model_types == NULL && !row->untyped)
        return false; /* the lesson's family reads no folder */
    switch (pick) {
    case FAMILIES_PAIRING:
        return row->pairs;
    case FAMILIES_VOCAB_MERGES:
        return row->tokenizer->vocab != NULL;
    case FAMILIES_TOKENIZER_JSON:
        return row->tokenizer->vocab == NULL;
    case FAMILIES_CHECKPOINT:
    default:
        return true;
    }
}

/* s added to the list in out (size bytes, at most 512 so far), as the
 * reader's language lists: "%s, %s". */
static void listed(char *out, size_t size, const char *s)
{
    char so_far[512];
    snprintf(so_far, sizeof so_far, "%s", out);
    if (so_far[0] == '\0')
        snprintf(out, size, "%s", s);
    else
        snprintf(out, size, _("%s, %s"), so_far, s);
}

void family_titles(char *out, size_t size, enum family_pick pick,
                   bool with_types)
{
    if (size == 0)
        return;
    out[0] = '\0';
    for (size_t i = N_FAMILIES; i-- > 0;) {
        const model_family *row = &families[i];
        if (!picked(row, pick))
            continue;
        char types[128] = "", item[256];
        for (size_t j = 0;
             with_types && row->model_types != NULL && row->model_types[j]; j++)
            listed(types, sizeof types, row->model_types[j]);
        if (types[0] != '\0')
            /* TRANSLATORS: a model family and the model_types of
             * config.json it reads: "Llama-style (llama, qwen2, mistral)" */
            snprintf(item, sizeof item, _("%s (%s)"), _(row->title), types);
        else
            snprintf(item, sizeof item, "%s", _(row->title));
        listed(out, size, item);
    }
}

const tokenizer_files *family_tokenizer_files(enum family_pick pick)
{
    for (size_t i = N_FAMILIES; i-- > 0;)
        if (picked(&families[i], pick))
            return families[i].tokenizer;
    return NULL;
}

/* Refuses the model_type no row lists, naming those the rows list. */
static int refuse_type(const char *dir, const char *type, mx_error *err)
{
    char known[256];
    types_joined(known, sizeof known, every_row);
    return err_input(err,
                     _("%s/config.json: this program reads no model_type "
                       "'%s' (it reads %s)"),
                     dir, type, known);
}

const model_family *family_of(const run_request *rq, mx_error *err)
{
    if (rq->checkpoint == NULL)
        return family_default();
    if (folder_check(rq->checkpoint, err) != 0)
        return NULL;
    char type[64];
    const model_type_found found =
        read_model_type(type, sizeof type, rq->checkpoint);
    if (found == MODEL_TYPE_NOT_STRING) {
        err_input(err,
                  _("%s/config.json: \"model_type\" is not a string (it "
                    "names the model's family, as \"gpt2\")"),
                  rq->checkpoint);
        return NULL;
    }
    const bool named = found == MODEL_TYPE_NAMED;
    for (size_t i = 0; i < N_FAMILIES; i++)
        if (named ? lists(&families[i], type) : families[i].untyped)
            return &families[i];
    refuse_type(rq->checkpoint, type, err);
    return NULL;
}
