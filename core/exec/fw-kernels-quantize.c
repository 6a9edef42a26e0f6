/* fw-kernels-quantize.c: the linear quantisation kernels: QuantizeLinear, DequantizeLinear (per tensor,
 * per axis and, from opset 21, blocked), DynamicQuantizeLinear, and QLinearConv / QLinearMatMul, which run
 * ConvInteger's and MatMulInteger's integer cores and requantise their int32 sums.
 *
 * Every rounding step is float32 arithmetic in the order ONNX Runtime's MLAS uses, since the interpreter
 * must equal it on every value of a quantised model: QuantizeLinear divides (x / scale, not x times a
 * reciprocal), clamps to [qmin − zp, qmax − zp] and rounds half to even before adding the zero point
 * (MlasQuantizeLinear); requantisation multiplies float(acc) by the float32 product x_scale × w_scale /
 * y_scale (MlasRequantizeOutput). int4 ([-8, 7]) and uint4 ([0, 15]), from opset 21, take the same path in
 * all three forms: their arrays hold one element a byte, int4 sign-extended (fw-array.h), so they are stored
 * and read as int8 / uint8 once saturated to the 4-bit range; the packing two a byte belongs to the file
 * (FwTensor) alone. Float8 outputs are refused (their saturate attribute is the only thing that would
 * matter there). */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-kernels-nn-private.h"

/* The integer range of a quantised dtype; FALSE (with error) for any other dtype. with_int32: DequantizeLinear
 * also reads int32 (a bias quantised with zero point 0). */
static gboolean
quant_range (const FwNode *node, FwDType dtype, gboolean with_int32, gint64 *lo, gint64 *hi, GError **error)
{
  switch (dtype)
    {
    case FW_DTYPE_INT8: *lo = G_MININT8; *hi = G_MAXINT8; return TRUE;
    case FW_DTYPE_UINT8: *lo = 0; *hi = G_MAXUINT8; return TRUE;
    case FW_DTYPE_INT16: *lo = G_MININT16; *hi = G_MAXINT16; return TRUE;
    case FW_DTYPE_UINT16: *lo = 0; *hi = G_MAXUINT16; return TRUE;
    case FW_DTYPE_INT32:
      if (with_int32)
        {
          *lo = G_MININT32;
          *hi = G_MAXINT32;
          return TRUE;
        }
      break;
    case FW_DTYPE_INT4:
    case FW_DTYPE_UINT4:
      /* Shape inference refuses these below opset 21 already; a kernel run on its own checks again. */
      if (node->opset > 0 && node->opset < 21)
        return fw_kernel_fail (error, node, _("dtype %s needs opset 21 or later (the model imports opset %" PRId64 ")"),
                               fw_dtype_name (dtype), node->opset);
      *lo = dtype == FW_DTYPE_INT4 ? -8 : 0;
      *hi = dtype == FW_DTYPE_INT4 ? 7 : 15;
      return TRUE;
    case FW_DTYPE_FLOAT8E4M3FN:
    case FW_DTYPE_FLOAT8E4M3FNUZ:
    case FW_DTYPE_FLOAT8E5M2:
    case FW_DTYPE_FLOAT8E5M2FNUZ:
      return fw_kernel_fail (error, node, _("float8 quantisation (dtype %s, attribute “saturate”) is not "
                                            "supported"), fw_dtype_name (dtype));
    default:
      break;
    }
  return fw_kernel_fail (error, node, _("dtype %s is not a quantised integer type (int4, uint4, int8, uint8, int16, "
                                        "uint16%s)"),
                         fw_dtype_name (dtype), with_int32 ? ", int32" : "");
}

/* float64 comes only from the golden run (fw-golden.c), which widens a float32 scale exactly. */
static gboolean
is_scale_dtype (FwDType dtype)
{
  return dtype == FW_DTYPE_FLOAT || dtype == FW_DTYPE_FLOAT16 || dtype == FW_DTYPE_BFLOAT16 ||
         dtype == FW_DTYPE_DOUBLE;
}

/* Where an element of x finds its scale and zero point: x seen as [outer, len, inner] around axis; the
 * parameter of element (o, a, i) is param[(o × n_blocks + a / block) × inner + i] when blocked, param[a]
 * per axis, param[0] per tensor. */
typedef enum { LAYOUT_TENSOR, LAYOUT_AXIS, LAYOUT_BLOCKED } LayoutKind;

typedef struct
{
  LayoutKind kind;
  gint64     len, inner, block, n_blocks;
} QuantLayout;

static gint64
layout_index (const QuantLayout *l, gint64 e)
{
  gint64 a, o, i;

  if (l->kind == LAYOUT_TENSOR)
    return 0;
  a = (e / l->inner) % l->len;
  if (l->kind == LAYOUT_AXIS)
    return a;
  o = e / (l->inner * l->len);
  i = e % l->inner;
  return (o * l->n_blocks + a / l->block) * l->inner + i;
}

/* Reads axis and block_size against x and checks scale (and zero point, which must share its shape). */
static gboolean
quant_layout (const FwNode *node, const FwArray *x, const FwArray *scale, const FwArray *zp, QuantLayout *l,
              GError **error)
{
  gint64 block = fw_node_get_attr_int (node, "block_size", 0);
  guint axis = 0;

  memset (l, 0, sizeof *l);
  if (!is_scale_dtype (scale->dtype))
    return fw_kernel_fail (error, node, _("the scale must be float, float16 or bfloat16, not %s"),
                           fw_dtype_name (scale->dtype));
  if (zp != NULL && !fw_array_same_shape (zp, scale))
    return fw_kernel_fail (error, node, _("the zero point and the scale must have one shape"));
  if (block < 0)
    return fw_kernel_fail (error, node, _("attribute “block_size” must not be negative"));
  /* A one-element 1-D scale is per tensor, as ONNX Runtime reads it. */
  if (block == 0 && (scale->rank == 0 || (scale->rank == 1 && scale->n_elements == 1)))
    {
      l->kind = LAYOUT_TENSOR;
      return TRUE;
    }
  if (!fw_kernel_axis (node, fw_node_get_attr_int (node, "axis", 1), x->rank, &axis, error))
    return FALSE;
  l->len = x->dims[axis];
  l->inner = 1;
  for (guint d = axis + 1; d < x->rank; d++)
    l->inner *= x->dims[d];
  if (block == 0)
    {
      if (scale->rank != 1 || scale->dims[0] != l->len)
        return fw_kernel_fail (error, node, _("a per-axis scale must be 1-D with %" PRId64 " entries (axis %u)"),
                               l->len, axis);
      l->kind = LAYOUT_AXIS;
      return TRUE;
    }
  l->kind = LAYOUT_BLOCKED;
  l->block = block;
  l->n_blocks = (l->len + block - 1) / block;
  if (scale->rank != x->rank)
    return fw_kernel_fail (error, node, _("a blocked scale must have the input's rank %u"), x->rank);
  for (guint d = 0; d < x->rank; d++)
    if (scale->dims[d] != (d == axis ? l->n_blocks : x->dims[d]))
      return fw_kernel_fail (error, node, _("a blocked scale with block_size %" PRId64 " on axis %u must have "
                                            "%" PRId64 " entries on that axis and the input's size on the others"),
                             block, axis, l->n_blocks);
  return TRUE;
}

/* round_half_even (clamp (v, lo − zp, hi − zp)) + zp, as MLAS does in float; NaN becomes lo (SSE's MAXPS
 * returns its second operand on NaN). A float v is exact in double and the bounds are small integers, so
 * the same function serves the golden run's float64 quotient. */
static gint64
saturate_round (double v, gint64 zp, gint64 lo, gint64 hi)
{
  double min_v = (double) (lo - zp), max_v = (double) (hi - zp);

  v = v > min_v ? v : min_v;
  v = v < max_v ? v : max_v;
  return (gint64) rint (v) + zp;
}

static void
store_int (FwArray *y, gint64 i, gint64 v)
{
  switch (y->dtype)
    {
    case FW_DTYPE_INT8:
    case FW_DTYPE_INT4: ((gint8 *) y->data)[i] = (gint8) v; break;
    case FW_DTYPE_UINT8:
    case FW_DTYPE_UINT4: ((guint8 *) y->data)[i] = (guint8) v; break;
    case FW_DTYPE_INT16: ((gint16 *) y->data)[i] = (gint16) v; break;
    case FW_DTYPE_UINT16: ((guint16 *) y->data)[i] = (guint16) v; break;
    default: ((gint32 *) y->data)[i] = (gint32) v; break;
    }
}

static gboolean
quantize_linear_kernel (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                        FwArray **outputs, guint n_outputs, GError **error)
{
  FwArray *x = inputs[0], *scale = n_inputs > 1 ? inputs[1] : NULL, *zp = n_inputs > 2 ? inputs[2] : NULL;
  FwDType dtype = zp ? zp->dtype : (FwDType) fw_node_get_attr_int (node, "output_dtype", FW_DTYPE_UINT8);
  gint64 lo, hi;
  QuantLayout l;
  FwArray *y;

  if (x == NULL || scale == NULL)
    return fw_kernel_fail (error, node, _("inputs x and y_scale are required"));
  if (!is_scale_dtype (x->dtype) && x->dtype != FW_DTYPE_INT32)
    return fw_kernel_fail (error, node, _("input dtype %s is not supported"), fw_dtype_name (x->dtype));
  if (x->dtype == FW_DTYPE_DOUBLE && scale->dtype != FW_DTYPE_DOUBLE)
    return fw_kernel_fail (error, node, _("input dtype %s is not supported"), fw_dtype_name (x->dtype));
  if (dtype == 0)
    dtype = FW_DTYPE_UINT8;
  if (!quant_range (node, dtype, FALSE, &lo, &hi, error) || !quant_layout (node, x, scale, zp, &l, error))
    return FALSE;
  if ((y = fw_array_new (dtype, x->rank, x->dims, error)) == NULL)
    return FALSE;
  for (gint64 e = 0; e < x->n_elements; e++)
    {
      gint64 p = layout_index (&l, e);
      gint64 z = zp ? fw_array_get_int64 (zp, p) : 0;

      /* The golden run's widened input: the quotient in float64, the model's scale and rounding. */
      if (x->dtype == FW_DTYPE_DOUBLE)
        store_int (y, e, saturate_round (fw_array_get_double (x, e) / fw_array_get_double (scale, p), z, lo, hi));
      else
        store_int (y, e, saturate_round ((float) fw_array_get_double (x, e) / (float) fw_array_get_double (scale, p),
                                         z, lo, hi));
    }
  outputs[0] = y;
  (void) ctx;
  (void) n_outputs;
  return TRUE;
}

static gboolean
dequantize_linear_kernel (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                          FwArray **outputs, guint n_outputs, GError **error)
{
  FwArray *x = inputs[0], *scale = n_inputs > 1 ? inputs[1] : NULL, *zp = n_inputs > 2 ? inputs[2] : NULL;
  gint64 lo, hi;
  QuantLayout l;
  FwArray *y;

  if (x == NULL || scale == NULL)
    return fw_kernel_fail (error, node, _("inputs x and x_scale are required"));
  if (!quant_range (node, x->dtype, TRUE, &lo, &hi, error) || !quant_layout (node, x, scale, zp, &l, error))
    return FALSE;
  if (zp != NULL && zp->dtype != x->dtype)
    return fw_kernel_fail (error, node, _("the zero point must have the input's dtype"));
  if ((y = fw_array_new (scale->dtype, x->rank, x->dims, error)) == NULL)
    return FALSE;
  if (fw_array_element_size (x->dtype) == 1 && y->dtype == FW_DTYPE_FLOAT && scale->dtype == FW_DTYPE_FLOAT &&
      l.kind != LAYOUT_BLOCKED)
    {
      /* The 8-bit (and 4-bit, a byte an element) case the loop below computes through the generic
         accessors, at byte speed: the same arithmetic. */
      const float *sv = scale->data;
      float *yv = y->data;
      gboolean s8 = x->dtype == FW_DTYPE_INT8 || x->dtype == FW_DTYPE_INT4;

      for (gint64 e = 0; e < x->n_elements; e++)
        {
          gint64 p = layout_index (&l, e);
          gint32 xv = s8 ? ((const gint8 *) x->data)[e] : ((const guint8 *) x->data)[e];
          gint32 z = zp == NULL ? 0 : s8 ? ((const gint8 *) zp->data)[p] : ((const guint8 *) zp->data)[p];

          yv[e] = (float) (xv - z) * sv[p];
        }
      outputs[0] = y;
      (void) ctx;
      (void) n_outputs;
      return TRUE;
    }
  for (gint64 e = 0; e < x->n_elements; e++)
    {
      gint64 p = layout_index (&l, e);
      gint64 z = zp ? fw_array_get_int64 (zp, p) : 0;
      /* int32 subtraction, then float: (x − zp) × scale as ONNX Runtime computes it; the golden run's
         float64 scale makes the product exact */
      gint32 d = (gint32) (fw_array_get_int64 (x, e) - z);

      if (y->dtype == FW_DTYPE_DOUBLE)
        ((double *) y->data)[e] = (double) d * fw_array_get_double (scale, p);
      else if (y->dtype == FW_DTYPE_FLOAT)
        ((float *) y->data)[e] = (float) d * (float) fw_array_get_double (scale, p);
      else
        fw_array_set_double (y, e, (float) d * (float) fw_array_get_double (scale, p));
    }
  outputs[0] = y;
  (void) ctx;
  (void) n_outputs;
  return TRUE;
}

/* y_scale = (max(x, 0) − min(x, 0)) / 255, y_zero_point = round(clamp(0 − min / y_scale)), then
 * QuantizeLinear to uint8 (ONNX Runtime's GetQuantizationParameter). */
static gboolean
dynamic_quantize_linear_kernel (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                                FwArray **outputs, guint n_outputs, GError **error)
{
  FwArray *x = inputs[0];
  float min_v = 0, max_v = 0, scale;
  gint64 zp;
  const gint64 one = 1;
  g_autoptr(FwArray) y = NULL, ys = NULL, yz = NULL;

  if (x == NULL || x->dtype != FW_DTYPE_FLOAT)
    return fw_kernel_fail (error, node, _("input x must be float"));
  for (gint64 e = 0; e < x->n_elements; e++)
    {
      float v = ((const float *) x->data)[e];

      min_v = v < min_v ? v : min_v;
      max_v = v > max_v ? v : max_v;
    }
  scale = max_v == min_v ? 1.0f : (max_v - min_v) / 255.0f;
  {
    float z = 0.0f - min_v / scale;

    z = z < 0.0f ? 0.0f : (z > 255.0f ? 255.0f : z);
    zp = (gint64) rintf (z);
  }
  if ((y = fw_array_new (FW_DTYPE_UINT8, x->rank, x->dims, error)) == NULL
      || (ys = fw_array_new (FW_DTYPE_FLOAT, 0, &one, error)) == NULL
      || (yz = fw_array_new (FW_DTYPE_UINT8, 0, &one, error)) == NULL)
    return FALSE;
  for (gint64 e = 0; e < x->n_elements; e++)
    ((guint8 *) y->data)[e] = (guint8) saturate_round (((const float *) x->data)[e] / scale, zp, 0, 255);
  *(float *) ys->data = scale;
  *(guint8 *) yz->data = (guint8) zp;
  outputs[0] = g_steal_pointer (&y);
  if (n_outputs > 1)
    outputs[1] = g_steal_pointer (&ys);
  if (n_outputs > 2)
    outputs[2] = g_steal_pointer (&yz);
  (void) ctx;
  (void) n_inputs;
  return TRUE;
}

/* ---- QLinearConv, QLinearMatMul: the integer core, then requantisation ---- */

static gboolean
scalar_param (const FwNode *node, const FwArray *a, const char *what, GError **error)
{
  if (a == NULL || a->n_elements != 1)
    return fw_kernel_fail (error, node, _("%s must be a scalar"), what);
  return TRUE;
}

/* y = saturate(round(float(acc [+ bias]) × (x_scale × w_scale[c] / y_scale)) + y_zp), c the element's
 * channel: (e / inner) % n_channels. w_scale is a scalar or holds one value per channel. */
static FwArray *
requantize (const FwNode *node, const FwArray *acc, const FwArray *bias, const char *x_scale_name,
            const FwArray *x_scale, const FwArray *w_scale, const FwArray *y_scale, const FwArray *y_zp,
            gint64 n_channels, gint64 inner, GError **error)
{
  g_autofree float *mult = NULL;
  gint64 lo, hi, zp;
  float xs, ys;
  FwArray *y;

  if (!scalar_param (node, x_scale, x_scale_name, error) || !scalar_param (node, y_scale, "y_scale", error)
      || !scalar_param (node, y_zp, "y_zero_point", error)
      || !quant_range (node, y_zp->dtype, FALSE, &lo, &hi, error))
    return NULL;
  if (w_scale == NULL || (w_scale->n_elements != 1 && w_scale->n_elements != n_channels))
    {
      fw_kernel_fail (error, node, _("the weight scale must be a scalar or hold %" PRId64 " values"), n_channels);
      return NULL;
    }
  if (bias != NULL && (bias->dtype != FW_DTYPE_INT32 || bias->n_elements != n_channels))
    {
      fw_kernel_fail (error, node, _("the bias must be int32 with %" PRId64 " values"), n_channels);
      return NULL;
    }
  xs = (float) fw_array_get_double (x_scale, 0);
  ys = (float) fw_array_get_double (y_scale, 0);
  zp = fw_array_get_int64 (y_zp, 0);
  mult = g_new (float, MAX (n_channels, 1));
  for (gint64 c = 0; c < n_channels; c++)
    mult[c] = xs * (float) fw_array_get_double (w_scale, w_scale->n_elements == 1 ? 0 : c) / ys;
  if ((y = fw_array_new (y_zp->dtype, acc->rank, acc->dims, error)) == NULL)
    return NULL;
  for (gint64 e = 0; e < acc->n_elements; e++)
    {
      gint64 c = (e / inner) % n_channels;
      gint32 v = ((const gint32 *) acc->data)[e];

      if (bias != NULL)
        v = (gint32) ((guint32) v + (guint32) ((const gint32 *) bias->data)[c]);
      store_int (y, e, saturate_round ((float) v * mult[c], zp, lo, hi));
    }
  return y;
}

/* x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B */
static gboolean
qlinear_conv_kernel (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                     FwArray **outputs, guint n_outputs, GError **error)
{
  FwArray *in[9] = { NULL };
  FwArray *core_in[4];
  g_autoptr(FwArray) acc = NULL;
  gint64 inner = 1;

  memcpy (in, inputs, MIN (n_inputs, 9u) * sizeof (FwArray *));
  if (in[0] == NULL || in[3] == NULL || in[7] == NULL)
    return fw_kernel_fail (error, node, _("inputs x, w and y_zero_point are required"));
  core_in[0] = in[0];
  core_in[1] = in[3];
  core_in[2] = in[2];
  core_in[3] = in[5];
  if (!fw_nn_conv_integer (ctx, node, core_in, 4, &acc, 1, error))
    return FALSE;
  for (guint d = 2; d < acc->rank; d++)
    inner *= acc->dims[d];
  outputs[0] = requantize (node, acc, in[8], "x_scale", in[1], in[4], in[6], in[7], acc->dims[1], inner, error);
  (void) n_outputs;
  return outputs[0] != NULL;
}

/* a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point */
static gboolean
qlinear_matmul_kernel (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                       FwArray **outputs, guint n_outputs, GError **error)
{
  FwArray *in[8] = { NULL };
  FwArray *core_in[4];
  g_autoptr(FwArray) acc = NULL;
  FwKernelFunc matmul_integer = fw_kernel_lookup (NULL, "MatMulInteger");
  gint64 n;

  memcpy (in, inputs, MIN (n_inputs, 8u) * sizeof (FwArray *));
  if (in[0] == NULL || in[3] == NULL || in[7] == NULL)
    return fw_kernel_fail (error, node, _("inputs a, b and y_zero_point are required"));
  core_in[0] = in[0];
  core_in[1] = in[3];
  core_in[2] = in[2];
  core_in[3] = in[5];
  if (!matmul_integer (ctx, node, core_in, 4, &acc, 1, error))
    return FALSE;
  n = in[3]->rank == 1 ? 1 : in[3]->dims[in[3]->rank - 1];
  outputs[0] = requantize (node, acc, NULL, "a_scale", in[1], in[4], in[6], in[7], n, 1, error);
  (void) n_outputs;
  return outputs[0] != NULL;
}

static const FwKernelEntry quantize_kernels[] = {
  { "DequantizeLinear", dequantize_linear_kernel },
  { "DynamicQuantizeLinear", dynamic_quantize_linear_kernel },
  { "QLinearConv", qlinear_conv_kernel },
  { "QLinearMatMul", qlinear_matmul_kernel },
  { "QuantizeLinear", quantize_linear_kernel },
};

const FwKernelEntry *
fw_kernels_quantize (guint *n_entries)
{
  *n_entries = G_N_ELEMENTS (quantize_kernels);
  return quantize_kernels;
}
