/* maps_view.js: the Interventions view (part of the page's script,
 * page_data.js says how): the maps the run's interventions made
 * (data.maps, html_maps.c) as heat maps whose cells open their head. */

/* ---- the interventions' maps ---- */

/* --ablate all-heads' ablation_map and --patch's patch_heads (layers x
 * heads), patch_resid (layers x positions) and --head-scores'
 * head_scores (heads x scores), each a table of cells coloured as
 * --plot colours them: a signed map on the diverging map centred on 0,
 * the head scores from 0 to 1. A click on a cell, or Enter or space on
 * the focused one (the arrow keys move over a map, which is one Tab
 * stop), opens its head alone in the head view; a cell of patch_resid
 * opens its layer with every head. */
function hasMaps() {
  return !!(data.maps && data.maps.length > 0);
}

/* The entry of data.variants named name, or -1. */
function layerIndex(name) {
  for (var r = 0; r < data.variants.length; r++)
    if (data.variants[r].name === name) return r;
  return -1;
}

/* What cell (i, j) of map opens: {r: layer, h: head, or null for every
 * head of the layer}; r is -1 when the page has no such layer. */
function mapTarget(map, i, j) {
  var row = map.rows[i];
  if (map.table === 'head_scores') {
    var dot = row.lastIndexOf('.');
    return {r: layerIndex(row.slice(0, dot)), h: Number(row.slice(dot + 1))};
  }
  return {r: layerIndex(row), h: map.heads ? j : null};
}

/* Layer r with every head shown, in the head view. */
function openLayer(r) {
  state.variant = r;
  state.view = 'head';
  for (var k = 0; k < state.shown.length; k++) state.shown[k] = true;
  document.querySelectorAll('#head-toggles input').forEach(function (b) {
    b.checked = true;
  });
  pressValue('View', 'head');
  pressValue(variantGroup(), r);
  draw();
}

/* The map's colours: [lo, hi] and the 256 colours between. */
function mapScale(map, m) {
  if (!map.signed) return {lo: 0, hi: 1, lut: MAP_ONE};
  var most = 0;
  for (var i = 0; i < m.rows; i++)
    for (var j = 0; j < m.cols; j++)
      if (isFinite(m.value(i, j)))
        most = Math.max(most, Math.abs(m.value(i, j)));
  if (!(most > 0)) most = 1;
  return {lo: -most, hi: most, lut: MAP_BOTH};
}

function mapCell(map, m, sc, i, j) {
  var x = m.value(i, j), value = m.text(i, j);
  var target = mapTarget(map, i, j);
  var td = el('td', {'class': 'cell map-cell', tabindex: -1,
                     'data-map': map.table, 'data-row': map.rows[i],
                     'data-col': map.cols[j], 'data-value': value,
                     'data-grid-row': i, 'data-grid-col': j});
  var text = tr('{0}, {1}, {2}: {3}; open it in the head view', map.table,
                map.rows[i], map.cols[j], value);
  td.setAttribute('aria-label', text);
  var c = sc.lut[lutIndex((x - sc.lo) / (sc.hi - sc.lo))];
  td.style.background = 'rgb(' + c.join(',') + ')';
  td.style.color = darkTextOn(c) ? '#000' : '#fff';
  td.textContent = isFinite(x) ? x.toFixed(COLORS.decimals) : value;
  function show() { readout.textContent = text; }
  function open() {
    if (target.r < 0) return;
    if (target.h === null) openLayer(target.r);
    else openHead(target.r, target.h);
  }
  td.addEventListener('mouseenter', show);
  td.addEventListener('focus', show);
  td.addEventListener('click', open);
  td.addEventListener('keydown', function (e) {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      open();
    }
  });
  return td;
}

/* A map's colour legend: its lowest value, the colours, its highest,
 * and what a colour says. */
function mapLegend(map, sc) {
  var box = el('p', {'class': 'map-legend'});
  var bar = el('canvas', {width: 256, height: 1, 'class': 'map-bar',
                          'aria-hidden': 'true'});
  var ctx = bar.getContext('2d'), image = ctx.createImageData(256, 1);
  for (var k = 0; k < 256; k++)
    for (var c = 0; c < 3; c++) image.data[4 * k + c] = sc.lut[k][c];
  for (var a = 0; a < 256; a++) image.data[4 * a + 3] = 255;
  ctx.putImageData(image, 0, 0);
  box.appendChild(document.createTextNode(sc.lo.toFixed(2) + ' '));
  box.appendChild(bar);
  box.appendChild(document.createTextNode(' ' + sc.hi.toFixed(2) + ': ' +
                                          map.measure));
  return box;
}

function mapTable(map) {
  var m = decode(map.values), sc = mapScale(map, m);
  var part = el('div', {'class': 'map', 'data-map': map.table});
  part.appendChild(el('h2', {}, map.table));
  var table = el('table', {'class': 'grid map-grid'});
  table.appendChild(el('caption', {},
                       map.rowsTitle + ' \u2193, ' + map.colsTitle +
                       ' \u2192'));
  var head = el('tr', {});
  head.appendChild(el('th', {}, ''));
  map.cols.forEach(function (c) {
    head.appendChild(el('th', {scope: 'col'}, c));
  });
  table.appendChild(head);
  var cells = [];
  for (var i = 0; i < m.rows; i++) {
    var line = el('tr', {});
    line.appendChild(el('th', {scope: 'row'}, map.rows[i]));
    cells.push([]);
    for (var j = 0; j < m.cols; j++) {
      var td = mapCell(map, m, sc, i, j);
      cells[i].push(td);
      line.appendChild(td);
    }
    table.appendChild(line);
  }
  arrowGrid(table, m.rows, m.cols, function (a, b) {
    return cells[a] ? cells[a][b] || null : null;
  });
  part.appendChild(table);
  part.appendChild(mapLegend(map, sc));
  return part;
}

function drawMapsView() {
  data.maps.forEach(function (map) {
    views.maps.appendChild(mapTable(map));
  });
  views.maps.appendChild(el('p', {'class': 'summary hint'},
    tr('Each map\'s cells are heads (or a layer\'s input at a position): ' +
       'click one, or move with the arrow keys and press Enter, to open ' +
       'it in the head view.')));
}
