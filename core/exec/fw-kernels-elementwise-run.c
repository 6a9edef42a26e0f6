/* fw-kernels-elementwise-run.c: how an elementwise op runs once its per-type loops exist: contiguous
 * data split across threads, broadcasts through one walker (size-1 axes dropped, contiguous axes merged),
 * float16 and bfloat16 through the float32 loops in stack blocks, the Cast table between every pair of
 * types, and the checks and output allocation every kernel shares. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-exec.h"
#include "fw-kernels-elementwise-private.h"

/* ---- 16-bit floats ---- */

void
fw_ew_half_load (float *dst, const guint16 *src, gint64 n, FwDType kind)
{
  if (kind == FW_DTYPE_FLOAT16)
    for (gint64 i = 0; i < n; i++)
      dst[i] = fw_half_to_float (src[i]);
  else
    for (gint64 i = 0; i < n; i++)
      dst[i] = fw_bfloat16_to_float (src[i]);
}

void
fw_ew_half_store (guint16 *dst, const float *src, gint64 n, FwDType kind)
{
  if (kind == FW_DTYPE_FLOAT16)
    for (gint64 i = 0; i < n; i++)
      dst[i] = fw_float_to_half (src[i]);
  else
    for (gint64 i = 0; i < n; i++)
      dst[i] = fw_float_to_bfloat16 (src[i]);
}

static void
half_unary (const void *in, void *out, gint64 n, const Params *p)
{
  float x[HALF_BLOCK], y[HALF_BLOCK];
  const guint16 *a = in;

  for (gint64 off = 0; off < n; off += HALF_BLOCK)
    {
      gint64 m = MIN (HALF_BLOCK, n - off);

      fw_ew_half_load (x, a + off, m, p->half);
      p->f32_unary (x, y, m, p);
      if (p->bool_out)
        memcpy ((guint8 *) out + off, y, m);
      else
        fw_ew_half_store ((guint16 *) out + off, y, m, p->half);
    }
}

static void
half_row (const void *const *in, const gint64 *st, void *out, gint64 n, const Params *p)
{
  float xa[HALF_BLOCK], xb[HALF_BLOCK], y[HALF_BLOCK];
  const guint16 *a = in[0], *b = in[1];
  const void *fin[2] = { xa, xb };

  for (gint64 off = 0; off < n; off += HALF_BLOCK)
    {
      gint64 m = MIN (HALF_BLOCK, n - off);

      fw_ew_half_load (xa, a + off * st[0], st[0] ? m : 1, p->half);
      fw_ew_half_load (xb, b + off * st[1], st[1] ? m : 1, p->half);
      p->f32_row (fin, st, y, m, p);
      if (p->bool_out)
        memcpy ((guint8 *) out + off, y, m);
      else
        fw_ew_half_store ((guint16 *) out + off, y, m, p->half);
    }
}

/* ---- loop drivers ---- */

static void
run_flat (FwExecContext *ctx, UnaryFn fn, const void *in, gsize in_size, void *out, gsize out_size, gint64 n,
          const Params *p)
{
  gint64 n_blocks = fw_host_loop_threads (n, fw_exec_context_get_n_threads (ctx));

#pragma omp parallel for if (n_blocks > 1) num_threads ((int) n_blocks)
  for (gint64 b = 0; b < n_blocks; b++)
    {
      gint64 start = n * b / n_blocks, end = n * (b + 1) / n_blocks;

      if (end > start)
        fn ((const guint8 *) in + start * in_size, (guint8 *) out + start * out_size, end - start, p);
    }
}

void
fw_ew_walk_init (Walk *w, guint n_in, FwArray *const *in, guint out_rank, const gint64 *out_dims, gsize out_size)
{
  gint64 st[MAX_WALK_INPUTS][FW_MAX_RANK];

  w->n_in = n_in;
  w->out_size = out_size;
  for (guint k = 0; k < n_in; k++)
    {
      fw_kernel_broadcast_strides (in[k]->rank, in[k]->dims, out_rank, out_dims, st[k]);
      w->in_size[k] = fw_dtype_bits (in[k]->dtype) / 8;
    }
  w->rank = 0;
  for (guint d = 0; d < out_rank; d++)
    {
      gboolean merge = w->rank > 0;

      if (out_dims[d] == 1)
        continue;
      for (guint k = 0; k < n_in && merge; k++)
        if (w->st[k][w->rank - 1] != st[k][d] * out_dims[d])
          merge = FALSE;
      if (merge)
        {
          w->dims[w->rank - 1] *= out_dims[d];
          for (guint k = 0; k < n_in; k++)
            w->st[k][w->rank - 1] = st[k][d];
        }
      else
        {
          w->dims[w->rank] = out_dims[d];
          for (guint k = 0; k < n_in; k++)
            w->st[k][w->rank] = st[k][d];
          w->rank++;
        }
    }
  if (w->rank == 0)
    {
      w->rank = 1;
      w->dims[0] = 1;
      for (guint k = 0; k < n_in; k++)
        w->st[k][0] = 0;
    }
}

void
fw_ew_walk_run (FwExecContext *ctx, const Walk *w, const void *const *in, void *out, RowFn fn, const Params *p)
{
  gint n_threads = (gint) fw_exec_context_get_n_threads (ctx);
  guint outer = w->rank - 1;
  gint64 len = w->dims[outer], n_rows = 1, n_seg, n_units, n_blocks, total;

  for (guint d = 0; d < outer; d++)
    n_rows *= w->dims[d];
  total = n_rows * len;
  if (total == 0)
    return;
  n_seg = (len + SEGMENT - 1) / SEGMENT;
  n_units = n_rows * n_seg;
  n_blocks = MIN (n_units, (gint64) fw_host_loop_threads (total, (guint) n_threads));

#pragma omp parallel for if (n_blocks > 1) num_threads ((int) n_blocks)
  for (gint64 b = 0; b < n_blocks; b++)
    {
      gint64 u = n_units * b / n_blocks, u_end = n_units * (b + 1) / n_blocks;
      gint64 row = u / n_seg, seg = u % n_seg, rem = row;
      gint64 idx[FW_MAX_RANK], off[MAX_WALK_INPUTS] = { 0 }, ist[MAX_WALK_INPUTS];
      const void *ptr[MAX_WALK_INPUTS];

      /* One division per axis for the block's first row; a counter after that. */
      for (gint d = (gint) outer - 1; d >= 0; d--)
        {
          idx[d] = rem % w->dims[d];
          rem /= w->dims[d];
          for (guint k = 0; k < w->n_in; k++)
            off[k] += idx[d] * w->st[k][d];
        }
      for (guint k = 0; k < w->n_in; k++)
        ist[k] = w->st[k][outer];
      for (; u < u_end; u++)
        {
          gint64 j0 = seg * SEGMENT, m = MIN (SEGMENT, len - j0);

          for (guint k = 0; k < w->n_in; k++)
            ptr[k] = (const guint8 *) in[k] + (off[k] + j0 * ist[k]) * (gint64) w->in_size[k];
          fn (ptr, ist, (guint8 *) out + (row * len + j0) * (gint64) w->out_size, m, p);
          if (++seg < n_seg)
            continue;
          seg = 0;
          row++;
          for (gint d = (gint) outer - 1; d >= 0; d--)
            {
              idx[d]++;
              for (guint k = 0; k < w->n_in; k++)
                off[k] += w->st[k][d];
              if (idx[d] < w->dims[d])
                break;
              for (guint k = 0; k < w->n_in; k++)
                off[k] -= w->st[k][d] * w->dims[d];
              idx[d] = 0;
            }
        }
    }
}

/* ---- Cast ---- */

/* X (suffix, C type, kind): F float, I integer, L uint64, B bool */
#define CAST_TYPES_A(X) \
  X (f32, float, F) X (f64, double, F) X (i8, gint8, I) X (i16, gint16, I) X (i32, gint32, I) \
  X (i64, gint64, I) X (u8, guint8, I) X (u16, guint16, I) X (u32, guint32, I) X (u64, guint64, L) \
  X (b, guint8, B)
#define CAST_TYPES_B(X, s, ST, SK) \
  X (s, ST, SK, f32, float, F) X (s, ST, SK, f64, double, F) X (s, ST, SK, i8, gint8, I) \
  X (s, ST, SK, i16, gint16, I) X (s, ST, SK, i32, gint32, I) X (s, ST, SK, i64, gint64, I) \
  X (s, ST, SK, u8, guint8, I) X (s, ST, SK, u16, guint16, I) X (s, ST, SK, u32, guint32, I) \
  X (s, ST, SK, u64, guint64, L) X (s, ST, SK, b, guint8, B)

#define CONV_F_F(DT, v) ((DT) (v))
#define CONV_F_I(DT, v) ((DT) fw_ew_f2i64 ((double) (v)))
#define CONV_F_L(DT, v) ((DT) fw_ew_f2u64 ((double) (v)))
#define CONV_F_B(DT, v) ((DT) ((v) != 0))
#define CONV_I_F(DT, v) ((DT) (v))
#define CONV_I_I(DT, v) ((DT) (v))
#define CONV_I_L(DT, v) ((DT) (v))
#define CONV_I_B(DT, v) ((DT) ((v) != 0))
#define CONV_L_F CONV_I_F
#define CONV_L_I CONV_I_I
#define CONV_L_L CONV_I_L
#define CONV_L_B CONV_I_B
#define CONV_B_F(DT, v) ((DT) ((v) != 0))
#define CONV_B_I CONV_B_F
#define CONV_B_L CONV_B_F
#define CONV_B_B CONV_B_F

#define DEF_CAST_PAIR(s, ST, SK, d, DT, DK) \
  static void \
  cast_##s##_##d (const void *in, void *out, gint64 n, const Params *P) \
  { \
    const ST *a = in; \
    DT *o = out; \
    (void) P; \
    _Pragma ("omp simd") \
    for (gint64 i = 0; i < n; i++) \
      o[i] = CONV_##SK##_##DK (DT, a[i]); \
  }
#define DEF_CAST_ROW(s, ST, SK) CAST_TYPES_B (DEF_CAST_PAIR, s, ST, SK)
CAST_TYPES_A (DEF_CAST_ROW)

#define CAST_PAIR_ENTRY(s, ST, SK, d, DT, DK) cast_##s##_##d,
#define CAST_ROW_ENTRY(s, ST, SK) { CAST_TYPES_B (CAST_PAIR_ENTRY, s, ST, SK) },
static const UnaryFn cast_fns[][11] = { CAST_TYPES_A (CAST_ROW_ENTRY) };

/* The row or column of cast_fns for a dtype, or -1. */
static gint
cast_index (FwDType dtype)
{
  switch (dtype)
    {
    case FW_DTYPE_FLOAT: return 0;
    case FW_DTYPE_DOUBLE: return 1;
    case FW_DTYPE_INT8: return 2;
    case FW_DTYPE_INT16: return 3;
    case FW_DTYPE_INT32: return 4;
    case FW_DTYPE_INT64: return 5;
    case FW_DTYPE_UINT8: return 6;
    case FW_DTYPE_UINT16: return 7;
    case FW_DTYPE_UINT32: return 8;
    case FW_DTYPE_UINT64: return 9;
    case FW_DTYPE_BOOL: return 10;
    default: return -1;
    }
}

gboolean
fw_ew_cast_supported (FwDType dtype)
{
  return cast_index (dtype) >= 0 || fw_ew_is_half (dtype);
}

/* n elements of src (sd) into dst (dd); both types cast_supported. 16-bit floats go through float32. */
static void
cast_block (const void *src, FwDType sd, void *dst, FwDType dd, gint64 n)
{
  float buf[HALF_BLOCK];

  if (sd == dd)
    {
      memcpy (dst, src, n * (fw_dtype_bits (sd) / 8));
      return;
    }
  if (!fw_ew_is_half (sd) && !fw_ew_is_half (dd))
    {
      cast_fns[cast_index (sd)][cast_index (dd)] (src, dst, n, NULL);
      return;
    }
  for (gint64 off = 0; off < n; off += HALF_BLOCK)
    {
      gint64 m = MIN (HALF_BLOCK, n - off);

      if (fw_ew_is_half (sd))
        fw_ew_half_load (buf, (const guint16 *) src + off, m, sd);
      else
        cast_fns[cast_index (sd)][0] ((const guint8 *) src + off * (fw_dtype_bits (sd) / 8), buf, m, NULL);
      if (fw_ew_is_half (dd))
        fw_ew_half_store ((guint16 *) dst + off, buf, m, dd);
      else
        cast_fns[0][cast_index (dd)] (buf, (guint8 *) dst + off * (fw_dtype_bits (dd) / 8), m, NULL);
    }
}

static void
cast_data (FwExecContext *ctx, const void *src, FwDType sd, void *dst, FwDType dd, gint64 n)
{
  gint64 n_blocks = fw_host_loop_threads (n, fw_exec_context_get_n_threads (ctx));
  gsize ss = fw_dtype_bits (sd) / 8, ds = fw_dtype_bits (dd) / 8;

#pragma omp parallel for if (n_blocks > 1) num_threads ((int) n_blocks)
  for (gint64 b = 0; b < n_blocks; b++)
    {
      gint64 start = n * b / n_blocks, end = n * (b + 1) / n_blocks;

      if (end > start)
        cast_block ((const guint8 *) src + start * ss, sd, (guint8 *) dst + start * ds, dd, end - start);
    }
}

/* ---- shared kernel plumbing ---- */

FwArray *
fw_ew_new_output (const FwNode *node, FwDType dtype, guint rank, const gint64 *dims, GError **error)
{
  FwArray *out = fw_array_new (dtype, rank, dims, error);

  if (out == NULL)
    g_prefix_error (error, _("node “%s” (%s): "), node->name ? node->name : "", node->op_type);
  return out;
}

gboolean
fw_ew_need_inputs (const FwNode *node, FwArray *const *inputs, guint n_inputs, guint n_required, guint n_outputs,
                   GError **error)
{
  if (n_outputs < 1)
    return fw_kernel_fail (error, node, _("the node has no output"));
  if (n_inputs < n_required)
    return fw_kernel_fail (error, node, _("%u inputs are needed, %u given"), n_required, n_inputs);
  for (guint i = 0; i < n_required; i++)
    if (inputs[i] == NULL)
      return fw_kernel_fail (error, node, _("input %u is missing"), i);
  return TRUE;
}

gboolean
fw_ew_unsupported_type (GError **error, const FwNode *node, FwDType dtype)
{
  return fw_kernel_fail (error, node, _("inputs of type %s are not supported"), fw_dtype_name (dtype));
}

FwArray *
fw_ew_cast_array (FwExecContext *ctx, const FwNode *node, FwArray *x, FwDType dtype, GError **error)
{
  FwArray *out;

  if (!fw_ew_cast_supported (x->dtype) || !fw_ew_cast_supported (dtype))
    {
      fw_kernel_fail (error, node, _("cannot convert %s to %s"), fw_dtype_name (x->dtype), fw_dtype_name (dtype));
      return NULL;
    }
  if (x->dtype == dtype)
    return fw_array_ref (x);
  out = fw_ew_new_output (node, dtype, x->rank, x->dims, error);
  if (out != NULL)
    cast_data (ctx, x->data, x->dtype, out->data, dtype, x->n_elements);
  return out;
}

FwArray *
fw_ew_run_unary (FwExecContext *ctx, const FwNode *node, FwArray *x, const UnaryOp *op, const Params *p, GError **error)
{
  Params local = *p;
  UnaryFn fn = op->fn[x->dtype];
  FwDType out_dtype = op->bool_out ? FW_DTYPE_BOOL : x->dtype;
  FwArray *out;

  if (fn == NULL && fw_ew_is_half (x->dtype) && op->fn[FW_DTYPE_FLOAT] != NULL)
    {
      local.half = x->dtype;
      local.bool_out = op->bool_out;
      local.f32_unary = op->fn[FW_DTYPE_FLOAT];
      fn = half_unary;
    }
  if (fn == NULL)
    {
      fw_ew_unsupported_type (error, node, x->dtype);
      return NULL;
    }
  out = fw_ew_new_output (node, out_dtype, x->rank, x->dims, error);
  if (out != NULL)
    run_flat (ctx, fn, x->data, fw_dtype_bits (x->dtype) / 8, out->data, fw_dtype_bits (out_dtype) / 8,
              x->n_elements, &local);
  return out;
}

FwArray *
fw_ew_run_binary (FwExecContext *ctx, const FwNode *node, FwArray *a, FwArray *b, const BinaryOp *op, const Params *p,
                  GError **error)
{
  Params local = *p;
  RowFn fn = op->fn[a->dtype];
  FwDType out_dtype = op->bool_out ? FW_DTYPE_BOOL : a->dtype;
  gint64 dims[FW_MAX_RANK];
  guint rank;
  FwArray *out;
  FwArray *ins[2] = { a, b };
  const void *data[2] = { a->data, b->data };
  Walk w;

  if (a->dtype != b->dtype)
    {
      fw_kernel_fail (error, node, _("the inputs have different types, %s and %s"), fw_dtype_name (a->dtype),
                      fw_dtype_name (b->dtype));
      return NULL;
    }
  if (fn == NULL && fw_ew_is_half (a->dtype) && op->fn[FW_DTYPE_FLOAT] != NULL)
    {
      local.half = a->dtype;
      local.bool_out = op->bool_out;
      local.f32_row = op->fn[FW_DTYPE_FLOAT];
      fn = half_row;
    }
  if (fn == NULL)
    {
      fw_ew_unsupported_type (error, node, a->dtype);
      return NULL;
    }
  if (!fw_kernel_broadcast_dims (node, a->rank, a->dims, b->rank, b->dims, &rank, dims, error))
    return NULL;
  out = fw_ew_new_output (node, out_dtype, rank, dims, error);
  if (out == NULL)
    return NULL;
  fw_ew_walk_init (&w, 2, ins, rank, dims, fw_dtype_bits (out_dtype) / 8);
  fw_ew_walk_run (ctx, &w, data, out->data, fn, &local);
  return out;
}

gboolean
fw_ew_unary_kernel (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs, FwArray **outputs,
                    guint n_outputs, const UnaryOp *op, const Params *p, GError **error)
{
  if (!fw_ew_need_inputs (node, inputs, n_inputs, 1, n_outputs, error))
    return FALSE;
  outputs[0] = fw_ew_run_unary (ctx, node, inputs[0], op, p, error);
  return outputs[0] != NULL;
}

gboolean
fw_ew_binary_kernel (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs, FwArray **outputs,
                     guint n_outputs, const BinaryOp *op, const Params *p, GError **error)
{
  if (!fw_ew_need_inputs (node, inputs, n_inputs, 2, n_outputs, error))
    return FALSE;
  outputs[0] = fw_ew_run_binary (ctx, node, inputs[0], inputs[1], op, p, error);
  return outputs[0] != NULL;
}
