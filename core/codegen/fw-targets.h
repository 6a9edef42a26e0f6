/* fw-targets.h: code generation for a whole plan: a host SuperKernel (generated, compiled, loaded) and an
 * Ascend C kernel per fused candidate, with what failed and why. A failure is recorded on its candidate
 * and never stops the others: that group then runs on the reference kernels and is reported unverified. */
#pragma once

#include <gio/gio.h>

#include "codegen/ascend/fw-ascend.h"
#include "codegen/host/fw-superkernel.h"
#include "exec/fw-fused.h"
#include "plan/fw-plan.h"

G_BEGIN_DECLS

typedef struct
{
  guint           candidate;
  FwSuperKernel  *host;            /* generated (source available), or NULL */
  gboolean        host_compiled;   /* loaded and runnable: group is valid */
  char           *host_error;      /* why not, or NULL */
  FwGroupKernel   group;           /* the compiled kernel as the fused executor takes it */
  FwAscendKernel *ascend;          /* generated, or NULL */
  char           *ascend_error;
} FwTargetKernel;

typedef struct
{
  FwPlan          *plan;
  gboolean         host;
  gboolean         ascend;
  FwHostToolchain *toolchain;      /* NULL when host is off or no compiler was found */
  char            *toolchain_error;
  GPtrArray       *kernels;        /* FwTargetKernel*, one per fused (proposed or accepted) candidate */
} FwTargets;

/* Whether a candidate is part of the fused plan (proposed or accepted; vetoed and refused ones are not). */
gboolean     fw_candidate_is_fused   (const FwCandidate *candidate);

/* Generates (and for host compiles, in parallel) the kernels of every fused candidate. cache_dir NULL: the
 * default. FALSE only when cancelled. */
FwTargets   *fw_targets_build        (FwPlan           *plan,
                                      gboolean          host,
                                      gboolean          ascend,
                                      const char       *cache_dir,
                                      GCancellable     *cancellable,
                                      GError          **error);
/* Called from the compiling threads after each host kernel (done of total; first with done 0). */
typedef void (*FwTargetsProgress) (guint done, guint total, gpointer data);

/* fw_targets_build with progress; a cancel skips the compiles not yet started. */
FwTargets   *fw_targets_build_full   (FwPlan           *plan,
                                      gboolean          host,
                                      gboolean          ascend,
                                      const char       *cache_dir,
                                      FwTargetsProgress progress,
                                      gpointer          progress_data,
                                      GCancellable     *cancellable,
                                      GError          **error);
void         fw_targets_free         (FwTargets        *targets);
/* FwGroupKernel* of the compiled host kernels (the array owns nothing). */
GPtrArray   *fw_targets_group_kernels (FwTargets       *targets);
/* The FwSuperKernel* per candidate index (NULL where none), as the kernel package takes them. */
GPtrArray   *fw_targets_host_by_candidate (FwTargets   *targets);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwTargets, fw_targets_free)

G_END_DECLS
