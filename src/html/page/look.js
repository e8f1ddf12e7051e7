/* look.js: how the page looks (part of the page's script, page_data.js
 * says how), for a projector as for a screen:
 *
 * - its theme: the system's light or dark one (prefers-color-scheme, and
 *   prefers-contrast: more for the high-contrast one), or one chosen in
 *   the Theme menu; page.css holds their colours. The heat maps keep the
 *   colours of --plot in every theme (their order in lightness is the
 *   order of the values); the heads' lines get lighter hues on a dark
 *   theme (headColour);
 * - the presentation mode: one view filling the window in large type,
 *   without the controls (the Present button, the key p outside the
 *   step-through, where p is --step's key for the step before, or #present
 *   in the URL; p or Escape leaves it);
 * - the language: a page installed with its translations
 *   (explorer.html, explorer.pt_BR.html...: docs/html.md) lists them in
 *   <script id="mha-languages">, and the Language menu opens the page in
 *   another, the editor's settings kept in the URL's fragment.
 */

var THEMES = [
  {value: 'auto', label: 'Automatic'},
  {value: 'light', label: 'Light'},
  {value: 'dark', label: 'Dark'},
  {value: 'contrast', label: 'High contrast'}
];

/* [{lang: 'pt_BR', name: 'Português (Brasil)', file: '...'}, ...], or
 * null for a page written alone */
var LANGUAGES = (function () {
  var e = document.getElementById('mha-languages');
  return e ? JSON.parse(e.textContent) : null;
})();

/* The theme (a value of THEMES) on the page: data-theme on <html>, none
 * for the system's. */
function applyTheme(theme) {
  var root = document.documentElement;
  state.theme = theme;
  if (theme === 'auto') root.removeAttribute('data-theme');
  else root.setAttribute('data-theme', theme);
  look.dark = window.getComputedStyle(root).getPropertyValue('--scheme')
    .trim() === 'dark';
}

/* The heads' colours of the frame again, then the view (a new theme). */
function recolour() {
  document.querySelectorAll('#head-toggles .swatch').forEach(function (s) {
    var h = Number(s.parentNode.querySelector('input')
                   .getAttribute('data-head'));
    s.style.background = headColour(h);
  });
  draw();
}

function presenting() {
  return document.documentElement.classList.contains('present');
}

/* The presentation mode on or off (and in the URL's fragment); the views
 * are sized again for the room they have. */
function present(on) {
  document.documentElement.classList.toggle('present', on);
  /* the URL's fragment says so too: a link, a reload or another
   * language's page opens the same way */
  var q = new URLSearchParams(location.hash.slice(1));
  if (on) q.set('present', '');
  else q.delete('present');
  if (window.history && history.replaceState) {
    history.replaceState(null, '', q.toString() === '' ?
      location.pathname + location.search : '#' + q.toString());
  }
  var b = document.getElementById('present-button');
  if (b) pressed(b, on);
  draw();
  if (!on && b) b.focus();
}

/* p (outside the step-through, where it steps back) toggles the
 * presentation mode; Escape leaves it. */
function lookKey(e) {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  var t = e.target && e.target.tagName;
  if (t === 'SELECT' || t === 'INPUT' || t === 'TEXTAREA') return;
  if (e.key === 'Escape' && presenting()) {
    e.preventDefault();
    present(false);
  } else if (e.key === 'p' && state.view !== 'steps') {
    e.preventDefault();
    present(!presenting());
  }
}

/* The Theme and Language menus and the Present button, for the frame. */
function lookControls() {
  var box = el('div', {'class': 'group look'});
  var at = 0;
  THEMES.forEach(function (t, k) { if (t.value === state.theme) at = k; });
  box.appendChild(picker('Theme', THEMES.map(function (t) {
    return tr(t.label);
  }), at, function (k) {
    applyTheme(THEMES[k].value);
    recolour();
  }));
  if (LANGUAGES && LANGUAGES.length > 1) {
    var here = document.documentElement.lang.replace('-', '_'), now = 0;
    LANGUAGES.forEach(function (l, k) { if (l.lang === here) now = k; });
    box.appendChild(picker('Language', LANGUAGES.map(function (l) {
      return l.name;
    }), now, function (k) {
      if (k !== now) location.href = LANGUAGES[k].file + location.hash;
    }));
  }
  var b = el('button', {type: 'button', id: 'present-button'},
             tr('Present (p)'));
  pressed(b, presenting());
  b.addEventListener('click', function () { present(!presenting()); });
  box.appendChild(b);
  return box;
}

/* The look the page opens with: the system's theme, and the
 * presentation mode when the URL's fragment asks for it (#present, or
 * present among the editor's settings). */
function startLook() {
  applyTheme(state.theme);
  document.body.appendChild(el('p', {'class': 'present-hint',
                                     id: 'present-hint'},
                               tr('Escape leaves the presentation')));
  var q = new URLSearchParams(location.hash.slice(1));
  if (q.has('present'))
    document.documentElement.classList.add('present');
  /* the system's theme changing while the page is open */
  if (window.matchMedia) {
    ['(prefers-color-scheme: dark)', '(prefers-contrast: more)']
      .forEach(function (query) {
        var m = window.matchMedia(query);
        var again = function () {
          if (state.theme !== 'auto') return;
          applyTheme('auto');
          recolour();
        };
        if (m.addEventListener) m.addEventListener('change', again);
      });
  }
}
