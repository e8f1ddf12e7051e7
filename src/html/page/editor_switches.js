/* editor_switches.js: the live page's editor (editor.js): the switches
 * that turn a head off (--ablate L.H) and on again. */

/* The head view's and the training view's switch of head name ("L.H"):
 * the head added to --ablate, or taken away, and the run recomputed; the
 * focus stays on the switch, drawn again. Offered where the program
 * switches heads off in the editor's run (canAblate), not on a model
 * opened in the page (model_open.js: page.modelOnView), whose run is
 * not the editor's. */
page.canSwitch = function () {
  return ready && !page.modelOnView && canAblate(read());
};
page.toggleHead = function (name) {
  if (!page.canSwitch()) return;
  var i = ablated.indexOf(name);
  if (i < 0) ablated.push(name);
  else ablated.splice(i, 1);
  pressed = name;
  changed();
};

/* The switch pressed gets the focus back once its run is drawn: at once,
 * or after the training a run that trains waits for (editor_run.js). */
var pressed = null;
document.addEventListener('mha-recomputed', function () {
  var b = pressed === null ? null :
    document.querySelector('[data-head-off="' + pressed + '"]');
  pressed = null;
  if (b) b.focus();
});
