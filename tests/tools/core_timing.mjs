// core_timing.mjs CORE.wasm CORE_IMPORTS.js DIR [REPEATS]: how long the
// page's WebAssembly core takes for a checkpoint folder, in node (no
// browser, no page): the folder copied into the core's memory as the
// page does (mx_folder), then REPEATS runs (default 3) of each of
//
//   the page's data (what an edit of the text asks the worker for),
//   the same with --generate 16 (a generated token: the difference / 16),
//   --format csv --tables tokens (the forward alone, almost no output).
//
// Prints each run's median and slowest, the median of the processor time
// it took (which a busy machine changes less than the time), the answers'
// sizes and the load average. Run by hand (docs/html.md, "Speed of a model on the page"),
// e.g. node tests/tools/core_timing.mjs build/src/wasm/mha-core-families.wasm
// src/html/page/core_imports.js /tmp/mha-gpt2-small
import { readFileSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { WASI } from 'node:wasi';

const [wasmPath, importsPath, dir, repeatsArg] = process.argv.slice(2);
const repeats = Number(repeatsArg || 3);
const TEXT = 'The quick brown fox jumps over the lazy dog while the old man ' +
             'reads a newspaper on the porch.';

const mhaCoreImports = new Function(
  readFileSync(importsPath, 'utf8') + '\nreturn mhaCoreImports;')();

const wasi = new WASI({ version: 'preview1', args: [], env: {} });
const module = await WebAssembly.compile(readFileSync(wasmPath));
let x = null;
const imports = wasi.getImportObject();
imports.mha = mhaCoreImports(() => x.memory);
const instance = await WebAssembly.instantiate(module, imports);
wasi.initialize(instance);
x = instance.exports;
const enc = new TextEncoder();

function put(bytes) {
  const p = x.mx_alloc(bytes.length);
  if (p === 0)
    throw new Error('no memory for ' + bytes.length + ' bytes');
  new Uint8Array(x.memory.buffer, p, bytes.length).set(bytes);
  return p;
}

const name = basename(dir);
let t0 = performance.now();
const names = readdirSync(dir);
const table = x.mx_alloc(12 * names.length);
names.forEach((file, i) => {
  const path = put(enc.encode(`${name}/${file}\0`));
  const data = readFileSync(join(dir, file));
  const bytes = put(data);
  const v = new Uint32Array(x.memory.buffer, table + 12 * i, 3);
  v[0] = path;
  v[1] = bytes;
  v[2] = data.length;
});
x.mx_folder(table, names.length);
console.log(`the folder copied in: ${(performance.now() - t0).toFixed(0)} ms`);

function run(args, csv) {
  const bytes = enc.encode(args.map((a) => a + '\0').join(''));
  const p = put(bytes);
  const t = performance.now(), c = process.cpuUsage();
  const r = x.mx_run(p, bytes.length, csv, 0, 0);
  const ms = performance.now() - t, used = process.cpuUsage(c);
  const cpu = (used.user + used.system) / 1000;
  x.mx_free(p);
  const v = new Uint32Array(x.memory.buffer, r, 3);
  const out = { ms, cpu, status: v[0] | 0, len: v[2] };
  if (out.status !== 0)
    throw new Error(new TextDecoder().decode(
      new Uint8Array(x.memory.buffer, v[1], v[2]).slice()));
  x.mx_result_free(r);
  return out;
}

const median = (a) => {
  const s = [...a].sort((p, q) => p - q), m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const cases = [
  ['the page\'s data', ['--model', name, '--', TEXT], 0],
  ['the page\'s data, --generate 16',
   ['--model', name, '--generate', '16', '--', TEXT], 0],
  ['--format csv --tables tokens',
   ['--model', name, '--format', 'csv', '--tables', 'tokens', '--', TEXT], 1],
];
const medians = [], cpus = [];
for (const [label, args, csv] of cases) {
  const times = [], cpu = [];
  let len = 0;
  for (let i = 0; i < repeats; i++) {
    const r = run(args, csv);
    times.push(r.ms);
    cpu.push(r.cpu);
    len = r.len;
  }
  medians.push(median(times));
  cpus.push(median(cpu));
  console.log(`${label}: median ${median(times).toFixed(0)} ms, slowest ` +
              `${Math.max(...times).toFixed(0)} ms, processor time ` +
              `${median(cpu).toFixed(0)} ms (${repeats} runs; answer ${len} ` +
              `bytes)`);
}
console.log(`one generated token: ${((medians[1] - medians[0]) / 16)
  .toFixed(0)} ms, processor time ${((cpus[1] - cpus[0]) / 16).toFixed(0)} ms`);
console.log(`load average: ${loadavg().map((l) => l.toFixed(1)).join(', ')}`);
