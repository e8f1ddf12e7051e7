"""Hugging Face transformers' classes, loaded verbatim at run time.

transformers is not installed for the reference scripts' interpreter, and
its code is not kept in this repository. A reference script that needs one
of its classes reads it from a copy of the one file it lives in, saved
outside the repository under /work/hf-src/ (or $HF_SRC) at the same
relative path as in the transformers repository:

    /work/hf-src/src/transformers/models/bert/modeling_bert.py

Each file is named below with the repository, the commit it was read at and
its SHA-256. load() checks the copy's SHA-256, takes the named top-level
classes and functions from it with ast (their source text exactly as the
file writes it: ast.get_source_segment) and executes them, in the file's
order, in a namespace that holds what the caller gives for the names they
import from the rest of transformers (ACT2FN, apply_chunking_to_forward,
...) beside torch, nn and math. The caller gets that namespace back.

Only the reference data these scripts write is committed; running a script
again needs the saved file, never CI.

    from hf_source import load
    ns = load("bert", ["BertPooler"])
    pooler = ns["BertPooler"](config)
"""

import ast
import hashlib
import math
import os

import torch
from torch import nn

REPOSITORY = "huggingface/transformers"

# name -> (path in the repository, commit read at, SHA-256 of the file)
FILES = {
    "bert": ("src/transformers/models/bert/modeling_bert.py",
             "004ad5f50b627b59bf0d581c31bc0052b6cfd40b",
             "7fe3590d8a487089edddcb91abb12b7c5ee6a0f75e4c38663eef5fa2ff92d28f"),
    "qwen2": ("src/transformers/models/qwen2/modeling_qwen2.py",
              "5dd4a63548857797727ae73eeb6a6e886ea02a3e",
              "4ee2ef272bf9c7009eed0a5245e4908b6c4822a3d14f3800c125f740e31f5c64"),
}


def source_root():
    """Where the saved files are: $HF_SRC, else /work/hf-src."""
    return os.environ.get("HF_SRC", "/work/hf-src")


def read_checked(name):
    """The text of FILES[name], after its SHA-256 is checked."""
    path, commit, sha256 = FILES[name]
    full = os.path.join(source_root(), path)
    try:
        with open(full, "rb") as f:
            data = f.read()
    except OSError as e:
        raise SystemExit(
            f"{full}: {e.strerror}; save {path} of {REPOSITORY} at commit "
            f"{commit} there (or set HF_SRC)") from None
    got = hashlib.sha256(data).hexdigest()
    if got != sha256:
        raise SystemExit(
            f"{full}: SHA-256 {got}, not {sha256} ({REPOSITORY} {path} at "
            f"{commit})")
    return data.decode("utf-8")


def segments(text, names):
    """The source of each top-level class or function of text named in
    names, in the file's order; every name must be found once."""
    tree = ast.parse(text)
    found = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and \
                node.name in names:
            if node.name in found:
                raise SystemExit(f"{node.name} is defined twice")
            # decorators (none on the classes taken here) are left out:
            # get_source_segment starts at "class"/"def"
            found[node.name] = (node.lineno,
                                ast.get_source_segment(text, node))
    missing = [n for n in names if n not in found]
    if missing:
        raise SystemExit(f"not in the file: {', '.join(missing)}")
    return [src for _, src in sorted(found.values())]


def load(name, names, given=None):
    """Executes the classes and functions names of FILES[name], verbatim,
    in a namespace of torch, nn, math and given; returns the namespace."""
    namespace = {"torch": torch, "nn": nn, "math": math,
                 "__name__": f"hf_source.{name}"}
    namespace.update(given or {})
    define(name, names, namespace)
    return namespace


def define(name, names, namespace):
    """Executes the classes and functions names of FILES[name], verbatim,
    in namespace (a module's globals(), say, so that the functions they
    call are that module's, and what wraps those wraps theirs too)."""
    for src in segments(read_checked(name), names):
        exec(compile(src, f"{REPOSITORY}/{FILES[name][0]}", "exec"),
             namespace)
