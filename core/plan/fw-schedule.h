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
/* The same for one planned region (the main graph or a control-flow body, fw-plan.h): its groups only. */
GArray           *fw_schedule_build_in (FwPlan       *plan,
                                        FwGraph      *graph,
                                        const guint  *groups,
                                        guint         n_groups,
                                        GError      **error);
/* The fused candidates of plan's main graph, in candidate order, as fw_schedule_build takes them when given
 * NULL (a body's candidates run inside their If or Loop step: fw_schedule_fused_candidates_in). */
GArray           *fw_schedule_fused_candidates (FwPlan *plan);
GArray           *fw_schedule_fused_candidates_in (FwPlan        *plan,
                                                   const FwGraph *graph);

G_END_DECLS
