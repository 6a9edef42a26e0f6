/* fw_plan_diff: a plan against itself is all the same; conservative against balanced adds the reduce
 * groups balanced fuses; a veto removes (or, re-planned, changes) a fusion. */
#include "config.h"

#include "fw-test-models.h"
#include "plan/fw-decisions.h"
#include "plan/fw-plan-diff.h"

static FwModel *
inferred_block (void)
{
  FwModel *model = fw_test_transformer_block (8, 16, 2, FALSE);
  g_autoptr(GError) error = NULL;

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  return model;
}

static guint
n_fused (const FwPlan *plan)
{
  guint n = 0;

  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      n += c->status == FW_CANDIDATE_PROPOSED || c->status == FW_CANDIDATE_ACCEPTED;
    }
  return n;
}

static void
test_same (void)
{
  g_autoptr(FwModel) model = inferred_block ();
  g_autoptr(FwPlan) a = fw_test_plan_with (model, FW_STRATEGY_BALANCED);
  g_autoptr(FwPlan) b = fw_test_plan_with (model, FW_STRATEGY_BALANCED);
  g_autoptr(GArray) diff = fw_plan_diff (a, b);
  guint counts[4];

  fw_plan_diff_count (diff, counts);
  g_assert_cmpuint (n_fused (a), >, 0);
  g_assert_cmpuint (counts[FW_PLAN_DIFF_SAME], ==, n_fused (a));
  g_assert_cmpuint (counts[FW_PLAN_DIFF_ADDED] + counts[FW_PLAN_DIFF_REMOVED] + counts[FW_PLAN_DIFF_CHANGED], ==, 0);
}

static void
test_strategies (void)
{
  g_autoptr(FwModel) model = inferred_block ();
  g_autoptr(FwPlan) a = fw_test_plan_with (model, FW_STRATEGY_CONSERVATIVE);
  g_autoptr(FwPlan) b = fw_test_plan_with (model, FW_STRATEGY_BALANCED);
  g_autoptr(GArray) diff = fw_plan_diff (a, b);
  guint counts[4];

  fw_plan_diff_count (diff, counts);
  /* Balanced fuses what conservative leaves (reduce epilogues, norm insides). */
  g_assert_cmpuint (counts[FW_PLAN_DIFF_ADDED] + counts[FW_PLAN_DIFF_CHANGED], >, 0);
  for (guint i = 0; i < diff->len; i++)
    {
      const FwPlanDiffEntry *e = &g_array_index (diff, FwPlanDiffEntry, i);

      g_assert_true ((e->a == G_MAXUINT) == (e->kind == FW_PLAN_DIFF_ADDED));
      g_assert_true ((e->b == G_MAXUINT) == (e->kind == FW_PLAN_DIFF_REMOVED));
    }
}

static void
test_veto (void)
{
  g_autoptr(FwModel) model = inferred_block ();
  g_autoptr(FwPlan) a = fw_test_plan_with (model, FW_STRATEGY_BALANCED);
  g_autoptr(FwPlan) b = fw_test_plan_with (model, FW_STRATEGY_BALANCED);
  g_autoptr(GArray) diff = NULL;
  g_autoptr(GError) error = NULL;
  guint first = G_MAXUINT, counts[4];

  for (guint i = 0; i < b->candidates->len && first == G_MAXUINT; i++)
    if (((FwCandidate *) g_ptr_array_index (b->candidates, i))->status == FW_CANDIDATE_PROPOSED)
      first = i;
  g_assert_true (fw_plan_veto (b, first, NULL, NULL, &error));
  g_assert_no_error (error);
  diff = fw_plan_diff (a, b);
  fw_plan_diff_count (diff, counts);
  g_assert_cmpuint (counts[FW_PLAN_DIFF_REMOVED] + counts[FW_PLAN_DIFF_CHANGED], >=, 1);
  g_assert_cmpuint (counts[FW_PLAN_DIFF_SAME], ==, n_fused (a) - 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_setenv ("FW_HOST_PROFILE_NO_PROBE", "1", TRUE);
  g_test_add_func ("/core/plan-diff/same", test_same);
  g_test_add_func ("/core/plan-diff/strategies", test_strategies);
  g_test_add_func ("/core/plan-diff/veto", test_veto);
  return g_test_run ();
}
