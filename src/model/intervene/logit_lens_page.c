/* logit_lens_page.c: model/intervene/logit_lens.h for the WebAssembly
 * core of every live page (src/wasm/meson.build names it in the place of
 * logit_lens.c). That core draws no logit lens (html/html_lens_page.c):
 * asked anyway, the run is refused (RUN_NOT_ON_PAGE, model/pipeline.h:
 * the caller names the option). The families core, which only the pages
 * of --model runs carry, has this folder whole, the logit lens with it
 * (a --logit-lens page keeps its view once its folder is open); the core
 * of every page runs --ablate alone (src/wasm/intervene_ablate_page.c).
 */
#include "model/intervene/logit_lens.h"

static int refuse(const run_request *rq, mx_error *err)
{
    if (!rq->logit_lens)
        return 0;
    return err_detail_set(err, RUN_NOT_ON_PAGE, RUN_LOGIT_LENS, 0, 0);
}

int logit_lens_check(const lm_ops *lm, const run_request *rq,
                     const model_input *in, mx_error *err)
{
    (void)lm;
    (void)in;
    return refuse(rq, err);
}

int logit_lens_record(trace *tr, const lm_ops *lm, const run_request *rq,
                      const model_input *in, mx_error *err)
{
    (void)tr;
    (void)lm;
    (void)in;
    return refuse(rq, err);
}
