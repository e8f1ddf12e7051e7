/* page_files.h: the checkpoint folder the reader chose on the page
 * (docs/html.md, "A model on the page"), as the WebAssembly core's file
 * system: io/file_read.h's and io/safetensors.h's file functions, which
 * the program serves from the disk, served from the files' bytes the page
 * copied into the core's memory (page_files.c, which src/wasm/meson.build
 * names in file_read.c's and safetensors_map.c's place). */
#ifndef MHA_IO_PAGE_FILES_H
#define MHA_IO_PAGE_FILES_H

#include <stddef.h>

/* One file of the folder: its path as the command line's --model DIR
 * makes it ("DIR/config.json"), and its len bytes. All from mx_alloc. */
typedef struct {
    char *path;
    unsigned char *bytes;
    size_t len;
} page_file;

/* Makes the n files of files (the array, each path and bytes: the core
 * owns them from now on) the files the core reads, forgetting (freeing)
 * the folder given before; NULL and 0: no folder. */
void page_files_set(page_file *files, size_t n);

#endif
