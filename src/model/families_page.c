/* families_page.c: the one message of the core every live page carries
 * for a folder only the families core reads (families_page.h). */
#include "model/families_page.h"

#include "base/i18n.h"
#include "model/family.h"

int page_reads_vocab_merges_only(const char *path, mx_error *err)
{
    char vocab[128], json[128];
    family_titles(vocab, sizeof vocab, FAMILIES_VOCAB_MERGES, false);
    family_titles(json, sizeof json, FAMILIES_TOKENIZER_JSON, false);
    /* TRANSLATORS: the second %s is the families whose folders hold
     * vocab.json and merges.txt ("GPT-2"), the third those whose folders
     * hold tokenizer.json ("BERT, Llama-style"), as their titles are
     * translated. DIR and FILE are the value names of --model and
     * --html: write them as your --help does (msgid "DIR", "FILE") */
    return err_input(err,
                     _("%s: this page reads folders with vocab.json and "
                       "merges.txt (%s); the page of mha-explain --model DIR "
                       "--html FILE also reads tokenizer.json (%s)"),
                     path, vocab, json);
}
