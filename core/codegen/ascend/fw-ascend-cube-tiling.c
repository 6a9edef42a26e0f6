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
        (guint64) t->depth_b1 * t->base_n * t->base_k * shape->b_bytes +
        (guint64) t->step_n * t->base_n * shape->bias_bytes;
  *l0a = (guint64) t->db_l0a * t->base_m * t->base_k * shape->a_bytes;
  *l0b = (guint64) t->db_l0b * t->base_k * t->base_n * shape->b_bytes;
  *l0c = (guint64) t->db_l0c * t->base_m * t->base_n * 4;
}

/* One way of spending L1, tried for every core split and base block: the iterate order, whether the operand
 * the inner loop walks is held for the core's whole share (stepM or stepN covering it), and which operands
 * keep all of K in L1 (the others' depths are halved until L1 holds the tiling). */
typedef struct
{
  gint     order;
  gboolean wide;
  gboolean keep_a, keep_b;
} L1Plan;

/* Depths and steps for a plan; FALSE when what the plan keeps does not fit L1. */
static gboolean
fill_l1 (const FwCubeShape *shape, const FwProfile *profile, const L1Plan *p, FwCubeTiling *t)
{
  gint64 ksteps = ceil_div (shape->k, t->base_k);
  gint64 mb = ceil_div (t->single_core_m, t->base_m), nb = ceil_div (t->single_core_n, t->base_n);

  t->iterate_order = p->order;
  t->step_m = p->wide && p->order == 0 ? (gint) mb : 1;
  t->step_n = p->wide && p->order == 1 ? (gint) nb : 1;
  if (p->wide && !(p->order == 0 ? p->keep_a : p->keep_b))
    return FALSE;
  t->depth_a1 = (gint) (t->step_m * ksteps);
  t->depth_b1 = (gint) (t->step_n * ksteps);
  for (;;)
    {
      guint64 l1, l0a, l0b, l0c;
      gboolean halve_a;

      fw_ascend_cube_tiling_usage (t, shape, &l1, &l0a, &l0b, &l0c);
      if (l1 <= profile->l1_bytes)
        break;
      /* An operand not kept over K: halved, the larger first. */
      if ((p->keep_a || t->depth_a1 == 1) && (p->keep_b || t->depth_b1 == 1))
        return FALSE;
      halve_a = !p->keep_a && t->depth_a1 > 1 &&
                (p->keep_b || t->depth_b1 == 1 || (guint64) t->depth_a1 * t->base_m >= (guint64) t->depth_b1 * t->base_n);
      if (halve_a)
        t->depth_a1 = MAX (1, t->depth_a1 / 2);
      else
        t->depth_b1 = MAX (1, t->depth_b1 / 2);
    }
  t->step_ka = t->depth_a1 / t->step_m;
  t->step_kb = t->depth_b1 / t->step_n;
  return TRUE;
}

/* The fields every candidate shares for one core split (m_shares x n_shares, each share whole 16-row/column
 * fractals; whole_n: one share of whole rows). K is never split (singleCoreK = K). */
static void
split_cores (const FwCubeShape *s, gint64 m_shares, gint64 n_shares, FwCubeTiling *t)
{
  gint64 scm = MIN (round_up (ceil_div (s->m, m_shares), 16), s->m);
  gint64 scn = s->whole_n ? s->n : MIN (round_up (ceil_div (s->n, n_shares), 16), s->n);

  *t = (FwCubeTiling) { 0 };
  t->m = (gint) s->m;
  t->n = (gint) s->n;
  t->ka = t->kb = t->single_core_k = (gint) s->k;
  t->is_bias = s->bias_bytes > 0;
  t->db_l0a = t->db_l0b = t->db_l0c = 1;
  t->single_core_m = (gint) scm;
  t->single_core_n = (gint) scn;
  t->used_core_num = (gint) (ceil_div (s->m, scm) * ceil_div (s->n, scn));
}

/* baseK for a base block: the largest multiple of C0 within K (rounded up) that fits L0A and L0B; 0 if none. */
static gint
pick_base_k (const FwCubeShape *shape, const FwProfile *profile, gint bm, gint bn)
{
  guint c0 = 32 / MAX (shape->a_bytes, 1u);

  for (gint64 bk = round_up (MIN (shape->k, 256), c0); bk >= c0; bk -= c0)
    if ((guint64) bm * bk * shape->a_bytes <= profile->l0a_bytes && (guint64) bk * bn * shape->b_bytes <= profile->l0b_bytes)
      return (gint) bk;
  return 0;
}

/* Whether a is better than b: fewer GM bytes, then more cores, then larger C blocks (fewer Iterate calls);
 * on a full tie the earlier candidate stays. */
static gboolean
better (const FwCubeTiling *a, gdouble a_bytes, const FwCubeTiling *b, gdouble b_bytes)
{
  if (a_bytes != b_bytes)
    return a_bytes < b_bytes;
  if (a->used_core_num != b->used_core_num)
    return a->used_core_num > b->used_core_num;
  return (gint64) a->base_m * a->base_n > (gint64) b->base_m * b->base_n;
}

/* Every candidate of one core split: each fractal-aligned baseM x baseN no larger than the share (rounded to
 * a fractal) whose float accumulators fit L0C and whose C block fits the UB budget, with its baseK and every
 * L1 plan that fits. Appends them to fits. */
static void
split_candidates (const FwCubeShape *shape, const FwProfile *profile, guint c_bytes, guint64 c_block_budget,
                  const FwCubeTiling *split, GArray *fits)
{
  static const gint bases[] = { 256, 128, 64, 32, 16 };
  static const L1Plan plans[] = {
    { 0, FALSE, TRUE, TRUE }, { 0, FALSE, FALSE, TRUE }, { 0, FALSE, TRUE, FALSE }, { 0, FALSE, FALSE, FALSE },
    { 0, TRUE, TRUE, TRUE },  { 0, TRUE, TRUE, FALSE },  { 1, FALSE, TRUE, TRUE },  { 1, FALSE, TRUE, FALSE },
    { 1, FALSE, FALSE, TRUE }, { 1, TRUE, TRUE, TRUE },  { 1, TRUE, FALSE, TRUE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bases); i++)
    for (guint j = 0; j < G_N_ELEMENTS (bases); j++)
      {
        gint bm = bases[i], bn = bases[j];
        FwCubeTiling t = *split;

        /* Whole rows: one block spans N (rounded to a fractal), whatever its size. */
        if (shape->whole_n && j > 0)
          continue;
        if (shape->whole_n)
          bn = (gint) round_up (shape->n, 16);
        if ((bm > 16 && bm > round_up (t.single_core_m, 16)) || (bn > 16 && bn > round_up (t.single_core_n, 16)))
          continue;
        if ((guint64) bm * bn * 4 > profile->l0c_bytes || (guint64) bm * bn * c_bytes > c_block_budget)
          continue;
        t.base_m = bm;
        t.base_n = bn;
        t.base_k = pick_base_k (shape, profile, bm, bn);
        if (t.base_k == 0)
          continue;
        for (guint p = 0; p < G_N_ELEMENTS (plans); p++)
          {
            FwCubeTiling c = t;
            if (fill_l1 (shape, profile, &plans[p], &c))
              g_array_append_val (fits, c);
          }
      }
}

/* The tiling: every core split (row shares by column shares), base block and L1 plan that fits is a
 * candidate; of those that keep at least three quarters of the most cores any candidate uses busy, the one
 * that moves the fewest bytes from GM by fw_ascend_cube_traffic wins (row shares multiply B's traffic, column
 * shares A's; an operand not held in L1 for the blocks that share it is read again for each of them). */
gboolean
fw_ascend_cube_tiling (const FwCubeShape *shape, const FwProfile *profile, guint c_bytes, guint64 c_block_budget,
                       FwCubeTiling *out, GError **error)
{
  gint64 cores = MAX (profile->cube_cores, 1u);
  g_autoptr(GArray) fits = g_array_new (FALSE, FALSE, sizeof (FwCubeTiling));
  g_autoptr(GArray) splits = g_array_new (FALSE, FALSE, sizeof (FwCubeTiling));
  gint most = 0, best = -1;
  gdouble best_bytes = 0;

  if (shape->m <= 0 || shape->n <= 0 || shape->k <= 0 || shape->m > G_MAXINT32 || shape->n > G_MAXINT32 ||
      shape->k > G_MAXINT32 || shape->a_bytes == 0 || shape->b_bytes == 0 || c_bytes == 0)
    goto none;
  for (gint64 m_shares = 1; m_shares <= MIN (cores, ceil_div (shape->m, 16)); m_shares++)
    {
      gint64 rows = ceil_div (shape->m, MIN (round_up (ceil_div (shape->m, m_shares), 16), shape->m));
      gint64 n_most = shape->whole_n ? 1 : MAX (1, MIN (cores / rows, ceil_div (shape->n, 16)));

      for (gint64 n_shares = 1; n_shares <= n_most; n_shares++)
        {
          FwCubeTiling split;
          gboolean seen = FALSE;

          split_cores (shape, rows, n_shares, &split);
          /* Several share counts round to one split; it is tried once. */
          for (guint i = 0; i < splits->len && !seen; i++)
            seen = g_array_index (splits, FwCubeTiling, i).single_core_m == split.single_core_m &&
                   g_array_index (splits, FwCubeTiling, i).single_core_n == split.single_core_n;
          if (seen)
            continue;
          g_array_append_val (splits, split);
          split_candidates (shape, profile, c_bytes, c_block_budget, &split, fits);
        }
    }
  for (guint i = 0; i < fits->len; i++)
    most = MAX (most, g_array_index (fits, FwCubeTiling, i).used_core_num);
  for (guint i = 0; i < fits->len; i++)
    {
      const FwCubeTiling *t = &g_array_index (fits, FwCubeTiling, i);
      gdouble bytes = fw_ascend_cube_traffic (t, shape);

      if (4 * t->used_core_num < 3 * most)
        continue;
      if (best < 0 || better (t, bytes, &g_array_index (fits, FwCubeTiling, best), best_bytes))
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

/* Whether an operand's L1 buffer holds all of K (stepKa x baseK >= K, "K全载", with depthA1 at least the
 * stepM x stepKa blocks of the buffer) and so serves every block of C that shares its rows (columns). */
static gboolean
k_resident (const FwCubeTiling *t, gboolean b)
{
  gint step_k = b ? t->step_kb : t->step_ka, step = b ? t->step_n : t->step_m, depth = b ? t->depth_b1 : t->depth_a1;

  return (gint64) step_k * t->base_k >= t->single_core_k && depth >= step * step_k;
}

gdouble
fw_ascend_cube_traffic (const FwCubeTiling *t, const FwCubeShape *shape)
{
  gint64 m_shares = ceil_div (t->m, t->single_core_m);
  gboolean a_res = k_resident (t, FALSE), b_res = k_resident (t, TRUE);
  gdouble bytes = 0;

  for (gint core = 0; core < t->used_core_num; core++)
    {
      gint64 m0 = (core % m_shares) * t->single_core_m, n0 = (core / m_shares) * t->single_core_n;
      gint64 sm = MIN ((gint64) t->single_core_m, t->m - m0), sn = MIN ((gint64) t->single_core_n, t->n - n0);
      gint64 mb = ceil_div (sm, t->base_m), nb = ceil_div (sn, t->base_n);
      /* A panel of stepM row blocks (stepN column blocks) is loaded when a block needs one the buffer does not
       * hold. Along the inner loop's axis the panels cycle once per outer step unless one panel is the share;
       * along the outer axis each panel is loaded once. Without all of K held, every block loads its own. */
      gboolean a_once = a_res && (t->iterate_order == 1 || ceil_div (mb, t->step_m) == 1);
      gboolean b_once = b_res && (t->iterate_order == 0 || ceil_div (nb, t->step_n) == 1);

      if (sm <= 0 || sn <= 0)
        continue;
      bytes += (a_once ? 1 : (gdouble) nb) * (gdouble) sm * t->single_core_k * shape->a_bytes;
      bytes += (b_once ? 1 : (gdouble) mb) * (gdouble) sn *
               ((gdouble) t->single_core_k * shape->b_bytes + (t->is_bias ? shape->bias_bytes : 0));
    }
  return bytes;
}
