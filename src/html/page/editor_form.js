/* editor_form.js: the live page's editor (editor.js): its form, one
 * field per option it edits. */

/* ---- the form ---- */

var form = el('form', {id: 'editor-form', novalidate: ''});
var fields = {};
/* the heads switched off (--ablate's L.H), which the head view's
 * switches change (editor_switches.js) */
var ablated = [];

function field(name, label, attrs) {
  var id = 'edit-' + name;
  var wrap = el('div', {'class': 'edit-field edit-' + name});
  wrap.appendChild(el('label', {'for': id}, label));
  attrs.id = id;
  attrs['data-edit'] = name;
  var input = el('input', attrs);
  wrap.appendChild(input);
  fields[name] = input;
  return wrap;
}

function check(name, label) {
  var id = 'edit-' + name;
  var wrap = el('div', {'class': 'edit-check'});
  var input = el('input', {type: 'checkbox', id: id, 'data-edit': name});
  wrap.appendChild(input);
  wrap.appendChild(el('label', {'for': id}, label));
  fields[name] = input;
  return wrap;
}

/* The seed and the sizes of the module, in a row. */
function numberFields() {
  var numbers = el('div', {'class': 'edit-row'});
  numbers.appendChild(field('seed', tr('Seed (--seed)'),
    {type: 'text', inputmode: 'numeric', size: '8', autocomplete: 'off'}));
  numbers.appendChild(field('d-model',
    tr('Width of the embeddings (--d-model)'),
    {type: 'number', min: '1', step: '1'}));
  numbers.appendChild(field('d-out', tr('Width of the output (--d-out)'),
    {type: 'number', min: '1', step: '1'}));
  numbers.appendChild(field('heads', tr('Number of heads (--heads)'),
    {type: 'number', min: '1', step: '1'}));
  return numbers;
}

/* One box per variant the run's rows list, and --layers. */
function variantFields() {
  var variants = el('fieldset', {'class': 'edit-variants'});
  variants.appendChild(el('legend', {}, tr('Variants (--variant)')));
  VARIANTS.forEach(function (v) {
    variants.appendChild(check('variant-' + v, v));
    fields['variant-' + v].setAttribute('data-edit', 'variant');
    fields['variant-' + v].value = v;
  });
  variants.appendChild(field('layers',
    tr('Blocks stacked (--layers, with block; empty: one)'),
    {type: 'number', min: '1', step: '1', autocomplete: 'off'}));
  return variants;
}

/* The attention's switches: the mask, the scale, the biases, the
 * tokens and the positions. */
function switchFields() {
  var switches = el('fieldset', {'class': 'edit-switches'});
  switches.appendChild(el('legend', {}, tr('Attention')));
  switches.appendChild(check('causal', tr('Causal mask (off: --no-causal)')));
  switches.appendChild(check('scale',
    tr('Scores scaled by 1/\u221ahead_dim (off: --no-scale)')));
  switches.appendChild(check('qkv-bias',
    tr('Biases in W_query, W_key, W_value (--qkv-bias)')));
  var tokens = el('div', {'class': 'edit-field edit-tokens'});
  tokens.appendChild(el('label', {'for': 'edit-tokens'},
                        tr('Tokens (--tokens)')));
  var select = el('select', {id: 'edit-tokens', 'data-edit': 'tokens'});
  select.appendChild(el('option', {value: 'words'}, tr('words')));
  select.appendChild(el('option', {value: 'chars'}, tr('characters')));
  tokens.appendChild(select);
  fields.tokens = select;
  switches.appendChild(tokens);
  switches.appendChild(check('positions',
    tr('Learned positions added to the embeddings (--positions)')));
  /* how the head view's switched-off heads are replaced: zero or mean */
  var modes = el('div', {'class': 'edit-field edit-ablate-mode'});
  modes.appendChild(el('label', {'for': 'edit-ablate-mode'},
                       tr('Ablated heads (--ablate-mode)')));
  fields['ablate-mode'] = el('select', {id: 'edit-ablate-mode',
                                        'data-edit': 'ablate-mode'});
  ['zero', 'mean'].forEach(function (m) {
    fields['ablate-mode'].appendChild(el('option', {value: m}, m));
  });
  modes.appendChild(fields['ablate-mode']);
  switches.appendChild(modes);
  return switches;
}

/* The training's settings: its steps, optimizer, learning rate and
 * --grad. */
function trainingFields() {
  var training = el('fieldset', {'class': 'edit-training'});
  training.appendChild(el('legend', {}, tr('Training (--train)')));
  training.appendChild(field('train', tr('Steps (0: no training)'),
    {type: 'number', min: '0', step: '1', autocomplete: 'off'}));
  var optimizer = el('div', {'class': 'edit-field edit-optimizer'});
  optimizer.appendChild(el('label', {'for': 'edit-optimizer'},
                           tr('Optimizer (--optimizer)')));
  var optimizers = el('select', {id: 'edit-optimizer',
                                 'data-edit': 'optimizer'});
  optimizers.appendChild(el('option', {value: 'adam'}, 'adam'));
  optimizers.appendChild(el('option', {value: 'sgd'}, 'sgd'));
  optimizer.appendChild(optimizers);
  fields.optimizer = optimizers;
  training.appendChild(optimizer);
  training.appendChild(field('lr',
    tr('Learning rate (--lr; empty: the optimizer\'s default)'),
    {type: 'text', inputmode: 'decimal', size: '8', autocomplete: 'off',
     spellcheck: 'false'}));
  training.appendChild(check('grad',
    tr('Gradients at the final parameters (--grad)')));
  return training;
}

box.appendChild(el('p', {'class': 'editor-hint'},
  tr('Any change recomputes every table here, in the browser, with the ' +
     'program\'s own code.')));
form.appendChild(field('sentence', tr('Sentence'),
                       {type: 'text', 'class': 'wide', spellcheck: 'false',
                        autocomplete: 'off'}));
form.appendChild(field('kv',
  tr('Keys and values from another sentence (--kv; empty: none)'),
  {type: 'text', 'class': 'wide', spellcheck: 'false', autocomplete: 'off'}));
var numbers = numberFields();
form.appendChild(numbers);
var variants = variantFields();
form.appendChild(variants);
var switches = switchFields();
form.appendChild(switches);
var training = trainingFields();
form.appendChild(training);
/* the generation's settings (generation.js, in a generation run's
 * page): a trained model's page has no seed field of its own */
var GEN = typeof mhaGenerationFields === 'function' && run.generate ?
  mhaGenerationFields({el: el, tr: tr, prefix: 'edit-', seed: !!model,
                       initial: run.generate, seedValue: run.seed}) : null;
if (GEN) form.appendChild(GEN.box);
box.appendChild(form);
