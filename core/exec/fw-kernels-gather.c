/* fw-kernels-gather.c: the indexed kernels: Gather, GatherElements, GatherND read elements at indices,
 * ScatterElements and ScatterND write them there (with an optional reduction). Indices are checked
 * against their axis and may count from the end. */
#include "config.h"

#include <inttypes.h>

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-kernels-tensor-private.h"

/* ---- Gather, GatherElements, GatherND ---- */

/* Index k of indices normalised against dim; FALSE with error when out of range. */
static gboolean
get_index (const FwNode *node, const FwArray *indices, gint64 k, gint64 dim, gint64 *out, GError **error)
{
  gint64 j = fw_array_get_int64 (indices, k);

  if (j < -dim || j >= dim)
    return fw_kernel_fail (error, node, _("index %" PRId64 " is out of range for a dim of %"
                                          PRId64), j, dim);
  *out = j < 0 ? j + dim : j;
  return TRUE;
}

static gboolean
check_indices_dtype (const FwNode *node, const FwArray *indices, GError **error)
{
  if (indices->dtype != FW_DTYPE_INT64 && indices->dtype != FW_DTYPE_INT32)
    return fw_kernel_fail (error, node, _("indices must be int32 or int64, not %s"), fw_dtype_name (indices->dtype));
  return TRUE;
}

/* The gathers and scatters: inputs 0 to n_needed - 1 present, data first and integer indices second. */
static gboolean
indexed_inputs (const FwNode *node, FwArray *const *inputs, guint n_inputs, guint n_needed, FwArray **data,
                FwArray **indices, GError **error)
{
  for (guint k = 0; k < n_needed; k++)
    if (!fw_kt_need_input (node, inputs, n_inputs, k, error))
      return FALSE;
  *data = inputs[0];
  *indices = inputs[1];
  return check_indices_dtype (node, *indices, error);
}

/* GatherElements and ScatterElements: the attribute axis, along which indices may run past data's dims;
 * along every other axis they must stay inside. */
static gboolean
elements_axis (const FwNode *node, const FwArray *data, const FwArray *indices, guint *axis, GError **error)
{
  if (!fw_kernel_axis (node, fw_node_get_attr_int (node, "axis", 0), data->rank, axis, error))
    return FALSE;
  for (guint i = 0; i < data->rank; i++)
    if (i != *axis && indices->dims[i] > data->dims[i])
      return fw_kernel_fail (error, node, _("indices dim %u (%" PRId64 ") exceeds the data's (%"
                                            PRId64 ")"), i, indices->dims[i], data->dims[i]);
  return TRUE;
}

/* Moves coord to the next position of dims in row-major order, keeping *off the offset of that position
 * in the data (strides) along every axis but axis, whose offset comes from the index instead. */
static void
step_but_axis (guint rank, const gint64 *dims, const gint64 *strides, guint axis, gint64 *coord, gint64 *off)
{
  for (gint d = (gint) rank - 1; d >= 0; d--)
    {
      coord[d]++;
      if ((guint) d != axis)
        *off += strides[d];
      if (coord[d] < dims[d])
        break;
      if ((guint) d != axis)
        *off -= coord[d] * strides[d];
      coord[d] = 0;
    }
}

gboolean
fw_kernel_gather (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                  FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  FwArray *data, *indices, *y;
  gint64 dims[FW_MAX_RANK], outer, inner, ad;
  g_autofree gint64 *idx = NULL;
  guint axis, rank = 0;
  gsize esize, chunk;
  guint8 *dst;

  if (!indexed_inputs (node, inputs, n_inputs, 2, &data, &indices, error))
    return FALSE;
  if (data->rank == 0)
    return fw_kernel_fail (error, node, _("data must have rank 1 or more"));
  if (!fw_kernel_axis (node, fw_node_get_attr_int (node, "axis", 0), data->rank, &axis, error))
    return FALSE;
  if (data->rank + indices->rank - 1 > FW_MAX_RANK)
    return fw_kernel_fail (error, node, _("the result rank is too large"));
  ad = data->dims[axis];
  idx = g_new (gint64, MAX (indices->n_elements, 1));
  for (gint64 k = 0; k < indices->n_elements; k++)
    if (!get_index (node, indices, k, ad, &idx[k], error))
      return FALSE;
  for (guint i = 0; i < axis; i++)
    dims[rank++] = data->dims[i];
  for (guint i = 0; i < indices->rank; i++)
    dims[rank++] = indices->dims[i];
  for (guint i = axis + 1; i < data->rank; i++)
    dims[rank++] = data->dims[i];
  y = fw_kt_new_array (node, data->dtype, rank, dims, error);
  if (y == NULL)
    return FALSE;
  esize = fw_kt_esize (data);
  outer = fw_kt_product (data->dims, 0, axis);
  inner = fw_kt_product (data->dims, axis + 1, data->rank);
  chunk = (gsize) inner * esize;
  dst = y->data;
  for (gint64 o = 0; o < outer; o++)
    for (gint64 k = 0; k < indices->n_elements; k++)
      {
        memcpy (dst, (const guint8 *) data->data + (gsize) (o * ad + idx[k]) * chunk, chunk);
        dst += chunk;
      }
  outputs[0] = y;
  return TRUE;
}

gboolean
fw_kernel_gather_elements (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs,
                           guint n_inputs, FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  FwArray *data, *indices, *y;
  gint64 strides[FW_MAX_RANK], coord[FW_MAX_RANK] = { 0 }, off = 0;
  guint axis;
  gsize esize;

  if (!indexed_inputs (node, inputs, n_inputs, 2, &data, &indices, error))
    return FALSE;
  if (data->rank == 0 || data->rank != indices->rank)
    return fw_kernel_fail (error, node, _("data rank %u and indices rank %u differ"), data->rank, indices->rank);
  if (!elements_axis (node, data, indices, &axis, error))
    return FALSE;
  fw_kt_contiguous_strides (data->rank, data->dims, strides);
  y = fw_kt_new_array (node, data->dtype, indices->rank, indices->dims, error);
  if (y == NULL)
    return FALSE;
  esize = fw_kt_esize (data);
  for (gint64 k = 0; k < y->n_elements; k++)
    {
      gint64 j;

      if (!get_index (node, indices, k, data->dims[axis], &j, error))
        {
          fw_array_unref (y);
          return FALSE;
        }
      fw_kt_copy_elem ((guint8 *) y->data + k * (gint64) esize,
                       (const guint8 *) data->data + (off + j * strides[axis]) * (gint64) esize, esize);
      step_but_axis (y->rank, y->dims, strides, axis, coord, &off);
    }
  outputs[0] = y;
  return TRUE;
}

/* The element offset into a slice of data dims[from, from+m) named by the m indices at idx_base. */
static gboolean
nd_offset (const FwNode *node, const FwArray *data, guint from, const FwArray *indices, gint64 idx_base, gint64 m,
           gint64 *out, GError **error)
{
  gint64 off = 0;

  for (gint64 q = 0; q < m; q++)
    {
      gint64 j;

      if (!get_index (node, indices, idx_base + q, data->dims[from + q], &j, error))
        return FALSE;
      off = off * data->dims[from + q] + j;
    }
  *out = off;
  return TRUE;
}

gboolean
fw_kernel_gather_nd (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                     FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  FwArray *data, *indices, *y;
  gint64 b = fw_node_get_attr_int (node, "batch_dims", 0), m, dims[FW_MAX_RANK];
  gint64 n_batch, per_batch, chunk, data_batch;
  guint rank = 0;
  gsize esize;

  if (!indexed_inputs (node, inputs, n_inputs, 2, &data, &indices, error))
    return FALSE;
  if (indices->rank < 1 || data->rank < 1)
    return fw_kernel_fail (error, node, _("data and indices must have rank 1 or more"));
  m = indices->dims[indices->rank - 1];
  if (b < 0 || b >= MIN (data->rank, indices->rank) || b + m > data->rank || m < 1)
    return fw_kernel_fail (error, node, _("batch_dims %" PRId64 " and index depth %" PRId64
                                          " do not fit data rank %u"), b, m, data->rank);
  for (gint64 i = 0; i < b; i++)
    if (indices->dims[i] != data->dims[i])
      return fw_kernel_fail (error, node, _("batch dim %" PRId64 " differs between data and indices"), i);
  for (guint i = 0; i + 1 < indices->rank; i++)
    dims[rank++] = indices->dims[i];
  for (guint i = (guint) (b + m); i < data->rank; i++)
    {
      if (rank >= FW_MAX_RANK)
        return fw_kernel_fail (error, node, _("the result rank is too large"));
      dims[rank++] = data->dims[i];
    }
  y = fw_kt_new_array (node, data->dtype, rank, dims, error);
  if (y == NULL)
    return FALSE;
  esize = fw_kt_esize (data);
  n_batch = fw_kt_product (data->dims, 0, (guint) b);
  per_batch = fw_kt_product (indices->dims, (guint) b, indices->rank - 1);
  chunk = fw_kt_product (data->dims, (guint) (b + m), data->rank);
  data_batch = fw_kt_product (data->dims, (guint) b, data->rank);
  for (gint64 bi = 0; bi < n_batch; bi++)
    for (gint64 k = 0; k < per_batch; k++)
      {
        gint64 off, slot = bi * per_batch + k;

        if (!nd_offset (node, data, (guint) b, indices, slot * m, m, &off, error))
          {
            fw_array_unref (y);
            return FALSE;
          }
        memcpy ((guint8 *) y->data + (gsize) (slot * chunk) * esize,
                (const guint8 *) data->data + (gsize) (bi * data_batch + off * chunk) * esize, (gsize) chunk * esize);
      }
  outputs[0] = y;
  return TRUE;
}

/* ---- ScatterElements, ScatterND ---- */

typedef enum { RED_NONE, RED_ADD, RED_MUL, RED_MAX, RED_MIN } Reduction;

static gboolean
get_reduction (const FwNode *node, Reduction *out, GError **error)
{
  const char *r = fw_node_get_attr_string (node, "reduction");

  if (r == NULL || strcmp (r, "none") == 0)
    *out = RED_NONE;
  else if (strcmp (r, "add") == 0)
    *out = RED_ADD;
  else if (strcmp (r, "mul") == 0)
    *out = RED_MUL;
  else if (strcmp (r, "max") == 0)
    *out = RED_MAX;
  else if (strcmp (r, "min") == 0)
    *out = RED_MIN;
  else
    return fw_kernel_fail (error, node, _("unknown reduction “%s”"), r);
  return TRUE;
}

/* ScatterElements and ScatterND: data, integer indices, updates of data's dtype, and the reduction. */
static gboolean
scatter_inputs (const FwNode *node, FwArray *const *inputs, guint n_inputs, FwArray **data, FwArray **indices,
                FwArray **updates, Reduction *red, GError **error)
{
  if (!indexed_inputs (node, inputs, n_inputs, 3, data, indices, error) || !get_reduction (node, red, error))
    return FALSE;
  *updates = inputs[2];
  if ((*updates)->dtype != (*data)->dtype)
    return fw_kernel_fail (error, node, _("updates are %s, data %s"), fw_dtype_name ((*updates)->dtype),
                           fw_dtype_name ((*data)->dtype));
  return TRUE;
}

/* y[di] = y[di] ⊕ u[ui]; integers stay integers so int64 keeps every bit. */
static void
scatter_one (FwArray *y, gint64 di, const FwArray *u, gint64 ui, Reduction red, gsize esize)
{
  if (red == RED_NONE)
    {
      fw_kt_copy_elem ((guint8 *) y->data + di * (gint64) esize, (const guint8 *) u->data + ui * (gint64) esize, esize);
      return;
    }
  if (fw_dtype_is_float (y->dtype))
    {
      gdouble a = fw_array_get_double (y, di), b = fw_array_get_double (u, ui), r;

      switch (red)
        {
        case RED_ADD: r = a + b; break;
        case RED_MUL: r = a * b; break;
        case RED_MAX: r = MAX (a, b); break;
        default: r = MIN (a, b); break;
        }
      fw_array_set_double (y, di, r);
    }
  else
    {
      gint64 a = fw_array_get_int64 (y, di), b = fw_array_get_int64 (u, ui), r;

      switch (red)
        {
        /* Wrapping like the fixed-width types do, without signed overflow. */
        case RED_ADD: r = (gint64) ((guint64) a + (guint64) b); break;
        case RED_MUL: r = (gint64) ((guint64) a * (guint64) b); break;
        case RED_MAX: r = MAX (a, b); break;
        default: r = MIN (a, b); break;
        }
      fw_kt_set_int64 (y, di, r);
    }
}

gboolean
fw_kernel_scatter_elements (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs,
                            guint n_inputs, FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  FwArray *data, *indices, *updates;
  g_autoptr(FwArray) y = NULL;
  gint64 strides[FW_MAX_RANK], coord[FW_MAX_RANK] = { 0 }, off = 0;
  Reduction red;
  guint axis;
  gsize esize;

  if (!scatter_inputs (node, inputs, n_inputs, &data, &indices, &updates, &red, error))
    return FALSE;
  if (data->rank == 0 || indices->rank != data->rank || !fw_array_same_shape (indices, updates))
    return fw_kernel_fail (error, node, _("data, indices and updates must have the same rank, indices and updates the same shape"));
  if (!elements_axis (node, data, indices, &axis, error))
    return FALSE;
  y = fw_array_copy (data, error);
  if (y == NULL)
    return FALSE;
  esize = fw_kt_esize (data);
  fw_kt_contiguous_strides (data->rank, data->dims, strides);
  for (gint64 k = 0; k < indices->n_elements; k++)
    {
      gint64 j;

      if (!get_index (node, indices, k, data->dims[axis], &j, error))
        return FALSE;
      scatter_one (y, off + j * strides[axis], updates, k, red, esize);
      step_but_axis (indices->rank, indices->dims, strides, axis, coord, &off);
    }
  outputs[0] = g_steal_pointer (&y);
  return TRUE;
}

gboolean
fw_kernel_scatter_nd (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                      FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  FwArray *data, *indices, *updates;
  g_autoptr(FwArray) y = NULL;
  gint64 m, n_idx, chunk;
  Reduction red;
  gsize esize;

  if (!scatter_inputs (node, inputs, n_inputs, &data, &indices, &updates, &red, error))
    return FALSE;
  if (indices->rank < 1)
    return fw_kernel_fail (error, node, _("indices must have rank 1 or more"));
  m = indices->dims[indices->rank - 1];
  if (m < 1 || m > (gint64) data->rank)
    return fw_kernel_fail (error, node, _("index depth %" PRId64 " does not fit data rank %u"), m,
                           data->rank);
  /* updates: indices.shape[:-1] + data.shape[m:] */
  {
    gboolean ok = updates->rank == indices->rank - 1 + data->rank - (guint) m;

    for (guint i = 0; ok && i + 1 < indices->rank; i++)
      ok = updates->dims[i] == indices->dims[i];
    for (guint i = (guint) m; ok && i < data->rank; i++)
      ok = updates->dims[indices->rank - 1 + i - m] == data->dims[i];
    if (!ok)
      {
        g_autofree char *su = fw_array_format_shape (updates);
        return fw_kernel_fail (error, node, _("updates have the shape %s, which does not fit data and indices"), su);
      }
  }
  y = fw_array_copy (data, error);
  if (y == NULL)
    return FALSE;
  esize = fw_kt_esize (data);
  n_idx = fw_kt_product (indices->dims, 0, indices->rank - 1);
  chunk = fw_kt_product (data->dims, (guint) m, data->rank);
  for (gint64 k = 0; k < n_idx; k++)
    {
      gint64 off;

      if (!nd_offset (node, data, 0, indices, k * m, m, &off, error))
        return FALSE;
      if (red == RED_NONE)
        memcpy ((guint8 *) y->data + (gsize) (off * chunk) * esize,
                (const guint8 *) updates->data + (gsize) (k * chunk) * esize, (gsize) chunk * esize);
      else
        for (gint64 e = 0; e < chunk; e++)
          scatter_one (y, off * chunk + e, updates, k * chunk + e, red, esize);
    }
  outputs[0] = g_steal_pointer (&y);
  return TRUE;
}
