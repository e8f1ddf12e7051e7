/* html.c: --html FILE, the interactive page.
 *
 *   <!DOCTYPE html> ... <style>page.css</style>
 *   <script type="application/json" id="mha-data">{...}</script>
 *   <script>page.js</script>
 *
 * The data (html_data.c) holds each variant's heads' float32 values
 * exactly, which the page writes as the CSV does, and the step-through
 * (html_steps.c). Nothing depends on the time or the machine: the same
 * run gives the same bytes.
 *
 * The live page (docs/html.md) adds, after the data, the command line its
 * editor starts from (id="mha-run"), the WebAssembly core (id="mha-core",
 * src/wasm) and the catalogue of the page's language for the core's
 * messages (id="mha-messages"), both gzip'd in base 85 (page_core.h), and
 * for a trained model's run the model (id="mha-model", html_model.c).
 * A program built without the core writes only mha-run, which says so.
 */
#include "html/html.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "base/limits.h"
#include "html/html_parts.h"
#include "html/page_assets.h"
#include "html/page_core.h"
#include "model/family.h"
#include "model/lesson/model.h"
#include "model/lesson/variants.h"

/* s with HTML's special characters escaped, for the title (the tokens). */
static void html_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        default:
            fputc(*s, out);
        }
    }
}

/* The language of the messages, as po/LINGUAS names it: the Language
 * field of the catalogue gettext uses (the header, its translation of
 * ""), or "en" without one. */
static void page_language(char *lang, size_t n)
{
    static const char header_msgid[] = ""; /* not a message to extract */
    const char *header = gettext(header_msgid);
    const char *field = header != NULL ? strstr(header, "Language: ") : NULL;
    snprintf(lang, n, "en");
    if (field == NULL)
        return;
    field += strlen("Language: ");
    const size_t len = strcspn(field, "\n");
    if (len > 0 && len < n)
        snprintf(lang, n, "%.*s", (int)len, field);
}

/* "train":300,"lr":"0.05","optimizer":"adam","positions":false,
 * "grad":false,"qkvOrder":"kqv","layers":2, with a comma after it: the run's training and
 * stacking (null: the option not given; --lr in its shortest decimal that
 * reads back the same). */
static void write_training_run(FILE *out, const html_run *run)
{
    if (run->train)
        fprintf(out, "\"train\":%zu,", run->train_steps);
    else
        fputs("\"train\":null,", out);
    char lr[32] = "";
    for (int digits = 1; run->lr_given && digits <= 17; digits++) {
        snprintf(lr, sizeof lr, "%.*g", digits, run->lr);
        if (strtod(lr, NULL) == run->lr)
            break;
    }
    if (run->lr_given)
        fprintf(out, "\"lr\":\"%s\",", lr);
    else
        fputs("\"lr\":null,", out);
    fprintf(out,
            "\"optimizer\":\"%s\",\"positions\":%s,\"grad\":%s,"
            "\"qkvOrder\":\"%s\",",
            run->adam ? "adam" : "sgd", run->positions ? "true" : "false",
            run->grad ? "true" : "false", run->queries_first ? "qkv" : "kqv");
    if (run->layers > 0)
        fprintf(out, "\"layers\":%zu,\n", run->layers);
    else
        fputs("\"layers\":null,\n", out);
}

/* {"dir": "modelo", "words": [...], "lower": true, "punct": "split",
 * "unk": false, "corpus": {"file": "corpus.csv", "column": "frase",
 * "sentences": 30}}: the trained model a model run's page carries
 * (html.h), its words those of its first variant's embedding, and the
 * corpus it carries (null: none); null for any other run. */
static void write_model_run(FILE *out, const html_run *run,
                            const html_model *model, const trace *tr)
{
    const table *embedding = NULL;
    for (size_t i = 0; i < trace_count(tr) && embedding == NULL; i++) {
        const table *t = trace_at(tr, i);
        if (t->id == TABLE_EMBEDDING && t->variant != VARIANT_INPUT && !t->grad)
            embedding = t;
    }
    if (!run->model || embedding == NULL) {
        fputs("null", out);
        return;
    }
    fputs("{\"dir\":", out);
    if (run->model_dir != NULL)
        json_string(out, run->model_dir);
    else
        fputs("null", out);
    fputs(",\"words\":[", out);
    for (size_t i = 0; i < embedding->rows->n; i++) {
        if (i > 0)
            fputc(',', out);
        json_string(out, embedding->rows->s[i]);
    }
    fprintf(out, "],\"lower\":%s,\"punct\":\"%s\",\"unk\":%s,",
            run->lower ? "true" : "false", run->punct,
            run->unk ? "true" : "false");
    // the corpus the editor keeps training on: its file, column, size
    if (run->corpus != NULL && model != NULL && model->corpus != NULL) {
        fputs("\"corpus\":{\"file\":", out);
        json_string(out, run->corpus);
        fputs(",\"column\":", out);
        json_string(out, run->column != NULL ? run->column : "");
        fprintf(out, ",\"sentences\":%zu}}", model->n_corpus);
    } else {
        fputs("\"corpus\":null}", out);
    }
}

/* s as a JSON string, or null. */
static void json_string_or_null(FILE *out, const char *s)
{
    if (s != NULL)
        json_string(out, s);
    else
        fputs("null", out);
}

/* The words of the Generation view and of the generation's settings
 * (page/generation.js): carried with the settings, so that the core
 * (which writes the data's labels again) leaves them out of its
 * catalogue. */
static const char *const generate_words[] = {
    /* TRANSLATORS: the --html page's view of --generate's steps */
    N_("Generation"),
    /* TRANSLATORS: {0} the step on view, {1} the number of steps */
    N_("Step {0} of {1}"),
    /* TRANSLATORS: {0} the new token, {1} its probability */
    N_("The model picked {0} with probability {1}."),
    N_("The next token's likeliest choices at this step (the one picked is "
       "marked):"),
    N_("picked"),
    /* TRANSLATORS: {0} a token, {1} its probability, {2} its rank */
    N_("{0}: probability {1}, rank {2}"),
    N_("Each head's attention row of the last token over the tokens so far "
       "(the keys its cache holds), from which the next token was "
       "predicted:"),
    /* TRANSLATORS: {0} a layer, {1} a head, {2} a key token, {3} the
     * weight */
    N_("{0}, head {1}, key {2}: {3}"),
    N_("Each head's attention row of the last token over the tokens so far, "
       "from which the next token was predicted. This model keeps no cache: "
       "at each step it ran every token again, and this is the last row of "
       "that pass:"),
    N_("This model keeps no cache: its heads are shown for the prompt's "
       "last token only (step 1)."),
    /* TRANSLATORS: a checkpoint's generation whose steps' rows were not
     * kept (a Llama-style checkpoint without --kv-steps) */
    N_("This model keeps a cache, but this run kept its heads' rows for the "
       "prompt only (--kv-steps keeps every step's): they are shown at step "
       "1 only."),
    N_("Move the slider, or focus it and use the arrow keys, to go through "
       "the steps."),
    /* TRANSLATORS: the live page's generation settings (--generate and
     * the options that go with it, kept as the program spells them) */
    N_("Generation (--generate)"),
    N_("New tokens (--generate; 0: none)"),
    N_("Draw each token (--sample; else the likeliest)"),
    N_("Temperature (--temperature)"),
    N_("Top k (--top-k)"),
    N_("Top p (--top-p)"),
    N_("Stop at (--stop; empty: none)"),
    /* TRANSLATORS: the live page's status while it generates; {0} is the
     * number of tokens asked for */
    N_("Generating {0} tokens…"),
    /* TRANSLATORS: with --ablate: what the model with no head switched
     * off generated from the same prompt, then how the two new texts
     * compare */
    N_("The clean model (no head switched off) continued:"),
    N_("The same new text as with the heads switched off."),
    N_("The two new texts part at their first token."),
    N_("The two new texts share their first token, then part."),
    /* TRANSLATORS: {0} is a number of tokens, 2 or more */
    N_("The two new texts share their first {0} tokens, then part."),
    /* TRANSLATORS: the Generation view of a run whose generation reached
     * the model's context; {0} is its number of positions */
    N_("Generation stopped at the model's limit of {0} positions, with "
       "the tokens so far."),
};

/* "generate":{"n":5,"sample":true,"temperature":"0.8","topK":null,
 * "topP":null,"stop":null,"words":{...}}: the generation's settings as
 * given (null: not given) and their words in the page's language, or
 * "generate":null for a run that does not generate. */
static void write_generate_run(FILE *out, const html_run *run)
{
    if (run->generate == 0) {
        fputs(",\n\"generate\":null", out);
        return;
    }
    fprintf(out, ",\n\"generate\":{\"n\":%zu,\"sample\":%s,\"temperature\":",
            run->generate, run->sample ? "true" : "false");
    json_string_or_null(out, run->temperature);
    fputs(",\"topK\":", out);
    json_string_or_null(out, run->top_k);
    fputs(",\"topP\":", out);
    json_string_or_null(out, run->top_p);
    fputs(",\"stop\":", out);
    json_string_or_null(out, run->stop);
    fputs(",\"words\":{", out);
    for (size_t i = 0; i < sizeof generate_words / sizeof *generate_words;
         i++) {
        fputs(i > 0 ? "," : "", out);
        json_string(out, generate_words[i]);
        fputc(':', out);
        json_string(out, _(generate_words[i]));
    }
    fputs("}}", out);
}

/* ,"changedIn":"...": on the page of a --model run, what its "Open a
 * model" changes, in the place of the editor (editor.js): the text, and
 * the heads switched off where the model has an lm_head and runs no
 * experiment of its own (--patch, --head-scores), and the generation
 * where the run generated. */
static void write_changed_in(FILE *out, const html_run *run, const trace *tr)
{
    if (run->checkpoint == NULL)
        return;
    const char *says =
        /* TRANSLATORS: editor.js, on the page of a --model run, in the
         * place of "Edit the run" */
        N_("This run is changed in \"Open a model\": choose its folder "
           "there to change the text or switch heads off.");
    if (run->n_runs > 0 || run->text_as != NULL)
        says = N_("This run is changed in \"Open a model\": choose its "
                  "folder there to change the text, over which the page runs "
                  "the same experiment again.");
    else if (tr->family->lm == NULL)
        says = N_("This run is changed in \"Open a model\": choose its "
                  "folder there to change the text.");
    else if (run->generate > 0)
        says = N_("This run is changed in \"Open a model\": choose its "
                  "folder there to change the text, switch heads off or "
                  "generate.");
    fputs(",\n\"changedIn\":", out);
    json_string(out, _(says));
}

/* ,"runs":[["patch",null],["corrupt","the mat sat"]],"textAs":"clean":
 * a --model run's intervention as given (html_run's runs and text_as),
 * written only in a page that has one. */
static void write_runs(FILE *out, const html_run *run)
{
    if (run->n_runs == 0 && run->text_as == NULL)
        return;
    fputs(",\n\"runs\":[", out);
    for (size_t k = 0; k < run->n_runs; k++) {
        fputs(k > 0 ? ",[" : "[", out);
        json_string(out, run->runs[k].name);
        fputc(',', out);
        json_string_or_null(out, run->runs[k].arg);
        fputc(']', out);
    }
    fputs("],\"textAs\":", out);
    json_string_or_null(out, run->text_as);
}

/* ,"defaults":{"seed":"42","lr":{"sgd":"0.1","adam":"0.01"},...}: the
 * defaults of the options the editor edits, from their rows (html_run's
 * defaults), a default that goes with another option's choice under
 * that choice's name. */
static void write_defaults(FILE *out, const html_run *run)
{
    fputs(",\n\"defaults\":{", out);
    for (size_t i = 0; i < run->n_defaults; i++) {
        const char *name = run->defaults[i].name;
        const bool by = run->defaults[i].choice != NULL;
        const bool first = i == 0 || strcmp(run->defaults[i - 1].name, name);
        const bool last =
            i + 1 == run->n_defaults || strcmp(run->defaults[i + 1].name, name);
        if (first) {
            fputs(i > 0 ? "," : "", out);
            json_string(out, name);
            fputs(by ? ":{" : ":", out);
        } else
            fputc(',', out);
        if (by) {
            json_string(out, run->defaults[i].choice);
            fputc(':', out);
        }
        json_string(out, run->defaults[i].value);
        if (by && last)
            fputc('}', out);
    }
    fputc('}', out);
}

/* {"sentence": ..., "seed": "42", ...}: the editor's command line
 * (html_run), with the language, whether the page carries the core and
 * the model it carries (or null). */
static void write_run(FILE *out, const html_run *run, const html_model *model,
                      const trace *tr, const char *lang, bool live)
{
    fputs("{\"sentence\":", out);
    json_string(out, run->sentence);
    fputs(",\"kv\":", out);
    if (run->kv != NULL)
        json_string(out, run->kv);
    else
        fputs("null", out);
    fprintf(out,
            ",\"seed\":\"%llu\",\"dModel\":%zu,\"dOut\":%zu,\"heads\":%zu,"
            "\n\"variants\":[",
            (unsigned long long)run->seed, run->d_model, run->d_out,
            run->heads);
    size_t n = 0;
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if (run->variants & model_variants[i].bit) {
            if (n++ > 0)
                fputc(',', out);
            json_string(out, model_variants[i].name);
        }
    // every variant the editor offers, in run order: the variants' rows
    fputs("],\"variantChoices\":[", out);
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++) {
        if (i > 0)
            fputc(',', out);
        json_string(out, model_variants[i].name);
    }
    // the variants --layers stacks: the rows that say so (stacks)
    fputs("],\"variantStacks\":[", out);
    n = 0;
    for (size_t i = 0; i < MODEL_N_VARIANTS; i++)
        if (variant_row_of(model_variants[i].id)->stacks) {
            if (n++ > 0)
                fputc(',', out);
            json_string(out, model_variants[i].name);
        }
    fprintf(out,
            "],\"causal\":%s,\"scale\":%s,\"qkvBias\":%s,"
            "\"tokens\":\"%s\",\n",
            run->causal ? "true" : "false", run->scale ? "true" : "false",
            run->qkv_bias ? "true" : "false", run->chars ? "chars" : "words");
    write_training_run(out, run);
    fputs("\"fixed\":[", out);
    for (size_t i = 0; i < run->n_fixed; i++) {
        if (i > 0)
            fputc(',', out);
        json_string(out, run->fixed[i]);
    }
    fputs("],\"lang\":", out);
    json_string(out, lang);
    fprintf(out, ",\"editable\":%s,\"live\":%s,\n\"model\":",
            run->editable ? "true" : "false", live ? "true" : "false");
    write_model_run(out, run, model, tr);
    fputs(",\n\"checkpoint\":", out);
    if (run->checkpoint != NULL)
        json_string(out, run->checkpoint);
    else
        fputs("null", out);
    write_generate_run(out, run);
    fputs(",\n\"ablate\":", out);
    json_string_or_null(out, run->ablate);
    fputs(",\"ablateMode\":", out);
    json_string_or_null(out, run->ablate_mode);
    fputs(",\"mapArgs\":[", out);
    for (size_t i = 0; i < run->n_map; i++) {
        fprintf(out, "%s\"--%s\",", i > 0 ? "," : "", run->map_name[i]);
        json_string(out, run->map_value[i]);
    }
    fputs("]", out);
    write_runs(out, run);
    write_defaults(out, run);
    write_changed_in(out, run, tr);
    fputc('}', out);
}

/* The live page's parts after the data (see the top of this file). */
static void write_live_parts(FILE *out, const html_page *page, const trace *tr)
{
    const html_run *run = page->run;
    char lang[32];
    page_language(lang, sizeof lang);
    const bool live = page_core[0] != '\0';
    fputs("<script type=\"application/json\" id=\"mha-run\">\n", out);
    write_run(out, run, page->model, tr, lang, live);
    fputs("\n</script>\n", out);
    if (!live)
        return;
    if (run->model && page->model != NULL) {
        fputs("<script type=\"application/octet-stream\" id=\"mha-model\">",
              out);
        html_write_model(out, tr, page->model);
        fputs("</script>\n", out);
    }
    /* the page of a --model run: the families core, run in a worker */
    const bool families = run->checkpoint != NULL;
    fputs("<script type=\"application/octet-stream\" id=\"mha-core\">", out);
    fputs(families ? page_core_families : page_core, out);
    fputs("</script>\n", out);
    if (families) {
        fputs("<script type=\"text/plain\" id=\"mha-worker\">\n", out);
        fputs(page_core_imports_js, out);
        fputs(page_model_worker_js, out);
        fputs("</script>\n", out);
    }
    for (const page_catalogue *c = families ? page_core_families_catalogues
                                            : page_catalogues;
         c->lang != NULL; c++)
        if (strcmp(c->lang, lang) == 0) {
            fprintf(out,
                    "<script type=\"application/octet-stream\" "
                    "id=\"mha-messages\" data-lang=\"%s\">%s</script>\n",
                    c->lang, c->mo);
        }
}

/* The start of the page's generator line, within its first kilobyte:
 * what marks a file as a page of this program, which a later --html
 * run may replace (io/outputs.h: outputs_beside's mark; a user's file
 * of that name is refused). */
static const char generator_mark[] =
    "<meta name=\"generator\" content=\"mha-explain ";

static int write_page(FILE *out, const trace *tr, const html_page *page,
                      mx_error *err)
{
    /* the language of the page's words, as BCP 47 writes it (pt-BR),
     * for screen readers */
    char lang[32];
    page_language(lang, sizeof lang);
    for (char *c = lang; *c; c++)
        if (*c == '_')
            *c = '-';
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n", lang);
    fputs("<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\""
          "default-src 'none'; style-src 'unsafe-inline'; "
          "script-src 'unsafe-inline'",
          out);
    /* the live page compiles its core: WebAssembly, and nothing else */
    if (page->run != NULL && page_core[0] != '\0')
        fputs(" 'wasm-unsafe-eval'", out);
    /* and a --model run's page runs it in a worker of its own text */
    if (page->run != NULL && page_core[0] != '\0' &&
        page->run->checkpoint != NULL)
        fputs("; worker-src blob:", out);
    fputs("\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, "
          "initial-scale=1\">\n",
          out);
    fputs(generator_mark, out);
    fputs(MHA_VERSION "\">\n<title>mha-explain: ", out);
    const labels *tokens = trace_find_tokens(tr)->rows;
    for (size_t i = 0; i < tokens->n; i++) {
        if (i > 0)
            fputc(' ', out);
        html_text(out, tokens->s[i]);
    }
    fputs("</title>\n<style>\n", out);
    fputs(page_css, out);
    /* a live page may be trained by its editor: it carries the training
     * view whether or not its own run was trained */
    const bool training =
        html_has_training(tr) || (page->run != NULL && page_core[0] != '\0');
    if (training)
        fputs(page_training_css, out);
    const bool maps = html_has_maps(tr);
    if (maps)
        fputs(page_maps_css, out);
    const bool generation = html_has_generation(tr);
    if (generation)
        fputs(page_generation_css, out);
    fputs("</style>\n</head>\n<body>\n"
          "<noscript>This page draws its views with JavaScript; the same "
          "numbers are in mha-explain's text and CSV output.</noscript>\n"
          "<main id=\"app\"></main>\n"
          "<script type=\"application/json\" id=\"mha-data\">\n",
          out);
    if (html_write_data(out, tr, page, err) != 0)
        return -1;
    fputs("\n</script>\n", out);
    if (page->run != NULL)
        write_live_parts(out, page, tr);
    fputs("<script>\n", out);
    if (training)
        fputs(page_training_js, out);
    if (maps)
        fputs(page_maps_js, out);
    if (generation)
        fputs(page_generation_js, out);
    if (html_has_lens(tr))
        fputs(page_lens_js, out);
    if (page->run != NULL && page_core[0] != '\0' &&
        page->run->checkpoint != NULL) {
        fputs(page_model_runner_js, out);
        fputs(page_model_switches_js, out);
    }
    fputs(page_js, out);
    fputs("</script>\n</body>\n</html>\n", out);
    return 0;
}

/* path, or with several pages "<stem>.sentence<i><ext>" (the extension:
 * from the last dot of the file's name, if it has one that is not the
 * name's first character: ".page" gives ".page.sentence0", as --plot's
 * files are named). */
static char *page_path(const char *path, size_t pages, size_t i)
{
    size_t len = strlen(path) + 48;
    char *s = malloc(len);
    if (s == NULL)
        return NULL;
    const char *slash = strrchr(path, '/');
    const char *name = slash != NULL ? slash + 1 : path;
    const char *dot = strrchr(name, '.');
    if (dot == name)
        dot = NULL; /* a hidden file's name, not an extension */
    if (pages <= 1)
        snprintf(s, len, "%s", path);
    else if (dot == NULL)
        snprintf(s, len, "%s.sentence%zu", path, i);
    else
        snprintf(s, len, "%.*s.sentence%zu%s", (int)(dot - path), path, i, dot);
    return s;
}

struct html_set {
    size_t pages, made; /* pages to write; pages written so far */
    char **finals;      /* (pages) the pages' names */
    outputs *tx;        /* the run's files */
    size_t group;       /* the pages' group in it */
};

void html_free(html_set *set)
{
    if (set == NULL)
        return;
    for (size_t i = 0; set->finals != NULL && i < set->pages; i++)
        free(set->finals[i]);
    free(set->finals);
    free(set);
}

int html_open(html_set **out, outputs *tx, const char *path, size_t pages,
              mx_error *err)
{
    *out = NULL;
    html_set *set = calloc(1, sizeof *set);
    if (set == NULL)
        return err_nomem(err, _("a path"));
    set->pages = pages;
    set->tx = tx;
    set->finals = calloc(pages > 0 ? pages : 1, sizeof *set->finals);
    if (set->finals == NULL) {
        html_free(set);
        return err_nomem(err, _("a path"));
    }
    for (size_t i = 0; i < pages; i++) {
        set->finals[i] = page_path(path, pages, i);
        if (set->finals[i] == NULL) {
            html_free(set);
            return err_nomem(err, _("a path"));
        }
    }
    if (outputs_beside(tx, &set->group, "--html", generator_mark, err) != 0) {
        html_free(set);
        return -1;
    }
    *out = set;
    return 0;
}

int html_add(html_set *set, const trace *tr, const html_page *page,
             mx_error *err)
{
    if (trace_find_tokens(tr) == NULL)
        return err_input(err, _("--html: the run has no tokens to show"));
    assert(set->made < set->pages); /* one call per page */
    size_t model_bytes = 0;
    if (page->run != NULL && page->run->model && page->model != NULL &&
        html_model_size(&model_bytes, tr, page->model, err) != 0)
        return -1;
    const char *path = set->finals[set->made++];
    FILE *f = NULL;
    if (outputs_create(set->tx, &f, set->group, NULL, path, err) != 0)
        return -1;
    mx_error page_err = {0};
    int unwritten = write_page(f, tr, page, &page_err);
    // the page as written fits MAX_PAGE_MB (a lesson's was estimated
    // before the run, cli/model_options.c); a larger one is not kept
    const long bytes = unwritten == 0 ? ftell(f) : -1;
    if (bytes > (long)MAX_PAGE_MB * 1000000L) {
        unwritten = 1;
        err_input(&page_err,
                  _("--html: the page is about %.0f MB, more than the %d MB "
                    "a browser opens well: use fewer words, or show fewer "
                    "layers and heads (--layers, --show-heads)"),
                  (double)bytes / 1e6, MAX_PAGE_MB);
    }
    int failed = unwritten != 0 || ferror(f);
    int e = errno;
    if (fclose(f) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (unwritten != 0) {
        *err = page_err;
        return -1;
    }
    return failed ? err_write(err, path, e != 0 ? e : EIO) : 0;
}
