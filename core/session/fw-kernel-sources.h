/* fw-kernel-sources.h: a candidate's generated kernel sources, host C SuperKernel and Ascend C, as one plan
 * revision gave them: kept by FwProject per candidate, filled by the last check (FwCheck) or generated on
 * demand off the main thread for the inspector. Immutable once made; reference counted. No GTK. */
#pragma once

#include <gio/gio.h>

#include "codegen/fw-targets.h"
#include "plan/fw-plan.h"
#include "session/fw-project.h"

G_BEGIN_DECLS

/* No target's source yet; fill with fw_kernel_sources_set before sharing it. */
FwKernelSources *fw_kernel_sources_new              (guint64          revision);
/* A target's source (the kernel's own file), or why there is none; both NULL: not generated. */
void             fw_kernel_sources_set              (FwKernelSources *sources,
                                                     FwTargetId       target,
                                                     const char      *source,
                                                     const char      *error);
/* Every target's source as kernel gave it. */
FwKernelSources *fw_kernel_sources_new_from_kernel  (guint64          revision,
                                                     const FwTargetKernel *kernel);
/* Generates every target's source for candidate (blocking; the plan must hold still meanwhile). */
FwKernelSources *fw_kernel_sources_generate         (FwPlan          *plan,
                                                     const FwCandidate *candidate,
                                                     guint64          revision);
FwKernelSources *fw_kernel_sources_ref              (FwKernelSources *sources);
void             fw_kernel_sources_unref            (FwKernelSources *sources);
/* The project revision the sources describe the plan at. */
guint64          fw_kernel_sources_get_revision     (const FwKernelSources *sources);
const char      *fw_kernel_sources_get_source       (const FwKernelSources *sources,
                                                     FwTargetId       target);
const char      *fw_kernel_sources_get_error        (const FwKernelSources *sources,
                                                     FwTargetId       target);

/* A line of a target's source that a checker found fault with (the twin's diagnostics on the Ascend kernel):
 * the 1-based line and what it said, for the inspector to highlight. */
typedef struct
{
  guint  line;
  char  *text;
} FwSourceMark;

void             fw_kernel_sources_add_mark         (FwKernelSources *sources,
                                                     FwTargetId       target,
                                                     guint            line,
                                                     const char      *text);
guint            fw_kernel_sources_get_n_marks      (const FwKernelSources *sources,
                                                     FwTargetId       target);
const FwSourceMark *fw_kernel_sources_get_mark      (const FwKernelSources *sources,
                                                     FwTargetId       target,
                                                     guint            index);

/* Generates candidate's sources in a worker thread while the project holds the plan for it
 * (fw_project_hold_plan: a decision meanwhile waits for the worker instead of failing). */
void             fw_kernel_sources_generate_async   (FwProject          *project,
                                                     guint               candidate,
                                                     GCancellable       *cancellable,
                                                     GAsyncReadyCallback callback,
                                                     gpointer            user_data);
/* The sources; when the plan has not changed since the call, also kept in the project
 * (fw_project_get_kernel_sources). They describe an older revision than the project's when it changed. */
FwKernelSources *fw_kernel_sources_generate_finish  (FwProject          *project,
                                                     GAsyncResult       *result,
                                                     GError            **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwKernelSources, fw_kernel_sources_unref)

G_END_DECLS
