#!/usr/bin/env python3
"""Reference tables from real PyTorch for the teaching options.

Companion to make_reference.py (whose modules and writers it reuses):
  --variant block   the Transformer block (attention, add & LayerNorm,
                    feed-forward, add & LayerNorm)
  --kv SENTENCE     cross-attention: queries from one sentence, keys and
                    values from the other, one vocabulary, no mask
  --average         attn_weights_avg, nn.MultiheadAttention's
                    average_attn_weights=True (the mean over heads)
  --tie             the fused module with the wrapper's heads stacked
  --weights         a W_query so large that scores overflow (inf, NaN),
                    in the fused module and in the block
  --no-causal       the Cantonese lesson's attention, whose input is
                    torch.randn(1, 6, 64) (nn.Embedding's draw)
  --embeddings      decimals near float32 rounding midpoints, in the
                    inputs and in a W_query read with --weights, read as
                    float() then torch.tensor() read them

Writes NAME.csv and NAME.args into OUTDIR (default: the `cases`
folder beside this script), in the same layout as make_reference.py.

    /usr/bin/python3 tests/reference/make_reference_teaching.py [OUTDIR]
"""

import ctypes
import os
import random
import struct
import sys

import torch
import torch.nn as nn

from make_reference import (MultiHeadAttention, MultiHeadAttentionWrapper,
                            SelfAttention, TidyWriter, attention_steps, dims,
                            fmt, make_vocab, pick, steps_wrapper,
                            steps_fused, write_case_list, write_heads,
                            write_parameters)


class TransformerBlock(nn.Module):
    """Post-norm block as in the Cantonese lesson, evaluation mode."""

    def __init__(self, d_model, num_heads, d_ff, T, qkv_bias):
        super().__init__()
        self.attention = MultiHeadAttention(d_model, d_model, T, num_heads,
                                            qkv_bias)
        self.norm1 = nn.LayerNorm(d_model)
        self.ff = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(),
                                nn.Linear(d_ff, d_model))
        self.norm2 = nn.LayerNorm(d_model)

    def forward(self, x):
        x = self.norm1(x + self.attention(x))
        return self.norm2(x + self.ff(x))


def write_input_tables(w, words, tokens, token_ids, emb, inputs, d_model,
                       kv_tokens=None, kv_ids=None, kv_inputs=None):
    w.table("input", None, "vocab",
            torch.tensor([[float(i)] for i in range(len(words))]), words, ["id"])
    w.table("input", None, "tokens", token_ids.float().unsqueeze(1), tokens, ["id"])
    if kv_tokens is not None:
        w.table("input", None, "kv_tokens", kv_ids.float().unsqueeze(1),
                kv_tokens, ["id"])
    w.table("input", None, "embedding.weight", emb.weight, words, dims(d_model))
    w.table("input", None, "inputs", inputs, tokens, dims(d_model))
    if kv_tokens is not None:
        w.table("input", None, "kv_inputs", kv_inputs, kv_tokens, dims(d_model))


def write_args(outdir, name, args):
    with open(os.path.join(outdir, name + ".args"), "w", encoding="utf-8",
              newline="\n") as f:
        for arg in args:
            f.write(arg + "\n")


def base_args(c):
    args = ["--d-model", str(c["d_model"]), "--d-out", str(c["d_out"]),
            "--heads", str(c["heads"]), "--seed", str(c["seed"])]
    if c.get("qkv_bias"):
        args.append("--qkv-bias")
    return args


def average(heads):
    """The mean over heads, as nn.MultiheadAttention computes it."""
    stacked = torch.stack([h["attn_weights"] for h in heads]).unsqueeze(0)
    return stacked.mean(dim=1)[0]


# ---------------------------------------------------------------------------
# The Transformer block
# ---------------------------------------------------------------------------

def write_norm(w, name, norm):
    w.table("block", None, name + ".weight", norm.weight.unsqueeze(0),
            ["weight"], dims(norm.weight.shape[0]))
    w.table("block", None, name + ".bias", norm.bias.unsqueeze(0),
            ["bias"], dims(norm.bias.shape[0]))


def write_norm_files(c, outdir, block, D):
    """Draws both LayerNorms' weights and biases from their own generator
    and writes them as --csv-dir names them, for --weights."""
    g = torch.Generator().manual_seed(c["norm_seed"])
    folder = os.path.join(outdir, c["name"] + "_weights")
    os.makedirs(folder, exist_ok=True)
    for name, norm in (("norm1", block.norm1), ("norm2", block.norm2)):
        for part in ("weight", "bias"):
            values = torch.randn(D, generator=g)
            getattr(norm, part).copy_(values)
            with open(os.path.join(folder, "block.%s.%s.csv" % (name, part)),
                      "w", encoding="utf-8", newline="\n") as f:
                f.write(",".join(["token"] + dims(D)) + "\n")
                f.write(",".join([part] + [fmt(v) for v in values]) + "\n")


def write_fill_file(c, outdir, block):
    """Fills the block's weight matrix c["fill"] = (name, value) with value
    and writes it as --csv-dir names it, for --weights."""
    name, value = c["fill"]
    param = block.get_parameter(name)
    param.fill_(float(value))
    folder = os.path.join(outdir, c["name"] + "_weights")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "block.%s.csv" % name), "w",
              encoding="utf-8", newline="\n") as f:
        f.write(",".join(["token"] + dims(param.shape[1], "in")) + "\n")
        for r in range(param.shape[0]):
            f.write(",".join(["out%d" % r] + [value] * param.shape[1]) + "\n")


def block_case(c, outdir):
    tokens, vocab = make_vocab(c["sentence"])
    ids = torch.tensor([vocab[t] for t in tokens])
    D, F = c["d_model"], c.get("ff", 4 * c["d_model"])
    torch.manual_seed(c["seed"])
    emb = nn.Embedding(len(vocab), D)
    block = TransformerBlock(D, c["heads"], F, len(tokens), c.get("qkv_bias", False))
    block.eval()
    with torch.no_grad():
        if "norm_seed" in c:  # hand-made LayerNorm weights, read by --weights
            write_norm_files(c, outdir, block, D)
        if "fill" in c:  # a weight matrix of one huge value, read by --weights
            write_fill_file(c, outdir, block)
        x = emb(ids)
        heads, extra, attn_out = steps_fused(block.attention, x, True, True)
        add_norm1 = block.norm1(x + attn_out)
        hidden = block.ff[1](block.ff[0](add_norm1))
        ffn_out = block.ff[2](hidden)
        out = block.norm2(add_norm1 + ffn_out)
        forward = block(x.unsqueeze(0))[0]  # NaN counted equal to NaN
        assert torch.equal(out.nan_to_num(), forward.nan_to_num()) and \
            torch.equal(out.isnan(), forward.isnan()), "block forward"
        if "fill" in c:  # the case must reach ReLU with NaN and infinities
            assert torch.isnan(hidden).any(), "NaN through ReLU"
        with open(os.path.join(outdir, c["name"] + ".csv"), "w",
                  encoding="utf-8", newline="") as f:
            w = TidyWriter(f)
            write_input_tables(w, list(vocab), tokens, ids, emb, x, D)
            for name, mod in (("attention.", block.attention),):
                for pname, p in mod.named_parameters():
                    if p.dim() == 2:
                        w.table("block", None, name + pname, p,
                                dims(p.shape[0], "out"), dims(p.shape[1], "in"))
                    else:
                        w.table("block", None, name + pname, p.unsqueeze(0),
                                ["bias"], dims(p.shape[0], "out"))
            write_norm(w, "norm1", block.norm1)
            for idx in (0, 2):
                lin = block.ff[idx]
                w.table("block", None, "ff.%d.weight" % idx, lin.weight,
                        dims(lin.weight.shape[0], "out"), dims(lin.weight.shape[1], "in"))
                w.table("block", None, "ff.%d.bias" % idx, lin.bias.unsqueeze(0),
                        ["bias"], dims(lin.bias.shape[0], "out"))
            write_norm(w, "norm2", block.norm2)
            write_heads(w, "block", heads, tokens)
            w.table("block", None, "concat_context", extra["concat_context"],
                    tokens, dims(D))
            w.table("block", None, "attn_out", attn_out, tokens, dims(D))
            w.table("block", None, "add_norm1", add_norm1, tokens, dims(D))
            w.table("block", None, "ffn_hidden", hidden, tokens, dims(F))
            w.table("block", None, "ffn_out", ffn_out, tokens, dims(D))
            w.table("block", None, "out", out, tokens, dims(D))
    args = base_args(c) + ["--variant", "block"]
    if "ff" in c:
        args += ["--ff", str(F)]
    if "norm_seed" in c or "fill" in c:
        args += ["--weights", c["name"] + "_weights"]
    write_args(outdir, c["name"], args + [c["sentence"]])
    return w.rows


# ---------------------------------------------------------------------------
# Cross-attention
# ---------------------------------------------------------------------------

def cross_steps(variant, model, x, y):
    """Queries from x, keys and values from y, no mask."""
    if variant == "single":
        steps = attention_steps(model.W_query(x), model.W_key(y),
                                model.W_value(y), False, True)
        return [steps], {}
    if variant == "wrapper":
        heads = [attention_steps(h.W_query(x), h.W_key(y), h.W_value(y),
                                 False, True) for h in model.heads]
        return heads, {"concat_context": torch.cat(
            [h["head_context"] for h in heads], dim=-1)}
    xb, yb = x.unsqueeze(0), y.unsqueeze(0)
    n, hd = model.num_heads, model.head_dim

    def split(t):
        return t.view(1, t.shape[1], n, hd).transpose(1, 2)

    steps = attention_steps(split(model.W_query(xb)), split(model.W_key(yb)),
                            split(model.W_value(yb)), False, True)
    heads = [pick(steps, (0, h)) for h in range(n)]
    context = steps["head_context"].transpose(1, 2).contiguous().view(
        1, x.shape[0], model.d_out)
    return heads, {"concat_context": context[0], "out": model.out_proj(context)[0]}


def cross_case(c, outdir):
    tokens, _ = make_vocab(c["sentence"])
    kv_tokens, _ = make_vocab(c["kv"])
    _, vocab = make_vocab(c["sentence"] + " " + c["kv"])
    ids = torch.tensor([vocab[t] for t in tokens])
    kv_ids = torch.tensor([vocab[t] for t in kv_tokens])
    D, O, H = c["d_model"], c["d_out"], c["heads"]
    T = len(tokens) + len(kv_tokens)
    with open(os.path.join(outdir, c["name"] + ".csv"), "w", encoding="utf-8",
              newline="") as f:
        w = TidyWriter(f)
        with torch.no_grad():
            torch.manual_seed(c["seed"])
            emb = nn.Embedding(len(vocab), D)
            write_input_tables(w, list(vocab), tokens, ids, emb, emb(ids), D,
                               kv_tokens, kv_ids, emb(kv_ids))
            for variant in ("single", "wrapper", "fused"):
                torch.manual_seed(c["seed"])
                emb = nn.Embedding(len(vocab), D)
                if variant == "single":
                    model = SelfAttention(D, O, c.get("qkv_bias", False), False)
                elif variant == "wrapper":
                    model = MultiHeadAttentionWrapper(D, O, T, H, c.get("qkv_bias", False), False)
                else:
                    model = MultiHeadAttention(D, O, T, H, c.get("qkv_bias", False), False)
                heads, extra = cross_steps(variant, model, emb(ids), emb(kv_ids))
                write_parameters(w, variant, model)
                write_heads(w, variant, heads, tokens, kv_tokens)
                for name in ("concat_context", "out"):
                    if name in extra:
                        w.table(variant, None, name, extra[name], tokens, dims(O))
    write_args(outdir, c["name"], base_args(c) + ["--kv", c["kv"], c["sentence"]])
    return w.rows


# ---------------------------------------------------------------------------
# --average and --tie
# ---------------------------------------------------------------------------

def seeded_embedding(c, vocab):
    """A fresh notebook: torch.manual_seed, then nn.Embedding."""
    torch.manual_seed(c["seed"])
    return nn.Embedding(len(vocab), c["d_model"])


def write_fused(w, fused, x, tokens):
    """The fused module's parameters and tables on inputs x; returns its
    heads' steps and the module-level tables."""
    heads, extra, _ = steps_fused(fused, x, True, True)
    write_parameters(w, "fused", fused)
    write_heads(w, "fused", heads, tokens)
    for name in ("concat_context", "out"):
        w.table("fused", None, name, extra[name], tokens, dims(fused.d_out))
    return heads, extra


def average_tie_case(c, outdir):
    tokens, vocab = make_vocab(c["sentence"])
    ids = torch.tensor([vocab[t] for t in tokens])
    D, O, H, T = c["d_model"], c["d_out"], c["heads"], len(tokens)
    bias = c.get("qkv_bias", False)
    with open(os.path.join(outdir, c["name"] + ".csv"), "w", encoding="utf-8",
              newline="") as f:
        w = TidyWriter(f)
        with torch.no_grad():
            emb = seeded_embedding(c, vocab)
            write_input_tables(w, list(vocab), tokens, ids, emb, emb(ids), D)

            emb = seeded_embedding(c, vocab)
            wrapper = MultiHeadAttentionWrapper(D, O, T, H, bias)
            heads, extra, _ = steps_wrapper(wrapper, emb(ids), True, True)
            write_parameters(w, "wrapper", wrapper)
            write_heads(w, "wrapper", heads, tokens)
            w.table("wrapper", None, "concat_context", extra["concat_context"],
                    tokens, dims(O))
            if c.get("average"):  # after the module's own tables
                w.table("wrapper", None, "attn_weights_avg", average(heads),
                        ["Q:" + t for t in tokens], ["K:" + t for t in tokens])

            emb = seeded_embedding(c, vocab)
            fused = MultiHeadAttention(D, O, T, H, bias)
            if c.get("tie"):
                for name in ("W_query", "W_key", "W_value"):
                    layers = [getattr(h, name) for h in wrapper.heads]
                    getattr(fused, name).weight.copy_(
                        torch.cat([l.weight for l in layers]))
                    if bias:
                        getattr(fused, name).bias.copy_(
                            torch.cat([l.bias for l in layers]))
            heads, _ = write_fused(w, fused, emb(ids), tokens)
            if c.get("average"):
                w.table("fused", None, "attn_weights_avg", average(heads),
                        ["Q:" + t for t in tokens], ["K:" + t for t in tokens])
    args = base_args(c) + ["--variant", "wrapper,fused"]
    args += ["--average"] if c.get("average") else []
    args += ["--tie"] if c.get("tie") else []
    write_args(outdir, c["name"], args + [c["sentence"]])
    return w.rows


# ---------------------------------------------------------------------------
# Scores that overflow: a hand-edited W_query (--weights) so large that
# rows of scores hold inf and NaN, and softmax gives NaN rows
# ---------------------------------------------------------------------------

def overflow_case(c, outdir):
    tokens, vocab = make_vocab(c["sentence"])
    ids = torch.tensor([vocab[t] for t in tokens])
    D, O, H, T = c["d_model"], c["d_out"], c["heads"], len(tokens)
    weights_dir = c["name"] + "_weights"
    os.makedirs(os.path.join(outdir, weights_dir), exist_ok=True)
    with open(os.path.join(outdir, weights_dir, "fused.W_query.weight.csv"),
              "w", encoding="utf-8", newline="\n") as f:
        f.write(",".join(["token"] + dims(D, "in")) + "\n")
        for r in range(O):
            f.write(",".join(["out%d" % r] + [c["value"]] * D) + "\n")
    with open(os.path.join(outdir, c["name"] + ".csv"), "w", encoding="utf-8",
              newline="") as f:
        w = TidyWriter(f)
        with torch.no_grad():
            emb = seeded_embedding(c, vocab)
            write_input_tables(w, list(vocab), tokens, ids, emb, emb(ids), D)
            emb = seeded_embedding(c, vocab)
            fused = MultiHeadAttention(D, O, T, H, False)
            fused.W_query.weight.fill_(float(c["value"]))
            heads, extra = write_fused(w, fused, emb(ids), tokens)
            forward = fused(emb(ids).unsqueeze(0))[0]
            assert torch.equal(torch.isnan(extra["out"]), torch.isnan(forward)), \
                "forward"
            assert any(torch.isnan(h["attn_weights"]).any() for h in heads), \
                "the case should give NaN weights"
    write_args(outdir, c["name"], base_args(c) + [
        "--variant", "fused", "--weights", weights_dir, c["sentence"]])
    return w.rows


# ---------------------------------------------------------------------------
# Decimals near float32 rounding midpoints: --embeddings and --weights
# files read as a notebook reads them, float() (decimal -> double) then
# torch.tensor (double -> float32)
# ---------------------------------------------------------------------------

def midpoint_decimals(rng, n):
    """n decimals that lie within a double's precision of a float32
    rounding midpoint: the shortest decimal of the midpoint's double, or
    17 significant digits of it, in plain or exponent notation."""
    out = []
    while len(out) < n:
        f = struct.unpack("<f", struct.pack("<f", rng.uniform(-4, 4)))[0]
        bits = struct.unpack("<I", struct.pack("<f", f))[0]
        g = struct.unpack("<f", struct.pack("<I", bits + 1))[0]
        mid = (f + g) / 2          # exact in double
        form = len(out) % 3
        out.append(repr(mid) if form == 0 else
                   "%.17g" % mid if form == 1 else "%.16e" % mid)
    return out


def strtof_differs(texts):
    """How many of texts C's strtof (decimal -> float32 directly) reads
    otherwise than float() then float32: the case must exercise the path."""
    libc = ctypes.CDLL(None)
    libc.strtof.restype = ctypes.c_float
    libc.strtof.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    n = 0
    for t in texts:
        direct = libc.strtof(t.encode(), None)
        via_double = torch.tensor([float(t)], dtype=torch.float32).item()
        n += struct.pack("<f", direct) != struct.pack("<f", via_double)
    return n


def decimals_case(c, outdir):
    rng = random.Random(c["rng"])
    comma = c.get("decimal_comma", False)
    sep = ";" if comma else ","
    T, D, O, H = len(c["tokens"]), c["d_model"], c["d_out"], c["heads"]
    # the example first: 1.0000000596046448 is 1 + 2^-24 + 2.5e-17,
    # a float32 1.0000001 read directly, 1.0 through the double 1 + 2^-24
    texts = ["1.0000000596046448", "0.5", "0.25", "2"][:D]
    texts += midpoint_decimals(rng, T * D - len(texts))
    w_texts = midpoint_decimals(rng, O * D)
    assert strtof_differs(texts) > 0 and strtof_differs(w_texts) > 0
    show = (lambda t: t.replace(".", ",")) if comma else (lambda t: t)
    emb_file = c["name"] + "_embeddings.csv"
    with open(os.path.join(outdir, emb_file), "w", encoding="utf-8",
              newline="\n") as f:
        f.write(sep.join(["token"] + dims(D)) + "\n")
        for t, tok in enumerate(c["tokens"]):
            f.write(sep.join([tok] + [show(x) for x in texts[t * D:(t + 1) * D]])
                    + "\n")
    weights_dir = c["name"] + "_weights"
    os.makedirs(os.path.join(outdir, weights_dir), exist_ok=True)
    with open(os.path.join(outdir, weights_dir, "fused.W_query.weight.csv"),
              "w", encoding="utf-8", newline="\n") as f:
        f.write(sep.join(["token"] + dims(D, "in")) + "\n")
        for r in range(O):
            f.write(sep.join(["out%d" % r] +
                             [show(x) for x in w_texts[r * D:(r + 1) * D]]) + "\n")
    tokens = c["tokens"]
    _, vocab = make_vocab(" ".join(tokens))
    with open(os.path.join(outdir, c["name"] + ".csv"), "w", encoding="utf-8",
              newline="") as f:
        w = TidyWriter(f)
        with torch.no_grad():
            x = torch.tensor([float(v) for v in texts]).view(T, D)
            w.table("input", None, "vocab",
                    torch.tensor([[float(i)] for i in range(len(vocab))]),
                    list(vocab), ["id"])
            w.table("input", None, "tokens",
                    torch.tensor([[float(vocab[t])] for t in tokens]), tokens, ["id"])
            w.table("input", None, "inputs", x, tokens, dims(D))
            torch.manual_seed(c["seed"])
            fused = MultiHeadAttention(D, O, T, H, False)
            fused.W_query.weight.copy_(
                torch.tensor([float(v) for v in w_texts]).view(O, D))
            write_fused(w, fused, x, tokens)
    args = ["--d-out", str(O), "--heads", str(H), "--seed", str(c["seed"]),
            "--variant", "fused", "--embeddings", emb_file,
            "--weights", weights_dir]
    if comma:
        args.append("--decimal-comma")
    write_args(outdir, c["name"], args)
    return w.rows


# ---------------------------------------------------------------------------
# The Cantonese lesson's attention: torch.randn(1, 6, 64) as the input,
# which is nn.Embedding(6, 64)'s draw for six different words
# ---------------------------------------------------------------------------

def randn_lesson_case(c, outdir):
    tokens, vocab = make_vocab(c["sentence"])
    ids = torch.tensor([vocab[t] for t in tokens])
    T, D, O, H = len(tokens), c["d_model"], c["d_out"], c["heads"]
    with open(os.path.join(outdir, c["name"] + ".csv"), "w", encoding="utf-8",
              newline="") as f:
        w = TidyWriter(f)
        with torch.no_grad():
            emb = seeded_embedding(c, vocab)
            write_input_tables(w, list(vocab), tokens, ids, emb, emb(ids), D)
            # the lesson, as written: seed, random input, the module
            torch.manual_seed(c["seed"])
            x = torch.randn(1, T, D)
            assert torch.equal(x[0], emb(ids)), "randn is the embedding draw"
            fused = MultiHeadAttention(D, O, T, H, True, causal=False)
            heads, extra, out = steps_fused(fused, x[0], False, True)
            assert torch.equal(out, fused(x)[0]), "forward"
            write_parameters(w, "fused", fused)
            write_heads(w, "fused", heads, tokens)
            for name in ("concat_context", "out"):
                w.table("fused", None, name, extra[name], tokens, dims(O))
    write_args(outdir, c["name"], base_args(c) + [
        "--no-causal", "--variant", "fused", c["sentence"]])
    return w.rows


CASES = [
    (block_case, dict(name="block_classroom", sentence="O gato sobe no tapete",
                      seed=42, d_model=4, d_out=4, heads=2)),
    (block_case, dict(name="block_cantonese",
                      sentence="呢間 餐廳 嘅 牛舌 好 出名 ， 慢煮 牛舌 好 好食",
                      seed=7, d_model=16, d_out=16, heads=4, ff=24, qkv_bias=True)),
    (block_case, dict(name="block_norm_weights",
                      sentence="我 喜欢 吃 牛舌 和 慢煮 牛舌 the cat sat on the mat",
                      seed=21, d_model=24, d_out=24, heads=3, norm_seed=5)),
    (block_case, dict(name="block_wide", sentence=" ".join(["w%d" % (i % 9) for i in range(20)]),
                      seed=3, d_model=40, d_out=40, heads=5)),
    (cross_case, dict(name="cross", sentence="O gato sobe no tapete",
                      kv="the cat climbs onto the mat", seed=42, d_model=3,
                      d_out=4, heads=2)),
    (cross_case, dict(name="cross_bias", sentence="我 喜欢 牛舌",
                      kv="I like beef tongue 牛舌", seed=11, d_model=6,
                      d_out=6, heads=3, qkv_bias=True)),
    (average_tie_case, dict(name="average", sentence="the cat sat on the mat",
                            seed=5, d_model=4, d_out=8, heads=4, average=True)),
    (average_tie_case, dict(name="tie", sentence="O gato sobe no tapete",
                            seed=42, d_model=3, d_out=4, heads=2, tie=True,
                            average=True)),
    (average_tie_case, dict(name="tie_bias", sentence="Your journey starts with one step",
                            seed=123, d_model=6, d_out=6, heads=3, tie=True,
                            qkv_bias=True)),
    # the mean over heads is PyTorch's sum kernel: 6 and 17 heads sum in
    # another order than one by one
    (average_tie_case, dict(name="average_6_heads",
                            sentence="the cat sat on the mat because it was warm there",
                            seed=9, d_model=5, d_out=12, heads=6, average=True)),
    (average_tie_case, dict(name="average_17_heads", sentence="O gato sobe",
                            seed=4, d_model=3, d_out=34, heads=17, average=True)),
    (overflow_case, dict(name="overflow", sentence="O gato sobe no tapete",
                         seed=42, d_model=3, d_out=4, heads=2, value="3e38")),
    # the guide's overflow example in the block: NaN and infinities
    # through LayerNorm, the feed-forward layers and ReLU
    (block_case, dict(name="block_overflow", sentence="O gato sobe no tapete",
                      seed=42, d_model=4, d_out=4, heads=2,
                      fill=("attention.W_query.weight", "3e38"))),
    (block_case, dict(name="block_ff_overflow", sentence="O gato sobe no tapete",
                      seed=42, d_model=4, d_out=4, heads=2,
                      fill=("ff.0.weight", "3e38"))),
    (randn_lesson_case, dict(name="cantonese_lesson",
                             sentence="法國 紅酒 慢煮 阿根廷 牛舌 配", seed=42,
                             d_model=64, d_out=64, heads=4, qkv_bias=True)),
    (decimals_case, dict(name="decimals", tokens=["A", "B"], seed=42,
                         d_model=2, d_out=4, heads=2, rng=1)),
    (decimals_case, dict(name="decimals_comma",
                         tokens=["the", "cat", "sat", "on", "the", "mat"],
                         seed=123, d_model=4, d_out=6, heads=3, rng=2,
                         decimal_comma=True)),
]


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = argv[1] if len(argv) > 1 else os.path.join(here, "cases")
    os.makedirs(outdir, exist_ok=True)
    torch.set_num_threads(1)
    for make, case in CASES:
        print("%-22s %6d rows" % (case["name"] + ".csv", make(case, outdir)))
    print("%-22s %6d cases" % ("cases.txt", write_case_list(outdir)))


if __name__ == "__main__":
    main(sys.argv)
