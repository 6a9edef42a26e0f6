/* fw-kernels-resize.c: Resize (opsets 10 to 19) and Upsample (7 to 9).
 *
 * Every mode is separable: an output coordinate along one axis reads a few taps of that axis with weights
 * (nearest 1, linear 2, cubic 4), as ONNX's reference interpolates axis by axis. Nearest moves bytes, so
 * integer data stays exact; linear and cubic run one pass per resized axis in double precision. */
#include "config.h"

#include <inttypes.h>

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-kernels-tensor-private.h"

typedef enum { MODE_NEAREST, MODE_LINEAR, MODE_CUBIC } Mode;

typedef enum {
  CT_HALF_PIXEL,
  CT_HALF_PIXEL_SYMMETRIC,
  CT_PYTORCH_HALF_PIXEL,
  CT_ALIGN_CORNERS,
  CT_ASYMMETRIC,
  CT_TF_HALF_PIXEL_FOR_NN,
  CT_TF_CROP_AND_RESIZE,
} CoordMode;

typedef enum {
  NN_ROUND_PREFER_FLOOR,
  NN_ROUND_PREFER_CEIL,
  NN_FLOOR,
  NN_CEIL,
  NN_SIMPLE,   /* Upsample and Resize-10, as ONNX Runtime: floor when enlarging, ceil when shrinking */
} NearestMode;

typedef struct
{
  Mode        mode;
  CoordMode   coord;
  NearestMode nearest;
  gdouble     cubic_a;
  gboolean    exclude_outside;
  gdouble     extrapolation;
} Params;

/* The taps of one axis: for output coordinate o, n_taps input indices and weights; outside[o] when the
 * coordinate falls outside the input (tf_crop_and_resize extrapolates there). */
typedef struct
{
  gint64   in;
  gint64   out;
  guint    n_taps;
  gint64  *idx;
  gdouble *w;
  gboolean *outside;
} AxisTaps;

static void
axis_taps_clear (AxisTaps *t)
{
  g_clear_pointer (&t->idx, g_free);
  g_clear_pointer (&t->w, g_free);
  g_clear_pointer (&t->outside, g_free);
}

static gboolean
parse_enum (const FwNode *node, const char *attr, const char *const *names, guint n_names, guint fallback,
            guint *out, GError **error)
{
  const char *s = fw_node_get_attr_string (node, attr);

  if (s == NULL)
    {
      *out = fallback;
      return TRUE;
    }
  for (guint i = 0; i < n_names; i++)
    if (strcmp (s, names[i]) == 0)
      {
        *out = i;
        return TRUE;
      }
  return fw_kernel_fail (error, node, _("attribute “%s” has the unknown value “%s”"), attr, s);
}

static gdouble
original_coordinate (const Params *p, gdouble x, gdouble scale, gint64 len_out, gint64 len_in, gdouble roi_start,
                     gdouble roi_end)
{
  switch (p->coord)
    {
    case CT_HALF_PIXEL:
      return (x + 0.5) / scale - 0.5;
    case CT_HALF_PIXEL_SYMMETRIC:
      {
        gdouble adjustment = (gdouble) len_out / (scale * (gdouble) len_in);
        gdouble center = (gdouble) len_in / 2.0;
        gdouble offset = center * (1.0 - adjustment);
        return offset + (x + 0.5) / scale - 0.5;
      }
    case CT_PYTORCH_HALF_PIXEL:
      return len_out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
    case CT_ALIGN_CORNERS:
      return len_out == 1 ? 0.0 : x * (gdouble) (len_in - 1) / (gdouble) (len_out - 1);
    case CT_ASYMMETRIC:
      return x / scale;
    case CT_TF_HALF_PIXEL_FOR_NN:
      return (x + 0.5) / scale;
    case CT_TF_CROP_AND_RESIZE:
    default:
      if (len_out > 1)
        return roi_start * (gdouble) (len_in - 1)
               + x * (roi_end - roi_start) * (gdouble) (len_in - 1) / (gdouble) (len_out - 1);
      return 0.5 * (roi_start + roi_end) * (gdouble) (len_in - 1);
    }
}

static gint64
nearest_index (NearestMode mode, gdouble x, gboolean shrinking)
{
  gdouble f = floor (x);

  switch (mode)
    {
    case NN_ROUND_PREFER_FLOOR:
      return (gint64) (x - f == 0.5 ? f : floor (x + 0.5));
    case NN_ROUND_PREFER_CEIL:
      return (gint64) (x - f == 0.5 ? f + 1 : floor (x + 0.5));
    case NN_FLOOR:
      return (gint64) f;
    case NN_CEIL:
      return (gint64) ceil (x);
    case NN_SIMPLE:
    default:
      return (gint64) (shrinking ? ceil (x) : f);
    }
}

static void
cubic_coeffs (gdouble r, gdouble a, gdouble *c)
{
  gdouble s = 1.0 - r;

  c[0] = ((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a;
  c[1] = ((a + 2) * r - (a + 3)) * r * r + 1;
  c[2] = ((a + 2) * s - (a + 3)) * s * s + 1;
  c[3] = ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a;
}

static void
build_taps (const Params *p, AxisTaps *t, gdouble scale, gdouble roi_start, gdouble roi_end)
{
  guint n = p->mode == MODE_NEAREST ? 1 : p->mode == MODE_LINEAR ? 2 : 4;
  gint64 last = t->in - 1;

  t->n_taps = n;
  t->idx = g_new (gint64, MAX (t->out * n, 1));
  t->w = g_new (gdouble, MAX (t->out * n, 1));
  t->outside = g_new0 (gboolean, MAX (t->out, 1));
  for (gint64 o = 0; o < t->out; o++)
    {
      gdouble x = original_coordinate (p, (gdouble) o, scale, t->out, t->in, roi_start, roi_end);
      gint64 *idx = t->idx + o * n;
      gdouble *w = t->w + o * n;

      if (p->coord == CT_TF_CROP_AND_RESIZE && (x < 0 || x > (gdouble) last))
        t->outside[o] = TRUE;
      if (!isfinite (x))
        x = 0;
      x = CLAMP (x, -4.0, (gdouble) t->in + 4.0);
      if (p->mode == MODE_NEAREST)
        {
          idx[0] = CLAMP (nearest_index (p->nearest, x, scale < 1.0), 0, last);
          w[0] = 1.0;
        }
      else if (p->mode == MODE_LINEAR)
        {
          gdouble f = floor (x), r = x - f;

          idx[0] = CLAMP ((gint64) f, 0, last);
          idx[1] = CLAMP ((gint64) f + 1, 0, last);
          w[0] = 1.0 - r;
          w[1] = r;
        }
      else
        {
          gdouble f = floor (x), c[4], sum = 0;

          cubic_coeffs (x - f, p->cubic_a, c);
          for (guint k = 0; k < 4; k++)
            {
              gint64 j = (gint64) f - 1 + k;

              if (p->exclude_outside && (j < 0 || j > last))
                c[k] = 0;
              sum += c[k];
              idx[k] = CLAMP (j, 0, last);
            }
          for (guint k = 0; k < 4; k++)
            w[k] = p->exclude_outside && sum != 0 ? c[k] / sum : c[k];
        }
    }
}

/* One linear or cubic pass along axis: src of dims (rank) → dst with dims[axis] = t->out. */
static void
interpolate_axis (const gdouble *src, gdouble *dst, guint rank, const gint64 *dims, guint axis, const AxisTaps *t)
{
  gint64 outer = 1, inner = 1;

  for (guint i = 0; i < axis; i++)
    outer *= dims[i];
  for (guint i = axis + 1; i < rank; i++)
    inner *= dims[i];
  for (gint64 o = 0; o < outer; o++)
    {
      const gdouble *s = src + o * t->in * inner;
      gdouble *d = dst + o * t->out * inner;

      for (gint64 q = 0; q < t->out; q++)
        {
          const gint64 *idx = t->idx + q * t->n_taps;
          const gdouble *w = t->w + q * t->n_taps;
          gdouble *row = d + q * inner;

          for (gint64 e = 0; e < inner; e++)
            row[e] = 0;
          for (guint k = 0; k < t->n_taps; k++)
            {
              const gdouble *srow = s + idx[k] * inner;
              gdouble wk = w[k];

              if (wk == 0)
                continue;
              for (gint64 e = 0; e < inner; e++)
                row[e] += wk * srow[e];
            }
        }
    }
}

static gboolean
read_floats (const FwNode *node, const FwArray *a, const char *what, gdouble **out, guint *n, GError **error)
{
  if (!fw_dtype_is_float (a->dtype))
    return fw_kernel_fail (error, node, _("%s must be floating point, not %s"), what, fw_dtype_name (a->dtype));
  if (a->rank > 1)
    return fw_kernel_fail (error, node, _("%s must be a 1-D tensor"), what);
  *n = (guint) a->n_elements;
  *out = g_new (gdouble, MAX (*n, 1));
  for (guint i = 0; i < *n; i++)
    (*out)[i] = fw_array_get_double (a, i);
  return TRUE;
}

static const char *const mode_names[] = { "nearest", "linear", "cubic", "bilinear" };

/* The attributes: mode, coordinate transformation and nearest rounding (fixed for Upsample and Resize-10),
 * the cubic coefficient, exclude_outside and the extrapolation value. */
static gboolean
read_params (const FwNode *node, const FwArray *x, gboolean legacy, Params *p, GError **error)
{
  static const char *const coords[] = { "half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                                        "align_corners", "asymmetric", "tf_half_pixel_for_nn",
                                        "tf_crop_and_resize" };
  static const char *const nearests[] = { "round_prefer_floor", "round_prefer_ceil", "floor", "ceil" };
  guint mode = 0, coord = 0, nearest = 0;

  if (fw_node_get_attr_int (node, "antialias", 0) != 0)
    return fw_kernel_fail (error, node, _("antialias is not supported"));
  if (!parse_enum (node, "mode", mode_names, G_N_ELEMENTS (mode_names), 0, &mode, error))
    return FALSE;
  p->mode = mode == 3 ? MODE_LINEAR : (Mode) mode;
  if (legacy)
    {
      if (p->mode == MODE_CUBIC)
        return fw_kernel_fail (error, node, _("mode “cubic” needs opset 11"));
      p->coord = CT_ASYMMETRIC;
      p->nearest = NN_SIMPLE;
    }
  else
    {
      if (!parse_enum (node, "coordinate_transformation_mode", coords, G_N_ELEMENTS (coords), CT_HALF_PIXEL,
                       &coord, error)
          || !parse_enum (node, "nearest_mode", nearests, G_N_ELEMENTS (nearests), NN_ROUND_PREFER_FLOOR,
                          &nearest, error))
        return FALSE;
      p->coord = (CoordMode) coord;
      p->nearest = (NearestMode) nearest;
    }
  p->cubic_a = fw_node_get_attr_float (node, "cubic_coeff_a", -0.75f);
  p->exclude_outside = fw_node_get_attr_int (node, "exclude_outside", 0) != 0;
  p->extrapolation = fw_node_get_attr_float (node, "extrapolation_value", 0.0f);
  if (p->mode != MODE_NEAREST && !fw_dtype_is_float (x->dtype) && !fw_dtype_is_integer (x->dtype))
    return fw_kernel_fail (error, node, _("mode “%s” cannot interpolate %s"), mode_names[mode],
                           fw_dtype_name (x->dtype));
  return TRUE;
}

/* The resized axes: the attribute axes (opset 18), each once, or all of them. */
static gboolean
read_axes (const FwNode *node, guint rank, guint *axes, guint *n_axes, GError **error)
{
  guint n_axes_attr = 0;
  const gint64 *axes_attr = fw_node_get_attr_ints (node, "axes", &n_axes_attr);

  if (axes_attr != NULL)
    {
      gboolean seen[FW_MAX_RANK] = { FALSE };

      if (n_axes_attr > rank)
        return fw_kernel_fail (error, node, _("too many axes"));
      for (guint k = 0; k < n_axes_attr; k++)
        {
          if (!fw_kernel_axis (node, axes_attr[k], rank, &axes[k], error))
            return FALSE;
          if (seen[axes[k]])
            return fw_kernel_fail (error, node, _("axis %u is listed twice"), axes[k]);
          seen[axes[k]] = TRUE;
        }
      *n_axes = n_axes_attr;
    }
  else
    {
      for (guint i = 0; i < rank; i++)
        axes[i] = i;
      *n_axes = rank;
    }
  return TRUE;
}

/* What the output size comes from: scales (the input, or Upsample-7/8's attribute), else sizes. */
typedef struct
{
  gdouble *scales;
  guint    n_scales;
  gint64  *sizes;
  guint    n_sizes;
} Target;

static void
target_clear (Target *t)
{
  g_clear_pointer (&t->scales, g_free);
  g_clear_pointer (&t->sizes, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Target, target_clear)

static gboolean
read_target (const FwNode *node, gboolean upsample, const FwArray *scales_in, const FwArray *sizes_in, Target *t,
             GError **error)
{
  if (scales_in != NULL && scales_in->n_elements > 0)
    {
      if (!read_floats (node, scales_in, _("scales"), &t->scales, &t->n_scales, error))
        return FALSE;
    }
  else if (upsample && fw_node_get_attr (node, "scales") != NULL)
    {
      guint n = 0;
      const float *f = fw_node_get_attr_floats (node, "scales", &n);

      if (f == NULL)
        return fw_kernel_fail (error, node, _("attribute “scales” must be a list of floats"));
      t->scales = g_new (gdouble, MAX (n, 1));
      for (guint k = 0; k < n; k++)
        t->scales[k] = f[k];
      t->n_scales = n;
    }
  if (t->scales == NULL && sizes_in != NULL && sizes_in->n_elements > 0)
    {
      t->sizes = fw_kt_read_ints (node, sizes_in, _("sizes"), &t->n_sizes, error);
      if (t->sizes == NULL)
        return FALSE;
    }
  if (t->scales == NULL && t->sizes == NULL)
    return fw_kernel_fail (error, node, _("either scales or sizes must be given"));
  return TRUE;
}

static gboolean
dims_from_scales (const FwNode *node, const FwArray *x, const guint *axes, guint n_axes, const Target *t,
                  gdouble *scale_of, gint64 *dims, GError **error)
{
  if (t->n_scales != n_axes)
    return fw_kernel_fail (error, node, _("%u scales for %u axes"), t->n_scales, n_axes);
  for (guint k = 0; k < n_axes; k++)
    {
      gdouble out;

      if (!(t->scales[k] > 0) || !isfinite (t->scales[k]))
        return fw_kernel_fail (error, node, _("scale %g must be positive"), t->scales[k]);
      out = floor ((gdouble) x->dims[axes[k]] * t->scales[k]);
      if (out > (gdouble) FW_TENSOR_MAX_ELEMENTS)
        return fw_kernel_fail (error, node, _("scale %g makes axis %u too large"), t->scales[k], axes[k]);
      scale_of[axes[k]] = t->scales[k];
      dims[axes[k]] = (gint64) out;
    }
  return TRUE;
}

static gboolean
dims_from_sizes (const FwNode *node, const FwArray *x, const guint *axes, guint n_axes, const Target *t,
                 gdouble *scale_of, gint64 *dims, GError **error)
{
  const char *policy = fw_node_get_attr_string (node, "keep_aspect_ratio_policy");
  const gint64 *sizes = t->sizes;
  gboolean larger;
  gdouble s;

  if (t->n_sizes != n_axes)
    return fw_kernel_fail (error, node, _("%u sizes for %u axes"), t->n_sizes, n_axes);
  for (guint k = 0; k < n_axes; k++)
    if (sizes[k] < 0 || sizes[k] > FW_TENSOR_MAX_ELEMENTS)
      return fw_kernel_fail (error, node, _("invalid size %" PRId64), sizes[k]);
  if (policy == NULL || strcmp (policy, "stretch") == 0)
    {
      for (guint k = 0; k < n_axes; k++)
        {
          gint64 in = x->dims[axes[k]];

          dims[axes[k]] = sizes[k];
          scale_of[axes[k]] = in > 0 ? (gdouble) sizes[k] / (gdouble) in : 1.0;
        }
      return TRUE;
    }
  larger = strcmp (policy, "not_smaller") == 0;
  s = larger ? 0.0 : G_MAXDOUBLE;
  if (!larger && strcmp (policy, "not_larger") != 0)
    return fw_kernel_fail (error, node, _("unknown keep_aspect_ratio_policy “%s”"), policy);
  /* One scale for every resized axis, so the aspect ratio holds. */
  for (guint k = 0; k < n_axes; k++)
    {
      gint64 in = x->dims[axes[k]];
      gdouble r = in > 0 ? (gdouble) sizes[k] / (gdouble) in : 1.0;

      s = larger ? MAX (s, r) : MIN (s, r);
    }
  if (n_axes == 0)
    s = 1.0;
  for (guint k = 0; k < n_axes; k++)
    {
      scale_of[axes[k]] = s;
      dims[axes[k]] = (gint64) floor ((gdouble) x->dims[axes[k]] * s + 0.5);
    }
  return TRUE;
}

/* tf_crop_and_resize's region: start and end per resized axis, or per axis of the input. */
static gboolean
read_roi (const FwNode *node, const FwArray *roi_in, guint rank, const guint *axes, guint n_axes, gdouble *roi_lo,
          gdouble *roi_hi, GError **error)
{
  g_autofree gdouble *roi = NULL;
  guint n_roi = 0;

  if (!read_floats (node, roi_in, _("roi"), &roi, &n_roi, error))
    return FALSE;
  if (n_roi == 2 * n_axes)
    for (guint k = 0; k < n_axes; k++)
      {
        roi_lo[axes[k]] = roi[k];
        roi_hi[axes[k]] = roi[k + n_axes];
      }
  else if (n_roi == 2 * rank)
    for (guint i = 0; i < rank; i++)
      {
        roi_lo[i] = roi[i];
        roi_hi[i] = roi[i + rank];
      }
  else
    return fw_kernel_fail (error, node, _("roi has %u values for %u axes"), n_roi, n_axes);
  return TRUE;
}

/* Nearest: every output element is one input element, copied as bytes. */
static void
resize_nearest (const FwArray *x, FwArray *y, const gint64 *dims, const AxisTaps *taps)
{
  gint64 in_strides[FW_MAX_RANK], coord_at[FW_MAX_RANK] = { 0 }, s = 1;
  gsize esize = fw_dtype_bits (x->dtype) / 8;
  guint8 *dst = y->data;

  for (gint i = (gint) x->rank - 1; i >= 0; i--)
    {
      in_strides[i] = s;
      s *= x->dims[i];
    }
  for (gint64 k = 0; k < y->n_elements; k++)
    {
      gint64 off = 0;

      for (guint i = 0; i < x->rank; i++)
        off += (taps[i].idx ? taps[i].idx[coord_at[i]] : coord_at[i]) * in_strides[i];
      memcpy (dst + k * (gint64) esize, (const guint8 *) x->data + off * (gint64) esize, esize);
      for (gint d = (gint) x->rank - 1; d >= 0; d--)
        {
          if (++coord_at[d] < dims[d])
            break;
          coord_at[d] = 0;
        }
    }
}

/* Linear and cubic: one pass per resized axis in double precision. */
static gboolean
resize_interpolated (const FwNode *node, const FwArray *x, FwArray *y, const gint64 *dims, const AxisTaps *taps,
                     GError **error)
{
  gint64 cur[FW_MAX_RANK];
  g_autofree gdouble *a = g_try_new (gdouble, MAX (x->n_elements, 1));
  g_autofree gdouble *b = NULL;

  if (a == NULL)
    return fw_kernel_fail (error, node, _("out of memory for the interpolation"));
  for (gint64 k = 0; k < x->n_elements; k++)
    a[k] = fw_array_get_double (x, k);
  memcpy (cur, x->dims, x->rank * sizeof (gint64));
  for (guint i = 0; i < x->rank; i++)
    {
      gint64 n_next;

      if (taps[i].idx == NULL)
        continue;
      n_next = 1;
      for (guint j = 0; j < x->rank; j++)
        n_next *= j == i ? dims[i] : cur[j];
      g_free (b);
      b = g_try_new (gdouble, MAX (n_next, 1));
      if (b == NULL)
        return fw_kernel_fail (error, node, _("out of memory for the interpolation"));
      interpolate_axis (a, b, x->rank, cur, i, &taps[i]);
      cur[i] = dims[i];
      g_free (a);
      a = g_steal_pointer (&b);
    }
  for (gint64 k = 0; k < y->n_elements; k++)
    fw_array_set_double (y, k, a[k]);
  return TRUE;
}

/* tf_crop_and_resize: outputs whose coordinate falls outside the input on any axis take the value. */
static void
extrapolate (FwArray *y, guint rank, const gint64 *dims, const AxisTaps *taps, gdouble value)
{
  gint64 coord_at[FW_MAX_RANK] = { 0 };

  for (gint64 k = 0; k < y->n_elements; k++)
    {
      gboolean outside = FALSE;

      for (guint i = 0; i < rank && !outside; i++)
        outside = taps[i].outside != NULL && taps[i].outside[coord_at[i]];
      if (outside)
        fw_array_set_double (y, k, value);
      for (gint d = (gint) rank - 1; d >= 0; d--)
        {
          if (++coord_at[d] < dims[d])
            break;
          coord_at[d] = 0;
        }
    }
}

gboolean
fw_kernel_resize (FwExecContext *ctx G_GNUC_UNUSED, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                  FwArray **outputs, guint n_outputs G_GNUC_UNUSED, GError **error)
{
  gboolean upsample = strcmp (node->op_type, "Upsample") == 0;
  gboolean legacy = upsample || node->opset == 10;
  FwArray *x, *roi_in = NULL, *scales_in = NULL, *sizes_in = NULL;
  Params p = { 0 };
  guint n_axes = 0, axes[FW_MAX_RANK];
  g_auto(Target) target = { 0 };
  gdouble scale_of[FW_MAX_RANK], roi_lo[FW_MAX_RANK], roi_hi[FW_MAX_RANK];
  gint64 dims[FW_MAX_RANK];
  AxisTaps taps[FW_MAX_RANK];
  g_autoptr(FwArray) y = NULL;
  gboolean ok = TRUE, any_outside = FALSE;

  if (n_inputs < 1 || inputs[0] == NULL)
    return fw_kernel_fail (error, node, _("input 0 is required"));
  x = inputs[0];
  if (!read_params (node, x, legacy, &p, error))
    return FALSE;

  /* Inputs: Upsample-7/8 attribute scales, Upsample-9 and Resize-10 (X, scales), Resize-11+ (X, roi,
   * scales, sizes). */
  if (legacy)
    scales_in = n_inputs > 1 ? inputs[1] : NULL;
  else
    {
      roi_in = n_inputs > 1 ? inputs[1] : NULL;
      scales_in = n_inputs > 2 ? inputs[2] : NULL;
      sizes_in = n_inputs > 3 ? inputs[3] : NULL;
    }
  if (!read_axes (node, x->rank, axes, &n_axes, error)
      || !read_target (node, upsample, scales_in, sizes_in, &target, error))
    return FALSE;

  for (guint i = 0; i < x->rank; i++)
    {
      scale_of[i] = 1.0;
      roi_lo[i] = 0.0;
      roi_hi[i] = 1.0;
      dims[i] = x->dims[i];
    }
  if (target.scales != NULL
      ? !dims_from_scales (node, x, axes, n_axes, &target, scale_of, dims, error)
      : !dims_from_sizes (node, x, axes, n_axes, &target, scale_of, dims, error))
    return FALSE;
  if (p.coord == CT_TF_CROP_AND_RESIZE && roi_in != NULL && roi_in->n_elements > 0
      && !read_roi (node, roi_in, x->rank, axes, n_axes, roi_lo, roi_hi, error))
    return FALSE;

  y = fw_kt_new_array (node, x->dtype, x->rank, dims, error);
  if (y == NULL)
    return FALSE;
  for (guint i = 0; i < x->rank; i++)
    {
      if (x->dims[i] == 0 && dims[i] > 0)
        return fw_kernel_fail (error, node, _("cannot resize the empty axis %u"), i);
    }
  if (y->n_elements == 0)
    {
      outputs[0] = g_steal_pointer (&y);
      return TRUE;
    }

  memset (taps, 0, sizeof (AxisTaps) * x->rank);
  for (guint i = 0; i < x->rank; i++)
    {
      taps[i].in = x->dims[i];
      taps[i].out = dims[i];
      if (dims[i] == x->dims[i] && scale_of[i] == 1.0 && p.coord != CT_TF_CROP_AND_RESIZE)
        continue;
      build_taps (&p, &taps[i], scale_of[i], roi_lo[i], roi_hi[i]);
      for (gint64 o = 0; o < dims[i]; o++)
        any_outside = any_outside || taps[i].outside[o];
    }

  if (p.mode == MODE_NEAREST)
    resize_nearest (x, y, dims, taps);
  else
    ok = resize_interpolated (node, x, y, dims, taps, error);
  if (ok && any_outside)
    extrapolate (y, x->rank, dims, taps, p.extrapolation);
  if (ok)
    outputs[0] = g_steal_pointer (&y);
  for (guint i = 0; i < x->rank; i++)
    axis_taps_clear (&taps[i]);
  return ok;
}
