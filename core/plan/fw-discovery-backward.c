/* fw-discovery-backward.c: discovery's second pass (docs/design.md §5.1). From the graph's outputs, in
 * reverse topological order, the nodes no epilogue took grow backward over their producers into
 * elementwise chains, reduce epilogues and the insides of norms and softmaxes. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "fw-discovery-private.h"

static gboolean
fits_space (Disc *d, FwNode *p, FwReasonCode *code, char **why)
{
  FwValue *out = first_output (p);
  gboolean full_out = FALSE;
  gint rows = fw_node_class (p) == FW_OP_CLASS_REDUCE ? fw_disc_row_axes_of (p, &full_out) : 0;
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
          fw_disc_space_from (&upgraded, in, rows);
          if (fw_space_role (&upgraded, out) != FW_SHAPE_ROW)
            role = FW_SHAPE_OTHER;
          else if (d->group.space.row_axes == 0)
            {
              for (guint i = 0; i < d->group.nodes->len; i++)
                {
                  FwNode *mn = g_ptr_array_index (d->group.nodes, i);
                  FwValue *mo = first_output (mn);
                  FwShapeRole r = mo ? fw_space_role (&upgraded, mo) : FW_SHAPE_OTHER;
                  /* An injective member's result lies over the space by its index map (checked with the
                     maps), not by its shape. */
                  if (fw_node_class (mn) == FW_OP_CLASS_INJECTIVE)
                    continue;
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
          if (v && !fw_value_is_immediate (v) && fw_disc_input_role (d, p, k) != FW_SHAPE_SMALL)
            {
              *code = FW_NF_ITERATION_SPACE;
              *why = g_strdup_printf (_("%s “%s” would be recomputed per tile from a large input"), p->op_type, p->name);
              return FALSE;
            }
        }
    }
  return TRUE;
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
          fw_disc_refuse (d, FW_NF_STRATEGY, p, _("%s “%s” is a reduction; reductions fuse from the balanced strategy on"),
                  p->op_type, p->name);
          return FALSE;
        }
      break;
    case FW_OP_CLASS_OUT_FUSABLE:
      return FALSE;  /* its epilogue was settled in the first pass */
    case FW_OP_CLASS_INJECTIVE:
      if (d->strategy == FW_STRATEGY_CONSERVATIVE)
        {
          fw_disc_refuse (d, FW_NF_STRATEGY, p, _("%s “%s” moves data; index maps fuse from the balanced strategy on"),
                  p->op_type, p->name);
          return FALSE;
        }
      if (!fw_index_map_follows (p, &code, &why))
        {
          fw_disc_refuse (d, code, p, "%s", why);
          return FALSE;
        }
      break;
    case FW_OP_CLASS_OPAQUE:
    default:
      fw_disc_refuse (d, FW_NF_OPAQUE, p, _("%s “%s” is opaque to fusion"), p->op_type, p->name);
      return FALSE;
    }
  if (!fw_disc_all_static (p))
    {
      fw_disc_refuse (d, FW_NF_DYNAMIC, p, _("%s “%s” has a dynamic shape; bind its symbols with --bind"), p->op_type, p->name);
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
          fw_disc_refuse (d, FW_NF_OUTSIDE_USE, p,
                  _("“%s” is also read by %s “%s” outside the group; multi-output groups need the aggressive strategy"),
                  v->name, x->op_type, x->name);
          return FALSE;
        }
    }
  /* With injective members the index maps decide how values map onto the space (fw_disc_check_limits). */
  if ((klass == FW_OP_CLASS_INJECTIVE || (klass != FW_OP_CLASS_REDUCE && fw_disc_group_indexed (d))))
    ;
  else if (!fits_space (d, p, &code, &why))
    {
      d->group.space = saved;
      fw_disc_refuse (d, code, p, "%s", why);
      return FALSE;
    }
  if (!fw_disc_dtype_fits (d, p, consumer))
    {
      d->group.space = saved;
      fw_disc_refuse (d, FW_NF_DTYPE, p, _("%s “%s” computes in %s, its consumer %s in %s, with no Cast"), p->op_type, p->name,
              fw_dtype_name (first_output (p)->dtype), consumer->name, fw_dtype_name (first_output (consumer)->dtype));
      return FALSE;
    }
  fw_disc_group_add (d, p);
  if (fw_disc_row_ops_after_reduce (d) > 3)
    {
      fw_disc_group_remove_last (d, p);
      d->group.space = saved;
      fw_disc_refuse (d, FW_NF_REDUCE_EPILOGUE, p,
              _("%u elementwise operators would follow the reduction; at most 3 may (as CANN allows)"), 4u);
      return FALSE;
    }
  if (!fw_disc_check_limits (d, p))
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

void
fw_disc_grow_backward (Disc *d, FwNode *sink)
{
  FwValue *out = first_output (sink);
  gboolean full_out = FALSE;
  gint rows;

  fw_disc_group_reset (d);
  if (out == NULL)
    return;
  if (!fw_value_is_static (out))
    {
      fw_disc_refuse_dynamic (d, sink, FALSE);
      return;
    }
  rows = fw_node_class (sink) == FW_OP_CLASS_REDUCE ? fw_disc_row_axes_of (sink, &full_out) : 0;
  if (fw_node_class (sink) == FW_OP_CLASS_REDUCE)
    {
      FwValue *in = first_input (sink);
      if (rows == 0 || d->strategy == FW_STRATEGY_CONSERVATIVE || in == NULL || !fw_value_is_static (in))
        return;
      fw_disc_space_from (&d->group.space, full_out ? out : in, rows);
    }
  else if (fw_disc_injective_forward (sink) && first_input (sink) != NULL && fw_value_is_static (first_input (sink)))
    /* A view or transpose at the end: the group iterates its operand's shape, which its producers share
       (a LayerNorm before a free transpose keeps its rows), and writes the result through the map. */
    fw_disc_space_from (&d->group.space, first_input (sink), 0);
  else
    fw_disc_space_from (&d->group.space, out, 0);
  fw_disc_group_add (d, sink);
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
        fw_disc_mark_rejected (d, next);
    }
  fw_disc_finish_group (d, kind_of_group (d));
}
