/* folder_kind.h: a folder given to the other option of the two that
 * read a model: a trained lesson model's folder (its model.json, written
 * by --csv-dir of a --train run) given to --model, which reads
 * checkpoints, or a checkpoint's folder (its config.json) given to
 * --weights, which reads trained lesson models. Each is refused with the
 * option that reads it. */
#ifndef MHA_FOLDER_KIND_H
#define MHA_FOLDER_KIND_H

#include "base/error.h"

/* An error naming --weights when dir, given to --model, holds a
 * model.json and no config.json; else 0. */
int folder_check_model(const char *dir, mx_error *err);

/* An error naming --model when dir, given to --weights, holds a
 * config.json and no model.json; else 0. */
int folder_check_weights(const char *dir, mx_error *err);

#endif
