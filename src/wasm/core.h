/* core.h: the WebAssembly core of the --html page (docs/html.md, "The
 * live page").
 *
 * The page runs the program's own pipeline in the browser: it hands the
 * core a command line, the core parses it with the program's options
 * (cli/options.c), checks it as the program does, runs the model and
 * gives back the page's data (html_data.c, the same JSON the program
 * embeds) or the bytes `--format csv` prints. A refused command line
 * gives the program's message, in the language of the catalogue the page
 * handed over (base/page/libintl.c).
 *
 * Memory crosses with mx_alloc and mx_free; a result is three 32-bit
 * words in the module's memory: status, text pointer, text length. */
#ifndef MHA_WASM_CORE_H
#define MHA_WASM_CORE_H

#include <stddef.h>

#include <libintl.h> /* mx_catalogue: base/page/libintl.c */

#include "base/error.h"
#include "base/page/page_link.h"
#include "io/page_files.h"

/* A run's answer: status 0 and the text, or the program's exit status
 * (2: a refused command line) and its one-line message. */
typedef struct {
    int status;
    char *text; /* NUL-terminated, owned */
    size_t len; /* its length without the NUL */
} mx_result;

/* n bytes for the page to fill (NULL when there is no memory). */
void *mx_alloc(size_t n);
void mx_free(void *p);

/* mx_catalogue, the language of messages: base/page/include/libintl.h. */

/* Takes the n files of files (io/page_files.h: the array, each path and
 * bytes from mx_alloc; the core owns them from now on) as the folder a
 * --model DIR of the command line reads, each file at "DIR/NAME";
 * the folder given before is freed. NULL and 0: none. */
void mx_folder(page_file *files, size_t n);

/* Runs `mha-explain ARGS` where args holds the arguments after the
 * program's name, each ending in '\0', len bytes in all: the page's data
 * (csv 0) or the CSV output (csv 1). model (model_len bytes, or NULL) is
 * the trained model the page carries (html_parts.h), which a --weights
 * of the command line reads as its folder (page_folder.h). NULL only
 * when there is no memory for the answer; mx_result_free frees it. */
mx_result *mx_run(const char *args, size_t len, int csv, unsigned char *model,
                  size_t model_len);
void mx_result_free(mx_result *r);

/* The words of the sentence text (len bytes) as the trained model the
 * page carries (model, model_len bytes) reads them (page_words.c): a
 * JSON list [{"word": "O", "known": true}, ...] of its whitespace pieces
 * in order, known false for a piece with a token outside the trained
 * vocabulary (the run refuses it, or with --unk reads it as <unk>). */
mx_result *mx_words(const char *text, size_t len, unsigned char *model,
                    size_t model_len);

/* For the entry points: the answer text (owned, len bytes; status 0), or
 * the error's status and message. NULL without memory. */
mx_result *mx_answer(int status, char *text, size_t len);
mx_result *mx_refused(const mx_error *err);

#endif
