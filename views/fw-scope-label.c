#include "config.h"

#include <glib/gi18n.h>

#include "fw-scope-label.h"

gdouble *
fw_scope_savings (FwLayout *layout, const FwPlan *plan)
{
  guint n = fw_layout_get_n_boxes (layout);
  gdouble *saving;

  if (plan == NULL || plan->candidates == NULL)
    return NULL;
  saving = g_new0 (gdouble, MAX (n, 1));
  for (guint c = 0; c < plan->candidates->len; c++)
    {
      const FwCandidate *cand = g_ptr_array_index (plan->candidates, c);

      if (!fw_candidate_is_fused (cand))
        continue;
      for (guint i = 0; i < cand->nodes->len; i++)
        {
          guint b = fw_layout_find_node (layout, g_ptr_array_index (cand->nodes, i));

          if (b == G_MAXUINT)
            continue;
          if (fw_layout_get_box (layout, b)->kind == FW_LAYOUT_BOX_SCOPE)
            saving[b] += fw_candidate_get_cost (cand)->saving_s;
          break;
        }
    }
  return saving;
}

char *
fw_scope_label (const FwLayoutBox *box, gdouble saving_s)
{
  g_autofree char *name = g_utf8_make_valid (box->label != NULL ? box->label : "", -1);
  gdouble us = saving_s * 1e6;

  if (!(us >= 0.05))
    return g_strdup_printf ("%s (%u)", name, box->n_nodes);
  if (us >= 1000)
    /* Translators: a collapsed scope: its name, the nodes inside and the time fusion saves there. */
    return g_strdup_printf (_("%s (%u) · −%.1f ms"), name, box->n_nodes, us / 1000);
  /* Translators: a collapsed scope: its name, the nodes inside and the time fusion saves there. */
  return g_strdup_printf (_("%s (%u) · −%.1f µs"), name, box->n_nodes, us);
}
