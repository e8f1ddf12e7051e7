#!/usr/bin/env python3
"""Reference tables for --ablate L.H on the lesson's modules without an
lm_head: the notebooks' modules as drawn (single, wrapper, fused, the
block and a stack of blocks), one head's output z switched off.

The modules are make_reference_notebooks.py's, imported as they are
(CausalAttention for the single head and each head of the wrapper,
Wrapper, Fused, Block, nn.Sequential of Blocks for --layers N), built and
run as that script runs them (each variant from torch.manual_seed, the
input drawn first). PyTorch forward hooks do the ablation, as a user of
PyTorch switches a head off:

  single    a forward hook on the module: its output is the head's z
  wrapper   a forward hook on heads[h]: its output is head h's z
  fused     a forward pre-hook on out_proj replacing head h's columns
            of its input (the heads' contexts side by side)
  block     the same on the block's attention.out_proj; in a stack on
            block L's

replacing z (B, T, hd) with zeros (--ablate-mode zero) or with
z.mean(dim=1, keepdim=True), each column's mean over the positions
(mean). Every table is then what the hooked forward pass computed: the
modules keep their tables as they run (self.heads, self.extra); the
ablated head's head_context and the concat_context are the values the
hooks handed on, and what follows (out, the block's attn_out to out,
the later blocks) the forward pass's own.

Writes NAME.csv and NAME.args into OUTDIR (default: the `cases` folder
beside this script), compared bit for bit by check_reference.c, and
rewrites cases.txt.

    /usr/bin/python3 tests/reference/make_lesson_ablation_reference.py [OUTDIR]
"""

import os
import sys

import torch
import torch.nn as nn

from make_reference import TidyWriter, make_vocab, write_case_list
from make_reference_notebooks import (ORDER, build, config_args,
                                      write_inputs, write_module)


def switched_off(z, mode):
    """z (B, T, hd) as the ablation leaves it."""
    if mode == "zero":
        return torch.zeros_like(z)
    return z.mean(dim=1, keepdim=True).expand_as(z)


def output_hook(mode, seen, key):
    """A forward hook replacing a head's output z."""
    def hook(module, inputs, output):
        out = output.clone()
        out[...] = switched_off(output, mode)
        seen[key] = out[0].clone()
        return out
    return hook


def out_proj_hook(heads, hd, mode, seen, layer):
    """A forward pre-hook on out_proj replacing the columns of `heads`."""
    def hook(module, inputs):
        x = inputs[0].clone()
        for h in heads:
            cols = slice(h * hd, (h + 1) * hd)
            x[..., cols] = switched_off(x[..., cols], mode)
        seen[("concat", layer)] = x[0].clone()
        return (x,)
    return hook


def register(variant, module, off, mode, seen):
    """The hooks of the heads `off` ((layer, head) pairs) this variant
    has; returns their handles."""
    handles = []
    if variant == "single":
        if (0, 0) in off:
            handles.append(module.register_forward_hook(
                output_hook(mode, seen, (0, 0))))
    elif variant == "wrapper":
        for layer, h in off:
            if layer == 0 and h < len(module.heads):
                handles.append(module.heads[h].register_forward_hook(
                    output_hook(mode, seen, (0, h))))
    else:
        blocks = (list(module) if isinstance(module, nn.Sequential)
                  else [module])
        for layer, m in enumerate(blocks):
            fused = m if variant == "fused" else m.attention
            heads = [h for (l, h) in off if l == layer and h < fused.num_heads]
            if heads:
                handles.append(fused.out_proj.register_forward_pre_hook(
                    out_proj_hook(heads, fused.head_dim, mode, seen, layer)))
    return handles


def show_ablated(variant, module, off, seen):
    """The tables the modules kept, with what the hooks handed on: the
    ablated heads' head_context and the concat_context after the hook."""
    if variant == "single":
        if (0, 0) in seen:
            module.heads[0]["head_context"] = seen[(0, 0)]
        return
    if variant == "wrapper":
        for (layer, h), z in seen.items():
            module.heads[h].heads[0]["head_context"] = z
        return
    blocks = list(module) if isinstance(module, nn.Sequential) else [module]
    for layer, m in enumerate(blocks):
        concat = seen.get(("concat", layer))
        if concat is None:
            continue
        fused = m if variant == "fused" else m.attention
        hd = fused.head_dim
        for (l, h) in off:
            if l == layer and h < fused.num_heads:
                m.heads[h]["head_context"] = concat[:, h * hd:(h + 1) * hd]
        m.extra["concat_context"] = concat


def hooked(variant, c, off):
    """What the hooks of this variant must have seen: the keys of seen."""
    layers = c.get("layers") or 1 if variant == "block" else 1
    heads = 1 if variant == "single" else c["heads"]
    have = [(l, h) for l, h in off if l < layers and h < heads]
    if variant in ("single", "wrapper"):
        return set(have)
    return {("concat", l) for l, _ in have}


def run_case(c):
    tokens, vocab = make_vocab(c["sentence"])
    ids = torch.tensor([vocab[t] for t in tokens])
    T, D, B = len(tokens), c["d_model"], c["batch"]
    off = c["ablate"]
    first = None
    modules = {}
    with torch.no_grad():
        for v in c["variants"]:
            # each variant its own notebook: the seed, the input, the module
            torch.manual_seed(c["seed"])
            if c["randn"]:
                x, emb = torch.randn(B, T, D), None
            else:
                emb = nn.Embedding(len(vocab), D)
                x = torch.stack([emb(ids)] * B)
            module = build(v, c)
            seen = {}
            handles = register(v, module, off, c["mode"], seen)
            module(x)
            for handle in handles:
                handle.remove()
            assert hooked(v, c, off) == set(seen), (c["name"], v, seen)
            show_ablated(v, module, off, seen)
            modules[v] = module
            if first is None:
                first = (x, emb)
    x, emb = first

    def write(w):
        write_inputs(w, tokens, vocab, x[0], emb)
        for v in ORDER:
            if v in modules:
                write_module(w, v, modules[v], tokens)
    return write


def case_args(c):
    args = config_args(c)
    heads = ",".join("%d.%d" % lh for lh in c["ablate"])
    return args[:-1] + ["--ablate", heads, "--ablate-mode", c["mode"],
                        args[-1]]


def case(name, sentence, seed, d_model, heads, variants, ablate, mode,
         **more):
    c = dict(name=name, sentence=sentence, seed=seed, d_model=d_model,
             d_out=more.pop("d_out", d_model), heads=heads,
             ff=more.pop("ff", 2 * d_model), qkv_bias=False, causal=True,
             randn=False, batch=1, variants=variants, draw=None, dropout=0.0,
             attn_dropout=0.0, ablate=ablate, mode=mode)
    c.update(more)
    return c


CASES = [
    # the single head (head 0 its only head) and the wrapper's head 0
    case("ablate_single_wrapper_zero", "O gato sobe no tapete", 42, 4, 2,
         ["single", "wrapper"], [(0, 0)], "zero"),
    # every variant, head 1: the single head has none and runs as it is
    case("ablate_every_variant_mean", "O gato sobe no tapete", 42, 4, 2,
         ORDER, [(0, 1)], "mean"),
    # two heads at once, of three
    case("ablate_two_heads_zero", "the cat sat on the mat", 7, 6, 3,
         ["wrapper", "fused", "block"], [(0, 0), (0, 2)], "zero",
         qkv_bias=True),
    case("ablate_two_heads_mean", "我 喜欢 吃 牛舌 和 慢煮 牛舌", 123, 6, 3,
         ["single", "fused", "block"], [(0, 2), (0, 1)], "mean",
         causal=False),
    # a stack of three blocks: block 1's head 1, blocks 0 and 2 after it
    case("ablate_stack_mean", "O gato sobe no tapete", 42, 4, 2,
         ["fused", "block"], [(1, 1)], "mean", layers=3),
    case("ablate_stack_zero", "el gato come y el perro duerme", 5, 4, 2,
         ["block"], [(0, 0), (2, 1)], "zero", layers=3),
    # a batch of two random inputs in training mode: dropout on the
    # weights (single, wrapper, fused) and on the block's outputs
    case("ablate_batch_dropout_mean", "the cat sat on the mat", 7, 6, 3,
         ORDER, [(0, 0), (0, 1)], "mean", randn=True, batch=2,
         dropout=0.25, attn_dropout=0.1),
]


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = argv[1] if len(argv) > 1 else os.path.join(here, "cases")
    os.makedirs(outdir, exist_ok=True)
    torch.set_num_threads(1)
    for c in CASES:
        with open(os.path.join(outdir, c["name"] + ".csv"), "w",
                  encoding="utf-8", newline="") as f:
            w = TidyWriter(f)
            run_case(c)(w)
        with open(os.path.join(outdir, c["name"] + ".args"), "w",
                  encoding="utf-8", newline="\n") as f:
            f.write("\n".join(case_args(c)) + "\n")
        print("%-30s %6d rows" % (c["name"] + ".csv", w.rows))
    print("%-30s %6d cases" % ("cases.txt", write_case_list(outdir)))


if __name__ == "__main__":
    main(sys.argv)
