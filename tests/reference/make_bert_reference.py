#!/usr/bin/env python3
"""Make small random BERT checkpoints and PyTorch's tables for them.

For every case below it writes a folder bert/NAME/ (beside this script, or
in OUTDIR):

  config.json        as transformers' BertConfig writes it (the keys
                     mha-explain reads)
  model.safetensors  the parameters under Hugging Face's names (F32, or
                     F16 for the case that says so): with
                     BertForMaskedLM's "bert." prefix and its masked-word
                     head cls.predictions.* (the decoder tied to the word
                     embeddings, so not stored, as save_pretrained leaves
                     it out), or BertModel's names without either;
                     with the pooler (the cases that say so),
                     pooler.dense.* (BertModel's, and BertForPreTraining's
                     under "bert.", whose next-sentence head
                     cls.seq_relationship.* is stored too)
  tokenizer.json     a WordPiece tokenizer as BertTokenizerFast writes it
                     (tests/unit/hf_tokenizer_test.py's bert_json) over
                     a small vocabulary
  text.txt, ids.txt  the text and its ids: [CLS], each word's id (every
                     word of the texts is a whole word of the vocabulary,
                     lower-case, so WordPiece keeps it whole), [SEP]
  pair.txt           a second text (--pair), for the case that has one:
                     its ids and [SEP] follow, of token type 1
  types.txt          the token types, BertEmbeddings' token_type_ids
  reference.safetensors
                     every table of the forward pass as PyTorch computes
                     it: "embedded", "layer.L.head.H.queries" (keys,
                     values, attn_scores, attn_weights, head_context),
                     "layer.L.concat", "layer.L.attn_out",
                     "layer.L.add_norm1", "layer.L.ffn_hidden",
                     "layer.L.ffn_out", "layer.L.out", "out", with the
                     head "logits", and with the pooler "pooler_output"
                     (1 x hidden: BertPooler over the first token)

and gelu.safetensors: F.gelu over 4096 values as one tensor and over 64
of them one at a time (make_gelu).

The model is transformers' BERT, its classes copied verbatim below from
src/transformers/models/bert/modeling_bert.py at commit
004ad5f50b627b59bf0d581c31bc0052b6cfd40b of huggingface/transformers (the
4.x eager code, which runs on torch 1.13): BertEmbeddings, BertSelfAttention,
BertSelfOutput, BertAttention, BertIntermediate, BertOutput, BertLayer,
BertEncoder, BertPredictionHeadTransform, BertLMPredictionHead and
BertOnlyMLMHead. What they import from the rest of transformers is given
here: ACT2FN["gelu"] is torch.nn.functional.gelu (activations.py),
apply_chunking_to_forward with chunk_size 0 calls the function
(modeling_utils.py), and the extended attention mask of one text without
padding is BertModel's (1.0 - mask[:, None, None, :]) * -10000.0
(get_extended_attention_mask). The tables are read with forward hooks on
the modules, and a global hook on nn.Softmax for the scores and weights.

BertPooler, which the copies above do not have, is not copied: it is
loaded at run time from a saved copy of the same file, checked by its
SHA-256 (hf_source.py, which says where to save it), and called as
BertModel.forward calls it, self.pooler(sequence_output).

How to run it (Debian's python3-torch, CPU, float32, one thread):

    /usr/bin/python3 tests/reference/make_bert_reference.py [OUTDIR]

with src/transformers/models/bert/modeling_bert.py of huggingface/
transformers at the commit above saved under /work/hf-src/ (or $HF_SRC),
for BertPooler (hf_source.py). The cases without the pooler do not read
it, and their data is what the script wrote before the pooler cases.
"""

import json
import logging
import math
import os
import re
import sys
import types

import torch
import torch.utils.checkpoint
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "unit"))
from make_gpt2_reference import write_safetensors  # noqa: E402
from hf_source import load as load_hf  # noqa: E402

logger = logging.getLogger(__name__)

# packaging.version, for BertEmbeddings' one comparison of versions
version = types.SimpleNamespace(
    parse=lambda s: tuple(int(x) for x in re.findall(r"\d+", s)[:3]))

# activations.py: "gelu" is PyTorch's exact GELU
ACT2FN = {"gelu": nn.functional.gelu}


def apply_chunking_to_forward(forward_fn, chunk_size, chunk_dim,
                              *input_tensors):
    """modeling_utils.py's, for chunk_size 0: no chunks."""
    assert chunk_size == 0
    return forward_fn(*input_tensors)


# ---- transformers' modeling_bert.py (see above), verbatim -----------------

class BertEmbeddings(nn.Module):
    """Construct the embeddings from word, position and token_type embeddings."""

    def __init__(self, config):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size, padding_idx=config.pad_token_id)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)

        # self.LayerNorm is not snake-cased to stick with TensorFlow model variable name and be able to load
        # any TensorFlow checkpoint file
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        # position_ids (1, len position emb) is contiguous in memory and exported when serialized
        self.position_embedding_type = getattr(config, "position_embedding_type", "absolute")
        self.register_buffer("position_ids", torch.arange(config.max_position_embeddings).expand((1, -1)))
        if version.parse(torch.__version__) > version.parse("1.6.0"):
            self.register_buffer(
                "token_type_ids",
                torch.zeros(self.position_ids.size(), dtype=torch.long, device=self.position_ids.device),
                persistent=False,
            )

    def forward(
        self, input_ids=None, token_type_ids=None, position_ids=None, inputs_embeds=None, past_key_values_length=0
    ):
        if input_ids is not None:
            input_shape = input_ids.size()
        else:
            input_shape = inputs_embeds.size()[:-1]

        seq_length = input_shape[1]

        position_ids = self.position_ids[:, past_key_values_length : seq_length + past_key_values_length]

        # Setting the token_type_ids to the registered buffer in constructor where it is all zeros, which usually occurs
        # when its auto-generated, registered buffer helps users when tracing the model without passing token_type_ids, solves
        # issue #5664

        if token_type_ids is None:
            if hasattr(self, "token_type_ids"):
                self.token_type_ids = self.token_type_ids[:, :seq_length]
                self.token_type_ids = self.token_type_ids.expand(input_shape[0], seq_length)
                token_type_ids = self.token_type_ids
            else:
                token_type_ids = torch.zeros(input_shape, dtype=torch.long, device=self.position_ids.device)

        if inputs_embeds is None:
            inputs_embeds = self.word_embeddings(input_ids)
        token_type_embeddings = self.token_type_embeddings(token_type_ids)

        embeddings = inputs_embeds + token_type_embeddings
        if self.position_embedding_type == "absolute":
            position_embeddings = self.position_embeddings(position_ids)
            embeddings += position_embeddings
        embeddings = self.LayerNorm(embeddings)
        embeddings = self.dropout(embeddings)
        return embeddings


class BertSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        if config.hidden_size % config.num_attention_heads != 0 and not hasattr(config, "embedding_size"):
            raise ValueError(
                f"The hidden size ({config.hidden_size}) is not a multiple of the number of attention "
                f"heads ({config.num_attention_heads})"
            )

        self.num_attention_heads = config.num_attention_heads
        self.attention_head_size = int(config.hidden_size / config.num_attention_heads)
        self.all_head_size = self.num_attention_heads * self.attention_head_size

        self.query = nn.Linear(config.hidden_size, self.all_head_size)
        self.key = nn.Linear(config.hidden_size, self.all_head_size)
        self.value = nn.Linear(config.hidden_size, self.all_head_size)

        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)
        self.position_embedding_type = getattr(config, "position_embedding_type", "absolute")
        if self.position_embedding_type == "relative_key" or self.position_embedding_type == "relative_key_query":
            self.max_position_embeddings = config.max_position_embeddings
            self.distance_embedding = nn.Embedding(2 * config.max_position_embeddings - 1, self.attention_head_size)

        self.is_decoder = config.is_decoder

    def transpose_for_scores(self, x):
        new_x_shape = x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)
        x = x.view(*new_x_shape)
        return x.permute(0, 2, 1, 3)

    def forward(
        self,
        hidden_states,
        attention_mask=None,
        head_mask=None,
        encoder_hidden_states=None,
        encoder_attention_mask=None,
        past_key_value=None,
        output_attentions=False,
    ):
        mixed_query_layer = self.query(hidden_states)

        # If this is instantiated as a cross-attention module, the keys
        # and values come from an encoder; the attention mask needs to be
        # such that the encoder's padding tokens are not attended to.
        is_cross_attention = encoder_hidden_states is not None

        if is_cross_attention and past_key_value is not None:
            # reuse k,v, cross_attentions
            key_layer = past_key_value[0]
            value_layer = past_key_value[1]
            attention_mask = encoder_attention_mask
        elif is_cross_attention:
            key_layer = self.transpose_for_scores(self.key(encoder_hidden_states))
            value_layer = self.transpose_for_scores(self.value(encoder_hidden_states))
            attention_mask = encoder_attention_mask
        elif past_key_value is not None:
            key_layer = self.transpose_for_scores(self.key(hidden_states))
            value_layer = self.transpose_for_scores(self.value(hidden_states))
            key_layer = torch.cat([past_key_value[0], key_layer], dim=2)
            value_layer = torch.cat([past_key_value[1], value_layer], dim=2)
        else:
            key_layer = self.transpose_for_scores(self.key(hidden_states))
            value_layer = self.transpose_for_scores(self.value(hidden_states))

        query_layer = self.transpose_for_scores(mixed_query_layer)

        if self.is_decoder:
            # if cross_attention save Tuple(torch.Tensor, torch.Tensor) of all cross attention key/value_states.
            # Further calls to cross_attention layer can then reuse all cross-attention
            # key/value_states (first "if" case)
            # if uni-directional self-attention (decoder) save Tuple(torch.Tensor, torch.Tensor) of
            # all previous decoder key/value_states. Further calls to uni-directional self-attention
            # can concat previous decoder key/value_states to current projected key/value_states (third "elif" case)
            # if encoder bi-directional self-attention `past_key_value` is always `None`
            past_key_value = (key_layer, value_layer)

        # Take the dot product between "query" and "key" to get the raw attention scores.
        attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))

        if self.position_embedding_type == "relative_key" or self.position_embedding_type == "relative_key_query":
            seq_length = hidden_states.size()[1]
            position_ids_l = torch.arange(seq_length, dtype=torch.long, device=hidden_states.device).view(-1, 1)
            position_ids_r = torch.arange(seq_length, dtype=torch.long, device=hidden_states.device).view(1, -1)
            distance = position_ids_l - position_ids_r
            positional_embedding = self.distance_embedding(distance + self.max_position_embeddings - 1)
            positional_embedding = positional_embedding.to(dtype=query_layer.dtype)  # fp16 compatibility

            if self.position_embedding_type == "relative_key":
                relative_position_scores = torch.einsum("bhld,lrd->bhlr", query_layer, positional_embedding)
                attention_scores = attention_scores + relative_position_scores
            elif self.position_embedding_type == "relative_key_query":
                relative_position_scores_query = torch.einsum("bhld,lrd->bhlr", query_layer, positional_embedding)
                relative_position_scores_key = torch.einsum("bhrd,lrd->bhlr", key_layer, positional_embedding)
                attention_scores = attention_scores + relative_position_scores_query + relative_position_scores_key

        attention_scores = attention_scores / math.sqrt(self.attention_head_size)
        if attention_mask is not None:
            # Apply the attention mask is (precomputed for all layers in BertModel forward() function)
            attention_scores = attention_scores + attention_mask

        # Normalize the attention scores to probabilities.
        attention_probs = nn.Softmax(dim=-1)(attention_scores)

        # This is actually dropping out entire tokens to attend to, which might
        # seem a bit unusual, but is taken from the original Transformer paper.
        attention_probs = self.dropout(attention_probs)

        # Mask heads if we want to
        if head_mask is not None:
            attention_probs = attention_probs * head_mask

        context_layer = torch.matmul(attention_probs, value_layer)

        context_layer = context_layer.permute(0, 2, 1, 3).contiguous()
        new_context_layer_shape = context_layer.size()[:-2] + (self.all_head_size,)
        context_layer = context_layer.view(*new_context_layer_shape)

        outputs = (context_layer, attention_probs) if output_attentions else (context_layer,)

        if self.is_decoder:
            outputs = outputs + (past_key_value,)
        return outputs


class BertSelfOutput(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden_states, input_tensor):
        hidden_states = self.dense(hidden_states)
        hidden_states = self.dropout(hidden_states)
        hidden_states = self.LayerNorm(hidden_states + input_tensor)
        return hidden_states


class BertAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.self = BertSelfAttention(config)
        self.output = BertSelfOutput(config)
        self.pruned_heads = set()

    def forward(
        self,
        hidden_states,
        attention_mask=None,
        head_mask=None,
        encoder_hidden_states=None,
        encoder_attention_mask=None,
        past_key_value=None,
        output_attentions=False,
    ):
        self_outputs = self.self(
            hidden_states,
            attention_mask,
            head_mask,
            encoder_hidden_states,
            encoder_attention_mask,
            past_key_value,
            output_attentions,
        )
        attention_output = self.output(self_outputs[0], hidden_states)
        outputs = (attention_output,) + self_outputs[1:]  # add attentions if we output them
        return outputs


class BertIntermediate(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.intermediate_size)
        if isinstance(config.hidden_act, str):
            self.intermediate_act_fn = ACT2FN[config.hidden_act]
        else:
            self.intermediate_act_fn = config.hidden_act

    def forward(self, hidden_states):
        hidden_states = self.dense(hidden_states)
        hidden_states = self.intermediate_act_fn(hidden_states)
        return hidden_states


class BertOutput(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.intermediate_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden_states, input_tensor):
        hidden_states = self.dense(hidden_states)
        hidden_states = self.dropout(hidden_states)
        hidden_states = self.LayerNorm(hidden_states + input_tensor)
        return hidden_states


class BertLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.chunk_size_feed_forward = config.chunk_size_feed_forward
        self.seq_len_dim = 1
        self.attention = BertAttention(config)
        self.is_decoder = config.is_decoder
        self.add_cross_attention = config.add_cross_attention
        if self.add_cross_attention:
            assert self.is_decoder, f"{self} should be used as a decoder model if cross attention is added"
            self.crossattention = BertAttention(config)
        self.intermediate = BertIntermediate(config)
        self.output = BertOutput(config)

    def forward(
        self,
        hidden_states,
        attention_mask=None,
        head_mask=None,
        encoder_hidden_states=None,
        encoder_attention_mask=None,
        past_key_value=None,
        output_attentions=False,
    ):
        # decoder uni-directional self-attention cached key/values tuple is at positions 1,2
        self_attn_past_key_value = past_key_value[:2] if past_key_value is not None else None
        self_attention_outputs = self.attention(
            hidden_states,
            attention_mask,
            head_mask,
            output_attentions=output_attentions,
            past_key_value=self_attn_past_key_value,
        )
        attention_output = self_attention_outputs[0]

        # if decoder, the last output is tuple of self-attn cache
        if self.is_decoder:
            outputs = self_attention_outputs[1:-1]
            present_key_value = self_attention_outputs[-1]
        else:
            outputs = self_attention_outputs[1:]  # add self attentions if we output attention weights

        cross_attn_present_key_value = None
        if self.is_decoder and encoder_hidden_states is not None:
            assert hasattr(
                self, "crossattention"
            ), f"If `encoder_hidden_states` are passed, {self} has to be instantiated with cross-attention layers by setting `config.add_cross_attention=True`"

            # cross_attn cached key/values tuple is at positions 3,4 of past_key_value tuple
            cross_attn_past_key_value = past_key_value[-2:] if past_key_value is not None else None
            cross_attention_outputs = self.crossattention(
                attention_output,
                attention_mask,
                head_mask,
                encoder_hidden_states,
                encoder_attention_mask,
                cross_attn_past_key_value,
                output_attentions,
            )
            attention_output = cross_attention_outputs[0]
            outputs = outputs + cross_attention_outputs[1:-1]  # add cross attentions if we output attention weights

            # add cross-attn cache to positions 3,4 of present_key_value tuple
            cross_attn_present_key_value = cross_attention_outputs[-1]
            present_key_value = present_key_value + cross_attn_present_key_value

        layer_output = apply_chunking_to_forward(
            self.feed_forward_chunk, self.chunk_size_feed_forward, self.seq_len_dim, attention_output
        )
        outputs = (layer_output,) + outputs

        # if decoder, return the attn key/values as the last output
        if self.is_decoder:
            outputs = outputs + (present_key_value,)

        return outputs

    def feed_forward_chunk(self, attention_output):
        intermediate_output = self.intermediate(attention_output)
        layer_output = self.output(intermediate_output, attention_output)
        return layer_output


class BertEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.layer = nn.ModuleList([BertLayer(config) for _ in range(config.num_hidden_layers)])

    def forward(
        self,
        hidden_states,
        attention_mask=None,
        head_mask=None,
        encoder_hidden_states=None,
        encoder_attention_mask=None,
        past_key_values=None,
        use_cache=None,
        output_attentions=False,
        output_hidden_states=False,
        return_dict=True,
    ):
        all_hidden_states = () if output_hidden_states else None
        all_self_attentions = () if output_attentions else None
        all_cross_attentions = () if output_attentions and self.config.add_cross_attention else None

        next_decoder_cache = () if use_cache else None
        for i, layer_module in enumerate(self.layer):
            if output_hidden_states:
                all_hidden_states = all_hidden_states + (hidden_states,)

            layer_head_mask = head_mask[i] if head_mask is not None else None
            past_key_value = past_key_values[i] if past_key_values is not None else None

            if getattr(self.config, "gradient_checkpointing", False) and self.training:

                if use_cache:
                    logger.warning(
                        "`use_cache=True` is incompatible with `config.gradient_checkpointing=True`. Setting "
                        "`use_cache=False`..."
                    )
                    use_cache = False

                def create_custom_forward(module):
                    def custom_forward(*inputs):
                        return module(*inputs, past_key_value, output_attentions)

                    return custom_forward

                layer_outputs = torch.utils.checkpoint.checkpoint(
                    create_custom_forward(layer_module),
                    hidden_states,
                    attention_mask,
                    layer_head_mask,
                    encoder_hidden_states,
                    encoder_attention_mask,
                )
            else:
                layer_outputs = layer_module(
                    hidden_states,
                    attention_mask,
                    layer_head_mask,
                    encoder_hidden_states,
                    encoder_attention_mask,
                    past_key_value,
                    output_attentions,
                )

            hidden_states = layer_outputs[0]
            if use_cache:
                next_decoder_cache += (layer_outputs[-1],)
            if output_attentions:
                all_self_attentions = all_self_attentions + (layer_outputs[1],)
                if self.config.add_cross_attention:
                    all_cross_attentions = all_cross_attentions + (layer_outputs[2],)

        if output_hidden_states:
            all_hidden_states = all_hidden_states + (hidden_states,)

        if not return_dict:
            return tuple(
                v
                for v in [
                    hidden_states,
                    next_decoder_cache,
                    all_hidden_states,
                    all_self_attentions,
                    all_cross_attentions,
                ]
                if v is not None
            )
        return hidden_states


class BertPredictionHeadTransform(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        if isinstance(config.hidden_act, str):
            self.transform_act_fn = ACT2FN[config.hidden_act]
        else:
            self.transform_act_fn = config.hidden_act
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, hidden_states):
        hidden_states = self.dense(hidden_states)
        hidden_states = self.transform_act_fn(hidden_states)
        hidden_states = self.LayerNorm(hidden_states)
        return hidden_states


class BertLMPredictionHead(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.transform = BertPredictionHeadTransform(config)

        # The output weights are the same as the input embeddings, but there is
        # an output-only bias for each token.
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size, bias=False)

        self.bias = nn.Parameter(torch.zeros(config.vocab_size))

        # Need a link between the two variables so that the bias is correctly resized with `resize_token_embeddings`
        self.decoder.bias = self.bias

    def forward(self, hidden_states):
        hidden_states = self.transform(hidden_states)
        hidden_states = self.decoder(hidden_states)
        return hidden_states


class BertOnlyMLMHead(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.predictions = BertLMPredictionHead(config)

    def forward(self, sequence_output):
        prediction_scores = self.predictions(sequence_output)
        return prediction_scores


# ---- the cases ---------------------------------------------------------------

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat",
         "on", "mat", ".", "a", "dog", "ran", "to", "park", "and", "hat",
         "is", "big", "small", ",", "red", "blue", "##s", "##ing", "run",
         "sit", "bird", "tree", "in", "it"]

# name, layers, heads, hidden, intermediate, masked-word head (and the
# "bert." prefix), text, seed, second text (--pair) or None[, the file's
# dtype[, the pooler]]
CASES = [
    ("mlm", 2, 2, 16, 24, True, "the cat [MASK] on the mat .", 11, None),
    ("base", 1, 4, 20, 37, False, "a dog ran to the park , and it is big", 12,
     None),
    ("mlm_wide", 2, 3, 24, 40, True,
     "the [MASK] sat in a tree and the dog [MASK] to the park .", 13, None),
    ("mlm_pair", 1, 2, 16, 20, True, "the cat sat .", 14,
     "the dog [MASK] to the park ."),
    # stored as F16: the forward runs on model.half().float()'s weights
    ("mlm_f16", 2, 2, 16, 24, True, "a [MASK] sat on the mat .", 15, None,
     "F16"),
    # with BertModel's pooler: BertModel's own names, and
    # BertForPreTraining's (the masked-word head, the pooler and the
    # next-sentence head, under "bert.") as bert-base-uncased ships them
    ("pooler", 1, 2, 16, 20, False, "the dog sat on a red mat .", 16, None,
     "F32", True),
    ("mlm_pooler", 2, 4, 24, 36, True, "the [MASK] ran in the park", 17,
     "it is big .", "F32", True),
]


def bert_json(path):
    """tokenizer.json over VOCAB (tests/unit/hf_tokenizer_test.py's
    bert_json takes SentencePiece-style pieces; the same document)."""
    from hf_tokenizer_test import bert_json as write
    pieces = [w if w.startswith("[") else
              (w[2:] if w.startswith("##") else "\u2581" + w) for w in VOCAB]
    write(pieces, path, True)


def make_case(outdir, name, n_layer, n_head, d, inner, mlm, text, seed,
              pair, dtype="F32", pooled=False):
    torch.manual_seed(seed)
    config = types.SimpleNamespace(
        vocab_size=len(VOCAB), hidden_size=d, num_hidden_layers=n_layer,
        num_attention_heads=n_head, intermediate_size=inner,
        hidden_act="gelu", hidden_dropout_prob=0.1,
        attention_probs_dropout_prob=0.1, max_position_embeddings=24,
        type_vocab_size=2, layer_norm_eps=1e-12, pad_token_id=0,
        position_embedding_type="absolute", is_decoder=False,
        add_cross_attention=False, chunk_size_feed_forward=0)
    embeddings = BertEmbeddings(config)
    encoder = BertEncoder(config)
    head = BertOnlyMLMHead(config) if mlm else None
    modules = [("embeddings", embeddings), ("encoder", encoder)]
    if pooled:  # made after the others: their draws stay the same
        pooler = load_hf("bert", ["BertPooler"])["BertPooler"](config)
        modules.append(("pooler", pooler))
        if mlm:  # BertForPreTraining's next-sentence head, only stored
            nsp = nn.Linear(d, 2)
    with torch.no_grad():
        # LayerNorms and biases away from their ones and zeros
        for _, mod in modules + ([("cls", head)] if mlm else []):
            for pname, p in mod.named_parameters():
                if "LayerNorm" in pname or pname.endswith("bias"):
                    p.add_(torch.randn_like(p) * 0.2)
        if mlm:
            head.predictions.decoder.weight = embeddings.word_embeddings.weight
        if dtype != "F32":
            # what a user's model.float() computes with after loading the
            # half-precision file: each weight rounded, then widened
            half = {"F16": torch.float16, "BF16": torch.bfloat16}[dtype]
            for _, mod in modules + ([("cls", head)] if mlm else []):
                for p in mod.parameters():
                    p.copy_(p.to(half).float())
    for _, mod in modules + ([("cls", head)] if mlm else []):
        mod.eval()

    ids = [VOCAB.index("[CLS]")] + [VOCAB.index(w) for w in text.split()] + \
          [VOCAB.index("[SEP]")]
    type_ids = [0] * len(ids)
    if pair is not None:  # BERT's pair: [CLS] A [SEP] B [SEP], B of type 1
        second = [VOCAB.index(w) for w in pair.split()] + \
                 [VOCAB.index("[SEP]")]
        ids += second
        type_ids += [1] * len(second)
    tables = {}

    def keep(key):
        def hook(module, inputs, output):
            out = output[0] if isinstance(output, tuple) else output
            tables[key] = out[0].detach().clone()
        return hook

    def attention_hooks(L, attn):
        hd = d // n_head

        def heads(kind):
            def hook(module, inputs, output):
                for h in range(n_head):
                    tables[f"layer.{L}.head.{h}.{kind}"] = \
                        output[0, :, h * hd:(h + 1) * hd].detach().clone()
            return hook
        attn.self.query.register_forward_hook(heads("queries"))
        attn.self.key.register_forward_hook(heads("keys"))
        attn.self.value.register_forward_hook(heads("values"))
        attn.self.register_forward_hook(keep(f"layer.{L}.concat"))
        attn.output.dense.register_forward_hook(keep(f"layer.{L}.attn_out"))
        attn.output.register_forward_hook(keep(f"layer.{L}.add_norm1"))

    current = {}

    def softmax_hook(module, inputs, output):
        if not isinstance(module, nn.Softmax):
            return
        L = current["layer"]
        for h in range(n_head):
            tables[f"layer.{L}.head.{h}.attn_scores"] = \
                inputs[0][0, h].detach().clone()
            tables[f"layer.{L}.head.{h}.attn_weights"] = \
                output[0, h].detach().clone()

    def context_hook(L):
        hd = d // n_head

        def hook(module, inputs, output):
            for h in range(n_head):
                tables[f"layer.{L}.head.{h}.head_context"] = \
                    output[0][0, :, h * hd:(h + 1) * hd].detach().clone()
        return hook

    def enter(L):
        def hook(module, inputs):
            current["layer"] = L
        return hook

    embeddings.register_forward_hook(keep("embedded"))
    for L, layer in enumerate(encoder.layer):
        layer.register_forward_pre_hook(enter(L))
        attention_hooks(L, layer.attention)
        layer.attention.self.register_forward_hook(context_hook(L))
        layer.intermediate.register_forward_hook(keep(f"layer.{L}.ffn_hidden"))
        layer.output.dense.register_forward_hook(keep(f"layer.{L}.ffn_out"))
        layer.register_forward_hook(keep(f"layer.{L}.out"))
    handle = torch.nn.modules.module.register_module_forward_hook(
        softmax_hook)
    with torch.no_grad():
        input_ids = torch.tensor([ids])
        attention_mask = torch.ones_like(input_ids)
        # BertModel.get_extended_attention_mask
        extended = attention_mask[:, None, None, :]
        extended = extended.to(dtype=torch.float32)
        extended = (1.0 - extended) * -10000.0
        hidden = embeddings(input_ids=input_ids,
                            token_type_ids=torch.tensor([type_ids]))
        out = encoder(hidden, attention_mask=extended)
        tables["out"] = out[0].clone()
        if pooled:  # BertModel.forward: self.pooler(sequence_output)
            tables["pooler_output"] = pooler(out).clone()
        if mlm:
            tables["logits"] = head(out)[0].clone()
    handle.remove()

    folder = os.path.join(outdir, name)
    os.makedirs(folder, exist_ok=True)
    prefix = "bert." if mlm else ""
    params = [(prefix + "embeddings." + k, v) for k, v in
              embeddings.state_dict().items() if k != "position_ids"]
    params += [(prefix + "encoder." + k, v) for k, v in
               encoder.state_dict().items()]
    if pooled:
        params += [(prefix + "pooler." + k, v) for k, v in
                   pooler.state_dict().items()]
    if mlm:
        params += [("cls." + k, v) for k, v in head.state_dict().items()
                   if k not in ("predictions.decoder.weight",
                                "predictions.decoder.bias")]
    if mlm and pooled:
        params += [("cls.seq_relationship." + k, v.detach()) for k, v in
                   nsp.state_dict().items()]
    if dtype != "F32":
        params = [(k, v.to(half) if v.is_floating_point() else v)
                  for k, v in params]
    write_safetensors(os.path.join(folder, "model.safetensors"), params)
    architecture = ("BertForPreTraining" if pooled else "BertForMaskedLM") \
        if mlm else "BertModel"
    cfg = {"architectures": [architecture],
           "model_type": "bert", "hidden_size": d,
           "num_hidden_layers": n_layer, "num_attention_heads": n_head,
           "intermediate_size": inner, "hidden_act": "gelu",
           "max_position_embeddings": 24, "type_vocab_size": 2,
           "layer_norm_eps": 1e-12, "vocab_size": len(VOCAB),
           "pad_token_id": 0, "position_embedding_type": "absolute",
           "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
           "initializer_range": 0.02,
           "torch_dtype": {"F32": "float32", "F16": "float16",
                           "BF16": "bfloat16"}[dtype]}
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
    bert_json(os.path.join(folder, "tokenizer.json"))
    with open(os.path.join(folder, "text.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(folder, "ids.txt"), "w") as f:
        f.write(" ".join(str(i) for i in ids) + "\n")
    with open(os.path.join(folder, "types.txt"), "w") as f:
        f.write(" ".join(str(i) for i in type_ids) + "\n")
    if pair is not None:
        with open(os.path.join(folder, "pair.txt"), "w") as f:
            f.write(pair)
    write_safetensors(os.path.join(folder, "reference.safetensors"),
                      sorted(tables.items()))


def make_gelu(outdir):
    """gelu.safetensors: F.gelu (BERT's ACT2FN["gelu"]) over 4096 values
    (normal draws, then zeros, infinities, NaN, tiny and huge values), as
    one tensor ("x", "y"), and over each of the first 64 alone ("x1",
    "y1": a lone value takes another path)."""
    torch.manual_seed(7)
    x = torch.cat([torch.randn(4000) * 3,
                   torch.tensor([0.0, -0.0, float("inf"), float("-inf"),
                                 float("nan"), 1e-30, -1e-30, 1e-45, 5.5,
                                 -5.5, 9.0, -9.0, 13.0, -13.0, 88.0, -88.0,
                                 3e38, -3e38, 1e-3, -1e-3]),
                   torch.linspace(-10, 10, 76)])
    y = nn.functional.gelu(x)
    x1 = x[:64].clone()
    y1 = torch.stack([nn.functional.gelu(x1[i:i + 1])[0] for i in range(64)])
    write_safetensors(os.path.join(outdir, "gelu.safetensors"),
                      [("x", x[None]), ("y", y[None]), ("x1", x1[None]),
                       ("y1", y1[None])])


def main():
    torch.set_num_threads(1)
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "bert")
    for case in CASES:
        make_case(outdir, *case)
    make_gelu(outdir)
    with open(os.path.join(outdir, "cases.txt"), "w") as f:
        f.write("\n".join(c[0] for c in CASES) + "\n")


if __name__ == "__main__":
    main()
