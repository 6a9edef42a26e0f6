/* fw-plan-diff.h: what changes between two plans of one model (two strategies, a session and the plan as
 * it is now): the fusions that appear, vanish or change. Fusions are the proposed and accepted candidates,
 * matched by their nodes' names, so plans of two loads of the model compare too. */
#pragma once

#include "plan/fw-plan.h"

G_BEGIN_DECLS

typedef enum {
  FW_PLAN_DIFF_SAME,      /* the same nodes fused in both */
  FW_PLAN_DIFF_ADDED,     /* only in b */
  FW_PLAN_DIFF_REMOVED,   /* only in a */
  FW_PLAN_DIFF_CHANGED,   /* a's fusion and b's share nodes but not all */
} FwPlanDiffKind;

typedef struct
{
  FwPlanDiffKind kind;
  guint          a;   /* candidate in a, G_MAXUINT for ADDED */
  guint          b;   /* candidate in b, G_MAXUINT for REMOVED; for CHANGED the first of b's it overlaps */
} FwPlanDiffEntry;

/* One entry per fusion of a (SAME, REMOVED or CHANGED), then one per fusion of b that overlaps none of a's
 * (ADDED); an array of FwPlanDiffEntry. */
GArray *fw_plan_diff          (const FwPlan *a,
                               const FwPlan *b);
/* Counts by kind, for a line such as "3 added, 1 removed, 2 changed, 40 the same". */
void    fw_plan_diff_count    (GArray       *diff,
                               guint         counts[4]);

G_END_DECLS
