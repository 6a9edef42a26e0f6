/* fw-kernels-tensor.c: reference kernels for data movement: Reshape and friends (views, no copy),
 * Transpose, Concat, Split, Slice, Expand, Tile, Trilu, the block rearrangements; the helpers the
 * data-movement files share, and their table of kernels.
 *
 * Data movement never looks at values: elements are copied as bytes of the dtype's size, so every
 * fixed-size dtype works, float16 and bool included. Gather* and Scatter* are in fw-kernels-gather.c, Pad
 * in fw-kernels-pad.c, the small shape-producing ops (Shape, Size, Constant*, Range, NonZero) in
 * fw-kernels-constant.c, Resize in fw-kernels-resize.c, If and Loop in fw-kernels-control.c. */
#include "config.h"

#include <inttypes.h>

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-kernels-tensor-private.h"

/* ---- shared helpers ---- */

FwArray *
fw_kt_new_array (const FwNode *node, FwDType dtype, guint rank, const gint64 *dims, GError **error)
{
  GError *local = NULL;
  FwArray *a = fw_array_new (dtype, rank, dims, &local);

  if (a == NULL)
    {
      g_autofree char *name = g_utf8_make_valid (node->name ? node->name : "", -1);
      g_propagate_prefixed_error (error, local, _("node “%s” (%s): "), name, node->op_type);
    }
  return a;
}

gint64 *
fw_kt_read_ints (const FwNode *node, const FwArray *array, const char *what, guint *n, GError **error)
{
  gint64 *values;

  if (!fw_dtype_is_integer (array->dtype))
    {
      fw_kernel_fail (error, node, _("%s must be integers, not %s"), what, fw_dtype_name (array->dtype));
      return NULL;
    }
  if (array->rank > 1)
    {
      fw_kernel_fail (error, node, _("%s must be a 1-D tensor, not rank %u"), what, array->rank);
      return NULL;
    }
  values = g_new (gint64, MAX (array->n_elements, 1));
  for (gint64 i = 0; i < array->n_elements; i++)
    values[i] = fw_array_get_int64 (array, i);
  *n = (guint) array->n_elements;
  return values;
}

void
fw_kt_set_int64 (FwArray *array, gint64 i, gint64 value)
{
  guint8 *p = array->data;

  switch (array->dtype)
    {
    case FW_DTYPE_INT64: ((gint64 *) p)[i] = value; break;
    case FW_DTYPE_UINT64: ((guint64 *) p)[i] = (guint64) value; break;
    case FW_DTYPE_INT32: ((gint32 *) p)[i] = (gint32) value; break;
    case FW_DTYPE_UINT32: ((guint32 *) p)[i] = (guint32) value; break;
    case FW_DTYPE_INT16: ((gint16 *) p)[i] = (gint16) value; break;
    case FW_DTYPE_UINT16: ((guint16 *) p)[i] = (guint16) value; break;
    case FW_DTYPE_INT8: ((gint8 *) p)[i] = (gint8) value; break;
    case FW_DTYPE_UINT8: p[i] = (guint8) value; break;
    case FW_DTYPE_BOOL: p[i] = value != 0; break;
    default: fw_array_set_double (array, i, (gdouble) value); break;
    }
}

/* One output row of n elements read with element stride st. */
static void
copy_row (guint8 *dst, const guint8 *src, gsize esize, gint64 n, gint64 st)
{
  if (st == 1)
    {
      memcpy (dst, src, (gsize) n * esize);
      return;
    }
  if (st == 0)
    {
      for (gint64 j = 0; j < n; j++)
        fw_kt_copy_elem (dst + j * esize, src, esize);
      return;
    }
#define GATHER_ROW(T)                                                            \
  {                                                                              \
    T *d_ = (T *) dst;                                                           \
    const T *s_ = (const T *) src;                                               \
    for (gint64 j = 0; j < n; j++)                                               \
      d_[j] = s_[j * st];                                                        \
  }
  /* Arrays are 64-byte aligned and offsets are whole elements, so typed access is aligned. */
  switch (esize)
    {
    case 1: GATHER_ROW (guint8); break;
    case 2: GATHER_ROW (guint16); break;
    case 4: GATHER_ROW (guint32); break;
    case 8: GATHER_ROW (guint64); break;
    default:
      for (gint64 j = 0; j < n; j++)
        memcpy (dst + j * esize, src + j * st * (gint64) esize, esize);
      break;
    }
#undef GATHER_ROW
}

/* dst[r][c] = src[r + c * sc] for an R × C output: the transpose core, in tiles so both sides stay in
 * cache. */
static void
copy_tiled (guint8 *dst, const guint8 *src, gsize esize, gint64 rows, gint64 cols, gint64 sc)
{
  const gint64 tile = 32;

#define TILED(T)                                                                         \
  {                                                                                      \
    T *d_ = (T *) dst;                                                                   \
    const T *s_ = (const T *) src;                                                       \
    for (gint64 r0 = 0; r0 < rows; r0 += tile)                                           \
      for (gint64 c0 = 0; c0 < cols; c0 += tile)                                         \
        {                                                                                \
          gint64 r1 = MIN (r0 + tile, rows), c1 = MIN (c0 + tile, cols);                 \
          for (gint64 r = r0; r < r1; r++)                                               \
            for (gint64 c = c0; c < c1; c++)                                             \
              d_[r * cols + c] = s_[r + c * sc];                                         \
        }                                                                                \
  }
  switch (esize)
    {
    case 1: TILED (guint8); break;
    case 2: TILED (guint16); break;
    case 4: TILED (guint32); break;
    case 8: TILED (guint64); break;
    default:
      for (gint64 r = 0; r < rows; r++)
        for (gint64 c = 0; c < cols; c++)
          memcpy (dst + (r * cols + c) * esize, src + (r + c * sc) * (gint64) esize, esize);
      break;
    }
#undef TILED
}

void
fw_kt_strided_copy (guint8 *dst, const guint8 *src, gsize esize, guint rank, const gint64 *dims,
                    const gint64 *strides)
{
  gint64 nd[2 * FW_MAX_RANK], ns[2 * FW_MAX_RANK], coord[2 * FW_MAX_RANK];
  guint nr = 0, k;
  gint64 n_outer = 1, off = 0, inner, is, row_bytes;
  gboolean tiled;

  /* Size-1 axes move nothing; an axis that continues the next one in memory merges with it, so an
   * identity permutation or a full slice becomes one memcpy. */
  for (guint i = 0; i < rank; i++)
    {
      if (dims[i] == 0)
        return;
      if (dims[i] == 1)
        continue;
      if (nr > 0 && ns[nr - 1] == strides[i] * dims[i])
        {
          nd[nr - 1] *= dims[i];
          ns[nr - 1] = strides[i];
        }
      else
        {
          nd[nr] = dims[i];
          ns[nr] = strides[i];
          nr++;
        }
    }
  if (nr == 0)
    {
      fw_kt_copy_elem (dst, src, esize);
      return;
    }
  inner = nd[nr - 1];
  is = ns[nr - 1];
  tiled = nr >= 2 && is != 1 && is != 0 && ns[nr - 2] == 1;
  k = tiled ? nr - 2 : nr - 1;
  row_bytes = tiled ? inner * nd[nr - 2] * (gint64) esize : inner * (gint64) esize;
  for (guint i = 0; i < k; i++)
    {
      n_outer *= nd[i];
      coord[i] = 0;
    }
  for (gint64 o = 0; o < n_outer; o++)
    {
      if (tiled)
        copy_tiled (dst, src + off * (gint64) esize, esize, nd[nr - 2], inner, is);
      else
        copy_row (dst, src + off * (gint64) esize, esize, inner, is);
      dst += row_bytes;
      for (gint j = (gint) k - 1; j >= 0; j--)
        {
          coord[j]++;
          off += ns[j];
          if (coord[j] < nd[j])
            break;
          off -= coord[j] * ns[j];
          coord[j] = 0;
        }
    }
}

gboolean
fw_kt_need_input (const FwNode *node, FwArray *const *inputs, guint n_inputs, guint k, GError **error)
{
  if (k >= n_inputs || inputs[k] == NULL)
    return fw_kernel_fail (error, node, _("input %u is required"), k);
  return TRUE;
}

static gboolean
scalar_int (const FwNode *node, const FwArray *a, const char *what, gint64 *out, GError **error)
{
  if (!fw_dtype_is_integer (a->dtype) || a->n_elements != 1)
    return fw_kernel_fail (error, node, _("%s must be one integer"), what);
  *out = fw_array_get_int64 (a, 0);
  return TRUE;
}

/* ---- Reshape, Flatten, Squeeze, Unsqueeze: views ---- */

static gboolean
set_view (const FwNode *node, FwArray *x, guint rank, const gint64 *dims, FwArray **out, GError **error)
{
  GError *local = NULL;

  *out = fw_array_reshape (x, rank, dims, &local);
  if (*out == NULL)
    {
      fw_kernel_fail (error, node, "%s", local->message);
      g_error_free (local);
      return FALSE;
    }
  return TRUE;
}

static gboolean
kernel_reshape (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  FwArray *x, *shape_in = fw_kt_opt_input (inputs, n_inputs, 1);
  gboolean allowzero = fw_node_get_attr_int (node, "allowzero", 0) != 0;
  g_autofree gint64 *target = NULL;
  gint64 dims[FW_MAX_RANK];
  guint n = 0;
  gint minus_at = -1;
  gint64 known = 1;

  if (!fw_kt_need_input (node, inputs, n_inputs, 0, error))
    return FALSE;
  x = inputs[0];
  if (shape_in != NULL)
    {
      target = fw_kt_read_ints (node, shape_in, _("the shape"), &n, error);
      if (target == NULL)
        return FALSE;
    }
  else
    {
      const gint64 *attr = fw_node_get_attr_ints (node, "shape", &n);

      if (attr == NULL)
        return fw_kernel_fail (error, node, _("the target shape is missing"));
      target = g_memdup2 (attr, MAX (n, 1) * sizeof (gint64));
    }
  if (n > FW_MAX_RANK)
    return fw_kernel_fail (error, node, _("the target shape has %u dims, more than %d"), n, FW_MAX_RANK);
  for (guint i = 0; i < n; i++)
    {
      gint64 e = target[i];

      if (e == 0 && !allowzero)
        {
          if (i >= x->rank)
            return fw_kernel_fail (error, node, _("target dim %u is 0 (copy) but the input has rank %u"), i,
                                   x->rank);
          e = x->dims[i];
        }
      else if (e == -1)
        {
          if (minus_at >= 0)
            return fw_kernel_fail (error, node, _("the target shape has more than one -1"));
          minus_at = (gint) i;
          continue;
        }
      else if (e < 0)
        return fw_kernel_fail (error, node, _("invalid target dim %" PRId64), e);
      dims[i] = e;
      if (e != 0 && known > G_MAXINT64 / e)
        return fw_kernel_fail (error, node, _("the target shape is too large"));
      known *= e;
    }
  if (minus_at >= 0)
    {
      if (known == 0 || x->n_elements % known != 0)
        {
          g_autofree char *s = fw_array_format_shape (x);
          return fw_kernel_fail (error, node, _("cannot reshape %s: the dims other than -1 multiply to %"
                                                PRId64), s, known);
        }
      dims[minus_at] = x->n_elements / known;
    }
  else if (known != x->n_elements)
    {
      g_autofree char *s = fw_array_format_shape (x);
      return fw_kernel_fail (error, node, _("cannot reshape %s (%" PRId64 " elements) into %"
                                            PRId64 " elements"), s, x->n_elements, known);
    }
  return set_view (node, x, n, dims, &outputs[0], error);
}

static gboolean
kernel_flatten (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  gint64 axis = fw_node_get_attr_int (node, "axis", 1);
  gint64 dims[2];
  FwArray *x;

  if (!fw_kt_need_input (node, inputs, n_inputs, 0, error))
    return FALSE;
  x = inputs[0];
  if (axis < -(gint64) x->rank || axis > (gint64) x->rank)
    return fw_kernel_fail (error, node, _("axis %" PRId64 " is out of range for rank %u"), axis, x->rank);
  if (axis < 0)
    axis += x->rank;
  dims[0] = fw_kt_product (x->dims, 0, (guint) axis);
  dims[1] = fw_kt_product (x->dims, (guint) axis, x->rank);
  return set_view (node, x, 2, dims, &outputs[0], error);
}

/* Axes from the attribute (opset < 13) or input 1; NULL with *n 0 when neither is there. */
static gboolean
get_axes (const FwNode *node, FwArray *const *inputs, guint n_inputs, gint64 **axes, guint *n, GError **error)
{
  const gint64 *attr = fw_node_get_attr_ints (node, "axes", n);
  FwArray *in = fw_kt_opt_input (inputs, n_inputs, 1);

  *axes = NULL;
  if (attr != NULL)
    {
      *axes = g_memdup2 (attr, MAX (*n, 1) * sizeof (gint64));
      return TRUE;
    }
  *n = 0;
  if (in != NULL)
    {
      *axes = fw_kt_read_ints (node, in, _("axes"), n, error);
      return *axes != NULL;
    }
  return TRUE;
}

static gboolean
kernel_squeeze (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  g_autofree gint64 *axes = NULL;
  gboolean drop[FW_MAX_RANK] = { FALSE };
  gint64 dims[FW_MAX_RANK];
  guint n_axes = 0, rank = 0;
  FwArray *x;

  if (!fw_kt_need_input (node, inputs, n_inputs, 0, error) || !get_axes (node, inputs, n_inputs, &axes, &n_axes, error))
    return FALSE;
  x = inputs[0];
  if (n_axes == 0)
    for (guint i = 0; i < x->rank; i++)
      drop[i] = x->dims[i] == 1;
  for (guint k = 0; k < n_axes; k++)
    {
      guint axis;

      if (!fw_kernel_axis (node, axes[k], x->rank, &axis, error))
        return FALSE;
      if (x->rank == 0 || x->dims[axis] != 1)
        return fw_kernel_fail (error, node, _("cannot squeeze axis %u of size %" PRId64), axis,
                               x->rank ? x->dims[axis] : 0);
      drop[axis] = TRUE;
    }
  for (guint i = 0; i < x->rank; i++)
    if (!drop[i])
      dims[rank++] = x->dims[i];
  return set_view (node, x, rank, dims, &outputs[0], error);
}

static gboolean
kernel_unsqueeze (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                  FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  g_autofree gint64 *axes = NULL;
  gboolean ins[FW_MAX_RANK] = { FALSE };
  gint64 dims[FW_MAX_RANK];
  guint n_axes = 0, rank;
  FwArray *x;

  if (!fw_kt_need_input (node, inputs, n_inputs, 0, error) || !get_axes (node, inputs, n_inputs, &axes, &n_axes, error))
    return FALSE;
  x = inputs[0];
  if (axes == NULL)
    return fw_kernel_fail (error, node, _("axes are required"));
  rank = x->rank + n_axes;
  if (rank > FW_MAX_RANK)
    return fw_kernel_fail (error, node, _("the result would have rank %u, more than %d"), rank, FW_MAX_RANK);
  for (guint k = 0; k < n_axes; k++)
    {
      guint axis;

      if (!fw_kernel_axis (node, axes[k], rank, &axis, error))
        return FALSE;
      if (ins[axis])
        return fw_kernel_fail (error, node, _("axis %u is listed twice"), axis);
      ins[axis] = TRUE;
    }
  for (guint i = 0, j = 0; i < rank; i++)
    dims[i] = ins[i] ? 1 : x->dims[j++];
  return set_view (node, x, rank, dims, &outputs[0], error);
}

/* ---- Transpose, DepthToSpace, SpaceToDepth ---- */

static gboolean
kernel_transpose (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                  FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  guint n_perm = 0;
  const gint64 *perm_attr = fw_node_get_attr_ints (node, "perm", &n_perm);
  gboolean seen[FW_MAX_RANK] = { FALSE };
  gint64 in_strides[FW_MAX_RANK], strides[FW_MAX_RANK], dims[FW_MAX_RANK];
  FwArray *x, *y;

  if (!fw_kt_need_input (node, inputs, n_inputs, 0, error))
    return FALSE;
  x = inputs[0];
  if (perm_attr != NULL && n_perm != x->rank)
    return fw_kernel_fail (error, node, _("attribute “perm” must list %u axes"), x->rank);
  fw_kt_contiguous_strides (x->rank, x->dims, in_strides);
  for (guint i = 0; i < x->rank; i++)
    {
      gint64 p = perm_attr ? perm_attr[i] : (gint64) (x->rank - 1 - i);

      if (p < 0)
        p += x->rank;
      if (p < 0 || p >= (gint64) x->rank || seen[p])
        return fw_kernel_fail (error, node, _("attribute “perm” is not a permutation of %u axes"), x->rank);
      seen[p] = TRUE;
      dims[i] = x->dims[p];
      strides[i] = in_strides[p];
    }
  y = fw_kt_new_array (node, x->dtype, x->rank, dims, error);
  if (y == NULL)
    return FALSE;
  fw_kt_strided_copy (y->data, x->data, fw_kt_esize (x), x->rank, dims, strides);
  outputs[0] = y;
  return TRUE;
}

/* DepthToSpace and SpaceToDepth are a reshape to 6-D, a transpose and a reshape back: one strided copy. */
static gboolean
block_rearrange (const FwNode *node, FwArray *const *inputs, guint n_inputs, FwArray **outputs, gboolean to_space,
                 GError **error)
{
  gint64 b = fw_node_get_attr_int (node, "blocksize", 0);
  const char *mode = fw_node_get_attr_string (node, "mode");
  gboolean crd = mode != NULL && strcmp (mode, "CRD") == 0;
  gint64 n, c, h, w, in_dims[6], in_strides[6], dims[6], strides[6], out[4];
  const guint *perm;
  static const guint dcr[6] = { 0, 3, 4, 1, 5, 2 };
  static const guint crd_perm[6] = { 0, 1, 4, 2, 5, 3 };
  static const guint s2d[6] = { 0, 3, 5, 1, 2, 4 };
  FwArray *x, *y;

  if (!fw_kt_need_input (node, inputs, n_inputs, 0, error))
    return FALSE;
  x = inputs[0];
  if (b <= 0)
    return fw_kernel_fail (error, node, _("attribute “blocksize” must be positive"));
  if (x->rank != 4)
    return fw_kernel_fail (error, node, _("input must be 4-D, not rank %u"), x->rank);
  if (mode != NULL && !crd && strcmp (mode, "DCR") != 0)
    return fw_kernel_fail (error, node, _("unknown mode “%s”"), mode);
  n = x->dims[0];
  c = x->dims[1];
  h = x->dims[2];
  w = x->dims[3];
  if (to_space)
    {
      if (b > G_MAXINT32 || c % (b * b) != 0)
        return fw_kernel_fail (error, node, _("%" PRId64 " channels do not divide by blocksize²"), c);
      if (crd)
        {
          gint64 d[6] = { n, c / (b * b), b, b, h, w };
          memcpy (in_dims, d, sizeof d);
          perm = crd_perm;
        }
      else
        {
          gint64 d[6] = { n, b, b, c / (b * b), h, w };
          memcpy (in_dims, d, sizeof d);
          perm = dcr;
        }
      out[0] = n;
      out[1] = c / (b * b);
      out[2] = h * b;
      out[3] = w * b;
    }
  else
    {
      gint64 d[6] = { n, c, h / b, b, w / b, b };

      if (h % b != 0 || w % b != 0)
        return fw_kernel_fail (error, node, _("spatial size %" PRId64 "×%" PRId64
                                              " does not divide by blocksize"), h, w);
      memcpy (in_dims, d, sizeof d);
      perm = s2d;
      out[0] = n;
      out[1] = c * b * b;
      out[2] = h / b;
      out[3] = w / b;
    }
  fw_kt_contiguous_strides (6, in_dims, in_strides);
  for (guint i = 0; i < 6; i++)
    {
      dims[i] = in_dims[perm[i]];
      strides[i] = in_strides[perm[i]];
    }
  y = fw_kt_new_array (node, x->dtype, 4, out, error);
  if (y == NULL)
    return FALSE;
  fw_kt_strided_copy (y->data, x->data, fw_kt_esize (x), 6, dims, strides);
  outputs[0] = y;
  return TRUE;
}

static gboolean
kernel_depth_to_space (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs,
                       guint n_inputs, FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  return block_rearrange (node, inputs, n_inputs, outputs, TRUE, error);
}

static gboolean
kernel_space_to_depth (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs,
                       guint n_inputs, FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  return block_rearrange (node, inputs, n_inputs, outputs, FALSE, error);
}

/* ---- Concat, Split ---- */

static gboolean
kernel_concat (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs, guint n_inputs,
               FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  const FwAttr *axis_attr = fw_node_get_attr (node, "axis");
  FwArray *first, *y;
  gint64 dims[FW_MAX_RANK], outer, inner;
  guint axis;
  gsize esize;
  guint8 *dst;

  if (axis_attr == NULL || axis_attr->type != FW_ATTR_INT)
    return fw_kernel_fail (error, node, _("attribute “axis” is required"));
  if (n_inputs == 0)
    return fw_kernel_fail (error, node, _("there is nothing to concatenate"));
  for (guint k = 0; k < n_inputs; k++)
    if (!fw_kt_need_input (node, inputs, n_inputs, k, error))
      return FALSE;
  first = inputs[0];
  if (first->rank == 0)
    return fw_kernel_fail (error, node, _("inputs must have rank 1 or more"));
  if (!fw_kernel_axis (node, axis_attr->i, first->rank, &axis, error))
    return FALSE;
  memcpy (dims, first->dims, first->rank * sizeof (gint64));
  dims[axis] = 0;
  for (guint k = 0; k < n_inputs; k++)
    {
      FwArray *a = inputs[k];

      if (a->dtype != first->dtype)
        return fw_kernel_fail (error, node, _("input %u is %s, input 0 %s"), k, fw_dtype_name (a->dtype),
                               fw_dtype_name (first->dtype));
      if (a->rank != first->rank)
        return fw_kernel_fail (error, node, _("input %u has rank %u, input 0 rank %u"), k, a->rank, first->rank);
      for (guint i = 0; i < a->rank; i++)
        if (i != axis && a->dims[i] != first->dims[i])
          {
            g_autofree char *sa = fw_array_format_shape (first);
            g_autofree char *sb = fw_array_format_shape (a);
            return fw_kernel_fail (error, node, _("shapes %s and %s differ outside axis %u"), sa, sb, axis);
          }
      dims[axis] += a->dims[axis];
    }
  y = fw_kt_new_array (node, first->dtype, first->rank, dims, error);
  if (y == NULL)
    return FALSE;
  esize = fw_kt_esize (y);
  outer = fw_kt_product (dims, 0, axis);
  inner = fw_kt_product (dims, axis + 1, first->rank);
  dst = y->data;
  for (gint64 o = 0; o < outer; o++)
    for (guint k = 0; k < n_inputs; k++)
      {
        gsize block = (gsize) (inputs[k]->dims[axis] * inner) * esize;

        memcpy (dst, (const guint8 *) inputs[k]->data + (gsize) o * block, block);
        dst += block;
      }
  outputs[0] = y;
  return TRUE;
}

static gboolean
kernel_split (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs, guint n_inputs,
              FwArray **outputs, guint n_outputs, GError **error)
{
  FwArray *x, *split_in = fw_kt_opt_input (inputs, n_inputs, 1);
  g_autofree gint64 *split = NULL;
  guint n_split = 0, axis;
  gint64 d, outer, inner, offset = 0;
  gsize esize;

  if (!fw_kt_need_input (node, inputs, n_inputs, 0, error))
    return FALSE;
  x = inputs[0];
  if (n_outputs == 0)
    return fw_kernel_fail (error, node, _("the node has no outputs"));
  if (!fw_kernel_axis (node, fw_node_get_attr_int (node, "axis", 0), x->rank, &axis, error))
    return FALSE;
  if (x->rank == 0)
    return fw_kernel_fail (error, node, _("cannot split a scalar"));
  d = x->dims[axis];
  if (fw_node_get_attr (node, "split") != NULL)
    {
      const gint64 *s = fw_node_get_attr_ints (node, "split", &n_split);

      if (s == NULL)
        return fw_kernel_fail (error, node, _("attribute “split” must be a list of integers"));
      split = g_memdup2 (s, MAX (n_split, 1) * sizeof (gint64));
    }
  else if (split_in != NULL)
    {
      split = fw_kt_read_ints (node, split_in, _("split"), &n_split, error);
      if (split == NULL)
        return FALSE;
    }
  if (split != NULL)
    {
      gint64 sum = 0;

      if (n_split != n_outputs)
        return fw_kernel_fail (error, node, _("%u split sizes for %u outputs"), n_split, n_outputs);
      for (guint k = 0; k < n_split; k++)
        {
          if (split[k] < 0 || split[k] > d)
            return fw_kernel_fail (error, node, _("invalid split size %" PRId64), split[k]);
          sum += split[k];
        }
      if (sum != d)
        return fw_kernel_fail (error, node, _("split sizes add up to %" PRId64 ", the axis has %"
                                              PRId64), sum, d);
    }
  else
    {
      const FwAttr *num_attr = fw_node_get_attr (node, "num_outputs");
      gint64 num = num_attr ? num_attr->i : n_outputs, chunk;

      if (num <= 0 || num != n_outputs)
        return fw_kernel_fail (error, node, _("num_outputs %" PRId64 " differs from %u outputs"), num,
                               n_outputs);
      /* Before opset 18 the parts must be equal; since then the last one takes what is left. */
      if (num_attr == NULL && node->opset > 0 && node->opset < 18 && d % num != 0)
        return fw_kernel_fail (error, node, _("axis of %" PRId64 " does not split into %" PRId64
                                              " equal parts"), d, num);
      chunk = (d + num - 1) / num;
      split = g_new (gint64, num);
      for (gint64 k = 0; k < num; k++)
        split[k] = MAX (MIN (chunk, d - k * chunk), 0);
    }
  esize = fw_kt_esize (x);
  outer = fw_kt_product (x->dims, 0, axis);
  inner = fw_kt_product (x->dims, axis + 1, x->rank);
  for (guint k = 0; k < n_outputs; k++)
    {
      gint64 dims[FW_MAX_RANK];
      FwArray *y;
      gsize block = (gsize) (split[k] * inner) * esize, row = (gsize) (d * inner) * esize;

      memcpy (dims, x->dims, x->rank * sizeof (gint64));
      dims[axis] = split[k];
      if (node->outputs[k] == NULL)
        {
          offset += split[k];
          continue;
        }
      y = fw_kt_new_array (node, x->dtype, x->rank, dims, error);
      if (y == NULL)
        return FALSE;
      for (gint64 o = 0; o < outer; o++)
        memcpy ((guint8 *) y->data + (gsize) o * block,
                (const guint8 *) x->data + (gsize) o * row + (gsize) (offset * inner) * esize, block);
      offset += split[k];
      outputs[k] = y;
    }
  return TRUE;
}

/* ---- Slice ---- */

static gboolean
kernel_slice (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs, guint n_inputs,
              FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  gboolean attr_form = (node->opset > 0 && node->opset < 10) || fw_node_get_attr (node, "starts") != NULL;
  g_autofree gint64 *starts = NULL, *ends = NULL, *axes = NULL, *steps = NULL;
  guint n_starts = 0, n_ends = 0, n_axes = 0, n_steps = 0;
  gboolean sliced[FW_MAX_RANK] = { FALSE };
  gint64 in_strides[FW_MAX_RANK], dims[FW_MAX_RANK], strides[FW_MAX_RANK], base = 0;
  FwArray *x, *y;

  if (!fw_kt_need_input (node, inputs, n_inputs, 0, error))
    return FALSE;
  x = inputs[0];
  if (attr_form)
    {
      const gint64 *s = fw_node_get_attr_ints (node, "starts", &n_starts);
      const gint64 *e = fw_node_get_attr_ints (node, "ends", &n_ends);
      const gint64 *ax = fw_node_get_attr_ints (node, "axes", &n_axes);

      if (s == NULL || e == NULL)
        return fw_kernel_fail (error, node, _("attributes “starts” and “ends” are required"));
      starts = g_memdup2 (s, MAX (n_starts, 1) * sizeof (gint64));
      ends = g_memdup2 (e, MAX (n_ends, 1) * sizeof (gint64));
      if (ax != NULL)
        axes = g_memdup2 (ax, MAX (n_axes, 1) * sizeof (gint64));
    }
  else
    {
      FwArray *a;

      if (!fw_kt_need_input (node, inputs, n_inputs, 1, error) || !fw_kt_need_input (node, inputs, n_inputs, 2, error))
        return FALSE;
      starts = fw_kt_read_ints (node, inputs[1], _("starts"), &n_starts, error);
      if (starts == NULL)
        return FALSE;
      ends = fw_kt_read_ints (node, inputs[2], _("ends"), &n_ends, error);
      if (ends == NULL)
        return FALSE;
      if ((a = fw_kt_opt_input (inputs, n_inputs, 3)) != NULL
          && (axes = fw_kt_read_ints (node, a, _("axes"), &n_axes, error)) == NULL)
        return FALSE;
      if ((a = fw_kt_opt_input (inputs, n_inputs, 4)) != NULL
          && (steps = fw_kt_read_ints (node, a, _("steps"), &n_steps, error)) == NULL)
        return FALSE;
    }
  if (n_starts != n_ends)
    return fw_kernel_fail (error, node, _("starts and ends have different lengths (%u, %u)"), n_starts, n_ends);
  if (axes != NULL && n_axes != n_starts)
    return fw_kernel_fail (error, node, _("axes and starts have different lengths (%u, %u)"), n_axes, n_starts);
  if (steps != NULL && n_steps != n_starts)
    return fw_kernel_fail (error, node, _("steps and starts have different lengths (%u, %u)"), n_steps, n_starts);
  if (axes == NULL && n_starts > x->rank)
    return fw_kernel_fail (error, node, _("%u starts for rank %u"), n_starts, x->rank);
  fw_kt_contiguous_strides (x->rank, x->dims, in_strides);
  memcpy (dims, x->dims, x->rank * sizeof (gint64));
  memcpy (strides, in_strides, x->rank * sizeof (gint64));
  for (guint k = 0; k < n_starts; k++)
    {
      guint axis;
      gint64 step = steps ? steps[k] : 1, s = starts[k], e = ends[k], d, count;

      if (!fw_kernel_axis (node, axes ? axes[k] : (gint64) k, x->rank, &axis, error))
        return FALSE;
      if (sliced[axis])
        return fw_kernel_fail (error, node, _("axis %u is sliced twice"), axis);
      sliced[axis] = TRUE;
      if (step == 0)
        return fw_kernel_fail (error, node, _("a step is zero"));
      d = x->dims[axis];
      /* Starts and ends are clamped, so INT64_MIN/MAX sentinels never overflow. */
      if (s < 0)
        s = s < -d ? -1 : s + d;
      if (e < 0)
        e = e < -d ? -1 : e + d;
      if (step > 0)
        {
          s = CLAMP (s, 0, d);
          e = CLAMP (e, 0, d);
          count = e > s ? (e - s - 1) / step + 1 : 0;
        }
      else
        {
          s = CLAMP (s, -1, d - 1);
          e = CLAMP (e, -1, d - 1);
          count = s > e ? (s - e - 1) / (-step) + 1 : 0;
        }
      dims[axis] = count;
      strides[axis] = in_strides[axis] * step;
      if (count > 0)
        base += s * in_strides[axis];
    }
  y = fw_kt_new_array (node, x->dtype, x->rank, dims, error);
  if (y == NULL)
    return FALSE;
  if (y->n_elements > 0)
    fw_kt_strided_copy (y->data, (const guint8 *) x->data + base * (gint64) fw_kt_esize (x), fw_kt_esize (x), x->rank,
                        dims, strides);
  outputs[0] = y;
  return TRUE;
}

/* ---- Expand, Tile ---- */

/* The shape input of Expand and ConstantOfShape: at most FW_MAX_RANK dims, none negative. */
gint64 *
fw_kt_read_shape (const FwNode *node, FwArray *input, guint *n, GError **error)
{
  g_autofree gint64 *shape = fw_kt_read_ints (node, input, _("the shape"), n, error);

  if (shape == NULL)
    return NULL;
  if (*n > FW_MAX_RANK)
    {
      fw_kernel_fail (error, node, _("the shape has %u dims, more than %d"), *n, FW_MAX_RANK);
      return NULL;
    }
  for (guint i = 0; i < *n; i++)
    if (shape[i] < 0)
      {
        fw_kernel_fail (error, node, _("negative dim %" PRId64 " in the shape"), shape[i]);
        return NULL;
      }
  return g_steal_pointer (&shape);
}

static gboolean
kernel_expand (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs, guint n_inputs,
               FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  FwArray *x, *y;
  g_autofree gint64 *shape = NULL;
  gint64 dims[FW_MAX_RANK], strides[FW_MAX_RANK];
  guint n = 0, rank;

  if (!fw_kt_need_input (node, inputs, n_inputs, 0, error) || !fw_kt_need_input (node, inputs, n_inputs, 1, error))
    return FALSE;
  x = inputs[0];
  shape = fw_kt_read_shape (node, inputs[1], &n, error);
  if (shape == NULL)
    return FALSE;
  if (!fw_kernel_broadcast_dims (node, x->rank, x->dims, n, shape, &rank, dims, error))
    return FALSE;
  y = fw_kt_new_array (node, x->dtype, rank, dims, error);
  if (y == NULL)
    return FALSE;
  fw_kernel_broadcast_strides (x->rank, x->dims, rank, dims, strides);
  if (y->n_elements > 0)
    fw_kt_strided_copy (y->data, x->data, fw_kt_esize (x), rank, dims, strides);
  outputs[0] = y;
  return TRUE;
}

static gboolean
kernel_tile (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs, guint n_inputs,
             FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  FwArray *x, *y;
  g_autofree gint64 *reps = NULL;
  gint64 dims[FW_MAX_RANK], in_strides[FW_MAX_RANK], dims2[2 * FW_MAX_RANK], strides2[2 * FW_MAX_RANK];
  guint n = 0;

  if (!fw_kt_need_input (node, inputs, n_inputs, 0, error) || !fw_kt_need_input (node, inputs, n_inputs, 1, error))
    return FALSE;
  x = inputs[0];
  reps = fw_kt_read_ints (node, inputs[1], _("repeats"), &n, error);
  if (reps == NULL)
    return FALSE;
  if (n != x->rank)
    return fw_kernel_fail (error, node, _("%u repeats for rank %u"), n, x->rank);
  fw_kt_contiguous_strides (x->rank, x->dims, in_strides);
  for (guint i = 0; i < x->rank; i++)
    {
      if (reps[i] < 0)
        return fw_kernel_fail (error, node, _("negative repeat %" PRId64), reps[i]);
      if (reps[i] != 0 && x->dims[i] > FW_TENSOR_MAX_ELEMENTS / reps[i])
        return fw_kernel_fail (error, node, _("repeating axis %u %" PRId64 " times is too large"), i,
                               reps[i]);
      dims[i] = x->dims[i] * reps[i];
      /* Tile is a strided copy over (repeat, dim) pairs with the repeat axes of stride 0. */
      dims2[2 * i] = reps[i];
      strides2[2 * i] = 0;
      dims2[2 * i + 1] = x->dims[i];
      strides2[2 * i + 1] = in_strides[i];
    }
  y = fw_kt_new_array (node, x->dtype, x->rank, dims, error);
  if (y == NULL)
    return FALSE;
  if (y->n_elements > 0)
    fw_kt_strided_copy (y->data, x->data, fw_kt_esize (x), 2 * x->rank, dims2, strides2);
  outputs[0] = y;
  return TRUE;
}

/* ---- Trilu ---- */

static gboolean
kernel_trilu (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs, guint n_inputs,
              FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  gboolean upper = fw_node_get_attr_int (node, "upper", 1) != 0;
  gint64 k = 0, rows, cols, n_mat;
  FwArray *x, *kin = fw_kt_opt_input (inputs, n_inputs, 1);
  g_autoptr(FwArray) y = NULL;
  gsize esize;

  if (!fw_kt_need_input (node, inputs, n_inputs, 0, error))
    return FALSE;
  x = inputs[0];
  if (x->rank < 2)
    return fw_kernel_fail (error, node, _("input must have rank 2 or more, not %u"), x->rank);
  if (kin != NULL && !scalar_int (node, kin, _("k"), &k, error))
    return FALSE;
  y = fw_array_copy (x, error);
  if (y == NULL)
    return FALSE;
  esize = fw_kt_esize (x);
  rows = x->dims[x->rank - 2];
  cols = x->dims[x->rank - 1];
  n_mat = fw_kt_product (x->dims, 0, x->rank - 2);
  k = CLAMP (k, -rows - 1, cols + 1);
  for (gint64 mi = 0; mi < n_mat; mi++)
    for (gint64 r = 0; r < rows; r++)
      {
        guint8 *row = (guint8 *) y->data + (gsize) ((mi * rows + r) * cols) * esize;
        /* upper keeps c - r >= k (zero c < r + k); lower keeps c - r <= k (zero c > r + k). */
        gint64 lo = upper ? 0 : CLAMP (r + k + 1, 0, cols);
        gint64 hi = upper ? CLAMP (r + k, 0, cols) : cols;

        if (hi > lo)
          memset (row + lo * (gint64) esize, 0, (gsize) (hi - lo) * esize);
      }
  outputs[0] = g_steal_pointer (&y);
  return TRUE;
}

static const FwKernelEntry tensor_kernels[] = {
  { "Concat", kernel_concat },
  { "Constant", fw_kernel_constant },
  { "ConstantOfShape", fw_kernel_constant_of_shape },
  { "DepthToSpace", kernel_depth_to_space },
  { "Expand", kernel_expand },
  { "Flatten", kernel_flatten },
  { "Gather", fw_kernel_gather },
  { "GatherElements", fw_kernel_gather_elements },
  { "GatherND", fw_kernel_gather_nd },
  { "If", fw_kernel_if },
  { "Loop", fw_kernel_loop },
  { "Scan", fw_kernel_scan },
  { "NonZero", fw_kernel_nonzero },
  { "Pad", fw_kernel_pad },
  { "Range", fw_kernel_range },
  { "Reshape", kernel_reshape },
  { "Resize", fw_kernel_resize },
  { "ScatterElements", fw_kernel_scatter_elements },
  { "ScatterND", fw_kernel_scatter_nd },
  { "Shape", fw_kernel_shape },
  { "Size", fw_kernel_size },
  { "Slice", kernel_slice },
  { "SpaceToDepth", kernel_space_to_depth },
  { "Split", kernel_split },
  { "Squeeze", kernel_squeeze },
  { "Tile", kernel_tile },
  { "Transpose", kernel_transpose },
  { "Trilu", kernel_trilu },
  { "Unsqueeze", kernel_unsqueeze },
  { "Upsample", fw_kernel_resize },
};

const FwKernelEntry *
fw_kernels_tensor (guint *n_entries)
{
  *n_entries = G_N_ELEMENTS (tensor_kernels);
  return tensor_kernels;
}
