/* fw-kernels-conv.c: Conv, ConvTranspose, ConvInteger (im2col or col2im around one BLAS GEMM per image and
 * group) and the pooling kernels. Window arithmetic (output sizes, auto_pad, ceil_mode) follows
 * shape/fw-shape-nn.c exactly, since the interpreter checks every result against shape inference. */
#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "hw/fw-blas.h"
#include "fw-kernels-nn-private.h"

typedef struct
{
  guint  n_spatial;
  /* Spatial axes right-aligned into three, missing ones 1 (kernel, stride, dilation 1, no padding). */
  gint64 in[3], out[3], kernel[3], stride[3], dilation[3], pad_begin[3], pad_end[3];
} Window;

typedef enum { POOL_MAX, POOL_AVERAGE, POOL_LP } PoolKind;

typedef enum { WINDOW_CONV, WINDOW_POOL, WINDOW_TRANSPOSE } WindowMode;

typedef enum { AUTO_PAD_NOTSET, AUTO_PAD_SAME_UPPER, AUTO_PAD_SAME_LOWER, AUTO_PAD_VALID } AutoPad;

static guint
fw_nn_threads_n (guint n_threads, gint64 work)
{
  return fw_host_loop_threads (work, n_threads);
}

#define FW_LOOPS "fw-kernels-conv-loops.h"
#include "fw-kernels-blas-types.h"

/* Attribute sizes beyond this are nonsense; refusing them keeps every sum below from overflowing. */
#define WINDOW_ATTR_MAX (G_GINT64_CONSTANT (1) << 40)

static gboolean
read_ints (const FwNode *node, const char *name, guint n, gint64 *out, gint64 fallback, gint64 min_value,
           GError **error)
{
  const FwAttr *attr = fw_node_get_attr (node, name);

  if (attr == NULL)
    {
      for (guint i = 0; i < n; i++)
        out[i] = fallback;
      return TRUE;
    }
  if (attr->type != FW_ATTR_INTS || attr->n != n)
    return fw_kernel_fail (error, node, _("attribute “%s” must be a list of %u integers"), name, n);
  for (guint i = 0; i < n; i++)
    {
      if (attr->ints[i] < min_value || attr->ints[i] > WINDOW_ATTR_MAX)
        return fw_kernel_fail (error, node, _("attribute “%s” has an invalid value %" PRId64),
                               name, attr->ints[i]);
      out[i] = attr->ints[i];
    }
  return TRUE;
}

static gboolean
read_auto_pad (const FwNode *node, AutoPad *out, GError **error)
{
  const char *s = fw_node_get_attr_string (node, "auto_pad");

  if (s == NULL || s[0] == '\0' || strcmp (s, "NOTSET") == 0)
    *out = AUTO_PAD_NOTSET;
  else if (strcmp (s, "SAME_UPPER") == 0)
    *out = AUTO_PAD_SAME_UPPER;
  else if (strcmp (s, "SAME_LOWER") == 0)
    *out = AUTO_PAD_SAME_LOWER;
  else if (strcmp (s, "VALID") == 0)
    *out = AUTO_PAD_VALID;
  else
    {
      g_autofree char *valid = g_utf8_make_valid (s, -1);
      return fw_kernel_fail (error, node, _("unknown auto_pad “%s”"), valid);
    }
  return TRUE;
}

/* Fills win for x (rank 3 to 5) and a kernel taken from kernel_dims (the weight's spatial dims) or, when
 * NULL, the kernel_shape attribute. Computes output sizes and pads except for WINDOW_TRANSPOSE, whose
 * caller does that. */
static gboolean
read_window (const FwNode *node, const FwArray *x, const gint64 *kernel_dims, WindowMode mode, Window *win,
             AutoPad *auto_pad_out, GError **error)
{
  gint64 kernel[3], strides[3], dilations[3], pads[6];
  AutoPad auto_pad = AUTO_PAD_NOTSET;
  gboolean ceil_mode = mode == WINDOW_POOL && fw_node_get_attr_int (node, "ceil_mode", 0) != 0;
  guint n;

  if (x->rank < 3)
    return fw_kernel_fail (error, node, _("input must have rank 3 or more, not %u"), x->rank);
  n = x->rank - 2;
  if (n > 3)
    return fw_kernel_fail (error, node, _("windows over %u spatial axes are not supported (at most 3)"), n);
  if (fw_node_get_attr (node, "kernel_shape") != NULL || kernel_dims == NULL)
    {
      if (fw_node_get_attr (node, "kernel_shape") == NULL)
        return fw_kernel_fail (error, node, _("attribute “kernel_shape” is required"));
      if (!read_ints (node, "kernel_shape", n, kernel, 1, 1, error))
        return FALSE;
      for (guint i = 0; kernel_dims != NULL && i < n; i++)
        if (kernel[i] != kernel_dims[i])
          return fw_kernel_fail (error, node, _("attribute “kernel_shape” does not match the weight's "
                                                "spatial size %" PRId64 " on axis %u"),
                                 kernel_dims[i], i);
    }
  else
    for (guint i = 0; i < n; i++)
      {
        if (kernel_dims[i] < 1)
          return fw_kernel_fail (error, node, _("the weight has an empty spatial axis %u"), i);
        kernel[i] = kernel_dims[i];
      }
  if (!read_ints (node, "strides", n, strides, 1, 1, error)
      || !read_ints (node, "dilations", n, dilations, 1, 1, error)
      || !read_ints (node, "pads", 2 * n, pads, 0, 0, error)
      || !read_auto_pad (node, &auto_pad, error))
    return FALSE;
  *auto_pad_out = auto_pad;

  memset (win, 0, sizeof *win);
  win->n_spatial = n;
  for (guint i = 0; i < 3; i++)
    {
      win->in[i] = win->out[i] = win->kernel[i] = win->stride[i] = win->dilation[i] = 1;
    }
  for (guint i = 0; i < n; i++)
    {
      guint a = 3 - n + i;
      gint64 in = x->dims[2 + i], keff, span, out;

      win->in[a] = in;
      win->kernel[a] = kernel[i];
      win->stride[a] = strides[i];
      win->dilation[a] = dilations[i];
      win->pad_begin[a] = auto_pad == AUTO_PAD_VALID ? 0 : pads[i];
      win->pad_end[a] = auto_pad == AUTO_PAD_VALID ? 0 : pads[i + n];
      if (mode == WINDOW_TRANSPOSE)
        continue;
      if (!fw_nn_mul (kernel[i] - 1, dilations[i], &keff))
        return fw_kernel_fail (error, node, _("the dilated kernel is too large on spatial axis %u"), i);
      keff++;
      if (auto_pad == AUTO_PAD_SAME_UPPER || auto_pad == AUTO_PAD_SAME_LOWER)
        {
          gint64 total;

          out = (in + strides[i] - 1) / strides[i];
          total = MAX (0, (out - 1) * strides[i] + keff - in);
          win->pad_begin[a] = auto_pad == AUTO_PAD_SAME_UPPER ? total / 2 : total - total / 2;
          win->pad_end[a] = total - win->pad_begin[a];
        }
      else
        {
          span = in + win->pad_begin[a] + win->pad_end[a] - keff;
          if (span < 0)
            return fw_kernel_fail (error, node, _("the window (%" PRId64 ") is larger than the padded "
                                                  "input (%" PRId64 ") on spatial axis %u"),
                                   keff, in + win->pad_begin[a] + win->pad_end[a], i);
          if (ceil_mode)
            {
              out = (span + strides[i] - 1) / strides[i] + 1;
              if ((out - 1) * strides[i] >= in + win->pad_begin[a])
                out--;
            }
          else
            out = span / strides[i] + 1;
        }
      win->out[a] = out;
    }
  return TRUE;
}

static gboolean
check_blas_dims (const FwNode *node, gint64 a, gint64 b, gint64 c, GError **error)
{
  if (a > G_MAXINT || b > G_MAXINT || c > G_MAXINT)
    return fw_kernel_fail (error, node, _("a matrix side is larger than BLAS can index (%d)"), G_MAXINT);
  return TRUE;
}

static gboolean
same_float_dtypes (const FwNode *node, const FwArray *x, const FwArray *w, const FwArray *b, GError **error)
{
  if (!fw_nn_is_float (x->dtype))
    return fw_kernel_fail (error, node, _("dtype %s is not supported"), fw_dtype_name (x->dtype));
  if (w->dtype != x->dtype || (b != NULL && b->dtype != x->dtype))
    return fw_kernel_fail (error, node, _("input, weight and bias must have one dtype"));
  return TRUE;
}

/* Checks shapes shared by Conv and ConvInteger; fills win and the output dims. */
static gboolean
conv_setup (const FwNode *node, const FwArray *x, const FwArray *w, const FwArray *b, gint64 group,
            Window *win, gint64 *out_dims, gint64 *n_out, GError **error)
{
  AutoPad auto_pad;

  if (group < 1)
    return fw_kernel_fail (error, node, _("attribute “group” must be positive"));
  if (x->rank < 3)
    return fw_kernel_fail (error, node, _("input must have rank 3 or more, not %u"), x->rank);
  if (w->rank != x->rank)
    return fw_kernel_fail (error, node, _("weight rank %u differs from input rank %u"), w->rank, x->rank);
  if (x->dims[1] != w->dims[1] * group)
    return fw_kernel_fail (error, node, _("input has %" PRId64 " channels, weight expects %"
                                          PRId64 " × group %" PRId64),
                           x->dims[1], w->dims[1], group);
  if (w->dims[0] % group != 0)
    return fw_kernel_fail (error, node, _("%" PRId64 " output channels do not split into %"
                                          PRId64 " groups"), w->dims[0], group);
  if (b != NULL && (b->rank != 1 || b->dims[0] != w->dims[0]))
    return fw_kernel_fail (error, node, _("bias must be 1-D with %" PRId64 " entries"), w->dims[0]);
  if (!read_window (node, x, w->dims + 2, WINDOW_CONV, win, &auto_pad, error))
    return FALSE;
  out_dims[0] = x->dims[0];
  out_dims[1] = w->dims[0];
  for (guint i = 0; i < win->n_spatial; i++)
    out_dims[2 + i] = win->out[3 - win->n_spatial + i];
  if (!fw_nn_size (node, x->rank, out_dims, n_out, error))
    return FALSE;
  return check_blas_dims (node, w->dims[0] / group, win->out[0] * win->out[1] * win->out[2],
                          w->dims[1] * win->kernel[0] * win->kernel[1] * win->kernel[2], error);
}

gboolean
fw_nn_conv (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs, FwArray **outputs,
            guint n_outputs, GError **error)
{
  FwArray *x = inputs[0], *w = n_inputs > 1 ? inputs[1] : NULL, *b = n_inputs > 2 ? inputs[2] : NULL;
  gint64 group = fw_node_get_attr_int (node, "group", 1);
  gint64 out_dims[FW_MAX_RANK], n_out;
  g_autoptr(FwArray) xw = NULL, ww = NULL, bw = NULL, y = NULL;
  Window win;
  gboolean ok;

  if (x == NULL || w == NULL)
    return fw_kernel_fail (error, node, _("inputs X and W are required"));
  if (!same_float_dtypes (node, x, w, b, error)
      || !conv_setup (node, x, w, b, group, &win, out_dims, &n_out, error))
    return FALSE;
  if ((xw = fw_nn_to_work (node, x, error)) == NULL || (ww = fw_nn_to_work (node, w, error)) == NULL
      || (b != NULL && (bw = fw_nn_to_work (node, b, error)) == NULL))
    return FALSE;
  if ((y = fw_array_new (xw->dtype, x->rank, out_dims, error)) == NULL)
    return FALSE;
  if (xw->dtype == FW_DTYPE_DOUBLE)
    ok = conv_d (node, xw->data, ww->data, bw ? bw->data : NULL, y->data, x->dims[0], x->dims[1], w->dims[0],
                 group, &win, fw_exec_context_get_n_threads (ctx), error);
  else
    ok = conv_f (node, xw->data, ww->data, bw ? bw->data : NULL, y->data, x->dims[0], x->dims[1], w->dims[0],
                 group, &win, fw_exec_context_get_n_threads (ctx), error);
  if (!ok)
    return FALSE;
  outputs[0] = fw_nn_from_work (y, x->dtype, error);
  return outputs[0] != NULL;
}

/* An integer input minus its zero point (scalar, or one per entry of axis 0 when per_row), as doubles:
 * exact, since every product and sum of 8-bit values stays far below 2^53. */
static FwArray *
dequantize (const FwNode *node, const FwArray *a, const FwArray *zero_point, gboolean per_row, GError **error)
{
  FwArray *out;
  gint64 row = a->rank > 0 && a->dims[0] > 0 ? a->n_elements / a->dims[0] : 1;

  if (a->dtype != FW_DTYPE_UINT8 && a->dtype != FW_DTYPE_INT8)
    {
      fw_kernel_fail (error, node, _("dtype %s is not supported (int8 or uint8)"), fw_dtype_name (a->dtype));
      return NULL;
    }
  if (zero_point != NULL && zero_point->dtype != a->dtype)
    {
      fw_kernel_fail (error, node, _("a zero point must have its input's dtype"));
      return NULL;
    }
  if (zero_point != NULL && zero_point->n_elements != 1
      && !(per_row && a->rank > 0 && zero_point->n_elements == a->dims[0]))
    {
      fw_kernel_fail (error, node, _("a zero point must be a scalar or hold one value per output channel"));
      return NULL;
    }
  out = fw_array_new (FW_DTYPE_DOUBLE, a->rank, a->dims, error);
  if (out == NULL)
    return NULL;
  for (gint64 i = 0; i < a->n_elements; i++)
    {
      double zp = 0;

      if (zero_point != NULL)
        zp = fw_array_get_double (zero_point, zero_point->n_elements == 1 ? 0 : i / row);
      ((double *) out->data)[i] = fw_array_get_double (a, i) - zp;
    }
  return out;
}

gboolean
fw_nn_conv_integer (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                    FwArray **outputs, guint n_outputs, GError **error)
{
  FwArray *x = inputs[0], *w = n_inputs > 1 ? inputs[1] : NULL;
  FwArray *xz = n_inputs > 2 ? inputs[2] : NULL, *wz = n_inputs > 3 ? inputs[3] : NULL;
  gint64 group = fw_node_get_attr_int (node, "group", 1);
  gint64 out_dims[FW_MAX_RANK], n_out;
  g_autoptr(FwArray) xd = NULL, wd = NULL, y = NULL;
  Window win;

  if (x == NULL || w == NULL)
    return fw_kernel_fail (error, node, _("inputs x and w are required"));
  if (xz != NULL && xz->n_elements != 1)
    return fw_kernel_fail (error, node, _("x_zero_point must be a scalar"));
  if (!conv_setup (node, x, w, NULL, group, &win, out_dims, &n_out, error))
    return FALSE;
  if ((xd = dequantize (node, x, xz, FALSE, error)) == NULL || (wd = dequantize (node, w, wz, TRUE, error)) == NULL)
    return FALSE;
  if ((y = fw_array_new (FW_DTYPE_DOUBLE, x->rank, out_dims, error)) == NULL)
    return FALSE;
  if (!conv_d (node, xd->data, wd->data, NULL, y->data, x->dims[0], x->dims[1], w->dims[0], group, &win,
               fw_exec_context_get_n_threads (ctx), error))
    return FALSE;
  outputs[0] = fw_array_new (FW_DTYPE_INT32, x->rank, out_dims, error);
  if (outputs[0] == NULL)
    return FALSE;
  for (gint64 i = 0; i < n_out; i++)
    ((gint32 *) outputs[0]->data)[i] = (gint32) (gint64) llround (((double *) y->data)[i]);
  return TRUE;
}

gboolean
fw_nn_conv_transpose (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                      FwArray **outputs, guint n_outputs, GError **error)
{
  FwArray *x = inputs[0], *w = n_inputs > 1 ? inputs[1] : NULL, *b = n_inputs > 2 ? inputs[2] : NULL;
  gint64 group = fw_node_get_attr_int (node, "group", 1);
  const FwAttr *output_shape = fw_node_get_attr (node, "output_shape");
  gint64 out_pad[3], out_dims[FW_MAX_RANK], n_out, c_out;
  g_autoptr(FwArray) xw = NULL, ww = NULL, bw = NULL, y = NULL;
  AutoPad auto_pad;
  Window win;
  guint n;
  gboolean ok;

  if (x == NULL || w == NULL)
    return fw_kernel_fail (error, node, _("inputs X and W are required"));
  if (!same_float_dtypes (node, x, w, b, error))
    return FALSE;
  if (group < 1)
    return fw_kernel_fail (error, node, _("attribute “group” must be positive"));
  if (x->rank < 3 || w->rank != x->rank)
    return fw_kernel_fail (error, node, _("input and weight must have one rank of 3 or more"));
  if (w->dims[0] != x->dims[1] || x->dims[1] % group != 0)
    return fw_kernel_fail (error, node, _("input has %" PRId64 " channels, weight %" PRId64
                                          " (group %" PRId64 ")"), x->dims[1], w->dims[0], group);
  if (!fw_nn_mul (w->dims[1], group, &c_out))
    return fw_kernel_fail (error, node, _("too many output channels"));
  if (b != NULL && (b->rank != 1 || b->dims[0] != c_out))
    return fw_kernel_fail (error, node, _("bias must be 1-D with %" PRId64 " entries"), c_out);
  if (!read_window (node, x, w->dims + 2, WINDOW_TRANSPOSE, &win, &auto_pad, error))
    return FALSE;
  n = win.n_spatial;
  if (!read_ints (node, "output_padding", n, out_pad, 0, 0, error))
    return FALSE;
  if (output_shape != NULL && (output_shape->type != FW_ATTR_INTS || output_shape->n < n))
    return fw_kernel_fail (error, node, _("attribute “output_shape” must list the %u spatial sizes"), n);
  for (guint i = 0; i < n; i++)
    {
      guint a = 3 - n + i;
      gint64 keff, full, out;

      /* Every term is at most 2^40 (read_ints) or the tensor cap, so the sums below cannot overflow. */
      if (!fw_nn_mul (win.kernel[a] - 1, win.dilation[a], &keff)
          || !fw_nn_mul (win.stride[a], MAX (win.in[a] - 1, 0), &full))
        return fw_kernel_fail (error, node, _("the output would be too large on spatial axis %u"), i);
      full += out_pad[i] + keff + 1;

      if (output_shape != NULL || auto_pad == AUTO_PAD_SAME_UPPER || auto_pad == AUTO_PAD_SAME_LOWER)
        {
          gint64 total;

          out = output_shape != NULL ? output_shape->ints[output_shape->n - n + i] : win.in[a] * win.stride[a];
          if (out < 0 || out > WINDOW_ATTR_MAX)
            return fw_kernel_fail (error, node, _("invalid output size %" PRId64), out);
          total = MAX (0, full - out);
          /* ONNX's equations: SAME_UPPER puts the odd pixel at the end, everything else at the start. */
          win.pad_begin[a] = auto_pad == AUTO_PAD_SAME_UPPER ? total / 2 : total - total / 2;
          win.pad_end[a] = total - win.pad_begin[a];
        }
      else
        {
          out = full - win.pad_begin[a] - win.pad_end[a];
          if (out < 0)
            return fw_kernel_fail (error, node, _("negative output size on spatial axis %u"), i);
        }
      win.out[a] = out;
      out_dims[2 + i] = out;
    }
  out_dims[0] = x->dims[0];
  out_dims[1] = c_out;
  if (!fw_nn_size (node, x->rank, out_dims, &n_out, error)
      || !check_blas_dims (node, w->dims[1] * win.kernel[0] * win.kernel[1] * win.kernel[2],
                           win.in[0] * win.in[1] * win.in[2], x->dims[1] / group, error))
    return FALSE;
  if ((xw = fw_nn_to_work (node, x, error)) == NULL || (ww = fw_nn_to_work (node, w, error)) == NULL
      || (b != NULL && (bw = fw_nn_to_work (node, b, error)) == NULL))
    return FALSE;
  if ((y = fw_array_new (xw->dtype, x->rank, out_dims, error)) == NULL)
    return FALSE;
  if (xw->dtype == FW_DTYPE_DOUBLE)
    ok = conv_transpose_d (node, xw->data, ww->data, bw ? bw->data : NULL, y->data, x->dims[0], x->dims[1],
                           c_out, group, &win, fw_exec_context_get_n_threads (ctx), error);
  else
    ok = conv_transpose_f (node, xw->data, ww->data, bw ? bw->data : NULL, y->data, x->dims[0], x->dims[1],
                           c_out, group, &win, fw_exec_context_get_n_threads (ctx), error);
  if (!ok)
    return FALSE;
  outputs[0] = fw_nn_from_work (y, x->dtype, error);
  return outputs[0] != NULL;
}

gboolean
fw_nn_pool (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs, FwArray **outputs,
            guint n_outputs, GError **error)
{
  FwArray *x = inputs[0];
  PoolKind kind = strcmp (node->op_type, "MaxPool") == 0 ? POOL_MAX
                  : strcmp (node->op_type, "AveragePool") == 0 ? POOL_AVERAGE : POOL_LP;
  gboolean include_pad = fw_node_get_attr_int (node, "count_include_pad", 0) != 0;
  gboolean want_indices = n_outputs > 1 && node->outputs[1] != NULL;
  double p = (double) fw_node_get_attr_int (node, "p", 2);
  gint64 out_dims[FW_MAX_RANK], n_out, planes;
  g_autoptr(FwArray) xw = NULL, y = NULL, indices = NULL;
  AutoPad auto_pad;
  Window win;
  guint nt;

  if (x == NULL)
    return fw_kernel_fail (error, node, _("input X is required"));
  if (!fw_nn_is_float (x->dtype))
    return fw_kernel_fail (error, node, _("dtype %s is not supported"), fw_dtype_name (x->dtype));
  if (kind == POOL_LP && p <= 0)
    return fw_kernel_fail (error, node, _("attribute “p” must be positive"));
  if (!read_window (node, x, NULL, WINDOW_POOL, &win, &auto_pad, error))
    return FALSE;
  out_dims[0] = x->dims[0];
  out_dims[1] = x->dims[1];
  for (guint i = 0; i < win.n_spatial; i++)
    out_dims[2 + i] = win.out[3 - win.n_spatial + i];
  if (!fw_nn_size (node, x->rank, out_dims, &n_out, error))
    return FALSE;
  if ((xw = fw_nn_to_work (node, x, error)) == NULL
      || (y = fw_array_new (xw->dtype, x->rank, out_dims, error)) == NULL)
    return FALSE;
  if (kind == POOL_MAX && want_indices && (indices = fw_array_new (FW_DTYPE_INT64, x->rank, out_dims, error)) == NULL)
    return FALSE;
  planes = x->dims[0] * x->dims[1];
  nt = fw_nn_threads (ctx, n_out * win.kernel[0] * win.kernel[1] * win.kernel[2]);
  if (kind == POOL_MAX && indices == NULL && win.in[0] == 1 && win.out[0] == 1 && win.kernel[0] == 1)
    {
      if (xw->dtype == FW_DTYPE_DOUBLE)
        max_pool_2d_d (xw->data, y->data, planes, &win, nt);
      else
        max_pool_2d_f (xw->data, y->data, planes, &win, nt);
    }
  else if (xw->dtype == FW_DTYPE_DOUBLE)
    pool_d (xw->data, y->data, indices ? indices->data : NULL, planes, kind, include_pad, p, &win, nt);
  else
    pool_f (xw->data, y->data, indices ? indices->data : NULL, planes, kind, include_pad, p, &win, nt);
  outputs[0] = fw_nn_from_work (y, x->dtype, error);
  if (outputs[0] == NULL)
    return FALSE;
  if (want_indices)
    {
      if (indices == NULL)
        return fw_kernel_fail (error, node, _("only MaxPool has an Indices output"));
      outputs[1] = g_steal_pointer (&indices);
    }
  return TRUE;
}

gboolean
fw_nn_global_pool (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                   FwArray **outputs, guint n_outputs, GError **error)
{
  FwArray *x = inputs[0];
  PoolKind kind = strcmp (node->op_type, "GlobalMaxPool") == 0 ? POOL_MAX
                  : strcmp (node->op_type, "GlobalAveragePool") == 0 ? POOL_AVERAGE : POOL_LP;
  double p = (double) fw_node_get_attr_int (node, "p", 2);
  gint64 out_dims[FW_MAX_RANK], planes, size;
  g_autoptr(FwArray) xw = NULL, y = NULL;

  if (x == NULL)
    return fw_kernel_fail (error, node, _("input X is required"));
  if (!fw_nn_is_float (x->dtype))
    return fw_kernel_fail (error, node, _("dtype %s is not supported"), fw_dtype_name (x->dtype));
  if (x->rank < 2)
    return fw_kernel_fail (error, node, _("input must have rank 2 or more, not %u"), x->rank);
  if (kind == POOL_LP && p <= 0)
    return fw_kernel_fail (error, node, _("attribute “p” must be positive"));
  for (guint i = 0; i < x->rank; i++)
    out_dims[i] = i < 2 ? x->dims[i] : 1;
  planes = x->dims[0] * x->dims[1];
  size = planes > 0 ? x->n_elements / planes : 0;
  if ((xw = fw_nn_to_work (node, x, error)) == NULL
      || (y = fw_array_new (xw->dtype, x->rank, out_dims, error)) == NULL)
    return FALSE;
  if (xw->dtype == FW_DTYPE_DOUBLE)
    global_pool_d (xw->data, y->data, planes, size, kind, p, fw_nn_threads (ctx, x->n_elements));
  else
    global_pool_f (xw->data, y->data, planes, size, kind, p, fw_nn_threads (ctx, x->n_elements));
  outputs[0] = fw_nn_from_work (y, x->dtype, error);
  return outputs[0] != NULL;
}
