/* fw-check.h: compile, verify and (optionally) measure a project's fused plan on the host, as the window's
 * "Compile and Verify" and "Measure" do: a blocking form and an _async/_finish pair with progress
 * (`fraction`, `message`, notified in the caller's main context) and cancellation.
 *
 * The run only reads the plan. The async form marks the project busy while it runs, so no decision changes
 * the plan under it, and when it finishes puts the results into the project (verification and measured time
 * per candidate, and a detail text the inspector shows). No GTK. */
#pragma once

#include <gio/gio.h>

#include "codegen/fw-targets.h"
#include "exec/fw-fused.h"
#include "plan/fw-superkernel-plan.h"
#include "session/fw-project.h"

G_BEGIN_DECLS

typedef struct
{
  gboolean     host;           /* generate and compile host SuperKernels (default TRUE) */
  gboolean     ascend;         /* generate Ascend C kernels (default TRUE) */
  gboolean     verify;         /* run fused against unfused (default TRUE; needs host) */
  gboolean     twin;           /* with verify and ascend: run each Ascend kernel on the twin (default FALSE;
                                  batch mode and the window set it) */
  gboolean     measure;        /* time each SuperKernel and the whole model, after verifying */
  gboolean     without_kernels; /* verify and measure the whole model even when no group has a kernel (batch
                                   reports always have those sections); default FALSE: nothing to check */
  guint64      seed;           /* inputs */
  gboolean     has_tolerance;  /* override the dtype defaults */
  FwTolerance  tolerance;
  FwVerifyPolicy verify_policy; /* default AUTO: golden for half-precision models (fw-fused.h) */
  guint        n_threads;      /* 0: all cores */
  guint        repeats;        /* 0: the default */
  const char  *cache_dir;      /* NULL: the default kernel cache */
  const FwSkPlan *superkernel; /* with twin and ascend: also run each of its scopes' Ascend SuperKernel on the
                                  twin (borrowed, of the project's plan; NULL: none) */
} FwCheckOptions;

void              fw_check_options_init    (FwCheckOptions *options);

#define FW_TYPE_CHECK (fw_check_get_type ())
G_DECLARE_FINAL_TYPE (FwCheck, fw_check, FW, CHECK, GObject)

FwCheck          *fw_check_new             (FwProject             *project,
                                            const FwCheckOptions  *options);
FwProject        *fw_check_get_project     (FwCheck               *self);
gdouble           fw_check_get_fraction    (FwCheck               *self);
const char       *fw_check_get_message     (FwCheck               *self);
/* The project's revision the results describe. */
guint64           fw_check_get_revision    (FwCheck               *self);

/* Blocking: compiles, verifies, measures. The project is not changed; fw_check_apply puts the results in. */
gboolean          fw_check_run             (FwCheck               *self,
                                            GCancellable          *cancellable,
                                            GError               **error);
void              fw_check_apply           (FwCheck               *self);
void              fw_check_run_async       (FwCheck               *self,
                                            GCancellable          *cancellable,
                                            GAsyncReadyCallback    callback,
                                            gpointer               user_data);
gboolean          fw_check_run_finish      (FwCheck               *self,
                                            GAsyncResult          *result,
                                            GError               **error);

/* Valid after a successful run; owned by the check. verify and measure may be NULL (not asked for, or no
 * kernel compiled). */
FwTargets        *fw_check_get_targets     (FwCheck               *self);
FwVerifyResult   *fw_check_get_verify      (FwCheck               *self);
FwMeasureResult  *fw_check_get_measure     (FwCheck               *self);
/* FwTwinCheck*, one per scope of options.superkernel in its order: its Ascend SuperKernel on the twin; NULL
 * when none ran. */
GPtrArray        *fw_check_get_scope_twin  (FwCheck               *self);
/* Candidates whose kernel failed verification or did not compile, or whose Ascend kernel failed on the twin. */
guint             fw_check_get_n_failed    (FwCheck               *self);

G_END_DECLS
