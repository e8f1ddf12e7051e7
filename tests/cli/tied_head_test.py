#!/usr/bin/env python3
"""GPT-2's lm_head, tied to wte or its own (model/tied_head.h), over the
reference checkpoint untied_bf16 (tests/reference/gpt2/, whose config.json
says "tie_word_embeddings": false and whose model.safetensors has its own
lm_head.weight; make_gpt2_reference.py gives PyTorch's logits of its
text). Every output that takes the head takes lm_head.weight: the greedy
--generate's first token (the KV cache's pass), --ablate's clean loss,
the logit lens's last layer's top probability; --tables lm_head.weight
shows it and --explain names it (out @ lm_head.weight^T, in every
language), where a tied folder's note says wte and its --tables
lm_head.weight is refused naming wte.weight (a tied Llama's:
embed_tokens.weight), the tensor that is its head. A folder whose config and tensors disagree
is refused in one line (status 2): untied without lm_head.weight (no head
is invented), tied with an lm_head.weight that is not wte, a
tie_word_embeddings that is not true or false; tied with a copy of wte
runs as without it.

Usage: tied_head_test.py MHA_EXPLAIN GPT2_REFERENCE_DIR
"""

import csv
import io
import json
import math
import os
import shutil
import struct
import sys
import tempfile

from taplib import Program, done, ok


def read_safetensors(path):
    """name -> (header entry, raw bytes), and the header's order."""
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    return {k: (v, body[v["data_offsets"][0]:v["data_offsets"][1]])
            for k, v in header.items() if k != "__metadata__"}


def write_safetensors(path, tensors):
    header, blob = {}, b""
    for name, (entry, raw) in tensors.items():
        header[name] = {"dtype": entry["dtype"], "shape": entry["shape"],
                        "data_offsets": [len(blob), len(blob) + len(raw)]}
        blob += raw
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + blob)


def floats(raw):
    return struct.unpack("<%df" % (len(raw) // 4), raw)


def rows(r):
    return list(csv.DictReader(io.StringIO(r.stdout.decode())))


def main():
    mha = Program(sys.argv[1])
    src = os.path.join(sys.argv[2], "untied_bf16")
    text = open(os.path.join(src, "text.txt")).read()
    ids = [int(x) for x in open(os.path.join(src, "ids.txt")).read().split()]
    ref = read_safetensors(os.path.join(src, "reference.safetensors"))
    entry, raw = ref["logits"]
    T, V = entry["shape"]
    logits = floats(raw)
    row = lambda t: logits[t * V:(t + 1) * V]
    best = lambda t: max(range(V), key=lambda v: row(t)[v])

    # greedy generation: the first token is the argmax of PyTorch's last
    # row of lm_head's logits
    r = mha.run(["--model", src, "--generate", "2", "--format", "csv",
                 "--tables", "generated", text])
    got = [int(x["value"]) for x in rows(r) if x["col_label"] == "id"]
    ok(r.returncode == 0 and got[:1] == [best(T - 1)],
       "--generate: the first token is the argmax of lm_head's logits",
       "%s %s %s" % (got, best(T - 1), r.stderr.decode()))

    # --ablate's clean loss of each position: -log softmax(logits)[next]
    r = mha.run(["--model", src, "--ablate", "0.0", "--format", "csv",
                 "--tables", "ablation_loss", text])
    clean = [float(x["value"]) for x in rows(r) if x["col_label"] == "clean"]
    want = []
    for t in range(T - 1):
        m = max(row(t))
        lse = m + math.log(sum(math.exp(v - m) for v in row(t)))
        want.append(lse - row(t)[ids[t + 1]])
    ok(r.returncode == 0 and len(clean) >= T - 1 and
       all(abs(a - b) < 1e-5 * max(1, abs(b)) for a, b in zip(clean, want)),
       "--ablate: the clean loss is lm_head's cross-entropy",
       "%s\n%s\n%s" % (clean, want, r.stderr.decode()))

    # the logit lens's last layer is the model's own logits
    r = mha.run(["--model", src, "--logit-lens", "--format", "csv",
                 "--tables", "logit_lens", text])
    last = [float(x["value"]) for x in rows(r)
            if x["layer"] == "1" and x["col"] == "0"][::5]
    top = []
    for t in range(T):
        m = max(row(t))
        top.append(1 / sum(math.exp(v - m) for v in row(t)))
    ok(r.returncode == 0 and len(last) == T and
       all(abs(a - b) < 1e-5 for a, b in zip(last, top)),
       "--logit-lens: the last layer's top probabilities are lm_head's",
       "%s\n%s" % (last, top))

    # --tables lm_head.weight: the checkpoint's own head, bf16 widened to
    # float (its 16 high bits), row by row as nn.Linear stores it (V x D)
    entry, raw = read_safetensors(
        os.path.join(src, "model.safetensors"))["lm_head.weight"]
    want = [struct.unpack("<f", b"\0\0" + raw[i:i + 2])[0]
            for i in range(0, len(raw), 2)]
    r = mha.run(["--model", src, "--format", "csv", "--tables",
                 "lm_head.weight", text])
    got = rows(r)
    ok(r.returncode == 0 and entry["dtype"] == "BF16" and
       len(got) == len(want) and
       all(struct.unpack("<f", struct.pack("<f", float(x["value"])))[0] == w
           for x, w in zip(got, want)) and
       got[-1]["row_label"] == "id%d" % (entry["shape"][0] - 1) and
       got[-1]["col_label"] == "dim%d" % (entry["shape"][1] - 1),
       "--tables lm_head.weight: the checkpoint's own head, every value",
       r.stderr.decode())

    def notes(folder, lang="en"):
        r = mha.run(["--model", folder, "--explain", "--lang", lang,
                     "--tables", "out,logits", text])
        return r.returncode, " ".join(
            line[2:] for line in r.stdout.decode().splitlines()
            if line.startswith("# "))

    # --explain names the head the logits took: the untied one's own
    rc, said = notes(src)
    ok(rc == 0 and "out @ lm_head.weight^T" in said and
       "wte^T" not in said and "the checkpoint's own head" in said,
       "--explain: an untied checkpoint's logits are out @ lm_head.weight^T",
       said)
    for lang in ("pt_BR", "es", "zh_CN", "zh_TW"):
        rc, told = notes(src, lang)
        ok(rc == 0 and "lm_head.weight^T" in told and "wte^T" not in told
           and told != said,
           "--explain --lang %s: the untied head, translated" % lang, told)

    tmp = tempfile.mkdtemp()
    try:
        tensors = read_safetensors(os.path.join(src, "model.safetensors"))
        config = json.load(open(os.path.join(src, "config.json")))

        def folder(name, tie, drop=False, head=None):
            d = os.path.join(tmp, name)
            shutil.copytree(src, d)
            c = dict(config)
            if tie is None:
                del c["tie_word_embeddings"]
            else:
                c["tie_word_embeddings"] = tie
            with open(os.path.join(d, "config.json"), "w") as f:
                json.dump(c, f)
            t = dict(tensors)
            if drop:
                del t["lm_head.weight"]
            if head is not None:
                t["lm_head.weight"] = (t["lm_head.weight"][0], head)
            write_safetensors(os.path.join(d, "model.safetensors"), t)
            return d

        def refused(d, words, what):
            r = mha.run(["--model", d, text])
            err = r.stderr.decode()
            ok(r.returncode == 2 and r.stdout == b"" and
               len(err.splitlines()) == 1 and
               all(w in err for w in words), what, err)

        refused(folder("missing", False, drop=True),
                ["lm_head.weight is missing", "tie_word_embeddings is false"],
                "untied without lm_head.weight: refused, no head invented")
        refused(folder("differs", None),
                ["lm_head.weight differs from wte.weight",
                 "tie_word_embeddings"],
                "tied (GPT2Config's default) with another lm_head.weight: "
                "refused")
        refused(folder("not_bool", "no"),
                ["tie_word_embeddings must be true or false"],
                "tie_word_embeddings a string: refused")
        wte = tensors["transformer.wte.weight"][1]
        same = folder("copy", True, head=wte)
        alone = folder("alone", None, drop=True)
        a = mha.run(["--model", same, "--tables", "next_tokens", text])
        b = mha.run(["--model", alone, "--tables", "next_tokens", text])
        c = mha.run(["--model", src, "--tables", "next_tokens", text])
        ok(a.returncode == 0 and a.stdout == b.stdout and
           a.stdout != c.stdout,
           "tied with lm_head.weight a copy of wte: the run of wte alone, "
           "not the untied head's", a.stderr.decode())
        # a tied checkpoint's logits are out @ wte^T, and it has no head
        # of its own to show
        rc, said = notes(alone)
        ok(rc == 0 and "out @ wte^T" in said and "lm_head.weight" not in said,
           "--explain: a tied checkpoint's logits are out @ wte^T", said)
        r = mha.run(["--model", alone, "--tables", "lm_head.weight", text])
        err = r.stderr.decode()
        ok(r.returncode == 2 and r.stdout == b"" and
           "no tensor lm_head.weight: its lm_head is the embedding "
           "wte.weight (tie_word_embeddings is true), which --tables "
           "wte.weight shows" in err,
           "--tables lm_head.weight of a tied checkpoint without one: "
           "refused naming it and wte.weight, its head", err)
        tied = os.path.join(os.path.dirname(os.path.abspath(sys.argv[2])),
                            "llama", "llama_tied_f32")
        mha.check_error(["--model", tied, "--tables", "lm_head.weight",
                         "hello"],
                        "no tensor lm_head.weight: its lm_head is the "
                        "embedding embed_tokens.weight (tie_word_embeddings "
                        "is true), which --tables embed_tokens.weight shows",
                        "--tables lm_head.weight of a tied Llama: refused "
                        "naming embed_tokens.weight, its head")
        r = mha.run(["--model", src, "--tables", "wte.weight,lm_head.weight",
                     text])
        ok(r.returncode == 0, "--tables lm_head.weight of an untied "
           "checkpoint: shown, as before", r.stderr.decode())
    finally:
        shutil.rmtree(tmp)
    done()


if __name__ == "__main__":
    main()
