/* fw-targets.h: code generation for a whole plan: a host SuperKernel (generated, compiled, loaded) and an
 * Ascend C kernel per fused candidate, with what failed and why. A failure is recorded on its candidate
 * and never stops the others: that group then runs on the reference kernels and is reported unverified. */
#pragma once

#include <gio/gio.h>

#include "codegen/ascend/fw-ascend.h"
#include "codegen/fw-ascend-twin.h"
#include "codegen/host/fw-superkernel.h"
#include "exec/fw-fused.h"
#include "plan/fw-plan.h"

G_BEGIN_DECLS

/* The targets, in the order reports list them. */
typedef enum {
  FW_TARGET_HOST,    /* C99 SuperKernels, compiled and run here */
  FW_TARGET_ASCEND,  /* Ascend C kernels with tiling and a CMake project for CANN */
  FW_N_TARGETS
} FwTargetId;

const char  *fw_target_name          (FwTargetId        target);  /* "host", "ascend" */
gboolean     fw_target_from_name     (const char       *name,
                                      FwTargetId       *out);

typedef struct
{
  guint           candidate;
  /* Per target: what its generator made (owned by the target's kernel below), or NULL with the reason. */
  const FwKernelSource *sources[FW_N_TARGETS];
  char           *errors[FW_N_TARGETS];
  FwSuperKernel  *host;            /* the host kernel (compiles, loads and runs), or NULL */
  gboolean        host_compiled;   /* loaded and runnable: group is valid */
  FwGroupKernel   group;           /* the compiled kernel as the fused executor takes it */
  FwAscendKernel *ascend;          /* the Ascend kernel with its tiling, or NULL */
  FwTwinCheck    *twin;            /* verification ran the Ascend kernel on the twin, or NULL */
} FwTargetKernel;

typedef struct
{
  FwPlan          *plan;
  gboolean         enabled[FW_N_TARGETS];
  FwHostToolchain *toolchain;      /* NULL when host is off or no compiler was found */
  char            *toolchain_error;
  GPtrArray       *kernels;        /* FwTargetKernel*, one per fused (proposed or accepted) candidate */
  /* Host on: FwNodeKernel* for the main graph's single ops outside the compiled groups that a host kernel
     takes (fw-host-node-kernel.h), which the fused executor runs instead of their reference kernels. */
  GPtrArray       *node_kernels;
} FwTargets;

/* Generates one candidate's kernels on the enabled targets, compiling nothing. */
FwTargetKernel *fw_target_kernel_generate (FwPlan          *plan,
                                           guint            candidate,
                                           const gboolean   enabled[FW_N_TARGETS]);
void         fw_target_kernel_free   (FwTargetKernel   *kernel);

/* Generates (and for host compiles, in parallel) the kernels of every fused candidate on every target asked
 * for. cache_dir NULL: the default. NULL only when cancelled. */
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

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwTargets, fw_targets_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwTargetKernel, fw_target_kernel_free)

G_END_DECLS
