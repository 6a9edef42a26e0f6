/* fuzz-decision-file.h: the body the fuzz targets of the two files of decisions share, whitelists
 * (fuzz-whitelist.c) and sessions (fuzz-session.c). Arbitrary bytes go to the reader; what loads must write
 * out and read back; it is then applied to a fresh plan of a small transformer layer (the model
 * fw-make-test-model writes as small-transformer, batch bound to 2), so seeds naming its nodes reach veto
 * re-planning, undo and redo; and the file the plan gives back must read back too. */
#pragma once

#include <stddef.h>

#include "plan/fw-plan.h"

G_BEGIN_DECLS

typedef struct
{
  const char      *target;     /* the target's name, for messages */
  const char      *suffix;     /* of the names files are loaded under: ".fusion.yaml" */
  gpointer       (*load)       (const char *display_name, const char *data, gsize len, GError **error);
  char          *(*to_string)  (gconstpointer file);
  void           (*apply)      (gconstpointer file, FwPlan *plan);
  gpointer       (*from_plan)  (FwPlan *plan);
  GDestroyNotify   free;
} FuzzDecisionFile;

/* One fuzz input read as kind; aborts on a finding, returns 0 otherwise (as libFuzzer wants). */
int fuzz_decision_file_run (const FuzzDecisionFile *kind,
                            const guint8           *data,
                            size_t                  size);

G_END_DECLS
