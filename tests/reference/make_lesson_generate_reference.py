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

It writes, into OUTDIR (default: the `lesson_generate` folder beside
this script), for each case:

  NAME.args        the mha-explain arguments, one a line ({DIR}: OUTDIR)
  NAME.corpus.csv  the corpus, column text
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
             sample=False, temperature=1.0, top_k=0, top_p=1.0)
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


def generate(nb, prompt, c):
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
            logits = nb.logits(torch.tensor(ids))[-1:]
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
    for variant in c["variants"]:
        nb = train.train_notebook(c, variant, vocab, sentences, shown)
        picked, full = generate(nb, shown.tolist(), c)
        if full:
            out["context_full"] = nb.context
        out["variants"][variant] = rows_of(picked)
        words = list(vocab)
        print(c["name"], variant, " ".join(words[t] for t, _, _, _ in picked))
    name = c["name"]
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
