#!/usr/bin/env python3
"""Make PyTorch's tables for the interventions' tests
(tests/unit/test_interventions.c).

The model is transformers' GPT-2 (GPT2Model and its blocks, copied
verbatim from modeling_gpt2.py in make_hook_reference.py, which says
from where), with GPT2LMHeadModel's tied lm_head, F.linear(out,
wte.weight), run on the small random checkpoints of gpt2/
(make_gpt2_reference.py) over each one's text (ids.txt).

A head is ablated as a user of PyTorch does it: a forward pre-hook on
the attention's output projection h.L.attn.c_proj replaces the head's
columns of its input (the heads' outputs z side by side, TransformerLens's
hook_z): zero sets them to 0, mean sets each column to its mean over the
positions, x[..., cols].mean(dim=1, keepdim=True). Several heads of one
layer are replaced in the order given.

For each case NAME it writes, into interventions/CHECKPOINT.safetensors
(or OUTDIR):

  NAME.out        ln_f's output of the ablated model (T x D)
  NAME.effect     (T*k x 3): for each position t, the k = 5 likeliest next
                  tokens of the clean run (torch.topk of the clean
                  softmax): clean probability, ablated probability,
                  ablated logit - clean logit
  NAME.loss       (T x 3): F.cross_entropy(logits[:-1], ids[1:],
                  reduction='none') then its mean (reduction='mean');
                  clean, ablated, ablated - clean
  NAME.map        (all-heads cases, L x H): the mean loss with that head
                  alone ablated, minus the clean one; or, for a case with
                  a --metric, that measure of the logits (metric_of):
                  logit-diff, the demo's get_logit_diff (copied below) of
                  --answer against --wrong at the last token; prob,
                  torch.softmax(logits[0, -1], dim=-1)[answer]

Activation patching, as TransformerLens's patching.py
(generic_activation_patch, commit 4cd36aaeb5dad931d085bd5d46a12b402fe15272)
runs it with the metric of its demo Activation_Patching_in_TL_Demo.ipynb
(get_logit_diff and ioi_metric, copied verbatim below): each patch runs
the corrupted ids with one activation of the clean run put in by a hook,

  patch_heads  (L x H)  get_act_patch_attn_head_out_all_pos: hook_z of
                        head H in layer L (here a pre-hook on c_proj
                        setting the head's columns, all positions)
  patch_resid  (L x T)  get_act_patch_resid_pre: the input of block L at
                        one position (a pre-hook on h[L])

into PATCH_CASE.safetensors' "NAME.heads" and "NAME.resid", and the
demo's CLEAN_BASELINE and CORRUPTED_BASELINE (patch_baselines, 2 x 1)
into "NAME.baselines". The texts'
ids are those the tokenizer of the checkpoint gives them (listed in
PATCH_CASES; the tokenizer is tested against encoder.py on its own).

Head scores, as TransformerLens's head_detector.py (the same commit)
defines them: its get_*_detection_pattern functions and
compute_head_attention_similarity_score, copied verbatim below, with
detect_head's defaults (error_measure "mul", exclude_bos and
exclude_current_token False), on each head's attention pattern (the
softmax weights, taken by a forward hook on attn.attn_dropout, which
evaluation mode leaves as they are). Into
scores_CHECKPOINT.safetensors, "NAME.scores" ((L*H) x 3: previous
token, duplicate token, induction, a row per head, layer by layer); the
ids are a text's (SCORE_CASES) or N ids of the tokenizer's ordinary
tokens (vocab.json's, but GPT2Tokenizer's special <|endoftext|>),
words[torch.randint(0, len(words), (N,))] after torch.manual_seed(SEED),
as make_llama_intervention_reference.py draws a Llama-style
checkpoint's, then the same N again (--repeat-random N).

Mean ablation over a corpus (--ablate-mode mean --corpus FILE --column
text), as a user of PyTorch takes a head's mean over many texts of
different lengths: the clean model run over each text of corpus.csv
(beside this script's output, interventions/; the texts' ids those
encoder.py's algorithm gives them, make_gpt2_reference.py's encode),
c_proj's input (1, T_i, D) kept by a pre-hook, torch.cat(..., dim=1)
into (1, N, D); then the ablating pre-hook sets the head's columns of
every position to x[..., cols].mean(dim=1, keepdim=True) of that (1, N,
D). The cases of CORPUS_CASES, on the checkpoint's own text, into
corpus_CHECKPOINT.safetensors: NAME.out, NAME.effect, NAME.loss or
NAME.map, as above.

Generation with heads set to their corpus means (--generate with
--ablate L.H --ablate-mode mean --corpus FILE --column text), as a user
of PyTorch does it with one model: the corpus's z taken as above, by
corpus_z, through the model that then generates
(make_generate_reference.py's GPT2LMHeadModel with its cache,
make_llama_generate_reference.py's LlamaForCausalLM), then
corpus_ablating's pre-hook on c_proj (o_proj) at every forward of
make_generate_reference.py's greedy / sampled loop generate(), the
prompt's and each new token's over the cache, as its ABLATE_CASES run
(generate_ablated, with this hook). The cases of CORPUS_GENERATE_CASES,
into corpus_generate_NAME.safetensors with write_ablated's names
(make_generate_reference.py's docstring: "tokens", "p", "p_logits",
"kept", "top", "top_p", "settings", "ablate", "mode" 1, and "clean",
the loop's tokens without the hooks).

How to run it (Debian's python3-torch, CPU, float32):

    /usr/bin/python3 tests/reference/make_intervention_reference.py \
        [OUTDIR [CHECKPOINT...]]
"""

import csv
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_gpt2_reference import encode, toy_vocab  # noqa: E402
from make_gpt2_reference import write_safetensors  # noqa: E402
from make_hook_reference import Config, GPT2Model, read_safetensors  # noqa: E402,E501

K = 5

# checkpoint -> cases: (name, heads as (layer, head), mode[, metric]);
# heads None: every head alone (--ablate all-heads), measured by the
# metric (kind, answer id, wrong id or None; default the mean loss)
#   two_layers "the cat sat on the mat": " cat" 271 against " mat" 275
#   four_heads_bf16: " end" 281 against " world" 264
CASES = {
    "two_layers": [
        ("zero_0.1", [(0, 1)], "zero"),
        ("mean_1.0_0.1", [(1, 0), (0, 1)], "mean"),
        ("zero_1.0_1.1", [(1, 0), (1, 1)], "zero"),
        ("all_zero", None, "zero"),
        ("all_mean", None, "mean"),
        ("all_zero_logit_diff", None, "zero", ("logit-diff", 271, 275)),
        ("all_mean_prob", None, "mean", ("prob", 271, None)),
    ],
    "four_heads_bf16": [
        ("mean_0.2", [(0, 2)], "mean"),
        ("all_zero", None, "zero"),
        ("all_mean_logit_diff", None, "mean", ("logit-diff", 281, 264)),
        ("all_zero_prob", None, "zero", ("prob", 264, None)),
    ],
}


def load(name):
    folder = os.path.join(HERE, "gpt2", name)
    config = Config(os.path.join(folder, "config.json"))
    params = read_safetensors(os.path.join(folder, "model.safetensors"))
    params = {k[len("transformer."):] if k.startswith("transformer.") else k:
              v for k, v in params.items()}
    params = {k: v for k, v in params.items()
              if not k.endswith(".attn.bias") and
              not k.endswith(".attn.masked_bias")}
    model = GPT2Model(config)
    model.load_state_dict(params)
    model.eval()
    with open(os.path.join(folder, "ids.txt")) as fh:
        ids = torch.tensor([[int(i) for i in fh.read().split()]])
    return model, config, ids


def ablating(heads, hd, mode):
    """A forward pre-hook on c_proj replacing the heads' columns."""
    def hook(module, inputs):
        x = inputs[0].clone()
        for h in heads:
            cols = slice(h * hd, (h + 1) * hd)
            if mode == "zero":
                x[..., cols] = 0
            else:
                x[..., cols] = x[..., cols].mean(dim=1, keepdim=True)
        return (x,)
    return hook


def run(model, ids, heads, hd, mode):
    """(ln_f's output, logits) with heads [(layer, head)] ablated."""
    handles = []
    for layer in sorted({layer for layer, _ in heads}):
        mine = [h for l, h in heads if l == layer]
        handles.append(model.h[layer].attn.c_proj.register_forward_pre_hook(
            ablating(mine, hd, mode)))
    out = model(ids)
    for handle in handles:
        handle.remove()
    return out, F.linear(out, model.wte.weight)


def losses(logits, ids):
    each = F.cross_entropy(logits[0, :-1], ids[0, 1:], reduction="none")
    mean = F.cross_entropy(logits[0, :-1], ids[0, 1:])
    return torch.cat([each, mean.view(1)])


def metric_of(metric):
    """--metric's measure of logits (1, T, V) over ids: the mean loss,
    the demo's get_logit_diff at the last token, or the softmax's
    probability of the answer there."""
    kind, answer, wrong = metric or ("loss", None, None)
    if kind == "logit-diff":
        indices = torch.tensor([[answer, wrong]])
        return lambda logits, ids: get_logit_diff(logits, indices)
    if kind == "prob":
        return lambda logits, ids: torch.softmax(logits[0, -1],
                                                 dim=-1)[answer]
    return lambda logits, ids: losses(logits, ids)[-1]


def checkpoint_cases(outdir, name):
    model, config, ids = load(name)
    hd = config.hidden_size // config.num_attention_heads
    L, H = config.num_hidden_layers, config.num_attention_heads
    tables = []
    with torch.no_grad():
        _, clean = run(model, ids, [], hd, "zero")
        clean_loss = losses(clean, ids)
        for case, heads, mode, *metric in CASES[name]:
            if heads is None:
                measure = metric_of(metric[0] if metric else None)
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
            ablated_loss = losses(ablated, ids)
            loss = torch.stack([clean_loss, ablated_loss,
                                ablated_loss - clean_loss], dim=-1)
            tables += [(case + ".out", out[0]), (case + ".effect", effect),
                       (case + ".loss", loss)]
    write_safetensors(os.path.join(outdir, name + ".safetensors"),
                      [(n, t.contiguous()) for n, t in tables])


# checkpoint -> (name, clean ids, corrupt ids, answer id, wrong id):
#   two_layers: "the cat sat on the mat" / "the mat sat on the cat",
#               " cat" against " mat"
#   four_heads_bf16: "the end hello world the" / "the world hello end the",
#               " end" against " world"
PATCH_CASES = {
    "two_layers": ("cat_mat", [278, 271, 273, 277, 268, 275],
                   [278, 275, 273, 277, 268, 271], 271, 275),
    "four_heads_bf16": ("end_world", [278, 281, 220, 259, 264, 268],
                        [278, 264, 220, 259, 281, 268], 281, 264),
}


# ---- TransformerLens's demos/Activation_Patching_in_TL_Demo.ipynb
# ---- (commit above), verbatim
def get_logit_diff(logits, answer_token_indices):
    if len(logits.shape)==3:
        # Get final logits only
        logits = logits[:, -1, :]
    correct_logits = logits.gather(1, answer_token_indices[:, 0].unsqueeze(1))
    incorrect_logits = logits.gather(1, answer_token_indices[:, 1].unsqueeze(1))
    return (correct_logits - incorrect_logits).mean()
# ---- end of the copy


def lm_logits(model, ids, c_proj_hooks=(), block_hooks=()):
    """GPT2LMHeadModel's logits with pre-hooks on attn.c_proj and blocks."""
    handles = [model.h[l].attn.c_proj.register_forward_pre_hook(h)
               for l, h in c_proj_hooks]
    handles += [model.h[l].register_forward_pre_hook(h)
                for l, h in block_hooks]
    out = model(ids)
    for handle in handles:
        handle.remove()
    return F.linear(out, model.wte.weight)


def patch_case(outdir, name):
    model, config, _ = load(name)
    case, clean, corrupt, answer, wrong = PATCH_CASES[name]
    hd = config.hidden_size // config.num_attention_heads
    L, H = config.num_hidden_layers, config.num_attention_heads
    clean_tokens = torch.tensor([clean])
    corrupted_tokens = torch.tensor([corrupt])
    answer_token_indices = torch.tensor([[answer, wrong]])
    T = len(clean)
    # the clean run's cache: each layer's c_proj input (hook_z side by
    # side) and each block's input (hook_resid_pre)
    cache = {}

    def saving(key):
        def hook(module, inputs):
            cache[key] = inputs[0].clone()
        return hook
    with torch.no_grad():
        clean_logits = lm_logits(
            model, clean_tokens,
            [(l, saving(("z", l))) for l in range(L)],
            [(l, saving(("resid_pre", l))) for l in range(L)])
        corrupted_logits = lm_logits(model, corrupted_tokens)
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
                logits = lm_logits(model, corrupted_tokens,
                                   [(layer, set_head)])
                heads[layer, head] = ioi_metric(logits).item()
        resid = torch.zeros(L, T)
        for layer in range(L):
            for pos in range(T):
                def set_pos(module, inputs, layer=layer, pos=pos):
                    x = inputs[0].clone()
                    x[:, pos, ...] = cache[("resid_pre", layer)][:, pos, ...]
                    return (x,)
                logits = lm_logits(model, corrupted_tokens, (),
                                   [(layer, set_pos)])
                resid[layer, pos] = ioi_metric(logits).item()
    # patch_baselines: the demo's two baselines, the scores' 1 and 0
    baselines = torch.tensor([[CLEAN_BASELINE], [CORRUPTED_BASELINE]])
    tables = [(case + ".heads", heads), (case + ".resid", resid),
              (case + ".baselines", baselines)]
    write_safetensors(os.path.join(outdir, "patch_%s.safetensors" % name),
                      [(n, t.contiguous()) for n, t in tables])


# checkpoint -> [(name, ids or (N, SEED) for --repeat-random N --seed SEED)]
#   two_layers "the cat sat on the cat sat"
#   four_heads_bf16 "the end the end hello the end"
SCORE_CASES = {
    "two_layers": [("text", [278, 271, 273, 277, 268, 271, 273]),
                   ("random_5_3", (5, 3))],
    "four_heads_bf16": [("text", [278, 281, 268, 281, 220, 259, 268, 281]),
                        ("random_12_7", (12, 7))],
}


# ---- TransformerLens's transformer_lens/head_detector.py (commit above),
# ---- verbatim
def get_previous_token_head_detection_pattern(
    tokens: torch.Tensor,  # [batch (1) x pos]
) -> torch.Tensor:
    """Outputs a detection score for [previous token heads](https://dynalist.io/d/n2ZWtnoYHrU1s4vnFSAQ519J#z=0O5VOHe9xeZn8Ertywkh7ioc).

    Args:
      tokens: Tokens being fed to the model.
    """
    detection_pattern = torch.zeros(tokens.shape[-1], tokens.shape[-1])
    # Adds a diagonal of 1's below the main diagonal.
    detection_pattern[1:, :-1] = torch.eye(tokens.shape[-1] - 1)
    return torch.tril(detection_pattern)


# Duplicate token head
def get_duplicate_token_head_detection_pattern(
    tokens: torch.Tensor,  # [batch (1) x pos]
) -> torch.Tensor:
    """Outputs a detection score for [duplicate token heads](https://dynalist.io/d/n2ZWtnoYHrU1s4vnFSAQ519J#z=2UkvedzOnghL5UHUgVhROxeo).

    Args:
      sequence: String being fed to the model.
    """
    # [pos x pos]
    token_pattern = tokens.repeat(tokens.shape[-1], 1).numpy()

    # If token_pattern[i][j] matches its transpose, then token j and token i are duplicates.
    eq_mask = np.equal(token_pattern, token_pattern.T).astype(int)

    np.fill_diagonal(eq_mask, 0)  # Current token is always a duplicate of itself. Ignore that.
    detection_pattern = eq_mask.astype(int)
    return torch.tril(torch.as_tensor(detection_pattern).float())


# Induction head
def get_induction_head_detection_pattern(
    tokens: torch.Tensor,  # [batch (1) x pos]
) -> torch.Tensor:
    """Outputs a detection score for [induction heads](https://dynalist.io/d/n2ZWtnoYHrU1s4vnFSAQ519J#z=_tFVuP5csv5ORIthmqwj0gSY).

    Args:
      sequence: String being fed to the model.
    """
    duplicate_pattern = get_duplicate_token_head_detection_pattern(tokens)

    # Shift all items one to the right
    shifted_tensor = torch.roll(duplicate_pattern, shifts=1, dims=1)

    # Replace first column with 0's
    # we don't care about bos but shifting to the right moves the last column to the first,
    # and the last column might contain non-zero values.
    zeros_column = torch.zeros(duplicate_pattern.shape[0], 1)
    result_tensor = torch.cat((zeros_column, shifted_tensor[:, 1:]), dim=1)
    return torch.tril(result_tensor)


def compute_head_attention_similarity_score(
    attention_pattern: torch.Tensor,  # [q_pos k_pos]
    detection_pattern: torch.Tensor,  # [seq_len seq_len] (seq_len == q_pos == k_pos)
    *,
    exclude_bos: bool,
    exclude_current_token: bool,
    error_measure: str,
) -> float:
    """Compute the similarity between `attention_pattern` and `detection_pattern`."""
    # mul

    if error_measure == "mul":
        if exclude_bos:
            attention_pattern[:, 0] = 0
        if exclude_current_token:
            attention_pattern.fill_diagonal_(0)
        score = attention_pattern * detection_pattern
        return (score.sum() / attention_pattern.sum()).item()

    # abs

    abs_diff = (attention_pattern - detection_pattern).abs()
    assert (abs_diff - torch.tril(abs_diff).to(abs_diff.device)).sum() == 0

    size = len(abs_diff)
    if exclude_bos:
        abs_diff[:, 0] = 0
    if exclude_current_token:
        abs_diff.fill_diagonal_(0)

    return 1 - round((abs_diff.mean() * size).item(), 3)
# ---- end of the copy


def ordinary_tokens(name):
    """The ids --repeat-random draws from: those of vocab.json's tokens,
    but GPT2Tokenizer's special one, <|endoftext|> (its bos, eos and
    unk), ascending."""
    with open(os.path.join(HERE, "gpt2", name, "vocab.json")) as f:
        vocab = json.load(f)
    special = {vocab[t] for t in ("<|endoftext|>",) if t in vocab}
    return torch.tensor(sorted(set(vocab.values()) - special))


def scores_case(outdir, name):
    model, config, _ = load(name)
    L, H = config.num_hidden_layers, config.num_attention_heads
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
        patterns = {}

        def keeping(layer):
            def hook(module, inputs, output):
                patterns[layer] = output[0].clone()  # [n_heads q_pos k_pos]
            return hook
        handles = [model.h[l].attn.attn_dropout.register_forward_hook(
            keeping(l)) for l in range(L)]
        with torch.no_grad():
            model(tokens)
        for handle in handles:
            handle.remove()
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
                            exclude_current_token=False,
                            error_measure="mul")
        tables.append((case + ".scores", scores))
        tables.append((case + ".ids", tokens[0].float().view(-1, 1)))
    write_safetensors(os.path.join(outdir, "scores_%s.safetensors" % name),
                      [(n, t.contiguous()) for n, t in tables])


# ---- mean ablation over a corpus
CORPUS = os.path.join(HERE, "interventions", "corpus.csv")

# checkpoint -> cases: (name, heads as (layer, head)[, metric]); heads
# None: every head alone, as CASES says
CORPUS_CASES = {
    "two_layers": [
        ("corpus_1.0_0.1", [(1, 0), (0, 1)]),
        ("corpus_all", None),
        ("corpus_all_logit_diff", None, ("logit-diff", 271, 275)),
    ],
}


def corpus_ids():
    """The texts of corpus.csv's column text, each as its ids (1, T_i)."""
    vocab = toy_vocab()
    with open(CORPUS, newline="") as fh:
        texts = [row["text"] for row in csv.DictReader(fh)]
    return [torch.tensor([encode(text, vocab)]) for text in texts]


def corpus_z(hooked, model, corpus, L):
    """Each layer's output projection input (the heads' z side by side)
    over the corpus, torch.cat on the positions: (1, N, D). hooked(model,
    ids, [(layer, pre-hook)]) runs the model with pre-hooks on the output
    projections."""
    kept = {}

    def saving(layer):
        def hook(module, inputs):
            kept.setdefault(layer, []).append(inputs[0].clone())
        return hook
    for ids in corpus:
        hooked(model, ids, [(l, saving(l)) for l in range(L)])
    return {l: torch.cat(kept[l], dim=1) for l in range(L)}


def corpus_ablating(heads, hd, z):
    """A forward pre-hook on the output projection setting the heads'
    columns of every position to their mean over the corpus (z: the
    layer's (1, N, D))."""
    def hook(module, inputs):
        x = inputs[0].clone()
        for h in heads:
            cols = slice(h * hd, (h + 1) * hd)
            x[..., cols] = z[..., cols].mean(dim=1, keepdim=True)
        return (x,)
    return hook


def corpus_run(hooked, model, ids, heads, hd, zall):
    """(the final norm's output, logits) with heads [(layer, head)]
    set to their corpus means."""
    hooks = []
    for layer in sorted({layer for layer, _ in heads}):
        mine = [h for l, h in heads if l == layer]
        hooks.append((layer, corpus_ablating(mine, hd, zall[layer])))
    return hooked(model, ids, hooks)


def corpus_tables(hooked, model, ids, hd, L, H, cases):
    """The tables of cases (CORPUS_CASES' rows) on ids, as
    checkpoint_cases makes them."""
    tables = []
    with torch.no_grad():
        zall = corpus_z(hooked, model, corpus_ids(), L)
        _, clean = hooked(model, ids, [])
        clean_loss = losses(clean, ids)
        for case, heads, *metric in cases:
            if heads is None:
                measure = metric_of(metric[0] if metric else None)
                m = torch.empty(L, H)
                for layer in range(L):
                    for head in range(H):
                        _, logits = corpus_run(hooked, model, ids,
                                               [(layer, head)], hd, zall)
                        m[layer, head] = measure(logits, ids) - \
                            measure(clean, ids)
                tables.append((case + ".map", m))
                continue
            out, ablated = corpus_run(hooked, model, ids, heads, hd, zall)
            pc = torch.softmax(clean[0], dim=-1)
            pa = torch.softmax(ablated[0], dim=-1)
            top = torch.topk(pc, K, dim=-1).indices
            effect = torch.stack([
                torch.gather(pc, 1, top),
                torch.gather(pa, 1, top),
                torch.gather(ablated[0], 1, top) -
                torch.gather(clean[0], 1, top)], dim=-1).reshape(-1, 3)
            ablated_loss = losses(ablated, ids)
            loss = torch.stack([clean_loss, ablated_loss,
                                ablated_loss - clean_loss], dim=-1)
            tables += [(case + ".out", out[0]), (case + ".effect", effect),
                       (case + ".loss", loss)]
    return tables


def gpt2_hooked(model, ids, c_proj_hooks):
    """(ln_f's output, GPT2LMHeadModel's logits) with pre-hooks on
    h[L].attn.c_proj."""
    handles = [model.h[l].attn.c_proj.register_forward_pre_hook(h)
               for l, h in c_proj_hooks]
    try:
        out = model(ids)
    finally:
        for handle in handles:
            handle.remove()
    return out, F.linear(out, model.wte.weight)


def corpus_case(outdir, name):
    model, config, ids = load(name)
    hd = config.hidden_size // config.num_attention_heads
    L, H = config.num_hidden_layers, config.num_attention_heads
    tables = corpus_tables(gpt2_hooked, model, ids, hd, L, H,
                           CORPUS_CASES[name])
    write_safetensors(os.path.join(outdir, "corpus_%s.safetensors" % name),
                      [(n, t.contiguous()) for n, t in tables])


# ---- generation with heads set to their corpus means
# name, family, checkpoint, heads [(layer, head)], sample, temperature,
# top_k, top_p, seed, max_new_tokens (make_generate_reference.py's
# ABLATE_CASES without the mode, which is the corpus's mean)
CORPUS_GENERATE_CASES = [
    ("greedy_two_layers", "gpt2", "two_layers", [(1, 0), (0, 1)], False,
     1.0, 0, 1.0, 0, 8),
    ("sample_wide", "gpt2", "wide", [(1, 3)], True, 0.8, 20, 0.9, 3, 10),
    ("greedy_llama_tied_f32", "llama", "llama_tied_f32", [(0, 1), (1, 3)],
     False, 1.0, 0, 1.0, 0, 10),
]


def generating_model(family, checkpoint):
    """(the model generate() runs, its prompt's ids, the head width, the
    layers, attention_of(layer): the module whose input is the layer's
    heads' z side by side)."""
    if family == "gpt2":
        import make_generate_reference as mg
        model, ids = mg.load(checkpoint)
        blocks = model.transformer.h
        hd = model.transformer.embed_dim // blocks[0].attn.num_heads
        return model, ids, hd, len(blocks), lambda l: blocks[l].attn.c_proj
    import make_llama_generate_reference as mlg
    model, cfg, ids = mlg.load(checkpoint)
    layers = model.model.layers
    hd = cfg.hidden_size // cfg.num_attention_heads
    return (model, ids, hd, cfg.num_hidden_layers,
            lambda l: layers[l].self_attn.o_proj)


def corpus_generate_case(outdir, case):
    import make_generate_reference as mg
    (name, family, checkpoint, heads, sample, temperature, top_k, top_p,
     seed, n) = case
    model, ids, hd, L, attention_of = generating_model(family, checkpoint)

    def hooked(model, ids, hooks):
        handles = [attention_of(l).register_forward_pre_hook(h)
                   for l, h in hooks]
        try:
            logits, _ = model(input_ids=ids,
                              attention_mask=torch.ones_like(ids),
                              use_cache=False)
        finally:
            for handle in handles:
                handle.remove()
        return None, logits

    warpers = mg.get_logits_warper(temperature, top_k, top_p)
    with torch.no_grad():
        zall = corpus_z(hooked, model, corpus_ids(), L)
        torch.manual_seed(seed)
        clean = [t for t, _, _, _ in mg.generate(model, ids, sample, warpers,
                                                 n, None)]
        handles = []
        for layer in sorted({layer for layer, _ in heads}):
            mine = [h for l, h in heads if l == layer]
            handles.append(attention_of(layer).register_forward_pre_hook(
                corpus_ablating(mine, hd, zall[layer])))
        torch.manual_seed(seed)
        try:
            picked = mg.generate(model, ids, sample, warpers, n, None)
        finally:
            for handle in handles:
                handle.remove()
    assert [t for t, _, _, _ in picked] != clean, "the heads change nothing"
    extra = [("ablate", torch.tensor([[float(l), float(h)]
                                      for l, h in heads])),
             ("mode", torch.tensor([1.0])),
             ("clean", torch.tensor([float(t) for t in clean]))]
    mg.write_picked(outdir, "corpus_generate_" + name, picked, sample,
                    temperature, top_k, top_p, seed, n, None, extra)
    print("corpus_generate_" + name, checkpoint, heads,
          [t[0] for t in picked], "clean", clean)


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
    for case in CORPUS_GENERATE_CASES:
        if not only or case[2] in only:
            corpus_generate_case(outdir, case)


if __name__ == "__main__":
    main()
