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
// byte for byte; so must --layers, Llama's --generate (greedy, sampled),
// --ablate of one head and of two in --ablate-mode mean (the page's
// switches; BERT's refusal), a GPT-2 folder with and without --ablate
// (all-heads' map too; a head out of range refused) and a lesson run (the core is a
// superset); a
// tokenizer.json with an unknown model and one whose pattern the browser
// cannot compile are refused with the program's message. TAP on stdout.
import {
  copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync,
  writeFileSync
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  done, loadCore, native, ok, pageImports, same
} from './wasm_harness.mjs';

const [mha, wasmPath, importsPath, llamaDir, bertDir, gpt2Dir] =
  process.argv.slice(2);

/* Texts whose tokens go through the patterns, the normal forms and the
 * cases: short enough for every checkpoint's positions. */
const TEXTS = ['Olá, CORAÇÃO! naïve', 'ΣΑΣ ĲSSEL 你好 😀 12345',
               '  two  spaces\nand\ttab'];

const core = await loadCore(wasmPath, pageImports(importsPath));
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
    same(mha, core, ['--model', folder].concat(pair, ['--', text]), c);
    for (const t of TEXTS.slice(0, c === cases[0] ? 3 : 1))
      same(mha, core, ['--model', folder, '--', t],
           `${c} ${JSON.stringify(t)}`);
    if (c === cases[0]) {
      same(mha, core, ['--model', folder, '--layers', '1', '--', text],
           c + ' --layers 1');
      /* the head view's switches: --ablate on the checkpoint, as the
       * program runs it (BERT has no lm_head: refused alike) */
      same(mha, core, ['--model', folder, '--ablate', '0.1', '--', text],
           c + ' --ablate 0.1');
      same(mha, core, ['--model', folder, '--ablate', '1.0,0.1',
                       '--ablate-mode', 'mean', '--', text],
           c + ' --ablate 1.0,0.1 --ablate-mode mean');
      if (dir === llamaDir) {
        same(mha, core, ['--model', folder, '--generate', '3', '--', text],
             c + ' --generate 3');
        same(mha, core, ['--model', folder, '--generate', '3', '--sample',
                         '--seed', '7', '--top-k', '5', '--', text],
             c + ' --generate 3 --sample');
      }
    }
  }
}

/* A superset of the core every page carries. */
const tiny = join(gpt2Dir, 'tiny');
core.give(tiny);
same(mha, core, ['--model', tiny, '--', 'hello world'], 'a GPT-2 folder');
const twoLayers = join(gpt2Dir, 'two_layers');
core.give(twoLayers);
for (const a of [['--ablate', '1.1'],
                 ['--ablate', '0.0,1.1', '--ablate-mode', 'mean'],
                 ['--ablate', 'all-heads'], ['--ablate', '2.0']])
  same(mha, core, ['--model', twoLayers].concat(a, ['--', 'hello world']),
       'a GPT-2 folder ' + a.join(' '));
same(mha, core, ['the cat sat', '--heads', '2', '--seed', '3'],
     'a lesson run');

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
  same(mha, core, ['--model', broken('unknown_model', (t) => {
    t.model.type = 'Unigramme';
  }), '--', 'hello world'], 'unknown_model');
  /* the browser's RegExp has its own words for a pattern it cannot
   * compile (PCRE2's are the program's): the core names the pattern */
  const bad = broken('bad_pattern', (t) => {
    t.pre_tokenizer = {type: 'Split', pattern: {Regex: '(unclosed'},
                       behavior: 'Isolated', invert: false};
  });
  const want = native(mha, ['--model', bad, '--', 'hello world']);
  const got = core.run(['--model', bad, '--', 'hello world']);
  ok(want.status === 2 && got.status === 2 &&
     got.text === `${bad}/tokenizer.json: pattern "(unclosed" is not ` +
       'supported', 'bad_pattern: refused, naming the pattern',
     JSON.stringify([got, want]));
  same(mha, core, ['--model', broken('split_pattern', (t) => {
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
done();
