#!/usr/bin/env python3
"""Make PyTorch's tables for the interventions on a trained lesson model
(tests/unit/test_lesson_interventions.c).

Each case trains the lesson's block notebook as make_train_reference.py
does (train_notebook: torch.manual_seed, nn.Embedding, the positions,
the book's MultiHeadAttention in make_reference_teaching.py's
TransformerBlock, or AttnOnlyBlock, nn.Sequential of them for --layers
N, lm_head; Adam or SGD over the corpus's sentences in turn), then runs
the trained notebook with forward hooks, as a user of PyTorch does:

  ablation   a forward pre-hook on a block's attention.out_proj replaces
             the head's columns of its input (the heads' outputs z side
             by side, TransformerLens's hook_z): zero sets them to 0;
             mean sets them to the head's mean over every position of
             every sentence of the corpus: the clean model run over each
             sentence, out_proj's inputs (1, T_i, d) kept by a pre-hook,
             torch.cat(..., dim=1) into (1, N, d), then
             x[..., cols].mean(dim=1, keepdim=True)
  patching   make_intervention_reference.py's loop (TransformerLens's
             get_act_patch_attn_head_out_all_pos and
             get_act_patch_resid_pre, the demo's get_logit_diff and
             ioi_metric): the clean run's out_proj input (head columns)
             or a block's input (one position) put into the corrupted
             run by a pre-hook
  scores     TransformerLens's head detector (make_intervention_
             reference.py's verbatim copies) on each head's attention
             weights, taken by a forward hook on the attention's dropout
             (nn.Dropout(0.0), which leaves them as they are), on the
             case's text and on --repeat-random N's: torch.randint(0, V,
             (N,)) after torch.manual_seed(seed), then the same N again,
             as make_intervention_reference.py draws it (--repeat-random
             has no sentence: the tool trains on the corpus alone, which
             is this notebook: the case's sentence adds no word and no
             position, checked below)

For each case NAME it writes, into lesson_interventions/ (or OUTDIR),
NAME.corpus.txt (the corpus, a sentence a line) and NAME.safetensors:

  logits        the clean model's logits on the sentence (T x V)
  A.effect      (T*k x 3), A.loss (T x 3): as make_intervention_
                reference.py's, for the ablation case A
  A.map         (L x H) for an all-heads case: the mean loss (or the
                case's --metric: the demo's get_logit_diff at the last
                token, or torch.softmax's probability of the answer
                there) with that head alone ablated, minus the clean one
  patch.heads   (L x H), patch.resid (L x T)
  scores        ((L*H) x 3): previous token, duplicate token, induction
  random.scores the same on --repeat-random N's text (the case's random)
  lens.L.ids    (T*k x 1), lens.L.probs (T*k x 1) for each block L: the
                logit lens on the sentence, as make_logit_lens_reference.py
                reads a checkpoint: block L's output, kept by a forward
                hook on it during one pass, through the model's own last
                step, lm_head (the notebook has no final norm: its
                logits are lm_head(blocks(x))), softmax'ed over the
                vocabulary, the five likeliest at row 5t + j (the larger
                first, a tie to the smaller id); the last block's lens
                logits are the notebook's logits bit for bit (checked)

and, for a case with folder=True, NAME.model/: the trained notebook's
parameters as a trained run's --csv-dir folder holds them (the tool's
file format: model.json, then block.<state_dict name>.csv for
embedding.weight, pos_embedding.weight, each block's parameters and
lm_head.weight, each value written with repr(), which reads back as the
same float32), so that --weights NAME.model --head-scores
--repeat-random N, with no --corpus, scores PyTorch's trained model and
must give random.scores.

    /usr/bin/python3 tests/reference/make_lesson_intervention_reference.py [OUTDIR]
"""

import json
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_train_reference as train  # noqa: E402
from make_gpt2_reference import write_safetensors  # noqa: E402
from make_intervention_reference import (  # noqa: E402
    compute_head_attention_similarity_score,
    get_duplicate_token_head_detection_pattern,
    get_induction_head_detection_pattern, get_logit_diff,
    get_previous_token_head_detection_pattern)
from make_logit_lens_reference import top  # noqa: E402

K = 5

CORPUS = ["the cat sat on the mat", "the dog sat on the rug",
          "a cat saw the dog on the mat", "the dog ran to the cat"]

# Each case's settings; the C test runs the same (test_lesson_interventions.c).
CASES = [
    dict(name="stack", sentence="the cat sat on the mat", d_model=8,
         d_out=8, heads=2, seed=5, variants=["block"], steps=60, lr=0.02,
         optimizer="adam", positions=True, corpus=CORPUS, layers=2,
         attn_only=True, order="kqv",
         ablations=[("zero_1.0", [(1, 0)], "zero"),
                    ("mean_0.1_1.1", [(0, 1), (1, 1)], "mean"),
                    ("all_zero", None, "zero"),
                    ("all_mean", None, "mean"),
                    ("all_logit_diff", None, "zero",
                     ("logit-diff", "mat", "rug"))],
         patch=("the cat sat on the", "the dog sat on the", "mat", "rug"),
         scores="the cat sat on the cat sat on", random=4, folder=True),
    dict(name="block", sentence="the dog sat on the rug", d_model=8,
         d_out=8, heads=2, seed=7, variants=["block"], steps=30, lr=0.1,
         optimizer="sgd", positions=False, corpus=CORPUS, order="kqv",
         ablations=[("zero_0.1", [(0, 1)], "zero"),
                    ("mean_0.0", [(0, 0)], "mean"),
                    ("all_mean", None, "mean"),
                    ("all_prob", None, "mean", ("prob", "the", None))],
         patch=("the cat sat on the", "the dog sat on the", "mat", "rug"),
         scores="the dog sat on the dog sat on", random=3),
]


def blocks_of(nb, c):
    return list(nb.module) if c.get("layers") else [nb.module]


def run(nb, c, ids, out_proj_hooks=(), block_hooks=(), weight_hooks=()):
    """The notebook's logits (T, V) with pre-hooks on blocks[l].attention.
    out_proj and on blocks[l], forward hooks on their attention's
    dropout."""
    blocks = blocks_of(nb, c)
    handles = [blocks[l].attention.out_proj.register_forward_pre_hook(h)
               for l, h in out_proj_hooks]
    handles += [blocks[l].register_forward_pre_hook(h)
                for l, h in block_hooks]
    handles += [blocks[l].attention.dropout.register_forward_hook(h)
                for l, h in weight_hooks]
    logits = nb.logits(ids)
    for handle in handles:
        handle.remove()
    return logits


def corpus_means(nb, c, sentences):
    """Each layer's out_proj input over the corpus, torch.cat on the
    positions: (1, N, d)."""
    kept = {}

    def saving(layer):
        def hook(module, inputs):
            kept.setdefault(layer, []).append(inputs[0].clone())
        return hook
    L = len(blocks_of(nb, c))
    for ids in sentences:
        run(nb, c, ids, [(l, saving(l)) for l in range(L)])
    return {l: torch.cat(kept[l], dim=1) for l in range(L)}


def ablating(heads, hd, mode, zall, layer):
    """A forward pre-hook on out_proj replacing the heads' columns."""
    def hook(module, inputs):
        x = inputs[0].clone()
        for h in heads:
            cols = slice(h * hd, (h + 1) * hd)
            if mode == "zero":
                x[..., cols] = 0
            else:
                x[..., cols] = zall[layer][..., cols].mean(dim=1,
                                                           keepdim=True)
        return (x,)
    return hook


def ablated(nb, c, ids, heads, hd, mode, zall):
    hooks = []
    for layer in sorted({layer for layer, _ in heads}):
        mine = [h for l, h in heads if l == layer]
        hooks.append((layer, ablating(mine, hd, mode, zall, layer)))
    return run(nb, c, ids, hooks)


def losses(logits, ids):
    each = F.cross_entropy(logits[:-1], ids[1:], reduction="none")
    mean = F.cross_entropy(logits[:-1], ids[1:])
    return torch.cat([each, mean.view(1)])


def metric_of(metric, vocab):
    """--metric's measure of logits (T, V) over ids: the mean loss, the
    demo's get_logit_diff at the last token, or the softmax's probability
    of the answer there."""
    kind, answer, wrong = metric or ("loss", None, None)
    if kind == "logit-diff":
        indices = torch.tensor([[vocab[answer], vocab[wrong]]])
        return lambda logits, ids: get_logit_diff(logits[None], indices)
    if kind == "prob":
        return lambda logits, ids: torch.softmax(logits[-1],
                                                 dim=-1)[vocab[answer]]
    return lambda logits, ids: losses(logits, ids)[-1]


def ablation_tables(nb, c, vocab, ids, hd, L, H, zall):
    tables = []
    clean = run(nb, c, ids)
    clean_loss = losses(clean, ids)
    tables.append(("logits", clean))
    for case, heads, mode, *metric in c["ablations"]:
        if heads is None:
            measure = metric_of(metric[0] if metric else None, vocab)
            m = torch.empty(L, H)
            for layer in range(L):
                for head in range(H):
                    logits = ablated(nb, c, ids, [(layer, head)], hd, mode,
                                     zall)
                    m[layer, head] = measure(logits, ids) - \
                        measure(clean, ids)
            tables.append((case + ".map", m))
            continue
        abl = ablated(nb, c, ids, heads, hd, mode, zall)
        pc = torch.softmax(clean, dim=-1)
        pa = torch.softmax(abl, dim=-1)
        top = torch.topk(pc, K, dim=-1).indices
        effect = torch.stack([
            torch.gather(pc, 1, top),
            torch.gather(pa, 1, top),
            torch.gather(abl, 1, top) - torch.gather(clean, 1, top)],
            dim=-1).reshape(-1, 3)
        abl_loss = losses(abl, ids)
        loss = torch.stack([clean_loss, abl_loss, abl_loss - clean_loss],
                           dim=-1)
        tables += [(case + ".effect", effect), (case + ".loss", loss)]
    return tables


def patch_tables(nb, c, vocab, hd, L, H):
    clean_text, corrupt_text, answer, wrong = c["patch"]
    clean_tokens = torch.tensor([vocab[w] for w in clean_text.split()])
    corrupted_tokens = torch.tensor([vocab[w] for w in corrupt_text.split()])
    answer_token_indices = torch.tensor([[vocab[answer], vocab[wrong]]])
    T = len(clean_tokens)
    cache = {}

    def saving(key):
        def hook(module, inputs):
            cache[key] = inputs[0].clone()
        return hook
    # the demo's logits are (batch, T, V): a batch of one
    clean_logits = run(nb, c, clean_tokens,
                       [(l, saving(("z", l))) for l in range(L)],
                       [(l, saving(("resid_pre", l))) for l in range(L)])[None]
    corrupted_logits = run(nb, c, corrupted_tokens)[None]
    # ---- the demo's baselines and ioi_metric, verbatim
    clean_logit_diff = get_logit_diff(clean_logits, answer_token_indices).item()
    corrupted_logit_diff = get_logit_diff(corrupted_logits, answer_token_indices).item()
    CLEAN_BASELINE = clean_logit_diff
    CORRUPTED_BASELINE = corrupted_logit_diff
    def ioi_metric(logits, answer_token_indices=answer_token_indices):
        return (get_logit_diff(logits, answer_token_indices) - CORRUPTED_BASELINE) / (CLEAN_BASELINE  - CORRUPTED_BASELINE)
    # ---- end of the copy
    heads = torch.zeros(L, H)
    for layer in range(L):
        for head in range(H):
            def set_head(module, inputs, layer=layer, head=head):
                x = inputs[0].clone()
                cols = slice(head * hd, (head + 1) * hd)
                x[:, :, cols] = cache[("z", layer)][:, :, cols]
                return (x,)
            logits = run(nb, c, corrupted_tokens, [(layer, set_head)])[None]
            heads[layer, head] = ioi_metric(logits).item()
    resid = torch.zeros(L, T)
    for layer in range(L):
        for pos in range(T):
            def set_pos(module, inputs, layer=layer, pos=pos):
                x = inputs[0].clone()
                x[:, pos, ...] = cache[("resid_pre", layer)][:, pos, ...]
                return (x,)
            logits = run(nb, c, corrupted_tokens, (),
                         [(layer, set_pos)])[None]
            resid[layer, pos] = ioi_metric(logits).item()
    return [("patch.heads", heads), ("patch.resid", resid)]


def score_tables(nb, c, vocab, L, H):
    ids = torch.tensor([vocab[w] for w in c["scores"].split()])
    tables = [("scores", head_scores(nb, c, ids, L, H))]
    # --repeat-random N --seed SEED, as make_intervention_reference.py's
    # scores_case draws it
    n, seed = c["random"], c["seed"]
    torch.manual_seed(seed)
    half = torch.randint(0, len(vocab), (n,))
    tokens = torch.cat([half, half])
    tables.append(("random.scores", head_scores(nb, c, tokens, L, H)))
    return tables


def head_scores(nb, c, ids, L, H):
    tokens = ids.view(1, -1)
    patterns = {}

    def keeping(layer):
        def hook(module, inputs, output):
            patterns[layer] = output[0].clone()  # [n_heads q_pos k_pos]
        return hook
    run(nb, c, ids, (), (), [(l, keeping(l)) for l in range(L)])
    detections = [get_previous_token_head_detection_pattern(tokens),
                  get_duplicate_token_head_detection_pattern(tokens),
                  get_induction_head_detection_pattern(tokens)]
    scores = torch.empty(L * H, 3)
    for layer in range(L):
        for head in range(H):
            for k, d in enumerate(detections):
                scores[layer * H + head, k] = \
                    compute_head_attention_similarity_score(
                        patterns[layer][head, :, :].clone(),
                        detection_pattern=d, exclude_bos=False,
                        exclude_current_token=False, error_measure="mul")
    return scores


def lens_tables(nb, c, ids, L):
    """The logit lens of every block on ids: block L's output (T, d),
    kept by a forward hook during one pass of the notebook, through its
    lm_head, the step nb.logits takes after the last block."""
    resid = {}

    def keeping(layer):
        def hook(module, inputs, output):
            resid[layer] = output[0].clone()  # (1, T, d): the batch of one
        return hook
    blocks = blocks_of(nb, c)
    handles = [b.register_forward_hook(keeping(l))
               for l, b in enumerate(blocks)]
    logits = nb.logits(ids)
    for handle in handles:
        handle.remove()
    tables = []
    for layer in range(L):
        lens = nb.lm_head(resid[layer])
        if layer == L - 1:
            assert torch.equal(lens, logits), "the last lens is the logits"
        probs = torch.softmax(lens, dim=-1)
        top_ids, ps = [], []
        for t in range(probs.shape[0]):
            i, p = top(probs[t])
            top_ids += [float(v) for v in i]
            ps += p
        tables.append(("lens.%d.ids" % layer,
                       torch.tensor(top_ids).view(-1, 1)))
        tables.append(("lens.%d.probs" % layer, torch.stack(ps).view(-1, 1)))
    return tables


def labels_of(name, p, vocab):
    """A parameter's row and column labels, as the tool writes them."""
    words = list(vocab)
    if name in ("embedding.weight", "lm_head.weight"):
        return words, ["dim%d" % j for j in range(p.shape[1])]
    if name == "pos_embedding.weight":
        return (["pos%d" % i for i in range(p.shape[0])],
                ["dim%d" % j for j in range(p.shape[1])])
    if p.dim() == 1:
        return ["bias"], ["out%d" % j for j in range(p.shape[0])]
    return (["out%d" % i for i in range(p.shape[0])],
            ["in%d" % j for j in range(p.shape[1])])


def write_folder(path, nb, c, vocab):
    """The trained notebook as a --csv-dir folder (see the docstring)."""
    os.makedirs(path, exist_ok=True)
    manifest = {
        "format": "mha-explain trained model", "version": 1,
        "variants": ["block"], "d_model": c["d_model"], "d_out": c["d_out"],
        "heads": c["heads"], "ff": 0 if c.get("attn_only") else
        (c.get("ff") or 4 * c["d_model"]), "layers": c.get("layers") or 0,
        "attn_only": bool(c.get("attn_only")),
        "qkv_bias": c.get("qkv_bias", False),
        "causal": c.get("causal", True), "scale": c.get("scale", True),
        "positions": nb.context if c["positions"] else 0,
        "tokens": "words", "lower": False, "punct": "keep", "unk": False,
        "vocab": list(vocab),
        "training": {"steps": c["steps"], "optimizer": c["optimizer"],
                     "lr": c["lr"], "seed": c["seed"], "corpus": None}}
    with open(os.path.join(path, "model.json"), "w", encoding="utf-8",
              newline="\n") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    for name, p in nb.named:
        rows, cols = labels_of(name, p, vocab)
        values = p.detach().reshape(len(rows), len(cols)).tolist()
        with open(os.path.join(path, "block." + name + ".csv"), "w",
                  encoding="utf-8", newline="\n") as f:
            f.write(",".join(["token"] + cols) + "\n")
            for label, row in zip(rows, values):
                f.write(",".join([label] + [repr(v) for v in row]) + "\n")


def run_case(outdir, c):
    corpus = [train.words_of(s) for s in c["corpus"]]
    shown_words = train.words_of(c["sentence"])
    vocab = {}
    for w in [w for s in corpus for w in s] + shown_words:
        vocab.setdefault(w, len(vocab))
    sentences = [torch.tensor([vocab[w] for w in s]) for s in corpus]
    shown = torch.tensor([vocab[w] for w in shown_words])
    # the notebook is the corpus's alone (--repeat-random's model): the
    # shown sentence adds no word to the vocabulary and no position
    assert all(w in {w for s in corpus for w in s} for w in shown_words)
    assert len(shown_words) <= max(len(s) for s in corpus)
    nb = train.train_notebook(c, "block", vocab, sentences, shown)
    L, H = c.get("layers") or 1, c["heads"]
    hd = c["d_model"] // H
    with torch.no_grad():
        zall = corpus_means(nb, c, sentences)
        tables = ablation_tables(nb, c, vocab, shown, hd, L, H, zall)
        tables += patch_tables(nb, c, vocab, hd, L, H)
        tables += score_tables(nb, c, vocab, L, H)
        tables += lens_tables(nb, c, shown, L)
    if c.get("folder"):
        write_folder(os.path.join(outdir, c["name"] + ".model"), nb, c, vocab)
    write_safetensors(os.path.join(outdir, c["name"] + ".safetensors"),
                      [(n, t.contiguous()) for n, t in tables])
    with open(os.path.join(outdir, c["name"] + ".corpus.txt"), "w",
              encoding="utf-8", newline="\n") as f:
        for s in c["corpus"]:
            f.write(s + "\n")


def main():
    torch.set_num_threads(1)
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        HERE, "lesson_interventions")
    os.makedirs(outdir, exist_ok=True)
    for c in CASES:
        run_case(outdir, c)


if __name__ == "__main__":
    main()
