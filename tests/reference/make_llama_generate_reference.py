#!/usr/bin/env python3
"""Make PyTorch's generated tokens of the Llama-style checkpoints for the
generation tests (tests/unit/test_llama_generate.c).

LlamaForCausalLM (Qwen2ForCausalLM for a Qwen2 checkpoint) is run as
model.generate(...) runs it with use_cache=True, eager attention, float32
on the CPU, all of it transformers' code at one commit,
5dd4a63548857797727ae73eeb6a6e886ea02a3e:

- the layers are the classes of make_llama_reference.py, which says
  where they come from: modeling_llama.py's (LlamaRMSNorm,
  LlamaRotaryEmbedding, rotate_half, apply_rotary_pos_emb, LlamaMLP,
  repeat_kv, eager_attention_forward, LlamaAttention, LlamaDecoderLayer)
  for Llama and Mistral, and for Qwen2 modeling_qwen2.py's
  Qwen2DecoderLayer, Qwen2Attention, Qwen2MLP, Qwen2RMSNorm and
  Qwen2RotaryEmbedding, read at run time. Each decoder layer passes the
  cache to its attention as past_key_value=, the name that attention
  takes at that commit;
- LlamaModel.forward, its _update_causal_mask and
  _prepare_4d_causal_attention_mask_with_cache_position, and
  LlamaForCausalLM.forward are copied below from the same
  modeling_llama.py (Qwen2Model's and Qwen2ForCausalLM's are the same
  code there), without what generation does not reach (gradient
  checkpointing, the flash/SDPA/static-cache branches, the output
  dataclasses, the loss);
- the cache is DynamicLayer from src/transformers/cache_utils.py
  (commit 004999d972e478164dd7e8e508350937c803531e: lazy_initialization,
  update, get_seq_length, copied verbatim), one per layer, behind
  DynamicCache's update(key_states, value_states, layer_idx) and
  get_seq_length();
- prepare_inputs_for_generation does what GenerationMixin's does for one
  unpadded sequence: after the first step only the last id, at
  cache_position = arange(past, past + 1), position_ids from the
  attention mask's cumsum - 1, and logits_to_keep = 1 (generate() sets it
  for a model whose forward takes it);
- the loop and the warpers (temperature, top-k, top-p, softmax,
  torch.multinomial) are make_generate_reference.py's (generate(),
  get_logits_warper), copied there from generation/utils.py and
  logits_process.py. torch.manual_seed(seed) is called right before.

The script stops (check_cache) if, after any forward with the cache on,
a layer's cache does not hold every position fed so far, and at the end
unless that check ran for every model type of its cases: a cache passed
under a name the attention does not take vanishes into **kwargs, and
generation then silently runs the whole text again at every step.

It writes llama_generate/CASE.safetensors beside this script (or in
OUTDIR) for each case of CASES below, with the checkpoints of llama/
(make_llama_reference.py) and their ids.txt as the prompt, in the form
of make_generate_reference.py's files ("tokens", "p", "p_logits",
"kept", "top", "top_p", "settings").

For the cases of STEP_CASES it also writes CASE.steps.safetensors: every
step after the prompt's (one token over the cache), as
eager_attention_forward receives and returns them, read by wrapping the
function the attention classes call (it runs unchanged; softmax's input
is its scores):
  "s{S}.l{L}.h{H}.q" (1, hd)          query head H's row, rotated
  "s{S}.l{L}.h{H}.k", ".v" (P, hd)    the cached keys (rotated) and
                                      values of the key/value head H
                                      reads, H // num_key_value_groups,
                                      as DynamicLayer.update returns them
  "s{S}.l{L}.h{H}.scores" (1, P)      what softmax receives
  "s{S}.l{L}.h{H}.weights" (1, P)     attn_weights
  "s{S}.l{L}.h{H}.context" (1, hd)    attn_output's row of head H
with S the step (1 .. N - 1) and P the positions cached after it.

For the cases of ABLATE_CASES it writes CASE.safetensors of the same
loop with heads switched off, as make_generate_reference.py's
ABLATE_CASES (its ablating_steps, generate_ablated and write_ablated):
the forward pre-hook on layers[L].self_attn.o_proj, whose input is the
heads' outputs side by side ("ablate", "mode" and "clean" besides the
usual names).

How to run it (Debian's python3-torch, CPU, float32):

    /usr/bin/python3 tests/reference/make_llama_generate_reference.py [OUTDIR]
"""

import json
import os
import sys
from typing import Any, Optional

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_gpt2_reference import write_safetensors  # noqa: E402
from make_hook_reference import read_safetensors  # noqa: E402
from make_generate_reference import generate, get_logits_warper, top5_padded  # noqa: E402,E501
from make_generate_reference import generate_ablated, write_ablated  # noqa: E402,E501
import make_llama_reference as ml  # noqa: E402

# name, checkpoint, sample, temperature, top_k (0: none), top_p, seed,
# max_new_tokens (None: as many as the model's positions take after the
# prompt, max_position_embeddings - T + 1, the last one picked with every
# position filled), eos ("third": the greedy run's third token, else
# None)
CASES = [
    ("greedy_tied", "llama_tied_f32", False, 1.0, 0, 1.0, 0, 10, None),
    ("greedy_gqa4_bf16", "llama_gqa4_bf16", False, 1.0, 0, 1.0, 0, 12, None),
    ("greedy_context", "llama_tied_f32", False, 1.0, 0, 1.0, 0, None, None),
    ("greedy_eos", "qwen2_bias_f16", False, 1.0, 0, 1.0, 0, 8, "third"),
    ("sample_warped", "llama_gqa4_bf16", True, 0.8, 20, 0.9, 3, 12, None),
    ("sample_qwen2", "qwen2_bias_f16", True, 1.0, 50, 1.0, 42, 10, None),
    ("sample_sharded", "mistral_sharded", True, 1.3, 0, 0.7, 7, 10, None),
    ("sample_head48", "llama_head48_bf16", True, 0.5, 100, 0.95, 12345, 8,
     None),
    ("greedy_steps", "llama_tied_f32", False, 1.0, 0, 1.0, 0, 4, None),
]

# the cases whose steps' tables are written (CASE.steps.safetensors)
STEP_CASES = ["greedy_steps"]

# make_generate_reference.py's ABLATE_CASES on Llama-style checkpoints:
# name, checkpoint, heads [(layer, head)], mode, sample, temperature,
# top_k, top_p, seed, max_new_tokens
ABLATE_CASES = [
    ("ablate_zero_greedy", "llama_gqa4_bf16", [(1, 2)], "zero", False, 1.0,
     0, 1.0, 0, 10),
    ("ablate_mean_greedy", "llama_tied_f32", [(0, 1), (1, 3)], "mean", False,
     1.0, 0, 1.0, 0, 10),
    ("ablate_mean_sample", "mistral_sharded", [(2, 0), (1, 3)], "mean",
     True, 0.8, 50, 0.9, 42, 10),
]


# ---- cache_utils.py at 004999d972e478164dd7e8e508350937c803531e ----------

class DynamicLayer:
    """
    A cache layer that grows dynamically as more tokens are generated. This is the default for generative models.
    It stores the key and value states as tensors of shape `[batch_size, num_heads, seq_len, head_dim]`.
    """

    is_sliding = False

    def __init__(self):
        self.keys: Optional[torch.Tensor] = None
        self.values: Optional[torch.Tensor] = None
        self.is_initialized = False

    def lazy_initialization(self, key_states: torch.Tensor):
        self.dtype, self.device = key_states.dtype, key_states.device
        self.keys = torch.tensor([], dtype=self.dtype, device=self.device)
        self.values = torch.tensor([], dtype=self.dtype, device=self.device)
        self.is_initialized = True

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        cache_kwargs: Optional[dict[str, Any]] = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        # Lazy initialization
        if not self.is_initialized:
            self.lazy_initialization(key_states)

        self.keys = torch.cat([self.keys, key_states], dim=-2)
        self.values = torch.cat([self.values, value_states], dim=-2)
        return self.keys, self.values

    def get_seq_length(self) -> int:
        """Returns the sequence length of the cached states."""
        if not self.is_initialized or self.keys.numel() == 0:
            return 0
        return self.keys.shape[-2]


class DynamicCache:
    """DynamicCache's calls the model makes: a DynamicLayer per layer."""

    def __init__(self, n_layer):
        self.layers = [DynamicLayer() for _ in range(n_layer)]

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):
        return self.layers[layer_idx].update(key_states, value_states,
                                             cache_kwargs)

    def get_seq_length(self, layer_idx=0):
        return self.layers[layer_idx].get_seq_length()


# ---- modeling_llama.py at 5dd4a63548857797727ae73eeb6a6e886ea02a3e --------

class LlamaModel(nn.Module):
    def __init__(self, config, model_type):
        super().__init__()
        # the family's classes: Qwen2DecoderLayer, Qwen2RMSNorm and
        # Qwen2RotaryEmbedding for qwen2 (Qwen2Model's), else Llama's
        DecoderLayer, RMSNorm, RotaryEmbedding = ml.family_classes(model_type)
        self.config = config
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(
            [DecoderLayer(config, layer_idx) for layer_idx in range(config.num_hidden_layers)]
        )
        self.norm = RMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.rotary_emb = RotaryEmbedding(config=config)

    def forward(
        self,
        input_ids=None,
        attention_mask=None,
        position_ids=None,
        past_key_values=None,
        use_cache=None,
        cache_position=None,
    ):
        inputs_embeds = self.embed_tokens(input_ids)

        if use_cache and past_key_values is None:
            past_key_values = DynamicCache(self.config.num_hidden_layers)

        if cache_position is None:
            past_seen_tokens = past_key_values.get_seq_length() if past_key_values is not None else 0
            cache_position = torch.arange(
                past_seen_tokens, past_seen_tokens + inputs_embeds.shape[1], device=inputs_embeds.device
            )

        if position_ids is None:
            position_ids = cache_position.unsqueeze(0)

        causal_mask = self._update_causal_mask(
            attention_mask, inputs_embeds, cache_position, past_key_values, False
        )

        hidden_states = inputs_embeds

        # create position embeddings to be shared across the decoder layers
        position_embeddings = self.rotary_emb(hidden_states, position_ids)

        for decoder_layer in self.layers[: self.config.num_hidden_layers]:
            layer_outputs = decoder_layer(
                hidden_states,
                attention_mask=causal_mask,
                position_ids=position_ids,
                past_key_value=past_key_values,
                output_attentions=False,
                use_cache=use_cache,
                cache_position=cache_position,
                position_embeddings=position_embeddings,
            )

            hidden_states = layer_outputs[0]

        hidden_states = self.norm(hidden_states)
        return hidden_states, past_key_values

    def _update_causal_mask(
        self,
        attention_mask: torch.Tensor,
        input_tensor: torch.Tensor,
        cache_position: torch.Tensor,
        past_key_values,
        output_attentions: bool,
    ):
        # the eager path (no flash attention, no SDPA, no static cache)
        past_seen_tokens = past_key_values.get_seq_length() if past_key_values is not None else 0

        dtype, device = input_tensor.dtype, input_tensor.device
        sequence_length = input_tensor.shape[1]
        target_length = (
            attention_mask.shape[-1]
            if isinstance(attention_mask, torch.Tensor)
            else past_seen_tokens + sequence_length + 1
        )

        # In case the provided `attention` mask is 2D, we generate a causal mask here (4D).
        causal_mask = self._prepare_4d_causal_attention_mask_with_cache_position(
            attention_mask,
            sequence_length=sequence_length,
            target_length=target_length,
            dtype=dtype,
            device=device,
            cache_position=cache_position,
            batch_size=input_tensor.shape[0],
        )
        return causal_mask

    @staticmethod
    def _prepare_4d_causal_attention_mask_with_cache_position(
        attention_mask: torch.Tensor,
        sequence_length: int,
        target_length: int,
        dtype: torch.dtype,
        device: torch.device,
        cache_position: torch.Tensor,
        batch_size: int,
        **kwargs,
    ):
        if attention_mask is not None and attention_mask.dim() == 4:
            # In this case we assume that the mask comes already in inverted form and requires no inversion or slicing.
            causal_mask = attention_mask
        else:
            min_dtype = torch.finfo(dtype).min
            causal_mask = torch.full(
                (sequence_length, target_length), fill_value=min_dtype, dtype=dtype, device=device
            )
            if sequence_length != 1:
                causal_mask = torch.triu(causal_mask, diagonal=1)
            causal_mask *= torch.arange(target_length, device=device) > cache_position.reshape(-1, 1)
            causal_mask = causal_mask[None, None, :, :].expand(batch_size, 1, -1, -1)
            if attention_mask is not None:
                causal_mask = causal_mask.clone()  # copy to contiguous memory for in-place edit
                mask_length = attention_mask.shape[-1]
                padding_mask = causal_mask[:, :, :, :mask_length] + attention_mask[:, None, None, :].to(
                    causal_mask.device
                )
                padding_mask = padding_mask == 0
                causal_mask[:, :, :, :mask_length] = causal_mask[:, :, :, :mask_length].masked_fill(
                    padding_mask, min_dtype
                )

        return causal_mask


class LlamaForCausalLM(nn.Module):
    def __init__(self, config, model_type):
        super().__init__()
        self.model = LlamaModel(config, model_type)
        self.vocab_size = config.vocab_size
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)

    def forward(
        self,
        input_ids=None,
        attention_mask=None,
        position_ids=None,
        past_key_values=None,
        use_cache=None,
        cache_position=None,
        logits_to_keep=0,
    ):
        outputs = self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            position_ids=position_ids,
            past_key_values=past_key_values,
            use_cache=use_cache,
            cache_position=cache_position,
        )

        hidden_states = outputs[0]
        # Only compute necessary logits, and do not upcast them to float if we are not computing the loss
        slice_indices = slice(-logits_to_keep, None) if isinstance(logits_to_keep, int) else logits_to_keep
        logits = self.lm_head(hidden_states[:, slice_indices, :])
        return logits, outputs[1]

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None,
                                      attention_mask=None, use_cache=None,
                                      **kwargs):
        """GenerationMixin's, for one sequence without padding."""
        past = past_key_values.get_seq_length() if past_key_values is not None else 0
        cache_position = torch.arange(past, input_ids.shape[1])
        input_ids = input_ids[:, cache_position]
        position_ids = attention_mask.long().cumsum(-1) - 1
        position_ids.masked_fill_(attention_mask == 0, 1)
        position_ids = position_ids[:, -input_ids.shape[1]:]
        return {"input_ids": input_ids, "attention_mask": attention_mask,
                "position_ids": position_ids,
                "past_key_values": past_key_values, "use_cache": use_cache,
                "cache_position": cache_position, "logits_to_keep": 1}


def read_checkpoint(folder):
    """name -> float32 tensor of a checkpoint folder, sharded or not."""
    index = os.path.join(folder, "model.safetensors.index.json")
    if not os.path.exists(index):
        return read_safetensors(os.path.join(folder, "model.safetensors"))
    with open(index) as fh:
        files = sorted(set(json.load(fh)["weight_map"].values()))
    params = {}
    for name in files:
        params.update(read_safetensors(os.path.join(folder, name)))
    return params


# the model types whose cache check_cache saw filled
CACHE_CHECKED = set()


def check_cache(model, model_type):
    """Makes model's forward fail unless, after each call with use_cache,
    every layer's cache holds every position fed so far (the attention
    mask's length): a layer that takes the cache under another name than
    the one it is passed leaves it empty (**kwargs swallows it), and the
    generation then runs the whole text again at each step."""
    forward = model.forward

    def checked(**kwargs):
        logits, past = forward(**kwargs)
        if kwargs.get("use_cache"):
            mask = kwargs.get("attention_mask")
            want = (mask if mask is not None else kwargs["input_ids"]).shape[-1]
            for i, layer in enumerate(past.layers):
                if layer.get_seq_length() != want:
                    raise SystemExit(
                        "%s: layer %d's cache holds %d positions after a "
                        "forward over %d" % (model_type, i,
                                             layer.get_seq_length(), want))
            CACHE_CHECKED.add(model_type)
        return logits, past

    model.forward = checked


def load(name):
    """The checkpoint llama/NAME as LlamaForCausalLM (its config, its
    weights made float32) and its prompt's ids."""
    folder = os.path.join(HERE, "llama", name)
    with open(os.path.join(folder, "config.json")) as fh:
        c = json.load(fh)
    cfg = ml.Config(hidden_size=c["hidden_size"],
                    num_attention_heads=c["num_attention_heads"],
                    num_key_value_heads=c["num_key_value_heads"],
                    num_hidden_layers=c["num_hidden_layers"],
                    intermediate_size=c["intermediate_size"],
                    vocab_size=c["vocab_size"],
                    rms_norm_eps=c["rms_norm_eps"],
                    rope_theta=c["rope_theta"], rope_scaling=None,
                    max_position_embeddings=c["max_position_embeddings"],
                    attention_dropout=0.0, attention_bias=False,
                    mlp_bias=False, hidden_act="silu",
                    _attn_implementation="eager", sliding_window=None,
                    use_sliding_window=c.get("use_sliding_window", False))
    model = LlamaForCausalLM(cfg, c["model_type"])
    check_cache(model, c["model_type"])
    params = read_checkpoint(folder)
    if c["tie_word_embeddings"]:
        model.lm_head.weight = model.model.embed_tokens.weight
    else:
        model.lm_head.weight = nn.Parameter(params.pop("lm_head.weight"))
    params = {k[len("model."):]: v for k, v in params.items()}
    model.model.load_state_dict(params, strict=False)
    missing = set(model.model.state_dict()) - set(params)
    assert not missing, missing
    model.eval()
    with open(os.path.join(folder, "ids.txt")) as fh:
        ids = torch.tensor([[int(i) for i in fh.read().split()]])
    return model, cfg, ids


def spy_on_attention(record):
    """Wraps eager_attention_forward, which the attention classes look up
    in make_llama_reference's module when they run, to hand
    record(module, query, key, value, scores, weights, output) its
    tensors; the function itself runs as it is, and scores is what
    nn.functional.softmax receives inside it. Returns what undoes it."""
    method = ml.eager_attention_forward

    def eager_attention_forward(module, query, key, value, attention_mask,
                                scaling, dropout=0.0, **kwargs):
        seen = {}
        softmax = nn.functional.softmax

        def capture(x, dim=None, **kw):
            seen["scores"] = x.clone()
            return softmax(x, dim=dim, **kw)

        nn.functional.softmax = capture
        try:
            out, weights = method(module, query, key, value, attention_mask,
                                  scaling, dropout, **kwargs)
        finally:
            nn.functional.softmax = softmax
        record(module, query, key, value, seen["scores"], weights, out)
        return out, weights

    ml.eager_attention_forward = eager_attention_forward

    def undo():
        ml.eager_attention_forward = method
    return undo


def step_recorder(steps):
    """record() for spy_on_attention: each forward after the prompt's
    (one query row) into steps, a dict per forward."""
    def record(module, q, k, v, scores, weights, out):
        if module.layer_idx == 0:
            steps.append({})
        if q.shape[-2] != 1:  # the prompt's forward
            return
        s, layer = len(steps) - 1, module.layer_idx
        groups = module.num_key_value_groups
        for h in range(q.shape[1]):
            kv = h // groups  # repeat_kv
            for part, t in (("q", q[0, h]), ("k", k[0, kv]), ("v", v[0, kv]),
                            ("scores", scores[0, h]),
                            ("weights", weights[0, h]),
                            ("context", out[0, :, h])):
                steps[-1]["s%d.l%d.h%d.%s" % (s, layer, h, part)] = t.clone()
    return record


def run_case(outdir, case):
    (name, checkpoint, sample, temperature, top_k, top_p, seed, n,
     eos) = case
    model, cfg, ids = load(checkpoint)
    if n is None:
        n = cfg.max_position_embeddings - ids.shape[1] + 1
    warpers = get_logits_warper(temperature, top_k, top_p)
    steps = []  # per forward: {name: tensor}
    with torch.no_grad():
        if eos == "third":
            torch.manual_seed(seed)
            eos = generate(model, ids, sample, warpers, n, None)[2][0]
        undo = (spy_on_attention(step_recorder(steps))
                if name in STEP_CASES else (lambda: None))
        torch.manual_seed(seed)
        try:
            picked = generate(model, ids, sample, warpers, n, eos)
        finally:
            undo()
    if steps:
        tensors = [(k, v) for st in steps for k, v in sorted(st.items())]
        write_safetensors(os.path.join(outdir, name + ".steps.safetensors"),
                          tensors)
    tokens = torch.tensor([float(t) for t, _, _, _ in picked])
    p = torch.stack([probs[t] for t, probs, _, _ in picked])
    p_logits = torch.stack([model_probs[t] for t, _, model_probs, _ in picked])
    kept = torch.tensor([[float(k) for k in kept] for _, _, _, kept in picked])
    tops = [top5_padded(probs) for _, probs, _, _ in picked]
    top = torch.tensor([t for t, _ in tops])
    top_p_ = torch.stack([tp for _, tp in tops])
    settings = torch.tensor([float(sample), temperature, float(top_k), top_p,
                             float(seed), float(n),
                             float(eos if eos is not None else -1)],
                            dtype=torch.float64).to(torch.float32)
    write_safetensors(os.path.join(outdir, name + ".safetensors"),
                      [("tokens", tokens), ("p", p), ("p_logits", p_logits),
                       ("kept", kept), ("top", top),
                       ("top_p", top_p_), ("settings", settings)])
    print(name, checkpoint, [t[0] for t in picked])


def run_ablate_case(outdir, case):
    model, cfg, ids = load(case[1])
    hd = cfg.hidden_size // cfg.num_attention_heads
    picked, clean = generate_ablated(
        model, lambda layer: model.model.layers[layer].self_attn.o_proj, hd,
        ids, case[2:])
    write_ablated(outdir, case, picked, clean)


def main():
    torch.set_num_threads(1)
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        HERE, "llama_generate")
    os.makedirs(outdir, exist_ok=True)
    for case in CASES:
        run_case(outdir, case)
    for case in ABLATE_CASES:
        run_ablate_case(outdir, case)
    families = set()
    for case in CASES + ABLATE_CASES:
        with open(os.path.join(HERE, "llama", case[1], "config.json")) as fh:
            families.add(json.load(fh)["model_type"])
    if CACHE_CHECKED != families:
        raise SystemExit("cache not checked for %s" %
                         ", ".join(sorted(families - CACHE_CHECKED)))


if __name__ == "__main__":
    main()
