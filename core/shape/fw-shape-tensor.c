/* fw-shape-tensor.c: the ops that make shape vectors and constants (Shape, Size, Constant*, Range), and
 * the helpers every data-movement op's shape file shares (fw-shape-reshape.c, fw-shape-concat.c,
 * fw-shape-slice.c, fw-shape-resize.c).
 *
 * The data-movement ops carry the Shape → Gather → Unsqueeze → Concat → Reshape chains, so besides shapes
 * they move shape vectors (symbolic dims survive) and fold small constants. */
#include "config.h"

#include <inttypes.h>

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "shape/fw-shape-tensor-private.h"

#define BIG_END (G_GINT64_CONSTANT (1) << 62)

FwDType
fw_st_dtype_of (const FwValue *value)
{
  return value ? value->dtype : FW_DTYPE_UNDEFINED;
}

gboolean
fw_st_has_rank (const FwValue *value)
{
  return value != NULL && value->rank >= 0 && value->rank <= FW_MAX_RANK;
}

/* A shape-vector element as an output dim: literals and unknowns become unknown dims. */
FwDim
fw_st_sv_to_dim (FwDim e)
{
  if (e.value >= 0 && e.value != FW_SV_UNKNOWN)
    return FW_DIM_STATIC (e.value);
  if (e.symbol)
    return e;
  return FW_DIM_UNKNOWN;
}

/* A dim as a shape-vector element. */
FwDim
fw_st_dim_to_sv (FwDim d)
{
  if (d.value >= 0 || d.symbol)
    return d;
  return (FwDim) { FW_SV_UNKNOWN, NULL };
}

/* Output 0 takes input 0's data with output 0's (static) shape: Reshape, Flatten, (Un)Squeeze. */
void
fw_st_fold_same_data (FwInferContext *ctx, FwNode *node)
{
  FwValue *x = fw_infer_input (node, 0);
  FwValue *out = node->n_outputs ? node->outputs[0] : NULL;
  FwFold in;
  gint64 n = out ? fw_value_get_n_elements (out) : -1;

  if (out == NULL || n < 0 || !fw_infer_is_foldable (ctx, x) || x->constant->n_elements != n)
    return;
  if (!fw_fold_load (ctx, x, &in))
    return;
  in.rank = out->rank;
  for (gint i = 0; i < out->rank; i++)
    in.dims[i] = out->dims[i].value;
  fw_infer_set_constant (ctx, node, 0, fw_fold_to_tensor (&in));
  fw_fold_clear (&in);
}

/* A 0-D or 1-D input's shape vector moves unchanged to a 0-D or 1-D output with the same element count. */
void
fw_st_pass_shape_value (FwInferContext *ctx, FwNode *node)
{
  FwValue *x = fw_infer_input (node, 0);
  FwValue *out = node->n_outputs ? node->outputs[0] : NULL;

  if (out == NULL || out->constant != NULL || x == NULL || x->shape_value == NULL || out->rank < 0
      || out->rank > 1)
    return;
  if (out->rank == 1 && out->dims[0].value != x->shape_value_len)
    return;
  if (out->rank == 0 && x->shape_value_len != 1)
    return;
  fw_infer_set_shape_value (ctx, node, 0, x->dtype, out->rank, x->shape_value_len, x->shape_value);
}

/* Builds output 0 from input 0 by an index map src (output element → input element). */
void
fw_st_fold_by_index (FwInferContext *ctx, FwNode *node, const FwFold *in, const gint64 *src)
{
  FwValue *out = node->outputs[0];
  FwFold res;
  gint64 dims[FW_MAX_RANK];

  for (gint i = 0; i < out->rank; i++)
    dims[i] = out->dims[i].value;
  fw_fold_init (&res, in->dtype, out->rank, dims);
  fw_fold_gather (in, &res, src);
  fw_infer_set_constant (ctx, node, 0, fw_fold_to_tensor (&res));
  fw_fold_clear (&res);
}

gboolean
fw_st_output_foldable (FwInferContext *ctx, FwNode *node, gint64 *n)
{
  FwValue *out = node->n_outputs ? node->outputs[0] : NULL;

  *n = out ? fw_value_get_n_elements (out) : -1;
  return *n >= 0 && *n <= ctx->max_fold;
}

void
fw_st_strides_of (gint rank, const gint64 *dims, gint64 *strides)
{
  gint64 s = 1;
  for (gint i = rank - 1; i >= 0; i--)
    {
      strides[i] = s;
      s *= dims[i];
    }
}

/* ---- Shape, Size, Constant, ConstantOfShape, Range ---- */

gboolean
fw_infer_shape (FwInferContext *ctx, FwNode *node, GError **error G_GNUC_UNUSED)
{
  FwValue *x = fw_infer_input (node, 0);
  FwDim elems[FW_MAX_RANK];
  gint64 start = fw_node_get_attr_int (node, "start", 0);
  gint64 end = fw_node_get_attr_int (node, "end", G_MAXINT64);
  gint n = 0;

  if (!fw_st_has_rank (x))
    {
      FwDim len = FW_DIM_UNKNOWN;
      fw_infer_set (ctx, node, 0, FW_DTYPE_INT64, 1, &len);
      return TRUE;
    }
  if (start < 0)
    start += x->rank;
  if (end < 0)
    end += x->rank;
  start = CLAMP (start, 0, x->rank);
  end = CLAMP (end, 0, x->rank);
  for (gint64 i = start; i < end; i++)
    elems[n++] = fw_st_dim_to_sv (x->dims[i]);
  fw_infer_set_shape_value (ctx, node, 0, FW_DTYPE_INT64, 1, n, elems);
  return TRUE;
}

gboolean
fw_infer_size (FwInferContext *ctx, FwNode *node, GError **error G_GNUC_UNUSED)
{
  FwValue *x = fw_infer_input (node, 0);
  gint64 n = x ? fw_value_get_n_elements (x) : -1;
  FwDim e = { n >= 0 ? n : FW_SV_UNKNOWN, NULL };

  if (n < 0 && fw_st_has_rank (x))
    e = fw_st_dim_to_sv (fw_dims_product_dim (x->dims, 0, x->rank));
  fw_infer_set_shape_value (ctx, node, 0, FW_DTYPE_INT64, 0, 1, &e);
  return TRUE;
}

gboolean
fw_infer_constant (FwInferContext *ctx, FwNode *node, GError **error)
{
  const FwAttr *attr;
  gint64 one = 1;

  if ((attr = fw_node_get_attr (node, "value")) != NULL)
    {
      if (attr->type != FW_ATTR_TENSOR || attr->t == NULL)
        return fw_infer_error (error, node, _("attribute “value” must be a tensor"));
      if (attr->t->rank > FW_MAX_RANK || attr->t->n_elements < 0)
        return fw_infer_error (error, node, _("attribute “value” has an invalid shape"));
      /* A reference, not a copy: large Constant weights cost nothing here. */
      fw_infer_set_constant (ctx, node, 0, fw_tensor_ref (attr->t));
      return TRUE;
    }
  if ((attr = fw_node_get_attr (node, "value_float")) != NULL && attr->type == FW_ATTR_FLOAT)
    {
      fw_infer_set_constant (ctx, node, 0, fw_tensor_new_float (0, NULL, &attr->f));
      return TRUE;
    }
  if ((attr = fw_node_get_attr (node, "value_int")) != NULL && attr->type == FW_ATTR_INT)
    {
      fw_infer_set_constant (ctx, node, 0, fw_tensor_new_int64 (0, NULL, &attr->i));
      return TRUE;
    }
  if ((attr = fw_node_get_attr (node, "value_floats")) != NULL && attr->type == FW_ATTR_FLOATS)
    {
      one = attr->n;
      fw_infer_set_constant (ctx, node, 0, fw_tensor_new_float (1, &one, attr->floats));
      return TRUE;
    }
  if ((attr = fw_node_get_attr (node, "value_ints")) != NULL && attr->type == FW_ATTR_INTS)
    {
      one = attr->n;
      fw_infer_set_constant (ctx, node, 0, fw_tensor_new_int64 (1, &one, attr->ints));
      return TRUE;
    }
  if ((attr = fw_node_get_attr (node, "value_string")) != NULL)
    {
      fw_infer_set (ctx, node, 0, FW_DTYPE_STRING, 0, NULL);
      return TRUE;
    }
  if ((attr = fw_node_get_attr (node, "value_strings")) != NULL)
    {
      FwDim d = FW_DIM_STATIC (attr->n);
      fw_infer_set (ctx, node, 0, FW_DTYPE_STRING, 1, &d);
      return TRUE;
    }
  /* sparse_value: kept encoded by the reader; the dtype and shape are not decoded here. */
  return TRUE;
}

gboolean
fw_infer_constant_of_shape (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *shape = fw_infer_input (node, 0);
  const FwAttr *value = fw_node_get_attr (node, "value");
  FwDType dtype = FW_DTYPE_FLOAT;
  FwDim dims[FW_MAX_RANK];
  gint len = 0;
  g_autofree FwDim *elems = fw_infer_get_dim_vector (ctx, shape, &len);
  gint64 n;

  if (value != NULL)
    {
      if (value->type != FW_ATTR_TENSOR || value->t == NULL || value->t->n_elements != 1)
        return fw_infer_error (error, node, _("attribute “value” must be a one-element tensor"));
      dtype = value->t->dtype;
    }
  if (elems == NULL)
    {
      if (shape != NULL && shape->rank == 1 && shape->dims[0].value >= 0 && shape->dims[0].value <= FW_MAX_RANK)
        fw_infer_set (ctx, node, 0, dtype, (gint) shape->dims[0].value, NULL);
      else
        fw_infer_set (ctx, node, 0, dtype, FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  if (len > FW_MAX_RANK)
    return fw_infer_error (error, node, _("shape has %d dims, more than %d"), len, FW_MAX_RANK);
  for (gint i = 0; i < len; i++)
    {
      if (FW_SV_KNOWN (elems[i]) && elems[i].value < 0)
        return fw_infer_error (error, node, _("negative dim %" PRId64 " in shape"), elems[i].value);
      dims[i] = fw_st_sv_to_dim (elems[i]);
    }
  fw_infer_set (ctx, node, 0, dtype, len, dims);
  if (fw_st_output_foldable (ctx, node, &n) && fw_fold_supported_dtype (dtype))
    {
      FwFold fill, res;
      gint64 d64[FW_MAX_RANK];
      FwValue tmp = { 0 };

      if (value != NULL)
        {
          tmp.constant = value->t;
          if (!fw_fold_load (ctx, &tmp, &fill))
            return TRUE;
        }
      else
        {
          gint64 one = 1;
          fw_fold_init (&fill, FW_DTYPE_FLOAT, 1, &one);
        }
      for (gint i = 0; i < len; i++)
        d64[i] = dims[i].value;
      fw_fold_init (&res, dtype, len, d64);
      for (gint64 k = 0; k < n; k++)
        {
          if (res.is_float)
            res.d[k] = fill.d[0];
          else
            res.i[k] = fill.i[0];
        }
      fw_infer_set_constant (ctx, node, 0, fw_fold_to_tensor (&res));
      fw_fold_clear (&res);
      fw_fold_clear (&fill);
    }
  return TRUE;
}

gboolean
fw_infer_range (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *start = fw_infer_input (node, 0);
  FwValue *limit = fw_infer_input (node, 1);
  FwValue *delta = fw_infer_input (node, 2);
  FwDType dtype = fw_st_dtype_of (start);
  FwFold fs, fl, fd;
  FwDim len = FW_DIM_UNKNOWN;

  if (fw_fold_load (ctx, start, &fs))
    {
      if (fw_fold_load (ctx, delta, &fd))
        {
          if (fs.n == 1 && fd.n == 1)
            {
              if (fw_fold_load (ctx, limit, &fl))
                {
                  if (fl.n == 1)
                    {
                      double s = fs.is_float ? fs.d[0] : (double) fs.i[0];
                      double l = fl.is_float ? fl.d[0] : (double) fl.i[0];
                      double d = fd.is_float ? fd.d[0] : (double) fd.i[0];
                      double count;

                      if (d == 0)
                        {
                          fw_fold_clear (&fs);
                          fw_fold_clear (&fd);
                          fw_fold_clear (&fl);
                          return fw_infer_error (error, node, _("delta must not be zero"));
                        }
                      count = ceil ((l - s) / d);
                      if (count < 0 || isnan (count))
                        count = 0;
                      if (count > (double) FW_TENSOR_MAX_ELEMENTS)
                        {
                          fw_fold_clear (&fs);
                          fw_fold_clear (&fd);
                          fw_fold_clear (&fl);
                          return fw_infer_error (error, node, _("the range has too many elements"));
                        }
                      len = FW_DIM_STATIC ((gint64) count);
                      fw_infer_set (ctx, node, 0, dtype, 1, &len);
                      if (len.value <= ctx->max_fold)
                        {
                          FwFold res;
                          fw_fold_init (&res, dtype, 1, &len.value);
                          for (gint64 k = 0; k < len.value; k++)
                            {
                              if (res.is_float)
                                res.d[k] = s + d * (double) k;
                              else
                                res.i[k] = fs.i[0] + fd.i[0] * k;
                            }
                          fw_infer_set_constant (ctx, node, 0, fw_fold_to_tensor (&res));
                          fw_fold_clear (&res);
                        }
                    }
                  fw_fold_clear (&fl);
                }
              else if (!fs.is_float && !fd.is_float && fs.i[0] == 0 && fd.i[0] == 1)
                {
                  /* Range(0, seq_len, 1): the position ids of a symbolic sequence. */
                  gint n = 0;
                  g_autofree FwDim *lv = fw_infer_get_dim_vector (ctx, limit, &n);
                  if (lv != NULL && n == 1)
                    len = fw_st_sv_to_dim (lv[0]);
                }
            }
          fw_fold_clear (&fd);
        }
      fw_fold_clear (&fs);
    }
  if (node->outputs[0] == NULL || node->outputs[0]->constant == NULL)
    fw_infer_set (ctx, node, 0, dtype, 1, &len);
  return TRUE;
}
