/* intervene.h: the interventions a run asks for (--ablate, ablate.h;
 * --patch, patch.h), on the model its family's row gives (model/lm.h),
 * for pipeline.c: checked before the run, their hooks applied by the
 * family's run, their tables appended after it.
 */
#ifndef MHA_INTERVENE_H
#define MHA_INTERVENE_H

#include <stdbool.h>

#include "base/error.h"
#include "model/lm.h"
#include "model/run_request.h"
#include "model/trace.h"

/* Whether rq asks for an intervention. */
bool intervene_asked(const run_request *rq);

/* Checks them without running: lm NULL (a family without an lm_head)
 * is refused. */
int intervene_check(const lm_ops *lm, const run_request *rq,
                    const model_input *in, mx_error *err);

/* Appends their tables to tr, after the family's run. */
int intervene_record(trace *tr, const lm_ops *lm, const run_request *rq,
                     const model_input *in, mx_error *err);

/* Whether they make the table id. */
bool intervene_makes_table(const run_request *rq, table_id id);

#endif
