/* fw-host-gemv.c: products of a few rows by a constant matrix on AVX2 (fw-host-gemv.h).
 *
 * The weights are packed once as panels of 16 columns, [N / 16][K][16] (the last panel padded with zeros),
 * and the threads share the panels: each streams its panels front to back, the rows of the left operand
 * (at most 2 · K floats) staying in L1. Per panel and row two 8-wide accumulators over the even k
 * and two over the odd, so that at least four chains of FMAs are in flight to cover their latency.
 * The sums run over k in order within each chain, so the result differs from the reference's dot products
 * by the roundings of two or more partial sums: within the product-order tolerance verification gives a
 * root whose sums are ordered otherwise than the reference's, as any oneDNN primitive's are. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "fw-host-gemv.h"
#include "hw/fw-host-threads.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define GEMV_X86 1
#include <immintrin.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#else
#define GEMV_X86 0
#endif

#define PANEL 16

/* The product a descriptor asks for: [M, K] × [K, N], element (m, k) of A at m · as[0] + k · as[1], (k, n) of
 * W at k · ws[0] + n · ws[1]. */
typedef struct
{
  gint64 M, K, N, as[2], ws[2];
} Product;

struct _FwGemv
{
  FwDnnlDesc desc;
  Product    pr;
  gint64     panels;
  float     *w;      /* [panels][K][16] */
  float     *bias;   /* N values, or NULL */
};

/* d as a product: a 2-D matmul, or a 1x1 convolution of 1x1 images (a squeeze-excite block's fully
 * connected layers, [n, c, 1, 1] by OIHW [m, c, 1, 1]: A [n, c], W [c, m] read transposed). */
static gboolean
product_of (const FwDnnlDesc *d, Product *pr)
{
  if (d->kind == FW_DNNL_MATMUL && d->ndims == 2)
    *pr = (Product) { d->src_dims[0], d->src_dims[1], d->dst_dims[1], { d->src_strides[0], d->src_strides[1] },
                      { d->wei_strides[0], d->wei_strides[1] } };
  else if (d->kind == FW_DNNL_CONV && d->kh == 1 && d->kw == 1 && d->h == 1 && d->w == 1 && d->oh == 1 && d->ow == 1 &&
           d->groups == 1 && d->pt == 0 && d->pl == 0 && d->pb == 0 && d->pr == 0 && !d->residual)
    *pr = (Product) { d->n, d->c, d->m, { d->c, 1 }, { 1, d->c } };
  else
    return FALSE;
  return pr->M >= 1 && pr->K >= 1 && pr->N >= 1;
}

gboolean
fw_gemv_fits (const FwDnnlDesc *d)
{
  const char *env = g_getenv ("FW_GEMV");
  Product pr;

  if (!GEMV_X86 || (env != NULL && strcmp (env, "0") == 0) || !product_of (d, &pr))
    return FALSE;
#if GEMV_X86
  if (!__builtin_cpu_supports ("avx2") || !__builtin_cpu_supports ("fma"))
    return FALSE;
#endif
  return pr.M <= FW_GEMV_MAX_ROWS && d->weights != NULL && d->weights->dtype == FW_DTYPE_FLOAT &&
         d->weights->n_elements == pr.K * pr.N &&
         (d->bias == NULL || (d->bias->dtype == FW_DTYPE_FLOAT && d->bias->n_elements == pr.N));
}

FwGemv *
fw_gemv_new (const FwDnnlDesc *d)
{
  /* A tensor's raw bytes may lie at any offset in the model file: read them aligned. */
  const float *w = g_bytes_get_data (fw_tensor_get_aligned_bytes (d->weights, 4), NULL);
  FwGemv *g;
  gint64 K;

  if (w == NULL)
    return NULL;
  g = g_new0 (FwGemv, 1);
  g->desc = *d;
  g->desc.weights = g->desc.bias = NULL;
  if (!product_of (d, &g->pr))
    {
      fw_gemv_free (g);
      return NULL;
    }
  K = g->pr.K;
  g->panels = (g->pr.N + PANEL - 1) / PANEL;
  g->w = g_new0 (float, g->panels * K * PANEL);
  for (gint64 p = 0; p < g->panels; p++)
    for (gint64 k = 0; k < K; k++)
      for (gint64 j = 0; j < PANEL && p * PANEL + j < g->pr.N; j++)
        g->w[(p * K + k) * PANEL + j] = w[k * g->pr.ws[0] + (p * PANEL + j) * g->pr.ws[1]];
  if (d->bias != NULL)
    {
      const float *b = g_bytes_get_data (fw_tensor_get_aligned_bytes (d->bias, 4), NULL);

      if (b == NULL)
        {
          fw_gemv_free (g);
          return NULL;
        }
      g->bias = g_memdup2 (b, g->pr.N * sizeof (float));
    }
  return g;
}

void
fw_gemv_free (FwGemv *g)
{
  if (g == NULL)
    return;
  g_free (g->w);
  g_free (g->bias);
  g_free (g);
}

#if GEMV_X86

#define TARGET __attribute__ ((target ("avx2,fma")))

/* The post-op on one output, as oneDNN's eltwise computes it (fw-host-dnnl.h's FwDnnlPost). */
static inline float
post (const FwDnnlDesc *d, float x)
{
  switch (d->post)
    {
    case FW_DNNL_POST_RELU:
      return x > 0.0f ? x : 0.0f;
    case FW_DNNL_POST_GELU_ERF:
      return 0.5f * x * (1.0f + erff (x * (float) G_SQRT2 * 0.5f));
    case FW_DNNL_POST_HARD_SIGMOID:
      return fminf (fmaxf (d->post_alpha * x + d->post_beta, 0.0f), 1.0f);
    case FW_DNNL_POST_HARD_SWISH:
      return x * fminf (fmaxf (x / 6.0f + 0.5f, 0.0f), 1.0f);
    case FW_DNNL_POST_NONE:
    default:
      return x;
    }
}

/* One panel's outputs of every row, from its [M][16] sums. */
static void
finish_panel (const FwGemv *g, gint64 p, const float *sums, float *dst)
{
  const gint64 n0 = p * PANEL, cols = MIN (PANEL, g->pr.N - n0);

  for (gint64 m = 0; m < g->pr.M; m++)
    for (gint64 j = 0; j < cols; j++)
      {
        float y = g->desc.alpha * sums[m * PANEL + j] + (g->bias != NULL ? g->bias[n0 + j] : 0.0f);

        dst[m * g->pr.N + n0 + j] = post (&g->desc, y);
      }
}

/* Σk a[m][k] · w[k][0..15] for the M rows of a (contiguous, K apart), M a constant where it is inlined:
 * per row two accumulators over the even k and two over the odd. */
static inline TARGET __attribute__ ((always_inline)) void
panel_sums (const float *a, const float *w, gint64 K, gint M, float *sums)
{
  __m256 acc[FW_GEMV_MAX_ROWS][4];
  gint64 k = 0;

#pragma GCC unroll 2
  for (gint m = 0; m < M; m++)
    acc[m][0] = acc[m][1] = acc[m][2] = acc[m][3] = _mm256_setzero_ps ();
  for (; k + 1 < K; k += 2)
    {
      __m256 w0 = _mm256_loadu_ps (w + k * PANEL), w1 = _mm256_loadu_ps (w + k * PANEL + 8);
      __m256 w2 = _mm256_loadu_ps (w + (k + 1) * PANEL), w3 = _mm256_loadu_ps (w + (k + 1) * PANEL + 8);

#pragma GCC unroll 2
      for (gint m = 0; m < M; m++)
        {
          __m256 b0 = _mm256_broadcast_ss (a + m * K + k), b1 = _mm256_broadcast_ss (a + m * K + k + 1);

          acc[m][0] = _mm256_fmadd_ps (b0, w0, acc[m][0]);
          acc[m][1] = _mm256_fmadd_ps (b0, w1, acc[m][1]);
          acc[m][2] = _mm256_fmadd_ps (b1, w2, acc[m][2]);
          acc[m][3] = _mm256_fmadd_ps (b1, w3, acc[m][3]);
        }
    }
  if (k < K)
    {
      __m256 w0 = _mm256_loadu_ps (w + k * PANEL), w1 = _mm256_loadu_ps (w + k * PANEL + 8);

#pragma GCC unroll 2
      for (gint m = 0; m < M; m++)
        {
          __m256 b = _mm256_broadcast_ss (a + m * K + k);

          acc[m][0] = _mm256_fmadd_ps (b, w0, acc[m][0]);
          acc[m][1] = _mm256_fmadd_ps (b, w1, acc[m][1]);
        }
    }
#pragma GCC unroll 2
  for (gint m = 0; m < M; m++)
    {
      _mm256_storeu_ps (sums + m * PANEL, _mm256_add_ps (acc[m][0], acc[m][2]));
      _mm256_storeu_ps (sums + m * PANEL + 8, _mm256_add_ps (acc[m][1], acc[m][3]));
    }
}

static TARGET void
run_panels (const FwGemv *g, const float *a, gint64 p0, gint64 p1, float *dst)
{
  float sums[FW_GEMV_MAX_ROWS * PANEL];

  for (gint64 p = p0; p < p1; p++)
    {
      const float *w = g->w + p * g->pr.K * PANEL;

      if (g->pr.M == 1)
        panel_sums (a, w, g->pr.K, 1, sums);
      else
        panel_sums (a, w, g->pr.K, 2, sums);
      finish_panel (g, p, sums, dst);
    }
}

int
fw_gemv_run (FwGemv *g, const float *src, float *dst, int n_threads)
{
  const gint64 M = g->pr.M, K = g->pr.K;
  g_autofree float *rows = NULL;
  const float *a = src;
  guint nt = fw_host_loop_threads (M * K * g->pr.N, MAX (n_threads, 1));

  /* The rows contiguous, K apart (a transposed A, or one with a stride, copied: M · K floats). */
  if (g->pr.as[1] != 1 || (M > 1 && g->pr.as[0] != K))
    {
      rows = g_new (float, M * K);
      for (gint64 m = 0; m < M; m++)
        for (gint64 k = 0; k < K; k++)
          rows[m * K + k] = src[m * g->pr.as[0] + k * g->pr.as[1]];
      a = rows;
    }
  nt = (guint) MIN ((gint64) nt, g->panels);
#pragma omp parallel num_threads (nt) if (nt > 1)
  {
    gint64 t = 0, n = 1;

#ifdef _OPENMP
    t = omp_get_thread_num ();
    n = omp_get_num_threads ();
#endif
    run_panels (g, a, g->panels * t / n, g->panels * (t + 1) / n, dst);
  }
  return 0;
}

#else /* !GEMV_X86 */

int
fw_gemv_run (FwGemv *g, const float *src, float *dst, int n_threads)
{
  (void) g, (void) src, (void) dst, (void) n_threads;
  return 1;
}

#endif
