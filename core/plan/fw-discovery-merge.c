/* fw-discovery-merge.c: the aggressive strategy's merge pass (docs/design.md §5.1). Whole groups join into
 * multi-output kernels: a producer group into its consumer, sibling groups reading the same tensor
 * (horizontal fusion), and groups on either side of a reshape-like view. */
#include "config.h"

#include <string.h>

#include "fw-discovery-private.h"

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
  /* A fused attention is a kernel of its own form: nothing merges into it. */
  if ((ca && strcmp (ca->kind, "attention") == 0) || strcmp (cb->kind, "attention") == 0)
    return FALSE;
  /* Nor into a horizontal GEMM, whose slices are epilogues of its products only. */
  if ((ca && strcmp (ca->kind, "horizontal_gemm") == 0) || strcmp (cb->kind, "horizontal_gemm") == 0)
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
  fw_disc_group_reset (d);
  for (guint i = 0; i < n_a; i++)
    fw_disc_group_add (d, g_ptr_array_index (ca->nodes, i));
  if (bridge)
    fw_disc_group_add (d, bridge);
  for (guint i = 0; i < cb->nodes->len; i++)
    fw_disc_group_add (d, g_ptr_array_index (cb->nodes, i));
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
              if (!is_member (d, x) && x->graph == d->graph && fw_disc_group_depends_on (d, x))
                ok = FALSE;
            }
        }
    }
  if (ok && fw_disc_group_indexed (d))
    {
      char *why = NULL;
      GHashTable *maps = fw_index_maps_compute (d->group.nodes, d->group.root, &d->group.space, NULL, &why, NULL);
      ok = why == NULL;
      g_free (why);
      if (maps != NULL)
        g_hash_table_unref (maps);
    }
  ok = ok && !fw_disc_covers_vetoed (d) && fw_disc_row_ops_after_reduce (d) <= 3 && fw_disc_group_depth (d) <= d->max_depth &&
       fw_disc_group_fits (d, &res) && res.kernel_inputs <= d->plan->profile->max_kernel_inputs;
  if (ok)
    {
      g_ptr_array_set_size (cb->nodes, 0);
      for (guint i = 0; i < d->group.nodes->len; i++)
        g_ptr_array_add (cb->nodes, g_ptr_array_index (d->group.nodes, i));
      cb->root = d->group.root;
      g_array_index (d->spaces, FwSpace, b) = d->group.space;
      for (guint i = 0; i < n_a; i++)
        d->group_of[((FwNode *) g_ptr_array_index (ca->nodes, i))->index] = b + 1;
      if (bridge)
        d->group_of[bridge->index] = b + 1;
      if (ca)
        g_ptr_array_set_size (ca->nodes, 0);
      fw_plan_debug (d->plan, "merged %s%s into group #%u (%u nodes)", ca ? "a group" : "",
                     bridge ? " through a view" : "", b, cb->nodes->len);
    }
  fw_disc_group_reset (d);
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

      if (!is_view (v) || is_taken (d, v) || !fw_node_runs (v) || !fw_disc_all_static (v))
        continue;
      in = first_input (v);
      out = first_output (v);
      if (in == NULL || out == NULL)
        continue;
      a = in->producer && in->producer->graph == d->graph ? d->group_of[in->producer->index] : 0;
      for (guint u = 0; u < out->n_uses; u++)
        {
          FwNode *x = out->uses[u].node;
          guint b = x->graph == d->graph ? d->group_of[x->index] : 0;
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

void
fw_disc_merge_groups (Disc *d)
{
  GPtrArray *cands = d->plan->candidates;
  g_autoptr(GPtrArray) kept = g_ptr_array_new ();
  gboolean changed = TRUE, any = fw_disc_grow_horizontal_gemms (d);

  g_array_set_size (d->horizontal, cands->len);
  g_array_set_size (d->bridged, cands->len);
  for (guint round = 0; changed && round < 16; round++)
    {
      changed = FALSE;
      for (guint b = d->first; b < cands->len; b++)
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
                      if (p == NULL || p->graph != d->graph || (a = d->group_of[p->index]) == 0 || a - 1 == b)
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
                           d->group_of[v->producer->index] == b + 1))
                        continue;
                      for (guint u = 0; !merged && u < v->n_uses; u++)
                        {
                          FwNode *x = v->uses[u].node;
                          guint a = x->graph == d->graph ? d->group_of[x->index] : 0;
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

  /* Drop the emptied groups and renumber; merged ones get fresh estimates. Only this region's candidates
     (from d->first on) move: earlier regions' keep their numbers. */
  for (guint i = d->first; i < cands->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (cands, i);
      if (c->nodes->len > 0)
        g_ptr_array_add (kept, c);
    }
  if (!any)
    return;
  for (guint i = d->first; i < cands->len; i++)
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
  while (cands->len > d->first)
    g_ptr_array_steal_index (cands, cands->len - 1);
  for (guint i = 0; i < kept->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (kept, i);
      guint old = c->index, now = d->first + i;

      c->index = now;
      g_ptr_array_add (cands, c);
      g_array_index (d->spaces, FwSpace, now) = g_array_index (d->spaces, FwSpace, old);
      g_array_index (d->horizontal, gboolean, now) = g_array_index (d->horizontal, gboolean, old);
      g_array_index (d->bridged, gboolean, now) = g_array_index (d->bridged, gboolean, old);
      for (guint n = 0; n < c->nodes->len; n++)
        d->group_of[((FwNode *) g_ptr_array_index (c->nodes, n))->index] = now + 1;
    }
  g_array_set_size (d->spaces, d->first + kept->len);
  for (guint i = d->first; i < cands->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (cands, i);
      gboolean multi = FALSE;

      fw_disc_group_reset (d);
      for (guint n = 0; n < c->nodes->len; n++)
        fw_disc_group_add (d, g_ptr_array_index (c->nodes, n));
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
      if (strcmp (c->kind, "horizontal_gemm") != 0 &&
          (multi || g_array_index (d->horizontal, gboolean, i) || g_array_index (d->bridged, gboolean, i)))
        {
          const char *kind = multi ? "multi_output" : g_array_index (d->horizontal, gboolean, i) ? "horizontal"
                                                                                               : "through_views";
          g_free (c->kind);
          c->kind = g_strdup (kind);
          g_free (c->pattern);
          c->pattern = g_strdup (kind);
        }
      c->depth = fw_disc_group_depth (d);
      fw_candidate_set_spec (d->plan, c, &d->group);
    }
  fw_disc_group_reset (d);
}
