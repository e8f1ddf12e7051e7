/* page_assets.h: the page's style and script, src/html/page/page.css and
 * src/html/page/page.js, made into C strings at build time
 * (src/html/page/embed.py); and the training view's, training.js and
 * training.css, which a trained run's page and a live page hold. */
#ifndef MHA_PAGE_ASSETS_H
#define MHA_PAGE_ASSETS_H

extern const char page_css[];
extern const char page_js[];
extern const char page_training_js[];
extern const char page_training_css[];
/* the Interventions view and the model view's marks, maps.js and
 * maps.css, in the page of a run with them only (html_has_maps) */
extern const char page_maps_js[];
extern const char page_maps_css[];
/* the Generation view, generation.js and generation.css, in the page of
 * a generation run only (html_has_generation) */
extern const char page_generation_js[];
extern const char page_generation_css[];
/* the Logit lens view, lens.js, in the page of a run with --logit-lens
 * only (html_has_lens) */
extern const char page_lens_js[];
/* the families core's worker (model_runner.js, the page's side; and the
 * worker's text, core_imports.js then model_worker.js), in the pages of
 * --model runs only (html.c) */
extern const char page_model_runner_js[];
extern const char page_core_imports_js[];
extern const char page_model_worker_js[];
/* the head view's switches on those pages (model_switches.js: --ablate
 * run by the families core) */
extern const char page_model_switches_js[];

#endif
