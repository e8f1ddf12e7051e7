/* folder_kind.c: a model folder given to the wrong option
 * (folder_kind.h). */
#include "cli/folder_kind.h"

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include "base/i18n.h"
#include "model/lesson/manifest.h"

/* Whether dir holds a regular file named name. */
static bool holds(const char *dir, const char *name)
{
    char path[4096];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return false;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int folder_check_model(const char *dir, mx_error *err)
{
    if (!holds(dir, MANIFEST_NAME) || holds(dir, "config.json"))
        return 0;
    return err_input(err,
                     _("--model %s: the folder holds a model trained by "
                       "mha-explain (its %s), not a checkpoint: read it "
                       "with --weights %s"),
                     dir, MANIFEST_NAME, dir);
}

int folder_check_weights(const char *dir, mx_error *err)
{
    if (!holds(dir, "config.json") || holds(dir, MANIFEST_NAME))
        return 0;
    return err_input(err,
                     _("--weights %s: the folder holds a checkpoint (its "
                       "config.json), not a model trained by mha-explain: "
                       "read it with --model %s"),
                     dir, dir);
}
