/* fw-group.c: facts about nodes and iteration spaces that discovery and the estimates share. */
#include "config.h"

#include "fw-plan-private.h"
#include "ops/fw-op-registry.h"

gboolean
fw_node_runs (const FwNode *node)
{
  /* A node whose every output was folded to a constant at load is shape arithmetic, not a kernel. */
  for (guint k = 0; k < node->n_outputs; k++)
    if (node->outputs[k] != NULL && node->outputs[k]->constant == NULL)
      return TRUE;
  return FALSE;
}

FwOpClass
fw_node_class (const FwNode *node)
{
  return node->op ? node->op->op_class : FW_OP_CLASS_OPAQUE;
}

gboolean
fw_value_is_immediate (const FwValue *value)
{
  /* Scalar constants, and the few integers a reshape or squeeze takes as its shape or axes, are compiled
   * into the kernel, not streamed from HBM. */
  return value->constant != NULL &&
         (value->constant->n_elements <= 1 ||
          (fw_dtype_is_integer (value->constant->dtype) && value->constant->n_elements <= FW_MAX_RANK));
}

gint64
fw_space_elements (const FwSpace *space)
{
  gint64 n = 1;

  for (gint i = 0; i < space->rank; i++)
    n *= space->dims[i];
  return n;
}

gint64
fw_space_row_elements (const FwSpace *space)
{
  gint64 n = 1;

  for (gint i = space->rank - space->row_axes; i < space->rank; i++)
    n *= space->dims[i];
  return n;
}

FwShapeRole
fw_space_role (const FwSpace *space, const FwValue *value)
{
  gint lead = space->rank - space->row_axes;
  gboolean small = TRUE;

  if (!fw_value_is_static (value))
    return FW_SHAPE_OTHER;
  if (value->rank == space->rank)
    {
      gboolean full = TRUE, row = space->row_axes > 0;
      for (gint i = 0; i < space->rank; i++)
        {
          if (value->dims[i].value != space->dims[i])
            full = FALSE;
          if (i < lead ? value->dims[i].value != space->dims[i] : value->dims[i].value != 1)
            row = FALSE;
        }
      if (full)
        return FW_SHAPE_FULL;
      if (row)
        return FW_SHAPE_ROW;
    }
  if (space->row_axes > 0 && value->rank == lead)
    {
      gboolean row = TRUE;
      for (gint i = 0; i < lead; i++)
        if (value->dims[i].value != space->dims[i])
          row = FALSE;
      if (row)
        return FW_SHAPE_ROW;
    }
  if (value->rank > space->rank)
    return FW_SHAPE_OTHER;
  /* Right-aligned numpy broadcasting into the space. */
  for (gint i = 0; i < value->rank; i++)
    {
      gint64 d = value->dims[value->rank - 1 - i].value;
      gint64 s = space->dims[space->rank - 1 - i];
      if (d != 1 && d != s)
        small = FALSE;
    }
  return small ? FW_SHAPE_SMALL : FW_SHAPE_OTHER;
}
