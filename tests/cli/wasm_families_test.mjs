// wasm_families_test.mjs MHA_EXPLAIN FAMILIES_CORE.wasm CORE_IMPORTS.js
// LLAMA_DIR BERT_DIR GPT2_DIR: the families core (the core the pages of
// --model runs carry: src/wasm/meson.build) reading a Llama-style or BERT
// checkpoint folder with tokenizer.json, as the page hands it over
// (mx_folder), against the program reading the same folder from the
// disk, in node (node:wasi), without a browser.
//
// The core is given the page's own imports (src/html/page/core_imports.js:
// tokenizer.json's patterns through RegExp, the normal forms through
// String.prototype.normalize). For every Llama-style reference checkpoint
// (tests/reference/llama: F32, F16, BF16, grouped-query heads, Qwen2's
// biases, a sharded folder) and every BERT one (tests/reference/bert:
// F32, F16, a --pair), its text and texts of accents, capitals, Greek,
// Chinese, emoji and white space must give the program's `--format csv`
// byte for byte; so must --layers, Llama's --generate (greedy, sampled)
// and a GPT-2 folder and a lesson run (the core is a superset); a
// tokenizer.json with an unknown model and one whose pattern the browser
// cannot compile are refused with the program's message. TAP on stdout.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync,
  writeFileSync
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WASI } from 'node:wasi';

const [mha, wasmPath, importsPath, llamaDir, bertDir, gpt2Dir] =
  process.argv.slice(2);
let n = 0, failed = 0;

function ok(cond, name, detail) {
  n++;
  if (!cond) failed++;
  console.log(`${cond ? 'ok' : 'not ok'} ${n} - ${name}`);
  if (!cond && detail !== undefined)
    console.log(String(detail).split('\n').slice(0, 8).map((l) => '# ' + l)
      .join('\n'));
}

const mhaCoreImports = new Function(
  readFileSync(importsPath, 'utf8') + '\nreturn mhaCoreImports;')();

async function loadCore() {
  const wasi = new WASI({ version: 'preview1', args: [], env: {} });
  const module = await WebAssembly.compile(readFileSync(wasmPath));
  let x = null;
  const imports = wasi.getImportObject();
  imports.mha = mhaCoreImports(() => x.memory);
  const instance = await WebAssembly.instantiate(module, imports);
  wasi.initialize(instance);
  x = instance.exports;
  const enc = new TextEncoder(), dec = new TextDecoder();
  function put(bytes) {
    const p = x.mx_alloc(bytes.length);
    new Uint8Array(x.memory.buffer, p, bytes.length).set(bytes);
    return p;
  }
  return {
    give(dir) {
      const names = readdirSync(dir);
      const table = x.mx_alloc(12 * names.length);
      names.forEach((name, i) => {
        const path = put(enc.encode(`${dir}/${name}\0`));
        const data = readFileSync(join(dir, name));
        const bytes = put(data);
        const v = new Uint32Array(x.memory.buffer, table + 12 * i, 3);
        v[0] = path;
        v[1] = bytes;
        v[2] = data.length;
      });
      x.mx_folder(table, names.length);
    },
    run(args) {
      const bytes = enc.encode(args.map((a) => a + '\0').join(''));
      const p = put(bytes);
      const r = x.mx_run(p, bytes.length, 1, 0, 0);
      x.mx_free(p);
      const v = new Uint32Array(x.memory.buffer, r, 3);
      const out = {
        status: v[0] | 0,
        text: dec.decode(new Uint8Array(x.memory.buffer, v[1], v[2]).slice())
      };
      x.mx_result_free(r);
      return out;
    }
  };
}

function native(args) {
  const r = spawnSync(mha, args, {
    env: Object.assign({}, process.env, { LANGUAGE: '', LC_ALL: 'C.UTF-8' }),
    maxBuffer: 1 << 28
  });
  const err = r.stderr.toString('utf8');
  const first = err.split('\n').find((l) => !l.includes(': note: ')) || '';
  return {
    status: r.status,
    stdout: r.stdout.toString('utf8'),
    message: first.replace(/^mha-explain: /, '')
  };
}

function firstDifference(a, b) {
  const la = a.split('\n'), lb = b.split('\n');
  for (let i = 0; i < Math.max(la.length, lb.length); i++)
    if (la[i] !== lb[i])
      return `line ${i + 1}: core ${JSON.stringify(la[i])}, ` +
             `program ${JSON.stringify(lb[i])}`;
  return 'no difference';
}

function same(core, args, name) {
  const want = native(['--format', 'csv'].concat(args));
  const got = core.run(['--format', 'csv'].concat(args));
  if (want.status === 0)
    ok(got.status === 0 && got.text === want.stdout && got.text.length > 0,
       name + ': the same CSV',
       got.status !== 0 ? got.text : firstDifference(got.text, want.stdout));
  else
    ok(got.status === want.status && got.text === want.message,
       name + ': refused with the program\'s message',
       JSON.stringify([got, want.status, want.message]));
}

/* Texts whose tokens go through the patterns, the normal forms and the
 * cases: short enough for every checkpoint's positions. */
const TEXTS = ['Olá, CORAÇÃO! naïve', 'ΣΑΣ ĲSSEL 你好 😀 12345',
               '  two  spaces\nand\ttab'];

const core = await loadCore();
const families = [[llamaDir, 5], [bertDir, 5]];
for (const [dir, least] of families) {
  const cases = readdirSync(dir).filter((d) => !d.includes('.')).sort();
  ok(cases.length >= least, `${dir}: the reference checkpoints are there`,
     cases.join(' '));
  for (const c of cases) {
    const folder = join(dir, c);
    const text = readFileSync(join(folder, 'text.txt'), 'utf8')
      .replace(/\n$/, '');
    let pair = [];
    try {
      pair = ['--pair', readFileSync(join(folder, 'pair.txt'), 'utf8')];
    } catch (e) { /* no pair */ }
    core.give(folder);
    same(core, ['--model', folder].concat(pair, ['--', text]), c);
    for (const t of TEXTS.slice(0, c === cases[0] ? 3 : 1))
      same(core, ['--model', folder, '--', t], `${c} ${JSON.stringify(t)}`);
    if (c === cases[0]) {
      same(core, ['--model', folder, '--layers', '1', '--', text],
           c + ' --layers 1');
      if (dir === llamaDir) {
        same(core, ['--model', folder, '--generate', '3', '--', text],
             c + ' --generate 3');
        same(core, ['--model', folder, '--generate', '3', '--sample',
                    '--seed', '7', '--top-k', '5', '--', text],
             c + ' --generate 3 --sample');
      }
    }
  }
}

/* A superset of the core every page carries. */
const tiny = join(gpt2Dir, 'tiny');
core.give(tiny);
same(core, ['--model', tiny, '--', 'hello world'], 'a GPT-2 folder');
same(core, ['the cat sat', '--heads', '2', '--seed', '3'], 'a lesson run');

/* Broken tokenizer.json files, made from the first Llama case's. */
const tmp = mkdtempSync(join(tmpdir(), 'mha-wasm-families-'));
try {
  const base = join(llamaDir, readdirSync(llamaDir)
    .filter((d) => !d.includes('.')).sort()[0]);
  function broken(name, change) {
    const dir = join(tmp, name);
    mkdirSync(dir);
    for (const f of readdirSync(base))
      copyFileSync(join(base, f), join(dir, f));
    const t = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8'));
    change(t);
    writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(t));
    core.give(dir);
    return dir;
  }
  same(core, ['--model', broken('unknown_model', (t) => {
    t.model.type = 'Unigramme';
  }), '--', 'hello world'], 'unknown_model');
  /* the browser's RegExp has its own words for a pattern it cannot
   * compile (PCRE2's are the program's): the core names the pattern */
  const bad = broken('bad_pattern', (t) => {
    t.pre_tokenizer = {type: 'Split', pattern: {Regex: '(unclosed'},
                       behavior: 'Isolated', invert: false};
  });
  const want = native(['--model', bad, '--', 'hello world']);
  const got = core.run(['--model', bad, '--', 'hello world']);
  ok(want.status === 2 && got.status === 2 &&
     got.text === `${bad}/tokenizer.json: pattern "(unclosed" is not ` +
       'supported', 'bad_pattern: refused, naming the pattern',
     JSON.stringify([got, want]));
  same(core, ['--model', broken('split_pattern', (t) => {
    t.pre_tokenizer = {type: 'Sequence', pretokenizers: [
      {type: 'Split', pattern: {Regex: '\\p{N}{1,3}| ?\\p{L}+|\\s+(?!\\S)'},
       behavior: 'Isolated', invert: false},
      {type: 'ByteLevel', add_prefix_space: false, trim_offsets: true,
       use_regex: false}]};
    t.normalizer = {type: 'NFKC'};
  }), '--', 'ﬁne ① ＡＢ 12345 x'], 'a Split pattern and NFKC');
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
console.log(`1..${n}`);
process.exit(failed > 0 ? 1 : 0);
