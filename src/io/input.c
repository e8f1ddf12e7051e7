/* input.c: reading the sentence from standard input. */
#include "io/input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"

int read_stdin(char **text, size_t *len, mx_error *err)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (buf == NULL)
        return err_nomem(err, _("the sentence"));
    /* the limit is on the text: a byte-order mark before it is not */
    size_t limit = MAX_STDIN_BYTES;
    for (;;) {
        if (n >= 3 && limit == MAX_STDIN_BYTES &&
            memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
            limit += 3;
        if (n == cap) {
            /* exactly the limit is allowed: refused only if more follows */
            if (cap >= limit && getc(stdin) == EOF)
                break;
            if (cap >= limit) {
                free(buf);
                return err_input(err,
                                 _("the sentence on standard input is longer "
                                   "than %u bytes"),
                                 MAX_STDIN_BYTES);
            }
            size_t grown = cap * 2 < limit ? cap * 2 : limit;
            char *p = realloc(buf, grown);
            if (p == NULL) {
                free(buf);
                return err_nomem(err, _("the sentence"));
            }
            buf = p;
            cap = grown;
        }
        size_t got = fread(buf + n, 1, cap - n, stdin);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(stdin)) {
        free(buf);
        return err_input(err, _("cannot read standard input: %s"),
                         strerror(errno));
    }
    /* a byte-order mark, as some editors write, is not part of the text */
    if (n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) {
        n -= 3;
        memmove(buf, buf + 3, n);
    }
    *text = buf;
    *len = n;
    return 0;
}
