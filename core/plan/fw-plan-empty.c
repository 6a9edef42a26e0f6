#include "config.h"

#include <glib/gi18n-lib.h>

#include "fw-plan-empty.h"

#define TOP_CODES 3

/* "FW-NF-006 (a dimension is dynamic and not bound) ×103, …": the commonest codes first. */
static void
append_top_codes (GString *s, const FwPlan *plan)
{
  guint counts[FW_NF_N_CODES] = { 0 };

  for (guint i = 0; i < plan->refusals->len; i++)
    {
      const FwRefusal *r = g_ptr_array_index (plan->refusals, i);

      if ((guint) r->code < FW_NF_N_CODES)
        counts[r->code]++;
    }
  for (guint shown = 0; shown < TOP_CODES; shown++)
    {
      guint best = 0;

      for (guint c = 1; c < FW_NF_N_CODES; c++)
        if (counts[c] > counts[best])
          best = c;
      if (counts[best] == 0)
        break;
      if (shown > 0)
        g_string_append (s, ", ");
      /* Translators: a reason code, its meaning and how many refusals carry it. */
      g_string_append_printf (s, _("%s (%s) ×%u"), fw_reason_code_string (best), fw_reason_code_title (best),
                              counts[best]);
      counts[best] = 0;
    }
}

char *
fw_plan_explain_empty (const FwPlan *plan, const char * const *unbound)
{
  g_autoptr(GString) s = NULL;
  guint vetoed = 0;

  g_return_val_if_fail (plan != NULL, NULL);
  for (guint i = 0; plan->candidates != NULL && i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);

      if (fw_candidate_is_fused (c))
        return NULL;
      vetoed += c->status == FW_CANDIDATE_VETOED;
    }
  if (!plan->options.enabled)
    return g_strdup (_("Fusion is turned off (AUTOFUSION_ENABLE=0): nothing was planned."));

  s = g_string_new (NULL);
  if (unbound != NULL && unbound[0] != NULL)
    {
      g_autofree char *names = g_strjoinv (", ", (char **) unbound);

      g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE,
                                              "Nothing is fused: the symbolic dimension %s has no size. Bind it to plan.",
                                              "Nothing is fused: the symbolic dimensions %s have no size. Bind them to plan.",
                                              g_strv_length ((char **) unbound)), names);
    }
  else if (plan->refusals->len == 0 && vetoed == 0)
    return g_strdup (_("Nothing is fused: no operator here can join another in one kernel (the model has no "
                       "elementwise, reduction or normalisation operator next to another it could fuse with)."));
  else if (vetoed > 0 && plan->refusals->len == 0)
    g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE, "Nothing is fused: the only candidate is vetoed.",
                                            "Nothing is fused: all %u candidates are vetoed.", vetoed), vetoed);
  else
    g_string_append (s, _("Nothing is fused: every candidate was refused."));
  if (plan->refusals->len > 0)
    {
      g_string_append_c (s, ' ');
      g_string_append (s, _("Commonest reasons:"));
      g_string_append_c (s, ' ');
      append_top_codes (s, plan);
      g_string_append_c (s, '.');
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}
