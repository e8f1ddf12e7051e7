#!/usr/bin/env python3
"""Make small random GPT-2 checkpoints and PyTorch's tables for them.

For every case below it writes a folder gpt2/NAME/ (beside this script,
or in OUTDIR):

  config.json        as transformers' GPT2Config writes it (the keys
                     mha-explain reads)
  model.safetensors  the parameters under Hugging Face's names and layout
                     (written here, byte by byte: 8-byte header length,
                     JSON header padded to 8 bytes, little-endian data)
  vocab.json, merges.txt
                     a toy byte-level BPE tokenizer in GPT-2's format:
                     the 256 byte symbols (bytes_to_unicode), then one
                     token per merge of MERGES
  text.txt           the text run through the model (ASCII, no newline)
  ids.txt            its token ids, by encoder.py's algorithm, one line
  reference.safetensors
                     every table of the forward pass as PyTorch computes
                     it: "embedded", "h.L.ln_1", "h.L.head.H.queries",
                     ..., "h.L.hidden", "out", "logits"

The forward pass below is transformers' GPT2Model with eager attention,
written out operation by operation (transformers is not needed): wte +
wpe; per block ln_1, Conv1D c_attn (torch.addmm(bias, x, weight), weight
stored in x out), split into Q, K, V and heads (view + permute),
torch.matmul(q, k^T) / torch.full([], hd ** 0.5), torch.where(causal,
scores, finfo.min), softmax, @ v, merge, c_proj, residual, ln_2, c_fc,
gelu_new, c_proj, residual; ln_f; logits = lm_head(out), GPT2LMHeadModel's
nn.Linear without a bias whose weight is wte, or the checkpoint's own
lm_head.weight when config.json says "tie_word_embeddings": false.

How to run it (Debian's python3-torch, CPU, float32):

    /usr/bin/python3 tests/reference/make_gpt2_reference.py [OUTDIR]
"""

import json
import math
import os
import struct
import sys

import torch
import torch.nn.functional as F

# name, layers, heads, n_embd, n_inner (None: 4 x n_embd), text, unused
# ids past the tokenizer's, positions, dtype of the stored weights,
# "transformer." prefix, seed, and tie_word_embeddings (True: lm_head is
# wte, config.json leaves the key to GPT2Config's default; False: the
# checkpoint has its own lm_head.weight and config.json says false), and
# scale_attn_weights (True: GPT2Config's default, config.json leaves it
# out; False: config.json says false and the scores are not divided)
CASES = [
    ("tiny", 1, 1, 8, None, "hello, hello world!", 0, 16, "F32", False, 1,
     True, True),
    ("two_layers", 2, 2, 16, None, "the cat sat on the mat", 3, 16, "F32",
     True, 2, True, True),
    ("four_heads_bf16", 3, 4, 32, None, "hello  world\tthe end...", 5, 32,
     "BF16", False, 3, True, True),
    ("odd_inner_f16", 2, 3, 24, 40, "I'm here, aren't you?", 1, 32, "F16",
     True, 4, True, True),
    ("wide", 2, 6, 48, None,
     "the cat and the hat sat on the mat with the bat " * 2, 2, 96, "F32",
     False, 5, True, True),
    ("untied_bf16", 2, 2, 16, None, "the cat sat on the mat", 2, 16, "BF16",
     True, 6, False, True),
    ("unscaled", 2, 2, 16, None, "the cat sat on the mat", 1, 16, "F32",
     True, 7, True, False),
]

# The toy tokenizer's merges, by rank ("Ġ" is the space's symbol).
MERGES = [("h", "e"), ("l", "l"), ("he", "ll"), ("hell", "o"), ("Ġ", "w"),
          ("o", "r"), ("l", "d"), ("Ġw", "or"), ("Ġwor", "ld"), ("Ġ", "h"),
          ("Ġh", "e"), ("Ġ", "t"), ("Ġt", "he"), ("a", "t"), ("Ġ", "c"),
          ("Ġc", "at"), ("Ġ", "s"), ("Ġs", "at"), ("Ġ", "m"), ("Ġm", "at"),
          ("o", "n"), ("Ġ", "on"), ("t", "he"), ("e", "n"), ("Ġ", "en"),
          ("Ġen", "d")]


def bytes_to_unicode():
    """openai/gpt-2 encoder.py's table: byte -> printable character."""
    bs = list(range(ord("!"), ord("~") + 1)) + \
        list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


def toy_vocab():
    enc = bytes_to_unicode()
    vocab = {enc[b]: i for i, b in enumerate(sorted(enc, key=lambda b: (
        b not in range(33, 127) and b not in range(161, 173) and
        b not in range(174, 256), b)))}
    for a, b in MERGES:
        vocab[a + b] = len(vocab)
    return vocab


def encode(text, vocab):
    """encoder.py's encode, with the pattern for ASCII text."""
    import re
    pat = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+"""
                     r"""| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")
    enc = bytes_to_unicode()
    ranks = {m: i for i, m in enumerate(MERGES)}
    ids = []
    for piece in pat.findall(text):
        word = [enc[b] for b in piece.encode()]
        while len(word) > 1:
            pairs = [(word[i], word[i + 1]) for i in range(len(word) - 1)]
            best = min(pairs, key=lambda p: ranks.get(p, float("inf")))
            if best not in ranks:
                break
            new, i = [], 0
            while i < len(word):
                if i < len(word) - 1 and (word[i], word[i + 1]) == best:
                    new.append(word[i] + word[i + 1])
                    i += 2
                else:
                    new.append(word[i])
                    i += 1
            word = new
        ids += [vocab[w] for w in word]
    return ids

DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def write_safetensors(path, tensors):
    """tensors: list of (name, tensor); written in that order."""
    header, blobs, offset = {}, [], 0
    for name, t in tensors:
        t = t.contiguous()
        if t.dtype == torch.bool:
            raw = bytes(t.to(torch.uint8).flatten().tolist())
            dtype = "BOOL"
        else:
            dtype = {torch.float32: "F32", torch.float16: "F16",
                     torch.bfloat16: "BF16"}[t.dtype]
            raw = t.flatten().view(torch.int16 if t.element_size() == 2
                                   else torch.int32).numpy().tobytes()
        header[name] = {"dtype": dtype, "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) *
                                       (x + 0.044715 * torch.pow(x, 3.0))))


def make_case(outdir, name, n_layer, n_head, d, inner, text, unused, n_pos,
              dtype, prefixed, seed, tied, scale_attn_weights):
    torch.manual_seed(seed)
    tokens = toy_vocab()
    vocab = len(tokens) + unused
    ids = torch.tensor(encode(text, tokens))
    t_len = len(ids)
    f = inner or 4 * d
    store = DTYPES[dtype]

    def param(*shape, scale=0.3, base=0.0):
        # drawn in float32, stored in the case's dtype, used as stored
        w = base + scale * torch.randn(*shape)
        return w.to(store).to(torch.float32), w.to(store)

    params, stored = {}, []

    def add(pname, *shape, **kw):
        used, kept = param(*shape, **kw)
        params[pname] = used
        stored.append(((("transformer." if prefixed else "") + pname), kept))

    add("wte.weight", vocab, d)
    add("wpe.weight", n_pos, d, scale=0.1)
    for i in range(n_layer):
        add(f"h.{i}.ln_1.weight", d, scale=0.1, base=1.0)
        add(f"h.{i}.ln_1.bias", d, scale=0.1)
        if prefixed:  # the mask buffers that older checkpoints carry
            stored.append((f"transformer.h.{i}.attn.bias",
                           torch.tril(torch.ones(n_pos, n_pos,
                                                 dtype=torch.bool))
                           .view(1, 1, n_pos, n_pos)))
            stored.append((f"transformer.h.{i}.attn.masked_bias",
                           torch.tensor(-1e4)))
        add(f"h.{i}.attn.c_attn.weight", d, 3 * d)
        add(f"h.{i}.attn.c_attn.bias", 3 * d, scale=0.1)
        add(f"h.{i}.attn.c_proj.weight", d, d)
        add(f"h.{i}.attn.c_proj.bias", d, scale=0.1)
        add(f"h.{i}.ln_2.weight", d, scale=0.1, base=1.0)
        add(f"h.{i}.ln_2.bias", d, scale=0.1)
        add(f"h.{i}.mlp.c_fc.weight", d, f)
        add(f"h.{i}.mlp.c_fc.bias", f, scale=0.1)
        add(f"h.{i}.mlp.c_proj.weight", f, d)
        add(f"h.{i}.mlp.c_proj.bias", d, scale=0.1)
    add("ln_f.weight", d, scale=0.1, base=1.0)
    add("ln_f.bias", d, scale=0.1)
    if not tied:  # GPT2LMHeadModel's own, outside "transformer."
        used, kept = param(vocab, d)
        params["lm_head.weight"] = used
        stored.append(("lm_head.weight", kept))

    folder = os.path.join(outdir, name)
    os.makedirs(folder, exist_ok=True)
    # masked_bias is a float32 scalar: stored as such
    stored = [(n, t.to(torch.float32) if n.endswith("masked_bias") else t)
              for n, t in stored]
    write_safetensors(os.path.join(folder, "model.safetensors"), stored)
    config = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"],
              "activation_function": "gelu_new", "n_layer": n_layer,
              "n_head": n_head, "n_embd": d, "n_positions": n_pos,
              "n_ctx": n_pos, "n_inner": inner, "vocab_size": vocab,
              "layer_norm_epsilon": 1e-05, "torch_dtype": "float32"}
    if not tied:
        config["tie_word_embeddings"] = False
    if not scale_attn_weights:
        config["scale_attn_weights"] = False
    with open(os.path.join(folder, "config.json"), "w") as fh:
        json.dump(config, fh, indent=2)
    with open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8") as fh:
        json.dump(tokens, fh, ensure_ascii=False)
    with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8") as fh:
        fh.write("#version: 0.2\n")
        fh.write("".join(f"{a} {b}\n" for a, b in MERGES))
    with open(os.path.join(folder, "text.txt"), "w") as fh:
        fh.write(text)
    with open(os.path.join(folder, "ids.txt"), "w") as fh:
        fh.write(" ".join(str(int(i)) for i in ids) + "\n")

    tables = []
    hd = d // n_head
    input_ids = ids.view(1, t_len)
    h = F.embedding(input_ids, params["wte.weight"]) + \
        F.embedding(torch.arange(t_len).view(1, t_len), params["wpe.weight"])
    tables.append(("embedded", h[0]))

    def conv1d(x, w, b):
        size_out = x.size()[:-1] + (w.size(1),)
        return torch.addmm(b, x.view(-1, x.size(-1)), w).view(size_out)

    bias = torch.tril(torch.ones(n_pos, n_pos, dtype=torch.bool)) \
        .view(1, 1, n_pos, n_pos)
    for i in range(n_layer):
        p = lambda n: params[f"h.{i}.{n}"]
        residual = h
        a = F.layer_norm(h, (d,), p("ln_1.weight"), p("ln_1.bias"), 1e-5)
        tables.append((f"h.{i}.ln_1", a[0]))
        q, k, v = conv1d(a, p("attn.c_attn.weight"),
                         p("attn.c_attn.bias")).split(d, dim=2)
        split = lambda x: x.view(x.size()[:-1] + (n_head, hd)) \
            .permute(0, 2, 1, 3)
        q, k, v = split(q), split(k), split(v)
        w = torch.matmul(q, k.transpose(-1, -2))
        if scale_attn_weights:  # GPT2Attention._attn
            w = w / torch.full([], v.size(-1) ** 0.5, dtype=w.dtype)
        mask = bias[:, :, 0:t_len, :t_len]
        mask_value = torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype)
        scores = torch.where(mask, w, mask_value)
        weights = F.softmax(scores, dim=-1)
        ctx = torch.matmul(weights, v)
        for hh in range(n_head):
            for tname, tt in (("queries", q), ("keys", k), ("values", v),
                              ("attn_scores", scores),
                              ("attn_weights", weights),
                              ("head_context", ctx)):
                tables.append((f"h.{i}.head.{hh}.{tname}", tt[0, hh]))
        merged = ctx.permute(0, 2, 1, 3).contiguous().view(1, t_len, d)
        tables.append((f"h.{i}.concat", merged[0]))
        attn_out = conv1d(merged, p("attn.c_proj.weight"), p("attn.c_proj.bias"))
        tables.append((f"h.{i}.attn_out", attn_out[0]))
        h = attn_out + residual
        tables.append((f"h.{i}.residual_1", h[0]))
        residual = h
        m = F.layer_norm(h, (d,), p("ln_2.weight"), p("ln_2.bias"), 1e-5)
        tables.append((f"h.{i}.ln_2", m[0]))
        fc = gelu_new(conv1d(m, p("mlp.c_fc.weight"), p("mlp.c_fc.bias")))
        tables.append((f"h.{i}.mlp_hidden", fc[0]))
        mlp = conv1d(fc, p("mlp.c_proj.weight"), p("mlp.c_proj.bias"))
        tables.append((f"h.{i}.mlp_out", mlp[0]))
        h = residual + mlp
        tables.append((f"h.{i}.hidden", h[0]))
    out = F.layer_norm(h, (d,), params["ln_f.weight"], params["ln_f.bias"],
                       1e-5)
    tables.append(("out", out[0]))
    # GPT2LMHeadModel: self.lm_head = nn.Linear(config.n_embd,
    # config.vocab_size, bias=False), its weight wte's when tied;
    # lm_logits = self.lm_head(hidden_states)
    lm_head = torch.nn.Linear(d, vocab, bias=False)
    with torch.no_grad():
        lm_head.weight.copy_(params["wte.weight" if tied else
                                    "lm_head.weight"])
        lm_logits = lm_head(out)
    tables.append(("logits", lm_logits[0]))
    write_safetensors(os.path.join(folder, "reference.safetensors"),
                      [(n, t.contiguous()) for n, t in tables])
    return name


def main():
    torch.set_num_threads(1)
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "gpt2")
    os.makedirs(outdir, exist_ok=True)
    names = [make_case(outdir, *c) for c in CASES]
    with open(os.path.join(outdir, "cases.txt"), "w") as fh:
        fh.write("\n".join(names) + "\n")


if __name__ == "__main__":
    main()
