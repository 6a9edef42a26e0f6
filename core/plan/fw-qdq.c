/* fw-qdq.c: what an integer (QDQ) group is: the operands a DequantizeLinear-wrapped MatMul, Gemm or Conv
 * reads as integers, the parameters of its QuantizeLinear and DequantizeLinear nodes, and the group a
 * candidate of that kind holds (fw-qdq.h). */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-plan-private.h"
#include "fw-qdq.h"

/* A product of 8-bit values is at most 255 × 128 in magnitude after the kernel's shift to u8 × s8, so an
 * int32 sum holds this many of them exactly. */
#define QDQ_MAX_K 65536

static gboolean
refuse (FwReasonCode *code, char **why, FwReasonCode c, char *message)
{
  *code = c;
  *why = message;
  return FALSE;
}

gboolean
fw_qdq_params (FwNode *node, gboolean dequantize, gboolean allow_int32, FwQdqParams *out, FwReasonCode *code,
               char **why)
{
  FwValue *x, *scale, *zp, *integer;
  gint64 axis;

  memset (out, 0, sizeof *out);
  *code = 0;
  *why = NULL;
  if (!fw_node_is_onnx_op (node, dequantize ? "DequantizeLinear" : "QuantizeLinear"))
    return FALSE;
  x = node->n_inputs > 0 ? node->inputs[0] : NULL;
  scale = node->n_inputs > 1 ? node->inputs[1] : NULL;
  zp = node->n_inputs > 2 ? node->inputs[2] : NULL;
  if (x == NULL || scale == NULL || node->n_outputs < 1 || node->outputs[0] == NULL)
    return refuse (code, why, FW_NF_QDQ_FORM, g_strdup_printf (_("%s “%s” lacks an input or its output"),
                                                               node->op_type, node->name));
  if (scale->constant == NULL || (zp != NULL && zp->constant == NULL))
    return refuse (code, why, FW_NF_QDQ_PARAMS,
                   g_strdup_printf (_("%s “%s”: its scale or zero point is computed at run time, not a constant"),
                                    node->op_type, node->name));
  integer = dequantize ? x : node->outputs[0];
  out->node = node;
  out->integer = integer;
  out->real = dequantize ? node->outputs[0] : x;
  out->qtype = integer->dtype;
  out->scale = scale->constant;
  out->zero_point = zp != NULL ? zp->constant : NULL;
  if (!(out->qtype == FW_DTYPE_INT8 || out->qtype == FW_DTYPE_UINT8 || (allow_int32 && out->qtype == FW_DTYPE_INT32)) ||
      out->real->dtype != FW_DTYPE_FLOAT || scale->constant->dtype != FW_DTYPE_FLOAT)
    return refuse (code, why, FW_NF_QDQ_FORM,
                   g_strdup_printf (_("%s “%s” maps %s to %s; the integer kernel takes int8 or uint8 and float32"),
                                    node->op_type, node->name, fw_dtype_name (out->qtype),
                                    fw_dtype_name (out->real->dtype)));
  if (fw_node_get_attr_int (node, "block_size", 0) != 0)
    return refuse (code, why, FW_NF_QDQ_AXIS,
                   g_strdup_printf (_("%s “%s” is blocked (block_size); the kernel's tile follows one scale per "
                                      "tensor or per channel"), node->op_type, node->name));
  out->n = scale->constant->n_elements;
  out->axis = -1;
  if (out->n != 1)
    {
      axis = fw_node_get_attr_int (node, "axis", 1);
      if (axis < 0)
        axis += x->rank;
      if (axis < 0 || axis >= x->rank || scale->constant->rank != 1 || x->dims[axis].value != out->n)
        return refuse (code, why, FW_NF_QDQ_AXIS,
                       g_strdup_printf (_("%s “%s”: %" PRId64 " scales do not lie along one axis"),
                                        node->op_type, node->name, out->n));
      out->axis = (gint) axis;
    }
  if (out->zero_point != NULL && out->zero_point->n_elements != out->n)
    return refuse (code, why, FW_NF_QDQ_PARAMS,
                   g_strdup_printf (_("%s “%s”: zero points and scales differ in number"), node->op_type, node->name));
  return TRUE;
}

/* The DequantizeLinear producing input k of root, read as a matrix operand; per_axis: the only axis its
 * scales may lie along (-1: per tensor only). */
static gboolean
operand (FwNode *root, guint k, gint per_axis, FwQdqOperand *op, FwReasonCode *code, char **why)
{
  FwValue *v = k < root->n_inputs ? root->inputs[k] : NULL;

  memset (op, 0, sizeof *op);
  if (v == NULL || v->producer == NULL || !fw_node_is_onnx_op (v->producer, "DequantizeLinear"))
    return refuse (code, why, FW_NF_QDQ_FORM,
                   g_strdup_printf (_("%s “%s”: input %u is not dequantised; the integer kernel needs every "
                                      "matrix operand in integers"), root->op_type, root->name, k));
  if (!fw_qdq_params (v->producer, TRUE, FALSE, &op->dq, code, why))
    return FALSE;
  if (op->dq.axis >= 0 && op->dq.axis != per_axis)
    return refuse (code, why, FW_NF_QDQ_AXIS,
                   g_strdup_printf (_("%s “%s”: input %u has scales along axis %d; the integer kernel's tile "
                                      "applies them per %s"), root->op_type, root->name, k, op->dq.axis,
                                    per_axis < 0 ? _("tensor") : _("output channel")));
  return TRUE;
}

static gboolean
bias (FwNode *root, guint k, gint64 n, FwQdqGroup *g, FwReasonCode *code, char **why)
{
  FwValue *v = k < root->n_inputs ? root->inputs[k] : NULL;

  if (v == NULL)
    return TRUE;
  if (v->constant != NULL && v->dtype == FW_DTYPE_FLOAT && v->constant->n_elements == n && v->rank <= 2)
    {
      g->float_bias = v;
      return TRUE;
    }
  if (v->producer != NULL && fw_qdq_params (v->producer, TRUE, TRUE, &g->bias, code, why) &&
      g->bias.integer->constant != NULL && g->bias.integer->constant->n_elements == n && g->bias.integer->rank == 1 &&
      (g->bias.axis == -1 || g->bias.axis == 0))
    return TRUE;
  if (*code != 0)
    return FALSE;
  memset (&g->bias, 0, sizeof g->bias);
  return refuse (code, why, FW_NF_QDQ_FORM,
                 g_strdup_printf (_("%s “%s”: the bias is neither a float32 constant nor a dequantised int32 one "
                                    "with one value per output channel"), root->op_type, root->name));
}

static gboolean
root_operands (FwNode *root, FwQdqGroup *g, FwReasonCode *code, char **why)
{
  FwValue *out = root->n_outputs > 0 ? root->outputs[0] : NULL;

  if (out == NULL || !fw_value_is_static (out))
    return refuse (code, why, FW_NF_DYNAMIC, g_strdup_printf (_("%s “%s” has a dynamic shape"), root->op_type, root->name));
  if (fw_node_is_onnx_op (root, "Conv"))
    {
      FwValue *w = root->inputs[1];
      if (out->rank != 4 || root->inputs[0]->rank != 4 || w == NULL || w->rank != 4)
        return refuse (code, why, FW_NF_QDQ_FORM, g_strdup_printf (_("Conv “%s” is not 2-D"), root->name));
      gint64 groups = fw_node_get_attr_int (root, "group", 1);
      /* Depthwise (one input channel per group, one group per channel) is the grouped form the kernel takes. */
      if (groups != 1 && (w->dims[1].value != 1 || groups != root->inputs[0]->dims[1].value ||
                          w->dims[0].value != groups))
        return refuse (code, why, FW_NF_QDQ_FORM,
                       g_strdup_printf (_("Conv “%s” is grouped; the integer kernel computes ungrouped convolutions"),
                                        root->name));
      if (!operand (root, 0, -1, &g->a, code, why) || !operand (root, 1, 0, &g->b, code, why) ||
          !bias (root, 2, w->dims[0].value, g, code, why))
        return FALSE;
      g->k = w->dims[1].value * w->dims[2].value * w->dims[3].value;
    }
  else if (fw_node_is_onnx_op (root, "MatMul"))
    {
      FwValue *a = root->inputs[0], *b = root->inputs[1];
      if (a == NULL || b == NULL || a->rank < 2 || b->rank < 2 || out->rank < 2)
        return refuse (code, why, FW_NF_QDQ_FORM,
                       g_strdup_printf (_("MatMul “%s” has a vector operand"), root->name));
      if (!operand (root, 0, -1, &g->a, code, why) || !operand (root, 1, b->rank == 2 ? 1 : -1, &g->b, code, why))
        return FALSE;
      g->k = a->dims[a->rank - 1].value;
    }
  else if (fw_node_is_onnx_op (root, "Gemm"))
    {
      gboolean tb = fw_node_get_attr_int (root, "transB", 0) != 0;
      FwValue *a = root->inputs[0];
      if (fw_node_get_attr_int (root, "transA", 0) != 0 || fw_node_get_attr_float (root, "alpha", 1.0f) != 1.0f ||
          fw_node_get_attr_float (root, "beta", 1.0f) != 1.0f || a == NULL || a->rank != 2 || out->rank != 2)
        return refuse (code, why, FW_NF_QDQ_FORM,
                       g_strdup_printf (_("Gemm “%s” transposes A or scales by alpha or beta"), root->name));
      if (!operand (root, 0, -1, &g->a, code, why) || !operand (root, 1, tb ? 0 : 1, &g->b, code, why) ||
          !bias (root, 2, out->dims[1].value, g, code, why))
        return FALSE;
      g->k = a->dims[1].value;
    }
  else
    return FALSE;
  if (g->k < 1 || g->k > QDQ_MAX_K)
    return refuse (code, why, FW_NF_QDQ_FORM,
                   g_strdup_printf (_("%s “%s” sums %" PRId64 " products; an int32 sum holds %d exactly"),
                                    root->op_type, root->name, g->k, QDQ_MAX_K));
  return TRUE;
}

gboolean
fw_qdq_root_operands (FwNode *root, FwQdqGroup *g, FwReasonCode *code, char **why)
{
  gboolean any = FALSE;

  memset (g, 0, sizeof *g);
  *code = 0;
  *why = NULL;
  for (guint k = 0; k < MIN (root->n_inputs, 2u); k++)
    any = any || (root->inputs[k] != NULL && fw_node_is_onnx_op (root->inputs[k]->producer, "DequantizeLinear"));
  if (!any)
    return FALSE;
  g->root = root;
  g->result = root->outputs[0];
  return root_operands (root, g, code, why);
}

gboolean
fw_qdq_epilogue_op (const FwNode *node)
{
  static const char *const ops[] = { "Relu", "Add", "Sub", "Mul", "Div", "Sigmoid", "Tanh", "Erf", "Neg", "Abs",
                                      "Exp", "Sqrt", "Identity" };

  if (node->domain[0] != '\0' || node->n_outputs != 1 || node->outputs[0] == NULL ||
      node->outputs[0]->dtype != FW_DTYPE_FLOAT)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    if (strcmp (node->op_type, ops[i]) == 0)
      return TRUE;
  return FALSE;
}

gboolean
fw_candidate_is_integer (const FwCandidate *candidate)
{
  return candidate != NULL && candidate->kind != NULL && strcmp (candidate->kind, FW_QDQ_KIND) == 0 &&
         candidate->root != NULL;
}

static gboolean
has (const FwCandidate *c, const FwNode *node)
{
  for (guint i = 0; node != NULL && i < c->nodes->len; i++)
    if (g_ptr_array_index (c->nodes, i) == node)
      return TRUE;
  return FALSE;
}

static void
mark_members (const FwCandidate *c, FwQdqOperand *op)
{
  FwNode *q;
  FwReasonCode code;
  char *why = NULL;

  op->member = has (c, op->dq.node);
  q = op->dq.integer->producer;
  if (op->member && has (c, q) && !fw_qdq_params (q, FALSE, FALSE, &op->q, &code, &why))
    memset (&op->q, 0, sizeof op->q);
  g_free (why);
}

gboolean
fw_qdq_group_describe (const FwCandidate *c, FwQdqGroup *g)
{
  FwReasonCode code;
  char *why = NULL;
  gboolean ok;

  memset (g, 0, sizeof *g);
  if (!fw_candidate_is_integer (c))
    return FALSE;
  ok = fw_qdq_root_operands (c->root, g, &code, &why);
  g_free (why);
  if (!ok)
    return FALSE;
  mark_members (c, &g->a);
  mark_members (c, &g->b);
  g->bias_member = has (c, g->bias.node);
  g->epilogue = g_ptr_array_new ();
  for (guint i = 0; i < c->nodes->len; i++)
    {
      FwNode *n = g_ptr_array_index (c->nodes, i);
      if (n->topo_index <= c->root->topo_index || n == g->a.q.node || n == g->b.q.node)
        continue;
      if (fw_node_is_onnx_op (n, "QuantizeLinear"))
        {
          if (!fw_qdq_params (n, FALSE, FALSE, &g->out, &code, &why))
            {
              g_free (why);
              fw_qdq_group_clear (g);
              return FALSE;
            }
          g->result = g->out.integer;
        }
      else if (!fw_node_is_onnx_op (n, "DequantizeLinear"))
        {
          g_ptr_array_add (g->epilogue, n);
          g->result = n->outputs[0];
        }
    }
  if (g->out.node != NULL)
    g->result = g->out.integer;
  return TRUE;
}

void
fw_qdq_group_clear (FwQdqGroup *g)
{
  g_clear_pointer (&g->epilogue, g_ptr_array_unref);
}

gdouble
fw_qdq_read_bytes (const FwValue *value)
{
  const FwValue *v = value;
  gint64 bytes, n;

  if (fw_node_is_onnx_op (value->producer, "DequantizeLinear") && value->producer->n_inputs > 0 &&
      value->producer->inputs[0] != NULL)
    v = value->producer->inputs[0];
  n = fw_value_get_n_elements (v);
  if (n < 0 || !fw_dtype_bytes_for (v->dtype, n, &bytes))
    return 0;
  return (gdouble) bytes;
}

gint64
fw_qdq_zero_point_at (const FwQdqParams *p, gint64 i)
{
  gint64 z = 0;

  if (p->zero_point != NULL && !fw_tensor_get_int64 (p->zero_point, p->n == 1 ? 0 : i, &z))
    z = 0;
  return z;
}

float
fw_qdq_scale_at (const FwQdqParams *p, gint64 i)
{
  double s = 1.0;

  if (!fw_tensor_get_double (p->scale, p->n == 1 ? 0 : i, &s))
    s = 1.0;
  return (float) s;
}
