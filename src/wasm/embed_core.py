#!/usr/bin/env python3
"""embed_core.py OUT.c [--name=NAME] [--zopfli=ZOPFLI] MSGFMT [XGETTEXT
MSGMERGE MSGEN CORE.wasm LANG=PO... -- SOURCE...]: the page's WebAssembly core and its message
catalogues as C strings (page_core.h): page_core and page_catalogues, or
with --name=NAME NAME and NAME_catalogues (the families core,
page_core_families).

The module and each language's .mo catalogue are compressed with gzip (by
zopfli where given: the same gzip format, some 5% smaller than zlib's
best, which keeps the translated pages under their 400 kB) and written
in base 85 (base85 below); the page decompresses them with the browser's
DecompressionStream. A catalogue holds only the messages the core can
say: xgettext lists the msgids of the core's SOURCEs (with the keywords
of po/meson.build), msgmerge keeps po/LANG.po's translations of those,
and msgfmt compiles them; a msgid whose text is not in the linked module
(its code was dropped: the core cannot ask for it) is left out (linked
below). The msgids' text, which the core holds already,
is then replaced by their keys (hashed below; base/page/libintl.c reads
them): the catalogue holds its translations and little else. Every
translated page carries its catalogue, so
the messages of what the page cannot run (the checkpoint families but
GPT-2, --help's texts) are left out. Without a module (built without
the WebAssembly toolchain) page_core is empty and there are no
catalogues: the page is the static one.
"""
import gzip
import struct
import os
import re
import subprocess
import sys
import tempfile


def array(name, data):
    lines = ["static const char %s[] = {" % name]
    for i in range(0, len(data), 24):
        lines.append("    " + " ".join("%d," % b for b in data[i:i + 24]))
    lines.append("    0\n};")
    return "\n".join(lines)


# Base 85 (as Ascii85: each 4 bytes, big-endian, as 5 digits; a last
# group of n < 4 bytes as its first n + 1 digits) over the printable
# ASCII characters but < > & ' " \ ` ( and :, so that the text can hold
# neither "</script" nor "url(" nor "http://": 5 characters for 4 bytes
# where base64 takes 5.33. editor.js (unpack) has the same digits.
BASE85 = "".join(chr(c) for c in range(33, 127) if chr(c) not in "<>&'\"\\`(:")


def base85(data):
    out = []
    for i in range(0, len(data), 4):
        group = data[i:i + 4]
        v = int.from_bytes(group + b"\0" * (4 - len(group)), "big")
        digits = []
        for _ in range(5):
            digits.append(BASE85[v % 85])
            v //= 85
        out.append("".join(reversed(digits))[:len(group) + 1])
    return "".join(out).encode("ascii")


def packed(data, zopfli):
    """gzip (no time stamp: the same input gives the same page), base 85;
    zopfli's gzip when zopfli names its program."""
    if zopfli is None:
        return base85(gzip.compress(data, 9, mtime=0))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "data")
        with open(path, "wb") as f:
            f.write(data)
        out = subprocess.run([zopfli, "--gzip", "-c", path], check=True,
                             stdout=subprocess.PIPE).stdout
    # the header's time stamp (bytes 4 to 7) is zopfli's 0 already; keep
    # it so for any version
    return base85(out[:4] + bytes(4) + out[8:])


def core_catalogue(po, template, msgmerge, msgfmt):
    """The .mo of po's translations of template's msgids."""
    merged = subprocess.run(
        [msgmerge, "--quiet", "--no-fuzzy-matching", "--no-wrap", "-o", "-",
         po, template], check=True, stdout=subprocess.PIPE).stdout
    # no hash table: base/page/libintl.c finds a msgid by a binary search of the
    # sorted msgids, and the table would be bytes in every page
    return subprocess.run([msgfmt, "--no-hash", "-o", "-", "-"],
                          input=merged, check=True,
                          stdout=subprocess.PIPE).stdout


# the revision of a catalogue whose msgids are their keys
# (base/page/libintl.c's KEYS_HASHED)
KEYS_HASHED = 0x4d480000


def mo_entries(mo):
    """The (msgid, msgstr) pairs of a GNU .mo file, in its order."""
    n, ids, strs = struct.unpack("<3I", mo[8:20])

    def at(table, i):
        length, offset = struct.unpack("<2I", mo[table + 8 * i:table + 8 * i + 8])
        return mo[offset:offset + length]
    return [(at(ids, i), at(strs, i)) for i in range(n)]


def key(msgid):
    """A msgid's key: its bytes' 32-bit FNV-1a hash, most significant
    byte first, as libintl.c's key_of computes it."""
    h = 0x811c9dc5
    for c in msgid:
        h = ((h ^ c) * 0x01000193) & 0xffffffff
    return struct.pack(">I", h)


def linked(msgid, module):
    """Whether the core can ask for msgid: the header (""), or a msgid
    (either form of a plural's "one\\0other") whose text is in the
    linked module as a C string. The core asks gettext with a pointer
    to its English text, so a msgid whose text the linker dropped (with
    the code that said it) is never asked for."""
    return msgid == b"" or any(form + b"\0" in module
                               for form in msgid.split(b"\0"))


def hashed(mo, every_msgid, module):
    """mo with each msgid replaced by its key, the entries sorted by key,
    and only the msgids linked into module (linked above).
    every_msgid: all the msgids the core's sources hold (the template's),
    which must have keys of their own, so that no message is mistaken for
    another."""
    keys = {}
    for msgid in every_msgid:
        if keys.setdefault(key(msgid), msgid) != msgid:
            sys.exit("embed_core.py: two messages share the key %s: %r, %r"
                     % (key(msgid).hex(), keys[key(msgid)], msgid))
    entries = sorted((key(k), v) for k, v in mo_entries(mo)
                     if linked(k, module))
    n = len(entries)
    ids = 28
    strs = ids + 8 * n
    data = strs + 8 * n
    blob = b""
    tables = [b"", b""]
    for column in (0, 1):
        for entry in entries:
            text = entry[column]
            tables[column] += struct.pack("<2I", len(text), data + len(blob))
            blob += text + b"\0"
    return (struct.pack("<7I", 0x950412de, KEYS_HASHED, n, ids, strs, 0, 0)
            + tables[0] + tables[1] + blob)


def template_msgids(template, msgen, msgfmt):
    """Every msgid of template, as a .mo holds them (a plural's
    "one\\0other")."""
    english = subprocess.run([msgen, "--no-wrap", "-o", "-", template],
                             check=True, stdout=subprocess.PIPE).stdout
    mo = subprocess.run([msgfmt, "--no-hash", "-o", "-", "-"],
                        input=english, check=True,
                        stdout=subprocess.PIPE).stdout
    return [k for k, _ in mo_entries(mo)] + [b""]


def without_help(source, tmp):
    """source, or for the option rows (cli/option_list.h) a copy of them
    whose help texts and value names (N_("FILE")) are not messages: the
    core prints no --help (it is built with MHA_NO_HELP,
    cli/option_table.c), so their translations stay out of the page."""
    if os.path.basename(source) != "option_list.h":
        return source
    with open(source, encoding="utf-8") as f:
        text = f.read()
    copy = os.path.join(tmp, "option_list.h")
    with open(copy, "w", encoding="utf-8") as f:
        text = re.sub(r"\b(SIZE|PROBABILITY|RATE|NAME|TEXT|LIST|CHOICE|OWN"
                      r"|OWN_VALUE)\(N_\((\"[^\"]*\")\)", r"\1(\2", text)
        f.write(text.replace(".help = N_(", ".help = ("))
    return copy


def main():
    argv = sys.argv[1:]
    name = "page_core"
    if len(argv) > 1 and argv[1].startswith("--name="):
        name = argv.pop(1).split("=", 1)[1]
    zopfli = None
    if len(argv) > 1 and argv[1].startswith("--zopfli="):
        zopfli = argv.pop(1).split("=", 1)[1]
    sys.argv[1:] = argv
    out, msgfmt = sys.argv[1], sys.argv[2]
    parts = ["/* Generated by src/wasm/embed_core.py; do not edit. */",
             '#include "html/page_core.h"', ""]
    core = b""
    catalogues = []
    if len(sys.argv) > 3:
        args = sys.argv[3:]
        sources = args[args.index("--") + 1:]
        xgettext, msgmerge, msgen, wasm = args[:4]
        languages = args[4:args.index("--")]
        with open(wasm, "rb") as f:
            module = f.read()
        core = packed(module, zopfli)
        with tempfile.TemporaryDirectory() as tmp:
            sources = [without_help(src, tmp) for src in sources]
            template = os.path.join(tmp, "core.pot")
            subprocess.run(
                [xgettext, "--from-code=UTF-8", "--keyword=_",
                 "--keyword=N_", "--keyword=NN_:1,2", "--language=C", "-o",
                 template] + sources, check=True)
            every_msgid = template_msgids(template, msgen, msgfmt)
            for arg in languages:
                lang, po = arg.split("=", 1)
                mo = core_catalogue(po, template, msgmerge, msgfmt)
                catalogues.append((lang, packed(hashed(mo, every_msgid, module),
                                                zopfli)))
    parts.append(array("core", core))
    for i, (lang, mo) in enumerate(catalogues):
        parts.append(array("catalogue%d" % i, mo))
    parts.append("const char *const %s = core;" % name)
    catalogues_name = ("page_catalogues" if name == "page_core"
                       else name + "_catalogues")
    parts.append("const page_catalogue %s[] = {" % catalogues_name)
    for i, (lang, mo) in enumerate(catalogues):
        parts.append('    {"%s", catalogue%d},' % (lang, i))
    parts.append("    {NULL, NULL}\n};\n")
    with open(out, "w") as f:
        f.write("\n".join(parts))


if __name__ == "__main__":
    main()
