#!/usr/bin/env python3
"""--model DIR: a GPT-2 checkpoint's run, end to end.

    gpt2_test.py MHA_EXPLAIN GPT2_DIR

GPT2_DIR holds the small random checkpoints of
tests/reference/make_gpt2_reference.py, each with its toy tokenizer, its
text and PyTorch's tables (reference.safetensors). For each, every value
of the tidy CSV must be PyTorch's float32 exactly (a masked score, -inf
here, is finfo.min there), and the tokens the ids encoder.py gives. Then
the options that keep a run small, the headings, the layer column, and
bad input: status 2, one line, nothing on standard output.
"""
import csv
import io
import json
import math
import os
import random
import re
import shutil
import string
import struct
import sys
import tempfile
import time

from taplib import Program, done, ok

# CSV table -> reference name (per layer "h.L.", per head "h.L.head.H.")
NAMES = {"inputs": "embedded", "ln_1": "ln_1", "queries": "queries",
         "keys": "keys", "values": "values", "attn_scores": "attn_scores",
         "attn_weights": "attn_weights", "head_context": "head_context",
         "concat_context": "concat", "attn_out": "attn_out",
         "residual": "residual_1", "ln_2": "ln_2",
         "ffn_hidden": "mlp_hidden", "ffn_out": "mlp_out",
         "hidden": "hidden", "out": "out", "logits": "logits"}
FLT_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        b, e = t["data_offsets"]
        out[name] = (t["shape"], struct.unpack("<%df" % ((e - b) // 4),
                                               body[b:e]))
    return out


def stored_tensor(path, name):
    """A tensor of a checkpoint as float32 values, F32 or BF16."""
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    t = header.get(name) or header["transformer." + name]
    b, e = t["data_offsets"]
    raw = data[8 + n + b:8 + n + e]
    if t["dtype"] == "BF16":
        return [struct.unpack("<f", struct.pack("<I", h << 16))[0]
                for h in struct.unpack("<%dH" % (len(raw) // 2), raw)]
    return list(struct.unpack("<%df" % (len(raw) // 4), raw))


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def reference_name(row):
    table, layer, head = row["table"], row["layer"], row["head"]
    base = NAMES[table]
    if head != "":
        return "h.%s.head.%s.%s" % (layer, head, base)
    if layer != "":
        return "h.%s.%s" % (layer, base)
    return base


def check_case(mha, folder):
    name = os.path.basename(folder)
    with open(os.path.join(folder, "text.txt")) as f:
        text = f.read()
    with open(os.path.join(folder, "ids.txt")) as f:
        ids = [int(x) for x in f.read().split()]
    ref = read_safetensors(os.path.join(folder, "reference.safetensors"))
    tables = ",".join(["tokens"] + list(NAMES))
    r = mha.run(["--model", folder, "--format", "csv", "--tables", tables,
                 text])
    ok(r.returncode == 0, "%s: runs" % name, r.stderr.decode())
    rows = list(csv.DictReader(io.StringIO(r.stdout.decode())))
    got_ids = [int(float(x["value"])) for x in rows if x["table"] == "tokens"]
    ok(got_ids == ids, "%s: the tokens are encoder.py's" % name,
       "%s\n%s" % (got_ids, ids))
    seen, bad, first = {}, 0, ""
    for x in rows:
        if x["table"] == "tokens":
            continue
        key = reference_name(x)
        shape, values = ref[key]
        i = int(x["row"]) * shape[1] + int(x["col"])
        want = values[i]
        value = f32(float(x["value"]))  # the shortest text of a float32
        same = (value == want or (value == -math.inf and want == -FLT_MAX)
                or (math.isnan(value) and math.isnan(want)))
        seen[key] = seen.get(key, 0) + 1
        if not same:
            bad += 1
            first = first or "%s[%d]: %r, PyTorch %r" % (key, i, value, want)
    counts = all(seen.get(k) == len(v[1]) for k, v in ref.items())
    ok(bad == 0 and counts,
       "%s: %d tables, every value PyTorch's bit for bit" % (name, len(seen)),
       first or "tables missing: %s" % sorted(set(ref) - set(seen)))


def main():
    mha = Program(sys.argv[1])
    root = sys.argv[2]
    with open(os.path.join(root, "cases.txt")) as f:
        cases = f.read().split()
    for case in cases:
        check_case(mha, os.path.join(root, case))

    two = os.path.join(root, "two_layers")
    text = open(os.path.join(two, "text.txt")).read()

    # a selection: one layer, one head; the layer column; the headings
    r = mha.run(["--model", two, "--format", "csv", "--layers", "1",
                 "--show-heads", "1", text])
    rows = list(csv.DictReader(io.StringIO(r.stdout.decode())))
    header = r.stdout.decode().splitlines()[0]
    ok(header == "variant,layer,head,table,row,row_label,col,col_label,value",
       "the CSV has a layer column after variant", header)
    layers = {x["layer"] for x in rows}
    heads = {x["head"] for x in rows}
    ok(layers == {"", "1"} and heads == {"", "1"},
       "--layers 1 --show-heads 1 keep layer 1 and head 1",
       "%s %s" % (layers, heads))
    ok({x["table"] for x in rows if x["layer"] == ""} ==
       {"tokens", "inputs", "attn_entropy", "out", "next_tokens"},
       "outside the layers: tokens, inputs, attn_entropy, out, next_tokens")
    r = mha.run(["--model", two, "--tables", "attn_weights,ln_1", text])
    out = r.stdout.decode()
    ok(r.returncode == 0 and "[h.0] head 0: attn_weights" in out and
       "[h.1] head 1: attn_weights" in out and "[h.1] ln_1" in out,
       "text headings name the layer", out[:400])
    r = mha.run(["--model", two, "--tables", "next_tokens", text])
    lines = [l for l in r.stdout.decode().splitlines() if "\u2192" in l]
    ok(len(lines) == 5 * len(open(os.path.join(two, "ids.txt")).read()
                              .split()),
       "next_tokens: five next tokens per token", r.stdout.decode()[:300])

    # the model view: each head's mean attention entropy, from PyTorch's
    # weights (in double, in order, as documented)
    folder = os.path.join(root, "four_heads_bf16")
    ref = read_safetensors(os.path.join(folder, "reference.safetensors"))
    r = mha.run(["--model", folder, "--format", "csv", "--tables",
                 "attn_entropy",
                 open(os.path.join(folder, "text.txt")).read()])
    rows = list(csv.DictReader(io.StringIO(r.stdout.decode())))
    bad = 0
    for x in rows:
        shape, w = ref["h.%s.head.%s.attn_weights" % (x["row"], x["col"])]
        total = 0.0
        for i in range(shape[0]):
            h = 0.0
            for p in w[i * shape[1]:(i + 1) * shape[1]]:
                if p > 0:
                    h -= p * math.log(p)
            total += h
        bad += f32(float(x["value"])) != f32(total / shape[0])
    ok(r.returncode == 0 and len(rows) == 12 and bad == 0,
       "attn_entropy: every layer's and head's mean entropy", r.stderr)
    r = mha.run(["--model", folder, "--tables", "attn_entropy",
                 open(os.path.join(folder, "text.txt")).read()])
    lines = r.stdout.decode().splitlines()
    ok(r.returncode == 0 and lines[1].split() == ["0", "1", "2", "3"] and
       all(re.fullmatch(r"h\.\d( +\d\.\d\d){4}", l) for l in lines[2:5]),
       "attn_entropy in text: a column per head, two decimals", lines)

    # --explain, in every language
    for lang, word in (("en", "Layer 1"), ("pt_BR", "Camada 1"),
                       ("es", "Capa 1"), ("zh_CN", "第 1 层"),
                       ("zh_TW", "第 1 層")):
        r = mha.run(["--model", two, "--explain", "--lang", lang, text])
        out = r.stdout.decode()
        ok(r.returncode == 0 and word in out and "wte" in out and
           "gelu_new" in out, "--explain --lang %s says what GPT-2 adds" % lang,
           r.stderr.decode() + out[:300])
    # a note before each kind of table a real model adds (the BPE pieces,
    # the positions, the layers and the residual stream, Conv1D, the
    # scores and weights, GELU, ln_f, the logits, the next tokens, the
    # model view), the same notes in every language, none left in English
    chosen = ["--tables", "tokens,inputs,queries,attn_scores,attn_weights,"
              "residual,ffn_hidden,hidden,attn_entropy,out,logits,"
              "next_tokens", "--layers", "0", "--show-heads", "0"]
    notes = {}
    for lang in ("en", "pt_BR", "es", "zh_CN", "zh_TW"):
        r = mha.run(["--model", two, "--explain", "--lang", lang, "--width",
                     "0"] + chosen + [text])
        lines = r.stdout.decode().splitlines()
        # a note's lines, joined: each note is one paragraph of "# " lines
        found, para = [], []
        for line in lines + [""]:
            if line.startswith("# "):
                para.append(line[2:])
            elif para:
                found.append(" ".join(para))
                para = []
        notes[lang] = (r.returncode, found)
    english = set(notes["en"][1])
    ok(notes["en"][0] == 0 and len(notes["en"][1]) >= 12 and
       all(rc == 0 and len(found) == len(notes["en"][1]) and
           not english & set(found)
           for lang, (rc, found) in notes.items() if lang != "en"),
       "--explain: a note per kind of table in every language, all "
       "translated", {k: len(v[1]) for k, v in notes.items()})

    # --check: every shown layer's and head's weights sum to 1 by row and
    # the causal mask's cells are -inf with weight 0
    T = len(open(os.path.join(two, "ids.txt")).read().split())
    for extra, heads in (([], 4), (["--layers", "1", "--show-heads", "0"], 1)):
        r = mha.run(["--model", two, "--check", "--tables", "tokens"] +
                    extra + [text])
        out = r.stdout.decode()
        rows = re.search(r"row sums to 1: .* over (\d+) rows .*: ok", out)
        masked = re.search(r"masked cells: (\d+) scores are -inf, largest "
                           r"weight there 0, 0 cells .*: ok", out)
        ok(r.returncode == 0 and rows and masked and
           int(rows.group(1)) == heads * T and
           int(masked.group(1)) == heads * T * (T - 1) // 2,
           "--check %s: %d heads' rows sum to 1, the causal cells masked"
           % (" ".join(extra), heads), out[-400:])

    # --focus: one token through every layer: each head's Q, K, V and
    # weights, the layer's output (hidden), ln_f's out; " cat" names the
    # token shown as "␣cat"
    r = mha.run(["--model", two, "--format", "csv", "--tables",
                 "attn_weights,hidden,queries", text])
    table = {}
    for x in csv.DictReader(io.StringIO(r.stdout.decode())):
        table[(x["layer"], x["head"], x["table"], x["row"], x["col"])] = \
            float(x["value"])
    r = mha.run(["--model", two, "--focus", " cat", "--width", "0", text])
    out = r.stdout.decode()
    blocks = {}
    for block in out.split("\n\n")[1:]:
        lines = block.splitlines()
        blocks[lines[0]] = {l[2:11].strip(): l[11:].split()
                            for l in lines[1:]}
    want = ["[h.0] head 0", "[h.0] head 1", "[h.0] hidden", "[h.1] head 0",
            "[h.1] head 1", "[h.1] hidden", "[gpt2] out"]
    head = blocks.get("[h.1] head 1", {})
    attends = dict(w.rstrip(",").split(" ") for w in
                   re.findall(r"\S+ \d\.\d{4}", " ".join(
                       head.get("attends", []))))
    good = out.startswith("focus: \u2423cat (position 1 of %d)" % T) and \
        list(blocks) == want and \
        head.get("Q", [None])[0] == "%.4f" % table[("1", "1", "queries",
                                                    "1", "0")] and \
        blocks["[h.1] hidden"][""][0] == "%.4f" % table[("1", "", "hidden",
                                                         "1", "0")] and \
        attends == {"the": "%.4f" % table[("1", "1", "attn_weights", "1",
                                           "0")],
                    "\u2423cat": "%.4f" % table[("1", "1", "attn_weights",
                                                 "1", "1")]}
    ok(r.returncode == 0 and good,
       "--focus ' cat': the token through every layer and head, its "
       "values the tables'", out[:600])
    plain = mha.run(["--model", two, "--focus", "cat", "--width", "0", text])
    ok(plain.returncode == 0 and plain.stdout == r.stdout,
       "--focus cat names the token \u2423cat, as ' cat' does",
       plain.stderr[:300])
    # a word the tokenizer splits: the error lists its pieces, and the
    # piece it suggests is focused
    mha.check_error(["--model", two, "--focus", "cats", "the cats sat"],
                    "--focus: 'cats' is not one token: the sentence splits "
                    "it into 2 tokens, '\u2423cat', 's'; focus one of them, "
                    "such as --focus '\u2423cat@1'",
                    "--focus cats, split into \u2423cat and s: status 2, "
                    "the pieces listed")
    mha.check_error(["--model", two, "--focus", "gato", "O gato"],
                    "splits it into 4 tokens, '\u2423', 'g', 'at', 'o'; "
                    "focus one of them, such as --focus 'g@2'",
                    "--focus gato, its space a token of its own: the first "
                    "piece with a letter suggested")
    piece = mha.run(["--model", two, "--focus", "\u2423cat@1", "--width",
                     "0", "the cats sat"])
    ok(piece.returncode == 0 and piece.stdout.decode().startswith(
        "focus: \u2423cat (position 1 of 4)"),
       "the suggested --focus '\u2423cat@1' runs", piece.stderr[:300])

    # --input: each row's text a run of its own, its rows those of the
    # text given alone
    tmp = tempfile.mkdtemp()
    try:
        rows_csv = os.path.join(tmp, "texts.csv")
        with open(rows_csv, "w", encoding="utf-8") as f:
            f.write('text\nHello world\n"%s"\n' % text)
        r = mha.run(["--model", two, "--input", rows_csv, "--column", "text",
                     "--format", "csv", "--tables", "tokens,attn_weights"])
        alone = mha.run(["--model", two, "--format", "csv", "--tables",
                         "tokens,attn_weights", text])
        lines = r.stdout.decode().splitlines()
        second = [l[2:] for l in lines if l.startswith("1,")]
        ok(r.returncode == 0 and lines[0].startswith("sentence,") and
           any(l.startswith("0,") for l in lines) and
           second == alone.stdout.decode().splitlines()[1:],
           "--input: each text's tables, as if given alone", r.stderr)
    finally:
        shutil.rmtree(tmp)

    # parameters by name, as stored (BF16 widened exactly; the
    # "transformer." prefix not written)
    for case, name in (("two_layers", "h.1.attn.c_attn.weight"),
                       ("four_heads_bf16", "h.2.mlp.c_proj.bias")):
        folder = os.path.join(root, case)
        r = mha.run(["--model", folder, "--format", "csv", "--tables", name,
                     "hello"])
        rows = list(csv.DictReader(io.StringIO(r.stdout.decode())))
        want = stored_tensor(os.path.join(folder, "model.safetensors"), name)
        got = [f32(float(x["value"])) for x in rows]
        ok(r.returncode == 0 and got == want and
           {x["table"] for x in rows} == {name},
           "%s: --tables %s gives the stored values" % (case, name),
           r.stderr.decode())

    # --csv-dir: a file per table, the layer in its name
    tmp = tempfile.mkdtemp()
    try:
        out = os.path.join(tmp, "csv")
        r = mha.run(["--model", two, "--csv-dir", out, "--tables",
                     "tokens,attn_weights,ln_1,h.1.ln_2.bias", text])
        names = sorted(os.listdir(out)) if os.path.isdir(out) else []
        want = ["gpt2.h.1.ln_2.bias.csv", "gpt2.h0.head0.attn_weights.csv",
                "gpt2.h0.head1.attn_weights.csv", "gpt2.h0.ln_1.csv",
                "gpt2.h1.head0.attn_weights.csv",
                "gpt2.h1.head1.attn_weights.csv", "gpt2.h1.ln_1.csv",
                "gpt2.tokens.csv"]
        ok(r.returncode == 0 and names == want,
           "--csv-dir: a file per table, named with its layer", names)
        ref2 = read_safetensors(os.path.join(two, "reference.safetensors"))
        rows = list(csv.reader(open(os.path.join(
            out, "gpt2.h1.head1.attn_weights.csv"), encoding="utf-8")))
        got = [f32(float(v)) for row in rows[1:] for v in row[1:]]
        ok(got == list(ref2["h.1.head.1.attn_weights"][1]),
           "--csv-dir: h1 head 1's weights are PyTorch's")
        # --plot: every layer's heads, each panel titled with its layer
        png = os.path.join(tmp, "heads.svg")
        r = mha.run(["--model", two, "--plot", png, "--tables",
                     "attn_weights", text])
        if r.returncode == 2 and b"plot" in r.stderr and \
                not os.path.exists(png):
            ok(True, "--plot: # SKIP pictures are not built")
        else:
            svg = open(png, encoding="utf-8").read() if \
                os.path.exists(png) else ""
            ok(r.returncode == 0 and svg.count("<svg") == 1,
               "--plot: one picture of every layer's heads", r.stderr)
            texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
            ok(texts.count("h.0") == 1 and texts.count("h.1") == 1 and
               texts.count("head 1") == 1 and svg.count("<image") == 5,
               "--plot: the model view, a row per layer and a column per "
               "head (four thumbnails and the colour bar)", texts[:12])
        # --plot of a wide table (logits, T x vocab): a row label per
        # token, the colour bar's ticks apart
        svg_path = os.path.join(tmp, "logits.svg")
        r = mha.run(["--model", two, "--plot", svg_path, "--tables",
                     "logits", "the cat sat"])
        if os.path.exists(svg_path):
            svg = open(svg_path, encoding="utf-8").read()
            found = re.findall(r'<text x="([-\d.]+)" y="([-\d.]+)" '
                               r'font-size="([\d.]+)"[^>]*>([^<]*)</text>',
                               svg)
            texts = [t[3] for t in found]
            ticks = sorted(float(y) for x, y, size, t in found
                           if re.fullmatch(r"-?\d\.\d\d", t))
            size = max(float(f[2]) for f in found)
            ok(r.returncode == 0 and
               all(w in texts for w in ("the", "\u2423cat", "\u2423sat")) and
               len(ticks) >= 3 and
               all(b - a > size for a, b in zip(ticks, ticks[1:])),
               "--plot logits: every token's row labelled, the bar's "
               "ticks apart", (texts[:6], ticks))
        # --html: the page, each layer a row of its model view
        page = os.path.join(tmp, "page.html")
        r = mha.run(["--model", two, "--html", page, text])
        html = open(page, encoding="utf-8").read() if \
            os.path.exists(page) else ""
        found = re.search(r'<script type="application/json" '
                          r'id="mha-data">\n(.*?)\n</script>', html, re.S)
        names = [v["name"] for v in json.loads(found.group(1))["variants"]] \
            if found else []
        ok(r.returncode == 0 and names == ["h.0", "h.1"] and
           '"Layer":"Layer"' in html,
           "--html: the page of a checkpoint's run, a variant per layer, "
           "its buttons named Layer", (r.stderr, names))
    finally:
        shutil.rmtree(tmp)

    # bad input: status 2, one line, nothing printed
    tmp = tempfile.mkdtemp()
    try:
        broken = os.path.join(tmp, "ckpt")
        shutil.copytree(os.path.join(root, "tiny"), broken)
        os.remove(os.path.join(broken, "merges.txt"))
        bad_vocab = os.path.join(tmp, "bad_vocab")
        shutil.copytree(os.path.join(root, "tiny"), bad_vocab)
        with open(os.path.join(bad_vocab, "vocab.json"), "w") as f:
            f.write('{"a": 1, "b": "two"}')
        bad_merges = os.path.join(tmp, "bad_merges")
        shutil.copytree(os.path.join(root, "tiny"), bad_merges)
        with open(os.path.join(bad_merges, "merges.txt"), "w") as f:
            f.write("#version: 0.2\nh e\nl l o\n")
        bad_config = os.path.join(tmp, "bad_config")
        shutil.copytree(os.path.join(root, "tiny"), bad_config)
        with open(os.path.join(bad_config, "config.json"), "w") as f:
            f.write('{"n_layer": 1, "n_head": 1, "n_embd": 8, '
                    '"n_positions": 16, "vocab_size": 300}')
        # a model_type that is no string: not read as GPT-2's (a
        # config.json naming none), refused naming the key
        typed = {}
        for name, value in (("number", 5), ("null", None), ("object", {})):
            typed[name] = os.path.join(tmp, "type_" + name)
            shutil.copytree(os.path.join(root, "tiny"), typed[name])
            path = os.path.join(typed[name], "config.json")
            cfg = json.load(open(path))
            cfg["model_type"] = value
            with open(path, "w") as f:
                json.dump(cfg, f)
        vocab = json.load(open(os.path.join(root, "tiny", "vocab.json")))
        by_id = sorted(vocab, key=vocab.get)
        shared_id = os.path.join(tmp, "shared_id")
        shutil.copytree(os.path.join(root, "tiny"), shared_id)
        with open(os.path.join(shared_id, "vocab.json"), "w") as f:
            json.dump(dict(vocab, **{by_id[6]: vocab[by_id[5]]}), f)
        gap = os.path.join(tmp, "gap")
        shutil.copytree(os.path.join(root, "tiny"), gap)
        with open(os.path.join(gap, "vocab.json"), "w") as f:
            json.dump({k: v for k, v in vocab.items() if k != by_id[5]}, f)
        bad = [
            (["--model", two, "the cat " * 40], "longer than n_positions, "
             "with the count and the limit", "the text is 81 tokens; the "
             "model takes at most 16 (n_positions)"),
            (["--model", shared_id, "hello"], "vocab.json: two tokens, one id",
             "one id, %d" % vocab[by_id[5]]),
            (["--model", gap, "hello"], "vocab.json: an id without a token",
             "the id %d" % vocab[by_id[5]]),
            (["--model", two, "--layers", "2", text], "a layer it lacks",
             "--layers: 2 is out of range"),
            (["--model", two, "--layers", "0-99999999999999999999", text],
             "a layer past unsigned long, as typed",
             "0-99999999999999999999 is out of range"),
            (["--model", two, "--layers", "", text], "an empty --layers",
             "--layers: the list is empty"),
            (["--model", two, "--show-heads", "", text],
             "an empty --show-heads", "--show-heads: the list is empty"),
            (["--model", two, "--show-heads", "0,x", text], "a bad head list",
             "--show-heads"),
            # an index listed twice is refused, as --ablate's heads are
            (["--model", two, "--layers", "0,0", text], "a layer twice",
             "--layers: '0' is listed twice in '0,0'"),
            (["--model", two, "--show-heads", "1,0-1", text],
             "a head twice, once in a range",
             "--show-heads: '0-1' lists 1 a second time in '1,0-1'"),
            (["--model", two, "--layers", "0-1,1", text],
             "a layer of a range again", "--layers: '1' is listed twice in "
             "'0-1,1'"),
            (["--model", two, "--explain", "--format", "csv", text],
             "--explain with --format csv", "--explain"),
            (["--layers", "1", "hello"], "--layers without --model",
             "--model"),
            (["--model", two, "--heads", "4", text], "--heads with --model",
             "--heads"),
            (["--model", two, "--variant", "block", text],
             "--variant with --model", "--variant"),
            (["--model", two, "--tie", text], "--tie with --model",
             "wrapper and fused modules"),
            (["--model", two, "--average", text], "--average with --model",
             "does not average its heads"),
            (["--model", two, "--tables", "h.9.ln_1.bias", "hello"],
             "a parameter the checkpoint lacks", "h.9.ln_1.bias"),
            (["--model", broken, "hello"], "merges.txt missing",
             "merges.txt"),
            (["--model", bad_vocab, "hello"], "vocab.json malformed",
             "vocab.json"),
            (["--model", bad_merges, "hello"], "merges.txt malformed",
             "merges.txt:3"),
            (["--model", bad_config, "hello"],
             "config.json disagreeing with the tensors", "config.json"),
            (["--model", os.path.join(tmp, "none"), "hello"],
             "no such folder", "none: no such folder"),
            (["--model", os.path.join(tmp, "none", "config.json"), "hello"],
             "a file in a folder that is not there", "no such folder"),
        ] + [(["--model", typed[name], "hello"],
              "config.json's model_type a %s" % name,
              '"model_type" is not a string') for name in typed]
        for args, what, word in bad:
            r = mha.run(args)
            err = r.stderr.decode()
            ok(r.returncode == 2 and r.stdout == b"" and word in err and
               err.count("\n") <= 2,
               "%s: status 2, one line, nothing printed" % what,
               "status %d: %s" % (r.returncode, err))
        # a long text is refused, its tokens counted (a megabyte, one
        # 60,000-letter word first)
        rng = random.Random(6)
        long_text = " ".join("".join(rng.choice(string.ascii_lowercase)
                                     for _ in range(60000))
                             for _ in range(16)).encode()
        start = time.monotonic()
        r = mha.run(["--model", two, "-"], stdin=long_text)
        took = time.monotonic() - start
        ok(r.returncode == 2 and b"the text is 950171 tokens; the model "
           b"takes at most 16 (n_positions)" in r.stderr and took < 20, "a megabyte of text is refused in %.1f s" % took,
           r.stderr)
    finally:
        shutil.rmtree(tmp)
    return done()


if __name__ == "__main__":
    sys.exit(main())
