/* page.js: draws the page (the last part of the page's script,
 * page_data.js says how): the view chosen, the training view's pieces,
 * and the live page's reload (editor.js calls window.mhaPage). */

/* ---- generation (--generate N) and the logit lens (--logit-lens) ---- */

/* The views a page holds only when its run made them: generation.js's
 * (a run that generated) and lens.js's (the logit lens), by name, each
 * {title(), has(), draw(box)} or null, drawn with these pieces of the
 * page. */
var PIECES = {
  el: el, tr: tr, decode: decode, lutOf: lutOf, lutIndex: lutIndex,
  darkTextOn: darkTextOn, scaleDecimals: scaleDecimals,
  arrowGrid: arrowGrid, openHead: openHead,
  soloHead: soloHead, headName: headName, clear: clear,
  colors: function () { return COLORS; },
  data: function () { return data; },
  readout: function () { return readout; }
};
var EXTRA = {
  generation: window.mhaGeneration && mhaGeneration(PIECES),
  lens: window.mhaLens && mhaLens(PIECES)
};

/* The names of the views of EXTRA this run has. */
function extraViews() {
  return Object.keys(EXTRA).filter(function (v) {
    return EXTRA[v] && EXTRA[v].has();
  });
}

/* ---- training (--train): the heads over the training's steps ---- */

/* A trained run's page, and every live page (its editor trains),
 * also holds training.js, which defines
 * mhaTrainingView (docs/html.md); it draws with these pieces of the
 * page. */
function hasTraining() {
  return typeof mhaTrainingView === 'function' &&
    data.variants.some(function (v) {
      /* a history: steps after the one before training (a trained
       * model's --weights run is a training of 0 steps, with none) */
      return !!v.training && v.training.steps.length > 1;
    });
}

function drawTrainingView() {
  mhaTrainingView(views.training, variant(), {
    el: el, svgEl: svgEl, setAttrs: setAttrs, tr: tr, decode: decode,
    floats: floats, matrixTable: matrixTable, matrixCanvas: matrixCanvas,
    lutIndex: lutIndex, mapOne: MAP_ONE, cellLimit: CELL_LIMIT,
    fitMatrices: fitMatrices,
    headName: headName, state: state, headSwitches: headSwitches
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
  Object.keys(EXTRA).forEach(function (v) {
    clear(views[v]);
    views[v].hidden = state.view !== v;
  });
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
  else if (EXTRA[state.view]) EXTRA[state.view].draw(views[state.view]);
  else drawStepView();
}

startLook();
if (buildFrame()) draw();
mark('mha-drawn');

/* The views sized to the window (head, matrix, training, model) drawn again
 * when its size changes: a resized window, the browser's zoom. */
var sized = {w: window.innerWidth, h: window.innerHeight}, resizing = null;
window.addEventListener('resize', function () {
  if (resizing !== null) clearTimeout(resizing);
  resizing = setTimeout(function () {
    resizing = null;
    if (sized.w === window.innerWidth && sized.h === window.innerHeight)
      return;
    sized = {w: window.innerWidth, h: window.innerHeight};
    if (data.variants.length > 0 &&
        ['head', 'matrix', 'training', 'model']
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
  if (state.view in EXTRA && extraViews().indexOf(state.view) < 0)
    state.view = 'head';
  clear(app);
  if (buildFrame()) {
    if (state.step >= steps().length) state.step = 0;
    draw();
  }
}
window.mhaPage = {
  reload: reload,
  /* the views drawn again, as they are (the editor's, once its core is
   * ready: the head switches appear) */
  redraw: function () { if (data.variants.length > 0) draw(); },
  tr: function () { return tr.apply(null, arguments); },
  /* the element maker the views draw with (page_data.js), also the
   * editor's and "Open a model"'s */
  el: el,
  data: function () { return data; }
};
