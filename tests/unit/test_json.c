/* test_json.c: json_u64 reads a whole number exactly from its text, past
 * the 2^53 a double holds exactly, and refuses any other number.
 *
 * Usage: test_json (the reference directory argument is not used)
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "io/json.h"
#include "tap.h"

/* json_u64 of the value of {"n": text}: 1 read (*out set), 0 refused, -1
 * not JSON. */
static int u64_of(const char *text, uint64_t *out)
{
    char doc_text[128];
    snprintf(doc_text, sizeof doc_text, "{\"n\": %s}", text);
    json_doc doc;
    mx_error err = {0};
    if (json_parse(&doc, doc_text, strlen(doc_text), "test", &err) != 0)
        return -1;
    const int got = json_u64(&doc, json_get(&doc, json_root(&doc), "n"), out);
    json_free(&doc);
    return got;
}

int main(void)
{
    static const struct {
        const char *text;
        uint64_t want;
    } whole[] = {
        {"0", 0},
        {"42", 42},
        {"9007199254740993", UINT64_C(9007199254740993)}, /* 2^53 + 1 */
        {"18446744073709551615", UINT64_MAX},
    };
    for (size_t i = 0; i < sizeof whole / sizeof *whole; i++) {
        uint64_t got = 0;
        const int rc = u64_of(whole[i].text, &got);
        ok(rc == 1 && got == whole[i].want, "%s is read exactly (%d, %llu)",
           whole[i].text, rc, (unsigned long long)got);
    }
    /* numbers that are not a whole number from 0 to 2^64 - 1 written as
     * digits, and values that are not numbers */
    static const char *const refused[] = {
        "-1",
        "18446744073709551616",
        "99999999999999999999999",
        "7.0",
        "7.5",
        "1e3",
        "-0",
        "\"7\"",
        "null",
        "true",
        "[7]",
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        uint64_t got = 12345;
        const int rc = u64_of(refused[i], &got);
        ok(rc == 0 && got == 12345, "%s is refused, *out untouched (%d)",
           refused[i], rc);
    }
    /* the number's text does not disturb the strings around it */
    const char *text = "{\"a\": \"x\", \"n\": 123, \"b\": \"yz\"}";
    json_doc doc;
    mx_error err = {0};
    int rc = json_parse(&doc, text, strlen(text), "test", &err);
    uint64_t n = 0;
    ok(rc == 0 &&
           strcmp(json_str(&doc, json_get(&doc, json_root(&doc), "a")), "x") ==
               0 &&
           strcmp(json_str(&doc, json_get(&doc, json_root(&doc), "b")), "yz") ==
               0 &&
           json_u64(&doc, json_get(&doc, json_root(&doc), "n"), &n) && n == 123,
       "strings beside a number keep their text");
    if (rc == 0)
        json_free(&doc);
    return tap_done();
}
