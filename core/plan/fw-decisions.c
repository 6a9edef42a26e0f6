/* fw-decisions.c: accept, veto, the decision log, undo and redo (fw-decisions.h). */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-decisions.h"
#include "fw-error.h"
#include "fw-plan-private.h"
#include "graph/fw-fingerprint.h"

FwDecision *
fw_decision_new (FwDecisionAction action, const char *source, const char *who, const char *why)
{
  FwDecision *d = g_new0 (FwDecision, 1);

  d->action = action;
  d->candidate = G_MAXUINT;
  d->source = g_strdup (source ? source : "user");
  d->who = g_strdup (who);
  d->why = g_strdup (why);
  d->matched = g_array_new (FALSE, FALSE, sizeof (guint));
  d->refused = g_array_new (FALSE, FALSE, sizeof (guint));
  d->outcome = FW_DECISION_MATCHED_NOTHING;
  return d;
}

FwDecision *
fw_decision_copy (const FwDecision *decision)
{
  FwDecision *d = fw_decision_new (decision->action, decision->source, decision->who, decision->why);

  d->candidate = decision->candidate;
  d->whitelist = decision->whitelist;
  d->pattern = g_strdup (decision->pattern);
  d->nodes = g_strdupv (decision->nodes);
  d->body = g_strdup (decision->body);
  d->fingerprint = g_strdup (decision->fingerprint);
  d->scope = g_strdup (decision->scope);
  d->scope_name = g_strdup (decision->scope_name);
  return d;
}

void
fw_decision_free (FwDecision *decision)
{
  if (decision == NULL)
    return;
  g_free (decision->pattern);
  g_strfreev (decision->nodes);
  g_free (decision->body);
  g_free (decision->fingerprint);
  g_free (decision->scope);
  g_free (decision->scope_name);
  g_free (decision->source);
  g_free (decision->who);
  g_free (decision->why);
  g_array_unref (decision->matched);
  g_array_unref (decision->refused);
  g_free (decision);
}

const char *
fw_decision_action_name (FwDecisionAction action)
{
  switch (action)
    {
    case FW_DECISION_VETO: return "veto";
    case FW_DECISION_SUPERKERNEL: return "superkernel";
    case FW_DECISION_SUPERKERNEL_REMOVE: return "superkernel_remove";
    case FW_DECISION_ACCEPT:
    default: return "accept";
    }
}

const char *
fw_decision_outcome_name (FwDecisionOutcome outcome)
{
  switch (outcome)
    {
    case FW_DECISION_APPLIED: return "applied";
    case FW_DECISION_REFUSED: return "refused";
    case FW_DECISION_OTHER_MODEL: return "other_model";
    case FW_DECISION_MATCHED_NOTHING:
    default: return "matched_nothing";
    }
}

const char *
fw_plan_get_fingerprint (FwPlan *plan)
{
  if (plan->fingerprint == NULL)
    plan->fingerprint = fw_model_fingerprint (plan->model);
  return plan->fingerprint;
}

static gint
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* The node names of a decision, sorted, for set comparison. */
static GPtrArray *
sorted_names (const FwDecision *d)
{
  GPtrArray *names = g_ptr_array_new ();

  for (guint i = 0; d->nodes && d->nodes[i]; i++)
    g_ptr_array_add (names, d->nodes[i]);
  g_ptr_array_sort (names, compare_strings);
  return names;
}

static gboolean
same_node_set (const FwCandidate *c, GPtrArray *wanted)
{
  g_autoptr(GPtrArray) names = NULL;

  if (c->nodes->len != wanted->len)
    return FALSE;
  names = g_ptr_array_sized_new (c->nodes->len);
  for (guint i = 0; i < c->nodes->len; i++)
    g_ptr_array_add (names, (gpointer) ((FwNode *) g_ptr_array_index (c->nodes, i))->name);
  g_ptr_array_sort (names, compare_strings);
  for (guint i = 0; i < names->len; i++)
    if (strcmp (g_ptr_array_index (names, i), g_ptr_array_index (wanted, i)) != 0)
      return FALSE;
  return TRUE;
}

static gboolean
matches (const FwDecision *d, GPtrArray *wanted, const FwCandidate *c)
{
  if (d->candidate != G_MAXUINT)
    return c->index == d->candidate;
  if (d->pattern != NULL)
    return strcmp (c->pattern, d->pattern) == 0 || strcmp (c->kind, d->pattern) == 0;
  /* Node names are unique in a graph only: a body's nodes are matched in that body. */
  return wanted != NULL && wanted->len > 0 && g_strcmp0 (c->body, d->body) == 0 && same_node_set (c, wanted);
}

/* Refused for no benefit only: the one refusal an accept may override. */
static gboolean
overridable (const FwPlan *plan, const FwCandidate *c)
{
  gboolean any = FALSE;

  for (guint i = 0; i < plan->refusals->len; i++)
    {
      const FwRefusal *r = g_ptr_array_index (plan->refusals, i);
      if (r->candidate != c->index)
        continue;
      if (r->code != FW_NF_NO_BENEFIT)
        return FALSE;
      any = TRUE;
    }
  return any;
}

static char *
describe_source (const FwDecision *d)
{
  GString *s = g_string_new (d->source);

  if (d->who || d->why)
    g_string_append_printf (s, " (%s%s%s)", d->who ? d->who : "", d->who && d->why ? ": " : "",
                            d->why ? d->why : "");
  return g_string_free (s, FALSE);
}

static void
veto_candidate (FwPlan *plan, FwCandidate *c, const FwDecision *d)
{
  g_autoptr(GPtrArray) freed = g_ptr_array_new ();
  g_autofree char *by = describe_source (d);
  GArray *set = g_array_sized_new (FALSE, FALSE, sizeof (guint), c->nodes->len);
  guint old_len = plan->candidates->len;
  FwGraph *graph = c->nodes->len > 0 ? ((FwNode *) g_ptr_array_index (c->nodes, 0))->graph : NULL;
  const FwPlanRegion *region = fw_plan_get_region (plan, graph);

  c->status = FW_CANDIDATE_VETOED;
  for (guint i = 0; region != NULL && i < c->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (c->nodes, i);
      g_array_append_val (set, node->index);
      if (region->group_of[node->index] == c->index + 1)
        {
          region->group_of[node->index] = 0;
          g_ptr_array_add (freed, node);
        }
    }
  g_ptr_array_add (plan->vetoed, set);
  g_ptr_array_add (plan->vetoed_in, graph);
  fw_plan_refuse (plan, FW_NF_VETOED, c->index, g_ptr_array_copy (c->nodes, NULL, NULL),
                  g_strdup_printf (_("vetoed by %s"), by));
  fw_discover_region (plan, freed);
  for (guint i = old_len; i < plan->candidates->len; i++)
    fw_plan_settle (plan, g_ptr_array_index (plan->candidates, i));
}

static void
apply_to (FwPlan *plan, FwDecision *d, guint number, FwCandidate *c)
{
  guint index = c->index;

  if (d->action == FW_DECISION_VETO)
    {
      if (c->status != FW_CANDIDATE_VETOED)
        {
          c->decision = number + 1;
          veto_candidate (plan, c, d);
        }
      g_array_append_val (d->matched, index);
      return;
    }
  switch (c->status)
    {
    case FW_CANDIDATE_PROPOSED:
    case FW_CANDIDATE_ACCEPTED:
      c->status = FW_CANDIDATE_ACCEPTED;
      c->decision = number + 1;
      g_array_append_val (d->matched, index);
      break;
    case FW_CANDIDATE_REFUSED:
      if (overridable (plan, c))
        {
          c->status = FW_CANDIDATE_ACCEPTED;
          c->decision = number + 1;
          g_array_append_val (d->matched, index);
          fw_plan_debug (plan, "accepted #%u against FW-NF-010 (%s)", index, d->source);
        }
      else
        g_array_append_val (d->refused, index);
      break;
    case FW_CANDIDATE_VETOED:
    default:
      g_array_append_val (d->refused, index);
      break;
    }
}

/* Applies decision `number` of the log. Candidates that re-planning appends meanwhile are matched against
 * the earlier pattern-level decisions too, then this one, so a pattern-level decision holds for them. */
static void
apply_decision (FwPlan *plan, guint number)
{
  FwDecision *d = g_ptr_array_index (plan->decisions, number);
  g_autoptr(GPtrArray) wanted = d->nodes ? sorted_names (d) : NULL;
  guint start = plan->candidates->len;

  g_array_set_size (d->matched, 0);
  g_array_set_size (d->refused, 0);
  /* A SuperKernel scope binds kernels as planned; it changes no candidate (fw_plan_get_user_scopes). */
  if (fw_decision_is_superkernel (d))
    {
      d->outcome = FW_DECISION_APPLIED;
      return;
    }
  if (d->fingerprint != NULL && strcmp (d->fingerprint, fw_plan_get_fingerprint (plan)) != 0)
    {
      d->outcome = FW_DECISION_OTHER_MODEL;
      return;
    }
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (plan->candidates, i);

      if (i >= start)
        for (guint j = 0; j < number; j++)
          {
            FwDecision *earlier = g_ptr_array_index (plan->decisions, j);
            if (earlier->pattern != NULL && earlier->outcome != FW_DECISION_OTHER_MODEL && matches (earlier, NULL, c))
              apply_to (plan, earlier, j, c);
          }
      if (matches (d, wanted, c))
        apply_to (plan, d, number, c);
    }
  d->outcome = d->matched->len > 0 ? FW_DECISION_APPLIED
             : d->refused->len > 0 ? FW_DECISION_REFUSED : FW_DECISION_MATCHED_NOTHING;
}

gboolean
fw_plan_decide (FwPlan *plan, FwDecision *decision, GError **error)
{
  g_return_val_if_fail (plan != NULL && decision != NULL, FALSE);

  if (fw_decision_is_superkernel (decision) && !fw_sk_decision_check (plan, decision, error))
    {
      fw_decision_free (decision);
      return FALSE;
    }
  if (decision->candidate != G_MAXUINT)
    {
      FwCandidate *c;

      if (decision->candidate >= plan->candidates->len)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("there is no candidate #%u (the plan has %u)"),
                       decision->candidate, plan->candidates->len);
          fw_decision_free (decision);
          return FALSE;
        }
      c = g_ptr_array_index (plan->candidates, decision->candidate);
      if (decision->action == FW_DECISION_ACCEPT && c->status == FW_CANDIDATE_VETOED)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_USAGE,
                       _("candidate #%u was vetoed; undo the veto instead of accepting it"), decision->candidate);
          fw_decision_free (decision);
          return FALSE;
        }
      if (decision->nodes == NULL)
        {
          decision->nodes = g_new0 (char *, c->nodes->len + 1);
          for (guint i = 0; i < c->nodes->len; i++)
            decision->nodes[i] = g_strdup (((FwNode *) g_ptr_array_index (c->nodes, i))->name);
          g_free (decision->body);
          decision->body = g_strdup (c->body);
        }
    }
  g_ptr_array_set_size (plan->decisions, plan->n_applied);
  g_ptr_array_add (plan->decisions, decision);
  apply_decision (plan, plan->n_applied);
  plan->n_applied++;
  fw_plan_add_totals (plan);
  return TRUE;
}

static gboolean
decide_candidate (FwPlan *plan, FwDecisionAction action, guint candidate, const char *who, const char *why,
                  GError **error)
{
  FwDecision *d = fw_decision_new (action, "user", who, why);

  d->candidate = candidate;
  return fw_plan_decide (plan, d, error);
}

gboolean
fw_plan_accept (FwPlan *plan, guint candidate, const char *who, const char *why, GError **error)
{
  return decide_candidate (plan, FW_DECISION_ACCEPT, candidate, who, why, error);
}

gboolean
fw_plan_veto (FwPlan *plan, guint candidate, const char *who, const char *why, GError **error)
{
  return decide_candidate (plan, FW_DECISION_VETO, candidate, who, why, error);
}

gboolean
fw_plan_decide_pattern (FwPlan *plan, FwDecisionAction action, const char *pattern, const char *who,
                        const char *why, GError **error)
{
  FwDecision *d = fw_decision_new (action, "user", who, why);

  d->pattern = g_strdup (pattern);
  return fw_plan_decide (plan, d, error);
}

gboolean
fw_plan_can_undo (const FwPlan *plan)
{
  return plan->n_applied > 0;
}

gboolean
fw_plan_can_redo (const FwPlan *plan)
{
  return plan->n_applied < plan->decisions->len;
}

gboolean
fw_plan_undo (FwPlan *plan)
{
  if (!fw_plan_can_undo (plan))
    return FALSE;
  plan->n_applied--;
  fw_plan_rebuild (plan);
  for (guint i = 0; i < plan->n_applied; i++)
    apply_decision (plan, i);
  fw_plan_add_totals (plan);
  return TRUE;
}

gboolean
fw_plan_redo (FwPlan *plan)
{
  if (!fw_plan_can_redo (plan))
    return FALSE;
  apply_decision (plan, plan->n_applied);
  plan->n_applied++;
  fw_plan_add_totals (plan);
  return TRUE;
}
