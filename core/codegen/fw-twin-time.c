/* fw-twin-time.c: the twin's time estimate (fw-twin-time.h) and its rank correlation with the planner's.
 *
 * Every constant in cycles is CANN's: graph engine autofuse, att/gen_model_info/api_perf_register/v1/
 * perf_param_v1.cpp (hicann/ge, also mirror-cann/ge), the measured per-API figures of its v1 (910B) table,
 * applied as its utils/api_perf_utils.cpp does (LinearFunc: k × elements + b per call). Everything else is
 * the profile's: HBM bandwidth, cores, the clock derived from the cube's throughput. docs/ascend-twin.md
 * ("Time on the twin") lists each and says which mapping is ours. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "exec/fw-fused.h"
#include "fw-twin-time.h"

/* perf_param_v1.cpp, the "SimpleLinear" entries: cycles = k × elements + b per call, float16 and float32.
 * The twin's name first, then the table's where they differ. */
typedef struct
{
  const char *name;
  gdouble     k16, b16, k32, b32;
} LinearCost;

static const LinearCost linear_costs[] = {
  { "Abs", 0.0077, 20.0153, 0.0147, 20.0592 },
  { "Adds", 0.0071, 22.0938, 0.0141, 22.0936 },
  { "Add", 0.0103, 22.2173, 0.0206, 23.2225 },
  { "Div", 0.0460, 29.1233, 0.0454, 29.0892 },
  { "Duplicate", 0.0078, 16.9993, 0.0156, 16.9965 },
  { "Exp", 0.0311, 28.0144, 0.0307, 28.0376 },
  /* Ln is not in the table: priced as Exp, the transcendental next to it. */
  { "Ln", 0.0311, 28.0144, 0.0307, 28.0376 },
  { "Maxs", 0.0071, 20.0912, 0.0141, 20.0887 },
  { "Max", 0.0111, 20.1200, 0.0215, 20.1333 },
  { "Mins", 0.0071, 20.0896, 0.0142, 20.0876 },
  { "Min", 0.0111, 20.1104, 0.0215, 20.1271 },
  { "Muls", 0.0071, 23.1006, 0.0142, 23.0966 },
  { "Mul", 0.0110, 23.1243, 0.0206, 23.2291 },
  { "Reciprocal", 0.0078, 21.0076, 0.0146, 21.0639 },
  { "Relu", 0.0077, 20.0173, 0.0154, 20.0189 },
  { "Rsqrt", 0.0071, 21.0970, 0.0143, 21.0979 },
  { "Select", 0.0118, 45.9656, 0.0229, 43.9906 },
  { "Sqrt", 0.0312, 29.0056, 0.0313, 28.9961 },
  { "Sub", 0.0107, 22.1226, 0.0213, 22.1254 },
  /* The first-n form of ReduceSum/Max/Min is the table's WholeReduce* over the count. */
  { "ReduceSum", 0.0547, 35.0021, 0.1094, 32.0029 },
  { "ReduceMax", 0.0547, 21.0027, 0.1094, 20.0051 },
  { "ReduceMin", 0.0547, 21.0056, 0.1094, 20.0068 },
  /* The high-dimensional slicing forms (data/ascend/twin/twin_repeat.h) under their own names; their elements
   * are the lanes of the repeats issued (a masked repeat costs a whole one). */
  { "WholeReduceSum", 0.0547, 35.0021, 0.1094, 32.0029 },
  { "WholeReduceMax", 0.0547, 21.0027, 0.1094, 20.0051 },
  { "WholeReduceMin", 0.0547, 21.0056, 0.1094, 20.0068 },
  { "Brcb", 0.0074, 13.0572, 0.0146, 13.0732 },
  /* The table has one entry per mode; GT stands for all (they differ by under 1 cycle per call). */
  { "Compare", 0.0160, 20.9711, 0.0310, 21.0319 },
  { "CompareScalar", 0.0084, 21.9200, 0.0160, 21.9712 },
};

/* perf_param_v1.cpp "Cast" by (source, destination) element sizes; pairs the table lacks (float32 <->
 * int32, the same size both sides) take float16tofloat32's, the dearest of the common ones. */
static void
cast_cost (guint dst_size, guint src_size, gdouble *k, gdouble *b)
{
  if (src_size == 4 && dst_size == 2)
    *k = 0.0087, *b = 20.4393;
  else if (src_size == 2 && dst_size == 1)
    *k = 0.0083, *b = 19.9408;
  else if (src_size == 1 && dst_size == 2)
    *k = 0.0102, *b = 46.512;
  else if (src_size == 8 && dst_size == 4)
    *k = 0.0332, *b = 18.8690;
  else
    *k = 0.0147, *b = 20.1204;
}

gdouble
fw_twin_vector_cycles (const char *name, guint dst_size, guint src_size, guint64 calls, guint64 elements)
{
  gdouble k = 0.0206, b = 23.2225;  /* an instruction the table lacks: priced as float32 Add */
  /* api_perf_utils.cpp GetDefaultDataType: 8- and 16-bit types take the float16 figures, 32- and 64-bit
   * the float32 ones. */
  gboolean wide = MAX (dst_size, src_size) >= 4;

  if (strcmp (name, "Cast") == 0)
    cast_cost (dst_size, src_size, &k, &b);
  else
    for (guint i = 0; i < G_N_ELEMENTS (linear_costs); i++)
      if (strcmp (linear_costs[i].name, name) == 0)
        {
          k = wide ? linear_costs[i].k32 : linear_costs[i].k16;
          b = wide ? linear_costs[i].b32 : linear_costs[i].b16;
          break;
        }
  return k * (gdouble) elements + b * (gdouble) calls;
}

/* perf_param_v1.cpp: per-call heads of Load (GM -> UB) and Store (UB -> GM); pipe start-ups of MTE2 (by
 * block_dim, two lines split at 25,000 bytes of the largest load), MTE3 and the vector pipe; the kernel's
 * own head (GetOpHeadCost). */
#define LOAD_HEAD      27.01
#define STORE_HEAD     12.09
#define MTE2_START_THRESHOLD 25000
#define MTE3_START     497.36
#define VECTOR_START   37.37
#define OP_HEAD        300.0

static gdouble
mte2_start (guint block_dim, guint64 max_copy)
{
  return max_copy >= MTE2_START_THRESHOLD ? block_dim * 32.72 + 1575.03 : block_dim * 15.89 + 882.09;
}

/* One core's pipes, summed over its blocks. */
typedef struct
{
  gdouble mte2, vector, mte3, cube;
  guint64 max_copy;
} CorePipes;

gboolean
fw_twin_estimate_time (const GArray *blocks, const FwProfile *profile, FwTwinTime *out)
{
  guint n = blocks != NULL ? blocks->len : 0;
  guint cores, cube_cores;
  gdouble clock, bw, cube_rate;
  g_autofree CorePipes *pipes = NULL;

  memset (out, 0, sizeof *out);
  out->seconds = NAN;
  if (n == 0 || profile->cube_cores == 0 || profile->cube_flops_per_s <= 0 || profile->hbm_bytes_per_s <= 0)
    return FALSE;
  /* docs/hardware.md §1: cube peak = cube cores × 4096 fp16 MAC per cycle × 2 FLOP × clock. */
  clock = profile->cube_flops_per_s / (profile->cube_cores * 4096.0 * 2.0);
  cores = MIN (n, MAX (profile->vector_cores, 1u));
  cube_cores = MIN (n, profile->cube_cores);
  /* HBM shared by the cores that run: bytes per cycle each. */
  bw = profile->hbm_bytes_per_s / clock / cores;
  pipes = g_new0 (CorePipes, cores);
  for (guint i = 0; i < n; i++)
    {
      const FwTwinBlockCounts *b = &g_array_index (blocks, FwTwinBlockCounts, i);
      CorePipes *p = &pipes[i % cores];

      p->mte2 += b->mte2_copies * LOAD_HEAD + (gdouble) (b->mte2_bytes - MIN (b->cube_bytes, b->mte2_bytes)) / bw;
      p->mte3 += b->mte3_copies * STORE_HEAD + (gdouble) b->mte3_bytes / bw;
      p->max_copy = MAX (p->max_copy, b->mte2_max_copy);
      for (guint k = 0; b->kinds != NULL && k < b->kinds->len; k++)
        {
          const FwTwinVectorKind *v = &g_array_index (b->kinds, FwTwinVectorKind, k);
          p->vector += fw_twin_vector_cycles (v->name, v->dst_size, v->src_size, v->calls, v->elements);
        }
      if (b->cube_macs > 0)
        {
          /* 4096 fp16 MACs per cycle per cube core (the clock's derivation); 32-bit inputs at half that rate, as
           * the planner assumes (fw-estimate.c node_rate); int8 inputs at the profile's cube_int8 over its fp16
           * rate (twice on 910B, docs/hardware.md), as the planner prices integer groups. Blocks beyond the
           * cube cores share them. */
          cube_rate = (b->cube_size >= 4 ? 2048.0 : 4096.0) * MIN (1.0, (gdouble) cube_cores / cores);
          if (b->cube_size == 1 && profile->cube_flops_per_s > 0 && profile->cube_int8_ops_per_s > 0)
            cube_rate *= profile->cube_int8_ops_per_s / profile->cube_flops_per_s;
          p->cube += (gdouble) b->cube_macs / cube_rate + (gdouble) b->cube_bytes / bw;
        }
    }
  out->clock_hz = clock;
  out->cores = cores;
  for (guint c = 0; c < cores; c++)
    {
      CorePipes *p = &pipes[c];
      gdouble mte2 = p->mte2 > 0 ? p->mte2 + mte2_start (n, p->max_copy) : 0;
      gdouble mte3 = p->mte3 > 0 ? p->mte3 + MTE3_START : 0;
      gdouble vec = p->vector > 0 ? p->vector + VECTOR_START : 0;
      gdouble t = MAX (MAX (mte2, mte3), MAX (vec, p->cube));

      if (t + OP_HEAD > out->cycles)
        {
          out->cycles = t + OP_HEAD;
          out->mte2_cycles = mte2;
          out->mte3_cycles = mte3;
          out->vector_cycles = vec;
          out->cube_cycles = p->cube;
        }
    }
  out->seconds = profile->launch_overhead_s + out->cycles / clock;
  return TRUE;
}

gdouble
fw_twin_rank_correlation (const gdouble *twin, const gdouble *planner, guint n)
{
  g_autofree gdouble *x = g_new (gdouble, MAX (n, 1u));
  g_autofree gdouble *y = g_new (gdouble, MAX (n, 1u));
  guint m = 0;

  for (guint i = 0; i < n; i++)
    if (isfinite (twin[i]) && isfinite (planner[i]))
      {
        x[m] = twin[i];
        y[m++] = planner[i];
      }
  return fw_rank_correlation (x, y, m);
}
