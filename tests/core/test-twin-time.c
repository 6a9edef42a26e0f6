/* The twin's time estimate (core/codegen/fw-twin-time.c) on hand-made counts with known cycles, and the
 * rank correlation it is compared with the planner's by, on known vectors. No compiler needed. */
#include "config.h"

#include <math.h>

#include "codegen/fw-twin-time.h"
#include "hw/fw-profile.h"

static FwProfile *
profile_910b (void)
{
  g_autoptr(GError) error = NULL;
  FwProfile *p = fw_profile_load_builtin ("ascend-910b", &error);

  g_assert_no_error (error);
  return p;
}

static GArray *
new_blocks (guint n)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (FwTwinBlockCounts));

  g_array_set_size (a, n);
  return a;
}

static void
assert_close (gdouble got, gdouble want)
{
  g_assert_cmpfloat (fabs (got - want), <=, 1e-9 * MAX (1.0, fabs (want)));
}

/* perf_param_v1.cpp's linear costs: k × elements + b per call, by element size; Cast by the pair. */
static void
test_vector_cycles (void)
{
  assert_close (fw_twin_vector_cycles ("Add", 4, 4, 2, 128), 0.0206 * 128 + 23.2225 * 2);
  assert_close (fw_twin_vector_cycles ("Add", 2, 2, 1, 128), 0.0103 * 128 + 22.2173);
  assert_close (fw_twin_vector_cycles ("Exp", 4, 4, 3, 1000), 0.0307 * 1000 + 28.0376 * 3);
  assert_close (fw_twin_vector_cycles ("ReduceSum", 4, 4, 1, 64), 0.1094 * 64 + 32.0029);
  /* The high-dimensional slicing forms under their own entries: 8 repeats of 64 float lanes in one call. */
  assert_close (fw_twin_vector_cycles ("WholeReduceSum", 4, 4, 1, 512), 0.1094 * 512 + 32.0029);
  assert_close (fw_twin_vector_cycles ("WholeReduceMax", 2, 2, 1, 1024), 0.0547 * 1024 + 21.0027);
  assert_close (fw_twin_vector_cycles ("Brcb", 4, 4, 2, 128), 0.0146 * 128 + 13.0732 * 2);
  assert_close (fw_twin_vector_cycles ("Cast", 2, 4, 1, 64), 0.0087 * 64 + 20.4393);
  assert_close (fw_twin_vector_cycles ("Cast", 4, 2, 1, 64), 0.0147 * 64 + 20.1204);
  /* Not in the table: float32 Add's figure. */
  assert_close (fw_twin_vector_cycles ("Unheard", 4, 4, 1, 64), 0.0206 * 64 + 23.2225);
}

/* One block, one GM -> UB copy of 25,600 bytes: the copy's head, its bytes at the whole HBM bandwidth (one
 * core runs), MTE2's start-up for a load of at least 25,000 bytes at block_dim 1, the kernel's head; the
 * clock is the cube's (354 TFLOP/s over 24 cores × 4096 MAC × 2). */
static void
test_one_copy (void)
{
  g_autoptr(FwProfile) p = profile_910b ();
  g_autoptr(GArray) blocks = new_blocks (1);
  FwTwinBlockCounts *b = &g_array_index (blocks, FwTwinBlockCounts, 0);
  FwTwinTime t;
  gdouble clock = p->cube_flops_per_s / (24 * 4096.0 * 2), bw = p->hbm_bytes_per_s / clock;
  gdouble cycles = 27.01 + 25600 / bw + (32.72 + 1575.03) + 300;

  b->mte2_bytes = b->mte2_max_copy = 25600;
  b->mte2_copies = 1;
  g_assert_true (fw_twin_estimate_time (blocks, p, &t));
  assert_close (t.clock_hz, clock);
  assert_close (t.cycles, cycles);
  assert_close (t.seconds, p->launch_overhead_s + cycles / clock);
  g_assert_cmpuint (t.cores, ==, 1);
  /* Below 25,000 bytes MTE2 starts on the small line. */
  b->mte2_bytes = b->mte2_max_copy = 1024;
  g_assert_true (fw_twin_estimate_time (blocks, p, &t));
  assert_close (t.cycles, 27.01 + 1024 / bw + (15.89 + 882.09) + 300);
}

/* The busiest pipe sets a core's time; blocks run on cores in parallel, one after another on a core. */
static void
test_pipes_and_cores (void)
{
  g_autoptr(FwProfile) p = profile_910b ();
  g_autoptr(GArray) blocks = new_blocks (2);
  FwTwinVectorKind add = { (char *) "Add", 4, 4, 10, 100000, 0 };
  FwTwinTime one, t;
  gdouble vec = fw_twin_vector_cycles ("Add", 4, 4, 10, 100000);

  for (guint i = 0; i < 2; i++)
    {
      FwTwinBlockCounts *b = &g_array_index (blocks, FwTwinBlockCounts, i);
      b->kinds = g_array_new (FALSE, TRUE, sizeof (FwTwinVectorKind));
      g_array_append_val (b->kinds, add);
      b->mte2_bytes = b->mte2_max_copy = b->mte3_bytes = 64;
      b->mte2_copies = b->mte3_copies = 1;
    }
  /* Two cores: each block on its own, the vector pipe dominates. */
  g_assert_true (fw_twin_estimate_time (blocks, p, &t));
  g_assert_cmpuint (t.cores, ==, 2);
  assert_close (t.vector_cycles, vec + 37.37);
  assert_close (t.cycles, vec + 37.37 + 300);
  /* One vector core: both blocks on it, the vector pipe's work doubles. */
  p->vector_cores = 1;
  g_assert_true (fw_twin_estimate_time (blocks, p, &one));
  g_assert_cmpuint (one.cores, ==, 1);
  assert_close (one.cycles, 2 * vec + 37.37 + 300);
  for (guint i = 0; i < 2; i++)
    {
      FwTwinBlockCounts *b = &g_array_index (blocks, FwTwinBlockCounts, i);
      g_array_unref (b->kinds);
    }
}

/* The Matmul API's cube work: 4096 fp16 MACs per cycle per cube core, half for float; its GM reads at the
 * core's bandwidth, not on the vector core's MTE2. */
static void
test_cube (void)
{
  g_autoptr(FwProfile) p = profile_910b ();
  g_autoptr(GArray) blocks = new_blocks (1);
  FwTwinBlockCounts *b = &g_array_index (blocks, FwTwinBlockCounts, 0);
  FwTwinTime t;
  gdouble clock = p->cube_flops_per_s / (24 * 4096.0 * 2), bw = p->hbm_bytes_per_s / clock;

  b->cube_macs = 4096 * 1000;
  b->cube_bytes = b->mte2_bytes = 8192;
  b->cube_size = 2;
  g_assert_true (fw_twin_estimate_time (blocks, p, &t));
  assert_close (t.cube_cycles, 1000 + 8192 / bw);
  g_assert_cmpfloat (t.mte2_cycles, ==, 0);
  b->cube_size = 4;
  g_assert_true (fw_twin_estimate_time (blocks, p, &t));
  assert_close (t.cube_cycles, 2000 + 8192 / bw);
  /* No block, no estimate. */
  g_array_set_size (blocks, 0);
  g_assert_false (fw_twin_estimate_time (blocks, p, &t));
  g_assert_true (isnan (t.seconds));
}

/* Spearman on known vectors: ties take their average rank; pairs with a NAN are left out; fewer than three
 * pairs or a flat side give NAN. */
static void
test_rank_correlation (void)
{
  const gdouble x[] = { 1, 2, 3, 4, 5 }, y[] = { 5, 6, 7, 8, 7 };
  const gdouble up[] = { 10, 20, 30, 40 }, down[] = { 4, 3, 2, 1 };
  const gdouble a[] = { 1, NAN, 2, 3 }, b[] = { 3, 1, 2, 1 };
  const gdouble flat[] = { 2, 2, 2, 2 };

  /* Ranks of y: 1, 2, 3.5, 5, 3.5; Σdxdy = 8, Σdx² = 10, Σdy² = 9.5. */
  assert_close (fw_twin_rank_correlation (x, y, 5), 8 / sqrt (10 * 9.5));
  assert_close (fw_twin_rank_correlation (up, down, 4), -1);
  assert_close (fw_twin_rank_correlation (up, up, 4), 1);
  assert_close (fw_twin_rank_correlation (a, b, 4), -1);
  g_assert_true (isnan (fw_twin_rank_correlation (a, b, 3)));
  g_assert_true (isnan (fw_twin_rank_correlation (up, flat, 4)));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/twin-time/vector-cycles", test_vector_cycles);
  g_test_add_func ("/core/twin-time/one-copy", test_one_copy);
  g_test_add_func ("/core/twin-time/pipes-and-cores", test_pipes_and_cores);
  g_test_add_func ("/core/twin-time/cube", test_cube);
  g_test_add_func ("/core/twin-time/rank-correlation", test_rank_correlation);
  return g_test_run ();
}
