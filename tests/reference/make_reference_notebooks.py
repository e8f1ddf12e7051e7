#!/usr/bin/env python3
"""Reference tables from real PyTorch for the notebooks' order of draws.

Companion to make_reference.py and make_reference_teaching.py, for
  --randn-input   the input is torch.randn(B, T, d_model)
  --batch B       the batch the input and the dropout masks are drawn for
  --draw ORDER    input and modules drawn in a notebook's order from one
                  torch.manual_seed, each forward pass as soon as its
                  module and the input exist
  --dropout P     the Transformer block's nn.Dropout(P), training mode
  --attn-dropout P  the chapter-3 modules' dropout on the weights
  --layers N      N blocks stacked as
                  nn.Sequential(*[Block(...) for _ in range(N)])

It writes two kinds of cases:

  - the classic notebooks as written, each with its own classes: the
    Chinese 8-head notebook (its MultiHeadAttention(512, 8), then
    x = torch.randn(2, 10, 512)) and the English lesson (X =
    torch.randn(1, 6, 64), MultiHeadAttention(64, 4), then
    TransformerBlock(64, 4, 256) in training mode). Their tables are
    large: they go to the digest folder (NAME.args, NAME.digest, NAME.csv
    of the small tables), as make_reference_digest.py writes them;
  - random configurations of the options above with the notebooks'
    modules written with dropout (single, wrapper, fused, block), batched
    as the notebooks run them, whole into the cases folder.

Every dropout mask is F.dropout's own: the generator's state is saved
before the module's nn.Dropout runs, the noise drawn again from it as
F.dropout draws it (bernoulli_(1 - P), then div_(1 - P)), and the
script asserts that input * noise is what nn.Dropout returned.

    /usr/bin/python3 tests/reference/make_reference_notebooks.py [CASES [DIGEST]]
"""

import math
import os
import random
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

from make_reference import TidyWriter, dims, make_vocab, write_case_list
from make_reference_digest import digest, tables_of

SMALL = 2048


# ---------------------------------------------------------------------------
# Dropout, with its mask
# ---------------------------------------------------------------------------

def dropout_with_mask(module, x):
    """module(x) for an nn.Dropout in training mode, and its noise (None
    when it draws nothing)."""
    if not module.training or module.p == 0:
        return module(x), None
    state = torch.get_rng_state()
    out = module(x)
    after = torch.get_rng_state()
    torch.set_rng_state(state)
    noise = torch.empty_like(x).bernoulli_(1 - module.p).div_(1 - module.p)
    assert torch.equal(torch.get_rng_state(), after), "one draw per value"
    assert torch.equal(x * noise, out), "F.dropout is x * noise"
    return out, noise


# ---------------------------------------------------------------------------
# The Chinese 8-head notebook, as written
# ---------------------------------------------------------------------------

class ZhMultiHeadAttention(nn.Module):
    """The Chinese notebook's MultiHeadAttention(d_model, num_heads)."""

    def __init__(self, d_model, num_heads):
        super().__init__()
        assert d_model % num_heads == 0
        self.d_model = d_model
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)
        self.W_o = nn.Linear(d_model, d_model)

    def scaled_dot_product_attention(self, Q, K, V, mask=None):
        attn_scores = torch.matmul(Q, K.transpose(-2, -1)) * (1 / math.sqrt(self.d_k))
        if mask is not None:
            attn_scores = attn_scores.masked_fill(mask == 0, -1e9)
        attn_probs = torch.softmax(attn_scores, dim=-1)
        return torch.matmul(attn_probs, V), attn_probs

    def split_heads(self, x):
        batch_size, seq_length, _ = x.size()
        return x.view(batch_size, seq_length, self.num_heads,
                      self.d_k).transpose(1, 2)

    def combine_heads(self, x):
        batch_size, _, seq_length, _ = x.size()
        return x.transpose(1, 2).contiguous().view(batch_size, seq_length,
                                                   self.d_model)

    def forward(self, Q, K, V, mask=None):
        Q = self.split_heads(self.W_q(Q))
        K = self.split_heads(self.W_k(K))
        V = self.split_heads(self.W_v(V))
        attn_output, attn_weights = self.scaled_dot_product_attention(Q, K, V, mask)
        self.inspect = dict(Q=Q, K=K, V=V, weights=attn_weights,
                            context=attn_output,
                            concat=self.combine_heads(attn_output))
        output = self.W_o(self.combine_heads(attn_output))
        return output, attn_weights


# ---------------------------------------------------------------------------
# The English lesson, as written
# ---------------------------------------------------------------------------

class EnMultiHeadAttention(nn.Module):
    """The English lesson's MultiHeadAttention(d_model, num_heads)."""

    def __init__(self, d_model, num_heads):
        super().__init__()
        self.d_model = d_model
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.query = nn.Linear(d_model, d_model)
        self.key = nn.Linear(d_model, d_model)
        self.value = nn.Linear(d_model, d_model)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        batch_size = query.size(0)
        Q = self.query(query).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)
        K = self.key(key).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)
        V = self.value(value).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)
        scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(self.d_k)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))
        attention_weights = F.softmax(scores, dim=-1)
        context = torch.matmul(attention_weights, V)
        context = context.transpose(1, 2).contiguous().view(batch_size, -1, self.d_model)
        self.inspect = dict(Q=Q, K=K, V=V, weights=attention_weights,
                            context=torch.matmul(attention_weights, V),
                            concat=context)
        return self.out(context), attention_weights


class EnTransformerBlock(nn.Module):
    """The English lesson's TransformerBlock(d_model, num_heads, d_ff)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.1):
        super().__init__()
        self.attention = EnMultiHeadAttention(d_model, num_heads)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.feed_forward = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(),
                                          nn.Linear(d_ff, d_model))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        attn_output, attn_weights = self.attention(x, x, x, mask)
        dropped, mask1 = dropout_with_mask(self.dropout, attn_output)
        x1 = self.norm1(x + dropped)
        hidden = self.feed_forward[1](self.feed_forward[0](x1))
        ff_output = self.feed_forward[2](hidden)
        assert torch.equal(ff_output, self.feed_forward(x1))
        dropped2, mask2 = dropout_with_mask(self.dropout, ff_output)
        out = self.norm2(x1 + dropped2)
        self.inspect = dict(attn_out=attn_output, mask1=mask1, add_norm1=x1,
                            hidden=hidden, ffn_out=ff_output, mask2=mask2,
                            out=out)
        return out, attn_weights


# ---------------------------------------------------------------------------
# The chapter-3 modules and the block, with dropout, batched
# ---------------------------------------------------------------------------

def causal_mask(T):
    return torch.triu(torch.ones(T, T), diagonal=1).bool()


class CausalAttention(nn.Module):
    """One head (single; each head of the wrapper), dropout on the weights."""

    def __init__(self, d_in, d_out, qkv_bias, causal, dropout):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.causal = causal

    def forward(self, x):
        queries, keys, values = self.W_query(x), self.W_key(x), self.W_value(x)
        attn_scores = queries @ keys.transpose(1, 2)
        if self.causal:
            attn_scores = attn_scores.masked_fill(causal_mask(x.shape[1]), -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        dropped, noise = dropout_with_mask(self.dropout, attn_weights)
        context = dropped @ values
        self.heads = [head_tables(queries[0], keys[0], values[0], attn_scores[0],
                                  attn_weights[0],
                                  None if noise is None else noise[0],
                                  dropped[0], context[0])]
        return context


def head_tables(q, k, v, scores, weights, noise, dropped, context):
    t = dict(queries=q, keys=k, values=v, attn_scores=scores,
             attn_weights=weights)
    if noise is not None:
        t["dropout_mask"] = noise
        t["attn_weights_dropped"] = dropped
    t["head_context"] = context
    return t


class Wrapper(nn.Module):
    def __init__(self, d_in, d_out, num_heads, qkv_bias, causal, dropout):
        super().__init__()
        self.heads = nn.ModuleList([
            CausalAttention(d_in, d_out // num_heads, qkv_bias, causal, dropout)
            for _ in range(num_heads)])

    def forward(self, x):
        out = torch.cat([head(x) for head in self.heads], dim=-1)
        self.extra = {"concat_context": out[0]}
        return out


class Fused(nn.Module):
    def __init__(self, d_in, d_out, num_heads, qkv_bias, causal, dropout):
        super().__init__()
        self.d_out, self.num_heads = d_out, num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.causal = causal

    def forward(self, x):
        b, T, _ = x.shape
        split = (lambda t: t.view(b, T, self.num_heads, self.head_dim).transpose(1, 2))
        keys, queries, values = split(self.W_key(x)), split(self.W_query(x)), split(self.W_value(x))
        attn_scores = queries @ keys.transpose(2, 3)
        if self.causal:
            attn_scores = attn_scores.masked_fill(causal_mask(T), -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        dropped, noise = dropout_with_mask(self.dropout, attn_weights)
        context = (dropped @ values)
        self.heads = [head_tables(queries[0, h], keys[0, h], values[0, h],
                                  attn_scores[0, h], attn_weights[0, h],
                                  None if noise is None else noise[0, h],
                                  dropped[0, h], context[0, h])
                      for h in range(self.num_heads)]
        concat = context.transpose(1, 2).contiguous().view(b, T, self.d_out)
        out = self.out_proj(concat)
        self.extra = {"concat_context": concat[0], "out": out[0]}
        return out


class Block(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, qkv_bias, causal, dropout):
        super().__init__()
        self.attention = Fused(d_model, d_model, num_heads, qkv_bias, causal, 0.0)
        self.norm1 = nn.LayerNorm(d_model)
        self.ff = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(),
                                nn.Linear(d_ff, d_model))
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        attn_out = self.attention(x)
        dropped, mask1 = dropout_with_mask(self.dropout, attn_out)
        x1 = self.norm1(x + dropped)
        hidden = self.ff[1](self.ff[0](x1))
        ffn_out = self.ff[2](hidden)
        dropped2, mask2 = dropout_with_mask(self.dropout, ffn_out)
        out = self.norm2(x1 + dropped2)
        self.heads = self.attention.heads
        extra = {"concat_context": self.attention.extra["concat_context"],
                 "attn_out": attn_out[0]}
        if mask1 is not None:
            extra["attn_out_dropout_mask"] = mask1[0]
        extra.update(add_norm1=x1[0], ffn_hidden=hidden[0], ffn_out=ffn_out[0])
        if mask2 is not None:
            extra["ffn_out_dropout_mask"] = mask2[0]
        extra["out"] = out[0]
        self.extra = extra
        return out


# ---------------------------------------------------------------------------
# Writing a run's tables as mha-explain orders them
# ---------------------------------------------------------------------------

def write_params(w, variant, named):
    """(name, tensor) in state_dict order, under the program's names."""
    for name, p in named:
        if "norm" in name:  # LayerNorm: one row named as the part, dims
            part = name.rsplit(".", 1)[1]
            w.table(variant, None, name, p.unsqueeze(0), [part],
                    dims(p.shape[0]))
        elif p.dim() == 2:
            w.table(variant, None, name, p, dims(p.shape[0], "out"),
                    dims(p.shape[1], "in"))
        else:
            w.table(variant, None, name, p.unsqueeze(0), ["bias"],
                    dims(p.shape[0], "out"))


def write_heads(w, variant, heads, tokens):
    q = ["Q:" + t for t in tokens]
    k = ["K:" + t for t in tokens]
    v = ["V:" + t for t in tokens]
    labels = {"queries": (q, None), "keys": (k, None), "values": (v, None),
              "attn_scores": (q, k), "attn_weights": (q, k),
              "dropout_mask": (q, k), "attn_weights_dropped": (q, k),
              "head_context": (tokens, None)}
    for h, tables in enumerate(heads):
        for name, t in tables.items():
            rows, cols = labels[name]
            w.table(variant, h, name, t, rows, cols or dims(t.shape[1]))


def write_inputs(w, tokens, vocab, x0, emb):
    w.table("input", None, "vocab",
            torch.tensor([[float(i)] for i in range(len(vocab))]), list(vocab),
            ["id"])
    w.table("input", None, "tokens",
            torch.tensor([[float(vocab[t])] for t in tokens]), tokens, ["id"])
    if emb is not None:
        w.table("input", None, "embedding.weight", emb.weight, list(vocab),
                dims(emb.weight.shape[1]))
    w.table("input", None, "inputs", x0, tokens, dims(x0.shape[1]))


def mean_entropy(weights):
    """A head's mean over the queries of -sum p ln p over the row's p > 0
    (nats), in double and in order, as mha-explain documents its model
    view attn_entropy (a summary of PyTorch's attn_weights)."""
    total = 0.0
    for row in weights.tolist():
        h = 0.0
        for p in row:
            if p > 0:
                h -= p * math.log(p)
        total += h
    return total / weights.shape[0]


def write_module(w, variant, module, tokens):
    write_params(w, variant, module.state_dict().items())
    # a stack (nn.Sequential of blocks): every block's tables in turn
    for m in (module if isinstance(module, nn.Sequential) else [module]):
        write_heads(w, variant, m.heads if variant != "wrapper" else
                    [h.heads[0] for h in m.heads], tokens)
        for name, t in getattr(m, "extra", {}).items():
            w.table(variant, None, name, t, tokens, dims(t.shape[1]))
    if isinstance(module, nn.Sequential):
        # then the stack's model view: a row per block, a column per head
        table = torch.tensor([[mean_entropy(h["attn_weights"]) for h in m.heads]
                              for m in module], dtype=torch.float32)
        w.table(variant, None, "attn_entropy", table,
                ["block.%d" % i for i in range(len(module))],
                [str(h) for h in range(table.shape[1])])


# ---------------------------------------------------------------------------
# The notebooks as written
# ---------------------------------------------------------------------------

def zh_notebook(c):
    """torch.manual_seed(42); mha = MultiHeadAttention(512, 8);
    x = torch.randn(2, 10, 512); output, attention_weights = mha(x, x, x)"""
    tokens, vocab = make_vocab(c["sentence"])
    with torch.no_grad():
        torch.manual_seed(42)
        mha = ZhMultiHeadAttention(512, 8)
        x = torch.randn(2, 10, 512)
        output, attention_weights = mha(x, x, x)
    i = mha.inspect
    assert torch.equal(i["weights"], attention_weights)
    heads = [head_tables(i["Q"][0, h], i["K"][0, h], i["V"][0, h],
                         i["Q"][0, h] @ i["K"][0, h].T, attention_weights[0, h],
                         None, None, i["context"][0, h]) for h in range(8)]
    assert all(torch.equal(torch.softmax((hd["attn_scores"] * (1 / math.sqrt(64))), -1),
                           hd["attn_weights"]) for hd in heads)

    def write(w):
        write_inputs(w, tokens, vocab, x[0], None)
        names = {"W_q": "W_query", "W_k": "W_key", "W_v": "W_value", "W_o": "out_proj"}
        write_params(w, "fused", [(names[n.split(".")[0]] + "." + n.split(".")[1], p)
                                  for n, p in mha.state_dict().items()])
        write_heads(w, "fused", heads, tokens)
        w.table("fused", None, "concat_context", i["concat"][0], tokens, dims(512))
        w.table("fused", None, "out", output[0], tokens, dims(512))
    return write


def en_lesson(c):
    """torch.manual_seed(42); X = torch.randn(1, 6, 64);
    mha = MultiHeadAttention(64, 4); output, attention_weights = mha(X, X, X);
    block = TransformerBlock(64, 4, 256); block_output, block_weights = block(X)
    (training mode)"""
    tokens, vocab = make_vocab(c["sentence"])
    with torch.no_grad():
        torch.manual_seed(42)
        X = torch.randn(1, 6, 64)
        mha = EnMultiHeadAttention(64, 4)
        output, attention_weights = mha(X, X, X)
        block = EnTransformerBlock(64, 4, 256)
        assert block.training
        block_output, block_weights = block(X)
    names = {"query": "W_query", "key": "W_key", "value": "W_value", "out": "out_proj"}

    def heads_of(m, weights):
        i = m.inspect
        return [head_tables(i["Q"][0, h], i["K"][0, h], i["V"][0, h],
                            i["Q"][0, h] @ i["K"][0, h].T, weights[0, h], None,
                            None, i["context"][0, h]) for h in range(4)]

    def attention_params(m, prefix):
        return [(prefix + names[n.split(".")[0]] + "." + n.split(".")[1], p)
                for n, p in m.state_dict().items()]

    def write(w):
        write_inputs(w, tokens, vocab, X[0], None)
        write_params(w, "fused", attention_params(mha, ""))
        write_heads(w, "fused", heads_of(mha, attention_weights), tokens)
        w.table("fused", None, "concat_context", mha.inspect["concat"][0], tokens, dims(64))
        w.table("fused", None, "out", output[0], tokens, dims(64))
        b = block.inspect
        params = attention_params(block.attention, "attention.")
        params += [("norm1.weight", block.norm1.weight), ("norm1.bias", block.norm1.bias),
                   ("ff.0.weight", block.feed_forward[0].weight),
                   ("ff.0.bias", block.feed_forward[0].bias),
                   ("ff.2.weight", block.feed_forward[2].weight),
                   ("ff.2.bias", block.feed_forward[2].bias),
                   ("norm2.weight", block.norm2.weight), ("norm2.bias", block.norm2.bias)]
        write_params(w, "block", params)
        write_heads(w, "block", heads_of(block.attention, block_weights), tokens)
        w.table("block", None, "concat_context", block.attention.inspect["concat"][0],
                tokens, dims(64))
        for name, key in (("attn_out", "attn_out"), ("attn_out_dropout_mask", "mask1"),
                          ("add_norm1", "add_norm1"), ("ffn_hidden", "hidden"),
                          ("ffn_out", "ffn_out"), ("ffn_out_dropout_mask", "mask2"),
                          ("out", "out")):
            w.table("block", None, name, b[key][0], tokens, dims(b[key].shape[2]))
        assert torch.equal(b["out"], block_output)
    return write


NOTEBOOKS = [
    # docs/notebooks.md, the Chinese 8-head notebook: ten tokens for
    # torch.randn(2, 10, 512)
    (zh_notebook, dict(name="zh_notebook_randn",
                       sentence="我 喜欢 吃 牛舌 ， 你 也 喜欢 吃 吗",
                       args=["--randn-input", "--batch", "2", "--draw",
                             "fused,input", "--d-model", "512", "--d-out",
                             "512", "--heads", "8", "--qkv-bias",
                             "--no-causal"])),
    # docs/notebooks.md, the English lesson: six tokens for
    # torch.randn(1, 6, 64)
    (en_lesson, dict(name="en_lesson",
                     sentence="the chef slow cooks beef tongue",
                     args=["--randn-input", "--draw", "input,fused,block",
                           "--d-model", "64", "--d-out", "64", "--heads", "4",
                           "--qkv-bias", "--no-causal", "--ff", "256",
                           "--dropout", "0.1"])),
]


def write_digest(outdir, name, args, write):
    """NAME.args, NAME.digest and NAME.csv (the small tables), as
    make_reference_digest.py writes them."""
    full = os.path.join(outdir, name + ".full.csv")
    with open(full, "w", encoding="utf-8", newline="") as f:
        write(TidyWriter(f))
    header, tables = tables_of(full)
    os.remove(full)
    base = os.path.join(outdir, name)
    with open(base + ".args", "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(args) + "\n")
    import csv
    with open(base + ".digest", "w", encoding="utf-8", newline="\n") as d, \
            open(base + ".csv", "w", encoding="utf-8", newline="") as c:
        d.write("variant,head,table,rows,cols,sha256\n")
        out = csv.writer(c, lineterminator="\n")
        out.writerow(header)
        for key, rows in tables:
            d.write("%s,%s,%s,%d,%d,%s\n" % (key + digest(rows)))
            if len(rows) <= SMALL:
                out.writerows(rows)
    return len(tables)


# ---------------------------------------------------------------------------
# Random configurations
# ---------------------------------------------------------------------------

def build(variant, c):
    D, O, H = c["d_model"], c["d_out"], c["heads"]
    bias, causal, p = c["qkv_bias"], c["causal"], c["attn_dropout"]
    if variant == "single":
        return CausalAttention(D, O, bias, causal, p)
    if variant == "wrapper":
        return Wrapper(D, O, H, bias, causal, p)
    if variant == "fused":
        return Fused(D, O, H, bias, causal, p)
    if c.get("layers"):  # --layers N: the blocks drawn one after another
        return nn.Sequential(*[Block(D, H, c["ff"], bias, causal, c["dropout"])
                               for _ in range(c["layers"])])
    return Block(D, H, c["ff"], bias, causal, c["dropout"])


ORDER = ["single", "wrapper", "fused", "block"]


def run_config(c):
    """The modules of c, run as its --draw (or each from the seed) says;
    returns a writer of the tables."""
    tokens, vocab = make_vocab(c["sentence"])
    ids = torch.tensor([vocab[t] for t in tokens])
    T, D, B = len(tokens), c["d_model"], c["batch"]
    modules, state = {}, {}

    def draw_input():
        if c["randn"]:
            state["x"] = torch.randn(B, T, D)
            state["emb"] = None
        else:
            state["emb"] = nn.Embedding(len(vocab), D)
            state["x"] = torch.stack([state["emb"](ids)] * B)

    with torch.no_grad():
        if c["draw"] is None:
            for v in c["variants"]:
                torch.manual_seed(c["seed"])
                draw_input()
                modules[v] = build(v, c)
                modules[v](state["x"])
                if "first" not in state:
                    state["first"] = (state["x"], state["emb"])
        else:
            torch.manual_seed(c["seed"])
            order = c["draw"] if "input" in c["draw"] else ["input"] + c["draw"]
            waiting = []
            for item in order:
                if item == "input":
                    draw_input()
                    for v in waiting:
                        modules[v](state["x"])
                    continue
                modules[item] = build(item, c)
                if "x" in state:
                    modules[item](state["x"])
                else:
                    waiting.append(item)
            state["first"] = (state["x"], state["emb"])

    x, emb = state["first"]

    def write(w):
        write_inputs(w, tokens, vocab, x[0], emb)
        for v in ORDER:
            if v in modules:
                write_module(w, v, modules[v], tokens)
    return write


def config_args(c):
    args = ["--d-model", str(c["d_model"]), "--d-out", str(c["d_out"]),
            "--heads", str(c["heads"]), "--seed", str(c["seed"])]
    if c["qkv_bias"]:
        args.append("--qkv-bias")
    if not c["causal"]:
        args.append("--no-causal")
    if "block" in c["variants"]:
        args += ["--ff", str(c["ff"])]
    if c.get("layers"):
        args += ["--layers", str(c["layers"])]
    if c["randn"]:
        args.append("--randn-input")
    if c["batch"] != 1:
        args += ["--batch", str(c["batch"])]
    if c["draw"] is not None:
        args += ["--draw", ",".join(c["draw"])]
    else:
        args += ["--variant", ",".join(c["variants"])]
    if c["dropout"]:
        args += ["--dropout", repr(c["dropout"])]
    if c["attn_dropout"]:
        args += ["--attn-dropout", repr(c["attn_dropout"])]
    return args + [c["sentence"]]


WORDS = "O gato sobe no tapete the cat sat on mat 我 喜欢 牛舌".split()


def random_config(rng, i):
    heads = rng.choice([1, 2, 3, 4])
    hd = rng.choice([1, 2, 3])
    d_model = heads * rng.choice([1, 2, 3])  # the block's heads divide it
    variants = sorted(rng.sample(ORDER, rng.randint(1, 3)), key=ORDER.index)
    T = rng.randint(2, 7)
    draw = None
    if i % 4 != 3:  # most with --draw, in a shuffled order
        draw = variants + ["input"] if rng.random() < 0.8 else list(variants)
        rng.shuffle(draw)
    return dict(
        name="draw_random_%02d" % i,
        sentence=" ".join(rng.choice(WORDS) for _ in range(T)),
        seed=rng.randint(0, 10000), d_model=d_model, d_out=heads * hd,
        heads=heads, ff=rng.randint(3, 9), qkv_bias=rng.random() < 0.5,
        causal=rng.random() < 0.6, randn=rng.random() < 0.7,
        batch=rng.choice([1, 1, 2, 3]), variants=variants, draw=draw,
        dropout=rng.choice([0.0, 0.1, 0.5, 1 / 3]) if "block" in variants else 0.0,
        attn_dropout=(rng.choice([0.0, 0.1, 0.25, 0.7])
                      if set(variants) - {"block"} else 0.0))


FIXED = [
    # under 16 values: randn's element-wise path (B x T x D = 12)
    dict(name="draw_randn_small", sentence="O gato sobe", seed=42, d_model=4,
         d_out=4, heads=2, ff=8, qkv_bias=False, causal=True, randn=True,
         batch=1, variants=["fused"], draw=["fused", "input"], dropout=0.0,
         attn_dropout=0.5),
    # 3 x 7 x 6 = 126 values, not a multiple of 16: the last 16 redrawn
    dict(name="draw_randn_tail", sentence="the cat sat on the mat again",
         seed=7, d_model=6, d_out=6, heads=3, ff=10, qkv_bias=True,
         causal=False, randn=True, batch=3, variants=["wrapper", "block"],
         draw=["wrapper", "input", "block"], dropout=0.2, attn_dropout=0.3),
    # without --draw: each variant from the seed, input first, masks
    # after its construction
    dict(name="dropout_each_from_seed", sentence="O gato sobe no tapete",
         seed=42, d_model=4, d_out=4, heads=2, ff=8, qkv_bias=False,
         causal=True, randn=False, batch=2,
         variants=["single", "wrapper", "fused", "block"], draw=None,
         dropout=0.1, attn_dropout=0.1),
    # docs/notebooks.md, the Spanish notebook: the wrapper, then the fused
    # module, from one seed, on a batch of two copies
    dict(name="es_wrapper_fused", sentence="El gato sube a la alfombra",
         seed=123, d_model=3, d_out=4, heads=2, ff=12, qkv_bias=False,
         causal=True, randn=False, batch=2, variants=["wrapper", "fused"],
         draw=["input", "wrapper", "fused"], dropout=0.0, attn_dropout=0.0),
    # the same with the modules' dropout=0.1, in training mode
    dict(name="es_wrapper_fused_dropout",
         sentence="El gato sube a la alfombra", seed=123, d_model=3, d_out=4,
         heads=2, ff=12, qkv_bias=False, causal=True, randn=False, batch=2,
         variants=["wrapper", "fused"], draw=["input", "wrapper", "fused"],
         dropout=0.0, attn_dropout=0.1),
    # --layers: three blocks stacked, each from the one before, every
    # variant from the seed
    dict(name="stack_three_blocks", sentence="O gato sobe no tapete",
         seed=42, d_model=4, d_out=4, heads=2, ff=8, qkv_bias=False,
         causal=True, randn=False, batch=1, variants=["fused", "block"],
         draw=None, dropout=0.0, attn_dropout=0.0, layers=3),
    # a stack in training mode over a batch of two: block 0's two masks,
    # then block 1's, then block 2's, after the construction of all three
    dict(name="stack_dropout_batch", sentence="the cat sat on the mat",
         seed=7, d_model=6, d_out=6, heads=3, ff=10, qkv_bias=True,
         causal=True, randn=True, batch=2, variants=["block"],
         draw=None, dropout=0.25, attn_dropout=0.0, layers=3),
    # --draw: the wrapper, then the input, then a stack of two blocks and
    # its masks, from one seed
    dict(name="stack_draw_order", sentence="我 喜欢 牛舌 the cat",
         seed=123, d_model=4, d_out=6, heads=2, ff=6, qkv_bias=False,
         causal=False, randn=False, batch=2, variants=["wrapper", "block"],
         draw=["wrapper", "input", "block"], dropout=0.1, attn_dropout=0.3,
         layers=2),
    # repeated words: randn gives each position its own row
    dict(name="randn_repeated_words", sentence="the cat sat on the mat",
         seed=123, d_model=6, d_out=6, heads=2, ff=12, qkv_bias=False,
         causal=True, randn=True, batch=1, variants=["single", "fused"],
         draw=None, dropout=0.0, attn_dropout=0.0),
]


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    cases = argv[1] if len(argv) > 1 else os.path.join(here, "cases")
    digests = argv[2] if len(argv) > 2 else os.path.join(here, "digest")
    os.makedirs(cases, exist_ok=True)
    os.makedirs(digests, exist_ok=True)
    torch.set_num_threads(1)
    for make, c in NOTEBOOKS:
        n = write_digest(digests, c["name"], c["args"] + [c["sentence"]], make(c))
        print("%-26s %6d tables (digest)" % (c["name"], n))
    rng = random.Random(28)
    configs = FIXED + [random_config(rng, i) for i in range(16)]
    for c in configs:
        with open(os.path.join(cases, c["name"] + ".csv"), "w",
                  encoding="utf-8", newline="") as f:
            w = TidyWriter(f)
            run_config(c)(w)
        with open(os.path.join(cases, c["name"] + ".args"), "w",
                  encoding="utf-8", newline="\n") as f:
            f.write("\n".join(config_args(c)) + "\n")
        print("%-26s %6d rows" % (c["name"] + ".csv", w.rows))
    print("%-26s %6d cases" % ("cases.txt", write_case_list(cases)))


if __name__ == "__main__":
    main(sys.argv)
