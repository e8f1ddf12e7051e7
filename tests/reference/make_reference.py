#!/usr/bin/env python3
"""Make the PyTorch reference data that the mha-explain tests compare against.

What it makes (in OUTDIR, by default the `cases` folder beside this
script):

  NAME.csv       every table of one case, as tidy CSV with the header
                 variant,head,table,row,row_label,col,col_label,value
                 (the same layout as `mha-explain --format csv`)
  NAME.args      the mha-explain arguments that reproduce NAME.csv,
                 one argument per line, UTF-8
  rng_check.txt  bit-exact float32 values of torch.randn, uniform_,
                 nn.Linear and nn.Embedding for the C unit tests of the
                 random number generator
  cases.txt      the name of every case in OUTDIR (every NAME.args, this
                 script's and make_reference_teaching.py's), which
                 tests/reference/meson.build reads: a new case is a test
                 as soon as a generator has written it

How to run it (Debian's python3-torch, CPU, float32):

    /usr/bin/python3 tests/reference/make_reference.py [OUTDIR]

The attention modules below are written the way the classic
"LLM from scratch" notebooks write them (without dropout, which does not
change the numbers at evaluation time). For every variant the recipe is
the one from docs/torch-init.md: torch.manual_seed(seed), then the
embedding table, then the variant's module.
"""

import csv
import os
import struct
import sys

import torch
import torch.nn as nn


# ---------------------------------------------------------------------------
# The three attention variants, as in the notebooks
# ---------------------------------------------------------------------------

class SelfAttention(nn.Module):
    """One head of width d_out ("single")."""

    def __init__(self, d_in, d_out, qkv_bias=False, causal=True, scale=True):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.causal = causal
        self.scale = scale

    def forward(self, x):
        queries = self.W_query(x)
        keys = self.W_key(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.T
        if self.causal:
            T = x.shape[0]
            mask = torch.triu(torch.ones(T, T), diagonal=1).bool()
            attn_scores = attn_scores.masked_fill(mask, -torch.inf)
        if self.scale:
            attn_scores = attn_scores / keys.shape[-1] ** 0.5
        attn_weights = torch.softmax(attn_scores, dim=-1)
        context = attn_weights @ values
        return context


class CausalAttention(nn.Module):
    """One head of a MultiHeadAttentionWrapper (input has a batch dim)."""

    def __init__(self, d_in, d_out, context_length, qkv_bias=False,
                 causal=True, scale=True):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.register_buffer(
            "mask", torch.triu(torch.ones(context_length, context_length),
                               diagonal=1))
        self.causal = causal
        self.scale = scale

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        queries = self.W_query(x)
        keys = self.W_key(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.transpose(1, 2)
        if self.causal:
            attn_scores = attn_scores.masked_fill(
                self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        if self.scale:
            attn_scores = attn_scores / keys.shape[-1] ** 0.5
        attn_weights = torch.softmax(attn_scores, dim=-1)
        context = attn_weights @ values
        return context


class MultiHeadAttentionWrapper(nn.Module):
    """`num_heads` independent CausalAttention heads, concatenated ("wrapper")."""

    def __init__(self, d_in, d_out, context_length, num_heads, qkv_bias=False,
                 causal=True, scale=True):
        super().__init__()
        self.heads = nn.ModuleList([
            CausalAttention(d_in, d_out // num_heads, context_length,
                            qkv_bias, causal, scale)
            for _ in range(num_heads)
        ])

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


class MultiHeadAttention(nn.Module):
    """Fused multi-head attention with an output projection ("fused")."""

    def __init__(self, d_in, d_out, context_length, num_heads, qkv_bias=False,
                 causal=True, scale=True):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.register_buffer(
            "mask", torch.triu(torch.ones(context_length, context_length),
                               diagonal=1))
        self.causal = causal
        self.scale = scale

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim)
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        if self.causal:
            mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
            attn_scores = attn_scores.masked_fill(mask_bool, -torch.inf)
        if self.scale:
            attn_scores = attn_scores / keys.shape[-1] ** 0.5
        attn_weights = torch.softmax(attn_scores, dim=-1)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        context_vec = self.out_proj(context_vec)
        return context_vec


# ---------------------------------------------------------------------------
# Step-by-step forward passes that keep every intermediate table
# ---------------------------------------------------------------------------

def attention_steps(queries, keys, values, causal, scale):
    """Scores, weights and context, with the same tensor operations as forward().

    Works for any leading (batch, head) dimensions: the last two are
    T x head_dim. Keeps every intermediate, like the notebooks' inspection
    dicts; attn_scores is kept before the scaling (masked cells -inf).
    """
    T = queries.shape[-2]
    attn_scores = queries @ keys.transpose(-2, -1)
    if causal:
        mask = torch.triu(torch.ones(T, T), diagonal=1).bool()
        attn_scores = attn_scores.masked_fill(mask, -torch.inf)
    scaled = attn_scores
    if scale:
        scaled = attn_scores / keys.shape[-1] ** 0.5
    attn_weights = torch.softmax(scaled, dim=-1)
    return {
        "queries": queries,
        "keys": keys,
        "values": values,
        "attn_scores": attn_scores,
        "attn_weights": attn_weights,
        "head_context": attn_weights @ values,
    }


def pick(steps, index):
    """One head's 2-D tables out of a dict of batched tensors."""
    return {name: t[index] for name, t in steps.items()}


def steps_single(model, x, causal, scale):
    # SelfAttention works on the 2-D input (T x d_in) directly.
    steps = attention_steps(model.W_query(x), model.W_key(x), model.W_value(x),
                            causal, scale)
    return [steps], {}, steps["head_context"]


def steps_wrapper(model, x, causal, scale):
    # Each CausalAttention head sees a batch of one: (1, T, d_in).
    xb = x.unsqueeze(0)
    heads = []
    for head in model.heads:
        steps = attention_steps(head.W_query(xb), head.W_key(xb),
                                head.W_value(xb), causal, scale)
        heads.append(pick(steps, 0))
    concat = torch.cat([h["head_context"] for h in heads], dim=-1)
    return heads, {"concat_context": concat}, concat


def steps_fused(model, x, causal, scale):
    # Batch of one; project, then view as (1, heads, T, head_dim) like forward().
    xb = x.unsqueeze(0)
    b, T, _ = xb.shape
    n, hd = model.num_heads, model.head_dim

    def split(t):
        return t.view(b, T, n, hd).transpose(1, 2)

    steps = attention_steps(split(model.W_query(xb)), split(model.W_key(xb)),
                            split(model.W_value(xb)), causal, scale)
    heads = [pick(steps, (0, h)) for h in range(n)]
    context = steps["head_context"].transpose(1, 2).contiguous().view(b, T, model.d_out)
    out = model.out_proj(context)
    return heads, {"concat_context": context[0], "out": out[0]}, out[0]


def build_model(variant, d_model, d_out, heads, T, qkv_bias, causal, scale):
    if variant == "single":
        return SelfAttention(d_model, d_out, qkv_bias, causal, scale)
    if variant == "wrapper":
        return MultiHeadAttentionWrapper(d_model, d_out, T, heads, qkv_bias,
                                         causal, scale)
    return MultiHeadAttention(d_model, d_out, T, heads, qkv_bias, causal, scale)


def module_output(variant, model, x):
    """The final output of the module's own forward(), as a T x d_out tensor."""
    if variant == "single":
        return model(x)
    return model(x.unsqueeze(0))[0]   # batch of one, as in the notebooks


STEPS = {"single": steps_single, "wrapper": steps_wrapper, "fused": steps_fused}


# ---------------------------------------------------------------------------
# Writing tables
# ---------------------------------------------------------------------------

def fmt(v):
    """A float32 value written so that it reads back as the same float32."""
    return "%.9g" % float(v)


class TidyWriter:
    """Writes matrices as rows of the tidy CSV and counts them."""

    HEADER = ["variant", "head", "table", "row", "row_label", "col",
              "col_label", "value"]

    def __init__(self, f):
        self.out = csv.writer(f, lineterminator="\n")
        self.out.writerow(self.HEADER)
        self.rows = 0

    def table(self, variant, head, name, matrix, row_labels, col_labels):
        matrix = matrix.detach()
        assert tuple(matrix.shape) == (len(row_labels), len(col_labels)), name
        head = "" if head is None else str(head)
        for i, rl in enumerate(row_labels):
            for j, cl in enumerate(col_labels):
                self.out.writerow([variant, head, name, i, rl, j, cl,
                                   fmt(matrix[i, j])])
                self.rows += 1


def dims(n, prefix="dim"):
    return ["%s%d" % (prefix, j) for j in range(n)]


def write_parameters(w, variant, model):
    """Parameters in state_dict order; buffers (the masks) are skipped."""
    params = dict(model.named_parameters())
    for name, tensor in model.state_dict().items():
        if name not in params:
            continue
        if tensor.dim() == 2:      # weight: out x in, as PyTorch stores it
            w.table(variant, None, name, tensor,
                    dims(tensor.shape[0], "out"), dims(tensor.shape[1], "in"))
        else:                      # bias: one row
            w.table(variant, None, name, tensor.unsqueeze(0),
                    ["bias"], dims(tensor.shape[0], "out"))


def write_heads(w, variant, heads, tokens, kv_tokens=None):
    """Each head's tables; keys and values are labelled with kv_tokens
    (cross-attention) or else with the sentence's own tokens."""
    kv_tokens = tokens if kv_tokens is None else kv_tokens
    q_labels = ["Q:" + t for t in tokens]
    k_labels = ["K:" + t for t in kv_tokens]
    v_labels = ["V:" + t for t in kv_tokens]
    for h, steps in enumerate(heads):
        hd = steps["queries"].shape[1]
        w.table(variant, h, "queries", steps["queries"], q_labels, dims(hd))
        w.table(variant, h, "keys", steps["keys"], k_labels, dims(hd))
        w.table(variant, h, "values", steps["values"], v_labels, dims(hd))
        w.table(variant, h, "attn_scores", steps["attn_scores"], q_labels, k_labels)
        w.table(variant, h, "attn_weights", steps["attn_weights"], q_labels, k_labels)
        w.table(variant, h, "head_context", steps["head_context"], tokens, dims(hd))


# ---------------------------------------------------------------------------
# One case
# ---------------------------------------------------------------------------

def make_vocab(sentence):
    """Words split like str.split(); ids in first-seen order (not sorted)."""
    words = sentence.split()
    vocab = {}
    for word in words:
        if word not in vocab:
            vocab[word] = len(vocab)
    return words, vocab


def case_args(case):
    args = ["--d-model", str(case["d_model"]), "--d-out", str(case["d_out"]),
            "--heads", str(case["heads"]), "--seed", str(case["seed"])]
    if not case.get("causal", True):
        args.append("--no-causal")
    if not case.get("scale", True):
        args.append("--no-scale")
    if case.get("qkv_bias", False):
        args.append("--qkv-bias")
    if "variants" in case:
        args += ["--variant", ",".join(case["variants"])]
    args.append(case["sentence"])
    return args


def run_case(case, outdir):
    """Writes NAME.csv and NAME.args; returns the number of CSV data rows."""
    name = case["name"]
    d_model, d_out, heads = case["d_model"], case["d_out"], case["heads"]
    causal = case.get("causal", True)
    scale = case.get("scale", True)
    qkv_bias = case.get("qkv_bias", False)
    variants = case.get("variants", ["single", "wrapper", "fused"])

    tokens, vocab = make_vocab(case["sentence"])
    token_ids = torch.tensor([vocab[t] for t in tokens])
    T = len(tokens)

    with open(os.path.join(outdir, name + ".csv"), "w", encoding="utf-8",
              newline="") as f:
        w = TidyWriter(f)

        # The input tables (the embedding is the same for every variant).
        torch.manual_seed(case["seed"])
        emb = nn.Embedding(len(vocab), d_model)
        inputs = emb(token_ids)
        words = list(vocab)
        w.table("input", None, "vocab",
                torch.tensor([[float(i)] for i in range(len(words))]), words, ["id"])
        w.table("input", None, "tokens",
                token_ids.float().unsqueeze(1), tokens, ["id"])
        w.table("input", None, "embedding.weight", emb.weight, words, dims(d_model))
        w.table("input", None, "inputs", inputs, tokens, dims(d_model))

        for variant in ["single", "wrapper", "fused"]:
            if variant not in variants:
                continue
            # Fresh notebook: seed, embedding table first, then the module.
            torch.manual_seed(case["seed"])
            emb = nn.Embedding(len(vocab), d_model)
            model = build_model(variant, d_model, d_out, heads, T, qkv_bias,
                                causal, scale)
            with torch.no_grad():
                x = emb(token_ids)
                head_steps, extra, final = STEPS[variant](model, x, causal, scale)
                check_same(name, variant, final, module_output(variant, model, x))

            write_parameters(w, variant, model)
            write_heads(w, variant, head_steps, tokens)
            for table in ["concat_context", "out"]:
                if table in extra:
                    w.table(variant, None, table, extra[table], tokens, dims(d_out))

    with open(os.path.join(outdir, name + ".args"), "w", encoding="utf-8",
              newline="\n") as f:
        for arg in case_args(case):
            f.write(arg + "\n")
    return w.rows


def check_same(name, variant, steps_out, module_out):
    """The step-by-step output must equal the module's forward()."""
    if torch.equal(steps_out, module_out):
        return
    diff = (steps_out - module_out).abs().max().item()
    print("note: %s/%s step-by-step differs from forward() by %g"
          % (name, variant, diff))
    assert torch.allclose(steps_out, module_out, rtol=0, atol=1e-6), (name, variant)


# ---------------------------------------------------------------------------
# rng_check.txt
# ---------------------------------------------------------------------------

def hexes(t):
    """IEEE bits of float32 values, 8 hex digits each, space separated."""
    return " ".join(struct.pack(">f", float(v)).hex()
                    for v in t.detach().reshape(-1).tolist())


RNG_HEADER = """\
# Bit-exact float32 values from PyTorch %s (CPU), for the RNG unit tests.
# Each value is the 8-hex-digit IEEE-754 bit pattern of a float32
# (e.g. 3eac63f0 = 0.3367...), values separated by single spaces.
# Every line starts from a fresh torch.manual_seed(S).
#
#   randn N seed S: V...
#       torch.randn(N)
#   uniform N seed S LO HI: V...
#       torch.empty(N).uniform_(LO, HI)   (LO, HI as Python floats)
#   linear IN OUT seed S bias: W... | B...
#       nn.Linear(IN, OUT): weight (OUT x IN, row-major), then bias
#   linear IN OUT seed S bias first16: W... | B...
#       the same, but only the first 16 weight values (all bias values)
#   embedding V D seed S then linear IN OUT nobias: E... | W...
#       nn.Embedding(V, D) weight (row-major), then
#       nn.Linear(IN, OUT, bias=False) weight, drawn right after it
"""


def rng_lines():
    lines = []
    for seed, n in [(42, 1), (42, 2), (42, 3), (42, 15), (42, 16), (42, 17),
                    (42, 31), (42, 32), (42, 45), (7, 100), (123, 1000)]:
        torch.manual_seed(seed)
        lines.append("randn %d seed %d: %s" % (n, seed, hexes(torch.randn(n))))

    for n, seed, lo, hi in [(10, 42, -0.5, 0.5), (100, 3, -0.125, 0.125),
                            (7, 9, 0.0, 1.0),
                            (50, 42, -0.5773502691896258, 0.5773502691896258)]:
        torch.manual_seed(seed)
        t = torch.empty(n).uniform_(lo, hi)
        lines.append("uniform %d seed %d %r %r: %s" % (n, seed, lo, hi, hexes(t)))

    for d_in, d_out, seed in [(3, 2, 42), (4, 4, 1), (768, 4, 0)]:
        torch.manual_seed(seed)
        layer = nn.Linear(d_in, d_out)
        weight = layer.weight.reshape(-1)
        what = "bias"
        if weight.numel() > 16 and d_in == 768:
            weight = weight[:16]
            what = "bias first16"
        lines.append("linear %d %d seed %d %s: %s | %s"
                     % (d_in, d_out, seed, what, hexes(weight), hexes(layer.bias)))

    torch.manual_seed(42)
    emb = nn.Embedding(5, 3)
    layer = nn.Linear(3, 2, bias=False)
    lines.append("embedding 5 3 seed 42 then linear 3 2 nobias: %s | %s"
                 % (hexes(emb.weight), hexes(layer.weight)))
    return lines


def write_rng_check(outdir):
    lines = rng_lines()
    with open(os.path.join(outdir, "rng_check.txt"), "w", encoding="utf-8",
              newline="\n") as f:
        f.write(RNG_HEADER % torch.__version__)
        for line in lines:
            f.write(line + "\n")
    return len(lines)


# ---------------------------------------------------------------------------
# The cases
# ---------------------------------------------------------------------------

CASES = [
    dict(name="classroom", sentence="O gato sobe no tapete",
         seed=42, d_model=3, d_out=4, heads=2),
    dict(name="zh_bias", sentence="我 喜欢 吃 牛舌 和 慢煮 牛舌",
         seed=123, d_model=4, d_out=6, heads=3, qkv_bias=True),
    dict(name="en_nocausal_noscale",
         sentence="the cat sat on the mat because the cat was tired",
         seed=7, d_model=3, d_out=4, heads=2, causal=False, scale=False),
    # 9 words x 5 dims = 45 normals: path 2 with the refill of the last 16.
    dict(name="path2_refill",
         sentence="el gato come y el perro duerme en la casa",
         seed=2024, d_model=5, d_out=6, heads=2),
    # 4 words x 8 dims = 32 normals: path 2, an exact multiple of 16.
    dict(name="path2_exact", sentence="a b c d",
         seed=0, d_model=8, d_out=8, heads=4),
    dict(name="one_head", sentence="Your journey starts with one step",
         seed=123, d_model=3, d_out=3, heads=1, qkv_bias=True),
    dict(name="wide",
         sentence="the quick brown fox jumps over the lazy dog and the dog "
                  "sleeps while the fox runs over the hill",
         seed=1, d_model=64, d_out=64, heads=4),
    # 2**32 + 42: torch.manual_seed keeps only the low 32 bits (= 42).
    dict(name="big_seed", sentence="O gato sobe no tapete",
         seed=2**32 + 42, d_model=3, d_out=4, heads=2),
    # The separators are U+3000 IDEOGRAPHIC SPACE.
    dict(name="ideographic_space", sentence="猫が\u3000マットに\u3000座った",
         seed=5, d_model=6, d_out=4, heads=2),
    # Only one variant: the input tables and then the fused tables.
    dict(name="fused_only", sentence="O gato sobe no tapete",
         seed=42, d_model=3, d_out=4, heads=2, variants=["fused"]),
]


def write_case_list(outdir):
    """Writes OUTDIR/cases.txt: every case whose NAME.args is in OUTDIR,
    one name a line, sorted. Returns the number of cases."""
    names = sorted(f[:-len(".args")] for f in os.listdir(outdir)
                   if f.endswith(".args"))
    with open(os.path.join(outdir, "cases.txt"), "w", encoding="utf-8",
              newline="\n") as f:
        f.write("# Reference cases (NAME.args, NAME.csv), written by "
                "make_reference.py\n# and make_reference_teaching.py; "
                "tests/reference/meson.build makes a\n# test of each.\n")
        for name in names:
            f.write(name + "\n")
    return len(names)


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = argv[1] if len(argv) > 1 else os.path.join(here, "cases")
    os.makedirs(outdir, exist_ok=True)
    torch.set_num_threads(1)
    for case in CASES:
        rows = run_case(case, outdir)
        print("%-22s %6d rows" % (case["name"] + ".csv", rows))
    print("%-22s %6d lines" % ("rng_check.txt", write_rng_check(outdir)))
    print("%-22s %6d cases" % ("cases.txt", write_case_list(outdir)))


if __name__ == "__main__":
    main(sys.argv)
