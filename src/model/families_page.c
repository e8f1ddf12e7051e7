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
    // the files, as the families' rows name them
    const tokenizer_files *merges =
        family_tokenizer_files(FAMILIES_VOCAB_MERGES);
    const tokenizer_files *alone =
        family_tokenizer_files(FAMILIES_TOKENIZER_JSON);
    /* TRANSLATORS: the second and third %s are the files of the families
     * whose folders hold a vocabulary and merges ("vocab.json",
     * "merges.txt"), the fourth those families ("GPT-2"), the fifth the
     * file of the families whose folders hold tokenizer.json alone
     * ("tokenizer.json"), the sixth those families ("BERT, Llama-style"),
     * as their titles are translated. DIR and FILE are the value names of
     * --model and --html: write them as your --help does (msgid "DIR",
     * "FILE") */
    return err_input(err,
                     _("%s: this page reads folders with %s and %s (%s); "
                       "the page of mha-explain --model DIR --html FILE also "
                       "reads %s (%s)"),
                     path, merges->vocab, merges->merges, vocab, alone->json,
                     json);
}
