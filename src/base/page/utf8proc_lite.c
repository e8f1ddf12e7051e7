/* utf8proc_lite.c: the functions of utf8proc the core calls, for the
 * WebAssembly core, which has no libutf8proc.
 *
 * The properties come from the installed libutf8proc, written out at
 * build time (unicode_tables.c); decoding, encoding and the grapheme
 * rules are utf8proc 2.8's own code (MIT licence, JuliaStrings/utf8proc,
 * utf8proc.c), so the core cuts and measures text as the program does.
 * The header is the installed utf8proc.h, copied into the build. */
#include <utf8proc.h>

#include "base/page/unicode.h"

/* The properties of c (any code point outside 0 .. 0x10ffff: those of
 * code point 0, as utf8proc gives its first property). */
static unsigned props_of(utf8proc_int32_t c)
{
    if (c < 0 || c >= 0x110000)
        return unicode_props[0];
    size_t lo = 0, hi = unicode_n_runs; /* unicode_starts[lo] <= c */
    while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        if (unicode_starts[mid] <= (uint32_t)c)
            lo = mid;
        else
            hi = mid;
    }
    return unicode_props[lo];
}

utf8proc_category_t utf8proc_category(utf8proc_int32_t c)
{
    return (utf8proc_category_t)UNICODE_CATEGORY(props_of(c));
}

utf8proc_int32_t utf8proc_tolower(utf8proc_int32_t c)
{
    size_t lo = 0, hi = unicode_n_lower;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (unicode_lower[mid][0] == (uint32_t)c)
            return (utf8proc_int32_t)unicode_lower[mid][1];
        if (unicode_lower[mid][0] < (uint32_t)c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return c;
}

int utf8proc_charwidth(utf8proc_int32_t c)
{
    return (int)UNICODE_WIDTH(props_of(c));
}

#define utf_cont(ch) (((ch)&0xc0) == 0x80)

utf8proc_ssize_t utf8proc_iterate(const utf8proc_uint8_t *str,
                                  utf8proc_ssize_t strlen,
                                  utf8proc_int32_t *dst)
{
    utf8proc_int32_t uc;
    const utf8proc_uint8_t *end;

    *dst = -1;
    if (!strlen)
        return 0;
    end = str + ((strlen < 0) ? 4 : strlen);
    uc = *str++;
    if (uc < 0x80) {
        *dst = uc;
        return 1;
    }
    if ((utf8proc_uint32_t)(uc - 0xc2) > (0xf4 - 0xc2))
        return UTF8PROC_ERROR_INVALIDUTF8;
    if (uc < 0xe0) {
        if (str >= end || !utf_cont(*str))
            return UTF8PROC_ERROR_INVALIDUTF8;
        *dst = ((uc & 0x1f) << 6) | (*str & 0x3f);
        return 2;
    }
    if (uc < 0xf0) {
        if ((str + 1 >= end) || !utf_cont(*str) || !utf_cont(str[1]))
            return UTF8PROC_ERROR_INVALIDUTF8;
        if (uc == 0xed && *str > 0x9f)
            return UTF8PROC_ERROR_INVALIDUTF8;
        uc = ((uc & 0xf) << 12) | ((*str & 0x3f) << 6) | (str[1] & 0x3f);
        if (uc < 0x800)
            return UTF8PROC_ERROR_INVALIDUTF8;
        *dst = uc;
        return 3;
    }
    if ((str + 2 >= end) || !utf_cont(*str) || !utf_cont(str[1]) ||
        !utf_cont(str[2]))
        return UTF8PROC_ERROR_INVALIDUTF8;
    if (uc == 0xf0) {
        if (*str < 0x90)
            return UTF8PROC_ERROR_INVALIDUTF8;
    } else if (uc == 0xf4) {
        if (*str > 0x8f)
            return UTF8PROC_ERROR_INVALIDUTF8;
    }
    *dst = ((uc & 7) << 18) | ((*str & 0x3f) << 12) | ((str[1] & 0x3f) << 6) |
           (str[2] & 0x3f);
    return 4;
}

utf8proc_ssize_t utf8proc_encode_char(utf8proc_int32_t uc,
                                      utf8proc_uint8_t *dst)
{
    if (uc < 0x00) {
        return 0;
    } else if (uc < 0x80) {
        dst[0] = (utf8proc_uint8_t)uc;
        return 1;
    } else if (uc < 0x800) {
        dst[0] = (utf8proc_uint8_t)(0xC0 + (uc >> 6));
        dst[1] = (utf8proc_uint8_t)(0x80 + (uc & 0x3F));
        return 2;
    } else if (uc < 0x10000) {
        dst[0] = (utf8proc_uint8_t)(0xE0 + (uc >> 12));
        dst[1] = (utf8proc_uint8_t)(0x80 + ((uc >> 6) & 0x3F));
        dst[2] = (utf8proc_uint8_t)(0x80 + (uc & 0x3F));
        return 3;
    } else if (uc < 0x110000) {
        dst[0] = (utf8proc_uint8_t)(0xF0 + (uc >> 18));
        dst[1] = (utf8proc_uint8_t)(0x80 + ((uc >> 12) & 0x3F));
        dst[2] = (utf8proc_uint8_t)(0x80 + ((uc >> 6) & 0x3F));
        dst[3] = (utf8proc_uint8_t)(0x80 + (uc & 0x3F));
        return 4;
    }
    return 0;
}

/* Whether there is a grapheme break between boundary classes lbc and tbc
 * (extended grapheme clusters, TR29); GB11 and GB12/13 need the state
 * kept by grapheme_break_extended. */
static utf8proc_bool grapheme_break_simple(int lbc, int tbc)
{
    return (lbc == UTF8PROC_BOUNDCLASS_START) ? true
           : (lbc == UTF8PROC_BOUNDCLASS_CR && tbc == UTF8PROC_BOUNDCLASS_LF)
               ? false
           : (lbc >= UTF8PROC_BOUNDCLASS_CR &&
              lbc <= UTF8PROC_BOUNDCLASS_CONTROL)
               ? true
           : (tbc >= UTF8PROC_BOUNDCLASS_CR &&
              tbc <= UTF8PROC_BOUNDCLASS_CONTROL)
               ? true
           : (lbc == UTF8PROC_BOUNDCLASS_L &&
              (tbc == UTF8PROC_BOUNDCLASS_L || tbc == UTF8PROC_BOUNDCLASS_V ||
               tbc == UTF8PROC_BOUNDCLASS_LV || tbc == UTF8PROC_BOUNDCLASS_LVT))
               ? false
           : ((lbc == UTF8PROC_BOUNDCLASS_LV || lbc == UTF8PROC_BOUNDCLASS_V) &&
              (tbc == UTF8PROC_BOUNDCLASS_V || tbc == UTF8PROC_BOUNDCLASS_T))
               ? false
           : ((lbc == UTF8PROC_BOUNDCLASS_LVT ||
               lbc == UTF8PROC_BOUNDCLASS_T) &&
              tbc == UTF8PROC_BOUNDCLASS_T)
               ? false
           : (tbc == UTF8PROC_BOUNDCLASS_EXTEND ||
              tbc == UTF8PROC_BOUNDCLASS_ZWJ ||
              tbc == UTF8PROC_BOUNDCLASS_SPACINGMARK ||
              lbc == UTF8PROC_BOUNDCLASS_PREPEND)
               ? false
           : (lbc == UTF8PROC_BOUNDCLASS_E_ZWG &&
              tbc == UTF8PROC_BOUNDCLASS_EXTENDED_PICTOGRAPHIC)
               ? false
           : (lbc == UTF8PROC_BOUNDCLASS_REGIONAL_INDICATOR &&
              tbc == UTF8PROC_BOUNDCLASS_REGIONAL_INDICATOR)
               ? false
               : true;
}

static utf8proc_bool grapheme_break_extended(int lbc, int tbc,
                                             utf8proc_int32_t *state)
{
    if (state == NULL)
        return grapheme_break_simple(lbc, tbc);
    int lbc_override;
    if (*state == UTF8PROC_BOUNDCLASS_START)
        *state = lbc_override = lbc;
    else
        lbc_override = *state;
    const utf8proc_bool break_permitted =
        grapheme_break_simple(lbc_override, tbc);
    /* GB12/13: after two regional indicators, a break */
    if (*state == tbc && tbc == UTF8PROC_BOUNDCLASS_REGIONAL_INDICATOR)
        *state = UTF8PROC_BOUNDCLASS_OTHER;
    /* GB11: emoji extend* zwj emoji */
    else if (*state == UTF8PROC_BOUNDCLASS_EXTENDED_PICTOGRAPHIC) {
        if (tbc == UTF8PROC_BOUNDCLASS_EXTEND)
            *state = UTF8PROC_BOUNDCLASS_EXTENDED_PICTOGRAPHIC;
        else if (tbc == UTF8PROC_BOUNDCLASS_ZWJ)
            *state = UTF8PROC_BOUNDCLASS_E_ZWG;
        else
            *state = tbc;
    } else
        *state = tbc;
    return break_permitted;
}

utf8proc_bool utf8proc_grapheme_break_stateful(utf8proc_int32_t c1,
                                               utf8proc_int32_t c2,
                                               utf8proc_int32_t *state)
{
    return grapheme_break_extended((int)UNICODE_BOUNDCLASS(props_of(c1)),
                                   (int)UNICODE_BOUNDCLASS(props_of(c2)),
                                   state);
}
