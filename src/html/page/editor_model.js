/* editor_model.js: the live page's editor (editor.js) on a trained
 * model's page: the sentence, the words the model knows, and the
 * further training on its corpus. */

/* A trained model's page: only the sentence is edited (the model fixes
 * the rest), and the page says which words the model knows. */
function modelFields() {
  [form.querySelector('.edit-kv'), numbers, variants, switches,
   training].forEach(function (part) { part.hidden = true; });
  /* a block's heads are switched off (the head and training views'
   * switches): how, the --ablate-mode field says, out of the hidden
   * fieldset */
  if (canAblate({variants: run.variants, train: '0'}))
    form.insertBefore(fields['ablate-mode'].parentNode, training);
  /* its corpus: the class keeps training the model on it */
  if (model.corpus) {
    training.hidden = false;
    training.querySelector('legend').textContent =
      tr('Keep training (--train, on --corpus)');
    training.insertBefore(el('p', {'class': 'editor-hint',
                                   id: 'model-corpus'}, tr(
      'The page carries the {0} sentences of {1} (column {2}): more ' +
      'steps of training on them start from this trained model, as ' +
      '--weights DIR --train N --corpus FILE does.',
      model.corpus.sentences, model.corpus.file, model.corpus.column)),
      training.children[1]);
  }
  var rules = [];
  if (model.lower) rules.push('--lower');
  if (model.punct !== 'keep') rules.push('--punct ' + model.punct);
  if (model.unk) rules.push('--unk');
  var known = el('p', {'class': 'model-words', id: 'model-words'});
  known.appendChild(el('span', {}, tr(
    'This trained model knows {0} words; a sentence of them runs over ' +
    'it, as --weights runs it:', model.words.length) + ' '));
  model.words.forEach(function (w, i) {
    if (i > 0) known.appendChild(document.createTextNode(' '));
    known.appendChild(el('code', {'class': 'model-word'}, w));
  });
  /* under the sentence, before the training's fields */
  form.insertBefore(known, training);
  if (rules.length > 0)
    form.insertBefore(el('p', {'class': 'editor-hint'}, tr(
      'Words are made by {0}, as the training made them.',
      rules.join(' '))), training);
  /* the sentence's words under its field, those the model does not
   * know marked (as the program refuses them, or reads them as <unk>) */
  var marks = el('p', {'class': 'sentence-words', id: 'sentence-words',
                       'aria-live': 'polite'});
  var sentenceField = form.querySelector('.edit-sentence');
  sentenceField.appendChild(marks);
  fields.sentence.addEventListener('input', markWords);
  if (model.dir === null)
    box.appendChild(el('p', {'class': 'editor-hint'}, tr(
      'The model is in this page only: --csv-dir DIR saves it as a ' +
      'folder for --weights.')));
}

if (model) modelFields();

/* Marks the sentence's words the carried model does not know. */
function markWords() {
  var marks = document.getElementById('sentence-words');
  if (!marks || !ready) return;
  var words = null;
  try {
    words = wordsCore(fields.sentence.value);
  } catch (e) {
    /* a core that stopped: no marks; the next run loads a fresh one */
  }
  while (marks.firstChild) marks.removeChild(marks.firstChild);
  if (!words) return;
  var unknown = 0;
  words.forEach(function (w, i) {
    if (i > 0) marks.appendChild(document.createTextNode(' '));
    if (w.known) {
      marks.appendChild(el('span', {'class': 'known-word'}, w.word));
      return;
    }
    unknown++;
    var why = model.unk ?
      tr('Not in the trained vocabulary: read as <unk>.') :
      tr('Not in the trained vocabulary: the program refuses the ' +
         'sentence.');
    marks.appendChild(el('mark', {'class': 'unknown-word', title: why,
                                  'aria-label': w.word + ': ' + why},
                         w.word));
  });
  marks.setAttribute('data-unknown', String(unknown));
  /* all known: nothing to mark, the line is not shown */
  marks.hidden = unknown === 0;
}
