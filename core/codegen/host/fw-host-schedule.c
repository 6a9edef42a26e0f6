/* fw-host-schedule.c: what loops a host SuperKernel has. The group's values and their roles, the row axes
 * and the iteration space, every value's strides over it, the merged lead and inner axes, the passes over
 * each row and which values need row scratch, and whether the root computes into the output in place. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-host-codegen-private.h"

/* ---- the group's values ---- */

static SkVal *
val_new (Gen *g, FwValue *value, SvKind kind)
{
  SkVal *v = g_new0 (SkVal, 1);

  v->id = g->vals->len;
  v->value = value;
  v->kind = kind;
  v->map = MAP_RIGHT;
  v->dtype = value ? value->dtype : FW_DTYPE_FLOAT;
  v->in_index = -1;
  v->out_index = -1;
  v->imm_index = -1;
  v->loaded_pass = -1;
  v->scratch_slot = -1;
  v->panel = -1;
  g_ptr_array_add (g->vals, v);
  if (value)
    g_hash_table_insert (g->by_value, value, v);
  return v;
}

static gboolean
is_member (Gen *g, const FwNode *node)
{
  return fw_kernel_spec_contains (g->cand->spec, node);
}

static gboolean
is_root_op (const FwNode *node)
{
  return strcmp (node->op_type, "MatMul") == 0 || strcmp (node->op_type, "Gemm") == 0 ||
         strcmp (node->op_type, "Conv") == 0;
}

static FwSpecKind
spec_kind (Gen *g, const FwValue *value)
{
  const FwSpecValue *v = fw_kernel_spec_lookup (g->cand->spec, value);
  return v != NULL ? v->kind : FW_SPEC_INPUT;
}

static SkVal *
use_value (Gen *g, FwValue *value, GError **error)
{
  SkVal *v = g_hash_table_lookup (g->by_value, value);

  if (v != NULL)
    return v;
  if (!fw_value_is_static (value) || value->rank < 0)
    {
      fw_hc_unsupported (error, _("value %u has a dynamic shape"), value->index);
      return NULL;
    }
  if (fw_hc_reg_type (value->dtype) == NULL)
    {
      fw_hc_unsupported (error, _("dtype %s is not supported"), fw_dtype_name (value->dtype));
      return NULL;
    }
  if (value->constant != NULL && spec_kind (g, value) == FW_SPEC_IMMEDIATE)
    {
      v = val_new (g, value, value->constant->n_elements == 1 ? SV_IMM_SCALAR : SV_IMM_ARRAY);
      if (v->kind == SV_IMM_ARRAY)
        {
          v->imm_index = g->n_imm++;
          g_string_append_printf (g->decls, "static const %s c%d[%" G_GINT64_FORMAT "] = {", fw_hc_reg_type (v->dtype),
                                  v->imm_index, value->constant->n_elements);
          for (gint64 i = 0; i < value->constant->n_elements; i++)
            {
              g_string_append (g->decls, i ? ", " : " ");
              fw_hc_append_const_element (g->decls, value->constant, i, v->dtype);
            }
          g_string_append (g->decls, " };\n");
        }
      return v;
    }
  v = val_new (g, value, SV_EXTERNAL);
  v->in_index = g->kernel->inputs->len;
  g_ptr_array_add (g->kernel->inputs, value);
  return v;
}

/* The row operations this target emits (fw-host-region.c); which members are row operations is the
 * planner's (the spec's row ops). */
static gboolean
emits_row_op (const FwNode *node)
{
  static const char *const ops[] = {
    "Softmax", "LogSoftmax", "LayerNormalization", "GlobalAveragePool", "GlobalMaxPool", "ReduceMean",
    "ReduceSum", "ReduceMax", "ReduceMin", "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceProd",
  };

  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    if (strcmp (node->op_type, ops[i]) == 0)
      return TRUE;
  return FALSE;
}

/* Whether the member at `position` is a row operation, as the planner described it (or failed to). */
static gboolean
is_row_op (Gen *g, guint position)
{
  const char *why = NULL;
  const FwRowOp *op = fw_kernel_spec_get_row_op (g->cand->spec, position, &why);

  return op->axes > 0 || why != NULL;
}

/* Collects values, finds the root, the row axes and the space. */
static gboolean
collect (Gen *g, GError **error)
{
  const FwKernelSpec *spec = g->cand->spec;

  g->root = fw_kernel_spec_get_root (spec);
  for (guint i = 0; i < fw_kernel_spec_get_n_nodes (spec); i++)
    {
      FwNode *node = fw_kernel_spec_get_node (spec, i);
      SkNode sn = { node, i, NK_ELEM, 0, 0, NULL };
      FwValue *out0 = node->n_outputs > 0 ? node->outputs[0] : NULL;

      /* Custom operators of the registry carry their own expression (fw-host-custom.c). */
      if (node->domain[0] != '\0' && (node->op == NULL || node->op->custom == NULL))
        return fw_hc_unsupported (error, _("operator %s of another domain"), node->op_type);
      if (is_root_op (node) && node != g->root)
        return fw_hc_unsupported (error, _("%s inside an epilogue"), node->op_type);
      if (out0 == NULL)
        return fw_hc_unsupported (error, _("%s without an output"), node->op_type);
      for (guint k = 0; k < node->n_inputs; k++)
        {
          FwValue *v = node->inputs[k];
          if (v == NULL || !fw_node_is_data_input (node, k) || (v->producer && is_member (g, v->producer)))
            continue;
          if (use_value (g, v, error) == NULL)
            return FALSE;
        }
      for (guint k = 0; k < node->n_outputs; k++)
        {
          FwValue *v = node->outputs[k];
          gboolean outside;
          SkVal *sv;

          if (v == NULL)
            continue;
          outside = v->is_output;
          for (guint u = 0; u < v->n_uses; u++)
            if (v->uses[u].slot == FW_USE_IMPLICIT || !is_member (g, v->uses[u].node))
              outside = TRUE;
          if (k > 0)
            {
              if (outside || v->n_uses > 0)
                return fw_hc_unsupported (error, _("%s with a second output in use"), node->op_type);
              continue;
            }
          if (!fw_value_is_static (v))
            return fw_hc_unsupported (error, _("value %u has a dynamic shape"), v->index);
          if (fw_hc_reg_type (v->dtype) == NULL)
            return fw_hc_unsupported (error, _("dtype %s is not supported"), fw_dtype_name (v->dtype));
          sv = val_new (g, v, SV_INTERNAL);
          if (outside)
            {
              sv->out_index = g->kernel->outputs->len;
              g_ptr_array_add (g->kernel->outputs, v);
            }
          sn.out = sv;
        }
      g_array_append_val (g->nodes, sn);
    }
  if (g->kernel->outputs->len == 0)
    return fw_hc_unsupported (error, _("the group has no output"));
  return TRUE;
}

/* The space is the planner's (the candidate's FwKernelSpec); the rows are those its row operations reduce,
 * which this target requires to agree. */
static gboolean
find_space (Gen *g, GError **error)
{
  const FwKernelSpec *spec = g->cand->spec;
  const FwSpace *space = fw_kernel_spec_get_space (spec);
  gint moved_from_end = 0;

  g->split = -1;
  g->moved = -1;
  g->rank = 0;
  for (guint i = 0; i < g->nodes->len; i++)
    {
      SkNode *sn = &g_array_index (g->nodes, SkNode, i);
      FwNode *node = sn->node;
      const char *why = NULL;
      const FwRowOp *op;
      gint r, from_end;

      if (!is_row_op (g, i))
        continue;
      if (!emits_row_op (node))
        return fw_hc_unsupported (error, _("the row operation %s"), node->op_type);
      op = fw_kernel_spec_get_row_op (spec, i, &why);
      if (why != NULL)
        return fw_hc_unsupported (error, "%s", why);
      if (op->axes == 0)
        return fw_hc_unsupported (error, _("%s reduces nothing"), node->op_type);
      from_end = op->from_end;
      r = from_end != 0 ? 1 : op->axes;
      if (g->row_axes != 0 && g->row_axes != r)
        return fw_hc_unsupported (error, _("row operations over different numbers of axes"));
      if (g->row_axes != 0 && moved_from_end != from_end)
        return fw_hc_unsupported (error, _("row operations over different axes"));
      g->row_axes = r;
      moved_from_end = from_end;
      if (!op->full_out && !op->keepdims)
        sn->out->map = MAP_LEAD;
    }
  if (space->rank > FW_MAX_RANK)
    return fw_hc_unsupported (error, _("rank over %d"), FW_MAX_RANK);
  g->rank = space->rank;
  memcpy (g->dims, space->dims, sizeof (gint64) * (gsize) space->rank);
  if (g->root != NULL)
    {
      SkVal *out = g_array_index (g->nodes, SkNode, 0).out;
      gint inner = strcmp (g->root->op_type, "Conv") == 0 ? 2 : 1;
      gint min_rank = inner + (inner == 2 ? 2 : 1);

      if (g_array_index (g->nodes, SkNode, 0).node != g->root)
        return fw_hc_unsupported (error, _("the root is not the group's first node"));
      if (moved_from_end != 0)
        return fw_hc_unsupported (error, _("a row operation that does not reduce the %s tile's rows"), g->root->op_type);
      /* Half operands are multiplied as float32 panels, the product accumulated in float32 and rounded
         where it leaves the group (fw-host-half.c). */
      if (!fw_hc_is_floatish (out->dtype))
        return fw_hc_unsupported (error, _("%s in %s (sgemm computes float32)"), g->root->op_type,
                            fw_dtype_name (out->dtype));
      /* A 1-D MatMul operand loses its matrix dim in the result (numpy.matmul), so the result may be a
         vector; both 1-D gives a scalar, no row to run the epilogue over. */
      if (strcmp (g->root->op_type, "MatMul") == 0 && g->root->n_inputs == 2 && g->root->inputs[0] &&
          g->root->inputs[1] && (g->root->inputs[0]->rank == 1 || g->root->inputs[1]->rank == 1))
        min_rank = 1;
      if (out->value->rank < min_rank)
        return fw_hc_unsupported (error, _("%s of rank %d"), g->root->op_type, out->value->rank);
      if (g->row_axes != 0 && g->row_axes != inner)
        return fw_hc_unsupported (error, _("a row operation that does not reduce the %s tile's rows"), g->root->op_type);
      g->split = g->rank - inner;
    }
  else if (g->row_axes > 0)
    {
      if (g->row_axes > g->rank || moved_from_end > g->rank)
        return fw_hc_unsupported (error, _("row axes beyond the space"));
      g->split = g->rank - g->row_axes;
      if (moved_from_end != 0)
        g->moved = g->rank - moved_from_end;
    }
  return TRUE;
}

/* Before the space is known: which values are per-channel vectors and which do not map at all. */
static gboolean
mark_maps (Gen *g, GError **error)
{
  /* Channel vectors: Conv's bias, BatchNormalization's parameters. */
  for (guint i = 0; i < g->nodes->len; i++)
    {
      FwNode *node = g_array_index (g->nodes, SkNode, i).node;
      gboolean bn = strcmp (node->op_type, "BatchNormalization") == 0;
      if (!(bn || (node == g->root && strcmp (node->op_type, "Conv") == 0)))
        continue;
      for (guint k = bn ? 1 : 0; k < node->n_inputs; k++)
        {
          SkVal *v = node->inputs[k] ? g_hash_table_lookup (g->by_value, node->inputs[k]) : NULL;
          if (v == NULL || (node == g->root && k != 2))
            continue;
          if (v->value->rank != 1)
            return fw_hc_unsupported (error, _("%s parameters that are not per channel"), node->op_type);
          v->map = MAP_CHANNEL;
        }
    }
  if (g->root != NULL)
    for (guint k = 0; k < g->root->n_inputs; k++)
      {
        SkVal *v = g->root->inputs[k] ? g_hash_table_lookup (g->by_value, g->root->inputs[k]) : NULL;
        gboolean gemm_c = strcmp (g->root->op_type, "Gemm") == 0 && k == 2;
        gboolean elsewhere = FALSE;
        /* A root operand the epilogue also reads (a residual of the MatMul's input) stays in the space. */
        for (guint u = 0; v != NULL && u < v->value->n_uses; u++)
          if (v->value->uses[u].node != g->root && is_member (g, v->value->uses[u].node))
            elsewhere = TRUE;
        if (v != NULL && v->map != MAP_CHANNEL && !gemm_c && !elsewhere)
          v->map = MAP_NONE;
      }
  return TRUE;
}

/* A value the planner maps through injective members takes its strides and offset from the spec's index map
 * (fw-index-map.c), not from its shape. */
static gboolean
is_indexed (Gen *g, const SkVal *v)
{
  const FwSpecValue *sv = v->value != NULL ? fw_kernel_spec_lookup (g->cand->spec, v->value) : NULL;

  return sv != NULL && sv->map.indexed;
}

static gboolean
index_map (Gen *g, SkVal *v)
{
  const FwSpecValue *sv = v->value != NULL ? fw_kernel_spec_lookup (g->cand->spec, v->value) : NULL;

  if (sv == NULL || !sv->map.indexed)
    return FALSE;
  memset (v->strides, 0, sizeof v->strides);
  memcpy (v->strides, sv->map.strides, sizeof sv->map.strides);
  v->offset = sv->map.offset;
  return TRUE;
}

/* Strides of every value over the space; FALSE when a value does not map onto it. */
static gboolean
map_values (Gen *g, GError **error)
{
  gint lead = g->split >= 0 ? g->split : g->rank;

  for (guint i = 0; i < g->vals->len; i++)
    {
      SkVal *v = g_ptr_array_index (g->vals, i);
      gint64 acc = 1;

      memset (v->strides, 0, sizeof v->strides);
      v->offset = 0;
      if (v->kind != SV_TILE && v->map != MAP_NONE && index_map (g, v))
        continue;
      if (v->kind == SV_TILE)
        {
          for (gint a = g->rank - 1; a >= 0; a--)
            {
              v->strides[a] = g->dims[a] == 1 ? 0 : acc;
              acc *= g->dims[a];
            }
          continue;
        }
      switch (v->map)
        {
        case MAP_NONE:
        default:
          break;
        case MAP_CHANNEL:
          if (g->rank < 2 || v->value->dims[0].value != g->dims[1])
            return fw_hc_unsupported (error, _("per-channel parameters that do not match the channels"));
          v->strides[1] = g->dims[1] == 1 ? 0 : 1;
          break;
        case MAP_LEAD:
          if (v->value->rank != lead)
            return fw_hc_unsupported (error, _("a reduction result that does not map onto the rows"));
          for (gint a = lead - 1; a >= 0; a--)
            {
              gint64 d = v->value->dims[a].value;
              if (d != 1 && d != g->dims[a])
                return fw_hc_unsupported (error, _("a reduction result that does not map onto the rows"));
              v->strides[a] = d == 1 ? 0 : acc;
              acc *= d;
            }
          break;
        case MAP_RIGHT:
          if (v->value->rank > g->rank)
            return fw_hc_unsupported (error, _("a value of higher rank than the group's space"));
          for (gint a = v->value->rank - 1; a >= 0; a--)
            {
              gint sa = g->rank - v->value->rank + a;
              gint64 d = v->value->dims[a].value;
              if (d != 1 && d != g->dims[sa])
                {
                  g_autofree char *shape = fw_value_format_shape (v->value);
                  return fw_hc_unsupported (error, _("a value of shape %s does not broadcast into the group's space"), shape);
                }
              v->strides[sa] = d == 1 ? 0 : acc;
              acc *= d;
            }
          break;
        }
    }
  /* A keepdims=0 result read inside the group would be read right-aligned by numpy rules. */
  for (guint i = 0; i < g->vals->len; i++)
    {
      SkVal *v = g_ptr_array_index (g->vals, i);
      if (v->map == MAP_LEAD && !is_indexed (g, v))
        for (guint u = 0; u < v->value->n_uses; u++)
          if (is_member (g, v->value->uses[u].node))
            return fw_hc_unsupported (error, _("a keepdims=0 reduction read inside the group"));
    }
  return TRUE;
}

/* Moves the axis g->moved last in the space and in every value's strides, so it becomes the row. */
static void
move_axis_last (Gen *g)
{
  gint m = g->moved;
  gint64 d;

  if (m < 0 || m == g->rank - 1)
    return;
  d = g->dims[m];
  memmove (g->dims + m, g->dims + m + 1, (g->rank - 1 - m) * sizeof (gint64));
  g->dims[g->rank - 1] = d;
  for (guint i = 0; i < g->vals->len; i++)
    {
      SkVal *v = g_ptr_array_index (g->vals, i);
      gint64 st = v->strides[m];
      memmove (v->strides + m, v->strides + m + 1, (g->rank - 1 - m) * sizeof (gint64));
      v->strides[g->rank - 1] = st;
    }
}

/* The original axis of space axis a, before move_axis_last. */
static gint
unmoved_axis (const Gen *g, gint a)
{
  if (g->moved < 0 || a < g->moved)
    return a;
  return a == g->rank - 1 ? g->moved : a + 1;
}

gboolean
fw_hc_val_in_space (const SkVal *v)
{
  return v->kind == SV_TILE || v->map != MAP_NONE;
}

/* Merges adjacent axes of the same side of the split where every value allows. */
static void
collapse (Gen *g)
{
  gint split = g->split;
  gint n = 0;
  gint64 gd[FW_MAX_RANK];
  gboolean ginner[FW_MAX_RANK];
  gint last_axis[FW_MAX_RANK];

  for (gint a = 0; a < g->rank; a++)
    {
      gboolean inner = split >= 0 && a >= split;
      gboolean merge = FALSE;

      if (g->dims[a] == 1)
        continue;
      if (n > 0 && ginner[n - 1] == inner)
        {
          gint p = last_axis[n - 1];
          merge = TRUE;
          for (guint i = 0; i < g->vals->len && merge; i++)
            {
              SkVal *v = g_ptr_array_index (g->vals, i);
              if (!fw_hc_val_in_space (v))
                continue;
              if (!((v->strides[p] == 0 && v->strides[a] == 0) ||
                    (v->strides[a] != 0 && v->strides[p] == v->strides[a] * g->dims[a])))
                merge = FALSE;
            }
        }
      if (merge)
        {
          gd[n - 1] *= g->dims[a];
          last_axis[n - 1] = a;
        }
      else
        {
          gd[n] = g->dims[a];
          ginner[n] = inner;
          last_axis[n] = a;
          n++;
        }
    }
  g->n_lead = g->n_inner = 0;
  for (gint k = 0; k < n; k++)
    {
      /* Without a split, the innermost merged axis is the row. */
      gboolean inner = split >= 0 ? ginner[k] : k == n - 1;
      for (guint i = 0; i < g->vals->len; i++)
        {
          SkVal *v = g_ptr_array_index (g->vals, i);
          gint slot = inner ? FW_MAX_RANK / 2 + g->n_inner : g->n_lead;
          if (fw_hc_val_in_space (v))
            v->cstr[slot] = v->strides[last_axis[k]];
        }
      if (inner)
        g->inner[g->n_inner++] = gd[k];
      else
        g->lead[g->n_lead++] = gd[k];
    }
  if (g->n_inner == 0)
    g->inner[g->n_inner++] = 1;  /* strides stay 0 */
  g->n_rows = 1;
  for (gint k = 0; k < g->n_lead; k++)
    g->n_rows *= g->lead[k];
  g->row_len = 1;
  for (gint k = 0; k < g->n_inner; k++)
    g->row_len *= g->inner[k];
  g->chunk = g->inner[g->n_inner - 1];
  g->n_chunks = 1;
  if (g->split < 0 && g->root == NULL && g->n_inner == 1 && g->row_len > 2 * CHUNK_ELEMENTS)
    {
      g->chunk = CHUNK_ELEMENTS;
      g->n_chunks = (g->row_len + CHUNK_ELEMENTS - 1) / CHUNK_ELEMENTS;
    }
  for (guint i = 0; i < g->vals->len; i++)
    {
      SkVal *v = g_ptr_array_index (g->vals, i);
      v->rowv = TRUE;
      for (gint k = 0; k < g->n_inner; k++)
        if (fw_hc_val_in_space (v) && v->cstr[FW_MAX_RANK / 2 + k] != 0)
          v->rowv = FALSE;
    }
  /* A one-element row (a Conv on a 1×1 plane, squeeze-excite): nothing varies along it, and without row
     operations every value is simply computed in the one-iteration loop. */
  if (g->row_len == 1 && g->row_axes == 0)
    for (guint i = 0; i < g->vals->len; i++)
      {
        SkVal *v = g_ptr_array_index (g->vals, i);
        v->rowv = v->kind == SV_IMM_SCALAR;
      }
}

/* ---- passes ---- */

SkVal *
fw_hc_input_val (Gen *g, const FwNode *node, guint k)
{
  return k < node->n_inputs && node->inputs[k] ? g_hash_table_lookup (g->by_value, node->inputs[k]) : NULL;
}

/* The passes over each row and the values carried between them are the planner's (the spec's); this checks
 * that the loops this target builds can run them and takes them over. */
static gboolean
assign_passes (Gen *g, GError **error)
{
  const FwKernelSpec *spec = g->cand->spec;

  for (guint i = 0; i < g->nodes->len; i++)
    {
      SkNode *sn = &g_array_index (g->nodes, SkNode, i);
      FwNode *node = sn->node;
      SkVal *x = fw_hc_input_val (g, node, 0);
      guint first, last;

      fw_kernel_spec_get_passes (spec, sn->id, &first, &last);
      sn->pass = (gint) first;
      sn->last_pass = (gint) last;
      if (node == g->root)
        {
          sn->kind = NK_ROOT;
          if (sn->out->rowv)
            return fw_hc_unsupported (error, _("a degenerate %s"), node->op_type);
          continue;
        }
      if (is_row_op (g, sn->id))
        {
          if (x == NULL || x->rowv)
            return fw_hc_unsupported (error, _("%s over a broadcast input"), node->op_type);
          for (gint a = g->split; a < g->rank && !is_indexed (g, x); a++)
            if (x->value && x->value->rank == g->rank && x->value->dims[unmoved_axis (g, a)].value != g->dims[a])
              return fw_hc_unsupported (error, _("%s over a broadcast input"), node->op_type);
          if (g->moved >= 0 && (x->value == NULL || x->value->rank != g->rank))
            return fw_hc_unsupported (error, _("%s over a broadcast input"), node->op_type);
          if (fw_kernel_spec_get_row_op (spec, sn->id, NULL)->full_out)
            {
              sn->kind = strcmp (node->op_type, "LayerNormalization") == 0 ? NK_LAYERNORM : NK_SOFTMAX;
              if (sn->out->rowv)
                return fw_hc_unsupported (error, _("a degenerate %s"), node->op_type);
            }
          else
            {
              sn->kind = NK_REDUCE;
              if (!fw_hc_is_floatish (x->dtype) || !fw_hc_is_floatish (sn->out->dtype))
                return fw_hc_unsupported (error, _("%s in %s"), node->op_type, fw_dtype_name (x->dtype));
              if (!sn->out->rowv)
                return fw_hc_unsupported (error, _("%s whose result is not per row"), node->op_type);
            }
          continue;
        }
      sn->kind = sn->out->rowv ? NK_ROWV : NK_ELEM;
      for (guint k = 0; sn->kind == NK_ROWV && k < node->n_inputs; k++)
        {
          SkVal *w = fw_node_is_data_input (node, k) ? fw_hc_input_val (g, node, k) : NULL;
          if (w != NULL && !w->rowv)
            return fw_hc_unsupported (error, _("%s reads a row but produces one value per row"), node->op_type);
        }
    }
  g->n_passes = (gint) fw_kernel_spec_get_n_passes (spec);
  g->n_scratch = 0;
  for (guint i = 0; i < g->vals->len; i++)
    {
      SkVal *v = g_ptr_array_index (g->vals, i);
      const FwSpecValue *sv = v->kind == SV_INTERNAL ? fw_kernel_spec_lookup (spec, v->value) : NULL;

      v->pass = sv != NULL ? (gint) sv->pass : 0;
      v->scratch = sv != NULL && sv->carried;
      if (v->scratch && v->rowv)
        return fw_hc_unsupported (error, _("a value carried between passes that is one element per row here"));
      if (v->scratch)
        v->scratch_slot = g->n_scratch++;
    }
  /* The row the planner's carried values span is this kernel's row: the scratch it allocates is the spec's. */
  if (g->n_scratch > 0 && g->row_len != fw_kernel_spec_get_sweep_row_elements (spec))
    {
      g_autofree char *row = g_strdup_printf ("%" G_GINT64_FORMAT, (gint64) g->row_len);
      g_autofree char *swept = g_strdup_printf ("%" G_GINT64_FORMAT, fw_kernel_spec_get_sweep_row_elements (spec));
      return fw_hc_unsupported (error, _("rows of %s elements where the plan swept rows of %s"), row, swept);
    }
  if (g->n_scratch > 0 && g->row_len > G_MAXINT32 / MAX (g->n_scratch, 1))
    return fw_hc_unsupported (error, _("rows too long for the scratch buffer"));
  return TRUE;
}

/* Where the root's result goes: the group's output itself when the epilogue is elementwise and writes one
 * float32 output laid out as the tile (each element is read before the same element is written, so it
 * can be overwritten in place), else a tile of n floats. In place saves the allocation, whose fresh pages
 * cost more than a bias Add, and a third of the epilogue's memory traffic. */
static void
decide_in_place (Gen *g)
{
  SkVal *out = NULL;

  g->in_place = FALSE;
  if (g->root == NULL || g->n_passes != 1 || g->kernel->outputs->len != 1)
    return;
  for (guint i = 0; i < g->vals->len; i++)
    {
      SkVal *v = g_ptr_array_index (g->vals, i);
      if (v->out_index == 0)
        out = v;
    }
  if (out == NULL || out->dtype != FW_DTYPE_FLOAT || out->rowv || out->scratch || out->map != MAP_RIGHT ||
      out->value->rank != g->rank)
    return;
  for (gint a = 0; a < g->rank; a++)
    if (out->strides[a] != g->tile->strides[a])
      return;
  g->in_place = TRUE;
}

gboolean
fw_hc_schedule (Gen *g, GError **error)
{
  gboolean ok;

  ok = collect (g, error) && mark_maps (g, error) && find_space (g, error);
  if (ok && g->root != NULL)
    g->tile = val_new (g, NULL, SV_TILE);
  ok = ok && map_values (g, error);
  if (ok)
    {
      move_axis_last (g);
      collapse (g);
    }
  ok = ok && assign_passes (g, error);
  if (ok)
    decide_in_place (g);
  return ok;
}
