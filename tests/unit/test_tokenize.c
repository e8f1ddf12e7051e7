/* test_tokenize.c: model/tokenize.h, the lessons' words: splitting,
 * vocabulary and ids, as Python's str.split() and a first-seen
 * vocabulary give them; and cutting into grapheme clusters (--tokens
 * chars). */
#include <string.h>

#include "tap.h"
#include "model/tokenize.h"

/* Tokenizes text and compares tokens, ids and vocabulary size. */
static void expect(const char *name, const char *text, size_t len,
                   const char *const *tokens, const size_t *ids, size_t n,
                   size_t vocab)
{
    tokenized t;
    mx_error err = {0};
    if (!ok(tokenize(&t, text, len, &err) == 0, "%s: accepted", name)) {
        diag("%s", err.msg);
        return;
    }
    int same = t.n_tokens == n && t.n_vocab == vocab;
    for (size_t i = 0; same && i < n; i++)
        same = strcmp(t.tokens[i], tokens[i]) == 0 && t.ids[i] == ids[i];
    ok(same, "%s: %zu tokens, %zu words, ids as expected", name, n, vocab);
    tokenized_free(&t);
}

/* Cuts text into grapheme clusters and compares them with tokens. */
static void expect_chars(const char *name, const char *text,
                         const char *const *tokens, size_t n, size_t vocab)
{
    tokenized t;
    mx_error err = {0};
    if (!ok(tokenize_as(&t, text, strlen(text), TOKENS_CHARS, &err) == 0,
            "chars, %s: accepted", name)) {
        diag("%s", err.msg);
        return;
    }
    int same = t.n_tokens == n && t.n_vocab == vocab;
    for (size_t i = 0; same && i < n; i++)
        same = strcmp(t.tokens[i], tokens[i]) == 0;
    if (!ok(same, "chars, %s: %zu tokens, %zu distinct", name, n, vocab))
        for (size_t i = 0; i < t.n_tokens; i++)
            diag("token %zu: '%s'", i, t.tokens[i]);
    tokenized_free(&t);
}

static void expect_error(const char *name, const char *text, size_t len,
                         const char *fragment)
{
    tokenized t;
    mx_error err = {0};
    int rc = tokenize(&t, text, len, &err);
    ok(rc != 0 && err.status == 2 && strstr(err.msg, fragment) != NULL,
       "%s: rejected with '%s' (got '%s')", name, fragment, err.msg);
    if (rc == 0)
        tokenized_free(&t);
}

int main(void)
{
    const char *classroom[] = {"O", "gato", "sobe", "no", "tapete"};
    const size_t classroom_ids[] = {0, 1, 2, 3, 4};
    const char *s = "O gato sobe no tapete";
    expect("classroom", s, strlen(s), classroom, classroom_ids, 5, 5);

    const char *repeat[] = {"the", "cat", "sat", "on", "the", "mat"};
    const size_t repeat_ids[] = {0, 1, 2, 3, 0, 4};
    s = "the cat sat on the mat";
    expect("repeated word keeps its id", s, strlen(s), repeat, repeat_ids, 6,
           5);

    s = "  the\tcat\n\nsat \r\n on\vthe\fmat  ";
    expect("ASCII whitespace of every kind", s, strlen(s), repeat, repeat_ids,
           6, 5);

    const char *cjk[] = {"我", "喜欢", "吃", "牛舌", "和", "慢煮", "牛舌"};
    const size_t cjk_ids[] = {0, 1, 2, 3, 4, 5, 3};
    s = "我 喜欢 吃 牛舌 和 慢煮 牛舌";
    expect("CJK with a repeated word", s, strlen(s), cjk, cjk_ids, 7, 6);

    const char *ideo[] = {"猫が", "マットに", "座った"};
    const size_t ideo_ids[] = {0, 1, 2};
    s = "猫が\u3000マットに\u3000座った";
    expect("U+3000 ideographic space splits", s, strlen(s), ideo, ideo_ids, 3,
           3);

    const char *spaces[] = {"a", "b", "c", "d", "e", "f", "g"};
    const size_t spaces_ids[] = {0, 1, 2, 3, 4, 5, 6};
    s = "a\u00a0b\u2003c\u2028d\u2029e\xc2\x85"
        "f\x1cg";
    expect("NBSP, EM SPACE, U+2028/9, NEL and 0x1c split (str.split)", s,
           strlen(s), spaces, spaces_ids, 7, 7);

    const char *zwsp[] = {"a\u200bb"};
    const size_t zwsp_ids[] = {0};
    s = "a\u200bb";
    expect("U+200B ZERO WIDTH SPACE does not split", s, strlen(s), zwsp,
           zwsp_ids, 1, 1);

    const char *accents[] = {"caf\u00e9", "cafe\u0301", "caf\u00e9", "🙂"};
    const size_t accents_ids[] = {0, 1, 0, 2};
    s = "caf\u00e9 cafe\u0301 caf\u00e9 🙂";
    expect("NFC and NFD spellings stay different words; emoji kept whole", s,
           strlen(s), accents, accents_ids, 4, 3);

    /* --tokens chars: one token per user-perceived character */
    const char *hk[] = {"法", "國", "紅", "酒", "慢", "煮", "阿",
                        "根", "廷", "牛", "舌", "配", "煙", "肉",
                        "洋", "蔥", "炒", "著", "仔"};
    expect_chars("the Hong Kong sentence",
                 "法國紅酒慢煮阿根廷牛舌 配 煙肉洋蔥炒著仔", hk, 19, 19);
    const char *rep[] = {"牛", "舌", "和", "牛", "舌"};
    expect_chars("a repeated character keeps its id", "牛舌和　牛舌", rep, 5,
                 3);
    /* woman technologist, medium skin tone: woman + modifier + ZWJ +
     * laptop; family of three joined by ZWJs; thumbs up + skin tone */
    const char *emoji[] = {"👩🏽‍💻", "👨‍👩‍👧", "👍🏿",
                           "x"};
    expect_chars("emoji with ZWJ and skin tones stay whole",
                 "👩🏽‍💻👨‍👩‍👧 👍🏿x", emoji, 4, 4);
    const char *flags[] = {"🇧🇷", "🇵🇹", "🇪🇸"};
    expect_chars("regional-indicator flags pair up", "🇧🇷🇵🇹🇪🇸", flags, 3, 3);
    const char *marks[] = {"c", "a", "f", "é", "ñ", "é", "ậ"};
    expect_chars("combining marks stay with their letter", "café ñéậ", marks, 7,
                 7);
    const char *crlf[] = {"a", "b"};
    expect_chars("CR LF and tabs are skipped", "\ta\r\nb\r\n", crlf, 2, 2);
    {
        tokenized t;
        mx_error err = {0};
        int rc =
            tokenize_as(&t, " \u3000 ", strlen(" \u3000 "), TOKENS_CHARS, &err);
        ok(rc != 0 && strstr(err.msg, "empty") != NULL,
           "chars, whitespace only: rejected as empty");
        rc = tokenize_as(&t, "a\xff", 2, TOKENS_CHARS, &err);
        ok(rc != 0 && strstr(err.msg, "byte 2") != NULL,
           "chars, invalid UTF-8: rejected at its byte");
    }

    expect_error("lone continuation byte", "a \x80 b", 5, "byte 3");
    expect_error("truncated sequence at the end", "a \xe7\x8c", 4, "UTF-8");
    expect_error("overlong encoding", "\xc0\xaf", 2, "UTF-8");
    expect_error("UTF-16 surrogate", "\xed\xa0\x80", 3, "UTF-8");
    expect_error("0xFF", "ok \xff", 4, "byte 4");
    expect_error("NUL inside the text", "a\0b", 3, "NUL");
    expect_error("empty", "", 0, "empty");
    expect_error("whitespace only", " \t\u3000 ", strlen(" \t\u3000 "),
                 "empty");

    /* MAX_TOKENS words are accepted, one more is not */
    static char many[MAX_TOKENS * 2 + 3];
    for (size_t i = 0; i < MAX_TOKENS; i++) {
        many[2 * i] = 'x';
        many[2 * i + 1] = ' ';
    }
    tokenized t;
    mx_error err = {0};
    int rc = tokenize(&t, many, 2 * MAX_TOKENS, &err);
    ok(rc == 0 && t.n_tokens == MAX_TOKENS && t.n_vocab == 1,
       "exactly %d tokens are accepted", MAX_TOKENS);
    if (rc == 0)
        tokenized_free(&t);
    many[2 * MAX_TOKENS] = 'y';
    expect_error("one token too many", many, 2 * MAX_TOKENS + 1, "more than");

    /* a token of MAX_TOKEN_BYTES is accepted, one byte more is not, from
     * a sentence, in --tokens chars (one grapheme cluster) and in --focus */
    static char big[MAX_TOKEN_BYTES + 8];
    memcpy(big, "a ", 2);
    memset(big + 2, 'y', MAX_TOKEN_BYTES);
    rc = tokenize(&t, big, 2 + MAX_TOKEN_BYTES, &err);
    ok(rc == 0 && t.n_tokens == 2 && strlen(t.tokens[1]) == MAX_TOKEN_BYTES,
       "a token of exactly %zu bytes is accepted", MAX_TOKEN_BYTES);
    size_t where = 9;
    const char *focus_in[] = {"a", big + 2};
    ok(find_token(&where, big + 2, focus_in, 2, &err) == 0 && where == 1,
       "--focus finds a word of exactly %zu bytes", MAX_TOKEN_BYTES);
    if (rc == 0)
        tokenized_free(&t);
    big[2 + MAX_TOKEN_BYTES] = 'y';
    expect_error("a token one byte too long", big, 3 + MAX_TOKEN_BYTES,
                 "token 1 (counting from 0) is 65537 bytes long, longer "
                 "than the limit of a token, 64 KiB");
    err = (mx_error){0};
    ok(find_token(&where, big + 2, focus_in, 2, &err) != 0 &&
           strstr(err.msg, "--focus: the word is longer") != NULL,
       "a --focus word one byte too long is refused (got '%s')", err.msg);
    memcpy(big + 3 + MAX_TOKEN_BYTES, "@1", 3);
    err = (mx_error){0};
    ok(find_token(&where, big + 2, focus_in, 2, &err) != 0 &&
           strstr(err.msg, "--focus: the word is longer") != NULL,
       "WORD@POSITION with a word one byte too long is refused");
    /* "e" and 32768 combining acute accents (U+0301, 2 bytes each) */
    static char cluster[2 + 1 + 2 * 32768];
    cluster[0] = 'a';
    cluster[1] = ' ';
    cluster[2] = 'e';
    for (size_t i = 0; i < 32768; i++)
        memcpy(cluster + 3 + 2 * i, "\xcc\x81", 2);
    err = (mx_error){0};
    rc = tokenize_as(&t, cluster, sizeof cluster, TOKENS_CHARS, &err);
    ok(rc != 0 && strstr(err.msg, "token 1 (counting from 0) is 65537") != NULL,
       "--tokens chars: a grapheme cluster of 65537 bytes is refused (got "
       "'%s')",
       err.msg);
    if (rc == 0)
        tokenized_free(&t);

    const char *const words[] = {"b", "a", "b"};
    rc = tokenize_words(&t, words, 3, &err);
    ok(rc == 0 && t.n_vocab == 2 && t.ids[0] == 0 && t.ids[1] == 1 &&
           t.ids[2] == 0,
       "tokenize_words: the same vocabulary rule");
    if (rc == 0)
        tokenized_free(&t);
    ok(tokenize_words(&t, words, 0, &err) != 0,
       "tokenize_words: none is an error");
    ok(is_split_space(0x3000) && is_split_space(' ') && !is_split_space('a') &&
           !is_split_space(0x200B),
       "is_split_space agrees with Python's isspace");
    return tap_done();
}
