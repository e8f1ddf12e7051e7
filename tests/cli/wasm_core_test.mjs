// wasm_core_test.mjs MHA_EXPLAIN MHA_CORE.wasm CASES_DIR LOCALE_DIR: the
// live page's WebAssembly core (src/wasm) against the program, in node
// (node:wasi), without a browser.
//
// For every reference case (tests/reference/cases/*.args, those that read
// no files) and for random command lines (a fixed seed: the same lines at
// every run), the core's CSV must be the program's `--format csv` byte for
// byte (also trained and stacked runs: --train, --lr, --optimizer, --grad,
// --positions, --layers), and a command line the program refuses must be
// refused by the core with the program's message and exit status. Some of
// them also compare the page's data (the JSON of <script id="mha-data">
// the program writes with --html) and the messages in every language, the
// core speaking the program's .mo catalogue. The trained model a page
// carries (<script id="mha-model">, with its corpus) is handed to the
// core as its --weights folder and --corpus file: further training in the
// core must give the program's CSV of `--weights DIR --train K --corpus
// FILE`, and mx_words must mark the words the program refuses. TAP on
// stdout.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync }
  from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WASI } from 'node:wasi';
import { gunzipSync } from 'node:zlib';

import { done, ok } from './wasm_harness.mjs';

const [mha, wasmPath, casesDir, localeDir] = process.argv.slice(2);
const LANGS = ['pt_BR', 'es', 'zh_CN', 'zh_TW'];

/* A fresh instance of the core (each language's catalogue in its own). */
async function loadCore(mo) {
  const wasi = new WASI({ version: 'preview1', args: [], env: {} });
  const module = await WebAssembly.compile(readFileSync(wasmPath));
  const instance = await WebAssembly.instantiate(module,
                                                 wasi.getImportObject());
  wasi.initialize(instance);
  const x = instance.exports;
  if (mo) {
    const p = x.mx_alloc(mo.length);
    new Uint8Array(x.memory.buffer, p, mo.length).set(mo);
    if (x.mx_catalogue(p, mo.length) !== 0)
      throw new Error('the core refused the catalogue');
  }
  const enc = new TextEncoder(), dec = new TextDecoder();
  /* bytes in the core's memory: [pointer, length] */
  const put = (bytes) => {
    const p = x.mx_alloc(bytes.length);
    new Uint8Array(x.memory.buffer, p, bytes.length).set(bytes);
    return [p, bytes.length];
  };
  /* model: the bytes of a page's carried model (a run with --weights), or
   * none; words: the sentence args[0] given to mx_words instead */
  const run = function (args, csv, model, words) {
    const [m, mlen] = model ? put(model) : [0, 0];
    const [p, len] = put(enc.encode(words ? args[0] :
                                    args.map((a) => a + '\0').join('')));
    const r = words ? x.mx_words(p, len, m, mlen)
                    : x.mx_run(p, len, csv ? 1 : 0, m, mlen);
    x.mx_free(p);
    const v = new Uint32Array(x.memory.buffer, r, 3);
    const out = {
      status: v[0] | 0,
      text: dec.decode(new Uint8Array(x.memory.buffer, v[1], v[2]).slice())
    };
    x.mx_result_free(r);
    if (m) x.mx_free(m);
    return out;
  };
  return run;
}

/* The trained model a page written by the program carries: the bytes of
 * its <script id="mha-model">. */
function carriedModel(args, dir) {
  const path = join(dir, 'model.html');
  const r = native(['--html', path].concat(args));
  if (r.status !== 0) return null;
  const html = readFileSync(path, 'utf8');
  const tag = 'id="mha-model">';
  const start = html.indexOf(tag);
  if (start < 0) return null;
  const end = html.indexOf('</script>', start);
  return Buffer.from(html.slice(start + tag.length, end).trim(), 'base64');
}

/* The program's run: {status, stdout, message (stderr's first line
 * without "mha-explain: ")}. */
let nativeRuns = 0;
function native(args, env) {
  /* CI runs the program under valgrind through this prefix, every
   * MHA_EXPLAIN_PREFIX_EVERY-th run (taplib.py) */
  const every = Math.max(1, Number(process.env.MHA_EXPLAIN_PREFIX_EVERY) || 1);
  const prefix = (nativeRuns++ % every === 0 ?
                  (process.env.MHA_EXPLAIN_PREFIX || '') : '').split(/\s+/)
    .filter((w) => w !== '');
  const command = prefix.length > 0 ? prefix[0] : mha;
  const r = spawnSync(command, prefix.slice(1).concat(prefix.length > 0 ?
                                                      [mha] : [], args), {
    env: Object.assign({}, process.env, { LANGUAGE: '', LC_ALL: 'C.UTF-8' },
                       env || {}),
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

/* Whether the core's run of args gives the program's CSV (or its
 * refusal). */
function sameCsv(run, args, name) {
  const want = native(['--format', 'csv'].concat(args));
  const got = run(args, true);
  if (want.status === 0) {
    ok(got.status === 0 && got.text === want.stdout, name + ': the same CSV',
       got.status !== 0 ? got.text : firstDifference(got.text, want.stdout));
  } else {
    ok(got.status === want.status && got.text === want.message,
       name + ': refused with the program\'s message',
       JSON.stringify([got, want.status, want.message]));
  }
  return want.status === 0;
}

function firstDifference(a, b) {
  const la = a.split('\n'), lb = b.split('\n');
  for (let i = 0; i < Math.max(la.length, lb.length); i++)
    if (la[i] !== lb[i])
      return `line ${i + 1}: core ${JSON.stringify(la[i])}, ` +
             `program ${JSON.stringify(lb[i])}`;
  return '';
}

/* The JSON of the page the program writes for args. */
function pageData(args, dir, env) {
  const path = join(dir, 'page.html');
  const r = native(['--html', path].concat(args), env);
  if (r.status !== 0) return null;
  const html = readFileSync(path, 'utf8');
  const start = html.indexOf('id="mha-data">\n') + 'id="mha-data">\n'.length;
  return html.slice(start, html.indexOf('\n</script>', start));
}

/* The catalogue a page the program writes in lang carries (<script
 * id="mha-messages">: gzip'd, in src/wasm/embed_core.py's base 85, which
 * core_bytes.js reads as here), as bytes. */
const BASE85 = '!#$%)*+,-./0123456789;=?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_' +
  'abcdefghijklmnopqrstuvwxyz{|}~';
function pageCatalogue(lang, dir, env) {
  const path = join(dir, 'catalogue.html');
  const r = native(['--lang', lang, '--html', path, 'the cat'], env);
  if (r.status !== 0) return null;
  const html = readFileSync(path, 'utf8');
  const match = /id="mha-messages" data-lang="[^"]*">([^<]*)</.exec(html);
  if (match === null) return null;
  const text = match[1].trim(), bytes = [];
  for (let i = 0; i < text.length; i += 5) {
    let v = 0;
    for (let j = 0; j < 5; j++)
      v = v * 85 + (i + j < text.length ? BASE85.indexOf(text[i + j]) : 84);
    const n = Math.min(4, text.length - i - 1);
    for (let j = 0; j < n; j++)
      bytes.push(Math.floor(v / Math.pow(256, 3 - j)) % 256);
  }
  return gunzipSync(Buffer.from(bytes));
}

/* A small generator of our own (mulberry32), so that the random command
 * lines are the same at every run. */
function random(seed) {
  let a = seed >>> 0;
  return function () {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['the', 'cat', 'sat', 'on', 'mat', 'O', 'gato', 'sobe', 'no',
  'tapete', 'pingüino', 'açúcar', 'niño', '牛舌', '我', '喜欢', '慢煮', '好食',
  'don\'t', 'e\u0301t\u00e9', '🐈', '👩‍👩‍👧', '🇧🇷', '42', 'x,y', '"q"', 'café'];
const VARIANTS = ['single', 'wrapper', 'fused', 'block'];

function randomArgs(rnd) {
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const nWords = 1 + Math.floor(rnd() * 9);
  const words = Array.from({ length: nWords }, () => pick(WORDS));
  const heads = 1 + Math.floor(rnd() * 4);
  const per = 1 + Math.floor(rnd() * 3);
  /* now and then heads that do not divide d_out, for the refusal */
  const dOut = rnd() < 0.1 ? heads * per + 1 : heads * per;
  const vs = VARIANTS.filter((v) => rnd() < (v === 'block' ? 0.25 : 0.5));
  /* the block adds its output to its input: mostly of the same width */
  const dModel = vs.includes('block') && rnd() < 0.9 ? dOut
    : 1 + Math.floor(rnd() * 8);
  const args = ['--seed', String(Math.floor(rnd() * 2 ** 32) *
                                 (rnd() < 0.2 ? 2 ** 20 : 1)),
                '--d-model', String(dModel),
                '--d-out', String(dOut), '--heads', String(heads)];
  if (vs.length > 0) args.push('--variant', vs.join(','));
  if (rnd() < 0.3) args.push('--no-causal');
  if (rnd() < 0.2) args.push('--no-scale');
  if (rnd() < 0.3) args.push('--qkv-bias');
  if (rnd() < 0.3) args.push('--tokens', 'chars');
  if (rnd() < 0.2)
    args.push('--kv', Array.from({ length: 1 + Math.floor(rnd() * 5) },
                                 () => pick(WORDS)).join(' '));
  if (rnd() < 0.05) return args.concat(['--', '']); /* an empty sentence */
  return args.concat(['--', words.join(' ')]);
}

const run = await loadCore(null);
const dir = mkdtempSync(join(tmpdir(), 'mha-wasm-'));
try {
  /* the reference cases that read no files */
  const cases = readdirSync(casesDir).filter((f) => f.endsWith('.args'))
    .sort();
  let checked = 0;
  for (const file of cases) {
    const args = readFileSync(join(casesDir, file), 'utf8').split('\n')
      .filter((l) => l !== '');
    if (args.some((a) => ['--weights', '--embeddings', '--input',
                          '--model'].includes(a)))
      continue;
    sameCsv(run, args, file.replace(/\.args$/, ''));
    checked++;
  }
  ok(checked >= 40, `${checked} reference cases compared`);

  /* random command lines; every fifth also the page's data */
  const rnd = random(25);
  let runs = 0, refused = 0;
  for (let i = 0; i < 60; i++) {
    const args = randomArgs(rnd);
    const name = 'random ' + i + ' ' + JSON.stringify(args);
    if (sameCsv(run, args, name)) runs++;
    else refused++;
    if (i % 5 === 0) {
      const want = pageData(args, dir);
      if (want !== null) {
        const got = run(args, false);
        ok(got.status === 0 && got.text === want,
           name + ': the same page data', firstDifference(got.text, want));
      }
    }
  }
  ok(runs >= 40 && refused >= 3,
     `random command lines: ${runs} run, ${refused} refused`);

  /* training and stacking (--train, --lr, --optimizer, --grad,
   * --positions, --layers): the CSV, and the page's data of some */
  const trainings = [
    [['the cat sat on the mat', '--train', '5'], true],
    [['O gato sobe no tapete', '--train', '12', '--optimizer', 'sgd',
      '--lr', '0.5', '--variant', 'single,fused', '--heads', '2'], false],
    [['the cat sat on the mat', '--train', '8', '--positions', '--grad',
      '--variant', 'wrapper', '--qkv-bias'], true],
    [['the cat sat on the mat', '--train', '0', '--grad'], false],
    [['牛舌 我 喜欢 慢煮 好食', '--train', '20', '--lr', '0.003',
      '--tokens', 'chars', '--no-scale', '--seed', '7'], false],
    [['the cat sat', '--train', '4', '--variant', 'block,fused',
      '--d-model', '4', '--d-out', '4', '--optimizer', 'sgd', '--grad'], true],
    [['the cat sat on the mat', '--train', '300', '--d-model', '16',
      '--d-out', '16', '--heads', '4', '--variant', 'fused'], false],
    [['the cat sat on the mat', '--variant', 'block', '--layers', '3',
      '--d-model', '4', '--d-out', '4', '--heads', '2'], true],
    [['the cat sat on the mat', '--variant', 'block,single', '--layers', '2',
      '--d-model', '4', '--d-out', '4', '--positions'], false],
    [['the cat sat on the mat', '--positions', '--no-causal'], true],
    [['the cat', '--train', '3', '--variant', 'block', '--layers', '2',
      '--d-model', '4', '--d-out', '4'], true],
    [['the cat sat on the mat', '--train', '5', '--variant', 'block',
      '--layers', '2', '--attn-only', '--d-model', '4', '--d-out', '4'],
     true],
    /* refused, in the program's words */
    [['one', '--train', '5'], false],
    [['the cat', '--lr', '0.1'], false],
    [['the cat', '--optimizer', 'sgd'], false],
    [['the cat', '--grad'], false],
    [['the cat', '--train', '5', '--optimizer', 'rmsprop'], false],
    [['the cat', '--train', '5', '--lr', '-1'], false],
    [['the cat', '--train', '5', '--lr', 'fast'], false],
    [['the cat', '--train', '1000001'], false],
    [['the cat', '--layers', '2'], false],
    [['the cat', '--variant', 'block', '--layers', '49', '--d-model', '4',
      '--d-out', '4'], false],
    [['the cat', '--positions', '--kv', 'a dog'], false],
    [['the cat', '--train', '2', '--kv', 'a dog'], false]
  ];
  let trainedRuns = 0, trainedRefused = 0;
  for (const [args, page] of trainings) {
    const name = 'training ' + JSON.stringify(args);
    if (sameCsv(run, args, name)) trainedRuns++;
    else trainedRefused++;
    if (page) {
      const want = pageData(args, dir);
      const got = run(args, false);
      ok(want !== null && got.status === 0 && got.text === want,
         name + ': the same page data', firstDifference(got.text, want));
    }
  }
  ok(trainedRuns === 12 && trainedRefused === 12,
     `training command lines: ${trainedRuns} run, ${trainedRefused} refused`);

  /* the classroom example's page data */
  const classroom = ['O gato sobe no tapete', '--heads', '2'];
  ok(run(classroom, false).text === pageData(classroom, dir),
     'the classroom page\'s data');

  /* a trained model's page: the model and its corpus, carried; further
   * training in the core on the carried sentences */
  writeFileSync(join(dir, 'corpus.csv'),
                'frase\n"O gato come o peixe."\n"O cachorro, bravo, late."\n' +
                '"A menina lê o livro."\n"O peixe nada no rio."\n');
  const sizes = ['--d-model', '8', '--d-out', '8', '--heads', '2'];
  const corpus = ['--corpus', join(dir, 'corpus.csv'), '--column', 'frase'];
  const trainedArgs = ['O gato come o peixe.', '--train', '20', '--lower',
                       '--punct', 'split', '--variant', 'fused',
                       '--csv-dir', join(dir, 'modelo')].concat(sizes, corpus);
  const carried = carriedModel(trainedArgs, dir);
  ok(carried !== null, 'a corpus-trained run\'s page carries its model');
  if (carried !== null) {
    const folder = join(dir, 'modelo');
    for (const further of [['--train', '6'],
                           ['--train', '3', '--optimizer', 'sgd', '--lr',
                            '0.2', '--grad']]) {
      const args = ['--weights', folder].concat(further, corpus,
                                                ['--', 'A menina come o peixe.']);
      const want = native(['--format', 'csv'].concat(args));
      const got = run(args, true, carried);
      ok(want.status === 0 && got.status === 0 && got.text === want.stdout,
         `${JSON.stringify(further)} on the carried corpus: the program's ` +
         'CSV of --weights --train --corpus',
         got.status !== 0 ? got.text : firstDifference(got.text,
                                                       want.stdout));
    }
    const words = run(['O gato come o bolo, e dorme!'], false, carried,
                      true);
    const marks = words.status === 0 ? JSON.parse(words.text) : null;
    const refusedWords = [];
    for (const piece of 'O gato come o bolo, e dorme!'.split(' ')) {
      if (native(['--weights', folder, '--', 'o ' + piece]).status === 2)
        refusedWords.push(piece);
    }
    ok(marks !== null && JSON.stringify(marks.filter((w) => !w.known)
                                        .map((w) => w.word)) ===
       JSON.stringify(refusedWords) && refusedWords.length === 3,
       `mx_words marks ${JSON.stringify(refusedWords)}, the words the ` +
       'program refuses', words.text);
    /* a page whose model carries no corpus, or broken bytes */
    const bare = carriedModel(['A menina come o peixe.', '--weights',
                               folder], dir);
    const noCorpus = run(['--weights', folder, '--train', '2'].concat(
      corpus, ['--', 'o gato']), true, bare);
    ok(bare !== null && noCorpus.status === 2 &&
       noCorpus.text === `${join(dir, 'corpus.csv')}: the page reads no files`,
       'a page without a corpus refuses --corpus, naming the file',
       noCorpus.text);
    const broken = run(['--weights', folder, '--train', '2'].concat(
      corpus, ['--', 'o gato']), true, carried.subarray(0,
                                                         carried.length - 3));
    ok(broken.status === 2, 'a carried model cut short is refused',
       broken.text);
  }

  /* messages and page words in every language, with its catalogue */
  for (const lang of LANGS) {
    const mo = readFileSync(join(localeDir, lang, 'LC_MESSAGES',
                                 'mha-explain.mo'));
    const inLang = await loadCore(mo);
    const env = { LANGUAGE: lang, LC_ALL: 'C.UTF-8' };
    /* the page's own catalogue holds only the messages linked into the
     * core (embed_core.py): those the core says must still be there */
    const carried = pageCatalogue(lang, dir, env);
    ok(carried !== null, `${lang}: the page carries its catalogue`);
    const inPage = carried ? await loadCore(carried) : inLang;
    for (const bad of [['--heads', '3', 'the cat sat'],
                       ['--d-model', '0', 'the cat'],
                       ['--d-model', '9000', 'the cat'],
                       ['--d-model', '8192', '--d-out', '8192', 'the cat'],
                       ['--variant', 'nope', 'the cat'],
                       ['--train', '5', 'one'],
                       ['--lr', '0.1', 'the cat'],
                       ['--train', '5', '--optimizer', 'rmsprop', 'the cat'],
                       ['--', '']]) {
      const want = native(['--lang', lang].concat(bad), env);
      const got = inLang(bad, true);
      ok(want.status === 2 && got.status === 2 && got.text === want.message,
         `${lang}: ${JSON.stringify(bad)} refused in the program's words`,
         JSON.stringify([got.text, want.message]));
      const paged = inPage(bad, true);
      ok(paged.status === 2 && paged.text === want.message,
         `${lang}: ${JSON.stringify(bad)} refused in the program's words ` +
         'with the page\'s catalogue', JSON.stringify([paged.text,
                                                        want.message]));
    }
    /* a folder the page was not given: the program's message for a
     * folder that is not there, translated (the system's own words for the error,
     * strerror, are the C library's: English in the core) */
    const model = inLang(['--model', 'gpt2', 'the cat'], true);
    const english = run(['--model', 'gpt2', 'the cat'], true);
    const cli = native(['--lang', lang, '--model', 'gpt2', 'the cat'], env);
    const upTo = (t) => t.slice(0, Math.max(t.lastIndexOf(': '),
                                            t.lastIndexOf('\uff1a')));
    ok(model.status === 2 && english.status === 2 && cli.status === 2 &&
       upTo(model.text) === upTo(cli.message) &&
       model.text.startsWith('gpt2') && !model.text.startsWith('gpt2/') &&
       model.text !== english.text,
       `${lang}: --model without its folder refused in the program's words`,
       JSON.stringify([model.text, cli.message, english.text]));
    const args = ['O gato sobe no tapete', '--heads', '2', '--kv', 'um cão'];
    ok(inLang(args, false).text ===
       pageData(['--lang', lang].concat(args), dir, env),
       `${lang}: the page's data, its words translated`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
done();
