/* fw-discovery.c: class-based discovery of fusion groups (docs/design.md §5.1).
 *
 * Two passes, as CANN and XLA order them: first every compute-bound producer (MatMul, Gemm, Conv) grows
 * forward over its elementwise epilogue (bias, BatchNormalization, activations, residual adds); then a
 * backward scan from the graph's outputs, in reverse topological order, grows the remaining nodes into
 * elementwise chains, reduce epilogues and the insides of norms and softmaxes (TVM's FuseOps and Inductor's
 * scheduler grow the same shapes). Each extension that is refused leaves a record with its code, so a
 * missing fusion always has a reason.
 *
 * This file holds the state both passes share, the group under construction, the limits every extension
 * is checked against and the finished candidates; the passes live in fw-discovery-forward.c,
 * fw-discovery-backward.c and, for the aggressive strategy, fw-discovery-merge.c. */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-discovery-private.h"

/* Walks producers upwards from the nodes already on d->stack, never below topological position `floor`,
 * and says whether it reached `target`, or with target NULL any node of the current group. */
static gboolean
walk_up (Disc *d, guint floor, const FwNode *target)
{
  while (d->stack->len > 0)
    {
      FwNode *node = g_array_index (d->stack, FwNode *, d->stack->len - 1);
      g_array_set_size (d->stack, d->stack->len - 1);
      if (target != NULL ? node == target : is_member (d, node))
        return TRUE;
      if (node->topo_index < floor || d->visit[node->index] == d->generation)
        continue;
      d->visit[node->index] = d->generation;
      for (guint k = 0; k < node->n_inputs; k++)
        {
          FwValue *v = node->inputs[k];
          if (v != NULL && v->producer != NULL && v->graph == d->graph)
            g_array_append_val (d->stack, v->producer);
        }
    }
  return FALSE;
}

/* Does `from` depend on a node of the current group? The search stays between the group and `from`. */
gboolean
fw_disc_depends_on_group (Disc *d, FwNode *from)
{
  d->generation++;
  g_array_set_size (d->stack, 0);
  g_array_append_val (d->stack, from);
  return walk_up (d, d->min_topo, NULL);
}

/* Does a node of the current group depend on `target`? */
gboolean
fw_disc_group_depends_on (Disc *d, FwNode *target)
{
  d->generation++;
  g_array_set_size (d->stack, 0);
  for (guint i = 0; i < d->group.nodes->len; i++)
    {
      FwNode *m = g_ptr_array_index (d->group.nodes, i);
      if (m->topo_index > target->topo_index)
        g_array_append_val (d->stack, m);
    }
  return walk_up (d, target->topo_index, target);
}

static gint
compare_topo (gconstpointer a, gconstpointer b)
{
  const FwNode *x = *(FwNode * const *) a, *y = *(FwNode * const *) b;
  return x->topo_index < y->topo_index ? -1 : x->topo_index > y->topo_index;
}

void
fw_disc_group_reset (Disc *d)
{
  for (guint i = 0; i < d->group.nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (d->group.nodes, i);
      d->member[node->index] = 0;
    }
  g_ptr_array_set_size (d->group.nodes, 0);
  for (guint i = 0; i < d->rejected_list->len; i++)
    d->rejected[g_array_index (d->rejected_list, guint, i)] = 0;
  g_array_set_size (d->rejected_list, 0);
  d->group.root = NULL;
  memset (&d->group.space, 0, sizeof d->group.space);
  d->min_topo = G_MAXUINT;
}

void
fw_disc_mark_rejected (Disc *d, FwNode *node)
{
  if (!d->rejected[node->index])
    {
      d->rejected[node->index] = 1;
      g_array_append_val (d->rejected_list, node->index);
    }
}

void
fw_disc_group_add (Disc *d, FwNode *node)
{
  d->member[node->index] = 1;
  g_ptr_array_add (d->group.nodes, node);
  g_ptr_array_sort (d->group.nodes, compare_topo);
  d->min_topo = MIN (d->min_topo, node->topo_index);
}

void
fw_disc_group_remove_last (Disc *d, FwNode *node)
{
  d->member[node->index] = 0;
  g_ptr_array_remove (d->group.nodes, node);
  d->min_topo = G_MAXUINT;
  for (guint i = 0; i < d->group.nodes->len; i++)
    d->min_topo = MIN (d->min_topo, ((FwNode *) g_ptr_array_index (d->group.nodes, i))->topo_index);
}

/* Longest producer-to-consumer chain inside the group, in nodes. */
guint
fw_disc_group_depth (Disc *d)
{
  g_autofree guint *depth = g_new0 (guint, d->group.nodes->len);
  guint best = 0;

  for (guint i = 0; i < d->group.nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (d->group.nodes, i);
      guint mine = 1;
      for (guint k = 0; k < node->n_inputs; k++)
        {
          FwValue *v = node->inputs[k];
          guint pos;
          if (v && is_member (d, v->producer) && g_ptr_array_find (d->group.nodes, v->producer, &pos))
            mine = MAX (mine, depth[pos] + 1);
        }
      depth[i] = mine;
      best = MAX (best, mine);
    }
  return best;
}

void
fw_disc_space_from (FwSpace *space, const FwValue *value, gint row_axes)
{
  space->rank = MIN (value->rank, FW_MAX_RANK);
  for (gint i = 0; i < space->rank; i++)
    space->dims[i] = value->dims[i].value;
  space->row_axes = row_axes;
}

/* The rows discovery tiles a row operation by (fw_node_row_op_full): the trailing axes it reduces or
 * normalises, 0 when it is none or reduces every axis (a full reduction, not a row operation). `full_out`:
 * the output keeps the input's shape (Softmax, LayerNormalization). */
gint
fw_disc_row_axes_of (const FwNode *node, gboolean *full_out)
{
  FwRowOp op;
  FwValue *out = first_output (node);

  *full_out = FALSE;
  if (out == NULL || !fw_node_row_op_full (node, &op, NULL) || op.by_default)
    return 0;
  *full_out = op.full_out;
  return op.axes;
}

/* How input k of node maps onto the group's space. BatchNormalization's scale, bias, mean and variance are
 * per channel (axis 1), not numpy-broadcast, but stream like any small broadcast operand. */
FwShapeRole
fw_disc_input_role (Disc *d, const FwNode *node, guint k)
{
  const FwValue *v = node->inputs[k];

  if (k >= 1 && strcmp (node->op_type, "BatchNormalization") == 0 && node->domain[0] == '\0' &&
      v->rank == 1 && d->group.space.rank >= 2 && fw_value_is_static (v) &&
      v->dims[0].value == d->group.space.dims[1])
    return FW_SHAPE_SMALL;
  return fw_space_role (&d->group.space, v);
}

static GPtrArray *
nodes_plus (Disc *d, FwNode *extra)
{
  GPtrArray *nodes = g_ptr_array_new ();

  for (guint i = 0; i < d->group.nodes->len; i++)
    g_ptr_array_add (nodes, g_ptr_array_index (d->group.nodes, i));
  if (extra)
    g_ptr_array_add (nodes, extra);
  g_ptr_array_sort (nodes, compare_topo);
  return nodes;
}

void
fw_disc_refuse (Disc *d, FwReasonCode code, FwNode *node, const char *format, ...)
{
  va_list args;
  char *message;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  fw_disc_mark_rejected (d, node);
  fw_plan_refuse_node (d->plan, code, G_MAXUINT, nodes_plus (d, node), node, message);
}

gboolean
fw_disc_dtype_fits (Disc *d, FwNode *node, FwNode *neighbour)
{
  FwValue *a = first_output (node), *b = first_output (neighbour);

  if (a == NULL || b == NULL || a->dtype == b->dtype)
    return TRUE;
  /* An explicit Cast, a comparison feeding Where, or a boolean mask change types on purpose. */
  if (strcmp (node->op_type, "Cast") == 0 || strcmp (neighbour->op_type, "Cast") == 0 ||
      strcmp (neighbour->op_type, "Where") == 0 || strcmp (node->op_type, "Where") == 0 ||
      a->dtype == FW_DTYPE_BOOL || b->dtype == FW_DTYPE_BOOL)
    return TRUE;
  return FALSE;
}

gboolean
fw_disc_all_static (FwNode *node)
{
  for (guint k = 0; k < node->n_outputs; k++)
    if (node->outputs[k] && !fw_value_is_static (node->outputs[k]))
      return FALSE;
  return TRUE;
}

gboolean
fw_disc_group_indexed (Disc *d)
{
  for (guint i = 0; i < d->group.nodes->len; i++)
    if (fw_node_class (g_ptr_array_index (d->group.nodes, i)) == FW_OP_CLASS_INJECTIVE)
      return TRUE;
  return FALSE;
}

gboolean
fw_disc_injective_forward (const FwNode *node)
{
  static const char *const ops[] = { "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose" };

  if (node->domain[0] != '\0' || fw_node_class (node) != FW_OP_CLASS_INJECTIVE)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    if (strcmp (node->op_type, ops[i]) == 0)
      return TRUE;
  return FALSE;
}

/* Does the group hold every node of a vetoed set? */
gboolean
fw_disc_covers_vetoed (Disc *d)
{
  GPtrArray *vetoed = d->plan->vetoed;

  for (guint i = 0; vetoed && i < vetoed->len; i++)
    {
      GArray *set = g_ptr_array_index (vetoed, i);
      gboolean all = set->len > 0 && g_ptr_array_index (d->plan->vetoed_in, i) == d->graph;

      for (guint k = 0; all && k < set->len; k++)
        if (!d->member[g_array_index (set, guint, k)])
          all = FALSE;
      if (all)
        return TRUE;
    }
  return FALSE;
}

/* Prices the group as it stands: FALSE when no tile of it fits the Unified Buffer. The screen prices the
 * planner's own buffer plan, not a target's arrangement: arranging is generating the kernel's statements,
 * which at every growth step tripled the planning time of a 3,125-group chain (4.2 s to 12.9 s), and the
 * candidate is priced by the arrangement once it is made (FW-NF-009 there when it does not fit). */
gboolean
fw_disc_group_fits (Disc *d, FwResourceEstimate *res)
{
  g_autoptr(FwKernelSpec) spec = fw_group_spec (&d->group, d->plan->profile, TRUE);
  return fw_estimate_resource (spec, d->plan->profile, res);
}

/* Size, depth, inputs and UB after adding node (already in the group); refuses and removes it if over. */
gboolean
fw_disc_check_limits (Disc *d, FwNode *node)
{
  FwResourceEstimate res;
  FwProfile *profile = d->plan->profile;
  g_autoptr(FwKernelSpec) spec = NULL;
  gboolean fits;
  guint depth;

  if (fw_disc_covers_vetoed (d))
    {
      fw_disc_group_remove_last (d, node);
      fw_disc_refuse (d, FW_NF_VETOED, node, _("the group would hold every node of a vetoed fusion again"));
      return FALSE;
    }

  if (d->group.nodes->len > d->max_size)
    {
      fw_disc_group_remove_last (d, node);
      fw_disc_refuse (d, FW_NF_MAX_SIZE, node, _("the group would have %u nodes; the maximum fusion size is %u"),
              d->group.nodes->len + 1, d->max_size);
      return FALSE;
    }
  depth = fw_disc_group_depth (d);
  if (depth > d->max_depth)
    {
      fw_disc_group_remove_last (d, node);
      fw_disc_refuse (d, FW_NF_MAX_DEPTH, node, _("the chain would be %u nodes deep; the maximum depth is %u"), depth,
              d->max_depth);
      return FALSE;
    }
  /* One spec serves both screens: its index maps (when the group has injective members) and its tile. */
  spec = fw_group_spec (&d->group, d->plan->profile, TRUE);
  if (spec->map_error != NULL)
    {
      g_autofree char *why = g_strdup (spec->map_error);
      FwReasonCode code = spec->map_code;
      fw_disc_group_remove_last (d, node);
      fw_disc_refuse (d, code, node, "%s", why);
      return FALSE;
    }
  fits = fw_estimate_resource (spec, d->plan->profile, &res);
  if (!fits)
    {
      g_autofree char *need = fw_format_bytes (res.ub_min_bytes);
      g_autofree char *budget = fw_format_bytes (res.ub_budget_bytes);
      fw_disc_group_remove_last (d, node);
      fw_disc_refuse (d, FW_NF_UB, node,
              _("needs %s of UB for its smallest tile (%" PRId64 " elements, %u buffers), budget %s (%s)"),
              need, res.tile_elements, res.n_buffers, budget, profile->name);
      return FALSE;
    }
  if (res.kernel_inputs > profile->max_kernel_inputs)
    {
      guint n = res.kernel_inputs;
      fw_disc_group_remove_last (d, node);
      fw_disc_refuse (d, FW_NF_MAX_INPUTS, node, _("the kernel would read %u inputs; %s allows %u"), n, profile->name,
              profile->max_kernel_inputs);
      return FALSE;
    }
  return TRUE;
}

guint
fw_disc_row_ops_after_reduce (Disc *d)
{
  guint n = 0;

  if (d->group.space.row_axes == 0)
    return 0;
  for (guint i = 0; i < d->group.nodes->len; i++)
    {
      FwNode *m = g_ptr_array_index (d->group.nodes, i);
      FwValue *out = first_output (m);
      /* A Cast is not counted: it converts the row's value between the dtype in memory and the one it is
         computed in (a float32 island's Cast pair around a ReduceMean, convert-half.py --keep-float32). */
      if (fw_node_class (m) != FW_OP_CLASS_REDUCE && strcmp (m->op_type, "Cast") != 0 && out &&
          fw_space_role (&d->group.space, out) == FW_SHAPE_ROW)
        n++;
    }
  return n;
}

/* A value made inside the group and read both inside and outside would leave the kernel as a second
 * output: drop the latest members until none is left, unless multi-output is allowed. */
static void
trim_outside_uses (Disc *d)
{
  while (d->group.nodes->len >= 2)
    {
      const FwValue *bad = NULL;

      for (guint i = 0; i < d->group.nodes->len && bad == NULL; i++)
        {
          FwNode *m = g_ptr_array_index (d->group.nodes, i);
          for (guint k = 0; k < m->n_outputs && bad == NULL; k++)
            {
              FwValue *v = m->outputs[k];
              gboolean inside = FALSE, outside = v && v->is_output;
              for (guint u = 0; v && u < v->n_uses; u++)
                {
                  if (is_member (d, v->uses[u].node))
                    inside = TRUE;
                  /* A reader that does not run (a Shape folded at load) reads no element. */
                  else if (fw_node_runs (v->uses[u].node))
                    outside = TRUE;
                }
              if (inside && outside)
                bad = v;
            }
        }
      if (bad == NULL)
        return;
      {
        FwNode *last = g_ptr_array_index (d->group.nodes, d->group.nodes->len - 1);
        fw_disc_group_remove_last (d, last);
        fw_disc_refuse (d, FW_NF_OUTSIDE_USE, last,
                _("“%s” is also used outside the group; multi-output groups need the aggressive strategy"),
                bad->name);
      }
    }
}

void
fw_disc_finish_group (Disc *d, const char *kind)
{
  trim_outside_uses (d);
  if (d->group.nodes->len >= 2)
    fw_disc_add_candidate (d, kind);
  fw_disc_group_reset (d);
}

FwCandidate *
fw_disc_add_candidate (Disc *d, const char *kind)
{
  FwCandidate *c;

  c = g_new0 (FwCandidate, 1);
  c->nodes = g_ptr_array_copy (d->group.nodes, NULL, NULL);
  c->root = d->group.root;
  c->kind = g_strdup (kind);
  c->pattern = g_strdup (kind);
  c->depth = fw_disc_group_depth (d);
  c->body = d->region->path;
  fw_candidate_set_spec (d->plan, c, &d->group);
  c->index = d->plan->candidates->len;
  g_ptr_array_add (d->plan->candidates, c);
  g_array_append_val (d->spaces, d->group.space);
  for (guint i = 0; i < c->nodes->len; i++)
    d->group_of[((FwNode *) g_ptr_array_index (c->nodes, i))->index] = c->index + 1;
  fw_plan_debug (d->plan, "found %s: %u nodes from %s", kind, c->nodes->len,
                 ((FwNode *) g_ptr_array_index (c->nodes, 0))->name);
  return c;
}

/* A node that would have started a group but has a dynamic shape: one record, with the neighbour it would
 * have fused with, so an unbound model says why nothing fused. */
void
fw_disc_refuse_dynamic (Disc *d, FwNode *node, gboolean downstream)
{
  for (guint k = 0; k < (downstream ? node->n_outputs : node->n_inputs); k++)
    {
      FwValue *v = downstream ? node->outputs[k] : node->inputs[k];
      if (v == NULL)
        continue;
      for (guint u = 0; u < (downstream ? v->n_uses : 1); u++)
        {
          FwNode *other = downstream ? v->uses[u].node : v->producer;
          FwOpClass klass;
          if (other == NULL || other->graph != d->graph || is_taken (d, other) || !fw_node_runs (other))
            continue;
          klass = fw_node_class (other);
          if (klass != FW_OP_CLASS_ELEMENTWISE && klass != FW_OP_CLASS_BROADCAST)
            continue;
          fw_disc_group_add (d, node);
          {
            g_autofree char *shape = fw_value_format_shape (first_output (node));
            fw_disc_refuse (d, FW_NF_DYNAMIC, other, _("%s “%s” has the dynamic shape %s; bind its symbols with --bind"),
                    node->op_type, node->name, shape);
          }
          fw_disc_group_reset (d);
          return;
        }
    }
}

/* Why CANN's switches keep a node out of every group, or NULL (translated). */
static char *
excluded_why (const FwPlan *plan, const FwNode *node)
{
  const char *section = fw_node_skips_why (plan->options.skips, node);
  guint off = plan->options.disabled_passes;

  if (section != NULL)
    return g_strdup_printf (_("%s “%s” is listed under [%s] in %s (AUTOFUSE_DFX_FLAGS --skip_node_names_cfg)"),
                            node->op_type, node->name, section, fw_node_skips_get_file (plan->options.skips));
  if ((off & FW_PASS_REDUCE) && fw_node_class (node) == FW_OP_CLASS_REDUCE)
    return g_strdup_printf (_("%s “%s”: the reduce pass is off (AUTOFUSE_FLAGS --autofuse_disable_pass=reduce)"),
                            node->op_type, node->name);
  if ((off & FW_PASS_MATMUL) && (strcmp (node->op_type, "MatMul") == 0 || strcmp (node->op_type, "Gemm") == 0 ||
                                 strcmp (node->op_type, "MatMulInteger") == 0))
    return g_strdup_printf (_("%s “%s”: the matmul pass is off (AUTOFUSE_FLAGS --autofuse_disable_pass=matmul)"),
                            node->op_type, node->name);
  return NULL;
}

/* Marks the nodes CANN's switches keep out; `refuse`: record each once (a whole discovery, not a region
 * after a veto, which would record them again). */
static void
exclude_nodes (Disc *d, gboolean refuse)
{
  if (d->plan->options.skips == NULL && (d->plan->options.disabled_passes & (FW_PASS_REDUCE | FW_PASS_MATMUL)) == 0)
    return;
  d->excluded = g_new0 (guint8, MAX (d->n, 1));
  for (guint i = 0; i < d->n; i++)
    {
      FwNode *node = g_ptr_array_index (d->graph->nodes, i);
      char *why = fw_node_runs (node) ? excluded_why (d->plan, node) : NULL;

      if (why == NULL)
        continue;
      d->excluded[i] = 1;
      if (refuse)
        {
          GPtrArray *nodes = g_ptr_array_new ();
          g_ptr_array_add (nodes, node);
          fw_plan_refuse_node (d->plan, FW_NF_SKIPPED, G_MAXUINT, nodes, node, why);
        }
      else
        g_free (why);
    }
}

static void
disc_init (Disc *d, FwPlan *plan, const FwPlanRegion *region)
{
  FwGraph *graph = region->graph;

  memset (d, 0, sizeof *d);
  d->plan = plan;
  d->graph = graph;
  d->region = region;
  d->group_of = region->group_of;
  d->first = plan->candidates->len;
  d->n = graph->nodes->len;
  d->member = g_new0 (guint8, MAX (d->n, 1));
  d->rejected = g_new0 (guint8, MAX (d->n, 1));
  d->visit = g_new0 (guint, MAX (d->n, 1));
  d->rejected_list = g_array_new (FALSE, FALSE, sizeof (guint));
  d->stack = g_array_new (FALSE, FALSE, sizeof (FwNode *));
  d->group.nodes = g_ptr_array_new ();
  d->group.member = d->member;
  d->strategy = plan->options.strategy;
  d->max_size = plan->options.max_fusion_size;
  d->max_depth = plan->options.max_depth;
  d->spaces = g_array_new (FALSE, TRUE, sizeof (FwSpace));
  /* Aligned with candidate indices, for fw_disc_finish_group and the merge pass. */
  g_array_set_size (d->spaces, plan->candidates->len);
  d->horizontal = g_array_new (FALSE, TRUE, sizeof (gboolean));
  d->bridged = g_array_new (FALSE, TRUE, sizeof (gboolean));
  d->min_topo = G_MAXUINT;
}

static void
disc_clear (Disc *d)
{
  g_array_unref (d->spaces);
  g_array_unref (d->horizontal);
  g_array_unref (d->bridged);
  g_array_unref (d->rejected_list);
  g_ptr_array_unref (d->group.nodes);
  g_array_unref (d->stack);
  g_free (d->visit);
  g_free (d->rejected);
  g_free (d->excluded);
  g_free (d->member);
}

static gboolean
starts_backward (Disc *d, FwNode *node)
{
  FwOpClass klass = fw_node_class (node);

  FwReasonCode code;
  char *why = NULL;

  if (klass == FW_OP_CLASS_INJECTIVE && !is_taken (d, node) && fw_node_runs (node) &&
      d->strategy != FW_STRATEGY_CONSERVATIVE)
    {
      /* A chain of data movement ends in one strided copy. Only a bijection (a view, a transpose) ends one:
         a slice or gather at the end would take in part of what computes its operand (the tail of a
         LayerNorm before a class-token Gather) and split that group; it still joins its consumers' groups
         as a prologue. What a map cannot follow is refused when a producer tries to join. */
      gboolean follows = fw_disc_injective_forward (node) && fw_index_map_follows (node, &code, &why);
      g_free (why);
      return follows;
    }
  return !is_taken (d, node) && fw_node_runs (node) &&
         (klass == FW_OP_CLASS_ELEMENTWISE || klass == FW_OP_CLASS_BROADCAST || klass == FW_OP_CLASS_REDUCE);
}

/* One region: compute roots take their epilogues, then the backward scan, then (aggressive) the merges. */
static void
discover_in (FwPlan *plan, const FwPlanRegion *region)
{
  Disc d;
  guint n_order;
  FwNode **order = fw_graph_get_order (region->graph, &n_order);

  disc_init (&d, plan, region);
  exclude_nodes (&d, TRUE);
  /* Attention first: its two products would otherwise each start an epilogue. */
  for (guint i = 0; i < n_order; i++)
    {
      FwNode *node = order[i];
      if (fw_node_class (node) == FW_OP_CLASS_OUT_FUSABLE && fw_node_runs (node) && !is_taken (&d, node))
        fw_disc_grow_attention (&d, node);
    }
  for (guint i = 0; i < n_order; i++)
    {
      FwNode *node = order[i];
      if (fw_node_class (node) == FW_OP_CLASS_OUT_FUSABLE && fw_node_runs (node) && !is_taken (&d, node) &&
          !fw_disc_grow_qdq (&d, node))
        fw_disc_grow_epilogue (&d, node);
    }
  for (guint i = n_order; i > 0; i--)
    {
      FwNode *node = order[i - 1];
      if (starts_backward (&d, node))
        fw_disc_grow_backward (&d, node);
    }

  if (d.strategy == FW_STRATEGY_AGGRESSIVE)
    fw_disc_merge_groups (&d);
  disc_clear (&d);
}

/* The main graph first, then each body on its own (plan->regions' order), so a model without control
 * flow plans exactly as before. */
void
fw_discover (FwPlan *plan)
{
  for (guint r = 0; r < plan->regions->len; r++)
    discover_in (plan, g_ptr_array_index (plan->regions, r));
}

/* After a veto: only the freed nodes (all of one region) seed groups. Backward growth first, so the
 * elementwise tail of a vetoed epilogue can still fuse; then what is left of the compute roots takes its
 * epilogue. Candidates are appended; the merge pass does not run. */
void
fw_discover_region (FwPlan *plan, GPtrArray *freed)
{
  Disc d;
  g_autoptr(GPtrArray) order = g_ptr_array_copy (freed, NULL, NULL);
  const FwPlanRegion *region;

  if (!plan->options.enabled || order->len == 0)
    return;
  region = fw_plan_get_region (plan, ((FwNode *) g_ptr_array_index (order, 0))->graph);
  if (region == NULL)
    return;
  g_ptr_array_sort (order, compare_topo);
  disc_init (&d, plan, region);
  exclude_nodes (&d, FALSE);
  for (guint i = order->len; i > 0; i--)
    {
      FwNode *node = g_ptr_array_index (order, i - 1);
      if (starts_backward (&d, node))
        fw_disc_grow_backward (&d, node);
    }
  for (guint i = 0; i < order->len; i++)
    {
      FwNode *node = g_ptr_array_index (order, i);
      if (fw_node_class (node) == FW_OP_CLASS_OUT_FUSABLE && fw_node_runs (node) && !is_taken (&d, node) &&
          !fw_disc_grow_qdq (&d, node))
        fw_disc_grow_epilogue (&d, node);
    }
  disc_clear (&d);
}
