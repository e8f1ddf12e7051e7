/* tied_head.c: the lm_head tied to the embedding or its own
 * (tied_head.h). */
#include "model/tied_head.h"

#include <string.h>

#include "base/i18n.h"

int tied_head_read(bool *tied, const json_doc *doc, bool fallback,
                   const char *path, mx_error *err)
{
    return config_flag(tied, doc, "tie_word_embeddings", fallback, path, err);
}

int tied_head_settle(const float **head, const float *embed, size_t n,
                     bool tied, const char *file, const char *embed_name,
                     mx_error *err)
{
    if (!tied && *head == NULL)
        return err_input(
            err,
            _("%s: tensor %s is missing; config.json says tie_word_embeddings is false, so the model needs its own"),
            file, TIED_HEAD_NAME);
    if (tied && *head != NULL && memcmp(*head, embed, n * sizeof *embed) != 0)
        return err_input(
            err,
            _("%s: tensor %s differs from %s, but config.json ties them (tie_word_embeddings); set it to false to use %s"),
            file, TIED_HEAD_NAME, embed_name, TIED_HEAD_NAME);
    if (tied)
        *head = embed;
    return 0;
}
