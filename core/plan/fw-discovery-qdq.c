/* fw-discovery-qdq.c: integer groups (docs/design.md §5.1, issue 19). A MatMul, Gemm or Conv whose matrix
 * operands are DequantizeLinear outputs is computed in integers: int8 × int8 products summed in int32, the
 * scales applied once per output. Its group takes the DequantizeLinear nodes only it reads (a shared one
 * stays, FW-NF-022, and the kernel reads its integer input), the QuantizeLinear in front of an activation's
 * DequantizeLinear when nothing else reads it (the kernel quantises its float input), the elementwise
 * epilogue after it, and the QuantizeLinear that epilogue's result feeds (the requantisation, written as
 * int8). A Q → DQ pair between two such groups is thereby split between them: the producer's group ends in
 * the QuantizeLinear, the consumer's begins with the DequantizeLinear, and the value between them is int8.
 *
 * Runs before the float epilogue pass, root by root in topological order; a root it refuses (with its
 * code) still takes a float epilogue there. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-discovery-private.h"
#include "fw-qdq.h"

static gboolean
only_read_by (const FwValue *v, const FwNode *reader)
{
  if (v->is_output || v->n_uses == 0)
    return FALSE;
  for (guint u = 0; u < v->n_uses; u++)
    if (v->uses[u].node != reader)
      return FALSE;
  return TRUE;
}

/* The first reader of v in topological order: the one group that records v's refusal. */
static FwNode *
first_reader (const FwValue *v)
{
  FwNode *first = NULL;

  for (guint u = 0; u < v->n_uses; u++)
    if (first == NULL || v->uses[u].node->topo_index < first->topo_index)
      first = v->uses[u].node;
  return first;
}

static void
refuse_shared (Disc *d, FwNode *dq, FwNode *root)
{
  GPtrArray *nodes;
  FwValue *v = dq->outputs[0];

  if (first_reader (v) != root)
    return;
  nodes = g_ptr_array_new ();
  g_ptr_array_add (nodes, dq);
  g_ptr_array_add (nodes, root);
  fw_plan_refuse_node (d->plan, FW_NF_QDQ_SHARED, G_MAXUINT, nodes, dq,
                       g_strdup_printf (_("DequantizeLinear “%s” is read by %u nodes; it stays, and each integer "
                                          "kernel reads its %s input “%s” directly"),
                                        dq->name, v->n_uses + (v->is_output ? 1 : 0),
                                        fw_dtype_name (dq->inputs[0]->dtype), dq->inputs[0]->name));
}

/* A DequantizeLinear feeding the root: into the group when only the root reads it, and then the
 * QuantizeLinear in front of it when only it reads that. */
static void
take_dequantize (Disc *d, FwNode *dq, FwNode *root)
{
  FwNode *q = dq->inputs[0]->producer;
  FwQdqParams qp;
  FwReasonCode code;
  g_autofree char *why = NULL;

  if (!only_read_by (dq->outputs[0], root) || is_taken (d, dq) || !fw_node_runs (dq))
    {
      refuse_shared (d, dq, root);
      return;
    }
  fw_disc_group_add (d, dq);
  if (q == NULL || q->graph != d->graph || is_taken (d, q) || !fw_node_runs (q) ||
      !only_read_by (dq->inputs[0], dq))
    return;
  if (fw_qdq_params (q, FALSE, FALSE, &qp, &code, &why) && qp.axis < 0 && fw_value_is_static (qp.real))
    fw_disc_group_add (d, q);
}

static gboolean
same_shape (const FwValue *a, const FwValue *b)
{
  if (a->rank != b->rank)
    return FALSE;
  for (gint i = 0; i < a->rank; i++)
    if (a->dims[i].value != b->dims[i].value)
      return FALSE;
  return TRUE;
}

/* v broadcasts into shape's space from the right. */
static gboolean
broadcasts_into (const FwValue *v, const FwValue *shape)
{
  if (!fw_value_is_static (v) || v->rank > shape->rank)
    return FALSE;
  for (gint i = 0; i < v->rank; i++)
    {
      gint64 dv = v->dims[v->rank - 1 - i].value, ds = shape->dims[shape->rank - 1 - i].value;
      if (dv != 1 && dv != ds)
        return FALSE;
    }
  return TRUE;
}

/* Whether c may join the integer group's epilogue (its float part between the root and the requantisation). */
static gboolean
epilogue_fits (Disc *d, FwNode *c, const FwValue *space)
{
  FwValue *out = c->outputs[0];

  if (!fw_node_runs (c) || is_taken (d, c) || !fw_qdq_epilogue_op (c) || !same_shape (out, space))
    return FALSE;
  for (guint k = 0; k < c->n_inputs; k++)
    {
      FwValue *v = c->inputs[k];
      if (v == NULL)
        return FALSE;
      if (is_member (d, v->producer))
        continue;
      if (v->dtype != FW_DTYPE_FLOAT || !broadcasts_into (v, space))
        return FALSE;
      if (v->producer != NULL && fw_disc_depends_on_group (d, v->producer))
        return FALSE;
    }
  return TRUE;
}

/* The values of the root and its epilogue read outside the group: at most one may be, the last one. */
static gboolean
escapes (Disc *d, const FwNode *m)
{
  FwValue *v = m->outputs[0];

  if (v->is_output)
    return TRUE;
  for (guint u = 0; u < v->n_uses; u++)
    if (!is_member (d, v->uses[u].node))
      return TRUE;
  return FALSE;
}

static void
trim_epilogue (Disc *d, GPtrArray *epilogue, FwNode *root)
{
  while (epilogue->len > 0)
    {
      gboolean ok = !escapes (d, root);

      for (guint i = 0; ok && i + 1 < epilogue->len; i++)
        ok = !escapes (d, g_ptr_array_index (epilogue, i));
      if (ok)
        return;
      fw_disc_group_remove_last (d, g_ptr_array_index (epilogue, epilogue->len - 1));
      g_ptr_array_remove_index (epilogue, epilogue->len - 1);
    }
}

static void
grow_epilogue (Disc *d, FwNode *root, GPtrArray *epilogue)
{
  FwValue *space = root->outputs[0];

  for (;;)
    {
      FwNode *next = NULL;

      for (guint i = 0; i <= epilogue->len; i++)
        {
          FwNode *m = i == 0 ? root : g_ptr_array_index (epilogue, i - 1);
          FwValue *v = m->outputs[0];
          for (guint u = 0; u < v->n_uses; u++)
            {
              FwNode *c = v->uses[u].node;
              if (c->graph == d->graph && !is_member (d, c) && !d->rejected[c->index] &&
                  (next == NULL || c->topo_index < next->topo_index))
                next = c;
            }
        }
      if (next == NULL || d->group.nodes->len >= d->max_size)
        break;
      if (!epilogue_fits (d, next, space))
        {
          fw_disc_mark_rejected (d, next);
          continue;
        }
      fw_disc_group_add (d, next);
      g_ptr_array_add (epilogue, next);
    }
  trim_epilogue (d, epilogue, root);
}

/* The QuantizeLinear the result feeds, when it is the only reader: the requantisation. */
static void
take_requantize (Disc *d, FwNode *last)
{
  FwValue *v = last->outputs[0];
  FwNode *q = v->n_uses == 1 ? v->uses[0].node : NULL;
  FwQdqParams qp;
  FwReasonCode code;
  g_autofree char *why = NULL;

  if (q == NULL || v->is_output || is_taken (d, q) || !fw_node_runs (q) || d->group.nodes->len >= d->max_size)
    return;
  if (fw_qdq_params (q, FALSE, FALSE, &qp, &code, &why) && qp.axis < 0)
    fw_disc_group_add (d, q);
}

gboolean
fw_disc_grow_qdq (Disc *d, FwNode *root)
{
  FwQdqGroup g;
  FwReasonCode code;
  g_autofree char *why = NULL;
  g_autoptr(GPtrArray) epilogue = g_ptr_array_new ();

  if (!fw_qdq_root_operands (root, &g, &code, &why))
    {
      if (code != 0)
        {
          /* The refusal names the Q/DQ nodes around the root that stay standalone with it: each operand's
             DequantizeLinear (the bias' too) and the QuantizeLinear in front of it. */
          GPtrArray *nodes = g_ptr_array_new ();
          for (guint k = 0; k < root->n_inputs; k++)
            {
              FwNode *dq = root->inputs[k] != NULL ? root->inputs[k]->producer : NULL;
              FwNode *q = dq != NULL && dq->n_inputs > 0 && dq->inputs[0] != NULL ? dq->inputs[0]->producer : NULL;
              if (dq == NULL || dq->domain[0] != '\0' || strcmp (dq->op_type, "DequantizeLinear") != 0)
                continue;
              if (q != NULL && q->domain[0] == '\0' && strcmp (q->op_type, "QuantizeLinear") == 0 &&
                  !g_ptr_array_find (nodes, q, NULL))
                g_ptr_array_add (nodes, q);
              if (!g_ptr_array_find (nodes, dq, NULL))
                g_ptr_array_add (nodes, dq);
            }
          g_ptr_array_add (nodes, root);
          fw_plan_refuse_node (d->plan, code, G_MAXUINT, nodes, root, g_steal_pointer (&why));
        }
      return FALSE;
    }
  fw_disc_group_reset (d);
  d->group.root = root;
  fw_disc_space_from (&d->group.space, root->outputs[0], 0);
  fw_disc_group_add (d, root);
  take_dequantize (d, g.a.dq.node, root);
  if (g.b.dq.node != g.a.dq.node)
    take_dequantize (d, g.b.dq.node, root);
  if (g.bias.node != NULL)
    take_dequantize (d, g.bias.node, root);
  grow_epilogue (d, root, epilogue);
  take_requantize (d, epilogue->len > 0 ? g_ptr_array_index (epilogue, epilogue->len - 1) : root);
  /* Alone (every operand shared, nothing after it), the root is no group: the float pass may still give it
     an epilogue the integer kernel does not compute. */
  if (d->group.nodes->len < 2 || fw_disc_covers_vetoed (d))
    {
      fw_disc_group_reset (d);
      return FALSE;
    }
  fw_disc_finish_group (d, FW_QDQ_KIND);
  return TRUE;
}
