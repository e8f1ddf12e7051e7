#!/usr/bin/env python3
"""PyTorch's numbers of training runs (--train), as digests.

Each case runs issue 23's notebook recipe with real PyTorch:

    torch.manual_seed(seed)
    emb = nn.Embedding(len(vocab), d_model)        # words in order of first appearance
    pos = nn.Embedding(context_length, d_model)    # only with --positions
    module = Variant(...)                           # the notebook's own class
    lm_head = nn.Linear(width, len(vocab), bias=False)
    opt = torch.optim.SGD(params, lr=lr)            # or Adam
    for step in range(N):
        ids = sentences[step % len(sentences)]
        x = emb(ids) + pos(torch.arange(len(ids)))
        logits = lm_head(module(x))                 # (1, T, d) for the batched classes
        loss = F.cross_entropy(logits[:-1], ids[1:])
        opt.zero_grad(); loss.backward(); opt.step()

then the shown sentence's loss and (with --grad) one more backward pass at
the final parameters.

The module is a class as its notebook wrote it, never a rewrite: how x's
gradient adds up depends on the order the class's forward computes its
projections (docs/exactness.md), so each order is the class that has it.

  --qkv-order kqv (keys first): the book's classes, copied verbatim in
      book_classes.py: SelfAttention_v2 (single, --no-causal),
      CausalAttention (single), MultiHeadAttentionWrapper (wrapper, each
      head d_out / heads wide), MultiHeadAttention (fused); the block is
      make_reference_teaching.py's post-norm TransformerBlock with the
      book's MultiHeadAttention as its attention.
  --qkv-order qkv (queries first): the notebooks' own classes, copied in
      make_reference_notebooks.py: the English lesson's
      EnMultiHeadAttention (fused) and EnTransformerBlock (block), the
      Chinese notebook's ZhMultiHeadAttention (fused), the chapter-3
      modules written with dropout (CausalAttention and Wrapper: single
      and wrapper over a batch), and make_reference.py's SelfAttention
      (single over (T, d), --no-causal, --no-scale).

Parameters, their gradients, the loss of every step, the logits, the
likeliest next words' probabilities (next_tokens: torch.softmax of the
logits, topk) and the
gradients of the inputs and logits come from that class. The gradients of
the intermediate tables (queries.grad, attn_weights.grad, ...), which do
not depend on the order, come from a second backward pass at the same
parameters through forwards written as make_reference.py's modules, each
intermediate kept with retain_grad(); its loss and logits must equal the
class's bit for bit.

A stack (--layers N) is nn.Sequential(*[block for _ in range(N)]) of
those blocks, each drawn after the one before, as a notebook stacks
them. The attention-only block (--attn-only) has no class in the book or
the lessons: AttnOnlyBlock below is the block with its feed-forward
sublayer and its LayerNorms taken out, as the induction-heads work's
attention-only models are, `x + self.attention(x)` with the book's
MultiHeadAttention. A stack's tables are listed under the head column
"L/H" (block L, head H; "L/" a block's table outside the heads), as
train_reference_test.py reads the CSV's layer and head columns.

With scores, a case also computes head_scores_steps: every head's
induction score on the shown sentence at up to 101 steps of the
training, TransformerLens's head_detector.py functions (as
make_intervention_reference.py copies them) over the attention weights
of make_reference.py's module at the parameters of that step.

A case without steps is --positions without --train: the input tables
and each variant's output. For each case it writes, into OUTDIR (default:
the `train` folder beside this script):

  NAME.args    the mha-explain arguments, one a line
  NAME.digest  one line per table PyTorch computed:
               variant,head,table,rows,cols,sha256 where sha256 is the
               SHA-256 of the table's float32 values in row-major order,
               each as the 8 lowercase hex digits of its IEEE bits and a
               newline, as make_reference_digest.py writes them

tests/reference/train_reference_test.py runs each case's arguments with
--format csv and compares every table listed.

    /usr/bin/python3 tests/reference/make_train_reference.py [OUTDIR]
    /usr/bin/python3 tests/reference/make_train_reference.py --dump NAME
"""

import hashlib
import os
import random
import struct
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import book_classes
import make_reference_notebooks as notebooks
from make_reference import (MultiHeadAttention, MultiHeadAttentionWrapper,
                            SelfAttention)
from make_reference_teaching import TransformerBlock

HERE = os.path.dirname(os.path.abspath(__file__))

SHOWN = "the cat sat on the mat"
LONG = ("one two three four five six seven eight nine ten one two three "
        "four five six seven eight nine ten eleven")

CASES = []


def random_words(n, seed=1):
    rng = random.Random(seed)
    words = ("the cat sat on mat and dog ran to house big small red blue "
             "tree sky run jump over under").split()
    return " ".join(rng.choice(words) for _ in range(n))


WORDS8 = random_words(8, 8)
WORDS13 = random_words(13, 13)
WORDS24 = random_words(24, 24)
WORDS32 = random_words(32)
WORDS40 = random_words(40, 40)
WORDS64 = random_words(64)


class AttnOnlyBlock(nn.Module):
    """The attention-only block: the book's MultiHeadAttention and the
    residual stream, no feed-forward network and no LayerNorm."""

    def __init__(self, attention):
        super().__init__()
        self.attention = attention

    def forward(self, x):
        return x + self.attention(x)


def repeated_random(n, seed):
    """n random words of a 20-word list, then the same n again."""
    rng = random.Random(seed)
    words = ["w%d" % i for i in range(20)]
    first = [rng.choice(words) for _ in range(n)]
    return " ".join(first + first)


def case(name, **kw):
    c = dict(name=name, sentence=SHOWN, d_model=8, d_out=8, heads=2, seed=123,
             variants=["single"], steps=1, lr=None, optimizer="sgd",
             positions=False, corpus=None, grad=True, threads=1,
             order="kqv", order_given=False)
    c.update(kw)
    CASES.append(c)


# The book's classes (keys first, the default order)
# single, SGD: one step, then many
case("train_single_sgd_1", steps=1)
case("train_single_sgd_200", steps=200, lr=0.05)
case("train_single_long", sentence=LONG, d_model=16, d_out=12, steps=20,
     lr=0.1)
case("train_single_grad0", steps=0)
# every variant with Adam, with and without positions
case("train_all_adam", variants=["single", "wrapper", "fused"],
     optimizer="adam", steps=300, lr=0.01)
case("train_all_adam_positions", variants=["single", "wrapper", "fused"],
     optimizer="adam", steps=100, positions=True, lr=0.02, threads=2)
case("train_all_sgd_long", variants=["single", "wrapper", "fused"],
     sentence=LONG, d_model=16, d_out=16, heads=4, steps=30, lr=0.2,
     qkv_bias=True, positions=True)
case("train_block_sgd", variants=["block"], d_model=8, heads=2, steps=40,
     lr=0.05, optimizer="sgd")
case("train_block_adam_long", variants=["single", "block"], sentence=LONG,
     d_model=16, d_out=16, heads=4, steps=200, lr=0.01, positions=True,
     qkv_bias=True, threads=2)
# the widths of the benchmark: the vector paths of every kernel
case("train_block_64", variants=["block", "wrapper"], sentence=WORDS32,
     d_model=64, d_out=64, heads=4, steps=20, lr=0.01, optimizer="adam")
case("train_fused_768", variants=["fused"], sentence=WORDS64, d_model=768,
     d_out=768, heads=12, steps=3, lr=0.01, optimizer="adam")
case("train_corpus", variants=["single", "wrapper", "fused", "block"],
     optimizer="adam", steps=60, lr=0.01, positions=True, threads=2,
     corpus=["a dog ran to a park", "the cat saw a dog",
             "dogs and cats play in the park today"])
# without the causal mask (the classes' mask buffer cleared)
case("train_no_causal", variants=["single", "wrapper", "fused"],
     sentence=LONG, d_model=8, d_out=12, heads=3, steps=25, lr=0.02,
     optimizer="adam", causal=False, qkv_bias=True)
# layers one column wide, 300 Adam steps over repeated words: --d-out 1
# (single; fused, whose out_proj is then one column too), heads one
# column wide (wrapper, fused, block), the block's --ff 1
case("train_width1_single", variants=["single"], sentence=WORDS40, d_model=3,
     d_out=1, heads=1, steps=300, optimizer="adam", qkv_bias=True)
case("train_width1_heads", variants=["wrapper", "fused"], sentence=WORDS24,
     d_model=5, d_out=4, heads=4, steps=300, optimizer="adam",
     qkv_bias=True, order_given=True)
case("train_width1_dout1", variants=["fused"], sentence=WORDS13, d_model=3,
     d_out=1, heads=1, steps=300, optimizer="adam", qkv_bias=True,
     causal=False)
case("train_width1_block", variants=["block"], sentence=WORDS32, d_model=4,
     d_out=4, heads=4, ff=1, steps=300, optimizer="adam", qkv_bias=True)

# stacks of blocks (--layers N) and attention-only blocks (--attn-only)
case("train_stack_sgd", variants=["block"], sentence=WORDS13, d_model=8,
     heads=2, layers=2, steps=30, lr=0.05, optimizer="sgd")
case("train_stack_adam", variants=["block"], sentence=LONG, d_model=8,
     heads=4, layers=3, steps=60, lr=0.01, optimizer="adam", positions=True,
     qkv_bias=True)
case("train_attn_only_sgd", variants=["block"], sentence=WORDS13, d_model=8,
     heads=2, attn_only=True, steps=30, lr=0.05, optimizer="sgd")
case("train_attn_only_stack_sgd", variants=["block"], sentence=WORDS13,
     d_model=8, heads=2, layers=2, attn_only=True, steps=30, lr=0.05,
     optimizer="sgd")
case("train_attn_only_stack_adam", variants=["block"],
     sentence=repeated_random(8, 3), d_model=16, heads=4, layers=2,
     attn_only=True, steps=80, lr=0.01, optimizer="adam", positions=True)
case("train_attn_only_stack_corpus", variants=["block"],
     sentence=repeated_random(6, 9), d_model=8, heads=2, layers=2,
     attn_only=True, steps=40, lr=0.02, optimizer="adam", positions=True,
     corpus=[repeated_random(6, s) for s in range(4)], causal=True)

# head_scores_steps: every head's induction score as the training goes
case("train_scores_attn_only_stack", variants=["block"],
     sentence=repeated_random(6, 5), d_model=8, heads=2, layers=2,
     attn_only=True, steps=150, lr=0.01, optimizer="adam", positions=True,
     corpus=[repeated_random(6, s) for s in range(10, 16)], scores=True,
     tables=["loss", "head_scores_steps", "lm_head.weight"])
case("train_scores_fused", variants=["single", "wrapper", "fused"],
     sentence=repeated_random(5, 2), d_model=8, d_out=8, heads=2, steps=40,
     lr=0.05, optimizer="sgd", scores=True,
     tables=["loss", "head_scores_steps"])

# The notebooks' classes that compute the queries first (--qkv-order qkv)
case("train_qkv_all", variants=["single", "wrapper", "fused", "block"],
     sentence=LONG, d_model=8, d_out=8, heads=2, steps=300, lr=0.01,
     optimizer="adam", qkv_bias=True, order="qkv")
case("train_qkv_no_causal", variants=["single", "wrapper", "fused", "block"],
     sentence=WORDS13, d_model=8, d_out=8, heads=4, steps=100,
     optimizer="adam", qkv_bias=True, causal=False, positions=True,
     order="qkv")
case("train_qkv_sgd", variants=["single", "wrapper"], sentence=WORDS8,
     d_model=6, d_out=6, heads=3, steps=40, lr=0.2, order="qkv")
case("train_qkv_width1", variants=["single", "wrapper", "fused", "block"],
     sentence=WORDS40, d_model=4, d_out=4, heads=4, ff=1, steps=300,
     optimizer="adam", qkv_bias=True, order="qkv")
case("train_qkv_width1_single", variants=["single"], sentence=WORDS24,
     d_model=3, d_out=1, heads=1, steps=300, optimizer="adam",
     qkv_bias=True, order="qkv")
# without scaling: a class of make_reference.py's, queries first
case("train_no_scale", variants=["single"], steps=25, lr=0.1,
     optimizer="sgd", scale=False, order="qkv")

# Each notebook's class as written, 50 Adam steps (docs/notebooks.md)
case("notebook_pt", variants=["single", "wrapper", "fused"],
     sentence="O gato sobe no tapete", d_model=3, d_out=4, heads=2, seed=42,
     steps=50, optimizer="adam", order_given=True)
case("notebook_zh", variants=["fused"], sentence="我 喜欢 吃 牛舌",
     d_model=64, d_out=64, heads=4, seed=42, steps=50, optimizer="adam",
     qkv_bias=True, causal=False, order="qkv", zh=True)
# the Chinese notebook's own size, 512 wide (some of its tables: the
# whole run's CSV would be large)
case("notebook_zh_512", variants=["fused"], sentence="我 喜欢 吃 牛舌",
     d_model=512, d_out=512, heads=8, seed=42, steps=50, optimizer="adam",
     qkv_bias=True, causal=False, order="qkv", zh=True,
     tables=["W_key.bias", "out_proj.bias", "logits", "loss", "inputs.grad",
             "embedding.weight.grad", "W_query.bias.grad", "W_key.bias.grad",
             "W_value.bias.grad", "W_value.weight.grad", "out_proj.bias.grad",
             "lm_head.weight.grad"])
case("notebook_cantonese", variants=["block"],
     sentence="呢間 餐廳 嘅 牛舌 好 出名 ， 慢煮 牛舌 好 好食", d_model=16,
     d_out=16, heads=4, seed=42, steps=50, optimizer="adam", qkv_bias=True,
     order="qkv")
case("notebook_en", variants=["fused", "block"],
     sentence="法國 紅酒 慢煮 阿根廷 牛舌 配", d_model=64, d_out=64, heads=4,
     seed=42, steps=50, optimizer="adam", qkv_bias=True, causal=False,
     order="qkv")
case("notebook_es", variants=["wrapper", "fused"],
     sentence="El gato sube a la alfombra", d_model=3, d_out=4, heads=2,
     seed=123, steps=50, optimizer="adam", order_given=True)

# --positions without --train: the forward pass over emb(ids) + pos(arange)
case("positions_forward", variants=["single", "wrapper", "fused", "block"],
     sentence=LONG, d_model=8, d_out=8, heads=2, steps=None, positions=True,
     grad=False)
case("positions_forward_attn_only", variants=["block"], sentence=LONG,
     d_model=8, d_out=8, heads=2, steps=None, positions=True, grad=False,
     attn_only=True, layers=2)


def forward_tables(c):
    """A run without --train: [(variant, head, table, tensor)] of the input
    tables and each variant's output, each variant its own notebook."""
    words = words_of(c["sentence"])
    vocab = {}
    for w in words:
        vocab.setdefault(w, len(vocab))
    ids = torch.tensor([vocab[w] for w in words])
    T = len(ids)
    out = []
    for variant in c["variants"]:
        torch.manual_seed(c["seed"])
        emb = nn.Embedding(len(vocab), c["d_model"])
        pos = nn.Embedding(T, c["d_model"])
        module, _ = build(variant, c, T)
        module.eval()
        with torch.no_grad():
            x = emb(ids) + pos(torch.arange(T))
            if not out:
                out.append(("input", "", "pos_embedding.weight",
                            pos.weight.clone()))
                out.append(("input", "", "inputs", x.clone()))
            y = module(x) if variant == "single" else \
                module(x.unsqueeze(0))[0]
        name = {"single": "head_context", "wrapper": "concat_context"}.get(
            variant, "out")
        head = "0" if variant == "single" else ""
        if variant == "block" and c.get("layers"):
            head = "%d/" % (c["layers"] - 1)  # the last block's out
        out.append((variant, head, name, y))
    return out


def words_of(sentence):
    return sentence.split()


def build(variant, c, T):
    """make_reference.py's module of the variant (the forwards `traced`
    follows) and its output width."""
    d, o, h = c["d_model"], c["d_out"], c["heads"]
    bias = c.get("qkv_bias", False)
    causal, scale = c.get("causal", True), c.get("scale", True)
    if variant == "single":
        return SelfAttention(d, o, bias, causal, scale), o
    if variant == "wrapper":
        return MultiHeadAttentionWrapper(d, o, T, h, bias, causal, scale), o
    if variant == "fused":
        return MultiHeadAttention(d, o, T, h, bias, causal, scale), o
    if c.get("layers"):
        one = dict(c, layers=None)
        return nn.Sequential(*[build(variant, one, T)[0]
                               for _ in range(c["layers"])]), d
    if c.get("attn_only"):
        attention = MultiHeadAttention(d, d, T, h, bias, causal, scale)
        return AttnOnlyBlock(attention), d
    block = TransformerBlock(d, h, c.get("ff") or 4 * d, T, bias)
    block.attention.causal = causal
    return block, d


def causal_ones(T):
    """The lesson's mask argument: 1 where a token may look."""
    return torch.tril(torch.ones(T, T))


def build_class(variant, c, T):
    """The notebook class that computes the projections in c's order:
    (module, its output width, apply(module, x (T, d)) -> (T, width),
    {its parameter's name: mha-explain's})."""
    d, o, h = c["d_model"], c["d_out"], c["heads"]
    bias = c.get("qkv_bias", False)
    causal, scale = c.get("causal", True), c.get("scale", True)
    batched = (lambda m, x: m(x.unsqueeze(0))[0])
    plain = (lambda m, x: m(x))
    same = {}
    if not scale:
        # no book or lesson class leaves the scaling out
        assert c["order"] == "qkv" and variant == "single" and not bias
        return SelfAttention(d, o, bias, causal, scale), o, plain, same
    if c["order"] == "kqv":
        if variant == "single" and not causal:
            return book_classes.SelfAttention_v2(d, o, bias), o, plain, same
        if variant == "single":
            return (book_classes.CausalAttention(d, o, T, 0.0, bias), o,
                    batched, same)
        if variant == "wrapper":
            m = book_classes.MultiHeadAttentionWrapper(d, o // h, T, 0.0, h,
                                                       bias)
            for head in m.heads:
                if not causal:
                    head.mask.zero_()
            return m, o, batched, same
        if variant == "fused":
            m = book_classes.MultiHeadAttention(d, o, T, 0.0, h, bias)
            if not causal:
                m.mask.zero_()
            return m, o, batched, same
        if c.get("layers"):
            # nn.Sequential(*[block for _ in range(N)]), each block drawn
            # after the one before
            one = dict(c, layers=None)
            blocks = [build_class(variant, one, T)[0]
                      for _ in range(c["layers"])]
            return nn.Sequential(*blocks), d, batched, same
        if c.get("attn_only"):
            m = book_classes.MultiHeadAttention(d, d, T, 0.0, h, bias)
            if not causal:
                m.mask.zero_()
            return AttnOnlyBlock(m), d, batched, same
        # the post-norm block with the book's MultiHeadAttention as its
        # attention, made with the block's own draws
        m, width = build(variant, c, T)
        state = torch.get_rng_state()
        attention = book_classes.MultiHeadAttention(d, d, T, 0.0, h, bias)
        torch.set_rng_state(state)
        attention.load_state_dict(m.attention.state_dict())
        if not causal:
            attention.mask.zero_()
        m.attention = attention
        return m, width, batched, same
    # queries first
    assert not c.get("layers") and not c.get("attn_only")
    mask = causal_ones(T) if causal else None
    if variant == "single" and not causal:
        return SelfAttention(d, o, bias, False, True), o, plain, same
    if variant == "single":
        return (notebooks.CausalAttention(d, o, bias, True, 0.0), o, batched,
                same)
    if variant == "wrapper":
        return (notebooks.Wrapper(d, o, h, bias, causal, 0.0), o, batched,
                same)
    # the lessons' classes have a bias on every projection and are
    # d_model wide
    assert bias and d == o
    if variant == "fused" and c.get("zh"):
        names = {"W_q": "W_query", "W_k": "W_key", "W_v": "W_value",
                 "W_o": "out_proj"}
        assert not causal
        return (notebooks.ZhMultiHeadAttention(d, h), o,
                lambda m, x: m(x.unsqueeze(0), x.unsqueeze(0), x.unsqueeze(0),
                               None)[0][0], names)
    names = {"query": "W_query", "key": "W_key", "value": "W_value",
             "out": "out_proj", "feed_forward": "ff"}
    if variant == "fused":
        return (notebooks.EnMultiHeadAttention(d, h), o,
                lambda m, x: m(x.unsqueeze(0), x.unsqueeze(0), x.unsqueeze(0),
                               mask)[0][0], names)
    return (notebooks.EnTransformerBlock(d, h, c.get("ff") or 4 * d, 0.0), d,
            lambda m, x: m(x.unsqueeze(0), mask)[0][0], names)


def renamed(name, names):
    """mha-explain's name of a class's parameter."""
    return ".".join(names.get(part, part) for part in name.split("."))


def retain(seen, name, t, head=None):
    """Keeps t's gradient for the table `name` (of head `head`)."""
    t.retain_grad()
    seen.append((name, head, t))
    return t


def heads_of(seen, name, t):
    """A (1, H, T, n) tensor's heads as tables of one name."""
    t.retain_grad()
    seen.append((name, "split", t))
    return t


def attend(seen, q, k, v, head, scale_dim, T, c):
    """Scores, weights and context of one head (or of the fused heads),
    as the notebook modules compute them."""
    scores = q @ k.transpose(-2, -1)
    if c.get("causal", True):
        mask = torch.triu(torch.ones(T, T), diagonal=1).bool()
        scores = scores.masked_fill(mask, -torch.inf)
    keep = retain if head != "split" else (lambda s_, n, t, h=None:
                                           heads_of(s_, n, t))
    keep(seen, "attn_scores", scores, head)
    if c.get("scale", True):
        scores = scores / scale_dim ** 0.5
    weights = torch.softmax(scores, dim=-1)
    keep(seen, "attn_weights", weights, head)
    context = weights @ v
    keep(seen, "head_context", context, head)
    return context


def traced(variant, module, x, seen, c):
    """module(x) as its forward computes it, every intermediate table's
    gradient kept (seen: (name, head, tensor))."""
    T = x.shape[0]
    if variant == "single":
        q = retain(seen, "queries", module.W_query(x), 0)
        k = retain(seen, "keys", module.W_key(x), 0)
        v = retain(seen, "values", module.W_value(x), 0)
        scores = q @ k.T
        if c.get("causal", True):
            mask = torch.triu(torch.ones(T, T), diagonal=1).bool()
            scores = scores.masked_fill(mask, -torch.inf)
        scores = retain(seen, "attn_scores", scores, 0)
        if c.get("scale", True):
            scores = scores / k.shape[-1] ** 0.5
        w = retain(seen, "attn_weights", torch.softmax(scores, dim=-1), 0)
        return retain(seen, "head_context", w @ v, 0)
    x3 = x.unsqueeze(0)
    if variant == "block" and c.get("layers"):
        # each block in turn, its tables under its index
        one = dict(c, layers=None)
        for i, block in enumerate(module):
            own = []
            x = traced(variant, block, x, own, one)
            seen += [(name, (i, head), t) for name, head, t in own]
        return x
    if variant == "block" and c.get("attn_only"):
        attn = retain(seen, "attn_out",
                      fused_traced(module.attention, x3, seen, c))
        return retain(seen, "out", x3 + attn)[0]
    if variant == "wrapper":
        contexts = []
        for h, head in enumerate(module.heads):
            q = retain(seen, "queries", head.W_query(x3), h)
            k = retain(seen, "keys", head.W_key(x3), h)
            v = retain(seen, "values", head.W_value(x3), h)
            contexts.append(attend(seen, q, k, v, h, k.shape[-1], T, c))
        return retain(seen, "concat_context", torch.cat(contexts, dim=-1))[0]
    if variant == "fused":
        return retain(seen, "out", fused_traced(module, x3, seen, c))[0]
    # the block, post-norm
    attn = retain(seen, "attn_out",
                  fused_traced(module.attention, x3, seen, c))
    norm1 = retain(seen, "add_norm1", module.norm1(x3 + attn))
    hidden = retain(seen, "ffn_hidden", module.ff[1](module.ff[0](norm1)))
    ffn = retain(seen, "ffn_out", module.ff[2](hidden))
    return retain(seen, "out", module.norm2(norm1 + ffn))[0]


def fused_traced(m, x, seen, c):
    b, T, _ = x.shape
    keys = m.W_key(x)
    queries = m.W_query(x)
    values = m.W_value(x)
    keys = keys.view(b, T, m.num_heads, m.head_dim).transpose(1, 2)
    queries = queries.view(b, T, m.num_heads, m.head_dim).transpose(1, 2)
    values = values.view(b, T, m.num_heads, m.head_dim).transpose(1, 2)
    heads_of(seen, "keys", keys)
    heads_of(seen, "queries", queries)
    heads_of(seen, "values", values)
    context = attend(seen, queries, keys, values, "split", keys.shape[-1], T,
                     c)
    context = context.transpose(1, 2).contiguous().view(b, T, m.d_out)
    retain(seen, "concat_context", context)
    return m.out_proj(context)


def next_tokens(logits):
    """next_tokens' values: at each position the probabilities of the k
    likeliest next words (k = 5, or the vocabulary when smaller), the
    largest first: torch.softmax over the logits' rows, then topk. (A tie
    between two words gives the same values in either order.)"""
    probs = torch.softmax(logits.detach(), -1)
    return torch.topk(probs, min(5, probs.shape[-1]), dim=-1).values \
        .reshape(-1, 1).clone()


def loss_of(logits, ids):
    return F.cross_entropy(logits[:-1], ids[1:])


class Notebook:
    """One variant's notebook as trained: emb, pos (or None), module (its
    class, called through apply), lm_head, the named parameters and the
    loss before each step."""

    def inputs_of(self, ids):
        x = self.emb(ids)
        if self.pos is not None:
            x = x + self.pos(torch.arange(len(ids)))
        return x

    def logits(self, ids):
        """lm_head(module(emb(ids) + pos(arange(T)))): (T, V)."""
        return self.lm_head(self.apply(self.module, self.inputs_of(ids)))


def train_notebook(c, variant, vocab, sentences, shown, look=None):
    """The notebook of one variant, drawn from the seed and trained for
    c["steps"] steps over the sentences in turn; look(step, nb), if
    given, before each step and after the last (step N)."""
    torch.manual_seed(c["seed"])
    context = max(len(s) for s in sentences + [shown])
    emb = nn.Embedding(len(vocab), c["d_model"])
    pos = nn.Embedding(context, c["d_model"]) if c["positions"] else None
    module, width, apply, names = build_class(variant, c, context)
    lm_head = nn.Linear(width, len(vocab), bias=False)
    named = [("embedding.weight", emb.weight)]
    if pos is not None:
        named.append(("pos_embedding.weight", pos.weight))
    named += [(renamed(n, names), p) for n, p in module.named_parameters()]
    named.append(("lm_head.weight", lm_head.weight))
    params = [p for _, p in named]
    lr = c["lr"] if c["lr"] is not None else \
        (0.01 if c["optimizer"] == "adam" else 0.1)
    if c["optimizer"] == "adam":
        opt = torch.optim.Adam(params, lr=lr)
    else:
        opt = torch.optim.SGD(params, lr=lr)

    nb = Notebook()
    nb.emb, nb.pos, nb.module, nb.apply, nb.lm_head = (emb, pos, module,
                                                       apply, lm_head)
    nb.width, nb.names, nb.named, nb.context = width, names, named, context
    nb.losses = []
    for step in range(c["steps"]):
        if look is not None:
            look(step, nb)
        ids = sentences[step % len(sentences)]
        loss = loss_of(nb.logits(ids), ids)
        nb.losses.append(loss.detach().clone())
        opt.zero_grad()
        loss.backward()
        opt.step()
    if look is not None:
        look(c["steps"], nb)
    opt.zero_grad()
    return nb


def scores_look(c, variant, shown, rows):
    """head_scores_steps: at K = min(N + 1, 101) steps evenly spaced
    from 0 to N, every head's (block by block) induction score on the
    shown sentence, as TransformerLens's head detector computes it
    (make_intervention_reference.py's copies of head_detector.py's
    functions) from the attention weights of make_reference.py's module
    at the notebook's parameters then; a row of rows per step."""
    import make_intervention_reference as detector
    steps = c["steps"]
    k = min(steps + 1, 101)
    chosen = {i * steps // (k - 1) if k > 1 else 0 for i in range(k)}
    d = detector.get_induction_head_detection_pattern(shown.unsqueeze(0))

    def score(a):
        return detector.compute_head_attention_similarity_score(
            a.clone(), detection_pattern=d, exclude_bos=False,
            exclude_current_token=False, error_measure="mul")

    def look(step, nb):
        if step not in chosen:
            return
        twin, _ = build(variant, c, nb.context)
        params = dict(twin.named_parameters())
        with torch.no_grad():
            for name, p in nb.named:
                if name in params:
                    params[name].copy_(p)
        seen = []
        traced(variant, twin, nb.inputs_of(shown).detach().requires_grad_(),
               seen, c)
        row = []
        for name, head, t in seen:
            head = head[1] if isinstance(head, tuple) else head
            if name != "attn_weights":
                continue
            w = t.detach()
            if head == "split":
                row += [score(w[0, h]) for h in range(w.shape[1])]
            else:
                row.append(score(w[0] if w.dim() == 3 else w))
        rows.append(row)
    return look


def run_variant(c, variant, vocab, sentences, shown):
    """[(table name, head or None, 2-D tensor)] of one variant's notebook
    run."""
    scores = []
    look = scores_look(c, variant, shown, scores) if c.get("scores") \
        else None
    nb = train_notebook(c, variant, vocab, sentences, shown, look)
    emb, pos, module, apply, lm_head = (nb.emb, nb.pos, nb.module, nb.apply,
                                        nb.lm_head)
    named, context, losses, inputs_of = (nb.named, nb.context, nb.losses,
                                         nb.inputs_of)
    x = inputs_of(shown)
    x.retain_grad()
    logits = lm_head(apply(module, x))
    logits.retain_grad()
    loss = loss_of(logits, shown)
    losses.append(loss.detach().clone())
    tables = []
    for name, p in named:
        tables.append((name, None, p.detach().clone()))
    tables.append(("logits", None, logits.detach().clone()))
    tables.append(("next_tokens", None, next_tokens(logits)))
    tables.append(("loss", None, torch.stack(losses).reshape(-1, 1)))
    if scores:
        tables.append(("head_scores_steps", None, torch.tensor(scores)))
    if not c["grad"]:
        return tables
    loss.backward()
    tables.append(("inputs.grad", None, x.grad.detach().clone()))
    tables.append(("logits.grad", None, logits.grad.detach().clone()))
    for name, p in named:
        tables.append((name + ".grad", None, p.grad.detach().clone()))

    # the intermediates' gradients, through make_reference.py's module at
    # the same parameters
    twin, _ = build(variant, c, context)
    twin_params = dict(twin.named_parameters())
    assert len(twin_params) == len(named) - 2 - (pos is not None)
    with torch.no_grad():
        for name, p in named:
            if name in twin_params:
                twin_params[name].copy_(p)
    seen = []
    x2 = inputs_of(shown).detach().requires_grad_()
    logits2 = lm_head(traced(variant, twin, x2, seen, c))
    loss2 = loss_of(logits2, shown)
    assert torch.equal(logits2, logits) and torch.equal(loss2, loss), \
        "the twin's forward is the class's"
    loss2.backward()
    for name, head, t in seen:
        g = t.grad.detach().clone()
        layer, head = head if isinstance(head, tuple) else (None, head)
        if head == "split":
            for h in range(g.shape[1]):
                tables.append((name + ".grad", (layer, h), g[0, h]))
        else:
            tables.append((name + ".grad", (layer, head),
                           g[0] if g.dim() == 3 else g))
    return tables


def head_column(c, name, head):
    """The digest's head column of a table: its head (or empty), in a
    stack "L/H" with L its block (a parameter's from its name)."""
    layer, head = head if isinstance(head, tuple) else (None, head)
    if c.get("layers") and layer is None and name.split(".")[0].isdigit():
        layer = int(name.split(".")[0])
    h = "" if head is None else str(head)
    return h if layer is None else "%d/%s" % (layer, h)


def args_of(c):
    a = ["--d-model", str(c["d_model"]), "--d-out", str(c["d_out"]),
         "--heads", str(c["heads"]), "--seed", str(c["seed"]),
         "--variant", ",".join(c["variants"]), "--threads",
         str(c["threads"])]
    if c["steps"] is not None:
        a += ["--train", str(c["steps"]), "--optimizer", c["optimizer"]]
    if c["lr"] is not None:
        a += ["--lr", repr(c["lr"])]
    if c.get("qkv_bias"):
        a.append("--qkv-bias")
    if c.get("ff"):
        a += ["--ff", str(c["ff"])]
    if c.get("layers"):
        a += ["--layers", str(c["layers"])]
    if c.get("attn_only"):
        a.append("--attn-only")
    if c["order"] != "kqv" or c["order_given"]:
        a += ["--qkv-order", c["order"]]
    if not c.get("causal", True):
        a.append("--no-causal")
    if not c.get("scale", True):
        a.append("--no-scale")
    if c["positions"]:
        a.append("--positions")
    if c["grad"]:
        a.append("--grad")
    if c["corpus"]:
        a += ["--corpus", "{DIR}/%s.corpus.csv" % c["name"], "--column",
              "text"]
    if c.get("tables"):
        a += ["--tables", ",".join(c["tables"])]
    a.append(c["sentence"])
    return a


def tables_of(c):
    """[(variant, head, table name, tensor)] in the program's order."""
    if c["steps"] is None:
        return forward_tables(c)
    shown_words = words_of(c["sentence"])
    corpus = [words_of(s) for s in c["corpus"]] if c["corpus"] else []
    vocab = {}
    for w in [w for s in corpus for w in s] + shown_words:
        vocab.setdefault(w, len(vocab))
    sentences = [torch.tensor([vocab[w] for w in s]) for s in corpus] or \
        [torch.tensor([vocab[w] for w in shown_words])]
    shown = torch.tensor([vocab[w] for w in shown_words])
    out = []
    for variant in c["variants"]:
        for name, head, t in run_variant(c, variant, vocab, sentences,
                                         shown):
            if t.dim() == 1:
                t = t.unsqueeze(0)
            out.append((variant, head_column(c, name, head), name, t))
    return out


def hexes(t):
    return [struct.pack(">f", v).hex() for v in t.reshape(-1).tolist()]


def digest(t):
    h = hashlib.sha256()
    for x in hexes(t):
        h.update((x + "\n").encode("ascii"))
    return h.hexdigest()


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--dump":
        c = next(c for c in CASES if c["name"] == sys.argv[2])
        for variant, head, name, t in tables_of(c):
            print("%s/%s %s %s" % (variant, head, name, " ".join(hexes(t))))
        return 0
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "train")
    os.makedirs(outdir, exist_ok=True)
    torch.set_num_threads(1)
    for c in CASES:
        name = c["name"]
        with open(os.path.join(outdir, name + ".digest"), "w",
                  encoding="utf-8", newline="\n") as f:
            f.write("variant,head,table,rows,cols,sha256\n")
            for variant, head, table, t in tables_of(c):
                if c.get("tables") and table not in c["tables"]:
                    continue
                f.write("%s,%s,%s,%d,%d,%s\n" % (variant, head, table,
                                                 t.shape[0], t.shape[1],
                                                 digest(t)))
        with open(os.path.join(outdir, name + ".args"), "w",
                  encoding="utf-8", newline="\n") as f:
            for a in args_of(c):
                f.write(a + "\n")
        if c["corpus"]:
            with open(os.path.join(outdir, name + ".corpus.csv"), "w",
                      encoding="utf-8", newline="\n") as f:
                f.write("text\n")
                for s in c["corpus"]:
                    f.write(s + "\n")
        print("%s: done" % name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
