/* test_output.c: the text and CSV renderers and display widths. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render.h"
#include "tap.h"
#include "textwidth.h"

/* A trace with one table of rows x cols values 0, 0.5, 1, ... */
static const table *one_table(trace *tr, const char *const *rows,
                              const char *const *cols, size_t r, size_t c,
                              int head, const float *values)
{
    mx_error err;
    matrix m;
    if (matrix_alloc(&m, r, c, "test", &err) != 0)
        abort();
    for (size_t i = 0; i < r * c; i++)
        m.v[i] = values ? values[i] : 0.5f * (float)i;
    const labels *rl = trace_word_labels(tr, "", rows, r, &err);
    const labels *cl = trace_word_labels(tr, "", cols, c, &err);
    if (trace_add(tr, "fused", head, "attn_weights", rl, cl, &m, &err) != 0)
        abort();
    matrix_free(&m);
    return &tr->tables[tr->n_tables - 1];
}

/* Renders with fn into a string (caller frees). */
static char *text_of(const table *t, const text_style *style)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    mx_error err;
    render_text(f, &t, 1, style, &err);
    fclose(f);
    return buf;
}

static char *csv_of(const table *t, const csv_out_style *style)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    mx_error err;
    render_csv(f, &t, 1, style, &err);
    fclose(f);
    return buf;
}

static void widths(void)
{
    ok(display_width("gato") == 4, "width of gato is 4");
    ok(display_width("牛舌") == 4, "width of 牛舌 is 4");
    ok(display_width("caf\u00e9") == 4 && display_width("cafe\u0301") == 4,
       "é precomposed and decomposed are both one cell");
    ok(display_width("🙂") == 2, "an emoji is two cells");
    ok(display_width("👨\u200d👩\u200d👧") == 2, "a ZWJ family is two cells");
    ok(display_width("🇧🇷") == 2, "a flag is two cells");
    ok(display_width("\u263a\ufe0f") == 2, "emoji presentation is two cells");
    ok(display_width("\u1100\u1161\u11a8") == 2, "a Hangul syllable in jamo is two cells");
    char *e = display_escape("a\x1b[31mb\x7f\xc2\x85\xff 牛");
    ok(e && strcmp(e, "a\\x1b[31mb\\x7f\\x85\\xff 牛") == 0,
       "control characters and invalid bytes are escaped (%s)", e ? e : "");
    free(e);
}

static void text(void)
{
    trace tr;
    trace_init(&tr);
    const char *rows[] = {"Q:O", "Q:gato"}, *cols[] = {"K:O", "K:gato"};
    const float v[] = {1.0f, -INFINITY, 0.4567f, 0.5433f};
    const table *t = one_table(&tr, rows, cols, 2, 2, 1, v);
    text_style style = {.precision = 4};
    char *s = text_of(t, &style);
    const char *want = "[fused] head 1: attn_weights (2 x 2)\n"
                       "           K:O  K:gato\n"
                       "Q:O     1.0000    -inf\n"
                       "Q:gato  0.4567  0.5433\n";
    ok(s && strcmp(s, want) == 0, "a 2 x 2 table, exactly");
    if (s && strcmp(s, want) != 0)
        diag("got:\n%s", s);
    free(s);
    style.precision = 0;
    s = text_of(t, &style);
    ok(s && strstr(s, "Q:O       1    -inf\n") != NULL, "precision 0");
    free(s);

    const char *cjk_rows[] = {"Q:我", "Q:🙂", "Q:cafe\u0301"};
    const char *cjk_cols[] = {"K:喜欢", "K:x"};
    t = one_table(&tr, cjk_rows, cjk_cols, 3, 2, 0, NULL);
    style.precision = 4;
    s = text_of(t, &style);
    /* every line after the header has the same display width */
    int aligned = 1;
    size_t width = 0;
    char *save = NULL;
    int line_no = 0;
    for (char *line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line_no++ == 0)
            continue;
        if (width == 0)
            width = display_width(line);
        aligned &= display_width(line) == width;
    }
    ok(aligned && line_no == 5, "CJK, emoji and combining labels keep columns aligned");
    free(s);

    const char *esc_rows[] = {"x\x1b[2J"}, *esc_cols[] = {"dim0"};
    t = one_table(&tr, esc_rows, esc_cols, 1, 1, 0, NULL);
    s = text_of(t, &style);
    ok(s && strchr(s, 0x1b) == NULL && strstr(s, "x\\x1b[2J") != NULL,
       "a label with ESC is printed escaped");
    free(s);

    /* summarising, as PyTorch prints tensors over 1000 values */
    static const char *names[40];
    static char buf[40][8];
    for (int i = 0; i < 40; i++) {
        snprintf(buf[i], sizeof buf[i], "t%d", i);
        names[i] = buf[i];
    }
    t = one_table(&tr, names, names, 40, 40, 0, NULL);
    s = text_of(t, &style);
    ok(s && strstr(s, "summarised") && strstr(s, "t36") == NULL &&
           strstr(s, "\nt37 ") && strstr(s, "\nt2 ") && !strstr(s, "\nt3 ") &&
           strstr(s, "  ...") && strstr(s, "\n...  ") && strstr(s, " t39\n"),
       "40 x 40: first and last 3 rows and columns around ...");
    free(s);
    style.full = true;
    s = text_of(t, &style);
    ok(s && !strstr(s, "...") && strstr(s, "t20"), "--full prints 40 x 40 whole");
    free(s);
    style.full = false;
    t = one_table(&tr, names, names, 30, 30, 0, NULL);
    s = text_of(t, &style);
    ok(s && !strstr(s, "..."), "30 x 30 (900 values) is printed whole");
    free(s);
    trace_free(&tr);
}

static void csv(void)
{
    trace tr;
    trace_init(&tr);
    const char *rows[] = {"a,b", "say \"hi\""}, *cols[] = {"x", "line\nbreak"};
    const float v[] = {0.5f, -INFINITY, 12.0f, 1e-8f};
    const table *t = one_table(&tr, rows, cols, 2, 2, 0, v);
    csv_out_style style = {.delimiter = ',', .header = true, .sentence = -1};
    char *s = csv_of(t, &style);
    const char *want =
        "variant,head,table,row,row_label,col,col_label,value\n"
        "fused,0,attn_weights,0,\"a,b\",0,x,0.5\n"
        "fused,0,attn_weights,0,\"a,b\",1,\"line\nbreak\",-inf\n"
        "fused,0,attn_weights,1,\"say \"\"hi\"\"\",0,x,12\n"
        "fused,0,attn_weights,1,\"say \"\"hi\"\"\",1,\"line\nbreak\",1e-08\n";
    ok(s && strcmp(s, want) == 0, "tidy CSV, exactly, with RFC 4180 quoting");
    if (s && strcmp(s, want) != 0)
        diag("got:\n%s", s);
    free(s);

    style = (csv_out_style){.delimiter = ';', .decimal_comma = true, .bom = true,
                            .header = true, .sentence = 3};
    s = csv_of(t, &style);
    ok(s && strncmp(s, "\xef\xbb\xbfsentence;variant;head;", 22) == 0 &&
           strstr(s, "\n3;fused;0;attn_weights;0;a,b;0;x;0,5\n"),
       "BOM, ';', decimal comma and a sentence column");
    free(s);
    style.header = false;
    style.bom = false;
    s = csv_of(t, &style);
    ok(s && strncmp(s, "3;fused", 7) == 0, "no header when asked");
    free(s);

    const float awkward[] = {0.1f, 1.0f / 3.0f, 1e-8f, 123456.789f, -0.0f,
                             FLT_MIN, FLT_MAX, 16777216.0f, 0.3367f, -2.5e-7f};
    int exact = 1;
    for (size_t i = 0; i < sizeof awkward / sizeof awkward[0]; i++) {
        char out[32], longest[32];
        format_float_exact(out, sizeof out, awkward[i], false);
        snprintf(longest, sizeof longest, "%.9g", (double)awkward[i]);
        float back = strtof(out, NULL);
        exact &= memcmp(&back, &awkward[i], sizeof back) == 0 &&
                 strlen(out) <= strlen(longest) + 1;
    }
    char twelve[32];
    format_float_exact(twelve, sizeof twelve, 12.0f, false);
    ok(exact && strcmp(twelve, "12") == 0,
       "every value reads back as the same float32, whole numbers plainly");
    trace_free(&tr);
}

static void csv_dir(void)
{
    char dir[] = "/tmp/mha-render-XXXXXX";
    if (mkdtemp(dir) == NULL)
        abort();
    trace tr;
    trace_init(&tr);
    const char *rows[] = {"O"}, *cols[] = {"dim0", "dim1"};
    const float v[] = {0.25f, -1.0f};
    const table *t = one_table(&tr, rows, cols, 1, 2, 1, v);
    csv_out_style style = {.delimiter = ','};
    char target[128], file[256];
    snprintf(target, sizeof target, "%s/a/b", dir);
    mx_error err;
    ok(render_csv_dir(target, &t, 1, &style, &err) == 0,
       "csv-dir creates missing folders");
    snprintf(file, sizeof file, "%s/fused.head1.attn_weights.csv", target);
    FILE *f = fopen(file, "r");
    char content[128] = "";
    if (f) {
        size_t n = fread(content, 1, sizeof content - 1, f);
        content[n] = '\0';
        fclose(f);
    }
    ok(strcmp(content, "token,dim0,dim1\nO,0.25,-1\n") == 0,
       "the matrix CSV, exactly");
    struct stat st;
    ok(stat(file, &st) == 0 && (st.st_mode & 0044) != 0,
       "written files follow the umask, not 0600");
    char blocker[160];
    snprintf(blocker, sizeof blocker, "%s/file", dir);
    f = fopen(blocker, "w");
    if (f)
        fclose(f);
    ok(render_csv_dir(blocker, &t, 1, &style, &err) != 0 && err.status == 2,
       "a regular file in the way is an input error");
    unlink(file);
    unlink(blocker);
    snprintf(file, sizeof file, "%s/a/b", dir);
    rmdir(file);
    snprintf(file, sizeof file, "%s/a", dir);
    rmdir(file);
    ok(rmdir(dir) == 0, "nothing else was left behind");
    trace_free(&tr);
}

int main(void)
{
    widths();
    text();
    csv();
    csv_dir();
    return tap_done();
}
