/* tokenize.c: UTF-8 validation, whitespace or grapheme split, vocabulary. */
#include "model/tokenize.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "base/i18n.h"

void tokenized_free(tokenized *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < t->n_tokens; i++)
        free(t->tokens[i]);
    free(t->tokens);
    free(t->ids);
    /* vocab entries point at tokens: not freed twice */
    free(t->vocab);
    memset(t, 0, sizeof *t);
}

/* Appends a copy of word[0..len) as the next token. tokens and ids have
 * room for MAX_TOKENS entries, or for as many as the text has bytes. */
static int push_token(tokenized *t, const char *word, size_t len, mx_error *err)
{
    if (t->n_tokens == MAX_TOKENS)
        return err_input(err, _("the sentence has more than %d tokens"),
                         MAX_TOKENS);
    if (len > MAX_TOKEN_BYTES)
        return err_input(err,
                         _("token %zu (counting from 0) is %zu bytes long, "
                           "longer than the limit of a token, %zu KiB"),
                         t->n_tokens, len, MAX_TOKEN_BYTES >> 10);
    char *copy = malloc(len + 1);
    if (copy == NULL)
        return err_nomem(err, _("a token"));
    memcpy(copy, word, len);
    copy[len] = '\0';
    t->tokens[t->n_tokens++] = copy;
    return 0;
}

/* Gives every token its id, adding new words to the vocabulary. */
static void build_vocabulary(tokenized *t)
{
    for (size_t i = 0; i < t->n_tokens; i++) {
        size_t id = 0;
        while (id < t->n_vocab && strcmp(t->vocab[id], t->tokens[i]) != 0)
            id++;
        if (id == t->n_vocab)
            t->vocab[t->n_vocab++] = t->tokens[i];
        t->ids[i] = id;
    }
}

static int alloc_arrays(tokenized *t, size_t n, mx_error *err)
{
    memset(t, 0, sizeof *t);
    t->tokens = calloc(n, sizeof *t->tokens);
    t->ids = calloc(n, sizeof *t->ids);
    t->vocab = calloc(n, sizeof *t->vocab);
    if (t->tokens == NULL || t->ids == NULL || t->vocab == NULL) {
        tokenized_free(t);
        return err_nomem(err, _("the token list"));
    }
    return 0;
}

/* The first code point of s that is not a format character (general
 * category Cf: the bidirectional controls, zero-width space and joiners,
 * the word joiner, U+FEFF, the soft hyphen), or 0 when s holds only
 * those; *first is then s's first code point. s is valid UTF-8. */
static utf8proc_int32_t first_visible(const char *s, utf8proc_int32_t *first)
{
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)s;
    *first = 0;
    while (*p != '\0') {
        utf8proc_int32_t c;
        utf8proc_ssize_t n = utf8proc_iterate(p, -1, &c);
        if (n <= 0)
            return -1;
        if (*first == 0)
            *first = c;
        if (utf8proc_category(c) != UTF8PROC_CATEGORY_CF)
            return c;
        p += n;
    }
    return 0;
}

int tokenize(tokenized *out, const char *text, size_t len, mx_error *err)
{
    return tokenize_as(out, text, len, TOKENS_WORDS, err);
}

/* Splits text into out's tokens (tokenize_as), without the vocabulary. */
static int split_text(tokenized *out, const char *text, size_t len,
                      enum token_mode mode, mx_error *err)
{
    /* every token holds at least one byte of the text */
    const size_t room = len == 0 ? 1 : len < MAX_TOKENS ? len : MAX_TOKENS;
    if (alloc_arrays(out, room, err) != 0)
        return -1;

    size_t pos = 0;
    size_t word_start = 0;
    int in_word = 0;
    utf8proc_int32_t prev = 0;  /* the code point before pos */
    utf8proc_int32_t state = 0; /* utf8proc's grapheme-break state */
    while (pos < len) {
        utf8proc_int32_t c;
        utf8proc_ssize_t n =
            utf8proc_iterate((const utf8proc_uint8_t *)text + pos,
                             (utf8proc_ssize_t)(len - pos), &c);
        if (n < 0) {
            tokenized_free(out);
            return err_input(
                err, _("the sentence is not valid UTF-8 (byte %zu)"), pos + 1);
        }
        if (c == 0) {
            tokenized_free(out);
            return err_input(err, _("the sentence holds a NUL byte (byte %zu)"),
                             pos + 1);
        }
        /* A token ends at whitespace and, with TOKENS_CHARS, also where a
         * grapheme cluster ends (the break test sees every pair of
         * neighbours inside a run of non-space, so that emoji sequences
         * and regional-indicator flags are judged as UAX #29 says). */
        int space = is_split_space(c);
        int ends = space;
        if (!space && in_word && mode == TOKENS_CHARS)
            ends = utf8proc_grapheme_break_stateful(prev, c, &state);
        if (ends && in_word) {
            if (push_token(out, text + word_start, pos - word_start, err) !=
                0) {
                tokenized_free(out);
                return -1;
            }
            in_word = 0;
        }
        if (space) {
            state = 0;
        } else if (!in_word) {
            in_word = 1;
            word_start = pos;
        }
        prev = c;
        pos += (size_t)n;
    }
    if (in_word &&
        push_token(out, text + word_start, pos - word_start, err) != 0) {
        tokenized_free(out);
        return -1;
    }
    if (out->n_tokens == 0) {
        tokenized_free(out);
        return err_input(err, _("the sentence is empty"));
    }
    /* as empty as whitespace: words of characters that draw nothing */
    utf8proc_int32_t first = 0;
    size_t visible = 0;
    for (size_t i = 0; i < out->n_tokens && visible == 0; i++) {
        utf8proc_int32_t c = 0;
        visible += first_visible(out->tokens[i], &c) != 0;
        if (first == 0)
            first = c;
    }
    if (visible == 0) {
        tokenized_free(out);
        return err_input(err,
                         _("the sentence is empty: it holds only invisible "
                           "format characters (such as U+%04X)"),
                         (unsigned)first);
    }
    return 0;
}

int tokenize_as(tokenized *out, const char *text, size_t len,
                enum token_mode mode, mx_error *err)
{
    return tokenize_with(out, text, len, mode, NULL, err);
}

/* ---- --lower and --punct ------------------------------------------------ */

/* Whether c is punctuation: a Unicode category P* (Pc, Pd, Ps, Pe, Pi,
 * Pf, Po). */
static bool is_punct(utf8proc_int32_t c)
{
    const utf8proc_category_t k = utf8proc_category(c);
    return k >= UTF8PROC_CATEGORY_PC && k <= UTF8PROC_CATEGORY_PO;
}

/* The bytes of the code point at s[0..len) and the code point. */
static size_t code_at(utf8proc_int32_t *c, const char *s, size_t len)
{
    const utf8proc_ssize_t n =
        utf8proc_iterate((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)len, c);
    return n > 0 ? (size_t)n : 1;
}

/* word lower-cased, in place: a letter's lower case may take more bytes
 * (U+023A to U+2C65), so the word is rewritten into *word, reallocated. */
static int lower_word(char **word, mx_error *err)
{
    const size_t len = strlen(*word);
    /* each code point's lower case takes at most 4 bytes */
    char *low = malloc(4 * len + 1);
    if (low == NULL)
        return err_nomem(err, _("a token"));
    size_t at = 0;
    for (size_t i = 0; i < len;) {
        utf8proc_int32_t c;
        i += code_at(&c, *word + i, len - i);
        at += (size_t)utf8proc_encode_char(utf8proc_tolower(c),
                                           (utf8proc_uint8_t *)low + at);
    }
    low[at] = '\0';
    free(*word);
    *word = low;
    return 0;
}

/* Appends the tokens of word (owned: moved into out or freed) under
 * rules to out, whose arrays have room for `room` tokens. */
static int add_ruled(tokenized *out, char *word, const token_rules *rules,
                     mx_error *err)
{
    if (rules->lower && lower_word(&word, err) != 0) {
        free(word);
        return -1;
    }
    const size_t len = strlen(word);
    if (rules->punct == PUNCT_KEEP) {
        out->tokens[out->n_tokens++] = word;
        return 0;
    }
    // the word's core: from its first to its last code point that is not
    // punctuation (empty: all punctuation)
    size_t start = len, end = 0;
    for (size_t i = 0; i < len;) {
        utf8proc_int32_t c;
        const size_t n = code_at(&c, word + i, len - i);
        if (!is_punct(c)) {
            if (start == len)
                start = i;
            end = i + n;
        }
        i += n;
    }
    if (start == len)
        start = end = len;
    int rc = 0;
    for (size_t i = 0; i < len && rc == 0;) {
        utf8proc_int32_t c;
        const size_t n =
            i == start ? end - start : code_at(&c, word + i, len - i);
        if (i == start || rules->punct == PUNCT_SPLIT)
            rc = push_token(out, word + i, n, err);
        i += n;
    }
    free(word);
    return rc;
}

int tokenize_with(tokenized *out, const char *text, size_t len,
                  enum token_mode mode, const token_rules *rules, mx_error *err)
{
    if (split_text(out, text, len, mode, err) != 0)
        return -1;
    if (rules != NULL && (rules->lower || rules->punct != PUNCT_KEEP)) {
        // the pieces, made again into out's arrays under the rules
        char **pieces = out->tokens;
        const size_t n = out->n_tokens;
        const size_t room = len == 0 ? 1 : len < MAX_TOKENS ? len : MAX_TOKENS;
        out->tokens = calloc(room, sizeof *out->tokens);
        out->n_tokens = 0;
        int rc = out->tokens == NULL ? err_nomem(err, _("the token list")) : 0;
        size_t i = 0;
        for (; i < n && rc == 0; i++)
            rc = add_ruled(out, pieces[i], rules, err);
        for (; i < n; i++)
            free(pieces[i]);
        free(pieces);
        if (rc == 0 && out->n_tokens == 0)
            rc = err_input(err, _("the sentence is empty once its "
                                  "punctuation is dropped (--punct drop)"));
        if (rc != 0) {
            tokenized_free(out);
            return -1;
        }
    }
    build_vocabulary(out);
    return 0;
}

int tokenize_words(tokenized *out, const char *const *words, size_t n,
                   mx_error *err)
{
    if (n == 0) {
        memset(out, 0, sizeof *out);
        return err_input(err, _("no tokens given"));
    }
    if (n > MAX_TOKENS) {
        memset(out, 0, sizeof *out);
        return err_input(err, _("more than %d tokens"), MAX_TOKENS);
    }
    if (alloc_arrays(out, n, err) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (push_token(out, words[i], strlen(words[i]), err) != 0) {
            tokenized_free(out);
            return -1;
        }
    }
    build_vocabulary(out);
    return 0;
}

/* A word the sentence makes of several tokens (a checkpoint's pieces:
 * "gato" of "\u2423g" and "ato"): an error listing them, for --focus to
 * name one; 0 when the word is not there in pieces. */
static int word_in_pieces(const char *spec, const char *const *tokens, size_t n,
                          mx_error *err)
{
    const size_t space = strlen("\u2423"), len = strlen(spec);
    for (size_t i = 0; i < n; i++) {
        size_t at = 0, j = i;
        for (; j < n && at < len; j++) {
            const char *t = tokens[j];
            // the space before the word, alone or with its first letters
            const bool spaced = j == i && strncmp(t, "\u2423", space) == 0;
            if (spaced)
                t += space;
            const size_t k = strlen(t);
            if ((k == 0 && !spaced) || k > len - at ||
                strncmp(spec + at, t, k) != 0)
                break;
            at += k;
        }
        if (at != len || j - i < 2)
            continue;
        // the piece to suggest: the first with a letter of the word
        const size_t pick = strcmp(tokens[i], "\u2423") == 0 ? i + 1 : i;
        char pieces[300] = "";
        for (size_t p = i; p < j; p++) {
            const size_t used = strlen(pieces);
            snprintf(pieces + used, sizeof pieces - used, "%s'%s'",
                     p > i ? ", " : "", tokens[p]);
        }
        return err_usage(err,
                         _("--focus: '%s' is not one token: the sentence "
                           "splits it into %zu tokens, %s; focus one of "
                           "them, such as --focus '%s@%zu'"),
                         spec, j - i, pieces, tokens[pick], pick);
    }
    return 0;
}

int find_token(size_t *position, const char *spec, const char *const *tokens,
               size_t n, mx_error *err)
{
    if (spec == NULL || spec[0] == '\0')
        return err_usage(err, _("--focus: the word is empty"));
    /* a checkpoint's labels show a leading space as U+2423 (model/tokenizers/bpe.h):
     * " cat" names the token "\u2423cat" */
    bool visible = false;
    for (size_t i = 0; i < n && spec[0] == ' ' && !visible; i++)
        visible = strncmp(tokens[i], "\u2423", strlen("\u2423")) == 0;
    if (visible) {
        char *shown = malloc(strlen(spec) + sizeof "\u2423");
        if (shown == NULL)
            return err_nomem(err, _("the --focus view"));
        snprintf(shown, strlen(spec) + sizeof "\u2423", "\u2423%s", spec + 1);
        const int rc = find_token(position, shown, tokens, n, err);
        free(shown);
        return rc;
    }
    const char *at = strrchr(spec, '@');
    bool has_position = at != NULL && at[1] != '\0' &&
                        strspn(at + 1, "0123456789") == strlen(at + 1);
    if ((has_position ? (size_t)(at - spec) : strlen(spec)) > MAX_TOKEN_BYTES)
        return err_usage(err,
                         _("--focus: the word is longer than the limit of a "
                           "token, %zu KiB"),
                         MAX_TOKEN_BYTES >> 10);
    if (has_position) {
        size_t len = (size_t)(at - spec);
        errno = 0;
        unsigned long pos = strtoul(at + 1, NULL, 10);
        if (errno == ERANGE || pos >= n)
            return err_usage(err,
                             ngettext("--focus: position %s is past the end "
                                      "(the sentence has %zu token, from 0)",
                                      "--focus: position %s is past the end "
                                      "(the sentence has %zu tokens, from 0)",
                                      n),
                             at + 1, n);
        if (strlen(tokens[pos]) != len || strncmp(tokens[pos], spec, len) != 0)
            return err_usage(err,
                             _("--focus: the token at position %lu is "
                               "'%s', not '%.*s'"),
                             pos, tokens[pos], (int)len, spec);
        *position = pos;
        return 0;
    }
    size_t found = 0, first = 0;
    char where[200] = "";
    for (size_t i = 0; i < n; i++) {
        if (strcmp(tokens[i], spec) != 0)
            continue;
        if (found++ == 0)
            first = i;
        size_t used = strlen(where);
        snprintf(where + used, sizeof where - used, "%s%s@%zu",
                 found > 1 ? ", " : "", spec, i);
    }
    /* a checkpoint's word after a space is the token "\u2423word": "gato"
     * names "\u2423gato" when the sentence has no token "gato" */
    if (found == 0 && strncmp(spec, "\u2423", strlen("\u2423")) != 0) {
        char *shown = malloc(strlen(spec) + sizeof "\u2423");
        if (shown == NULL)
            return err_nomem(err, _("the --focus view"));
        snprintf(shown, strlen(spec) + sizeof "\u2423", "\u2423%s", spec);
        bool spaced = false;
        for (size_t i = 0; i < n && !spaced; i++)
            spaced = strcmp(tokens[i], shown) == 0;
        const int rc = spaced ? find_token(position, shown, tokens, n, err) : 1;
        free(shown);
        if (rc != 1)
            return rc;
    }
    if (found == 0 && word_in_pieces(spec, tokens, n, err) != 0)
        return -1;
    if (found == 0) {
        /* the words it could be, in order, each once: whole tokens while
         * they fit, then ", ..." (a first token longer than the list is
         * cut between two characters) */
        char words[300] = "";
        const size_t room = sizeof words - sizeof ", ...";
        size_t used = 0;
        bool cut = false;
        for (size_t i = 0; i < n && !cut; i++) {
            bool seen = false;
            for (size_t k = 0; k < i && !seen; k++)
                seen = strcmp(tokens[k], tokens[i]) == 0;
            if (seen)
                continue;
            const size_t sep = used > 0 ? 2 : 0, len = strlen(tokens[i]);
            size_t take = len;
            if (used + sep + len > room) {
                cut = true;
                take = used == 0 ? text_prefix(tokens[i], room) : 0;
                if (take == 0)
                    break;
            }
            memcpy(words + used, ", ", sep);
            memcpy(words + used + sep, tokens[i], take);
            used += sep + take;
            words[used] = '\0';
        }
        if (cut)
            memcpy(words + used, ", ...", sizeof ", ...");
        return err_usage(err,
                         _("--focus: '%s' is not a token of the sentence "
                           "(its tokens: %.300s)"),
                         spec, words);
    }
    if (found > 1)
        return err_usage(err,
                         _("--focus: '%s' occurs %zu times; choose one: %s"),
                         spec, found, where);
    *position = first;
    return 0;
}
