/* fw-ascend-scopes.h: the Ascend SuperKernel of every scope of a SuperKernel plan, from the Ascend kernels a
 * targets build made (fw-ascend-superkernel.h; a fused group without one is a stand-in), for verification
 * on the twin and the kernel package. */
#pragma once

#include "codegen/ascend/fw-ascend-superkernel.h"
#include "codegen/fw-targets.h"

G_BEGIN_DECLS

/* FwAscendScope*, one per scope of sk, in its order; they borrow targets' kernels. Empty when targets has no
 * Ascend kernels enabled. */
GPtrArray *fw_ascend_scopes_generate (const FwTargets  *targets,
                                      const FwSkPlan   *sk,
                                      GError          **error);

G_END_DECLS
