/* fw-node-refusal.h: why one node is or is not fused: the proposed or accepted fusion holding it, or the
 * refusals that name it (code, title, the numbers, the candidate it would have joined), for the canvas's
 * tooltip and the inspector, as GE's coded pair messages say it. */
#pragma once

#include "plan/fw-plan.h"

G_BEGIN_DECLS

/* The proposed or accepted candidate holding node, or G_MAXUINT. */
guint      fw_plan_fused_candidate_of  (const FwPlan  *plan,
                                        const FwNode  *node);
/* The refusals naming node, in the order found (borrowed FwRefusal*); empty when none. */
GPtrArray *fw_plan_refusals_of_node    (const FwPlan  *plan,
                                        const FwNode  *node);
/* One line per refusal naming node (at most max, then how many more): "FW-NF-006 a dimension is dynamic and
 * not bound: … (candidate #3, epilogue)". NULL when node is fused or nothing names it. Translated. */
char      *fw_plan_describe_unfused    (const FwPlan  *plan,
                                        const FwNode  *node,
                                        guint          max);

G_END_DECLS
