/* fw-schedule.h: the order kernels run in once groups are fused: the graph with each group contracted to one
 * step, in a topological order kept as close to the file's order as the contraction allows. The fused
 * executor runs its steps in this order and the SuperKernel scopes are runs of it; both read it here. */
#pragma once

#include "plan/fw-plan.h"

G_BEGIN_DECLS

typedef struct
{
  FwNode *node;   /* a node that runs on its own, or NULL */
  guint   group;  /* for a group: its index in the groups given to fw_schedule_build; G_MAXUINT for a node */
} FwScheduleStep;

/* groups: candidate indices, each a group contracted to one step (NULL with n_groups 0: every fused
 * candidate of the plan, in candidate order). Every node outside them is a step of its own. A node in two
 * groups, a candidate out of range or a contraction that makes a cycle is an FW_ERROR_INTERNAL error. */
GArray           *fw_schedule_build (FwPlan       *plan,
                                     const guint  *groups,
                                     guint         n_groups,
                                     GError      **error);
/* The fused candidates of plan, in candidate order, as fw_schedule_build takes them when given NULL. */
GArray           *fw_schedule_fused_candidates (FwPlan *plan);

G_END_DECLS
