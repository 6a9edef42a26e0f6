/* fw-kernel-spec.c: the planner's decision for one group, frozen (docs/kernel-spec.md).
 *
 * Built once per candidate from what discovery settled (members, compute root, iteration space): the rows
 * a tile holds whole, every value's part in the kernel with its live range, and the Unified Buffer plan the
 * estimates price and the kernels allocate from. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-kernel-spec-private.h"
#include "fw-plan-private.h"

/* ---- rows of one node ---- */

static gboolean
row_error (char **why, char *message)
{
  if (why)
    *why = message;
  else
    g_free (message);
  return FALSE;
}

static gboolean
reduce_row_op (const FwNode *node, gint rank, FwRowOp *out, char **why)
{
  const char *op = node->op_type;
  guint n = 0;
  const gint64 *axes = fw_node_get_attr_ints (node, "axes", &n);
  gboolean reduced[FW_MAX_RANK] = { FALSE };
  gint count = 0;

  if (rank > FW_MAX_RANK)
    return row_error (why, g_strdup_printf (_("rank over %d"), FW_MAX_RANK));
  out->keepdims = fw_node_get_attr_int (node, "keepdims", 1) != 0;
  if (axes == NULL && node->n_inputs > 1 && node->inputs[1])
    {
      FwTensor *t = node->inputs[1]->constant;
      if (t == NULL)
        return row_error (why, g_strdup_printf (_("%s with axes computed at run time"), op));
      if (t->n_elements == 0 && fw_node_get_attr_int (node, "noop_with_empty_axes", 0))
        return row_error (why, g_strdup_printf (_("%s with noop_with_empty_axes"), op));
      for (gint64 i = 0; i < t->n_elements; i++)
        {
          gint64 a = 0;
          fw_tensor_get_int64 (t, i, &a);
          a = a < 0 ? a + rank : a;
          if (a < 0 || a >= rank)
            return row_error (why, g_strdup_printf (_("%s axis out of range"), op));
          reduced[a] = TRUE;
        }
      if (t->n_elements == 0)
        {
          out->by_default = TRUE;
          for (gint i = 0; i < rank; i++)
            reduced[i] = TRUE;
        }
    }
  else if (axes != NULL)
    {
      for (guint i = 0; i < n; i++)
        {
          gint64 a = axes[i] < 0 ? axes[i] + rank : axes[i];
          if (a < 0 || a >= rank)
            return row_error (why, g_strdup_printf (_("%s axis out of range"), op));
          reduced[a] = TRUE;
        }
    }
  else
    {
      out->by_default = TRUE;
      for (gint i = 0; i < rank; i++)
        reduced[i] = TRUE;
    }
  for (gint i = 0; i < rank; i++)
    count += reduced[i] ? 1 : 0;
  for (gint i = rank - count; i < rank; i++)
    if (!reduced[i])
      return row_error (why, g_strdup_printf (_("%s over axes that are not the trailing ones"), op));
  if (count == 0)
    return row_error (why, g_strdup_printf (_("%s reduces nothing"), op));
  out->axes = count;
  return TRUE;
}

/* Row operations reduce or normalise over trailing axes of their first input, so a tile of whole rows holds
 * everything they need. Softmax before opset 13 flattens from its axis on: trailing axes too; from opset 13
 * on it is one axis, which a tile covers by holding every axis from it on whole, and a kernel iterates as if
 * it were the last (from_end). */
gboolean
fw_node_row_op_full (const FwNode *node, FwRowOp *out, char **why)
{
  const char *op = node->op_type;
  FwValue *in = node->n_inputs > 0 ? node->inputs[0] : NULL;
  gint rank = in ? in->rank : 0;

  memset (out, 0, sizeof *out);
  if (why)
    *why = NULL;
  if (node->domain[0] != '\0' || in == NULL)
    return TRUE;
  if (strcmp (op, "Softmax") == 0 || strcmp (op, "LogSoftmax") == 0)
    {
      gint64 axis = fw_node_get_attr_int (node, "axis", node->opset >= 13 || node->opset == 0 ? -1 : 1);
      axis = axis < 0 ? axis + rank : axis;
      out->full_out = TRUE;
      if (axis < 0 || axis >= rank)
        return row_error (why, g_strdup_printf (_("%s axis out of range"), op));
      out->axes = rank - (gint) axis;
      if ((node->opset >= 13 || node->opset == 0) && axis != rank - 1)
        out->from_end = rank - (gint) axis;
      return TRUE;
    }
  if (strcmp (op, "LayerNormalization") == 0)
    {
      gint64 axis = fw_node_get_attr_int (node, "axis", -1);
      axis = axis < 0 ? axis + rank : axis;
      out->full_out = TRUE;
      if (axis < 0 || axis >= rank)
        return row_error (why, g_strdup (_("LayerNormalization axis out of range")));
      out->axes = rank - (gint) axis;
      return TRUE;
    }
  if (strcmp (op, "GlobalAveragePool") == 0 || strcmp (op, "GlobalMaxPool") == 0)
    {
      if (rank <= 2)
        return row_error (why, g_strdup_printf (_("%s needs a spatial input"), op));
      out->axes = rank - 2;
      out->keepdims = TRUE;
      return TRUE;
    }
  if (g_str_has_prefix (op, "Reduce"))
    {
      if (rank <= 0)
        return TRUE;
      return reduce_row_op (node, rank, out, why);
    }
  return TRUE;
}

/* ---- broadcast forms ---- */

/* Trailing axes of the space a value is constant along while matching it on the leading ones ([B, S, 1] in
 * [B, S, H]: one scalar per row), or 0. */
static gint
per_row_scalar_axes (const FwSpace *space, const FwValue *v)
{
  if (v->rank != space->rank || !fw_value_is_static (v))
    return 0;
  for (gint k = 1; k < space->rank; k++)
    {
      gint lead = space->rank - k;
      gboolean match = TRUE;
      gint64 row = 1;
      for (gint i = 0; i < space->rank; i++)
        {
          if (i < lead ? v->dims[i].value != space->dims[i] : v->dims[i].value != 1)
            match = FALSE;
          if (i >= lead)
            row *= space->dims[i];
        }
      if (match && row > 1)
        return k;
    }
  return 0;
}

/* Trailing axes of the space a value covers exactly while being broadcast along all leading ones ([H] or
 * [1, 1, H] in [B, S, H]: one row, repeated), or 0. */
static gint
row_vector_axes (const FwSpace *space, const FwValue *v)
{
  gint first = -1;

  if (v->rank > space->rank || v->rank == 0 || !fw_value_is_static (v))
    return 0;
  for (gint j = 0; j < v->rank; j++)
    {
      gint a = space->rank - v->rank + j;
      if (first < 0 && v->dims[j].value != 1)
        first = a;
      if (first >= 0 && v->dims[j].value != space->dims[a])
        return 0;
    }
  if (first <= 0)
    return 0;  /* a scalar, or no leading axis to repeat along */
  return space->rank - first;
}

static gboolean
is_channel_parameter (const FwNode *node, guint k)
{
  return k >= 1 && strcmp (node->op_type, "BatchNormalization") == 0;
}

/* Rows a group without a row reduction is tiled by when its broadcast operands need them: per-row scalars
 * decide (they must be one element per row of the tile), else row vectors; the smallest candidate wins.
 * Operands that broadcast some other way are expanded per tile by the kernels. */
static gint
broadcast_row_axes (GPtrArray *nodes, FwNode *root, const FwSpace *space)
{
  gint scalar_axes = 0, vector_axes = 0;

  for (guint i = 0; i < nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (nodes, i);

      if (node == root)
        continue;
      for (guint k = 0; k < node->n_inputs + 1; k++)
        {
          FwValue *v = k < node->n_inputs ? node->inputs[k] : node->n_outputs > 0 ? node->outputs[0] : NULL;
          gint s, r;
          if (v == NULL || fw_value_is_immediate (v))
            continue;
          s = per_row_scalar_axes (space, v);
          if (s > 0 && (scalar_axes == 0 || s < scalar_axes))
            scalar_axes = s;
          /* BatchNormalization's parameters map onto the channel axis, not from the right. */
          if (k < node->n_inputs && !is_channel_parameter (node, k))
            {
              r = row_vector_axes (space, v);
              if (r > 0 && (vector_axes == 0 || r < vector_axes))
                vector_axes = r;
            }
        }
    }
  return scalar_axes > 0 ? scalar_axes : vector_axes;
}

/* ---- the spec ---- */

static gboolean
spec_member (const FwKernelSpec *spec, const FwNode *node)
{
  return node != NULL && g_hash_table_contains (spec->positions, node);
}

static gboolean
leaves_group (const FwKernelSpec *spec, const FwValue *value)
{
  if (value->is_output)
    return TRUE;
  for (guint u = 0; u < value->n_uses; u++)
    if (!spec_member (spec, value->uses[u].node))
      return TRUE;
  return FALSE;
}

static guint
last_reader (const FwKernelSpec *spec, const FwValue *value, guint from)
{
  guint last = from;

  for (guint u = 0; u < value->n_uses; u++)
    {
      gpointer pos = g_hash_table_lookup (spec->positions, value->uses[u].node);
      if (pos != NULL)
        last = MAX (last, GPOINTER_TO_UINT (pos) - 1);
    }
  return last;
}

static FwBroadcast
broadcast_of (const FwKernelSpec *spec, const FwNode *node, guint k, const FwValue *v, gint *axes)
{
  *axes = 0;
  if (is_channel_parameter (node, k) && v->rank == 1 && spec->space.rank >= 2 &&
      v->dims[0].value == spec->space.dims[1])
    return FW_BROADCAST_CHANNEL;
  if (fw_value_get_n_elements (v) == 1)
    return FW_BROADCAST_SCALAR;
  if ((*axes = per_row_scalar_axes (&spec->space, v)) > 0)
    return FW_BROADCAST_PER_ROW;
  if ((*axes = row_vector_axes (&spec->space, v)) > 0)
    return FW_BROADCAST_ROW_VECTOR;
  return FW_BROADCAST_OTHER;
}

/* A value's role by its index map: whole when the space reaches as many of its elements as it has points,
 * per row when it is constant along the row axes only, else broadcast. */
static FwShapeRole
map_role (const FwKernelSpec *spec, const FwIndexMap *map)
{
  const FwSpace *space = &spec->space;
  gint lead = space->rank - space->row_axes;
  gboolean row = space->row_axes > 0;

  if (map->touched == fw_space_elements (space))
    return FW_SHAPE_FULL;
  for (gint a = 0; a < space->rank; a++)
    if (space->dims[a] > 1 && (a < lead) != (map->strides[a] != 0))
      row = FALSE;
  return row ? FW_SHAPE_ROW : FW_SHAPE_SMALL;
}

static FwSpecValue *
add_value (FwKernelSpec *spec, FwValue *v, FwSpecKind kind, guint first)
{
  FwSpecValue sv = { 0 };
  const FwIndexMap *map = spec->maps != NULL ? g_hash_table_lookup (spec->maps, v) : NULL;

  sv.value = v;
  sv.kind = kind;
  if (map != NULL)
    sv.map = *map;
  sv.role = sv.map.indexed ? map_role (spec, &sv.map) : fw_space_role (&spec->space, v);
  sv.elem_bytes = MAX (1u, fw_dtype_bits (v->dtype) / 8);
  sv.elements = MAX (fw_value_get_n_elements (v), 1);
  sv.first = first;
  sv.last = first;
  g_array_append_val (spec->values, sv);
  g_hash_table_insert (spec->by_value, v, GUINT_TO_POINTER (spec->values->len));
  return &g_array_index (spec->values, FwSpecValue, spec->values->len - 1);
}

static void
add_buffer (FwKernelSpec *spec, const FwSpecValue *v, gboolean streamed, guint first, guint last)
{
  FwSpecBuffer b = { v->value, v->role, v->elem_bytes, v->elements, streamed, first, last };
  g_array_append_val (spec->buffers, b);
}

/* Every value the group touches, and the Unified Buffer plan: one buffer per streamed input (the compute
 * root reads its operands through L1/L0, not the Unified Buffer), per output and per intermediate, live
 * from where it is made or first read to its last reader; streamed buffers to the end of the tile. */
static void
collect_values (FwKernelSpec *spec)
{
  for (guint i = 0; i < spec->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (spec->nodes, i);

      for (guint k = 0; k < node->n_inputs; k++)
        {
          FwValue *v = node->inputs[k];
          gpointer seen;
          FwSpecValue *sv;

          if (v == NULL || spec_member (spec, v->producer))
            continue;
          /* An injective member's shape, starts or constant indices are its index map, not data. */
          if (!fw_node_is_data_input (node, k) && !fw_value_is_immediate (v) &&
              fw_node_class (node) == FW_OP_CLASS_INJECTIVE)
            continue;
          if ((seen = g_hash_table_lookup (spec->by_value, v)) != NULL)
            {
              sv = &g_array_index (spec->values, FwSpecValue, GPOINTER_TO_UINT (seen) - 1);
              sv->last = i;
              /* An operand of the compute root that the epilogue reads too (a residual of the MatMul's
                 input) streams into the Unified Buffer for that reader like any input. */
              if (sv->kind == FW_SPEC_ROOT_OPERAND && node != spec->root)
                {
                  sv->kind = FW_SPEC_INPUT;
                  add_buffer (spec, sv, TRUE, 0, i);
                  continue;
                }
              for (guint b = 0; b < spec->buffers->len; b++)
                if (g_array_index (spec->buffers, FwSpecBuffer, b).value == v)
                  g_array_index (spec->buffers, FwSpecBuffer, b).last = i;
              continue;
            }
          if (fw_value_is_immediate (v))
            {
              add_value (spec, v, FW_SPEC_IMMEDIATE, i);
              continue;
            }
          sv = add_value (spec, v, node == spec->root ? FW_SPEC_ROOT_OPERAND : FW_SPEC_INPUT, i);
          if (sv->map.indexed && sv->role != FW_SHAPE_FULL)
            sv->broadcast = FW_BROADCAST_OTHER;
          else if (sv->role == FW_SHAPE_SMALL || sv->role == FW_SHAPE_OTHER || is_channel_parameter (node, k))
            sv->broadcast = broadcast_of (spec, node, k, v, &sv->broadcast_axes);
          spec->n_inputs++;
          if (node != spec->root)
            add_buffer (spec, sv, TRUE, 0, i);
        }
      for (guint k = 0; k < node->n_outputs; k++)
        {
          FwValue *v = node->outputs[k];
          gboolean out, streamed;
          FwSpecValue *sv;

          if (v == NULL)
            continue;
          out = leaves_group (spec, v);
          sv = add_value (spec, v, out ? FW_SPEC_OUTPUT : FW_SPEC_INTERMEDIATE, i);
          sv->last = last_reader (spec, v, i);
          if (out)
            spec->n_outputs++;
          /* The root's result arrives from L0C in tiles, double-buffered like a load. */
          streamed = out || node == spec->root;
          if (streamed)
            sv->last = spec->nodes->len;
          add_buffer (spec, sv, streamed, i, sv->last);
        }
    }
}

static gdouble
align_up (gdouble bytes, guint align)
{
  return align <= 1 ? bytes : ceil (bytes / align) * align;
}

static gdouble
footprint (const FwSpecBuffer *b, gdouble tile, gdouble rows)
{
  switch (b->role)
    {
    case FW_SHAPE_FULL:
      return tile;
    case FW_SHAPE_ROW:
      return rows;
    case FW_SHAPE_SMALL:
    case FW_SHAPE_OTHER:
    default:
      return MIN ((gdouble) b->elements, tile);
    }
}

void
fw_ub_arrangement_init (FwUbArrangement *arrangement)
{
  memset (arrangement, 0, sizeof *arrangement);
  arrangement->buffers = g_array_new (FALSE, TRUE, sizeof (FwUbBuffer));
  arrangement->tile_align = 1;
  arrangement->block_bytes = 1;
}

void
fw_ub_arrangement_clear (FwUbArrangement *arrangement)
{
  g_clear_pointer (&arrangement->buffers, g_array_unref);
  g_clear_pointer (&arrangement->form_reason, g_free);
}

gdouble
fw_ub_arrangement_bytes (const FwUbArrangement *a, gboolean rows_mode, gdouble tile, gdouble rows, guint *n_buffers)
{
  gdouble total = 0;
  guint count = 0;

  for (guint i = 0; i < a->buffers->len; i++)
    {
      const FwUbBuffer *b = &g_array_index (a->buffers, FwUbBuffer, i);
      gdouble bytes;

      switch (b->sizing)
        {
        case FW_UB_TILE:
          bytes = align_up (rows_mode ? rows * (gdouble) a->row_stride : tile, a->tile_align) * b->elem_bytes;
          break;
        case FW_UB_ROWS:
          bytes = align_up ((rows_mode ? rows : 1.0) * b->elem_bytes, a->block_bytes);
          break;
        case FW_UB_FIXED:
        default:
          bytes = align_up ((gdouble) b->fixed_bytes, a->block_bytes);
          break;
        }
      total += bytes * b->copies;
      count += b->copies;
    }
  if (n_buffers)
    *n_buffers = count;
  return total;
}

gboolean
fw_ub_arrangement_equal (const FwUbArrangement *a, const FwUbArrangement *b)
{
  if (a->buffers->len != b->buffers->len || a->row_stride != b->row_stride || a->tile_align != b->tile_align ||
      a->block_bytes != b->block_bytes || a->form != b->form || a->fixed_tile != b->fixed_tile ||
      a->fixed_rows != b->fixed_rows || a->vector_cores != b->vector_cores)
    return FALSE;
  for (guint i = 0; i < a->buffers->len; i++)
    {
      const FwUbBuffer *x = &g_array_index (a->buffers, FwUbBuffer, i), *y = &g_array_index (b->buffers, FwUbBuffer, i);
      if (x->sizing != y->sizing || x->elem_bytes != y->elem_bytes || x->copies != y->copies ||
          x->fixed_bytes != y->fixed_bytes)
        return FALSE;
    }
  return TRUE;
}

void
fw_kernel_spec_take_arrangement (FwKernelSpec *spec, FwUbArrangement *arrangement)
{
  if (spec->arrangement != NULL)
    fw_ub_arrangement_clear (spec->arrangement);
  else
    spec->arrangement = g_new0 (FwUbArrangement, 1);
  *spec->arrangement = *arrangement;
  arrangement->buffers = NULL;
  arrangement->form_reason = NULL;
}

const FwUbArrangement *
fw_kernel_spec_get_arrangement (const FwKernelSpec *spec)
{
  return spec->arrangement;
}

FwKernelForm
fw_kernel_spec_get_form (const FwKernelSpec *spec)
{
  if (spec->arrangement != NULL)
    return spec->arrangement->form;
  return spec->root != NULL ? FW_KERNEL_FORM_EPILOGUE : FW_KERNEL_FORM_VECTOR;
}

const char *
fw_kernel_spec_get_form_reason (const FwKernelSpec *spec)
{
  return spec->arrangement != NULL ? spec->arrangement->form_reason : NULL;
}

gdouble
fw_kernel_spec_ub_bytes (const FwKernelSpec *spec, guint align, gdouble tile, gdouble rows, guint *n_buffers)
{
  gdouble streamed = 0, peak = 0;
  guint count = 0;

  if (spec->arrangement != NULL)
    return fw_ub_arrangement_bytes (spec->arrangement, spec->space.row_axes > 0, tile, rows, n_buffers);

  for (guint b = 0; b < spec->buffers->len; b++)
    {
      const FwSpecBuffer *buf = &g_array_index (spec->buffers, FwSpecBuffer, b);
      if (buf->streamed)
        {
          streamed += 2 * align_up (footprint (buf, tile, rows) * buf->elem_bytes, align);
          count += 2;
        }
    }
  /* Intermediates: the largest set alive at any one position. */
  for (guint i = 0; i < spec->nodes->len; i++)
    {
      gdouble live = 0;
      guint n = 0;
      for (guint b = 0; b < spec->buffers->len; b++)
        {
          const FwSpecBuffer *buf = &g_array_index (spec->buffers, FwSpecBuffer, b);
          if (!buf->streamed && buf->first <= i && buf->last >= i)
            {
              live += align_up (footprint (buf, tile, rows) * buf->elem_bytes, align);
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

static FwKernelSpec *
spec_build (GPtrArray *nodes, FwNode *root, const FwSpace *space, const FwProfile *profile)
{
  FwKernelSpec *spec = g_new0 (FwKernelSpec, 1);

  spec->nodes = g_ptr_array_copy (nodes, NULL, NULL);
  spec->positions = g_hash_table_new (NULL, NULL);
  spec->root = root;
  spec->space = *space;
  spec->reduce_axes = space->row_axes;
  spec->row_ops = g_new0 (FwRowOp, MAX (nodes->len, 1));
  spec->row_errors = g_new0 (char *, MAX (nodes->len, 1));
  for (guint i = 0; i < nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (nodes, i);
      g_hash_table_insert (spec->positions, node, GUINT_TO_POINTER (i + 1));
      fw_node_row_op_full (node, &spec->row_ops[i], &spec->row_errors[i]);
    }
  spec->values = g_array_new (FALSE, TRUE, sizeof (FwSpecValue));
  spec->by_value = g_hash_table_new (NULL, NULL);
  spec->buffers = g_array_new (FALSE, TRUE, sizeof (FwSpecBuffer));
  /* A fused attention is its own kernel: its views after the product are its output's strides. */
  spec->attention = fw_attention_describe (spec->nodes, root, profile);
  if (spec->attention == NULL)
    spec->hgemm = fw_hgemm_describe (spec->nodes);
  if (spec->attention == NULL && spec->hgemm == NULL)
    spec->maps = fw_index_maps_compute (spec->nodes, root, space, &spec->map_code, &spec->map_error,
                                        &spec->map_culprit);
  collect_values (spec);
  fw_kernel_spec_plan_passes (spec);
  if (spec->attention != NULL)
    {
      /* Its rows are the query block's, held in its own buffers: nothing is carried between passes. */
      spec->n_carried = 0;
      for (guint i = 0; i < spec->values->len; i++)
        g_array_index (spec->values, FwSpecValue, i).carried = FALSE;
    }
  return spec;
}

FwKernelSpec *
fw_kernel_spec_new (GPtrArray *nodes, FwNode *root, const FwSpace *space, const FwProfile *profile,
                    gboolean broadcast_rows)
{
  FwSpace rows = *space;

  /* Broadcast rows: taken when one row fits the budget by the plan's own buffers, priced in rows. Operands
   * read through index maps are not classed by their shapes, so a group with injective members is tiled
   * flat. */
  for (guint i = 0; i < nodes->len && broadcast_rows; i++)
    if (fw_node_class (g_ptr_array_index (nodes, i)) == FW_OP_CLASS_INJECTIVE)
      broadcast_rows = FALSE;
  if (space->row_axes == 0 && space->rank > 0 && broadcast_rows &&
      (rows.row_axes = broadcast_row_axes (nodes, root, space)) > 0)
    {
      FwKernelSpec *tiled = spec_build (nodes, root, &rows, profile);
      guint align = MAX (profile->ub_align_bytes, 1u);
      gdouble row = (gdouble) fw_space_row_elements (&rows);

      if (fw_kernel_spec_ub_bytes (tiled, align, row, 1.0, NULL) <= fw_profile_budget_bytes (profile))
        {
          tiled->reduce_axes = 0;
          return tiled;
        }
      fw_kernel_spec_free (tiled);
    }
  return spec_build (nodes, root, space, profile);
}

/* A group no discovery made (a user's, a test's): the space is the compute root's result, else the group's
 * largest value, with the rows of its first row operation. */
FwKernelSpec *
fw_kernel_spec_new_for_nodes (GPtrArray *nodes, FwNode *root, const FwProfile *profile)
{
  const FwValue *best = NULL;
  gint64 best_n = -1;
  FwSpace space = { 0 };

  g_return_val_if_fail (nodes != NULL && profile != NULL, NULL);
  for (guint i = 0; i < nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (nodes, i);

      for (guint k = 0; k < node->n_outputs; k++)
        {
          FwValue *v = node->outputs[k];
          gint64 n = v && fw_value_is_static (v) ? fw_value_get_n_elements (v) : -1;
          if (node == root && k == 0 && v != NULL)
            {
              best = v;
              best_n = G_MAXINT64;
            }
          if (n > best_n)
            best = v, best_n = n;
        }
      if (node == root)
        continue;
      for (guint k = 0; k < node->n_inputs; k++)
        {
          FwValue *v = node->inputs[k];
          gint64 n = v && fw_value_is_static (v) && !fw_value_is_immediate (v) ? fw_value_get_n_elements (v) : -1;
          if (n > best_n)
            best = v, best_n = n;
        }
    }
  if (best != NULL && fw_value_is_static (best) && best->rank <= FW_MAX_RANK)
    {
      space.rank = best->rank;
      for (gint i = 0; i < best->rank; i++)
        space.dims[i] = best->dims[i].value;
    }
  for (guint i = 0; i < nodes->len && space.row_axes == 0; i++)
    {
      FwRowOp op;
      if (fw_node_row_op_full (g_ptr_array_index (nodes, i), &op, NULL) && op.axes <= space.rank)
        space.row_axes = op.axes;
    }
  return fw_kernel_spec_new (nodes, root, &space, profile, TRUE);
}

void
fw_kernel_spec_free (FwKernelSpec *spec)
{
  if (spec == NULL)
    return;
  g_clear_pointer (&spec->positions, g_hash_table_unref);
  g_clear_pointer (&spec->maps, g_hash_table_unref);
  g_free (spec->map_error);
  g_free (spec->attention);
  fw_hgemm_spec_free (spec->hgemm);
  for (guint i = 0; i < spec->nodes->len; i++)
    g_free (spec->row_errors[i]);
  g_free (spec->row_errors);
  g_free (spec->row_ops);
  g_free (spec->first_pass);
  g_free (spec->last_pass);
  g_clear_pointer (&spec->nodes, g_ptr_array_unref);
  g_clear_pointer (&spec->values, g_array_unref);
  g_clear_pointer (&spec->by_value, g_hash_table_unref);
  g_clear_pointer (&spec->buffers, g_array_unref);
  if (spec->arrangement != NULL)
    {
      fw_ub_arrangement_clear (spec->arrangement);
      g_free (spec->arrangement);
    }
  g_free (spec);
}

/* ---- accessors ---- */

guint
fw_kernel_spec_get_n_nodes (const FwKernelSpec *spec)
{
  return spec->nodes->len;
}

FwNode *
fw_kernel_spec_get_node (const FwKernelSpec *spec, guint position)
{
  g_return_val_if_fail (position < spec->nodes->len, NULL);
  return g_ptr_array_index (spec->nodes, position);
}

gboolean
fw_kernel_spec_contains (const FwKernelSpec *spec, const FwNode *node)
{
  return spec_member (spec, node);
}

gint
fw_kernel_spec_position (const FwKernelSpec *spec, const FwNode *node)
{
  return (gint) GPOINTER_TO_UINT (g_hash_table_lookup (spec->positions, node)) - 1;
}

FwNode *
fw_kernel_spec_get_root (const FwKernelSpec *spec)
{
  return spec->root;
}

const FwSpace *
fw_kernel_spec_get_space (const FwKernelSpec *spec)
{
  return &spec->space;
}

gint
fw_kernel_spec_get_reduce_axes (const FwKernelSpec *spec)
{
  return spec->reduce_axes;
}

const FwRowOp *
fw_kernel_spec_get_row_op (const FwKernelSpec *spec, guint position, const char **why)
{
  g_return_val_if_fail (position < spec->nodes->len, NULL);
  if (why)
    *why = spec->row_errors[position];
  return &spec->row_ops[position];
}

guint
fw_kernel_spec_get_n_values (const FwKernelSpec *spec)
{
  return spec->values->len;
}

const FwSpecValue *
fw_kernel_spec_get_value (const FwKernelSpec *spec, guint index)
{
  g_return_val_if_fail (index < spec->values->len, NULL);
  return &g_array_index (spec->values, FwSpecValue, index);
}

const FwSpecValue *
fw_kernel_spec_lookup (const FwKernelSpec *spec, const FwValue *value)
{
  guint i = GPOINTER_TO_UINT (g_hash_table_lookup (spec->by_value, value));
  return i > 0 ? &g_array_index (spec->values, FwSpecValue, i - 1) : NULL;
}

gboolean
fw_kernel_spec_is_output (const FwKernelSpec *spec, const FwValue *value)
{
  const FwSpecValue *v = fw_kernel_spec_lookup (spec, value);
  return v != NULL && v->kind == FW_SPEC_OUTPUT;
}

const FwAttentionSpec *
fw_kernel_spec_get_attention (const FwKernelSpec *spec)
{
  return spec->attention;
}

const FwHgemmSpec *
fw_kernel_spec_get_hgemm (const FwKernelSpec *spec)
{
  return spec->hgemm;
}

gboolean
fw_kernel_spec_has_index_maps (const FwKernelSpec *spec, gboolean strided)
{
  for (guint i = 0; i < spec->values->len; i++)
    {
      const FwSpecValue *v = &g_array_index (spec->values, FwSpecValue, i);
      if (v->map.indexed && (!strided || !v->map.linear))
        return TRUE;
    }
  return FALSE;
}

guint
fw_kernel_spec_get_n_buffers (const FwKernelSpec *spec)
{
  return spec->buffers->len;
}

const FwSpecBuffer *
fw_kernel_spec_get_buffer (const FwKernelSpec *spec, guint index)
{
  g_return_val_if_fail (index < spec->buffers->len, NULL);
  return &g_array_index (spec->buffers, FwSpecBuffer, index);
}

guint
fw_kernel_spec_get_n_inputs (const FwKernelSpec *spec)
{
  return spec->n_inputs;
}

guint
fw_kernel_spec_get_n_outputs (const FwKernelSpec *spec)
{
  return spec->n_outputs;
}

const FwResourceEstimate *
fw_kernel_spec_get_resource (const FwKernelSpec *spec)
{
  return &spec->resource;
}

const FwCostEstimate *
fw_kernel_spec_get_cost (const FwKernelSpec *spec)
{
  return &spec->cost;
}
