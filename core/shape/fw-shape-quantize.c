/* fw-shape-quantize.c: QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear keep their input's shape;
 * what they decide is the dtype (QLinearConv and QLinearMatMul are with their float siblings in
 * fw-shape-nn.c). */
#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>

#include "shape/fw-shape-private.h"

/* int4 and uint4 joined QuantizeLinear's T2 and DequantizeLinear's T1 in opset 21; a model importing an
 * older opset names a type its operators do not have. opset 0 (unknown, a graph built by hand) passes. */
static gboolean
check_4bit_opset (FwNode *node, FwDType dtype, GError **error)
{
  if (fw_dtype_is_4bit (dtype) && node->opset > 0 && node->opset < 21)
    return fw_infer_error (error, node, _("dtype %s needs opset 21 or later (the model imports opset %" PRId64 ")"),
                           fw_dtype_name (dtype), node->opset);
  return TRUE;
}

/* The quantised dtype: the zero point's, else attribute output_dtype (opset 21), else uint8. */
gboolean
fw_infer_quantize_linear (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  FwValue *zp = fw_infer_input (node, 2);
  gint64 out = fw_node_get_attr_int (node, "output_dtype", 0);
  FwDType dtype = FW_DTYPE_UINT8;

  if (zp != NULL)
    dtype = zp->dtype;
  else if (out != 0)
    {
      if (!fw_dtype_is_valid (out))
        return fw_infer_error (error, node, _("attribute “output_dtype” must be a valid data type"));
      dtype = (FwDType) out;
    }
  if (!check_4bit_opset (node, dtype, error))
    return FALSE;
  fw_infer_set (ctx, node, 0, dtype, x ? x->rank : FW_RANK_UNKNOWN, x ? x->dims : NULL);
  return TRUE;
}

/* The scale's dtype. */
gboolean
fw_infer_dequantize_linear (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  FwValue *scale = fw_infer_input (node, 1);

  if (x != NULL && !check_4bit_opset (node, x->dtype, error))
    return FALSE;

  fw_infer_set (ctx, node, 0, scale ? scale->dtype : FW_DTYPE_UNDEFINED, x ? x->rank : FW_RANK_UNKNOWN,
                x ? x->dims : NULL);
  return TRUE;
}

/* y uint8 like x, y_scale a float scalar, y_zero_point a uint8 scalar. */
gboolean
fw_infer_dynamic_quantize_linear (FwInferContext *ctx, FwNode *node, GError **error G_GNUC_UNUSED)
{
  FwValue *x = fw_infer_input (node, 0);

  fw_infer_set (ctx, node, 0, FW_DTYPE_UINT8, x ? x->rank : FW_RANK_UNKNOWN, x ? x->dims : NULL);
  fw_infer_set (ctx, node, 1, FW_DTYPE_FLOAT, 0, NULL);
  fw_infer_set (ctx, node, 2, FW_DTYPE_UINT8, 0, NULL);
  return TRUE;
}
