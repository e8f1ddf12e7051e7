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

#endif
