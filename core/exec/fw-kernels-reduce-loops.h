/* fw-kernels-reduce-loops.h: the typed loops of fw-kernels-reduce.c, included with FW_T float, double and
 * gint64. FW_ACC is the accumulator (double for the floating types), FW_ADD and FW_MUL add and multiply
 * in it and FW_ISNAN tests for NaN (wrapping for integers, as ONNX Runtime's 32- and 64-bit arithmetic does). Data is seen as
 * [outer, n, inner] with the reduced or scanned axis in the middle. */

static inline FW_ACC
FW_FN (reduce_init) (ReduceKind kind)
{
  switch (kind)
    {
    case REDUCE_PROD:
      return 1;
    case REDUCE_MAX:
      return FW_ACC_LOWEST;
    case REDUCE_MIN:
      return FW_ACC_HIGHEST;
    default:
      return 0;
    }
}

static inline FW_ACC
FW_FN (reduce_step) (ReduceKind kind, FW_ACC acc, FW_ACC v, FW_ACC max)
{
  switch (kind)
    {
    case REDUCE_L1:
      return FW_ADD (acc, v < 0 ? -v : v);
    case REDUCE_L2:
    case REDUCE_SUM_SQUARE:
      return FW_ADD (acc, FW_MUL (v, v));
    case REDUCE_LOG_SUM_EXP:
      return acc + (FW_ACC) exp ((double) (v - max));
    case REDUCE_MAX:
      return v > acc || FW_ISNAN (v) ? v : acc;
    case REDUCE_MIN:
      return v < acc || FW_ISNAN (v) ? v : acc;
    case REDUCE_PROD:
      return FW_MUL (acc, v);
    default:
      return FW_ADD (acc, v);
    }
}

static inline FW_T
FW_FN (reduce_finish) (ReduceKind kind, FW_ACC acc, gint64 n, FW_ACC max)
{
  switch (kind)
    {
    case REDUCE_L2:
      return (FW_T) sqrt ((double) acc);
    case REDUCE_LOG_SUM:
      return (FW_T) log ((double) acc);
    case REDUCE_LOG_SUM_EXP:
      return (FW_T) ((double) max + log ((double) acc));
    case REDUCE_MEAN:
      return (FW_T) (n > 0 ? acc / (FW_ACC) n : acc);
    default:
      return (FW_T) acc;
    }
}

/* Rows of n contiguous elements (inner 1), or blocks of up to 256 columns accumulated row by row so the
 * reads stay contiguous when the reduced axis is not the last. */
static void
FW_FN (reduce) (const FW_T *x, FW_T *y, gint64 outer, gint64 n, gint64 inner, ReduceKind kind, guint n_threads)
{
  if (inner == 1)
    {
#pragma omp parallel for num_threads (n_threads) schedule (static)
      for (gint64 o = 0; o < outer; o++)
        {
          const FW_T *row = x + o * n;
          FW_ACC acc = FW_FN (reduce_init) (kind), max = FW_ACC_LOWEST;

          if (kind == REDUCE_LOG_SUM_EXP)
            {
              for (gint64 i = 0; i < n; i++)
                max = row[i] > max ? row[i] : max;
              if (max == FW_ACC_LOWEST || FW_ISNAN (max))
                max = 0;
            }
          for (gint64 i = 0; i < n; i++)
            acc = FW_FN (reduce_step) (kind, acc, row[i], max);
          y[o] = FW_FN (reduce_finish) (kind, acc, n, max);
        }
      return;
    }
  {
    gint64 n_chunks = (inner + 255) / 256;

#pragma omp parallel for num_threads (n_threads) schedule (static)
    for (gint64 t = 0; t < outer * n_chunks; t++)
      {
        gint64 o = t / n_chunks, j0 = (t % n_chunks) * 256, len = MIN (256, inner - j0);
        const FW_T *base = x + o * n * inner + j0;
        FW_ACC acc[256], max[256];

        for (gint64 j = 0; j < len; j++)
          {
            acc[j] = FW_FN (reduce_init) (kind);
            max[j] = FW_ACC_LOWEST;
          }
        if (kind == REDUCE_LOG_SUM_EXP)
          {
            for (gint64 i = 0; i < n; i++)
              for (gint64 j = 0; j < len; j++)
                max[j] = base[i * inner + j] > max[j] ? base[i * inner + j] : max[j];
            for (gint64 j = 0; j < len; j++)
              if (max[j] == FW_ACC_LOWEST || FW_ISNAN (max[j]))
                max[j] = 0;
          }
        for (gint64 i = 0; i < n; i++)
          for (gint64 j = 0; j < len; j++)
            acc[j] = FW_FN (reduce_step) (kind, acc[j], base[i * inner + j], max[j]);
        for (gint64 j = 0; j < len; j++)
          y[o * inner + j0 + j] = FW_FN (reduce_finish) (kind, acc[j], n, max[j]);
      }
  }
}

/* Copies x into y with the axes in perm's order (y axis i is x axis perm[i]). */
static void
FW_FN (permute) (const FW_T *x, FW_T *y, guint rank, const gint64 *dims, const guint *perm, gint64 n)
{
  gint64 x_strides[FW_MAX_RANK], coord[FW_MAX_RANK] = { 0 }, src = 0, stride = 1;

  for (gint i = (gint) rank - 1; i >= 0; i--)
    {
      x_strides[i] = stride;
      stride *= dims[i];
    }
  for (gint64 e = 0; e < n; e++)
    {
      y[e] = x[src];
      for (gint d = (gint) rank - 1; d >= 0; d--)
        {
          coord[d]++;
          src += x_strides[perm[d]];
          if (coord[d] < dims[perm[d]])
            break;
          src -= coord[d] * x_strides[perm[d]];
          coord[d] = 0;
        }
    }
}

static void
FW_FN (arg_reduce) (const FW_T *x, gint64 *y, gint64 outer, gint64 n, gint64 inner, gboolean is_max,
                    gboolean last, guint n_threads)
{
#pragma omp parallel for num_threads (n_threads) schedule (static)
  for (gint64 t = 0; t < outer * inner; t++)
    {
      const FW_T *base = x + (t / inner) * n * inner + t % inner;
      gint64 best = 0;

      for (gint64 i = 1; i < n; i++)
        {
          FW_T v = base[i * inner], b = base[best * inner];

          if (is_max ? (v > b || (last && v == b)) : (v < b || (last && v == b)))
            best = i;
        }
      y[t] = best;
    }
}

static void
FW_FN (cumsum) (const FW_T *x, FW_T *y, gint64 outer, gint64 n, gint64 inner, gboolean exclusive,
                gboolean reverse, guint n_threads)
{
#pragma omp parallel for num_threads (n_threads) schedule (static)
  for (gint64 t = 0; t < outer * inner; t++)
    {
      gint64 base = (t / inner) * n * inner + t % inner;
      FW_ACC acc = 0;

      for (gint64 k = 0; k < n; k++)
        {
          gint64 i = base + (reverse ? n - 1 - k : k) * inner;
          FW_ACC v = x[i];

          if (exclusive)
            {
              y[i] = (FW_T) acc;
              acc = FW_ADD (acc, v);
            }
          else
            {
              acc = FW_ADD (acc, v);
              y[i] = (FW_T) acc;
            }
        }
    }
}

typedef struct
{
  FW_T   v;
  gint64 i;
} FW_FN (Item);

/* Largest first, ties to the lower index; NaN counts as the largest value, as ONNX Runtime orders it. */
static int
FW_FN (compare_largest) (const void *pa, const void *pb)
{
  const FW_FN (Item) *a = pa, *b = pb;
  gboolean na = FW_ISNAN (a->v), nb = FW_ISNAN (b->v);

  if (na != nb)
    return na ? -1 : 1;
  if (!na && a->v != b->v)
    return a->v > b->v ? -1 : 1;
  return a->i < b->i ? -1 : a->i > b->i;
}

static int
FW_FN (compare_smallest) (const void *pa, const void *pb)
{
  const FW_FN (Item) *a = pa, *b = pb;
  gboolean na = FW_ISNAN (a->v), nb = FW_ISNAN (b->v);

  if (na != nb)
    return na ? 1 : -1;
  if (!na && a->v != b->v)
    return a->v < b->v ? -1 : 1;
  return a->i < b->i ? -1 : a->i > b->i;
}

static void
FW_FN (topk) (const FW_T *x, FW_T *values, gint64 *indices, gint64 outer, gint64 n, gint64 inner, gint64 k,
              gboolean largest, guint n_threads)
{
#pragma omp parallel for num_threads (n_threads) schedule (static)
  for (gint64 t = 0; t < outer * inner; t++)
    {
      gint64 o = t / inner, j = t % inner;
      FW_FN (Item) *items = g_new (FW_FN (Item), MAX (n, 1));

      for (gint64 i = 0; i < n; i++)
        {
          items[i].v = x[(o * n + i) * inner + j];
          items[i].i = i;
        }
      qsort (items, n, sizeof *items, largest ? FW_FN (compare_largest) : FW_FN (compare_smallest));
      for (gint64 i = 0; i < k; i++)
        {
          values[(o * k + i) * inner + j] = items[i].v;
          indices[(o * k + i) * inner + j] = items[i].i;
        }
      g_free (items);
    }
}
