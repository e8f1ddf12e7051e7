/* page.js: draws the page (the last part of the page's script,
 * page_data.js says how): the view chosen, the training view's pieces,
 * and the live page's reload (editor.js calls window.mhaPage). */

/* ---- training (--train): the heads over the training's steps ---- */

/* A trained run's page, and every live page (its editor trains),
 * also holds training.js, which defines
 * mhaTrainingView (docs/html.md); it draws with these pieces of the
 * page. */
function hasTraining() {
  return typeof mhaTrainingView === 'function' &&
    data.variants.some(function (v) { return !!v.training; });
}

function drawTrainingView() {
  mhaTrainingView(views.training, variant(), {
    el: el, svgEl: svgEl, setAttrs: setAttrs, tr: tr, decode: decode,
    floats: floats, matrixTable: matrixTable, matrixCanvas: matrixCanvas,
    lutIndex: lutIndex, mapOne: MAP_ONE, cellLimit: CELL_LIMIT,
    fitMatrices: fitMatrices,
    headName: headName, state: state
  });
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

function draw() {
  clear(views.head);
  clear(views.matrix);
  clear(views.neuron);
  clear(views.steps);
  clear(views.model);
  clear(views.training);
  clear(views.maps);
  readout.textContent = '';
  /* the training view's maps are far below the top: their readout goes
   * over the window's foot while it says something, and no empty band
   * is kept for it above the view */
  readout.classList.toggle('at-foot', state.view === 'training');
  views.head.hidden = state.view !== 'head';
  views.matrix.hidden = state.view !== 'matrix';
  views.neuron.hidden = state.view !== 'neuron';
  views.steps.hidden = state.view !== 'steps';
  views.model.hidden = state.view !== 'model';
  views.training.hidden = state.view !== 'training';
  views.maps.hidden = state.view !== 'maps';
  document.querySelectorAll('#head-toggles input').forEach(function (b) {
    var h = Number(b.getAttribute('data-head'));
    b.disabled = h >= variant().heads.length;
  });
  if (state.view === 'head') drawHeadView();
  else if (state.view === 'matrix') drawMatrixView();
  else if (state.view === 'neuron') drawNeuronView();
  else if (state.view === 'model') drawModelView();
  else if (state.view === 'training') drawTrainingView();
  else if (state.view === 'maps') MAPS.drawMapsView(views.maps);
  else drawStepView();
}

startLook();
if (buildFrame()) draw();
mark('mha-drawn');

/* The views sized to the window (head, matrix and training) drawn again
 * when its size changes: a resized window, the browser's zoom. */
var sized = {w: window.innerWidth, h: window.innerHeight}, resizing = null;
window.addEventListener('resize', function () {
  if (resizing !== null) clearTimeout(resizing);
  resizing = setTimeout(function () {
    resizing = null;
    if (sized.w === window.innerWidth && sized.h === window.innerHeight)
      return;
    sized = {w: window.innerWidth, h: window.innerHeight};
    if (data.variants.length > 0 && ['head', 'matrix', 'training']
        .indexOf(state.view) >= 0)
      draw();
  }, 150);
});

/* ---- the live page (editor.js) ---- */

/* Draws every view again from the data of a recomputed run: the view,
 * variant and step on view stay where they still exist. */
function reload(newData) {
  data = newData;
  LABELS = data.labels || {};
  if (state.variant >= data.variants.length) state.variant = 0;
  state.neuron = null;
  state.pinned = null;
  state.shown = [];
  state.kept = null;
  /* a run no longer trained has no training view */
  if (state.view === 'training' && !hasTraining()) state.view = 'head';
  if (state.view === 'maps' && !hasMaps()) state.view = 'head';
  clear(app);
  if (buildFrame()) {
    if (state.step >= steps().length) state.step = 0;
    draw();
  }
}
window.mhaPage = {
  reload: reload,
  tr: function () { return tr.apply(null, arguments); },
  data: function () { return data; }
};
