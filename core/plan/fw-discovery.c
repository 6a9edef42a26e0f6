/* fw-discovery.c: class-based discovery of fusion groups (docs/design.md §5.1).
 *
 * Two passes, as CANN and XLA order them: first every compute-bound producer (MatMul, Gemm, Conv) grows
 * forward over its elementwise epilogue (bias, BatchNormalization, activations, residual adds); then a
 * backward scan from the graph's outputs, in reverse topological order, grows the remaining nodes into
 * elementwise chains, reduce epilogues and the insides of norms and softmaxes (TVM's FuseOps and Inductor's
 * scheduler grow the same shapes). Each extension that is refused leaves a record with its code, so a
 * missing fusion always has a reason. */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-plan-private.h"
#include "ops/fw-op-registry.h"

typedef struct
{
  FwPlan     *plan;
  FwGraph    *graph;
  guint       n;
  guint8     *member;      /* current group */
  guint8     *rejected;    /* refused for the current group */
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

static gboolean
is_member (Disc *d, const FwNode *node)
{
  return node != NULL && node->graph == d->graph && d->member[node->index];
}

static gboolean
is_taken (Disc *d, const FwNode *node)
{
  return d->plan->group_of[node->index] != 0;
}

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
static gboolean
depends_on_group (Disc *d, FwNode *from)
{
  d->generation++;
  g_array_set_size (d->stack, 0);
  g_array_append_val (d->stack, from);
  return walk_up (d, d->min_topo, NULL);
}

/* Does a node of the current group depend on `target`? */
static gboolean
group_depends_on (Disc *d, FwNode *target)
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

static void
group_reset (Disc *d)
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

static void
mark_rejected (Disc *d, FwNode *node)
{
  if (!d->rejected[node->index])
    {
      d->rejected[node->index] = 1;
      g_array_append_val (d->rejected_list, node->index);
    }
}

static void
group_add (Disc *d, FwNode *node)
{
  d->member[node->index] = 1;
  g_ptr_array_add (d->group.nodes, node);
  g_ptr_array_sort (d->group.nodes, compare_topo);
  d->min_topo = MIN (d->min_topo, node->topo_index);
}

static void
group_remove_last (Disc *d, FwNode *node)
{
  d->member[node->index] = 0;
  g_ptr_array_remove (d->group.nodes, node);
  d->min_topo = G_MAXUINT;
  for (guint i = 0; i < d->group.nodes->len; i++)
    d->min_topo = MIN (d->min_topo, ((FwNode *) g_ptr_array_index (d->group.nodes, i))->topo_index);
}

/* Longest producer-to-consumer chain inside the group, in nodes. */
static guint
group_depth (Disc *d)
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

static void
space_from (FwSpace *space, const FwValue *value, gint row_axes)
{
  space->rank = MIN (value->rank, FW_MAX_RANK);
  for (gint i = 0; i < space->rank; i++)
    space->dims[i] = value->dims[i].value;
  space->row_axes = row_axes;
}

static FwValue *
first_output (const FwNode *node)
{
  for (guint k = 0; k < node->n_outputs; k++)
    if (node->outputs[k] != NULL)
      return node->outputs[k];
  return NULL;
}

static FwValue *
first_input (const FwNode *node)
{
  return node->n_inputs > 0 ? node->inputs[0] : NULL;
}

/* The rows discovery tiles a row operation by (fw_node_row_op_full): the trailing axes it reduces or
 * normalises, 0 when it is none or reduces every axis (a full reduction, not a row operation). `full_out`:
 * the output keeps the input's shape (Softmax, LayerNormalization). */
static gint
row_axes_of (const FwNode *node, gboolean *full_out)
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
static FwShapeRole
input_role (Disc *d, const FwNode *node, guint k)
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

G_GNUC_PRINTF (4, 5) static void
refuse (Disc *d, FwReasonCode code, FwNode *node, const char *format, ...)
{
  va_list args;
  char *message;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  mark_rejected (d, node);
  fw_plan_refuse (d->plan, code, G_MAXUINT, nodes_plus (d, node), message);
}

static gboolean
dtype_fits (Disc *d, FwNode *node, FwNode *neighbour)
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

static gboolean
all_static (FwNode *node)
{
  for (guint k = 0; k < node->n_outputs; k++)
    if (node->outputs[k] && !fw_value_is_static (node->outputs[k]))
      return FALSE;
  return TRUE;
}

/* Does the group hold every node of a vetoed set? */
static gboolean
covers_vetoed (Disc *d)
{
  GPtrArray *vetoed = d->plan->vetoed;

  for (guint i = 0; vetoed && i < vetoed->len; i++)
    {
      GArray *set = g_ptr_array_index (vetoed, i);
      gboolean all = set->len > 0;

      for (guint k = 0; all && k < set->len; k++)
        if (!d->member[g_array_index (set, guint, k)])
          all = FALSE;
      if (all)
        return TRUE;
    }
  return FALSE;
}

/* Prices the group as it stands: FALSE when no tile of it fits the Unified Buffer. */
static gboolean
group_fits (Disc *d, FwResourceEstimate *res)
{
  g_autoptr(FwKernelSpec) spec = fw_group_spec (&d->group, d->plan->profile);
  return fw_estimate_resource (spec, d->plan->profile, res);
}

/* Size, depth, inputs and UB after adding node (already in the group); refuses and removes it if over. */
static gboolean
check_limits (Disc *d, FwNode *node)
{
  FwResourceEstimate res;
  FwProfile *profile = d->plan->profile;
  gboolean fits;
  guint depth;

  if (covers_vetoed (d))
    {
      group_remove_last (d, node);
      refuse (d, FW_NF_VETOED, node, _("the group would hold every node of a vetoed fusion again"));
      return FALSE;
    }

  if (d->group.nodes->len > d->max_size)
    {
      group_remove_last (d, node);
      refuse (d, FW_NF_MAX_SIZE, node, _("the group would have %u nodes; the maximum fusion size is %u"),
              d->group.nodes->len + 1, d->max_size);
      return FALSE;
    }
  depth = group_depth (d);
  if (depth > d->max_depth)
    {
      group_remove_last (d, node);
      refuse (d, FW_NF_MAX_DEPTH, node, _("the chain would be %u nodes deep; the maximum depth is %u"), depth,
              d->max_depth);
      return FALSE;
    }
  fits = group_fits (d, &res);
  if (!fits)
    {
      g_autofree char *need = fw_format_bytes (res.ub_min_bytes);
      g_autofree char *budget = fw_format_bytes (res.ub_budget_bytes);
      group_remove_last (d, node);
      refuse (d, FW_NF_UB, node,
              _("needs %s of UB for its smallest tile (%" PRId64 " elements, %u buffers), budget %s (%s)"),
              need, res.tile_elements, res.n_buffers, budget, profile->name);
      return FALSE;
    }
  if (res.kernel_inputs > profile->max_kernel_inputs)
    {
      guint n = res.kernel_inputs;
      group_remove_last (d, node);
      refuse (d, FW_NF_MAX_INPUTS, node, _("the kernel would read %u inputs; %s allows %u"), n, profile->name,
              profile->max_kernel_inputs);
      return FALSE;
    }
  return TRUE;
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
                  else
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
        group_remove_last (d, last);
        refuse (d, FW_NF_OUTSIDE_USE, last,
                _("“%s” is also used outside the group; multi-output groups need the aggressive strategy"),
                bad->name);
      }
    }
}

static void
finish_group (Disc *d, const char *kind)
{
  FwCandidate *c;

  trim_outside_uses (d);
  if (d->group.nodes->len < 2)
    {
      group_reset (d);
      return;
    }
  c = g_new0 (FwCandidate, 1);
  c->nodes = g_ptr_array_copy (d->group.nodes, NULL, NULL);
  c->root = d->group.root;
  c->kind = g_strdup (kind);
  c->pattern = g_strdup (kind);
  c->depth = group_depth (d);
  fw_candidate_set_spec (c, &d->group, d->plan->profile);
  c->index = d->plan->candidates->len;
  g_ptr_array_add (d->plan->candidates, c);
  g_array_append_val (d->spaces, d->group.space);
  for (guint i = 0; i < c->nodes->len; i++)
    d->plan->group_of[((FwNode *) g_ptr_array_index (c->nodes, i))->index] = c->index + 1;
  fw_plan_debug (d->plan, "found %s: %u nodes from %s", kind, c->nodes->len,
                 ((FwNode *) g_ptr_array_index (c->nodes, 0))->name);
  group_reset (d);
}

/* ---- pass 1: compute epilogues ---- */

static gboolean
try_epilogue_node (Disc *d, FwNode *c)
{
  FwOpClass klass = fw_node_class (c);
  FwValue *out = first_output (c);
  gboolean row_full = FALSE;
  gint row_axes = 0;

  if (!fw_node_runs (c) || is_taken (d, c))
    return FALSE;
  if (klass == FW_OP_CLASS_OPAQUE)
    {
      refuse (d, FW_NF_OPAQUE, c, _("%s “%s” is opaque to fusion"), c->op_type, c->name);
      return FALSE;
    }
  if (klass == FW_OP_CLASS_OUT_FUSABLE)
    return FALSE;  /* the next compute-bound node starts its own group */
  if (klass == FW_OP_CLASS_REDUCE || klass == FW_OP_CLASS_INJECTIVE)
    {
      row_axes = klass == FW_OP_CLASS_REDUCE ? row_axes_of (c, &row_full) : 0;
      if (row_full && row_axes == 1 && strcmp (c->op_type, "Softmax") == 0)
        {
          if (d->strategy != FW_STRATEGY_AGGRESSIVE)
            {
              refuse (d, FW_NF_STRATEGY, c, _("attention scores (%s → … → Softmax) fuse only under the aggressive strategy"),
                      d->group.root->op_type);
              return FALSE;
            }
        }
      else
        {
          refuse (d, FW_NF_ITERATION_SPACE, c, _("a %s epilogue takes elementwise operators only; %s “%s” is %s"),
                  d->group.root->op_type, c->op_type, c->name, fw_op_class_name (klass));
          return FALSE;
        }
    }
  if (!all_static (c))
    {
      refuse (d, FW_NF_DYNAMIC, c, _("%s “%s” has a dynamic shape; bind its symbols with --bind"), c->op_type, c->name);
      return FALSE;
    }
  if (out == NULL || fw_space_role (&d->group.space, out) != FW_SHAPE_FULL)
    {
      g_autofree char *shape = out ? fw_value_format_shape (out) : g_strdup ("?");
      refuse (d, FW_NF_ITERATION_SPACE, c, _("%s “%s” produces %s, not the epilogue's iteration space"), c->op_type,
              c->name, shape);
      return FALSE;
    }
  /* Outside inputs first: a cycle is the more fundamental reason. */
  for (guint k = 0; k < c->n_inputs; k++)
    {
      FwValue *v = c->inputs[k];
      if (v == NULL || fw_value_is_immediate (v) || is_member (d, v->producer))
        continue;
      if (v->producer != NULL && depends_on_group (d, v->producer))
        {
          refuse (d, FW_NF_CYCLE, c, _("%s “%s” also reads “%s”, which depends on the group"), c->op_type, c->name,
                  v->name);
          return FALSE;
        }
      if (input_role (d, c, k) == FW_SHAPE_OTHER)
        {
          g_autofree char *shape = fw_value_format_shape (v);
          refuse (d, FW_NF_ITERATION_SPACE, c, _("input “%s” %s does not broadcast into the epilogue's space"),
                  v->name, shape);
          return FALSE;
        }
    }
  /* A group value with consumers outside the group would have to stay an output. Its other consumers may
   * still join (the diamond inside GELU): only those that cannot, not being elementwise, count. */
  for (guint k = 0; k < c->n_inputs; k++)
    {
      FwValue *v = c->inputs[k];
      gboolean outside;

      if (v == NULL || !is_member (d, v->producer))
        continue;
      outside = v->is_output;
      for (guint u = 0; u < v->n_uses; u++)
        {
          FwNode *x = v->uses[u].node;
          FwOpClass oc = fw_node_class (x);
          if (x == c || is_member (d, x))
            continue;
          if (!((oc == FW_OP_CLASS_ELEMENTWISE || oc == FW_OP_CLASS_BROADCAST) && !is_taken (d, x) && fw_node_runs (x)))
            outside = TRUE;
        }
      if (outside)
        {
          refuse (d, FW_NF_OUTSIDE_USE, c,
                  _("“%s” is also used outside the group; multi-output groups need the aggressive strategy"), v->name);
          return FALSE;
        }
    }
  if (!dtype_fits (d, c, d->group.root))
    {
      refuse (d, FW_NF_DTYPE, c, _("%s “%s” computes in %s, the group in %s, with no Cast"), c->op_type, c->name,
              fw_dtype_name (out->dtype), fw_dtype_name (first_output (d->group.root)->dtype));
      return FALSE;
    }
  group_add (d, c);
  if (row_axes > 0)
    d->group.space.row_axes = row_axes;
  if (!check_limits (d, c))
    {
      if (row_axes > 0)
        d->group.space.row_axes = 0;
      return FALSE;
    }
  fw_plan_debug (d->plan, "  epilogue of %s takes %s %s", d->group.root->name, c->op_type, c->name);
  return TRUE;
}

/* A node that would have started a group but has a dynamic shape: one record, with the neighbour it would
 * have fused with, so an unbound model says why nothing fused. */
static void
refuse_dynamic (Disc *d, FwNode *node, gboolean downstream)
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
          group_add (d, node);
          {
            g_autofree char *shape = fw_value_format_shape (first_output (node));
            refuse (d, FW_NF_DYNAMIC, other, _("%s “%s” has the dynamic shape %s; bind its symbols with --bind"),
                    node->op_type, node->name, shape);
          }
          group_reset (d);
          return;
        }
    }
}

static void
grow_epilogue (Disc *d, FwNode *root)
{
  FwValue *out = first_output (root);
  g_autoptr(GPtrArray) frontier = g_ptr_array_new ();

  group_reset (d);
  if (out == NULL)
    return;
  if (!fw_value_is_static (out))
    {
      refuse_dynamic (d, root, TRUE);
      return;
    }
  d->group.root = root;
  space_from (&d->group.space, out, 0);
  group_add (d, root);
  for (;;)
    {
      FwNode *next = NULL;

      /* The frontier: consumers of group values, taken in topological order so a node's producers inside the
         group are always added before it. */
      g_ptr_array_set_size (frontier, 0);
      for (guint i = 0; i < d->group.nodes->len; i++)
        {
          FwNode *m = g_ptr_array_index (d->group.nodes, i);
          for (guint k = 0; k < m->n_outputs; k++)
            {
              FwValue *v = m->outputs[k];
              for (guint u = 0; v && u < v->n_uses; u++)
                {
                  FwNode *c = v->uses[u].node;
                  if (c->graph == d->graph && !is_member (d, c) && !d->rejected[c->index] &&
                      (next == NULL || c->topo_index < next->topo_index))
                    next = c;
                }
            }
        }
      if (next == NULL)
        break;
      if (!try_epilogue_node (d, next))
        mark_rejected (d, next);
    }
  finish_group (d, "epilogue");
}

/* ---- pass 2: backward from the outputs ---- */

static gboolean
fits_space (Disc *d, FwNode *p, FwReasonCode *code, char **why)
{
  FwValue *out = first_output (p);
  gboolean full_out = FALSE;
  gint rows = fw_node_class (p) == FW_OP_CLASS_REDUCE ? row_axes_of (p, &full_out) : 0;
  FwShapeRole role;

  if (out == NULL)
    return FALSE;
  if (fw_node_class (p) == FW_OP_CLASS_REDUCE)
    {
      FwValue *in = first_input (p);
      FwSpace upgraded;

      if (rows == 0 || in == NULL || !fw_value_is_static (in))
        {
          *code = FW_NF_ITERATION_SPACE;
          *why = g_strdup_printf (_("%s “%s” does not reduce over trailing axes, so rows cannot be tiled"), p->op_type,
                                  p->name);
          return FALSE;
        }
      if (d->group.space.row_axes > 0 && rows != d->group.space.row_axes)
        {
          *code = FW_NF_ITERATION_SPACE;
          *why = g_strdup_printf (_("%s “%s” reduces %d trailing axes, the group %d"), p->op_type, p->name, rows,
                                  d->group.space.row_axes);
          return FALSE;
        }
      if (full_out)
        {
          role = fw_space_role (&d->group.space, out);
          if (role == FW_SHAPE_FULL && d->group.space.row_axes == 0)
            d->group.space.row_axes = rows;
        }
      else
        {
          /* The reduction's input becomes the group's space when so far the group only saw its result. */
          space_from (&upgraded, in, rows);
          if (fw_space_role (&upgraded, out) != FW_SHAPE_ROW)
            role = FW_SHAPE_OTHER;
          else if (d->group.space.row_axes == 0)
            {
              for (guint i = 0; i < d->group.nodes->len; i++)
                {
                  FwValue *mo = first_output (g_ptr_array_index (d->group.nodes, i));
                  FwShapeRole r = mo ? fw_space_role (&upgraded, mo) : FW_SHAPE_OTHER;
                  if (r != FW_SHAPE_FULL && r != FW_SHAPE_ROW && r != FW_SHAPE_SMALL)
                    {
                      *code = FW_NF_ITERATION_SPACE;
                      *why = g_strdup_printf (_("the group's values do not map onto the rows of %s “%s”"),
                                              p->op_type, p->name);
                      return FALSE;
                    }
                }
              d->group.space = upgraded;
              return TRUE;
            }
          else
            role = fw_space_role (&d->group.space, in) == FW_SHAPE_FULL ? FW_SHAPE_ROW : FW_SHAPE_OTHER;
        }
    }
  else
    role = fw_space_role (&d->group.space, out);
  if (role == FW_SHAPE_OTHER)
    {
      g_autofree char *shape = fw_value_format_shape (out);
      *code = FW_NF_ITERATION_SPACE;
      *why = g_strdup_printf (_("%s “%s” produces %s, which does not map onto the group's iteration space"),
                              p->op_type, p->name, shape);
      return FALSE;
    }
  if (role == FW_SHAPE_SMALL)
    {
      /* A small broadcast operand is recomputed per tile (squeeze-excite scales): only when everything it
         reads is small too. */
      for (guint k = 0; k < p->n_inputs; k++)
        {
          FwValue *v = p->inputs[k];
          if (v && !fw_value_is_immediate (v) && input_role (d, p, k) != FW_SHAPE_SMALL)
            {
              *code = FW_NF_ITERATION_SPACE;
              *why = g_strdup_printf (_("%s “%s” would be recomputed per tile from a large input"), p->op_type, p->name);
              return FALSE;
            }
        }
    }
  return TRUE;
}

static guint
row_ops_after_reduce (Disc *d)
{
  guint n = 0;

  if (d->group.space.row_axes == 0)
    return 0;
  for (guint i = 0; i < d->group.nodes->len; i++)
    {
      FwNode *m = g_ptr_array_index (d->group.nodes, i);
      FwValue *out = first_output (m);
      if (fw_node_class (m) != FW_OP_CLASS_REDUCE && out && fw_space_role (&d->group.space, out) == FW_SHAPE_ROW)
        n++;
    }
  return n;
}

static gboolean
try_producer (Disc *d, FwNode *p, FwNode *consumer)
{
  FwOpClass klass = fw_node_class (p);
  FwReasonCode code = FW_NF_ITERATION_SPACE;
  g_autofree char *why = NULL;
  FwSpace saved = d->group.space;

  if (!fw_node_runs (p) || is_taken (d, p))
    return FALSE;
  switch (klass)
    {
    case FW_OP_CLASS_ELEMENTWISE:
    case FW_OP_CLASS_BROADCAST:
      break;
    case FW_OP_CLASS_REDUCE:
      if (d->strategy == FW_STRATEGY_CONSERVATIVE)
        {
          refuse (d, FW_NF_STRATEGY, p, _("%s “%s” is a reduction; reductions fuse from the balanced strategy on"),
                  p->op_type, p->name);
          return FALSE;
        }
      break;
    case FW_OP_CLASS_OUT_FUSABLE:
      return FALSE;  /* its epilogue was settled in the first pass */
    case FW_OP_CLASS_INJECTIVE:
      refuse (d, FW_NF_ITERATION_SPACE, p, _("%s “%s” moves data between layouts; the group's loops cannot follow it"),
              p->op_type, p->name);
      return FALSE;
    case FW_OP_CLASS_OPAQUE:
    default:
      refuse (d, FW_NF_OPAQUE, p, _("%s “%s” is opaque to fusion"), p->op_type, p->name);
      return FALSE;
    }
  if (!all_static (p))
    {
      refuse (d, FW_NF_DYNAMIC, p, _("%s “%s” has a dynamic shape; bind its symbols with --bind"), p->op_type, p->name);
      return FALSE;
    }
  /* Every consumer must be inside, or the value leaves the kernel as a second output. */
  for (guint k = 0; k < p->n_outputs; k++)
    {
      FwValue *v = p->outputs[k];
      if (v == NULL)
        continue;
      for (guint u = 0; u < v->n_uses; u++)
        {
          FwNode *x = v->uses[u].node;
          if (is_member (d, x))
            continue;
          refuse (d, FW_NF_OUTSIDE_USE, p,
                  _("“%s” is also read by %s “%s” outside the group; multi-output groups need the aggressive strategy"),
                  v->name, x->op_type, x->name);
          return FALSE;
        }
    }
  if (!fits_space (d, p, &code, &why))
    {
      d->group.space = saved;
      refuse (d, code, p, "%s", why);
      return FALSE;
    }
  if (!dtype_fits (d, p, consumer))
    {
      d->group.space = saved;
      refuse (d, FW_NF_DTYPE, p, _("%s “%s” computes in %s, its consumer %s in %s, with no Cast"), p->op_type, p->name,
              fw_dtype_name (first_output (p)->dtype), consumer->name, fw_dtype_name (first_output (consumer)->dtype));
      return FALSE;
    }
  group_add (d, p);
  if (row_ops_after_reduce (d) > 3)
    {
      group_remove_last (d, p);
      d->group.space = saved;
      refuse (d, FW_NF_REDUCE_EPILOGUE, p,
              _("%u elementwise operators would follow the reduction; at most 3 may (as CANN allows)"), 4u);
      return FALSE;
    }
  if (!check_limits (d, p))
    {
      d->group.space = saved;
      return FALSE;
    }
  return TRUE;
}

static const char *
kind_of_group (Disc *d)
{
  gboolean reduce = FALSE, full_after = FALSE;

  for (guint i = 0; i < d->group.nodes->len; i++)
    if (fw_node_class (g_ptr_array_index (d->group.nodes, i)) == FW_OP_CLASS_REDUCE)
      reduce = TRUE;
  if (!reduce)
    return "elementwise_chain";
  /* Norm and softmax insides broadcast the reduced rows back over the full rows. */
  for (guint i = 0; i < d->group.nodes->len; i++)
    {
      FwNode *m = g_ptr_array_index (d->group.nodes, i);
      FwValue *out = first_output (m);
      if (fw_node_class (m) != FW_OP_CLASS_REDUCE && out && fw_space_role (&d->group.space, out) == FW_SHAPE_FULL)
        full_after = TRUE;
    }
  return full_after ? "reduce_broadcast" : "reduce_epilogue";
}

static void
grow_backward (Disc *d, FwNode *sink)
{
  FwValue *out = first_output (sink);
  gboolean full_out = FALSE;
  gint rows;

  group_reset (d);
  if (out == NULL)
    return;
  if (!fw_value_is_static (out))
    {
      refuse_dynamic (d, sink, FALSE);
      return;
    }
  rows = fw_node_class (sink) == FW_OP_CLASS_REDUCE ? row_axes_of (sink, &full_out) : 0;
  if (fw_node_class (sink) == FW_OP_CLASS_REDUCE)
    {
      FwValue *in = first_input (sink);
      if (rows == 0 || d->strategy == FW_STRATEGY_CONSERVATIVE || in == NULL || !fw_value_is_static (in))
        return;
      space_from (&d->group.space, full_out ? out : in, rows);
    }
  else
    space_from (&d->group.space, out, 0);
  group_add (d, sink);
  for (;;)
    {
      FwNode *next = NULL, *consumer = NULL;

      for (guint i = 0; i < d->group.nodes->len; i++)
        {
          FwNode *m = g_ptr_array_index (d->group.nodes, i);
          for (guint k = 0; k < m->n_inputs; k++)
            {
              FwValue *v = m->inputs[k];
              FwNode *p = v ? v->producer : NULL;
              if (p && p->graph == d->graph && !is_member (d, p) && !d->rejected[p->index] &&
                  (next == NULL || p->topo_index > next->topo_index))
                {
                  next = p;
                  consumer = m;
                }
            }
        }
      if (next == NULL)
        break;
      if (!try_producer (d, next, consumer))
        mark_rejected (d, next);
    }
  finish_group (d, kind_of_group (d));
}

/* ---- aggressive: merging whole groups into multi-output kernels ---- */

static gboolean
same_space (const FwSpace *a, const FwSpace *b)
{
  if (a->rank != b->rank)
    return FALSE;
  for (gint i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i])
      return FALSE;
  return a->row_axes == 0 || b->row_axes == 0 || a->row_axes == b->row_axes;
}

/* Producer group a joins consumer group b when the result is one legal kernel: a single compute root, one
 * iteration space, no path from a to b through a node outside them, and within every limit. Values of a
 * that are also read elsewhere leave the kernel as extra outputs. Merging whole groups, never parts,
 * keeps every fusion of the balanced strategy intact. */
static gboolean
is_view (const FwNode *node)
{
  static const char *views[] = { "Reshape", "Flatten", "Squeeze", "Unsqueeze" };

  if (node->domain[0] != '\0')
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    if (strcmp (node->op_type, views[i]) == 0)
      return TRUE;
  return FALSE;
}

/* Producer group a (G_MAXUINT: none) joins consumer group b, through `bridge` (a reshape-like view between
 * them, or NULL), when the result is one legal kernel: a single compute root, one iteration space (through
 * a view: the same elements in the same order, and no row reductions), no path from one side to the other
 * through a node outside them, and within every limit. Values also read elsewhere leave the kernel as
 * extra outputs. Merging whole groups, never parts, keeps every fusion of the balanced strategy intact. */
static gboolean
try_merge (Disc *d, guint a, guint b, FwNode *bridge)
{
  FwCandidate *ca = a != G_MAXUINT ? g_ptr_array_index (d->plan->candidates, a) : NULL;
  FwCandidate *cb = g_ptr_array_index (d->plan->candidates, b);
  const FwSpace *sa = ca ? &g_array_index (d->spaces, FwSpace, a) : NULL;
  const FwSpace *sb = &g_array_index (d->spaces, FwSpace, b);
  guint n_a = ca ? ca->nodes->len : 0;
  FwResourceEstimate res;
  gboolean ok = TRUE;

  if ((ca && ca->root != NULL && cb->root != NULL) || n_a + cb->nodes->len + (bridge ? 1 : 0) > d->max_size)
    return FALSE;
  if (bridge == NULL && (ca == NULL || !same_space (sa, sb)))
    return FALSE;
  if (bridge != NULL)
    {
      gint64 n = fw_space_elements (sb);
      FwValue *in = first_input (bridge), *out = first_output (bridge);
      if (sb->row_axes > 0 || (sa && (sa->row_axes > 0 || fw_space_elements (sa) != n)) || in == NULL ||
          out == NULL || fw_value_get_n_elements (in) != n || fw_value_get_n_elements (out) != n)
        return FALSE;
    }
  group_reset (d);
  for (guint i = 0; i < n_a; i++)
    group_add (d, g_ptr_array_index (ca->nodes, i));
  if (bridge)
    group_add (d, bridge);
  for (guint i = 0; i < cb->nodes->len; i++)
    group_add (d, g_ptr_array_index (cb->nodes, i));
  d->group.root = ca && ca->root ? ca->root : cb->root;
  d->group.space = *sb;
  d->group.space.row_axes = MAX (sa ? sa->row_axes : 0, sb->row_axes);

  /* Any value of the group read outside must not feed the group back through that reader: checked for
   * every member, since siblings (horizontal fusion) have no order between them. */
  for (guint i = 0; ok && i < d->group.nodes->len; i++)
    {
      FwNode *m = g_ptr_array_index (d->group.nodes, i);
      for (guint k = 0; ok && k < m->n_outputs; k++)
        {
          FwValue *v = m->outputs[k];
          for (guint u = 0; ok && v && u < v->n_uses; u++)
            {
              FwNode *x = v->uses[u].node;
              if (!is_member (d, x) && x->graph == d->graph && group_depends_on (d, x))
                ok = FALSE;
            }
        }
    }
  ok = ok && !covers_vetoed (d) && row_ops_after_reduce (d) <= 3 && group_depth (d) <= d->max_depth &&
       group_fits (d, &res) && res.kernel_inputs <= d->plan->profile->max_kernel_inputs;
  if (ok)
    {
      g_ptr_array_set_size (cb->nodes, 0);
      for (guint i = 0; i < d->group.nodes->len; i++)
        g_ptr_array_add (cb->nodes, g_ptr_array_index (d->group.nodes, i));
      cb->root = d->group.root;
      g_array_index (d->spaces, FwSpace, b) = d->group.space;
      for (guint i = 0; i < n_a; i++)
        d->plan->group_of[((FwNode *) g_ptr_array_index (ca->nodes, i))->index] = b + 1;
      if (bridge)
        d->plan->group_of[bridge->index] = b + 1;
      if (ca)
        g_ptr_array_set_size (ca->nodes, 0);
      fw_plan_debug (d->plan, "merged %s%s into group #%u (%u nodes)", ca ? "a group" : "",
                     bridge ? " through a view" : "", b, cb->nodes->len);
    }
  group_reset (d);
  return ok;
}

/* Reshape-like views between groups, or in front of one: fused when the elements keep their order. */
static gboolean
merge_views (Disc *d)
{
  gboolean changed = FALSE;

  for (guint i = 0; i < d->graph->nodes->len; i++)
    {
      FwNode *v = g_ptr_array_index (d->graph->nodes, i);
      FwValue *in, *out;
      guint a;

      if (!is_view (v) || is_taken (d, v) || !fw_node_runs (v) || !all_static (v))
        continue;
      in = first_input (v);
      out = first_output (v);
      if (in == NULL || out == NULL)
        continue;
      a = in->producer && in->producer->graph == d->graph ? d->plan->group_of[in->producer->index] : 0;
      for (guint u = 0; u < out->n_uses; u++)
        {
          FwNode *x = out->uses[u].node;
          guint b = x->graph == d->graph ? d->plan->group_of[x->index] : 0;
          /* A view feeding a compute root changes how an operand is read, not the iteration space. */
          if (b == 0 || b == a || x == ((FwCandidate *) g_ptr_array_index (d->plan->candidates, b - 1))->root)
            continue;
          if (try_merge (d, a ? a - 1 : G_MAXUINT, b - 1, v))
            {
              g_array_index (d->bridged, gboolean, b - 1) = TRUE;
              changed = TRUE;
              break;
            }
        }
    }
  return changed;
}

static void
merge_groups (Disc *d)
{
  GPtrArray *cands = d->plan->candidates;
  g_autoptr(GPtrArray) kept = g_ptr_array_new ();
  gboolean changed = TRUE, any = FALSE;

  g_array_set_size (d->horizontal, cands->len);
  g_array_set_size (d->bridged, cands->len);
  for (guint round = 0; changed && round < 16; round++)
    {
      changed = FALSE;
      for (guint b = 0; b < cands->len; b++)
        {
          FwCandidate *cb = g_ptr_array_index (cands, b);
          gboolean merged = TRUE;

          while (merged && cb->nodes->len > 0)
            {
              merged = FALSE;
              for (guint i = 0; !merged && i < cb->nodes->len; i++)
                {
                  FwNode *m = g_ptr_array_index (cb->nodes, i);
                  for (guint k = 0; !merged && k < m->n_inputs; k++)
                    {
                      FwNode *p = m->inputs[k] ? m->inputs[k]->producer : NULL;
                      guint a;
                      if (p == NULL || p->graph != d->graph || (a = d->plan->group_of[p->index]) == 0 || a - 1 == b)
                        continue;
                      merged = try_merge (d, a - 1, b, NULL);
                      changed |= merged;
                    }
                }
              /* Horizontal: another group reading the same tensor shares its load. */
              for (guint i = 0; !merged && i < cb->nodes->len; i++)
                {
                  FwNode *m = g_ptr_array_index (cb->nodes, i);
                  for (guint k = 0; !merged && k < m->n_inputs; k++)
                    {
                      FwValue *v = m->inputs[k];
                      if (v == NULL || fw_value_is_immediate (v) ||
                          (v->producer && v->producer->graph == d->graph &&
                           d->plan->group_of[v->producer->index] == b + 1))
                        continue;
                      for (guint u = 0; !merged && u < v->n_uses; u++)
                        {
                          FwNode *x = v->uses[u].node;
                          guint a = x->graph == d->graph ? d->plan->group_of[x->index] : 0;
                          if (a == 0 || a - 1 == b)
                            continue;
                          merged = try_merge (d, a - 1, b, NULL);
                          if (merged)
                            g_array_index (d->horizontal, gboolean, b) = TRUE;
                          changed |= merged;
                        }
                    }
                }
            }
        }
      changed |= merge_views (d);
      any |= changed;
    }

  /* Drop the emptied groups and renumber; merged ones get fresh estimates. */
  for (guint i = 0; i < cands->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (cands, i);
      if (c->nodes->len > 0)
        g_ptr_array_add (kept, c);
    }
  if (!any)
    return;
  for (guint i = 0; i < cands->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (cands, i);
      if (c->nodes->len == 0)
        {
          g_free (c->pattern);
          g_free (c->kind);
          g_ptr_array_unref (c->nodes);
          fw_kernel_spec_free (c->spec);
          g_free (c);
        }
    }
  /* Take the pointers out without freeing them; the array keeps its free function for the survivors. */
  g_free (g_ptr_array_steal (cands, NULL));
  for (guint i = 0; i < kept->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (kept, i);
      guint old = c->index;

      c->index = i;
      g_ptr_array_add (cands, c);
      g_array_index (d->spaces, FwSpace, i) = g_array_index (d->spaces, FwSpace, old);
      g_array_index (d->horizontal, gboolean, i) = g_array_index (d->horizontal, gboolean, old);
      g_array_index (d->bridged, gboolean, i) = g_array_index (d->bridged, gboolean, old);
      for (guint n = 0; n < c->nodes->len; n++)
        d->plan->group_of[((FwNode *) g_ptr_array_index (c->nodes, n))->index] = i + 1;
    }
  g_array_set_size (d->spaces, kept->len);
  for (guint i = 0; i < cands->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (cands, i);
      gboolean multi = FALSE;

      group_reset (d);
      for (guint n = 0; n < c->nodes->len; n++)
        group_add (d, g_ptr_array_index (c->nodes, n));
      d->group.root = c->root;
      d->group.space = g_array_index (d->spaces, FwSpace, i);
      for (guint n = 0; n < c->nodes->len && !multi; n++)
        {
          FwNode *m = g_ptr_array_index (c->nodes, n);
          for (guint k = 0; k < m->n_outputs && !multi; k++)
            {
              FwValue *v = m->outputs[k];
              gboolean inside = FALSE, outside = v && v->is_output;
              for (guint u = 0; v && u < v->n_uses; u++)
                {
                  if (is_member (d, v->uses[u].node))
                    inside = TRUE;
                  else
                    outside = TRUE;
                }
              multi = inside && outside;
            }
        }
      if (multi || g_array_index (d->horizontal, gboolean, i) || g_array_index (d->bridged, gboolean, i))
        {
          const char *kind = multi ? "multi_output" : g_array_index (d->horizontal, gboolean, i) ? "horizontal"
                                                                                               : "through_views";
          g_free (c->kind);
          c->kind = g_strdup (kind);
          g_free (c->pattern);
          c->pattern = g_strdup (kind);
        }
      c->depth = group_depth (d);
      fw_candidate_set_spec (c, &d->group, d->plan->profile);
    }
  group_reset (d);
}

static void
disc_init (Disc *d, FwPlan *plan)
{
  FwGraph *graph = fw_model_get_graph (plan->model);

  memset (d, 0, sizeof *d);
  d->plan = plan;
  d->graph = graph;
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
  g_free (d->member);
}

static gboolean
starts_backward (Disc *d, FwNode *node)
{
  FwOpClass klass = fw_node_class (node);

  return !is_taken (d, node) && fw_node_runs (node) &&
         (klass == FW_OP_CLASS_ELEMENTWISE || klass == FW_OP_CLASS_BROADCAST || klass == FW_OP_CLASS_REDUCE);
}

void
fw_discover (FwPlan *plan)
{
  Disc d;
  guint n_order;
  FwNode **order = fw_graph_get_order (fw_model_get_graph (plan->model), &n_order);

  disc_init (&d, plan);
  for (guint i = 0; i < n_order; i++)
    {
      FwNode *node = order[i];
      if (fw_node_class (node) == FW_OP_CLASS_OUT_FUSABLE && fw_node_runs (node) && !is_taken (&d, node))
        grow_epilogue (&d, node);
    }
  for (guint i = n_order; i > 0; i--)
    {
      FwNode *node = order[i - 1];
      if (starts_backward (&d, node))
        grow_backward (&d, node);
    }

  if (d.strategy == FW_STRATEGY_AGGRESSIVE)
    merge_groups (&d);
  disc_clear (&d);
}

/* After a veto: only the freed nodes seed groups. Backward growth first, so the elementwise tail of a vetoed
 * epilogue can still fuse; then what is left of the compute roots takes its epilogue. Candidates are
 * appended; the merge pass does not run. */
void
fw_discover_region (FwPlan *plan, GPtrArray *freed)
{
  Disc d;
  g_autoptr(GPtrArray) order = g_ptr_array_copy (freed, NULL, NULL);

  if (!plan->options.enabled || order->len == 0)
    return;
  g_ptr_array_sort (order, compare_topo);
  disc_init (&d, plan);
  /* Keep d.spaces aligned with candidate indices, for finish_group. */
  g_array_set_size (d.spaces, plan->candidates->len);
  for (guint i = order->len; i > 0; i--)
    {
      FwNode *node = g_ptr_array_index (order, i - 1);
      if (starts_backward (&d, node))
        grow_backward (&d, node);
    }
  for (guint i = 0; i < order->len; i++)
    {
      FwNode *node = g_ptr_array_index (order, i);
      if (fw_node_class (node) == FW_OP_CLASS_OUT_FUSABLE && fw_node_runs (node) && !is_taken (&d, node))
        grow_epilogue (&d, node);
    }
  disc_clear (&d);
}
