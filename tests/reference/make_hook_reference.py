#!/usr/bin/env python3
"""Make PyTorch's tables for the hook points' tests (tests/unit/test_hooks.c).

One head's context (its z, TransformerLens's hook_z) is replaced through a
forward pre-hook on the output projection that reads the heads' contexts
side by side, as a user of PyTorch ablates a head:

  zero   the head's columns set to 0
  set    the head's columns set to a given tensor ("value" below)
  mean   each of the head's columns set to its mean over the positions

and what follows is recorded. It writes, beside this script in hooks/
(or in OUTDIR):

  lesson_fused.safetensors
      the notebook's MultiHeadAttention (copied as the notebooks write
      it, from make_reference.py) with d_in 4, d_out 6, 3 heads over 5
      tokens, after torch.manual_seed(42): x = torch.randn(1, 5, 4), then
      the module; hook on out_proj for head 1. Tables: "x", "value"
      (5 x 2), "out" without a hook, and per action "ACTION.concat" (the
      out_proj's input after the hook) and "ACTION.out".
  gpt2_CASE.safetensors, for the checkpoints tiny and two_layers of
      gpt2/ (make_gpt2_reference.py): transformers' GPT2Model and its
      blocks (the classes copied below, eager attention, evaluation mode,
      without the cache and cross-attention paths), the checkpoint's
      parameters loaded, the text's ids run; hook on h.LAYER.attn.c_proj
      for head HEAD (tiny: layer 0 head 0; two_layers: layer 0 head 1).
      Tables: "value" (T x hd), "out" and "logits" without a hook, and
      per action "ACTION.concat", "ACTION.out" (ln_f's output) and
      "ACTION.logits" (F.linear(out, wte), GPT2LMHeadModel's tied
      lm_head).

How to run it (Debian's python3-torch, CPU, float32):

    /usr/bin/python3 tests/reference/make_hook_reference.py [OUTDIR]
"""

import json
import math
import os
import struct
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_gpt2_reference import write_safetensors  # noqa: E402
from make_reference import MultiHeadAttention  # noqa: E402

ACTIONS = ("zero", "set", "mean")


def replace_head(h, hd, action, value):
    """A forward pre-hook replacing head h's columns of the input."""
    def hook(module, inputs):
        x = inputs[0].clone()
        cols = slice(h * hd, (h + 1) * hd)
        if action == "zero":
            x[..., cols] = 0
        elif action == "set":
            x[..., cols] = value
        else:
            x[..., cols] = x[..., cols].mean(dim=1, keepdim=True)
        hook.seen = x[0].clone()
        return (x,)
    return hook


# ---- transformers' GPT-2 (modeling_gpt2.py, pytorch_utils.py, activations.py),
# ---- the eager CPU path, without past key values and cross-attention

class Conv1D(nn.Module):
    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.empty(nx, nf))
        self.bias = nn.Parameter(torch.zeros(nf))
        nn.init.normal_(self.weight, std=0.02)

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        x = x.view(size_out)
        return x


class NewGELUActivation(nn.Module):
    def forward(self, input):
        return 0.5 * input * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (input + 0.044715 * torch.pow(input, 3.0))))


class GPT2Attention(nn.Module):
    def __init__(self, config, layer_idx=None):
        super().__init__()
        max_positions = config.max_position_embeddings
        self.register_buffer(
            "bias",
            torch.tril(torch.ones((max_positions, max_positions), dtype=torch.bool)).view(
                1, 1, max_positions, max_positions
            ),
            persistent=False,
        )
        self.register_buffer("masked_bias", torch.tensor(-1e4), persistent=False)
        self.embed_dim = config.hidden_size
        self.num_heads = config.num_attention_heads
        self.head_dim = self.embed_dim // self.num_heads
        self.split_size = self.embed_dim
        self.scale_attn_weights = True
        self.layer_idx = layer_idx
        self.c_attn = Conv1D(3 * self.embed_dim, self.embed_dim)
        self.c_proj = Conv1D(self.embed_dim, self.embed_dim)
        self.attn_dropout = nn.Dropout(config.attn_pdrop)
        self.resid_dropout = nn.Dropout(config.resid_pdrop)

    def _attn(self, query, key, value, attention_mask=None, head_mask=None):
        attn_weights = torch.matmul(query, key.transpose(-1, -2))
        if self.scale_attn_weights:
            attn_weights = attn_weights / torch.full(
                [], value.size(-1) ** 0.5, dtype=attn_weights.dtype, device=attn_weights.device
            )
        query_length, key_length = query.size(-2), key.size(-2)
        causal_mask = self.bias[:, :, key_length - query_length : key_length, :key_length]
        mask_value = torch.finfo(attn_weights.dtype).min
        mask_value = torch.full([], mask_value, dtype=attn_weights.dtype).to(attn_weights.device)
        attn_weights = torch.where(causal_mask, attn_weights.to(attn_weights.dtype), mask_value)
        attn_weights = nn.functional.softmax(attn_weights, dim=-1)
        attn_weights = attn_weights.type(value.dtype)
        attn_weights = self.attn_dropout(attn_weights)
        attn_output = torch.matmul(attn_weights, value)
        return attn_output, attn_weights

    def _split_heads(self, tensor, num_heads, attn_head_size):
        new_shape = tensor.size()[:-1] + (num_heads, attn_head_size)
        tensor = tensor.view(new_shape)
        return tensor.permute(0, 2, 1, 3)

    def _merge_heads(self, tensor, num_heads, attn_head_size):
        tensor = tensor.permute(0, 2, 1, 3).contiguous()
        new_shape = tensor.size()[:-2] + (num_heads * attn_head_size,)
        return tensor.view(new_shape)

    def forward(self, hidden_states):
        query, key, value = self.c_attn(hidden_states).split(self.split_size, dim=2)
        query = self._split_heads(query, self.num_heads, self.head_dim)
        key = self._split_heads(key, self.num_heads, self.head_dim)
        value = self._split_heads(value, self.num_heads, self.head_dim)
        attn_output, attn_weights = self._attn(query, key, value)
        attn_output = self._merge_heads(attn_output, self.num_heads, self.head_dim)
        attn_output = self.c_proj(attn_output)
        attn_output = self.resid_dropout(attn_output)
        return (attn_output, None)


class GPT2MLP(nn.Module):
    def __init__(self, intermediate_size, config):
        super().__init__()
        embed_dim = config.hidden_size
        self.c_fc = Conv1D(intermediate_size, embed_dim)
        self.c_proj = Conv1D(embed_dim, intermediate_size)
        self.act = NewGELUActivation()
        self.dropout = nn.Dropout(config.resid_pdrop)

    def forward(self, hidden_states):
        hidden_states = self.c_fc(hidden_states)
        hidden_states = self.act(hidden_states)
        hidden_states = self.c_proj(hidden_states)
        hidden_states = self.dropout(hidden_states)
        return hidden_states


class GPT2Block(nn.Module):
    def __init__(self, config, layer_idx=None):
        super().__init__()
        hidden_size = config.hidden_size
        inner_dim = config.n_inner if config.n_inner is not None else 4 * hidden_size
        self.ln_1 = nn.LayerNorm(hidden_size, eps=config.layer_norm_epsilon)
        self.attn = GPT2Attention(config, layer_idx=layer_idx)
        self.ln_2 = nn.LayerNorm(hidden_size, eps=config.layer_norm_epsilon)
        self.mlp = GPT2MLP(inner_dim, config)

    def forward(self, hidden_states):
        residual = hidden_states
        hidden_states = self.ln_1(hidden_states)
        attn_outputs = self.attn(hidden_states)
        attn_output = attn_outputs[0]
        hidden_states = attn_output + residual
        residual = hidden_states
        hidden_states = self.ln_2(hidden_states)
        feed_forward_hidden_states = self.mlp(hidden_states)
        hidden_states = residual + feed_forward_hidden_states
        return (hidden_states,)


class GPT2Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embed_dim = config.hidden_size
        self.wte = nn.Embedding(config.vocab_size, self.embed_dim)
        self.wpe = nn.Embedding(config.max_position_embeddings, self.embed_dim)
        self.drop = nn.Dropout(config.embd_pdrop)
        self.h = nn.ModuleList([GPT2Block(config, layer_idx=i) for i in range(config.num_hidden_layers)])
        self.ln_f = nn.LayerNorm(self.embed_dim, eps=config.layer_norm_epsilon)

    def forward(self, input_ids):
        input_shape = input_ids.size()
        position_ids = torch.arange(0, input_shape[-1], dtype=torch.long)
        position_ids = position_ids.unsqueeze(0).view(-1, input_shape[-1])
        inputs_embeds = self.wte(input_ids)
        position_embeds = self.wpe(position_ids)
        hidden_states = inputs_embeds + position_embeds
        hidden_states = self.drop(hidden_states)
        for block in self.h:
            hidden_states = block(hidden_states)[0]
        hidden_states = self.ln_f(hidden_states)
        return hidden_states


class Config:
    """The GPT2Config fields the classes above read, from config.json."""

    def __init__(self, path):
        with open(path) as fh:
            c = json.load(fh)
        self.hidden_size = c["n_embd"]
        self.num_attention_heads = c["n_head"]
        self.num_hidden_layers = c["n_layer"]
        self.max_position_embeddings = c["n_positions"]
        self.vocab_size = c["vocab_size"]
        self.n_inner = c.get("n_inner")
        self.layer_norm_epsilon = c.get("layer_norm_epsilon", 1e-5)
        self.attn_pdrop = self.resid_pdrop = self.embd_pdrop = 0.1


def read_safetensors(path):
    """name -> float32 tensor (F32, F16, BF16) of a .safetensors file."""
    with open(path, "rb") as fh:
        data = fh.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    dtypes = {"F32": torch.float32, "F16": torch.float16,
              "BF16": torch.bfloat16}
    out = {}
    for name, t in header.items():
        if name == "__metadata__" or t["dtype"] not in dtypes:
            continue
        lo, hi = t["data_offsets"]
        raw = bytearray(body[lo:hi])
        tensor = torch.frombuffer(raw, dtype=dtypes[t["dtype"]]) if raw \
            else torch.empty(0, dtype=dtypes[t["dtype"]])
        out[name] = tensor.reshape(t["shape"]).to(torch.float32)
    return out


def lesson_case(outdir):
    d_in, d_out, heads, tokens, head = 4, 6, 3, 5, 1
    hd = d_out // heads
    torch.manual_seed(42)
    x = torch.randn(1, tokens, d_in)
    mha = MultiHeadAttention(d_in, d_out, tokens, heads)
    value = torch.arange(tokens * hd, dtype=torch.float32).view(tokens, hd) \
        / 8 - 1
    tables = [("x", x[0]), ("value", value)]
    with torch.no_grad():
        tables.append(("out", mha(x)[0]))
        for action in ACTIONS:
            hook = replace_head(head, hd, action, value)
            handle = mha.out_proj.register_forward_pre_hook(hook)
            out = mha(x)
            handle.remove()
            tables += [(action + ".concat", hook.seen), (action + ".out",
                                                         out[0])]
    write_safetensors(os.path.join(outdir, "lesson_fused.safetensors"),
                      [(n, t.contiguous()) for n, t in tables])


def gpt2_case(outdir, name, layer, head):
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
    tokens, hd = ids.shape[1], config.hidden_size // config.num_attention_heads
    value = torch.arange(tokens * hd, dtype=torch.float32) \
        .view(tokens, hd) / 16 - 0.5
    tables = [("value", value)]
    with torch.no_grad():
        out = model(ids)
        tables += [("out", out[0]), ("logits",
                                     F.linear(out, model.wte.weight)[0])]
        c_proj = model.h[layer].attn.c_proj
        for action in ACTIONS:
            hook = replace_head(head, hd, action, value)
            handle = c_proj.register_forward_pre_hook(hook)
            out = model(ids)
            handle.remove()
            tables += [(action + ".concat", hook.seen),
                       (action + ".out", out[0]),
                       (action + ".logits",
                        F.linear(out, model.wte.weight)[0])]
    write_safetensors(os.path.join(outdir, "gpt2_%s.safetensors" % name),
                      [(n, t.contiguous()) for n, t in tables])


def main():
    torch.set_num_threads(1)
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE,
                                                                "hooks")
    os.makedirs(outdir, exist_ok=True)
    lesson_case(outdir)
    gpt2_case(outdir, "tiny", 0, 0)
    gpt2_case(outdir, "two_layers", 0, 1)


if __name__ == "__main__":
    main()
