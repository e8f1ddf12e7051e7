/* editor_settings.js: the live page's editor (editor.js): its settings,
 * as the URL's fragment holds them and as the command line the core
 * runs (argsOf) and the page shows (commandOf). */

/* ---- the settings ---- */

/* The variants the editor offers: the program's rows, in run order (as
 * run.variantStacks, those --layers stacks, and run.defaults). */
var VARIANTS = run.variantChoices;

/* The settings as the URL fragment holds them, and back. */
function toFragment(s) {
  var q = new URLSearchParams();
  q.set('sentence', s.sentence);
  if (s.kv !== null) q.set('kv', s.kv);
  q.set('seed', s.seed);
  q.set('d-model', s.dModel);
  q.set('d-out', s.dOut);
  q.set('heads', s.heads);
  q.set('variant', s.variants.join(','));
  q.set('causal', s.causal ? 'on' : 'off');
  q.set('scale', s.scale ? 'on' : 'off');
  q.set('qkv-bias', s.qkvBias ? 'on' : 'off');
  q.set('tokens', s.tokens);
  q.set('train', s.train);
  if (s.lr !== '') q.set('lr', s.lr);
  q.set('optimizer', s.optimizer);
  q.set('grad', s.grad ? 'on' : 'off');
  q.set('positions', s.positions ? 'on' : 'off');
  if (s.layers !== '') q.set('layers', s.layers);
  if (s.ablate.length > 0) q.set('ablate', s.ablate.join(','));
  q.set('ablate-mode', s.ablateMode);
  /* the presentation mode (look.js) stays on in the link */
  if (document.documentElement.classList.contains('present'))
    q.set('present', '');
  return q.toString();
}

function fromFragment(text, s) {
  var q = new URLSearchParams(text);
  if (!q.has('sentence')) return null;
  var t = JSON.parse(JSON.stringify(s));
  t.sentence = q.get('sentence');
  t.kv = q.has('kv') ? q.get('kv') : null;
  if (q.has('seed')) t.seed = q.get('seed');
  if (q.has('d-model')) t.dModel = q.get('d-model');
  if (q.has('d-out')) t.dOut = q.get('d-out');
  if (q.has('heads')) t.heads = q.get('heads');
  if (q.has('variant')) t.variants = q.get('variant').split(',');
  if (q.has('causal')) t.causal = q.get('causal') !== 'off';
  if (q.has('scale')) t.scale = q.get('scale') !== 'off';
  if (q.has('qkv-bias')) t.qkvBias = q.get('qkv-bias') === 'on';
  if (q.has('tokens')) t.tokens = q.get('tokens');
  if (q.has('train')) t.train = q.get('train');
  t.lr = q.has('lr') ? q.get('lr') : '';
  if (q.has('optimizer')) t.optimizer = q.get('optimizer');
  if (q.has('grad')) t.grad = q.get('grad') === 'on';
  if (q.has('positions')) t.positions = q.get('positions') === 'on';
  t.layers = q.has('layers') ? q.get('layers') : '';
  t.ablate = headList(q.get('ablate'));
  if (q.has('ablate-mode')) t.ablateMode = q.get('ablate-mode');
  return t;
}

/* The longest sentence the page recomputes, in tokens: the core runs
 * on the page's main thread, which answers nothing until the run is
 * drawn, and the run's time grows with the square of the tokens (the
 * T x T tables of every head and variant). Measured in headless
 * Chromium, the classroom page (--heads 2, three variants) on a
 * two-core machine at a load average of 45: 5 tokens 2.1 s, 200
 * tokens 4.1 s, 300 8.2 s, 600 20 s; so at most 200, twice a short
 * sentence's time, and the command line for longer ones. From
 * BUSY_TOKENS on (and for a run that trains or generates) the page
 * says it is recomputing, and greys the views, before it stops. */
var MOST_TOKENS = 200;
var BUSY_TOKENS = 100;

/* The tokens of a sentence as the program cuts it (tokenize.h): words
 * split on whitespace, or characters (grapheme clusters, whitespace
 * skipped; code points where the browser has no Intl.Segmenter). */
function tokenCount(text, mode) {
  if (mode !== 'chars')
    return text.split(/\s+/).filter(function (w) { return w !== ''; })
      .length;
  var pieces = typeof Intl === 'object' && Intl.Segmenter ?
    Array.from(new Intl.Segmenter().segment(text), function (g) {
      return g.segment;
    }) : Array.from(text);
  return pieces.filter(function (c) { return !/^\s+$/.test(c); }).length;
}

/* The tokens of the longer of settings s's sentence and --kv sentence. */
function longest(s) {
  return Math.max(tokenCount(s.sentence, s.tokens),
                  s.kv === null ? 0 : tokenCount(s.kv, s.tokens));
}

/* Whether settings s train (--train N: steps given, and not 0), and
 * run a variant --layers N stacks (its row says so: the block). */
function trains(s) {
  return (!model || !!model.corpus) && s.train !== '' && s.train !== '0';
}

function stacks(s) {
  return s.variants.some(function (v) {
    return run.variantStacks.indexOf(v) >= 0;
  });
}

/* Whether the program switches heads off (--ablate L.H) in the run of
 * settings s: a lesson run that does not train, in the modules' own
 * pass, whatever its variants; a run that trains, and a trained model,
 * when it is one stacking --variant (the block: its row says so), as
 * the program requires of a lesson model (model/lesson/). The head and
 * training views' switches (head_view.js, training.js) add and take
 * away heads where it does. */
function canAblate(s) {
  if (run.checkpoint) return false;
  if (!model && !trains(s)) return true;
  return s.variants.length === 1 && stacks(s);
}

function ablates(s) {
  return canAblate(s) && s.ablate.length > 0;
}

/* --ablate and --ablate-mode of settings s (none when s ablates not). */
function ablation(s) {
  if (!ablates(s)) return [];
  var a = ['--ablate', s.ablate.join(',')];
  if (s.ablateMode !== run.defaults['ablate-mode'])
    a.push('--ablate-mode', s.ablateMode);
  return a;
}

/* The folder of the model on the command line. */
var MODEL_DIR = model && model.dir !== null ? model.dir : 'MODEL';

/* The command line of settings s, after the program's name. */
function argsOf(s) {
  var gen = GEN ? GEN.args() : [];
  /* a trained model's page: the sentence over the model, as --weights
   * runs it, with the options the run kept */
  if (model)
    return ['--weights', MODEL_DIR].concat(keepTraining(s), ablation(s),
                                           run.fixed, gen,
                                           ['--', s.sentence]);
  var a = ['--seed', String(s.seed), '--d-model', String(s.dModel),
           '--d-out', String(s.dOut), '--heads', String(s.heads),
           '--variant', s.variants.join(','), '--tokens', s.tokens];
  if (!s.causal) a.push('--no-causal');
  if (!s.scale) a.push('--no-scale');
  if (s.qkvBias) a.push('--qkv-bias');
  if (s.kv !== null) a.push('--kv', s.kv);
  if (s.positions) a.push('--positions');
  if (s.layers !== '' && stacks(s)) a.push('--layers', s.layers);
  a = a.concat(ablation(s));
  if (trains(s)) {
    a.push('--train', s.train, '--optimizer', s.optimizer);
    if (s.lr !== '') a.push('--lr', s.lr);
    if (s.grad) a.push('--grad');
    // the class's order of projections: the run's, kept
    if (run.qkvOrder !== run.defaults['qkv-order'])
      a.push('--qkv-order', run.qkvOrder);
  }
  return a.concat(run.fixed, gen, ['--', s.sentence]);
}

/* A trained model's page with its corpus: the further training on it,
 * with the run's other training options (none when s trains not). */
function keepTraining(s) {
  if (!trains(s)) return [];
  var a = ['--train', s.train, '--corpus', model.corpus.file, '--column',
           model.corpus.column, '--optimizer', s.optimizer];
  if (s.lr !== '') a.push('--lr', s.lr);
  if (s.grad) a.push('--grad');
  if (run.qkvOrder !== run.defaults['qkv-order'])
    a.push('--qkv-order', run.qkvOrder);
  if (run.seed !== run.defaults.seed) a.push('--seed', run.seed);
  return a;
}

/* The command line as a shell would take it. */
function shellWord(w) {
  return /^[A-Za-z0-9_.,=:+-]+$/.test(w) ? w :
    '\'' + w.split('\'').join('\'\\\'\'') + '\'';
}

function commandOf(s) {
  var a = argsOf(s);
  var sentence = a.pop();
  a.pop(); /* the -- before it */
  /* a sentence that looks like an option goes after -- */
  var words = sentence.charAt(0) === '-' ?
    ['mha-explain'].concat(a, ['--', sentence]) :
    ['mha-explain', sentence].concat(a);
  return words.map(shellWord).join(' ');
}
