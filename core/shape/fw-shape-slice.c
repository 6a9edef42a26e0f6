/* fw-shape-slice.c: ops that take part of a tensor: Slice, Gather, GatherElements, GatherND. */
#include "config.h"

#include <inttypes.h>

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "shape/fw-shape-tensor-private.h"

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

/* Slice's bounds: starts, ends, axes, steps, as attributes (opset 1) or constant inputs (10+). */
typedef struct
{
  gint64  *starts, *ends, *axes, *steps;
  gint     n_starts, n_ends, n_axes, n_steps;
  gboolean axes_known;     /* FALSE: an axes input whose value is unknown */
  gboolean bounds_known;   /* FALSE: a starts, ends or steps input whose value is unknown */
} SliceArgs;

static void
slice_args_clear (SliceArgs *a)
{
  g_clear_pointer (&a->starts, g_free);
  g_clear_pointer (&a->ends, g_free);
  g_clear_pointer (&a->axes, g_free);
  g_clear_pointer (&a->steps, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SliceArgs, slice_args_clear)

static gboolean
slice_args_from_attrs (FwNode *node, SliceArgs *args, GError **error)
{
  guint a = 0, b = 0, c = 0;
  const gint64 *s = fw_node_get_attr_ints (node, "starts", &a);
  const gint64 *e = fw_node_get_attr_ints (node, "ends", &b);
  const gint64 *ax = fw_node_get_attr_ints (node, "axes", &c);

  if (s == NULL || e == NULL)
    return fw_infer_error (error, node, _("attributes “starts” and “ends” are required"));
  args->starts = g_memdup2 (s, MAX (a, 1) * sizeof (gint64));
  args->ends = g_memdup2 (e, MAX (b, 1) * sizeof (gint64));
  args->n_starts = (gint) a;
  args->n_ends = (gint) b;
  if (ax != NULL)
    {
      args->axes = g_memdup2 (ax, MAX (c, 1) * sizeof (gint64));
      args->n_axes = (gint) c;
    }
  return TRUE;
}

static void
slice_args_from_inputs (FwInferContext *ctx, FwNode *node, SliceArgs *a)
{
  a->starts = fw_infer_get_ints (ctx, fw_infer_input (node, 1), &a->n_starts);
  a->ends = fw_infer_get_ints (ctx, fw_infer_input (node, 2), &a->n_ends);
  a->bounds_known = a->starts != NULL && a->ends != NULL;
  if (fw_infer_input (node, 3) != NULL)
    {
      a->axes = fw_infer_get_ints (ctx, fw_infer_input (node, 3), &a->n_axes);
      a->axes_known = a->axes != NULL;
    }
  if (fw_infer_input (node, 4) != NULL)
    {
      a->steps = fw_infer_get_ints (ctx, fw_infer_input (node, 4), &a->n_steps);
      a->bounds_known = a->bounds_known && a->steps != NULL;
    }
}

/* Folds a constant input: output element k reads the input at start + coordinate × step on every axis. */
static void
slice_fold (FwInferContext *ctx, FwNode *node, const FwValue *x, const FwDim *out, const gint64 *st,
            const gint64 *sp, gint64 n)
{
  FwFold in;

  if (fw_fold_load (ctx, x, &in))
    {
      gint64 in_strides[FW_MAX_RANK], coord[FW_MAX_RANK] = { 0 };
      g_autofree gint64 *src = g_new (gint64, MAX (n, 1));
      gint64 base = 0, off;

      fw_st_strides_of (in.rank, in.dims, in_strides);
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
      fw_st_fold_by_index (ctx, node, &in, src);
      fw_fold_clear (&in);
    }
}

gboolean
fw_infer_slice (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  gboolean attr_form = (node->opset > 0 && node->opset < 10) || fw_node_get_attr (node, "starts") != NULL;
  g_auto(SliceArgs) a = { .axes_known = TRUE, .bounds_known = TRUE };
  gint64 st[FW_MAX_RANK], sp[FW_MAX_RANK];
  gboolean sliced[FW_MAX_RANK] = { FALSE };
  FwDim out[FW_MAX_RANK];
  gint64 n;

  if (!fw_st_has_rank (x))
    {
      fw_infer_set (ctx, node, 0, fw_st_dtype_of (x), FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  if (attr_form)
    {
      if (!slice_args_from_attrs (node, &a, error))
        return FALSE;
    }
  else
    slice_args_from_inputs (ctx, node, &a);
  if (!a.axes_known)
    {
      fw_infer_set (ctx, node, 0, x->dtype, x->rank, NULL);
      return TRUE;
    }
  if (a.bounds_known && a.n_starts != a.n_ends)
    return fw_infer_error (error, node, _("starts and ends have different lengths (%d, %d)"), a.n_starts,
                           a.n_ends);
  if (a.axes != NULL && a.bounds_known && a.n_axes != a.n_starts)
    return fw_infer_error (error, node, _("axes and starts have different lengths (%d, %d)"), a.n_axes,
                           a.n_starts);
  if (a.steps != NULL && a.n_steps != a.n_starts)
    return fw_infer_error (error, node, _("steps and starts have different lengths (%d, %d)"), a.n_steps,
                           a.n_starts);
  if (!a.bounds_known && a.axes == NULL)
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
  for (gint k = 0; k < (a.axes ? a.n_axes : a.n_starts); k++)
    {
      gint axis;
      gint64 step, s, e;
      FwDim d;

      if (!fw_infer_axis (node, a.axes ? a.axes[k] : k, x->rank, &axis, error))
        return FALSE;
      if (sliced[axis])
        return fw_infer_error (error, node, _("axis %d is sliced twice"), axis);
      sliced[axis] = TRUE;
      if (!a.bounds_known)
        {
          out[axis] = FW_DIM_UNKNOWN;
          continue;
        }
      step = a.steps ? a.steps[k] : 1;
      if (step == 0)
        return fw_infer_error (error, node, _("a step is zero"));
      s = a.starts[k];
      e = a.ends[k];
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
  if (!a.bounds_known)
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
  if (fw_infer_is_foldable (ctx, x) && fw_st_output_foldable (ctx, node, &n))
    slice_fold (ctx, node, x, out, st, sp, n);
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

  if (!fw_st_has_rank (data) || !fw_st_has_rank (indices))
    {
      fw_infer_set (ctx, node, 0, fw_st_dtype_of (data),
                    fw_st_has_rank (data) && fw_st_has_rank (indices)
                    ? data->rank + indices->rank - 1 : FW_RANK_UNKNOWN, NULL);
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
  if (fw_infer_is_foldable (ctx, data) && fw_infer_is_foldable (ctx, indices) && fw_st_output_foldable (ctx, node, &n))
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
                fw_st_fold_by_index (ctx, node, &in, src);
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

  if (fw_st_has_rank (data) && fw_st_has_rank (indices) && data->rank != indices->rank)
    return fw_infer_error (error, node, _("data rank %d and indices rank %d differ"), data->rank, indices->rank);
  fw_infer_set (ctx, node, 0, fw_st_dtype_of (data), indices ? indices->rank : FW_RANK_UNKNOWN,
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

  if (!fw_st_has_rank (data) || !fw_st_has_rank (indices) || indices->rank < 1
      || indices->dims[indices->rank - 1].value < 0)
    {
      fw_infer_set (ctx, node, 0, fw_st_dtype_of (data), FW_RANK_UNKNOWN, NULL);
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
