/* fw-shape-control.c: If, Loop and Scan. Their bodies are inferred by the walk before the node itself; here the
 * node's outputs follow from the bodies' outputs. */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "shape/fw-shape-private.h"

/* A body output may be an outer value passed straight through: then the body holds only a placeholder. */
static const FwValue *
body_output (const FwGraph *body, guint k)
{
  const FwValue *value;

  if (body == NULL || k >= body->outputs->len)
    return NULL;
  value = g_ptr_array_index (body->outputs, k);
  if (value->producer == NULL && !value->is_input && !value->is_initializer)
    for (const FwGraph *g = body->parent; g != NULL; g = g->parent)
      {
        const FwValue *outer = g_hash_table_lookup (g->by_name, value->name);
        if (outer != NULL && (outer->producer || outer->is_input || outer->is_initializer))
          return outer;
      }
  return value;
}

static FwGraph *
graph_attr (const FwNode *node, const char *name)
{
  const FwAttr *attr = fw_node_get_attr (node, name);
  return attr && attr->type == FW_ATTR_GRAPH ? attr->g : NULL;
}

gboolean
fw_infer_if (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwGraph *then_g = graph_attr (node, "then_branch");
  FwGraph *else_g = graph_attr (node, "else_branch");

  if (then_g == NULL || else_g == NULL)
    return fw_infer_error (error, node, _("attributes “then_branch” and “else_branch” are required"));
  if (then_g->outputs->len != node->n_outputs || else_g->outputs->len != node->n_outputs)
    return fw_infer_error (error, node, _("branches have %u and %u outputs, the node %u"),
                           then_g->outputs->len, else_g->outputs->len, node->n_outputs);
  for (guint k = 0; k < node->n_outputs; k++)
    {
      const FwValue *t = body_output (then_g, k);
      const FwValue *e = body_output (else_g, k);
      FwDim out[FW_MAX_RANK];
      FwDType dtype;

      if (t == NULL || e == NULL)
        continue;
      dtype = t->dtype != FW_DTYPE_UNDEFINED ? t->dtype : e->dtype;
      if (t->rank < 0 || e->rank < 0 || t->rank != e->rank || t->rank > FW_MAX_RANK)
        {
          fw_infer_set (ctx, node, k, dtype, FW_RANK_UNKNOWN, NULL);
          continue;
        }
      for (gint i = 0; i < t->rank; i++)
        out[i] = fw_dims_equal (&t->dims[i], &e->dims[i]) ? t->dims[i] : FW_DIM_UNKNOWN;
      fw_infer_set (ctx, node, k, dtype, t->rank, out);
    }
  return TRUE;
}

static gboolean
is_true_constant (const FwValue *v)
{
  gint64 x;

  return v != NULL && v->constant != NULL && v->constant->n_elements == 1 && v->constant->dtype == FW_DTYPE_BOOL &&
         fw_tensor_get_int64 (v->constant, 0, &x) && x != 0;
}

/* The number of iterations when it is known before the loop runs: a constant trip count, a condition
 * absent or constant true, and a body that hands its condition on unchanged (or makes it true). */
static FwDim
fixed_trips (const FwNode *node, const FwGraph *body)
{
  const FwValue *trip = node->n_inputs > 0 ? node->inputs[0] : NULL;
  const FwValue *cond = node->n_inputs > 1 ? node->inputs[1] : NULL;
  const FwValue *next = body_output (body, 0);
  const FwValue *cond_in = body->inputs->len > 1 ? g_ptr_array_index (body->inputs, 1) : NULL;
  gint64 n;

  if (trip == NULL || trip->constant == NULL || trip->constant->n_elements != 1 ||
      !fw_dtype_is_integer (trip->constant->dtype) || !fw_tensor_get_int64 (trip->constant, 0, &n))
    return FW_DIM_UNKNOWN;
  if (cond != NULL && !is_true_constant (cond))
    return FW_DIM_UNKNOWN;
  if (next != NULL && next->producer != NULL && strcmp (next->producer->op_type, "Identity") == 0 &&
      next->producer->n_inputs == 1)
    next = next->producer->inputs[0];
  if (next == NULL || (next != cond_in && !is_true_constant (next)))
    return FW_DIM_UNKNOWN;
  return n >= 0 ? FW_DIM_STATIC (n) : FW_DIM_UNKNOWN;
}

gboolean
fw_infer_loop (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwGraph *body = graph_attr (node, "body");
  guint n_carried = node->n_inputs > 2 ? node->n_inputs - 2 : 0;

  if (body == NULL)
    return fw_infer_error (error, node, _("attribute “body” is required"));
  for (guint k = 0; k < node->n_outputs; k++)
    {
      if (k < n_carried)
        {
          /* Carried values may change shape between iterations; the initial value's dtype is certain. */
          const FwValue *init = node->inputs[2 + k];
          const FwValue *last = body_output (body, 1 + k);
          if (init != NULL && last != NULL && init->rank >= 0 && init->rank == last->rank
              && init->rank <= FW_MAX_RANK)
            {
              FwDim out[FW_MAX_RANK];
              for (gint i = 0; i < init->rank; i++)
                out[i] = fw_dims_equal (&init->dims[i], &last->dims[i]) ? init->dims[i] : FW_DIM_UNKNOWN;
              fw_infer_set (ctx, node, k, init->dtype, init->rank, out);
            }
          else
            fw_infer_set (ctx, node, k, init ? init->dtype : FW_DTYPE_UNDEFINED, FW_RANK_UNKNOWN, NULL);
        }
      else
        {
          /* Scan outputs stack each iteration's value along a new first axis: the trip count when the loop
             cannot stop early, else of unknown length. */
          const FwValue *per = body_output (body, 1 + k);
          if (per != NULL && per->rank >= 0 && per->rank < FW_MAX_RANK)
            {
              FwDim out[FW_MAX_RANK];
              out[0] = fixed_trips (node, body);
              memcpy (out + 1, per->dims, per->rank * sizeof (FwDim));
              fw_infer_set (ctx, node, k, per->dtype, per->rank + 1, out);
            }
          else
            fw_infer_set (ctx, node, k, per ? per->dtype : FW_DTYPE_UNDEFINED, FW_RANK_UNKNOWN, NULL);
        }
    }
  return TRUE;
}

static gboolean
is_onnx_op (const FwNode *node, const char *op)
{
  return strcmp (node->op_type, op) == 0 && (!node->domain[0] || strcmp (node->domain, "ai.onnx") == 0);
}

/* Scan's inputs are its state variables, then num_scan_inputs scan inputs; FALSE when the count is bad. */
static gboolean
scan_counts (const FwNode *node, guint *n_state, guint *n_scan_in)
{
  gint64 m = fw_node_get_attr_int (node, "num_scan_inputs", -1);

  if (m < 1 || m > (gint64) node->n_inputs)
    return FALSE;
  *n_scan_in = (guint) m;
  *n_state = node->n_inputs - (guint) m;
  return TRUE;
}

/* Entry k of an axes attribute (default 0), normalised into [0, rank); FALSE when out of range. */
static gboolean
scan_axis (const FwNode *node, const char *name, guint k, gint rank, guint *axis)
{
  guint n = 0;
  const gint64 *v = fw_node_get_attr_ints (node, name, &n);
  gint64 a = v != NULL && k < n ? v[k] : 0;

  if (a < 0)
    a += rank;
  if (a < 0 || a >= rank)
    return FALSE;
  *axis = (guint) a;
  return TRUE;
}

/* The body's untyped inputs from the Scan's: states as their initial values (widened afterwards like a
 * Loop's carried values), each scan input as one slice, its scan axis removed. */
static void
prepare_scan (FwNode *node)
{
  FwGraph *body = graph_attr (node, "body");
  guint n_state, n_scan_in;

  if (body == NULL || !scan_counts (node, &n_state, &n_scan_in))
    return;
  for (guint k = 0; k < body->inputs->len && k < node->n_inputs; k++)
    {
      FwValue *in = g_ptr_array_index (body->inputs, k);
      const FwValue *src = node->inputs[k];
      FwDType dtype;
      FwDim dims[FW_MAX_RANK];
      guint axis, rank = 0;

      if (src == NULL || !(in->type_inferred || in->rank < 0))
        continue;
      dtype = in->dtype != FW_DTYPE_UNDEFINED && !in->type_inferred ? in->dtype : src->dtype;
      if (k < n_state)
        fw_value_set_type (in, dtype, src->rank, src->rank > 0 ? src->dims : NULL);
      else if (src->rank > 0 && src->rank <= FW_MAX_RANK &&
               scan_axis (node, "scan_input_axes", k - n_state, src->rank, &axis))
        {
          for (gint i = 0; i < src->rank; i++)
            if ((guint) i != axis)
              dims[rank++] = src->dims[i];
          fw_value_set_type (in, dtype, (gint) rank, rank > 0 ? dims : NULL);
        }
      else
        fw_value_set_type (in, dtype, FW_RANK_UNKNOWN, NULL);
      in->type_inferred = TRUE;
    }
}

gboolean
fw_infer_scan (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwGraph *body = graph_attr (node, "body");
  guint n_state, n_scan_in;
  FwDim seq = FW_DIM_UNKNOWN;

  if (node->opset > 0 && node->opset < 9)
    return fw_infer_error (error, node, _("Scan of opset %" PRId64 " (with sequence lengths and a batch axis) is not "
                                          "supported; opset 9 and later are"), node->opset);
  if (body == NULL)
    return fw_infer_error (error, node, _("attribute “body” is required"));
  if (!scan_counts (node, &n_state, &n_scan_in))
    return fw_infer_error (error, node, _("attribute “num_scan_inputs” must be between 1 and the %u inputs"),
                           node->n_inputs);
  if (body->inputs->len != node->n_inputs || body->outputs->len != node->n_outputs)
    return fw_infer_error (error, node, _("the body has %u inputs and %u outputs where %u and %u are needed"),
                           body->inputs->len, body->outputs->len, node->n_inputs, node->n_outputs);
  for (guint m = 0; m < n_scan_in; m++)
    {
      const FwValue *x = node->inputs[n_state + m];
      guint axis;

      if (x == NULL || x->rank < 0)
        continue;
      if (!scan_axis (node, "scan_input_axes", m, x->rank, &axis))
        return fw_infer_error (error, node, _("scan input %u of rank %d has no axis given by “scan_input_axes”"), m,
                               x->rank);
      seq = x->dims[axis];
      break;
    }
  for (guint k = 0; k < node->n_outputs; k++)
    {
      const FwValue *per = body_output (body, k);
      FwDim out[FW_MAX_RANK];
      guint axis;

      if (k < n_state)
        {
          const FwValue *init = node->inputs[k];
          if (init != NULL && per != NULL && init->rank >= 0 && init->rank == per->rank && init->rank <= FW_MAX_RANK)
            {
              for (gint i = 0; i < init->rank; i++)
                out[i] = fw_dims_equal (&init->dims[i], &per->dims[i]) ? init->dims[i] : FW_DIM_UNKNOWN;
              fw_infer_set (ctx, node, k, init->dtype, init->rank, out);
            }
          else
            fw_infer_set (ctx, node, k, init ? init->dtype : FW_DTYPE_UNDEFINED, FW_RANK_UNKNOWN, NULL);
          continue;
        }
      if (per == NULL || per->rank < 0 || per->rank >= FW_MAX_RANK)
        {
          fw_infer_set (ctx, node, k, per ? per->dtype : FW_DTYPE_UNDEFINED, FW_RANK_UNKNOWN, NULL);
          continue;
        }
      if (!scan_axis (node, "scan_output_axes", k - n_state, per->rank + 1, &axis))
        return fw_infer_error (error, node, _("scan output %u of rank %d has no axis given by “scan_output_axes”"),
                               k - n_state, per->rank + 1);
      for (gint i = 0, j = 0; i < per->rank + 1; i++)
        out[i] = (guint) i == axis ? seq : per->dims[j++];
      fw_infer_set (ctx, node, k, per->dtype, per->rank + 1, out);
    }
  return TRUE;
}

void
fw_infer_prepare_subgraphs (FwInferContext *ctx G_GNUC_UNUSED, FwNode *node)
{
  FwGraph *body;

  if (is_onnx_op (node, "Scan"))
    {
      prepare_scan (node);
      return;
    }
  if (!is_onnx_op (node, "Loop"))
    return;
  body = graph_attr (node, "body");
  if (body == NULL)
    return;
  for (guint k = 0; k < body->inputs->len; k++)
    {
      FwValue *in = g_ptr_array_index (body->inputs, k);
      const FwValue *src = k >= 2 && k < node->n_inputs ? node->inputs[k] : NULL;

      if (k >= 2 && src != NULL && (in->type_inferred || in->rank < 0))
        {
          /* The initial value's shape: fw_infer_loop_widen takes back the dims an iteration changes, so a
             carried state of a fixed shape (an RNN's h and c) leaves the body static. */
          fw_value_set_type (in, in->dtype != FW_DTYPE_UNDEFINED && !in->type_inferred ? in->dtype : src->dtype,
                             src->rank, src->rank > 0 ? src->dims : NULL);
          in->type_inferred = TRUE;
          continue;
        }
      if (in->dtype != FW_DTYPE_UNDEFINED || in->rank >= 0)
        continue;
      if (k == 0)
        fw_value_set_type (in, FW_DTYPE_INT64, 0, NULL);
      else if (k == 1)
        fw_value_set_type (in, FW_DTYPE_BOOL, 0, NULL);
    }
}

gboolean
fw_infer_loop_widen (FwNode *node)
{
  FwGraph *body;
  gboolean changed = FALSE;

  guint first, end, shift, n_state, n_scan_in;

  /* Loop: body inputs 2… are the carried values, fed by body outputs 1…; Scan: inputs and outputs 0… up to
     the state count. */
  if (is_onnx_op (node, "Loop"))
    first = 2, end = G_MAXUINT, shift = 1;
  else if (is_onnx_op (node, "Scan") && scan_counts (node, &n_state, &n_scan_in))
    first = 0, end = n_state, shift = 0;
  else
    return FALSE;
  body = graph_attr (node, "body");
  for (guint k = first; body != NULL && k < end && k < body->inputs->len && k - shift < body->outputs->len; k++)
    {
      FwValue *in = g_ptr_array_index (body->inputs, k);
      const FwValue *last = body_output (body, k - shift);
      FwDim dims[FW_MAX_RANK];
      gboolean differs = FALSE;

      if (!in->type_inferred || in->rank < 0 || last == NULL)
        continue;
      if (last->rank != in->rank || in->rank > FW_MAX_RANK)
        {
          fw_value_set_type (in, in->dtype, FW_RANK_UNKNOWN, NULL);
          changed = TRUE;
          continue;
        }
      for (gint i = 0; i < in->rank; i++)
        {
          dims[i] = in->dims[i];
          if (!fw_dims_equal (&in->dims[i], &last->dims[i]) && (in->dims[i].value >= 0 || in->dims[i].symbol))
            {
              dims[i] = FW_DIM_UNKNOWN;
              differs = TRUE;
            }
        }
      if (differs)
        {
          fw_value_set_type (in, in->dtype, in->rank, dims);
          changed = TRUE;
        }
    }
  return changed;
}
