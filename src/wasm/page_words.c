/* page_words.c: the editor's marks on the words a trained model does not
 * know (core.h, mx_words). The sentence is cut into its whitespace
 * pieces as the program cuts it, and each piece into tokens by the
 * model's rules (model.json's --tokens, --lower, --punct, the same
 * tokenize_with the run calls): a piece with a token outside the trained
 * vocabulary is one the program refuses (or, with --unk, reads as
 * <unk>). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "html/html_parts.h"
#include "model/tokenize.h"
#include "wasm/core.h"
#include "wasm/page_folder.h"

/* Whether every token of piece, made by m's rules, is in m's
 * vocabulary (a piece left with no token has nothing to refuse). */
static bool piece_known(const trained_manifest *m, const char *piece)
{
    tokenized t;
    mx_error err = {0};
    if (tokenize_with(&t, piece, strlen(piece), m->tokens, &m->rules, &err) !=
        0)
        return true;
    bool known = true;
    for (size_t k = 0; k < t.n_tokens && known; k++) {
        known = false;
        for (size_t v = 0; v < m->n_vocab && !known; v++)
            known = strcmp(t.tokens[k], m->vocab[v]) == 0;
    }
    tokenized_free(&t);
    return known;
}

/* [{"word":"O","known":true},...]: the pieces of text, in order. */
static int write_words(FILE *out, const trained_manifest *m, const char *text,
                       mx_error *err)
{
    tokenized pieces;
    if (tokenize_as(&pieces, text, strlen(text), TOKENS_WORDS, err) != 0)
        return -1;
    fputc('[', out);
    for (size_t i = 0; i < pieces.n_tokens; i++) {
        fputs(i > 0 ? ",{\"word\":" : "{\"word\":", out);
        json_string(out, pieces.tokens[i]);
        fprintf(out, ",\"known\":%s}",
                piece_known(m, pieces.tokens[i]) ? "true" : "false");
    }
    fputc(']', out);
    tokenized_free(&pieces);
    return 0;
}

EXPORT(mx_words)
mx_result *mx_words(const char *text, size_t len, unsigned char *model,
                    size_t model_len)
{
    mx_error err = {0};
    char *copy = malloc(len + 1);
    char *json = NULL;
    size_t json_len = 0;
    FILE *out = copy != NULL ? open_memstream(&json, &json_len) : NULL;
    int rc = -1;
    weights_files files;
    if (out == NULL) {
        err_nomem(&err, _("the page's data"));
    } else {
        memcpy(copy, text, len);
        copy[len] = '\0';
        rc = page_folder_open(&files, "MODEL", model, model_len, &err);
        if (rc == 0) {
            rc = write_words(out, &files.manifest, copy, &err);
            weights_files_free(&files);
        }
    }
    if (out != NULL && fclose(out) != 0 && rc == 0)
        rc = err_nomem(&err, _("the page's data"));
    free(copy);
    if (rc != 0) {
        free(json);
        return mx_refused(&err);
    }
    return mx_answer(0, json, json_len);
}
