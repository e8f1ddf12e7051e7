/* maps.js: the Interventions view and the model view's marks, in the
 * page of a run that made a map of the interventions (data.maps,
 * html_maps.c) or whose query heads share key/value heads
 * (data.kvHeads); html.c writes it before the page's script only there,
 * as it writes training.js in a trained run's page.
 *
 * It defines mhaMaps(p), which the page's script calls with the pieces
 * it draws with (model_view.js); its answer draws the Interventions view
 * (drawMapsView) and gives the model view its marks (scoreStrip,
 * kvGroupRow, headMarksLegend).
 *
 * The Interventions view: --ablate all-heads' ablation_map and --patch's
 * patch_heads (layers x heads), patch_resid (layers x positions) and
 * --head-scores' head_scores (heads x scores), each a table of cells
 * coloured as --plot colours them: a signed map on the diverging map
 * centred on 0, the head scores from 0 to 1. A click on a cell, or Enter
 * or space on the focused one (the arrow keys move over a map, which is
 * one Tab stop), opens its head alone in the head view; a cell of
 * patch_resid opens its layer with every head.
 *
 * The marks: each head's scores (--head-scores) under its thumbnail, and
 * a bracket over the heads that read one key/value head (grouped-query
 * attention), with their legends. */
function mhaMaps(p) {
  'use strict';
  var el = p.el, tr = p.tr, decode = p.decode, lutIndex = p.lutIndex;
  var darkTextOn = p.darkTextOn;


  /* --ablate all-heads' ablation_map and --patch's patch_heads (layers x
   * heads), patch_resid (layers x positions) and --head-scores'
   * head_scores (heads x scores), each a table of cells coloured as
   * --plot colours them: a signed map on the diverging map centred on 0,
   * the head scores from 0 to 1. A click on a cell, or Enter or space on
   * the focused one (the arrow keys move over a map, which is one Tab
   * stop), opens its head alone in the head view; a cell of patch_resid
   * opens its layer with every head. */
  /* What cell (i, j) of map opens: layer r (-1: none on the page) and
   * head h (null: every head of the layer). */
  function mapTarget(map, i, j) {
    var row = map.rows[i], h = map.heads ? j : null;
    if (map.table === 'head_scores') {
      h = Number(row.slice(row.lastIndexOf('.') + 1));
      row = row.slice(0, row.lastIndexOf('.'));
    }
    var variants = p.data().variants, r = variants.map(function (v) {
      return v.name;
    }).indexOf(row);
    /* head h's place among the heads shown (--show-heads) */
    var at = r < 0 || h === null ? 0 : variants[r].heads.map(function (x) {
      return x.head;
    }).indexOf(h);
    return function () {
      if (r < 0 || at < 0) return;
      p.openHead(r, at);
      if (h === null) p.soloHead(0); /* head 0 alone: every head again */
    };
  }

  /* What a colour says, on a line of its own (its words may hold
   * numbers and colons: "restored: 0 corrupted, 1 clean"), then a colour
   * bar of the 256 colours lut, lo at its left and hi at its right. */
  function scaleBar(lut, lo, hi, says) {
    var box = el('p', {'class': 'map-legend'});
    box.appendChild(el('span', {'class': 'map-measure'}, says));
    var bar = el('canvas', {width: 256, height: 1, 'class': 'map-bar',
                            'aria-hidden': 'true'});
    var ctx = bar.getContext('2d'), image = ctx.createImageData(256, 1);
    for (var k = 0; k < 1024; k++)
      image.data[k] = k % 4 === 3 ? 255 : lut[k >> 2][k % 4];
    ctx.putImageData(image, 0, 0);
    box.appendChild(document.createTextNode(lo + ' '));
    box.appendChild(bar);
    box.appendChild(document.createTextNode(' ' + hi));
    return box;
  }

  /* A map as a table of cells; one too wide for width pixels (patch_resid
   * of a long prompt) narrower: its column labels turned, a cell's value
   * said on hover and focus only. */
  function mapTable(map, width) {
    var m = decode(map.values), most = 0, cells = [];
    var narrow = 120 + m.cols * 60 > width;
    for (var k = 0; k < m.rows * m.cols; k++) {
      var v = Math.abs(m.value(Math.floor(k / m.cols), k % m.cols));
      if (isFinite(v)) most = Math.max(most, v);
    }
    most = most || 1;
    var lo = map.signed ? -most : 0, hi = map.signed ? most : 1;
    var lut = map.signed ? p.mapBoth : p.mapOne;
    var decimals = p.scaleDecimals(lo, hi, p.decimals);
    var part = el('div', {'class': 'map', 'data-map': map.table});
    part.appendChild(el('h2', {}, map.table));
    /* ablation_map: what its heads' z was set to (zero, the text's mean,
     * --corpus's mean; html_maps.c) */
    if (map.ablated)
      part.appendChild(el('p', {'class': 'summary map-ablated'},
                          map.ablated));
    var table = el('table', {'class': 'grid map-grid' +
                                      (narrow ? ' map-narrow' : '')});
    /* cells wide enough for a sign, "0." and the decimals (12px
     * monospace, page.css's td.cell) */
    if (!narrow && decimals > 2)
      table.style.setProperty('--cell-w',
                              Math.ceil((decimals + 4) * 7.5) + 'px');
    table.appendChild(el('caption', {}, map.rowsTitle + ' \u2193, ' +
                                        map.colsTitle + ' \u2192'));
    var head = el('tr', {});
    [''].concat(map.cols).forEach(function (c) {
      head.appendChild(el('th', {scope: 'col'}, c));
    });
    table.appendChild(head);
    for (var i = 0; i < m.rows; i++) {
      var line = el('tr', {});
      line.appendChild(el('th', {scope: 'row'}, map.rows[i]));
      cells.push([]);
      for (var j = 0; j < m.cols; j++) {
        var x = m.value(i, j), value = m.text(i, j);
        /* a value that is not a number (or infinite) has no colour:
         * hatched, as --plot draws it */
        var td = el('td', {'class': 'cell map-cell' +
                                    (isFinite(x) ? '' : ' masked'),
                           tabindex: -1,
                           'data-map': map.table, 'data-row': map.rows[i],
                           'data-col': map.cols[j], 'data-value': value,
                           'data-grid-row': i, 'data-grid-col': j,
                           'aria-label': tr('{0}, {1}, {2}: {3}; open it in ' +
                                            'the head view', map.table,
                                            map.rows[i], map.cols[j], value)});
        if (isFinite(x)) {
          var c = lut[lutIndex((x - lo) / (hi - lo))];
          td.style.background = 'rgb(' + c.join(',') + ')';
          td.style.color = darkTextOn(c) ? '#000' : '#fff';
        }
        if (!narrow) td.textContent = isFinite(x) ? x.toFixed(decimals) :
          value;
        var open = mapTarget(map, i, j);
        td.addEventListener('click', open);
        td.addEventListener('keydown', function (open, e) {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            open();
          }
        }.bind(null, open));
        ['mouseenter', 'focus'].forEach(function (ev) {
          td.addEventListener(ev, function (e) {
            p.readout().textContent = e.target.getAttribute('aria-label');
          });
        });
        cells[i].push(td);
        line.appendChild(td);
      }
      table.appendChild(line);
    }
    p.arrowGrid(table, m.rows, m.cols, function (a, b) {
      return cells[a] ? cells[a][b] || null : null;
    });
    part.appendChild(table);
    part.appendChild(scaleBar(lut, lo.toFixed(decimals), hi.toFixed(decimals),
                              map.measure));
    return part;
  }

  /* A lesson page's editor runs no interventions (its core refuses
   * them, intervene_page.c): the maps say they are the program's run. */
  function programNote(view) {
    var r = document.getElementById('mha-run');
    r = r ? JSON.parse(r.textContent) : {};
    if (r.live && r.editable && !r.checkpoint)
      view.appendChild(el('p', {'class': 'summary hint', id: 'maps-program'},
        tr('These maps are the program\'s run of the command line the ' +
           'page was written with: the page\'s core runs no ' +
           'interventions, so a change in the editor starts a plain run, ' +
           'without them.')));
  }

  function drawMapsView(view) {
    programNote(view);
    var width = view.clientWidth || document.documentElement.clientWidth;
    p.data().maps.forEach(function (map) {
      view.appendChild(mapTable(map, width));
    });
    view.appendChild(el('p', {'class': 'summary hint'},
      tr('Each map\'s cells are heads (or a layer\'s input at a position): ' +
         'click one, or move with the arrow keys and press Enter, to open ' +
         'it in the head view.')));
  }

  /* The head_scores map of data.maps, or undefined. */
  function scoresMap() {
    return (p.data().maps || []).filter(function (m) {
      return m.table === 'head_scores';
    })[0];
  }

  /* The strip under the thumbnail of head h of the layer named name: its
   * three scores, each a cell of the scores' colours (data.scoresMap, 0
   * to 1) with its value; null without scores. */
  function scoreStrip(name, h) {
    var map = scoresMap();
    var i = map ? map.rows.indexOf(name + '.' + p.headNumber(h)) : -1;
    if (i < 0) return null;
    var m = decode(map.values), lut = p.lutOf(p.data().scoresMap), s = [];
    var strip = el('div', {'class': 'score-strip', 'data-variant': name,
                           'data-head': h});
    for (var k = 0; k < 3; k++) {
      var c = lut[lutIndex(m.value(i, k))];
      s.push(m.value(i, k).toFixed(2));
      strip.appendChild(el('span', {style: 'background:rgb(' + c.join(',') +
        ');color:' + (darkTextOn(c) ? '#000' : '#fff')}, s[k]));
    }
    strip.title = tr('scores: previous token {0}, duplicate token {1}, ' +
                     'induction {2}', s[0], s[1], s[2]);
    return strip;
  }

  /* The row over the model view's heading row: a bracket over the heads
   * that read one key/value head, named "kv N"; null without
   * data.kvHeads. */
  function kvGroupRow(cols) {
    var all = p.data().kvHeads;
    if (!all) return null;
    /* the key/value head of the page's head h (of the heads shown) */
    var kv = function (h) { return all[p.headNumber(h)]; };
    var row = el('tr', {'class': 'kv-groups'});
    row.appendChild(el('th', {}, ''));
    for (var h = 0, end; h < cols; h = end) {
      for (end = h + 1; end < cols && kv(end) === kv(h);) end++;
      var cell = el('th', {scope: 'colgroup', colspan: end - h,
                           'data-kv-head': kv(h)});
      cell.appendChild(el('span', {}, tr('kv {0}', kv(h))));
      row.appendChild(cell);
    }
    return row;
  }

  /* The legends of the marks the view shows. */
  function headMarksLegend() {
    var box = el('div', {'class': 'head-marks-legend'});
    if (scoresMap())
      box.appendChild(scaleBar(p.lutOf(p.data().scoresMap), 0, 1, tr(
        'Under each head: its previous-token, duplicate-token and ' +
        'induction scores (head_scores), left to right.')));
    if (p.data().kvHeads)
      box.appendChild(el('p', {'class': 'map-legend'}, tr(
        'Heads under one bracket share a key/value head (grouped-query ' +
        'attention, kv_heads).')));
    return box;
  }

  return {drawMapsView: drawMapsView, scoreStrip: scoreStrip,
          kvGroupRow: kvGroupRow, headMarksLegend: headMarksLegend};
}
