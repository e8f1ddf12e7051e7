#!/usr/bin/env python3
"""--model DIR for a BERT checkpoint, end to end.

    bert_test.py MHA_EXPLAIN BERT_DIR

BERT_DIR holds the small random checkpoints of
tests/reference/make_bert_reference.py (with and without the masked-word
head and the "bert." prefix), each with its tokenizer.json, its text and
PyTorch's tables (reference.safetensors), with BertModel's pooler in the
cases that have pooler.dense.*. For each, every value of the
tidy CSV must be PyTorch's float32 exactly, and the tokens the script's
ids ([CLS] ... [SEP], and with --pair the second text and [SEP] of token
type 1). Then next_tokens at each [MASK], the options that
keep a run small, the headings, --check, --explain, and bad checkpoints:
status 2, one line, nothing on standard output.
"""
import csv
import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

from taplib import Program, done, ok

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpt2_test import f32, read_safetensors  # noqa: E402

# CSV table -> reference name (per layer "layer.L.", per head
# "layer.L.head.H.")
NAMES = {"inputs": "embedded", "queries": "queries", "keys": "keys",
         "values": "values", "attn_scores": "attn_scores",
         "attn_weights": "attn_weights", "head_context": "head_context",
         "concat_context": "concat", "attn_out": "attn_out",
         "add_norm1": "add_norm1", "ffn_hidden": "ffn_hidden",
         "ffn_out": "ffn_out", "hidden": "out", "out": "out",
         "logits": "logits", "pooler_output": "pooler_output"}
# tables only some checkpoints make: with the masked-word head, with the
# pooler
OPTIONAL = ("logits", "pooler_output")


def reference_name(row):
    table, layer, head = row["table"], row["layer"], row["head"]
    base = NAMES[table]
    if head != "":
        return "layer.%s.head.%s.%s" % (layer, head, base)
    if layer != "":
        return "layer.%s.%s" % (layer, base)
    return base


def check_case(mha, folder):
    name = os.path.basename(folder)
    text = open(os.path.join(folder, "text.txt")).read()
    ids = [int(x) for x in open(os.path.join(folder, "ids.txt")).read()
           .split()]
    ref = read_safetensors(os.path.join(folder, "reference.safetensors"))
    names = [n for n in NAMES if n not in OPTIONAL or n in ref]
    pair = os.path.join(folder, "pair.txt")
    second = ["--pair", open(pair).read()] if os.path.exists(pair) else []
    r = mha.run(["--model", folder, "--format", "csv", "--tables",
                 ",".join(["tokens"] + names), text] + second)
    ok(r.returncode == 0, "%s: runs" % name, r.stderr.decode())
    rows = list(csv.DictReader(io.StringIO(r.stdout.decode())))
    got_ids = [int(float(x["value"])) for x in rows if x["table"] == "tokens"]
    ok(got_ids == ids, "%s: the tokens are [CLS], the words, [SEP]" % name,
       "%s\n%s" % (got_ids, ids))
    seen, bad, first = {}, 0, ""
    for x in rows:
        if x["table"] == "tokens":
            continue
        key = reference_name(x)
        shape, values = ref[key]
        i = int(x["row"]) * shape[1] + int(x["col"])
        value = f32(float(x["value"]))
        same = value == values[i] or (math.isnan(value) and
                                      math.isnan(values[i]))
        seen[(x["table"], key)] = seen.get((x["table"], key), 0) + 1
        if not same:
            bad += 1
            first = first or "%s[%d]: %r, PyTorch %r" % (key, i, value,
                                                          values[i])
    keys = {k for _, k in seen}
    counts = all(n == len(ref[k][1]) for (_, k), n in seen.items())
    ok(bad == 0 and counts and keys == set(ref),
       "%s: %d tables, every value PyTorch's bit for bit" % (name, len(seen)),
       first or "tables missing: %s" % sorted(set(ref) - keys))
    return text, ids


def run_fails(mha, args, what, needle):
    """Status 2, nothing on standard output, one line naming the problem
    (and, for an option's problem, the line pointing to --help)."""
    r = mha.run(args)
    err = r.stderr.decode()
    lines = err.splitlines()
    ok(r.returncode == 2 and r.stdout == b"" and len(lines) in (1, 2) and
       needle in lines[0] and (len(lines) == 1 or "--help" in lines[1]),
       what, err + r.stdout.decode()[:200])


def bad_checkpoints(mha, root):
    src = os.path.join(root, "mlm")
    text = open(os.path.join(src, "text.txt")).read()
    tmp = tempfile.mkdtemp()
    try:
        def variant(name, config=None, drop=None, reshape=None):
            d = os.path.join(tmp, name)
            shutil.copytree(src, d)
            if config:
                cfg = json.load(open(os.path.join(d, "config.json")))
                cfg.update(config)
                json.dump(cfg, open(os.path.join(d, "config.json"), "w"))
            if drop or reshape:
                rewrite(os.path.join(d, "model.safetensors"), drop, reshape)
            return d
        run_fails(mha, ["--model", variant("act", {"hidden_act": "relu"}),
                        text], "hidden_act relu: refused naming the value",
                  '"relu"')
        run_fails(mha, ["--model", variant("rel", {
            "position_embedding_type": "relative_key"}), text],
            "relative positions: refused naming the key",
            "position_embedding_type")
        run_fails(mha, ["--model", variant("heads", {
            "num_attention_heads": 3}), text],
            "heads that do not divide the width: refused",
            "num_attention_heads")
        run_fails(mha, ["--model", variant("missing", drop=
                        "bert.encoder.layer.1.output.dense.bias"), text],
                  "a missing tensor: refused naming it",
                  "bert.encoder.layer.1.output.dense.bias")
        run_fails(mha, ["--model", variant("shape", reshape=
                        "bert.encoder.layer.0.attention.self.key.weight"),
                        text], "a tensor of the wrong shape: refused",
                  "bert.encoder.layer.0.attention.self.key.weight")
        run_fails(mha, ["--model", src, " ".join(["the"] * 23)],
                  "more tokens than max_position_embeddings: refused, "
                  "with the count and the limit",
                  "the text is 25 tokens; the model takes at most 24 "
                  "(max_position_embeddings)")
        run_fails(mha, ["--model", os.path.join(root, "base"), "--tables",
                        "next_tokens", "a dog"],
                  "next_tokens without the masked-word head: refused",
                  "cls.predictions")
        run_fails(mha, ["--model", src, "--tables", "pooler_output",
                        "a dog"],
                  "pooler_output without the pooler: refused",
                  "pooler.dense")
    finally:
        shutil.rmtree(tmp)


def rewrite(path, drop, reshape):
    """model.safetensors without the tensor drop, or with the tensor
    reshape given one row fewer."""
    data = open(path, "rb").read()
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    out_h, blobs, offset = {}, [], 0
    for name, t in header.items():
        if name == "__metadata__" or name == drop:
            continue
        b, e = t["data_offsets"]
        raw = body[b:e]
        shape = list(t["shape"])
        if name == reshape:
            shape[0] -= 1
            raw = raw[:len(raw) - 4 * shape[1]]
        out_h[name] = {"dtype": t["dtype"], "shape": shape,
                       "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(out_h).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text + b"".join(blobs))


# The npm package @huggingface/tokenizers (the tokenizer reference) on a
# tokenizer.json: the ids of each text read from standard input.
NODE = r"""
const fs = require('fs');
const path = require('path');
const { Tokenizer } = require(path.join(process.argv[1], '@huggingface',
                                        'tokenizers', 'dist', 'tokenizers.cjs'));
const tok = new Tokenizer(JSON.parse(fs.readFileSync(process.argv[2], 'utf-8')), {});
const texts = JSON.parse(fs.readFileSync(0, 'utf-8'));
process.stdout.write(JSON.stringify(texts.map(t => tok.encode(t).ids)));
"""


def token_ids(mha, folder, text):
    r = mha.run(["--model", folder, "--format", "csv", "--tables", "tokens",
                 text])
    rows = list(csv.DictReader(io.StringIO(r.stdout.decode())))
    return r.returncode, [int(float(x["value"])) for x in rows]


def chinese_chars(mha, folder, doc, node, modules):
    """tokenize_chinese_chars: false keeps two Chinese characters one
    word, which WordPiece cannot cut (no "##" piece): [UNK]; absent (true)
    against a tokenizer.json whose BertNormalizer has handle_chinese_chars
    false, each character is a word again, as BertTokenizerFast rebuilds
    the normaliser when any of its three keys differs."""
    vocab = dict(doc["model"]["vocab"])
    vocab["\u732b"] = vocab.pop("bird")
    vocab["\u5750"] = vocab.pop("tree")
    text = "the \u732b\u5750 on"
    path = os.path.join(folder, "tokenizer_config.json")
    for name, config, handle, want in (
            ("tokenize_chinese_chars false", {"tokenize_chinese_chars": False},
             True, [2, 5, 1, 8, 3]),
            ("{} over handle_chinese_chars false", {}, False,
             [2, 5, vocab["\u732b"], vocab["\u5750"], 8, 3])):
        changed = dict(doc, model=dict(doc["model"], vocab=vocab),
                       normalizer=dict(doc["normalizer"],
                                       handle_chinese_chars=handle))
        with open(os.path.join(folder, "tokenizer.json"), "w") as f:
            json.dump(changed, f)
        with open(path, "w") as f:
            json.dump(config, f)
        got = token_ids(mha, folder, text)
        ok(got == (0, want), "tokenizer_config.json, %s: the ids" % name,
           (got, want))
        if node is not None:
            patched = os.path.join(folder, "..", "patched.json")
            with open(patched, "w") as f:
                json.dump(dict(changed, normalizer=dict(
                    changed["normalizer"], handle_chinese_chars=config.get(
                        "tokenize_chinese_chars", True))), f)
            ref = json.loads(subprocess.run(
                [node, "-e", NODE, modules, patched],
                input=json.dumps([text]).encode(), stdout=subprocess.PIPE,
                check=True).stdout)
            ok([got[1]] == ref, "tokenizer_config.json, %s: "
               "@huggingface/tokenizers' ids" % name, (got, ref))
    with open(os.path.join(folder, "tokenizer.json"), "w") as f:
        json.dump(doc, f)
    os.remove(path)


def tokenizer_config(mha, root):
    """tokenizer_config.json beside tokenizer.json, as transformers'
    BertTokenizerFast reads it: do_lower_case (true when absent),
    strip_accents (null when absent) and tokenize_chinese_chars (true
    when absent) rebuild the BertNormalizer. The ids
    against @huggingface/tokenizers run on tokenizer.json with its
    normalizer rebuilt so (where node and the package are there)."""
    node = shutil.which("node")
    modules = os.environ.get("MHA_NODE_MODULES", os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..",
        "node_modules"))
    have_ref = node is not None and os.path.isdir(
        os.path.join(modules, "@huggingface", "tokenizers"))
    texts = ["The CAT sat", "thé cät sat", "THE Dog RAN"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "mlm")
        shutil.copytree(os.path.join(root, "mlm"), folder)
        doc = json.load(open(os.path.join(folder, "tokenizer.json")))
        # name, tokenizer_config.json (None: none), the words of texts[0]
        # and texts[1] that must be [UNK] (1)
        for name, config, unknown in (
                ("no tokenizer_config.json", None, ([], [])),
                ("do_lower_case false", {"do_lower_case": False},
                 ([1, 2], [1, 2])),
                ("{} (do_lower_case true)", {}, ([], [])),
                ("strip_accents false", {"do_lower_case": True,
                                         "strip_accents": False},
                 ([], [1, 2]))):
            path = os.path.join(folder, "tokenizer_config.json")
            if config is None:
                norm = doc["normalizer"]
            else:
                with open(path, "w") as f:
                    json.dump(config, f)
                norm = dict(doc["normalizer"],
                            lowercase=config.get("do_lower_case", True),
                            strip_accents=config.get("strip_accents"))
            got = [token_ids(mha, folder, t) for t in texts]
            ok(all(rc == 0 for rc, _ in got) and
               all([i for i, x in enumerate(ids) if x == 1] == want
                   for (_, ids), want in zip(got, unknown)),
               "tokenizer_config.json, %s: [UNK] where the case or accents "
               "stay" % name, got)
            if have_ref:
                patched = os.path.join(tmp, "patched.json")
                with open(patched, "w") as f:
                    json.dump(dict(doc, normalizer=norm), f)
                ref = json.loads(subprocess.run(
                    [node, "-e", NODE, modules, patched],
                    input=json.dumps(texts).encode(), stdout=subprocess.PIPE,
                    check=True).stdout)
                ok([ids for _, ids in got] == ref,
                   "tokenizer_config.json, %s: @huggingface/tokenizers' ids"
                   % name, (got, ref))
            if config is not None:
                os.remove(path)
        chinese_chars(mha, folder, doc, node if have_ref else None, modules)
        for bad, needle in (('{"do_lower_case": 1}', "do_lower_case"),
                            ('{"tokenize_chinese_chars": null}',
                             "tokenize_chinese_chars"),
                            ("[true]", "JSON object"), ("{", "")):
            with open(os.path.join(folder, "tokenizer_config.json"),
                      "w") as f:
                f.write(bad)
            run_fails(mha, ["--model", folder, "the cat"],
                      "tokenizer_config.json %s: refused" % bad,
                      "tokenizer_config.json")


def main():
    mha = Program(sys.argv[1])
    root = sys.argv[2]
    cases = open(os.path.join(root, "cases.txt")).read().split()
    texts = {c: check_case(mha, os.path.join(root, c)) for c in cases}

    mlm = os.path.join(root, "mlm_wide")
    text, ids = texts["mlm_wide"]
    r = mha.run(["--model", mlm, "--tables", "next_tokens", text])
    lines = [l for l in r.stdout.decode().splitlines() if "\u2192" in l]
    ok(r.returncode == 0 and len(lines) == 5 * text.split().count("[MASK]")
       and all(l.startswith("[MASK] \u2192 ") for l in lines),
       "next_tokens: five words at each [MASK]", r.stdout.decode()[:400])
    r = mha.run(["--model", mlm, "--format", "csv", "--layers", "1",
                 "--show-heads", "2", text])
    rows = list(csv.DictReader(io.StringIO(r.stdout.decode())))
    ok(r.returncode == 0 and {x["layer"] for x in rows} == {"", "1"} and
       {x["head"] for x in rows} == {"", "2"} and
       {x["variant"] for x in rows} == {"bert"},
       "--layers 1 --show-heads 2 keep layer 1 and head 2; the model is bert",
       r.stderr.decode())
    ok({x["table"] for x in rows if x["layer"] == ""} ==
       {"tokens", "inputs", "attn_entropy", "out", "next_tokens"},
       "outside the layers: tokens, inputs, attn_entropy, out, next_tokens")
    r = mha.run(["--model", mlm, "--tables", "attn_weights,add_norm1",
                 "--layers", "0", text])
    out = r.stdout.decode()
    ok(r.returncode == 0 and "[layer.0] head 2: attn_weights" in out and
       "[layer.0] add_norm1" in out, "text headings name the layer",
       out[:300])
    base = os.path.join(root, "base")
    r = mha.run(["--model", base, texts["base"][0]])
    out = r.stdout.decode()
    ok(r.returncode == 0 and "next_tokens" not in out and "logits" not in out,
       "without the masked-word head: no next_tokens", r.stderr.decode())
    r = mha.run(["--model", mlm, "--check", text])
    out = r.stdout.decode()
    ok(r.returncode == 0 and "masked cells: 0 scores are -inf" in out,
       "--check: no masked cell, every row sums to 1",
       out[-400:] + r.stderr.decode())
    for lang, word in (("en", "both directions"), ("pt_BR", "duas direções"),
                       ("es", "ambas direcciones"), ("zh_CN", "双向"),
                       ("zh_TW", "雙向")):
        r = mha.run(["--model", mlm, "--explain", "--lang", lang, "--tables",
                     "tokens,attn_scores", text])
        out = r.stdout.decode()
        # the notes' lines joined: a phrase may be wrapped
        notes = " ".join(l[2:] for l in out.splitlines()
                         if l.startswith("# "))
        ok(r.returncode == 0 and word in notes and "[CLS]" in notes,
           "--explain --lang %s says BERT reads both ways" % lang,
           r.stderr.decode() + out[:300])
    # parameters by BertModel's names, the file's "bert." prefix or not
    stored = read_safetensors(os.path.join(mlm, "model.safetensors"))
    for param, key in (("encoder.layer.1.attention.self.query.weight",
                        "bert.encoder.layer.1.attention.self.query.weight"),
                       ("cls.predictions.bias", "cls.predictions.bias"),
                       ("embeddings.token_type_embeddings.weight",
                        "bert.embeddings.token_type_embeddings.weight")):
        r = mha.run(["--model", mlm, "--format", "csv", "--tables", param,
                     text])
        rows = list(csv.DictReader(io.StringIO(r.stdout.decode())))
        got = [f32(float(x["value"])) for x in rows]
        ok(r.returncode == 0 and got == list(stored[key][1]) and
           all(x["table"] == param for x in rows),
           "--tables %s: the checkpoint's tensor" % param, r.stderr.decode())
    gpt2 = os.path.join(root, "..", "gpt2", "tiny")
    run_fails(mha, ["--model", gpt2, "--pair", "world", "hello"],
              "--pair with a GPT-2 checkpoint: refused", "--pair")
    run_fails(mha, ["--pair", "b", "a b"], "--pair without --model: refused",
              "--pair")
    run_fails(mha, ["--model", mlm, "--pair", " ".join(["the"] * 12), text],
              "--pair past max_position_embeddings: refused, with the "
              "count of both texts' tokens and the limit",
              "the text is 29 tokens; the model takes at most 24 "
              "(max_position_embeddings)")
    bad_checkpoints(mha, root)
    tokenizer_config(mha, root)
    done()


if __name__ == "__main__":
    main()
