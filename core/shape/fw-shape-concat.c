/* fw-shape-concat.c: Concat and Split, which carry shape vectors through the Shape → Concat chains. */
#include "config.h"

#include <inttypes.h>

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "shape/fw-shape-tensor-private.h"

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
      if (!fw_st_has_rank (v))
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
      if (!fw_st_has_rank (v))
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

  if (fw_st_output_foldable (ctx, node, &n))
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

  if (!fw_st_has_rank (x))
    {
      for (guint k = 0; k < node->n_outputs; k++)
        fw_infer_set (ctx, node, k, fw_st_dtype_of (x), FW_RANK_UNKNOWN, NULL);
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
