#!/usr/bin/env python3
"""GPT-2's special tokens from vocab.json (model/tokenizers/vocab_specials.c).

    gpt2_special_tokens_test.py MHA_EXPLAIN GPT2_DIR

GPT2_DIR/two_layers, its vocab.json given "<|endoftext|>" at the next id
(the model's vocab_size has room), must cut each text into the ids the
same folder gives with tokenizer.json in place of vocab.json and merges.txt
(tools/gpt2_tokenizer_json.py: "<|endoftext|>" an added special token, as
transformers' GPT2Tokenizer and GPT2TokenizerFast both treat it), with the
token at the start, in the middle, at the end, twice, and beside spaces
and newlines: one id each time, never BPE's pieces. A token that
special_tokens_map.json or tokenizer_config.json names is split out too;
one vocab.json lacks, one that strips the spaces beside it, or an
added_tokens.json id that is not vocab.json's, is status 2 with one line.
tokenizer_config.json's add_prefix_space and add_bos_token are followed
beside vocab.json as GPT2Tokenizer follows them, and beside tokenizer.json
where it does the same, else refused naming the key; a negative id in
tokenizer.json is named negative.
"""
import json
import os
import shutil
import sys
import tempfile

from taplib import Program, done, ok

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools"))
import gpt2_tokenizer_json  # noqa: E402

EOT = "<|endoftext|>"
TEXTS = [EOT + "the cat", "the cat" + EOT + "sat on the mat",
         "the cat sat" + EOT, EOT + EOT, "the" + EOT + " cat" + EOT + "mat",
         "the " + EOT + " cat", "  " + EOT + "  ", "\n" + EOT + "\nthe",
         EOT, "<|endoftext|", "<" + EOT + ">", "the cat sat on the mat"]


def ids(mha, folder, text):
    r = mha.run(["--model", folder, "--tables", "tokens", "--format", "csv",
                 text])
    if r.returncode != 0:
        return r.stderr.decode("utf-8", "replace").strip()
    rows = r.stdout.decode("utf-8").splitlines()[1:]
    return [int(row.rsplit(",", 1)[1]) for row in rows]


def write_json(path, doc):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)


def main():
    mha = Program(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "eot")
        shutil.copytree(os.path.join(sys.argv[2], "two_layers"), folder)
        vocab_path = os.path.join(folder, "vocab.json")
        with open(vocab_path, encoding="utf-8") as f:
            vocab = json.load(f)
        eot_id = len(vocab)
        vocab[EOT] = eot_id
        write_json(vocab_path, vocab)
        copy = os.path.join(tmp, "eot-json")
        shutil.copytree(folder, copy)
        gpt2_tokenizer_json.write(vocab_path,
                                  os.path.join(folder, "merges.txt"),
                                  os.path.join(copy, "tokenizer.json"))
        os.remove(os.path.join(copy, "vocab.json"))
        os.remove(os.path.join(copy, "merges.txt"))

        for text in TEXTS:
            a, b = ids(mha, folder, text), ids(mha, copy, text)
            whole = text.count(EOT)
            ok(a == b and isinstance(a, list) and a.count(eot_id) == whole,
               f"{text!r}: vocab.json gives tokenizer.json's ids, "
               f"{EOT} {whole} time(s) as the one id {eot_id}",
               f"vocab.json {a}\ntokenizer.json {b}")

        # the tokens special_tokens_map.json names are split out as well:
        # "at" out of " cat" (which BPE keeps whole), "on" out of " on"
        write_json(os.path.join(folder, "special_tokens_map.json"),
                   {"eos_token": EOT,
                    "additional_special_tokens": ["at", {
                        "content": "on", "lstrip": False,
                        "rstrip": False}]})
        got = ids(mha, folder, "the cat sat on the mat")
        plain = ids(mha, copy, "the cat sat on the mat")
        ok(isinstance(got, list) and vocab["at"] in got and vocab["on"] in got
           and vocab["\u0120cat"] not in got and vocab["\u0120on"] not in got
           and vocab["\u0120cat"] in plain,
           "the tokens special_tokens_map.json names are split out",
           f"{got} (without it {plain})")
        bad = [({"pad_token": "<pad>"}, "<pad>"),
               ({"additional_special_tokens": [{"content": EOT,
                                                "lstrip": True}]}, "lstrip"),
               ({"bos_token": 3}, "bos_token"),
               ({"additional_special_tokens": "cat"}, "not a list")]
        for doc, fragment in bad:
            write_json(os.path.join(folder, "special_tokens_map.json"), doc)
            mha.check_error(["--model", folder, "the cat"], fragment,
                            f"special_tokens_map.json {doc}: status 2, "
                            f"one line")
        os.remove(os.path.join(folder, "special_tokens_map.json"))
        write_json(os.path.join(folder, "tokenizer_config.json"),
                   {"added_tokens_decoder": {str(eot_id + 1): {
                       "content": EOT, "special": True}}})
        mha.check_error(["--model", folder, "the cat"], f"id {eot_id + 1}",
                        "tokenizer_config.json giving the token another id: "
                        "status 2, one line")
        write_json(os.path.join(folder, "tokenizer_config.json"),
                   {"added_tokens_decoder": [EOT]})
        mha.check_error(["--model", folder, "the cat"],
                        "tokenizer_config.json: \"added_tokens_decoder\": "
                        "not a JSON object",
                        "tokenizer_config.json's added_tokens_decoder a list: "
                        "status 2, one line naming the file and the key")
        os.remove(os.path.join(folder, "tokenizer_config.json"))
        write_json(os.path.join(folder, "added_tokens.json"),
                   {"<pad>": eot_id + 1})
        mha.check_error(["--model", folder, "the cat"], "<pad>",
                        "added_tokens.json naming a token vocab.json lacks: "
                        "status 2, one line")
        os.remove(os.path.join(folder, "added_tokens.json"))
        config_flags(mha, folder, copy, eot_id, vocab)
        negative_ids(mha, tmp, copy)
        llama_flags(mha, tmp)
    return done()


def llama_flags(mha, tmp):
    """A Llama-style tokenizer.json whose post-processor puts no <s> in
    front and whose Metaspace step is not ByteLevel: add_bos_token false
    runs with the same ids, true is refused (LlamaTokenizerFast would
    make a post-processor with <s>), add_prefix_space is refused (it
    would convert its slow tokenizer)."""
    folder = os.path.join(tmp, "llama")
    shutil.copytree(os.path.join(sys.argv[2], "..", "llama",
                                 "llama_gqa4_bf16"), folder)
    config = os.path.join(folder, "tokenizer_config.json")
    plain = ids(mha, folder, "the cat")
    write_json(config, {"add_bos_token": False, "add_prefix_space": None})
    got = ids(mha, folder, "the cat")
    ok(got == plain and isinstance(got, list),
       "Llama-style, add_bos_token false: the same ids", f"{got} {plain}")
    for key in ("add_bos_token", "add_prefix_space"):
        write_json(config, {key: True})
        mha.check_error(["--model", folder, "the cat"], f"{key} is true",
                        f"Llama-style, {key} true: status 2, one line")


def config_flags(mha, folder, copy, eot_id, vocab):
    """tokenizer_config.json's add_prefix_space and add_bos_token: beside
    vocab.json followed as GPT2Tokenizer follows them
    (tokenization_gpt2.py: prepare_for_tokenization puts " " in front of
    the text before the special tokens are split out,
    build_inputs_with_special_tokens the bos token's id in front of the
    ids); beside tokenizer.json followed where its pre-tokenizer and
    post-processor already do so, else refused naming the key."""
    config = os.path.join(folder, "tokenizer_config.json")
    text = "Hello" + EOT + "world"
    plain = ids(mha, copy, text)
    write_json(config, {"add_prefix_space": True})
    got, want = ids(mha, folder, text), ids(mha, copy, " " + text)
    ok(got == want and want != plain and got.count(eot_id) == 1,
       "add_prefix_space true: the ids of \" \" + the text",
       f"{got} (want {want}, without it {plain})")
    write_json(config, {"add_bos_token": True})
    got = ids(mha, folder, text)
    ok(got == [eot_id] + plain,
       "add_bos_token true: the bos token (GPT2Tokenizer's default, "
       f"{EOT}) in front", f"{got} (without it {plain})")
    write_json(config, {"add_bos_token": True, "bos_token": "at",
                        "add_prefix_space": True})
    got = ids(mha, folder, text)
    ok(got == [vocab["at"]] + ids(mha, copy, " " + text),
       "add_bos_token with bos_token \"at\": its id in front, before the "
       "prefix space's ids", got)
    write_json(config, {"add_bos_token": None, "add_prefix_space": None,
                        "bos_token": EOT})
    got = ids(mha, folder, text)
    ok(got == plain, "add_bos_token and add_prefix_space null: false, as "
       "Python reads None", f"{got} (want {plain})")
    write_json(config, {"add_bos_token": False, "add_prefix_space": False})
    ok(ids(mha, folder, text) == plain, "both false: the plain ids")
    write_json(config, {"add_bos_token": True, "bos_token": None})
    mha.check_error(["--model", folder, "the cat"], "add_bos_token",
                    "add_bos_token true with a null bos_token: status 2, one "
                    "line naming the key")
    write_json(config, {"add_prefix_space": "yes"})
    mha.check_error(["--model", folder, "the cat"],
                    "tokenizer_config.json: add_prefix_space must be true "
                    "or false", "add_prefix_space \"yes\": status 2, one "
                    "line naming the file and the key")
    os.remove(config)

    # tokenizer.json (its ByteLevel step without add_prefix_space, no
    # post-processor): the values it follows run, the others are refused
    config = os.path.join(copy, "tokenizer_config.json")
    write_json(config, {"add_prefix_space": False, "add_bos_token": False})
    ok(ids(mha, copy, text) == plain,
       "tokenizer.json with add_prefix_space and add_bos_token false: "
       "the same ids")
    for key, part in (("add_prefix_space", "pre_tokenizer"),
                      ("add_bos_token", "post_processor")):
        write_json(config, {key: True})
        mha.check_error(["--model", copy, "the cat"],
                        f"tokenizer_config.json: {key} is true, which "
                        f"{os.path.join(copy, 'tokenizer.json')}'s "
                        f"\"{part}\" does not do",
                        f"tokenizer.json with {key} true: status 2, one line "
                        f"naming the file and the key")
    os.remove(config)


def negative_ids(mha, tmp, copy):
    """An id of -1 in tokenizer.json is named negative."""
    for where in ("vocab", "added_tokens"):
        folder = os.path.join(tmp, "negative-" + where)
        shutil.copytree(copy, folder)
        path = os.path.join(folder, "tokenizer.json")
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        if where == "vocab":
            doc["model"]["vocab"]["cat"] = -1
            token = "cat"
        else:
            doc["added_tokens"][0]["id"] = -1
            token = doc["added_tokens"][0]["content"]
        write_json(path, doc)
        mha.check_error(["--model", folder, "the cat"],
                        f"the id of {token} is -1, a negative number; ids "
                        f"count from 0",
                        f"tokenizer.json's {where} with an id of -1: status "
                        f"2, one line saying it is negative")


if __name__ == "__main__":
    sys.exit(main())
