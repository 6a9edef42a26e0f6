/* fw_plan_explain_empty: an empty plan always says why: fusion off, dims unbound (with the commonest
 * reason codes), nothing fusable, every candidate vetoed; a plan with a fusion says nothing. */
#include "config.h"

#include <string.h>

#include "fw-test-models.h"
#include "plan/fw-plan-empty.h"
#include "plan/fw-decisions.h"

static FwPlan *
plan_for (FwModel *model, gboolean enabled)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  FwPlanOptions options;
  FwPlan *plan;

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  fw_plan_options_init (&options);
  options.enabled = enabled;
  plan = fw_plan_new (model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  return plan;
}

static void
test_fused_says_nothing (void)
{
  g_autoptr(FwModel) model = fw_test_elementwise_chain (4, 64, FALSE);
  g_autoptr(FwPlan) plan = plan_for (model, TRUE);

  g_assert_cmpuint (plan->candidates->len, >, 0);
  g_assert_null (fw_plan_explain_empty (plan, NULL));
}

static void
test_disabled (void)
{
  g_autoptr(FwModel) model = fw_test_elementwise_chain (4, 64, FALSE);
  g_autoptr(FwPlan) plan = plan_for (model, FALSE);
  g_autofree char *why = fw_plan_explain_empty (plan, NULL);

  g_assert_nonnull (why);
  g_assert_nonnull (strstr (why, "AUTOFUSION_ENABLE=0"));
}

static void
test_unbound (void)
{
  g_autoptr(FwModel) model = fw_test_elementwise_chain (6, 64, TRUE);
  g_autoptr(FwPlan) plan = plan_for (model, TRUE);
  const char *unbound[] = { "batch", NULL };
  g_autofree char *why = fw_plan_explain_empty (plan, unbound);

  g_assert_nonnull (why);
  g_assert_nonnull (strstr (why, "batch"));
  /* The refusals it made, by code, with their count. */
  g_assert_nonnull (strstr (why, "FW-NF-006"));
  g_assert_nonnull (strstr (why, "×"));
}

static void
test_nothing_fusable (void)
{
  g_autoptr(FwModel) model = fw_test_elementwise_chain (1, 64, FALSE);
  g_autoptr(FwPlan) plan = plan_for (model, TRUE);
  g_autofree char *why = NULL;

  g_assert_cmpuint (plan->candidates->len, ==, 0);
  g_assert_cmpuint (plan->refusals->len, ==, 0);
  why = fw_plan_explain_empty (plan, NULL);
  g_assert_nonnull (why);
  g_assert_nonnull (strstr (why, "no operator"));
}

static void
test_all_vetoed (void)
{
  g_autoptr(FwModel) model = fw_test_elementwise_chain (4, 64, FALSE);
  g_autoptr(FwPlan) plan = plan_for (model, TRUE);
  g_autoptr(GError) error = NULL;
  g_autofree char *why = NULL;

  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);

      if (c->status == FW_CANDIDATE_PROPOSED)
        g_assert_true (fw_plan_veto (plan, i, NULL, NULL, &error));
      g_assert_no_error (error);
    }
  why = fw_plan_explain_empty (plan, NULL);
  g_assert_nonnull (why);
  g_assert_nonnull (strstr (why, "Nothing is fused"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_setenv ("FW_HOST_PROFILE_NO_PROBE", "1", TRUE);
  g_test_add_func ("/core/plan-empty/fused", test_fused_says_nothing);
  g_test_add_func ("/core/plan-empty/disabled", test_disabled);
  g_test_add_func ("/core/plan-empty/unbound", test_unbound);
  g_test_add_func ("/core/plan-empty/nothing-fusable", test_nothing_fusable);
  g_test_add_func ("/core/plan-empty/all-vetoed", test_all_vetoed);
  return g_test_run ();
}
