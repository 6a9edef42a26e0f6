/* fw-unquantised.c: the unquantised mode of the reference interpreter: a QDQ model run as the float model
 * it was quantised from. Every QuantizeLinear of a float value passes that value on, and a DequantizeLinear
 * of such a passed-on value passes it on again, so activations keep float32 (weights, stored as integers,
 * are still dequantised: the float original's weights are not in the file). Verification reports the
 * unfused and the fused results' distance to it as the quantisation error, beside the fusion error
 * (fw-verify.c). */
#include "config.h"

#include <string.h>

#include "fw-exec-private.h"

void
fw_exec_context_set_unquantised (FwExecContext *ctx, gboolean unquantised)
{
  ctx->unquantised = unquantised;
}

gboolean
fw_exec_run_node_unquantised (const FwNode *node, FwArray *const *inputs, FwArray **outputs)
{
  gboolean q = strcmp (node->op_type, "QuantizeLinear") == 0, dq = strcmp (node->op_type, "DequantizeLinear") == 0;

  if (node->domain[0] != '\0' || !(q || dq) || node->n_inputs < 1 || inputs[0] == NULL || node->n_outputs < 1 ||
      inputs[0]->dtype != FW_DTYPE_FLOAT)
    return FALSE;
  outputs[0] = fw_array_ref (inputs[0]);
  return TRUE;
}
