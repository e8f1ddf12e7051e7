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
// another vocabulary) the core must refuse with the program's message,
// and a Llama-style or BERT folder with the message naming the families
// each page reads. A vocab.json with <|endoftext|> gives the program's
// ids for "Hello<|endoftext|>world", with the tokenizer_config.json
// keys the page follows; one naming another special token is refused.
// TAP on stdout.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { done, loadCore, native, ok, same } from './wasm_harness.mjs';

const [mha, wasmPath, gpt2Dir] = process.argv.slice(2);

const core = await loadCore(wasmPath);
const cases = readdirSync(gpt2Dir).filter((d) => d !== 'cases.txt').sort();
ok(cases.length >= 5, 'the GPT-2 reference checkpoints are there',
   cases.join(' '));
for (const c of cases) {
  const dir = join(gpt2Dir, c);
  const text = readFileSync(join(dir, 'text.txt'), 'utf8').replace(/\n$/, '');
  core.give(dir);
  same(mha, core, ['--model', dir, '--', text], c);
  if (c === 'two_layers') {
    same(mha, core, ['--model', dir, '--layers', '1', '--', text],
         c + ' --layers 1');
    same(mha, core, ['--model', dir, '--generate', '3', '--sample',
                     '--seed', '7', '--top-k', '5', '--', text],
         c + ' --generate 3 --sample');
    same(mha, core, ['--model', dir, '--heads', '1', '--', text],
         c + ' --heads 1 (refused)');
    same(mha, core, ['--model', dir, '--generate', '3', '--', text],
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
    same(mha, core, ['--model', dir, '--', text], name);
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
  /* no folder at all: the program's message for a folder not there */
  core.give(join(tmp, 'no_merges'));
  const got = core.run(['--model', join(tmp, 'elsewhere'), text]);
  ok(got.status === 2 &&
     got.text.startsWith(join(tmp, 'elsewhere') + ': no such folder ('),
     'a folder not given: the program\'s message for a missing folder',
     got.text);
  /* a family's folder whose tokenizer is tokenizer.json, which only the
   * families core reads: refused naming the families each core reads
   * (their rows' titles, model/families_page.c) */
  for (const family of ['llama/llama_tied_f32', 'bert/base']) {
    const dir = join(gpt2Dir, '..', family);
    core.give(dir);
    const got = core.run(['--model', dir, text]);
    ok(got.status !== 0 &&
       got.text.replace(/\n$/, '') ===
           dir + ': this page reads folders with vocab.json and ' +
           'merges.txt (GPT-2); the page of mha-explain --model DIR ' +
           '--html FILE also reads tokenizer.json (Llama-style, BERT)',
       family + ': refused, naming the families each page reads', got.text);
  }
  /* GPT-2's <|endoftext|> (vocab_specials_page.c against the program's
   * vocab_specials_files.c): a vocab.json with the token at the next id
   * (two_layers' vocab_size has room), its text cut around it into the
   * program's ids; tokenizer_config.json as the page copies it, with
   * add_prefix_space and add_bos_token followed as the program follows
   * them, and a token the page does not split refused naming the key */
  const eot = join(tmp, 'eot');
  spawnSync('mkdir', [eot]);
  for (const f of ['config.json', 'model.safetensors', 'vocab.json',
                   'merges.txt'])
    copyFileSync(join(gpt2Dir, 'two_layers', f), join(eot, f));
  const vocab = JSON.parse(readFileSync(join(eot, 'vocab.json'), 'utf8'));
  const eotId = Object.keys(vocab).length;
  vocab['<|endoftext|>'] = eotId;
  writeFileSync(join(eot, 'vocab.json'), JSON.stringify(vocab));
  const split = 'Hello<|endoftext|>world';
  const tokens = ['--model', eot, '--tables', 'tokens', '--', split];
  function ids(r) {
    return r.text.split('\n').slice(1).filter((l) => l)
      .map((l) => Number(l.split(',').pop()));
  }
  core.give(eot);
  same(mha, core, tokens, split);
  const plain = core.run(['--format', 'csv'].concat(tokens));
  ok(plain.status === 0 && ids(plain).filter((i) => i === eotId).length === 1,
     split + ': the page\'s core gives ' + eotId + ' once', plain.text);
  same(mha, core, ['--model', eot, '--', split], split + ', every table');
  const configs = [
    {bos_token: '<|endoftext|>', eos_token: '<|endoftext|>',
     unk_token: '<|endoftext|>', add_prefix_space: false,
     add_bos_token: false, added_tokens_decoder: {[eotId]: {
       content: '<|endoftext|>', lstrip: false, rstrip: false,
       single_word: false, normalized: true, special: true}}},
    {add_prefix_space: true},
    {add_bos_token: true},
    {add_prefix_space: 'yes'},
  ];
  for (const c of configs) {
    writeFileSync(join(eot, 'tokenizer_config.json'), JSON.stringify(c));
    core.give(eot);
    same(mha, core, tokens, 'tokenizer_config.json ' +
         JSON.stringify(c).slice(0, 60));
  }
  for (const [c, key] of [[{additional_special_tokens: ['at']},
                           'additional_special_tokens'],
                          [{pad_token: 'the'}, 'pad_token'],
                          [{add_bos_token: true, bos_token: null},
                           'add_bos_token']]) {
    writeFileSync(join(eot, 'tokenizer_config.json'), JSON.stringify(c));
    core.give(eot);
    const got = core.run(tokens);
    ok(got.status === 2 && got.text.replace(/\n$/, '') ===
         join(eot, 'tokenizer_config.json') + ': ' + key +
         ' is not supported',
       'tokenizer_config.json ' + JSON.stringify(c) + ': the page ' +
       'refuses it, naming the file and the key (the program too)',
       got.text);
    ok(native(mha, tokens).status === (key === 'add_bos_token' ? 2 : 0),
       'the program ' + (key === 'add_bos_token' ? 'refuses it'
                                                 : 'splits the token out'));
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
done();
