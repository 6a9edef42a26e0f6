/* Decisions: accept locks, veto re-plans only its region, pattern-level decisions, undo/redo, the log. */
#include "config.h"

#include <string.h>

#include "fw-error.h"
#include "fw-test-models.h"
#include "plan/fw-decisions.h"
#include "plan/fw-plan.h"
#include "report/fw-model-report.h"
#include "report/fw-plan-report.h"

typedef struct
{
  FwModel   *model;
  FwProfile *profile;
  FwRuleSet *rules;
  FwPlan    *plan;
} Fixture;

static void
fixture_setup (Fixture *f, gint64 seq)
{
  g_autoptr(GError) error = NULL;

  f->model = fw_test_transformer_block (seq, 64, 4, FALSE);
  g_assert_true (fw_test_infer (f->model, NULL, NULL, &error));
  f->profile = fw_test_profile_910b ();
  f->rules = fw_test_builtin_rules ();
  f->plan = fw_plan_new (f->model, f->profile, f->rules, NULL, &error);
  g_assert_no_error (error);
}

static void
fixture_clear (Fixture *f)
{
  fw_plan_free (f->plan);
  fw_rule_set_free (f->rules);
  fw_profile_unref (f->profile);
  g_object_unref (f->model);
}

static char *
ops_of (const FwCandidate *c)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < c->nodes->len; i++)
    g_string_append_printf (s, "%s%s", i ? "," : "", ((FwNode *) g_ptr_array_index (c->nodes, i))->op_type);
  return g_string_free (s, FALSE);
}

static FwCandidate *
find_pattern (FwPlan *plan, const char *pattern, FwCandidateStatus status)
{
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      if (strcmp (c->pattern, pattern) == 0 && c->status == status)
        return c;
    }
  return NULL;
}

static char *
nodes_of (const FwCandidate *c)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < c->nodes->len; i++)
    g_string_append_printf (s, "%s;", ((FwNode *) g_ptr_array_index (c->nodes, i))->name);
  return g_string_free (s, FALSE);
}

static guint
count_code (FwPlan *plan, FwReasonCode code, guint candidate)
{
  guint n = 0;

  for (guint i = 0; i < plan->refusals->len; i++)
    {
      FwRefusal *r = g_ptr_array_index (plan->refusals, i);
      if (r->code == code && (candidate == G_MAXUINT || r->candidate == candidate))
        n++;
    }
  return n;
}

static void
test_accept_locks (void)
{
  Fixture f;
  g_autoptr(GError) error = NULL;
  FwCandidate *ln, *gelu;
  guint ln_index;
  g_autofree char *ln_nodes = NULL;

  fixture_setup (&f, 16);
  ln = find_pattern (f.plan, "layernorm", FW_CANDIDATE_PROPOSED);
  g_assert_nonnull (ln);
  ln_index = ln->index;
  ln_nodes = nodes_of (ln);
  g_assert_true (fw_plan_accept (f.plan, ln_index, "alice", "measured", &error));
  g_assert_no_error (error);
  g_assert_cmpint (ln->status, ==, FW_CANDIDATE_ACCEPTED);
  g_assert_cmpuint (ln->decision, ==, 1);

  /* A veto elsewhere re-plans its own region and leaves the accepted candidate as it is. */
  gelu = find_pattern (f.plan, "matmul_bias_gelu", FW_CANDIDATE_PROPOSED);
  g_assert_nonnull (gelu);
  g_assert_true (fw_plan_veto (f.plan, gelu->index, NULL, NULL, &error));
  ln = g_ptr_array_index (f.plan->candidates, ln_index);
  g_assert_cmpint (ln->status, ==, FW_CANDIDATE_ACCEPTED);
  {
    g_autofree char *again = nodes_of (ln);
    g_assert_cmpstr (again, ==, ln_nodes);
  }

  /* Bad targets are errors and are not logged. */
  g_assert_false (fw_plan_accept (f.plan, 9999, NULL, NULL, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
  g_clear_error (&error);
  g_assert_false (fw_plan_accept (f.plan, gelu->index, NULL, NULL, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
  g_assert_cmpuint (f.plan->n_applied, ==, 2);
  fixture_clear (&f);
}

static void
test_veto_replans_region (void)
{
  Fixture f;
  g_autoptr(GError) error = NULL;
  FwCandidate *gelu;
  guint n_before, gelu_index;
  g_autofree char *vetoed_nodes = NULL;
  g_autoptr(GPtrArray) before = g_ptr_array_new_with_free_func (g_free);
  gboolean smaller = FALSE;
  gdouble after_before = 0;

  fixture_setup (&f, 128);
  n_before = f.plan->candidates->len;
  for (guint i = 0; i < n_before; i++)
    g_ptr_array_add (before, nodes_of (g_ptr_array_index (f.plan->candidates, i)));
  gelu = find_pattern (f.plan, "matmul_bias_gelu", FW_CANDIDATE_PROPOSED);
  g_assert_nonnull (gelu);
  gelu_index = gelu->index;
  vetoed_nodes = nodes_of (gelu);
  after_before = f.plan->after.time_s;

  g_assert_true (fw_plan_veto (f.plan, gelu_index, "bob", "precision drift", &error));
  g_assert_no_error (error);
  gelu = g_ptr_array_index (f.plan->candidates, gelu_index);
  g_assert_cmpint (gelu->status, ==, FW_CANDIDATE_VETOED);
  g_assert_cmpuint (count_code (f.plan, FW_NF_VETOED, gelu_index), ==, 1);

  /* Every other candidate keeps its index and nodes. */
  g_assert_cmpuint (f.plan->candidates->len, >=, n_before);
  for (guint i = 0; i < n_before; i++)
    {
      g_autofree char *now = nodes_of (g_ptr_array_index (f.plan->candidates, i));
      g_assert_cmpstr (now, ==, g_ptr_array_index (before, i));
      if (i != gelu_index)
        g_assert_cmpint (((FwCandidate *) g_ptr_array_index (f.plan->candidates, i))->status, !=,
                         FW_CANDIDATE_VETOED);
    }
  /* New ones are smaller fusions of the freed nodes, never the vetoed set again. */
  for (guint i = n_before; i < f.plan->candidates->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (f.plan->candidates, i);
      g_autofree char *nodes = nodes_of (c);
      g_autofree char *ops = ops_of (c);
      g_assert_cmpstr (nodes, !=, vetoed_nodes);
      g_assert_cmpuint (c->index, ==, i);
      for (guint k = 0; k < c->nodes->len; k++)
        g_assert_nonnull (strstr (vetoed_nodes, ((FwNode *) g_ptr_array_index (c->nodes, k))->name));
      if (c->status == FW_CANDIDATE_PROPOSED && c->nodes->len < gelu->nodes->len)
        smaller = TRUE;
      g_test_message ("after veto: #%u %s %s (%s)", i, c->pattern, ops, fw_candidate_status_name (c->status));
    }
  g_assert_true (smaller);
  g_assert_cmpfloat (f.plan->after.time_s, !=, after_before);

  /* The log. */
  {
    FwDecision *d;
    g_assert_cmpuint (f.plan->n_applied, ==, 1);
    d = g_ptr_array_index (f.plan->decisions, 0);
    g_assert_cmpint (d->action, ==, FW_DECISION_VETO);
    g_assert_cmpuint (d->candidate, ==, gelu_index);
    g_assert_cmpstr (d->source, ==, "user");
    g_assert_cmpstr (d->who, ==, "bob");
    g_assert_cmpstr (d->why, ==, "precision drift");
    g_assert_cmpint (d->outcome, ==, FW_DECISION_APPLIED);
    g_assert_cmpuint (g_strv_length (d->nodes), ==, gelu->nodes->len);
    g_assert_cmpuint (d->matched->len, ==, 1);
  }
  fixture_clear (&f);
}

static void
test_pattern_veto (void)
{
  Fixture f;
  g_autoptr(GError) error = NULL;
  guint n_ln = 0;
  FwDecision *d;

  fixture_setup (&f, 16);
  for (guint i = 0; i < f.plan->candidates->len; i++)
    n_ln += strcmp (((FwCandidate *) g_ptr_array_index (f.plan->candidates, i))->pattern, "layernorm") == 0;
  g_assert_cmpuint (n_ln, >=, 1);
  g_assert_true (fw_plan_decide_pattern (f.plan, FW_DECISION_VETO, "layernorm", NULL, "slow", &error));
  g_assert_no_error (error);
  for (guint i = 0; i < f.plan->candidates->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (f.plan->candidates, i);
      if (strcmp (c->pattern, "layernorm") == 0)
        g_assert_cmpint (c->status, ==, FW_CANDIDATE_VETOED);
    }
  d = g_ptr_array_index (f.plan->decisions, 0);
  g_assert_cmpstr (d->pattern, ==, "layernorm");
  g_assert_cmpuint (d->matched->len, >=, n_ln);
  g_assert_cmpuint (count_code (f.plan, FW_NF_VETOED, G_MAXUINT), >=, n_ln);

  /* A pattern nothing has is logged, matching nothing. */
  g_assert_true (fw_plan_decide_pattern (f.plan, FW_DECISION_ACCEPT, "no_such_pattern", NULL, NULL, &error));
  d = g_ptr_array_index (f.plan->decisions, 1);
  g_assert_cmpint (d->outcome, ==, FW_DECISION_MATCHED_NOTHING);
  fixture_clear (&f);
}

static void
test_undo_redo (void)
{
  Fixture f;
  g_autoptr(GError) error = NULL;
  g_autofree char *j0 = NULL, *j1 = NULL, *j2 = NULL;
  FwCandidate *gelu, *ln;

  fixture_setup (&f, 128);
  j0 = fw_test_plan_report (f.model, f.plan, FW_REPORT_JSON);
  g_assert_false (fw_plan_can_undo (f.plan));
  gelu = find_pattern (f.plan, "matmul_bias_gelu", FW_CANDIDATE_PROPOSED);
  g_assert_true (fw_plan_veto (f.plan, gelu->index, NULL, NULL, &error));
  j1 = fw_test_plan_report (f.model, f.plan, FW_REPORT_JSON);
  ln = find_pattern (f.plan, "layernorm", FW_CANDIDATE_PROPOSED);
  g_assert_true (fw_plan_accept (f.plan, ln->index, "carol", NULL, &error));
  j2 = fw_test_plan_report (f.model, f.plan, FW_REPORT_JSON);
  g_assert_cmpstr (j0, !=, j1);
  g_assert_cmpstr (j1, !=, j2);

  g_assert_true (fw_plan_undo (f.plan));
  {
    g_autofree char *j = fw_test_plan_report (f.model, f.plan, FW_REPORT_JSON);
    g_assert_cmpstr (j, ==, j1);
  }
  g_assert_true (fw_plan_undo (f.plan));
  {
    g_autofree char *j = fw_test_plan_report (f.model, f.plan, FW_REPORT_JSON);
    g_assert_cmpstr (j, ==, j0);
  }
  g_assert_false (fw_plan_undo (f.plan));
  g_assert_true (fw_plan_can_redo (f.plan));
  g_assert_true (fw_plan_redo (f.plan));
  g_assert_true (fw_plan_redo (f.plan));
  g_assert_false (fw_plan_redo (f.plan));
  {
    g_autofree char *j = fw_test_plan_report (f.model, f.plan, FW_REPORT_JSON);
    g_assert_cmpstr (j, ==, j2);
    g_assert_nonnull (strstr (j, "\"decisions\""));
    g_assert_nonnull (strstr (j, "\"carol\""));
  }
  /* A new decision after an undo drops what could have been redone. */
  g_assert_true (fw_plan_undo (f.plan));
  g_assert_true (fw_plan_decide_pattern (f.plan, FW_DECISION_VETO, "layernorm", NULL, NULL, &error));
  g_assert_false (fw_plan_can_redo (f.plan));
  g_assert_cmpuint (f.plan->decisions->len, ==, 2);
  fixture_clear (&f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/plan/decisions/accept-locks", test_accept_locks);
  g_test_add_func ("/core/plan/decisions/veto-replans-region", test_veto_replans_region);
  g_test_add_func ("/core/plan/decisions/pattern-veto", test_pattern_veto);
  g_test_add_func ("/core/plan/decisions/undo-redo", test_undo_redo);
  return g_test_run ();
}
