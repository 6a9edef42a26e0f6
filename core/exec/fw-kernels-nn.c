/* fw-kernels-nn.c: the compute family's table and shared helpers; MatMul, Gemm, MatMulInteger and Einsum;
 * softmax and the normalisations. Convolution and pooling live in fw-kernels-conv.c, reductions, CumSum
 * and TopK in fw-kernels-reduce.c. */
#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "hw/fw-blas.h"
#include "fw-kernels-nn-private.h"

typedef enum { SOFTMAX_SOFT, SOFTMAX_LOG, SOFTMAX_HARD } SoftmaxKind;

#define FW_LOOPS "fw-kernels-nn-loops.h"
#include "fw-kernels-blas-types.h"

/* ---- helpers ---- */

gboolean
fw_nn_mul (gint64 a, gint64 b, gint64 *out)
{
  if (a < 0 || b < 0 || (a != 0 && b > G_MAXINT64 / a) || a * b > FW_TENSOR_MAX_ELEMENTS)
    return FALSE;
  *out = a * b;
  return TRUE;
}

gboolean
fw_nn_size (const FwNode *node, guint n, const gint64 *dims, gint64 *out, GError **error)
{
  gint64 p = 1;

  for (guint i = 0; i < n; i++)
    if (!fw_nn_mul (p, dims[i], &p))
      return fw_kernel_fail (error, node, _("the result would have too many elements"));
  *out = p;
  return TRUE;
}

gboolean
fw_nn_is_float (FwDType dtype)
{
  return dtype == FW_DTYPE_FLOAT || dtype == FW_DTYPE_FLOAT16 || dtype == FW_DTYPE_DOUBLE
         || dtype == FW_DTYPE_BFLOAT16;
}

gboolean
fw_nn_is_int (FwDType dtype)
{
  switch (dtype)
    {
    case FW_DTYPE_INT8: case FW_DTYPE_UINT8: case FW_DTYPE_INT16: case FW_DTYPE_UINT16:
    case FW_DTYPE_INT32: case FW_DTYPE_UINT32: case FW_DTYPE_INT64: case FW_DTYPE_UINT64:
      return TRUE;
    default:
      return FALSE;
    }
}

gpointer
fw_nn_alloc (const FwNode *node, gint64 n, gsize size, GError **error)
{
  gpointer p;

  if (n < 0 || (guint64) n > G_MAXSIZE / size || (p = g_try_malloc (MAX ((gsize) n * size, 1))) == NULL)
    {
      fw_kernel_fail (error, node, _("cannot allocate %" PRId64 " scratch elements"), n);
      return NULL;
    }
  return p;
}

guint
fw_nn_threads (FwExecContext *ctx, gint64 work)
{
  return fw_host_loop_threads (work, fw_exec_context_get_n_threads (ctx));
}

FwArray *
fw_nn_to_work (const FwNode *node, FwArray *array, GError **error)
{
  FwArray *out;

  if (array->dtype == FW_DTYPE_FLOAT || array->dtype == FW_DTYPE_DOUBLE)
    return fw_array_ref (array);
  if (array->dtype != FW_DTYPE_FLOAT16 && array->dtype != FW_DTYPE_BFLOAT16)
    {
      fw_kernel_fail (error, node, _("dtype %s is not supported"), fw_dtype_name (array->dtype));
      return NULL;
    }
  out = fw_array_new (FW_DTYPE_FLOAT, array->rank, array->dims, error);
  if (out == NULL)
    return NULL;
  if (array->dtype == FW_DTYPE_FLOAT16)
    for (gint64 i = 0; i < array->n_elements; i++)
      ((float *) out->data)[i] = fw_half_to_float (((const guint16 *) array->data)[i]);
  else
    for (gint64 i = 0; i < array->n_elements; i++)
      ((float *) out->data)[i] = fw_bfloat16_to_float (((const guint16 *) array->data)[i]);
  return out;
}

FwArray *
fw_nn_from_work (FwArray *work, FwDType dtype, GError **error)
{
  FwArray *out;

  if (work->dtype == dtype)
    return fw_array_ref (work);
  out = fw_array_new (dtype, work->rank, work->dims, error);
  if (out == NULL)
    return NULL;
  if (dtype == FW_DTYPE_FLOAT16 && work->dtype == FW_DTYPE_FLOAT)
    for (gint64 i = 0; i < work->n_elements; i++)
      ((guint16 *) out->data)[i] = fw_float_to_half (((const float *) work->data)[i]);
  else
    for (gint64 i = 0; i < work->n_elements; i++)
      fw_array_set_double (out, i, fw_array_get_double (work, i));
  return out;
}

FwArray *
fw_nn_to_int64 (const FwNode *node, FwArray *array, GError **error)
{
  FwArray *out;

  if (array->dtype == FW_DTYPE_INT64)
    return fw_array_ref (array);
  if (!fw_nn_is_int (array->dtype))
    {
      fw_kernel_fail (error, node, _("dtype %s is not supported"), fw_dtype_name (array->dtype));
      return NULL;
    }
  out = fw_array_new (FW_DTYPE_INT64, array->rank, array->dims, error);
  for (gint64 i = 0; out != NULL && i < array->n_elements; i++)
    ((gint64 *) out->data)[i] = fw_array_get_int64 (array, i);
  return out;
}

FwArray *
fw_nn_from_int64 (FwArray *work, FwDType dtype, GError **error)
{
  FwArray *out;
  const gint64 *s = work->data;

  if (dtype == FW_DTYPE_INT64)
    return fw_array_ref (work);
  out = fw_array_new (dtype, work->rank, work->dims, error);
  if (out == NULL)
    return NULL;
  for (gint64 i = 0; i < work->n_elements; i++)
    switch (dtype)
      {
      case FW_DTYPE_INT8: ((gint8 *) out->data)[i] = (gint8) (guint8) s[i]; break;
      case FW_DTYPE_UINT8: ((guint8 *) out->data)[i] = (guint8) s[i]; break;
      case FW_DTYPE_INT16: ((gint16 *) out->data)[i] = (gint16) (guint16) s[i]; break;
      case FW_DTYPE_UINT16: ((guint16 *) out->data)[i] = (guint16) s[i]; break;
      case FW_DTYPE_INT32: ((gint32 *) out->data)[i] = (gint32) (guint32) s[i]; break;
      case FW_DTYPE_UINT32: ((guint32 *) out->data)[i] = (guint32) s[i]; break;
      case FW_DTYPE_UINT64: ((guint64 *) out->data)[i] = (guint64) s[i]; break;
      default: fw_array_set_double (out, i, (double) s[i]); break;
      }
  return out;
}

/* Any numeric array as doubles, for the rarer ops that compute in double whatever the input. */
static FwArray *
to_double (const FwNode *node, FwArray *a, GError **error)
{
  FwArray *out;

  if (!fw_nn_is_float (a->dtype) && !fw_nn_is_int (a->dtype))
    {
      fw_kernel_fail (error, node, _("dtype %s is not supported"), fw_dtype_name (a->dtype));
      return NULL;
    }
  if (a->dtype == FW_DTYPE_DOUBLE)
    return fw_array_ref (a);
  out = fw_array_new (FW_DTYPE_DOUBLE, a->rank, a->dims, error);
  for (gint64 i = 0; out != NULL && i < a->n_elements; i++)
    ((double *) out->data)[i] = fw_array_get_double (a, i);
  return out;
}

static gboolean
require_float (const FwNode *node, const FwArray *x, GError **error)
{
  if (!fw_nn_is_float (x->dtype))
    return fw_kernel_fail (error, node, _("dtype %s is not supported"), fw_dtype_name (x->dtype));
  return TRUE;
}

/* ---- MatMul, MatMulInteger, Gemm ---- */

typedef struct
{
  gint64  m, k, n, n_batch;
  guint   out_rank;
  gint64  out_dims[FW_MAX_RANK];
  gint64 *a_off, *b_off;   /* element offset of each batch entry's matrix */
  gboolean fold;
} MatMulShape;

static void
matmul_shape_clear (MatMulShape *s)
{
  g_clear_pointer (&s->a_off, g_free);
  g_clear_pointer (&s->b_off, g_free);
}

static gboolean
matmul_shape (const FwNode *node, const FwArray *a, const FwArray *b, MatMulShape *s, GError **error)
{
  guint ra, rb, batch_rank = 0;
  gint64 batch_dims[FW_MAX_RANK], sa[FW_MAX_RANK], sb[FW_MAX_RANK], count;
  gboolean a_full = TRUE;

  memset (s, 0, sizeof *s);
  if (a->rank == 0 || b->rank == 0)
    return fw_kernel_fail (error, node, _("MatMul inputs must have rank 1 or more"));
  s->m = a->rank == 1 ? 1 : a->dims[a->rank - 2];
  s->k = a->dims[a->rank - 1];
  s->n = b->rank == 1 ? 1 : b->dims[b->rank - 1];
  if ((b->rank == 1 ? b->dims[0] : b->dims[b->rank - 2]) != s->k)
    {
      g_autofree char *sa_text = fw_array_format_shape (a);
      g_autofree char *sb_text = fw_array_format_shape (b);
      return fw_kernel_fail (error, node, _("inner dimensions of %s and %s differ"), sa_text, sb_text);
    }
  ra = a->rank > 2 ? a->rank - 2 : 0;
  rb = b->rank > 2 ? b->rank - 2 : 0;
  if (!fw_kernel_broadcast_dims (node, ra, a->dims, rb, b->dims, &batch_rank, batch_dims, error))
    return FALSE;
  memcpy (s->out_dims, batch_dims, batch_rank * sizeof (gint64));
  s->out_rank = batch_rank;
  if (a->rank >= 2)
    s->out_dims[s->out_rank++] = s->m;
  if (b->rank >= 2)
    s->out_dims[s->out_rank++] = s->n;
  if (!fw_nn_size (node, batch_rank, batch_dims, &s->n_batch, error)
      || !fw_nn_size (node, s->out_rank, s->out_dims, &count, error))
    return FALSE;
  if (s->m > G_MAXINT || s->n > G_MAXINT || s->k > G_MAXINT)
    return fw_kernel_fail (error, node, _("a matrix side is larger than BLAS can index (%d)"), G_MAXINT);
  fw_kernel_broadcast_strides (ra, a->dims, batch_rank, batch_dims, sa);
  fw_kernel_broadcast_strides (rb, b->dims, batch_rank, batch_dims, sb);
  s->a_off = g_new (gint64, MAX (s->n_batch, 1));
  s->b_off = g_new (gint64, MAX (s->n_batch, 1));
  s->fold = TRUE;
  for (guint d = 0; d < batch_rank; d++)
    {
      if (sb[d] != 0 && batch_dims[d] > 1)
        s->fold = FALSE;
      if (ra != batch_rank || a->dims[d] != batch_dims[d])
        a_full = FALSE;
    }
  /* Folding the batch into M needs the taller matrix to stay within BLAS's int. */
  s->fold = s->fold && a_full && s->n_batch * s->m <= G_MAXINT;
  for (gint64 i = 0; i < s->n_batch; i++)
    {
      gint64 rest = i, oa = 0, ob = 0;

      for (gint d = (gint) batch_rank - 1; d >= 0; d--)
        {
          gint64 c = rest % batch_dims[d];

          rest /= batch_dims[d];
          oa += c * sa[d];
          ob += c * sb[d];
        }
      s->a_off[i] = oa * s->m * s->k;
      s->b_off[i] = ob * s->k * s->n;
    }
  return TRUE;
}

/* The threads a batched product's batches may share: by its multiply-adds, the floor an elementwise loop's
 * element-operations have. */
static guint
matmul_threads (FwExecContext *ctx, const MatMulShape *s)
{
  return fw_nn_threads (ctx, (gint64) MIN ((gdouble) s->n_batch * s->m * s->n * s->k, (gdouble) G_MAXINT64 / 2));
}

/* Integer MatMul in int64, wrapping, i-k-j order so the inner loop runs along rows of B and Y. */
static void
matmul_int (const gint64 *a, const gint64 *b, gint64 *y, const MatMulShape *s)
{
  memset (y, 0, s->n_batch * s->m * s->n * sizeof (gint64));
  for (gint64 t = 0; t < s->n_batch; t++)
    for (gint64 i = 0; i < s->m; i++)
      {
        gint64 *yr = y + (t * s->m + i) * s->n;

        for (gint64 p = 0; p < s->k; p++)
          {
            guint64 av = (guint64) a[s->a_off[t] + i * s->k + p];
            const gint64 *br = b + s->b_off[t] + p * s->n;

            for (gint64 j = 0; j < s->n; j++)
              yr[j] = (gint64) ((guint64) yr[j] + av * (guint64) br[j]);
          }
      }
}

static gboolean
matmul_kernel (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs, FwArray **outputs,
               guint n_outputs, GError **error)
{
  FwArray *a = inputs[0], *b = n_inputs > 1 ? inputs[1] : NULL;
  g_autoptr(FwArray) aw = NULL, bw = NULL, y = NULL;
  MatMulShape s;
  gboolean ok = FALSE;

  if (a == NULL || b == NULL)
    return fw_kernel_fail (error, node, _("inputs A and B are required"));
  if (a->dtype != b->dtype)
    return fw_kernel_fail (error, node, _("inputs A and B must have one dtype"));
  if (!matmul_shape (node, a, b, &s, error))
    goto out;
  if (fw_nn_is_float (a->dtype))
    {
      if ((aw = fw_nn_to_work (node, a, error)) == NULL || (bw = fw_nn_to_work (node, b, error)) == NULL
          || (y = fw_array_new (aw->dtype, s.out_rank, s.out_dims, error)) == NULL
          || !fw_blas_ensure (error))
        goto out;
      guint nt = matmul_threads (ctx, &s);
      if (aw->dtype == FW_DTYPE_DOUBLE)
        matmul_d (aw->data, bw->data, y->data, s.n_batch, s.a_off, s.b_off, s.fold, s.m, s.k, s.n, nt);
      else
        matmul_f (aw->data, bw->data, y->data, s.n_batch, s.a_off, s.b_off, s.fold, s.m, s.k, s.n, nt);
      outputs[0] = fw_nn_from_work (y, a->dtype, error);
    }
  else
    {
      if ((aw = fw_nn_to_int64 (node, a, error)) == NULL || (bw = fw_nn_to_int64 (node, b, error)) == NULL
          || (y = fw_array_new (FW_DTYPE_INT64, s.out_rank, s.out_dims, error)) == NULL)
        goto out;
      matmul_int (aw->data, bw->data, y->data, &s);
      outputs[0] = fw_nn_from_int64 (y, a->dtype, error);
    }
  ok = outputs[0] != NULL;
out:
  matmul_shape_clear (&s);
  return ok;
}

/* An 8-bit input minus its zero point as doubles. The zero point is a scalar or, for per_axis_len > 0, one
 * value per index of a row (A: per row of M, stride k) or column (B: per column of N, stride 1). */
static FwArray *
dequantize_matrix (const FwNode *node, const FwArray *a, const FwArray *zp, gint64 len, gint64 stride,
                   GError **error)
{
  FwArray *out;

  if (a->dtype != FW_DTYPE_UINT8 && a->dtype != FW_DTYPE_INT8)
    {
      fw_kernel_fail (error, node, _("dtype %s is not supported (int8 or uint8)"), fw_dtype_name (a->dtype));
      return NULL;
    }
  if (zp != NULL && (zp->dtype != a->dtype || (zp->n_elements != 1 && zp->n_elements != len)))
    {
      fw_kernel_fail (error, node, _("a zero point must be a scalar or a vector of %" PRId64
                                     " of its input's dtype"), len);
      return NULL;
    }
  out = fw_array_new (FW_DTYPE_DOUBLE, a->rank, a->dims, error);
  for (gint64 i = 0; out != NULL && i < a->n_elements; i++)
    {
      double z = zp == NULL ? 0 : fw_array_get_double (zp, zp->n_elements == 1 ? 0 : (i / stride) % len);

      ((double *) out->data)[i] = fw_array_get_double (a, i) - z;
    }
  return out;
}

static gboolean
matmul_integer_kernel (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                       FwArray **outputs, guint n_outputs, GError **error)
{
  FwArray *a = inputs[0], *b = n_inputs > 1 ? inputs[1] : NULL;
  g_autoptr(FwArray) ad = NULL, bd = NULL, y = NULL;
  MatMulShape s;
  gboolean ok = FALSE;

  if (a == NULL || b == NULL)
    return fw_kernel_fail (error, node, _("inputs A and B are required"));
  if (!matmul_shape (node, a, b, &s, error))
    goto out;
  if ((ad = dequantize_matrix (node, a, n_inputs > 2 ? inputs[2] : NULL, s.m, s.k, error)) == NULL
      || (bd = dequantize_matrix (node, b, n_inputs > 3 ? inputs[3] : NULL, s.n, 1, error)) == NULL
      || (y = fw_array_new (FW_DTYPE_DOUBLE, s.out_rank, s.out_dims, error)) == NULL
      || !fw_blas_ensure (error))
    goto out;
  matmul_d (ad->data, bd->data, y->data, s.n_batch, s.a_off, s.b_off, s.fold, s.m, s.k, s.n,
            matmul_threads (ctx, &s));
  if ((outputs[0] = fw_array_new (FW_DTYPE_INT32, s.out_rank, s.out_dims, error)) == NULL)
    goto out;
  for (gint64 i = 0; i < y->n_elements; i++)
    ((gint32 *) outputs[0]->data)[i] = (gint32) (gint64) llround (((double *) y->data)[i]);
  ok = TRUE;
out:
  matmul_shape_clear (&s);
  return ok;
}

static gboolean
gemm_kernel (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs, FwArray **outputs,
             guint n_outputs, GError **error)
{
  FwArray *a = inputs[0], *b = n_inputs > 1 ? inputs[1] : NULL, *c = n_inputs > 2 ? inputs[2] : NULL;
  gboolean ta = fw_node_get_attr_int (node, "transA", 0) != 0;
  gboolean tb = fw_node_get_attr_int (node, "transB", 0) != 0;
  double alpha = fw_node_get_attr_float (node, "alpha", 1.0f);
  double beta = fw_node_get_attr_float (node, "beta", 1.0f);
  g_autoptr(FwArray) aw = NULL, bw = NULL, cw = NULL, y = NULL;
  gint64 m, k, n, dims[2], cs[2];
  guint rank;

  if (a == NULL || b == NULL)
    return fw_kernel_fail (error, node, _("inputs A and B are required"));
  if (!require_float (node, a, error))
    return FALSE;
  if (b->dtype != a->dtype || (c != NULL && c->dtype != a->dtype))
    return fw_kernel_fail (error, node, _("inputs must have one dtype"));
  if (a->rank != 2 || b->rank != 2)
    return fw_kernel_fail (error, node, _("Gemm inputs A and B must be 2-D"));
  m = a->dims[ta ? 1 : 0];
  k = a->dims[ta ? 0 : 1];
  n = b->dims[tb ? 0 : 1];
  if (b->dims[tb ? 1 : 0] != k)
    return fw_kernel_fail (error, node, _("inner dimensions differ: %" PRId64 " and %" PRId64
                                          " (transA=%d, transB=%d)"), k, b->dims[tb ? 1 : 0], ta, tb);
  if (m > G_MAXINT || n > G_MAXINT || k > G_MAXINT)
    return fw_kernel_fail (error, node, _("a matrix side is larger than BLAS can index (%d)"), G_MAXINT);
  dims[0] = m;
  dims[1] = n;
  if (c != NULL && beta != 0)
    {
      gint64 tmp[FW_MAX_RANK];

      /* C broadcasts one way only: to [M, N], never the other way round. */
      if (c->rank > 2 || !fw_kernel_broadcast_dims (node, 2, dims, c->rank, c->dims, &rank, tmp, error)
          || tmp[0] != m || tmp[1] != n)
        {
          g_clear_error (error);
          return fw_kernel_fail (error, node, _("C does not broadcast to [%" PRId64 ",%" PRId64
                                                "]"), m, n);
        }
      fw_kernel_broadcast_strides (c->rank, c->dims, 2, dims, cs);
    }
  else
    c = NULL;
  if ((aw = fw_nn_to_work (node, a, error)) == NULL || (bw = fw_nn_to_work (node, b, error)) == NULL
      || (c != NULL && (cw = fw_nn_to_work (node, c, error)) == NULL)
      || (y = fw_array_new (aw->dtype, 2, dims, error)) == NULL)
    return FALSE;
  for (gint64 i = 0; cw != NULL && i < m; i++)
    for (gint64 j = 0; j < n; j++)
      {
        gint64 src = i * cs[0] + j * cs[1];

        if (aw->dtype == FW_DTYPE_DOUBLE)
          ((double *) y->data)[i * n + j] = beta * ((double *) cw->data)[src];
        else
          ((float *) y->data)[i * n + j] = (float) (beta * ((float *) cw->data)[src]);
      }
  if (m > 0 && n > 0)
    {
      if (k == 0 && cw == NULL)
        memset (y->data, 0, y->n_bytes);
      else if (k > 0 && !fw_blas_ensure (error))
        return FALSE;
      else if (k > 0 && aw->dtype == FW_DTYPE_DOUBLE)
        fw_blas_dgemm (ta, tb, (gint) m, (gint) n, (gint) k, alpha, aw->data, (gint) a->dims[1], bw->data,
                       (gint) b->dims[1], cw ? 1.0 : 0.0, y->data, (gint) n);
      else if (k > 0)
        fw_blas_sgemm (ta, tb, (gint) m, (gint) n, (gint) k, (float) alpha, aw->data, (gint) a->dims[1], bw->data,
                       (gint) b->dims[1], cw ? 1.0f : 0.0f, y->data, (gint) n);
    }
  (void) ctx;
  outputs[0] = fw_nn_from_work (y, a->dtype, error);
  return outputs[0] != NULL;
}

/* ---- Einsum ---- */

static gint
letter_index (char c)
{
  return g_ascii_islower (c) ? c - 'a' : g_ascii_isupper (c) ? 26 + c - 'A' : -1;
}

/* What the equation says, per letter (a–z 0–25, A–Z 26–51). */
typedef struct
{
  gint64 size[52];          /* -1: unused; a size-1 letter broadcasts */
  gint   count[52];         /* occurrences in the input terms */
  gint   in_output[52];
  gint64 strides[8][52];    /* per operand, summed over repeats: a repeated letter walks the diagonal */
  guint  out_rank, n_sum;
  gint   out_letters[FW_MAX_RANK];
  gint   sum_letters[52];
} Einsum;

/* The input terms, up to "->" (*end): each letter's size and strides in every operand. */
static gboolean
einsum_input_terms (const FwNode *node, const char *eq, FwArray *const *inputs, guint n_inputs, Einsum *e,
                    const char **end, GError **error)
{
  guint term = 0, pos = 0;
  const char *p;

  for (p = eq; *p && !(p[0] == '-' && p[1] == '>'); p++)
    {
      const FwArray *v = inputs[term];
      gint idx;

      if (*p == ' ')
        continue;
      if (*p == ',')
        {
          if (pos != v->rank)
            return fw_kernel_fail (error, node, _("equation term %u has %u letters, input rank is %u"),
                                   term, pos, v->rank);
          if (++term >= n_inputs)
            return fw_kernel_fail (error, node, _("equation has more terms than inputs"));
          pos = 0;
          continue;
        }
      if ((idx = letter_index (*p)) < 0)
        return fw_kernel_fail (error, node, _("invalid character in the equation"));
      if (pos >= v->rank)
        return fw_kernel_fail (error, node, _("equation term %u has more letters than input rank %u"), term, v->rank);
      {
        gint64 d = v->dims[pos], stride = 1;

        for (guint r = pos + 1; r < v->rank; r++)
          stride *= v->dims[r];
        if (e->size[idx] >= 0 && d != e->size[idx] && d != 1 && e->size[idx] != 1)
          return fw_kernel_fail (error, node, _("equation letter “%c” has sizes %" PRId64 " and %"
                                                PRId64), *p, e->size[idx], d);
        if (e->size[idx] < 0 || e->size[idx] == 1)
          e->size[idx] = d;
        if (d != 1)
          e->strides[term][idx] += stride;
      }
      e->count[idx]++;
      pos++;
    }
  if (pos != inputs[term]->rank || term + 1 != n_inputs)
    return fw_kernel_fail (error, node, _("the equation's terms do not match the %u inputs"), n_inputs);
  *end = p;
  return TRUE;
}

/* The output letters: the explicit term after "->" at p, or (implicit) every letter seen once, in
 * alphabetical order, upper case first; the rest are summed. */
static gboolean
einsum_output_term (const FwNode *node, const char *p, Einsum *e, gint64 *n_inner, GError **error)
{
  if (*p)
    {
      for (p += 2; *p; p++)
        {
          gint idx;

          if (*p == ' ')
            continue;
          if ((idx = letter_index (*p)) < 0 || e->count[idx] == 0 || e->in_output[idx] || e->out_rank >= FW_MAX_RANK)
            return fw_kernel_fail (error, node, _("invalid output term in the equation"));
          e->in_output[idx] = 1;
          e->out_letters[e->out_rank++] = idx;
        }
    }
  else
    for (gint i = 26; i < 78; i++)
      if (e->count[i % 52] == 1 && e->out_rank < FW_MAX_RANK)
        {
          e->in_output[i % 52] = 1;
          e->out_letters[e->out_rank++] = i % 52;
        }
  for (gint i = 0; i < 52; i++)
    if (e->count[i] > 0 && !e->in_output[i])
      {
        e->sum_letters[e->n_sum++] = i;
        if (!fw_nn_mul (*n_inner, e->size[i], n_inner))
          return fw_kernel_fail (error, node, _("too many terms to sum"));
      }
  return TRUE;
}

/* y (double or int64) of n_out elements: each the sum over the n_inner contracted coordinates of the
 * product of the operands. */
static void
einsum_sum (FwExecContext *ctx, const Einsum *e, FwArray *const *ops, guint n_inputs, gboolean is_float,
            const gint64 *out_dims, gint64 n_out, gint64 n_inner, FwArray *y)
{
#pragma omp parallel for num_threads (fw_nn_threads (ctx, n_out * n_inner)) schedule (static)
  for (gint64 o = 0; o < n_out; o++)
    {
      gint64 base[8] = { 0 }, coord[52] = { 0 }, rest = o;
      double acc = 0;
      gint64 iacc = 0;

      for (gint d = (gint) e->out_rank - 1; d >= 0; d--)
        {
          gint64 c = rest % out_dims[d];

          rest /= out_dims[d];
          for (guint t = 0; t < n_inputs; t++)
            base[t] += c * e->strides[t][e->out_letters[d]];
        }
      for (gint64 s = 0; s < n_inner; s++)
        {
          gint64 off[8];
          double prod = 1;
          guint64 iprod = 1;

          for (guint t = 0; t < n_inputs; t++)
            {
              off[t] = base[t];
              for (guint q = 0; q < e->n_sum; q++)
                off[t] += coord[q] * e->strides[t][e->sum_letters[q]];
              if (is_float)
                prod *= ((const double *) ops[t]->data)[off[t]];
              else
                iprod *= (guint64) ((const gint64 *) ops[t]->data)[off[t]];
            }
          acc += prod;
          iacc = (gint64) ((guint64) iacc + iprod);
          for (gint q = (gint) e->n_sum - 1; q >= 0; q--)
            {
              if (++coord[q] < e->size[e->sum_letters[q]])
                break;
              coord[q] = 0;
            }
        }
      if (is_float)
        ((double *) y->data)[o] = acc;
      else
        ((gint64 *) y->data)[o] = iacc;
    }
}

/* Any explicit or implicit equation without ellipsis, by direct summation over the contracted letters:
 * exact, and O(output × contracted) like the matrix product it usually is. */
static gboolean
einsum_kernel (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs,
               FwArray **outputs, guint n_outputs, GError **error)
{
  const char *eq = fw_node_get_attr_string (node, "equation");
  Einsum e;
  gint64 out_dims[FW_MAX_RANK], n_out, n_inner = 1;
  g_autoptr(FwArray) y = NULL;
  FwArray *ops[8] = { NULL };
  gboolean is_float;
  const char *p = NULL;
  gboolean ok = FALSE;

  if (eq == NULL)
    return fw_kernel_fail (error, node, _("attribute “equation” is required"));
  if (strstr (eq, "...") != NULL)
    return fw_kernel_fail (error, node, _("equations with an ellipsis (“...”) are not supported"));
  if (n_inputs == 0 || n_inputs > 8)
    return fw_kernel_fail (error, node, _("Einsum takes 1 to 8 inputs here, not %u"), n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    if (inputs[i] == NULL || inputs[i]->dtype != inputs[0]->dtype)
      return fw_kernel_fail (error, node, _("every input is required and must have one dtype"));
  is_float = fw_nn_is_float (inputs[0]->dtype);
  if (!is_float && !fw_nn_is_int (inputs[0]->dtype))
    return fw_kernel_fail (error, node, _("dtype %s is not supported"), fw_dtype_name (inputs[0]->dtype));
  memset (&e, 0, sizeof e);
  for (gint i = 0; i < 52; i++)
    e.size[i] = -1;
  if (!einsum_input_terms (node, eq, inputs, n_inputs, &e, &p, error)
      || !einsum_output_term (node, p, &e, &n_inner, error))
    return FALSE;
  for (guint i = 0; i < e.out_rank; i++)
    out_dims[i] = e.size[e.out_letters[i]];
  if (!fw_nn_size (node, e.out_rank, out_dims, &n_out, error))
    return FALSE;
  {
    gint64 work;

    if (!fw_nn_mul (MAX (n_out, 1), MAX (n_inner, 1), &work))
      return fw_kernel_fail (error, node, _("too much work for direct summation"));
  }
  for (guint t = 0; t < n_inputs; t++)
    if ((ops[t] = is_float ? to_double (node, inputs[t], error) : fw_nn_to_int64 (node, inputs[t], error)) == NULL)
      goto out;
  if ((y = fw_array_new (is_float ? FW_DTYPE_DOUBLE : FW_DTYPE_INT64, e.out_rank, out_dims, error)) == NULL)
    goto out;
  einsum_sum (ctx, &e, ops, n_inputs, is_float, out_dims, n_out, n_inner, y);
  outputs[0] = is_float ? fw_nn_from_work (y, inputs[0]->dtype, error) : fw_nn_from_int64 (y, inputs[0]->dtype, error);
  ok = outputs[0] != NULL;
out:
  for (guint t = 0; t < n_inputs; t++)
    g_clear_pointer (&ops[t], fw_array_unref);
  return ok;
}

/* ---- Softmax, LogSoftmax, Hardmax ---- */

static gboolean
softmax_kernel (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                FwArray **outputs, guint n_outputs, GError **error)
{
  FwArray *x = inputs[0];
  SoftmaxKind kind = strcmp (node->op_type, "LogSoftmax") == 0 ? SOFTMAX_LOG
                     : strcmp (node->op_type, "Hardmax") == 0 ? SOFTMAX_HARD : SOFTMAX_SOFT;
  /* Before opset 13 the input is flattened to 2-D at axis (default 1); from 13 on, one axis (default -1). */
  gboolean flatten = node->opset > 0 && node->opset < 13;
  gint64 outer = 1, n = 1, inner = 1;
  g_autoptr(FwArray) xw = NULL, y = NULL;
  guint axis, nt;

  if (x == NULL)
    return fw_kernel_fail (error, node, _("input is required"));
  if (!require_float (node, x, error))
    return FALSE;
  if (flatten)
    {
      /* Negative axes count from the rank; axis == rank is legal (rows of one). */
      gint64 a = fw_node_get_attr_int (node, "axis", 1);

      a = a < 0 ? a + x->rank : a;
      if (a < 0 || a > (gint64) x->rank)
        return fw_kernel_fail (error, node, _("axis %" PRId64 " is out of range for rank %u"),
                               fw_node_get_attr_int (node, "axis", 1), x->rank);
      axis = (guint) a;
    }
  else if (!fw_kernel_axis (node, fw_node_get_attr_int (node, "axis", -1), x->rank, &axis, error))
    return FALSE;
  if (flatten && axis == x->rank && x->rank > 0)
    {
      /* axis == rank is legal before 13: [N, 1] rows of one. */
      outer = x->n_elements;
    }
  else
    for (guint i = 0; i < x->rank; i++)
      {
        if (i < axis)
          outer *= x->dims[i];
        else if (i == axis || flatten)
          n *= x->dims[i];
        else
          inner *= x->dims[i];
      }
  if ((xw = fw_nn_to_work (node, x, error)) == NULL || (y = fw_array_new (xw->dtype, x->rank, x->dims, error)) == NULL)
    return FALSE;
  nt = fw_nn_threads (ctx, x->n_elements * 4);
  if (xw->dtype == FW_DTYPE_DOUBLE)
    softmax_d (xw->data, y->data, outer, n, inner, kind, nt);
  else
    softmax_f (xw->data, y->data, outer, n, inner, kind, nt);
  outputs[0] = fw_nn_from_work (y, x->dtype, error);
  return outputs[0] != NULL;
}

/* ---- normalisation ---- */

/* param (broadcast one way to the trailing dims[0..rank) of the normalised block) as n doubles. */
static double *
expand_param (const FwNode *node, const FwArray *param, const char *what, guint rank, const gint64 *dims, gint64 n,
              GError **error)
{
  gint64 strides[FW_MAX_RANK], tmp[FW_MAX_RANK];
  double *out;
  guint r;

  if (param->rank > rank || !fw_kernel_broadcast_dims (node, rank, dims, param->rank, param->dims, &r, tmp, error))
    {
      g_clear_error (error);
      fw_kernel_fail (error, node, _("%s does not broadcast to the normalised axes"), what);
      return NULL;
    }
  for (guint i = 0; i < rank; i++)
    if (tmp[i] != dims[i])
      {
        fw_kernel_fail (error, node, _("%s does not broadcast to the normalised axes"), what);
        return NULL;
      }
  fw_kernel_broadcast_strides (param->rank, param->dims, rank, dims, strides);
  if ((out = fw_nn_alloc (node, n, sizeof (double), error)) == NULL)
    return NULL;
  for (gint64 e = 0; e < n; e++)
    {
      gint64 rest = e, src = 0;

      for (gint d = (gint) rank - 1; d >= 0; d--)
        {
          src += (rest % dims[d]) * strides[d];
          rest /= dims[d];
        }
      out[e] = fw_array_get_double (param, src);
    }
  return out;
}

static FwArray *
stats_array (const FwNode *node, FwDType dtype, guint rank, const gint64 *dims, const double *values, GError **error)
{
  FwArray *a = fw_array_new (dtype, rank, dims, error);

  for (gint64 i = 0; a != NULL && i < a->n_elements; i++)
    fw_array_set_double (a, i, values[i]);
  return a;
}

static gboolean
layer_norm_kernel (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                   FwArray **outputs, guint n_outputs, GError **error)
{
  FwArray *x = inputs[0], *scale = n_inputs > 1 ? inputs[1] : NULL, *bias = n_inputs > 2 ? inputs[2] : NULL;
  double epsilon = fw_node_get_attr_float (node, "epsilon", 1e-5f);
  gint64 stash = fw_node_get_attr_int (node, "stash_type", FW_DTYPE_FLOAT);
  g_autoptr(FwArray) xw = NULL, y = NULL;
  g_autofree double *sc = NULL, *bi = NULL, *mean = NULL, *inv = NULL;
  gint64 rows = 1, n = 1, stat_dims[FW_MAX_RANK];
  guint axis;

  if (x == NULL || scale == NULL)
    return fw_kernel_fail (error, node, _("inputs X and Scale are required"));
  if (!require_float (node, x, error)
      || !fw_kernel_axis (node, fw_node_get_attr_int (node, "axis", -1), x->rank, &axis, error))
    return FALSE;
  if (!fw_dtype_is_valid (stash) || !fw_nn_is_float ((FwDType) stash))
    return fw_kernel_fail (error, node, _("attribute “stash_type” must be a floating-point type"));
  for (guint i = 0; i < x->rank; i++)
    {
      if (i < axis)
        rows *= x->dims[i];
      else
        n *= x->dims[i];
      stat_dims[i] = i < axis ? x->dims[i] : 1;
    }
  if ((sc = expand_param (node, scale, "Scale", x->rank - axis, x->dims + axis, n, error)) == NULL
      || (bias != NULL && (bi = expand_param (node, bias, "B", x->rank - axis, x->dims + axis, n, error)) == NULL)
      || (mean = fw_nn_alloc (node, rows, sizeof (double), error)) == NULL
      || (inv = fw_nn_alloc (node, rows, sizeof (double), error)) == NULL
      || (xw = fw_nn_to_work (node, x, error)) == NULL
      || (y = fw_array_new (xw->dtype, x->rank, x->dims, error)) == NULL)
    return FALSE;
  if (xw->dtype == FW_DTYPE_DOUBLE)
    layer_norm_d (xw->data, y->data, rows, n, sc, bi, epsilon, mean, inv, fw_nn_threads (ctx, x->n_elements * 4));
  else
    layer_norm_f (xw->data, y->data, rows, n, sc, bi, epsilon, mean, inv, fw_nn_threads (ctx, x->n_elements * 4));
  if ((outputs[0] = fw_nn_from_work (y, x->dtype, error)) == NULL)
    return FALSE;
  if (n_outputs > 1 && node->outputs[1] != NULL
      && (outputs[1] = stats_array (node, (FwDType) stash, x->rank, stat_dims, mean, error)) == NULL)
    return FALSE;
  if (n_outputs > 2 && node->outputs[2] != NULL
      && (outputs[2] = stats_array (node, (FwDType) stash, x->rank, stat_dims, inv, error)) == NULL)
    return FALSE;
  return TRUE;
}

/* GroupNormalization (scale and bias per group before opset 21, per channel from 21; the sizes tell) and
 * InstanceNormalization (a group per channel). */
static gboolean
channel_norm_kernel (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                     FwArray **outputs, guint n_outputs, GError **error)
{
  FwArray *x = inputs[0], *scale = n_inputs > 1 ? inputs[1] : NULL, *bias = n_inputs > 2 ? inputs[2] : NULL;
  gboolean instance = strcmp (node->op_type, "InstanceNormalization") == 0;
  double epsilon = fw_node_get_attr_float (node, "epsilon", 1e-5f);
  g_autoptr(FwArray) xw = NULL, y = NULL;
  g_autofree double *sc = NULL, *bi = NULL;
  gint64 channels, groups, spatial = 1, size;

  if (x == NULL || scale == NULL || bias == NULL)
    return fw_kernel_fail (error, node, _("inputs X, scale and B are required"));
  if (!require_float (node, x, error))
    return FALSE;
  if (x->rank < 2)
    return fw_kernel_fail (error, node, _("input must have rank 2 or more, not %u"), x->rank);
  channels = x->dims[1];
  groups = instance ? channels : fw_node_get_attr_int (node, "num_groups", -1);
  if (groups < 1 || channels % groups != 0)
    return fw_kernel_fail (error, node, _("%" PRId64 " channels do not split into %" PRId64
                                          " groups"), channels, groups);
  if (scale->n_elements != bias->n_elements || (scale->n_elements != channels && scale->n_elements != groups))
    return fw_kernel_fail (error, node, _("scale and B must hold %" PRId64 " values"), channels);
  for (guint i = 2; i < x->rank; i++)
    spatial *= x->dims[i];
  size = channels / groups * spatial;
  if ((sc = fw_nn_alloc (node, channels, sizeof (double), error)) == NULL
      || (bi = fw_nn_alloc (node, channels, sizeof (double), error)) == NULL)
    return FALSE;
  for (gint64 c = 0; c < channels; c++)
    {
      gint64 src = scale->n_elements == channels ? c : c / (channels / groups);

      sc[c] = fw_array_get_double (scale, src);
      bi[c] = fw_array_get_double (bias, src);
    }
  if ((xw = fw_nn_to_work (node, x, error)) == NULL || (y = fw_array_new (xw->dtype, x->rank, x->dims, error)) == NULL)
    return FALSE;
  if (xw->dtype == FW_DTYPE_DOUBLE)
    channel_norm_d (xw->data, y->data, x->dims[0], groups, channels, size, spatial, sc, bi, epsilon,
                    fw_nn_threads (ctx, x->n_elements * 4));
  else
    channel_norm_f (xw->data, y->data, x->dims[0], groups, channels, size, spatial, sc, bi, epsilon,
                    fw_nn_threads (ctx, x->n_elements * 4));
  outputs[0] = fw_nn_from_work (y, x->dtype, error);
  return outputs[0] != NULL;
}

static gboolean
lrn_kernel (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs, FwArray **outputs,
            guint n_outputs, GError **error)
{
  FwArray *x = inputs[0];
  double alpha = fw_node_get_attr_float (node, "alpha", 1e-4f);
  double beta = fw_node_get_attr_float (node, "beta", 0.75f);
  double bias = fw_node_get_attr_float (node, "bias", 1.0f);
  gint64 size = fw_node_get_attr_int (node, "size", 0), channels, spatial = 1;
  g_autoptr(FwArray) xd = NULL, y = NULL;
  const double *xv;

  if (x == NULL || !require_float (node, x, error))
    return x == NULL ? fw_kernel_fail (error, node, _("input X is required")) : FALSE;
  if (x->rank < 3)
    return fw_kernel_fail (error, node, _("input must have rank 3 or more, not %u"), x->rank);
  if (size < 1)
    return fw_kernel_fail (error, node, _("attribute “size” must be positive"));
  channels = x->dims[1];
  for (guint i = 2; i < x->rank; i++)
    spatial *= x->dims[i];
  if ((xd = to_double (node, x, error)) == NULL || (y = fw_array_new (FW_DTYPE_DOUBLE, x->rank, x->dims, error)) == NULL)
    return FALSE;
  xv = xd->data;
#pragma omp parallel for num_threads (fw_nn_threads (ctx, x->n_elements * size)) schedule (static)
  for (gint64 t = 0; t < x->dims[0] * channels; t++)
    {
      gint64 b = t / channels, c = t % channels;
      gint64 lo = MAX (0, c - (size - 1) / 2), hi = MIN (channels - 1, c + size / 2);

      for (gint64 s = 0; s < spatial; s++)
        {
          double sq = 0;

          for (gint64 cc = lo; cc <= hi; cc++)
            {
              double v = xv[(b * channels + cc) * spatial + s];
              sq += v * v;
            }
          ((double *) y->data)[t * spatial + s] = xv[t * spatial + s] / pow (bias + alpha / (double) size * sq, beta);
        }
    }
  outputs[0] = fw_nn_from_work (y, x->dtype, error);
  return outputs[0] != NULL;
}

static gboolean
lp_norm_kernel (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                FwArray **outputs, guint n_outputs, GError **error)
{
  FwArray *x = inputs[0];
  gint64 p = fw_node_get_attr_int (node, "p", 2), outer = 1, n = 1, inner = 1;
  g_autoptr(FwArray) xd = NULL, y = NULL;
  guint axis;

  if (x == NULL)
    return fw_kernel_fail (error, node, _("input is required"));
  if (!require_float (node, x, error)
      || !fw_kernel_axis (node, fw_node_get_attr_int (node, "axis", -1), x->rank, &axis, error))
    return FALSE;
  if (p != 1 && p != 2)
    return fw_kernel_fail (error, node, _("attribute “p” must be 1 or 2"));
  for (guint i = 0; i < x->rank; i++)
    {
      if (i < axis)
        outer *= x->dims[i];
      else if (i == axis)
        n = x->dims[i];
      else
        inner *= x->dims[i];
    }
  if ((xd = to_double (node, x, error)) == NULL || (y = fw_array_new (FW_DTYPE_DOUBLE, x->rank, x->dims, error)) == NULL)
    return FALSE;
  for (gint64 t = 0; t < outer * inner; t++)
    {
      gint64 base = (t / inner) * n * inner + t % inner;
      const double *xv = (const double *) xd->data + base;
      double *yv = (double *) y->data + base, norm = 0;

      for (gint64 i = 0; i < n; i++)
        norm += p == 1 ? fabs (xv[i * inner]) : xv[i * inner] * xv[i * inner];
      norm = p == 2 ? sqrt (norm) : norm;
      /* A zero vector stays zero (ONNX Runtime's choice) rather than becoming NaN. */
      for (gint64 i = 0; i < n; i++)
        yv[i * inner] = norm != 0 ? xv[i * inner] / norm : 0;
    }
  (void) ctx;
  outputs[0] = fw_nn_from_work (y, x->dtype, error);
  return outputs[0] != NULL;
}

static gboolean
mvn_kernel (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs, FwArray **outputs,
            guint n_outputs, GError **error)
{
  static const gint64 default_axes[] = { 0, 2, 3 };
  FwArray *x = inputs[0];
  guint n_axes = 0;
  const gint64 *axes = fw_node_get_attr_ints (node, "axes", &n_axes);
  gboolean reduced[FW_MAX_RANK] = { FALSE };
  gint64 kept_strides[FW_MAX_RANK], n_groups = 1, stride = 1, per_group;
  g_autoptr(FwArray) xd = NULL, y = NULL;
  g_autofree double *sum = NULL, *sq = NULL;
  g_autofree gint64 *group_of = NULL;

  if (x == NULL)
    return fw_kernel_fail (error, node, _("input is required"));
  if (!require_float (node, x, error))
    return FALSE;
  if (axes == NULL)
    {
      axes = default_axes;
      n_axes = 3;
    }
  for (guint k = 0; k < n_axes; k++)
    {
      guint a;

      if (!fw_kernel_axis (node, axes[k], x->rank, &a, error))
        return FALSE;
      reduced[a] = TRUE;
    }
  for (gint i = (gint) x->rank - 1; i >= 0; i--)
    {
      kept_strides[i] = reduced[i] ? 0 : stride;
      if (!reduced[i])
        stride *= x->dims[i];
    }
  n_groups = stride;
  per_group = n_groups > 0 ? x->n_elements / n_groups : 0;
  if ((xd = to_double (node, x, error)) == NULL || (y = fw_array_new (FW_DTYPE_DOUBLE, x->rank, x->dims, error)) == NULL
      || (sum = fw_nn_alloc (node, n_groups, sizeof (double), error)) == NULL
      || (sq = fw_nn_alloc (node, n_groups, sizeof (double), error)) == NULL
      || (group_of = fw_nn_alloc (node, x->n_elements, sizeof (gint64), error)) == NULL)
    return FALSE;
  memset (sum, 0, n_groups * sizeof (double));
  memset (sq, 0, n_groups * sizeof (double));
  for (gint64 e = 0; e < x->n_elements; e++)
    {
      gint64 rest = e, g = 0;
      double v = ((double *) xd->data)[e];

      for (gint d = (gint) x->rank - 1; d >= 0; d--)
        {
          g += (rest % x->dims[d]) * kept_strides[d];
          rest /= x->dims[d];
        }
      group_of[e] = g;
      sum[g] += v;
      sq[g] += v * v;
    }
  for (gint64 g = 0; g < n_groups; g++)
    {
      double mean = sum[g] / (double) per_group;

      sum[g] = mean;
      /* ONNX's function body: (x - E[x]) / (sqrt(E[x²] - E[x]²) + 1e-9). */
      sq[g] = 1.0 / (sqrt (MAX (sq[g] / (double) per_group - mean * mean, 0)) + 1e-9);
    }
  for (gint64 e = 0; e < x->n_elements; e++)
    ((double *) y->data)[e] = (((double *) xd->data)[e] - sum[group_of[e]]) * sq[group_of[e]];
  (void) ctx;
  outputs[0] = fw_nn_from_work (y, x->dtype, error);
  return outputs[0] != NULL;
}

/* ---- the table ---- */

static const FwKernelEntry nn_kernels[] = {
  { "ArgMax", fw_nn_arg_reduce },
  { "ArgMin", fw_nn_arg_reduce },
  { "AveragePool", fw_nn_pool },
  { "Conv", fw_nn_conv },
  { "ConvInteger", fw_nn_conv_integer },
  { "ConvTranspose", fw_nn_conv_transpose },
  { "CumSum", fw_nn_cumsum },
  { "Einsum", einsum_kernel },
  { "Gemm", gemm_kernel },
  { "GlobalAveragePool", fw_nn_global_pool },
  { "GlobalLpPool", fw_nn_global_pool },
  { "GlobalMaxPool", fw_nn_global_pool },
  { "GroupNormalization", channel_norm_kernel },
  { "Hardmax", softmax_kernel },
  { "InstanceNormalization", channel_norm_kernel },
  { "LRN", lrn_kernel },
  { "LayerNormalization", layer_norm_kernel },
  { "LogSoftmax", softmax_kernel },
  { "LpNormalization", lp_norm_kernel },
  { "LpPool", fw_nn_pool },
  { "MatMul", matmul_kernel },
  { "MatMulInteger", matmul_integer_kernel },
  { "MaxPool", fw_nn_pool },
  { "MeanVarianceNormalization", mvn_kernel },
  { "ReduceL1", fw_nn_reduce },
  { "ReduceL2", fw_nn_reduce },
  { "ReduceLogSum", fw_nn_reduce },
  { "ReduceLogSumExp", fw_nn_reduce },
  { "ReduceMax", fw_nn_reduce },
  { "ReduceMean", fw_nn_reduce },
  { "ReduceMin", fw_nn_reduce },
  { "ReduceProd", fw_nn_reduce },
  { "ReduceSum", fw_nn_reduce },
  { "ReduceSumSquare", fw_nn_reduce },
  { "Softmax", softmax_kernel },
  { "TopK", fw_nn_topk },
};

const FwKernelEntry *
fw_kernels_nn (guint *n_entries)
{
  *n_entries = G_N_ELEMENTS (nn_kernels);
  return nn_kernels;
}
