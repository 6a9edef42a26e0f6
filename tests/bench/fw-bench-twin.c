/* fw-bench-twin: how long the Ascend C twin takes over a model's whole kernel package.
 *
 *   fw-bench-twin [--threads N] MODEL.onnx [NAME=VALUE binds...]
 *
 * Plans the model (balanced, 910B, the kernels' own buffers priced), generates every Ascend kernel, and runs
 * each on the twin on seeded inputs twice: cold (a fresh kernel cache: the C++ compile included) on N worker
 * threads (default 2), then warm (compiled objects from the cache). Prints per kernel the warm time, the
 * diagnostics count and the twin's time estimate beside the planner's (µs, docs/ascend-twin.md), then the
 * totals and their rank correlation. Bar (issue 12): the whole swin_t package cold in under a minute on two
 * cores. Exit 1 when a kernel has a diagnostic or fails to run. Never run as a unit test: times are noisy. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/ascend/fw-ascend.h"
#include "codegen/fw-ascend-twin.h"
#include "codegen/fw-twin-time.h"
#include "fw-test-models.h"
#include "onnx/fw-onnx.h"
#include "plan/fw-plan-private.h"

typedef struct
{
  FwAscendKernel *kernel;
  GPtrArray      *inputs;   /* FwArray* */
  double          cold_s, warm_s;
  double          twin_us, planner_us;
  guint           diagnostics;
  char           *error;
} Item;

typedef struct
{
  FwAscendTwin *twin;
  FwProfile    *profile;
} Bench;

static GPtrArray *
seeded_inputs (FwAscendKernel *kernel, guint seed)
{
  const FwKernelSource *src = fw_ascend_kernel_get_kernel_source (kernel);
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  GPtrArray *ins = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_array_unref);

  for (guint i = 0; i < fw_kernel_source_get_n_inputs (src); i++)
    {
      FwValue *v = fw_kernel_source_get_input (src, i);
      gint64 dims[FW_MAX_RANK];
      FwArray *a;

      if (v->constant != NULL)
        {
          g_ptr_array_add (ins, fw_array_new_from_tensor (v->constant, NULL));
          continue;
        }
      for (gint d = 0; d < v->rank; d++)
        dims[d] = v->dims[d].value;
      a = fw_array_new (v->dtype, (guint) v->rank, dims, NULL);
      for (gint64 e = 0; e < a->n_elements; e++)
        fw_array_set_double (a, e, g_rand_double_range (rand, -1.0, 1.0));
      g_ptr_array_add (ins, a);
    }
  return ins;
}

static double
run_item (Bench *b, Item *item)
{
  g_autoptr(GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr(FwTwinRun) run = fw_ascend_twin_run (b->twin, item->kernel, b->profile,
                                                 (FwArray *const *) item->inputs->pdata, &error);
  double s = (g_get_monotonic_time () - t0) / 1e6;

  if (run == NULL)
    {
      g_free (item->error);
      item->error = g_strdup (error->message);
    }
  else
    {
      FwTwinTime time;
      item->diagnostics = fw_twin_run_get_n_diagnostics (run);
      fw_twin_estimate_time (fw_twin_run_get_blocks (run), b->profile, &time);
      item->twin_us = time.seconds * 1e6;
    }
  return s;
}

static void
cold_one (gpointer data, gpointer user_data)
{
  Item *item = data;
  item->cold_s = run_item (user_data, item);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = NULL;
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwHostToolchain) toolchain = NULL;
  g_autoptr(GPtrArray) items = g_ptr_array_new ();
  g_autofree char *dir = NULL, *cache = NULL;
  FwRuleSet *rules = fw_test_builtin_rules ();
  FwPlanOptions options;
  Bench bench = { NULL, fw_test_profile_910b () };
  guint threads = 2, failed = 0;
  int first = 1;
  double cold_total = 0, warm_total = 0;
  gint64 t0;

  if (argc > 2 && strcmp (argv[1], "--threads") == 0)
    {
      threads = (guint) MAX (1, atoi (argv[2]));
      first = 3;
    }
  if (argc <= first)
    {
      g_printerr ("usage: %s [--threads N] MODEL.onnx [NAME=VALUE...]\n", argv[0]);
      return 2;
    }
  model = fw_onnx_load (argv[first], NULL, NULL, &error);
  if (model == NULL || !fw_test_infer (model, argc > first + 1 ? (const char *const *) argv + first + 1 : NULL, NULL,
                                       &error))
    {
      g_printerr ("%s: %s\n", argv[first], error->message);
      return 2;
    }
  fw_plan_options_init (&options);
  options.arrange = fw_ascend_arrange;
  plan = fw_plan_new (model, bench.profile, rules, &options, &error);
  dir = fw_test_temp_dir ();
  cache = g_build_filename (dir, "kernels", NULL);
  toolchain = plan ? fw_host_toolchain_new (cache, &error) : NULL;
  t0 = g_get_monotonic_time ();
  bench.twin = toolchain ? fw_ascend_twin_new (toolchain, &error) : NULL;
  if (bench.twin == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  g_print ("twin runtime compiled in %.2f s\n", (g_get_monotonic_time () - t0) / 1e6);
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      FwAscendKernel *k = fw_ascend_kernel_generate (plan, g_ptr_array_index (plan->candidates, i), NULL);
      Item *item;

      if (k == NULL)
        continue;
      item = g_new0 (Item, 1);
      item->kernel = k;
      item->inputs = seeded_inputs (k, 1 + i);
      item->planner_us = fw_candidate_get_cost (g_ptr_array_index (plan->candidates, i))->time_after_s * 1e6;
      g_ptr_array_add (items, item);
    }
  t0 = g_get_monotonic_time ();
  {
    GThreadPool *pool = g_thread_pool_new (cold_one, &bench, threads, FALSE, NULL);
    for (guint i = 0; i < items->len; i++)
      g_thread_pool_push (pool, g_ptr_array_index (items, i), NULL);
    g_thread_pool_free (pool, FALSE, TRUE);
  }
  cold_total = (g_get_monotonic_time () - t0) / 1e6;
  g_print ("%-10s %10s %10s %6s %9s %9s\n", "kernel", "cold_s", "warm_s", "diags", "twin_us", "plan_us");
  for (guint i = 0; i < items->len; i++)
    {
      Item *item = g_ptr_array_index (items, i);
      item->warm_s = run_item (&bench, item);
      warm_total += item->warm_s;
      failed += item->error != NULL || item->diagnostics > 0;
      g_print ("%-10s %10.3f %10.3f %6u %9.2f %9.2f%s%s\n",
               fw_kernel_source_get_name (fw_ascend_kernel_get_kernel_source (item->kernel)), item->cold_s,
               item->warm_s, item->diagnostics, item->twin_us, item->planner_us, item->error ? "  " : "",
               item->error ? item->error : "");
    }
  g_print ("\n%u kernels: cold %.1f s wall on %u threads (bar for swin_t: under 60 s on 2), warm %.1f s in all "
           "(%.3f s a kernel); %u with a diagnostic or an error\n",
           items->len, cold_total, threads, warm_total, items->len ? warm_total / items->len : 0.0, failed);
  {
    g_autofree double *tw = g_new0 (double, items->len + 1), *pl = g_new0 (double, items->len + 1);
    for (guint i = 0; i < items->len; i++)
      {
        Item *item = g_ptr_array_index (items, i);
        tw[i] = item->error ? NAN : item->twin_us;
        pl[i] = item->planner_us;
      }
    g_print ("rank correlation of the twin's and the planner's estimates: %.3f\n",
             fw_twin_rank_correlation (tw, pl, items->len));
  }
  for (guint i = 0; i < items->len; i++)
    {
      Item *item = g_ptr_array_index (items, i);
      fw_ascend_kernel_free (item->kernel);
      g_ptr_array_unref (item->inputs);
      g_free (item->error);
      g_free (item);
    }
  fw_ascend_twin_free (bench.twin);
  fw_profile_unref (bench.profile);
  fw_test_remove_dir (dir);
  return failed > 0;
}
