/* model_view.js: the model view (part of the page's script,
 * page_data.js says how): every head of every layer as a thumbnail. */

/* ---- model view ---- */

/* BertViz's model view: every head of every layer as a thumbnail of its
 * weights, a row per entry of data.variants (a checkpoint's layers
 * h.0, h.1, ..., a stack's blocks block.0, ..., or the lessons'
 * modules) and a column per head, on the fixed scale 0 to 1 in the
 * matrix view's colours. A click on a thumbnail, or Enter or space on
 * the focused one (the arrow keys move over the grid, which is one Tab
 * stop), opens that layer and head alone in the head view; the matrix
 * view then shows it too. */
var THUMB = 64;

/* The Interventions view and the model view's marks (maps.js, which a
 * page holds when its run made a map of the interventions or its query
 * heads share key/value heads), or null. */
var MAPS = typeof mhaMaps !== 'function' ? null : mhaMaps({
  el: el, tr: tr, decode: decode, lutOf: lutOf, lutIndex: lutIndex,
  darkTextOn: darkTextOn, scaleDecimals: scaleDecimals, mapOne: MAP_ONE,
  mapBoth: MAP_BOTH,
  decimals: COLORS.decimals, openHead: openHead, soloHead: soloHead,
  arrowGrid: arrowGrid, headNumber: headNumber,
  data: function () { return data; },
  readout: function () { return readout; }
});

/* Whether the page has maps to show in its Interventions view. */
function hasMaps() {
  return !!(MAPS && data.maps && data.maps.length);
}

/* A head's weights m as a canvas THUMB pixels wide, the theme's masked
 * colour where masked. */
function thumbCanvas(m) {
  var px = Math.max(1, Math.floor(THUMB / Math.max(m.rows, m.cols)));
  var canvas = el('canvas', {'class': 'thumb', width: m.cols * px,
                             height: m.rows * px, 'aria-hidden': 'true'});
  var ctx = canvas.getContext('2d');
  var image = ctx.createImageData(canvas.width, canvas.height);
  var pixels = new Uint32Array(image.data.buffer), width = canvas.width;
  var lut = lutOf(COLORS.map).map(rgbaWord);
  var grey = maskedWord();
  for (var i = 0; i < m.rows; i++) {
    var row = m.row(i);
    for (var j = 0; j < m.cols; j++) {
      var c = !unmasked(i, j) ? grey : lut[lutIndex(row[j])];
      for (var y = i * px; y < (i + 1) * px; y++)
        for (var x = j * px; x < (j + 1) * px; x++)
          pixels[y * width + x] = c;
    }
  }
  ctx.putImageData(image, 0, 0);
  return canvas;
}

/* The thumbnails as large as the window leaves them (THUMB to
 * THUMB_MOST pixels), as the matrix view's maps: the room the grid drawn
 * at THUMB leaves (the view's width less the legend beside it, the
 * window's height under it) shared among its rows and columns. */
var THUMB_MOST = 240;
function fitThumbs(grid, legend, rows, cols) {
  var box = grid.getBoundingClientRect();
  var W = views.model.clientWidth - box.width -
    (legend ? legend.offsetWidth + 40 : 0);
  var H = innerHeight - box.bottom - scrollY - (presenting() ? 16 : 64);
  grid.style.setProperty('--thumb', Math.max(THUMB, Math.min(THUMB_MOST,
    THUMB + Math.floor(Math.min(W / cols, H / rows)))) + 'px');
}

/* The buttons of group name (the frame's View or Variant) pressed as
 * value is. */
function pressValue(name, value) {
  var g = app.querySelector('.controls > .group[aria-label="' + name +
                            '"]');
  if (!g) return;
  g.querySelectorAll('button').forEach(function (b) {
    pressed(b, b.getAttribute('data-value') === String(value));
  });
}

/* Layer (data.variants entry) r and head h alone, in the head view. */
function openHead(r, h) {
  state.variant = r;
  state.view = 'head';
  for (var k = 0; k < state.shown.length; k++) state.shown[k] = k === h;
  document.querySelectorAll('#head-toggles input').forEach(function (b) {
    b.checked = state.shown[Number(b.getAttribute('data-head'))];
  });
  pressValue('View', 'head');
  pressValue(variantGroup(), r);
  draw();
}

function drawModelView() {
  var cols = Math.max.apply(null, data.variants.map(function (v) {
    return v.heads.length;
  }));
  var grid = el('table', {'class': 'model-grid'});
  var head = el('tr', {});
  head.appendChild(el('th', {}, ''));
  for (var h = 0; h < cols; h++)
    head.appendChild(el('th', {scope: 'col'}, headName(h)));
  var groups = MAPS && MAPS.kvGroupRow(cols);
  if (groups) grid.appendChild(groups);
  grid.appendChild(head);
  var buttons = [];
  data.variants.forEach(function (v, r) {
    var line = el('tr', {});
    line.appendChild(el('th', {scope: 'row'}, v.name));
    buttons.push([]);
    for (var h = 0; h < cols; h++) {
      var td = el('td', {});
      var m = v.heads[h] ? mat(v.heads[h], 'weights') : null;
      if (m) {
        var b = el('button', {type: 'button', 'class': 'thumb',
                              'data-variant': v.name, 'data-head': h,
                              'data-grid-row': r, 'data-grid-col': h,
                              'aria-label': tr('{0} head {1}: open it in ' +
                                'the head and matrix views', v.name,
                                headNumber(h))});
        b.appendChild(thumbCanvas(m));
        b.addEventListener('click', openHead.bind(null, r, h));
        td.appendChild(b);
        if (headIsOff(v, h)) {
          /* switched off (--ablate): the thumbnail dimmed, and said */
          b.classList.add('head-off');
          td.appendChild(el('span', {'class': 'head-off-mark'},
                            tr('{0}: switched off', headName(h))));
        }
        var strip = MAPS && MAPS.scoreStrip(v.name, h);
        if (strip) td.appendChild(strip);
        buttons[r].push(b);
      } else {
        buttons[r].push(null);
      }
      line.appendChild(td);
    }
    grid.appendChild(line);
  });
  /* the marks' legends beside the grid, at its top (maps.js), so that
   * a small grid does not leave them far below */
  var row = el('div', {'class': 'model-row'});
  row.appendChild(grid);
  var legend = MAPS ? MAPS.headMarksLegend() : null;
  if (legend && legend.firstChild) row.appendChild(legend);
  views.model.appendChild(row);
  fitThumbs(grid, legend && legend.firstChild ? legend : null,
            data.variants.length, cols);
  arrowGrid(grid, data.variants.length, cols, function (r, c) {
    return buttons[r] && buttons[r][c] ? buttons[r][c] : null;
  }, {r: state.variant, c: 0});
  views.model.appendChild(el('p', {'class': 'summary hint'},
    tr('Every layer\'s heads, weights from 0 to 1. Click a head, or ' +
       'move with the arrow keys and press Enter, to open it in the head ' +
       'and matrix views.')));
}
