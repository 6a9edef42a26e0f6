/* fw-ascend-scope-twin.c: a SuperKernel scope's sk_NNN.cpp on the twin (fw-ascend-twin.h): its blocks at
 * once, one thread each, on the reference values of what it reads and the stand-ins' results, every value
 * it writes compared with the reference's. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "fw-ascend-twin.h"
#include "fw-error.h"

FwTwinCheck *
fw_ascend_twin_check_scope (FwAscendTwin *twin, FwAscendScope *scope, const FwProfile *profile, GHashTable *values,
                            const FwTolerance *tolerance, guint drop_barrier, const char *unavailable)
{
  const FwKernelSource *src = fw_ascend_scope_get_kernel_source (scope);
  const char *name = fw_kernel_source_get_name (src);
  guint n_in = fw_kernel_source_get_n_inputs (src), n_out = fw_kernel_source_get_n_outputs (src), n_tiling = 0;
  g_autofree char *kernel_name = g_strdup_printf ("%s.cpp", name);
  g_autofree char *tiling_name = g_strdup_printf ("%s_tiling.h", name);
  g_autoptr(GPtrArray) ins = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_array_unref);
  g_autoptr(GPtrArray) outs = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_array_unref);
  g_autoptr(GPtrArray) want = g_ptr_array_new ();
  g_autoptr(GHashTable) arrays = g_hash_table_new (NULL, NULL);
  g_autoptr(FwTwinRun) run = NULL;
  g_autoptr(GError) error = NULL;
  gboolean half = FALSE;
  FwTwinKernel k = { 0 };

  if (twin == NULL)
    return fw_twin_check_new_error (unavailable ? unavailable : _("the Ascend C twin is not available"));
  for (guint i = 0; i < n_in + n_out; i++)
    {
      FwValue *v = i < n_in ? fw_kernel_source_get_input (src, i) : fw_kernel_source_get_output (src, i - n_in);
      FwArray *a = g_hash_table_lookup (values, v);

      half = half || v->dtype == FW_DTYPE_FLOAT16;
      if (i < n_in)
        /* ins holds a reference: constants are made here */
        a = a != NULL ? fw_array_ref (a) : v->constant != NULL ? fw_array_new_from_tensor (v->constant, &error) : NULL;
      if (a == NULL)
        {
          g_autofree char *msg = error ? g_strdup (error->message)
                                       : g_strdup_printf (_("the reference run did not keep “%s”"), v->name);
          return fw_twin_check_new_error (msg);
        }
      g_hash_table_insert (arrays, v, a);
      if (i < n_in)
        g_ptr_array_add (ins, a);
      else
        {
          gint64 dims[FW_MAX_RANK];
          FwArray *out;

          g_ptr_array_add (want, a);
          for (gint d = 0; d < v->rank; d++)
            dims[d] = v->dims[d].value;
          if ((out = fw_array_new0 (v->dtype, (guint) v->rank, dims, &error)) == NULL)
            return fw_twin_check_new_error (error->message);
          g_ptr_array_add (outs, out);
        }
    }
  k.entry = name;
  k.kernel_name = kernel_name;
  k.kernel_source = fw_kernel_source_get_main (src);
  k.tiling_name = tiling_name;
  k.tiling_source = fw_kernel_source_lookup_file (src, tiling_name);
  k.blocks = fw_ascend_scope_get_blocks (scope);
  k.n_tiling = 7;
  k.concurrent = TRUE;
  k.long_tiling = fw_ascend_scope_get_tiling (scope, &n_tiling);
  k.n_long_tiling = n_tiling;
  k.drop_barrier = drop_barrier;
  run = fw_ascend_twin_run_kernel (twin, &k, profile, (FwArray *const *) ins->pdata, n_in,
                                   (FwArray *const *) outs->pdata, n_out, &error);
  if (run == NULL)
    return fw_twin_check_new_error (error->message);
  return fw_twin_check_new_from_run (run, (FwArray *const *) want->pdata, half, tolerance,
                                     fw_ascend_scope_product_tolerance (scope, arrays), profile);
}
