/* fw-discovery-forward.c: discovery's first pass (docs/design.md §5.1). Every compute-bound producer
 * (MatMul, Gemm, Conv) grows forward over its elementwise epilogue: bias, BatchNormalization, activations,
 * residual adds, and under the aggressive strategy the Softmax of attention scores. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-discovery-private.h"
#include "ops/fw-op-registry.h"

static gboolean
try_epilogue_node (Disc *d, FwNode *c)
{
  FwOpClass klass = fw_node_class (c);
  FwValue *out = first_output (c);
  gboolean row_full = FALSE, indexed;
  gint row_axes = 0;

  if (!fw_node_runs (c) || is_taken (d, c))
    return FALSE;
  if (klass == FW_OP_CLASS_OPAQUE)
    {
      fw_disc_refuse (d, FW_NF_OPAQUE, c, _("%s “%s” is opaque to fusion"), c->op_type, c->name);
      return FALSE;
    }
  if (klass == FW_OP_CLASS_OUT_FUSABLE)
    return FALSE;  /* the next compute-bound node starts its own group */
  if (klass == FW_OP_CLASS_INJECTIVE && !fw_disc_injective_forward (c))
    {
      FwReasonCode code = FW_NF_INDEX_MAP;
      g_autofree char *why = NULL;
      if (!fw_index_map_follows (c, &code, &why))
        fw_disc_refuse (d, code, c, "%s", why);
      else
        fw_disc_refuse (d, FW_NF_INDEX_MAP, c, _("%s “%s” takes part of the %s result; the epilogue would write only "
                                                 "part of its iteration space"), c->op_type, c->name,
                        d->group.root->op_type);
      return FALSE;
    }
  indexed = klass == FW_OP_CLASS_INJECTIVE || fw_disc_group_indexed (d);
  if (klass == FW_OP_CLASS_INJECTIVE && d->strategy == FW_STRATEGY_CONSERVATIVE)
    {
      fw_disc_refuse (d, FW_NF_STRATEGY, c, _("%s “%s” moves data; index maps fuse from the balanced strategy on"),
              c->op_type, c->name);
      return FALSE;
    }
  if (klass == FW_OP_CLASS_REDUCE)
    {
      row_axes = klass == FW_OP_CLASS_REDUCE ? fw_disc_row_axes_of (c, &row_full) : 0;
      if (row_full && row_axes == 1 && strcmp (c->op_type, "Softmax") == 0)
        {
          if (d->strategy != FW_STRATEGY_AGGRESSIVE)
            {
              fw_disc_refuse (d, FW_NF_STRATEGY, c, _("attention scores (%s → … → Softmax) fuse only under the aggressive strategy"),
                      d->group.root->op_type);
              return FALSE;
            }
        }
      else
        {
          fw_disc_refuse (d, FW_NF_ITERATION_SPACE, c, _("a %s epilogue takes elementwise operators only; %s “%s” is %s"),
                  d->group.root->op_type, c->op_type, c->name, fw_op_class_name (klass));
          return FALSE;
        }
    }
  if (!fw_disc_all_static (c))
    {
      fw_disc_refuse (d, FW_NF_DYNAMIC, c, _("%s “%s” has a dynamic shape; bind its symbols with --bind"), c->op_type, c->name);
      return FALSE;
    }
  if (out == NULL || (!indexed && fw_space_role (&d->group.space, out) != FW_SHAPE_FULL))
    {
      g_autofree char *shape = out ? fw_value_format_shape (out) : g_strdup ("?");
      fw_disc_refuse (d, FW_NF_ITERATION_SPACE, c, _("%s “%s” produces %s, not the epilogue's iteration space"), c->op_type,
              c->name, shape);
      return FALSE;
    }
  /* Outside inputs first: a cycle is the more fundamental reason. */
  for (guint k = 0; k < c->n_inputs; k++)
    {
      FwValue *v = c->inputs[k];
      if (v == NULL || fw_value_is_immediate (v) || is_member (d, v->producer))
        continue;
      if (v->producer != NULL && fw_disc_depends_on_group (d, v->producer))
        {
          fw_disc_refuse (d, FW_NF_CYCLE, c, _("%s “%s” also reads “%s”, which depends on the group"), c->op_type, c->name,
                  v->name);
          return FALSE;
        }
      if (!indexed && fw_disc_input_role (d, c, k) == FW_SHAPE_OTHER)
        {
          g_autofree char *shape = fw_value_format_shape (v);
          fw_disc_refuse (d, FW_NF_ITERATION_SPACE, c, _("input “%s” %s does not broadcast into the epilogue's space"),
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
          if (!((oc == FW_OP_CLASS_ELEMENTWISE || oc == FW_OP_CLASS_BROADCAST ||
                 (fw_disc_injective_forward (x) && d->strategy != FW_STRATEGY_CONSERVATIVE)) &&
                !is_taken (d, x) && fw_node_runs (x)))
            outside = TRUE;
        }
      if (outside)
        {
          fw_disc_refuse (d, FW_NF_OUTSIDE_USE, c,
                  _("“%s” is also used outside the group; multi-output groups need the aggressive strategy"), v->name);
          return FALSE;
        }
    }
  if (!fw_disc_dtype_fits (d, c, d->group.root))
    {
      fw_disc_refuse (d, FW_NF_DTYPE, c, _("%s “%s” computes in %s, the group in %s, with no Cast"), c->op_type, c->name,
              fw_dtype_name (out->dtype), fw_dtype_name (first_output (d->group.root)->dtype));
      return FALSE;
    }
  fw_disc_group_add (d, c);
  if (row_axes > 0)
    d->group.space.row_axes = row_axes;
  if (!fw_disc_check_limits (d, c))
    {
      if (row_axes > 0)
        d->group.space.row_axes = 0;
      return FALSE;
    }
  fw_plan_debug (d->plan, "  epilogue of %s takes %s %s", d->group.root->name, c->op_type, c->name);
  return TRUE;
}

/* A Cast that widens the epilogue's result (float16 → float32, into a float32 island around a Softmax or a
 * norm) would make the kernel write the wide value, twice the bytes: left out, it is the island's load
 * conversion in the kernel that reads the value (the backward pass takes it). */
static void
drop_widening_tail (Disc *d)
{
  while (d->group.nodes->len > 1)
    {
      FwNode *last = g_ptr_array_index (d->group.nodes, d->group.nodes->len - 1);
      FwValue *in = first_input (last), *out = first_output (last);
      gint64 a = 0, b = 0;
      gboolean read_inside = FALSE;

      /* Floats only: a mask cast from bool at the end of an epilogue is the epilogue's own result. */
      if (strcmp (last->op_type, "Cast") != 0 || in == NULL || out == NULL || !fw_dtype_is_float (in->dtype) ||
          !fw_dtype_is_float (out->dtype) || !fw_dtype_bytes_for (in->dtype, 1, &a) ||
          !fw_dtype_bytes_for (out->dtype, 1, &b) || b <= a)
        return;
      for (guint u = 0; u < out->n_uses; u++)
        read_inside |= is_member (d, out->uses[u].node);
      if (read_inside)
        return;
      fw_disc_group_remove_last (d, last);
    }
}

void
fw_disc_grow_epilogue (Disc *d, FwNode *root)
{
  FwValue *out = first_output (root);
  g_autoptr(GPtrArray) frontier = g_ptr_array_new ();

  fw_disc_group_reset (d);
  if (out == NULL)
    return;
  if (!fw_value_is_static (out))
    {
      fw_disc_refuse_dynamic (d, root, TRUE);
      return;
    }
  d->group.root = root;
  fw_disc_space_from (&d->group.space, out, 0);
  fw_disc_group_add (d, root);
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
        fw_disc_mark_rejected (d, next);
    }
  drop_widening_tail (d);
  fw_disc_finish_group (d, "epilogue");
}
