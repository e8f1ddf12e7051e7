/* text_rounds.c: a map whose values all round to 0 in text, and zeros
 * without a sign (text_rounds.h). */
#include "render/text_rounds.h"

#include <math.h>
#include <stdbool.h>

#include "base/i18n.h"
#include "render/map_axes.h"

/* The most decimals --precision takes (cli/option_list.h). */
#define MOST_DECIMALS 12

/* Whether v with `digits` decimals, as "%.*f" writes it, shows a digit
 * other than 0. */
static bool shows(double v, int digits)
{
    char text[64];
    snprintf(text, sizeof text, "%.*f", digits, v);
    for (const char *p = text; *p != '\0'; p++)
        if (*p >= '1' && *p <= '9')
            return true;
    return false;
}

void text_rounds_note(FILE *out, const table *t, int precision)
{
    if (t->grad || t->values.v == NULL ||
        (map_axes_of_picture(t->id) == NULL &&
         !(ROUNDS_NOTE_TABLES & table_bit(t->id))))
        return;
    // the value largest in size, and whether any shows at this precision
    double largest = 0;
    const size_t n = t->values.rows * t->values.cols;
    for (size_t i = 0; i < n; i++) {
        const double v = t->values.v[i];
        if (!isfinite(v))
            continue;
        if (shows(v, precision))
            return;
        if (fabs(v) > fabs(largest))
            largest = v;
    }
    if (largest == 0)
        return;
    char text[32];
    snprintf(text, sizeof text, "%.3g", largest);
    int needed = precision + 1;
    while (needed <= MOST_DECIMALS && !shows(largest, needed))
        needed++;
    if (needed <= MOST_DECIMALS)
        fprintf(out,
                _("(every value rounds to 0 at --precision %d: the largest "
                  "in size is %s; --precision %d shows it)\n"),
                precision, text, needed);
    else
        fprintf(out,
                _("(every value rounds to 0 at --precision %d: the largest "
                  "in size is %s; --format csv shows every digit)\n"),
                precision, text);
}

float unsigned_zero(float v)
{
    return v == 0.0f ? 0.0f : v;
}
