#!/usr/bin/env python3
"""embed.py OUT.c CSS JS... [NAME=FILE...]: the page's style and script
as C strings, and each NAME=FILE as an array of its own, NAME (a part
the page holds only sometimes: the training view's script and style).

The script is the JS files one after another. The files between the
arguments { and } are put inside one function,
(function () { 'use strict'; ... })();, so that they share its names and
nothing else: the page's views, one file each (page_data.js). Their comments and the
indentation of their lines are left out, and so are the spaces within a
line that part no two words (tight: the sources are for readers, the
page for browsers; this keeps a page small), and a style's lines are
joined into one (compact_css), outside string
literals; the sources hold no template literals, and no regular
expression with a quote or a comment's opening in it.

Each file becomes a NUL-terminated char array of its bytes (arrays rather
than string literals, which C11 compilers may refuse past 4095 bytes).
"""
import re
import sys


def array(name, data):
    lines = ["const char %s[] = {" % name]
    for i in range(0, len(data), 16):
        lines.append("    " + " ".join("%d," % b for b in data[i:i + 16]))
    lines.append("    0\n};")
    return "\n".join(lines)


def outside_strings(text, step):
    """text with each string literal kept as it is and the rest rewritten
    by step(text, i, out): it appends what text[i:] becomes to out and
    returns the index after what it read."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in "'\"":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            i = step(text, i, out)
    return "".join(out)


def without_comments(text, i, out):
    """/* */ comments left out (outside_strings' step)."""
    if text.startswith("/*", i):
        end = text.find("*/", i + 2)
        return len(text) if end < 0 else end + 2
    out.append(text[i])
    return i + 1


def one_line(text, i, out):
    """A style's newline kept as a space only where one is needed
    (between two words of a selector), and ": " as ":"
    (outside_strings' step)."""
    if text[i] == "\n":
        before = out[-1][-1:] if out else ""
        if before not in ("", "{", "}", ";", ",") and \
                text[i + 1:i + 2] != "}":
            out.append(" ")
        return i + 1
    if text.startswith(": ", i):
        out.append(":")
        return i + 2
    out.append(text[i])
    return i + 1


def compact(text):
    """text without /* */ comments, leading spaces and blank lines."""
    lines = (line.strip()
             for line in outside_strings(text, without_comments).split("\n"))
    return "\n".join(line for line in lines if line) + "\n"


def word_char(c):
    """Whether c is part of a name, keyword or number."""
    return c.isalnum() or c in "_$" or ord(c) > 127


# what may come before a regular expression's opening /, as JSMin reads
# it (any other / divides)
BEFORE_REGEX = set("(,=:[!&|?{};+-*%<>~^\n")


def regex_end(text, i):
    """The index after the regular expression literal at text[i] ("/"):
    its closing / (not escaped, not within [...]) and its flags."""
    j, in_class = i + 1, False
    while j < len(text) and (in_class or text[j] != "/"):
        if text[j] == "\\":
            j += 1
        elif text[j] == "[":
            in_class = True
        elif text[j] == "]":
            in_class = False
        j += 1
    j += 1
    while j < len(text) and text[j].isalpha():
        j += 1
    return j


def tight_step(text, i, out):
    """A script's spaces within a line left out where they part no two
    words: one space is kept between two names (or numbers), and between
    + + or - -, which would otherwise become ++ or --; a newline is kept
    where one was, since it may end a statement. A regular expression
    literal is kept as it is (outside_strings' step)."""
    c, last = text[i], out[-1][-1:] if out else "\n"
    if c == "/" and (last in BEFORE_REGEX or
                     re.search(r"\b(return|typeof)$", "".join(out[-7:]))):
        j = regex_end(text, i)
        out.append(text[i:j])
        return j
    if c not in " \n":
        out.append(c)
        return i + 1
    j = i
    while j < len(text) and text[j] in " \n":
        j += 1
    nxt = text[j:j + 1]
    if "\n" in text[i:j]:
        out.append("\n")
    elif (word_char(last) and nxt and word_char(nxt)) or \
            (last in "+-" and nxt == last):
        out.append(" ")
    return j


def tight(text):
    """A script (compact's) without the spaces that part no two words
    (tight_step); its string literals kept as they are."""
    return outside_strings(text, tight_step)


def compact_css(text):
    """compact(text) on one line (one_line). CSS reads no newline, unlike
    a script, where a newline may end a statement."""
    return outside_strings(compact(text), one_line) + "\n"


def main():
    out, css = sys.argv[1], sys.argv[2]
    js = [a for a in sys.argv[3:] if "=" not in a]
    own = [a.split("=", 1) for a in sys.argv[3:] if "=" in a]
    parts = ["/* Generated by src/html/page/embed.py from page.css and the page's"
             " scripts;"
             " do not edit. */",
             '#include "html/page_assets.h"', ""]
    with open(css, encoding="utf-8") as f:
        parts.append(array("page_css", compact_css(f.read()).encode("utf-8")))
    parts.append("")
    script = b""
    for path in js:
        if path in ("{", "}"):
            script += (b"(function () {\n'use strict';\n" if path == "{"
                       else b"})();\n")
            continue
        with open(path, encoding="utf-8") as f:
            script += tight(compact(f.read())).encode("utf-8")
    parts.append(array("page_js", script))
    parts.append("")
    for name, path in own:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        made = (compact_css(text) if path.endswith(".css")
                else tight(compact(text)))
        parts.append(array(name, made.encode("utf-8")))
        parts.append("")
    with open(out, "w") as f:
        f.write("\n".join(parts))


if __name__ == "__main__":
    main()
