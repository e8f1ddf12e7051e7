// wasm_run.mjs PROGRAM.wasm: runs a WebAssembly command module (a
// wasm32-wasi program with main) in node's WASI, its output on stdout,
// its exit status as node's. The products' unit tests built with
// WebAssembly's SIMD (tests/cli/meson.build: wasm-kernels) run this way:
// the SIMD kernels of the page's families core checked against the
// naive loop where they run.
import { readFileSync } from 'node:fs';
import { WASI } from 'node:wasi';

const wasi = new WASI({ version: 'preview1', args: [process.argv[2]],
                        env: {}, returnOnExit: true });
const module = await WebAssembly.compile(readFileSync(process.argv[2]));
const instance = await WebAssembly.instantiate(module,
                                               wasi.getImportObject());
process.exitCode = wasi.start(instance);
