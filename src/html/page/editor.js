/* editor.js: the live page's editor (docs/html.md, "The live page").
 *
 * The page carries the program's core compiled to WebAssembly
 * (<script id="mha-core">, src/wasm) and the command line of its run
 * (<script id="mha-run">). The editor shows that command line's sentence
 * and settings; any change builds the new command line, the core runs it
 * (the program's own option checks, model and page writer) and every view
 * is drawn again from the data it returns (page.js, mhaPage.reload). A
 * command line the program refuses shows the program's message, in the
 * page's language (the core speaks the catalogue of <script
 * id="mha-messages">). The URL's fragment holds the settings, so a link
 * or a bookmark opens the same run.
 *
 * The page of a trained model (a run trained on a corpus, or read with
 * --weights) carries the model (<script id="mha-model">, html_model.c):
 * its editor edits the sentence only, runs it over that model as
 * `--weights DIR` runs it (the core reads the model as the folder), and
 * lists the words the model knows. A model trained on a corpus carries
 * its sentences too: the class keeps training it on them (`--weights DIR
 * --train K --corpus FILE`, the core reading the carried sentences as
 * the file's), and the sentence field marks the words the model does not
 * know, as the program refuses them.
 *
 * The editor is one function over several files, one concern each, put
 * together in this order (src/html/page/embed.py's { }): this file (the
 * page's pieces, and the note of a page that cannot recompute),
 * editor_core.js, editor_settings.js, editor_form.js, editor_model.js,
 * editor_run.js and editor_switches.js.
 */
var page = window.mhaPage;
var runScript = document.getElementById('mha-run');
if (!page || !runScript) return;
/* the core's bytes and its WASI imports (core_bytes.js), also for
 * model_open.js's core of its own */
var unpack = window.mhaCoreBytes.unpack;
var wasiImports = window.mhaCoreBytes.wasiImports;
page.coreParts = {unpack: unpack, wasiImports: wasiImports};
var run = JSON.parse(runScript.textContent);
var tr = page.tr, el = page.el;
var app = document.getElementById('app');
/* --ablate's heads ("L.H"), which the head and model views mark as
 * switched off (head_view.js); all-heads marks none; a --model page's
 * too (its switches: model_switches.js) */
function headList(text) {
  return !text || text === 'all-heads' ? [] :
    text.split(',').filter(function (w) { return w !== ''; });
}
page.ablated = headList(run.ablate);

/* The editor, above the views: a disclosure that opens on a click (or
 * Enter), closed at the start (a link's settings are run, the views
 * keep the screen; it opens on a refused run); a note
 * instead when the page cannot recompute. */
var box = el('details', {id: 'editor'});
var summary = el('summary', {}, tr('Edit the run'));
box.appendChild(summary);
app.parentNode.insertBefore(box, app);

function note(text) {
  var p = el('p', {'class': 'editor-note', id: 'editor-note'}, text);
  box.parentNode.replaceChild(p, box);
}

/* The digits of the core's base 85 (src/wasm/embed_core.py): the
 * printable ASCII characters but < > & ' " \ ` ( and :. Set before
 * the page may stop here: model_open.js unpacks its core with them on
 * a page its editor does not edit. */
var BASE85 = '!#$%)*+,-./0123456789;=?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_' +
  'abcdefghijklmnopqrstuvwxyz{|}~';

if (!run.live) {
  note(tr('This page cannot recompute: the program that wrote it was ' +
          'built without its WebAssembly core. Run mha-explain again to ' +
          'change the run.'));
  return;
}
if (!run.editable && run.checkpoint) {
  /* a --model run: its folder is opened, and the run changed, in
   * "Open a model" (model_open.js, model_switches.js), which says
   * what it changes (mha-run's changedIn, html.c) */
  note(run.changedIn);
  return;
}
if (!run.editable) {
  note(tr('This run cannot be edited on the page (it reads files, or ' +
          'uses --draw or --tables).'));
  return;
}
if (typeof WebAssembly !== 'object' ||
    typeof DecompressionStream !== 'function') {
  note(tr('This browser cannot run the page\'s WebAssembly core; the ' +
          'page shows the run it was written with.'));
  return;
}
