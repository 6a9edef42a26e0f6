/* fw-host-threads.h: how many threads the host gives a loop, decided here once. The reference kernels
 * (core/exec) split their loops by it, and the host profile's prices (core/plan/fw-estimate.c) read it to
 * know which unfused ops run on one core: an op under the threshold there takes a core's rate, not the
 * machine's. Before one rule, the elementwise kernels split from 65,537 elements and the reductions from
 * 32,768, and bert_like's LayerNorm ops, 65,536 elements each, ran on one thread while the cost model
 * priced them on two. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Element-operations below which waking a second thread costs more than it saves (an OpenMP fork and
 * join is 1 to 7 µs here; 32 Ki additions take about 10 µs on one core). */
#define FW_HOST_PARALLEL_MIN_WORK 32768

/* The threads a loop of `work` element-operations runs on, of n_threads: all of them, or one. */
static inline guint
fw_host_loop_threads (gint64 work, guint n_threads)
{
  return work >= FW_HOST_PARALLEL_MIN_WORK ? MAX (n_threads, 1u) : 1u;
}

G_END_DECLS
