#!/usr/bin/env python3
"""Size check (TAP): no source file of src/ over 800 lines, no function
over 120.

    sizes_test.py SOURCE_ROOT          the check, three TAP lines
    sizes_test.py SOURCE_ROOT --list   every function measured, longest first

A file's size is its line count (.c, .h, the page's .js, .css and .py).
A function is found by matching braces in its text with the comments,
strings, character literals, preprocessor lines (C) and regular
expressions and template literals (JS) blanked out, so a brace inside
them is not counted:
- C (src/**/*.c and .h): a brace at file scope that follows the `)` of a
  parameter list opens a function; its lines run from the line of its
  name to its closing brace.
- JS (src/html/page/*.js): a brace after `function (...)`, `name(...)`
  (a method) or `=>` opens a function. A function's lines are those
  that hold code of its own: a function written inside it (a callback,
  the functions of the module pattern `(function () { ... })()`) is
  measured by itself, and its lines, like blank lines and comments, are
  not counted in the one around it. So a module's wrapper counts its
  own statements, not the file.

The third TAP line measures a sample whose functions' lengths are known
(braces in strings, comments, macros, regular expressions and template
literals), so a matcher that stopped finding functions would fail; the
first two also fail if they find fewer functions than the sources
plainly hold."""

import os
import re
import sys

FILE_LIMIT = 800
FUNCTION_LIMIT = 120

# Files over FILE_LIMIT that are not code a reader reads.
EXEMPT = {
    # Written by tests/tools/make_colormap_data.py: matplotlib's colour
    # tables copied digit for digit, data with no code.
    "src/render/colormap_data.c",
}

SIZED = (".c", ".h", ".js", ".css", ".py")
JS_CONTROL = {"if", "for", "while", "switch", "catch", "with"}
C_KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof"}
# A `/` after one of these starts a regular expression, not a division.
JS_BEFORE_REGEX = set("(,=:[!&|?{};+-*%<>~^")
JS_WORDS_BEFORE_REGEX = {"return", "typeof", "case", "in", "of", "new",
                         "delete", "void", "throw"}


def blank(text, js):
    """The text with comments, strings, character literals, preprocessor
    lines (C) and regular expressions and template literal text (JS)
    replaced by spaces, newlines kept, so lines and braces stay where
    they were."""
    out = list(text)
    n = len(text)
    i = 0
    braces = []  # JS: "code" for `{`, "template" for a template's `${`
    line_start = True

    def wipe(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    def template_end(i):
        """The index after a template literal's text from i: at its
        closing backquote (True) or at a `${` (False)."""
        while i < n:
            c = text[i]
            if c == "\\":
                i += 2
            elif c == "`":
                return i + 1, True
            elif c == "$" and i + 1 < n and text[i + 1] == "{":
                return i + 2, False
            else:
                i += 1
        return n, True

    def previous_token(i):
        k = i - 1
        while k >= 0 and out[k] in " \t\n":
            k -= 1
        if k < 0:
            return ""
        if out[k].isalnum() or out[k] in "_$":
            j = k
            while j >= 0 and (out[j].isalnum() or out[j] in "_$"):
                j -= 1
            return text[j + 1:k + 1]
        return out[k]

    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if c in " \t":
            i += 1
            continue
        if not js and c == "#" and line_start:
            j = i
            while j < n and not (text[j] == "\n" and text[j - 1] != "\\"):
                if text[j] == "/" and text.startswith("/*", j):
                    end = text.find("*/", j + 2)
                    j = n if end < 0 else end + 2
                    continue
                j += 1
            wipe(i, j)
            i = j
            continue
        line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            wipe(i, j)
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            wipe(i, j + 1)
            i = j + 1
        elif js and c == "`":
            j, closed = template_end(i + 1)
            wipe(i, j)
            if not closed:
                braces.append("template")
            i = j
        elif js and c == "/" and (previous_token(i) in JS_WORDS_BEFORE_REGEX
                                  or previous_token(i) in JS_BEFORE_REGEX
                                  or previous_token(i) == ""):
            j = i + 1
            in_class = False
            while j < n and text[j] != "\n":
                if text[j] == "\\":
                    j += 2
                    continue
                if text[j] == "[":
                    in_class = True
                elif text[j] == "]":
                    in_class = False
                elif text[j] == "/" and not in_class:
                    break
                j += 1
            j += 1
            while j < n and text[j].isalpha():
                j += 1
            wipe(i, j)
            i = j
        elif js and c == "{":
            braces.append("code")
            i += 1
        elif js and c == "}":
            if braces and braces.pop() == "template":
                j, closed = template_end(i + 1)
                wipe(i, j)
                if not closed:
                    braces.append("template")
                i = j
            else:
                i += 1
        else:
            i += 1
    return "".join(out)


def open_paren(code, k):
    """The index of the `(` that the `)` at k closes, or -1."""
    depth = 0
    while k >= 0:
        if code[k] == ")":
            depth += 1
        elif code[k] == "(":
            depth -= 1
            if depth == 0:
                return k
        k -= 1
    return -1


def word_before(code, k):
    """The identifier that ends before index k (spaces skipped), and the
    index where it starts."""
    while k > 0 and code[k - 1] in " \t\n":
        k -= 1
    j = k
    while j > 0 and (code[j - 1].isalnum() or code[j - 1] in "_$"):
        j -= 1
    return code[j:k], j


def skip_back(code, k):
    """The index of the last character before k that is not a space."""
    k -= 1
    while k >= 0 and code[k] in " \t\n":
        k -= 1
    return k


def c_functions(text):
    """The functions a C text defines: (name, first line, last line,
    own lines)."""
    code = blank(text, js=False)
    found = []
    depth = 0
    statement = 0  # where the current file-scope declaration starts
    i = 0
    while i < len(code):
        c = code[i]
        if c == "{" and depth == 0:
            k = skip_back(code, i)
            opened = open_paren(code, k) if k >= 0 and code[k] == ")" else -1
            name, at = word_before(code, opened) if opened >= 0 else ("", 0)
            head = code[statement:i]
            depth_zero = re.sub(r"\([^()]*\)", "", head)
            while depth_zero != re.sub(r"\([^()]*\)", "", depth_zero):
                depth_zero = re.sub(r"\([^()]*\)", "", depth_zero)
            close = match_brace(code, i)
            if name and name not in C_KEYWORDS and "=" not in depth_zero:
                first = code.count("\n", 0, at) + 1
                last = code.count("\n", 0, close) + 1
                found.append((name, first, last, last - first + 1))
            i = close + 1
            statement = i
            continue
        if c == ";" and depth == 0:
            statement = i + 1
        i += 1
    return found


def match_brace(code, i):
    """The index of the `}` that closes the `{` at i."""
    depth = 0
    for k in range(i, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(code) - 1


def js_function_at(code, i):
    """If the `{` at i opens a JS function, its name (or a description of
    an anonymous one) and the index its head starts at, else None."""
    k = skip_back(code, i)
    if k >= 1 and code[k - 1:k + 1] == "=>":
        params = skip_back(code, k - 1)
        if params >= 0 and code[params] == ")":
            start = open_paren(code, params)
        else:
            _, start = word_before(code, params + 1)
        return assigned_name(code, start) or "(arrow function)", start
    if k < 0 or code[k] != ")":
        return None
    opened = open_paren(code, k)
    if opened < 0:
        return None
    word, at = word_before(code, opened)
    if word in JS_CONTROL or not word:
        return None
    if word == "function":
        return assigned_name(code, at) or "(function)", at
    before, before_at = word_before(code, at)
    if before == "function":
        return word, before_at
    return word, at  # a method: name(...) { ... }


def assigned_name(code, k):
    """The name an anonymous function written at k is given, as in
    `var f = function`, `x.f = function` or `f: function`."""
    m = re.search(r"([A-Za-z_$][\w$]*)\s*[:=]\s*(?:\(\s*)?$", code[:k])
    return m.group(1) if m else None


def js_functions(text):
    """The functions a JS text defines: (name, first line, last line,
    own lines), own lines being those holding code of its own."""
    code = blank(text, js=True)
    spans = []  # (head's start, closing brace, name)
    stack = []  # per open brace: None, or (name, head's start)
    for i, c in enumerate(code):
        if c == "{":
            stack.append(js_function_at(code, i))
        elif c == "}" and stack:
            top = stack.pop()
            if top is not None:
                spans.append((top[1], i, top[0]))
    # Each character belongs to the innermost function around it: paint
    # the functions outer first, inner over them.
    owner = [-1] * len(code)
    order = sorted(range(len(spans)), key=lambda s: (spans[s][0],
                                                     -spans[s][1]))
    for s in order:
        start, close, _ = spans[s]
        owner[start:close + 1] = [s] * (close + 1 - start)
    own = [set() for _ in spans]
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif not c.isspace() and owner[i] >= 0:
            own[owner[i]].add(line)
    found = []
    for s, (start, close, name) in enumerate(spans):
        first = code.count("\n", 0, start) + 1
        last = code.count("\n", 0, close) + 1
        found.append((name, first, last, len(own[s])))
    return found


def sources(root):
    src = os.path.join(root, "src")
    for folder, _, names in sorted(os.walk(src)):
        for name in sorted(names):
            if name.endswith(SIZED):
                path = os.path.join(folder, name)
                yield os.path.relpath(path, root), path


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


SAMPLE_C = r'''#include "a.h"
#define OPEN {
static const char *s = "}{";
/* } */
static int f(int x)
{
    if (x) { /* { */
        return '{';
    }
    return x; // }
}
static const int t[] = {1, 2};
int g(void) { return 0; }
'''
SAMPLE_JS = r'''var re = /[}{]/g, t = `a ${ {b: 1}.b } }`;
function outer(a) {
  var x = a.map(function (v) {
    return v / 2 / 3;
  });
  if (x) { return `${x}`; }
  return { m(y) { return y; }, k: (z) => {
    return z;
  } };
}
(function () {
  /* a comment
   * over lines */

  function inner() {
    return 1;
  }
  inner();
})();
'''


def sample_ok():
    c = [(name, first, last) for name, first, last, _ in
         c_functions(SAMPLE_C)]
    js = [(name, first, last, own) for name, first, last, own in
          js_functions(SAMPLE_JS)]
    want_c = [("f", 5, 11), ("g", 13, 13)]
    want_js = [("(function)", 3, 5, 3), ("m", 7, 7, 1), ("k", 7, 9, 3),
               ("outer", 2, 10, 7), ("inner", 15, 17, 3),
               ("(function)", 11, 19, 3)]
    return c == want_c and js == want_js, c, js


def main():
    root = sys.argv[1]
    long_files, c_long, js_long = [], [], []
    every = []
    c_count = js_count = 0
    for rel, path in sources(root):
        text = read(path)
        lines = text.count("\n") + (0 if text.endswith("\n") else 1)
        if lines > FILE_LIMIT and rel not in EXEMPT:
            long_files.append("%s: %d lines" % (rel, lines))
        if rel.endswith((".c", ".h")):
            functions, bucket = c_functions(text), c_long
            c_count += len(functions)
        elif rel.endswith(".js") and "/html/page/" in rel:
            functions, bucket = js_functions(text), js_long
            js_count += len(functions)
        else:
            continue
        for name, first, last, own in functions:
            every.append((own, "%s:%d %s" % (rel, first, name), last - first + 1))
            if own > FUNCTION_LIMIT:
                whole = "" if own == last - first + 1 else \
                    " of its own code (%d from its first line to its last)" % (
                        last - first + 1)
                bucket.append("%s:%d %s: %d lines%s" % (rel, first, name, own,
                                                        whole))
    if "--list" in sys.argv[2:]:
        for own, where, whole in sorted(every, reverse=True):
            print("%5d %5d %s" % (own, whole, where))
        return 0
    print("1..4")
    checks = [
        ("no source file of src/ over %d lines" % FILE_LIMIT, long_files,
         None),
        ("no C function over %d lines (%d measured)" % (FUNCTION_LIMIT,
                                                       c_count),
         c_long, c_count < 500 and "fewer than 500 C functions found"),
        ("no function of the page's script over %d lines (%d measured)" % (
            FUNCTION_LIMIT, js_count),
         js_long, js_count < 200 and "fewer than 200 JS functions found"),
    ]
    failed = 0
    for n, (title, over, missing) in enumerate(checks, 1):
        if over or missing:
            failed += 1
            print("not ok %d - %s" % (n, title))
            for line in ([missing] if missing else []) + over:
                print("# " + line)
        else:
            print("ok %d - %s" % (n, title))
    good, c, js = sample_ok()
    if good:
        print("ok 4 - the brace matcher measures its sample")
    else:
        failed += 1
        print("not ok 4 - the brace matcher measures its sample")
        print("# C: %r" % (c,))
        print("# JS: %r" % (js,))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
