/* trained_made.c: a trained run's model kept for the interventions
 * (trained_made.h). */
#include "model/lesson/trained_made.h"

#include <stdlib.h>

#include "base/i18n.h"

/* What made->model points at: the variant and its trained model. */
typedef struct {
    variant_id id;
    start_model sm;
} trained_model;

static void trained_model_free(void *model)
{
    trained_model *m = model;
    if (m == NULL)
        return;
    trained_start_free(&m->sm, m->id);
    free(m);
}

int trained_keep(struct lm_made *made, variant_id id, start_model *sm,
                 mx_error *err)
{
    if (made == NULL || made->model != NULL)
        return 0;
    trained_model *m = malloc(sizeof *m);
    if (m == NULL)
        return err_nomem(err, _("the model"));
    m->id = id;
    m->sm = *sm;
    *sm = (start_model){0};
    made->model = m;
    made->free = trained_model_free;
    return 0;
}

start_model *trained_made_model(const struct lm_made *made, variant_id id)
{
    trained_model *m = made != NULL ? made->model : NULL;
    return m != NULL && m->id == id ? &m->sm : NULL;
}
