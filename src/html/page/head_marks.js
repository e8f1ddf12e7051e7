/* head_marks.js: the model view's marks (part of the page's script,
 * page_data.js says how): each head's scores (--head-scores) and the
 * heads that share a key/value head (grouped-query attention), with
 * their legends; model_view.js puts them in its grid. */

/* ---- the model view's marks ---- */

/* The head_scores map of data.maps, or null. */
function scoresMap() {
  var found = null;
  (data.maps || []).forEach(function (m) {
    if (m.table === 'head_scores') found = m;
  });
  return found;
}

/* The three scores of head h of the layer named name, or null. */
function headScores(name, h) {
  var map = scoresMap();
  if (!map) return null;
  var i = map.rows.indexOf(name + '.' + h);
  if (i < 0) return null;
  var m = decode(map.values);
  return [m.value(i, 0), m.value(i, 1), m.value(i, 2)];
}

/* The strip under a thumbnail: the head's three scores, each a cell of
 * the scores' colours (data.scoresMap, from 0 to 1) with its value. */
function scoreStrip(name, h) {
  var s = headScores(name, h);
  if (!s) return null;
  var lut = lutOf(data.scoresMap);
  var strip = el('div', {'class': 'score-strip', 'data-variant': name,
                         'data-head': h,
                         title: tr('scores: previous token {0}, duplicate ' +
                                   'token {1}, induction {2}',
                                   s[0].toFixed(2), s[1].toFixed(2),
                                   s[2].toFixed(2))});
  s.forEach(function (x, k) {
    var c = lut[lutIndex(x)];
    strip.appendChild(el('span', {
      'data-score': k,
      style: 'background:rgb(' + c.join(',') + ');color:' +
        (darkTextOn(c) ? '#000' : '#fff')
    }, x.toFixed(2)));
  });
  return strip;
}

/* The row over the model view's heading row: a bracket over the heads
 * that read one key/value head, named "kv N"; null without data.kvHeads. */
function kvGroupRow(cols) {
  var kv = data.kvHeads;
  if (!kv) return null;
  var row = el('tr', {'class': 'kv-groups'});
  row.appendChild(el('th', {}, ''));
  for (var h = 0; h < cols;) {
    var end = h + 1;
    while (end < cols && h < kv.length && kv[end] === kv[h]) end++;
    var cell = el('th', {scope: 'colgroup', colspan: end - h,
                         'data-kv-head': h < kv.length ? kv[h] : ''});
    if (h < kv.length) cell.appendChild(el('span', {}, tr('kv {0}', kv[h])));
    row.appendChild(cell);
    h = end;
  }
  return row;
}

/* The legends of the marks the view shows. */
function headMarksLegend() {
  var box = el('div', {'class': 'head-marks-legend'});
  if (scoresMap()) {
    var lut = lutOf(data.scoresMap);
    var bar = el('canvas', {width: 256, height: 1, 'class': 'map-bar',
                            'aria-hidden': 'true'});
    var ctx = bar.getContext('2d'), image = ctx.createImageData(256, 1);
    for (var k = 0; k < 256; k++) {
      for (var c = 0; c < 3; c++) image.data[4 * k + c] = lut[k][c];
      image.data[4 * k + 3] = 255;
    }
    ctx.putImageData(image, 0, 0);
    var p = el('p', {'class': 'map-legend'});
    p.appendChild(document.createTextNode('0 '));
    p.appendChild(bar);
    p.appendChild(document.createTextNode(' 1: ' + tr(
      'Under each head: its previous-token, duplicate-token and ' +
      'induction scores (head_scores), left to right.')));
    box.appendChild(p);
  }
  if (data.kvHeads)
    box.appendChild(el('p', {'class': 'map-legend'}, tr(
      'Heads under one bracket share a key/value head (grouped-query ' +
      'attention, kv_heads).')));
  return box;
}
