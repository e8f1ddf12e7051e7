#!/usr/bin/env python3
"""Make PyTorch's head scores of BERT checkpoints (--head-scores on
--model DIR of a BERT folder), for tests/unit/test_bert_head_scores.c.

The model is transformers' BertModel, run as a user runs it on what
BERT's tokenizer returns for one text: model(input_ids,
attention_mask=1s, token_type_ids=0s, output_attentions=True,
return_dict=False), every layer's attention probabilities (batch, heads,
T, T) its outputs[2]. Its classes
(BertEmbeddings, BertSelfAttention, BertSelfOutput, BertAttention,
BertIntermediate, BertOutput, BertLayer, BertEncoder, BertPooler,
load_tf_weights_in_bert, BertPreTrainedModel and BertModel) are loaded
verbatim at run time from modeling_bert.py of huggingface/transformers
(hf_source.py: the commit and the file's SHA-256 are written there; the
file is not kept in this repository). What they import from the rest of
transformers is given here:

  ACT2FN["gelu"]        torch.nn.functional.gelu (activations.py)
  apply_chunking_to_forward
                        with chunk_size 0, calls the function
                        (modeling_utils.py)
  PreTrainedModel       the parts of modeling_utils.py's class that
                        BertModel uses on one text without padding: it
                        keeps the config, init_weights applies
                        _init_weights (the weights are then the
                        checkpoint's), get_extended_attention_mask is
                        ModuleUtilsMixin's for an encoder's 2-D mask,
                        (1.0 - mask[:, None, None, :]) * -10000.0, and
                        get_head_mask(None, L) is [None] * L
  the docstring decorators (file_utils.py) leave the function as it is;
  version.parse (packaging) reads "1.13.1" as (1, 13, 1); the output
  classes of modeling_outputs.py are not given (the model runs with
  return_dict=False, its outputs a tuple)

The checkpoints are the small random ones of bert/ (make_bert_reference.py:
BertForMaskedLM's file with "bert." names, BertModel's without, one with
the pooler, one stored in F16); their parameters are loaded with
load_state_dict (the masked-word head, cls.*, which BertModel has not,
left out; strict but for the position_ids buffer, which the files do not
store). Each case's ids are:

  a text          BERT's tokenizer's: [CLS], each word's id (the words
                  are whole words of the vocabulary), [SEP]
  (n, seed)       --repeat-random n --seed seed: the words of the folder's
                  vocabulary, tokenizer.json's ids but those its
                  added_tokens mark "special" ([PAD], [UNK], [CLS],
                  [SEP], [MASK]), ascending; torch.manual_seed(seed),
                  half = words[torch.randint(0, len(words), (n,))]; then
                  [CLS] half half [SEP], as the tokenizer wraps a text

Each head's scores are TransformerLens's head detector's
(transformer_lens/head_detector.py, as make_intervention_reference.py
copies it verbatim: get_*_detection_pattern and
compute_head_attention_similarity_score with detect_head's defaults,
error_measure "mul", nothing excluded) on attentions[layer][0, head].

Into interventions/bert_scores.safetensors (or OUTDIR): for each case,
"CHECKPOINT.CASE.scores" ((L*H) x 3: previous token, duplicate token,
induction; a row per head, layer by layer) and "CHECKPOINT.CASE.ids"
(T x 1).

How to run it (Debian's python3-torch, CPU, float32, one thread):

    /usr/bin/python3 tests/reference/make_bert_scores_reference.py [OUTDIR]

with modeling_bert.py saved as hf_source.py says.
"""

import json
import logging
import os
import re
import sys
import types

import torch
import torch.utils.checkpoint
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from hf_source import load as load_hf  # noqa: E402
from make_gpt2_reference import write_safetensors  # noqa: E402
from make_hook_reference import read_safetensors  # noqa: E402
from make_intervention_reference import (  # noqa: E402
    compute_head_attention_similarity_score,
    get_duplicate_token_head_detection_pattern,
    get_induction_head_detection_pattern,
    get_previous_token_head_detection_pattern)

# checkpoint (a folder of bert/) -> cases: (name, a text or (n, seed))
CASES = {
    "mlm": [("text", "the cat sat on the cat sat on the mat ."),
            ("random_6_3", (6, 3))],
    "base": [("random_11_5", (11, 5))],  # 2 * 11 + 2 = 24 positions
    "mlm_pooler": [("text",
                    "the dog ran to the park and the dog ran to the tree")],
    "mlm_f16": [("random_4_0", (4, 0))],
}


# ---- what modeling_bert.py imports from the rest of transformers ----------

def apply_chunking_to_forward(forward_fn, chunk_size, chunk_dim,
                              *input_tensors):
    """modeling_utils.py's, for chunk_size 0: no chunks."""
    assert chunk_size == 0
    return forward_fn(*input_tensors)


def keep_docstring(*args, **kwargs):
    """file_utils.py's docstring decorators: they only edit __doc__."""
    return lambda fn: fn


def model_output(**fields):
    """modeling_outputs.py's classes, which return_dict=False does not
    make (the forward passes here return tuples)."""
    raise AssertionError("run with return_dict=False")


class PreTrainedModel(nn.Module):
    """The parts of modeling_utils.py's PreTrainedModel (and its
    ModuleUtilsMixin) that BertModel calls on one text without
    padding."""

    def __init__(self, config, *inputs, **kwargs):
        super().__init__()
        self.config = config

    def init_weights(self):
        self.apply(self._init_weights)

    def get_extended_attention_mask(self, attention_mask, input_shape,
                                    device):
        extended_attention_mask = attention_mask[:, None, None, :]
        extended_attention_mask = extended_attention_mask.to(
            dtype=torch.float32)
        return (1.0 - extended_attention_mask) * -10000.0

    def get_head_mask(self, head_mask, num_hidden_layers):
        assert head_mask is None
        return [None] * num_hidden_layers


GIVEN = {
    "ACT2FN": {"gelu": nn.functional.gelu},
    "apply_chunking_to_forward": apply_chunking_to_forward,
    "PreTrainedModel": PreTrainedModel,
    "BertConfig": types.SimpleNamespace,
    "add_start_docstrings_to_model_forward": keep_docstring,
    "add_code_sample_docstrings": keep_docstring,
    "BERT_INPUTS_DOCSTRING": "",
    "_TOKENIZER_FOR_DOC": "BertTokenizer",
    "_CHECKPOINT_FOR_DOC": "bert-base-uncased",
    "_CONFIG_FOR_DOC": "BertConfig",
    "BaseModelOutputWithPoolingAndCrossAttentions": model_output,
    "BaseModelOutputWithPastAndCrossAttentions": model_output,
    "logger": logging.getLogger("modeling_bert"),
    "version": types.SimpleNamespace(
        parse=lambda s: tuple(int(x) for x in re.findall(r"\d+", s)[:3])),
}

CLASSES = ["load_tf_weights_in_bert", "BertEmbeddings", "BertSelfAttention",
           "BertSelfOutput", "BertAttention", "BertIntermediate",
           "BertOutput", "BertLayer", "BertEncoder", "BertPooler",
           "BertPreTrainedModel", "BertModel"]


def open_model(ns, folder):
    """BertModel with the checkpoint's parameters, in evaluation mode."""
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    config = types.SimpleNamespace(
        output_attentions=False, output_hidden_states=False,
        use_return_dict=True, is_decoder=False, add_cross_attention=False,
        chunk_size_feed_forward=0, pruned_heads={}, use_cache=True,
        gradient_checkpointing=False, **cfg)
    params = read_safetensors(os.path.join(folder, "model.safetensors"))
    prefix = "bert." if any(k.startswith("bert.") for k in params) else ""
    state = {k[len(prefix):]: v for k, v in params.items()
             if k.startswith(prefix) and not k.startswith("cls.")}
    pooled = any(k.startswith("pooler.") for k in state)
    model = ns["BertModel"](config, add_pooling_layer=pooled)
    missing, unexpected = model.load_state_dict(state, strict=False)
    assert set(missing) <= {"embeddings.position_ids"}, missing
    assert not unexpected, unexpected
    model.eval()
    return model, config


def case_ids(folder, ids):
    """The case's token ids, as a (1, T) tensor."""
    with open(os.path.join(folder, "tokenizer.json")) as f:
        tj = json.load(f)
    vocab = tj["model"]["vocab"]
    cls, sep = vocab["[CLS]"], vocab["[SEP]"]
    if isinstance(ids, str):  # BERT's tokenizer: [CLS] words [SEP]
        return torch.tensor([[cls] + [vocab[w] for w in ids.split()] +
                             [sep]])
    n, seed = ids
    special = {a["id"] for a in tj["added_tokens"] if a["special"]}
    every = set(vocab.values()) | {a["id"] for a in tj["added_tokens"]}
    words = torch.tensor(sorted(every - special))
    torch.manual_seed(seed)
    half = words[torch.randint(0, len(words), (n,))]
    return torch.cat([torch.tensor([cls]), half, half,
                      torch.tensor([sep])]).view(1, -1)


def scores_of(attentions, tokens, L, H):
    """(L*H) x 3: each head's previous-token, duplicate-token and
    induction scores, as detect_head computes them."""
    detections = [get_previous_token_head_detection_pattern(tokens),
                  get_duplicate_token_head_detection_pattern(tokens),
                  get_induction_head_detection_pattern(tokens)]
    scores = torch.empty(L * H, 3)
    for layer in range(L):
        for head in range(H):
            for k, d in enumerate(detections):
                scores[layer * H + head, k] = \
                    compute_head_attention_similarity_score(
                        attentions[layer][0, head, :, :].clone(),
                        detection_pattern=d, exclude_bos=False,
                        exclude_current_token=False, error_measure="mul")
    return scores


def main():
    torch.set_num_threads(1)
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        HERE, "interventions")
    os.makedirs(outdir, exist_ok=True)
    ns = load_hf("bert", CLASSES, GIVEN)
    tables = []
    for name, cases in CASES.items():
        folder = os.path.join(HERE, "bert", name)
        model, config = open_model(ns, folder)
        L, H = config.num_hidden_layers, config.num_attention_heads
        for case, ids in cases:
            tokens = case_ids(folder, ids)
            with torch.no_grad():
                # (sequence_output, pooled_output, attentions): the tuple
                # of return_dict=False (the output classes of
                # modeling_outputs.py are not loaded)
                # what BERT's tokenizer returns with the ids for one text
                # (its **inputs): every token of type 0, none masked
                out = model(tokens, attention_mask=torch.ones_like(tokens),
                            token_type_ids=torch.zeros_like(tokens),
                            output_attentions=True, return_dict=False)
            attentions = out[2]
            assert len(attentions) == L
            assert attentions[0].shape == (1, H) + 2 * (tokens.shape[1],)
            key = "%s.%s" % (name, case)
            tables.append((key + ".scores",
                           scores_of(attentions, tokens, L, H)))
            tables.append((key + ".ids", tokens[0].float().view(-1, 1)))
    write_safetensors(os.path.join(outdir, "bert_scores.safetensors"),
                      [(n, t.contiguous()) for n, t in tables])


if __name__ == "__main__":
    main()
