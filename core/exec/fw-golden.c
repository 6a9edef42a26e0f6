/* fw-golden.c: the golden mode of the reference interpreter: the same graph with every floating-point
 * tensor of a narrower type widened (float16 and bfloat16 to float32, or everything to float64), so a
 * half-precision model runs without any rounding to half. Each node's half inputs are widened before its
 * kernel runs and its half outputs after; a Cast to a narrower float type is the widened value itself.
 * QuantizeLinear and DequantizeLinear keep the quantisation as the model states it: their widened scale holds
 * the model's value exactly, the zero points and the integer rounding and saturation are unchanged, and only
 * the quotient and the product are computed in float64 (fw-kernels-quantize.c). The verification policy "golden" compares the unfused and the fused runs against it (fw-verify.c). */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "fw-error.h"
#include "fw-exec-private.h"

void
fw_exec_context_set_golden (FwExecContext *ctx, FwDType golden)
{
  ctx->golden = golden;
}

FwDType
fw_exec_golden_dtype (FwDType golden, FwDType dtype)
{
  if (golden == FW_DTYPE_FLOAT && (dtype == FW_DTYPE_FLOAT16 || dtype == FW_DTYPE_BFLOAT16))
    return FW_DTYPE_FLOAT;
  if (golden == FW_DTYPE_DOUBLE && (dtype == FW_DTYPE_FLOAT16 || dtype == FW_DTYPE_BFLOAT16 || dtype == FW_DTYPE_FLOAT))
    return FW_DTYPE_DOUBLE;
  return dtype;
}

/* a widened to to (a new reference: a itself when it already is). */
static FwArray *
widen (FwArray *a, FwDType to, GError **error)
{
  FwArray *w;

  if (a == NULL || a->dtype == to)
    return a ? fw_array_ref (a) : NULL;
  w = fw_array_new (to, a->rank, a->dims, error);
  if (w == NULL)
    return NULL;
  if (a->dtype == FW_DTYPE_FLOAT16 && to == FW_DTYPE_FLOAT)
    for (gint64 i = 0; i < a->n_elements; i++)
      ((float *) w->data)[i] = fw_half_to_float (((const guint16 *) a->data)[i]);
  else
    for (gint64 i = 0; i < a->n_elements; i++)
      fw_array_set_double (w, i, fw_array_get_double (a, i));
  return w;
}

static gboolean
is_float (FwDType dtype)
{
  return dtype == FW_DTYPE_FLOAT || dtype == FW_DTYPE_DOUBLE || dtype == FW_DTYPE_FLOAT16 ||
         dtype == FW_DTYPE_BFLOAT16;
}

gboolean
fw_exec_run_node_golden (FwExecContext *ctx, const FwNode *node, FwKernelFunc run, FwArray *const *inputs,
                         FwArray **outputs, GError **error)
{
  g_autofree FwArray **in = g_new0 (FwArray *, node->n_inputs + 1);
  gboolean ok = TRUE;

  for (guint i = 0; ok && i < node->n_inputs; i++)
    if (inputs[i] != NULL)
      ok = (in[i] = widen (inputs[i], fw_exec_golden_dtype (ctx->golden, inputs[i]->dtype), error)) != NULL;
  if (ok && strcmp (node->op_type, "Cast") == 0 && node->n_inputs == 1 && in[0] != NULL && is_float (in[0]->dtype) &&
      node->n_outputs == 1)
    {
      /* A Cast between float types goes to the widened target: a Cast to half rounds nothing. */
      FwDType to = fw_exec_golden_dtype (ctx->golden, (FwDType) fw_node_get_attr_int (node, "to", 0));
      if (is_float (to))
        {
          outputs[0] = widen (in[0], to, error);
          ok = outputs[0] != NULL;
          goto done;
        }
    }
  if (ok)
    ok = run (ctx, node, in, node->n_inputs, outputs, node->n_outputs, error);
  for (guint o = 0; ok && o < node->n_outputs; o++)
    if (outputs[o] != NULL)
      {
        FwDType to = fw_exec_golden_dtype (ctx->golden, outputs[o]->dtype);
        if (to != outputs[o]->dtype)
          {
            FwArray *w = widen (outputs[o], to, error);
            fw_array_unref (outputs[o]);
            outputs[o] = w;
            ok = w != NULL;
          }
      }
done:
  for (guint i = 0; i < node->n_inputs; i++)
    g_clear_pointer (&in[i], fw_array_unref);
  return ok;
}
