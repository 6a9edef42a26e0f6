/* fw-bench-scope: SuperKernel scopes on the host (docs/superkernel.md, "Host target"): whole-model time on
 * the fused executor with the scopes' host programs against without them, in the same run, and each
 * program's arena against the reference interpreter's peak on the same nodes.
 *
 *   fw-bench-scope MODEL.onnx[@NAME=VALUE,...] ...
 *
 * Symbols are bound as given (batch=1 when none is: batch 1). For each model: the scopes, the programs the
 * host made of them and the kernels with no host code that cut them (FW-SK-008, by op); the whole model's
 * median time without and with the programs (samples alternate, so both see the same machine) and the ratio;
 * the programs against their members run one by one; the arenas (largest and summed) against the
 * interpreter's peaks; and whether every program verified against the reference interpreter. Medians of
 * FW_BENCH_REPEAT (default 7) samples. Prints ratios only, asserts no time: exit 1 when a program fails
 * verification, 77 when no C compiler is found. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/fw-targets.h"
#include "codegen/host/fw-host-scope.h"
#include "exec/fw-fused.h"
#include "fw-test-models.h"
#include "onnx/fw-onnx.h"
#include "plan/fw-superkernel-plan.h"

static FwModel *
load (const char *arg)
{
  g_auto(GStrv) parts = g_strsplit (arg, "@", 2);
  g_autoptr(GHashTable) binds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = NULL;
  FwInferOptions infer = { 0 };

  if (parts[1] != NULL)
    {
      g_auto(GStrv) items = g_strsplit (parts[1], ",", -1);

      for (guint i = 0; items[i]; i++)
        {
          g_auto(GStrv) kv = g_strsplit (items[i], "=", 2);
          gint64 *v = g_new (gint64, 1);

          if (kv[0] == NULL || kv[1] == NULL)
            {
              g_free (v);
              continue;
            }
          *v = g_ascii_strtoll (kv[1], NULL, 10);
          g_hash_table_insert (binds, g_strdup (kv[0]), v);
        }
    }
  else
    {
      gint64 *one = g_new (gint64, 1);
      *one = 1;
      g_hash_table_insert (binds, g_strdup ("batch"), one);
    }
  infer.bindings = binds;
  model = fw_onnx_load (parts[0], NULL, NULL, &error);
  if (model == NULL || !fw_shape_infer_graph (fw_model_get_graph (model), &infer, NULL, &error))
    {
      printf ("FAIL: %s: %s\n", parts[0], error->message);
      return NULL;
    }
  printf ("\n%s (%s)\n", parts[0], parts[1] ? parts[1] : "batch=1");
  return g_steal_pointer (&model);
}

static void
print_cuts (FwHostScopes *host)
{
  g_autoptr(GHashTable) by_op = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter it;
  gpointer key, value;

  for (guint i = 0; i < host->cuts->len; i++)
    {
      FwHostScopeCut *cut = g_ptr_array_index (host->cuts, i);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (by_op, cut->node->op_type));
      g_hash_table_insert (by_op, (gpointer) cut->node->op_type, GUINT_TO_POINTER (n + 1));
    }
  printf ("  kernels with no host code (FW-SK-008):");
  g_hash_table_iter_init (&it, by_op);
  while (g_hash_table_iter_next (&it, &key, &value))
    printf (" %s×%u", (const char *) key, GPOINTER_TO_UINT (value));
  printf ("%s\n", host->cuts->len ? "" : " none");
}

/* FALSE when a program failed verification. */
static gboolean
bench (const char *arg, guint repeats, gboolean *skipped)
{
  g_autoptr(FwModel) model = load (arg);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = NULL;
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwSkPlan) sk = NULL;
  g_autoptr(FwTargets) targets = NULL;
  g_autoptr(FwHostScopes) host = NULL;
  g_autoptr(GPtrArray) kernels = NULL;
  g_autoptr(GPtrArray) scope_kernels = NULL;
  g_autoptr(FwScopeCheckResult) result = NULL;
  FwScopeCheckOptions options = { 0 };
  FwPlanOptions plan_options;
  gint64 arena_max = 0, arena_sum = 0, peak_max = 0, peak_sum = 0;
  gdouble scope_s = 0, members_s = 0;
  guint in_programs = 0, sub_kernels = 0, in_scopes = 0, contracted = 0;

  if (model == NULL)
    return FALSE;
  profile = fw_profile_lookup ("host", &error);
  g_assert_no_error (error);
  fw_plan_options_init (&plan_options);
  plan = fw_plan_new (model, profile, fw_test_builtin_rules (), &plan_options, &error);
  g_assert_no_error (error);
  sk = fw_sk_plan_build (plan, NULL, &error);
  g_assert_no_error (error);
  targets = fw_targets_build (plan, TRUE, FALSE, NULL, NULL, &error);
  g_assert_no_error (error);
  if (targets->toolchain == NULL)
    {
      printf ("SKIP: no C compiler: %s\n", targets->toolchain_error);
      *skipped = TRUE;
      return TRUE;
    }
  host = fw_host_scopes_build (plan, sk);
  g_assert_true (fw_host_scopes_compile (host, targets->toolchain, NULL, &error));
  kernels = fw_targets_group_kernels (targets);
  scope_kernels = fw_host_scopes_kernels (host);
  options.seed = 1;
  options.verify = TRUE;
  options.measure = TRUE;
  options.repeats = repeats;
  result = fw_scope_check_run (plan, kernels, scope_kernels, &options, &error);
  if (result == NULL)
    {
      printf ("FAIL: %s\n", error->message);
      return FALSE;
    }
  for (guint i = 0; i < sk->scopes->len; i++)
    in_scopes += ((FwSkScope *) g_ptr_array_index (sk->scopes, i))->kernels->len;
  for (guint i = 0; i < host->scopes->len; i++)
    {
      FwHostScope *s = g_ptr_array_index (host->scopes, i);

      in_programs += s->n_kernels;
      sub_kernels += s->members->len;
      arena_max = MAX (arena_max, s->arena_bytes + s->output_bytes);
      arena_sum += s->arena_bytes + s->output_bytes;
      peak_max = MAX (peak_max, s->interpreter_peak_bytes);
      peak_sum += s->interpreter_peak_bytes;
      if (!s->compiled)
        printf ("  %s did not compile: %s\n", s->name, s->error);
    }
  for (guint i = 0; i < result->scopes->len; i++)
    {
      const FwScopeCheck *c = &g_array_index (result->scopes, FwScopeCheck, i);
      scope_s += c->scope_s;
      members_s += c->members_s;
      contracted += c->contracted;
    }
  printf ("  %u kernels, %u in %u scopes; %u host programs cover %u of them with %u sub-kernels (%u compiled, "
          "%u contracted)\n", sk->n_kernels, in_scopes, sk->scopes->len, host->scopes->len, in_programs, sub_kernels,
          scope_kernels->len, contracted);
  print_cuts (host);
  printf ("  whole model, fused executor: %.3f ms without scopes, %.3f ms with: ratio %.3f (>1: scopes faster)\n",
          result->fused_s * 1e3, result->scoped_s * 1e3, result->scoped_s > 0 ? result->fused_s / result->scoped_s : 0);
  printf ("  programs alone: %.3f ms as one call each, %.3f ms member by member: ratio %.3f\n", scope_s * 1e3,
          members_s * 1e3, scope_s > 0 ? members_s / scope_s : 0);
  printf ("  memory (values, outputs included): largest program %.1f KiB vs interpreter %.1f KiB (ratio %.3f); "
          "summed %.1f KiB vs %.1f KiB (ratio %.3f)\n", arena_max / 1024.0, peak_max / 1024.0,
          peak_max > 0 ? (double) arena_max / peak_max : 0, arena_sum / 1024.0, peak_sum / 1024.0,
          peak_sum > 0 ? (double) arena_sum / peak_sum : 0);
  printf ("  verification against the reference interpreter: %s\n", result->pass ? "PASS" : "FAIL");
  return result->pass;
}

int
main (int argc, char **argv)
{
  const char *r = g_getenv ("FW_BENCH_REPEAT");
  guint repeats = r ? (guint) MAX (1, atoi (r)) : 7;
  gboolean ok = TRUE, skipped = FALSE;

  if (argc < 2)
    {
      printf ("usage: fw-bench-scope MODEL.onnx[@NAME=VALUE,...] ...\n");
      return 2;
    }
  for (int i = 1; i < argc; i++)
    {
      g_auto(GStrv) parts = g_strsplit (argv[i], "@", 2);

      if (!g_file_test (parts[0], G_FILE_TEST_EXISTS))
        {
          printf ("\n%s: not found, skipped\n", argv[i]);
          continue;
        }
      ok &= bench (argv[i], repeats, &skipped);
      if (skipped)
        return 77;
    }
  return ok ? 0 : 1;
}
