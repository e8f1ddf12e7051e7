/* page_data.js: what every view of an mha-explain --html page draws with:
 * the JSON of <script id="mha-data"> (src/html/html_data.c) and its
 * matrices decoded, the colours, the state of the page, elements, and the
 * page's words in the run's language.
 *
 * The page's script is its files one after another inside one function
 * (embed.py, src/meson.build gives the order): this file first, then
 * frame.js, the views (head_view.js, matrix_view.js, neuron_view.js,
 * step_view.js, model_view.js), look.js and page.js, which draws the
 * page. They share that function's names (data, state, views, el, tr...).
 *
 * Each matrix of the data holds the program's float32 values exactly
 * (base64 of their bytes); every number shown is written by mhaFloatText
 * (floattext.js) as the program's CSV writes it. Arithmetic done here is
 * float32 arithmetic that gives the program's bits: a product or quotient
 * of two floats computed in double and rounded once (Math.fround) is the
 * float32 product or quotient.
 *
 * Head view: queries left, keys right, a line per unmasked pair and head
 * (when there are very many, only a followed token's). Matrix view: each
 * head's weights (or scores) as a heat map in the colours of --plot (a
 * canvas for big heads). Neuron view: one score from q and k, then its
 * softmax row. Steps: the computation step by step, with the --explain
 * notes and the text tables. The DOM contract the tests rely on is in
 * docs/html.md.
 */

/* performance marks, for measuring how fast the page opens */
var mark = window.performance && performance.mark ?
  function (name) { performance.mark(name); } : function () {};
mark('mha-start');
var data = JSON.parse(document.getElementById('mha-data').textContent);
mark('mha-parsed');
var SVG_NS = 'http://www.w3.org/2000/svg';

/* Above this many lines (heads x pairs) the head view draws only a
 * followed token's lines; above this many cells a head's heat map is a
 * canvas. */
var LINE_LIMIT = 4000, CELL_LIMIT = 1600;

var LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/* A matrix of the data, {rows, cols, f32}, decoded once: its floats,
 * their bits, and their text as the CSV writes it. */
function decode(m) {
  if (!m) return null;
  if (m.decoded) return m.decoded;
  var bin = atob(m.f32), n = bin.length;
  var bytes = new Uint8Array(n);
  for (var i = 0; i < n; i++) bytes[i] = bin.charCodeAt(i);
  if (!LITTLE_ENDIAN) {
    for (var k = 0; k < n; k += 4) {
      var b0 = bytes[k], b1 = bytes[k + 1];
      bytes[k] = bytes[k + 3]; bytes[k + 1] = bytes[k + 2];
      bytes[k + 2] = b1; bytes[k + 3] = b0;
    }
  }
  m.decoded = floats(m.rows, m.cols, new Float32Array(bytes.buffer));
  return m.decoded;
}

/* rows x cols floats f: their values, their text as the CSV writes it,
 * a row */
function floats(rows, cols, f) {
  var u = new Uint32Array(f.buffer);
  return {
    rows: rows,
    cols: cols,
    value: function (i, j) { return f[i * cols + j]; },
    text: function (i, j) {
      return mhaFloatText(f[i * cols + j], u[i * cols + j]);
    },
    row: function (i) { return f.subarray(i * cols, (i + 1) * cols); }
  };
}

/* head.weights etc., decoded. The weights, unless the data holds them,
 * are exps x (1 / rowSum) in float32, as the program's softmax makes
 * them (html_data.c): a float32 quotient and product, each computed in
 * double and rounded once, which gives the float32 result exactly. */
function mat(head, name) {
  if (name === 'weights' && !head.weights) {
    if (!head.derivedWeights) {
      var e = decode(head.exps), sums = decode(head.rowSum);
      var f = new Float32Array(e.rows * e.cols);
      for (var i = 0; i < e.rows; i++) {
        var inverse = Math.fround(1 / sums.value(0, i)), row = e.row(i);
        for (var j = 0; j < e.cols; j++)
          f[i * e.cols + j] = Math.fround(row[j] * inverse);
      }
      head.derivedWeights = floats(e.rows, e.cols, f);
    }
    return head.derivedWeights;
  }
  return decode(head[name]);
}

/* The float32 x as the CSV writes it. */
function f32Text(x) {
  var a = new Float32Array([x]);
  return mhaFloatText(a[0], new Uint32Array(a.buffer)[0]);
}

/* Heads 0 to 7: Okabe and Ito's colours, safe for colour-blind readers
 * (headColour gives the others). */
var HEAD_COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7',
                    '#E69F00', '#56B4E9', '#000000', '#B8A000'];

/* The matrix view's colours, as --plot draws them (data.colors,
 * docs/html.md): each head's own range (scale "table"), each row's
 * ("row"), or weights from 0 to 1 ("fixed"); a map of 256 colours for
 * values of one sign and one for both signs (centred on 0 unless the
 * map is not a diverging one); the numbers in the cells and their
 * decimals. */
var COLORS = data.colors || {scale: 'fixed', numbers: true, decimals: 2,
                             centred: true};

/* A map of 256 colours from base64 of their red, green and blue
 * bytes (grey without one). */
function lutOf(b64) {
  var bin = b64 ? atob(b64) : '', out = [];
  for (var k = 0; k < 256; k++) {
    out.push(bin.length === 768 ? [bin.charCodeAt(3 * k),
                                   bin.charCodeAt(3 * k + 1),
                                   bin.charCodeAt(3 * k + 2)] : [k, k, k]);
  }
  return out;
}

var state = {
  variant: mostHeads(), /* index into data.variants */
  view: 'head',        /* 'head', 'matrix', 'neuron', 'steps',
                          'model' or 'training' (a trained run) */
  step: 0,             /* the step on view in 'steps' */
  matrix: 'weights',   /* 'weights' or 'scores' */
  neuron: null,        /* {head, query, key}; null: an informative
                          pair, chosen when the view first opens */
  pinned: null,        /* {side, i}: the head view's clicked token */
  shown: [],           /* shown[h]: head h is drawn */
  kept: null,          /* the training view's kept step (an index into
                          training.steps); null: the last */
  theme: 'auto'        /* 'auto' (the system's), 'light', 'dark' or
                          'contrast' (look.js) */
};

/* The variant the page opens on: the first with the most heads (the
 * lesson's single has one; the class wants to see several). */
function mostHeads() {
  var best = 0;
  data.variants.forEach(function (v, i) {
    if (v.heads.length > data.variants[best].heads.length) best = i;
  });
  return best;
}

function el(tag, attrs, text) {
  var e = document.createElement(tag);
  setAttrs(e, attrs);
  if (text !== undefined) e.textContent = text;
  return e;
}

function svgEl(tag, attrs, text) {
  var e = document.createElementNS(SVG_NS, tag);
  setAttrs(e, attrs);
  if (text !== undefined) e.textContent = text;
  return e;
}

function setAttrs(e, attrs) {
  for (var k in attrs) {
    if (Object.prototype.hasOwnProperty.call(attrs, k))
      e.setAttribute(k, attrs[k]);
  }
}

/* Head h's colour as #RRGGBB. Past the eight fixed ones, hues a golden
 * angle (137.508 degrees) apart, so that each head's hue falls in the
 * widest gap the ones before it left, with three lightnesses and
 * saturations taking turns (all dark enough to see on white): the
 * colours of 24 heads stay at least 14 CIELAB units apart, every
 * head's differs from the others' up to hundreds of heads. */
function headColour(i) {
  var dark = look.dark, h = headNumber(i);
  if (h < HEAD_COLOURS.length)
    return dark ? HEAD_COLOURS_DARK[h] : HEAD_COLOURS[h];
  var k = h - HEAD_COLOURS.length;
  return hslColour((35 + k * 137.508) % 360, [0.9, 0.6, 0.75][k % 3],
                   (dark ? [0.62, 0.72, 0.82] : [0.38, 0.5, 0.28])[k % 3]);
}

/* On a dark page (look.js's dark and high-contrast themes): the same
 * hues, light enough to see on black (Okabe and Ito's black is white
 * there, their blue the sky blue's lighter neighbour). */
var HEAD_COLOURS_DARK = ['#3DA5E0', '#F07F3C', '#19C294', '#E094C0',
                         '#E69F00', '#9BD3F5', '#F0F0F0', '#E8D44D'];

/* The page's look (look.js): whether its theme is a dark one (page.css
 * says so in --scheme; read once per theme, not per line drawn). */
var look = {dark: false};

/* hue in degrees, saturation and lightness in [0, 1], as #RRGGBB */
function hslColour(hue, sat, light) {
  var c = (1 - Math.abs(2 * light - 1)) * sat;
  var x = c * (1 - Math.abs((hue / 60) % 2 - 1));
  var m = light - c / 2;
  var rgb = [[c, x, 0], [x, c, 0], [0, c, x], [0, x, c], [x, 0, c],
             [c, 0, x]][Math.floor(hue / 60) % 6];
  return '#' + rgb.map(function (v) {
    return ('0' + Math.round((v + m) * 255).toString(16)).slice(-2);
  }).join('').toUpperCase();
}

function hexToRgb(hex) {
  var n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

var MAP_ONE = lutOf(COLORS.map), MAP_BOTH = lutOf(COLORS.mapBoth);

/* The entry of a 256-colour map for t in [0, 1], as matplotlib takes
 * it: floor(256 t), 255 at 1. */
function lutIndex(t) {
  if (!(t > 0)) return 0;
  return t >= 1 ? 255 : Math.min(255, Math.floor(t * 256));
}

/* Whether black text reads better than white on [r, g, b] (as the
 * pictures choose, from the colour's luminance). */
function darkTextOn(c) {
  return (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]) / 255 > 0.408;
}

/* The decimals of a cell whose colour scale runs from lo to hi: at
 * least `least`, and enough for two significant digits of the scale's
 * larger end (at most 12), so that a coloured cell of a map of small
 * values (a change of probability near 0.001) never reads 0.00. */
function scaleDecimals(lo, hi, least) {
  var top = Math.max(Math.abs(lo), Math.abs(hi));
  if (!(top > 0) || !isFinite(top)) return least;
  return Math.min(12, Math.max(least, 1 - Math.floor(Math.log10(top))));
}

/* The page's words in the run's language: data.labels, when present,
 * maps an English text to its translation; missing ones stay English.
 * "{0}", "{1}" in a text stand for the numbers put in. The attributes
 * of the DOM contract (docs/html.md) are never translated. */
var LABELS = data.labels || {};

function tr(text) {
  var t = Object.prototype.hasOwnProperty.call(LABELS, text) ?
    LABELS[text] : text;
  var args = Array.prototype.slice.call(arguments, 1);
  return t.replace(/\{(\d)\}/g, function (m, k) {
    return args[Number(k)] !== undefined ? String(args[Number(k)]) : m;
  });
}

/* The number of the page's head h (its place in a variant's heads):
 * --show-heads may leave heads out, head 0 too (every layer of a
 * checkpoint shows the same heads; a lesson's variants, heads 0 on). */
function headNumber(h) {
  var v = data.variants[0], head = v && v.heads[h];
  return head && typeof head.head === 'number' ? head.head : h;
}

/* "head 2" in the page's language (a name drawNeuronView can call: its
 * table row variable hides tr there) */
function headName(h) {
  return tr('head {0}', headNumber(h));
}

/* A query may see key j: always, unless the causal mask hides j > i. */
function unmasked(i, j) {
  return !data.masked || j <= i;
}

function variant() {
  return data.variants[state.variant];
}
