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

#include "fw-plan-private.h"
#include "ops/fw-op-registry.h"

static gdouble
value_bytes (const FwValue *value)
{
  gint64 n = fw_value_get_n_elements (value), bytes;

  if (n < 0 || !fw_dtype_bytes_for (value->dtype, n, &bytes))
    return 0;
  return (gdouble) bytes;
}

static guint
elem_bytes (const FwValue *value)
{
  return MAX (1u, fw_dtype_bits (value->dtype) / 8);
}

static gboolean
in_group (const FwGroup *group, const FwNode *node)
{
  return node != NULL && node->graph == ((FwNode *) g_ptr_array_index (group->nodes, 0))->graph &&
         group->member[node->index];
}

static gboolean
used_outside (const FwGroup *group, const FwValue *value)
{
  if (value->is_output)
    return TRUE;
  for (guint u = 0; u < value->n_uses; u++)
    if (!in_group (group, value->uses[u].node))
      return TRUE;
  return FALSE;
}

typedef struct
{
  const FwValue *value;
  gboolean       streamed;   /* double-buffered: an input from HBM or an output to it */
  guint          first;      /* position in the group where it becomes live */
  guint          last;       /* position of its last use inside the group */
} Buffer;

/* Elements of value one tile of `tile` space elements touches. */
static gdouble
footprint (const FwGroup *group, const FwValue *value, gdouble tile, gdouble rows)
{
  gint64 n = fw_value_get_n_elements (value);

  switch (fw_space_role (&group->space, value))
    {
    case FW_SHAPE_FULL:
      return tile;
    case FW_SHAPE_ROW:
      return rows;
    case FW_SHAPE_SMALL:
    case FW_SHAPE_OTHER:
    default:
      return MIN ((gdouble) MAX (n, 1), tile);
    }
}

static gdouble
align_up (gdouble bytes, guint align)
{
  if (align <= 1)
    return bytes;
  return ceil (bytes / align) * align;
}

static GArray *
collect_buffers (const FwGroup *group, guint *n_inputs, guint *n_outputs)
{
  GArray *buffers = g_array_new (FALSE, TRUE, sizeof (Buffer));
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);

  *n_inputs = 0;
  *n_outputs = 0;
  for (guint i = 0; i < group->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (group->nodes, i);

      for (guint k = 0; k < node->n_inputs; k++)
        {
          FwValue *v = node->inputs[k];
          if (v == NULL || in_group (group, v->producer) || fw_value_is_immediate (v))
            continue;
          if (!g_hash_table_add (seen, v))
            {
              /* Seen before: extend its life to this use. */
              for (guint b = 0; b < buffers->len; b++)
                if (g_array_index (buffers, Buffer, b).value == v)
                  g_array_index (buffers, Buffer, b).last = i;
              continue;
            }
          (*n_inputs)++;
          /* The compute-bound root reads its operands through L1/L0, not the Unified Buffer. */
          if (node == group->root)
            continue;
          {
            Buffer b = { v, TRUE, 0, i };
            g_array_append_val (buffers, b);
          }
        }
      for (guint k = 0; k < node->n_outputs; k++)
        {
          FwValue *v = node->outputs[k];
          Buffer b = { v, FALSE, i, i };

          if (v == NULL)
            continue;
          if (used_outside (group, v))
            {
              (*n_outputs)++;
              b.streamed = TRUE;
            }
          /* The root's result arrives from L0C in tiles, double-buffered like a load. */
          if (node == group->root)
            b.streamed = TRUE;
          for (guint u = 0; u < v->n_uses; u++)
            if (in_group (group, v->uses[u].node))
              {
                guint pos;
                if (g_ptr_array_find (group->nodes, v->uses[u].node, &pos))
                  b.last = MAX (b.last, pos);
              }
          if (b.streamed)
            b.last = group->nodes->len;
          g_array_append_val (buffers, b);
        }
    }
  return buffers;
}

static gdouble
bytes_for_tile (const FwGroup *group, GArray *buffers, guint align, gdouble tile, gdouble rows, guint *n_buffers)
{
  gdouble streamed = 0, peak = 0;
  guint count = 0;

  for (guint b = 0; b < buffers->len; b++)
    {
      Buffer *buf = &g_array_index (buffers, Buffer, b);
      if (buf->streamed)
        {
          streamed += 2 * align_up (footprint (group, buf->value, tile, rows) * elem_bytes (buf->value), align);
          count += 2;
        }
    }
  /* Intermediates: the largest set alive at any one position. */
  for (guint i = 0; i < group->nodes->len; i++)
    {
      gdouble live = 0;
      guint n = 0;
      for (guint b = 0; b < buffers->len; b++)
        {
          Buffer *buf = &g_array_index (buffers, Buffer, b);
          if (!buf->streamed && buf->first <= i && buf->last >= i)
            {
              live += align_up (footprint (group, buf->value, tile, rows) * elem_bytes (buf->value), align);
              n++;
            }
        }
      if (live > peak)
        {
          peak = live;
          count = MAX (count, n);
        }
    }
  if (n_buffers)
    *n_buffers = count;
  return streamed + peak;
}

gboolean
fw_estimate_resource (const FwGroup *group, const FwProfile *profile, FwResourceEstimate *out)
{
  g_autoptr(GArray) buffers = NULL;
  guint n_inputs, n_outputs, n_streams = 0;
  gdouble total = (gdouble) fw_space_elements (&group->space);
  gdouble row = (gdouble) fw_space_row_elements (&group->space);
  gdouble unit, units, per_core, lo, hi, budget = fw_profile_budget_bytes (profile);
  guint align = MAX (profile->ub_align_bytes, 1u);
  guint cores = MAX (profile->vector_cores, 1u);

  memset (out, 0, sizeof *out);
  buffers = collect_buffers (group, &n_inputs, &n_outputs);
  for (guint b = 0; b < buffers->len; b++)
    if (g_array_index (buffers, Buffer, b).streamed)
      n_streams++;
  out->kernel_inputs = n_inputs;
  out->kernel_outputs = n_outputs;
  out->queues = n_streams;
  out->ub_budget_bytes = budget;

  /* The unit a tile is made of: whole rows for row reductions; for an epilogue one 16×16 fractal, the block
   * the cube writes out of L0C; else one aligned block. */
  if (group->space.row_axes > 0)
    unit = row;
  else if (group->root != NULL)
    unit = MIN (256.0, MAX (total, 1.0));
  else
    unit = MAX (1.0, (gdouble) align / 4);
  unit = MAX (unit, 1.0);
  units = ceil (total / unit);
  per_core = MAX (1.0, ceil (units / cores));

  out->ub_min_bytes = bytes_for_tile (group, buffers, align, unit, MAX (1.0, unit / row), NULL);
  if (out->ub_min_bytes > budget)
    {
      out->tile_elements = (gint64) unit;
      out->tile_rows = group->space.row_axes > 0 ? 1 : 0;
      out->row_elements = (gint64) row;
      out->ub_bytes = out->ub_min_bytes;
      out->ub_percent = 100.0 * out->ub_bytes / budget;
      bytes_for_tile (group, buffers, align, unit, 1, &out->n_buffers);
      return FALSE;
    }
  /* The largest tile (in units) that fits, no larger than one core's share. */
  lo = 1;
  hi = per_core;
  while (hi - lo > 0.5)
    {
      gdouble mid = floor ((lo + hi + 1) / 2);
      gdouble t = mid * unit;
      if (bytes_for_tile (group, buffers, align, t, t / row, NULL) <= budget)
        lo = mid;
      else
        hi = mid - 1;
    }
  {
    gdouble t = lo * unit;
    out->tile_elements = (gint64) t;
    out->tile_rows = group->space.row_axes > 0 ? (gint64) (t / row) : 0;
    out->row_elements = group->space.row_axes > 0 ? (gint64) row : 0;
    out->ub_bytes = bytes_for_tile (group, buffers, align, t, t / row, &out->n_buffers);
    out->ub_percent = 100.0 * out->ub_bytes / budget;
  }
  return TRUE;
}

/* Compute throughput for a node's arithmetic on the profile: the cube for matrix products, the vector
 * units for the rest; on an NPU fp32 vector work runs at half the fp16 rate (estimate). */
static gdouble
node_rate (const FwNode *node, const FwProfile *profile)
{
  gboolean cube = fw_node_class (node) == FW_OP_CLASS_OUT_FUSABLE;
  gdouble rate = cube ? profile->cube_flops_per_s : profile->vector_flops_per_s;
  FwValue *out = node->n_outputs > 0 ? node->outputs[0] : NULL;

  if (profile->kind == FW_PROFILE_NPU && out != NULL && fw_dtype_bits (out->dtype) >= 32)
    rate /= 2;
  return MAX (rate, 1.0);
}

gdouble
fw_estimate_node_time (const FwNode *node, const FwProfile *profile, gdouble *bytes_read,
                       gdouble *bytes_written, gdouble *flops)
{
  FwOpCost cost = { 0 };
  gdouble bw = MAX (profile->hbm_bytes_per_s, 1.0);
  gdouble t;

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
  t = MAX (MAX (cost.bytes_read / bw, cost.flops / node_rate (node, profile)), cost.bytes_written / bw);
  if (bytes_read)
    *bytes_read = cost.bytes_read;
  if (bytes_written)
    *bytes_written = cost.bytes_written;
  if (flops)
    *flops = cost.flops;
  return t + profile->launch_overhead_s + profile->sync_overhead_s;
}

void
fw_estimate_cost (const FwGroup *group, const FwProfile *profile, FwCostEstimate *out)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  gdouble bw = MAX (profile->hbm_bytes_per_s, 1.0);
  gdouble cube_t = 0, vector_t = 0, compute;

  memset (out, 0, sizeof *out);
  for (guint i = 0; i < group->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (group->nodes, i);
      gdouble r, w, f;

      out->time_before_s += fw_estimate_node_time (node, profile, &r, &w, &f);
      out->bytes_read_before += r;
      out->bytes_written_before += w;
      out->flops += f;
      out->launches_before++;
      if (fw_node_class (node) == FW_OP_CLASS_OUT_FUSABLE)
        cube_t += f / node_rate (node, profile);
      else
        vector_t += f / node_rate (node, profile);

      for (guint k = 0; k < node->n_inputs; k++)
        {
          FwValue *v = node->inputs[k];
          if (v != NULL && !in_group (group, v->producer) && g_hash_table_add (seen, v))
            out->bytes_read_after += value_bytes (v);
        }
      for (guint k = 0; k < node->n_outputs; k++)
        {
          FwValue *v = node->outputs[k];
          if (v != NULL && used_outside (group, v))
            out->bytes_written_after += value_bytes (v);
        }
    }
  /* On an NPU the cube and the vector units work in a pipeline; on a CPU the same cores do both. */
  compute = profile->kind == FW_PROFILE_NPU ? MAX (cube_t, vector_t) : cube_t + vector_t;
  out->launches_after = 1;
  out->time_after_s = MAX (MAX (out->bytes_read_after / bw, compute), out->bytes_written_after / bw) +
                      profile->launch_overhead_s + profile->sync_overhead_s;
  out->saving_s = out->time_before_s - out->time_after_s;
}
