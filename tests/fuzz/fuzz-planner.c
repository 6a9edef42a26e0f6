/* libFuzzer target: the planner on graphs built from a small grammar (fuzz-graph.h). The input is a header
 * (planner limits, which decisions to try), then the grammar's program. The graph is linked, its shapes
 * inferred, and it is planned with each strategy; then a candidate is vetoed, another accepted, and both
 * undone and redone. Any step may refuse the graph with a GError; none may crash, leak or hang.
 *
 * Encoding (each item one byte, 0 once the input runs out; the seeds in corpus/planner follow it):
 *   header[5]  max_depth, max_fusion_size (each used when ≡ 0 mod 8), candidate to veto, to accept, flags
 *              (also the grammar's output choice)
 *   then the program of fuzz-graph.h. */
#include "config.h"

#include "fuzz-graph.h"
#include "plan/fw-decisions.h"
#include "plan/fw-plan.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static FwProfile *profile;
static FwRuleSet *rules;

static void
plan_with (FwModel *model, FwStrategy strategy, const guint8 *header)
{
  FwPlanOptions options;
  g_autoptr(GError) error = NULL;
  g_autoptr(FwPlan) plan = NULL;
  guint n;

  fw_plan_options_init (&options);
  options.strategy = strategy;
  options.max_depth = header[0] % 8 == 0 ? 1 + header[0] % 5 : 0;
  options.max_fusion_size = header[1] % 8 == 0 ? 1 + header[1] % 7 : 0;
  plan = fw_plan_new (model, profile, rules, &options, &error);
  if (plan == NULL)
    return;
  n = plan->candidates->len;
  if (n == 0)
    return;
  /* Steer it: veto one, accept another (either may be refused with a GError), undo both, redo one. */
  g_clear_error (&error);
  fw_plan_veto (plan, header[2] % n, NULL, NULL, &error);
  g_clear_error (&error);
  fw_plan_accept (plan, header[3] % plan->candidates->len, NULL, NULL, &error);
  g_clear_error (&error);
  if (header[4] % 2)
    fw_plan_decide_pattern (plan, FW_DECISION_VETO, "elementwise_chain", NULL, NULL, &error);
  while (fw_plan_can_undo (plan))
    fw_plan_undo (plan);
  if (fw_plan_can_redo (plan))
    fw_plan_redo (plan);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  FuzzInput in = { data, data + size };
  guint8 header[5];
  g_autoptr(FwModel) model = NULL;

  if (profile == NULL)
    fuzz_graph_planner_setup ("fuzz-planner", &profile, &rules);
  for (guint i = 0; i < G_N_ELEMENTS (header); i++)
    header[i] = (guint8) fuzz_input_next (&in);
  model = fuzz_graph_build (&in, header[4], NULL);
  if (model == NULL)
    return 0;
  plan_with (model, FW_STRATEGY_CONSERVATIVE, header);
  plan_with (model, FW_STRATEGY_BALANCED, header);
  plan_with (model, FW_STRATEGY_AGGRESSIVE, header);
  return 0;
}
