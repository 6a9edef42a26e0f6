/* fw-ascend-operands.c: what the Ascend kernel computes on, decided before any code is written: the
 * iteration space and its rows (the planner's row length, or whole rows the kernel chooses for per-row
 * scalars and row vectors), each value's operand kind and broadcast strides, the temp slots by liveness, the
 * planner's buffer model and the kernel's own buffers, and the tiling searched from both. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-ascend-codegen-private.h"
#include "ops/fw-op-registry.h"

static const char *
ctype_of (FwDType dtype)
{
  switch (dtype)
    {
    case FW_DTYPE_FLOAT:
      return "float";
    case FW_DTYPE_FLOAT16:
      return "half";
    case FW_DTYPE_INT32:
      return "int32_t";
    case FW_DTYPE_BOOL:
      return "uint8_t";  /* a bit mask inside the kernel only: see Operand.mask */
    default:
      return NULL;
    }
}

gboolean
fw_ac_is_float_ctype (const char *ctype)
{
  return strcmp (ctype, "float") == 0 || strcmp (ctype, "half") == 0;
}

static gboolean
used_outside (Gen *g, const FwValue *value)
{
  return fw_kernel_spec_is_output (g->spec, value);
}

/* Whether a member moves data other than as a free view (a transpose of unit axes, a full-range slice or a
 * gather: index maps the planner made linear, which this target has no lowering for). */
static gboolean
moves_data (const FwKernelSpec *spec)
{
  static const char *const views[] = { "Reshape", "Flatten", "Squeeze", "Unsqueeze" };

  for (guint i = 0; i < fw_kernel_spec_get_n_nodes (spec); i++)
    {
      const FwNode *node = fw_kernel_spec_get_node (spec, i);
      gboolean view = FALSE;
      if (fw_node_get_op_class (node) != FW_OP_CLASS_INJECTIVE)
        continue;
      for (guint k = 0; k < G_N_ELEMENTS (views); k++)
        view |= strcmp (node->op_type, views[k]) == 0;
      if (!view)
        return TRUE;
    }
  return FALSE;
}

/* The planner's iteration space and rows. */
gboolean
fw_ac_read_space (Gen *g, GError **error)
{
  g->space = *fw_kernel_spec_get_space (g->spec);
  if (g->space.rank <= 0 || g->space.rank > FW_MAX_RANK || fw_space_elements (&g->space) <= 0)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("Ascend target: the group has no static iteration space"));
      return FALSE;
    }
  /* Values read or written through the planner's index maps (strided rows, slices: DataCopyPad with
     strides) are not generated yet; a free view of the flat tile is, as before. */
  if (fw_kernel_spec_has_index_maps (g->spec, TRUE) ||
      (g->space.row_axes > 0 && fw_kernel_spec_has_index_maps (g->spec, FALSE)) || moves_data (g->spec))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                   _("Ascend target: the group reads or writes through a strided index map (a transpose, a slice or "
                     "a view of its rows), which this target does not generate yet"));
      return FALSE;
    }
  g->broadcast_rows = g->space.row_axes > 0 && fw_kernel_spec_get_reduce_axes (g->spec) == 0;
  g->total = fw_space_elements (&g->space);
  g->rows_mode = g->space.row_axes > 0;
  g->row_len = g->rows_mode ? fw_space_row_elements (&g->space) : 0;
  return TRUE;
}

static gdouble
align_up (gdouble bytes, guint align)
{
  return align <= 1 ? bytes : ceil (bytes / align) * align;
}

/* Elements a tile-shaped buffer is rounded up to: Compare and Select count whole 256-byte blocks, so
 * kernels that use them round to 128 elements (256 bytes of half, 512 of float); others to 8. */
guint
fw_ac_full_align (Gen *g)
{
  return g->uses_mask ? 128 : 8;
}

gdouble
fw_ac_kernel_bytes (Gen *g, gint64 tile_len, gint64 rows)
{
  gdouble total = 0;

  for (guint i = 0; i < g->kernel_buffers->len; i++)
    {
      KernelBuffer *b = &g_array_index (g->kernel_buffers, KernelBuffer, i);
      gdouble bytes;

      if (b->role == FW_SHAPE_FULL)
        bytes = align_up (g->rows_mode ? (gdouble) rows * g->row_stride : (gdouble) tile_len, fw_ac_full_align (g)) * b->eb;
      else if (b->role == FW_SHAPE_ROW)
        bytes = align_up ((gdouble) rows * b->eb, 32);
      else
        bytes = align_up ((gdouble) b->elements, 32);
      total += bytes * b->copies;
    }
  return total;
}

/* The planner's tile, in its units (whole rows, one cube fractal or one aligned block), shrunk only where
 * the kernel's own scratch would overflow the Unified Buffer. */
void
fw_ac_compute_tiling (Gen *g, FwAscendTiling *out)
{
  const FwResourceEstimate *plan = fw_kernel_spec_get_resource (g->spec);
  const FwProfile *profile = g->profile;
  gdouble row = g->rows_mode ? (gdouble) g->row_len : 1.0;
  gdouble unit = (gdouble) MAX (plan->unit_elements, 1);
  gdouble lo = MAX (1.0, floor ((gdouble) plan->tile_elements / unit));
  gdouble ub = (gdouble) profile->ub_bytes - (gdouble) profile->ub_reserve_bytes;
  guint cores = MAX (profile->vector_cores, 1u);

  memset (out, 0, sizeof *out);
  out->ub_bytes = plan->ub_bytes;
  while (lo > 1 && fw_ac_kernel_bytes (g, (gint64) (lo * unit), (gint64) (lo * unit / row)) > ub)
    lo -= 1;
  out->total_length = g->total;
  out->tile_length = (gint64) (lo * unit);
  out->rows = g->rows_mode ? (gint64) (lo * unit / row) : 0;
  out->row_length = g->rows_mode ? g->row_len : 0;
  out->tile_num = (g->total + out->tile_length - 1) / out->tile_length;
  out->block_num = MIN ((gint64) cores, out->tile_num);
  out->tiles_per_block = (out->tile_num + out->block_num - 1) / out->block_num;
  out->kernel_ub_bytes = fw_ac_kernel_bytes (g, out->tile_length, g->rows_mode ? out->rows : 1);
}

/* Element stride of a broadcast operand along each space axis (0 where it is broadcast). BatchNormalization's
 * per-channel parameters map onto axis 1; everything else broadcasts numpy-style from the right. */
static gboolean
small_mapping (Gen *g, const FwNode *node, guint slot, Operand *o)
{
  const FwValue *v = o->value;
  gint rank = g->space.rank;
  gint64 stride = 1;

  memset (o->vstride, 0, sizeof o->vstride);
  if (slot >= 1 && strcmp (node->op_type, "BatchNormalization") == 0 && v->rank == 1 && rank >= 2 &&
      v->dims[0].value == g->space.dims[1])
    {
      o->vstride[1] = v->dims[0].value > 1 ? 1 : 0;
      return TRUE;
    }
  if (v->rank > rank)
    return FALSE;
  for (gint j = v->rank - 1; j >= 0; j--)
    {
      gint a = rank - v->rank + j;
      gint64 d = v->dims[j].value;
      if (d != 1 && d != g->space.dims[a])
        return FALSE;
      o->vstride[a] = d == 1 ? 0 : stride;
      stride *= d;
    }
  return TRUE;
}

static Operand *
operand_new (Gen *g, FwValue *v, OperandKind kind)
{
  Operand *o = g_new0 (Operand, 1);

  o->value = v;
  o->kind = kind;
  o->role = fw_kernel_spec_lookup (g->spec, v)->role;
  o->ctype = ctype_of (v->dtype);
  o->eb = MAX (1u, fw_dtype_bits (v->dtype) / 8);
  o->id = g->all->len;
  o->elements = fw_value_get_n_elements (v);
  g_ptr_array_add (g->all, o);
  g_hash_table_insert (g->operands, v, o);
  g->max_eb = MAX (g->max_eb, o->eb);
  return o;
}

/* The cube's result arrives in global memory; the epilogue streams it like any input. */
static gboolean
add_root_result (Gen *g, FwNode *node, GError **error)
{
  FwValue *v = node->n_outputs > 0 ? node->outputs[0] : NULL;
  Operand *o;
  
  if (v == NULL || ctype_of (v->dtype) == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("Ascend target: %s result dtype %s"),
                   node->op_type, v ? fw_dtype_name (v->dtype) : "?");
      return FALSE;
    }
  o = operand_new (g, v, KIND_INPUT);
  /* In a mixed kernel the result comes from the Matmul object, not from GM. */
  if (g->cube)
    g->cube_result = o;
  else
    {
      o->index = g->inputs->len;
      g_ptr_array_add (g->inputs, o);
    }
  o->output = used_outside (g, v);
  if (o->output)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                   _("Ascend target: the %s result is also used outside the group"), node->op_type);
      return FALSE;
    }
  return TRUE;
}

/* Node's inputs from outside the group: immediates, streamed inputs and broadcast operands. */
static gboolean
add_input_operands (Gen *g, FwNode *node, GError **error)
{
  for (guint k = 0; k < node->n_inputs; k++)
    {
      FwValue *v = node->inputs[k];
      Operand *o;

      if (v == NULL || g_hash_table_contains (g->operands, v))
        continue;
      if (fw_kernel_spec_lookup (g->spec, v)->kind == FW_SPEC_IMMEDIATE)
        {
          o = operand_new (g, v, KIND_IMMEDIATE);
          if (v->constant->n_elements < 1 || !fw_tensor_get_double (v->constant, 0, &o->imm))
            o->imm = 0;
          continue;
        }
      if (ctype_of (v->dtype) == NULL || v->dtype == FW_DTYPE_BOOL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                       _("Ascend target: %s reads a %s tensor from global memory; the target handles float32, "
                         "float16 and int32 there (bool only as a mask computed in the kernel)"),
                       node->op_type, fw_dtype_name (v->dtype));
          return FALSE;
        }
      o = operand_new (g, v, KIND_INPUT);
      /* ONNX broadcasts from the right: a loaded value of lower rank that happens to equal the leading
       * dims ([N] in an [N, N] space) is a row vector, not one value per row. */
      if (o->role == FW_SHAPE_ROW && v->rank < g->space.rank)
        o->role = FW_SHAPE_OTHER;
      if (o->role == FW_SHAPE_SMALL ||
          (strcmp (node->op_type, "BatchNormalization") == 0 && k >= 1) ||
          (o->role == FW_SHAPE_OTHER && small_mapping (g, node, k, o)))
        {
          o->kind = KIND_SMALL;
          o->role = FW_SHAPE_SMALL;
          if (!small_mapping (g, node, k, o))
            {
              g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                           _("Ascend target: operand %u of %s does not broadcast into the iteration space"), k,
                           node->op_type);
              return FALSE;
            }
          o->index = g->smalls->len;
          g_ptr_array_add (g->smalls, o);
          o->rowvec = g->rows_mode && o->elements == g->row_len && o->elements > 1;
          for (gint a = 0; a < g->space.rank - g->space.row_axes; a++)
            if (o->vstride[a] != 0)
              o->rowvec = FALSE;
        }
      else if (o->role == FW_SHAPE_FULL || o->role == FW_SHAPE_ROW)
        {
          o->index = g->inputs->len;
          g_ptr_array_add (g->inputs, o);
        }
      else
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                       _("Ascend target: operand %u of %s does not map onto the iteration space"), k,
                       node->op_type);
          return FALSE;
        }
    }
  return TRUE;
}

/* Node's result: a kernel output, or a temp in the first free slot (or an alias of the mask it inverts or
 * copies). slot_until holds each slot's last position in use. */
static gboolean
add_output_operands (Gen *g, FwNode *node, guint i, GPtrArray *slot_until, GError **error)
{
  for (guint k = 0; k < node->n_outputs; k++)
    {
      FwValue *v = node->outputs[k];
      Operand *o;

      if (v == NULL)
        continue;
      if (k > 0)
        {
          if (v->n_uses == 0 && !v->is_output)
            continue;  /* an optional extra output nobody reads (Dropout's mask) */
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                       _("Ascend target: %s has more than one used output"), node->op_type);
          return FALSE;
        }
      if (ctype_of (v->dtype) == NULL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                       _("Ascend target: %s produces %s; the target handles float32, float16 and int32"),
                       node->op_type, fw_dtype_name (v->dtype));
          return FALSE;
        }
      if (v->dtype == FW_DTYPE_BOOL && used_outside (g, v))
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                       _("Ascend target: the bool result of %s is used outside the group; masks stay in the kernel"),
                       node->op_type);
          return FALSE;
        }
      o = operand_new (g, v, used_outside (g, v) ? KIND_OUTPUT : KIND_TEMP);
      o->first = i;
      /* The planner's live range: a temp slot is free again after the value's last reader. */
      o->last = fw_kernel_spec_lookup (g->spec, v)->last;
      o->mask = v->dtype == FW_DTYPE_BOOL;
      if (o->role != FW_SHAPE_FULL && o->role != FW_SHAPE_ROW)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                       _("Ascend target: %s computes on a broadcast operand, not the iteration space"),
                       node->op_type);
          return FALSE;
        }
      if (o->kind == KIND_OUTPUT)
        {
          o->index = g->outputs->len;
          g_ptr_array_add (g->outputs, o);
          continue;
        }
      if (o->mask)
        {
          Operand *src = node->n_inputs > 0 && node->inputs[0] ? g_hash_table_lookup (g->operands, node->inputs[0]) : NULL;
          if (o->role != FW_SHAPE_FULL)
            {
              g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                           _("Ascend target: %s makes a mask over reduced rows; masks cover the whole tile only"),
                           node->op_type);
              return FALSE;
            }
          g->uses_mask = TRUE;
          if (src != NULL && src->mask && src->kind == KIND_TEMP &&
              (strcmp (node->op_type, "Not") == 0 || strcmp (node->op_type, "Cast") == 0 ||
               strcmp (node->op_type, "Identity") == 0))
            {
              Operand *root = src->alias_of ? src->alias_of : src;
              o->alias_of = root;
              o->invert = (src->alias_of ? src->invert : FALSE) ^ (strcmp (node->op_type, "Not") == 0);
              o->index = root->index;
              root->last = MAX (root->last, o->last);
              g_ptr_array_index (slot_until, root->index) =
                GUINT_TO_POINTER (MAX (GPOINTER_TO_UINT (g_ptr_array_index (slot_until, root->index)), o->last));
              continue;
            }
        }
      /* First free slot: one whose last use is strictly before this node, so a node never writes the
       * buffer it reads. */
      o->index = G_MAXUINT;
      for (guint s = 0; s < slot_until->len; s++)
        if (GPOINTER_TO_UINT (g_ptr_array_index (slot_until, s)) < i)
          {
            o->index = s;
            break;
          }
      if (o->index == G_MAXUINT)
        {
          guint zero = 0;
          o->index = slot_until->len;
          g_ptr_array_add (slot_until, NULL);
          g_array_append_val (g->slot_eb, zero);
        }
      g_ptr_array_index (slot_until, o->index) = GUINT_TO_POINTER (o->last);
      g_array_index (g->slot_eb, guint, o->index) = MAX (g_array_index (g->slot_eb, guint, o->index), o->eb);
    }
  return TRUE;
}

/* Kernel inputs, outputs, broadcast operands and immediates; intermediates get TBuf slots by liveness. */
gboolean
fw_ac_build_operands (Gen *g, GError **error)
{
  GPtrArray *nodes = g->cand->nodes;
  g_autoptr(GPtrArray) slot_until = g_ptr_array_new ();  /* per slot: last position used, as GUINT_TO_POINTER */

  for (guint i = 0; i < nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (nodes, i);

      if (node == g->cand->root)
        {
          if (!add_root_result (g, node, error))
            return FALSE;
          continue;
        }
      /* The bias Add SetBias does: its result is the block GetTensorC brings. */
      if (g->cube && node == g->bias_add && !used_outside (g, node->outputs[0]))
        {
          g_hash_table_insert (g->operands, node->outputs[0], g->cube_result);
          continue;
        }
      if (g->cube && node == g->bias_add)
        {
          if (!add_output_operands (g, node, i, slot_until, error))
            return FALSE;
          continue;
        }
      if (!add_input_operands (g, node, error) || !add_output_operands (g, node, i, slot_until, error))
        return FALSE;
    }
  if (g->outputs->len == 0)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("Ascend target: the group writes nothing"));
      return FALSE;
    }
  if (g->rows_mode)
    {
      guint min_eb = 4;
      for (guint i = 0; i < g->all->len; i++)
        {
          Operand *o = g_ptr_array_index (g->all, i);
          if (o->kind != KIND_IMMEDIATE && !o->mask)
            min_eb = MIN (min_eb, o->eb);
        }
      g->row_stride = (g->row_len + (32 / min_eb) - 1) / (32 / min_eb) * (32 / min_eb);
    }
  return TRUE;
}

/* Operators that a float16 group computes in float32: sums and means (CANN's autofuse promotes Sum, Mean and
 * Prod to float32 for the same reason: a half accumulator loses the small terms and saturates at 65504),
 * the normalisations built on them, and the compositions of several instructions standing for one ONNX op
 * (erf, sigmoid, tanh, x^y), whose intermediates would each be rounded to half. */
gboolean
fw_ac_computes_wide (const FwNode *node)
{
  static const char *const ops[] = {
    "ReduceSum", "ReduceMean", "GlobalAveragePool", "LayerNormalization", "Softmax", "LogSoftmax",
    "Erf", "Gelu", "Sigmoid", "Tanh", "Pow",
  };

  if (node->n_outputs < 1 || node->outputs[0] == NULL || node->outputs[0]->dtype != FW_DTYPE_FLOAT16)
    return FALSE;
  for (guint k = 0; k < G_N_ELEMENTS (ops); k++)
    if (strcmp (node->op_type, ops[k]) == 0)
      {
        double y;
        /* The exponents fw-ascend-emit.c lowers to one instruction (x², √x, x, x³ as two, 1/x) stay half. */
        if (strcmp (node->op_type, "Pow") == 0 && node->n_inputs == 2 && node->inputs[1] != NULL &&
            node->inputs[1]->constant != NULL && node->inputs[1]->constant->n_elements == 1 &&
            fw_tensor_get_double (node->inputs[1]->constant, 0, &y) &&
            (y == 2.0 || y == 0.5 || y == 1.0 || y == 3.0 || y == -1.0))
          return FALSE;
        return TRUE;
      }
  return FALSE;
}

/* Decided before the row forms and the buffers: a half group with such an operator holds float32 in its
 * scratch and reduction buffers, so they are sized (and the UB budget and tile priced) at 4 bytes. */
void
fw_ac_decide_wide (Gen *g)
{
  g->wide = FALSE;
  for (guint i = 0; i < fw_kernel_spec_get_n_nodes (g->spec) && !g->wide; i++)
    g->wide = fw_ac_computes_wide (fw_kernel_spec_get_node (g->spec, i));
  if (g->wide)
    g->max_eb = MAX (g->max_eb, 4);
}

/* A broadcast operand gets a tile-shaped copy unless it is one scalar or a resident row. */
gboolean
fw_ac_needs_expand (const Operand *o)
{
  return o->elements > 1 && !o->rowvec;
}

static void
add_kernel_buffer (Gen *g, FwShapeRole role, guint eb, guint copies, gint64 elements)
{
  KernelBuffer b = { role, eb, copies, elements };
  g_array_append_val (g->kernel_buffers, b);
}

/* What Init allocates, in the same order: the C block's queue of a mixed kernel, queues, temp slots, scratch,
 * reduction work, broadcast buffers. */
void
fw_ac_collect_kernel_buffers (Gen *g)
{
  if (g->cube)
    add_kernel_buffer (g, FW_SHAPE_FULL, g->cube_result->eb, 1, 0);
  for (guint i = 0; i < g->inputs->len; i++)
    {
      Operand *o = g_ptr_array_index (g->inputs, i);
      add_kernel_buffer (g, o->role, o->eb, 2, 0);
    }
  for (guint i = 0; i < g->outputs->len; i++)
    {
      Operand *o = g_ptr_array_index (g->outputs, i);
      add_kernel_buffer (g, o->role, o->eb, 2, 0);
    }
  for (guint s = 0; s < g->slot_eb->len; s++)
    add_kernel_buffer (g, FW_SHAPE_FULL, g_array_index (g->slot_eb, guint, s), 1, 0);
  for (guint s = 0; s < FW_AC_N_SCRATCH; s++)
    if (g->scratch[s])
      add_kernel_buffer (g, FW_SHAPE_FULL, g->max_eb, 1, 0);
  if (g->row_scratch)
    add_kernel_buffer (g, FW_SHAPE_ROW, g->max_eb, 1, 0);
  /* fw-ascend-rows.c: rowBcast, 32 bytes a row and the 7 rows Brcb may fill past the last; rowFold, 256 bytes
   * a row (an upper bound past ROWS_PER_CALL rows). */
  if (g->row_bcast)
    {
      add_kernel_buffer (g, FW_SHAPE_ROW, 32, 1, 0);
      add_kernel_buffer (g, FW_SHAPE_OTHER, 1, 1, 7 * 32);
    }
  if (g->row_fold)
    add_kernel_buffer (g, FW_SHAPE_ROW, 256, 1, 0);
  if (g->reduce)
    {
      add_kernel_buffer (g, FW_SHAPE_OTHER, 1, 1, 32);
      add_kernel_buffer (g, FW_SHAPE_OTHER, 1, 1, g->row_len * g->max_eb);
    }
  for (guint i = 0; i < g->smalls->len; i++)
    {
      Operand *o = g_ptr_array_index (g->smalls, i);
      add_kernel_buffer (g, FW_SHAPE_OTHER, 1, 1, o->elements * o->eb);
      if (fw_ac_needs_expand (o))
        add_kernel_buffer (g, FW_SHAPE_FULL, o->eb, 1, 0);
    }
}
