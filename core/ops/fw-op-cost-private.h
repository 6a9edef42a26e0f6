/* fw-op-cost-private.h: the cost functions the registry's rows point at (fw-op-cost.c). */
#pragma once

#include "ops/fw-op-registry.h"

G_BEGIN_DECLS

/* Bytes of a value with a static shape; -1 otherwise. */
gdouble  fw_cost_value_bytes     (const FwValue *value);
gboolean fw_cost_elementwise     (const FwNode *node, FwOpCost *cost);
gboolean fw_cost_movement        (const FwNode *node, FwOpCost *cost);
gboolean fw_cost_matmul          (const FwNode *node, FwOpCost *cost);
gboolean fw_cost_gemm            (const FwNode *node, FwOpCost *cost);
gboolean fw_cost_conv            (const FwNode *node, FwOpCost *cost);
gboolean fw_cost_conv_transpose  (const FwNode *node, FwOpCost *cost);
gboolean fw_cost_qlinear_conv    (const FwNode *node, FwOpCost *cost);
gboolean fw_cost_reduce          (const FwNode *node, FwOpCost *cost);
gboolean fw_cost_softmax         (const FwNode *node, FwOpCost *cost);
gboolean fw_cost_norm            (const FwNode *node, FwOpCost *cost);
gboolean fw_cost_batch_norm      (const FwNode *node, FwOpCost *cost);
gboolean fw_cost_pool            (const FwNode *node, FwOpCost *cost);

G_END_DECLS
