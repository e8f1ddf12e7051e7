/* main.c: parses the command line, runs the job (cli/run.c) and returns
 * the exit status.
 *
 * The only place that prints errors or decides how the program ends:
 *   0 success, 1 the output could not be written, 2 bad usage or input,
 *   3 a --check failed. close_stdout (io/stdout.c) reports a write error
 *   of standard output itself, after everything else.
 */
#define _GNU_SOURCE /* pthread_setattr_default_np */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/cleanup.h"
#include "base/error.h"
#include "base/i18n.h"
#include "cli/option_table.h"
#include "cli/lang_arg.h"
#include "cli/man_page.h"
#include "cli/options.h"
#include "cli/run.h"
#include "cli/supervise.h"
#include "io/stdout.h"
#include "model/lesson/model.h"
#include "model/lesson/variants.h"
#include "render/textwidth.h"

/* Prints err on stderr, with the --help hint after a usage mistake, and
 * returns its exit status. */
static int fail(const mx_error *err)
{
    /* messages quote what the user typed: escape control characters */
    char *safe = display_escape(err->msg);
    fprintf(stderr, "mha-explain: %s\n", safe != NULL ? safe : err->msg);
    free(safe);
    if (err->usage)
        fputs(_("Try 'mha-explain --help' for more information.\n"), stderr);
    return err->status;
}

/* One line on stderr when the heads of a module that makes each head
 * apart (the wrapper's row, HEADS_APART) are one column wide: most
 * likely the book's MultiHeadAttentionWrapper(d_in, d_out, ...,
 * num_heads) copied as --d-out d_out, where --d-out is the total width.
 * Not when the book's width would pass MAX_WIDTH: no run could have it. */
static void note_wrapper_width(const options *opt)
{
    if ((opt->variants & variants_making(HEADS_APART)) && opt->heads > 1 &&
        opt->d_out == opt->heads && opt->d_out * opt->heads <= MAX_WIDTH)
        fprintf(stderr,
                _("mha-explain: note: --d-out %zu is the wrapper's total "
                  "width, %zu heads of 1 column; the book's "
                  "MultiHeadAttentionWrapper(d_in, %zu, ..., num_heads=%zu) "
                  "is --d-out %zu\n"),
                opt->d_out, opt->heads, opt->d_out, opt->heads,
                opt->d_out * opt->heads);
}

/* One line on stderr when --lang asks for a translation whose catalogue
 * is not found (a program copied without its share/locale): the
 * messages stay in English, and the line says where it looked. */
static void note_missing_catalogue(const char *lang)
{
    const char *dir = NULL;
    if (lang != NULL && !i18n_has_catalogue(lang, &dir))
        fprintf(stderr,
                _("mha-explain: note: --lang %s: no translations found in "
                  "%s (installed with the program in ../share/locale); "
                  "messages are in English\n"),
                lang, dir != NULL ? dir : "?");
}

/* The threads' stacks: a thread takes the size of `ulimit -s` by
 * default, and the libraries' threads (pango's font loading, which runs
 * fontconfig) and the workers need more than a small limit gives
 * (`ulimit -s 64`): at least 8 MiB each, as mapped memory, whatever the
 * limit. */
static void thread_stacks(void)
{
    const size_t least = (size_t)8 << 20;
    pthread_attr_t attr;
    size_t size = 0;
    if (pthread_getattr_default_np(&attr) != 0)
        return;
    if (pthread_attr_getstacksize(&attr, &size) == 0 && size < least &&
        pthread_attr_setstacksize(&attr, least) == 0)
        pthread_setattr_default_np(&attr);
    pthread_attr_destroy(&attr);
}

int main(int argc, char **argv)
{
    thread_stacks();
    /* SIGINT, SIGTERM, SIGHUP and SIGPIPE remove unfinished files */
    cleanup_init();
    hold_closed_std_fds();

    options opt;
    mx_error err = {0};
    const char *lang = i18n_lang_arg(argc, argv);
    if (i18n_init(lang, argv[0], &err) != 0)
        return fail(&err);
    note_missing_catalogue(lang);
    if (options_parse(&opt, argc, argv, &err) != 0) {
        options_free(&opt);
        return fail(&err);
    }
    /* --lang given in a shortened form ("--lan pt_BR") */
    if (opt.lang != NULL && opt.lang != lang &&
        i18n_init(opt.lang, argv[0], &err) != 0) {
        options_free(&opt);
        return fail(&err);
    }
    if (opt.lang != NULL && opt.lang != lang)
        note_missing_catalogue(opt.lang);
    if (opt.show_help || opt.show_version || opt.show_man) {
        if (opt.show_help)
            print_paged(options_print_usage, may_page(opt.no_pager, opt.step));
        else if (opt.show_man)
            options_print_man(stdout);
        else
            puts("mha-explain " MHA_VERSION);
        options_free(&opt);
        return close_stdout(0);
    }

    /* a run that writes files runs in a child: a crash or SIGKILL of it
     * leaves no unfinished file behind (cli/supervise.h) */
    if (opt.plot != NULL || opt.html != NULL || opt.csv_dir != NULL) {
        const int supervised = supervise_run();
        if (supervised >= 0) {
            options_free(&opt);
            return supervised;
        }
    }
    int rc = run_job(&opt, &err);
    int status = 0;
    if (rc != 0)
        status = fail(&err);
    else /* after the run: a failed run prints its error alone */
        note_wrapper_width(&opt);
    options_free(&opt);
    return close_stdout(status);
}
