/* fw-discovery-attention.c: discovery's attention pass, before the epilogues take the MatMuls. A score
 * chain (MatMul → scale → mask → Softmax → MatMul, fw_attention_match) becomes one group with the views
 * after the second product (the heads merged back: Transpose, Reshape) when the balanced strategy or a
 * stronger one is on and the cost model says the one kernel pays; what stays refused is recorded with its
 * code, and its nodes are left to the other passes. */
#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>

#include "fw-discovery-private.h"

/* Takes the views after the product while the output's map stays a bijection of the product's elements
 * (fw_attention_describe then accepts the group). */
static void
take_tail (Disc *d, FwNode *product)
{
  FwNode *cur = product;

  for (;;)
    {
      FwValue *v = first_output (cur);
      FwNode *next = v != NULL && !v->is_output && v->n_uses == 1 ? v->uses[0].node : NULL;
      g_autoptr(FwKernelSpec) spec = NULL;

      if (next == NULL || next->graph != d->graph || is_taken (d, next) || !fw_node_runs (next) ||
          !fw_disc_injective_forward (next) || !fw_disc_all_static (next))
        return;
      fw_disc_group_add (d, next);
      spec = fw_group_spec (&d->group, d->plan->profile, FALSE);
      if (fw_kernel_spec_get_attention (spec) == NULL)
        {
          fw_disc_group_remove_last (d, next);
          return;
        }
      cur = next;
    }
}

static gboolean
member_of (const FwNode *node, gpointer data)
{
  return is_member (data, node);
}

/* Whether a value the group reads from outside depends on the group: through a Shape a member's result
 * reaches a folded shape or slice bound another member takes (Llama's Q: Transpose → Shape → … → the ends
 * of the Slices of its rotary embedding), a cycle once the group is one node. */
static gboolean
reads_itself (Disc *d)
{
  for (guint i = 0; i < d->group.nodes->len; i++)
    {
      FwNode *m = g_ptr_array_index (d->group.nodes, i);
      for (guint k = 0; k < m->n_inputs; k++)
        {
          FwValue *v = m->inputs[k];
          if (v != NULL && v->producer != NULL && v->producer->graph == d->graph && !is_member (d, v->producer) &&
              fw_disc_depends_on_group (d, v->producer))
            return TRUE;
        }
    }
  return FALSE;
}

/* Whether a reader of the node's results does not run (a Shape): the one way out of a prologue, whose other
 * readers are all inside. */
static gboolean
read_by_folded (const FwNode *node)
{
  for (guint k = 0; k < node->n_outputs; k++)
    for (guint u = 0; node->outputs[k] != NULL && u < node->outputs[k]->n_uses; u++)
      if (!fw_node_runs (node->outputs[k]->uses[u].node))
        return TRUE;
  return FALSE;
}

/* Takes the operands' producers (Q's and K's rotary embedding, the heads split off and repeated for grouped
 * queries, a scale on Q) while each is one the kernel computes as it loads its operand and every reader of
 * it that runs is inside. Repeated until nothing joins: a value read by several members (Q read by the
 * rotary embedding's product and both halves of its rotation) joins once the last of them has. */
static void
take_prologue (Disc *d, FwNode *scores, FwNode *product)
{
  g_autoptr(GPtrArray) walk = g_ptr_array_new ();
  gboolean changed = TRUE, folded = FALSE;
  g_autoptr(FwKernelSpec) spec = NULL;
  guint first = d->group.nodes->len;

  g_ptr_array_add (walk, scores);
  g_ptr_array_add (walk, product);
  while (changed)
    {
      changed = FALSE;
      for (guint i = 0; i < walk->len; i++)
        {
          FwNode *m = g_ptr_array_index (walk, i);
          for (guint k = m == product ? 1 : 0; k < m->n_inputs; k++)
            {
              FwValue *v = m->inputs[k];
              FwNode *p = v != NULL ? v->producer : NULL;
              if (p == NULL || !fw_node_is_data_input (m, k) || p->graph != d->graph || is_member (d, p) ||
                  is_taken (d, p) || !fw_node_runs (p) || d->group.nodes->len >= d->max_size ||
                  !fw_attention_prologue_op (p) || !fw_attention_used_inside (p, member_of, d))
                continue;
              fw_disc_group_add (d, p);
              /* Only a member read by a node that does not run leads out of the group and maybe back: the
                 walk is made only then (it is the costly part on a long stack). */
              if ((folded || read_by_folded (p)) && reads_itself (d))
                {
                  fw_disc_group_remove_last (d, p);
                  continue;
                }
              folded = folded || read_by_folded (p);
              g_ptr_array_add (walk, p);
              changed = TRUE;
            }
        }
    }
  if (d->group.nodes->len == first)
    return;
  spec = fw_group_spec (&d->group, d->plan->profile, FALSE);
  if (fw_kernel_spec_get_attention (spec) != NULL)
    return;
  /* Not one the spec describes: the attention without its prologue. */
  for (guint i = 2; i < walk->len; i++)
    fw_disc_group_remove_last (d, g_ptr_array_index (walk, i));
}

/* Whether the group as it stands may be one kernel: size, inputs, the Unified Buffer and the time. */
static gboolean
pays (Disc *d, FwNode *softmax)
{
  g_autoptr(FwKernelSpec) spec = fw_group_spec (&d->group, d->plan->profile, FALSE);
  FwResourceEstimate res;
  FwCostEstimate cost;

  if (fw_kernel_spec_get_attention (spec) == NULL)
    return FALSE;
  if (d->group.nodes->len > d->max_size)
    {
      fw_disc_refuse (d, FW_NF_MAX_SIZE, softmax, _("the group would have %u nodes; the maximum fusion size is %u"),
                      d->group.nodes->len, d->max_size);
      return FALSE;
    }
  if (!fw_estimate_resource (spec, d->plan->profile, &res))
    {
      g_autofree char *need = fw_format_bytes (res.ub_min_bytes);
      g_autofree char *budget = fw_format_bytes (res.ub_budget_bytes);
      fw_disc_refuse (d, FW_NF_UB, softmax, _("the attention needs %s of UB for its smallest blocks, budget %s (%s)"), need,
                      budget, d->plan->profile->name);
      return FALSE;
    }
  if (res.kernel_inputs > d->plan->profile->max_kernel_inputs)
    {
      fw_disc_refuse (d, FW_NF_MAX_INPUTS, softmax, _("the kernel would read %u inputs; %s allows %u"),
                      res.kernel_inputs, d->plan->profile->name, d->plan->profile->max_kernel_inputs);
      return FALSE;
    }
  fw_estimate_cost (spec, d->plan->profile, &cost);
  if (cost.saving_s <= 0)
    {
      fw_disc_refuse (d, FW_NF_NO_BENEFIT, softmax,
                      _("fused attention %.2f us, its operators apart %.2f us on %s: no time saved"),
                      cost.time_after_s * 1e6, cost.time_before_s * 1e6, d->plan->profile->name);
      return FALSE;
    }
  return TRUE;
}

void
fw_disc_grow_attention (Disc *d, FwNode *scores)
{
  g_autoptr(GPtrArray) chain = g_ptr_array_new ();
  FwReasonCode code = 0;
  g_autofree char *why = NULL;
  FwNode *culprit = NULL, *softmax, *product;
  FwValue *out = first_output (scores);

  fw_disc_group_reset (d);
  if (out == NULL || !fw_value_is_static (out))
    return;
  if (!fw_attention_match (scores, chain, &code, &why, &culprit))
    {
      if (code != 0)
        {
          fw_disc_group_add (d, scores);
          fw_disc_refuse (d, code, culprit, "%s", why);
          fw_disc_group_reset (d);
        }
      return;
    }
  softmax = g_ptr_array_index (chain, chain->len - 2);
  product = g_ptr_array_index (chain, chain->len - 1);
  for (guint i = 0; i < chain->len; i++)
    {
      FwNode *n = g_ptr_array_index (chain, i);
      if (is_taken (d, n) || !fw_node_runs (n))
        return;
    }
  if (d->strategy == FW_STRATEGY_CONSERVATIVE)
    {
      fw_disc_group_add (d, scores);
      fw_disc_refuse (d, FW_NF_STRATEGY, softmax,
                      _("attention (%s → … → Softmax → %s) fuses from the balanced strategy on"), scores->op_type,
                      product->op_type);
      fw_disc_group_reset (d);
      return;
    }
  d->group.root = scores;
  fw_disc_space_from (&d->group.space, out, 1);
  for (guint i = 0; i < chain->len; i++)
    fw_disc_group_add (d, g_ptr_array_index (chain, i));
  take_tail (d, product);
  take_prologue (d, scores, product);
  if (!pays (d, softmax))
    {
      fw_disc_group_reset (d);
      return;
    }
  fw_plan_debug (d->plan, "attention from %s: %u nodes", scores->name, d->group.nodes->len);
  fw_disc_finish_group (d, "attention");
}
