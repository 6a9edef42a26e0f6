/* fw-shape-reshape.c: ops that keep the elements and change the shape: Reshape, Flatten, Transpose,
 * Squeeze, Unsqueeze. */
#include "config.h"

#include <inttypes.h>

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "shape/fw-shape-tensor-private.h"

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
  FwDType dtype = fw_st_dtype_of (x);

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
        out[i] = fw_st_sv_to_dim (e);
      else if (e.value == 0 && !allowzero)
        {
          if (fw_st_has_rank (x) && i < x->rank)
            out[i] = x->dims[i];
          else if (fw_st_has_rank (x))
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
  if (fw_st_has_rank (x))
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
  fw_st_fold_same_data (ctx, node);
  fw_st_pass_shape_value (ctx, node);
  return TRUE;
}

gboolean
fw_infer_flatten (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  gint64 axis = fw_node_get_attr_int (node, "axis", 1);
  FwDim out[2];

  if (!fw_st_has_rank (x))
    {
      fw_infer_set (ctx, node, 0, fw_st_dtype_of (x), 2, NULL);
      return TRUE;
    }
  if (axis < -(gint64) x->rank || axis > x->rank)
    return fw_infer_error (error, node, _("axis %" PRId64 " is out of range for rank %d"), axis, x->rank);
  if (axis < 0)
    axis += x->rank;
  out[0] = fw_dims_product_dim (x->dims, 0, (gint) axis);
  out[1] = fw_dims_product_dim (x->dims, (gint) axis, x->rank);
  fw_infer_set (ctx, node, 0, x->dtype, 2, out);
  fw_st_fold_same_data (ctx, node);
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

  if (!fw_st_has_rank (x))
    {
      fw_infer_set (ctx, node, 0, fw_st_dtype_of (x),
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
  if (fw_infer_is_foldable (ctx, x) && fw_st_output_foldable (ctx, node, &n))
    {
      FwFold in;
      if (fw_fold_load (ctx, x, &in))
        {
          gint64 in_strides[FW_MAX_RANK], coord[FW_MAX_RANK] = { 0 };
          g_autofree gint64 *src = g_new (gint64, MAX (n, 1));
          gint64 off = 0;

          fw_st_strides_of (in.rank, in.dims, in_strides);
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
          fw_st_fold_by_index (ctx, node, &in, src);
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

  if (!fw_st_has_rank (x) || !known)
    {
      fw_infer_set (ctx, node, 0, fw_st_dtype_of (x),
                    fw_st_has_rank (x) && n_axes > 0 ? x->rank - n_axes : FW_RANK_UNKNOWN, NULL);
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
  fw_st_fold_same_data (ctx, node);
  fw_st_pass_shape_value (ctx, node);
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
  if (!fw_st_has_rank (x) || !known)
    {
      fw_infer_set (ctx, node, 0, fw_st_dtype_of (x), fw_st_has_rank (x) && known ? x->rank + n_axes : FW_RANK_UNKNOWN,
                    NULL);
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
  fw_st_fold_same_data (ctx, node);
  fw_st_pass_shape_value (ctx, node);
  return TRUE;
}
