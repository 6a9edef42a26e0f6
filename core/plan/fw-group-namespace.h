/* fw-group-namespace.h: where a fused group is drawn as one box: a scope of its own, "fused_3_epilogue",
 * inside the scope all its nodes share. The window's fused view and the Model Explorer export name groups
 * so. */
#pragma once

#include "plan/fw-plan.h"

G_BEGIN_DECLS

/* "blocks.3/attn/fused_3_epilogue" for candidate 3 of plan. */
char       *fw_plan_group_namespace  (const FwPlan *plan,
                                      guint         candidate);
/* FwNode* → its group's namespace (owned strings) for every node of a proposed or accepted candidate:
 * FwLayoutOptions.scope_override for the fused view. */
GHashTable *fw_plan_group_namespaces (const FwPlan *plan);

G_END_DECLS
