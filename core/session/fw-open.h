/* fw-open.h: opening a model, the one pipeline batch mode and the window share (docs/pipeline.md): the
 * profile, the rule sets (shipped, then every --rules file or folder), the whitelists, then the model
 * (parse, dim bindings, shape inference), its report, the plan and the whitelists applied to it. The result
 * is an FwProject that owns everything it was made from.
 *
 * Profile, rules and whitelists come first, so a typo there is reported before a large model loads. Every
 * error names the file it is about. A blocking form and an _async/_finish pair with progress (`fraction`,
 * `message`, notified in the caller's main context) and cancellation. No GTK. */
#pragma once

#include <gio/gio.h>

#include "plan/fw-plan.h"
#include "session/fw-project.h"

G_BEGIN_DECLS

typedef struct
{
  GHashTable          *bindings;       /* symbol → gint64*, or NULL; referenced by the job */
  guint                max_nodes;      /* 0: the reader's default */
  guint                max_depth;      /* nesting; 0: the reader's default */
  guint64              max_alloc;      /* bytes the model may make the reader copy; 0: default 2 GiB */
  const char          *profile;        /* builtin name or file; NULL: ascend-910b */
  const char * const  *rules;          /* rule files or folders loaded after the shipped set, in order */
  const char * const  *whitelists;     /* *.fusion.yaml files applied in order after planning */
  const char * const  *ops;            /* operator registry files or folders (docs/custom-ops.md), installed
                                        * for the process before the model is read; NULL: keep the installed */
  FwPlanOptions        plan;           /* strategy and limits */
  const char          *dump_dir;       /* graph dumps (fw-graph-dump.h) into it; NULL: DUMP_GRAPH's, if set */
} FwOpenOptions;

/* No bindings, limits or extra files; ascend-910b; fw_plan_options_init. */
void                 fw_open_options_init     (FwOpenOptions        *options);

#define FW_TYPE_OPEN (fw_open_get_type ())
G_DECLARE_FINAL_TYPE (FwOpen, fw_open, FW, OPEN, GObject)

/* options is copied (strings and the list of files too; the bindings table is referenced). */
FwOpen              *fw_open_new              (const char           *path,
                                               const FwOpenOptions  *options);
const char          *fw_open_get_path         (FwOpen               *self);
gdouble              fw_open_get_fraction     (FwOpen               *self);
const char          *fw_open_get_message      (FwOpen               *self);
/* The symbolic dims the model declares (before bindings), sorted; valid once the model is loaded. */
const char * const  *fw_open_get_symbols      (FwOpen               *self);

/* A new project: the model with shapes inferred, its report (fw_project_get_model_report), bindings as
 * NAME=VALUE (fw_project_get_bindings), the plan with the whitelists applied. The project has no session
 * path. */
FwProject           *fw_open_run              (FwOpen               *self,
                                               GCancellable         *cancellable,
                                               GError              **error);
void                 fw_open_run_async        (FwOpen               *self,
                                               GCancellable         *cancellable,
                                               GAsyncReadyCallback   callback,
                                               gpointer              user_data);
FwProject           *fw_open_run_finish       (FwOpen               *self,
                                               GAsyncResult         *result,
                                               GError              **error);

G_END_DECLS
