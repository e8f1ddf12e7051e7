/* families_page.c: the one message of the core every live page carries
 * for a folder only the families core reads (families_page.h). */
#include "model/families_page.h"

#include "base/i18n.h"

int page_reads_gpt2_only(const char *path, mx_error *err)
{
    /* TRANSLATORS: DIR and FILE are the value names of --model and
     * --html: write them as your --help does (msgid "DIR", "FILE") */
    return err_input(err,
                     _("%s: this page reads GPT-2 folders with vocab.json "
                       "and merges.txt; the page of mha-explain --model DIR "
                       "--html FILE reads tokenizer.json, Llama-style and "
                       "BERT folders too"),
                     path);
}
