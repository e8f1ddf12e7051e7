#!/usr/bin/env python3
"""Make PyTorch's tables of the interventions on Llama-style checkpoints
(tests/unit/test_interventions.c).

The model is LlamaForCausalLM as make_llama_generate_reference.py builds
it from transformers' classes (which it and make_llama_reference.py say
where they were copied from), over the checkpoints of llama/
(make_llama_reference.py), without a cache, evaluation mode, float32.
The interventions are make_intervention_reference.py's, with the hooks
a user of PyTorch puts on this model:

- a head is ablated by a forward pre-hook on layers[L].self_attn.o_proj
  replacing the head's columns of its input (the heads' outputs z side by
  side, TransformerLens's hook_z): zero sets them to 0, mean sets each
  column to its mean over the positions, x[..., cols].mean(dim=1,
  keepdim=True);
- activation patching puts the clean run's o_proj input (a head's
  columns, every position) or the input of layers[L] (hook_resid_pre,
  one position) into the corrupted run, scored by the demo's ioi_metric
  (copied in make_intervention_reference.py);
- --repeat-random N draws N ids of the tokenizer's ordinary tokens (its
  tokens but those tokenizer.json marks special: bos, eos, pad),
  words[torch.randint(0, len(words), (N,))] after torch.manual_seed(SEED),
  as make_bert_scores_reference.py draws BERT's, then the same N again;
- head scores read each head's attention pattern where
  eager_attention_forward makes it (the softmax's output, taken by
  wrapping torch.nn.functional.softmax, which the copied code calls) and
  score it with TransformerLens's head detector (copied there).

- mean ablation over a corpus (--ablate-mode mean --corpus FILE): each
  head's columns set to their mean over every position of every text of
  interventions/corpus.csv, make_intervention_reference.py's
  corpus_tables with the pre-hooks on o_proj.

It writes, into interventions/ beside this script (or OUTDIR), the files
CHECKPOINT.safetensors (NAME.out, NAME.effect, NAME.loss,
NAME.map), patch_CHECKPOINT.safetensors (NAME.heads, NAME.resid,
NAME.baselines), scores_CHECKPOINT.safetensors (NAME.scores, NAME.ids)
and corpus_CHECKPOINT.safetensors (NAME.out, NAME.effect, NAME.loss,
NAME.map), in the form make_intervention_reference.py writes for GPT-2.

How to run it (Debian's python3-torch, CPU, float32):

    /usr/bin/python3 tests/reference/make_llama_intervention_reference.py \
        [OUTDIR [CHECKPOINT...]]

(qwen2_bias_f16 needs transformers' Qwen2 classes, make_llama_reference.py
says which; `... interventions llama_gqa4_bf16 llama_tied_f32` makes the
others without them.)
"""

import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_gpt2_reference import write_safetensors  # noqa: E402
import make_intervention_reference as mi  # noqa: E402
from make_llama_generate_reference import load  # noqa: E402

K = mi.K

# checkpoint -> cases: (name, heads as (layer, head), mode[, metric]);
# heads None: every head alone (--ablate all-heads), measured by the
# metric (make_intervention_reference.py's metric_of; default the loss)
#   llama_gqa4_bf16 "the cat sat on the mat, hello world": " cat" 271
#   against " mat" 275; " world" 264
CASES = {
    "llama_gqa4_bf16": [
        ("zero_0.1", [(0, 1)], "zero"),
        ("mean_1.0_0.1", [(1, 0), (0, 1)], "mean"),
        ("all_mean", None, "mean"),
        ("all_mean_logit_diff", None, "mean", ("logit-diff", 271, 275)),
        ("all_zero_prob", None, "zero", ("prob", 264, None)),
    ],
    "qwen2_bias_f16": [
        ("zero_1.1", [(1, 1)], "zero"),
        ("all_zero", None, "zero"),
    ],
}

# checkpoint -> (name, clean ids, corrupt ids, answer id, wrong id), the
# ids of make_intervention_reference.py's texts (the same toy tokenizer):
#   "the cat sat on the mat" / "the mat sat on the cat", " cat" / " mat"
PATCH_CASES = {
    "llama_gqa4_bf16": ("cat_mat", [278, 271, 273, 277, 268, 275],
                        [278, 275, 273, 277, 268, 271], 271, 275),
}

# checkpoint -> [(name, ids or (N, SEED) for --repeat-random N --seed SEED)]
#   "the cat sat on the cat sat"
SCORE_CASES = {
    "llama_tied_f32": [("text", [278, 271, 273, 277, 268, 271, 273]),
                       ("random_6_4", (6, 4))],
}


# checkpoint -> mean ablation over the corpus's cases (make_intervention_
# reference.py's CORPUS_CASES): a head of 48 columns, whose mean sums
# columns 0-31 in PyTorch's blocks of 32 and 32-47 one by one
CORPUS_CASES = {
    "llama_head48_bf16": [
        ("corpus_0.1", [(0, 1)]),
        ("corpus_all", None),
        ("corpus_all_prob", None, ("prob", 271, None)),
    ],
}


def logits_of(model, ids, o_proj_hooks=(), layer_hooks=()):
    """(the norm's output, the logits) with pre-hooks on
    layers[L].self_attn.o_proj and on layers[L]."""
    layers = model.model.layers
    handles = [layers[l].self_attn.o_proj.register_forward_pre_hook(h)
               for l, h in o_proj_hooks]
    handles += [layers[l].register_forward_pre_hook(h)
                for l, h in layer_hooks]
    outs = {}
    keep = model.model.norm.register_forward_hook(
        lambda m, i, o: outs.setdefault("out", o.clone()))
    try:
        logits, _ = model(input_ids=ids,
                          attention_mask=torch.ones_like(ids),
                          use_cache=False)
    finally:
        keep.remove()
        for handle in handles:
            handle.remove()
    return outs["out"], logits


def run(model, ids, heads, hd, mode):
    hooks = []
    for layer in sorted({layer for layer, _ in heads}):
        mine = [h for l, h in heads if l == layer]
        hooks.append((layer, mi.ablating(mine, hd, mode)))
    return logits_of(model, ids, hooks)


def checkpoint_cases(outdir, name):
    model, cfg, ids = load(name)
    hd = cfg.hidden_size // cfg.num_attention_heads
    L, H = cfg.num_hidden_layers, cfg.num_attention_heads
    tables = []
    with torch.no_grad():
        _, clean = run(model, ids, [], hd, "zero")
        clean_loss = mi.losses(clean, ids)
        for case, heads, mode, *metric in CASES[name]:
            if heads is None:
                measure = mi.metric_of(metric[0] if metric else None)
                m = torch.empty(L, H)
                for layer in range(L):
                    for head in range(H):
                        _, logits = run(model, ids, [(layer, head)], hd, mode)
                        m[layer, head] = measure(logits, ids) - \
                            measure(clean, ids)
                tables.append((case + ".map", m))
                continue
            out, ablated = run(model, ids, heads, hd, mode)
            pc = torch.softmax(clean[0], dim=-1)
            pa = torch.softmax(ablated[0], dim=-1)
            top = torch.topk(pc, K, dim=-1).indices
            effect = torch.stack([
                torch.gather(pc, 1, top),
                torch.gather(pa, 1, top),
                torch.gather(ablated[0], 1, top) -
                torch.gather(clean[0], 1, top)], dim=-1).reshape(-1, 3)
            ablated_loss = mi.losses(ablated, ids)
            loss = torch.stack([clean_loss, ablated_loss,
                                ablated_loss - clean_loss], dim=-1)
            tables += [(case + ".out", out[0]), (case + ".effect", effect),
                       (case + ".loss", loss)]
    write_safetensors(os.path.join(outdir, "%s.safetensors" % name),
                      [(n, t.contiguous()) for n, t in tables])


def corpus_case(outdir, name):
    model, cfg, ids = load(name)
    hd = cfg.hidden_size // cfg.num_attention_heads
    L, H = cfg.num_hidden_layers, cfg.num_attention_heads
    tables = mi.corpus_tables(logits_of, model, ids, hd, L, H,
                              CORPUS_CASES[name])
    write_safetensors(os.path.join(outdir, "corpus_%s.safetensors" % name),
                      [(n, t.contiguous()) for n, t in tables])


def patch_case(outdir, name):
    model, cfg, _ = load(name)
    case, clean, corrupt, answer, wrong = PATCH_CASES[name]
    hd = cfg.hidden_size // cfg.num_attention_heads
    L, H = cfg.num_hidden_layers, cfg.num_attention_heads
    clean_tokens = torch.tensor([clean])
    corrupted_tokens = torch.tensor([corrupt])
    answer_token_indices = torch.tensor([[answer, wrong]])
    T = len(clean)
    cache = {}

    def saving(key):
        def hook(module, inputs):
            cache[key] = inputs[0].clone()
        return hook
    get_logit_diff = mi.get_logit_diff
    with torch.no_grad():
        _, clean_logits = logits_of(
            model, clean_tokens,
            [(l, saving(("z", l))) for l in range(L)],
            [(l, saving(("resid_pre", l))) for l in range(L)])
        _, corrupted_logits = logits_of(model, corrupted_tokens)
        # the demo's baselines and ioi_metric, as make_intervention_
        # reference.py copies them
        clean_logit_diff = get_logit_diff(clean_logits, answer_token_indices).item()
        corrupted_logit_diff = get_logit_diff(corrupted_logits, answer_token_indices).item()
        CLEAN_BASELINE = clean_logit_diff
        CORRUPTED_BASELINE = corrupted_logit_diff
        def ioi_metric(logits, answer_token_indices=answer_token_indices):
            return (get_logit_diff(logits, answer_token_indices) - CORRUPTED_BASELINE) / (CLEAN_BASELINE  - CORRUPTED_BASELINE)
        heads = torch.zeros(L, H)
        for layer in range(L):
            for head in range(H):
                def set_head(module, inputs, layer=layer, head=head):
                    x = inputs[0].clone()
                    cols = slice(head * hd, (head + 1) * hd)
                    x[:, :, cols] = cache[("z", layer)][:, :, cols]
                    return (x,)
                _, logits = logits_of(model, corrupted_tokens,
                                      [(layer, set_head)])
                heads[layer, head] = ioi_metric(logits).item()
        resid = torch.zeros(L, T)
        for layer in range(L):
            for pos in range(T):
                def set_pos(module, inputs, layer=layer, pos=pos):
                    x = inputs[0].clone()
                    x[:, pos, ...] = cache[("resid_pre", layer)][:, pos, ...]
                    return (x,)
                _, logits = logits_of(model, corrupted_tokens, (),
                                      [(layer, set_pos)])
                resid[layer, pos] = ioi_metric(logits).item()
    # patch_baselines: the demo's two baselines, the scores' 1 and 0
    baselines = torch.tensor([[CLEAN_BASELINE], [CORRUPTED_BASELINE]])
    tables = [(case + ".heads", heads), (case + ".resid", resid),
              (case + ".baselines", baselines)]
    write_safetensors(
        os.path.join(outdir, "patch_%s.safetensors" % name),
        [(n, t.contiguous()) for n, t in tables])


def ordinary_tokens(name):
    """The ids --repeat-random draws from: those of tokenizer.json's
    tokens, but the special ones (bos, eos, pad), ascending. The
    checkpoint's post-processor (ByteLevel) puts no token around a
    text."""
    with open(os.path.join(HERE, "llama", name, "tokenizer.json")) as f:
        tj = json.load(f)
    assert tj["post_processor"]["type"] == "ByteLevel"
    special = {a["id"] for a in tj["added_tokens"] if a["special"]}
    every = set(tj["model"]["vocab"].values()) | \
        {a["id"] for a in tj["added_tokens"]}
    return torch.tensor(sorted(every - special))


def scores_case(outdir, name):
    model, cfg, _ = load(name)
    L, H = cfg.num_hidden_layers, cfg.num_attention_heads
    tables = []
    for case, ids in SCORE_CASES[name]:
        if isinstance(ids, tuple):
            n, seed = ids
            words = ordinary_tokens(name)
            torch.manual_seed(seed)
            half = words[torch.randint(0, len(words), (n,))]
            tokens = torch.cat([half, half]).view(1, -1)
        else:
            tokens = torch.tensor([ids])
        patterns = []
        original_softmax = torch.nn.functional.softmax

        def keeping(x, *args, **kwargs):
            y = original_softmax(x, *args, **kwargs)
            patterns.append(y[0].clone())  # [n_heads q_pos k_pos]
            return y
        torch.nn.functional.softmax = keeping
        try:
            with torch.no_grad():
                logits_of(model, tokens)
        finally:
            torch.nn.functional.softmax = original_softmax
        assert len(patterns) == L
        detections = [mi.get_previous_token_head_detection_pattern(tokens),
                      mi.get_duplicate_token_head_detection_pattern(tokens),
                      mi.get_induction_head_detection_pattern(tokens)]
        scores = torch.empty(L * H, 3)
        for layer in range(L):
            for head in range(H):
                for k, d in enumerate(detections):
                    scores[layer * H + head, k] = \
                        mi.compute_head_attention_similarity_score(
                            patterns[layer][head, :, :].clone(),
                            detection_pattern=d, exclude_bos=False,
                            exclude_current_token=False,
                            error_measure="mul")
        tables.append((case + ".scores", scores))
        tables.append((case + ".ids", tokens[0].float().view(-1, 1)))
    write_safetensors(
        os.path.join(outdir, "scores_%s.safetensors" % name),
        [(n, t.contiguous()) for n, t in tables])


def main():
    """[OUTDIR [CHECKPOINT...]]: the files of those checkpoints alone
    (default every one)."""
    torch.set_num_threads(1)
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        HERE, "interventions")
    only = set(sys.argv[2:])
    os.makedirs(outdir, exist_ok=True)
    for name in CASES:
        if not only or name in only:
            checkpoint_cases(outdir, name)
    for name in PATCH_CASES:
        if not only or name in only:
            patch_case(outdir, name)
    for name in SCORE_CASES:
        if not only or name in only:
            scores_case(outdir, name)
    for name in CORPUS_CASES:
        if not only or name in only:
            corpus_case(outdir, name)


if __name__ == "__main__":
    main()
