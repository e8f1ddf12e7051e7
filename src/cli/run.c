/* run.c: running a job: the model over each sentence, to every output. */
#include "cli/run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/i18n.h"
#include "cli/folder_kind.h"
#include "cli/intervene_options.h"
#include "cli/model_options.h"
#include "cli/page_run.h"
#include "cli/progress.h"
#include "cli/run_errors.h"
#include "cli/run_files.h"
#include "cli/settings.h"
#include "cli/sink.h"
#include "cli/table_hint.h"
#include "cli/weights_options.h"
#include "html/html.h"
#include "io/csv_in.h"
#include "io/input.h"
#include "io/spool.h"
#include "io/stdout.h"
#include "model/lesson/manifest.h"
#include "model/lesson/weights.h"
#include "model/family.h"
#include "model/pipeline.h"
#include "model/trace.h"
#include "plot/plot.h"
#include "render/check.h"
#include "render/explain.h"
#include "render/render.h"
#include "render/step.h"
#include "render/textbuf.h"
#include "render/textwidth.h"

/* Every name given to --tables must be a table this run makes: a name
 * that only another variant or option makes would print nothing; the
 * option, when an option's row says it makes that table (table_hint.h),
 * is named. Checked before the run, as its tables may go out while it is
 * made. */
static int check_tables_made(const options *opt, const model_input *in,
                             mx_error *err)
{
    const run_request rq = run_request_of(opt);
    for (size_t k = 0; k < rq.n_tables; k++) {
        if (pipeline_makes_table(&rq, in, &rq.tables[k]))
            continue;
        const table_id id = table_pick_row(&rq.tables[k]);
        const option_row *maker =
            id == TABLE_COUNT ? NULL : table_option_missing(opt, id);
        if (maker != NULL)
            return err_usage(err,
                             _("--tables: this run makes no table '%s' "
                               "(it comes with --%s)"),
                             opt->tables[k], maker->name);
        return err_usage(err,
                         _("--tables: this run makes no table '%s' "
                           "(it comes with another --variant or "
                           "option)"),
                         opt->tables[k]);
    }
    return 0;
}

/* --train: the first loss of the trace that is not finite (the training
 * diverged) at or after table *i: its row (the loss at the parameters
 * after that many steps) in *step, and its table's index in *i; false
 * when every loss from *i on is finite. */
static bool find_diverged(size_t *i, size_t *step, const trace *tr)
{
    for (; *i < trace_count(tr); (*i)++) {
        const table *t = trace_at(tr, *i);
        if (t->id != TABLE_LOSS || t->grad || t->values.v == NULL)
            continue;
        for (size_t r = 0; r < t->values.rows; r++)
            if (!isfinite(t->values.v[r])) {
                *step = r;
                return true;
            }
    }
    return false;
}

/* A diverged training is shown in its loss table, and said once per
 * variant on stderr, naming the first such step; the run still
 * succeeds. */
static void warn_diverged(const trace *tr)
{
    size_t step = 0;
    for (size_t i = 0; find_diverged(&i, &step, tr); i++)
        fprintf(stderr,
                _("mha-explain: warning: %s: the loss is not finite "
                  "from step %zu on (try a smaller --lr)\n"),
                variant_id_name(trace_at(tr, i)->variant), step);
}

/* --csv-dir of a trained run saves its model, and --html's page shows
 * its training and carries the model: a diverged one (its parameters
 * not finite) is refused, and the transaction leaves the files as they
 * were (run_files.h). saves: --csv-dir saves the model. */
static int refuse_diverged(const options *opt, bool saves, const trace *tr,
                           mx_error *err)
{
    size_t i = 0, step = 0;
    if (!find_diverged(&i, &step, tr))
        return 0;
    const char *variant = variant_id_name(trace_at(tr, i)->variant);
    if (saves)
        return err_input(err,
                         _("--csv-dir %s: %s: the loss is not finite from "
                           "step %zu on, so the trained model is not saved "
                           "(try a smaller --lr)"),
                         opt->csv_dir, variant, step);
    return err_input(err,
                     _("--html %s: %s: the loss is not finite from step %zu "
                       "on, so the page of the training is not written (try "
                       "a smaller --lr)"),
                     opt->html, variant, step);
}

/* --generate: the model's end-of-text token, or its positions filled,
 * stops generation, said on stderr (as the other stops); the tokens so
 * far are kept. */
static void note_generation_end(const trace *tr)
{
    if (tr->model.end_token_at > 0)
        fprintf(stderr,
                _("mha-explain: note: --generate: new token %zu is the "
                  "model's end-of-text token (id %ld): generation stopped "
                  "there, with the tokens so far\n"),
                tr->model.end_token_at, tr->model.end_token);
    if (tr->model.context_full > 0 && tr->family->model_name == NULL &&
        !tr->model.positions && tr->model.trained_context == 0)
        fprintf(stderr,
                ngettext("mha-explain: note: --generate: the folder's "
                         "model.json does not record the longest sentence "
                         "the model was trained on (it was written before it "
                         "did), so the model took up to %zu position, the "
                         "most a sentence may have: generation stopped "
                         "there, with the words so far\n",
                         "mha-explain: note: --generate: the folder's "
                         "model.json does not record the longest sentence "
                         "the model was trained on (it was written before it "
                         "did), so the model took up to %zu positions, the "
                         "most a sentence may have: generation stopped "
                         "there, with the words so far\n",
                         tr->model.context_full),
                tr->model.context_full);
    else if (tr->model.context_full > 0 && tr->family->model_name == NULL)
        fprintf(stderr,
                ngettext("mha-explain: note: --generate: the lesson model "
                         "takes at most %zu position (the longest sentence "
                         "it was trained on): generation stopped there, with "
                         "the words so far\n",
                         "mha-explain: note: --generate: the lesson model "
                         "takes at most %zu positions (the longest sentence "
                         "it was trained on): generation stopped there, with "
                         "the words so far\n",
                         tr->model.context_full),
                tr->model.context_full);
    else if (tr->model.context_full > 0)
        fprintf(stderr,
                ngettext("mha-explain: note: --generate: the model takes at "
                         "most %zu position (%s): generation stopped there, "
                         "with the tokens so far\n",
                         "mha-explain: note: --generate: the model takes at "
                         "most %zu positions (%s): generation stopped there, "
                         "with the tokens so far\n",
                         tr->model.context_full),
                tr->model.context_full, tr->model.context_key);
    if (tr->model.not_finite_at > 0)
        fprintf(stderr,
                _("mha-explain: warning: --generate: the logits are not "
                  "finite from new token %zu on (the model's weights or "
                  "activations hold NaN or infinity), so the tokens picked "
                  "from them mean nothing\n"),
                tr->model.not_finite_at);
}

/* A label as the terminal shows it (controls escaped) added to b. */
static int add_label(textbuf *b, const char *s)
{
    char *shown = display_escape(s);
    const int rc = shown != NULL ? textbuf_add(b, shown, strlen(shown)) : -1;
    free(shown);
    return rc;
}

/* A lesson model's continuation, for each variant that generated: the
 * prompt's words, then between the marks each new word after a space
 * (the text --stop reads). Left out when memory runs out. */
static void show_lesson_continued(FILE *out, const trace *tr)
{
    const table *prompt = trace_find_tokens(tr);
    for (size_t i = 0; prompt != NULL && i < trace_count(tr); i++) {
        const table *t = trace_at(tr, i);
        if (t->id != TABLE_GENERATED || t->grad)
            continue;
        textbuf b = {0};
        int rc = 0;
        for (size_t r = 0; r < prompt->rows->n; r++) {
            if (r > 0)
                rc |= textbuf_add_char(&b, ' ');
            rc |= add_label(&b, prompt->rows->s[r]);
        }
        rc |= textbuf_add(&b, "\u27e6", strlen("\u27e6"));
        for (size_t r = 0; r < t->rows->n; r++) {
            rc |= textbuf_add_char(&b, ' ');
            rc |= add_label(&b, t->rows->s[r]);
        }
        rc |= textbuf_add(&b, "\u27e7", strlen("\u27e7"));
        rc |= textbuf_add_char(&b, '\0');
        if (rc == 0)
            fprintf(out,
                    _("\n[%s] the text continued (the new text between "
                      "\u27e6 \u27e7):\n%s\n"),
                    table_variant_name(t), b.s);
        textbuf_free(&b);
    }
}

/* --generate with --ablate in text: what the clean model wrote, and
 * where the two new texts part. */
static void show_clean_continued(FILE *out, const trace *tr)
{
    const trace_model *m = &tr->model;
    fprintf(out,
            _("\n[%s] the clean model (no head switched off) continued:\n"
              "%s\n"),
            tr->family->model_name, m->continued_clean);
    if (m->clean_same)
        fputs(_("(the same new text as with the heads switched off)\n"), out);
    else if (m->clean_common == 0)
        fputs(_("(the two new texts part at their first token)\n"), out);
    else if (m->clean_common == 1)
        fputs(_("(the two new texts share their first token, then part)\n"),
              out);
    else /* the singular too: a language's form for 21, say */
        fprintf(out,
                ngettext("(the two new texts share their first %zu token, "
                         "then part)\n",
                         "(the two new texts share their first %zu tokens, "
                         "then part)\n",
                         m->clean_common),
                m->clean_common);
}

/* --generate in text: the prompt and, between the marks, the new text. */
static void show_continued(FILE *out, const trace *tr)
{
    if (tr->model.continued != NULL && tr->family->model_name != NULL)
        fprintf(out,
                _("\n[%s] the text continued (the new text between "
                  "\u27e6 \u27e7):\n%s\n"),
                tr->family->model_name, tr->model.continued);
    else if (tr->family->model_name == NULL)
        show_lesson_continued(out, tr);
    if (tr->model.continued_clean != NULL && tr->family->model_name != NULL)
        show_clean_continued(out, tr);
}

/* One run of the model: sentence number `index` of --input (or -1 for a
 * single run), rendered to out and, with --csv-dir, added to files
 * (begun at the first run, in sub or in the directory itself), with
 * --plot drawn as a page and with --html written as a page. A failed
 * --check sets *check_failed; the run goes on. Unless an output needs
 * the whole trace (keeps_all), its tables go out as they are made, so a
 * long run holds few of them at once. */
/* A train_watch (train.h): the step on the progress line ctx, erased
 * when the variant's training ends. */
static void show_training(void *ctx, variant_id v, size_t step, size_t steps,
                          float loss)
{
    if (step < steps)
        progress_training(ctx, variant_by_id(v)->name, step, steps, loss);
    else
        progress_end(ctx);
}

/* A passes_watch (pipeline.h): an intervention's passes on the progress
 * line ctx, erased when they end. */
static void show_passes(void *ctx, const char *option, size_t done,
                        size_t total)
{
    if (done < total)
        progress_passes(ctx, option, done, total);
    else
        progress_end(ctx);
}

/* Whether the run's trace shows the model it trained (its vocabulary,
 * its parameters): a trained run's does, but --repeat-random's trains
 * (or reads) its model for the scores alone and shows none of it, so
 * its --csv-dir folder holds head_scores without model.json. */
static bool shows_trained_model(const options *opt)
{
    return opt->train && opt->repeat_random == 0;
}

/* The model.json of the --weights folder the run read, or NULL. */
static const trained_manifest *read_from(const options *opt)
{
    return opt->weight_files != NULL && opt->weight_files->manifest.present
               ? &opt->weight_files->manifest
               : NULL;
}

/* model.json of a trained run in its --csv-dir folder, which records how
 * the folder's CSV files are written. */
static int put_manifest(csv_dir_set *files, const options *opt,
                        const run_request *rq, const trace *tr, mx_error *err)
{
    char *text = NULL;
    size_t len = 0;
    const csv_style csv = {opt->csv_delimiter, opt->decimal_comma};
    int rc = manifest_text(&text, &len, rq, tr, &csv, opt->corpus,
                           read_from(opt), err);
    if (rc == 0)
        rc = csv_dir_add_file(files, NULL, MANIFEST_NAME, text, len, err);
    free(text);
    return rc;
}

/* The run's --html page (a trained model's page carries the model,
 * html.h). */
static int put_page(html_set *html, const options *opt, const model_input *in,
                    const run_request *rq, const trace *tr, mx_error *err)
{
    explain_context notes = explain_for(opt, tr);
    notes.width = EXPLAIN_NO_WRAP;
    const text_style text = {
        .precision = opt->precision, .full = opt->full, .trace = tr};
    const html_run run = page_run_of(opt, in);
    html_model model = {.corpus = in->corpus,
                        .corpus_lines = in->corpus_lines,
                        .n_corpus = in->corpus != NULL ? in->n_corpus : 0};
    char *manifest = NULL;
    const csv_style style = {opt->csv_delimiter, opt->decimal_comma};
    int rc = run.model ? manifest_text(&manifest, &model.len, rq, tr, &style,
                                       opt->corpus, read_from(opt), err)
                       : 0;
    model.manifest = manifest;
    const html_page page = {.look = &opt->plot_look,
                            .masked = tr->model.causal,
                            .scaled = tr->model.scale,
                            .text = &text,
                            .explain = &notes,
                            .run = &run,
                            .model = run.model ? &model : NULL};
    if (rc == 0)
        rc = html_add(html, tr, &page, err);
    free(manifest);
    return rc;
}

static int run_and_render(FILE *out, bool *check_failed, const options *opt,
                          const model_input *in, long index,
                          const char *heading, run_files *files,
                          const char *sub, mx_error *err)
{
    trace tr;
    trace_init(&tr);
    const bool grid = use_grid(opt, in);
    const bool streams = !keeps_all(opt, grid);
    const csv_out_style csv = {
        .delimiter = opt->csv_delimiter,
        .decimal_comma = opt->decimal_comma,
        .bom = opt->bom && index <= 0,
        .header = index <= 0,
        .sentence = index,
        .step = opt->generate > 0 && opt->kv_steps,
    };
    // the layer column once the trace shows the model (sink.h)
    run_output o = {
        .opt = opt, .tr = &tr, .sub = sub, .file_csv = csv, .csv_out = csv};
    o.file_csv.bom = opt->bom;
    check_begin(&o.report);
    o.style = text_style_of(opt, &tr, &o.notes, grid);
    o.text_streams = opt->format == FORMAT_TEXT && opt->focus == NULL &&
                     (opt->torch_style || !o.style.grid);
    csv_stream_begin(&o.csv, out, &o.csv_out);
    text_stream_begin(&o.text, out, &o.style,
                      opt->torch_style ? torch_table : text_table);
    /* everything that can fail on the input fails before any output */
    int rc = check_tables_made(opt, in, err);
    if (rc == 0)
        rc = run_files_csv(files, opt, err);
    o.files = files->csv;
    if (rc == 0 && streams)
        trace_set_sink(&tr, put_table, &o);
    if (rc == 0 && heading != NULL && opt->format == FORMAT_TEXT)
        /* each sentence on its own step too; --input's text is spooled */
        fprintf(out, "%s=== %s ===\n\n",
                index <= 0  ? ""
                : opt->step ? "\f"
                            : "\n",
                heading);
    /* a long training shows its step on a terminal, a long intervention
     * its passes */
    run_request rq = run_request_of(opt);
    progress bar;
    const train_watch watch = {show_training, &bar};
    const passes_watch passes = {show_passes, &bar};
    progress_begin(&bar, stderr,
                   (rq.train || rq.patch || rq.ablate_all) && !opt->quiet &&
                       isatty(STDERR_FILENO));
    if (bar.out != NULL) {
        rq.watch = rq.train ? &watch : NULL;
        rq.passes = &passes;
    }
    if (rc == 0 && pipeline_run(&tr, &rq, in, err) != 0) {
        run_error_message(err, opt);
        rc = -1;
    }
    progress_end(&bar);
    /* a trained model's folder describes itself (model/manifest.h) */
    const bool saves_model = shows_trained_model(opt) && o.files != NULL;
    if (rc == 0 && (saves_model || (opt->train && files->html != NULL)))
        rc = refuse_diverged(opt, saves_model, &tr, err);
    if (rc == 0) {
        warn_diverged(&tr);
        note_generation_end(&tr);
    }
    if (rc == 0 && saves_model)
        rc = put_manifest(o.files, opt, &rq, &tr, err);
    /* a run that kept its trace: every table now, in order */
    for (size_t i = 0; i < trace_count(&tr) && rc == 0 && !streams; i++)
        rc = put_table(&o, trace_at(&tr, i), err);
    if (rc == 0 && opt->format == FORMAT_CSV) {
        run_output_layered(&o);
        rc = csv_stream_end(&o.csv, err);
    } else
        csv_stream_free(&o.csv);
    if (rc == 0 && files->plot != NULL) {
        size_t n = 0;
        const table **chosen = select_tables(&tr, opt, &n);
        rc = chosen == NULL ? err_nomem(err, _("the table list"))
                            : plot_page(files->plot, &tr,
                                        opt->tables != NULL ? chosen : NULL, n,
                                        heading, &opt->plot_look, err);
        free(chosen);
    }
    if (rc == 0 && opt->focus != NULL)
        rc = focus_stream_end(&o.focus, out, err);
    focus_stream_free(&o.focus);
    if (rc == 0 && opt->format == FORMAT_TEXT && !o.text_streams &&
        opt->focus == NULL)
        rc = render_grid_text(out, opt, &tr, &o.style, err);
    if (rc == 0 && opt->check) {
        /* the report goes with the tables in text, beside them in CSV */
        FILE *report = opt->format == FORMAT_TEXT ? out : stderr;
        const check_report r = o.report;
        if (opt->format == FORMAT_TEXT && o.n > 0)
            fputc('\n', report);
        /* wrapped for a person at a terminal; one line per invariant
         * for a script reading a pipe or a file */
        if (opt->format == FORMAT_TEXT && isatty(STDOUT_FILENO))
            check_print_wrapped(report, &r, screen_width(opt));
        else
            check_print(report, &r);
        if (!check_passed(&r))
            *check_failed = true;
    }
    /* the page is written whole, under a temporary name, last */
    if (rc == 0 && files->html != NULL)
        rc = put_page(files->html, opt, in, &rq, &tr, err);
    // the continuation follows the tables, or --focus's view of them
    if (rc == 0 && opt->format == FORMAT_TEXT)
        show_continued(out, &tr);
    text_stream_end(&o.text);
    trace_free(&tr);
    return rc;
}

/* Where a run's text goes: straight to stdout, or, for a run that also
 * writes files or reads --input, into a spool copied to stdout once
 * everything else has succeeded; also for the pager and --step, which
 * need the whole text, and for an intervention or --generate, which can
 * fail on their input after the plain tables have gone out (a --patch
 * whose two runs give the same logit difference, --sample over NaN). */
static int open_output(FILE **out, FILE **spool, const options *opt,
                       mx_error *err)
{
    const bool late_errors = opt->patch || opt->ablate != NULL ||
                             opt->head_scores || opt->generate > 0;
    const bool spooled = opt->input != NULL || opt->csv_dir != NULL ||
                         opt->plot != NULL || opt->html != NULL || opt->step ||
                         late_errors || may_page(opt->no_pager, opt->step);
    return route_output(out, spool, spooled, err);
}

/* The spooled text on stdout: as it is, through the pager, or a step at a
 * time (--step). Closes the spool. */
static int show_spool(FILE *spool, const options *opt, mx_error *err)
{
    return spool_to_stdout(spool, opt->step ? step_through : NULL,
                           may_page(opt->no_pager, opt->step), err);
}

/* ---- putting the run's files in place ---------------------------------
 * --plot, --html and --csv-dir: opened before the runs, filled by them
 * (run_and_render), then put in place together at the end (finish_run). */

/* The end of a run that returned rc: its files put in place (or removed
 * after a failure), then its spooled text on stdout. The files they
 * replace are kept until the text is written: a write error there, or a
 * signal meanwhile (cleanup.h), puts them back (run_files.h), so a
 * failed run leaves the user's files as they were. A failed --check is
 * reported once everything is written. */
static int finish_run(int rc, bool check_failed, run_files *files, FILE *spool,
                      const options *opt, mx_error *err)
{
    if (rc != 0)
        spool_blame(spool, err);
    if (rc == 0 && spool != NULL)
        rc = check_stdout(err);
    if (rc == 0)
        rc = run_files_commit(files, err);
    if (rc == 0 && spool != NULL) {
        rc = show_spool(spool, opt, err);
        spool = NULL;
    }
    run_files_end(files, rc == 0);
    spool_discard(spool);
    if (rc == 0 && check_failed)
        rc = err_set(err, EXIT_CHECK_FAILED,
                     _("--check: an invariant "
                       "does not hold (see the [check] lines)"));
    return rc;
}

/* ---- the jobs ------------------------------------------------------- */

/* A single run (no --input): its picture, the run, its --csv-dir files.
 * A run whose page (--html) would be too large stops before any file is
 * opened (check_run). */
static int run_single(const options *opt, const model_input *in, mx_error *err)
{
    double values = 0;
    if (opt->html != NULL && check_run(&values, opt, in, false, err) != 0)
        return -1;
    run_files files;
    FILE *out = NULL, *spool = NULL;
    bool check_failed = false;
    int rc = run_files_open(&files, opt, 1, err);
    if (rc == 0)
        rc = open_output(&out, &spool, opt, err);
    if (rc == 0)
        rc = run_and_render(out, &check_failed, opt, in, -1, NULL, &files, NULL,
                            err);
    return finish_run(rc, check_failed, &files, spool, opt, err);
}

/* --input FILE --column NAME: every sentence is checked before the first
 * one is run, so a bad row stops the run before anything is written, and
 * so is the work of all of them together (MAX_INPUT_VALUES). */
static int run_sentence_file(const options *opt, mx_error *err)
{
    const csv_style style = {opt->csv_delimiter, opt->decimal_comma};
    char **sentences = NULL;
    size_t *lines = NULL, n = 0;
    if (read_sentences(&sentences, &lines, &n, opt->input, opt->column, &style,
                       err) != 0)
        return -1;
    int rc = 0;
    double work = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const model_input in = {.sentence = sentences[i],
                                .len = strlen(sentences[i]),
                                .pair = opt->pair};
        double values = 0;
        const bool streamed = !keeps_all(opt, use_grid(opt, &in));
        if (check_run(&values, opt, &in, streamed, err) != 0) {
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err->msg);
            rc = err_input(err, _("%s:%zu: column '%s': %s"), opt->input,
                           lines[i], opt->column, why);
        }
        work += values;
    }
    if (rc == 0 && work > (double)MAX_INPUT_VALUES)
        rc = err_input(err,
                       _("%s: the %zu sentences together would make about "
                         "%.0f million values, more than the %zu million "
                         "one --input run may make: split the file or "
                         "use smaller widths"),
                       opt->input, n, work / 1e6, MAX_INPUT_VALUES / 1000000);
    run_files files = {0};
    FILE *out = NULL, *spool = NULL;
    bool check_failed = false;
    if (rc == 0)
        rc = run_files_open(&files, opt, n, err);
    if (rc == 0)
        rc = open_output(&out, &spool, opt, err);
    progress bar;
    progress_begin(&bar, stderr, !opt->quiet && isatty(STDERR_FILENO));
    for (size_t i = 0; i < n && rc == 0; i++) {
        const model_input in = {.sentence = sentences[i],
                                .len = strlen(sentences[i]),
                                .pair = opt->pair};
        progress_step(&bar, i, n);
        char heading[512], sub[64];
        char *shown = display_escape(sentences[i]);
        if (shown == NULL) {
            rc = err_nomem(err, _("the heading"));
            break;
        }
        /* at most 200 bytes of the sentence, cut between two characters
         * (the picture's heading must stay valid UTF-8 for pango) */
        shown[text_prefix(shown, 200)] = '\0';
        /* TRANSLATORS: the heading of each --input row: its index and text */
        snprintf(heading, sizeof heading, _("sentence %zu: %.200s"), i, shown);
        free(shown);
        snprintf(sub, sizeof sub, "sentence%zu", i);
        rc = run_and_render(out, &check_failed, opt, &in, (long)i, heading,
                            &files, sub, err);
    }
    progress_end(&bar);
    /* the files of every sentence are moved into place together, then
     * the text of every sentence is printed */
    rc = finish_run(rc, check_failed, &files, spool, opt, err);
    free_strings(sentences, n);
    free(lines);
    return rc;
}

/* --embeddings FILE: the rows of the file are the inputs. */
static int run_embeddings_file(const options *opt, mx_error *err)
{
    const csv_style style = {opt->csv_delimiter, opt->decimal_comma};
    char **words = NULL;
    size_t n = 0;
    matrix rows = {0};
    if (read_embeddings(&words, &n, &rows, opt->embeddings, &style, MAX_WIDTH,
                        err) != 0)
        return -1;
    const model_input in = {.words = (const char *const *)words,
                            .embeddings = &rows};
    int rc = run_single(opt, &in, err);
    free_strings(words, n);
    matrix_free(&rows);
    return rc;
}

/* A sentence from the command line, or from standard input with "-". */
static int run_sentence(const options *opt, mx_error *err)
{
    char *from_stdin = NULL;
    model_input in = {.sentence = opt->sentence,
                      .len = opt->sentence ? strlen(opt->sentence) : 0,
                      .kv = opt->kv,
                      .pair = opt->pair};
    // --corpus FILE --column NAME: the sentences trained on
    char **corpus = NULL;
    size_t *lines = NULL, n_corpus = 0;
    const csv_style style = {opt->csv_delimiter, opt->decimal_comma};
    if (opt->corpus != NULL &&
        read_sentences(&corpus, &lines, &n_corpus, opt->corpus, opt->column,
                       &style, err) != 0)
        return -1;
    in.corpus = (const char *const *)corpus;
    in.n_corpus = n_corpus;
    in.corpus_lines = lines;
    in.corpus_file = opt->corpus;
    in.corpus_column = opt->column;
    int rc = 0;
    if (opt->corpus != NULL && n_corpus == 0)
        rc = err_input(err, _("%s: column '%s' holds no sentence"), opt->corpus,
                       opt->column);
    if (rc == 0 && opt->sentence_from_stdin) {
        rc = read_stdin(&from_stdin, &in.len, err);
        in.sentence = from_stdin;
    }
    if (rc == 0)
        rc = run_single(opt, &in, err);
    free(from_stdin);
    free_strings(corpus, n_corpus);
    free(lines);
    return rc;
}

/* The job of opt, with --weights' files open (weights_open_dir). */
static int run_inputs(const options *opt, mx_error *err)
{
    if (opt->input != NULL)
        return run_sentence_file(opt, err);
    if (opt->embeddings != NULL)
        return run_embeddings_file(opt, err);
    return run_sentence(opt, err);
}

int run_job(const options *opt, mx_error *err)
{
    int rc = 0;
    if (opt->step && !(isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)))
        rc = err_usage(err, "%s",
                       isatty(STDIN_FILENO)
                           ? _("--step: waits for keys on a terminal, and "
                               "standard output is not one (--explain "
                               "gives the notes without pauses)")
                           : _("--step: waits for keys on a terminal, and "
                               "standard input is not one (--explain gives "
                               "the notes without pauses)"));
    if (rc == 0 && opt->model != NULL)
        rc = folder_check_model(opt->model, err);
    if (rc == 0 && opt->weights != NULL)
        rc = folder_check_weights(opt->weights, err);
    if (rc == 0 && opt->model != NULL)
        rc = folder_check_model(opt->model, err);
    if (rc == 0 && opt->weights != NULL)
        rc = folder_check_weights(opt->weights, err);
    if (rc != 0)
        return rc;
    if (opt->weights == NULL)
        return run_inputs(opt, err);
    /* the files the check found are the files the run reads */
    weights_files files;
    rc = weights_open_dir(&files, opt->weights, opt->variants, opt->heads,
                          opt->block_layers, opt->tie, err);
    if (rc != 0)
        return rc;
    options with_files;
    rc = weights_options(&with_files, opt, &files, err);
    if (rc != 0) {
        interventions_free(&with_files);
        weights_files_free(&files);
        return rc;
    }
    rc = run_inputs(&with_files, err);
    interventions_free(&with_files);
    weights_files_free(&files);
    return rc;
}
