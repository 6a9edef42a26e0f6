/* fw-bench-plan: how long planning takes, against loading and inferring the same model in the same run.
 *
 *   fw-bench-plan [MODEL.onnx...]
 *
 * Always plans a generated transformer stack of about 100,000 nodes (bar: under 1 s); each model given is
 * loaded, inferred and planned too (bar for swin_t-sized graphs, about 6,000 nodes: under 50 ms), and on each
 * the veto of one LayerNorm candidate is timed, re-planning only its region (bar: under 5 ms). SuperKernel
 * scopes over the stack's plan are timed too (bar: under 0.5 s), printed against planning it. Prints a
 * table; medians of several runs; exit 1 when a bar fails. Never run as a unit test: times are noisy. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw-test-models.h"
#include "plan/fw-decisions.h"
#include "plan/fw-plan.h"
#include "plan/fw-superkernel-plan.h"

#define REPEAT 5

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *v, int n)
{
  qsort (v, n, sizeof *v, compare_double);
  return v[n / 2];
}

static double
time_plan (FwModel *model, FwProfile *profile, FwRuleSet *rules, guint *n_candidates)
{
  double t[REPEAT];

  for (int r = 0; r < REPEAT; r++)
    {
      g_autoptr(GError) error = NULL;
      gint64 t0 = g_get_monotonic_time ();
      FwPlan *plan = fw_plan_new (model, profile, rules, NULL, &error);
      t[r] = (g_get_monotonic_time () - t0) / 1e6;
      if (plan == NULL)
        {
          g_printerr ("plan failed: %s\n", error->message);
          exit (2);
        }
      *n_candidates = plan->candidates->len;
      fw_plan_free (plan);
    }
  return median (t, REPEAT);
}

/* Median time of vetoing the first LayerNorm candidate, each on a fresh plan; -1 when there is none. */
static double
time_veto (FwModel *model, FwProfile *profile, FwRuleSet *rules)
{
  double t[REPEAT];

  for (int r = 0; r < REPEAT; r++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FwPlan) plan = fw_plan_new (model, profile, rules, NULL, &error);
      guint target = G_MAXUINT;
      gint64 t0;

      for (guint i = 0; plan && i < plan->candidates->len && target == G_MAXUINT; i++)
        {
          FwCandidate *c = g_ptr_array_index (plan->candidates, i);
          if (strstr (c->pattern, "layernorm") != NULL && c->status == FW_CANDIDATE_PROPOSED)
            target = i;
        }
      if (target == G_MAXUINT)
        return -1;
      t0 = g_get_monotonic_time ();
      if (!fw_plan_veto (plan, target, NULL, NULL, &error))
        {
          g_printerr ("veto failed: %s\n", error->message);
          exit (2);
        }
      t[r] = (g_get_monotonic_time () - t0) / 1e6;
    }
  return median (t, REPEAT);
}

/* Median time of cutting the plan of model into automatic SuperKernel scopes. */
static gboolean
superkernel_row (const char *what, FwModel *model, FwProfile *profile, FwRuleSet *rules, double plan_s)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwPlan) plan = fw_plan_new (model, profile, rules, NULL, &error);
  double t[REPEAT];
  guint n_scopes = 0;
  gboolean pass;

  for (int r = 0; plan != NULL && r < REPEAT; r++)
    {
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr(FwSkPlan) sk = fw_sk_plan_build (plan, NULL, &error);

      t[r] = (g_get_monotonic_time () - t0) / 1e6;
      if (sk == NULL)
        break;
      n_scopes = sk->scopes->len;
    }
  if (error != NULL)
    {
      g_printerr ("SuperKernel scopes failed: %s\n", error->message);
      exit (2);
    }
  pass = median (t, REPEAT) < 0.5;
  printf ("%-34s SuperKernel scopes: %u in %.1f ms, %.2fx its planning   %s (bar 500 ms)\n", what, n_scopes,
          median (t, REPEAT) * 1e3, median (t, REPEAT) / plan_s, pass ? "PASS" : "FAIL");
  return pass;
}

static gboolean
veto_row (const char *what, double veto_s)
{
  gboolean pass = veto_s < 0.005;

  if (veto_s < 0)
    {
      printf ("%-34s veto of a LayerNorm candidate: none in this graph\n", what);
      return TRUE;
    }
  printf ("%-34s veto of a LayerNorm candidate: %.3f ms   %s (bar 5 ms)\n", what, veto_s * 1e3,
          pass ? "PASS" : "FAIL");
  return pass;
}

static gboolean
row (const char *what, guint nodes, double load_s, double plan_s, guint candidates, double bar_s)
{
  gboolean pass = plan_s < bar_s;

  printf ("%-34s %8u %12.1f %12.1f %10.2fx %10u   %s (bar %.0f ms)\n", what, nodes, load_s * 1e3, plan_s * 1e3,
          plan_s / load_s, candidates, pass ? "PASS" : "FAIL", bar_s * 1e3);
  return pass;
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = NULL;
  FwRuleSet *rules = fw_rule_set_new ();
  gboolean ok = TRUE;

  g_setenv ("FW_HOST_PROFILE_NO_PROBE", "1", TRUE);
  profile = fw_profile_load_builtin ("ascend-910b", &error);
  if (profile == NULL || !fw_rule_set_load_builtin (rules, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  printf ("%-34s %8s %12s %12s %11s %10s\n", "graph", "nodes", "load+infer ms", "plan ms", "plan/load", "candidates");
  {
    gint64 t0 = g_get_monotonic_time ();
    g_autoptr(FwModel) stack = fw_test_transformer_stack (2326, 16, 64, 4, FALSE);
    double build_s;
    guint n;
    double plan_s;

    g_assert_true (fw_test_infer (stack, NULL, NULL, NULL));
    build_s = (g_get_monotonic_time () - t0) / 1e6;
    plan_s = time_plan (stack, profile, rules, &n);
    ok &= row ("transformer stack (built, default rules)", fw_graph_get_n_nodes (fw_model_get_graph (stack)), build_s,
               plan_s, n, 1.0);
    ok &= superkernel_row ("transformer stack", stack, profile, rules, plan_s);
  }
  for (int i = 1; i < argc; i++)
    {
      double load[REPEAT];
      g_autoptr(FwModel) model = NULL;
      guint n_nodes, n;
      double plan_s;
      g_autofree char *name = g_path_get_basename (argv[i]);

      for (int r = 0; r < REPEAT; r++)
        {
          gint64 t0 = g_get_monotonic_time ();
          g_clear_object (&model);
          model = fw_onnx_load (argv[i], NULL, NULL, &error);
          if (model == NULL || !fw_test_infer (model, NULL, NULL, &error))
            {
              g_printerr ("%s\n", error->message);
              return 2;
            }
          load[r] = (g_get_monotonic_time () - t0) / 1e6;
        }
      n_nodes = fw_graph_get_n_nodes (fw_model_get_graph (model));
      plan_s = time_plan (model, profile, rules, &n);
      /* The 50 ms bar is for graphs of swin_t's size; larger ones scale it. */
      ok &= row (name, n_nodes, median (load, REPEAT), plan_s, n, 0.05 * MAX (1.0, n_nodes / 6000.0));
      ok &= veto_row (name, time_veto (model, profile, rules));
    }
  fw_rule_set_free (rules);
  return ok ? 0 : 1;
}
