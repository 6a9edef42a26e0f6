#include "config.h"

#include <string.h>

#include "fw-group-namespace.h"
#include "graph/fw-graph-private.h"

/* The scope every node of the group lies in: the longest common run of whole path parts. */
static char *
group_scope (const FwCandidate *cand)
{
  const FwNode *first = g_ptr_array_index (cand->nodes, 0);
  const char *a = first->scope != NULL ? first->scope : "";
  gsize len = strlen (a);

  for (guint i = 1; i < cand->nodes->len; i++)
    {
      const FwNode *node = g_ptr_array_index (cand->nodes, i);
      const char *b = node->scope != NULL ? node->scope : "";
      gsize k = 0;

      while (k < len && b[k] != '\0' && b[k] == a[k])
        k++;
      /* Back to the end of a whole part of both ("attn" of "attn/q" and "attn/k", not "at" of "at" and
       * "attn"). */
      if (!((k == len || a[k] == '/') && (b[k] == '\0' || b[k] == '/')))
        {
          while (k > 0 && a[k - 1] != '/')
            k--;
          if (k > 0)
            k--;
        }
      len = k;
    }
  return g_strndup (a, len);
}

char *
fw_plan_group_namespace (const FwPlan *plan, guint candidate)
{
  const FwCandidate *cand;
  g_autofree char *scope = NULL;

  g_return_val_if_fail (plan != NULL && candidate < plan->candidates->len, NULL);
  cand = g_ptr_array_index (plan->candidates, candidate);
  scope = group_scope (cand);
  return g_strdup_printf ("%s%sfused_%u_%s", scope, scope[0] ? "/" : "", candidate, cand->pattern);
}

GHashTable *
fw_plan_group_namespaces (const FwPlan *plan)
{
  GHashTable *namespaces = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);

  g_return_val_if_fail (plan != NULL, namespaces);
  for (guint c = 0; c < plan->candidates->len; c++)
    {
      const FwCandidate *cand = g_ptr_array_index (plan->candidates, c);

      if (!fw_candidate_is_fused (cand))
        continue;
      for (guint k = 0; k < cand->nodes->len; k++)
        g_hash_table_insert (namespaces, g_ptr_array_index (cand->nodes, k), fw_plan_group_namespace (plan, c));
    }
  return namespaces;
}
