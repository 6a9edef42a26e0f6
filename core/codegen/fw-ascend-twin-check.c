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

FwTwinCheck *
fw_ascend_twin_check (FwAscendTwin *twin, FwAscendKernel *kernel, const FwProfile *profile, GHashTable *values,
                      const FwTolerance *tolerance, const char *unavailable)
{
  const FwKernelSource *src = fw_ascend_kernel_get_kernel_source (kernel);
  guint n_in = fw_kernel_source_get_n_inputs (src), n_out = fw_kernel_source_get_n_outputs (src);
  g_autoptr(GPtrArray) ins = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_array_unref);
  g_autoptr(GPtrArray) want = g_ptr_array_new ();
  g_autoptr(FwTwinRun) run = NULL;
  g_autoptr(GError) error = NULL;

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
  return fw_twin_check_new_from_run (run, (FwArray *const *) want->pdata, compute_dtype (src) == FW_DTYPE_FLOAT16,
                                     tolerance, fw_ascend_kernel_product_tolerance (kernel, (FwArray *const *) ins->pdata),
                                     profile);
}
