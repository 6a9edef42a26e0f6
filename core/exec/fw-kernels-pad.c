/* fw-kernels-pad.c: Pad (opsets 2 to 21): constant, reflect, edge and wrap modes, negative pads crop. */
#include "config.h"

#include <inttypes.h>

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-kernels-tensor-private.h"

/* ---- Pad ---- */

typedef enum { PAD_CONSTANT, PAD_REFLECT, PAD_EDGE, PAD_WRAP } PadMode;

/* The input coordinate for output coordinate o of an axis of d with pad p before it; -1 for the constant. */
static gint64
pad_source (PadMode mode, gint64 o, gint64 p, gint64 d)
{
  gint64 i = o - p;

  if (i >= 0 && i < d)
    return i;
  switch (mode)
    {
    case PAD_EDGE:
      return i < 0 ? 0 : d - 1;
    case PAD_WRAP:
      i %= d;
      return i < 0 ? i + d : i;
    case PAD_REFLECT:
      {
        gint64 period = 2 * (d - 1);

        if (d == 1)
          return 0;
        i %= period;
        if (i < 0)
          i += period;
        return i < d ? i : period - i;
      }
    default:
      return -1;
    }
}

static gboolean
pad_mode (const FwNode *node, PadMode *mode, GError **error)
{
  const char *mode_s = fw_node_get_attr_string (node, "mode");

  if (mode_s == NULL || strcmp (mode_s, "constant") == 0)
    *mode = PAD_CONSTANT;
  else if (strcmp (mode_s, "reflect") == 0)
    *mode = PAD_REFLECT;
  else if (strcmp (mode_s, "edge") == 0)
    *mode = PAD_EDGE;
  else if (strcmp (mode_s, "wrap") == 0)
    *mode = PAD_WRAP;
  else
    return fw_kernel_fail (error, node, _("unknown mode “%s”"), mode_s);
  return TRUE;
}

/* The pads of every axis into all (begins, then ends): attribute “pads” (before opset 11) or input 1,
 * for the axes of input 3 or all of them. */
static gboolean
pad_amounts (const FwNode *node, FwArray *const *inputs, guint n_inputs, const FwArray *x, gint64 *all,
             GError **error)
{
  g_autofree gint64 *pads = NULL;
  g_autofree gint64 *axes = NULL;
  guint n_pads = 0, n_axes = 0;
  FwArray *a;

  if (fw_node_get_attr (node, "pads") != NULL)
    {
      const gint64 *p = fw_node_get_attr_ints (node, "pads", &n_pads);

      if (p == NULL)
        return fw_kernel_fail (error, node, _("attribute “pads” must be a list of integers"));
      pads = g_memdup2 (p, MAX (n_pads, 1) * sizeof (gint64));
    }
  else
    {
      if (!fw_kt_need_input (node, inputs, n_inputs, 1, error))
        return FALSE;
      pads = fw_kt_read_ints (node, inputs[1], _("pads"), &n_pads, error);
      if (pads == NULL)
        return FALSE;
    }
  memset (all, 0, 2 * FW_MAX_RANK * sizeof (gint64));
  if ((a = fw_kt_opt_input (inputs, n_inputs, 3)) != NULL)
    {
      axes = fw_kt_read_ints (node, a, _("axes"), &n_axes, error);
      if (axes == NULL)
        return FALSE;
      if (n_pads != 2 * n_axes)
        return fw_kernel_fail (error, node, _("%u pads for %u axes"), n_pads, n_axes);
      for (guint k = 0; k < n_axes; k++)
        {
          guint axis;

          if (!fw_kernel_axis (node, axes[k], x->rank, &axis, error))
            return FALSE;
          all[axis] = pads[k];
          all[axis + x->rank] = pads[k + n_axes];
        }
    }
  else
    {
      if (n_pads != 2 * x->rank)
        return fw_kernel_fail (error, node, _("%u pads for rank %u"), n_pads, x->rank);
      memcpy (all, pads, n_pads * sizeof (gint64));
    }
  return TRUE;
}

/* The fill value: input 2 (opset 11) or attribute “value” (before), in the data's dtype. */
static FwArray *
pad_fill (const FwNode *node, FwArray *const *inputs, guint n_inputs, const FwArray *x, GError **error)
{
  gsize esize = fw_kt_esize (x);
  FwArray *fill, *a;

  fill = fw_kt_new_array (node, x->dtype, 0, NULL, error);
  if (fill == NULL)
    return NULL;
  memset (fill->data, 0, esize);
  if ((a = fw_kt_opt_input (inputs, n_inputs, 2)) != NULL && a->n_elements > 0)
    {
      if (a->dtype == x->dtype)
        memcpy (fill->data, a->data, esize);
      else
        fw_array_set_double (fill, 0, fw_array_get_double (a, 0));
    }
  else if (fw_node_get_attr (node, "value") != NULL)
    fw_array_set_double (fill, 0, fw_node_get_attr_float (node, "value", 0.0f));
  return fill;
}

/* Per-axis maps from output to input coordinates (-1: the fill value), then one walk over the output y
 * (rank 1 or more, not empty). */
static void
pad_copy (const FwArray *x, FwArray *y, const FwArray *fill, PadMode mode, const gint64 *all)
{
  g_autofree gint64 *maps = NULL;
  const gint64 *dims = y->dims;
  gint64 in_strides[FW_MAX_RANK], map_at[FW_MAX_RANK];
  gint64 coord[FW_MAX_RANK] = { 0 }, total = 0, off = 0, inner, j0, j1;
  gboolean outside[FW_MAX_RANK] = { FALSE };
  guint n_out_of = 0;
  gsize esize = fw_kt_esize (x);
  guint8 *dst;

  for (guint i = 0; i < x->rank; i++)
    {
      map_at[i] = total;
      total += dims[i];
    }
  maps = g_new (gint64, total);
  for (guint i = 0; i < x->rank; i++)
    for (gint64 o = 0; o < dims[i]; o++)
      maps[map_at[i] + o] = pad_source (mode, o, all[i], x->dims[i]);
  fw_kt_contiguous_strides (x->rank, x->dims, in_strides);
  inner = dims[x->rank - 1];
  dst = y->data;
  for (guint i = 0; i + 1 < x->rank; i++)
    {
      outside[i] = maps[map_at[i]] < 0;
      n_out_of += outside[i];
      if (!outside[i])
        off += maps[map_at[i]] * in_strides[i];
    }
  /* The inner axis's one run [j0, j1) of consecutive source elements, copied whole in a row inside the
     other axes: element by element, swin_t's window Pads (most of them padding nothing) took 4 ms a run. */
  {
    const gint64 *m = maps + map_at[x->rank - 1];

    for (j0 = 0; j0 < inner && m[j0] < 0; j0++)
      ;
    for (j1 = j0; j1 < inner && m[j1] == m[j0] + (j1 - j0); j1++)
      ;
  }
  for (gint64 o = 0; o < y->n_elements / inner; o++)
    {
      const gint64 *m = maps + map_at[x->rank - 1];

      for (gint64 j = 0; j < inner; j++)
        {
          const guint8 *src;

          if (n_out_of == 0 && j == j0 && j1 > j0)
            {
              memcpy (dst + j * (gint64) esize, (const guint8 *) x->data + (off + m[j]) * (gint64) esize,
                      (gsize) (j1 - j0) * esize);
              j = j1 - 1;
              continue;
            }
          src = n_out_of > 0 || m[j] < 0 ? (const guint8 *) fill->data
                                         : (const guint8 *) x->data + (off + m[j]) * (gint64) esize;
          fw_kt_copy_elem (dst + j * (gint64) esize, src, esize);
        }
      dst += inner * (gint64) esize;
      for (gint d = (gint) x->rank - 2; d >= 0; d--)
        {
          gint64 src_c;

          if (!outside[d])
            off -= maps[map_at[d] + coord[d]] * in_strides[d];
          coord[d]++;
          if (coord[d] >= dims[d])
            coord[d] = 0;
          src_c = maps[map_at[d] + coord[d]];
          n_out_of -= outside[d];
          outside[d] = src_c < 0;
          n_out_of += outside[d];
          if (!outside[d])
            off += src_c * in_strides[d];
          if (coord[d] != 0)
            break;
        }
    }
}

gboolean
fw_kernel_pad (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs, guint n_inputs,
               FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  const char *mode_s = fw_node_get_attr_string (node, "mode");
  PadMode mode = PAD_CONSTANT;
  FwArray *x;
  g_autoptr(FwArray) y = NULL;
  g_autoptr(FwArray) fill = NULL;
  gint64 all[2 * FW_MAX_RANK], dims[FW_MAX_RANK];

  if (!fw_kt_need_input (node, inputs, n_inputs, 0, error))
    return FALSE;
  x = inputs[0];
  if (!pad_mode (node, &mode, error) || !pad_amounts (node, inputs, n_inputs, x, all, error))
    return FALSE;
  for (guint i = 0; i < x->rank; i++)
    {
      gint64 lo = all[i], hi = all[i + x->rank];

      if (lo > FW_TENSOR_MAX_ELEMENTS || hi > FW_TENSOR_MAX_ELEMENTS || lo < -x->dims[i] || hi < -x->dims[i]
          || x->dims[i] + lo + hi < 0)
        return fw_kernel_fail (error, node, _("pads %" PRId64 ", %" PRId64
                                              " do not fit axis %u of %" PRId64), lo, hi, i, x->dims[i]);
      dims[i] = x->dims[i] + lo + hi;
      if (mode != PAD_CONSTANT && x->dims[i] == 0 && dims[i] > 0)
        return fw_kernel_fail (error, node, _("cannot pad the empty axis %u in mode “%s”"), i, mode_s);
    }

  fill = pad_fill (node, inputs, n_inputs, x, error);
  if (fill == NULL)
    return FALSE;
  y = fw_kt_new_array (node, x->dtype, x->rank, dims, error);
  if (y == NULL)
    return FALSE;
  if (y->n_elements == 0)
    {
      outputs[0] = g_steal_pointer (&y);
      return TRUE;
    }
  if (x->rank == 0)
    {
      memcpy (y->data, x->data, fw_kt_esize (x));
      outputs[0] = g_steal_pointer (&y);
      return TRUE;
    }
  pad_copy (x, y, fill, mode, all);
  outputs[0] = g_steal_pointer (&y);
  return TRUE;
}
