#!/usr/bin/env python3
"""Make PyTorch's logit lens of GPT-2 and Llama-style checkpoints
(tests/unit/test_interventions.c, --logit-lens).

The logit lens (nostalgebraist, 2020; TransformerLens's
accumulated_resid with apply_ln and the unembedding) reads the residual
stream after each layer through the model's own head: the final norm,
then lm_head. The models are transformers' classes as the other scripts
copy them: GPT2Model (make_hook_reference.py, from modeling_gpt2.py)
with GPT2LMHeadModel's lm_head tied to wte, F.linear(ln_f(h), wte); and
LlamaForCausalLM (make_llama_generate_reference.py, from
modeling_llama.py and modeling_qwen2.py), lm_head(norm(h)). The
residual stream after layer L is the output of that layer's module
(h[L], layers[L]), taken by a forward hook during one forward pass over
the checkpoint's text (ids.txt); each layer's lens logits are then
softmax'ed over the vocabulary, and the five likeliest tokens at each
position kept (the larger probability first, a tie to the smaller id).

It writes logit_lens/CHECKPOINT.safetensors beside this script (or in
OUTDIR): for each layer L, "L.ids" and "L.probs" (T*5 x 1): position t's
j-th likeliest next token at row 5t + j, and its probability.

How to run it (Debian's python3-torch, CPU, float32):

    /usr/bin/python3 tests/reference/make_logit_lens_reference.py [OUTDIR]
"""

import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_gpt2_reference import write_safetensors  # noqa: E402
import make_intervention_reference as mi  # noqa: E402
import make_llama_generate_reference as mg  # noqa: E402

K = 5

# (family, checkpoint): GPT-2's of gpt2/, Llama-style ones of llama/
CASES = [("gpt2", "two_layers"), ("gpt2", "four_heads_bf16"),
         ("llama", "llama_gqa4_bf16"), ("llama", "qwen2_bias_f16")]


def top(probs):
    """The K likeliest ids of probs (V) and their probabilities."""
    order = sorted(range(probs.numel()), key=lambda v: (-float(probs[v]), v))
    ids = order[:K]
    return ids, [probs[v] for v in ids]


def lens_of(family, name):
    """[(L, lens logits (T, V))] for every layer of the checkpoint."""
    if family == "gpt2":
        model, config, ids = mi.load(name)
        blocks = model.h
        head = lambda h: F.linear(model.ln_f(h), model.wte.weight)  # noqa
        run = lambda: model(ids)  # noqa: E731
    else:
        lm, _, ids = mg.load(name)
        blocks = lm.model.layers
        head = lambda h: lm.lm_head(lm.model.norm(h))  # noqa: E731
        run = lambda: lm(input_ids=ids,  # noqa: E731
                         attention_mask=torch.ones_like(ids),
                         use_cache=False)
    resid = {}

    def keeping(layer):
        def hook(module, inputs, output):
            resid[layer] = output[0].clone()
        return hook
    handles = [b.register_forward_hook(keeping(l))
               for l, b in enumerate(blocks)]
    with torch.no_grad():
        run()
        out = [(l, head(resid[l])[0]) for l in range(len(blocks))]
    for h in handles:
        h.remove()
    return out


def main():
    torch.set_num_threads(1)
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        HERE, "logit_lens")
    os.makedirs(outdir, exist_ok=True)
    for family, name in CASES:
        tables = []
        for layer, logits in lens_of(family, name):
            probs = torch.softmax(logits, dim=-1)
            ids, ps = [], []
            for t in range(probs.shape[0]):
                i, p = top(probs[t])
                ids += [float(v) for v in i]
                ps += p
            tables.append(("%d.ids" % layer, torch.tensor(ids).view(-1, 1)))
            tables.append(("%d.probs" % layer, torch.stack(ps).view(-1, 1)))
        write_safetensors(os.path.join(outdir, name + ".safetensors"),
                          tables)
        print(name, len(tables) // 2, "layers")


if __name__ == "__main__":
    main()
