/* page_folder.h: the trained model a page carries, as the core's
 * --weights folder (page_folder.c). */
#ifndef MHA_WASM_PAGE_FOLDER_H
#define MHA_WASM_PAGE_FOLDER_H

#include <stddef.h>

#include "base/error.h"
#include "model/lesson/weights.h"

/* The folder dir (its name as the command line gives it) of the len
 * bytes at bytes, in the form html_write_model writes (html_parts.h),
 * into *w (freed with weights_files_free, on success only); bytes must
 * outlive w. Its model.json is parsed as weights_open_dir parses it. */
int page_folder_open(weights_files *w, const char *dir, unsigned char *bytes,
                     size_t len, mx_error *err);

/* --corpus path of the core: the sentences the page carries with its
 * model (PAGE_CORPUS_NAME, html_parts.h) in *sentences (n, owned,
 * each and the array, also on failure) and their lines in the corpus's
 * file in *lines (owned). An error naming path when the page carries
 * none. */
int page_folder_corpus(char ***sentences, size_t **lines, size_t *n,
                       const char *path, const unsigned char *bytes, size_t len,
                       mx_error *err);

#endif
