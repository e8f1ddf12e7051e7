#!/usr/bin/env python3
"""Make PyTorch's generated tokens for the generation tests
(tests/unit/test_generate.c).

transformers' GPT2LMHeadModel is run as model.generate(...) runs it with
use_cache=True: the classes below are copied from transformers'
src/transformers/models/gpt2/modeling_gpt2.py (commit 0010f60284ab, the
4.3x releases that run on torch 1.13), with the methods generation calls
(GPT2Attention._attn, _split_heads, _merge_heads and forward with
layer_past; GPT2Block.forward; GPT2Model.forward with past_key_values,
position_ids and attention_mask; GPT2LMHeadModel's
prepare_inputs_for_generation and forward) as they are there, without
what generation does not reach (cross-attention, head pruning, model
parallelism, gradient checkpointing, the PreTrainedModel base). The
warpers are copied from src/transformers/generation/logits_process.py
(TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper, the
__call__ bodies unchanged since those releases), and the loop is the one
of generation/utils.py's greedy_search and sample: the attention mask of
ones generate() makes, prepare_inputs_for_generation, the last row's
logits, the warpers in the order _get_logits_warper adds them
(temperature, top-k, top-p), softmax, torch.multinomial(probs,
num_samples=1), and _update_model_kwargs_for_generation (the cache and
the mask grown by one). torch.manual_seed(seed) is called right before.

It writes generate/CASE.safetensors beside this script (or in OUTDIR) for
each case of CASES below, with the checkpoints of gpt2/
(make_gpt2_reference.py) and their ids.txt as the prompt:

  "tokens" (N)      the new tokens' ids (as float32)
  "p" (N)           each one's probability in the distribution it was
                    picked from: softmax of the logits (greedy), of the
                    warped scores (sampling)
  "p_logits" (N)     its probability in the model's softmax of the logits
  "kept" (N, 2)     the tokens with a finite score after top-k and after
                    top-p (the vocabulary's size for a warper not used)
  "top" (N, 5), "top_p" (N, 5)
                    the five likeliest tokens there that could be
                    picked (probability above 0), the larger
                    probability first, then the smaller id; id -1 and
                    probability 0 after them where the warpers left fewer
  "settings" (7)    sample (0 or 1), temperature, top_k, top_p, seed,
                    max_new_tokens, eos_token_id (-1: none)

and exponential.safetensors: "values", torch.manual_seed(7) then
torch.empty(1000).exponential_() (the draws torch.multinomial makes).

and for the cases of STEP_CASES, CASE.steps.safetensors: every step
after the prompt's (one token over the cache), as GPT2Attention._attn
receives and returns them, read by wrapping each layer's _attn (the
method itself runs unchanged; softmax's input is its scores):
  "s{S}.l{L}.h{H}.q" (1, hd)          the new token's query row
  "s{S}.l{L}.h{H}.k", ".v" (P, hd)    the cached keys and values
                                      (torch.cat((past_key, key)))
  "s{S}.l{L}.h{H}.scores" (1, P)      what softmax receives
  "s{S}.l{L}.h{H}.weights" (1, P)     attn_weights
  "s{S}.l{L}.h{H}.context" (1, hd)    attn_output, before _merge_heads
with S the step (1 .. N - 1) and P the positions cached after it.

greedy_nan.safetensors: greedy over logits with a NaN (greedy_nan below).

top_p_ties.safetensors: TopPLogitsWarper on rows of scores with many
tied values, the cut falling inside a run of ties, where which tokens
go depends on the order torch.sort (not stable on the CPU) leaves them:
  "scores" (R, V)   the scores
  "top_p" (R)       each row's P
  "warped" (R, V)   the warper's output (-inf where a token is dropped)
The script checks that a stable sort would drop other tokens in some of
the rows, so the comparison can tell the two orders apart.

How to run it (Debian's python3-torch, CPU, float32):

    /usr/bin/python3 tests/reference/make_generate_reference.py [OUTDIR]
"""

import json
import os
import sys

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_gpt2_reference import write_safetensors  # noqa: E402
from make_hook_reference import (Conv1D, GPT2MLP, read_safetensors)  # noqa: E402,E501

# name, checkpoint, sample, temperature, top_k (0: none), top_p, seed,
# max_new_tokens, eos ("third": the greedy run's third token, else None)
CASES = [
    ("greedy", "two_layers", False, 1.0, 0, 1.0, 0, 8, None),
    ("greedy_wide", "wide", False, 1.0, 0, 1.0, 0, 12, None),
    ("greedy_context", "two_layers", False, 1.0, 0, 1.0, 0, 11, None),
    ("greedy_eos", "two_layers", False, 1.0, 0, 1.0, 0, 8, "third"),
    ("sample_default", "wide", True, 1.0, 50, 1.0, 42, 12, None),
    ("sample_warped", "two_layers", True, 0.8, 20, 0.9, 3, 10, None),
    ("sample_top_p", "four_heads_bf16", True, 1.3, 1000, 0.6, 7, 12, None),
    ("sample_cold", "odd_inner_f16", True, 0.25, 0, 1.0, 12345, 10, None),
]


# ---- transformers' GPT-2 with its cache (modeling_gpt2.py) -----------------

class GPT2Attention(nn.Module):
    def __init__(self, config, is_cross_attention=False, layer_idx=None):
        super().__init__()

        max_positions = config.max_position_embeddings
        self.register_buffer(
            "bias",
            torch.tril(torch.ones((max_positions, max_positions), dtype=torch.bool)).view(
                1, 1, max_positions, max_positions
            ),
        )
        self.register_buffer("masked_bias", torch.tensor(-1e4))

        self.embed_dim = config.hidden_size
        self.num_heads = config.num_attention_heads
        self.head_dim = self.embed_dim // self.num_heads
        self.split_size = self.embed_dim

        self.scale_attn_weights = config.scale_attn_weights
        self.is_cross_attention = is_cross_attention

        # Layer-wise attention scaling, reordering, and upcasting
        self.scale_attn_by_inverse_layer_idx = config.scale_attn_by_inverse_layer_idx
        self.layer_idx = layer_idx
        self.reorder_and_upcast_attn = config.reorder_and_upcast_attn

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

        # Layer-wise attention scaling
        if self.scale_attn_by_inverse_layer_idx:
            attn_weights = attn_weights / float(self.layer_idx + 1)

        if not self.is_cross_attention:
            # if only "normal" attention layer implements causal mask
            query_length, key_length = query.size(-2), key.size(-2)
            causal_mask = self.bias[:, :, key_length - query_length : key_length, :key_length]
            mask_value = torch.finfo(attn_weights.dtype).min
            # Need to be a tensor, otherwise we get error: `RuntimeError: expected scalar type float but found double`.
            # Need to be on the same device, otherwise `RuntimeError: ..., x and y to be on the same device`
            mask_value = torch.full([], mask_value, dtype=attn_weights.dtype).to(attn_weights.device)
            attn_weights = torch.where(causal_mask, attn_weights.to(attn_weights.dtype), mask_value)

        if attention_mask is not None:
            # Apply the attention mask
            attn_weights = attn_weights + attention_mask

        attn_weights = nn.functional.softmax(attn_weights, dim=-1)

        # Downcast (if necessary) back to V's dtype (if in mixed-precision) -- No-Op otherwise
        attn_weights = attn_weights.type(value.dtype)
        attn_weights = self.attn_dropout(attn_weights)

        # Mask heads if we want to
        if head_mask is not None:
            attn_weights = attn_weights * head_mask

        attn_output = torch.matmul(attn_weights, value)

        return attn_output, attn_weights

    def _split_heads(self, tensor, num_heads, attn_head_size):
        """
        Splits hidden_size dim into attn_head_size and num_heads
        """
        new_shape = tensor.size()[:-1] + (num_heads, attn_head_size)
        tensor = tensor.view(new_shape)
        return tensor.permute(0, 2, 1, 3)  # (batch, head, seq_length, head_features)

    def _merge_heads(self, tensor, num_heads, attn_head_size):
        """
        Merges attn_head_size dim and num_attn_heads dim into hidden_size
        """
        tensor = tensor.permute(0, 2, 1, 3).contiguous()
        new_shape = tensor.size()[:-2] + (num_heads * attn_head_size,)
        return tensor.view(new_shape)

    def forward(
        self,
        hidden_states,
        layer_past=None,
        attention_mask=None,
        head_mask=None,
        encoder_hidden_states=None,
        encoder_attention_mask=None,
        use_cache=False,
        output_attentions=False,
    ):
        query, key, value = self.c_attn(hidden_states).split(self.split_size, dim=2)

        query = self._split_heads(query, self.num_heads, self.head_dim)
        key = self._split_heads(key, self.num_heads, self.head_dim)
        value = self._split_heads(value, self.num_heads, self.head_dim)

        if layer_past is not None:
            past_key, past_value = layer_past
            key = torch.cat((past_key, key), dim=-2)
            value = torch.cat((past_value, value), dim=-2)

        if use_cache is True:
            present = (key, value)
        else:
            present = None

        attn_output, attn_weights = self._attn(query, key, value, attention_mask, head_mask)

        attn_output = self._merge_heads(attn_output, self.num_heads, self.head_dim)
        attn_output = self.c_proj(attn_output)
        attn_output = self.resid_dropout(attn_output)

        outputs = (attn_output, present)
        if output_attentions:
            outputs += (attn_weights,)

        return outputs  # a, present, (attentions)


class GPT2Block(nn.Module):
    def __init__(self, config, layer_idx=None):
        super().__init__()
        hidden_size = config.hidden_size
        inner_dim = config.n_inner if config.n_inner is not None else 4 * hidden_size

        self.ln_1 = nn.LayerNorm(hidden_size, eps=config.layer_norm_epsilon)
        self.attn = GPT2Attention(config, layer_idx=layer_idx)
        self.ln_2 = nn.LayerNorm(hidden_size, eps=config.layer_norm_epsilon)

        self.mlp = GPT2MLP(inner_dim, config)

    def forward(
        self,
        hidden_states,
        layer_past=None,
        attention_mask=None,
        head_mask=None,
        encoder_hidden_states=None,
        encoder_attention_mask=None,
        use_cache=False,
        output_attentions=False,
    ):
        residual = hidden_states
        hidden_states = self.ln_1(hidden_states)
        attn_outputs = self.attn(
            hidden_states,
            layer_past=layer_past,
            attention_mask=attention_mask,
            head_mask=head_mask,
            use_cache=use_cache,
            output_attentions=output_attentions,
        )
        attn_output = attn_outputs[0]  # output_attn: a, present, (attentions)
        outputs = attn_outputs[1:]
        # residual connection
        hidden_states = attn_output + residual

        residual = hidden_states
        hidden_states = self.ln_2(hidden_states)
        feed_forward_hidden_states = self.mlp(hidden_states)
        # residual connection
        hidden_states = residual + feed_forward_hidden_states

        if use_cache:
            outputs = (hidden_states,) + outputs
        else:
            outputs = (hidden_states,) + outputs[1:]

        return outputs  # hidden_states, present, (attentions, cross_attentions)


class GPT2Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.dtype = torch.float32

        self.embed_dim = config.hidden_size

        self.wte = nn.Embedding(config.vocab_size, self.embed_dim)
        self.wpe = nn.Embedding(config.max_position_embeddings, self.embed_dim)

        self.drop = nn.Dropout(config.embd_pdrop)
        self.h = nn.ModuleList([GPT2Block(config, layer_idx=i) for i in range(config.num_hidden_layers)])
        self.ln_f = nn.LayerNorm(self.embed_dim, eps=config.layer_norm_epsilon)

    def forward(
        self,
        input_ids=None,
        past_key_values=None,
        attention_mask=None,
        token_type_ids=None,
        position_ids=None,
        use_cache=None,
    ):
        input_shape = input_ids.size()
        input_ids = input_ids.view(-1, input_shape[-1])
        batch_size = input_ids.shape[0]

        device = input_ids.device

        if position_ids is not None:
            position_ids = position_ids.view(-1, input_shape[-1])

        if past_key_values is None:
            past_length = 0
            past_key_values = tuple([None] * len(self.h))
        else:
            past_length = past_key_values[0][0].size(-2)
        if position_ids is None:
            position_ids = torch.arange(past_length, input_shape[-1] + past_length, dtype=torch.long, device=device)
            position_ids = position_ids.unsqueeze(0).view(-1, input_shape[-1])

        # GPT2Attention mask.
        if attention_mask is not None:
            if batch_size <= 0:
                raise ValueError("batch_size has to be defined and > 0")
            attention_mask = attention_mask.view(batch_size, -1)
            # We create a 3D attention mask from a 2D tensor mask.
            # Sizes are [batch_size, 1, 1, to_seq_length]
            # So we can broadcast to [batch_size, num_heads, from_seq_length, to_seq_length]
            # this attention mask is more simple than the triangular masking of causal attention
            # used in OpenAI GPT, we just need to prepare the broadcast dimension here.
            attention_mask = attention_mask[:, None, None, :]

            # Since attention_mask is 1.0 for positions we want to attend and 0.0 for
            # masked positions, this operation will create a tensor which is 0.0 for
            # positions we want to attend and the dtype's smallest value for masked positions.
            # Since we are adding it to the raw scores before the softmax, this is
            # effectively the same as removing these entirely.
            attention_mask = attention_mask.to(dtype=self.dtype)  # fp16 compatibility
            attention_mask = (1.0 - attention_mask) * torch.finfo(self.dtype).min

        inputs_embeds = self.wte(input_ids)
        position_embeds = self.wpe(position_ids)
        hidden_states = inputs_embeds + position_embeds

        hidden_states = self.drop(hidden_states)

        output_shape = input_shape + (hidden_states.size(-1),)

        presents = () if use_cache else None
        for i, (block, layer_past) in enumerate(zip(self.h, past_key_values)):
            outputs = block(
                hidden_states,
                layer_past=layer_past,
                attention_mask=attention_mask,
                head_mask=None,
                use_cache=use_cache,
            )

            hidden_states = outputs[0]
            if use_cache is True:
                presents = presents + (outputs[1],)

        hidden_states = self.ln_f(hidden_states)

        hidden_states = hidden_states.view(output_shape)

        return hidden_states, presents


class GPT2LMHeadModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.transformer = GPT2Model(config)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, inputs_embeds=None, **kwargs):
        token_type_ids = kwargs.get("token_type_ids", None)
        # only last token for inputs_ids if past is defined in kwargs
        if past_key_values:
            input_ids = input_ids[:, -1].unsqueeze(-1)
            if token_type_ids is not None:
                token_type_ids = token_type_ids[:, -1].unsqueeze(-1)

        attention_mask = kwargs.get("attention_mask", None)
        position_ids = kwargs.get("position_ids", None)

        if attention_mask is not None and position_ids is None:
            # create position_ids on the fly for batch generation
            position_ids = attention_mask.long().cumsum(-1) - 1
            position_ids.masked_fill_(attention_mask == 0, 1)
            if past_key_values:
                position_ids = position_ids[:, -1].unsqueeze(-1)
        else:
            position_ids = None

        model_inputs = {"input_ids": input_ids}

        model_inputs.update(
            {
                "past_key_values": past_key_values,
                "use_cache": kwargs.get("use_cache"),
                "position_ids": position_ids,
                "attention_mask": attention_mask,
                "token_type_ids": token_type_ids,
            }
        )
        return model_inputs

    def forward(self, input_ids=None, past_key_values=None, attention_mask=None, token_type_ids=None,
                position_ids=None, use_cache=None):
        transformer_outputs = self.transformer(
            input_ids,
            past_key_values=past_key_values,
            attention_mask=attention_mask,
            token_type_ids=token_type_ids,
            position_ids=position_ids,
            use_cache=use_cache,
        )
        hidden_states = transformer_outputs[0]

        lm_logits = self.lm_head(hidden_states)

        return lm_logits, transformer_outputs[1]


# ---- the warpers (generation/logits_process.py) -----------------------------

class TemperatureLogitsWarper:
    def __init__(self, temperature: float):
        if not isinstance(temperature, float) or not (temperature > 0):
            raise ValueError(f"`temperature` has to be a strictly positive float, but is {temperature}")

        self.temperature = temperature

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        scores = scores / self.temperature
        return scores


class TopPLogitsWarper:
    def __init__(self, top_p: float, filter_value: float = -float("Inf"), min_tokens_to_keep: int = 1):
        top_p = float(top_p)
        if top_p < 0 or top_p > 1.0:
            raise ValueError(f"`top_p` has to be a float > 0 and < 1, but is {top_p}")

        self.top_p = top_p
        self.filter_value = filter_value
        self.min_tokens_to_keep = min_tokens_to_keep

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        sorted_logits, sorted_indices = torch.sort(scores, descending=False)
        cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)

        # Remove tokens with cumulative top_p above the threshold (token with 0 are kept)
        sorted_indices_to_remove = cumulative_probs <= (1 - self.top_p)
        # Keep at least min_tokens_to_keep
        sorted_indices_to_remove[..., -self.min_tokens_to_keep :] = 0

        # scatter sorted tensors to original indexing
        indices_to_remove = sorted_indices_to_remove.scatter(1, sorted_indices, sorted_indices_to_remove)
        scores = scores.masked_fill(indices_to_remove, self.filter_value)
        return scores


class TopKLogitsWarper:
    def __init__(self, top_k: int, filter_value: float = -float("Inf"), min_tokens_to_keep: int = 1):
        if not isinstance(top_k, int) or top_k <= 0:
            raise ValueError(f"`top_k` has to be a strictly positive integer, but is {top_k}")

        self.top_k = max(top_k, min_tokens_to_keep)
        self.filter_value = filter_value

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        top_k = min(self.top_k, scores.size(-1))  # Safety check
        # Remove all tokens with a probability less than the last token of the top-k
        indices_to_remove = scores < torch.topk(scores, top_k)[0][..., -1, None]
        scores = scores.masked_fill(indices_to_remove, self.filter_value)
        return scores


def get_logits_warper(temperature, top_k, top_p):
    """_get_logits_warper's order: temperature, top-k, top-p."""
    warpers = []
    if temperature is not None and temperature != 1.0:
        warpers.append(TemperatureLogitsWarper(temperature))
    if top_k is not None and top_k != 0:
        warpers.append(TopKLogitsWarper(top_k=top_k, min_tokens_to_keep=1))
    if top_p is not None and top_p < 1.0:
        warpers.append(TopPLogitsWarper(top_p=top_p, min_tokens_to_keep=1))
    return warpers


# ---- generate(): greedy_search and sample (generation/utils.py) -----------

def generate(model, input_ids, sample, warpers, max_new_tokens, eos):
    """The loop of greedy_search / sample for one sequence; returns, per
    new token, (token, the distribution it was picked from, the model's
    softmax of the logits, the tokens left after top-k and after top-p)."""
    model_kwargs = {"use_cache": True,
                    "attention_mask": input_ids.new_ones(input_ids.shape)}
    picked = []
    max_length = input_ids.shape[-1] + max_new_tokens
    while True:
        model_inputs = model.prepare_inputs_for_generation(input_ids, **model_kwargs)
        logits, past = model(**model_inputs)
        next_token_logits = logits[:, -1, :]
        vocab = next_token_logits.shape[-1]
        kept = [vocab, vocab]
        if sample:
            next_token_scores = next_token_logits
            for warper in warpers:
                next_token_scores = warper(input_ids, next_token_scores)
                finite = int(torch.isfinite(next_token_scores).sum())
                if isinstance(warper, TopKLogitsWarper):
                    kept = [finite, finite]
                elif isinstance(warper, TopPLogitsWarper):
                    kept[1] = finite
            probs = nn.functional.softmax(next_token_scores, dim=-1)
            next_tokens = torch.multinomial(probs, num_samples=1).squeeze(1)
        else:
            next_tokens = torch.argmax(next_token_logits, dim=-1)
            probs = nn.functional.softmax(next_token_logits, dim=-1)
        model_probs = nn.functional.softmax(next_token_logits, dim=-1)
        picked.append((int(next_tokens[0]), probs[0].clone(),
                       model_probs[0].clone(), kept))
        input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
        # _update_model_kwargs_for_generation
        model_kwargs["past_key_values"] = past
        attention_mask = model_kwargs["attention_mask"]
        model_kwargs["attention_mask"] = torch.cat(
            [attention_mask, attention_mask.new_ones((attention_mask.shape[0], 1))], dim=-1
        )
        if eos is not None and int(next_tokens[0]) == eos:
            break
        if input_ids.shape[-1] >= max_length:
            break
    return picked


class Config:
    """The GPT2Config fields the classes above read, from config.json."""

    def __init__(self, path):
        with open(path) as fh:
            c = json.load(fh)
        self.hidden_size = self.n_embd = c["n_embd"]
        self.num_attention_heads = c["n_head"]
        self.num_hidden_layers = c["n_layer"]
        self.max_position_embeddings = c["n_positions"]
        self.vocab_size = c["vocab_size"]
        self.n_inner = c.get("n_inner")
        self.layer_norm_epsilon = c.get("layer_norm_epsilon", 1e-5)
        self.attn_pdrop = self.resid_pdrop = self.embd_pdrop = 0.1
        self.scale_attn_weights = True
        self.scale_attn_by_inverse_layer_idx = False
        self.reorder_and_upcast_attn = False
        self.activation_function = "gelu_new"


def load(name):
    folder = os.path.join(HERE, "gpt2", name)
    config = Config(os.path.join(folder, "config.json"))
    params = read_safetensors(os.path.join(folder, "model.safetensors"))
    params = {k[len("transformer."):] if k.startswith("transformer.") else k:
              v for k, v in params.items()}
    params = {k: v for k, v in params.items()
              if not k.endswith(".attn.bias") and
              not k.endswith(".attn.masked_bias")}
    model = GPT2LMHeadModel(config)
    missing, unexpected = model.transformer.load_state_dict(params,
                                                            strict=False)
    # only the mask buffers, which the checkpoint does not hold
    assert not unexpected and all(k.endswith((".attn.bias", ".attn.masked_bias"))
                                  for k in missing), (missing, unexpected)
    model.lm_head.weight = model.transformer.wte.weight  # tied
    model.eval()
    with open(os.path.join(folder, "ids.txt")) as fh:
        ids = torch.tensor([[int(i) for i in fh.read().split()]])
    return model, ids


# the cases whose steps' tables are written (CASE.steps.safetensors)
STEP_CASES = ["greedy", "sample_top_p"]


def spy_on_attention(model, record):
    """Wraps each layer's GPT2Attention._attn (an instance attribute over
    the class's method, which runs as it is) to hand record(layer, q, k,
    v, scores, weights, context) its tensors; scores is what
    nn.functional.softmax receives inside it."""
    for layer, block in enumerate(model.transformer.h):
        attn = block.attn

        def _attn(query, key, value, attention_mask=None, head_mask=None,
                  layer=layer, method=attn._attn):
            seen = {}
            softmax = nn.functional.softmax

            def capture(x, dim=None, **kwargs):
                seen["scores"] = x.clone()
                return softmax(x, dim=dim, **kwargs)

            nn.functional.softmax = capture
            try:
                out, weights = method(query, key, value, attention_mask,
                                      head_mask)
            finally:
                nn.functional.softmax = softmax
            record(layer, query, key, value, seen["scores"], weights, out)
            return out, weights

        attn._attn = _attn


def top5(probs):
    """The five likeliest tokens that could be picked (probability above
    0: the ones the warpers left, so there may be fewer), the larger
    probability first, then the smaller id."""
    order = sorted((v for v in range(probs.numel()) if float(probs[v]) > 0),
                   key=lambda v: (-float(probs[v]), v))
    return order[:5], [float(probs[v]) for v in order[:5]]


def top5_padded(probs):
    """top5's ids and probabilities (tensors), id -1 and probability 0
    after the tokens that could be picked."""
    ids, _ = top5(probs)
    pad = 5 - len(ids)
    return ([float(v) for v in ids] + [-1.0] * pad,
            torch.stack([probs[v] for v in ids] + [torch.zeros(())] * pad))


def run_case(outdir, case):
    (name, checkpoint, sample, temperature, top_k, top_p, seed, n,
     eos) = case
    model, ids = load(checkpoint)
    warpers = get_logits_warper(temperature, top_k, top_p)
    steps = []  # per forward: {name: tensor}
    with torch.no_grad():
        if eos == "third":
            torch.manual_seed(seed)
            eos = generate(model, ids, sample, warpers, n, None)[2][0]
        if name in STEP_CASES:
            def record(layer, q, k, v, scores, weights, context):
                if layer == 0:
                    steps.append({})
                if q.shape[-2] != 1:  # the prompt's forward
                    return
                s = len(steps) - 1
                for h in range(q.shape[1]):
                    for part, t in (("q", q), ("k", k), ("v", v),
                                    ("scores", scores), ("weights", weights),
                                    ("context", context)):
                        steps[-1]["s%d.l%d.h%d.%s" % (s, layer, h, part)] = \
                            t[0, h].clone()
            spy_on_attention(model, record)
        torch.manual_seed(seed)
        picked = generate(model, ids, sample, warpers, n, eos)
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


def top_p_ties(outdir):
    """TopPLogitsWarper on tied scores (see the docstring)."""
    g = torch.Generator().manual_seed(5)
    rows, ps, warped = [], [], []
    differs = 0
    for V, levels, p in [(12, 2, 0.5), (40, 3, 0.7), (40, 2, 0.45),
                         (100, 3, 0.5), (257, 4, 0.6), (1000, 3, 0.35),
                         (1000, 2, 0.8), (5000, 5, 0.5)]:
        scores = torch.randint(0, levels, (1, V), generator=g).float() / 2
        out = TopPLogitsWarper(top_p=p)(None, scores)
        # the same cut over a stable sort, to show the order matters
        _, order = torch.sort(scores, descending=False, stable=True)
        cum = scores[0, order[0]].softmax(dim=-1).cumsum(dim=-1)
        drop = cum <= (1 - p)
        drop[-1] = False
        stable = scores.clone()
        stable[0, order[0][drop]] = -float("inf")
        differs += not torch.equal(torch.isinf(stable), torch.isinf(out))
        rows.append(scores[0])
        ps.append(p)
        warped.append(out[0])
    assert differs > 0, "a stable sort keeps the same tokens in every row"
    V = max(r.numel() for r in rows)
    pad = lambda r, fill: torch.cat([r, torch.full((V - r.numel(),), fill)])
    write_safetensors(os.path.join(outdir, "top_p_ties.safetensors"),
                      [("scores", torch.stack([pad(r, float("nan"))
                                               for r in rows])),
                       ("top_p", torch.tensor(ps)),
                       ("warped", torch.stack([pad(r, float("nan"))
                                               for r in warped]))])
    print("top_p_ties: %d rows, %d where a stable sort differs" %
          (len(rows), differs))


def greedy_nan(outdir, n=4):
    """Greedy over logits that hold a NaN: two_layers with one row of wte
    (tied: of lm_head too) set to NaN, the row of a token the prompt does
    not hold, the least likely at the clean model's first step, so that
    a NaN taken for the smallest or skipped would not pick it.
    torch.argmax returns the index of the first NaN: the first new token
    is that row's; its NaN embedding then makes every later logit NaN.
    Writes greedy_nan.safetensors: "tokens" (n) the new tokens, "p" (n)
    the probability of each in the softmax of the logits (NaN) and
    "nan_row" (1)."""
    model, ids = load("two_layers")
    with torch.no_grad():
        first = generate(model, ids, False, [], 1, None)[0]
        probs = first[2].clone()
        probs[ids[0]] = float("inf")  # not a token of the prompt
        row = int(torch.argmin(probs))
        assert row != first[0] and row > 0
        model.transformer.wte.weight[row] = float("nan")
        picked = generate(model, ids, False, [], n, None)
    assert picked[0][0] == row
    write_safetensors(os.path.join(outdir, "greedy_nan.safetensors"),
                      [("tokens", torch.tensor([float(t) for t, _, _, _
                                                in picked])),
                       ("p", torch.stack([probs_t[t] for t, probs_t, _, _
                                          in picked])),
                       ("nan_row", torch.tensor([float(row)]))])
    print("greedy_nan: row", row, [t[0] for t in picked])


def main():
    torch.set_num_threads(1)
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE,
                                                                "generate")
    os.makedirs(outdir, exist_ok=True)
    torch.manual_seed(7)
    write_safetensors(os.path.join(outdir, "exponential.safetensors"),
                      [("values", torch.empty(1000).exponential_())])
    top_p_ties(outdir)
    for case in CASES:
        run_case(outdir, case)
    greedy_nan(outdir)


if __name__ == "__main__":
    main()
