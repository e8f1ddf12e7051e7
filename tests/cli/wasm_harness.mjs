// wasm_harness.mjs: what the tests of a page's core share: TAP lines
// (every one, wasm_core_test.mjs too); for those reading a checkpoint
// folder (wasm_model_test.mjs, wasm_families_test.mjs), the core loaded
// in node (node:wasi) and handed a folder as the page hands it
// (mx_folder), the program run on the same folder from the disk, and the
// two compared.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { WASI } from 'node:wasi';

let n = 0, failed = 0;

/* One TAP line; detail's first lines as comments when cond fails. */
export function ok(cond, name, detail) {
  n++;
  if (!cond) failed++;
  console.log(`${cond ? 'ok' : 'not ok'} ${n} - ${name}`);
  if (!cond && detail !== undefined)
    console.log(String(detail).split('\n').slice(0, 8).map((l) => '# ' + l)
      .join('\n'));
}

/* The plan line, and the exit status: 1 when a check failed. */
export function done() {
  console.log(`1..${n}`);
  process.exit(failed > 0 ? 1 : 0);
}

/* The page's imports of the families core (core_imports.js's
 * mhaCoreImports: tokenizer.json's patterns and normal forms). */
export function pageImports(importsPath) {
  return new Function(readFileSync(importsPath, 'utf8') +
                      '\nreturn mhaCoreImports;')();
}

/* The core of wasmPath, with the page's imports when given (a function of
 * the memory, as mhaCoreImports): give(dir) copies the folder's files
 * into its memory as the page does; run(args[, csv]) is {status, text},
 * its output or its refusal (csv 1, the default: as the command line
 * writes it; 0: the page's data, as the page's worker asks). */
export async function loadCore(wasmPath, coreImports) {
  const wasi = new WASI({ version: 'preview1', args: [], env: {} });
  const module = await WebAssembly.compile(readFileSync(wasmPath));
  let x = null;
  const imports = wasi.getImportObject();
  if (coreImports) imports.mha = coreImports(() => x.memory);
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
    run(args, csv = 1) {
      const bytes = enc.encode(args.map((a) => a + '\0').join(''));
      const p = put(bytes);
      const r = x.mx_run(p, bytes.length, csv, 0, 0);
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

/* The program mha's run: {status, stdout, message (stderr's first line
 * but its notes, without "mha-explain: ")}. */
export function native(mha, args) {
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

/* The core's run of args (the folder given) against the program mha's:
 * the same CSV byte for byte, or the same refusal. */
export function same(mha, core, args, name) {
  const want = native(mha, ['--format', 'csv'].concat(args));
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
