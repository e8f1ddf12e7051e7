/* csv_matrix_page.h: the page's form of the files of the trained model
 * it carries (html_parts.h, html_write_model), read by the page's core
 * (csv_matrix_page.c, and the folder of wasm/page_folder.c). */
#ifndef MHA_IO_CSV_MATRIX_PAGE_H
#define MHA_IO_CSV_MATRIX_PAGE_H

#include <stddef.h>

#include "base/error.h"

/* The u32 at p, little-endian: each length and size of the form. */
size_t page_form_u32(const unsigned char *p);

/* -1 with err set: the folder or file dir of the page is not in the
 * form (the page was not written by the program). */
int page_form_broken(const char *dir, mx_error *err);

#endif
