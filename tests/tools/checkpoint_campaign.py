#!/usr/bin/env python3
"""The hostile-input campaign for checkpoint folders (--model DIR): copies
of the repository's tiny GPT-2 checkpoint, each with one file made wrong,
run as campaign.py runs its cases (a fresh folder, a --csv-dir and a
--plot it must not leave behind). Each must fail with status 2, one line
on stderr naming the problem, nothing on stdout and nothing left on disk,
within a minute (a FIFO in the folder must not be waited on). Then a
token holding characters XML 1.0 forbids, drawn as SVG: the picture must
be well-formed XML and still show that the characters are there.

CI runs it against the normal build and the ASan/UBSan build, where a
sanitizer's report on stderr fails the one-line check.

The same for the BERT family, on copies of a small BERT checkpoint
(BERT_CASES): a config.json the family cannot honour, a missing tensor, a
tensor of the wrong shape, a text longer than max_position_embeddings.

The same for Llama-style folders (config.json's model_type llama, qwen2
or mistral), copies of the checkpoints of
tests/reference/make_llama_reference.py: config keys the family cannot
honour, sizes that do not divide, tensors missing, of another shape or
dtype, and shard indexes naming a missing file, a path outside the
folder, a tensor its file lacks.

A config.json naming a model_type no family reads (t5, mamba) is refused
naming it and the model_types the program reads.

Usage: checkpoint_campaign.py MHA_EXPLAIN TINY_CHECKPOINT [BERT_CHECKPOINT [LLAMA_DIR]]
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

from campaign import judge_failure, leftovers
from taplib import Program, done, ok

MHA = Program(sys.argv[1])
TINY = sys.argv[2]
BERT = sys.argv[3] if len(sys.argv) > 3 else None
LLAMA = sys.argv[4] if len(sys.argv) > 4 else None


def read_safetensors(path):
    """(header text, data bytes) of a .safetensors file."""
    with open(path, "rb") as f:
        blob = f.read()
    n = struct.unpack("<Q", blob[:8])[0]
    return blob[8:8 + n], blob[8 + n:]


def write_safetensors(path, header, data=b"", size=None):
    """A .safetensors file of header (bytes) and data; size: the file's
    length, made up with a hole (a sparse file) past the data."""
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header + data)
        if size is not None:
            f.truncate(size)


def copy(tmp, name, change, source=TINY):
    """tmp/name, a copy of the checkpoint source (the tiny GPT-2's) that
    change(folder) spoils."""
    folder = os.path.join(tmp, name)
    shutil.copytree(source, folder)
    change(folder)
    return folder


def edit_json(file, change):
    """A change rewriting folder/file, a JSON object, by change(obj)."""
    def apply(folder):
        path = os.path.join(folder, file)
        with open(path, encoding="utf-8") as f:
            obj = json.load(f)
        change(obj)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(obj, f)
    return apply


def edit_text(file, change):
    """A change rewriting folder/file's bytes by change(bytes)."""
    def apply(folder):
        path = os.path.join(folder, file)
        with open(path, "rb") as f:
            text = f.read()
        with open(path, "wb") as f:
            f.write(change(text))
    return apply


def fifo(file):
    def apply(folder):
        os.remove(os.path.join(folder, file))
        os.mkfifo(os.path.join(folder, file))
    return apply


def edit_header(change):
    """A change of model.safetensors's header text (bytes), the data
    kept."""
    def apply(folder):
        path = os.path.join(folder, "model.safetensors")
        header, data = read_safetensors(path)
        write_safetensors(path, change(header), data)
    return apply


def duplicate_tensor(header):
    """The header with wte.weight's entry written twice."""
    entry = json.dumps(json.loads(header)["wte.weight"]).encode()
    return b'{"wte.weight": ' + entry + b", " + header[1:]


def sparse_vocabulary(folder):
    """vocab_size 2^25: wte (2^25, 8) in a hole at the end of the file."""
    V = 1 << 25
    path = os.path.join(folder, "model.safetensors")
    header, data = read_safetensors(path)
    tensors = json.loads(header)
    del tensors["wte.weight"]
    kept = bytearray()
    entries = [t for name, t in tensors.items() if name != "__metadata__"]
    for t in sorted(entries, key=lambda t: t["data_offsets"][0]):
        b, e = t["data_offsets"]
        t["data_offsets"] = [len(kept), len(kept) + e - b]
        kept += data[b:e]
    tensors["wte.weight"] = {"dtype": "F32", "shape": [V, 8],
                             "data_offsets": [len(kept), len(kept) + V * 32]}
    text = json.dumps(tensors).encode()
    write_safetensors(path, text, bytes(kept), 8 + len(text) + len(kept)
                      + V * 32)
    edit_json("config.json", lambda c: c.update(vocab_size=V))(folder)


def vocab_extra(v):
    v["extra"] = len(v)


# (name, how the copy is spoiled, arguments after --model DIR, fragment
#  of the one line on stderr)
TEXT = "hello world"
CASES = [
    ("vocab.json: a token given twice", edit_text(
        "vocab.json", lambda t: t.rstrip()[:-1] + b', "he": 5}'), [TEXT],
     "vocab.json: token he appears twice"),
    ("vocab.json: a token given twice with a new id", edit_text(
        "vocab.json", lambda t: t.rstrip()[:-1] + b', "he": 300}'), [TEXT],
     "vocab.json: no token has the id 282, and he has the id 300: with 283 "
     "tokens the ids go from 0 to 282"),
    ("vocab.json: an id of 4 billion", edit_json(
        "vocab.json", lambda v: v.update(extra=4000000000)), [TEXT],
     "no token has the id 282, and extra has the id 4000000000: with 283 "
     "tokens the ids go from 0 to 282"),
    ("vocab.json: more tokens than vocab_size", edit_json(
        "vocab.json", vocab_extra), [TEXT],
     "vocab.json gives the token 'extra' the id 282, past the model's "
     "vocab_size 282"),
    ("vocab.json: invalid UTF-8", edit_text(
        "vocab.json", lambda t: t.replace(b'"he"', b'"h\xffe"', 1)), [TEXT],
     "vocab.json: not valid UTF-8 (at byte"),
    ("config.json: a FIFO", fifo("config.json"), [TEXT],
     "config.json: not a regular file"),
    ("model.safetensors: a FIFO", fifo("model.safetensors"), [TEXT],
     "model.safetensors: not a regular file"),
    ("vocab.json: a FIFO", fifo("vocab.json"), [TEXT],
     "vocab.json: not a regular file"),
    ("merges.txt: a FIFO", fifo("merges.txt"), [TEXT],
     "merges.txt: not a regular file"),
    ("config.json: a key given twice", edit_text(
        "config.json", lambda t: t.rstrip()[:-1] + b', "n_layer": 2}'),
     [TEXT], "config.json: the key n_layer appears twice"),
    ("config.json: n_layer 4 billion", edit_json(
        "config.json", lambda c: c.update(n_layer=4000000000)), [TEXT],
     "config.json: n_layer is 4000000000, but the 16 tensors of "
     "model.safetensors make at most 1 layer (12 tensors each)"),
    # a size whole and positive but past the largest taken: said so
    ("config.json: n_embd 1e12", edit_json(
        "config.json", lambda c: c.update(n_embd=1e12)), [TEXT],
     "config.json: n_embd is 1000000000000.0, too large (at most "
     "4294967296)"),
    ("config.json: n_layer 2^32 + 1", edit_json(
        "config.json", lambda c: c.update(n_layer=4294967297)), [TEXT],
     "config.json: n_layer is 4294967297, too large (at most 4294967296)"),
    ("config.json: n_head 2^63", edit_json(
        "config.json", lambda c: c.update(n_head=2 ** 63)), [TEXT],
     "config.json: n_head is 9223372036854775808, too large (at most "
     "4294967296)"),
    ("config.json: n_head 1.5", edit_json(
        "config.json", lambda c: c.update(n_head=1.5)), [TEXT],
     "config.json: n_head must be a positive whole number"),
    ("config.json: invalid UTF-8", edit_text(
        "config.json", lambda t: t.replace(b'"gpt2"', b'"gpt\xc0\xaf"')),
     [TEXT], "config.json: not valid UTF-8 (at byte"),
    ("model.safetensors: the header {}", edit_header(lambda h: b"{}"),
     [TEXT], "n_layer is 1, but the 0 tensors of model.safetensors"),
    ("model.safetensors: a tensor named twice", edit_header(
        duplicate_tensor), [TEXT],
     "model.safetensors: tensor wte.weight appears twice in the header"),
    ("model.safetensors: a tensor name of invalid UTF-8", edit_header(
        lambda h: h[:-1] + b', "bad\xff": {"dtype": "F32", "shape": [0], '
        b'"data_offsets": [0, 0]}}'), [TEXT],
     "model.safetensors: not valid UTF-8 (at byte"),
    ("vocab_size 2^25: the logits count in the size check",
     sparse_vocabulary, ["hello, hello world! hello world", "--tables",
                         "out"], "million values"),
    ("config.json: a model_type no family reads (t5)", edit_json(
        "config.json", lambda c: c.update(model_type="t5")), [TEXT],
     "config.json: this program reads no model_type 't5' (it reads bert, "
     "llama, qwen2, mistral, gpt2)"),
    ("config.json: a model_type no family reads (mamba), with --generate",
     edit_json("config.json", lambda c: c.update(model_type="mamba")),
     [TEXT, "--generate", "2"],
     "config.json: this program reads no model_type 'mamba'"),
]


def repacked(tensors, data):
    """(tensors, data) with each tensor's bytes right after the one
    before, as the safetensors library lays them out (a gap is refused):
    the bytes of a tensor taken out of the header go too."""
    kept = bytearray()
    entries = [t for name, t in tensors.items() if name != "__metadata__"]
    for t in sorted(entries, key=lambda t: t["data_offsets"][0]):
        b, e = t["data_offsets"]
        t["data_offsets"] = [len(kept), len(kept) + e - b]
        kept += data[b:e]
    return tensors, bytes(kept)


def drop_tensor(name):
    """A change of model.safetensors without the tensor name."""
    def apply(folder):
        path = os.path.join(folder, "model.safetensors")
        header, data = read_safetensors(path)
        tensors = json.loads(header)
        del tensors[name]
        tensors, data = repacked(tensors, data)
        text = json.dumps(tensors).encode()
        write_safetensors(path, text + b" " * (-len(text) % 8), data)
    return apply


# The BERT family's cases, on a copy of BERT_CHECKPOINT (its "mlm" case:
# 2 layers, 2 heads, hidden_size 16, intermediate_size 24, 24 positions)
BERT_TEXT = "the cat [MASK] on the mat ."
BERT_CASES = [
    ("bert config.json: hidden_act relu", edit_json(
        "config.json", lambda c: c.update(hidden_act="relu")), [BERT_TEXT],
     'config.json: hidden_act is "relu"; the BERT family takes only "gelu"'),
    ("bert config.json: relative positions", edit_json(
        "config.json",
        lambda c: c.update(position_embedding_type="relative_key")),
     [BERT_TEXT], "config.json: position_embedding_type is \"relative_key\""),
    ("bert config.json: 3 heads for a width of 16", edit_json(
        "config.json", lambda c: c.update(num_attention_heads=3)),
     [BERT_TEXT], "config.json: hidden_size (16) is not a multiple of "
     "num_attention_heads (3)"),
    ("bert config.json: num_hidden_layers 4 billion", edit_json(
        "config.json", lambda c: c.update(num_hidden_layers=4000000000)),
     [BERT_TEXT], "config.json: num_hidden_layers is 4000000000"),
    ("bert config.json: hidden_size 1e12", edit_json(
        "config.json", lambda c: c.update(hidden_size=1e12)), [BERT_TEXT],
     "config.json: hidden_size is 1000000000000.0, too large (at most "
     "4294967296)"),
    ("bert config.json: num_attention_heads 2^63", edit_json(
        "config.json", lambda c: c.update(num_attention_heads=2 ** 63)),
     [BERT_TEXT], "config.json: num_attention_heads is "
     "9223372036854775808, too large (at most 4294967296)"),
    ("bert model.safetensors: a tensor missing", drop_tensor(
        "bert.encoder.layer.1.output.dense.bias"), [BERT_TEXT],
     "tensor bert.encoder.layer.1.output.dense.bias is missing"),
    ("bert config.json: intermediate_size the tensors do not have",
     edit_json("config.json", lambda c: c.update(intermediate_size=25)),
     [BERT_TEXT], "tensor bert.encoder.layer.0.intermediate.dense.weight "
     "has shape [24, 16]; config.json implies [25, 16]"),
    ("bert: a text longer than max_position_embeddings", lambda f: None,
     [" ".join(["the"] * 23)],
     "the text is 25 tokens; the model takes at most 24 "
     "(max_position_embeddings)"),
    ("bert tokenizer.json: a FIFO", fifo("tokenizer.json"), [BERT_TEXT],
     "tokenizer.json: not a regular file"),
]


def edit_tensor(name, change):
    """A change of model.safetensors's entry for tensor name (a dict, or
    None to take it out)."""
    def apply(folder):
        path = os.path.join(folder, "model.safetensors")
        header, data = read_safetensors(path)
        tensors = json.loads(header)
        entry = change(tensors.pop(name, None))
        if entry is not None:
            tensors[name] = entry
        else:
            tensors, data = repacked(tensors, data)
        write_safetensors(path, json.dumps(tensors).encode(), data)
    return apply


def edit_index(change):
    """A change of the first tensor's file in the shard index."""
    def apply(folder):
        path = os.path.join(folder, "model.safetensors.index.json")
        with open(path) as f:
            index = json.load(f)
        first = sorted(index["weight_map"])[0]
        index["weight_map"][first] = change(index["weight_map"][first])
        with open(path, "w") as f:
            json.dump(index, f)
    return apply


def reshaped(entry):
    entry["shape"] = [4, 4]
    return entry


def retyped(entry):
    entry["dtype"] = "F64"
    entry["shape"] = [8]
    return entry


def pickle_only(folder):
    """The folder with pytorch_model.bin (a stand-in) in place of
    model.safetensors."""
    os.remove(os.path.join(folder, "model.safetensors"))
    with open(os.path.join(folder, "pytorch_model.bin"), "wb") as f:
        f.write(b"PK")


def gap_first(folder):
    """Every tensor's bytes 4 bytes further on: 4 bytes no tensor holds
    before the first."""
    path = os.path.join(folder, "model.safetensors")
    header, data = read_safetensors(path)
    tensors = json.loads(header)
    for name, t in tensors.items():
        if name != "__metadata__":
            t["data_offsets"] = [t["data_offsets"][0] + 4,
                                 t["data_offsets"][1] + 4]
    write_safetensors(path, json.dumps(tensors).encode(), bytes(4) + data)


# (name, the checkpoint copied, how the copy is spoiled, arguments, the
#  fragment of the one line on stderr)
LLAMA_CASES = [
    ("llama: rope_scaling", "llama_tied_f32", edit_json(
        "config.json", lambda c: c.update(
            rope_scaling={"rope_type": "linear", "factor": 2.0})), [TEXT],
     "config.json: rope_scaling is not supported"),
    ("mistral: a sliding window shorter than the text", "mistral_sharded",
     edit_json("config.json", lambda c: c.update(sliding_window=1)), [TEXT],
     "the text is 2 tokens, longer than the model's sliding_window 1"),
    ("llama: heads not dividing hidden_size", "llama_tied_f32", edit_json(
        "config.json", lambda c: c.update(num_attention_heads=3)), [TEXT],
     "hidden_size (16) is not a multiple of num_attention_heads (3)"),
    ("llama: kv heads not dividing heads", "llama_tied_f32", edit_json(
        "config.json", lambda c: c.update(num_key_value_heads=3)), [TEXT],
     "num_attention_heads (4) is not a multiple of num_key_value_heads (3)"),
    ("llama: an odd head width", "llama_tied_f32", edit_json(
        "config.json", lambda c: c.update(hidden_size=12)), [TEXT],
     "the head width 3 is odd"),
    ("llama: num_hidden_layers 4 billion", "llama_tied_f32", edit_json(
        "config.json", lambda c: c.update(num_hidden_layers=4000000000)),
     [TEXT], "num_hidden_layers is 4000000000, but the 20 tensors"),
    ("llama: num_attention_heads 2^63", "llama_tied_f32", edit_json(
        "config.json", lambda c: c.update(num_attention_heads=2 ** 63)),
     [TEXT], "config.json: num_attention_heads is 9223372036854775808, "
     "too large (at most 4294967296)"),
    ("llama: intermediate_size 1e12", "llama_tied_f32", edit_json(
        "config.json", lambda c: c.update(intermediate_size=1e12)), [TEXT],
     "config.json: intermediate_size is 1000000000000.0, too large (at "
     "most 4294967296)"),
    ("mistral: sliding_window 2^40", "mistral_sharded", edit_json(
        "config.json", lambda c: c.update(sliding_window=2 ** 40)), [TEXT],
     "config.json: sliding_window is 1099511627776, too large (at most "
     "4294967296)"),
    ("mistral: sliding_window a string", "mistral_sharded", edit_json(
        "config.json", lambda c: c.update(sliding_window="4096")), [TEXT],
     "config.json: sliding_window must be a positive whole number"),
    ("llama: a tensor missing", "llama_tied_f32", edit_tensor(
        "model.layers.1.mlp.up_proj.weight", lambda e: None), [TEXT],
     "tensor model.layers.1.mlp.up_proj.weight is missing"),
    ("llama: a tensor of another shape", "llama_tied_f32", edit_tensor(
        "model.norm.weight", reshaped), [TEXT],
     "tensor model.norm.weight has shape [4, 4]; config.json implies [16]"),
    ("llama: an F64 tensor", "llama_tied_f32", edit_tensor(
        "model.norm.weight", retyped), [TEXT],
     "tensor model.norm.weight is F64; F32, F16 or BF16 is needed"),
    ("llama: the vocabulary larger than the embedding", "llama_tied_f32",
     edit_json("config.json", lambda c: c.update(vocab_size=300)), [TEXT],
     "tensor model.embed_tokens.weight has shape [285, 16]; config.json "
     "implies [300, 16]"),
    ("mistral: the index names a missing shard", "mistral_sharded",
     edit_index(lambda f: "model-00003-of-00003.safetensors"), [TEXT],
     "model-00003-of-00003.safetensors: cannot open"),
    ("mistral: the index names a file outside the folder",
     "mistral_sharded", edit_index(lambda f: "../model.safetensors"),
     [TEXT], "weight_map names ../model.safetensors, not a file of the "
     "folder"),
    ("mistral: the index names the wrong shard", "mistral_sharded",
     edit_index(lambda f: f.replace("00001-of", "00003-of").replace(
         "00002-of", "00001-of").replace("00003-of", "00002-of")), [TEXT],
     "but weight_map names model-0000"),
    ("mistral: a shard a FIFO", "mistral_sharded",
     fifo("model-00002-of-00002.safetensors"), [TEXT],
     "not a regular file"),
    ("llama: pytorch_model.bin in place of model.safetensors",
     "llama_tied_f32", pickle_only, [TEXT],
     "has pytorch_model.bin, which this program does not read: convert it "
     "to model.safetensors (docs/models.md"),
    ("llama: no model.safetensors at all", "llama_tied_f32",
     lambda f: os.remove(os.path.join(f, "model.safetensors")), [TEXT],
     "has no model.safetensors (nor model.safetensors.index.json)"),
    ("llama: config.json without model_type", "llama_tied_f32",
     edit_json("config.json", lambda c: c.pop("model_type")), [TEXT],
     "config.json: has no model_type, so it is read as GPT-2's, and GPT-2's "
     "key n_layer is missing"),
    ("llama: a token id past vocab_size", "llama_tied_f32",
     edit_json("tokenizer.json",
               lambda t: t["model"]["vocab"].update(hello=300)), [TEXT],
     "tokenizer.json gives the token 'hello' the id 300, past the model's "
     "vocab_size 285"),
    ("llama: 4 unused bytes before the first tensor", "llama_tied_f32",
     gap_first, [TEXT], "4 unused bytes before tensor "),
    ("llama: __metadata__ holding a number", "llama_tied_f32",
     edit_tensor("__metadata__", lambda e: {"format": 123}), [TEXT],
     "the header's __metadata__ must map names to strings"),
    ("llama: a merge whose token is not in the vocabulary", "llama_tied_f32",
     edit_json("tokenizer.json",
               lambda t: t["model"]["merges"].append("q q")), [TEXT],
     ": the token qq is not in the vocabulary"),
    ("llama: a pattern that backtracks without end", "llama_tied_f32",
     edit_json("tokenizer.json", lambda t: t.update(pre_tokenizer={
         "type": "Sequence", "pretokenizers": [
             {"type": "Split", "pattern": {"Regex": "(a+)+$"},
              "behavior": "Isolated", "invert": False},
             {"type": "ByteLevel", "add_prefix_space": False,
              "trim_offsets": True, "use_regex": False}]})),
     ["a" * 40 + "b"],
     "tokenizer.json: the pattern (a+)+$ failed on this text: "),
]


# --model given something else than a folder: (name, the path given made
# from a good folder, the fragment of the one line on stderr)
PATH_CASES = [
    ("--model naming config.json, a file", lambda f: os.path.join(
        f, "config.json"),
     "config.json: not a folder: --model takes the folder that holds "
     "config.json"),
    ("--model naming no folder", lambda f: f + "-none", "-none: no such "
     "folder"),
]


def run(tmp, number, args):
    """campaign.py's run of a case, with a minute's limit: the
    completed process (status -1 past the limit) and what it left."""
    work = os.path.join(tmp, "run%d" % number)
    tmpdir = os.path.join(work, "tmp")
    os.makedirs(tmpdir)
    before = set(leftovers(work, tmpdir))
    full = ["--csv-dir", os.path.join(work, "out"), "--plot",
            os.path.join(work, "picture.png")] + args
    env = dict(os.environ, TMPDIR=tmpdir)
    try:
        r = subprocess.run(MHA.command(full), stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=env, cwd=tmp, timeout=60)
    except subprocess.TimeoutExpired as e:
        r = subprocess.CompletedProcess(e.cmd, -1, e.stdout or b"",
                                        b"(still running after 60 s) " +
                                        (e.stderr or b""))
    return r, sorted(set(leftovers(work, tmpdir)) - before)


def checkpoints(tmp):
    for number, (name, change, args, fragment) in enumerate(CASES):
        folder = copy(tmp, "model%d" % number, change)
        r, left = run(tmp, number, ["--model", folder] + args)
        judge_failure(r, left, name, 2, fragment, False)
    for number, (name, change, args, fragment) in enumerate(BERT_CASES):
        if BERT is None:
            break
        folder = copy(tmp, "bert%d" % number, change, BERT)
        r, left = run(tmp, len(CASES) + number, ["--model", folder] + args)
        judge_failure(r, left, name, 2, fragment, False)


def llama_checkpoints(tmp):
    for number, (name, base, change, args, fragment) in enumerate(
            LLAMA_CASES):
        folder = copy(tmp, "llama%d" % number, change,
                      os.path.join(LLAMA, base))
        r, left = run(tmp, 100 + number, ["--model", folder] + args)
        judge_failure(r, left, name, 2, fragment, False)
    good = os.path.join(LLAMA, "llama_tied_f32")
    for number, (name, path, fragment) in enumerate(PATH_CASES):
        r, left = run(tmp, 200 + number, ["--model", path(good), TEXT])
        judge_failure(r, left, name, 2, fragment, False)


def svg_controls(tmp):
    """A token with U+0001, escape, U+FFFE and U+FFFF, drawn as SVG."""
    path = os.path.join(tmp, "controls.svg")
    r = MHA.run(["a\x01b c\x1b d\ufffe\uffffe", "--plot", path,
                 "--variant", "single"])
    labels = []
    try:
        root = ET.parse(path).getroot()
        labels = ["".join(t.itertext()) for t in root.iter(
            "{http://www.w3.org/2000/svg}text")]
        well_formed = True
    except (ET.ParseError, OSError) as e:
        well_formed = str(e)
    ok(r.returncode == 0 and well_formed is True,
       "--plot p.svg: controls, U+FFFE and U+FFFF in a token: well-formed",
       (r.returncode, r.stderr[:300], well_formed))
    ok("K:a\u2401b" in labels and "K:c\u241b" in labels and
       "K:d\ufffd\ufffde" in labels,
       "--plot p.svg: each forbidden character shows as a stand-in "
       "(U+2401, U+241B, U+FFFD)", sorted(set(labels))[:20])


def main():
    with tempfile.TemporaryDirectory() as tmp:
        checkpoints(tmp)
        if LLAMA is not None:
            llama_checkpoints(tmp)
        svg_controls(tmp)
    print("# checkpoint campaign: %d spoiled checkpoint folders, 1 SVG of "
          "forbidden characters" %
          (len(CASES) + (len(BERT_CASES) if BERT else 0) +
           (len(LLAMA_CASES) + len(PATH_CASES) if LLAMA else 0)))
    return done()


if __name__ == "__main__":
    sys.exit(main())
