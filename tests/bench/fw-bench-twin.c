/* fw-bench-twin: how long the Ascend C twin takes over a model's whole kernel package.
 *
 *   fw-bench-twin [--threads N] [--cache DIR] MODEL.onnx [NAME=VALUE binds...]
 *
 * Plans the model (balanced, 910B, the kernels' own buffers priced), generates every Ascend kernel, and runs
 * the whole package on the twin on seeded inputs twice on N worker threads (default 2): cold (the kernel
 * cache as found: a fresh temporary one unless --cache names a folder, so every C++ compile is included),
 * then warm (every executable from the cache). For each pass it prints the wall time, the CPU time of this
 * process and its children (compilers and twin runs: on an idle machine of N cores the wall time is at least
 * CPU / N; on a loaded one wall time says more about the load) and the load average. Per kernel: the cold
 * build (compile + link) and run seconds, the warm run seconds, the diagnostics count and the twin's time
 * estimate beside the planner's (µs, docs/ascend-twin.md); then the slowest kernels and the rank correlation
 * of the estimates. Bar (issue 12): the whole swin_t package in under a minute on two cores. Values are
 * printed, never asserted (times are noisy). Exit 1 when a kernel has a diagnostic or fails to run. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

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
  double          build_s[2], run_s[2];  /* cold, warm */
  double          twin_us, planner_us;
  guint           diagnostics;
  char           *error;
} Item;

typedef struct
{
  FwAscendTwin *twin;
  FwProfile    *profile;
  guint         pass;     /* 0 cold, 1 warm */
} Bench;

/* What one pass over the package took: wall, and CPU of this process and of its reaped children. */
typedef struct
{
  double wall_s, cpu_s;
  char   load[64];
} Pass;

static double
cpu_seconds (void)
{
  struct rusage self, children;
  double s = 0;

  if (getrusage (RUSAGE_SELF, &self) == 0 && getrusage (RUSAGE_CHILDREN, &children) == 0)
    s = self.ru_utime.tv_sec + self.ru_stime.tv_sec + children.ru_utime.tv_sec + children.ru_stime.tv_sec +
        (self.ru_utime.tv_usec + self.ru_stime.tv_usec + children.ru_utime.tv_usec + children.ru_stime.tv_usec) / 1e6;
  return s;
}

/* The first three fields of /proc/loadavg (1, 5 and 15 minutes), or "?". */
static void
load_average (char *out, gsize len)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) f = NULL;

  g_strlcpy (out, "?", len);
  if (g_file_get_contents ("/proc/loadavg", &text, NULL, NULL) && (f = g_strsplit (text, " ", 4)) != NULL &&
      g_strv_length (f) >= 3)
    g_snprintf (out, len, "%s %s %s", f[0], f[1], f[2]);
}

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

static void
run_one (gpointer data, gpointer user_data)
{
  Bench *b = user_data;
  Item *item = data;
  g_autoptr(GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr(FwTwinRun) run = fw_ascend_twin_run (b->twin, item->kernel, b->profile,
                                                 (FwArray *const *) item->inputs->pdata, &error);

  if (run == NULL)
    {
      g_free (item->error);
      item->error = g_strdup (error->message);
      item->build_s[b->pass] = (g_get_monotonic_time () - t0) / 1e6;
    }
  else
    {
      FwTwinTime time;
      item->diagnostics = fw_twin_run_get_n_diagnostics (run);
      fw_twin_estimate_time (fw_twin_run_get_blocks (run), b->profile, &time);
      item->twin_us = time.seconds * 1e6;
      fw_twin_run_get_seconds (run, &item->build_s[b->pass], &item->run_s[b->pass]);
    }
}

/* Every kernel once on `threads` workers. */
static void
run_pass (Bench *bench, GPtrArray *items, guint threads, Pass *pass)
{
  GThreadPool *pool = g_thread_pool_new (run_one, bench, (gint) threads, FALSE, NULL);
  gint64 t0 = g_get_monotonic_time ();
  double c0 = cpu_seconds ();

  for (guint i = 0; i < items->len; i++)
    g_thread_pool_push (pool, g_ptr_array_index (items, i), NULL);
  g_thread_pool_free (pool, FALSE, TRUE);
  pass->wall_s = (g_get_monotonic_time () - t0) / 1e6;
  pass->cpu_s = cpu_seconds () - c0;
  load_average (pass->load, sizeof pass->load);
}

static int
by_cold_time (gconstpointer a, gconstpointer b)
{
  const Item *x = *(Item *const *) a, *y = *(Item *const *) b;
  double tx = x->build_s[0] + x->run_s[0], ty = y->build_s[0] + y->run_s[0];

  return tx < ty ? 1 : tx > ty ? -1 : 0;
}

static guint
count_entries (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  while (d != NULL && g_dir_read_name (d) != NULL)
    n++;
  return n;
}

/* The per-kernel table, the slowest kernels, the passes and the rank correlation; the number of kernels
 * with a diagnostic or an error. */
static guint
print_results (GPtrArray *items, const Pass *cold, const Pass *warm, guint threads, const char *cache_state)
{
  g_autoptr(GPtrArray) sorted = g_ptr_array_copy (items, NULL, NULL);
  g_autofree double *tw = g_new0 (double, items->len + 1), *pl = g_new0 (double, items->len + 1);
  double build = 0, run = 0, warm_run = 0;
  guint failed = 0;

  g_print ("%-10s %8s %8s %8s %6s %9s %9s\n", "kernel", "build_s", "run_s", "warm_s", "diags", "twin_us", "plan_us");
  for (guint i = 0; i < items->len; i++)
    {
      Item *item = g_ptr_array_index (items, i);
      failed += item->error != NULL || item->diagnostics > 0;
      build += item->build_s[0];
      run += item->run_s[0];
      warm_run += item->run_s[1];
      tw[i] = item->error ? NAN : item->twin_us;
      pl[i] = item->planner_us;
      g_print ("%-10s %8.3f %8.3f %8.3f %6u %9.2f %9.2f%s%s\n",
               fw_kernel_source_get_name (fw_ascend_kernel_get_kernel_source (item->kernel)), item->build_s[0],
               item->run_s[0], item->run_s[1], item->diagnostics, item->twin_us, item->planner_us,
               item->error ? "  " : "", item->error ? item->error : "");
    }
  g_ptr_array_sort (sorted, by_cold_time);
  g_print ("\nslowest cold (build + run s):");
  for (guint i = 0; i < MIN (5u, sorted->len); i++)
    {
      Item *item = g_ptr_array_index (sorted, i);
      g_print (" %s %.2f + %.2f", fw_kernel_source_get_name (fw_ascend_kernel_get_kernel_source (item->kernel)),
               item->build_s[0], item->run_s[0]);
    }
  g_print ("\n\n%u kernels on %u threads; the bar (issue 12): the whole swin_t package in under 60 s on two cores\n",
           items->len, threads);
  g_print ("cold (%s; the runtime's build included): %.1f s wall, %.1f s CPU (at least %.1f s wall on %u idle cores), load %s\n"
           "           per kernel summed: %.1f s building, %.1f s running\n",
           cache_state, cold->wall_s, cold->cpu_s, cold->cpu_s / threads, threads, cold->load, build, run);
  g_print ("warm (every executable cached): %.1f s wall, %.1f s CPU (at least %.1f s wall on %u idle cores), load %s\n"
           "           per kernel summed: %.1f s running (%.3f s a kernel)\n",
           warm->wall_s, warm->cpu_s, warm->cpu_s / threads, threads, warm->load, warm_run,
           items->len ? warm_run / items->len : 0.0);
  g_print ("%u with a diagnostic or an error\n", failed);
  g_print ("rank correlation of the twin's and the planner's estimates: %.3f\n",
           fw_twin_rank_correlation (tw, pl, items->len));
  return failed;
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
  const char *keep = NULL;
  guint threads = 2, failed = 0, n_before = 0;
  int first = 1;
  double runtime_s, runtime_cpu_s;
  gint64 t0;

  while (argc > first + 1 && (strcmp (argv[first], "--threads") == 0 || strcmp (argv[first], "--cache") == 0))
    {
      if (strcmp (argv[first], "--threads") == 0)
        threads = (guint) MAX (1, atoi (argv[first + 1]));
      else
        keep = argv[first + 1];
      first += 2;
    }
  if (argc <= first)
    {
      g_printerr ("usage: %s [--threads N] [--cache DIR] MODEL.onnx [NAME=VALUE...]\n", argv[0]);
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
  cache = keep ? g_strdup (keep) : g_build_filename (dir, "kernels", NULL);
  n_before = keep ? count_entries (keep) : 0;
  toolchain = plan ? fw_host_toolchain_new (cache, &error) : NULL;
  t0 = g_get_monotonic_time ();
  runtime_cpu_s = cpu_seconds ();
  bench.twin = toolchain ? fw_ascend_twin_new (toolchain, &error) : NULL;
  if (bench.twin == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  runtime_s = (g_get_monotonic_time () - t0) / 1e6;
  runtime_cpu_s = cpu_seconds () - runtime_cpu_s;
  g_print ("twin runtime built (or found in the cache) in %.2f s wall, %.2f s CPU\n", runtime_s, runtime_cpu_s);
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      FwAscendKernel *k = fw_ascend_kernel_generate (plan, g_ptr_array_index (plan->candidates, i), NULL);
      Item *item;

      if (k == NULL)
        continue;
      item = g_new0 (Item, 1);
      item->kernel = k;
      item->inputs = seeded_inputs (k, 1 + i);
      item->planner_us = fw_candidate_get_cost (g_ptr_array_index (plan->candidates, i))->kernel_time_s * 1e6;
      g_ptr_array_add (items, item);
    }
  {
    Pass cold, warm;
    g_autofree char *state = keep ? g_strdup_printf ("cache %s, %u entries before", keep, n_before)
                                  : g_strdup ("a fresh temporary cache");

    run_pass (&bench, items, threads, &cold);
    /* The package's first run builds the twin's runtime too. */
    cold.wall_s += runtime_s;
    cold.cpu_s += runtime_cpu_s;
    bench.pass = 1;
    run_pass (&bench, items, threads, &warm);
    failed = print_results (items, &cold, &warm, threads, state);
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
