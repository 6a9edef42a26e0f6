/* fw-twin-time.h: how long a kernel the twin ran would take on the chip, from what each of its blocks moved
 * and issued (FwTwinBlockCounts), and how that ranks against the planner's estimates.
 *
 * The model is CANN's ATT model of a vector kernel (docs/ascend-twin.md, "Time on the twin"): every API call
 * costs a linear number of cycles (per element and per call, the measured figures of autofuse's
 * perf_param_v1.cpp), the pipes of one core overlap (a core takes as long as its busiest pipe plus that
 * pipe's start-up), blocks run on the profile's cores in parallel (block b on core b mod cores, the kernel
 * as long as its slowest core). Bandwidths and the clock come from the profile the planner prices with. */
#pragma once

#include <glib.h>

#include "fw-ascend-twin.h"
#include "hw/fw-profile.h"

G_BEGIN_DECLS

/* The estimate and where it went: each pipe's cycles on the slowest core (start-up included) and the
 * clock the cycles were counted at. */
typedef struct
{
  gdouble seconds;       /* launch overhead + the slowest core's cycles / clock */
  gdouble cycles;        /* the slowest core's, with the kernel's start-up */
  gdouble clock_hz;
  gdouble mte2_cycles;
  gdouble vector_cycles;
  gdouble mte3_cycles;
  gdouble cube_cycles;
  guint   cores;         /* cores the blocks ran on */
} FwTwinTime;

/* blocks: FwTwinBlockCounts by block index. FALSE (out zero, seconds NAN) when there is no block or the
 * profile gives no clock (no cube cores or throughput). */
gboolean fw_twin_estimate_time      (const GArray       *blocks,
                                     const FwProfile    *profile,
                                     FwTwinTime         *out);

/* The cycles one call of a vector instruction of count elements costs: CANN's linear figure for the name
 * and the element sizes (twin's spelling: "Add", "ReduceSum", "Cast" with dst and src sizes). */
gdouble  fw_twin_vector_cycles      (const char         *name,
                                     guint               dst_size,
                                     guint               src_size,
                                     guint64             calls,
                                     guint64             elements);

/* Spearman's rank correlation (fw_rank_correlation, ties averaged) of the twin's and the planner's
 * estimates over the kernels where both are finite: NAN with fewer than three such or when a side is flat. */
gdouble  fw_twin_rank_correlation   (const gdouble      *twin,
                                     const gdouble      *planner,
                                     guint               n);

G_END_DECLS
