#include "config.h"

#include <glib/gi18n-lib.h>

#include "fw-node-refusal.h"
#include "graph/fw-graph-private.h"

guint
fw_plan_fused_candidate_of (const FwPlan *plan, const FwNode *node)
{
  const FwCandidate *c;
  guint group;

  g_return_val_if_fail (plan != NULL && node != NULL, G_MAXUINT);
  /* Each planned region (the main graph, a control-flow body) has its own group_of. */
  group = fw_plan_group_of (plan, node);
  if (group == 0 || group > plan->candidates->len)
    return G_MAXUINT;
  c = g_ptr_array_index (plan->candidates, group - 1);
  return fw_candidate_is_fused (c) ? group - 1 : G_MAXUINT;
}

GPtrArray *
fw_plan_refusals_of_node (const FwPlan *plan, const FwNode *node)
{
  GPtrArray *found = g_ptr_array_new ();

  g_return_val_if_fail (plan != NULL && node != NULL, found);
  for (guint i = 0; i < plan->refusals->len; i++)
    {
      FwRefusal *r = g_ptr_array_index (plan->refusals, i);

      for (guint k = 0; r->nodes != NULL && k < r->nodes->len; k++)
        if (g_ptr_array_index (r->nodes, k) == node)
          {
            g_ptr_array_add (found, r);
            break;
          }
    }
  return found;
}

char *
fw_plan_describe_unfused (const FwPlan *plan, const FwNode *node, guint max)
{
  g_autoptr(GPtrArray) refusals = NULL;
  g_autoptr(GString) s = NULL;

  g_return_val_if_fail (plan != NULL && node != NULL, NULL);
  if (fw_plan_fused_candidate_of (plan, node) != G_MAXUINT)
    return NULL;
  refusals = fw_plan_refusals_of_node (plan, node);
  if (refusals->len == 0)
    return NULL;
  s = g_string_new (NULL);
  for (guint i = 0; i < refusals->len && i < max; i++)
    {
      const FwRefusal *r = g_ptr_array_index (refusals, i);

      if (s->len > 0)
        g_string_append_c (s, '\n');
      g_string_append_printf (s, "%s %s", fw_reason_code_string (r->code), fw_reason_code_title (r->code));
      if (r->message != NULL && r->message[0] != '\0')
        g_string_append_printf (s, ": %s", r->message);
      if (r->candidate < plan->candidates->len)
        {
          const FwCandidate *c = g_ptr_array_index (plan->candidates, r->candidate);

          g_string_append_c (s, ' ');
          /* Translators: the candidate a refused node would have joined: its number and pattern. */
          g_string_append_printf (s, _("(candidate #%u, %s)"), r->candidate, c->pattern);
        }
    }
  if (refusals->len > max)
    {
      g_string_append_c (s, '\n');
      g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE, "and %u more refusal", "and %u more refusals",
                                              refusals->len - max), refusals->len - max);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}
