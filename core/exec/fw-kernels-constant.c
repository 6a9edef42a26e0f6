/* fw-kernels-constant.c: the kernels that make small tensors rather than move them: Shape, Size,
 * Constant, ConstantOfShape, Range, NonZero. */
#include "config.h"

#include <inttypes.h>

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-kernels-tensor-private.h"

/* ---- Shape, Size, Constant, ConstantOfShape, Range, NonZero ---- */

gboolean
fw_kernel_shape (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                 FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  gint64 start = fw_node_get_attr_int (node, "start", 0);
  gint64 end = fw_node_get_attr_int (node, "end", G_MAXINT64), n;
  gint64 r;
  FwArray *x, *y;

  if (!fw_kt_need_input (node, inputs, n_inputs, 0, error))
    return FALSE;
  x = inputs[0];
  r = x->rank;
  if (start < 0)
    start = start < -r ? 0 : start + r;
  if (end < 0)
    end = end < -r ? 0 : end + r;
  start = CLAMP (start, 0, r);
  end = CLAMP (end, 0, r);
  n = MAX (end - start, 0);
  y = fw_kt_new_array (node, FW_DTYPE_INT64, 1, &n, error);
  if (y == NULL)
    return FALSE;
  for (gint64 i = 0; i < n; i++)
    ((gint64 *) y->data)[i] = x->dims[start + i];
  outputs[0] = y;
  return TRUE;
}

gboolean
fw_kernel_size (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  FwArray *y;

  if (!fw_kt_need_input (node, inputs, n_inputs, 0, error))
    return FALSE;
  y = fw_kt_new_array (node, FW_DTYPE_INT64, 0, NULL, error);
  if (y == NULL)
    return FALSE;
  *(gint64 *) y->data = inputs[0]->n_elements;
  outputs[0] = y;
  return TRUE;
}

gboolean
fw_kernel_constant (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs G_GNUC_UNUSED,
                    guint n_inputs G_GNUC_UNUSED, FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  const FwAttr *attr;
  FwArray *y;

  if ((attr = fw_node_get_attr (node, "value")) != NULL)
    {
      GError *local = NULL;

      if (attr->type != FW_ATTR_TENSOR || attr->t == NULL)
        return fw_kernel_fail (error, node, _("attribute “value” must be a tensor"));
      if (attr->t->dtype == FW_DTYPE_STRING)
        return fw_kernel_fail (error, node, _("string constants cannot be computed on the host"));
      /* The attribute's bytes, borrowed: a large Constant weight costs no copy. */
      y = fw_array_new_from_tensor (attr->t, &local);
      if (y == NULL)
        {
          fw_kernel_fail (error, node, "%s", local->message);
          g_error_free (local);
          return FALSE;
        }
      outputs[0] = y;
      return TRUE;
    }
  if ((attr = fw_node_get_attr (node, "value_float")) != NULL && attr->type == FW_ATTR_FLOAT)
    {
      y = fw_kt_new_array (node, FW_DTYPE_FLOAT, 0, NULL, error);
      if (y == NULL)
        return FALSE;
      *(float *) y->data = attr->f;
    }
  else if ((attr = fw_node_get_attr (node, "value_int")) != NULL && attr->type == FW_ATTR_INT)
    {
      y = fw_kt_new_array (node, FW_DTYPE_INT64, 0, NULL, error);
      if (y == NULL)
        return FALSE;
      *(gint64 *) y->data = attr->i;
    }
  else if ((attr = fw_node_get_attr (node, "value_floats")) != NULL && attr->type == FW_ATTR_FLOATS)
    {
      gint64 n = attr->n;

      y = fw_kt_new_array (node, FW_DTYPE_FLOAT, 1, &n, error);
      if (y == NULL)
        return FALSE;
      if (n > 0)
        memcpy (y->data, attr->floats, n * sizeof (float));
    }
  else if ((attr = fw_node_get_attr (node, "value_ints")) != NULL && attr->type == FW_ATTR_INTS)
    {
      gint64 n = attr->n;

      y = fw_kt_new_array (node, FW_DTYPE_INT64, 1, &n, error);
      if (y == NULL)
        return FALSE;
      if (n > 0)
        memcpy (y->data, attr->ints, n * sizeof (gint64));
    }
  else if (fw_node_get_attr (node, "value_string") != NULL || fw_node_get_attr (node, "value_strings") != NULL)
    return fw_kernel_fail (error, node, _("string constants cannot be computed on the host"));
  else if (fw_node_get_attr (node, "sparse_value") != NULL)
    return fw_kernel_fail (error, node, _("sparse constants are not supported"));
  else
    return fw_kernel_fail (error, node, _("the node has no value attribute"));
  outputs[0] = y;
  return TRUE;
}

gboolean
fw_kernel_constant_of_shape (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs,
                             guint n_inputs, FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  const FwAttr *value = fw_node_get_attr (node, "value");
  FwDType dtype = FW_DTYPE_FLOAT;
  g_autofree gint64 *shape = NULL;
  guint8 elem[16] = { 0 };
  gboolean zero = TRUE;
  gsize esize;
  guint n = 0;
  FwArray *y;

  if (!fw_kt_need_input (node, inputs, n_inputs, 0, error))
    return FALSE;
  if (value != NULL)
    {
      gsize size = 0;
      gconstpointer data;

      if (value->type != FW_ATTR_TENSOR || value->t == NULL || value->t->n_elements != 1
          || value->t->dtype == FW_DTYPE_STRING)
        return fw_kernel_fail (error, node, _("attribute “value” must be a one-element tensor"));
      dtype = value->t->dtype;
      data = fw_tensor_get_data (value->t, &size);
      if (fw_dtype_bits (dtype) % 8 != 0 || size != fw_dtype_bits (dtype) / 8 || size > sizeof elem || data == NULL)
        return fw_kernel_fail (error, node, _("attribute “value” holds %zu bytes for one %s"), size,
                               fw_dtype_name (dtype));
      memcpy (elem, data, size);
    }
  esize = fw_dtype_bits (dtype) / 8;
  for (gsize i = 0; i < esize; i++)
    zero = zero && elem[i] == 0;
  shape = fw_kt_read_shape (node, inputs[0], &n, error);
  if (shape == NULL)
    return FALSE;
  if (zero)
    {
      GError *local = NULL;

      y = fw_array_new0 (dtype, n, shape, &local);
      if (y == NULL)
        {
          g_autofree char *name = g_utf8_make_valid (node->name ? node->name : "", -1);
          g_propagate_prefixed_error (error, local, _("node “%s” (%s): "), name, node->op_type);
          return FALSE;
        }
    }
  else
    {
      y = fw_kt_new_array (node, dtype, n, shape, error);
      if (y == NULL)
        return FALSE;
      for (gint64 k = 0; k < y->n_elements; k++)
        fw_kt_copy_elem ((guint8 *) y->data + k * (gint64) esize, elem, esize);
    }
  outputs[0] = y;
  return TRUE;
}

gboolean
fw_kernel_range (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                 FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  FwArray *y;
  FwDType dtype;
  gint64 n;

  for (guint k = 0; k < 3; k++)
    {
      if (!fw_kt_need_input (node, inputs, n_inputs, k, error))
        return FALSE;
      if (inputs[k]->n_elements != 1)
        return fw_kernel_fail (error, node, _("input %u must be a scalar"), k);
      if (inputs[k]->dtype != inputs[0]->dtype)
        return fw_kernel_fail (error, node, _("inputs differ in type"));
    }
  dtype = inputs[0]->dtype;
  if (fw_dtype_is_float (dtype))
    {
      gdouble s = fw_array_get_double (inputs[0], 0), l = fw_array_get_double (inputs[1], 0);
      gdouble d = fw_array_get_double (inputs[2], 0), count;

      if (d == 0)
        return fw_kernel_fail (error, node, _("delta must not be zero"));
      count = ceil ((l - s) / d);
      if (!(count > 0))
        count = 0;
      if (count > (gdouble) FW_TENSOR_MAX_ELEMENTS)
        return fw_kernel_fail (error, node, _("the range has too many elements"));
      n = (gint64) count;
      y = fw_kt_new_array (node, dtype, 1, &n, error);
      if (y == NULL)
        return FALSE;
      for (gint64 k = 0; k < n; k++)
        fw_array_set_double (y, k, s + d * (gdouble) k);
    }
  else
    {
      gint64 s = fw_array_get_int64 (inputs[0], 0), l = fw_array_get_int64 (inputs[1], 0);
      gint64 d = fw_array_get_int64 (inputs[2], 0);
      /* In 128-bit-free arithmetic: the span as a double only decides whether it is absurd. */
      gdouble span = ((gdouble) l - (gdouble) s) / (gdouble) d;

      if (d == 0)
        return fw_kernel_fail (error, node, _("delta must not be zero"));
      if (span > (gdouble) FW_TENSOR_MAX_ELEMENTS)
        return fw_kernel_fail (error, node, _("the range has too many elements"));
      if (d > 0)
        n = l > s ? (l - s - 1) / d + 1 : 0;
      else
        n = s > l ? (s - l - 1) / (-d) + 1 : 0;
      y = fw_kt_new_array (node, dtype, 1, &n, error);
      if (y == NULL)
        return FALSE;
      for (gint64 k = 0; k < n; k++)
        fw_kt_set_int64 (y, k, s + d * k);
    }
  outputs[0] = y;
  return TRUE;
}

static gboolean
is_nonzero (const FwArray *x, gint64 i, gsize esize)
{
  const guint8 *p;

  /* -0.0 is zero; NaN is not. */
  if (fw_dtype_is_float (x->dtype))
    return fw_array_get_double (x, i) != 0.0;
  p = (const guint8 *) x->data + i * (gint64) esize;
  for (gsize b = 0; b < esize; b++)
    if (p[b] != 0)
      return TRUE;
  return FALSE;
}

gboolean
fw_kernel_nonzero (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                   FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  FwArray *x, *y;
  gint64 count = 0, dims[2], coord[FW_MAX_RANK] = { 0 }, col = 0;
  gsize esize;

  if (!fw_kt_need_input (node, inputs, n_inputs, 0, error))
    return FALSE;
  x = inputs[0];
  esize = fw_kt_esize (x);
  for (gint64 i = 0; i < x->n_elements; i++)
    count += is_nonzero (x, i, esize);
  dims[0] = x->rank;
  dims[1] = count;
  y = fw_kt_new_array (node, FW_DTYPE_INT64, 2, dims, error);
  if (y == NULL)
    return FALSE;
  for (gint64 i = 0; i < x->n_elements; i++)
    {
      if (is_nonzero (x, i, esize))
        {
          for (guint d = 0; d < x->rank; d++)
            ((gint64 *) y->data)[d * count + col] = coord[d];
          col++;
        }
      for (gint d = (gint) x->rank - 1; d >= 0; d--)
        {
          if (++coord[d] < x->dims[d])
            break;
          coord[d] = 0;
        }
    }
  outputs[0] = y;
  return TRUE;
}
