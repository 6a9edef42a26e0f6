/* fw-kernels-nn-loops.h: the typed loops of fw-kernels-nn.c, included with FW_T float and double (FW_FN
 * names the instance, FW_GEMM is fw_blas_sgemm or fw_blas_dgemm). */

/* Batched MatMul: one GEMM per broadcast batch entry, or one GEMM over all of them when B is shared and A
 * is laid out batch after batch (x @ W with x [B, S, H]). Where the batches divide evenly among the
 * threads (or are many), each thread takes whole batches and each GEMM runs on its calling thread
 * (OpenBLAS's OpenMP build runs a call made inside a team there, as the attention SuperKernel's block
 * products do): split among OpenBLAS's own threads, bert_like's 16 attention products of 128×128×32 each
 * met at the library's barriers, 9 µs a product on a quiet machine and 22 µs on a busy one. */
static void
FW_FN (matmul) (const FW_T *a, const FW_T *b, FW_T *y, gint64 n_batch, const gint64 *a_off, const gint64 *b_off,
                gboolean fold, gint64 m, gint64 k, gint64 n, guint n_threads)
{
  if (m == 0 || n == 0)
    return;
  if (k == 0)
    {
      memset (y, 0, n_batch * m * n * sizeof (FW_T));
      return;
    }
  if (fold)
    {
      FW_GEMM (FALSE, FALSE, (gint) (n_batch * m), (gint) n, (gint) k, 1,
               a, (gint) k, b, (gint) n, 0, y, (gint) n);
      return;
    }
  if (n_threads > 1 && n_batch >= n_threads && (n_batch % n_threads == 0 || n_batch >= 4 * (gint64) n_threads))
    {
#pragma omp parallel for num_threads (n_threads) schedule (static)
      for (gint64 i = 0; i < n_batch; i++)
        FW_GEMM (FALSE, FALSE, (gint) m, (gint) n, (gint) k, 1,
                 a + a_off[i], (gint) k, b + b_off[i], (gint) n, 0, y + i * m * n, (gint) n);
      return;
    }
  for (gint64 i = 0; i < n_batch; i++)
    FW_GEMM (FALSE, FALSE, (gint) m, (gint) n, (gint) k, 1,
             a + a_off[i], (gint) k, b + b_off[i], (gint) n, 0, y + i * m * n, (gint) n);
}

/* Softmax, LogSoftmax or Hardmax along an axis of n elements spaced inner apart. */
static void
FW_FN (softmax) (const FW_T *x, FW_T *y, gint64 outer, gint64 n, gint64 inner, SoftmaxKind kind, guint n_threads)
{
#pragma omp parallel for num_threads (n_threads) schedule (static)
  for (gint64 t = 0; t < outer * inner; t++)
    {
      const FW_T *xr = x + (t / inner) * n * inner + t % inner;
      FW_T *yr = y + (t / inner) * n * inner + t % inner;
      FW_T max = n > 0 ? xr[0] : 0;
      gint64 arg = 0;
      double sum = 0;

      for (gint64 i = 1; i < n; i++)
        if (xr[i * inner] > max)
          {
            max = xr[i * inner];
            arg = i;
          }
      if (kind == SOFTMAX_HARD)
        {
          for (gint64 i = 0; i < n; i++)
            yr[i * inner] = i == arg ? 1 : 0;
          continue;
        }
      if (kind == SOFTMAX_LOG)
        {
          double lse;

          for (gint64 i = 0; i < n; i++)
            sum += exp ((double) (xr[i * inner] - max));
          lse = log (sum);
          for (gint64 i = 0; i < n; i++)
            yr[i * inner] = (FW_T) ((double) (xr[i * inner] - max) - lse);
          continue;
        }
      for (gint64 i = 0; i < n; i++)
        {
          FW_T e = (FW_T) exp ((double) (xr[i * inner] - max));

          yr[i * inner] = e;
          sum += e;
        }
      for (gint64 i = 0; i < n; i++)
        yr[i * inner] = (FW_T) (yr[i * inner] / sum);
    }
}

/* LayerNormalization over rows of n: mean and variance in double, two passes. scale and bias hold n
 * values each (bias may be NULL); mean and inv_std receive one value per row. */
static void
FW_FN (layer_norm) (const FW_T *x, FW_T *y, gint64 rows, gint64 n, const double *scale, const double *bias,
                    double epsilon, double *mean_out, double *inv_std_out, guint n_threads)
{
#pragma omp parallel for num_threads (n_threads) schedule (static)
  for (gint64 r = 0; r < rows; r++)
    {
      const FW_T *xr = x + r * n;
      FW_T *yr = y + r * n;
      double mean = 0, var = 0, inv;

      for (gint64 i = 0; i < n; i++)
        mean += xr[i];
      mean = n > 0 ? mean / (double) n : 0;
      for (gint64 i = 0; i < n; i++)
        var += (xr[i] - mean) * (xr[i] - mean);
      var = n > 0 ? var / (double) n : 0;
      inv = 1.0 / sqrt (var + epsilon);
      for (gint64 i = 0; i < n; i++)
        yr[i] = (FW_T) ((xr[i] - mean) * inv * scale[i] + (bias ? bias[i] : 0));
      mean_out[r] = mean;
      inv_std_out[r] = inv;
    }
}

/* Group and instance normalisation: each of images × groups spans size consecutive elements, made of
 * size / per_channel channels with their own scale and bias (channels values, indexed by channel). */
static void
FW_FN (channel_norm) (const FW_T *x, FW_T *y, gint64 images, gint64 groups, gint64 channels, gint64 size,
                      gint64 per_channel, const double *scale, const double *bias, double epsilon, guint n_threads)
{
#pragma omp parallel for num_threads (n_threads) schedule (static)
  for (gint64 t = 0; t < images * groups; t++)
    {
      const FW_T *xr = x + t * size;
      FW_T *yr = y + t * size;
      gint64 c0 = (t % groups) * (channels / groups);
      double mean = 0, var = 0, inv;

      for (gint64 i = 0; i < size; i++)
        mean += xr[i];
      mean = size > 0 ? mean / (double) size : 0;
      for (gint64 i = 0; i < size; i++)
        var += (xr[i] - mean) * (xr[i] - mean);
      var = size > 0 ? var / (double) size : 0;
      inv = 1.0 / sqrt (var + epsilon);
      for (gint64 i = 0; i < size; i++)
        {
          gint64 c = c0 + i / per_channel;

          yr[i] = (FW_T) ((xr[i] - mean) * inv * scale[c] + bias[c]);
        }
    }
}
