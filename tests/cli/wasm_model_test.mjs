// wasm_model_test.mjs MHA_EXPLAIN MHA_CORE.wasm GPT2_CASES_DIR: the page's
// WebAssembly core reading a checkpoint folder the page hands it
// (mx_folder, src/io/page_files.c) against the program reading the same
// folder from the disk, in node (node:wasi), without a browser.
//
// For every GPT-2 reference checkpoint (tests/reference/gpt2/*: F32, F16
// and BF16, one and two layers), the core's `--model DIR --format csv`
// must be the program's byte for byte (every layer's and head's tables,
// next_tokens), also with --layers and --generate (greedy and sampled)
// and a refused --heads; for folders
// made broken here (a file missing, a safetensors file truncated or its
// header's length past its end, an unknown model_type, a tokenizer of
// another vocabulary) the core must refuse with the program's message.
// TAP on stdout.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WASI } from 'node:wasi';

const [mha, wasmPath, gpt2Dir] = process.argv.slice(2);
let n = 0, failed = 0;

function ok(cond, name, detail) {
  n++;
  if (!cond) failed++;
  console.log(`${cond ? 'ok' : 'not ok'} ${n} - ${name}`);
  if (!cond && detail !== undefined)
    console.log(String(detail).split('\n').slice(0, 8).map((l) => '# ' + l)
      .join('\n'));
}

/* The core, with a folder: give(dir) copies the folder's files into its
 * memory as the page does; run(args) is its CSV or its refusal. */
async function loadCore() {
  const wasi = new WASI({ version: 'preview1', args: [], env: {} });
  const module = await WebAssembly.compile(readFileSync(wasmPath));
  const instance = await WebAssembly.instantiate(module,
                                                 wasi.getImportObject());
  wasi.initialize(instance);
  const x = instance.exports;
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

/* The program's run: {status, stdout, message (stderr's first line
 * without "mha-explain: ")}. */
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

/* The core's run of args (the folder given) against the program's. */
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

const core = await loadCore();
const cases = readdirSync(gpt2Dir).filter((d) => d !== 'cases.txt').sort();
ok(cases.length >= 5, 'the GPT-2 reference checkpoints are there',
   cases.join(' '));
for (const c of cases) {
  const dir = join(gpt2Dir, c);
  const text = readFileSync(join(dir, 'text.txt'), 'utf8').replace(/\n$/, '');
  core.give(dir);
  same(core, ['--model', dir, '--', text], c);
  if (c === 'two_layers') {
    same(core, ['--model', dir, '--layers', '1', '--', text],
         c + ' --layers 1');
    same(core, ['--model', dir, '--generate', '3', '--sample', '--seed', '7',
                '--top-k', '5', '--', text], c + ' --generate 3 --sample');
    same(core, ['--model', dir, '--heads', '1', '--', text],
         c + ' --heads 1 (refused)');
    same(core, ['--model', dir, '--generate', '3', '--', text],
         c + ' --generate 3');
  }
}

/* Broken folders, made from the first case's files. */
const tmp = mkdtempSync(join(tmpdir(), 'mha-wasm-model-'));
try {
  const base = join(gpt2Dir, 'tiny');
  const text = 'hello world';
  function broken(name, change) {
    const dir = join(tmp, name);
    spawnSync('mkdir', [dir]);
    for (const f of ['config.json', 'model.safetensors', 'vocab.json',
                     'merges.txt'])
      copyFileSync(join(base, f), join(dir, f));
    change(dir);
    core.give(dir);
    same(core, ['--model', dir, '--', text], name);
  }
  broken('no_merges', (d) => rmSync(join(d, 'merges.txt')));
  broken('no_weights', (d) => rmSync(join(d, 'model.safetensors')));
  broken('truncated', (d) => {
    const b = readFileSync(join(d, 'model.safetensors'));
    writeFileSync(join(d, 'model.safetensors'), b.subarray(0, b.length - 7));
  });
  broken('header_past_end', (d) => {
    const b = Buffer.from(readFileSync(join(d, 'model.safetensors')));
    b.writeBigUInt64LE(BigInt(b.length), 0);
    writeFileSync(join(d, 'model.safetensors'), b);
  });
  broken('short', (d) => writeFileSync(join(d, 'model.safetensors'), 'abc'));
  broken('unknown_type', (d) => {
    const c = JSON.parse(readFileSync(join(d, 'config.json'), 'utf8'));
    c.model_type = 'mamba';
    writeFileSync(join(d, 'config.json'), JSON.stringify(c));
  });
  broken('other_vocabulary', (d) => {
    const v = JSON.parse(readFileSync(join(d, 'vocab.json'), 'utf8'));
    v['\u0120zzzextra'] = Object.keys(v).length + 100000;
    writeFileSync(join(d, 'vocab.json'), JSON.stringify(v));
  });
  /* no folder at all: the file the program opens first is missing */
  core.give(join(tmp, 'no_merges'));
  const got = core.run(['--model', join(tmp, 'elsewhere'), text]);
  ok(got.status === 2 &&
     got.text.startsWith(join(tmp, 'elsewhere', 'config.json') +
                         ': cannot open: '),
     'a folder not given: the program\'s message for a missing file',
     got.text);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
console.log(`1..${n}`);
process.exit(failed > 0 ? 1 : 0);
