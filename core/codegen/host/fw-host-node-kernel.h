/* fw-host-node-kernel.h: host kernels for the single ops of the fused schedule (FwNodeKernel, fw-fused.h).
 *
 * An op outside every group runs on its reference kernel unless it has one of these: a Conv or a Gemm with
 * constant float32 weights as the oneDNN primitive a SuperKernel's root would be (its bias in the
 * primitive), a 2-D float32 MaxPool as a float loop, a GlobalAveragePool and a squeeze-excite gate (a Mul
 * of an activation by a computed [N, C, 1, 1]) as per-channel loops. The MaxPool, the last two and a Conv
 * whose primitive computes channels-last also run on channels-last arrays (FwGroupKernel.run_nhwc). The
 * reference kernels stay the simple, independent side of verification; each node kernel is checked
 * against its node's reference (fw_verify_run). */
#pragma once

#include "exec/fw-fused.h"
#include "plan/fw-plan.h"

G_BEGIN_DECLS

/* Node kernels for the main graph's ops that no group in group_kernels (FwGroupKernel*, or NULL) covers and
 * that one of these kernels takes. FwNodeKernel*, freed with the array; the plan must outlive them. */
GPtrArray   *fw_host_node_kernels_new    (FwPlan          *plan,
                                          GPtrArray       *group_kernels);
/* One node's kernel, or NULL with *why (newly allocated) when none takes it. */
FwNodeKernel *fw_host_node_kernel_new    (const FwNode    *node,
                                          char           **why);
void         fw_host_node_kernel_free    (FwNodeKernel    *kernel);

G_END_DECLS
