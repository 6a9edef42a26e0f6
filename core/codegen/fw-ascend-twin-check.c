/* fw-ascend-twin-check.c: one Ascend kernel on the twin against reference values, with the figures CANN's
 * precision comparison reports (cosine similarity, max absolute and max relative error) and the verdict. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-ascend-twin.h"
#include "fw-error.h"
#include "fw-twin-time.h"

void
fw_twin_check_free (FwTwinCheck *check)
{
  if (check == NULL)
    return;
  if (check->diagnostics != NULL)
    g_array_unref (check->diagnostics);
  g_free (check->error);
  g_free (check);
}

/* Cosine similarity over the elements finite in both; 1 when both are all zero. */
static gdouble
cosine (const FwArray *a, const FwArray *b)
{
  gdouble dot = 0, aa = 0, bb = 0;

  for (gint64 i = 0; i < a->n_elements && i < b->n_elements; i++)
    {
      gdouble x = fw_array_get_double (a, i), y = fw_array_get_double (b, i);
      if (!isfinite (x) || !isfinite (y))
        continue;
      dot += x * y;
      aa += x * x;
      bb += y * y;
    }
  if (aa == 0 && bb == 0)
    return 1.0;
  if (aa == 0 || bb == 0)
    return 0.0;
  return dot / (sqrt (aa) * sqrt (bb));
}

static void
copy_diagnostics (FwTwinCheck *check, FwTwinRun *run)
{
  for (guint i = 0; i < fw_twin_run_get_n_diagnostics (run); i++)
    {
      const FwTwinDiagnostic *d = fw_twin_run_get_diagnostic (run, i);
      FwTwinDiagnostic copy = { g_strdup (d->code), g_strdup (d->file), d->line, d->count, g_strdup (d->message) };
      g_array_append_val (check->diagnostics, copy);
    }
}

static void
diagnostic_clear (gpointer data)
{
  FwTwinDiagnostic *d = data;

  g_free (d->code);
  g_free (d->file);
  g_free (d->message);
}

/* The kernel computes in the narrowest float type it touches (a float16 input makes its vector instructions
 * half, even when a Cast widens the output): the tolerance and the cosine bar are that type's. */
static FwDType
compute_dtype (const FwKernelSource *src)
{
  FwDType d = FW_DTYPE_FLOAT;

  for (guint i = 0; i < fw_kernel_source_get_n_inputs (src); i++)
    if (fw_kernel_source_get_input (src, i)->dtype == FW_DTYPE_FLOAT16)
      d = FW_DTYPE_FLOAT16;
  for (guint i = 0; i < fw_kernel_source_get_n_outputs (src); i++)
    if (fw_kernel_source_get_output (src, i)->dtype == FW_DTYPE_FLOAT16)
      d = FW_DTYPE_FLOAT16;
  return d;
}

FwTwinCheck *
fw_twin_check_new_error (const char *message)
{
  FwTwinCheck *check = g_new0 (FwTwinCheck, 1);

  check->diagnostics = g_array_new (FALSE, TRUE, sizeof (FwTwinDiagnostic));
  g_array_set_clear_func (check->diagnostics, diagnostic_clear);
  check->max_abs = check->max_rel = NAN;
  check->cosine = NAN;
  check->estimated_s = NAN;
  check->error = message != NULL ? g_strdup (message) : NULL;
  return check;
}

FwTwinCheck *
fw_twin_check_new_from_run (FwTwinRun *run, FwArray *const *want, gboolean half, const FwTolerance *tolerance,
                            gdouble product_abs, const FwProfile *profile)
{
  FwTwinCheck *check = fw_twin_check_new_error (NULL);
  FwTwinTime time;

  check->ran = TRUE;
  check->counts = *fw_twin_run_get_counts (run);
  fw_twin_estimate_time (fw_twin_run_get_blocks (run), profile, &time);
  check->estimated_s = time.seconds;
  if (time.clock_hz > 0)
    {
      check->pipe_s[0] = time.mte2_cycles / time.clock_hz;
      check->pipe_s[1] = time.vector_cycles / time.clock_hz;
      check->pipe_s[2] = time.mte3_cycles / time.clock_hz;
      check->pipe_s[3] = time.cube_cycles / time.clock_hz;
    }
  copy_diagnostics (check, run);
  check->pass = check->diagnostics->len == 0;
  check->max_abs = check->max_rel = 0;
  check->cosine = 1.0;
  for (guint o = 0; o < fw_twin_run_get_n_outputs (run); o++)
    {
      FwArray *got = fw_twin_run_get_output (run, o);
      FwDType dt = half ? FW_DTYPE_FLOAT16 : got->dtype;
      FwTolerance tol = tolerance ? *tolerance : fw_tolerance_for_dtype (dt);
      gdouble min_cos = dt == FW_DTYPE_FLOAT ? FW_TWIN_MIN_COSINE : 0.999;
      gboolean requantised = got->dtype == FW_DTYPE_INT8 || got->dtype == FW_DTYPE_UINT8;
      FwCompare c;
      gdouble cs;

      /* An integer kernel's requantised output is right within one quantisation step, the host verification's
       * rule (fw-verify.c group_tolerance): a last-bit float difference may cross a rounding boundary. */
      if (tolerance == NULL && requantised)
        tol = (FwTolerance) { 0.0, 1.0 };
      else if (tolerance == NULL)
        tol.abs += product_abs;
      fw_compare_arrays (want[o], got, &tol, &c);
      cs = cosine (want[o], got);
      check->max_abs = MAX (check->max_abs, c.max_abs);
      check->max_rel = MAX (check->max_rel, c.max_rel);
      check->cosine = MIN (check->cosine, cs);
      check->pass = check->pass && c.pass && cs >= min_cos;
    }
  return check;
}

/* The group's nodes from the kernel's inputs widened to golden: the nodes whose results the kernel reads as
 * inputs (an epilogue's compute root) are left out. FALSE with error when a node cannot run. */
static gboolean
run_golden (const FwKernelSource *src, const FwCandidate *group, FwDType golden, FwArray *const *ins,
            FwArray **gold, GError **error)
{
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, NULL);
  g_autoptr(GPtrArray) nodes = g_ptr_array_new ();
  g_autofree FwValue **in = g_new0 (FwValue *, fw_kernel_source_get_n_inputs (src) + 1);
  g_autofree FwValue **out = g_new0 (FwValue *, fw_kernel_source_get_n_outputs (src) + 1);
  FwGroupKernel kernel = { 0 };

  for (guint i = 0; i < fw_kernel_source_get_n_inputs (src); i++)
    in[i] = fw_kernel_source_get_input (src, i);
  for (guint o = 0; o < fw_kernel_source_get_n_outputs (src); o++)
    out[o] = fw_kernel_source_get_output (src, o);
  for (guint n = 0; n < group->nodes->len; n++)
    {
      FwNode *node = g_ptr_array_index (group->nodes, n);
      gboolean given = node->n_outputs > 0;

      for (guint o = 0; o < node->n_outputs && given; o++)
        {
          gboolean found = FALSE;
          for (guint i = 0; i < fw_kernel_source_get_n_inputs (src) && !found; i++)
            found = node->outputs[o] == in[i];
          given = found || node->outputs[o] == NULL;
        }
      if (!given)
        g_ptr_array_add (nodes, node);
    }
  kernel.candidate = group->index;
  kernel.n_inputs = fw_kernel_source_get_n_inputs (src);
  kernel.inputs = in;
  kernel.n_outputs = fw_kernel_source_get_n_outputs (src);
  kernel.outputs = out;
  fw_exec_context_set_golden (ctx, golden);
  return fw_group_run_reference (ctx, &kernel, nodes, ins, gold, error);
}

/* check judged by the golden rule: the twin's outputs and the reference's (want) against the golden run. */
static void
judge_golden (FwTwinCheck *check, FwTwinRun *run, FwArray *const *want, FwArray *const *gold, gboolean half,
              const FwTolerance *tolerance, gdouble product_abs)
{
  check->pass = check->diagnostics->len == 0;
  for (guint o = 0; o < fw_twin_run_get_n_outputs (run); o++)
    {
      FwArray *got = fw_twin_run_get_output (run, o);
      FwTolerance tol = tolerance ? *tolerance : fw_tolerance_for_dtype (half ? FW_DTYPE_FLOAT16 : got->dtype);
      FwGoldenError ue, fe;

      if (tolerance == NULL)
        tol.abs += product_abs;
      fw_golden_error_measure (gold[o], want[o], &tol, &ue);
      fw_golden_error_measure (gold[o], got, &tol, &fe);
      if (o == 0)
        {
          check->unfused_golden = ue;
          check->fused_golden = fe;
        }
      else
        {
          check->unfused_golden.max_abs = MAX (check->unfused_golden.max_abs, ue.max_abs);
          check->unfused_golden.max_rel = MAX (check->unfused_golden.max_rel, ue.max_rel);
          check->unfused_golden.cosine = MIN (check->unfused_golden.cosine, ue.cosine);
          check->unfused_golden.n_failed += ue.n_failed;
          check->fused_golden.max_abs = MAX (check->fused_golden.max_abs, fe.max_abs);
          check->fused_golden.max_rel = MAX (check->fused_golden.max_rel, fe.max_rel);
          check->fused_golden.cosine = MIN (check->fused_golden.cosine, fe.cosine);
          check->fused_golden.n_failed += fe.n_failed;
        }
      check->pass = check->pass && fw_golden_error_pass (&ue, &fe);
    }
}

FwTwinCheck *
fw_ascend_twin_check (FwAscendTwin *twin, FwAscendKernel *kernel, const FwProfile *profile, GHashTable *values,
                      const FwTolerance *tolerance, const char *unavailable)
{
  return fw_ascend_twin_check_policy (twin, kernel, profile, values, tolerance, unavailable, NULL, FW_DTYPE_UNDEFINED);
}

FwTwinCheck *
fw_ascend_twin_check_policy (FwAscendTwin *twin, FwAscendKernel *kernel, const FwProfile *profile, GHashTable *values,
                             const FwTolerance *tolerance, const char *unavailable, const FwCandidate *group,
                             FwDType golden)
{
  const FwKernelSource *src = fw_ascend_kernel_get_kernel_source (kernel);
  guint n_in = fw_kernel_source_get_n_inputs (src), n_out = fw_kernel_source_get_n_outputs (src);
  g_autoptr(GPtrArray) ins = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_array_unref);
  g_autoptr(GPtrArray) want = g_ptr_array_new ();
  g_autoptr(FwTwinRun) run = NULL;
  g_autoptr(GError) error = NULL;
  gboolean half = compute_dtype (src) == FW_DTYPE_FLOAT16;
  FwArray **gold = NULL;
  FwTwinCheck *check;
  gdouble product_abs;

  if (twin == NULL)
    return fw_twin_check_new_error (unavailable ? unavailable : _("the Ascend C twin is not available"));
  for (guint i = 0; i < n_in; i++)
    {
      FwValue *v = fw_kernel_source_get_input (src, i);
      FwArray *a = g_hash_table_lookup (values, v);

      a = a != NULL ? fw_array_ref (a) : v->constant != NULL ? fw_array_new_from_tensor (v->constant, &error) : NULL;
      if (a == NULL)
        {
          g_autofree char *msg = error ? g_strdup (error->message)
                                       : g_strdup_printf (_("the reference run did not keep “%s”"), v->name);
          return fw_twin_check_new_error (msg);
        }
      g_ptr_array_add (ins, a);
    }
  for (guint o = 0; o < n_out; o++)
    {
      FwValue *v = fw_kernel_source_get_output (src, o);
      FwArray *a = g_hash_table_lookup (values, v);

      if (a == NULL)
        {
          g_autofree char *msg = g_strdup_printf (_("the reference run did not keep “%s”"), v->name);
          return fw_twin_check_new_error (msg);
        }
      g_ptr_array_add (want, a);
    }
  run = fw_ascend_twin_run (twin, kernel, profile, (FwArray *const *) ins->pdata, &error);
  if (run == NULL)
    return fw_twin_check_new_error (error->message);
  /* A mixed kernel sums its product in another order than the reference's BLAS. */
  product_abs = fw_ascend_kernel_product_tolerance (kernel, (FwArray *const *) ins->pdata);
  check = fw_twin_check_new_from_run (run, (FwArray *const *) want->pdata, half, tolerance, product_abs, profile);
  if (golden == FW_DTYPE_UNDEFINED || group == NULL)
    return check;
  gold = g_new0 (FwArray *, n_out + 1);
  if (!run_golden (src, group, golden, (FwArray *const *) ins->pdata, gold, &error))
    {
      /* TRANSLATORS: the golden run is the group computed in a wider type */
      g_autofree char *msg = g_strdup_printf (_("golden run: %s"), error->message);
      fw_twin_check_free (check);
      g_free (gold);
      return fw_twin_check_new_error (msg);
    }
  check->golden = golden;
  judge_golden (check, run, (FwArray *const *) want->pdata, gold, half, tolerance, product_abs);
  for (guint o = 0; o < n_out; o++)
    g_clear_pointer (&gold[o], fw_array_unref);
  g_free (gold);
  return check;
}
