/* fw-ascend-cube-tiling.c: a TCubeTiling for a mixed cube + vector kernel (fw-ascend-cube-tiling.h). */
#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>

#include "fw-ascend-cube-tiling.h"
#include "fw-error.h"

static gint64
ceil_div (gint64 a, gint64 b)
{
  return (a + b - 1) / b;
}

static gint64
round_up (gint64 a, gint64 b)
{
  return ceil_div (a, b) * b;
}

void
fw_ascend_cube_tiling_usage (const FwCubeTiling *t, const FwCubeShape *shape, guint64 *l1, guint64 *l0a, guint64 *l0b,
                             guint64 *l0c)
{
  *l1 = (guint64) t->depth_a1 * t->base_m * t->base_k * shape->a_bytes +
        (guint64) t->depth_b1 * t->base_n * t->base_k * shape->b_bytes + (guint64) t->base_n * shape->bias_bytes;
  *l0a = (guint64) t->db_l0a * t->base_m * t->base_k * shape->a_bytes;
  *l0b = (guint64) t->db_l0b * t->base_k * t->base_n * shape->b_bytes;
  *l0c = (guint64) t->db_l0c * t->base_m * t->base_n * 4;
}

/* Cores: C in m_shares row shares of whole 16-row fractals, and as many column shares (16-column fractals)
 * as the cores left allow (one with whole rows). K is never split (singleCoreK = K). */
static void
split_cores (const FwCubeShape *s, guint cores, gint64 m_shares, FwCubeTiling *t)
{
  gint64 scm = MIN (round_up (ceil_div (s->m, m_shares), 16), s->m);
  gint64 n_shares, scn;

  m_shares = ceil_div (s->m, scm);
  n_shares = s->whole_n ? 1 : MAX (1, MIN ((gint64) cores / m_shares, ceil_div (s->n, 16)));
  scn = MIN (round_up (ceil_div (s->n, n_shares), 16), s->n);
  t->single_core_m = (gint) scm;
  t->single_core_n = (gint) scn;
  t->used_core_num = (gint) (ceil_div (s->m, scm) * ceil_div (s->n, scn));
}

/* The bases and L1 depths for one core split; FALSE when nothing fits. */
static gboolean
fill_tiling (const FwCubeShape *shape, const FwProfile *profile, guint c_bytes, guint64 c_block_budget,
             gint64 m_shares, FwCubeTiling *out)
{
  static const gint bases[] = { 256, 128, 64, 32, 16 };
  FwCubeTiling t = { 0 };
  guint c0 = 32 / MAX (shape->a_bytes, 1u);
  gint64 ksteps;

  t.m = (gint) shape->m;
  t.n = (gint) shape->n;
  t.ka = t.kb = t.single_core_k = (gint) shape->k;
  t.step_m = t.step_n = 1;
  t.is_bias = shape->bias_bytes > 0;
  t.iterate_order = 0;
  t.db_l0a = t.db_l0b = t.db_l0c = 1;
  split_cores (shape, MAX (profile->cube_cores, 1u), m_shares, &t);
  /* baseM x baseN: no larger than the core's share rounded to a fractal; accumulators in L0C, the block in UB. */
  for (guint i = 0; i < G_N_ELEMENTS (bases) && t.base_m == 0; i++)
    for (guint j = 0; j < G_N_ELEMENTS (bases) && t.base_m == 0; j++)
      {
        gint bm = bases[i], bn = bases[j];

        if ((bm > 16 && bm > round_up (t.single_core_m, 16)) || (bn > 16 && bn > round_up (t.single_core_n, 16)))
          continue;
        /* Whole rows: one block spans N (rounded to a fractal), whatever its size. */
        if (shape->whole_n)
          bn = (gint) round_up (shape->n, 16);
        if ((guint64) bm * bn * 4 > profile->l0c_bytes || (guint64) bm * bn * c_bytes > c_block_budget)
          continue;
        t.base_m = bm;
        t.base_n = bn;
      }
  if (t.base_m == 0)
    return FALSE;
  /* baseK: the largest multiple of C0 within K (rounded up) that fits L0A and L0B. */
  for (gint64 bk = round_up (MIN (shape->k, 256), c0); bk >= c0 && t.base_k == 0; bk -= c0)
    if ((guint64) t.base_m * bk * shape->a_bytes <= profile->l0a_bytes &&
        (guint64) bk * t.base_n * shape->b_bytes <= profile->l0b_bytes)
      t.base_k = (gint) bk;
  if (t.base_k == 0)
    return FALSE;
  /* L1: A's and B's blocks over all of K when they fit (each read from GM once per block of C that needs it),
   * else halved until they do. */
  ksteps = ceil_div (shape->k, t.base_k);
  t.step_ka = t.step_kb = t.depth_a1 = t.depth_b1 = (gint) ksteps;
  for (;;)
    {
      guint64 l1, l0a, l0b, l0c;

      fw_ascend_cube_tiling_usage (&t, shape, &l1, &l0a, &l0b, &l0c);
      if (l1 <= profile->l1_bytes)
        break;
      if (t.depth_a1 == 1 && t.depth_b1 == 1)
        return FALSE;
      if (t.depth_a1 >= t.depth_b1)
        t.depth_a1 = t.step_ka = MAX (1, t.depth_a1 / 2);
      else
        t.depth_b1 = t.step_kb = MAX (1, t.depth_b1 / 2);
    }
  *out = t;
  return TRUE;
}

/* The core split: every way of cutting C into row shares (the rest of the cores cutting columns) is tiled,
 * and of those that keep at least three quarters of the most cores any split uses busy, the one that moves
 * the fewest bytes from GM wins (fw_ascend_cube_traffic: a core reads its rows of A for each column block
 * and its columns of B once, so M shares multiply B's traffic and N shares A's); ties go to more cores. */
gboolean
fw_ascend_cube_tiling (const FwCubeShape *shape, const FwProfile *profile, guint c_bytes, guint64 c_block_budget,
                       FwCubeTiling *out, GError **error)
{
  guint cores = MAX (profile->cube_cores, 1u);
  g_autoptr(GArray) fits = g_array_new (FALSE, FALSE, sizeof (FwCubeTiling));
  gint most = 0, best = -1;
  gdouble best_bytes = 0;

  if (shape->m <= 0 || shape->n <= 0 || shape->k <= 0 || shape->m > G_MAXINT32 || shape->n > G_MAXINT32 ||
      shape->k > G_MAXINT32 || shape->a_bytes == 0 || shape->b_bytes == 0 || c_bytes == 0)
    goto none;
  for (gint64 m_shares = 1; m_shares <= MIN ((gint64) cores, ceil_div (shape->m, 16)); m_shares++)
    {
      FwCubeTiling t;
      if (!fill_tiling (shape, profile, c_bytes, c_block_budget, m_shares, &t))
        continue;
      g_array_append_val (fits, t);
      most = MAX (most, t.used_core_num);
    }
  for (guint i = 0; i < fits->len; i++)
    {
      const FwCubeTiling *t = &g_array_index (fits, FwCubeTiling, i);
      gdouble bytes = fw_ascend_cube_traffic (t, shape);

      if (4 * t->used_core_num < 3 * most)
        continue;
      if (best < 0 || bytes < best_bytes ||
          (bytes == best_bytes && t->used_core_num > g_array_index (fits, FwCubeTiling, best).used_core_num))
        {
          best = (gint) i;
          best_bytes = bytes;
        }
    }
  if (best < 0)
    goto none;
  *out = g_array_index (fits, FwCubeTiling, best);
  return TRUE;

none:
  g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
               _("Ascend target: no cube tiling fits a %" PRId64 " x %" PRId64 " x %" PRId64
                 " matrix product in the profile's L1, L0 and Unified Buffer"),
               shape->m, shape->n, shape->k);
  return FALSE;
}

gdouble
fw_ascend_cube_traffic (const FwCubeTiling *t, const FwCubeShape *shape)
{
  gint64 m_shares = ceil_div (t->m, t->single_core_m), ksteps = ceil_div (t->single_core_k, t->base_k);
  gboolean a_resident = t->depth_a1 >= ksteps * t->step_m, b_resident = t->depth_b1 >= ksteps * t->step_n;
  gdouble bytes = 0;

  for (gint core = 0; core < t->used_core_num; core++)
    {
      gint64 m0 = (core % m_shares) * t->single_core_m, n0 = (core / m_shares) * t->single_core_n;
      gint64 sm = MIN ((gint64) t->single_core_m, t->m - m0), sn = MIN ((gint64) t->single_core_n, t->n - n0);
      gint64 mb = ceil_div (sm, t->base_m), nb = ceil_div (sn, t->base_n);
      gdouble a_loads = a_resident && mb == 1 ? 1 : (gdouble) nb;
      gdouble b_loads = b_resident ? 1 : (gdouble) mb;

      if (sm <= 0 || sn <= 0)
        continue;
      bytes += a_loads * (gdouble) sm * t->single_core_k * shape->a_bytes;
      bytes += b_loads * (gdouble) sn * ((gdouble) t->single_core_k * shape->b_bytes + (t->is_bias ? shape->bias_bytes : 0));
    }
  return bytes;
}
