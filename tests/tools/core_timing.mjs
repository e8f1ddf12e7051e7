// core_timing.mjs CORE.wasm CORE_IMPORTS.js DIR [REPEATS]: how long the
// page's WebAssembly core takes for a checkpoint folder, in node (no
// browser, no page): the folder copied into the core's memory as the
// page does (mx_folder), then REPEATS runs (default 3) of each of
//
//   the page's data (what an edit of the text asks the worker for),
//   the same with --generate 16 (a generated token: the difference / 16),
//   --format csv --tables tokens (the forward alone, almost no output),
//   the page's data with --ablate 5.3 (a head switched off: the ablated
//   run, then the clean and ablated logits of ablation_effect).
//
// Prints each run's median and slowest, the median of the processor time
// it took (which a busy machine changes less than the time), the answers'
// lengths and the load average. Run by hand (docs/html.md, "Speed of a model on the page"),
// e.g. node tests/tools/core_timing.mjs build/src/wasm/mha-core-families.wasm
// src/html/page/core_imports.js /tmp/mha-gpt2-small
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';

import { loadCore, pageImports } from '../cli/wasm_harness.mjs';

const [wasmPath, importsPath, dir, repeatsArg] = process.argv.slice(2);
const repeats = Number(repeatsArg || 3);
const TEXT = 'The quick brown fox jumps over the lazy dog while the old man ' +
             'reads a newspaper on the porch.';

const core = await loadCore(wasmPath, pageImports(importsPath));
let t0 = performance.now();
core.give(dir);
console.log(`the folder copied in: ${(performance.now() - t0).toFixed(0)} ms`);

/* One run of the core: its time, its processor time and its answer's
 * length (the answer decoded to text, as the page's worker takes it). */
function run(args, csv) {
  const t = performance.now(), c = process.cpuUsage();
  const r = core.run(args, csv);
  const ms = performance.now() - t, used = process.cpuUsage(c);
  if (r.status !== 0)
    throw new Error(r.text);
  return { ms, cpu: (used.user + used.system) / 1000, len: r.text.length };
}

const median = (a) => {
  const s = [...a].sort((p, q) => p - q), m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const cases = [
  ['the page\'s data', ['--model', dir, '--', TEXT], 0],
  ['the page\'s data, --generate 16',
   ['--model', dir, '--generate', '16', '--', TEXT], 0],
  ['--format csv --tables tokens',
   ['--model', dir, '--format', 'csv', '--tables', 'tokens', '--', TEXT], 1],
  /* the head view's switch: a head switched off (the families core's
   * --ablate; a core without it refuses) */
  ['the page\'s data, --ablate 5.3',
   ['--model', dir, '--ablate', '5.3', '--', TEXT], 0],
];
const medians = [], cpus = [];
for (const [label, args, csv] of cases) {
  const times = [], cpu = [];
  let len = 0;
  for (let i = 0; i < repeats; i++) {
    let r;
    try {
      r = run(args, csv);
    } catch (e) {
      console.log(`${label}: refused (${e.message})`);
      break;
    }
    times.push(r.ms);
    cpu.push(r.cpu);
    len = r.len;
  }
  if (times.length === 0)
    continue;
  medians.push(median(times));
  cpus.push(median(cpu));
  console.log(`${label}: median ${median(times).toFixed(0)} ms, slowest ` +
              `${Math.max(...times).toFixed(0)} ms, processor time ` +
              `${median(cpu).toFixed(0)} ms (${repeats} runs; answer ${len} ` +
              `characters)`);
}
console.log(`one generated token: ${((medians[1] - medians[0]) / 16)
  .toFixed(0)} ms, processor time ${((cpus[1] - cpus[0]) / 16).toFixed(0)} ms`);
console.log(`load average: ${loadavg().map((l) => l.toFixed(1)).join(', ')}`);
