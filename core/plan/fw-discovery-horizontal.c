/* fw-discovery-horizontal.c: the aggressive strategy's horizontal GEMM (FwHgemmSpec, fw-kernel-spec.h).
 * Projections that read the same activation with constant weights (attention's Q, K and V; an MLP's gate
 * and up) become one group: one product over their weights side by side, each projection's epilogue group
 * kept whole on its column slice. Run before the merge pass, on the groups the epilogue pass made; the
 * group is taken when it saves more than the projections' own kernels did, else the refusal says why. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-discovery-private.h"

/* The candidate a projection's root leads (G_MAXUINT: none, it runs alone), or FALSE when the root is in
 * some other group (an attention, an integer kernel) and is not this pass's to take. */
static gboolean
slice_group (Disc *d, FwNode *root, guint *cand)
{
  guint g = d->group_of[root->index];
  FwCandidate *c;

  *cand = G_MAXUINT;
  if (g == 0)
    return !is_taken (d, root);
  c = g_ptr_array_index (d->plan->candidates, g - 1);
  if (c->root != root || strcmp (c->kind, "epilogue") != 0)
    return FALSE;
  *cand = g - 1;
  return TRUE;
}

/* Whether every non-root member of a projection's group is one the horizontal kernel computes per slice;
 * the first that is not in *bad. */
static gboolean
epilogue_fits (Disc *d, guint cand, FwNode **bad)
{
  FwCandidate *c = cand != G_MAXUINT ? g_ptr_array_index (d->plan->candidates, cand) : NULL;

  for (guint i = 0; c != NULL && i < c->nodes->len; i++)
    {
      FwNode *m = g_ptr_array_index (c->nodes, i);
      if (m != c->root && !fw_hgemm_epilogue_op (m))
        {
          *bad = m;
          return FALSE;
        }
    }
  return TRUE;
}

static gdouble
saving_of (Disc *d, guint cand)
{
  return cand != G_MAXUINT ? fw_candidate_get_cost (g_ptr_array_index (d->plan->candidates, cand))->saving_s : 0;
}

/* No value of the group is read outside by a node that leads back into it (siblings have no order between
 * them, so a path from one slice's result to another's epilogue through an outside node would be a cycle). */
static gboolean
acyclic (Disc *d)
{
  for (guint i = 0; i < d->group.nodes->len; i++)
    {
      FwNode *m = g_ptr_array_index (d->group.nodes, i);
      for (guint k = 0; k < m->n_outputs; k++)
        for (guint u = 0; m->outputs[k] != NULL && u < m->outputs[k]->n_uses; u++)
          {
            FwNode *x = m->outputs[k]->uses[u].node;
            if (!is_member (d, x) && x->graph == d->graph && fw_disc_group_depends_on (d, x))
              return FALSE;
          }
    }
  return TRUE;
}

/* Makes the group of the slices (roots and their candidates, aligned) the new candidate, emptying theirs
 * (the merge pass drops empty candidates when it renumbers). */
static void
take (Disc *d, GPtrArray *roots, GArray *cands)
{
  FwCandidate *c = fw_disc_add_candidate (d, "horizontal_gemm");

  for (guint i = 0; i < cands->len; i++)
    {
      guint old = g_array_index (cands, guint, i);
      if (old != G_MAXUINT)
        g_ptr_array_set_size (((FwCandidate *) g_ptr_array_index (d->plan->candidates, old))->nodes, 0);
    }
  fw_plan_debug (d->plan, "horizontal GEMM of %u projections from %s: %u nodes", roots->len,
                 ((FwNode *) g_ptr_array_index (roots, 0))->name, c->nodes->len);
}

/* The projections reading `a`: each qualifying root and its candidate; refusals for those that do not. */
static void
collect (Disc *d, FwValue *a, GPtrArray *roots, GArray *cands)
{
  for (guint u = 0; u < a->n_uses; u++)
    {
      FwNode *x = a->uses[u].node;
      g_autofree char *why = NULL;
      FwNode *bad = NULL;
      guint cand;

      if (a->uses[u].slot != 0 || x->graph != d->graph || !fw_node_runs (x) || x->domain[0] != '\0' ||
          (strcmp (x->op_type, "MatMul") != 0 && strcmp (x->op_type, "Gemm") != 0) || g_ptr_array_find (roots, x, NULL))
        continue;
      if (!slice_group (d, x, &cand))
        continue;
      if (!fw_hgemm_slice_root (x, &why))
        {
          if (why != NULL)
            {
              fw_disc_group_add (d, x);
              fw_disc_refuse (d, FW_NF_HGEMM, x, "%s", why);
              fw_disc_group_reset (d);
            }
          continue;
        }
      if (!epilogue_fits (d, cand, &bad))
        {
          fw_disc_group_add (d, x);
          fw_disc_refuse (d, FW_NF_HGEMM_EPILOGUE, bad,
                          _("%s “%s” in the epilogue of “%s”: the horizontal GEMM computes elementwise arithmetic, "
                            "activations and views on each slice"), bad->op_type, bad->name, x->name);
          fw_disc_group_reset (d);
          continue;
        }
      g_ptr_array_add (roots, x);
      g_array_append_val (cands, cand);
    }
}

static FwNode *
first_product (Disc *d)
{
  for (guint i = 0; i < d->group.nodes->len; i++)
    {
      FwNode *m = g_ptr_array_index (d->group.nodes, i);
      if (strcmp (m->op_type, "MatMul") == 0 || strcmp (m->op_type, "Gemm") == 0)
        return m;
    }
  return NULL;
}

static gdouble
group_saving (Disc *d)
{
  g_autoptr(FwKernelSpec) spec = fw_group_spec (&d->group, d->plan->profile, FALSE);
  FwCostEstimate cost;

  fw_estimate_cost (spec, d->plan->profile, &cost);
  return cost.saving_s;
}

/* What the norm would save in the group of its input's producer instead (the merge pass joins the two under
 * the aggressive strategy): the saving of the two together less the producer group's own; 0 when its input
 * comes from no group. The group under construction is kept. */
static gdouble
saving_in_producer (Disc *d, FwValue *x, GPtrArray *norm)
{
  guint g = x->producer != NULL && x->producer->graph == d->graph ? d->group_of[x->producer->index] : 0;
  g_autoptr(GPtrArray) kept = NULL;
  FwCandidate *p;
  FwGroup saved;
  gdouble both;

  if (g == 0)
    return 0;
  p = g_ptr_array_index (d->plan->candidates, g - 1);
  if (p->nodes->len == 0 || strcmp (p->kind, "epilogue") != 0)
    return 0;
  kept = g_ptr_array_copy (d->group.nodes, NULL, NULL);
  saved = d->group;
  fw_disc_group_reset (d);
  for (guint i = 0; i < p->nodes->len; i++)
    fw_disc_group_add (d, g_ptr_array_index (p->nodes, i));
  for (guint i = 0; i < norm->len; i++)
    fw_disc_group_add (d, g_ptr_array_index (norm, i));
  d->group.root = p->root;
  d->group.space = g_array_index (d->spaces, FwSpace, g - 1);
  /* As the merge pass joins them: the norm's rows held whole. */
  d->group.space.row_axes = MAX (d->group.space.row_axes, 1);
  both = group_saving (d);
  fw_disc_group_reset (d);
  for (guint i = 0; i < kept->len; i++)
    fw_disc_group_add (d, g_ptr_array_index (kept, i));
  d->group.root = saved.root;
  d->group.space = saved.space;
  return both - fw_candidate_get_cost (p)->saving_s;
}

/* The RMSNorm making `a`, read by the products only, into the group's prologue when the one kernel saves more
 * than the products apart (`saving`: the group's without it) and the norm as its own group or in its input's
 * producer's: its candidate, if it has one made of exactly its nodes, is appended to cands to be emptied. The
 * refusal says why not. */
static void
take_norm (Disc *d, FwValue *a, GPtrArray *roots, GArray *cands, gdouble saving)
{
  g_autoptr(GPtrArray) nodes = g_ptr_array_new ();
  FwHgemmSpec norm = { 0 };
  guint cand = G_MAXUINT, n_in = 0;
  gdouble with, apart;

  if (a->is_output || !fw_hgemm_match_norm (a, nodes, &norm))
    return;
  /* Read by the products only (a Shape folded at load reads no element). */
  for (guint u = 0; u < a->n_uses; u++)
    if (!g_ptr_array_find (roots, a->uses[u].node, NULL) && fw_node_runs (a->uses[u].node))
      return;
  for (guint i = 0; i < nodes->len; i++)
    {
      FwNode *m = g_ptr_array_index (nodes, i);
      guint g = m->graph == d->graph ? d->group_of[m->index] : 0;
      if (m->graph != d->graph || !fw_node_runs (m) || (d->excluded != NULL && d->excluded[m->index]))
        return;
      if (g != 0)
        {
          if ((cand != G_MAXUINT && cand != g - 1) ||
              ((FwCandidate *) g_ptr_array_index (d->plan->candidates, g - 1))->nodes->len != nodes->len)
            return;
          cand = g - 1;
          n_in++;
        }
    }
  if (n_in != 0 && n_in != nodes->len)
    return;
  for (guint i = 0; i < nodes->len; i++)
    fw_disc_group_add (d, g_ptr_array_index (nodes, i));
  /* A reader that does not run may still lead back in (Llama's Shape of the normalised value feeds the bounds
     of a view among the epilogues): no cycle through it either. */
  if (!acyclic (d))
    {
      for (guint i = nodes->len; i > 0; i--)
        fw_disc_group_remove_last (d, g_ptr_array_index (nodes, i - 1));
      fw_disc_refuse (d, FW_NF_HGEMM, g_ptr_array_index (nodes, 0),
                      _("the RMSNorm making “%s” reaches the products' epilogues through nodes outside them"), a->name);
      return;
    }
  with = group_saving (d);
  apart = saving + MAX (saving_of (d, cand), saving_in_producer (d, norm.norm_x, nodes));
  if (with > apart && d->group.nodes->len <= d->max_size)
    {
      g_array_append_val (cands, cand);
      return;
    }
  for (guint i = nodes->len; i > 0; i--)
    fw_disc_group_remove_last (d, g_ptr_array_index (nodes, i - 1));
  fw_disc_refuse (d, FW_NF_NO_BENEFIT, g_ptr_array_index (nodes, 0),
                  _("the RMSNorm making “%s” in the products' prologue saves %.2f us, apart %.2f us on %s"), a->name,
                  with * 1e6, apart * 1e6, d->plan->profile->name);
}

/* One activation's projections: FALSE when no group was made. */
static gboolean
grow (Disc *d, FwValue *a)
{
  g_autoptr(GPtrArray) roots = g_ptr_array_new ();
  g_autoptr(GArray) cands = g_array_new (FALSE, FALSE, sizeof (guint));
  guint n_products = 0;
  gdouble apart = 0;
  FwResourceEstimate res;
  gboolean ok;

  for (guint u = 0; u < a->n_uses; u++)
    {
      FwNode *x = a->uses[u].node;
      n_products += a->uses[u].slot == 0 && x->graph == d->graph && fw_node_runs (x) && x->domain[0] == '\0' &&
                    (strcmp (x->op_type, "MatMul") == 0 || strcmp (x->op_type, "Gemm") == 0);
    }
  if (n_products < 2)
    return FALSE;
  collect (d, a, roots, cands);
  if (roots->len < 2)
    return FALSE;
  fw_disc_group_reset (d);
  for (guint i = 0; i < roots->len; i++)
    {
      guint cand = g_array_index (cands, guint, i);
      FwCandidate *c = cand != G_MAXUINT ? g_ptr_array_index (d->plan->candidates, cand) : NULL;

      if (c == NULL)
        fw_disc_group_add (d, g_ptr_array_index (roots, i));
      for (guint n = 0; c != NULL && n < c->nodes->len; n++)
        fw_disc_group_add (d, g_ptr_array_index (c->nodes, n));
      apart += saving_of (d, cand);
    }
  d->group.root = first_product (d);
  {
    /* The space is the product's: A's rows by every slice's columns. */
    g_autoptr(FwKernelSpec) spec = fw_group_spec (&d->group, d->plan->profile, FALSE);
    const FwHgemmSpec *h = fw_kernel_spec_get_hgemm (spec);

    if (h == NULL)
      {
        fw_disc_group_reset (d);
        return FALSE;
      }
    d->group.space.rank = a->rank;
    for (gint i = 0; i < a->rank - 1; i++)
      d->group.space.dims[i] = a->dims[i].value;
    d->group.space.dims[a->rank - 1] = h->n;
    d->group.space.row_axes = 0;
  }
  ok = d->group.nodes->len <= d->max_size;
  if (!ok)
    fw_disc_refuse (d, FW_NF_MAX_SIZE, d->group.root, _("the group would have %u nodes; the maximum fusion size is %u"),
                    d->group.nodes->len, d->max_size);
  /* A set the user vetoed is not made again, and says so in the decisions already. */
  ok = ok && !fw_disc_covers_vetoed (d);
  if (ok && !acyclic (d))
    {
      fw_disc_refuse (d, FW_NF_HGEMM, d->group.root,
                      _("the projections of “%s” reach each other through nodes outside them"), a->name);
      ok = FALSE;
    }
  if (ok && fw_disc_group_fits (d, &res) && res.kernel_inputs > d->plan->profile->max_kernel_inputs)
    {
      fw_disc_refuse (d, FW_NF_MAX_INPUTS, d->group.root, _("the kernel would read %u inputs; %s allows %u"),
                      res.kernel_inputs, d->plan->profile->name, d->plan->profile->max_kernel_inputs);
      ok = FALSE;
    }
  if (ok)
    {
      gdouble saving = group_saving (d);

      if (saving <= apart)
        {
          fw_disc_refuse (d, FW_NF_NO_BENEFIT, d->group.root,
                          _("one GEMM for the %u projections of “%s” saves %.2f us, their own kernels %.2f us on %s"),
                          roots->len, a->name, saving * 1e6, apart * 1e6, d->plan->profile->name);
          ok = FALSE;
        }
      else
        take_norm (d, a, roots, cands, saving);
    }
  if (ok)
    take (d, roots, cands);
  fw_disc_group_reset (d);
  return ok;
}

gboolean
fw_disc_grow_horizontal_gemms (Disc *d)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  gboolean any = FALSE;
  guint n_order;
  FwNode **order = fw_graph_get_order (d->graph, &n_order);

  for (guint i = 0; i < n_order; i++)
    {
      FwNode *node = order[i];
      FwValue *a = node->n_inputs > 0 ? node->inputs[0] : NULL;

      if (a == NULL || !fw_node_runs (node) || node->domain[0] != '\0' ||
          (strcmp (node->op_type, "MatMul") != 0 && strcmp (node->op_type, "Gemm") != 0) ||
          !g_hash_table_add (seen, a) || a->n_uses < 2)
        continue;
      any |= grow (d, a);
    }
  return any;
}
