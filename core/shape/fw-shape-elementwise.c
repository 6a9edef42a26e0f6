/* fw-shape-elementwise.c: unary, broadcasting binary and n-ary ops, comparisons, Where, Cast, Dropout. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "shape/fw-shape-private.h"

/* Folds an elementwise node whose inputs are all small constants, once its output 0 has a static shape. */
static void
try_fold (FwInferContext *ctx, FwNode *node)
{
  FwValue *out = node->n_outputs > 0 ? node->outputs[0] : NULL;
  FwFold *in;
  FwFold result;
  guint n = 0;
  gint64 dims[FW_MAX_RANK];
  gint64 n_out;

  if (out == NULL || node->n_inputs == 0 || node->n_inputs > 8)
    return;
  n_out = fw_value_get_n_elements (out);
  if (n_out < 0 || n_out > ctx->max_fold || !fw_fold_supported_dtype (out->dtype))
    return;
  for (guint k = 0; k < node->n_inputs; k++)
    if (!fw_infer_is_foldable (ctx, node->inputs[k]))
      return;
  in = fw_fold_array_new (node->n_inputs);
  for (; n < node->n_inputs; n++)
    if (!fw_fold_load (ctx, node->inputs[n], &in[n]))
      {
        fw_fold_array_free (in, n);
        return;
      }
  for (gint i = 0; i < out->rank; i++)
    dims[i] = out->dims[i].value;
  fw_fold_init (&result, out->dtype, out->rank, dims);
  if (fw_fold_elementwise (node->op_type, node, n, in, &result))
    fw_infer_set_constant (ctx, node, 0, fw_fold_to_tensor (&result));
  fw_fold_clear (&result);
  fw_fold_array_free (in, n);
}

/* Shape vectors through arithmetic (batch * 1, seq + 0, 768 / 12), so symbolic dims survive the little
 * integer computations exporters emit before a Reshape. */
static void
try_shape_value_arith (FwInferContext *ctx, FwNode *node)
{
  FwValue *a = fw_infer_input (node, 0);
  FwValue *b = fw_infer_input (node, 1);
  FwValue *out = node->n_outputs > 0 ? node->outputs[0] : NULL;
  gint la = 0, lb = 0, n;
  g_autofree FwDim *ea = NULL;
  g_autofree FwDim *eb = NULL;
  g_autofree FwDim *r = NULL;
  char op = 0;

  if (out == NULL || out->constant != NULL || a == NULL || b == NULL || node->n_inputs != 2
      || (a->shape_value == NULL && b->shape_value == NULL) || !fw_dtype_is_integer (out->dtype))
    return;
  if (strcmp (node->op_type, "Add") == 0)
    op = '+';
  else if (strcmp (node->op_type, "Sub") == 0)
    op = '-';
  else if (strcmp (node->op_type, "Mul") == 0)
    op = '*';
  else if (strcmp (node->op_type, "Div") == 0)
    op = '/';
  else
    return;
  ea = fw_infer_get_dim_vector (ctx, a, &la);
  eb = fw_infer_get_dim_vector (ctx, b, &lb);
  if (ea == NULL || eb == NULL || (la != lb && la != 1 && lb != 1))
    return;
  n = MAX (la, lb);
  r = g_new (FwDim, MAX (n, 1));
  for (gint i = 0; i < n; i++)
    {
      FwDim x = ea[la == 1 ? 0 : i];
      FwDim y = eb[lb == 1 ? 0 : i];

      r[i] = (FwDim) { FW_SV_UNKNOWN, NULL };
      if (FW_SV_KNOWN (x) && FW_SV_KNOWN (y))
        {
          switch (op)
            {
            case '+': r[i].value = x.value + y.value; break;
            case '-': r[i].value = x.value - y.value; break;
            case '*': r[i].value = x.value * y.value; break;
            default:
              if (y.value != 0)
                r[i].value = x.value / y.value;
              break;
            }
        }
      else if (x.symbol && FW_SV_KNOWN (y) && (((op == '*' || op == '/') && y.value == 1)
                                               || ((op == '+' || op == '-') && y.value == 0)))
        r[i] = x;
      else if (y.symbol && FW_SV_KNOWN (x) && ((op == '*' && x.value == 1) || (op == '+' && x.value == 0)))
        r[i] = y;
    }
  fw_infer_set_shape_value (ctx, node, 0, out->dtype, out->rank == 0 ? 0 : 1, n, r);
}

static void
pass_shape_value (FwInferContext *ctx, FwNode *node, FwDType dtype)
{
  FwValue *x = fw_infer_input (node, 0);
  FwValue *out = node->n_outputs > 0 ? node->outputs[0] : NULL;

  if (out == NULL || out->constant != NULL || x == NULL || x->shape_value == NULL
      || !fw_dtype_is_integer (dtype))
    return;
  fw_infer_set_shape_value (ctx, node, 0, dtype, x->rank == 0 ? 0 : 1, x->shape_value_len, x->shape_value);
}

gboolean
fw_infer_unary (FwInferContext *ctx, FwNode *node, GError **error G_GNUC_UNUSED)
{
  fw_infer_set_like (ctx, node, 0, fw_infer_input (node, 0));
  try_fold (ctx, node);
  return TRUE;
}

gboolean
fw_infer_identity (FwInferContext *ctx, FwNode *node, GError **error G_GNUC_UNUSED)
{
  FwValue *x = fw_infer_input (node, 0);

  fw_infer_set_like (ctx, node, 0, x);
  /* The constant itself, shared rather than computed, so folding's size cap does not apply: torch's
     exporter writes one Identity per reuse of a weight, and with the cap bert_like's later layers kept
     MatMuls whose weights the host target could not pack once (oneDNN read them plain on every run). */
  if (x != NULL && x->constant != NULL)
    fw_infer_set_constant (ctx, node, 0, fw_tensor_ref (x->constant));
  else if (x != NULL)
    pass_shape_value (ctx, node, x->dtype);
  return TRUE;
}

gboolean
fw_infer_unary_bool (FwInferContext *ctx, FwNode *node, GError **error G_GNUC_UNUSED)
{
  FwValue *x = fw_infer_input (node, 0);

  fw_infer_set (ctx, node, 0, FW_DTYPE_BOOL, x ? x->rank : FW_RANK_UNKNOWN, x ? x->dims : NULL);
  try_fold (ctx, node);
  return TRUE;
}

static gboolean
infer_nary (FwInferContext *ctx, FwNode *node, FwDType dtype, GError **error)
{
  FwDim dims[FW_MAX_RANK];
  gint rank;

  if (!fw_broadcast_shapes (node, node->n_inputs, node->inputs, &rank, dims, error))
    return FALSE;
  fw_infer_set (ctx, node, 0, dtype, rank, dims);
  try_fold (ctx, node);
  try_shape_value_arith (ctx, node);
  return TRUE;
}

gboolean
fw_infer_broadcast (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  return infer_nary (ctx, node, x ? x->dtype : FW_DTYPE_UNDEFINED, error);
}

gboolean
fw_infer_prelu (FwInferContext *ctx, FwNode *node, GError **error)
{
  return fw_infer_broadcast (ctx, node, error);
}

gboolean
fw_infer_compare (FwInferContext *ctx, FwNode *node, GError **error)
{
  return infer_nary (ctx, node, FW_DTYPE_BOOL, error);
}

gboolean
fw_infer_where (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 1);
  FwValue *y = fw_infer_input (node, 2);
  FwDType dtype = x && x->dtype ? x->dtype : (y ? y->dtype : FW_DTYPE_UNDEFINED);

  return infer_nary (ctx, node, dtype, error);
}

gboolean
fw_infer_clip (FwInferContext *ctx, FwNode *node, GError **error G_GNUC_UNUSED)
{
  fw_infer_set_like (ctx, node, 0, fw_infer_input (node, 0));
  return TRUE;
}

gboolean
fw_infer_cast (FwInferContext *ctx, FwNode *node, GError **error)
{
  FwValue *x = fw_infer_input (node, 0);
  const FwAttr *to = fw_node_get_attr (node, "to");
  FwDType dtype;

  if (to == NULL || to->type != FW_ATTR_INT || !fw_dtype_is_valid (to->i))
    return fw_infer_error (error, node, _("attribute “to” must be a valid data type"));
  dtype = (FwDType) to->i;
  fw_infer_set (ctx, node, 0, dtype, x ? x->rank : FW_RANK_UNKNOWN, x ? x->dims : NULL);
  try_fold (ctx, node);
  pass_shape_value (ctx, node, dtype);
  return TRUE;
}

gboolean
fw_infer_cast_like (FwInferContext *ctx, FwNode *node, GError **error G_GNUC_UNUSED)
{
  FwValue *x = fw_infer_input (node, 0);
  FwValue *like = fw_infer_input (node, 1);
  FwDType dtype = like ? like->dtype : FW_DTYPE_UNDEFINED;
  FwValue *saved;

  fw_infer_set (ctx, node, 0, dtype, x ? x->rank : FW_RANK_UNKNOWN, x ? x->dims : NULL);
  if (node->n_inputs == 2)
    {
      /* The folder reads every input; the second only lends its dtype. */
      saved = node->inputs[1];
      node->n_inputs = 1;
      try_fold (ctx, node);
      node->n_inputs = 2;
      node->inputs[1] = saved;
    }
  pass_shape_value (ctx, node, dtype);
  return TRUE;
}

gboolean
fw_infer_dropout (FwInferContext *ctx, FwNode *node, GError **error G_GNUC_UNUSED)
{
  FwValue *x = fw_infer_input (node, 0);

  fw_infer_set_like (ctx, node, 0, x);
  /* Before opset 10 the mask had the input's type; bool since. */
  fw_infer_set (ctx, node, 1, node->opset > 0 && node->opset < 10 && x ? x->dtype : FW_DTYPE_BOOL,
                x ? x->rank : FW_RANK_UNKNOWN, x ? x->dims : NULL);
  return TRUE;
}
