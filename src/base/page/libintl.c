/* libintl.c: gettext and ngettext for the WebAssembly core, which has
 * no GNU gettext (include/libintl.h, found as <libintl.h> by the core's
 * sources), over one GNU .mo catalogue held in memory.
 *
 * The page hands the core the catalogue of its language (the messages
 * the core can print, taken from po/LANG.po at build time by
 * src/wasm/embed_core.py) with mx_catalogue(); without one, every message is the
 * English msgid, as gettext gives without a translation.
 *
 * .mo layout (GNU gettext manual, "The Format of GNU MO Files"): a
 * little-endian header (magic 0x950412de, revision, N, the offsets of
 * the msgid and msgstr tables), then N (length, offset) pairs for each
 * table, the msgids sorted by their bytes. A plural entry's msgid is
 * "singular\0plural" and its msgstr the forms separated by '\0'.
 *
 * The page's catalogues hold no msgid text, which the core already has:
 * their revision is KEYS_HASHED, and each msgid is written as its key,
 * the 32-bit FNV-1a hash of its bytes (4 bytes, most significant
 * first), sorted by those bytes. embed_core.py makes them and checks
 * that no two of the core's msgids share a key, so a key names one
 * msgid. A catalogue of revision 0 (msgfmt's own .mo) is read as GNU's.
 *
 * The catalogue is the one piece of state the core keeps between calls:
 * gettext has no argument to carry it, like GNU gettext's own. */
#include <libintl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/page/page_link.h"

/* The revision of a catalogue whose msgids are their keys. */
#define KEYS_HASHED 0x4d480000u

static struct {
    unsigned char *bytes; /* the .mo file, owned; NULL: none */
    size_t len;
    uint32_t n, ids, strs; /* entries, the offsets of the two tables */
    int hashed;            /* its msgids are keys (KEYS_HASHED) */
    int plural_rule;       /* PLURAL_* of its Plural-Forms header */
} catalogue;

/* The Plural-Forms rules of po/LINGUAS' languages. */
enum { PLURAL_NOT_ONE, PLURAL_MORE_THAN_ONE, PLURAL_NONE };

static uint32_t word_at(size_t at)
{
    const unsigned char *p = catalogue.bytes + at;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/* Entry i of the table at offset table: its bytes, *len long, or NULL
 * when it lies outside the file. */
static const char *entry(uint32_t table, uint32_t i, uint32_t *len)
{
    const size_t at = (size_t)table + 8 * (size_t)i;
    if (at + 8 > catalogue.len)
        return NULL;
    *len = word_at(at);
    const uint32_t off = word_at(at + 4);
    if ((size_t)off + *len >= catalogue.len)
        return NULL;
    return (const char *)catalogue.bytes + off;
}

/* FNV-1a, 32 bits: the key of a msgid of len bytes in a hashed
 * catalogue, its most significant byte first. */
static void key_of(unsigned char key[4], const char *msgid, size_t len)
{
    uint32_t h = 0x811c9dc5u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)msgid[i]) * 0x01000193u;
    for (int i = 0; i < 4; i++)
        key[i] = (unsigned char)(h >> (24 - 8 * i));
}

/* The translation of msgid (len bytes, for a plural entry "one\0other"),
 * or NULL: a binary search of the sorted msgids, or of their keys. */
static const char *lookup(const char *msgid, size_t len, uint32_t *str_len)
{
    unsigned char hashed[4];
    key_of(hashed, msgid, len);
    const char *key = catalogue.hashed ? (const char *)hashed : msgid;
    if (catalogue.hashed)
        len = sizeof hashed;
    uint32_t lo = 0, hi = catalogue.n;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        uint32_t id_len = 0;
        const char *id = entry(catalogue.ids, mid, &id_len);
        if (id == NULL)
            return NULL;
        const size_t common = id_len < len ? id_len : len;
        int c = memcmp(key, id, common);
        if (c == 0)
            c = len < id_len ? -1 : len > id_len ? 1 : 0;
        if (c == 0)
            return entry(catalogue.strs, mid, str_len);
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

static int plural_rule_of(const char *header)
{
    const char *rule = strstr(header, "plural=");
    if (rule == NULL)
        return PLURAL_NOT_ONE;
    rule += strlen("plural=");
    if (strncmp(rule, "0", 1) == 0)
        return PLURAL_NONE;
    if (strstr(rule, "n > 1") != NULL || strstr(rule, "n>1") != NULL)
        return PLURAL_MORE_THAN_ONE;
    return PLURAL_NOT_ONE;
}

EXPORT(mx_catalogue) int mx_catalogue(unsigned char *bytes, size_t len)
{
    free(catalogue.bytes);
    catalogue.bytes = NULL;
    catalogue.len = 0;
    catalogue.n = 0;
    if (bytes == NULL || len < 28) {
        free(bytes);
        return bytes == NULL ? 0 : -1;
    }
    catalogue.bytes = bytes;
    catalogue.len = len;
    const uint32_t revision = word_at(4);
    if (word_at(0) != 0x950412de ||
        (revision != 0 && revision != KEYS_HASHED)) {
        mx_catalogue(NULL, 0);
        return -1;
    }
    catalogue.hashed = revision == KEYS_HASHED;
    catalogue.n = word_at(8);
    catalogue.ids = word_at(12);
    catalogue.strs = word_at(16);
    uint32_t header_len = 0;
    const char *header = lookup("", 0, &header_len);
    catalogue.plural_rule =
        header != NULL ? plural_rule_of(header) : PLURAL_NOT_ONE;
    return 0;
}

const char *gettext(const char *msgid)
{
    uint32_t len = 0;
    const char *s = catalogue.n > 0 ? lookup(msgid, strlen(msgid), &len) : NULL;
    return s != NULL && len > 0 ? s : msgid;
}

const char *ngettext(const char *msgid, const char *plural, unsigned long n)
{
    size_t form = 0;
    switch (catalogue.plural_rule) {
    case PLURAL_NONE:
        form = 0;
        break;
    case PLURAL_MORE_THAN_ONE:
        form = n > 1;
        break;
    default:
        form = n != 1;
    }
    const char *english = n == 1 ? msgid : plural;
    if (catalogue.n == 0)
        return english;
    /* the key: "singular\0plural" */
    const size_t one = strlen(msgid), other = strlen(plural);
    char *key = malloc(one + 1 + other);
    if (key == NULL)
        return english;
    memcpy(key, msgid, one + 1);
    memcpy(key + one + 1, plural, other);
    uint32_t len = 0;
    const char *s = lookup(key, one + 1 + other, &len);
    free(key);
    if (s == NULL || len == 0)
        return english;
    /* the forms, separated by '\0' */
    const char *end = s + len;
    for (size_t i = 0; i < form && s < end; i++)
        s += strlen(s) + 1;
    return s < end ? s : english;
}
