/* fw-plan-private.h: what the planner's files share. Discovery proposes groups, estimate prices them, the
 * planner orchestrates and records refusals. */
#pragma once

#include "fw-plan.h"
#include "fw-decisions.h"
#include "fw-kernel-spec-private.h"
#include "graph/fw-graph-private.h"

G_BEGIN_DECLS

/* Group under construction (discovery) or final (estimates). */
typedef struct
{
  GPtrArray *nodes;     /* FwNode*, topological order */
  guint8    *member;    /* node index → 1 when in this group (graph-sized, shared scratch) */
  FwNode    *root;      /* out-fusable producer, or NULL */
  FwSpace    space;
} FwGroup;

gboolean      fw_node_runs            (const FwNode      *node);
FwOpClass     fw_node_class           (const FwNode      *node);
gboolean      fw_value_is_immediate   (const FwValue     *value);
FwShapeRole   fw_space_role           (const FwSpace     *space,
                                       const FwValue     *value);

/* The spec of a group as discovery left it (fw_kernel_spec_new). */
FwKernelSpec *fw_group_spec           (const FwGroup     *group,
                                       const FwProfile   *profile,
                                       gboolean           broadcast_rows);
/* Fills resource (tile, UB, queues, inputs) for the spec on the profile. FALSE when no tile fits; the
 * estimate still holds ub_min_bytes and the budget. */
gboolean      fw_estimate_resource    (const FwKernelSpec *spec,
                                       const FwProfile   *profile,
                                       FwResourceEstimate *out);
void          fw_estimate_cost        (const FwKernelSpec *spec,
                                       const FwProfile   *profile,
                                       FwCostEstimate    *out);
/* Gives the candidate the group's spec and prices it. */
void          fw_candidate_set_spec   (FwPlan            *plan,
                                       FwCandidate       *candidate,
                                       const FwGroup     *group);
/* Time of one node run as its own kernel. */
gdouble       fw_estimate_node_time   (const FwNode      *node,
                                       const FwProfile   *profile,
                                       gdouble           *bytes_read,
                                       gdouble           *bytes_written,
                                       gdouble           *flops);

/* Fills plan->regions and region_of: the main graph, then every If/Loop/Scan body (fw-plan-region.c). */
void          fw_plan_find_regions    (FwPlan            *plan);

/* Discovery (fw-discovery.c): appends candidates and refusals to plan. */
void          fw_discover             (FwPlan            *plan);
/* Discovery over the nodes a veto freed (GPtrArray of FwNode*); appends candidates. */
void          fw_discover_region      (FwPlan            *plan,
                                       GPtrArray         *freed);
/* Rules and the benefit check for a candidate discovery just made (fw-planner.c). */
void          fw_plan_settle          (FwPlan            *plan,
                                       FwCandidate       *candidate);
void          fw_plan_add_totals      (FwPlan            *plan);
/* SuperKernel decisions (fw-superkernel-decisions.c): whether d is one, and whether it may be logged now
 * (FW_ERROR_USAGE naming what is wrong). */
gboolean      fw_decision_is_superkernel (const FwDecision *d);
gboolean      fw_sk_decision_check    (const FwPlan      *plan,
                                       const FwDecision  *d,
                                       GError           **error);
/* Empties the plan and plans the model again, without decisions. */
void          fw_plan_rebuild         (FwPlan            *plan);
/* Records a refusal; nodes may be NULL. Takes the message. */
FwRefusal    *fw_plan_refuse          (FwPlan            *plan,
                                       FwReasonCode       code,
                                       guint              candidate,
                                       GPtrArray         *nodes,
                                       char              *message);
/* The same, naming the node that could not join the others (one of nodes). */
FwRefusal    *fw_plan_refuse_node     (FwPlan            *plan,
                                       FwReasonCode       code,
                                       guint              candidate,
                                       GPtrArray         *nodes,
                                       FwNode            *refused,
                                       char              *message);
void          fw_plan_debug           (FwPlan            *plan,
                                       const char        *format,
                                       ...) G_GNUC_PRINTF (2, 3);
char         *fw_format_bytes         (gdouble            bytes);

G_END_DECLS
