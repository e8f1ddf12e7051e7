#!/usr/bin/env python3
"""live_timing_test: the first line of `live_timing.py --model` says what
was measured: folder_shape describes the checkpoint folder it is given
(family, layers, heads and key/value heads, width, words, positions, the
weights' dtypes, most bytes first, and their size), not one shape for
every folder. Checked on test checkpoints of three families, one of them
sharded, against their config.json and safetensors files as written.

Usage: live_timing_test.py REFERENCE_DIR (tests/reference)
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "cli"))
from live_timing import folder_shape  # noqa: E402
from taplib import done, ok  # noqa: E402

REF = sys.argv[1]
CASES = [
    ("gpt2/two_layers", "gpt2, 2 layers, 2 heads, 16 wide, 285 words, "
     "16 positions, F32"),
    ("gpt2/tiny", "gpt2, 1 layer, 1 head, 8 wide, 282 words, 16 positions, "
     "F32"),
    ("gpt2/odd_inner_f16", "gpt2, 2 layers, 3 heads, 24 wide, 283 words, "
     "32 positions, F16/F32"),
    ("llama/llama_gqa4_bf16", "llama, 2 layers, 4 heads (1 key/value "
     "head), 32 wide, 285 words, 64 positions, BF16"),
    ("llama/mistral_sharded", "mistral, 3 layers, 4 heads (2 key/value "
     "heads), 16 wide, 285 words, 64 positions, F32"),
    ("bert/mlm_f16", "bert, 2 layers, 2 heads, 16 wide, 32 words, "
     "24 positions, F16"),
]

for folder, want in CASES:
    path = os.path.join(REF, folder)
    size = sum(os.path.getsize(os.path.join(path, f))
               for f in os.listdir(path)
               if f.startswith("model") and f.endswith(".safetensors"))
    got = folder_shape(path)
    want += " (%.1f MB)" % (size / 1e6)
    ok(got == want, "%s: %s" % (folder, want), got)
done()
