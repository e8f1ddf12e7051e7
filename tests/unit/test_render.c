/* test_render.c: the renderers (render_text, render_csv, render_csv_dir),
 * the exact float formatting behind CSV, display widths and terminal
 * escaping, and how write errors become exit status 1.
 *
 * Usage: test_render [REFERENCE_DIR]   (the argument is not used)
 *
 * Expected texts are written by hand from the contract (cli.md) and the
 * layout rules of render_text.c, not captured from the program. */
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render/layout.h"
#include "render/render.h"
#include "render/step.h"
#include "model/trace.h"
#include "tap.h"
#include "numerics/tensor.h"
#include "render/textwidth.h"

/* ---- helpers ------------------------------------------------------- */

__attribute__((noreturn)) static void bail(const char *what)
{
    printf("Bail out! %s\n", what);
    exit(1);
}

/* Appends a table of rows->n x cols->n values (values[i], or i when values
 * is NULL) and returns it. */
static table *add_table(trace *tr, const char *variant, int head,
                        const char *name, const labels *rows,
                        const labels *cols, const float *values)
{
    mx_error err;
    if (rows == NULL || cols == NULL)
        bail("labels could not be made");
    // the variant and the table by name: a name that is no table's is a
    // parameter's
    variant_id v = VARIANT_INPUT;
    while (strcmp(variant_id_name(v), variant) != 0)
        v++;
    const table_id id = table_by_name(name, strlen(name));
    const table_key key = {v, 0, head, id == TABLE_COUNT ? TABLE_PARAM : id,
                           false};
    table *t = trace_new(tr, &key, rows, cols, &err);
    if (t == NULL)
        bail(err.msg);
    if (id == TABLE_COUNT)
        snprintf(t->param, sizeof t->param, "%s", name);
    for (size_t i = 0; i < rows->n * cols->n; i++)
        t->values.v[i] = values != NULL ? values[i] : (float)i;
    return t;
}

static const labels *words(trace *tr, const char *prefix, const char *const *w,
                           size_t n)
{
    mx_error err;
    const labels *l = trace_word_labels(tr, prefix, w, n, &err);
    if (l == NULL)
        bail(err.msg);
    return l;
}

static const labels *indices(trace *tr, const char *prefix, size_t n)
{
    mx_error err;
    const labels *l = trace_index_labels(tr, prefix, n, &err);
    if (l == NULL)
        bail(err.msg);
    return l;
}

static const labels *literal(trace *tr, const char *text)
{
    mx_error err;
    const labels *l = trace_literal_label(tr, text, &err);
    if (l == NULL)
        bail(err.msg);
    return l;
}

/* render_text of n tables into a new string (the caller frees it). */
static char *text_of(const table *const *ts, size_t n, const text_style *style,
                     int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        bail("open_memstream");
    mx_error err = {0};
    int r = render_text(f, ts, n, style, &err);
    if (rc != NULL)
        *rc = r;
    if (fclose(f) != 0)
        bail("fclose of a memstream");
    return buf;
}

static char *text1(const table *t, const text_style *style)
{
    const table *ts[1] = {t};
    int rc = 0;
    char *s = text_of(ts, 1, style, &rc);
    if (rc != 0)
        diag("render_text returned %d", rc);
    return s;
}

/* render_csv into a new buffer; *len gets its length (BOMs and all). */
static char *csv_of(const table *const *ts, size_t n,
                    const csv_out_style *style, size_t *len_out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        bail("open_memstream");
    mx_error err = {0};
    int rc = render_csv(f, ts, n, style, &err);
    if (fclose(f) != 0)
        bail("fclose of a memstream");
    if (rc != 0)
        diag("render_csv returned %d: %s", rc, err.msg);
    if (len_out != NULL)
        *len_out = len;
    return buf;
}

/* Text as TAP comments, one "# " line per line (a line starting "ok"
 * must not reach the harness as a test result). */
static void diag_text(const char *title, const char *s)
{
    diag("%s", title);
    if (s == NULL) {
        diag("(null)");
        return;
    }
    while (*s != '\0') {
        const char *nl = strchr(s, '\n');
        int n = nl != NULL ? (int)(nl - s) : (int)strlen(s);
        diag("|%.*s|", n, s);
        s += n + (nl != NULL);
    }
}

/* Shows got beside want when they differ. */
static int same_text(const char *got, const char *want, const char *name)
{
    int same = got != NULL && strcmp(got, want) == 0;
    ok(same, "%s", name);
    if (!same) {
        diag_text("want:", want);
        diag_text("got:", got);
    }
    return same;
}

/* Splits s (modified) into lines; returns how many, up to max. */
static size_t split_lines(char *s, char **lines, size_t max)
{
    size_t n = 0;
    char *p = s;
    while (*p != '\0' && n < max) {
        lines[n++] = p;
        char *nl = strchr(p, '\n');
        if (nl == NULL)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    return n;
}

/* The k-th (from 0) space-separated word of line into out; returns the
 * number of words in the line. */
static size_t word_of(const char *line, size_t k, char *out, size_t size)
{
    size_t count = 0;
    const char *p = line;
    if (size > 0)
        out[0] = '\0';
    while (*p != '\0') {
        while (*p == ' ')
            p++;
        if (*p == '\0')
            break;
        const char *start = p;
        while (*p != ' ' && *p != '\0')
            p++;
        if (count == k && size > 0) {
            size_t n = (size_t)(p - start);
            if (n >= size)
                n = size - 1;
            memcpy(out, start, n);
            out[n] = '\0';
        }
        count++;
    }
    return count;
}

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static char *read_whole(const char *path, size_t *len_out)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 512 > cap) {
            cap = cap ? cap * 2 : 1024;
            char *p = realloc(buf, cap);
            if (p == NULL) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = p;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    buf[len] = '\0';
    if (len_out != NULL)
        *len_out = len;
    return buf;
}

/* Names in dir, sorted and joined with '|' into out; -1 if unreadable. */
static int list_dir(const char *dir, char *out, size_t size)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    char names[32][256];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 32) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    }
    closedir(d);
    for (size_t i = 1; i < n; i++) /* insertion sort */
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char tmp[256];
            memcpy(tmp, names[j], sizeof tmp);
            memcpy(names[j], names[j - 1], sizeof tmp);
            memcpy(names[j - 1], tmp, sizeof tmp);
        }
    out[0] = '\0';
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        int w =
            snprintf(out + used, size - used, "%s%s", i ? "|" : "", names[i]);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
    return 0;
}

/* rm -r path (only what this test made). */
static void remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d != NULL) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                    continue;
                char child[1024];
                snprintf(child, sizeof child, "%s/%s", path, e->d_name);
                remove_tree(child);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* ---- display_cut ---------------------------------------------------- */

/* ok() that display_cut(s, cells) is want. */
static void check_cut(const char *s, size_t cells, const char *want)
{
    char *got = display_cut(s, cells);
    ok(got != NULL && strcmp(got, want) == 0 && display_width(got) <= cells,
       "display_cut(\"%s\", %zu) is \"%s\" (got \"%s\")", s, cells, want,
       got != NULL ? got : "(null)");
    free(got);
}

static void test_display_cut(void)
{
    check_cut("clean: the cat", 14, "clean: the cat");
    check_cut("clean: the cat sat", 14, "clean:...t sat");
    check_cut("abcdefghij", 9, "abc...hij");
    // clusters stay whole: a wide character is two cells, é one cluster
    check_cut("\u725b\u820c\u725b\u820c\u725b\u820c", 9,
              "\u725b...\u725b\u820c");
    check_cut("cafe\u0301 cafe\u0301 cafe\u0301", 11,
              "cafe\u0301...cafe\u0301");
}

/* ---- display_width ------------------------------------------------- */

static void test_display_width(void)
{
    ok(display_width("") == 0, "width of the empty string is 0");
    ok(display_width("Q:O") == 3 && display_width("dim0") == 4,
       "ASCII: one cell per character");
    ok(display_width("gato") == 4, "width of gato is 4");
    ok(display_width("\x1b[38;5;16m\x1b[48;5;220m 1.0000\x1b[0m") == 7 &&
           display_width("\x1b[48;2;68;1;84m\xe7\x89\x9b\x1b[0m") == 2,
       "colour escape sequences take no cells");
    ok(display_width("\u725b\u820c") == 4, "width of 牛舌 is 4");
    ok(display_width("\u00e9") == 1, "é precomposed (U+00E9) is 1 cell");
    ok(display_width("e\u0301") == 1, "é decomposed (e + U+0301) is 1 cell");
    ok(display_width("cafe\u0301") == 4 && display_width("caf\u00e9") == 4,
       "café, decomposed or precomposed, is 4 cells");
    ok(display_width("nai\u0308ve") == 5,
       "naïve with a combining diaeresis is 5 cells (got %zu)",
       display_width("nai\u0308ve"));
    ok(display_width("\U0001F642") == 2, "emoji 🙂 is 2 cells");
    ok(display_width("\U0001F468\u200d\U0001F469\u200d\U0001F467") == 2,
       "ZWJ family 👨‍👩‍👧 is 2 cells (got %zu)",
       display_width("\U0001F468\u200d\U0001F469\u200d\U0001F467"));
    ok(display_width("\U0001F1E7\U0001F1F7") == 2, "flag 🇧🇷 is 2 cells");
    ok(display_width("\U0001F1E7\U0001F1F7\U0001F1E6\U0001F1E8") == 4,
       "two flags 🇧🇷🇦🇨 are 4 cells");
    ok(display_width("\u263a\ufe0f") == 2,
       "☺ + U+FE0F (emoji presentation) is 2 cells");
    /* the three sequences a terminal may draw otherwise: each is one
     * emoji, two cells (see docs/guide.md, --width, for what tmux and
     * xterm draw) */
    ok(display_width("\u2764\ufe0f") == 2, "❤️ (U+2764 + VS16) is 2 cells");
    ok(display_width("\U0001F469\u200d\U0001F4BB") == 2,
       "👩‍💻 (ZWJ sequence) is 2 cells");
    ok(display_width("\U0001F44D\U0001F3FD") == 2,
       "👍🏽 (skin-tone modifier) is 2 cells");
    ok(display_width("\u2764") == 1, "❤ without VS16 is 1 cell");
    ok(display_width("\u1100\u1161\u11a8") == 2,
       "Hangul jamo L+V+T (각 decomposed) is 2 cells (got %zu)",
       display_width("\u1100\u1161\u11a8"));
    ok(display_width("\uac01") == 2, "precomposed Hangul 각 is 2 cells");
    ok(display_width("Q:\u725b\U0001F642e\u0301") == 7,
       "a mixed label Q:牛🙂é is 2 + 2 + 2 + 1 = 7 cells");

    /* an invalid byte counts as the 4 cells of its escape, so the width of
     * a string is the width of its escaped form */
    const char *invalid[] = {
        "\xff",
        ("a\xff"
         "b"),
        "\xe7\x89",                                     /* truncated 牛 */
        "\U0001F1E7\U0001F1F7\xff\U0001F1E6\U0001F1E8", /* flag, bad, flag */
    };
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        char *e = display_escape(invalid[i]);
        size_t raw = display_width(invalid[i]);
        size_t esc = e != NULL ? display_width(e) : 0;
        ok(e != NULL && raw == esc,
           "invalid bytes: width equals the width of the escaped text "
           "(case %zu: %zu vs %zu)",
           i, raw, esc);
        free(e);
    }
}

/* ---- display_escape ------------------------------------------------ */

/* s with every byte outside printable ASCII as <hh>, for diagnostics. */
static const char *shown(const char *s, char *buf, size_t size)
{
    size_t k = 0;
    if (s == NULL)
        s = "(null)";
    for (; *s != '\0' && k + 5 < size; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c < 0x7f)
            buf[k++] = (char)c;
        else
            k += (size_t)snprintf(buf + k, size - k, "<%02x>", c);
    }
    buf[k] = '\0';
    return buf;
}

static void escape_is(const char *in, const char *want, const char *name)
{
    char *e = display_escape(in);
    int same = e != NULL && strcmp(e, want) == 0;
    ok(same, "display_escape: %s", name);
    if (!same) {
        char a[256], b[256];
        diag("want \"%s\", got \"%s\"", shown(want, a, sizeof a),
             shown(e, b, sizeof b));
    }
    free(e);
}

static void test_display_escape(void)
{
    char *e = display_escape("\x1b");
    ok(e != NULL && strlen(e) == 4 && memcmp(e, "\\x1b", 4) == 0,
       "ESC becomes the 4 characters \\x1b");
    free(e);
    escape_is("a\x1b[31mb", "a\\x1b[31mb",
              "an ANSI colour sequence is defused");
    escape_is("\x7f", "\\x7f", "DEL becomes \\x7f");
    escape_is("\t\n\r\a", "\\x09\\x0a\\x0d\\x07", "tab, LF, CR, BEL");
    escape_is("x\xc2\x85y", "x\\x85y", "C1 NEL (U+0085, C2 85) is escaped");
    escape_is("\xc2\x9b"
              "2J",
              "\\x9b2J", "C1 CSI (U+009B) is escaped");
    e = display_escape("\xc2\x85\xc2\x9b\xc2\x80\xc2\x9f");
    int raw_c1 = 0;
    for (const char *p = e; p != NULL && *p != '\0'; p++)
        raw_c1 |= (unsigned char)*p >= 0x80;
    ok(e != NULL && !raw_c1, "no raw C1 byte survives (%s)", e ? e : "");
    free(e);
    escape_is("\xff", "\\xff", "an invalid byte 0xff becomes \\xff");
    escape_is("a\xff"
              "b",
              "a\\xffb", "an invalid byte inside a word");
    escape_is("\xe7\x89", "\\xe7\\x89", "a truncated sequence, byte by byte");
    escape_is("", "", "the empty string");
    const char *plain[] = {
        "gato",
        "\u725b\u820c",
        "caf\u00e9",
        "cafe\u0301",
        "\U0001F642",
        "\U0001F468\u200d\U0001F469\u200d\U0001F467",
        "\U0001F1E7\U0001F1F7",
        "\u263a\ufe0f",
        "\u1100\u1161\u11a8",
        "\u00a0nbsp",
        "Q:\u00fcber",
    };
    int unchanged = 1;
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        e = display_escape(plain[i]);
        if (e == NULL || strcmp(e, plain[i]) != 0) {
            unchanged = 0;
            diag("changed: %s -> %s", plain[i], e ? e : "(null)");
        }
        free(e);
    }
    ok(unchanged, "ordinary UTF-8 (CJK, accents, emoji, jamo) is unchanged");
}

/* ---- render_text --------------------------------------------------- */

static void test_text_exact(void)
{
    trace tr;
    trace_init(&tr);
    const char *q[] = {"O", "gato"};
    const float v[] = {0.3367f, -INFINITY, 0.1288f, -1.25f};
    table *a = add_table(&tr, "fused", 0, "attn_weights",
                         words(&tr, "Q:", q, 2), words(&tr, "K:", q, 2), v);
    const float in[] = {0.3367f, 0.1288f, -1.25f, 12.0f};
    table *b = add_table(&tr, "input", NO_HEAD, "inputs", words(&tr, "", q, 2),
                         indices(&tr, "dim", 2), in);
    const char *three[] = {"O", "gato", "sobe"};
    const float ids[] = {0.0f, 1.0f, 12.0f};
    table *c = add_table(&tr, "input", NO_HEAD, "tokens",
                         words(&tr, "", three, 3), literal(&tr, "id"), ids);
    c->integral = true;
    const table *ta = a, *tb = b, *tc = c;

    text_style style = {.precision = 4};
    char *s = text1(ta, &style);
    same_text(s,
              "[fused] head 0: attn_weights (2 x 2)\n"
              "           K:O   K:gato\n"
              "Q:O     0.3367     -inf\n"
              "Q:gato  0.1288  -1.2500\n",
              "text: a 2 x 2 table with a head, exactly (-inf as -inf)");
    free(s);

    s = text1(tb, &style);
    same_text(s,
              "[input] inputs (2 x 2)\n"
              "         dim0     dim1\n"
              "O      0.3367   0.1288\n"
              "gato  -1.2500  12.0000\n"
              "",
              "text: a table of no head, exactly (title without head)");
    free(s);

    style.precision = 0;
    s = text1(ta, &style);
    same_text(s,
              "[fused] head 0: attn_weights (2 x 2)\n"
              "        K:O  K:gato\n"
              "Q:O       0    -inf\n"
              "Q:gato    0      -1\n",
              "text: precision 0");
    free(s);

    style.precision = 6;
    s = text1(ta, &style);
    same_text(s,
              "[fused] head 0: attn_weights (2 x 2)\n"
              "             K:O     K:gato\n"
              "Q:O     0.336700       -inf\n"
              "Q:gato  0.128800  -1.250000\n",
              "text: precision 6");
    free(s);

    style.precision = 4;
    s = text1(tc, &style);
    same_text(s,
              "[input] tokens (3 x 1)\n"
              "       id\n"
              "O       0\n"
              "gato    1\n"
              "sobe   12\n",
              "text: an integral table prints ids without decimals");
    free(s);

    /* two tables: a blank line between, none after */
    const table *two[2] = {tc, ta};
    int rc = -1;
    s = text_of(two, 2, &style, &rc);
    same_text(s,
              "[input] tokens (3 x 1)\n"
              "       id\n"
              "O       0\n"
              "gato    1\n"
              "sobe   12\n"
              "\n"
              "[fused] head 0: attn_weights (2 x 2)\n"
              "           K:O   K:gato\n"
              "Q:O     0.3367     -inf\n"
              "Q:gato  0.1288  -1.2500\n",
              "text: two tables, one blank line between");
    ok(rc == 0, "render_text returns 0 on success");
    free(s);
    trace_free(&tr);
}

/* Every line but the title has the same display width. */
static int block_aligned(const char *text, size_t want_lines, size_t *width)
{
    char *copy = strdup(text);
    char *lines[64];
    if (copy == NULL)
        return 0;
    size_t n = split_lines(copy, lines, 64);
    int same = n == want_lines && n >= 2;
    *width = n >= 2 ? display_width(lines[1]) : 0;
    for (size_t i = 1; i < n; i++)
        if (display_width(lines[i]) != *width) {
            diag("line %zu is %zu cells, not %zu: %s", i,
                 display_width(lines[i]), *width, lines[i]);
            same = 0;
        }
    free(copy);
    return same;
}

static void test_text_alignment(void)
{
    trace tr;
    trace_init(&tr);
    const char *w[] = {
        "\u725b\u820c",                               /* 牛舌, 4 cells */
        "\U0001F642",                                 /* 🙂, 2 */
        "cafe\u0301",                                 /* café, 4 */
        "\U0001F468\u200d\U0001F469\u200d\U0001F467", /* family, 2 */
        "\U0001F1E7\U0001F1F7",                       /* flag, 2 */
        "\u1100\u1161\u11a8",                         /* 각 in jamo, 2 */
    };
    table *a = add_table(&tr, "single", NO_HEAD, "attn_scores",
                         words(&tr, "Q:", w, 6), words(&tr, "K:", w, 6), NULL);
    const char *esc_rows[] = {"x\x1b[2Jy", "ok"};
    const char *esc_cols[] = {"\xc2\x9b"
                              "31m",
                              "\x7f"};
    const float v[] = {0.5f, 0.25f, -0.125f, 1.0f};
    table *b =
        add_table(&tr, "single", NO_HEAD, "queries",
                  words(&tr, "", esc_rows, 2), words(&tr, "", esc_cols, 2), v);
    text_style style = {.precision = 4};

    char *s = text1(a, &style);
    size_t width = 0;
    /* label column 6 (Q:牛舌), then six columns of 7 ("35.0000") */
    ok(s != NULL && block_aligned(s, 8, &width) && width == 6 + 6 * (2 + 7),
       "CJK, emoji, ZWJ, flag, jamo and combining labels: every line is "
       "%zu cells",
       width);
    free(s);

    s = text1(b, &style);
    int raw = 0;
    for (const char *p = s; p != NULL && *p != '\0'; p++)
        raw |= *p == 0x1b || *p == 0x7f || (unsigned char)*p == 0x9b;
    ok(s != NULL && !raw, "no raw ESC, DEL or C1 byte reaches the output");
    ok(s != NULL && strstr(s, "\nx\\x1b[2Jy  ") != NULL &&
           strstr(s, "\\x9b31m") != NULL && strstr(s, "\\x7f") != NULL,
       "control characters in labels are printed escaped");
    same_text(s,
              "[single] queries (2 x 2)\n"
              "           \\x9b31m    \\x7f\n"
              "x\\x1b[2Jy   0.5000  0.2500\n"
              "ok         -0.1250  1.0000\n",
              "escaped labels are measured as printed, exactly");
    ok(s != NULL && block_aligned(s, 4, &width),
       "escaped labels keep columns aligned");
    free(s);
    trace_free(&tr);
}

/* values from 1e8 on: the whole table in scientific notation, as PyTorch
 * prints such a tensor; smaller tables stay in fixed notation */
static void test_text_scientific(void)
{
    trace tr;
    trace_init(&tr);
    const float huge[4] = {3e38f, -1.5f, -INFINITY, NAN};
    table *t = add_table(&tr, "fused", 0, "queries", indices(&tr, "t", 2),
                         indices(&tr, "c", 2), huge);
    text_style style = {.precision = 4};
    char *s = text1(t, &style);
    same_text(s,
              "[fused] head 0: queries (2 x 2)\n"
              "             c0           c1\n"
              "t0   3.0000e+38  -1.5000e+00\n"
              "t1         -inf          nan\n",
              "a table with 3e38 in it is written in scientific notation");
    free(s);
    trace_free(&tr);
}

/* the switch is at 1e8 exactly, for either sign, infinities and NaN
 * aside, wherever in a table of many values the large one is */
static void test_text_scientific_edges(void)
{
    trace tr;
    trace_init(&tr);
    text_style style = {.precision = 4};
    const float below[4] = {99999992.0f, -99999992.0f, INFINITY, NAN};
    table *t = add_table(&tr, "fused", 0, "queries", indices(&tr, "t", 2),
                         indices(&tr, "c", 2), below);
    char *s = text1(t, &style);
    ok(s != NULL && strstr(s, "99999992.0000") != NULL &&
           strstr(s, "e+") == NULL,
       "99999992, the float just below 1e8, and infinities stay fixed");
    free(s);
    const float at[4] = {0.5f, -1e8f, -INFINITY, NAN};
    t = add_table(&tr, "fused", 0, "keys", indices(&tr, "t", 2),
                  indices(&tr, "c", 2), at);
    s = text1(t, &style);
    ok(s != NULL && strstr(s, "-1.0000e+08") != NULL,
       "-1e8 makes the table scientific");
    free(s);
    /* 50 x 50, summarised: the large value ends the first block of 1024
     * values scanned, or is the last of the 2500 (and shown) */
    t = add_table(&tr, "fused", 0, "values", indices(&tr, "t", 50),
                  indices(&tr, "c", 50), NULL);
    const size_t where[2] = {1023, 2499};
    for (size_t k = 0; k < 2; k++) {
        t->values.v[where[k]] = 2.5e9f;
        s = text1(t, &style);
        ok(s != NULL && strstr(s, "e+03") != NULL,
           "a large value at %zu of a big table makes it scientific", where[k]);
        free(s);
        t->values.v[where[k]] = 1.0f;
    }
    s = text1(t, &style);
    ok(s != NULL && strstr(s, "e+") == NULL && strstr(s, "e-") == NULL,
       "without it the same table stays fixed");
    free(s);
    trace_free(&tr);
}

static void test_text_summary(void)
{
    trace tr;
    trace_init(&tr);
    table *big = add_table(&tr, "fused", 0, "attn_scores",
                           indices(&tr, "t", 40), indices(&tr, "c", 40), NULL);
    table *mid = add_table(&tr, "fused", 0, "attn_scores",
                           indices(&tr, "t", 30), indices(&tr, "c", 30), NULL);
    table *wide = add_table(&tr, "fused", 1, "queries", indices(&tr, "t", 5),
                            indices(&tr, "c", 300), NULL);
    table *edge = add_table(&tr, "fused", 1, "keys", indices(&tr, "t", 40),
                            indices(&tr, "c", 25), NULL);
    table *narrow =
        add_table(&tr, "fused", 1, "attn_weights", indices(&tr, "t", 2),
                  indices(&tr, "c", 32), NULL);
    table *bias = add_table(&tr, "fused", 1, "attn_scores",
                            indices(&tr, "t", 2), indices(&tr, "c", 33), NULL);
    table *over = add_table(&tr, "fused", 1, "values", indices(&tr, "t", 7),
                            indices(&tr, "c", 143), NULL);
    text_style style = {.precision = 0};

    /* 1600 values > 1000: first and last 3 rows and columns */
    char *s = text1(big, &style);
    same_text(s,
              "[fused] head 0: attn_scores (40 x 40), summarised "
              "(--full prints all)\n"
              "       c0    c1    c2  ...   c37   c38   c39\n"
              "t0      0     1     2  ...    37    38    39\n"
              "t1     40    41    42  ...    77    78    79\n"
              "t2     80    81    82  ...   117   118   119\n"
              "...   ...   ...   ...  ...   ...   ...   ...\n"
              "t37  1480  1481  1482  ...  1517  1518  1519\n"
              "t38  1520  1521  1522  ...  1557  1558  1559\n"
              "t39  1560  1561  1562  ...  1597  1598  1599\n",
              "40 x 40 (1600 values) is summarised like PyTorch, exactly");
    free(s);

    /* --full: everything */
    style.full = true;
    s = text1(big, &style);
    char *lines[64];
    size_t n = s != NULL ? split_lines(s, lines, 64) : 0;
    char word[32] = "";
    size_t words_in_row =
        n > 22 ? word_of(lines[22], 20, word, sizeof word) : 0;
    ok(n == 42 && strstr(lines[0], "summarised") == NULL &&
           strstr(lines[0], "(40 x 40)") != NULL && words_in_row == 41 &&
           strcmp(word, "819") == 0,
       "--full prints the 40 x 40 table whole (%zu lines)", n);
    int dots = 0;
    for (size_t i = 0; i < n; i++)
        dots |= strstr(lines[i], "...") != NULL;
    ok(n == 42 && !dots, "--full: no ellipsis");
    free(s);
    style.full = false;

    /* 900 values: whole */
    s = text1(mid, &style);
    n = s != NULL ? split_lines(s, lines, 64) : 0;
    dots = 0;
    for (size_t i = 0; i < n; i++)
        dots |= strstr(lines[i], "...") != NULL;
    ok(n == 32 && !dots && strstr(lines[0], "summarised") == NULL &&
           word_of(lines[1], 0, word, sizeof word) == 30 &&
           word_of(lines[31], 29, word, sizeof word) == 31 &&
           strcmp(word, "898") == 0,
       "30 x 30 (900 values) is printed whole");
    free(s);

    /* exactly 1000 values: whole (PyTorch summarises above the threshold) */
    s = text1(edge, &style);
    n = s != NULL ? split_lines(s, lines, 64) : 0;
    ok(n == 42 && strstr(lines[0], "summarised") == NULL &&
           word_of(lines[1], 0, word, sizeof word) == 25,
       "40 x 25 (exactly 1000 values) is printed whole");
    free(s);

    /* a wide table of few values: whole up to WIDE_COLUMNS columns, its
     * columns summarised beyond (a terminal line stays readable) */
    s = text1(narrow, &style);
    n = s != NULL ? split_lines(s, lines, 64) : 0;
    ok(n == 4 && strstr(lines[0], "summarised") == NULL &&
           word_of(lines[1], 0, word, sizeof word) == 32,
       "2 x 32 is printed whole");
    free(s);
    s = text1(bias, &style);
    n = s != NULL ? split_lines(s, lines, 64) : 0;
    ok(n == 4 && strstr(lines[0], "(2 x 33), summarised") != NULL &&
           word_of(lines[1], 0, word, sizeof word) == 7 &&
           word_of(lines[3], 7, word, sizeof word) == 8 &&
           strcmp(word, "65") == 0,
       "2 x 33: columns summarised, both rows kept, last value 65");
    free(s);

    /* 5 x 300: columns summarised, the 5 rows (<= 6) stay */
    s = text1(wide, &style);
    n = s != NULL ? split_lines(s, lines, 64) : 0;
    int rows_ok = n == 7;
    for (size_t i = 2; i < n && rows_ok; i++) {
        char label[16], mid_word[16];
        snprintf(label, sizeof label, "t%zu", i - 2);
        rows_ok = word_of(lines[i], 4, mid_word, sizeof mid_word) == 8 &&
                  strcmp(mid_word, "...") == 0 &&
                  strncmp(lines[i], label, strlen(label)) == 0;
    }
    ok(rows_ok && strstr(lines[0], "(5 x 300), summarised") != NULL,
       "5 x 300: columns summarised, all 5 rows kept (%zu lines)", n);
    char last[16] = "";
    ok(n == 7 && word_of(lines[1], 6, last, sizeof last) == 7 &&
           strcmp(last, "c299") == 0 &&
           word_of(lines[6], 7, word, sizeof word) == 8 &&
           strcmp(word, "1499") == 0,
       "5 x 300: the last column c299 and last value 1499 are shown");
    if (s != NULL && !rows_ok)
        for (size_t i = 0; i < n; i++)
            diag("%s", lines[i]);
    free(s);

    /* 7 x 143 = 1001 values: both dimensions summarised */
    s = text1(over, &style);
    n = s != NULL ? split_lines(s, lines, 64) : 0;
    ok(n == 9 && strstr(lines[0], "summarised") != NULL &&
           strncmp(lines[5], "...", 3) == 0,
       "7 x 143 (1001 values): rows and columns summarised");
    free(s);
    trace_free(&tr);
}

/* ---- format_float_exact -------------------------------------------- */

static void test_format_float(void)
{
    const struct {
        float v;
        const char *name;
    } awkward[] = {
        {0.1f, "0.1f"},
        {1.0f / 3.0f, "1.0f/3"},
        {1e-8f, "1e-8f"},
        {123456.789f, "123456.789f"},
        {-0.0f, "-0.0f"},
        {FLT_MIN, "FLT_MIN"},
        {FLT_MAX, "FLT_MAX"},
        {16777216.0f, "16777216.0f"},
        {0.3367f, "0.3367f"},
        {-2.5e-7f, "-2.5e-7f"},
        {1e-45f, "the smallest subnormal"},
        {-1.6898f, "-1.6898f"},
        {12345680.0f, "12345680.0f (a whole number above 1e7)"},
    };
    for (size_t i = 0; i < sizeof awkward / sizeof awkward[0]; i++) {
        char out[32], nine[32];
        float v = awkward[i].v;
        format_float_exact(out, sizeof out, v, false);
        snprintf(nine, sizeof nine, "%.9g", (double)v);
        float back = strtof(out, NULL);
        ok(float_bits(back) == float_bits(v),
           "format_float_exact(%s) = \"%s\" reads back bit for bit",
           awkward[i].name, out);
        ok(strlen(out) <= strlen(nine),
           "format_float_exact(%s) = \"%s\" is no longer than %%.9g \"%s\"",
           awkward[i].name, out, nine);
    }
    char buf[32];
    format_float_exact(buf, sizeof buf, 0.3367f, false);
    ok(strcmp(buf, "0.3367") == 0, "0.3367f is written 0.3367 (got %s)", buf);
    format_float_exact(buf, sizeof buf, 12.0f, false);
    ok(strcmp(buf, "12") == 0, "12 is written \"12\" (got %s)", buf);
    format_float_exact(buf, sizeof buf, 0.0f, false);
    ok(strcmp(buf, "0") == 0, "0 is written \"0\" (got %s)", buf);
    format_float_exact(buf, sizeof buf, 1234567.0f, false);
    ok(strcmp(buf, "1234567") == 0, "1234567 has no exponent (got %s)", buf);
    format_float_exact(buf, sizeof buf, -INFINITY, false);
    ok(strcmp(buf, "-inf") == 0, "-inf is written -inf");
    format_float_exact(buf, sizeof buf, 0.5f, true);
    ok(strcmp(buf, "0,5") == 0, "decimal comma: 0.5 is written 0,5 (got %s)",
       buf);
    format_float_exact(buf, sizeof buf, -1.25f, true);
    ok(strcmp(buf, "-1,25") == 0, "decimal comma: -1,25 (got %s)", buf);
    format_float_exact(buf, sizeof buf, 7.0f, true);
    ok(strcmp(buf, "7") == 0, "decimal comma: a whole number is unchanged");
}

/* ---- render_csv ---------------------------------------------------- */

/* A minimal RFC 4180 reader: the fields of the record at *p, advancing
 * it. Returns the field count, or -1 on a malformed record. */
static int csv_record(const char **p, char fields[][64], int max, char d)
{
    const char *s = *p;
    int n = 0;
    if (*s == '\0')
        return 0;
    for (;;) {
        if (n == max)
            return -1;
        size_t k = 0;
        if (*s == '"') {
            s++;
            for (;;) {
                if (*s == '\0')
                    return -1;
                if (*s == '"') {
                    if (s[1] != '"')
                        break;
                    s++;
                }
                if (k < 63)
                    fields[n][k++] = *s;
                s++;
            }
            s++; /* the closing quote */
            if (*s != d && *s != '\n' && *s != '\0')
                return -1;
        } else {
            while (*s != d && *s != '\n' && *s != '\0') {
                if (*s == '"')
                    return -1; /* a quote in an unquoted field */
                if (k < 63)
                    fields[n][k++] = *s;
                s++;
            }
        }
        fields[n++][k] = '\0';
        if (*s == d) {
            s++;
            continue;
        }
        if (*s == '\n')
            s++;
        break;
    }
    *p = s;
    return n;
}

static void test_csv(void)
{
    trace tr;
    trace_init(&tr);
    const char *q[] = {"O", "gato"};
    const float v[] = {0.5f, -INFINITY, 0.25f, 1.0f};
    table *a = add_table(&tr, "fused", 1, "attn_scores", words(&tr, "Q:", q, 2),
                         words(&tr, "K:", q, 2), v);
    const float in[] = {0.3367f, 12.0f};
    table *b = add_table(&tr, "input", NO_HEAD, "inputs", words(&tr, "", q, 1),
                         indices(&tr, "dim", 2), in);
    const char *odd_rows[] = {"a,b", "say \"hi\"", "line\nbreak"};
    const char *odd_cols[] = {"x", "semi;colon", "cr\rlf"};
    table *c =
        add_table(&tr, "single", NO_HEAD, "values", words(&tr, "", odd_rows, 3),
                  words(&tr, "", odd_cols, 3), NULL);
    const table *ta = a, *tb = b, *tc = c;

    csv_out_style style = {.delimiter = ',', .header = true, .sentence = -1};
    const char *header = "variant,head,table,row,row_label,col,col_label,"
                         "value\n";
    char *s = csv_of(&ta, 1, &style, NULL);
    char want[2048];
    snprintf(want, sizeof want, "%s%s", header,
             "fused,1,attn_scores,0,Q:O,0,K:O,0.5\n"
             "fused,1,attn_scores,0,Q:O,1,K:gato,-inf\n"
             "fused,1,attn_scores,1,Q:gato,0,K:O,0.25\n"
             "fused,1,attn_scores,1,Q:gato,1,K:gato,1\n");
    same_text(s, want, "csv: a table with a head, exactly (-inf as -inf)");
    free(s);

    s = csv_of(&tb, 1, &style, NULL);
    snprintf(want, sizeof want, "%s%s", header,
             "input,,inputs,0,O,0,dim0,0.3367\n"
             "input,,inputs,0,O,1,dim1,12\n");
    same_text(s, want, "csv: a table of no head has an empty head field");
    free(s);

    const table *both[2] = {tb, ta};
    s = csv_of(both, 2, &style, NULL);
    ok(s != NULL && strncmp(s, header, strlen(header)) == 0 &&
           strstr(s + 1, "variant,") == NULL &&
           strstr(s, "dim1,12\nfused,1,attn_scores,0,") != NULL,
       "csv: two tables under one header");
    free(s);

    s = csv_of(&tc, 1, &style, NULL);
    snprintf(want, sizeof want, "%s%s", header,
             "single,,values,0,\"a,b\",0,x,0\n"
             "single,,values,0,\"a,b\",1,semi;colon,1\n"
             "single,,values,0,\"a,b\",2,\"cr\rlf\",2\n"
             "single,,values,1,\"say \"\"hi\"\"\",0,x,3\n"
             "single,,values,1,\"say \"\"hi\"\"\",1,semi;colon,4\n"
             "single,,values,1,\"say \"\"hi\"\"\",2,\"cr\rlf\",5\n"
             "single,,values,2,\"line\nbreak\",0,x,6\n"
             "single,,values,2,\"line\nbreak\",1,semi;colon,7\n"
             "single,,values,2,\"line\nbreak\",2,\"cr\rlf\",8\n");
    same_text(s, want,
              "csv: comma, quote, CR and LF labels quoted per "
              "RFC 4180, exactly");
    /* and read back by an RFC 4180 reader */
    const char *p = s != NULL ? s : "";
    char f[10][64];
    int records = 0, fields_ok = 1;
    int nf;
    while ((nf = csv_record(&p, f, 10, ',')) > 0) {
        if (records > 0) {
            int idx = records - 1;
            fields_ok &= nf == 8 && strcmp(f[4], odd_rows[idx / 3]) == 0 &&
                         strcmp(f[6], odd_cols[idx % 3]) == 0;
        } else {
            fields_ok &= nf == 8 && strcmp(f[0], "variant") == 0;
        }
        records++;
    }
    ok(nf == 0 && records == 10 && fields_ok,
       "csv: parsed back, every record has 8 fields and the labels return");
    free(s);

    /* ';', decimal comma, a sentence column */
    style = (csv_out_style){
        .delimiter = ';', .decimal_comma = true, .header = true, .sentence = 3};
    s = csv_of(&tc, 1, &style, NULL);
    ok(s != NULL && strncmp(s,
                            "sentence;variant;head;table;row;row_label;col;"
                            "col_label;value\n",
                            62) == 0,
       "csv ';' with a sentence: the header starts sentence;variant;");
    ok(s != NULL && strstr(s, "\n3;single;;values;0;a,b;0;x;0\n") != NULL &&
           strstr(s, "\n3;single;;values;0;a,b;1;\"semi;colon\";1\n") != NULL,
       "csv ';': rows start 3;single; and only labels with ';' are quoted");
    free(s);
    s = csv_of(&ta, 1, &style, NULL);
    ok(s != NULL && strstr(s, "\n3;fused;1;attn_scores;0;Q:O;0;K:O;0,5\n") &&
           strstr(s, "\n3;fused;1;attn_scores;1;Q:gato;0;K:O;0,25\n") &&
           strstr(s, ";K:gato;-inf\n"),
       "csv decimal comma: 0,5 and 0,25, -inf unchanged");
    free(s);

    /* BOM */
    style = (csv_out_style){
        .delimiter = ',', .bom = true, .header = true, .sentence = -1};
    size_t len = 0;
    s = csv_of(&ta, 1, &style, &len);
    ok(s != NULL && len > 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0 &&
           strncmp(s + 3, header, strlen(header)) == 0,
       "csv --bom: EF BB BF first, then the header");
    free(s);

    /* no header */
    style = (csv_out_style){.delimiter = ',', .header = false, .sentence = -1};
    s = csv_of(&ta, 1, &style, NULL);
    ok(s != NULL &&
           strncmp(s, "fused,1,attn_scores,0,Q:O,0,K:O,0.5\n", 36) == 0 &&
           strstr(s, "variant") == NULL,
       "csv header=false: no header line");
    free(s);
    style.sentence = 0;
    s = csv_of(&ta, 1, &style, NULL);
    ok(s != NULL && strncmp(s, "0,fused,1,", 10) == 0,
       "csv: sentence 0 is written (a later --input row, no header)");
    free(s);

    /* values round trip through the CSV text itself */
    const float awkward[] = {0.1f,        1.0f / 3.0f, 1e-8f,
                             123456.789f, -0.0f,       FLT_MIN,
                             FLT_MAX,     16777216.0f, 0.3367f};
    const char *one[] = {"r"};
    trace tr2;
    trace_init(&tr2);
    table *k =
        add_table(&tr2, "input", NO_HEAD, "inputs", words(&tr2, "", one, 1),
                  indices(&tr2, "dim", 9), awkward);
    const table *tk = k;
    style = (csv_out_style){.delimiter = ',', .header = true, .sentence = -1};
    s = csv_of(&tk, 1, &style, NULL);
    p = s != NULL ? s : "";
    int exact = csv_record(&p, f, 10, ',') == 8;
    for (size_t i = 0; i < 9 && exact; i++) {
        exact = csv_record(&p, f, 10, ',') == 8;
        float back = strtof(f[7], NULL);
        if (exact && float_bits(back) != float_bits(awkward[i])) {
            diag("value %zu written %s", i, f[7]);
            exact = 0;
        }
    }
    ok(exact, "csv: awkward float32 values read back bit for bit");
    free(s);
    trace_free(&tr2);
    trace_free(&tr);
}

/* ---- render_csv_dir ------------------------------------------------ */

static void test_csv_dir(void)
{
    char base[] = "/tmp/test_render.XXXXXX";
    if (mkdtemp(base) == NULL)
        bail("mkdtemp");
    mode_t old_mask = umask(022);

    trace tr;
    trace_init(&tr);
    const char *q[] = {"O", "gato"};
    const float in[] = {0.3367f, 0.1288f, -1.25f, 12.0f};
    table *a = add_table(&tr, "input", NO_HEAD, "inputs", words(&tr, "", q, 2),
                         indices(&tr, "dim", 2), in);
    const float w[] = {1.0f, -INFINITY, 0.25f, 0.75f};
    table *b = add_table(&tr, "fused", 1, "attn_weights",
                         words(&tr, "Q:", q, 2), words(&tr, "K:", q, 2), w);
    const char *odd[] = {"a,b", "say \"hi\""};
    const float p3[] = {0.5f, 2.0f};
    table *c = add_table(&tr, "wrapper", NO_HEAD, "heads.0.W_query.weight",
                         words(&tr, "", odd, 2), literal(&tr, "dim0"), p3);
    table *bad = add_table(&tr, "fused", NO_HEAD, "no/such",
                           words(&tr, "", q, 2), indices(&tr, "dim", 2), in);
    const table *ts[3] = {a, b, c};

    csv_out_style style = {.delimiter = ',', .header = true, .sentence = -1};
    char target[256], path[512], listing[1024];
    mx_error err = {0};
    snprintf(target, sizeof target, "%s/out/nested", base);
    int rc = render_csv_dir(target, ts, 3, &style, &err);
    ok(rc == 0, "csv-dir: writes into a missing nested folder (%s)",
       rc ? err.msg : "ok");
    ok(list_dir(target, listing, sizeof listing) == 0 &&
           strcmp(listing, "fused.head1.attn_weights.csv|"
                           "input.inputs.csv|"
                           "wrapper.heads.0.W_query.weight.csv") == 0,
       "csv-dir: exactly <variant>.<table>.csv and "
       "<variant>.head<h>.<table>.csv, no hidden leftovers (%s)",
       listing);

    snprintf(path, sizeof path, "%s/input.inputs.csv", target);
    char *s = read_whole(path, NULL);
    same_text(s, "token,dim0,dim1\nO,0.3367,0.1288\ngato,-1.25,12\n",
              "csv-dir: input.inputs.csv, exactly");
    free(s);
    snprintf(path, sizeof path, "%s/fused.head1.attn_weights.csv", target);
    s = read_whole(path, NULL);
    same_text(s, "token,K:O,K:gato\nQ:O,1,-inf\nQ:gato,0.25,0.75\n",
              "csv-dir: fused.head1.attn_weights.csv, exactly");
    free(s);
    snprintf(path, sizeof path, "%s/wrapper.heads.0.W_query.weight.csv",
             target);
    s = read_whole(path, NULL);
    same_text(s, "token,dim0\n\"a,b\",0.5\n\"say \"\"hi\"\"\",2\n",
              "csv-dir: labels quoted per RFC 4180");
    free(s);

    struct stat st;
    snprintf(path, sizeof path, "%s/input.inputs.csv", target);
    ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644,
       "csv-dir: umask 022 gives 0644, not mkstemp's 0600 (mode %o)",
       (unsigned)(st.st_mode & 0777));

    /* a second run replaces the files; BOM, ';' and decimal comma */
    csv_out_style semi = {.delimiter = ';',
                          .decimal_comma = true,
                          .bom = true,
                          .header = true,
                          .sentence = 2};
    rc = render_csv_dir(target, ts, 1, &semi, &err);
    size_t len = 0;
    s = read_whole(path, &len);
    ok(rc == 0 && s != NULL &&
           len == strlen("\xEF\xBB\xBFtoken;dim0;dim1\nO;0,3367;0,1288\n"
                         "gato;-1,25;12\n") &&
           strcmp(s, "\xEF\xBB\xBFtoken;dim0;dim1\nO;0,3367;0,1288\n"
                     "gato;-1,25;12\n") == 0,
       "csv-dir: an existing file is replaced; BOM, ';' and 0,3367");
    free(s);

    /* the target is a regular file */
    char blocker[300];
    snprintf(blocker, sizeof blocker, "%s/blocker", base);
    FILE *f = fopen(blocker, "w");
    if (f == NULL)
        bail("cannot make a file");
    fputs("keep me\n", f);
    fclose(f);
    err = (mx_error){0};
    rc = render_csv_dir(blocker, ts, 3, &style, &err);
    ok(rc == -1 && err.status == EXIT_BAD_INPUT,
       "csv-dir onto a regular file: fails with status 2 (%d: %s)", err.status,
       err.msg);
    s = read_whole(blocker, NULL);
    ok(list_dir(base, listing, sizeof listing) == 0 &&
           strcmp(listing, "blocker|out") == 0 && s != NULL &&
           strcmp(s, "keep me\n") == 0,
       "csv-dir onto a regular file: leaves nothing behind (%s)", listing);
    free(s);
    snprintf(path, sizeof path, "%s/blocker/sub", base);
    err = (mx_error){0};
    rc = render_csv_dir(path, ts, 3, &style, &err);
    ok(rc == -1 && err.status == EXIT_BAD_INPUT,
       "csv-dir under a regular file: status 2");

    /* a failure after folders and files were made removes them all */
    const table *fails[2] = {a, bad};
    snprintf(path, sizeof path, "%s/new1/new2", base);
    err = (mx_error){0};
    rc = render_csv_dir(path, fails, 2, &style, &err);
    ok(rc == -1 && err.status != 0,
       "csv-dir: a file that cannot be made "
       "fails (status %d: %s)",
       err.status, err.msg);
    ok(list_dir(base, listing, sizeof listing) == 0 &&
           strcmp(listing, "blocker|out") == 0,
       "csv-dir: after a failure, no file or folder it made is left (%s)",
       listing);
    ok(list_dir(target, listing, sizeof listing) == 0 &&
           strcmp(listing, "fused.head1.attn_weights.csv|"
                           "input.inputs.csv|"
                           "wrapper.heads.0.W_query.weight.csv") == 0,
       "csv-dir: earlier output is untouched by later failures");

    umask(old_mask);
    trace_free(&tr);
    remove_tree(base);
    struct stat gone;
    ok(lstat(base, &gone) != 0, "the temporary folder is cleaned up");
}

/* ---- errors -------------------------------------------------------- */

static void test_errors(void)
{
    mx_error err = {0};
    int rc = err_write(&err, "the output", ENOSPC);
    char want[600];
    snprintf(want, sizeof want, "cannot write the output: %s",
             strerror(ENOSPC));
    ok(rc == -1 && err.status == EXIT_OUTPUT_ERROR && err.sys_errno == ENOSPC &&
           strcmp(err.msg, want) == 0,
       "err_write: -1, status 1, errno kept, \"%s\"", err.msg);

    FILE *full = fopen("/dev/full", "w");
    if (full == NULL) {
        ok(1, "# SKIP no /dev/full");
        ok(1, "# SKIP no /dev/full");
        ok(1, "# SKIP no /dev/full");
        return;
    }
    trace tr;
    trace_init(&tr);
    table *a = add_table(&tr, "fused", 0, "attn_scores", indices(&tr, "t", 100),
                         indices(&tr, "c", 100), NULL);
    const table *t = a;
    text_style style = {.precision = 4, .full = true};
    err = (mx_error){0};
    rc = render_text(full, &t, 1, &style, &err);
    int flushed = fflush(full);
    ok(rc == -1 || flushed != 0,
       "render_text to /dev/full: the error is reported (render %d, "
       "fflush %d)",
       rc, flushed);
    ok(rc == -1 && err.status == EXIT_OUTPUT_ERROR && err.sys_errno == ENOSPC,
       "render_text to /dev/full: render_text returns -1 with status 1 and "
       "ENOSPC (%d, status %d, errno %d: %s)",
       rc, err.status, err.sys_errno, err.msg);
    fclose(full);

    full = fopen("/dev/full", "w");
    csv_out_style cs = {.delimiter = ',', .header = true, .sentence = -1};
    err = (mx_error){0};
    rc = full != NULL ? render_csv(full, &t, 1, &cs, &err) : 0;
    ok(rc == -1 && err.status == EXIT_OUTPUT_ERROR && err.sys_errno == ENOSPC,
       "render_csv to /dev/full: -1 with status 1 and ENOSPC (%s)", err.msg);
    if (full != NULL)
        fclose(full);
    trace_free(&tr);
}

/* ---- --layout grid's pasting, --step's steps ------------------------ */

static void test_layout(void)
{
    /* a coloured cell and a Chinese label are measured as drawn */
    const char *blocks[] = {"Q:牛\nQ:a\n", "\x1b[48;5;220m 1.0\x1b[0m\n 0.5\n",
                            "x\n"};
    const unsigned char sep[] = {0, 1, 0};
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    int rc = layout_side_by_side(mem, blocks, 3, sep);
    fclose(mem);
    ok(rc == 0 && text != NULL &&
           strcmp(text, "Q:牛\x1b[48;5;220m 1.0\x1b[0m |x\nQ:a  0.5 |\n") == 0,
       "layout_side_by_side: blocks padded to their widths in cells, the "
       "separator where asked, a short block padded with a blank line");
    ok(block_width(blocks[0]) == 4 && block_width(blocks[1]) == 4 &&
           visible_width("\x1b[0mab\x1b[1m", 10) == 2,
       "block_width and visible_width skip colours, count wide characters");
    free(text);
}

static void test_steps(void)
{
    table a = {.variant = VARIANT_INPUT, .head = NO_HEAD, .id = TABLE_VOCAB};
    table b = {.variant = VARIANT_INPUT, .head = NO_HEAD, .id = TABLE_TOKENS};
    table kt = {
        .variant = VARIANT_INPUT, .head = NO_HEAD, .id = TABLE_KV_TOKENS};
    table c = {.variant = VARIANT_INPUT, .head = NO_HEAD, .id = TABLE_INPUTS};
    table w = {.variant = VARIANT_ID_FUSED, .head = NO_HEAD, .id = TABLE_PARAM};
    table x = {.variant = VARIANT_ID_FUSED, .head = NO_HEAD, .id = TABLE_PARAM};
    table q0 = {.variant = VARIANT_ID_FUSED, .head = 0, .id = TABLE_QUERIES};
    table k0 = {.variant = VARIANT_ID_FUSED, .head = 0, .id = TABLE_KEYS};
    table q1 = {.variant = VARIANT_ID_FUSED, .head = 1, .id = TABLE_QUERIES};
    table s0 = {
        .variant = VARIANT_ID_FUSED, .head = 0, .id = TABLE_ATTN_SCORES};
    table p0 = {
        .variant = VARIANT_ID_FUSED, .head = 0, .id = TABLE_ATTN_WEIGHTS};
    table o = {.variant = VARIANT_ID_FUSED, .head = NO_HEAD, .id = TABLE_OUT};
    table q = {.variant = VARIANT_ID_WRAPPER, .head = 0, .id = TABLE_QUERIES};
    table h = {
        .variant = VARIANT_ID_BLOCK, .head = NO_HEAD, .id = TABLE_FFN_HIDDEN};
    table f = {
        .variant = VARIANT_ID_BLOCK, .head = NO_HEAD, .id = TABLE_FFN_OUT};
    table bo = {.variant = VARIANT_ID_BLOCK, .head = NO_HEAD, .id = TABLE_OUT};
    ok(step_starts(&a, NULL) && !step_starts(&b, &a) && step_starts(&c, &b),
       "steps: the tokens, then the embeddings");
    ok(step_starts(&w, &c) && !step_starts(&x, &w) && step_starts(&q0, &x),
       "steps: a module's parameters together");
    ok(!step_starts(&k0, &q0) && step_starts(&q1, &k0) &&
           step_starts(&s0, &k0) && step_starts(&p0, &s0) &&
           step_starts(&o, &p0) && step_starts(&q, &q0),
       "steps: a head's projections together; scores, weights, out, "
       "another head or variant each a new step");
    ok(!step_starts(&kt, &b) && step_starts(&c, &kt),
       "steps: the --kv sentence's tokens are in the tokens step");
    ok(step_starts(&h, &o) && !step_starts(&f, &h) && step_starts(&bo, &f),
       "steps: the block's feed-forward together, its out the last add "
       "and norm");
    ok(table_step(TABLE_OUT, VARIANT_ID_FUSED) == STEP_OUTPUT &&
           table_step(TABLE_OUT, VARIANT_ID_BLOCK) == STEP_NORM2,
       "steps: out is the fused module's output, the block's second norm");
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    test_display_width();
    test_display_cut();
    test_display_escape();
    test_text_exact();
    test_text_alignment();
    test_text_summary();
    test_text_scientific();
    test_text_scientific_edges();
    test_format_float();
    test_csv();
    test_csv_dir();
    test_errors();
    test_layout();
    test_steps();
    return tap_done();
}
