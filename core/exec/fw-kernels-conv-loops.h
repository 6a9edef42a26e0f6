/* fw-kernels-conv-loops.h: the typed loops of fw-kernels-conv.c, included once with FW_T float and once
 * with FW_T double (FW_FN names the instance, FW_GEMM is fw_blas_sgemm or fw_blas_dgemm). Spatial axes are
 * padded to three (leading 1s) so one loop nest serves 1-D, 2-D and 3-D windows. */

/* One row of the column matrix per (channel, kernel tap), one column per output position. */
static void
FW_FN (im2col) (const FW_T *x, FW_T *col, gint64 channels, const Window *w, guint n_threads)
{
  gint64 k_size = w->kernel[0] * w->kernel[1] * w->kernel[2];
  gint64 p_size = w->out[0] * w->out[1] * w->out[2];
  gint64 in_plane = w->in[0] * w->in[1] * w->in[2];
  gint64 rows = channels * k_size;

#pragma omp parallel for num_threads (n_threads) schedule (static)
  for (gint64 r = 0; r < rows; r++)
    {
      gint64 c = r / k_size, k = r % k_size;
      gint64 k0 = k / (w->kernel[1] * w->kernel[2]);
      gint64 k1 = (k / w->kernel[2]) % w->kernel[1];
      gint64 k2 = k % w->kernel[2];
      const FW_T *xc = x + c * in_plane;
      FW_T *dst = col + r * p_size;
      gint64 off2 = k2 * w->dilation[2] - w->pad_begin[2];
      gint64 lo2, hi2;

      /* The output positions whose tap lands inside the input on the last axis, found once per row. */
      lo2 = off2 >= 0 ? 0 : (-off2 + w->stride[2] - 1) / w->stride[2];
      hi2 = w->in[2] - off2 <= 0 ? 0 : (w->in[2] - off2 + w->stride[2] - 1) / w->stride[2];
      lo2 = MIN (lo2, w->out[2]);
      hi2 = CLAMP (hi2, lo2, w->out[2]);
      for (gint64 o0 = 0; o0 < w->out[0]; o0++)
        {
          gint64 i0 = o0 * w->stride[0] - w->pad_begin[0] + k0 * w->dilation[0];

          for (gint64 o1 = 0; o1 < w->out[1]; o1++, dst += w->out[2])
            {
              gint64 i1 = o1 * w->stride[1] - w->pad_begin[1] + k1 * w->dilation[1];
              const FW_T *src;

              if (i0 < 0 || i0 >= w->in[0] || i1 < 0 || i1 >= w->in[1])
                {
                  memset (dst, 0, w->out[2] * sizeof (FW_T));
                  continue;
                }
              src = xc + (i0 * w->in[1] + i1) * w->in[2] + off2;
              if (lo2 > 0)
                memset (dst, 0, lo2 * sizeof (FW_T));
              if (w->stride[2] == 1)
                memcpy (dst + lo2, src + lo2, (hi2 - lo2) * sizeof (FW_T));
              else
                for (gint64 o2 = lo2; o2 < hi2; o2++)
                  dst[o2] = src[o2 * w->stride[2]];
              if (hi2 < w->out[2])
                memset (dst + hi2, 0, (w->out[2] - hi2) * sizeof (FW_T));
            }
        }
    }
}

/* The transpose of im2col: adds each column-matrix entry into the output position its tap reaches. Rows of
 * one output channel only ever touch that channel's plane, so channels run in parallel. Here w->in is the
 * ConvTranspose input (the column count) and w->out its output. */
static void
FW_FN (col2im) (const FW_T *col, FW_T *y, gint64 channels, const Window *w, guint n_threads)
{
  gint64 k_size = w->kernel[0] * w->kernel[1] * w->kernel[2];
  gint64 p_size = w->in[0] * w->in[1] * w->in[2];
  gint64 out_plane = w->out[0] * w->out[1] * w->out[2];

#pragma omp parallel for num_threads (n_threads) schedule (static)
  for (gint64 m = 0; m < channels; m++)
    {
      FW_T *ym = y + m * out_plane;

      for (gint64 k = 0; k < k_size; k++)
        {
          gint64 k0 = k / (w->kernel[1] * w->kernel[2]);
          gint64 k1 = (k / w->kernel[2]) % w->kernel[1];
          gint64 k2 = k % w->kernel[2];
          const FW_T *src = col + (m * k_size + k) * p_size;

          for (gint64 i0 = 0; i0 < w->in[0]; i0++)
            {
              gint64 o0 = i0 * w->stride[0] - w->pad_begin[0] + k0 * w->dilation[0];

              if (o0 < 0 || o0 >= w->out[0])
                {
                  src += w->in[1] * w->in[2];
                  continue;
                }
              for (gint64 i1 = 0; i1 < w->in[1]; i1++, src += w->in[2])
                {
                  gint64 o1 = i1 * w->stride[1] - w->pad_begin[1] + k1 * w->dilation[1];
                  FW_T *dst;

                  if (o1 < 0 || o1 >= w->out[1])
                    continue;
                  dst = ym + (o0 * w->out[1] + o1) * w->out[2];
                  for (gint64 i2 = 0; i2 < w->in[2]; i2++)
                    {
                      gint64 o2 = i2 * w->stride[2] - w->pad_begin[2] + k2 * w->dilation[2];

                      if (o2 >= 0 && o2 < w->out[2])
                        dst[o2] += src[i2];
                    }
                }
            }
        }
    }
}

/* Conv of one batch of images: per image and group, im2col (skipped for 1×1 stride-1 unpadded kernels,
 * where the input already is the column matrix) and one GEMM. */
static gboolean
FW_FN (conv) (const FwNode *node, const FW_T *x, const FW_T *wt, const FW_T *bias, FW_T *y, gint64 batch,
              gint64 c_in, gint64 c_out, gint64 group, const Window *w, guint n_threads, GError **error)
{
  gint64 cg = c_in / group, mg = c_out / group;
  gint64 k_size = w->kernel[0] * w->kernel[1] * w->kernel[2];
  gint64 p_size = w->out[0] * w->out[1] * w->out[2];
  gint64 in_plane = w->in[0] * w->in[1] * w->in[2];
  gint64 kc = cg * k_size;
  gboolean direct = k_size == 1 && in_plane == p_size;
  g_autofree FW_T *col = NULL;

  for (guint i = 0; i < 3 && direct; i++)
    if (w->stride[i] != 1 || w->pad_begin[i] != 0)
      direct = FALSE;
  if (!fw_blas_ensure (error))
    return FALSE;
  if (!direct)
    {
      gint64 n;

      if (!fw_nn_mul (kc, p_size, &n))
        return fw_kernel_fail (error, node, _("the column matrix (%" PRId64 " × %" PRId64
                                              ") is too large"), kc, p_size);
      col = fw_nn_alloc (node, n, sizeof (FW_T), error);
      if (col == NULL)
        return FALSE;
    }
  for (gint64 b = 0; b < batch; b++)
    for (gint64 g = 0; g < group; g++)
      {
        const FW_T *xg = x + (b * c_in + g * cg) * in_plane;
        FW_T *yg = y + (b * c_out + g * mg) * p_size;

        if (!direct)
          FW_FN (im2col) (xg, col, cg, w, fw_nn_threads_n (n_threads, kc * p_size));
        if (mg > 0 && p_size > 0)
          FW_GEMM (FALSE, FALSE, (gint) mg, (gint) p_size, (gint) kc, 1,
                   wt + g * mg * kc, (gint) MAX (kc, 1), direct ? xg : col, (gint) p_size, 0, yg,
                   (gint) p_size);
        if (kc == 0)
          memset (yg, 0, mg * p_size * sizeof (FW_T));
      }
  if (bias != NULL)
    {
      guint nt = fw_nn_threads_n (n_threads, batch * c_out * p_size);

#pragma omp parallel for num_threads (nt) schedule (static)
      for (gint64 bm = 0; bm < batch * c_out; bm++)
        {
          FW_T v = bias[bm % c_out], *row = y + bm * p_size;

          for (gint64 p = 0; p < p_size; p++)
            row[p] += v;
        }
    }
  return TRUE;
}

static gboolean
FW_FN (conv_transpose) (const FwNode *node, const FW_T *x, const FW_T *wt, const FW_T *bias, FW_T *y,
                        gint64 batch, gint64 c_in, gint64 c_out, gint64 group, const Window *w, guint n_threads,
                        GError **error)
{
  gint64 cg = c_in / group, mg = c_out / group;
  gint64 k_size = w->kernel[0] * w->kernel[1] * w->kernel[2];
  gint64 p_in = w->in[0] * w->in[1] * w->in[2];
  gint64 out_plane = w->out[0] * w->out[1] * w->out[2];
  gint64 rows = mg * k_size, n;
  g_autofree FW_T *col = NULL;

  if (!fw_blas_ensure (error))
    return FALSE;
  if (!fw_nn_mul (rows, p_in, &n))
    return fw_kernel_fail (error, node, _("the column matrix (%" PRId64 " × %" PRId64
                                          ") is too large"), rows, p_in);
  col = fw_nn_alloc (node, n, sizeof (FW_T), error);
  if (col == NULL)
    return FALSE;
  memset (y, 0, batch * c_out * out_plane * sizeof (FW_T));
  for (gint64 b = 0; b < batch; b++)
    for (gint64 g = 0; g < group; g++)
      {
        const FW_T *xg = x + (b * c_in + g * cg) * p_in;
        FW_T *yg = y + (b * c_out + g * mg) * out_plane;

        if (rows == 0 || p_in == 0)
          continue;
        if (cg == 0)
          memset (col, 0, n * sizeof (FW_T));
        else
          FW_GEMM (TRUE, FALSE, (gint) rows, (gint) p_in, (gint) cg, 1,
                   wt + g * cg * rows, (gint) rows, xg, (gint) p_in, 0, col, (gint) p_in);
        FW_FN (col2im) (col, yg, mg, w, fw_nn_threads_n (n_threads, n));
      }
  if (bias != NULL)
    for (gint64 bm = 0; bm < batch * c_out; bm++)
      {
        FW_T v = bias[bm % c_out], *row = y + bm * out_plane;

        for (gint64 p = 0; p < out_plane; p++)
          row[p] += v;
      }
  return TRUE;
}

/* Max pooling of a 2-D window without indices: pool's result, its window clipped to the input once per
 * output instead of each tap tested (the first tap inside is taken, a later one when greater, as there). */
static void
FW_FN (max_pool_2d) (const FW_T *x, FW_T *y, gint64 planes, const Window *w, guint n_threads)
{
  gint64 in_plane = w->in[1] * w->in[2], out_plane = w->out[1] * w->out[2];

#pragma omp parallel for num_threads (n_threads) schedule (static)
  for (gint64 pl = 0; pl < planes; pl++)
    for (gint64 o1 = 0; o1 < w->out[1]; o1++)
      {
        gint64 s1 = o1 * w->stride[1] - w->pad_begin[1], d1 = w->dilation[1];
        gint64 a1 = s1 < 0 ? (-s1 + d1 - 1) / d1 : 0;
        gint64 b1 = w->in[1] - s1 <= 0 ? 0 : MIN (w->kernel[1], (w->in[1] - s1 + d1 - 1) / d1);

        for (gint64 o2 = 0; o2 < w->out[2]; o2++)
          {
            gint64 s2 = o2 * w->stride[2] - w->pad_begin[2], d2 = w->dilation[2];
            gint64 a2 = s2 < 0 ? (-s2 + d2 - 1) / d2 : 0;
            gint64 b2 = w->in[2] - s2 <= 0 ? 0 : MIN (w->kernel[2], (w->in[2] - s2 + d2 - 1) / d2);
            const FW_T *xp = x + pl * in_plane;
            double acc = -G_MAXDOUBLE;
            gboolean any = FALSE;

            for (gint64 k1 = a1; k1 < b1; k1++)
              for (gint64 k2 = a2; k2 < b2; k2++)
                {
                  double v = xp[(s1 + k1 * d1) * w->in[2] + s2 + k2 * d2];
                  if (!any || v > acc)
                    acc = v;
                  any = TRUE;
                }
            y[pl * out_plane + o1 * w->out[2] + o2] = (FW_T) acc;
          }
      }
}

/* Max, average and Lp pooling over each (image, channel) plane. Taps in the padding are skipped; average
 * pooling divides by the taps inside the input, or with count_include_pad by those inside the padded
 * input (a ceil_mode window may reach past even that). */
static void
FW_FN (pool) (const FW_T *x, FW_T *y, gint64 *indices, gint64 planes, PoolKind kind, gboolean include_pad,
              double p, const Window *w, guint n_threads)
{
  gint64 in_plane = w->in[0] * w->in[1] * w->in[2];
  gint64 out_plane = w->out[0] * w->out[1] * w->out[2];

#pragma omp parallel for num_threads (n_threads) schedule (static)
  for (gint64 pl = 0; pl < planes; pl++)
    {
      const FW_T *xp = x + pl * in_plane;
      FW_T *yp = y + pl * out_plane;
      gint64 o = 0;

      for (gint64 o0 = 0; o0 < w->out[0]; o0++)
        for (gint64 o1 = 0; o1 < w->out[1]; o1++)
          for (gint64 o2 = 0; o2 < w->out[2]; o2++, o++)
            {
              gint64 s0 = o0 * w->stride[0] - w->pad_begin[0];
              gint64 s1 = o1 * w->stride[1] - w->pad_begin[1];
              gint64 s2 = o2 * w->stride[2] - w->pad_begin[2];
              double acc = kind == POOL_MAX ? -G_MAXDOUBLE : 0;
              gint64 best = -1, n_valid = 0, n_padded = 0;

              for (gint64 k0 = 0; k0 < w->kernel[0]; k0++)
                {
                  gint64 i0 = s0 + k0 * w->dilation[0];
                  gboolean in0 = i0 >= 0 && i0 < w->in[0];
                  gboolean pad0 = i0 >= -w->pad_begin[0] && i0 < w->in[0] + w->pad_end[0];

                  for (gint64 k1 = 0; k1 < w->kernel[1]; k1++)
                    {
                      gint64 i1 = s1 + k1 * w->dilation[1];
                      gboolean in1 = in0 && i1 >= 0 && i1 < w->in[1];
                      gboolean pad1 = pad0 && i1 >= -w->pad_begin[1] && i1 < w->in[1] + w->pad_end[1];

                      for (gint64 k2 = 0; k2 < w->kernel[2]; k2++)
                        {
                          gint64 i2 = s2 + k2 * w->dilation[2];
                          gint64 idx;
                          double v;

                          if (pad1 && i2 >= -w->pad_begin[2] && i2 < w->in[2] + w->pad_end[2])
                            n_padded++;
                          if (!in1 || i2 < 0 || i2 >= w->in[2])
                            continue;
                          idx = (i0 * w->in[1] + i1) * w->in[2] + i2;
                          v = xp[idx];
                          n_valid++;
                          if (kind == POOL_MAX)
                            {
                              if (best < 0 || v > acc)
                                {
                                  acc = v;
                                  best = idx;
                                }
                            }
                          else if (kind == POOL_AVERAGE)
                            acc += v;
                          else
                            acc += pow (fabs (v), p);
                        }
                    }
                }
              if (kind == POOL_MAX)
                {
                  yp[o] = (FW_T) acc;
                  if (indices != NULL)
                    indices[pl * out_plane + o] = best < 0 ? -1 : pl * in_plane + best;
                }
              else if (kind == POOL_AVERAGE)
                {
                  gint64 n = include_pad ? n_padded : n_valid;
                  yp[o] = (FW_T) (n > 0 ? acc / (double) n : 0);
                }
              else
                yp[o] = (FW_T) pow (acc, 1.0 / p);
            }
    }
}

static void
FW_FN (global_pool) (const FW_T *x, FW_T *y, gint64 planes, gint64 size, PoolKind kind, double p,
                     guint n_threads)
{
#pragma omp parallel for num_threads (n_threads) schedule (static)
  for (gint64 pl = 0; pl < planes; pl++)
    {
      const FW_T *xp = x + pl * size;
      double acc = kind == POOL_MAX ? -G_MAXDOUBLE : 0;

      for (gint64 i = 0; i < size; i++)
        {
          double v = xp[i];

          if (kind == POOL_MAX)
            acc = i == 0 || v > acc ? v : acc;
          else if (kind == POOL_AVERAGE)
            acc += v;
          else
            acc += p == 2 ? v * v : pow (fabs (v), p);
        }
      if (kind == POOL_AVERAGE)
        acc = size > 0 ? acc / (double) size : acc;
      else if (kind == POOL_LP)
        acc = p == 2 ? sqrt (acc) : pow (acc, 1.0 / p);
      y[pl] = (FW_T) acc;
    }
}
