#!/usr/bin/env python3
"""Make small random Llama-style checkpoints and PyTorch's tables for them.

For every case below it writes a folder llama/NAME/ (beside this script,
or in OUTDIR):

  config.json        the keys mha-explain reads, as LlamaConfig,
                     Qwen2Config and MistralConfig write them
  model.safetensors  the parameters under Hugging Face's names (with the
                     "model." prefix of *ForCausalLM), or, for a sharded
                     case, model-0000N-of-0000M.safetensors and
                     model.safetensors.index.json ({"weight_map": {name:
                     file}})
  tokenizer.json     a toy byte-level BPE (the vocabulary and merges of
                     make_gpt2_reference.py, as tests/tools/
                     gpt2_tokenizer_json.py writes them)
  text.txt, ids.txt  the text and its token ids
  reference.safetensors
                     every table of the forward pass as PyTorch computes
                     it: "embedded", "L.ln_1", "L.head.H.queries" (before
                     the rotation), "L.head.H.keys" and "values" (of the
                     key/value head H // (heads / kv_heads)),
                     "L.head.H.queries_rotated", "keys_rotated",
                     "attn_scores" (the softmax's input: scaled, plus the
                     causal mask), "attn_weights", "head_context",
                     "L.concat", "L.attn_out", "L.residual", "L.ln_2",
                     "L.ffn_hidden" (down_proj's input), "L.ffn_out",
                     "L.hidden", "out", "logits"

The forward pass is transformers' own code, copied below verbatim from
huggingface/transformers at commit 5dd4a63548857797727ae73eeb6a6e886ea02a3e
(src/transformers/models/llama/modeling_llama.py: LlamaRMSNorm,
LlamaRotaryEmbedding, rotate_half, apply_rotary_pos_emb, LlamaMLP,
repeat_kv, eager_attention_forward, LlamaAttention, LlamaDecoderLayer).
A Qwen2 checkpoint runs Qwen2's own classes of the same commit
(src/transformers/models/qwen2/modeling_qwen2.py: Qwen2MLP,
Qwen2Attention with biased q/k/v, Qwen2RMSNorm, Qwen2DecoderLayer,
Qwen2RotaryEmbedding), which are not kept in this repository: they are
read at run time from a saved copy of that file (hf_source.py says where;
running this script needs it, the tests never do). A Mistral checkpoint
runs modeling_llama.py's: at that commit MistralAttention differs from
LlamaAttention only in passing sliding_window (None here) on to
eager_attention_forward, which does not read it. What LlamaModel
(Qwen2Model: the same code at that commit) and LlamaForCausalLM add
around the layers is run as they run it: the embedding, position_ids =
arange(T), the rotary embedding once, the causal mask of
_prepare_4d_causal_attention_mask_with_cache_position (finfo.min above
the diagonal, +0 elsewhere), the layers, the norm, and lm_head (tied to embed_tokens or not). Eager attention, evaluation mode,
no cache, float32 on the CPU; F16 and BF16 weights are made float32 as
model.float() does. The tables are read through forward hooks and by
wrapping apply_rotary_pos_emb and torch.nn.functional.softmax, which
the copied code calls.

How to run it (Debian's python3-torch 1.13, CPU):

    /usr/bin/python3 tests/reference/make_llama_reference.py [OUTDIR]
"""

import ast
import json
import os
import sys
from typing import Callable, Optional, Tuple

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
from make_gpt2_reference import encode, toy_vocab, write_safetensors  # noqa
import gpt2_tokenizer_json  # noqa: E402
import hf_source  # noqa: E402

# name, model_type, layers, heads, kv heads, hidden, intermediate, tied,
# dtype, shards, rope_theta, rms_norm_eps, text, seed
CASES = [
    ("llama_tied_f32", "llama", 2, 4, 2, 16, 40, True, "F32", 1, 10000.0,
     1e-5, "hello, hello world! the cat sat", 11),
    ("llama_gqa4_bf16", "llama", 2, 4, 1, 32, 48, False, "BF16", 1,
     500000.0, 1e-5, "the cat sat on the mat, hello world", 12),
    ("qwen2_bias_f16", "qwen2", 2, 2, 2, 24, 36, True, "F16", 1, 1000000.0,
     1e-6, "I'm here, the end", 13),
    ("mistral_sharded", "mistral", 3, 4, 2, 16, 24, False, "F32", 2,
     10000.0, 1e-5, "the end of the world", 14),
    # a head 48 wide: torch.pow takes SLEEF's powf for the first 16
    # frequencies, the C library's for the last 8
    ("llama_head48_bf16", "llama", 1, 2, 1, 96, 40, True, "BF16", 1,
     10000.0, 1e-5, "hello world, the cat", 15),
]


class _Logger:
    def warning_once(self, *args, **kwargs):
        pass


logger = _Logger()
Unpack = Tuple  # the copied signatures' annotations only
FlashAttentionKwargs = dict
Cache = object
ACT2FN = {"silu": nn.SiLU()}


def _compute_default_rope_parameters(config=None, device=None, seq_len=None,
                                     **rope_kwargs):
    # modeling_rope_utils.py's default RoPE, its config path
    base = config.rope_theta
    partial_rotary_factor = config.partial_rotary_factor if hasattr(config, "partial_rotary_factor") else 1.0
    head_dim = getattr(config, "head_dim", config.hidden_size // config.num_attention_heads)
    dim = int(head_dim * partial_rotary_factor)

    attention_factor = 1.0  # Unused in this type of RoPE

    # Compute the inverse frequencies
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float().to(device) / dim))
    return inv_freq, attention_factor


ROPE_INIT_FUNCTIONS = {"default": _compute_default_rope_parameters}


# ---- modeling_llama.py at 5dd4a63548857797727ae73eeb6a6e886ea02a3e ---------

class LlamaRMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        """
        LlamaRMSNorm is equivalent to T5LayerNorm
        """
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)

    def extra_repr(self):
        return f"{tuple(self.weight.shape)}, eps={self.variance_epsilon}"


class LlamaRotaryEmbedding(nn.Module):
    def __init__(self, config, device=None):
        super().__init__()
        # BC: "rope_type" was originally "type"
        if hasattr(config, "rope_scaling") and config.rope_scaling is not None:
            self.rope_type = config.rope_scaling.get("rope_type", config.rope_scaling.get("type"))
        else:
            self.rope_type = "default"
        self.max_seq_len_cached = config.max_position_embeddings
        self.original_max_seq_len = config.max_position_embeddings

        self.config = config
        self.rope_init_fn = ROPE_INIT_FUNCTIONS[self.rope_type]

        inv_freq, self.attention_scaling = self.rope_init_fn(self.config, device)
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.original_inv_freq = self.inv_freq

    @torch.no_grad()
    def forward(self, x, position_ids):
        if "dynamic" in self.rope_type:
            self._dynamic_frequency_update(position_ids, device=x.device)

        # Core RoPE block
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        position_ids_expanded = position_ids[:, None, :].float()
        # Force float32 (see https://github.com/huggingface/transformers/pull/29285)
        device_type = x.device.type
        device_type = device_type if isinstance(device_type, str) and device_type != "mps" else "cpu"
        with torch.autocast(device_type=device_type, enabled=False):
            freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
            emb = torch.cat((freqs, freqs), dim=-1)
            cos = emb.cos()
            sin = emb.sin()

        # Advanced RoPE types (e.g. yarn) apply a post-processing scaling factor, equivalent to scaling attention
        cos = cos * self.attention_scaling
        sin = sin * self.attention_scaling

        return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)


def rotate_half(x):
    """Rotates half the hidden dims of the input."""
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, position_ids=None, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


class LlamaMLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.hidden_size = config.hidden_size
        self.intermediate_size = config.intermediate_size
        self.gate_proj = nn.Linear(self.hidden_size, self.intermediate_size, bias=config.mlp_bias)
        self.up_proj = nn.Linear(self.hidden_size, self.intermediate_size, bias=config.mlp_bias)
        self.down_proj = nn.Linear(self.intermediate_size, self.hidden_size, bias=config.mlp_bias)
        self.act_fn = ACT2FN[config.hidden_act]

    def forward(self, x):
        down_proj = self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))
        return down_proj


def repeat_kv(hidden_states: torch.Tensor, n_rep: int) -> torch.Tensor:
    """
    This is the equivalent of torch.repeat_interleave(x, dim=1, repeats=n_rep). The hidden states go from (batch,
    num_key_value_heads, seqlen, head_dim) to (batch, num_attention_heads, seqlen, head_dim)
    """
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


def eager_attention_forward(
    module: nn.Module,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: Optional[torch.Tensor],
    scaling: float,
    dropout: float = 0.0,
    **kwargs,
):
    key_states = repeat_kv(key, module.num_key_value_groups)
    value_states = repeat_kv(value, module.num_key_value_groups)

    attn_weights = torch.matmul(query, key_states.transpose(2, 3)) * scaling
    if attention_mask is not None:
        causal_mask = attention_mask[:, :, :, : key_states.shape[-2]]
        attn_weights = attn_weights + causal_mask

    attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
    attn_weights = nn.functional.dropout(attn_weights, p=dropout, training=module.training)
    attn_output = torch.matmul(attn_weights, value_states)
    attn_output = attn_output.transpose(1, 2).contiguous()

    return attn_output, attn_weights


class LlamaAttention(nn.Module):
    """Multi-headed attention from 'Attention Is All You Need' paper"""

    def __init__(self, config, layer_idx: int):
        super().__init__()
        self.config = config
        self.layer_idx = layer_idx
        self.head_dim = getattr(config, "head_dim", config.hidden_size // config.num_attention_heads)
        self.num_key_value_groups = config.num_attention_heads // config.num_key_value_heads
        self.scaling = self.head_dim**-0.5
        self.attention_dropout = config.attention_dropout
        self.is_causal = True

        self.q_proj = nn.Linear(
            config.hidden_size, config.num_attention_heads * self.head_dim, bias=config.attention_bias
        )
        self.k_proj = nn.Linear(
            config.hidden_size, config.num_key_value_heads * self.head_dim, bias=config.attention_bias
        )
        self.v_proj = nn.Linear(
            config.hidden_size, config.num_key_value_heads * self.head_dim, bias=config.attention_bias
        )
        self.o_proj = nn.Linear(
            config.num_attention_heads * self.head_dim, config.hidden_size, bias=config.attention_bias
        )

    def forward(
        self,
        hidden_states: torch.Tensor,
        position_embeddings: Tuple[torch.Tensor, torch.Tensor],
        attention_mask: Optional[torch.Tensor],
        past_key_value: Optional[Cache] = None,
        cache_position: Optional[torch.LongTensor] = None,
        **kwargs: Unpack[FlashAttentionKwargs],
    ) -> Tuple[torch.Tensor, Optional[torch.Tensor], Optional[Tuple[torch.Tensor]]]:
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)

        query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)

        cos, sin = position_embeddings
        query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin)

        if past_key_value is not None:
            # sin and cos are specific to RoPE models; cache_position needed for the static cache
            cache_kwargs = {"sin": sin, "cos": cos, "cache_position": cache_position}
            key_states, value_states = past_key_value.update(key_states, value_states, self.layer_idx, cache_kwargs)

        attention_interface: Callable = eager_attention_forward
        if self.config._attn_implementation != "eager":
            if self.config._attn_implementation == "sdpa" and kwargs.get("output_attentions", False):
                logger.warning_once(
                    "`torch.nn.functional.scaled_dot_product_attention` does not support `output_attentions=True`. Falling back to "
                    'eager attention. This warning can be removed using the argument `attn_implementation="eager"` when loading the model.'
                )
            else:
                attention_interface = ALL_ATTENTION_FUNCTIONS[self.config._attn_implementation]

        attn_output, attn_weights = attention_interface(
            self,
            query_states,
            key_states,
            value_states,
            attention_mask,
            dropout=0.0 if not self.training else self.attention_dropout,
            scaling=self.scaling,
            **kwargs,
        )

        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        attn_output = self.o_proj(attn_output)
        return attn_output, attn_weights


class LlamaDecoderLayer(nn.Module):
    def __init__(self, config, layer_idx: int):
        super().__init__()
        self.hidden_size = config.hidden_size

        self.self_attn = LlamaAttention(config=config, layer_idx=layer_idx)

        self.mlp = LlamaMLP(config)
        self.input_layernorm = LlamaRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.post_attention_layernorm = LlamaRMSNorm(config.hidden_size, eps=config.rms_norm_eps)

    def forward(
        self,
        hidden_states: torch.Tensor,
        attention_mask: Optional[torch.Tensor] = None,
        position_ids: Optional[torch.LongTensor] = None,
        past_key_value: Optional[Cache] = None,
        output_attentions: Optional[bool] = False,
        use_cache: Optional[bool] = False,
        cache_position: Optional[torch.LongTensor] = None,
        position_embeddings: Optional[Tuple[torch.Tensor, torch.Tensor]] = None,  # necessary, but kept here for BC
        **kwargs: Unpack[FlashAttentionKwargs],
    ) -> Tuple[torch.FloatTensor, Optional[Tuple[torch.FloatTensor, torch.FloatTensor]]]:
        residual = hidden_states

        hidden_states = self.input_layernorm(hidden_states)

        # Self Attention
        hidden_states, self_attn_weights = self.self_attn(
            hidden_states=hidden_states,
            attention_mask=attention_mask,
            position_ids=position_ids,
            past_key_value=past_key_value,
            output_attentions=output_attentions,
            use_cache=use_cache,
            cache_position=cache_position,
            position_embeddings=position_embeddings,
            **kwargs,
        )
        hidden_states = residual + hidden_states

        # Fully Connected
        residual = hidden_states
        hidden_states = self.post_attention_layernorm(hidden_states)
        hidden_states = self.mlp(hidden_states)
        hidden_states = residual + hidden_states

        outputs = (hidden_states,)
        if output_attentions:
            outputs += (self_attn_weights,)

        return outputs


# ---- modeling_qwen2.py at 5dd4a63548857797727ae73eeb6a6e886ea02a3e ---------
#
# Qwen2's own classes, read at run time from the saved file (hf_source.py)
# and executed verbatim in this module, so that they call this module's
# rotate_half, apply_rotary_pos_emb, repeat_kv and eager_attention_forward
# (and whatever wraps them). modeling_qwen2.py defines those four at the
# same commit; define_qwen2 checks they are the same code as the copies
# above from modeling_llama.py (their docstrings aside).

QWEN2_CLASSES = ["Qwen2MLP", "Qwen2Attention", "Qwen2RMSNorm",
                 "Qwen2DecoderLayer", "Qwen2RotaryEmbedding"]
QWEN2_SHARED = ["rotate_half", "apply_rotary_pos_emb", "repeat_kv",
                "eager_attention_forward"]


def code_of(src):
    """ast.dump of one function's source, its docstring left out."""
    node = ast.parse(src).body[0]
    body = node.body
    if body and isinstance(body[0], ast.Expr) and \
            isinstance(body[0].value, ast.Constant) and \
            isinstance(body[0].value.value, str):
        node.body = body[1:]
    return ast.dump(node)


def define_qwen2():
    """Defines QWEN2_CLASSES in this module's globals (once)."""
    g = globals()
    if "Qwen2DecoderLayer" in g:
        return
    theirs = hf_source.read_checked("qwen2")
    with open(os.path.abspath(__file__)) as f:
        ours = f.read()
    for name in QWEN2_SHARED:
        a = hf_source.segments(theirs, [name])[0]
        b = hf_source.segments(ours, [name])[0]
        if code_of(a) != code_of(b):
            raise SystemExit("%s differs between modeling_qwen2.py and "
                             "modeling_llama.py" % name)
    g["Qwen2Config"] = Config  # the copied annotations' name
    hf_source.define("qwen2", QWEN2_CLASSES, g)


def family_classes(model_type):
    """(decoder layer, RMS norm, rotary embedding) classes that a
    checkpoint of model_type runs: Qwen2's own for qwen2, else
    modeling_llama.py's (Mistral's layers compute what Llama's do)."""
    if model_type == "qwen2":
        define_qwen2()
        g = globals()
        return (g["Qwen2DecoderLayer"], g["Qwen2RMSNorm"],
                g["Qwen2RotaryEmbedding"])
    return LlamaDecoderLayer, LlamaRMSNorm, LlamaRotaryEmbedding


ALL_ATTENTION_FUNCTIONS = {}


# ---- the model around the layers ------------------------------------------

class Config:
    """The config's keys the copied classes read."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def causal_mask(T, dtype):
    # _prepare_4d_causal_attention_mask_with_cache_position, batch 1, no
    # padding: finfo.min above the diagonal, 0 on and below it
    min_dtype = torch.finfo(dtype).min
    cache_position = torch.arange(T)
    mask = torch.full((T, T), fill_value=min_dtype, dtype=dtype)
    if T != 1:
        mask = torch.triu(mask, diagonal=1)
    mask *= torch.arange(T) > cache_position.reshape(-1, 1)
    return mask[None, None, :, :].expand(1, 1, -1, -1)


def widen(t, dtype):
    """t stored as dtype, then made float32 as model.float() does."""
    return t.to({"F32": torch.float32, "F16": torch.float16,
                  "BF16": torch.bfloat16}[dtype]).float()


def make_case(outdir, name, model_type, n_layer, heads, kv, d, inter, tied,
              dtype, shards, theta, eps, text, seed):
    torch.manual_seed(seed)
    vocab = toy_vocab()
    V = len(vocab) + 3  # some ids the tokenizer never gives
    ids = encode(text, vocab)
    T = len(ids)
    hd = d // heads
    groups = heads // kv
    qwen = model_type == "qwen2"
    cfg = Config(hidden_size=d, num_attention_heads=heads,
                 num_key_value_heads=kv, intermediate_size=inter,
                 rms_norm_eps=eps, rope_theta=theta, rope_scaling=None,
                 max_position_embeddings=64, attention_dropout=0.0,
                 attention_bias=False, mlp_bias=False, hidden_act="silu",
                 _attn_implementation="eager", sliding_window=None,
                 use_sliding_window=False)
    Layer, Norm, Rotary = family_classes(model_type)
    embed = nn.Embedding(V, d)
    # the modules the random weights are drawn for, made in the order they
    # always were (their own initialisation draws from the same generator,
    # so this order fixes the checkpoints' numbers): a Qwen2 layer is
    # LlamaDecoderLayer with Qwen2Attention's projections put in
    drawn = []
    for i in range(n_layer):
        layer = LlamaDecoderLayer(cfg, i)
        if qwen:
            layer.self_attn = globals()["Qwen2Attention"](cfg, i)
        drawn.append(layer)
    norm = Norm(d, eps=eps)
    lm_head = nn.Linear(d, V, bias=False)
    # random weights, the norms' too, stored in dtype and read back as
    # float32 (what the checkpoint holds, widened)
    named = [("model.embed_tokens.weight", embed.weight)]
    for i, layer in enumerate(drawn):
        for pname, p in layer.named_parameters():
            named.append(("model.layers.%d.%s" % (i, pname), p))
    named.append(("model.norm.weight", norm.weight))
    if not tied:
        named.append(("lm_head.weight", lm_head.weight))
    with torch.no_grad():
        for pname, p in named:
            scale = 0.5 if p.dim() == 2 else 0.3
            base = 1.0 if pname.endswith("norm.weight") or \
                "layernorm" in pname else 0.0
            p.copy_(widen(base + scale * torch.randn(p.shape), dtype))
        if tied:
            lm_head.weight = embed.weight
    # the layers the forward pass runs: the family's own classes, holding
    # those weights
    layers = []
    for i, layer in enumerate(drawn):
        run = Layer(cfg, i)
        run.load_state_dict(layer.state_dict())
        layers.append(run)
    for m in [embed, norm, lm_head] + layers:
        m.eval()

    ref = {}

    def put(key, t):
        ref[key] = t.detach().reshape(t.shape[-2], t.shape[-1]).clone()

    # the tables, read where the copied code makes them
    current = {}
    rope_calls = []
    copied_rope = apply_rotary_pos_emb

    def rope_wrapper(q, k, cos, sin, position_ids=None, unsqueeze_dim=1):
        q_embed, k_embed = copied_rope(q, k, cos, sin, position_ids,
                                       unsqueeze_dim)
        rope_calls.append((q.clone(), k.clone(), q_embed.clone(),
                           k_embed.clone()))
        return q_embed, k_embed

    softmax_calls = []
    original_softmax = torch.nn.functional.softmax

    def softmax_wrapper(x, *args, **kwargs):
        y = original_softmax(x, *args, **kwargs)
        softmax_calls.append((x.clone(), y.clone()))
        return y

    hooks = []
    for i, layer in enumerate(layers):
        def out_hook(key):
            return lambda m, inp, out: put(key, out)

        def in_hook(key):
            return lambda m, inp: put(key, inp[0])
        a = layer.self_attn
        hooks += [
            layer.input_layernorm.register_forward_hook(out_hook("%d.ln_1" % i)),
            a.v_proj.register_forward_hook(out_hook("%d.v" % i)),
            a.o_proj.register_forward_pre_hook(in_hook("%d.concat" % i)),
            a.o_proj.register_forward_hook(out_hook("%d.attn_out" % i)),
            layer.post_attention_layernorm.register_forward_pre_hook(
                in_hook("%d.residual" % i)),
            layer.post_attention_layernorm.register_forward_hook(
                out_hook("%d.ln_2" % i)),
            layer.mlp.down_proj.register_forward_pre_hook(
                in_hook("%d.ffn_hidden" % i)),
            layer.mlp.down_proj.register_forward_hook(
                out_hook("%d.ffn_out" % i)),
        ]
    g = globals()
    g["apply_rotary_pos_emb"] = rope_wrapper
    torch.nn.functional.softmax = softmax_wrapper
    try:
        with torch.no_grad():
            input_ids = torch.tensor([ids])
            hidden = embed(input_ids)
            put("embedded", hidden)
            position_ids = torch.arange(T).unsqueeze(0)
            rotary = Rotary(config=cfg)
            position_embeddings = rotary(hidden, position_ids)
            mask = causal_mask(T, hidden.dtype)
            for i, layer in enumerate(layers):
                hidden = layer(hidden, attention_mask=mask,
                               position_ids=position_ids,
                               position_embeddings=position_embeddings)[0]
                put("%d.hidden" % i, hidden)
            out = norm(hidden)
            put("out", out)
            put("logits", lm_head(out))
    finally:
        g["apply_rotary_pos_emb"] = copied_rope
        torch.nn.functional.softmax = original_softmax
        for h in hooks:
            h.remove()
    for i in range(n_layer):
        q, k, q_rot, k_rot = rope_calls[i]
        scores, weights = softmax_calls[i]
        v = ref.pop("%d.v" % i).reshape(T, kv, hd)
        concat = ref["%d.concat" % i]
        for h in range(heads):
            j = h // groups
            pre = "%d.head.%d." % (i, h)
            ref[pre + "queries"] = q[0, h].clone()
            ref[pre + "keys"] = k[0, j].clone()
            ref[pre + "values"] = v[:, j].clone()
            ref[pre + "queries_rotated"] = q_rot[0, h].clone()
            ref[pre + "keys_rotated"] = k_rot[0, j].clone()
            ref[pre + "attn_scores"] = scores[0, h].clone()
            ref[pre + "attn_weights"] = weights[0, h].clone()
            ref[pre + "head_context"] = concat[:, h * hd:(h + 1) * hd].clone()

    folder = os.path.join(outdir, name)
    os.makedirs(folder, exist_ok=True)
    config = {
        "architectures": [{"llama": "LlamaForCausalLM",
                           "qwen2": "Qwen2ForCausalLM",
                           "mistral": "MistralForCausalLM"}[model_type]],
        "model_type": model_type,
        "hidden_size": d,
        "intermediate_size": inter,
        "num_hidden_layers": n_layer,
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "hidden_act": "silu",
        "max_position_embeddings": 64,
        "rms_norm_eps": eps,
        "rope_theta": theta,
        "rope_scaling": None,
        "tie_word_embeddings": tied,
        "vocab_size": V,
        "torch_dtype": {"F32": "float32", "F16": "float16",
                        "BF16": "bfloat16"}[dtype],
    }
    if model_type == "mistral":
        config["sliding_window"] = None
    if qwen:
        config["use_sliding_window"] = False
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    stored = {"F32": torch.float32, "F16": torch.float16,
              "BF16": torch.bfloat16}[dtype]
    tensors = [(n, p.detach().to(stored)) for n, p in named]
    if shards == 1:
        write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    else:
        per = (len(tensors) + shards - 1) // shards
        weight_map = {}
        for s in range(shards):
            fname = "model-%05d-of-%05d.safetensors" % (s + 1, shards)
            part = tensors[s * per:(s + 1) * per]
            write_safetensors(os.path.join(folder, fname), part)
            for n, _ in part:
                weight_map[n] = fname
        with open(os.path.join(folder, "model.safetensors.index.json"),
                  "w") as f:
            json.dump({"metadata": {"total_size": 0},
                       "weight_map": weight_map}, f, indent=2)
    # the toy tokenizer, as vocab.json and merges.txt made tokenizer.json
    vocab_path = os.path.join(folder, "vocab.json")
    merges_path = os.path.join(folder, "merges.txt")
    with open(vocab_path, "w") as f:
        json.dump(vocab, f)
    from make_gpt2_reference import MERGES
    with open(merges_path, "w") as f:
        f.write("#version: 0.2\n")
        for a, b in MERGES:
            f.write("%s %s\n" % (a, b))
    gpt2_tokenizer_json.write(vocab_path, merges_path,
                              os.path.join(folder, "tokenizer.json"))
    os.remove(vocab_path)
    os.remove(merges_path)
    with open(os.path.join(folder, "text.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(folder, "ids.txt"), "w") as f:
        f.write(" ".join(str(i) for i in ids) + "\n")
    write_safetensors(os.path.join(folder, "reference.safetensors"),
                      sorted(ref.items()))
    print("%s: %d tokens, %d tables" % (name, T, len(ref)))
    return name


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "llama")
    os.makedirs(outdir, exist_ok=True)
    names = [make_case(outdir, *case) for case in CASES]
    with open(os.path.join(outdir, "cases.txt"), "w") as f:
        f.write("\n".join(names) + "\n")


if __name__ == "__main__":
    main()
