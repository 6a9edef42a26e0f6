/* fw-estimate.c: what a group costs the chip and what it saves.
 *
 * Resource: a tile of the iteration space is chosen so that every buffer live at once fits in the profile's
 * Unified Buffer budget: streamed inputs and outputs double-buffered (load of the next tile overlaps compute
 * on this one, as CANN's TQue<…, 2> does), intermediates single-buffered at their peak liveness. Row
 * reductions need whole rows in a tile.
 *
 * Time: a kernel takes as long as its slowest pipeline (HBM load, compute, HBM store) plus launch and sync
 * overhead: the shape of CANN's pipeline model and XLA's GPU performance model. Unfused, every node is a
 * kernel of its own; fused, the group reads each outside input once and writes only what leaves it. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "fw-plan-private.h"
#include "fw-qdq.h"
#include "hw/fw-host-threads.h"
#include "ops/fw-op-registry.h"

static gdouble
value_bytes (const FwValue *value)
{
  gint64 n = fw_value_get_n_elements (value), bytes;

  if (n < 0 || !fw_dtype_bytes_for (value->dtype, n, &bytes))
    return 0;
  return (gdouble) bytes;
}

FwKernelSpec *
fw_group_spec (const FwGroup *group, const FwProfile *profile, gboolean broadcast_rows)
{
  return fw_kernel_spec_new (group->nodes, group->root, &group->space, profile, broadcast_rows);
}

/* Gives the candidate's spec the target's arrangement; FALSE when the target cannot make the kernel. */
static gboolean
arrange (FwPlan *plan, FwCandidate *candidate)
{
  FwUbArrangement arrangement;
  gboolean ok;

  fw_ub_arrangement_init (&arrangement);
  ok = plan->options.arrange (plan, candidate, &arrangement, NULL);
  if (ok)
    fw_kernel_spec_take_arrangement (candidate->spec, &arrangement);
  fw_ub_arrangement_clear (&arrangement);
  return ok;
}

void
fw_candidate_set_spec (FwPlan *plan, FwCandidate *candidate, const FwGroup *group)
{
  g_clear_pointer (&candidate->spec, fw_kernel_spec_free);
  candidate->spec = fw_group_spec (group, plan->profile, TRUE);
  /* The target's own buffers, when it is given and can make the kernel, are what the tile is priced by.
   * Broadcast rows whose one row does not fit by those buffers are given up for a flat tiling. */
  if (plan->options.arrange != NULL && arrange (plan, candidate) &&
      fw_kernel_spec_get_reduce_axes (candidate->spec) == 0 && fw_kernel_spec_get_space (candidate->spec)->row_axes > 0 &&
      fw_kernel_spec_ub_bytes (candidate->spec, 1, (gdouble) fw_space_row_elements (fw_kernel_spec_get_space (candidate->spec)),
                               1.0, NULL) > fw_profile_budget_bytes (plan->profile))
    {
      fw_kernel_spec_free (candidate->spec);
      candidate->spec = fw_group_spec (group, plan->profile, FALSE);
      arrange (plan, candidate);
    }
  fw_estimate_resource (candidate->spec, plan->profile, &candidate->spec->resource);
  fw_estimate_cost (candidate->spec, plan->profile, &candidate->spec->cost);
}

static const FwResourceEstimate no_resource;
static const FwCostEstimate no_cost;

const FwResourceEstimate *
fw_candidate_get_resource (const FwCandidate *candidate)
{
  return candidate->spec != NULL ? fw_kernel_spec_get_resource (candidate->spec) : &no_resource;
}

const FwCostEstimate *
fw_candidate_get_cost (const FwCandidate *candidate)
{
  return candidate->spec != NULL ? fw_kernel_spec_get_cost (candidate->spec) : &no_cost;
}

gboolean
fw_estimate_resource (const FwKernelSpec *spec, const FwProfile *profile, FwResourceEstimate *out)
{
  const FwSpace *space = fw_kernel_spec_get_space (spec);
  guint n_streams = 0;
  gdouble total = (gdouble) fw_space_elements (space);
  gdouble row = (gdouble) fw_space_row_elements (space);
  gdouble unit, units, per_core, lo, hi, budget = fw_profile_budget_bytes (profile);
  guint align = MAX (profile->ub_align_bytes, 1u);
  guint cores = MAX (profile->vector_cores, 1u);

  if (fw_kernel_spec_get_attention (spec) != NULL)
    return fw_attention_estimate_resource (spec, profile, out);
  memset (out, 0, sizeof *out);
  for (guint b = 0; b < fw_kernel_spec_get_n_buffers (spec); b++)
    if (fw_kernel_spec_get_buffer (spec, b)->streamed)
      n_streams++;
  out->kernel_inputs = fw_kernel_spec_get_n_inputs (spec);
  out->kernel_outputs = fw_kernel_spec_get_n_outputs (spec);
  out->queues = n_streams;
  out->ub_budget_bytes = budget;

  /* The unit a tile is made of: whole rows for row reductions; for an epilogue one 16×16 fractal, the block
   * the cube writes out of L0C; else one aligned block. */
  if (space->row_axes > 0)
    unit = row;
  else if (fw_kernel_spec_get_root (spec) != NULL)
    unit = MIN (256.0, MAX (total, 1.0));
  else
    unit = MAX (1.0, (gdouble) align / 4);
  unit = MAX (unit, 1.0);
  units = ceil (total / unit);
  per_core = MAX (1.0, ceil (units / cores));

  out->unit_elements = (gint64) unit;
  /* A mixed cube + vector kernel's tile is the C block its cube tiling chose: nothing to search. */
  {
    const FwUbArrangement *a = fw_kernel_spec_get_arrangement (spec);
    if (a != NULL && a->form == FW_KERNEL_FORM_CUBE_VECTOR && a->fixed_tile > 0)
      {
        gdouble rows = space->row_axes > 0 ? (gdouble) a->fixed_rows : 1.0;
        out->unit_elements = a->fixed_tile;
        out->tile_elements = a->fixed_tile;
        out->tile_rows = space->row_axes > 0 ? a->fixed_rows : 0;
        /* A row of the tile is a row of the C block, baseN elements at its pitch. */
        out->row_elements = space->row_axes > 0 && a->fixed_rows > 0 ? a->fixed_tile / a->fixed_rows : 0;
        out->ub_bytes = out->ub_min_bytes = fw_kernel_spec_ub_bytes (spec, align, (gdouble) a->fixed_tile, rows,
                                                                     &out->n_buffers);
        out->ub_percent = 100.0 * out->ub_bytes / budget;
        return out->ub_bytes <= budget;
      }
  }
  out->ub_min_bytes = fw_kernel_spec_ub_bytes (spec, align, unit, MAX (1.0, unit / row), NULL);
  if (out->ub_min_bytes > budget)
    {
      out->tile_elements = (gint64) unit;
      out->tile_rows = space->row_axes > 0 ? 1 : 0;
      out->row_elements = (gint64) row;
      out->ub_bytes = out->ub_min_bytes;
      out->ub_percent = 100.0 * out->ub_bytes / budget;
      fw_kernel_spec_ub_bytes (spec, align, unit, 1, &out->n_buffers);
      return FALSE;
    }
  /* The largest tile (in units) that fits, no larger than one core's share. */
  lo = 1;
  hi = per_core;
  while (hi - lo > 0.5)
    {
      gdouble mid = floor ((lo + hi + 1) / 2);
      gdouble t = mid * unit;
      if (fw_kernel_spec_ub_bytes (spec, align, t, t / row, NULL) <= budget)
        lo = mid;
      else
        hi = mid - 1;
    }
  {
    gdouble t = lo * unit;
    out->tile_elements = (gint64) t;
    /* A row of no elements (a zero dim) holds no rows: t / row would be inf, no integer. */
    out->tile_rows = space->row_axes > 0 && row >= 1 ? (gint64) (t / row) : 0;
    out->row_elements = space->row_axes > 0 ? (gint64) row : 0;
    out->ub_bytes = fw_kernel_spec_ub_bytes (spec, align, t, t / row, &out->n_buffers);
    out->ub_percent = 100.0 * out->ub_bytes / budget;
  }
  return TRUE;
}

/* Compute throughput for a node's arithmetic (flops of it) on the profile: the cube for matrix products,
 * the vector units for the rest, each scaled by its class's calibrated factor (1 on a profile without a
 * calibration, so the Ascend profiles price as they always did); on an NPU fp32 vector work runs at half
 * the fp16 rate (estimate). A vector class's factor prices the node run alone (unfused): on the host
 * that is the interpreter, whose Erf, Exp or Pow is the C library's scalar function, which is what the
 * calibration times. Inside a fused kernel it prices only what the kernel computes the same way
 * (fw_op_fused_rate_is_classed: divisions, and expf, tanhf… in chains and Softmax; classed is that
 * answer, or TRUE for a node run alone); Erf, Pow, the reductions and a Softmax's exps (fw_exp) are
 * the kernel's own operations, whose FLOP weights count them, at the plain vector rate. A product inside a
 * fused kernel (fused_root) takes its size's fused_gemm factor, the producer's rate, where the node run
 * alone takes the interpreter's BLAS's. Before, every fused
 * function ran at the plain rate, and a calibrated profile predicted bert_like's attention kernels at 3.8x
 * against 1.3x measured while their exps were libm's. */
static gdouble
node_rate (const FwNode *node, gdouble flops, const FwProfile *profile, gboolean classed, gboolean fused_root)
{
  gboolean cube = fw_node_class (node) == FW_OP_CLASS_OUT_FUSABLE;
  gdouble rate = cube ? profile->cube_flops_per_s : profile->vector_flops_per_s;
  FwValue *out = node->n_outputs > 0 ? node->outputs[0] : NULL;

  if (cube)
    rate *= fw_profile_class_factor (profile, fused_root ? fw_op_fused_gemm_class (flops) : fw_op_gemm_class (flops));
  else if (classed)
    rate *= fw_profile_class_factor (profile, fw_op_vector_class (node));

  if (profile->kind == FW_PROFILE_NPU && out != NULL && fw_dtype_bits (out->dtype) >= 32)
    rate /= 2;
  return MAX (rate, 1.0);
}

/* On the host a node run alone is one reference kernel, whose loops take every core only from
 * FW_HOST_PARALLEL_MIN_WORK element-operations on (hw/fw-host-threads.h, the rule the kernels split by):
 * under it the node gets one core's share of the vector rate. Its work in elements is the larger of what
 * it reads and writes; a product's threads are the BLAS's own. */
static gdouble
alone_share (const FwNode *node, const FwProfile *profile)
{
  FwValue *const *sides[2] = { node->inputs, node->outputs };
  guint n_sides[2] = { node->n_inputs, node->n_outputs };
  gint64 work = 0;

  if (profile->kind != FW_PROFILE_CPU || profile->cube_cores <= 1 || fw_node_class (node) == FW_OP_CLASS_OUT_FUSABLE)
    return 1;
  for (guint s = 0; s < 2; s++)
    for (guint k = 0; k < n_sides[s]; k++)
      if (sides[s][k] != NULL)
        work = MAX (work, fw_value_get_n_elements (sides[s][k]));
  return (gdouble) fw_host_loop_threads (work, profile->cube_cores) / profile->cube_cores;
}

gdouble
fw_estimate_node_time (const FwNode *node, const FwProfile *profile, gdouble *bytes_read,
                       gdouble *bytes_written, gdouble *flops)
{
  FwOpCost cost = { 0 };
  gdouble bw = MAX (profile->hbm_bytes_per_s, 1.0);
  gdouble t, rate;

  if (!fw_op_cost (node, &cost))
    {
      cost.flops = 0;
      cost.bytes_read = 0;
      cost.bytes_written = 0;
      for (guint k = 0; k < node->n_inputs; k++)
        if (node->inputs[k])
          cost.bytes_read += value_bytes (node->inputs[k]);
      for (guint k = 0; k < node->n_outputs; k++)
        if (node->outputs[k])
          cost.bytes_written += value_bytes (node->outputs[k]);
    }
  rate = node_rate (node, cost.flops, profile, TRUE, FALSE) * alone_share (node, profile);
  t = MAX (MAX (cost.bytes_read / bw, cost.flops / rate), cost.bytes_written / bw);
  if (bytes_read)
    *bytes_read = cost.bytes_read;
  if (bytes_written)
    *bytes_written = cost.bytes_written;
  if (flops)
    *flops = cost.flops;
  return t + profile->launch_overhead_s + profile->sync_overhead_s;
}

/* The bytes a kernel moves for a value read or written through an index map: the elements the space
 * reaches (a slice reads only its part), and for runs shorter than the profile's transfer block each run
 * costs a whole block (a transpose read or written in the kernel is still strided). A free view costs
 * what the value itself does. */
static gdouble
mapped_bytes (const FwSpecValue *v, const FwSpace *space, const FwProfile *profile)
{
  gdouble block = MAX (profile->ub_align_bytes, 1u), run = 1, bytes;

  if (!v->map.indexed)
    return value_bytes (v->value);
  bytes = (gdouble) v->map.touched * v->elem_bytes;
  for (gint a = space->rank - 1; a >= 0; a--)
    {
      if (space->dims[a] == 1)
        continue;
      if (v->map.strides[a] != (gint64) run)
        break;
      run *= (gdouble) space->dims[a];
    }
  if (run * v->elem_bytes < block)
    bytes *= block / (run * v->elem_bytes);
  return MIN (bytes, (gdouble) v->map.touched * MAX (block, (gdouble) v->elem_bytes));
}

/* Whether the kernel computes in half: any of its values is float16 or bfloat16 (the host's kernels then
 * sum in lanes, fw_op_fused_sum_in_lanes). */
static gboolean
spec_is_half (const FwKernelSpec *spec)
{
  for (guint i = 0; i < fw_kernel_spec_get_n_values (spec); i++)
    {
      const FwSpecValue *v = fw_kernel_spec_get_value (spec, i);
      if (v->value != NULL && (v->value->dtype == FW_DTYPE_FLOAT16 || v->value->dtype == FW_DTYPE_BFLOAT16))
        return TRUE;
    }
  return FALSE;
}

/* An integer (QDQ) group's kernel: its products run at the profile's int8 rate, and a shared
 * DequantizeLinear's output it reads through costs its integer bytes (fw-qdq.h). */
static gboolean
spec_is_integer (const FwKernelSpec *spec)
{
  FwNode *root = fw_kernel_spec_get_root (spec);

  for (guint i = 0; root != NULL && i < fw_kernel_spec_get_n_nodes (spec); i++)
    {
      FwNode *n = fw_kernel_spec_get_node (spec, i);
      if (n->domain[0] == '\0' && strcmp (n->op_type, "DequantizeLinear") == 0 && n->topo_index < root->topo_index)
        return TRUE;
    }
  return FALSE;
}

void
fw_estimate_cost (const FwKernelSpec *spec, const FwProfile *profile, FwCostEstimate *out)
{
  gdouble bw = MAX (profile->hbm_bytes_per_s, 1.0);
  gdouble cube_t = 0, vector_t = 0, chain_t = 0, compute;
  /* An EPILOGUE form's own kernel: what it reads and writes, the vendor's operator left out; < 0: not one. */
  gdouble epilogue_read = -1, epilogue_written = -1;

  gboolean integer = spec_is_integer (spec);
  /* On the host a reduction's one accumulator is a chain of dependent adds (fw_op_fused_reduction_is_chain). */
  gboolean host = profile->kind == FW_PROFILE_CPU, half = host && spec_is_half (spec);

  memset (out, 0, sizeof *out);
  for (guint i = 0; i < fw_kernel_spec_get_n_nodes (spec); i++)
    {
      FwNode *node = fw_kernel_spec_get_node (spec, i);
      gdouble r, w, f;

      out->time_before_s += fw_estimate_node_time (node, profile, &r, &w, &f);
      out->bytes_read_before += r;
      out->bytes_written_before += w;
      out->flops += f;
      out->launches_before++;
      if (fw_node_class (node) == FW_OP_CLASS_OUT_FUSABLE && integer)
        cube_t += f / MAX (profile->cube_int8_ops_per_s, 1.0);
      else if (fw_node_class (node) == FW_OP_CLASS_OUT_FUSABLE)
        cube_t += f / node_rate (node, f, profile, FALSE, TRUE);
      else if (host && fw_op_fused_reduction_is_chain (node, half))
        chain_t += f / node_rate (node, f, profile, TRUE, FALSE);
      else
        vector_t += f / node_rate (node, f, profile, fw_op_fused_rate_is_classed (node), FALSE);
    }
  /* Fused, the kernel reads each value from outside once (immediates included, as their bytes are in the
   * model) and writes only its outputs. */
  for (guint i = 0; i < fw_kernel_spec_get_n_values (spec); i++)
    {
      const FwSpecValue *v = fw_kernel_spec_get_value (spec, i);
      if (v->kind == FW_SPEC_OUTPUT)
        out->bytes_written_after += mapped_bytes (v, fw_kernel_spec_get_space (spec), profile);
      else if (v->kind != FW_SPEC_INTERMEDIATE && integer && !v->map.indexed)
        out->bytes_read_after += fw_qdq_read_bytes (v->value);
      else if (v->kind != FW_SPEC_INTERMEDIATE)
        out->bytes_read_after += mapped_bytes (v, fw_kernel_spec_get_space (spec), profile);
    }
  out->launches_after = 1;
  if (fw_kernel_spec_get_attention (spec) != NULL)
    fw_attention_bytes (spec, &out->bytes_read_after, &out->bytes_written_after);
  /* What the target's kernel moves, by its form (decided once, in the spec). A mixed cube + vector kernel
   * moves what its cube tiling reads (A and B again for each block of C that needs them) and writes. A
   * target's epilogue leaves the cube to the vendor's operator, which writes the root's result to HBM and
   * the kernel reads it back: that round trip and the second launch are not saved. Without a target's
   * arrangement the planner prices its own fused kernel, the root computed inside (the host target's). */
  {
    const FwUbArrangement *a = fw_kernel_spec_get_arrangement (spec);
    FwNode *root = fw_kernel_spec_get_root (spec);

    if (a != NULL && a->form == FW_KERNEL_FORM_CUBE_VECTOR && a->hbm_read > 0)
      {
        out->bytes_read_after = a->hbm_read;
        out->bytes_written_after = a->hbm_written;
        /* Its epilogue runs on one vector core per block of C, not on every vector core of the chip: swin_t's
           MatMul + GELU kernels were priced at 12.8 µs over 48 cores where the twin, running the kernel's 24
           blocks, counted 30.8 µs of mostly vector work. */
        if (a->vector_cores > 0 && a->vector_cores < profile->vector_cores)
          vector_t *= (gdouble) profile->vector_cores / a->vector_cores;
      }
    else if (a != NULL && a->form == FW_KERNEL_FORM_EPILOGUE && root != NULL && root->n_outputs > 0 &&
             root->outputs[0] != NULL)
      {
        /* The epilogue reads the root's result but not the root's operands, which the vendor's operator reads. */
        epilogue_read = out->bytes_read_after + value_bytes (root->outputs[0]);
        for (guint k = 0; k < root->n_inputs; k++)
          if (root->inputs[k] != NULL)
            epilogue_read -= value_bytes (root->inputs[k]);
        epilogue_written = out->bytes_written_after;
        out->bytes_read_after += value_bytes (root->outputs[0]);
        out->bytes_written_after += value_bytes (root->outputs[0]);
        out->launches_after = 2;
      }
  }
  /* On an NPU the cube and the vector units work in a pipeline; on a CPU the same cores do both. A
   * reduction's chain waits an add's latency an element, and the row's other operations run in those
   * waits: the kernel takes the longer of the two. bert_like's LayerNorm kernel (two chains over 256
   * columns, 128 rows a thread) took 60-70 µs, its chains alone 50 at the calibrated chain rate; the vector
   * rate alone had priced it at 34. */
  compute = profile->kind == FW_PROFILE_NPU ? MAX (cube_t, vector_t) : cube_t + MAX (vector_t, chain_t);
  out->time_after_s = MAX (MAX (out->bytes_read_after / bw, compute), out->bytes_written_after / bw) +
                      out->launches_after * (profile->launch_overhead_s + profile->sync_overhead_s);
  out->saving_s = out->time_before_s - out->time_after_s;
  out->kernel_time_s = epilogue_read < 0 ? out->time_after_s
                      : MAX (MAX (MAX (epilogue_read, 0.0) / bw, vector_t), epilogue_written / bw) +
                          profile->launch_overhead_s + profile->sync_overhead_s;
}
