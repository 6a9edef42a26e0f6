/* fw-shape-resize.c: ops whose output extent a rule derives from the input: Expand, Tile, Pad, Resize,
 * Upsample, DepthToSpace, SpaceToDepth, NonZero. */
#include "config.h"

#include <inttypes.h>

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "shape/fw-shape-tensor-private.h"

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

  if (elems == NULL || !fw_st_has_rank (x))
    {
      fw_infer_set (ctx, node, 0, fw_st_dtype_of (x), FW_RANK_UNKNOWN, NULL);
      return TRUE;
    }
  if (len > FW_MAX_RANK)
    return fw_infer_error (error, node, _("shape has %d dims, more than %d"), len, FW_MAX_RANK);
  for (gint i = 0; i < len; i++)
    target[i] = fw_st_sv_to_dim (elems[i]);
  if (!fw_broadcast_pair (node, x->rank, x->dims, len, target, &rank, out, error))
    return FALSE;
  fw_infer_set (ctx, node, 0, x->dtype, rank, out);
  if (fw_infer_is_foldable (ctx, x) && fw_st_output_foldable (ctx, node, &n))
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

  if (!fw_st_has_rank (x))
    {
      fw_infer_set (ctx, node, 0, fw_st_dtype_of (x), FW_RANK_UNKNOWN, NULL);
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

  if (!fw_st_has_rank (x))
    {
      fw_infer_set (ctx, node, 0, fw_st_dtype_of (x), FW_RANK_UNKNOWN, NULL);
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

  if (!fw_st_has_rank (x))
    {
      fw_infer_set (ctx, node, 0, fw_st_dtype_of (x), FW_RANK_UNKNOWN, NULL);
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
        out[axes[k]] = fw_st_sv_to_dim (sizes[k]);
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
  if (!fw_st_has_rank (x))
    {
      fw_infer_set (ctx, node, 0, fw_st_dtype_of (x), 4, NULL);
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
  FwDim out[2] = { fw_st_has_rank (x) ? FW_DIM_STATIC (x->rank) : FW_DIM_UNKNOWN, FW_DIM_UNKNOWN };

  fw_infer_set (ctx, node, 0, FW_DTYPE_INT64, 2, out);
  return TRUE;
}
