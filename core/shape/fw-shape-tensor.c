/* fw-shape-tensor.c: shape-only and data-movement ops: Shape, Constant*, Range, Reshape, Flatten,
 * Transpose, (Un)Squeeze, Concat, Split, Slice, Gather*, Expand, Tile, Pad, Resize, DepthToSpace…
 *
 * These carry the Shape → Gather → Unsqueeze → Concat → Reshape chains, so besides shapes they move shape
 * vectors (symbolic dims survive) and fold small constants. */
#include "config.h"

#include <inttypes.h>

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "shape/fw-shape-private.h"

#define BIG_END (G_GINT64_CONSTANT (1) << 62)

static FwDType
dtype_of (const FwValue *value)
{
  return value ? value->dtype : FW_DTYPE_UNDEFINED;
}

static gboolean
has_rank (const FwValue *value)
{
  return value != NULL && value->rank >= 0 && value->rank <= FW_MAX_RANK;
}

/* A shape-vector element as an output dim: literals and unknowns become unknown dims. */
static FwDim
sv_to_dim (FwDim e)
{
  if (e.value >= 0 && e.value != FW_SV_UNKNOWN)
    return FW_DIM_STATIC (e.value);
  if (e.symbol)
    return e;
  return FW_DIM_UNKNOWN;
}

/* A dim as a shape-vector element. */
static FwDim
dim_to_sv (FwDim d)
{
  if (d.value >= 0 || d.symbol)
    return d;
  return (FwDim) { FW_SV_UNKNOWN, NULL };
}

/* Output 0 takes input 0's data with output 0's (static) shape: Reshape, Flatten, (Un)Squeeze. */
static void
fold_same_data (FwInferContext *ctx, FwNode *node)
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
static void
pass_shape_value (FwInferContext *ctx, FwNode *node)
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
static void
fold_by_index (FwInferContext *ctx, FwNode *node, const FwFold *in, const gint64 *src)
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

static gboolean
output_foldable (FwInferContext *ctx, FwNode *node, gint64 *n)
{
  FwValue *out = node->n_outputs ? node->outputs[0] : NULL;

  *n = out ? fw_value_get_n_elements (out) : -1;
  return *n >= 0 && *n <= ctx->max_fold;
}

static void
strides_of (gint rank, const gint64 *dims, gint64 *strides)
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

  if (!has_rank (x))
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
    elems[n++] = dim_to_sv (x->dims[i]);
  fw_infer_set_shape_value (ctx, node, 0, FW_DTYPE_INT64, 1, n, elems);
  return TRUE;
}

gboolean
fw_infer_size (FwInferContext *ctx, FwNode *node, GError **error G_GNUC_UNUSED)
{
  FwValue *x = fw_infer_input (node, 0);
  gint64 n = x ? fw_value_get_n_elements (x) : -1;
  FwDim e = { n >= 0 ? n : FW_SV_UNKNOWN, NULL };

  if (n < 0 && has_rank (x))
    e = dim_to_sv (fw_dims_product_dim (x->dims, 0, x->rank));
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
      dims[i] = sv_to_dim (elems[i]);
    }
  fw_infer_set (ctx, node, 0, dtype, len, dims);
  if (output_foldable (ctx, node, &n) && fw_fold_supported_dtype (dtype))
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
  FwDType dtype = dtype_of (start);
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
                    len = sv_to_dim (lv[0]);
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

/* ---- Reshape, Flatten ---- */

/* Resolves Reshape's -1 from the element counts, cancelling equal symbols on both sides, so
 * [batch,197,768] → [batch,-1,64] gives 197·12. */
static FwDim
infer_minus_one (const FwValue *x, const FwDim *out, gint rank, gint minus_at, gboolean *contradiction)
{
  const char *sym_in[FW_MAX_RANK];
  const char *sym_out[FW_MAX_RANK];
  gint n_in = 0, n_out = 0;
  gint64 coef_in = 1, coef_out = 1;

  *contradiction = FALSE;
  for (gint i = 0; i < x->rank; i++)
    {
      if (x->dims[i].value >= 0)
        {
          if (x->dims[i].value != 0 && coef_in > FW_TENSOR_MAX_ELEMENTS / x->dims[i].value)
            return FW_DIM_UNKNOWN;
          coef_in *= x->dims[i].value;
        }
      else if (x->dims[i].symbol)
        sym_in[n_in++] = x->dims[i].symbol;
      else
        return FW_DIM_UNKNOWN;
    }
  for (gint i = 0; i < rank; i++)
    {
      if (i == minus_at)
        continue;
      if (out[i].value >= 0)
        {
          if (out[i].value != 0 && coef_out > FW_TENSOR_MAX_ELEMENTS / out[i].value)
            return FW_DIM_UNKNOWN;
          coef_out *= out[i].value;
        }
      else if (out[i].symbol)
        sym_out[n_out++] = out[i].symbol;
      else
        return FW_DIM_UNKNOWN;
    }
  for (gint j = 0; j < n_out; j++)
    {
      gboolean found = FALSE;
      for (gint i = 0; i < n_in && !found; i++)
        if (sym_in[i] && strcmp (sym_in[i], sym_out[j]) == 0)
          {
            sym_in[i] = NULL;
            found = TRUE;
          }
      if (!found)
        return FW_DIM_UNKNOWN;
    }
  {
    const char *left = NULL;
    gint n_left = 0;
    for (gint i = 0; i < n_in; i++)
      if (sym_in[i])
        {
          left = sym_in[i];
          n_left++;
        }
    if (coef_out == 0)
      return FW_DIM_UNKNOWN;
    if (n_left == 0)
      {
        if (coef_in % coef_out != 0)
          {
            *contradiction = TRUE;
            return FW_DIM_UNKNOWN;
          }
        return FW_DIM_STATIC (coef_in / coef_out);
      }
    if (n_left == 1 && coef_in == coef_out)
      return (FwDim) { -1, left };
  }
  return FW_DIM_UNKNOWN;
}

gboolean
fw_infer_reshape (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  FwValue *shape = fw_infer_input (node, 1);
  gboolean allowzero = fw_node_get_attr_int (node, "allowzero", 0) != 0;
  FwDim out[FW_MAX_RANK];
  g_autofree FwDim *elems = NULL;
  gint len = 0, minus_at = -1;
  FwDType dtype = dtype_of (x);

  if (shape == NULL)
    {
      guint n = 0;
      const gint64 *attr = fw_node_get_attr_ints (node, "shape", &n);
      if (attr != NULL)
        {
          elems = g_new (FwDim, MAX (n, 1));
          for (guint i = 0; i < n; i++)
            elems[i] = (FwDim) { attr[i], NULL };
          len = (gint) n;
        }
    }
  else
    elems = fw_infer_get_dim_vector (ctx, shape, &len);

  if (elems == NULL)
    {
      if (shape != NULL && shape->rank == 1 && shape->dims[0].value >= 0 && shape->dims[0].value <= FW_MAX_RANK)
        fw_infer_set (ctx, node, 0, dtype, (gint) shape->dims[0].value, NULL);
      else
        fw_infer_set (ctx, node, 0, dtype, FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  if (len > FW_MAX_RANK)
    return fw_infer_error (error, node, _("target shape has %d dims, more than %d"), len, FW_MAX_RANK);
  for (gint i = 0; i < len; i++)
    {
      FwDim e = elems[i];

      if (!FW_SV_KNOWN (e))
        out[i] = sv_to_dim (e);
      else if (e.value == 0 && !allowzero)
        {
          if (has_rank (x) && i < x->rank)
            out[i] = x->dims[i];
          else if (has_rank (x))
            return fw_infer_error (error, node, _("target dim %d is 0 (copy) but the input has rank %d"), i, x->rank);
          else
            out[i] = FW_DIM_UNKNOWN;
        }
      else if (e.value == -1)
        {
          if (minus_at >= 0)
            return fw_infer_error (error, node, _("the target shape has more than one -1"));
          minus_at = i;
          out[i] = FW_DIM_UNKNOWN;
        }
      else if (e.value < 0)
        return fw_infer_error (error, node, _("invalid target dim %" PRId64), e.value);
      else
        out[i] = FW_DIM_STATIC (e.value);
    }
  if (has_rank (x))
    {
      gboolean contradiction = FALSE;

      if (minus_at >= 0)
        out[minus_at] = infer_minus_one (x, out, len, minus_at, &contradiction);
      if (!contradiction && fw_value_is_static (x))
        {
          FwDim p = fw_dims_product_dim (out, 0, len);
          gint64 n = fw_value_get_n_elements (x);
          contradiction = p.value >= 0 && p.value != n;
        }
      if (contradiction)
        {
          g_autofree char *sx = fw_format_dims (x->rank, x->dims);
          g_autofree char *st = NULL;
          GString *s = g_string_new ("[");
          for (gint i = 0; i < len; i++)
            {
              if (i)
                g_string_append_c (s, ',');
              if (elems[i].symbol)
                g_string_append (s, elems[i].symbol);
              else if (FW_SV_KNOWN (elems[i]))
                g_string_append_printf (s, "%" PRId64, elems[i].value);
              else
                g_string_append_c (s, '?');
            }
          g_string_append_c (s, ']');
          st = g_string_free (s, FALSE);
          return fw_infer_error (error, node, _("cannot reshape %s into %s"), sx, st);
        }
    }
  fw_infer_set (ctx, node, 0, dtype, len, out);
  fold_same_data (ctx, node);
  pass_shape_value (ctx, node);
  return TRUE;
}

gboolean
fw_infer_flatten (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  gint64 axis = fw_node_get_attr_int (node, "axis", 1);
  FwDim out[2];

  if (!has_rank (x))
    {
      fw_infer_set (ctx, node, 0, dtype_of (x), 2, NULL);
      return TRUE;
    }
  if (axis < -(gint64) x->rank || axis > x->rank)
    return fw_infer_error (error, node, _("axis %" PRId64 " is out of range for rank %d"), axis, x->rank);
  if (axis < 0)
    axis += x->rank;
  out[0] = fw_dims_product_dim (x->dims, 0, (gint) axis);
  out[1] = fw_dims_product_dim (x->dims, (gint) axis, x->rank);
  fw_infer_set (ctx, node, 0, x->dtype, 2, out);
  fold_same_data (ctx, node);
  return TRUE;
}

/* ---- Transpose ---- */

gboolean
fw_infer_transpose (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  const FwAttr *perm_attr = fw_node_get_attr (node, "perm");
  gint perm[FW_MAX_RANK];
  gboolean seen[FW_MAX_RANK] = { FALSE };
  FwDim out[FW_MAX_RANK];
  gint64 n;

  if (!has_rank (x))
    {
      fw_infer_set (ctx, node, 0, dtype_of (x),
                    perm_attr && perm_attr->type == FW_ATTR_INTS && perm_attr->n <= FW_MAX_RANK
                      ? (gint) perm_attr->n : FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  if (perm_attr != NULL)
    {
      if (perm_attr->type != FW_ATTR_INTS || perm_attr->n != (guint) x->rank)
        return fw_infer_error (error, node, _("attribute “perm” must list %d axes"), x->rank);
      for (gint i = 0; i < x->rank; i++)
        {
          gint64 p = perm_attr->ints[i];
          if (p < 0)
            p += x->rank;
          if (p < 0 || p >= x->rank || seen[p])
            return fw_infer_error (error, node, _("attribute “perm” is not a permutation of %d axes"), x->rank);
          seen[p] = TRUE;
          perm[i] = (gint) p;
        }
    }
  else
    for (gint i = 0; i < x->rank; i++)
      perm[i] = x->rank - 1 - i;
  for (gint i = 0; i < x->rank; i++)
    out[i] = x->dims[perm[i]];
  fw_infer_set (ctx, node, 0, x->dtype, x->rank, out);
  if (fw_infer_is_foldable (ctx, x) && output_foldable (ctx, node, &n))
    {
      FwFold in;
      if (fw_fold_load (ctx, x, &in))
        {
          gint64 in_strides[FW_MAX_RANK], coord[FW_MAX_RANK] = { 0 };
          g_autofree gint64 *src = g_new (gint64, MAX (n, 1));
          gint64 off = 0;

          strides_of (in.rank, in.dims, in_strides);
          for (gint64 k = 0; k < n; k++)
            {
              src[k] = off;
              for (gint d = x->rank - 1; d >= 0; d--)
                {
                  coord[d]++;
                  off += in_strides[perm[d]];
                  if (coord[d] < in.dims[perm[d]])
                    break;
                  off -= coord[d] * in_strides[perm[d]];
                  coord[d] = 0;
                }
            }
          fold_by_index (ctx, node, &in, src);
          fw_fold_clear (&in);
        }
    }
  return TRUE;
}

/* ---- Squeeze, Unsqueeze ---- */

/* Axes from the attribute (before opset 13, or whenever present) or from input 1. *known FALSE when they
 * come from a tensor that is not constant. */
static gint64 *
get_axes (FwInferContext *ctx, const FwNode *node, gint *n, gboolean *present, gboolean *known)
{
  const FwAttr *attr = fw_node_get_attr (node, "axes");
  FwValue *input = fw_infer_input (node, 1);

  *n = 0;
  *present = TRUE;
  *known = TRUE;
  if (attr != NULL && attr->type == FW_ATTR_INTS)
    {
      *n = (gint) attr->n;
      return g_memdup2 (attr->ints, MAX (attr->n, 1) * sizeof (gint64));
    }
  if (input != NULL)
    {
      gint64 *axes = fw_infer_get_ints (ctx, input, n);
      *known = axes != NULL;
      return axes;
    }
  *present = FALSE;
  return NULL;
}

gboolean
fw_infer_squeeze (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  gboolean present, known;
  gint n_axes;
  g_autofree gint64 *axes = get_axes (ctx, node, &n_axes, &present, &known);
  gboolean drop[FW_MAX_RANK] = { FALSE };
  FwDim out[FW_MAX_RANK];
  gint rank = 0;

  if (!has_rank (x) || !known)
    {
      fw_infer_set (ctx, node, 0, dtype_of (x), has_rank (x) && n_axes > 0 ? x->rank - n_axes : FW_RANK_UNKNOWN,
                    NULL);
      return TRUE;
    }
  if (!present || n_axes == 0)
    {
      for (gint i = 0; i < x->rank; i++)
        {
          if (x->dims[i].value < 0)
            {
              /* Whether this dim goes depends on its run-time size. */
              fw_infer_set (ctx, node, 0, x->dtype, FW_RANK_UNKNOWN, NULL);
              return TRUE;
            }
          drop[i] = x->dims[i].value == 1;
        }
    }
  else
    for (gint k = 0; k < n_axes; k++)
      {
        gint axis;
        if (!fw_infer_axis (node, axes[k], x->rank, &axis, error))
          return FALSE;
        if (x->dims[axis].value >= 0 && x->dims[axis].value != 1)
          return fw_infer_error (error, node, _("cannot squeeze axis %d of size %" PRId64),
                                 axis, x->dims[axis].value);
        drop[axis] = TRUE;
      }
  for (gint i = 0; i < x->rank; i++)
    if (!drop[i])
      out[rank++] = x->dims[i];
  fw_infer_set (ctx, node, 0, x->dtype, rank, out);
  fold_same_data (ctx, node);
  pass_shape_value (ctx, node);
  return TRUE;
}

gboolean
fw_infer_unsqueeze (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  gboolean present, known;
  gint n_axes;
  g_autofree gint64 *axes = get_axes (ctx, node, &n_axes, &present, &known);
  gboolean ins[FW_MAX_RANK] = { FALSE };
  FwDim out[FW_MAX_RANK];
  gint rank;

  if (!present)
    return fw_infer_error (error, node, _("axes are required"));
  if (!has_rank (x) || !known)
    {
      fw_infer_set (ctx, node, 0, dtype_of (x), has_rank (x) && known ? x->rank + n_axes : FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  rank = x->rank + n_axes;
  if (rank > FW_MAX_RANK)
    return fw_infer_error (error, node, _("the result would have rank %d, more than %d"), rank, FW_MAX_RANK);
  for (gint k = 0; k < n_axes; k++)
    {
      gint axis;
      if (!fw_infer_axis (node, axes[k], rank, &axis, error))
        return FALSE;
      if (ins[axis])
        return fw_infer_error (error, node, _("axis %d is listed twice"), axis);
      ins[axis] = TRUE;
    }
  for (gint i = 0, j = 0; i < rank; i++)
    out[i] = ins[i] ? FW_DIM_STATIC (1) : x->dims[j++];
  fw_infer_set (ctx, node, 0, x->dtype, rank, out);
  fold_same_data (ctx, node);
  pass_shape_value (ctx, node);
  return TRUE;
}

/* ---- Concat, Split ---- */

gboolean
fw_infer_concat (FwInferContext *ctx, FwNode *node, GError **error)
{
  const FwAttr *axis_attr = fw_node_get_attr (node, "axis");
  FwValue *first = NULL;
  FwDim out[FW_MAX_RANK];
  gint rank = -1, axis = 0;
  gint64 total = 0;
  gboolean total_known = TRUE;
  const char *total_symbol = NULL;
  gint n_symbolic = 0;
  FwDType dtype = FW_DTYPE_UNDEFINED;
  gint64 n;

  if (axis_attr == NULL || axis_attr->type != FW_ATTR_INT)
    return fw_infer_error (error, node, _("attribute “axis” is required"));
  for (guint k = 0; k < node->n_inputs; k++)
    {
      FwValue *v = node->inputs[k];
      if (v == NULL)
        continue;
      if (first == NULL)
        first = v;
      if (dtype == FW_DTYPE_UNDEFINED)
        dtype = v->dtype;
      if (!has_rank (v))
        continue;
      if (rank < 0)
        {
          rank = v->rank;
          if (!fw_infer_axis (node, axis_attr->i, MAX (rank, 1), &axis, error))
            return FALSE;
          if (rank == 0)
            return fw_infer_error (error, node, _("inputs must have rank 1 or more"));
          for (gint i = 0; i < rank; i++)
            out[i] = v->dims[i];
        }
      else if (v->rank != rank)
        return fw_infer_error (error, node, _("input %u has rank %d, input 0 rank %d"), k, v->rank, rank);
      else
        for (gint i = 0; i < rank; i++)
          {
            if (i == axis)
              continue;
            if (out[i].value >= 0 && v->dims[i].value >= 0 && out[i].value != v->dims[i].value)
              {
                g_autofree char *sa = fw_format_dims (rank, first->dims);
                g_autofree char *sb = fw_format_dims (v->rank, v->dims);
                return fw_infer_error (error, node, _("shapes %s and %s differ outside axis %d"), sa, sb, axis);
              }
            if (out[i].value < 0 && (v->dims[i].value >= 0 || (out[i].symbol == NULL && v->dims[i].symbol)))
              out[i] = v->dims[i];
          }
    }
  if (rank < 0)
    {
      fw_infer_set (ctx, node, 0, dtype, FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  for (guint k = 0; k < node->n_inputs; k++)
    {
      FwValue *v = node->inputs[k];
      if (v == NULL)
        continue;
      if (!has_rank (v))
        total_known = FALSE;
      else if (v->dims[axis].value >= 0)
        total += v->dims[axis].value;
      else if (v->dims[axis].symbol)
        {
          total_symbol = v->dims[axis].symbol;
          n_symbolic++;
        }
      else
        total_known = FALSE;
    }
  if (!total_known || n_symbolic > 1 || (n_symbolic == 1 && total != 0))
    out[axis] = FW_DIM_UNKNOWN;
  else if (n_symbolic == 1)
    out[axis] = (FwDim) { -1, total_symbol };
  else
    out[axis] = FW_DIM_STATIC (total);
  fw_infer_set (ctx, node, 0, dtype, rank, out);

  /* Shape vectors: 1-D concatenation keeps symbols. */
  if (rank == 1)
    {
      GArray *elems = g_array_new (FALSE, FALSE, sizeof (FwDim));
      gboolean ok = TRUE;
      gboolean any_sv = FALSE;

      for (guint k = 0; k < node->n_inputs && ok; k++)
        {
          gint len = 0;
          g_autofree FwDim *e = NULL;
          if (node->inputs[k] == NULL)
            continue;
          any_sv = any_sv || node->inputs[k]->shape_value != NULL;
          e = fw_infer_get_dim_vector (ctx, node->inputs[k], &len);
          ok = e != NULL;
          if (ok)
            g_array_append_vals (elems, e, len);
        }
      if (ok && any_sv)
        fw_infer_set_shape_value (ctx, node, 0, dtype, 1, (gint) elems->len, (FwDim *) elems->data);
      g_array_unref (elems);
      if (ok && any_sv)
        return TRUE;
    }

  if (output_foldable (ctx, node, &n))
    {
      FwFold *in = fw_fold_array_new (node->n_inputs);
      FwFold res;
      guint loaded = 0;
      gboolean ok = TRUE;
      gint64 dims[FW_MAX_RANK];

      for (guint k = 0; k < node->n_inputs && ok; k++, loaded++)
        ok = node->inputs[k] != NULL && fw_fold_load (ctx, node->inputs[k], &in[k]) && in[k].rank == rank;
      if (ok)
        {
          gint64 outer = 1, inner = 1, pos = 0;
          for (gint i = 0; i < axis; i++)
            outer *= node->outputs[0]->dims[i].value;
          for (gint i = axis + 1; i < rank; i++)
            inner *= node->outputs[0]->dims[i].value;
          for (gint i = 0; i < rank; i++)
            dims[i] = node->outputs[0]->dims[i].value;
          fw_fold_init (&res, dtype, rank, dims);
          for (gint64 o = 0; o < outer; o++)
            for (guint k = 0; k < node->n_inputs; k++)
              {
                gint64 block = in[k].dims[axis] * inner;
                for (gint64 e = 0; e < block; e++, pos++)
                  {
                    if (res.is_float)
                      res.d[pos] = in[k].is_float ? in[k].d[o * block + e] : (double) in[k].i[o * block + e];
                    else
                      res.i[pos] = in[k].is_float ? (gint64) in[k].d[o * block + e] : in[k].i[o * block + e];
                  }
              }
          fw_infer_set_constant (ctx, node, 0, fw_fold_to_tensor (&res));
          fw_fold_clear (&res);
        }
      fw_fold_array_free (in, loaded);
    }
  return TRUE;
}

gboolean
fw_infer_split (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  FwValue *split_input = fw_infer_input (node, 1);
  g_autofree gint64 *split = NULL;
  gint n_split = 0;
  gboolean split_given = FALSE;
  FwDim out[FW_MAX_RANK];
  gint axis;
  FwDim d;

  if (!has_rank (x))
    {
      for (guint k = 0; k < node->n_outputs; k++)
        fw_infer_set (ctx, node, k, dtype_of (x), FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  if (!fw_infer_axis (node, fw_node_get_attr_int (node, "axis", 0), MAX (x->rank, 1), &axis, error))
    return FALSE;
  if (fw_node_get_attr (node, "split") != NULL)
    {
      guint n = 0;
      const gint64 *s = fw_node_get_attr_ints (node, "split", &n);
      if (s == NULL)
        return fw_infer_error (error, node, _("attribute “split” must be a list of integers"));
      split = g_memdup2 (s, MAX (n, 1) * sizeof (gint64));
      n_split = (gint) n;
      split_given = TRUE;
    }
  else if (split_input != NULL)
    {
      split = fw_infer_get_ints (ctx, split_input, &n_split);
      split_given = TRUE;
      if (split == NULL)
        {
          for (guint k = 0; k < node->n_outputs; k++)
            {
              memcpy (out, x->dims, x->rank * sizeof (FwDim));
              out[axis] = FW_DIM_UNKNOWN;
              fw_infer_set (ctx, node, k, x->dtype, x->rank, out);
            }
          return TRUE;
        }
    }
  d = x->dims[axis];
  if (split_given)
    {
      gint64 sum = 0;
      if ((guint) n_split != node->n_outputs)
        return fw_infer_error (error, node, _("%d split sizes for %u outputs"), n_split, node->n_outputs);
      for (gint k = 0; k < n_split; k++)
        {
          if (split[k] < 0)
            return fw_infer_error (error, node, _("negative split size %" PRId64), split[k]);
          sum += split[k];
        }
      if (d.value >= 0 && sum != d.value)
        return fw_infer_error (error, node, _("split sizes add up to %" PRId64 ", the axis has %"
                                              PRId64), sum, d.value);
    }
  else
    {
      gint64 num = fw_node_get_attr_int (node, "num_outputs", node->n_outputs);
      if (num <= 0 || num != node->n_outputs)
        return fw_infer_error (error, node, _("num_outputs %" PRId64 " differs from %u outputs"),
                               num, node->n_outputs);
      if (d.value >= 0)
        {
          /* Uneven splits (opset 18) give every output ceil(d/num) and the last one the rest. */
          gint64 chunk = (d.value + num - 1) / num;
          split = g_new (gint64, num);
          n_split = (gint) num;
          for (gint64 k = 0; k < num; k++)
            split[k] = MAX (MIN (chunk, d.value - k * chunk), 0);
        }
    }
  for (guint k = 0; k < node->n_outputs; k++)
    {
      memcpy (out, x->dims, x->rank * sizeof (FwDim));
      out[axis] = split != NULL ? FW_DIM_STATIC (split[k]) : (node->n_outputs == 1 ? d : FW_DIM_UNKNOWN);
      fw_infer_set (ctx, node, k, x->dtype, x->rank, out);
    }
  return TRUE;
}

/* ---- Slice ---- */

static gint64
sat_add (gint64 a, gint64 b)
{
  if (b > 0 && a > G_MAXINT64 - b)
    return G_MAXINT64;
  if (b < 0 && a < G_MININT64 - b)
    return G_MININT64;
  return a + b;
}

gboolean
fw_infer_slice (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  gboolean attr_form = (node->opset > 0 && node->opset < 10) || fw_node_get_attr (node, "starts") != NULL;
  g_autofree gint64 *starts = NULL, *ends = NULL, *axes = NULL, *steps = NULL;
  gint n_starts = 0, n_ends = 0, n_axes = 0, n_steps = 0;
  gboolean axes_known = TRUE, bounds_known = TRUE;
  gint64 st[FW_MAX_RANK], sp[FW_MAX_RANK];
  gboolean sliced[FW_MAX_RANK] = { FALSE };
  FwDim out[FW_MAX_RANK];
  gint64 n;

  if (!has_rank (x))
    {
      fw_infer_set (ctx, node, 0, dtype_of (x), FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  if (attr_form)
    {
      guint a = 0, b = 0, c = 0;
      const gint64 *s = fw_node_get_attr_ints (node, "starts", &a);
      const gint64 *e = fw_node_get_attr_ints (node, "ends", &b);
      const gint64 *ax = fw_node_get_attr_ints (node, "axes", &c);
      if (s == NULL || e == NULL)
        return fw_infer_error (error, node, _("attributes “starts” and “ends” are required"));
      starts = g_memdup2 (s, MAX (a, 1) * sizeof (gint64));
      ends = g_memdup2 (e, MAX (b, 1) * sizeof (gint64));
      n_starts = (gint) a;
      n_ends = (gint) b;
      if (ax != NULL)
        {
          axes = g_memdup2 (ax, MAX (c, 1) * sizeof (gint64));
          n_axes = (gint) c;
        }
    }
  else
    {
      starts = fw_infer_get_ints (ctx, fw_infer_input (node, 1), &n_starts);
      ends = fw_infer_get_ints (ctx, fw_infer_input (node, 2), &n_ends);
      bounds_known = starts != NULL && ends != NULL;
      if (fw_infer_input (node, 3) != NULL)
        {
          axes = fw_infer_get_ints (ctx, fw_infer_input (node, 3), &n_axes);
          axes_known = axes != NULL;
        }
      if (fw_infer_input (node, 4) != NULL)
        {
          steps = fw_infer_get_ints (ctx, fw_infer_input (node, 4), &n_steps);
          bounds_known = bounds_known && steps != NULL;
        }
    }
  if (!axes_known)
    {
      fw_infer_set (ctx, node, 0, x->dtype, x->rank, NULL);
      return TRUE;
    }
  if (bounds_known && n_starts != n_ends)
    return fw_infer_error (error, node, _("starts and ends have different lengths (%d, %d)"), n_starts, n_ends);
  if (axes != NULL && bounds_known && n_axes != n_starts)
    return fw_infer_error (error, node, _("axes and starts have different lengths (%d, %d)"), n_axes, n_starts);
  if (steps != NULL && n_steps != n_starts)
    return fw_infer_error (error, node, _("steps and starts have different lengths (%d, %d)"), n_steps, n_starts);
  if (!bounds_known && axes == NULL)
    {
      fw_infer_set (ctx, node, 0, x->dtype, x->rank, NULL);
      return TRUE;
    }
  memcpy (out, x->dims, x->rank * sizeof (FwDim));
  for (gint i = 0; i < x->rank; i++)
    {
      st[i] = 0;
      sp[i] = 1;
    }
  for (gint k = 0; k < (axes ? n_axes : n_starts); k++)
    {
      gint axis;
      gint64 step, s, e;
      FwDim d;

      if (!fw_infer_axis (node, axes ? axes[k] : k, x->rank, &axis, error))
        return FALSE;
      if (sliced[axis])
        return fw_infer_error (error, node, _("axis %d is sliced twice"), axis);
      sliced[axis] = TRUE;
      if (!bounds_known)
        {
          out[axis] = FW_DIM_UNKNOWN;
          continue;
        }
      step = steps ? steps[k] : 1;
      if (step == 0)
        return fw_infer_error (error, node, _("a step is zero"));
      s = starts[k];
      e = ends[k];
      d = x->dims[axis];
      if (d.value < 0)
        {
          out[axis] = step == 1 && s == 0 && e >= G_MAXINT32 ? d : FW_DIM_UNKNOWN;
          continue;
        }
      if (s < 0)
        s = sat_add (s, d.value);
      if (e < 0)
        e = sat_add (e, d.value);
      if (step > 0)
        {
          s = CLAMP (s, 0, d.value);
          e = CLAMP (e, 0, d.value);
          out[axis] = FW_DIM_STATIC (e > s ? (e - s + step - 1) / step : 0);
        }
      else
        {
          s = CLAMP (s, 0, d.value - 1);
          e = CLAMP (e, -1, d.value - 1);
          out[axis] = FW_DIM_STATIC (s > e ? (s - e + (-step) - 1) / (-step) : 0);
        }
      st[axis] = s;
      sp[axis] = step;
    }
  fw_infer_set (ctx, node, 0, x->dtype, x->rank, out);
  if (!bounds_known)
    return TRUE;

  /* Shape vectors: slicing the 1-D vector keeps symbols. */
  if (x->rank == 1 && x->shape_value != NULL && out[0].value >= 0)
    {
      g_autofree FwDim *e = g_new (FwDim, MAX (out[0].value, 1));
      for (gint64 k = 0; k < out[0].value; k++)
        e[k] = x->shape_value[st[0] + k * sp[0]];
      fw_infer_set_shape_value (ctx, node, 0, x->dtype, 1, (gint) out[0].value, e);
      return TRUE;
    }
  if (fw_infer_is_foldable (ctx, x) && output_foldable (ctx, node, &n))
    {
      FwFold in;
      if (fw_fold_load (ctx, x, &in))
        {
          gint64 in_strides[FW_MAX_RANK], coord[FW_MAX_RANK] = { 0 };
          g_autofree gint64 *src = g_new (gint64, MAX (n, 1));
          gint64 base = 0, off;

          strides_of (in.rank, in.dims, in_strides);
          for (gint i = 0; i < in.rank; i++)
            base += st[i] * in_strides[i];
          off = base;
          for (gint64 k = 0; k < n; k++)
            {
              src[k] = off;
              for (gint d = x->rank - 1; d >= 0; d--)
                {
                  coord[d]++;
                  off += sp[d] * in_strides[d];
                  if (coord[d] < out[d].value)
                    break;
                  off -= coord[d] * sp[d] * in_strides[d];
                  coord[d] = 0;
                }
            }
          fold_by_index (ctx, node, &in, src);
          fw_fold_clear (&in);
        }
    }
  return TRUE;
}

/* ---- Gather, GatherElements, GatherND ---- */

gboolean
fw_infer_gather (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *data = fw_infer_input (node, 0);
  FwValue *indices = fw_infer_input (node, 1);
  FwDim out[FW_MAX_RANK];
  gint axis, rank = 0;
  gint64 n;

  if (!has_rank (data) || !has_rank (indices))
    {
      fw_infer_set (ctx, node, 0, dtype_of (data),
                    has_rank (data) && has_rank (indices) ? data->rank + indices->rank - 1 : FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  if (data->rank == 0)
    return fw_infer_error (error, node, _("data must have rank 1 or more"));
  if (!fw_infer_axis (node, fw_node_get_attr_int (node, "axis", 0), data->rank, &axis, error))
    return FALSE;
  if (data->rank + indices->rank - 1 > FW_MAX_RANK)
    return fw_infer_error (error, node, _("the result rank is too large"));
  for (gint i = 0; i < axis; i++)
    out[rank++] = data->dims[i];
  for (gint i = 0; i < indices->rank; i++)
    out[rank++] = indices->dims[i];
  for (gint i = axis + 1; i < data->rank; i++)
    out[rank++] = data->dims[i];
  fw_infer_set (ctx, node, 0, data->dtype, rank, out);

  /* Shape vectors: picking dims out of Shape's result. */
  if (data->rank == 1 && data->shape_value != NULL && indices->rank <= 1)
    {
      gint n_idx = 0;
      g_autofree gint64 *idx = fw_infer_get_ints (ctx, indices, &n_idx);
      if (idx != NULL && n_idx <= FW_MAX_RANK)
        {
          FwDim e[FW_MAX_RANK];
          for (gint k = 0; k < n_idx; k++)
            {
              gint64 j = idx[k] < 0 ? idx[k] + data->shape_value_len : idx[k];
              if (j < 0 || j >= data->shape_value_len)
                return fw_infer_error (error, node, _("index %" PRId64 " is out of range for %d elements"),
                                       idx[k], data->shape_value_len);
              e[k] = data->shape_value[j];
            }
          fw_infer_set_shape_value (ctx, node, 0, data->dtype, indices->rank, n_idx, e);
          return TRUE;
        }
    }
  if (fw_infer_is_foldable (ctx, data) && fw_infer_is_foldable (ctx, indices) && output_foldable (ctx, node, &n))
    {
      FwFold in, idx;
      if (fw_fold_load (ctx, data, &in))
        {
          if (fw_fold_load (ctx, indices, &idx))
            {
              gint64 outer = 1, inner = 1, ad = in.dims[axis], pos = 0;
              g_autofree gint64 *src = g_new (gint64, MAX (n, 1));
              gboolean ok = !idx.is_float;

              for (gint i = 0; i < axis; i++)
                outer *= in.dims[i];
              for (gint i = axis + 1; i < in.rank; i++)
                inner *= in.dims[i];
              for (gint64 o = 0; o < outer && ok; o++)
                for (gint64 k = 0; k < idx.n && ok; k++)
                  {
                    gint64 j = idx.i[k] < 0 ? idx.i[k] + ad : idx.i[k];
                    ok = j >= 0 && j < ad;
                    for (gint64 e = 0; e < inner && ok; e++)
                      src[pos++] = (o * ad + j) * inner + e;
                  }
              if (ok && pos == n)
                fold_by_index (ctx, node, &in, src);
              fw_fold_clear (&idx);
            }
          fw_fold_clear (&in);
        }
    }
  return TRUE;
}

gboolean
fw_infer_gather_elements (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *data = fw_infer_input (node, 0);
  FwValue *indices = fw_infer_input (node, 1);

  if (has_rank (data) && has_rank (indices) && data->rank != indices->rank)
    return fw_infer_error (error, node, _("data rank %d and indices rank %d differ"), data->rank, indices->rank);
  fw_infer_set (ctx, node, 0, dtype_of (data), indices ? indices->rank : FW_RANK_UNKNOWN,
                indices ? indices->dims : NULL);
  return TRUE;
}

gboolean
fw_infer_gather_nd (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *data = fw_infer_input (node, 0);
  FwValue *indices = fw_infer_input (node, 1);
  gint64 b = fw_node_get_attr_int (node, "batch_dims", 0);
  FwDim out[FW_MAX_RANK];
  gint64 last;
  gint rank = 0;

  if (!has_rank (data) || !has_rank (indices) || indices->rank < 1
      || indices->dims[indices->rank - 1].value < 0)
    {
      fw_infer_set (ctx, node, 0, dtype_of (data), FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  last = indices->dims[indices->rank - 1].value;
  if (b < 0 || b >= MIN (data->rank, indices->rank) || b + last > data->rank)
    return fw_infer_error (error, node, _("batch_dims %" PRId64 " and index depth %" PRId64
                                          " do not fit data rank %d"), b, last, data->rank);
  for (gint i = 0; i < indices->rank - 1; i++)
    out[rank++] = indices->dims[i];
  for (gint64 i = b + last; i < data->rank && rank < FW_MAX_RANK; i++)
    out[rank++] = data->dims[i];
  fw_infer_set (ctx, node, 0, data->dtype, rank, out);
  return TRUE;
}

/* ---- Expand, Tile, Pad ---- */

gboolean
fw_infer_expand (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  FwValue *shape = fw_infer_input (node, 1);
  gint len = 0;
  g_autofree FwDim *elems = fw_infer_get_dim_vector (ctx, shape, &len);
  FwDim target[FW_MAX_RANK];
  FwDim out[FW_MAX_RANK];
  gint rank;
  gint64 n;

  if (elems == NULL || !has_rank (x))
    {
      fw_infer_set (ctx, node, 0, dtype_of (x), FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  if (len > FW_MAX_RANK)
    return fw_infer_error (error, node, _("shape has %d dims, more than %d"), len, FW_MAX_RANK);
  for (gint i = 0; i < len; i++)
    target[i] = sv_to_dim (elems[i]);
  if (!fw_broadcast_pair (node, x->rank, x->dims, len, target, &rank, out, error))
    return FALSE;
  fw_infer_set (ctx, node, 0, x->dtype, rank, out);
  if (fw_infer_is_foldable (ctx, x) && output_foldable (ctx, node, &n))
    {
      FwFold in, res;
      if (fw_fold_load (ctx, x, &in))
        {
          gint64 dims[FW_MAX_RANK];
          for (gint i = 0; i < rank; i++)
            dims[i] = out[i].value;
          fw_fold_init (&res, in.dtype, rank, dims);
          if (fw_fold_elementwise ("Identity", node, 1, &in, &res))
            fw_infer_set_constant (ctx, node, 0, fw_fold_to_tensor (&res));
          fw_fold_clear (&res);
          fw_fold_clear (&in);
        }
    }
  return TRUE;
}

gboolean
fw_infer_tile (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  gint n_rep = 0;
  g_autofree gint64 *reps = fw_infer_get_ints (ctx, fw_infer_input (node, 1), &n_rep);
  FwDim out[FW_MAX_RANK];

  if (!has_rank (x))
    {
      fw_infer_set (ctx, node, 0, dtype_of (x), FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  if (reps == NULL)
    {
      fw_infer_set (ctx, node, 0, x->dtype, x->rank, NULL);
      return TRUE;
    }
  if (n_rep != x->rank)
    return fw_infer_error (error, node, _("%d repeats for rank %d"), n_rep, x->rank);
  for (gint i = 0; i < x->rank; i++)
    {
      if (reps[i] < 0)
        return fw_infer_error (error, node, _("negative repeat %" PRId64), reps[i]);
      if (x->dims[i].value >= 0)
        out[i] = FW_DIM_STATIC (x->dims[i].value * reps[i]);
      else
        out[i] = reps[i] == 1 ? x->dims[i] : (reps[i] == 0 ? FW_DIM_STATIC (0) : FW_DIM_UNKNOWN);
    }
  fw_infer_set (ctx, node, 0, x->dtype, x->rank, out);
  return TRUE;
}

gboolean
fw_infer_pad (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  g_autofree gint64 *pads = NULL;
  g_autofree gint64 *axes = NULL;
  gint n_pads = 0, n_axes = 0;
  FwDim out[FW_MAX_RANK];
  gint64 all[2 * FW_MAX_RANK];

  if (!has_rank (x))
    {
      fw_infer_set (ctx, node, 0, dtype_of (x), FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  if (fw_node_get_attr (node, "pads") != NULL)
    {
      guint n = 0;
      const gint64 *p = fw_node_get_attr_ints (node, "pads", &n);
      if (p == NULL)
        return fw_infer_error (error, node, _("attribute “pads” must be a list of integers"));
      pads = g_memdup2 (p, MAX (n, 1) * sizeof (gint64));
      n_pads = (gint) n;
    }
  else
    pads = fw_infer_get_ints (ctx, fw_infer_input (node, 1), &n_pads);
  if (fw_infer_input (node, 3) != NULL)
    {
      axes = fw_infer_get_ints (ctx, fw_infer_input (node, 3), &n_axes);
      if (axes == NULL)
        {
          fw_infer_set (ctx, node, 0, x->dtype, x->rank, NULL);
          return TRUE;
        }
    }
  if (pads == NULL)
    {
      fw_infer_set (ctx, node, 0, x->dtype, x->rank, NULL);
      return TRUE;
    }
  memset (all, 0, sizeof all);
  if (axes != NULL)
    {
      if (n_pads != 2 * n_axes)
        return fw_infer_error (error, node, _("%d pads for %d axes"), n_pads, n_axes);
      for (gint k = 0; k < n_axes; k++)
        {
          gint axis;
          if (!fw_infer_axis (node, axes[k], x->rank, &axis, error))
            return FALSE;
          all[axis] = pads[k];
          all[axis + x->rank] = pads[k + n_axes];
        }
    }
  else
    {
      if (n_pads != 2 * x->rank)
        return fw_infer_error (error, node, _("%d pads for rank %d"), n_pads, x->rank);
      memcpy (all, pads, n_pads * sizeof (gint64));
    }
  for (gint i = 0; i < x->rank; i++)
    {
      gint64 add = all[i] + all[i + x->rank];
      if (x->dims[i].value >= 0)
        {
          if (x->dims[i].value + add < 0)
            return fw_infer_error (error, node, _("pads make axis %d negative"), i);
          out[i] = FW_DIM_STATIC (x->dims[i].value + add);
        }
      else
        out[i] = add == 0 ? x->dims[i] : FW_DIM_UNKNOWN;
    }
  fw_infer_set (ctx, node, 0, x->dtype, x->rank, out);
  return TRUE;
}

/* ---- Resize, Upsample ---- */

gboolean
fw_infer_resize (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  gboolean upsample = strcmp (node->op_type, "Upsample") == 0;
  gboolean opset10 = !upsample && node->opset == 10;
  FwValue *scales_v = fw_infer_input (node, upsample || opset10 ? 1 : 2);
  FwValue *sizes_v = upsample || opset10 ? NULL : fw_infer_input (node, 3);
  guint n_axes_attr = 0;
  const gint64 *axes_attr = fw_node_get_attr_ints (node, "axes", &n_axes_attr);
  gint axes[FW_MAX_RANK];
  gint n_axes;
  FwDim out[FW_MAX_RANK];
  gint len = 0;
  g_autofree FwDim *sizes = NULL;
  g_autofree double *scales = NULL;
  gint n_scales = 0;

  if (!has_rank (x))
    {
      fw_infer_set (ctx, node, 0, dtype_of (x), FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  if (axes_attr != NULL)
    {
      if (n_axes_attr > (guint) x->rank)
        return fw_infer_error (error, node, _("too many axes"));
      for (guint k = 0; k < n_axes_attr; k++)
        if (!fw_infer_axis (node, axes_attr[k], x->rank, &axes[k], error))
          return FALSE;
      n_axes = (gint) n_axes_attr;
    }
  else
    {
      for (gint i = 0; i < x->rank; i++)
        axes[i] = i;
      n_axes = x->rank;
    }
  memcpy (out, x->dims, x->rank * sizeof (FwDim));

  if (sizes_v != NULL)
    sizes = fw_infer_get_dim_vector (ctx, sizes_v, &len);
  if (sizes != NULL && len > 0)
    {
      const char *policy = fw_node_get_attr_string (node, "keep_aspect_ratio_policy");
      if (len != n_axes)
        return fw_infer_error (error, node, _("%d sizes for %d axes"), len, n_axes);
      if (policy != NULL && strcmp (policy, "stretch") != 0)
        {
          /* not_larger / not_smaller rescale by one factor; the result needs the input dims. */
          fw_infer_set (ctx, node, 0, x->dtype, x->rank, NULL);
          return TRUE;
        }
      for (gint k = 0; k < n_axes; k++)
        out[axes[k]] = sv_to_dim (sizes[k]);
      fw_infer_set (ctx, node, 0, x->dtype, x->rank, out);
      return TRUE;
    }
  if (upsample && fw_node_get_attr (node, "scales") != NULL)
    {
      guint n = 0;
      const float *f = fw_node_get_attr_floats (node, "scales", &n);
      if (f == NULL)
        return fw_infer_error (error, node, _("attribute “scales” must be a list of floats"));
      scales = g_new (double, MAX (n, 1));
      for (guint k = 0; k < n; k++)
        scales[k] = f[k];
      n_scales = (gint) n;
    }
  else if (scales_v != NULL)
    {
      FwFold f;
      if (fw_fold_load (ctx, scales_v, &f))
        {
          if (f.is_float && f.n > 0)
            {
              scales = g_memdup2 (f.d, f.n * sizeof (double));
              n_scales = (gint) f.n;
            }
          fw_fold_clear (&f);
        }
    }
  if (scales == NULL)
    {
      /* Sizes or scales not known yet: only the rank is. */
      for (gint k = 0; k < n_axes; k++)
        out[axes[k]] = FW_DIM_UNKNOWN;
      fw_infer_set (ctx, node, 0, x->dtype, x->rank, out);
      return TRUE;
    }
  if (n_scales != n_axes)
    return fw_infer_error (error, node, _("%d scales for %d axes"), n_scales, n_axes);
  for (gint k = 0; k < n_axes; k++)
    {
      FwDim d = x->dims[axes[k]];
      if (!(scales[k] > 0))
        return fw_infer_error (error, node, _("scale %g must be positive"), scales[k]);
      if (d.value >= 0)
        out[axes[k]] = FW_DIM_STATIC ((gint64) floor ((double) d.value * scales[k]));
      else
        out[axes[k]] = scales[k] == 1.0 ? d : FW_DIM_UNKNOWN;
    }
  fw_infer_set (ctx, node, 0, x->dtype, x->rank, out);
  return TRUE;
}

/* ---- DepthToSpace, SpaceToDepth, NonZero ---- */

static gboolean
block_rearrange (FwInferContext *ctx, FwNode *node, gboolean to_space, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  gint64 b = fw_node_get_attr_int (node, "blocksize", 0);
  FwDim out[4];

  if (b <= 0)
    return fw_infer_error (error, node, _("attribute “blocksize” must be positive"));
  if (!has_rank (x))
    {
      fw_infer_set (ctx, node, 0, dtype_of (x), 4, NULL);
      return TRUE;
    }
  if (x->rank != 4)
    return fw_infer_error (error, node, _("input must be 4-D, not rank %d"), x->rank);
  out[0] = x->dims[0];
  if (to_space)
    {
      if (x->dims[1].value >= 0 && x->dims[1].value % (b * b) != 0)
        return fw_infer_error (error, node, _("%" PRId64 " channels do not divide by blocksize²"),
                               x->dims[1].value);
      out[1] = x->dims[1].value >= 0 ? FW_DIM_STATIC (x->dims[1].value / (b * b)) : FW_DIM_UNKNOWN;
      out[2] = x->dims[2].value >= 0 ? FW_DIM_STATIC (x->dims[2].value * b) : FW_DIM_UNKNOWN;
      out[3] = x->dims[3].value >= 0 ? FW_DIM_STATIC (x->dims[3].value * b) : FW_DIM_UNKNOWN;
    }
  else
    {
      for (gint i = 2; i < 4; i++)
        if (x->dims[i].value >= 0 && x->dims[i].value % b != 0)
          return fw_infer_error (error, node, _("spatial size %" PRId64 " does not divide by blocksize"),
                                 x->dims[i].value);
      out[1] = x->dims[1].value >= 0 ? FW_DIM_STATIC (x->dims[1].value * b * b) : FW_DIM_UNKNOWN;
      out[2] = x->dims[2].value >= 0 ? FW_DIM_STATIC (x->dims[2].value / b) : FW_DIM_UNKNOWN;
      out[3] = x->dims[3].value >= 0 ? FW_DIM_STATIC (x->dims[3].value / b) : FW_DIM_UNKNOWN;
    }
  fw_infer_set (ctx, node, 0, x->dtype, 4, out);
  return TRUE;
}

gboolean
fw_infer_depth_to_space (FwInferContext *ctx, FwNode *node, GError **error)
{
  return block_rearrange (ctx, node, TRUE, error);
}

gboolean
fw_infer_space_to_depth (FwInferContext *ctx, FwNode *node, GError **error)
{
  return block_rearrange (ctx, node, FALSE, error);
}

gboolean
fw_infer_nonzero (FwInferContext *ctx, FwNode *node, GError **error G_GNUC_UNUSED)
{
  FwValue *x = fw_infer_input (node, 0);
  FwDim out[2] = { has_rank (x) ? FW_DIM_STATIC (x->rank) : FW_DIM_UNKNOWN, FW_DIM_UNKNOWN };

  fw_infer_set (ctx, node, 0, FW_DTYPE_INT64, 2, out);
  return TRUE;
}
