/* fw-kernel-passes.c: how a kernel with row operations sweeps each row (docs/kernel-spec.md, "Passes").
 *
 * A reduction's result is known only once its whole row has been read, so whatever reads that result runs
 * in a later pass over the row. Softmax and LayerNormalization take three passes of their own (statistics,
 * normaliser, result). A value made in one pass and read in a later one is *carried*: it must be kept whole
 * for the row between the passes — the host kernel's per-thread row scratch; on the NPU the tile in the
 * Unified Buffer holds it anyway. The planner decides this once; the host generator emits the passes and
 * allocates the scratch from it. */
#include "config.h"

#include <string.h>

#include "fw-kernel-spec-private.h"
#include "ops/fw-op-registry.h"

gboolean
fw_node_is_data_input (const FwNode *node, guint slot)
{
  const char *op = node->op_type;

  if (slot == 0)
    return TRUE;
  /* A reduction's axes and Dropout's ratio and mode are parameters read when the kernel is generated. */
  if (g_str_has_prefix (op, "Reduce") || strcmp (op, "Dropout") == 0)
    return FALSE;
  /* Every part of a Concat is data. */
  if (strcmp (op, "Concat") == 0)
    return TRUE;
  /* An injective operator's shape, axes, starts or constant indices are its index map (fw-index-map.c). */
  return !(node->domain[0] == '\0' && fw_node_get_op_class (node) == FW_OP_CLASS_INJECTIVE);
}

/* The space axes the row operations sweep: the trailing ones they reduce or, for opset-13 Softmax over an
 * axis that is not the last, that one axis. FALSE when the group has no row operation. */
static gboolean
swept_axes (const FwKernelSpec *spec, gboolean swept[FW_MAX_RANK])
{
  const FwSpace *space = &spec->space;

  memset (swept, 0, sizeof (gboolean) * FW_MAX_RANK);
  for (guint i = 0; i < spec->nodes->len; i++)
    {
      const FwRowOp *op = &spec->row_ops[i];
      if (op->axes == 0 || spec->row_errors[i] != NULL || space->rank > FW_MAX_RANK)
        continue;
      if (op->from_end != 0)
        {
          if (op->from_end <= space->rank)
            swept[space->rank - op->from_end] = TRUE;
        }
      else
        for (gint a = MAX (space->rank - op->axes, 0); a < space->rank; a++)
          swept[a] = TRUE;
      return TRUE;
    }
  return FALSE;
}

/* Whether a value made inside the group holds one element per row (constant along the swept axes): a
 * reduction's result, or anything whose shape broadcasts along them. */
static gboolean
per_row (const FwKernelSpec *spec, const gboolean swept[FW_MAX_RANK], const FwSpecValue *sv)
{
  const FwValue *v = sv->value;
  const FwNode *producer = v->producer;
  gint shift = spec->space.rank - v->rank;

  if (sv->map.indexed)
    {
      for (gint a = 0; a < spec->space.rank; a++)
        if (swept[a] && spec->space.dims[a] != 1 && sv->map.strides[a] != 0)
          return FALSE;
      return TRUE;
    }
  if (producer != NULL && producer->n_outputs > 0 && producer->outputs[0] == v)
    {
      const FwRowOp *op = &spec->row_ops[fw_kernel_spec_position (spec, producer)];
      if (op->axes > 0 && !op->full_out && !op->keepdims)
        return TRUE;
    }
  if (v->rank < 0 || shift < 0)
    return FALSE;
  for (gint a = 0; a < spec->space.rank; a++)
    if (swept[a] && a >= shift && v->dims[a - shift].value != 1 && spec->space.dims[a] != 1)
      return FALSE;
  return TRUE;
}

static FwSpecValue *
made_inside (FwKernelSpec *spec, const FwValue *v)
{
  gpointer index = v != NULL ? g_hash_table_lookup (spec->by_value, v) : NULL;
  FwSpecValue *sv = index ? &g_array_index (spec->values, FwSpecValue, GPOINTER_TO_UINT (index) - 1) : NULL;

  return sv != NULL && (sv->kind == FW_SPEC_INTERMEDIATE || sv->kind == FW_SPEC_OUTPUT) ? sv : NULL;
}

/* The pass from which a value can be read: where it is made; 0 for whatever comes from outside. */
static guint
ready (FwKernelSpec *spec, const FwValue *v)
{
  FwSpecValue *sv = made_inside (spec, v);
  return sv != NULL ? sv->pass : 0;
}

static void
read_at (FwKernelSpec *spec, const gboolean swept[FW_MAX_RANK], const FwValue *v, guint pass)
{
  FwSpecValue *sv = made_inside (spec, v);

  if (sv != NULL && pass > sv->pass && !per_row (spec, swept, sv))
    sv->carried = TRUE;
}

/* A normalising row operation (Softmax, LogSoftmax, LayerNormalization) reads its input in three passes
 * and its scale and bias in the last; its result is ready in that last pass. */
static guint
normalise (FwKernelSpec *spec, const gboolean swept[FW_MAX_RANK], guint i, guint p)
{
  FwNode *node = g_ptr_array_index (spec->nodes, i);
  gboolean layernorm = strcmp (node->op_type, "LayerNormalization") == 0;
  guint last = p + 2;

  for (guint k = 1; layernorm && k < 3 && k < node->n_inputs; k++)
    last = MAX (last, ready (spec, node->inputs[k]));
  read_at (spec, swept, node->inputs[0], p);
  read_at (spec, swept, node->inputs[0], p + 1);
  read_at (spec, swept, node->inputs[0], last);
  for (guint k = 1; layernorm && k < 3 && k < node->n_inputs; k++)
    read_at (spec, swept, node->inputs[k], last);
  return last;
}

void
fw_kernel_spec_plan_passes (FwKernelSpec *spec)
{
  gboolean swept[FW_MAX_RANK];
  guint max_pass = 0;

  spec->first_pass = g_new0 (guint, MAX (spec->nodes->len, 1));
  spec->last_pass = g_new0 (guint, MAX (spec->nodes->len, 1));
  spec->n_passes = 1;
  spec->n_carried = 0;
  spec->sweep_row_elements = 0;
  if (!swept_axes (spec, swept))
    return;
  spec->sweep_row_elements = 1;
  for (gint a = 0; a < spec->space.rank; a++)
    if (swept[a])
      spec->sweep_row_elements *= spec->space.dims[a];
  for (guint i = 0; i < spec->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (spec->nodes, i);
      const FwRowOp *op = &spec->row_ops[i];
      FwSpecValue *out = node->n_outputs > 0 ? made_inside (spec, node->outputs[0]) : NULL;
      guint p = 0, last;

      if (node == spec->root)
        continue;
      if (op->axes > 0 && spec->row_errors[i] == NULL)
        {
          p = node->n_inputs > 0 ? ready (spec, node->inputs[0]) : 0;
          if (op->full_out)
            {
              last = normalise (spec, swept, i, p);
              max_pass = MAX (max_pass, last);
            }
          else
            {
              /* A reduction reads its row in pass p; its result is known from the next one. */
              if (node->n_inputs > 0)
                read_at (spec, swept, node->inputs[0], p);
              last = p;
              max_pass = MAX (max_pass, p);
            }
          spec->first_pass[i] = p;
          spec->last_pass[i] = last;
          if (out != NULL)
            out->pass = op->full_out ? last : p + 1;
          continue;
        }
      for (guint k = 0; k < node->n_inputs; k++)
        if (fw_node_is_data_input (node, k))
          p = MAX (p, ready (spec, node->inputs[k]));
      spec->first_pass[i] = spec->last_pass[i] = p;
      if (out != NULL)
        out->pass = p;
      /* One value per row is computed once per row, outside the sweeps: what it reads is per row too. */
      if (out != NULL && per_row (spec, swept, out))
        continue;
      for (guint k = 0; k < node->n_inputs; k++)
        if (fw_node_is_data_input (node, k))
          read_at (spec, swept, node->inputs[k], p);
      max_pass = MAX (max_pass, p);
    }
  spec->n_passes = max_pass + 1;
  for (guint i = 0; i < spec->values->len; i++)
    if (g_array_index (spec->values, FwSpecValue, i).carried)
      spec->n_carried++;
}

/* ---- accessors ---- */

guint
fw_kernel_spec_get_n_passes (const FwKernelSpec *spec)
{
  return spec->n_passes;
}

void
fw_kernel_spec_get_passes (const FwKernelSpec *spec, guint position, guint *first, guint *last)
{
  g_return_if_fail (position < spec->nodes->len);
  if (first)
    *first = spec->first_pass[position];
  if (last)
    *last = spec->last_pass[position];
}

gint64
fw_kernel_spec_get_sweep_row_elements (const FwKernelSpec *spec)
{
  return spec->sweep_row_elements;
}

guint
fw_kernel_spec_get_n_carried (const FwKernelSpec *spec)
{
  return spec->n_carried;
}
