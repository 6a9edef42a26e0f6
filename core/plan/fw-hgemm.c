/* fw-hgemm.c: the horizontal GEMM (FwHgemmSpec, fw-kernel-spec.h): which projections may be column slices
 * of one product, and the description of a group of them. Discovery (fw-discovery-horizontal.c) decides
 * which groups to make; the host generator (core/codegen/host/fw-host-hgemm.c) computes them. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-kernel-spec-private.h"

static gboolean
is_op (const FwNode *node, const char *op)
{
  return node->domain[0] == '\0' && strcmp (node->op_type, op) == 0;
}

static gboolean
is_float_static (const FwValue *v)
{
  return v != NULL && v->dtype == FW_DTYPE_FLOAT && fw_value_is_static (v);
}

gboolean
fw_hgemm_slice_root (const FwNode *node, char **why)
{
  FwValue *a = node->n_inputs > 0 ? node->inputs[0] : NULL;
  FwValue *b = node->n_inputs > 1 ? node->inputs[1] : NULL;
  FwValue *out = node->n_outputs > 0 ? node->outputs[0] : NULL;
  gboolean gemm = is_op (node, "Gemm");

  if (!gemm && !is_op (node, "MatMul"))
    return FALSE;
  if (!is_float_static (a) || !is_float_static (b) || !is_float_static (out) || a->rank < 2 ||
      a->rank > FW_MAX_RANK)
    {
      *why = g_strdup_printf (_("%s “%s”: the horizontal GEMM takes float32 products of static shape"),
                              node->op_type, node->name);
      return FALSE;
    }
  if (b->constant == NULL || b->rank != 2)
    {
      *why = g_strdup_printf (_("%s “%s”: its weight “%s” is not a constant matrix, so it cannot be concatenated "
                                "with its siblings' once"), node->op_type, node->name, b->name);
      return FALSE;
    }
  if (gemm)
    {
      FwValue *c = node->n_inputs > 2 ? node->inputs[2] : NULL;
      gint64 n = fw_node_get_attr_int (node, "transB", 0) ? b->dims[0].value : b->dims[1].value;
      gint64 c_n = c != NULL ? fw_value_get_n_elements (c) : 1;

      if (fw_node_get_attr_int (node, "transA", 0) != 0 || a->rank != 2)
        {
          *why = g_strdup_printf (_("Gemm “%s”: a transposed A is not the activation its siblings read"),
                                  node->name);
          return FALSE;
        }
      if (c != NULL && (c->constant == NULL || c->dtype != FW_DTYPE_FLOAT || !(c_n == 1 || (c_n == n && c->dims[c->rank - 1].value == n))))
        {
          *why = g_strdup_printf (_("Gemm “%s”: its C is not a constant added along the columns"), node->name);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
fw_hgemm_epilogue_op (const FwNode *node)
{
  static const char *ops[] = { "Add", "Sub", "Mul", "Div", "Neg", "Relu", "Sigmoid", "Tanh", "Exp", "Erf", "Sqrt",
                               "Abs", "Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze" };
  FwValue *out = node->n_outputs > 0 ? node->outputs[0] : NULL;

  if (node->domain[0] != '\0' || node->n_outputs != 1 || !is_float_static (out))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    if (strcmp (node->op_type, ops[i]) == 0)
      {
        for (guint k = 0; k < node->n_inputs; k++)
          if (fw_node_is_data_input (node, k) && !is_float_static (node->inputs[k]))
            return FALSE;
        return TRUE;
      }
  return FALSE;
}

static gboolean
in_nodes (GPtrArray *nodes, const FwNode *node)
{
  for (guint i = 0; i < nodes->len; i++)
    if (g_ptr_array_index (nodes, i) == node)
      return TRUE;
  return FALSE;
}

FwHgemmSpec *
fw_hgemm_describe (GPtrArray *nodes)
{
  g_autoptr(GArray) slices = g_array_new (FALSE, TRUE, sizeof (FwHgemmSlice));
  FwValue *a = NULL;
  FwHgemmSpec *h;
  gint64 col = 0, k = 0, m = 1;

  for (guint i = 0; i < nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (nodes, i);
      g_autofree char *why = NULL;
      FwHgemmSlice s = { 0 };

      if (!is_op (node, "MatMul") && !is_op (node, "Gemm"))
        {
          gboolean reached = FALSE;
          if (!fw_hgemm_epilogue_op (node))
            return NULL;
          /* An epilogue reads at least one value the group made: a member before the slices is no epilogue. */
          for (guint j = 0; j < node->n_inputs; j++)
            reached |= node->inputs[j] != NULL && node->inputs[j]->producer != NULL &&
                       in_nodes (nodes, node->inputs[j]->producer);
          if (!reached)
            return NULL;
          continue;
        }
      if (!fw_hgemm_slice_root (node, &why))
        return NULL;
      if (a == NULL)
        {
          a = node->inputs[0];
          k = a->dims[a->rank - 1].value;
          for (gint d = 0; d < a->rank - 1; d++)
            m *= a->dims[d].value;
        }
      if (node->inputs[0] != a)
        return NULL;
      s.root = node;
      s.weight = node->inputs[1];
      s.trans_b = is_op (node, "Gemm") && fw_node_get_attr_int (node, "transB", 0) != 0;
      s.alpha = is_op (node, "Gemm") ? fw_node_get_attr_float (node, "alpha", 1.0f) : 1.0;
      s.beta = is_op (node, "Gemm") ? fw_node_get_attr_float (node, "beta", 1.0f) : 1.0;
      s.bias = is_op (node, "Gemm") && node->n_inputs > 2 ? node->inputs[2] : NULL;
      if (s.weight->dims[s.trans_b ? 1 : 0].value != k)
        return NULL;
      s.n = s.weight->dims[s.trans_b ? 0 : 1].value;
      s.col = col;
      col += s.n;
      g_array_append_val (slices, s);
    }
  if (slices->len < 2)
    return NULL;
  h = g_new0 (FwHgemmSpec, 1);
  h->a = a;
  h->m = m;
  h->k = k;
  h->n = col;
  h->n_slices = slices->len;
  h->slices = (FwHgemmSlice *) g_array_steal (slices, NULL);
  return h;
}

static gboolean
element (const FwValue *v, gint64 i, float *out)
{
  gsize size = 0;
  const guint8 *data = v->constant != NULL ? fw_tensor_get_data (v->constant, &size) : NULL;

  if (data == NULL || v->dtype != FW_DTYPE_FLOAT || size < (gsize) (i + 1) * sizeof (float))
    return FALSE;
  memcpy (out, data + (gsize) i * sizeof (float), sizeof (float));
  return TRUE;
}

float *
fw_hgemm_pack (const FwHgemmSpec *h, float **bias_out)
{
  g_autofree float *w = g_try_new (float, MAX (h->k * h->n, 1));
  g_autofree float *b = NULL;

  if (w == NULL)
    return NULL;
  for (guint i = 0; i < h->n_slices; i++)
    {
      const FwHgemmSlice *s = &h->slices[i];
      if (fw_value_get_n_elements (s->weight) != h->k * s->n)
        return NULL;
      for (gint64 kk = 0; kk < h->k; kk++)
        for (gint64 j = 0; j < s->n; j++)
          {
            float x;
            if (!element (s->weight, s->trans_b ? j * h->k + kk : kk * s->n + j, &x))
              return NULL;
            w[kk * h->n + s->col + j] = (float) s->alpha * x;
          }
      if (bias_out == NULL || s->bias == NULL || s->beta == 0)
        continue;
      if (b == NULL)
        b = g_new0 (float, MAX (h->n, 1));
      for (gint64 j = 0; j < s->n; j++)
        {
          float x;
          if (!element (s->bias, fw_value_get_n_elements (s->bias) == 1 ? 0 : j, &x))
            return NULL;
          b[s->col + j] = (float) s->beta * x;
        }
    }
  if (bias_out != NULL)
    *bias_out = g_steal_pointer (&b);
  return g_steal_pointer (&w);
}

void
fw_hgemm_spec_free (FwHgemmSpec *hgemm)
{
  if (hgemm == NULL)
    return;
  g_free (hgemm->slices);
  g_free (hgemm);
}
