/* libFuzzer target: the reference interpreter and the fused executor on graphs built from the grammar of
 * fuzz-graph.h. Symbolic dims are bound (batch 2, seq 3); a graph whose values are all static and small
 * (at most MAX_ELEMENTS elements each, MAX_TOTAL_ELEMENTS in all, so one input runs in milliseconds) gets
 * seeded inputs and runs on the reference interpreter. It is then planned, and the plan runs on the fused
 * executor with every fused group on the reference group kernel: the same kernels on the same inputs, so
 * every output must be bit for bit the reference run's. A GError is no finding (a kernel may refuse what
 * inference let through); a crash, a sanitizer report, a leak, a hang, an FW_ERROR_INTERNAL (our own bug
 * by definition), a fused run that fails where the reference run did not, or any difference in the
 * outputs is, and aborts with a message.
 *
 * Encoding (each item one byte, 0 once the input runs out; corpus/exec holds seeds, and the planner's
 * seeds in corpus/planner fit it as well):
 *   header[5]  max_depth, max_fusion_size (each used when ≡ 0 mod 8), candidate to veto (when flags & 2),
 *              input seed, flags (the grammar's output choice; (flags / 4) % 3 the strategy)
 *   then the program of fuzz-graph.h. */
#include "config.h"

#include "exec/fw-fused.h"
#include "fuzz-graph.h"
#include "fw-error.h"
#include "plan/fw-decisions.h"
#include "plan/fw-plan.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

#define MAX_ELEMENTS ((gint64) 1 << 16)
#define MAX_TOTAL_ELEMENTS ((gint64) 1 << 20)

static FwProfile *profile;
static FwRuleSet *rules;
static GHashTable *bindings;

static void
setup (void)
{
  static gint64 batch = 2, seq = 3;

  fuzz_graph_planner_setup ("fuzz-exec", &profile, &rules);
  bindings = g_hash_table_new (g_str_hash, g_str_equal);
  g_hash_table_insert (bindings, (gpointer) "batch", &batch);
  g_hash_table_insert (bindings, (gpointer) "seq", &seq);
}

/* Every value static with a known dtype, none too large: else the graph is not run. */
static gboolean
small_and_static (const FwGraph *graph)
{
  gint64 total = 0;

  for (guint i = 0; i < graph->values->len; i++)
    {
      const FwValue *v = g_ptr_array_index (graph->values, i);
      gint64 n;

      if (v->dtype == FW_DTYPE_UNDEFINED || v->rank == FW_RANK_UNKNOWN || !fw_value_is_static (v))
        return FALSE;
      n = fw_value_get_n_elements (v);
      if (n < 0 || n > MAX_ELEMENTS)
        return FALSE;
      total += n;
    }
  return total <= MAX_TOTAL_ELEMENTS;
}

/* Internal errors are our own bugs: a finding, not a refusal. */
static void
check_error (const GError *error, const char *what)
{
  if (g_error_matches (error, FW_ERROR, FW_ERROR_INTERNAL))
    g_error ("fuzz-exec: %s: internal error: %s", what, error->message);
}

static void
clear_outputs (FwArray **outputs, guint n)
{
  for (guint i = 0; i < n; i++)
    g_clear_pointer (&outputs[i], fw_array_unref);
}

static void
run_fused (FwModel *model, const guint8 *header, GPtrArray *inputs, FwArray **reference)
{
  FwGraph *graph = fw_model_get_graph (model);
  static const FwStrategy strategies[] = { FW_STRATEGY_CONSERVATIVE, FW_STRATEGY_BALANCED, FW_STRATEGY_AGGRESSIVE };
  g_autoptr(GPtrArray) kernels = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_group_kernel_reference_free);
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, NULL);
  g_autoptr(FwFusedProgram) program = NULL;
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree FwArray **fused = g_new0 (FwArray *, graph->outputs->len + 1);
  FwPlanOptions options;

  fw_plan_options_init (&options);
  options.strategy = strategies[(header[4] / 4) % G_N_ELEMENTS (strategies)];
  options.max_depth = header[0] % 8 == 0 ? 1 + header[0] % 5 : 0;
  options.max_fusion_size = header[1] % 8 == 0 ? 1 + header[1] % 7 : 0;
  plan = fw_plan_new (model, profile, rules, &options, &error);
  if (plan == NULL)
    {
      check_error (error, "plan");
      return;
    }
  /* A veto re-plans the vetoed nodes into new candidates: those must run as well. */
  if ((header[4] & 2) != 0 && plan->candidates->len > 0 &&
      !fw_plan_veto (plan, header[2] % plan->candidates->len, NULL, NULL, &error))
    {
      check_error (error, "veto");
      g_clear_error (&error);
    }
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (plan->candidates, i);

      if (c->status == FW_CANDIDATE_PROPOSED || c->status == FW_CANDIDATE_ACCEPTED)
        g_ptr_array_add (kernels, fw_group_kernel_new_reference (plan, i));
    }
  program = fw_fused_program_new (plan, kernels, &error);
  if (program == NULL)
    g_error ("fuzz-exec: the fused program of %u groups was refused: %s", kernels->len, error->message);
  if (!fw_fused_program_run (program, ctx, (FwArray *const *) inputs->pdata, inputs->len, fused, NULL, &error))
    g_error ("fuzz-exec: the reference run passed, the fused run (%u groups) failed: %s", kernels->len,
             error->message);
  for (guint o = 0; o < graph->outputs->len; o++)
    {
      const FwValue *v = g_ptr_array_index (graph->outputs, o);
      FwTolerance exact = { 0.0, 0.0 };
      FwCompare c;

      fw_compare_arrays (reference[o], fused[o], &exact, &c);
      if (!c.pass)
        {
          g_autofree char *ref_shape = fw_array_format_shape (reference[o]);
          g_autofree char *fused_shape = fw_array_format_shape (fused[o]);

          g_error ("fuzz-exec: output “%s” differs between the reference run (%s %s) and the fused run of %u "
                   "groups (%s %s): %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " elements, first at %"
                   G_GINT64_FORMAT ", max abs %g%s", v->name, fw_dtype_name (reference[o]->dtype), ref_shape,
                   kernels->len, fw_dtype_name (fused[o]->dtype), fused_shape, c.n_failed, c.n_elements,
                   c.worst_index, c.max_abs, c.nan_mismatch ? ", NaN in one only" : "");
        }
    }
  clear_outputs (fused, graph->outputs->len);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  FuzzInput in = { data, data + size };
  guint8 header[5];
  g_autoptr(FwModel) model = NULL;
  g_autoptr(FwExecContext) ctx = NULL;
  g_autoptr(GPtrArray) inputs = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree FwArray **reference = NULL;
  FwGraph *graph;

  if (profile == NULL)
    setup ();
  for (guint i = 0; i < G_N_ELEMENTS (header); i++)
    header[i] = (guint8) fuzz_input_next (&in);
  model = fuzz_graph_build (&in, header[4], bindings);
  if (model == NULL)
    return 0;
  graph = fw_model_get_graph (model);
  if (!small_and_static (graph))
    return 0;
  inputs = fw_exec_make_inputs (model, header[3], &error);
  if (inputs == NULL)
    {
      check_error (error, "inputs");
      return 0;
    }
  ctx = fw_exec_context_new (1, NULL);
  reference = g_new0 (FwArray *, graph->outputs->len + 1);
  if (fw_exec_run_reference (ctx, graph, (FwArray *const *) inputs->pdata, inputs->len, reference, NULL, &error))
    {
      run_fused (model, header, inputs, reference);
      clear_outputs (reference, graph->outputs->len);
    }
  else
    check_error (error, "reference run");
  /* Large buffers are pooled for reuse; keep them from piling up across inputs of other sizes. */
  fw_array_pool_trim ();
  return 0;
}
