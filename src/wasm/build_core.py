#!/usr/bin/env python3
"""build_core.py OUT.wasm DEPFILE CLANG FLAGS... -- SOURCES...: the page's
WebAssembly core, compiled one source to an object each, as many at a
time as there are processors (each with its header dependencies,
gathered into DEPFILE for ninja) and linked as a reactor
module whose exports are core.h's functions.

FLAGS are clang's for each compilation (target, sysroot, warnings,
include directories); the link adds -mexec-model=reactor, drops unused
sections and strips the names.

Where binaryen's wasm-opt is on the PATH, the linked module is optimised
with it at FLAGS' last -O level, as clang's own link would run it; this
script runs it (the link is given no -O) so that the features the
module uses are named to it (-msimd128: --enable-simd): the link strips
the section that would name them, and wasm-opt would refuse the module.
Without wasm-opt the linked module is the core.
"""
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    out, depfile, clang = sys.argv[1], sys.argv[2], sys.argv[3]
    rest = sys.argv[4:]
    split = rest.index("--")
    flags, sources = rest[:split], rest[split + 1:]
    deps = set()
    with tempfile.TemporaryDirectory() as tmp:
        objects = [os.path.join(tmp, "%d.o" % i) for i in range(len(sources))]

        def compile_one(i):
            dep = os.path.join(tmp, "%d.d" % i)
            cmd = [clang] + flags + ["-MD", "-MF", dep, "-c", sources[i],
                                     "-o", objects[i]]
            return subprocess.call(cmd)

        # one compilation per processor at a time (the two cores are
        # built side by side by ninja, each file its own process)
        with concurrent.futures.ThreadPoolExecutor(
                max_workers=os.cpu_count() or 1) as pool:
            if any(rc != 0 for rc in pool.map(compile_one,
                                              range(len(sources)))):
                return 1
        for i in range(len(sources)):
            with open(os.path.join(tmp, "%d.d" % i)) as f:
                text = f.read().replace("\\\n", " ")
            deps.update(text.split(":", 1)[1].split())
        levels = [f for f in flags if f.startswith("-O")]
        link = ([clang] + [f for f in flags if not f.startswith("-O")] +
                ["-mexec-model=reactor", "-Wl,--gc-sections",
                 "-Wl,--strip-all", "-o", out] + objects)
        if subprocess.call(link) != 0:
            return 1
        wasm_opt = shutil.which("wasm-opt")
        if wasm_opt is not None and levels and levels[-1] != "-O0":
            features = ["--enable-simd"] if "-msimd128" in flags else []
            level = "-Os" if levels[-1] == "-O" else levels[-1]
            if subprocess.call([wasm_opt, out, level] + features +
                               ["-o", out]) != 0:
                return 1
    with open(depfile, "w") as f:
        f.write("%s: %s\n" % (out.replace(" ", "\\ "),
                              " ".join(d.replace(" ", "\\ ")
                                       for d in sorted(deps))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
