/* fw-discovery-private.h: what the files of discovery share: the state of one discovery run, the group
 * under construction and its bookkeeping, the limits every extension is checked against, and the three
 * passes (fw-discovery-forward.c, fw-discovery-backward.c, fw-discovery-merge.c) that fw-discovery.c runs. */
#pragma once

#include "fw-plan-private.h"

G_BEGIN_DECLS

/* The state of one discovery run. */
typedef struct
{
  FwPlan     *plan;
  FwGraph    *graph;       /* the region planned (the main graph or a body) */
  const FwPlanRegion *region;
  guint      *group_of;    /* the region's: node index → candidate index + 1 */
  guint       first;       /* the first candidate this run made: the merge pass renumbers from here */
  guint       n;
  guint8     *member;      /* current group */
  guint8     *rejected;    /* refused for the current group */
  guint8     *excluded;    /* kept out of every group (a disabled pass, a skipped node), or NULL */
  GArray     *rejected_list; /* their indices, so a reset costs what the group touched, not the graph */
  guint      *visit;       /* DFS marks, by generation */
  guint       generation;
  GArray     *stack;
  guint       max_size;
  guint       max_depth;
  FwStrategy  strategy;
  FwGroup     group;
  guint       min_topo;    /* smallest topological index in the group */
  GArray     *spaces;      /* FwSpace per candidate, for the merge pass */
  GArray     *horizontal;  /* gboolean per candidate: it took in a sibling group */
  GArray     *bridged;     /* gboolean per candidate: it took in a reshape-like view */
} Disc;

static inline gboolean
is_member (Disc *d, const FwNode *node)
{
  return node != NULL && node->graph == d->graph && d->member[node->index];
}

/* A node of another region (an outer value's producer) is never the region's to take. */
static inline gboolean
is_taken (Disc *d, const FwNode *node)
{
  return node->graph != d->graph || d->group_of[node->index] != 0 ||
         (d->excluded != NULL && d->excluded[node->index]);
}

static inline FwValue *
first_output (const FwNode *node)
{
  for (guint k = 0; k < node->n_outputs; k++)
    if (node->outputs[k] != NULL)
      return node->outputs[k];
  return NULL;
}

static inline FwValue *
first_input (const FwNode *node)
{
  return node->n_inputs > 0 ? node->inputs[0] : NULL;
}

/* Group bookkeeping (fw-discovery.c). */
gboolean     fw_disc_depends_on_group     (Disc           *d,
                                           FwNode         *from);
gboolean     fw_disc_group_depends_on     (Disc           *d,
                                           FwNode         *target);
void         fw_disc_group_reset          (Disc           *d);
void         fw_disc_mark_rejected        (Disc           *d,
                                           FwNode         *node);
void         fw_disc_group_add            (Disc           *d,
                                           FwNode         *node);
void         fw_disc_group_remove_last    (Disc           *d,
                                           FwNode         *node);
guint        fw_disc_group_depth          (Disc           *d);
void         fw_disc_space_from           (FwSpace        *space,
                                           const FwValue  *value,
                                           gint            row_axes);
gint         fw_disc_row_axes_of          (const FwNode   *node,
                                           gboolean       *full_out);
FwShapeRole  fw_disc_input_role           (Disc           *d,
                                           const FwNode   *node,
                                           guint           k);
gboolean     fw_disc_dtype_fits           (Disc           *d,
                                           FwNode         *node,
                                           FwNode         *neighbour);
gboolean     fw_disc_all_static           (FwNode         *node);
/* Whether the group holds an injective member, whose values map onto the space by index maps. */
gboolean     fw_disc_group_indexed        (Disc           *d);
/* Whether an injective node may join a group reached from its operand (a reshape-like view or a
 * transpose: a bijection, so the group's result can be written through it). */
gboolean     fw_disc_injective_forward    (const FwNode   *node);

/* Refusals and limits (fw-discovery.c). */
void         fw_disc_refuse               (Disc           *d,
                                           FwReasonCode    code,
                                           FwNode         *node,
                                           const char     *format,
                                           ...) G_GNUC_PRINTF (4, 5);
void         fw_disc_refuse_dynamic       (Disc           *d,
                                           FwNode         *node,
                                           gboolean        downstream);
gboolean     fw_disc_covers_vetoed        (Disc           *d);
gboolean     fw_disc_group_fits           (Disc           *d,
                                           FwResourceEstimate *res);
gboolean     fw_disc_check_limits         (Disc           *d,
                                           FwNode         *node);
guint        fw_disc_row_ops_after_reduce (Disc           *d);
void         fw_disc_finish_group         (Disc           *d,
                                           const char     *kind);
/* The group as it stands as a new candidate of kind, its nodes marked as taken (no trimming, no reset). */
FwCandidate *fw_disc_add_candidate        (Disc           *d,
                                           const char     *kind);

/* The passes. */
void         fw_disc_grow_attention       (Disc           *d,
                                           FwNode         *scores);
void         fw_disc_grow_epilogue        (Disc           *d,
                                           FwNode         *root);
void         fw_disc_grow_backward        (Disc           *d,
                                           FwNode         *sink);
void         fw_disc_merge_groups         (Disc           *d);
/* The aggressive strategy's horizontal GEMMs (fw-discovery-horizontal.c), before the merges: TRUE when a
 * group was made (the projections' own candidates are left empty for the merge pass to drop). */
gboolean     fw_disc_grow_horizontal_gemms (Disc          *d);
/* Integer groups (fw-discovery-qdq.c): FALSE when root is not one (the float epilogue pass takes it). */
gboolean     fw_disc_grow_qdq             (Disc           *d,
                                           FwNode         *root);

G_END_DECLS
