/* fw-shape-nn.c: the compute ops (MatMul, Gemm, Conv, ConvTranspose, Einsum), pooling, normalisation,
 * reductions and TopK. */
#include "config.h"

#include <inttypes.h>

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "shape/fw-shape-private.h"

static FwDType
dtype_of (const FwValue *value)
{
  return value ? value->dtype : FW_DTYPE_UNDEFINED;
}

static gboolean
dims_conflict (FwDim a, FwDim b)
{
  return a.value >= 0 && b.value >= 0 && a.value != b.value;
}

/* ---- MatMul, Gemm ---- */

gboolean
fw_infer_matmul (FwInferContext *ctx, FwNode *node, GError **error)
{
  gboolean qlinear = strcmp (node->op_type, "QLinearMatMul") == 0;
  FwValue *a = fw_infer_input (node, 0);
  FwValue *b = fw_infer_input (node, qlinear ? 3 : 1);
  FwDim out[FW_MAX_RANK];
  FwDim ka, kb;
  gint batch_rank = 0;
  gint rank;
  FwDType dtype = dtype_of (a);

  if (strcmp (node->op_type, "MatMulInteger") == 0)
    dtype = FW_DTYPE_INT32;
  else if (qlinear)
    dtype = dtype_of (fw_infer_input (node, 7));
  if (a == NULL || b == NULL || a->rank < 0 || b->rank < 0 || a->rank > FW_MAX_RANK || b->rank > FW_MAX_RANK)
    {
      fw_infer_set (ctx, node, 0, dtype, FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  if (a->rank == 0 || b->rank == 0)
    return fw_infer_error (error, node, _("MatMul inputs must have rank 1 or more"));
  ka = a->dims[a->rank - 1];
  kb = b->rank == 1 ? b->dims[0] : b->dims[b->rank - 2];
  if (dims_conflict (ka, kb))
    {
      g_autofree char *sa = fw_format_dims (a->rank, a->dims);
      g_autofree char *sb = fw_format_dims (b->rank, b->dims);
      return fw_infer_error (error, node, _("inner dimensions of %s and %s differ"), sa, sb);
    }
  if (a->rank > 2 || b->rank > 2)
    {
      gint ra = MAX (a->rank - 2, 0);
      gint rb = MAX (b->rank - 2, 0);
      if (!fw_broadcast_pair (node, ra, a->dims, rb, b->dims, &batch_rank, out, error))
        return FALSE;
    }
  rank = batch_rank;
  if (a->rank >= 2)
    out[rank++] = a->dims[a->rank - 2];
  if (b->rank >= 2)
    out[rank++] = b->dims[b->rank - 1];
  fw_infer_set (ctx, node, 0, dtype, rank, out);
  return TRUE;
}

gboolean
fw_infer_gemm (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *a = fw_infer_input (node, 0);
  FwValue *b = fw_infer_input (node, 1);
  FwValue *c = fw_infer_input (node, 2);
  gboolean ta = fw_node_get_attr_int (node, "transA", 0) != 0;
  gboolean tb = fw_node_get_attr_int (node, "transB", 0) != 0;
  FwDim out[2] = { FW_DIM_UNKNOWN, FW_DIM_UNKNOWN };
  FwDim ka = FW_DIM_UNKNOWN, kb = FW_DIM_UNKNOWN;

  if ((a && a->rank >= 0 && a->rank != 2) || (b && b->rank >= 0 && b->rank != 2))
    return fw_infer_error (error, node, _("Gemm inputs A and B must be 2-D"));
  if (a && a->rank == 2)
    {
      out[0] = a->dims[ta ? 1 : 0];
      ka = a->dims[ta ? 0 : 1];
    }
  if (b && b->rank == 2)
    {
      out[1] = b->dims[tb ? 0 : 1];
      kb = b->dims[tb ? 1 : 0];
    }
  if (dims_conflict (ka, kb))
    {
      g_autofree char *sa = fw_format_dims (a->rank, a->dims);
      g_autofree char *sb = fw_format_dims (b->rank, b->dims);
      return fw_infer_error (error, node, _("inner dimensions of %s and %s differ (transA=%d, transB=%d)"),
                             sa, sb, ta, tb);
    }
  if (c && c->rank >= 0)
    {
      FwDim tmp[FW_MAX_RANK];
      gint r;
      /* C must broadcast to [M, N]; checking it catches a wrong bias early. */
      if (!fw_broadcast_pair (node, 2, out, c->rank, c->dims, &r, tmp, error))
        return FALSE;
    }
  fw_infer_set (ctx, node, 0, dtype_of (a), 2, out);
  return TRUE;
}

/* ---- windows: Conv, ConvTranspose, pooling ---- */

typedef struct
{
  gint   n_spatial;
  gint64 kernel[FW_MAX_RANK];
  gboolean kernel_known;
  gint64 strides[FW_MAX_RANK];
  gint64 dilations[FW_MAX_RANK];
  gint64 pads[2 * FW_MAX_RANK];
  enum { PAD_NOTSET, PAD_SAME_UPPER, PAD_SAME_LOWER, PAD_VALID } auto_pad;
  gboolean ceil_mode;
} Window;

static gboolean
read_ints_attr (const FwNode *node, const char *name, gint expected, gint64 *out, gint64 fallback,
                gint64 min_value, GError **error)
{
  const FwAttr *attr = fw_node_get_attr (node, name);

  if (attr == NULL)
    {
      for (gint i = 0; i < expected; i++)
        out[i] = fallback;
      return TRUE;
    }
  if (attr->type != FW_ATTR_INTS || attr->n != (guint) expected)
    return fw_infer_error (error, node, _("attribute “%s” must be a list of %d integers"), name, expected);
  for (gint i = 0; i < expected; i++)
    {
      if (attr->ints[i] < min_value)
        return fw_infer_error (error, node, _("attribute “%s” has an invalid value %" PRId64),
                               name, attr->ints[i]);
      out[i] = attr->ints[i];
    }
  return TRUE;
}

static gboolean
read_window (const FwNode *node, gint n_spatial, const FwValue *w, gboolean need_kernel, Window *win,
             GError **error)
{
  const char *auto_pad = fw_node_get_attr_string (node, "auto_pad");
  const FwAttr *kattr = fw_node_get_attr (node, "kernel_shape");

  memset (win, 0, sizeof *win);
  win->n_spatial = n_spatial;
  if (kattr != NULL)
    {
      if (!read_ints_attr (node, "kernel_shape", n_spatial, win->kernel, 1, 1, error))
        return FALSE;
      win->kernel_known = TRUE;
    }
  else if (w != NULL && w->rank == n_spatial + 2)
    {
      win->kernel_known = TRUE;
      for (gint i = 0; i < n_spatial; i++)
        {
          win->kernel[i] = w->dims[2 + i].value;
          if (win->kernel[i] < 0)
            win->kernel_known = FALSE;
        }
    }
  else if (need_kernel)
    return fw_infer_error (error, node, _("attribute “kernel_shape” is required"));
  if (!read_ints_attr (node, "strides", n_spatial, win->strides, 1, 1, error)
      || !read_ints_attr (node, "dilations", n_spatial, win->dilations, 1, 1, error)
      || !read_ints_attr (node, "pads", 2 * n_spatial, win->pads, 0, 0, error))
    return FALSE;
  if (auto_pad == NULL || strcmp (auto_pad, "NOTSET") == 0 || auto_pad[0] == '\0')
    win->auto_pad = PAD_NOTSET;
  else if (strcmp (auto_pad, "SAME_UPPER") == 0)
    win->auto_pad = PAD_SAME_UPPER;
  else if (strcmp (auto_pad, "SAME_LOWER") == 0)
    win->auto_pad = PAD_SAME_LOWER;
  else if (strcmp (auto_pad, "VALID") == 0)
    win->auto_pad = PAD_VALID;
  else
    return fw_infer_error (error, node, _("unknown auto_pad “%s”"), auto_pad);
  win->ceil_mode = fw_node_get_attr_int (node, "ceil_mode", 0) != 0;
  return TRUE;
}

static gint64
div_ceil (gint64 a, gint64 b)
{
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

static gint64
div_floor (gint64 a, gint64 b)
{
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static gboolean
window_out_dim (const FwNode *node, const Window *win, gint i, FwDim in, FwDim *out, GError **error)
{
  gint64 s = win->strides[i];
  gint64 keff = win->kernel_known ? (win->kernel[i] - 1) * win->dilations[i] + 1 : -1;
  gint64 pads = win->pads[i] + win->pads[i + win->n_spatial];
  gint64 span, n;

  if (win->auto_pad == PAD_SAME_UPPER || win->auto_pad == PAD_SAME_LOWER)
    {
      *out = in.value >= 0 ? FW_DIM_STATIC (div_ceil (in.value, s)) : (s == 1 ? in : FW_DIM_UNKNOWN);
      return TRUE;
    }
  if (win->auto_pad == PAD_VALID)
    pads = 0;
  if (keff < 0)
    {
      *out = FW_DIM_UNKNOWN;
      return TRUE;
    }
  if (in.value < 0)
    {
      *out = s == 1 && pads == keff - 1 ? in : FW_DIM_UNKNOWN;
      return TRUE;
    }
  span = in.value + pads - keff;
  if (span < 0)
    return fw_infer_error (error, node, _("the window (%" PRId64 ") is larger than the padded input "
                                          "(%" PRId64 ") on spatial axis %d"),
                           keff, in.value + pads, i);
  if (win->ceil_mode)
    {
      n = div_ceil (span, s) + 1;
      /* The last window must start inside the input or its left padding (PyTorch and ORT agree). */
      if ((n - 1) * s >= in.value + win->pads[i])
        n--;
    }
  else
    n = div_floor (span, s) + 1;
  *out = FW_DIM_STATIC (n);
  return TRUE;
}

gboolean
fw_infer_conv (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  FwValue *w = fw_infer_input (node, 1);
  gint64 group = fw_node_get_attr_int (node, "group", 1);
  FwDim out[FW_MAX_RANK];
  Window win;
  gint r;
  FwDType dtype = dtype_of (x);

  if (strcmp (node->op_type, "ConvInteger") == 0 || strcmp (node->op_type, "QLinearConv") == 0)
    dtype = strcmp (node->op_type, "ConvInteger") == 0 ? FW_DTYPE_INT32 : dtype_of (fw_infer_input (node, 7));
  if (group < 1)
    return fw_infer_error (error, node, _("attribute “group” must be positive"));
  if (x == NULL || x->rank < 0)
    {
      if (w != NULL && w->rank >= 3)
        r = w->rank;
      else
        {
          fw_infer_set (ctx, node, 0, dtype, FW_RANK_UNKNOWN, NULL);
          return TRUE;
        }
    }
  else
    r = x->rank;
  if (r < 3 || r > FW_MAX_RANK)
    return fw_infer_error (error, node, _("input must have rank 3 or more, not %d"), r);
  if (strcmp (node->op_type, "QLinearConv") == 0)
    w = fw_infer_input (node, 3);
  if (w != NULL && w->rank >= 0 && w->rank != r)
    return fw_infer_error (error, node, _("weight rank %d differs from input rank %d"), w->rank, r);
  if (!read_window (node, r - 2, w, FALSE, &win, error))
    return FALSE;
  if (x != NULL && x->rank >= 0 && w != NULL && w->rank >= 0 && x->dims[1].value >= 0 && w->dims[1].value >= 0
      && x->dims[1].value != w->dims[1].value * group)
    return fw_infer_error (error, node, _("input has %" PRId64 " channels, weight expects %"
                                          PRId64 " × group %" PRId64),
                           x->dims[1].value, w->dims[1].value, group);
  out[0] = x && x->rank >= 0 ? x->dims[0] : FW_DIM_UNKNOWN;
  out[1] = w && w->rank >= 0 ? w->dims[0] : FW_DIM_UNKNOWN;
  for (gint i = 0; i < r - 2; i++)
    {
      FwDim in = x && x->rank >= 0 ? x->dims[2 + i] : FW_DIM_UNKNOWN;
      if (!window_out_dim (node, &win, i, in, &out[2 + i], error))
        return FALSE;
    }
  fw_infer_set (ctx, node, 0, dtype, r, out);
  return TRUE;
}

gboolean
fw_infer_conv_transpose (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  FwValue *w = fw_infer_input (node, 1);
  gint64 group = fw_node_get_attr_int (node, "group", 1);
  const FwAttr *output_shape = fw_node_get_attr (node, "output_shape");
  gint64 out_pad[FW_MAX_RANK];
  FwDim out[FW_MAX_RANK];
  Window win;
  gint r;

  if (group < 1)
    return fw_infer_error (error, node, _("attribute “group” must be positive"));
  if (x == NULL || x->rank < 0)
    {
      fw_infer_set (ctx, node, 0, dtype_of (x), FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  r = x->rank;
  if (r < 3 || r > FW_MAX_RANK)
    return fw_infer_error (error, node, _("input must have rank 3 or more, not %d"), r);
  if (w != NULL && w->rank >= 0 && w->rank != r)
    return fw_infer_error (error, node, _("weight rank %d differs from input rank %d"), w->rank, r);
  if (!read_window (node, r - 2, w, FALSE, &win, error)
      || !read_ints_attr (node, "output_padding", r - 2, out_pad, 0, 0, error))
    return FALSE;
  out[0] = x->dims[0];
  out[1] = w && w->rank >= 0 && w->dims[1].value >= 0 ? FW_DIM_STATIC (w->dims[1].value * group) : FW_DIM_UNKNOWN;
  if (output_shape != NULL && output_shape->type == FW_ATTR_INTS && output_shape->n >= (guint) (r - 2))
    {
      for (gint i = 0; i < r - 2; i++)
        out[2 + i] = FW_DIM_STATIC (output_shape->ints[output_shape->n - (r - 2) + i]);
    }
  else
    for (gint i = 0; i < r - 2; i++)
      {
        FwDim in = x->dims[2 + i];
        gint64 s = win.strides[i];
        gint64 keff = win.kernel_known ? (win.kernel[i] - 1) * win.dilations[i] + 1 : -1;
        gint64 pads = win.auto_pad == PAD_VALID ? 0 : win.pads[i] + win.pads[i + r - 2];

        if (in.value < 0 || keff < 0)
          out[2 + i] = in.value < 0 && s == 1 && keff >= 0 && out_pad[i] + keff - 1 - pads == 0 ? in : FW_DIM_UNKNOWN;
        else if (win.auto_pad == PAD_SAME_UPPER || win.auto_pad == PAD_SAME_LOWER)
          out[2 + i] = FW_DIM_STATIC (in.value * s);
        else
          {
            gint64 n = s * (in.value - 1) + out_pad[i] + keff - pads;
            if (n < 0)
              return fw_infer_error (error, node, _("negative output size on spatial axis %d"), i);
            out[2 + i] = FW_DIM_STATIC (n);
          }
      }
  fw_infer_set (ctx, node, 0, dtype_of (x), r, out);
  return TRUE;
}

gboolean
fw_infer_pool (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  FwDim out[FW_MAX_RANK];
  Window win;

  if (x == NULL || x->rank < 0)
    {
      fw_infer_set (ctx, node, 0, dtype_of (x), FW_RANK_UNKNOWN, NULL);
      fw_infer_set (ctx, node, 1, FW_DTYPE_INT64, FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  if (x->rank < 3 || x->rank > FW_MAX_RANK)
    return fw_infer_error (error, node, _("input must have rank 3 or more, not %d"), x->rank);
  if (!read_window (node, x->rank - 2, NULL, TRUE, &win, error))
    return FALSE;
  out[0] = x->dims[0];
  out[1] = x->dims[1];
  for (gint i = 0; i < x->rank - 2; i++)
    if (!window_out_dim (node, &win, i, x->dims[2 + i], &out[2 + i], error))
      return FALSE;
  fw_infer_set (ctx, node, 0, x->dtype, x->rank, out);
  fw_infer_set (ctx, node, 1, FW_DTYPE_INT64, x->rank, out);
  return TRUE;
}

gboolean
fw_infer_global_pool (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  FwDim out[FW_MAX_RANK];

  if (x == NULL || x->rank < 0)
    {
      fw_infer_set (ctx, node, 0, dtype_of (x), FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  if (x->rank < 2 || x->rank > FW_MAX_RANK)
    return fw_infer_error (error, node, _("input must have rank 2 or more, not %d"), x->rank);
  out[0] = x->dims[0];
  out[1] = x->dims[1];
  for (gint i = 2; i < x->rank; i++)
    out[i] = FW_DIM_STATIC (1);
  fw_infer_set (ctx, node, 0, x->dtype, x->rank, out);
  return TRUE;
}

/* ---- normalisation ---- */

gboolean
fw_infer_batch_norm (FwInferContext *ctx, FwNode *node, GError **error G_GNUC_UNUSED)
{
  FwValue *x = fw_infer_input (node, 0);

  fw_infer_set_like (ctx, node, 0, x);
  /* Training mode's running mean and variance have the shape of the inputs they update. */
  fw_infer_set_like (ctx, node, 1, fw_infer_input (node, 3));
  fw_infer_set_like (ctx, node, 2, fw_infer_input (node, 4));
  return TRUE;
}

gboolean
fw_infer_layer_norm (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  gint64 stash = fw_node_get_attr_int (node, "stash_type", FW_DTYPE_FLOAT);
  FwDim stat[FW_MAX_RANK];
  gint axis;

  fw_infer_set_like (ctx, node, 0, x);
  if (!fw_dtype_is_valid (stash))
    return fw_infer_error (error, node, _("attribute “stash_type” must be a valid data type"));
  if (x == NULL || x->rank < 0 || x->rank > FW_MAX_RANK)
    return TRUE;
  if (!fw_infer_axis (node, fw_node_get_attr_int (node, "axis", -1), x->rank, &axis, error))
    return FALSE;
  for (gint i = 0; i < x->rank; i++)
    stat[i] = i < axis ? x->dims[i] : FW_DIM_STATIC (1);
  fw_infer_set (ctx, node, 1, (FwDType) stash, x->rank, stat);
  fw_infer_set (ctx, node, 2, (FwDType) stash, x->rank, stat);
  return TRUE;
}

gboolean
fw_infer_same_as_first (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  const FwAttr *axis = fw_node_get_attr (node, "axis");
  gint unused;

  if (axis != NULL && axis->type == FW_ATTR_INT && x != NULL && x->rank >= 0
      && !fw_infer_axis (node, axis->i, MAX (x->rank, 1), &unused, error))
    return FALSE;
  fw_infer_set_like (ctx, node, 0, x);
  return TRUE;
}

/* ---- reductions ---- */

static gboolean
axes_from_input_form (const FwNode *node)
{
  const char *op = node->op_type;

  if (strcmp (op, "ReduceSum") == 0)
    return node->opset == 0 || node->opset >= 13;
  return node->opset == 0 || node->opset >= 18;
}

static void
fold_reduce (FwInferContext *ctx, FwNode *node, const gboolean *reduced, gint rank)
{
  FwValue *out = node->outputs[0];
  FwFold in, res;
  gint64 dims[FW_MAX_RANK];
  gint64 coord[FW_MAX_RANK];
  gint64 out_strides[FW_MAX_RANK];
  gint64 stride = 1;
  gint64 n_out = out ? fw_value_get_n_elements (out) : -1;
  const char *op = node->op_type;
  gint kind;

  if (n_out < 0 || n_out > ctx->max_fold)
    return;
  if (strcmp (op, "ReduceProd") == 0)
    kind = 0;
  else if (strcmp (op, "ReduceSum") == 0)
    kind = 1;
  else if (strcmp (op, "ReduceMin") == 0)
    kind = 2;
  else if (strcmp (op, "ReduceMax") == 0)
    kind = 3;
  else
    return;
  if (!fw_fold_load (ctx, fw_infer_input (node, 0), &in))
    return;
  if (in.rank != rank || in.n == 0)
    {
      fw_fold_clear (&in);
      return;
    }
  for (gint i = 0; i < out->rank; i++)
    dims[i] = out->dims[i].value;
  fw_fold_init (&res, out->dtype, out->rank, dims);
  /* Output stride per input axis, 0 for reduced axes, so keepdims and not both map the same way. */
  for (gint i = rank - 1; i >= 0; i--)
    {
      out_strides[i] = reduced[i] ? 0 : stride;
      if (!reduced[i])
        stride *= in.dims[i];
    }
  memset (coord, 0, sizeof coord);
  for (gint64 e = 0, o = 0; e < in.n; e++)
    {
      gboolean first = TRUE;
      for (gint i = 0; i < rank && first; i++)
        if (reduced[i] && coord[i] != 0)
          first = FALSE;
      if (res.is_float)
        {
          double v = in.d[e], *acc = &res.d[o];
          *acc = first ? v : kind == 0 ? *acc * v : kind == 1 ? *acc + v : kind == 2 ? MIN (*acc, v) : MAX (*acc, v);
        }
      else
        {
          gint64 v = in.i[e], *acc = &res.i[o];
          *acc = first ? v
                 : kind == 0 ? (gint64) ((guint64) *acc * (guint64) v)
                 : kind == 1 ? (gint64) ((guint64) *acc + (guint64) v)
                 : kind == 2 ? MIN (*acc, v) : MAX (*acc, v);
        }
      for (gint d = rank - 1; d >= 0; d--)
        {
          coord[d]++;
          o += out_strides[d];
          if (coord[d] < in.dims[d])
            break;
          o -= coord[d] * out_strides[d];
          coord[d] = 0;
        }
    }
  fw_infer_set_constant (ctx, node, 0, fw_fold_to_tensor (&res));
  fw_fold_clear (&res);
  fw_fold_clear (&in);
}

gboolean
fw_infer_reduce (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  FwValue *axes_input = fw_infer_input (node, 1);
  gboolean keepdims = fw_node_get_attr_int (node, "keepdims", 1) != 0;
  gboolean noop = fw_node_get_attr_int (node, "noop_with_empty_axes", 0) != 0;
  const FwAttr *axes_attr = fw_node_get_attr (node, "axes");
  g_autofree gint64 *axes = NULL;
  gint n_axes = 0;
  gboolean reduced[FW_MAX_RANK];
  FwDim out[FW_MAX_RANK];
  gint rank = 0;

  if (x == NULL || x->rank < 0 || x->rank > FW_MAX_RANK)
    {
      fw_infer_set (ctx, node, 0, dtype_of (x), FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  if (axes_attr != NULL)
    {
      if (axes_attr->type != FW_ATTR_INTS)
        return fw_infer_error (error, node, _("attribute “axes” must be a list of integers"));
      axes = g_memdup2 (axes_attr->ints, MAX (axes_attr->n, 1) * sizeof (gint64));
      n_axes = (gint) axes_attr->n;
    }
  else if (axes_input != NULL && axes_from_input_form (node))
    {
      axes = fw_infer_get_ints (ctx, axes_input, &n_axes);
      if (axes == NULL)
        {
          /* Which axes go is not known: with keepdims the rank survives. */
          if (keepdims)
            {
              for (gint i = 0; i < x->rank; i++)
                out[i] = x->dims[i].value == 1 ? x->dims[i] : FW_DIM_UNKNOWN;
              fw_infer_set (ctx, node, 0, x->dtype, x->rank, out);
            }
          else
            fw_infer_set (ctx, node, 0, x->dtype, FW_RANK_UNKNOWN, NULL);
          return TRUE;
        }
    }
  if (n_axes == 0 && noop)
    {
      fw_infer_set_like (ctx, node, 0, x);
      return TRUE;
    }
  for (gint i = 0; i < x->rank; i++)
    reduced[i] = n_axes == 0;
  for (gint k = 0; k < n_axes; k++)
    {
      gint axis;
      if (!fw_infer_axis (node, axes[k], x->rank, &axis, error))
        return FALSE;
      reduced[axis] = TRUE;
    }
  for (gint i = 0; i < x->rank; i++)
    {
      if (!reduced[i])
        out[rank++] = x->dims[i];
      else if (keepdims)
        out[rank++] = FW_DIM_STATIC (1);
    }
  fw_infer_set (ctx, node, 0, x->dtype, rank, out);
  if (fw_infer_is_foldable (ctx, x))
    fold_reduce (ctx, node, reduced, x->rank);
  return TRUE;
}

gboolean
fw_infer_arg_reduce (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  gboolean keepdims = fw_node_get_attr_int (node, "keepdims", 1) != 0;
  FwDim out[FW_MAX_RANK];
  gint axis, rank = 0;

  if (x == NULL || x->rank < 0 || x->rank > FW_MAX_RANK)
    {
      fw_infer_set (ctx, node, 0, FW_DTYPE_INT64, FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  if (!fw_infer_axis (node, fw_node_get_attr_int (node, "axis", 0), MAX (x->rank, 1), &axis, error))
    return FALSE;
  for (gint i = 0; i < x->rank; i++)
    {
      if (i != axis)
        out[rank++] = x->dims[i];
      else if (keepdims)
        out[rank++] = FW_DIM_STATIC (1);
    }
  fw_infer_set (ctx, node, 0, FW_DTYPE_INT64, rank, out);
  return TRUE;
}

gboolean
fw_infer_topk (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  FwDim out[FW_MAX_RANK];
  FwDim k = FW_DIM_UNKNOWN;
  gint axis;

  if (x == NULL || x->rank < 0 || x->rank > FW_MAX_RANK)
    {
      fw_infer_set (ctx, node, 0, dtype_of (x), FW_RANK_UNKNOWN, NULL);
      fw_infer_set (ctx, node, 1, FW_DTYPE_INT64, FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  if (!fw_infer_axis (node, fw_node_get_attr_int (node, "axis", -1), MAX (x->rank, 1), &axis, error))
    return FALSE;
  if (fw_node_get_attr (node, "k") != NULL)
    k = FW_DIM_STATIC (fw_node_get_attr_int (node, "k", 0));
  else
    {
      gint len = 0;
      g_autofree FwDim *kv = fw_infer_get_dim_vector (ctx, fw_infer_input (node, 1), &len);
      if (kv != NULL && len == 1 && (kv[0].value >= 0 || kv[0].symbol))
        k = kv[0];
    }
  if (k.value < 0 && k.symbol == NULL && fw_node_get_attr (node, "k") != NULL)
    return fw_infer_error (error, node, _("attribute “k” must not be negative"));
  memcpy (out, x->dims, x->rank * sizeof (FwDim));
  out[axis] = k;
  fw_infer_set (ctx, node, 0, x->dtype, x->rank, out);
  fw_infer_set (ctx, node, 1, FW_DTYPE_INT64, x->rank, out);
  return TRUE;
}

/* ---- Einsum: explicit and implicit forms without ellipsis ---- */

gboolean
fw_infer_einsum (FwInferContext *ctx, FwNode *node, GError **error)
{
  const char *eq = fw_node_get_attr_string (node, "equation");
  FwDim letter_dim[52];
  gint letter_count[52];
  guint term = 0;
  gint pos = 0;
  const char *p;
  FwDim out[FW_MAX_RANK];
  gint rank = 0;
  FwValue *first = fw_infer_input (node, 0);
  FwDType dtype = dtype_of (first);

  if (eq == NULL)
    return fw_infer_error (error, node, _("attribute “equation” is required"));
  if (strstr (eq, "...") != NULL)
    {
      fw_infer_set (ctx, node, 0, dtype, FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  for (gint i = 0; i < 52; i++)
    {
      letter_dim[i] = FW_DIM_UNKNOWN;
      letter_count[i] = 0;
    }
  for (p = eq; *p && !(p[0] == '-' && p[1] == '>'); p++)
    {
      FwValue *v = fw_infer_input (node, term);
      gint idx;

      if (*p == ' ')
        continue;
      if (*p == ',')
        {
          if (v != NULL && v->rank >= 0 && v->rank != pos)
            return fw_infer_error (error, node, _("equation term %u has %d letters, input rank is %d"),
                                   term, pos, v->rank);
          term++;
          pos = 0;
          continue;
        }
      if (!g_ascii_isalpha (*p))
        return fw_infer_error (error, node, _("invalid character in equation “%s”"), eq);
      idx = g_ascii_islower (*p) ? *p - 'a' : 26 + *p - 'A';
      letter_count[idx]++;
      if (v != NULL && v->rank > pos)
        {
          FwDim d = v->dims[pos];
          if (dims_conflict (letter_dim[idx], d) && d.value != 1 && letter_dim[idx].value != 1)
            return fw_infer_error (error, node, _("equation letter “%c” has sizes %" PRId64 " and %"
                                                  PRId64), *p, letter_dim[idx].value, d.value);
          if (letter_dim[idx].value < 0 && letter_dim[idx].symbol == NULL)
            letter_dim[idx] = d;
          else if (letter_dim[idx].value == 1 && d.value != 1)
            letter_dim[idx] = d;
        }
      pos++;
    }
  if (term + 1 != node->n_inputs)
    return fw_infer_error (error, node, _("equation has %u terms for %u inputs"), term + 1, node->n_inputs);
  if (*p)
    {
      for (p += 2; *p; p++)
        {
          gint idx;
          if (*p == ' ')
            continue;
          if (!g_ascii_isalpha (*p) || rank >= FW_MAX_RANK)
            return fw_infer_error (error, node, _("invalid output in equation “%s”"), eq);
          idx = g_ascii_islower (*p) ? *p - 'a' : 26 + *p - 'A';
          out[rank++] = letter_dim[idx];
        }
    }
  else
    /* Implicit form: letters seen once, in alphabetical order (upper case sorts first in ASCII). */
    for (gint i = 26; i < 52 + 26; i++)
      {
        gint idx = i % 52;
        if (letter_count[idx] == 1 && rank < FW_MAX_RANK)
          out[rank++] = letter_dim[idx];
      }
  fw_infer_set (ctx, node, 0, dtype, rank, out);
  return TRUE;
}
