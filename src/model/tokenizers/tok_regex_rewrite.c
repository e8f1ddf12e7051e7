/* tok_regex_rewrite.c: a pattern as the matchers should see it
 * (tok_regex_rewrite.h). */
#include "model/tokenizers/tok_regex_rewrite.h"

#include <stdbool.h>
#include <string.h>

/* The members of each \s, written for inside a character class. */
static const char *space_set(enum tok_space space)
{
    return space == TOK_SPACE_JS
               ? "\\t\\n\\x0b\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}"
                 "\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}"
               : "\\t\\n\\x0b\\f\\r \\x{85}\\x{a0}\\x{1680}\\x{2000}-"
                 "\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}";
}

static bool ascii_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int tok_regex_rewrite(tok_buf *out, const char *p, size_t n,
                      enum tok_space space)
{
    const char *set = space_set(space);
    bool in_class = false;
    int depth = 0, fold_depth = -1; // the (?i: group's depth, or -1
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char c = p[i];
        if (c == '\\' && i + 1 < n) {
            const char e = p[i + 1];
            i++;
            if (e == 's' || e == 'S') {
                if (in_class && e == 'S')
                    return -2;
                rc = in_class ? tok_buf_add(out, set, strlen(set))
                              : tok_buf_add(out, e == 's' ? "[" : "[^",
                                            e == 's' ? 1 : 2) ||
                                    tok_buf_add(out, set, strlen(set)) ||
                                    tok_buf_add(out, "]", 1);
            } else {
                const char esc[2] = {'\\', e};
                rc = tok_buf_add(out, esc, 2);
            }
            continue;
        }
        if (in_class) {
            if (c == ']')
                in_class = false;
            else if (fold_depth >= 0 && ascii_letter(c))
                return -2;
            rc = tok_buf_add(out, &c, 1);
            continue;
        }
        if (c == '[') {
            in_class = true;
            rc = tok_buf_add(out, &c, 1);
            if (i + 1 < n && p[i + 1] == '^')
                rc = rc || tok_buf_add(out, &p[++i], 1);
            if (i + 1 < n && p[i + 1] == ']') // a ']' first is literal
                rc = rc || tok_buf_add(out, &p[++i], 1);
        } else if (c == '(') {
            if (n - i >= 4 && memcmp(p + i, "(?i:", 4) == 0) {
                if (fold_depth < 0)
                    fold_depth = depth;
                i += 3;
                rc = tok_buf_add(out, "(?:", 3);
            } else {
                rc = tok_buf_add(out, &c, 1);
            }
            depth++;
        } else if (c == ')') {
            depth--;
            if (depth == fold_depth)
                fold_depth = -1;
            rc = tok_buf_add(out, &c, 1);
        } else if (fold_depth >= 0 && ascii_letter(c)) {
            const char both[4] = {'[', (char)(c | 0x20), (char)(c & ~0x20),
                                  ']'};
            rc = tok_buf_add(out, both, 4);
        } else {
            rc = tok_buf_add(out, &c, 1);
        }
    }
    if (rc == 0 && out->s == NULL)
        rc = tok_buf_add(out, "", 0);
    return rc == 0 ? 0 : -1;
}
