/* generate_options.c: the options of generation (generate_options.h). */
#include "cli/generate_options.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "model/decoded_text.h"

/* A decimal number, the whole of text, read as the nearest double. */
static bool read_number(double *out, const char *text)
{
    if (text[0] == '\0' || strchr("0123456789.+-", text[0]) == NULL)
        return false;
    char *end;
    *out = strtod(text, &end);
    return *end == '\0' && isfinite(*out);
}

int generate_option_parse(options *opt, int id, const char *arg, mx_error *err)
{
    double v;
    const bool number = read_number(&v, arg);
    if (id == OPT_TEMPERATURE) {
        if (!number || !(v > 0))
            return err_usage(err,
                             _("--temperature: '%s' is not a temperature "
                               "(expected a positive, finite number)"),
                             arg);
        opt->temperature = v;
        return 0;
    }
    if (!number || !(v > 0 && v <= 1))
        return err_usage(err,
                         _("--top-p: '%s' is not a probability above 0 "
                           "(expected 0 < P <= 1)"),
                         arg);
    opt->top_p = v;
    return 0;
}

int generate_options_validate(options *opt, mx_error *err)
{
    static const int drawn[] = {OPT_TEMPERATURE, OPT_TOP_K, OPT_TOP_P};
    for (size_t i = 0; i < sizeof drawn / sizeof *drawn; i++)
        if (opt->given[drawn[i]] && !opt->sample)
            return err_usage(err, _("--%s: goes with --sample"),
                             option_rows[drawn[i]].name);
    if ((opt->sample || opt->stop != NULL) && opt->generate == 0)
        return err_usage(err, _("%s: goes with --generate N"),
                         opt->sample ? "--sample" : "--stop");
    // --stop matches the text as it is shown, UTF-8 (model/decoded_text.h)
    if (opt->stop != NULL && !utf8_well_formed(opt->stop, strlen(opt->stop)))
        return err_usage(err, _("--stop: the text is not UTF-8"));
    // (--repeat-random draws from it too: intervene_options.c)
    if (opt->model != NULL && opt->given[OPT_SEED] && !opt->sample &&
        opt->repeat_random == 0)
        return err_usage(err, _("--seed: with --model, seeds --sample's "
                                "draws: it goes with --sample"));
    return 0;
}
