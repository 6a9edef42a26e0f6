#include "config.h"

#include "fw-plan-diff.h"
#include "graph/fw-graph-private.h"

/* Node name → the fused candidate of plan holding it. */
static GHashTable *
fused_by_name (const FwPlan *plan)
{
  GHashTable *by_name = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);

      if (!fw_candidate_is_fused (c))
        continue;
      for (guint k = 0; k < c->nodes->len; k++)
        g_hash_table_insert (by_name, (gpointer) ((FwNode *) g_ptr_array_index (c->nodes, k))->name,
                             GUINT_TO_POINTER (i + 1));
    }
  return by_name;
}

GArray *
fw_plan_diff (const FwPlan *a, const FwPlan *b)
{
  GArray *diff = g_array_new (FALSE, FALSE, sizeof (FwPlanDiffEntry));
  g_autoptr(GHashTable) in_b = fused_by_name (b);
  g_autofree gboolean *b_overlapped = g_new0 (gboolean, MAX (b->candidates->len, 1));

  for (guint i = 0; i < a->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (a->candidates, i);
      FwPlanDiffEntry e = { FW_PLAN_DIFF_REMOVED, i, G_MAXUINT };
      gboolean all_same = TRUE;

      if (!fw_candidate_is_fused (c))
        continue;
      for (guint k = 0; k < c->nodes->len; k++)
        {
          guint other = GPOINTER_TO_UINT (g_hash_table_lookup (in_b, ((FwNode *) g_ptr_array_index (c->nodes, k))->name));

          if (other == 0)
            {
              all_same = FALSE;
              continue;
            }
          b_overlapped[other - 1] = TRUE;
          if (e.b == G_MAXUINT)
            e.b = other - 1;
          else if (e.b != other - 1)
            all_same = FALSE;
        }
      if (e.b != G_MAXUINT)
        {
          const FwCandidate *m = g_ptr_array_index (b->candidates, e.b);

          e.kind = all_same && m->nodes->len == c->nodes->len ? FW_PLAN_DIFF_SAME : FW_PLAN_DIFF_CHANGED;
        }
      g_array_append_val (diff, e);
    }
  for (guint j = 0; j < b->candidates->len; j++)
    {
      FwPlanDiffEntry e = { FW_PLAN_DIFF_ADDED, G_MAXUINT, j };

      if (fw_candidate_is_fused (g_ptr_array_index (b->candidates, j)) && !b_overlapped[j])
        g_array_append_val (diff, e);
    }
  return diff;
}

void
fw_plan_diff_count (GArray *diff, guint counts[4])
{
  counts[0] = counts[1] = counts[2] = counts[3] = 0;
  for (guint i = 0; i < diff->len; i++)
    counts[g_array_index (diff, FwPlanDiffEntry, i).kind]++;
}
