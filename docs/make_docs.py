#!/usr/bin/env python3
"""Writes docs/guide.md and docs/notebooks.md with real output.

Every example in those pages is a command this script runs; its output is
pasted as the program printed it (long outputs are cut, and the cut is
marked with a line "..."). Run it again after changing the program:

    python3 docs/make_docs.py build/src/mha-explain
"""
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(program, args, lines=None, stdin=None):
    r = subprocess.run([program] + args, capture_output=True, cwd=ROOT,
                       input=stdin, env=dict(os.environ, NO_COLOR="1"))
    out = (r.stdout + r.stderr).decode("utf-8")
    text = out.rstrip("\n").split("\n")
    if lines is not None and len(text) > lines:
        text = text[:lines] + ["..."]
    shown = "mha-explain " + " ".join(shlex.quote(a) for a in args)
    if stdin is not None:
        shown = "echo %s | %s" % (shlex.quote(stdin.decode().strip()), shown)
    status = "" if r.returncode == 0 else "\n(exit status %d)" % r.returncode
    return "    $ %s\n%s%s\n" % (shown, "\n".join("    " + l if l else "" for l in text),
                                 ("\n    " + status.strip()) if status else "")


S = "O gato sobe no tapete"

GUIDE = [
    ("# A guide to every table and option", None, None),
    ("""mha-explain prints multi-head attention as named tables. This guide
takes them one by one, then every option, each with the output the
program prints (cut where long). The numbers are PyTorch's: see
[exactness.md](exactness.md).""", None, None),
    ("## The input tables", None, None),
    ("""`vocab` (V x 1) holds the id of each distinct word, in the order the
words first appear; `tokens` (T x 1) the id at each position, so a
repeated word repeats its id:""", ["the cat sat on the mat", "--tables", "vocab,tokens"], None),
    ("""`embedding.weight` (V x d_model) is `nn.Embedding(V, d_model)`, drawn
after `torch.manual_seed(seed)`; `inputs` (T x d_model) is its row for each
token, `emb(token_ids)`. Columns are `dim0`, `dim1`, ...:""",
     [S, "--tables", "embedding.weight,inputs"], None),
    ("## Parameters", None, None),
    ("""Parameters keep their `state_dict()` names and PyTorch's layout: a
weight is out x in (rows `out0`..., columns `in0`...), a bias one row.
`single` and `fused` have `W_query`, `W_key`, `W_value` (`.weight`, and
`.bias` with `--qkv-bias`); `fused` adds `out_proj.weight` and
`out_proj.bias`; the wrapper's heads are `heads.{h}.W_query.weight` and
so on:""", [S, "--qkv-bias", "--variant", "wrapper", "--tables",
                "heads.1.W_key.weight,heads.1.W_key.bias"], None),
    ("## Per head", None, None),
    ("""`queries`, `keys` and `values` (T x head_dim) are the projections
`x @ W^T`, rows labelled `Q:word`, `K:word`, `V:word`. `attn_scores`
(T x T) is `queries @ keys^T` before scaling, with `-inf` in the cells the
causal mask hides; `attn_weights` is `softmax(scores / sqrt(head_dim))`,
rows summing to 1 and masked cells exactly 0; `head_context` (T x
head_dim) is `attn_weights @ values`:""",
     [S, "--variant", "fused", "--tables", "attn_scores,attn_weights"], 16),
    ("## After the heads", None, None),
    ("""`concat_context` (T x d_out) is the heads' contexts side by side
(the wrapper's output); `out` is `concat_context @ out_proj.weight^T +
out_proj.bias` (the fused module's output). `attn_weights_avg` (with
`--average`) is the mean of the heads' weights:""",
     [S, "--variant", "fused", "--average", "--tables", "concat_context,out,attn_weights_avg"], None),
    ("## The Transformer block (`--variant block`)", None, None),
    ("""The block's parameters are `attention.W_query.weight` ...
`attention.out_proj.bias`, `norm1.weight` and `norm1.bias` (LayerNorm,
ones and zeros), `ff.0.weight`/`.bias` (d_model -> `--ff`),
`ff.2.weight`/`.bias` (back), `norm2.*`. Its tables are the attention's,
then `attn_out`, `add_norm1 = LayerNorm(x + attn_out)`, `ffn_hidden =
ReLU(ff.0(add_norm1))`, `ffn_out = ff.2(ffn_hidden)` and `out =
LayerNorm(add_norm1 + ffn_out)`. It needs `--d-out` equal to `--d-model`:""",
     [S, "--variant", "block", "--d-model", "4", "--d-out", "4", "--ff", "6",
      "--tables", "add_norm1,ffn_hidden,out"], None),
    ("## Cross-attention (`--kv`)", None, None),
    ("""With `--kv SENTENCE` the keys and values come from the other
sentence: one vocabulary (the sentence's words, then the other's new
words), tables `kv_tokens` and `kv_inputs`, no causal mask, and scores of
T_query x T_kv:""", [S, "--kv", "the cat climbs onto the mat", "--variant",
                       "fused", "--tables", "kv_tokens,attn_weights"], 20),
    ("## Every option", None, None),
    ("""The sentence is every word on the command line joined with spaces,
or `-` for standard input:""", ["-", "--variant", "single", "--tables", "tokens"],
     None, b"O gato sobe\n"),
    ("""`--d-model N`, `--d-out N`, `--heads N` set the sizes (defaults 3, 4,
2; heads must divide d_out) and `--seed N` the seed (default 42):""",
     [S, "--d-model", "2", "--d-out", "6", "--heads", "3", "--seed", "7",
      "--variant", "fused", "--tables", "queries"], 9),
    ("""`--no-causal` drops the mask; `--no-scale` skips the division by
sqrt(head_dim):""", [S, "--no-causal", "--no-scale", "--variant", "single",
                     "--tables", "attn_weights"], None),
    ("""`--variant LIST` chooses among `single`, `wrapper`, `fused`,
`block`; `--tables LIST` chooses the tables; `--precision N` the decimals:""",
     [S, "--variant", "wrapper", "--tables", "concat_context", "--precision", "2"], None),
    ("""Tables of more than 1000 values are summarised as PyTorch prints
big tensors; `--full` prints them whole:""",
     ["--d-model", "64", "--d-out", "64", "--variant", "single", "--tables",
      "queries", " ".join("w%d" % i for i in range(20))], 12),
    ("""`--format csv` writes tidy CSV, one row per value, each value
reading back as the same float32:""",
     [S, "--format", "csv", "--variant", "single", "--tables", "attn_scores"], 5),
    ("""`--csv-dir DIR` also writes one matrix CSV per table
(`DIR/fused.head0.attn_weights.csv`, `DIR/input.inputs.csv`, ...);
`--embeddings FILE` reads such rows back, `--weights DIR` reads
parameters, `--input FILE --column NAME` runs once per row:""",
     ["--input", "data/sentences-en.csv", "--column", "sentence", "--variant",
      "fused", "--tables", "out", "--precision", "2"], 12),
    ("""`--csv-delimiter C`, `--decimal-comma` and `--bom` are for
spreadsheets in decimal-comma locales:""",
     [S, "--format", "csv", "--decimal-comma", "--tables", "inputs"], 3),
    ("""`--explain` prints a few sentences and the shapes before each step:""",
     [S, "--explain", "--variant", "wrapper", "--tables", "attn_weights"], 16),
    ("""`--focus WORD` (or `WORD@POSITION`) follows one token through every
head:""", [S, "--focus", "sobe", "--variant", "wrapper"], 20),
    ("""`--tie` stacks the wrapper's heads into the fused projections, and
`--check` verifies the invariants (exit status 3 if one fails):""",
     [S, "--tie", "--check", "--tables", "out"], None),
    ("""`--color auto|always|never` shades weights and scores on a terminal
(`auto`, the default, unless `NO_COLOR` is set). `--help` lists every
option, `--version` prints the version:""", ["--version"], None),
    ("## Errors", None, None),
    ("""Bad input gets one line and exit status 2; a command-line mistake
adds a hint:""", [S, "--heads", "3"], None),
    ("", ["--embeddings", "data/positions.csv", "--d-model", "3"], None),
]

NOTEBOOKS = [
    ("# Reproducing the classic notebooks", None, None),
    ("""One command per notebook. The numbers agree with what PyTorch prints
for the same seed, to every digit.""", None, None),
    ("## \"O gato sobe no tapete\" (Portuguese notebooks, seed 42)", None, None),
    ("""The notebooks build `nn.Embedding(5, 3)` after `torch.manual_seed(42)`
and then a self-attention head, a wrapper of causal heads, or
`MultiHeadAttention(3, 4, 5, 0.0, num_heads=2)`. The defaults are that
notebook. Compare `embedding.weight` (first row 0.3367, 0.1288, 0.2345)
and the output:""", [S, "--tables", "embedding.weight"], None),
    ("", [S, "--variant", "single", "--tables", "head_context"], None),
    ("", [S, "--variant", "wrapper", "--tables", "concat_context"], None),
    ("", [S, "--variant", "fused", "--tables", "out"], None),
    ("## LLM from scratch, chapter 3: \"Your journey starts with one step\" (seed 123)", None, None),
    ("""The chapter starts from six hand-written 3-dimensional vectors,
`data/journey.csv`. The wrapper with two heads of width 2 prints the
book's `context_vecs`:""",
     ["--embeddings", "data/journey.csv", "--seed", "123", "--variant", "wrapper",
      "--d-out", "4", "--heads", "2", "--tables", "concat_context"], None),
    ("""and `MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)`:""",
     ["--embeddings", "data/journey.csv", "--seed", "123", "--variant", "fused",
      "--d-out", "2", "--heads", "2", "--tables", "out"], None),
    ("## The Chinese 512-wide, 8-head module", None, None),
    ("""With biases in the projections it counts 1,050,624 parameters:""",
     ["我 喜欢 吃 慢煮 牛舌", "--d-model", "512", "--d-out", "512", "--heads", "8",
      "--qkv-bias", "--variant", "fused", "--explain", "--tables", "out"], 14),
    ("## The Cantonese Transformer block", None, None),
    ("""The lesson reads sentences from the `head` column of a
`user,title,head` file (`data/cantonese.csv`) and runs a Transformer
block:""", ["--input", "data/cantonese.csv", "--column", "head", "--variant",
            "block", "--d-model", "16", "--d-out", "16", "--heads", "4",
            "--tables", "out", "--precision", "2"], 9),
    ("""Which head looks at 慢煮 from 牛舌? A repeated word is chosen by its
position:""", ["呢間 餐廳 嘅 牛舌 好 出名 ， 慢煮 牛舌 好 好食", "--focus", "牛舌",
               "--variant", "block", "--d-model", "16", "--d-out", "16", "--heads", "4"], None),
    ("", ["呢間 餐廳 嘅 牛舌 好 出名 ， 慢煮 牛舌 好 好食", "--focus", "牛舌@8",
          "--variant", "block", "--d-model", "16", "--d-out", "16", "--heads", "4"], 12),
]


def render(program, sections):
    parts = []
    for entry in sections:
        text, args, lines = entry[0], entry[1], entry[2]
        stdin = entry[3] if len(entry) > 3 else None
        if text:
            parts.append(text + "\n")
        if args is not None:
            parts.append(run(program, args, lines, stdin))
    return "\n".join(parts)


def main():
    program = os.path.abspath(sys.argv[1])
    for name, sections in (("guide.md", GUIDE), ("notebooks.md", NOTEBOOKS)):
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
            f.write(render(program, sections))
        print("wrote docs/" + name)


if __name__ == "__main__":
    main()
