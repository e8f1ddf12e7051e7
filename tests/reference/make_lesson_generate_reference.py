#!/usr/bin/env python3
"""PyTorch's words of a trained lesson model's generation (--train ...
--generate N), for tests/cli/lesson_generate_test.py.

Each case trains each variant's notebook as make_train_reference.py does
(train_notebook: the notebook's own class, SGD or Adam over the corpus's
sentences), then calls the trained model in a loop on the whole
sequence, the lesson modules keeping no cache:

    torch.manual_seed(seed)                  # --seed again, right before
                                             # the first step
    ids = prompt
    while len(new) < N:
        logits = lm_head(module(emb(ids) + pos(arange(len(ids)))))[-1:]
        token = argmax(logits)                                  # greedy
              | multinomial(softmax(warpers(logits)), 1)        # --sample
        ids.append(token)
        stop once the sequence fed had C positions: the longest
        sentence trained on, pos's rows and the classes' masks' size

The warpers (temperature, top-k, top-p, in _get_logits_warper's order)
are make_generate_reference.py's, copied from transformers'
generation/logits_process.py.

A case with kv_steps (--kv-steps) also records each step's tables: at
step s (the sequence fed has T + s positions, s >= 1), the tensors the
class computes in that step's whole forward pass, read by forward hooks
on the class's own submodules (W_query, W_key, W_value: q, k, v; the
dropout's input: the weights; the module's output, or out_proj's input
in the fused class: the context) and by a TorchFunctionMode that keeps
what `attn_scores.masked_fill_(...)` leaves (the scores) in the
attention module running. A head's tables are its columns (the fused
class's view into heads); a step's tables are the last position's row
of q, scores, weights and context, and every position's k and v.

It writes, into OUTDIR (default: the `lesson_generate` folder beside
this script), for each case:

  NAME.args        the mha-explain arguments, one a line ({DIR}: OUTDIR)
  NAME.corpus.csv  the corpus, column text
  NAME.steps.json  (kv_steps) {variant: [[step, layer, head, table, rows,
                   cols, hex bits row by row], ...]}
  NAME.json        {"context_full": C or 0, "variants": {variant: rows}},
                   a row per new word: its id, its probability where it
                   was picked and in the model's softmax, the tokens
                   left after top-k and after top-p, then the five
                   likeliest there with their probabilities (id -1 and
                   probability 0 where the vocabulary has fewer); each
                   probability the 8 hex digits of its float32 bits

    /usr/bin/python3 tests/reference/make_lesson_generate_reference.py [OUTDIR]
"""

import json
import os
import struct
import sys

import torch
import torch.nn as nn
from torch.overrides import TorchFunctionMode

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_train_reference as train  # noqa: E402
from make_generate_reference import (TopKLogitsWarper,  # noqa: E402
                                     TopPLogitsWarper, get_logits_warper,
                                     top5)

CORPUS = ["the cat sat on the mat and the dog sat on the rug",
          "a dog ran to the park and the cat ran home",
          "the cat saw a dog in the park"]

CASES = []


def case(name, **kw):
    c = dict(name=name, sentence="the cat", d_model=8, d_out=8, heads=2,
             seed=123, variants=["fused"], steps=80, lr=0.02,
             optimizer="adam", positions=True, corpus=CORPUS, grad=False,
             threads=1, order="kqv", order_given=False, generate=6,
             sample=False, temperature=1.0, top_k=0, top_p=1.0,
             kv_steps=False)
    c.update(kw)
    CASES.append(c)


# greedy, every variant; the positions (13) filled before N words
case("greedy", variants=["single", "wrapper", "fused", "block"],
     generate=20, sentence="the dog")
# sampled with the three warpers; and with Hugging Face's default top-k
case("sample_warped", variants=["fused", "block"], sample=True,
     temperature=0.8, top_k=5, top_p=0.9, seed=7, generate=8)
case("sample_default", variants=["wrapper"], sample=True, top_k=50,
     seed=42, generate=8, order="qkv", qkv_bias=True)
# without positions: the classes' masks are built for the longest
# sentence (context_length), which bounds the sequence as the positions do
case("greedy_no_positions", variants=["single"], positions=False,
     generate=16, steps=40, optimizer="sgd", lr=0.2)
# --kv-steps: each step's tables, every variant (the book's classes), and
# a stack of two blocks
case("steps", variants=["single", "wrapper", "fused", "block"], generate=4,
     kv_steps=True)
case("steps_stack", variants=["block"], layers=2, generate=3,
     sentence="a dog", kv_steps=True, steps=60)


class ScoresKept(TorchFunctionMode):
    """Keeps what each Tensor.masked_fill_ leaves (the classes'
    attn_scores, masked) in the list kept() gives."""

    def __init__(self, kept):
        super().__init__()
        self.kept = kept

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func is torch.Tensor.masked_fill_:
            self.kept().append(out.detach().clone())
        return out


def attention_modules(nb, c, variant):
    """[(layer, head or None, module)]: the attention classes the
    notebook's module runs, block by block; the wrapper's heads each."""
    m = nb.module
    if variant == "wrapper":
        return [(0, h, a) for h, a in enumerate(m.heads)]
    if variant != "block":
        return [(0, None, m)]
    if c.get("layers"):
        return [(i, None, block.attention) for i, block in enumerate(m)]
    return [(0, None, m.attention)]


def record_step(nb, c, variant, forward, step, out):
    """forward(), step `step`'s pass of the loop, run with the hooks; its
    tables appended to out: [step, layer, head, table, 2-D tensor].
    Returns what forward returns."""
    seen = {}  # ((layer, head), part) -> tensor
    handles = []
    running = []

    def keep(key, part, of_input):
        def hook(module, inputs, output):
            t = inputs[0] if of_input else output
            seen[(key, part)] = t.detach().clone()
        return hook

    def entering(key):
        def hook(module, inputs):
            running.append(key)
        return hook

    for layer, h, a in attention_modules(nb, c, variant):
        key = (layer, h)
        handles.append(a.register_forward_pre_hook(entering(key)))
        for part, sub in (("q", a.W_query), ("k", a.W_key), ("v", a.W_value)):
            handles.append(sub.register_forward_hook(keep(key, part, False)))
        handles.append(a.dropout.register_forward_hook(
            keep(key, "weights", True)))
        if hasattr(a, "out_proj"):
            handles.append(a.out_proj.register_forward_hook(
                keep(key, "context", True)))
        else:
            handles.append(a.register_forward_hook(
                keep(key, "context", False)))
    with ScoresKept(lambda: seen.setdefault((running[-1], "scores"), [])):
        result = forward()
    for handle in handles:
        handle.remove()
    for layer, h, a in attention_modules(nb, c, variant):
        key = (layer, h)
        scores = seen[(key, "scores")][0][0]   # (P, P), or (H, P, P)
        weights = seen[(key, "weights")][0]
        q, k, v, context = (seen[(key, p)][0]
                            for p in ("q", "k", "v", "context"))
        fused = scores.dim() == 3
        for head in range(scores.shape[0]) if fused else [h or 0]:
            if fused:
                cut = slice(head * a.head_dim, (head + 1) * a.head_dim)
                parts = (q[:, cut], k[:, cut], v[:, cut], scores[head],
                         weights[head], context[:, cut])
            else:
                parts = (q, k, v, scores, weights, context)
            for name, t, last in zip(
                    ("queries", "keys", "values", "attn_scores",
                     "attn_weights", "head_context"), parts,
                    (True, False, False, True, True, True)):
                out.append([step, layer, head, name, t[-1:] if last else t])
    return result


def generate(nb, prompt, c, steps=None, variant=None):
    """The loop above; per new word (token, probs picked from, the model's
    probs, [kept after top-k, after top-p]), and whether the positions
    filled."""
    warpers = get_logits_warper(c["temperature"], c["top_k"], c["top_p"]) \
        if c["sample"] else []
    ids = list(prompt)
    C = nb.context  # pos's rows, and the masks' context_length
    picked = []
    torch.manual_seed(c["seed"])
    with torch.no_grad():
        while True:
            fed = torch.tensor(ids)
            if steps is not None and len(ids) > len(prompt):
                # a step after the prompt's: its tables kept
                logits = record_step(nb, c, variant, lambda: nb.logits(fed),
                                     len(ids) - len(prompt), steps)[-1:]
            else:
                logits = nb.logits(fed)[-1:]
            vocab = logits.shape[-1]
            kept = [vocab, vocab]
            if c["sample"]:
                scores = logits
                for warper in warpers:
                    scores = warper(None, scores)
                    finite = int(torch.isfinite(scores).sum())
                    if isinstance(warper, TopKLogitsWarper):
                        kept = [finite, finite]
                    elif isinstance(warper, TopPLogitsWarper):
                        kept[1] = finite
                probs = nn.functional.softmax(scores, dim=-1)
                token = int(torch.multinomial(probs, num_samples=1)[0, 0])
            else:
                token = int(torch.argmax(logits, dim=-1)[0])
                probs = nn.functional.softmax(logits, dim=-1)
            model_probs = nn.functional.softmax(logits, dim=-1)
            picked.append((token, probs[0].clone(), model_probs[0].clone(),
                           kept))
            if len(picked) == c["generate"]:
                return picked, False
            if len(ids) == C:
                return picked, True
            ids.append(token)


def bits(x):
    return struct.pack(">f", float(x)).hex()


def rows_of(picked):
    rows = []
    for token, probs, model_probs, kept in picked:
        top, _ = top5(probs)
        row = [token, bits(probs[token]), bits(model_probs[token]), kept[0],
               kept[1]]
        for k in range(5):
            row += [top[k], bits(probs[top[k]])] if k < len(top) else \
                [-1, bits(0.0)]
        rows.append(row)
    return rows


def args_of(c):
    a = train.args_of(c)
    shown = a.pop()
    a += ["--generate", str(c["generate"])]
    if c["kv_steps"]:
        a.append("--kv-steps")
    if c["sample"]:
        a.append("--sample")
        if c["temperature"] != 1.0:
            a += ["--temperature", repr(c["temperature"])]
        a += ["--top-k", str(c["top_k"])]
        if c["top_p"] != 1.0:
            a += ["--top-p", repr(c["top_p"])]
    return a + [shown]


def run_case(outdir, c):
    corpus = [train.words_of(s) for s in c["corpus"]]
    shown_words = train.words_of(c["sentence"])
    vocab = {}
    for w in [w for s in corpus for w in s] + shown_words:
        vocab.setdefault(w, len(vocab))
    sentences = [torch.tensor([vocab[w] for w in s]) for s in corpus]
    shown = torch.tensor([vocab[w] for w in shown_words])
    out = {"context_full": 0, "variants": {}}
    steps = {}
    for variant in c["variants"]:
        nb = train.train_notebook(c, variant, vocab, sentences, shown)
        kept = [] if c["kv_steps"] else None
        picked, full = generate(nb, shown.tolist(), c, kept, variant)
        if kept is not None:
            steps[variant] = [[s, layer, head, name, t.shape[0], t.shape[1],
                               "".join(bits(x) for x in t.reshape(-1))]
                              for s, layer, head, name, t in kept]
        if full:
            out["context_full"] = nb.context
        out["variants"][variant] = rows_of(picked)
        words = list(vocab)
        print(c["name"], variant, " ".join(words[t] for t, _, _, _ in picked))
    name = c["name"]
    if c["kv_steps"]:
        with open(os.path.join(outdir, name + ".steps.json"), "w",
                  encoding="utf-8", newline="\n") as f:
            json.dump(steps, f, indent=0)
            f.write("\n")
    with open(os.path.join(outdir, name + ".json"), "w", encoding="utf-8",
              newline="\n") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    with open(os.path.join(outdir, name + ".args"), "w", encoding="utf-8",
              newline="\n") as f:
        for a in args_of(c):
            f.write(a + "\n")
    with open(os.path.join(outdir, name + ".corpus.csv"), "w",
              encoding="utf-8", newline="\n") as f:
        f.write("text\n")
        for s in c["corpus"]:
            f.write(s + "\n")


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        HERE, "lesson_generate")
    os.makedirs(outdir, exist_ok=True)
    torch.set_num_threads(1)
    for c in CASES:
        run_case(outdir, c)
    return 0


if __name__ == "__main__":
    sys.exit(main())
