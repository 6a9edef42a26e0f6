/* fw-hgemm.c: the horizontal GEMM (FwHgemmSpec, fw-kernel-spec.h): which projections may be column slices
 * of one product, and the description of a group of them. Discovery (fw-discovery-horizontal.c) decides
 * which groups to make; the host generator (core/codegen/host/fw-host-hgemm.c) computes them. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-kernel-spec-private.h"
#include "fw-plan-private.h"

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
  gboolean gemm = fw_node_is_onnx_op (node, "Gemm");

  if (!gemm && !fw_node_is_onnx_op (node, "MatMul"))
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
scalar_of (const FwValue *v, gdouble *out)
{
  return v != NULL && v->constant != NULL && fw_value_get_n_elements (v) == 1 &&
         fw_tensor_get_double (v->constant, 0, out);
}

/* The producer of v when it is op, or NULL. */
static FwNode *
made_by (const FwValue *v, const char *op)
{
  return v != NULL && fw_node_is_onnx_op (v->producer, op) && v->producer->n_outputs == 1 ? v->producer : NULL;
}

/* ReduceMean over the last axis only, its axes as an attribute or (opset 18) a constant input, keepdims. */
static gboolean
mean_of_last (const FwNode *mean, gint rank)
{
  guint n = 0;
  const gint64 *axes = fw_node_get_attr_ints (mean, "axes", &n);
  gint64 axis;

  if (fw_node_get_attr_int (mean, "keepdims", 1) != 1)
    return FALSE;
  if (axes == NULL && mean->n_inputs > 1 && mean->inputs[1] != NULL && mean->inputs[1]->constant != NULL &&
      fw_value_get_n_elements (mean->inputs[1]) == 1 && fw_tensor_get_int64 (mean->inputs[1]->constant, 0, &axis))
    return axis == -1 || axis == rank - 1;
  return axes != NULL && n == 1 && (axes[0] == -1 || axes[0] == rank - 1);
}

gboolean
fw_hgemm_match_norm (FwValue *a, GPtrArray *nodes, FwHgemmSpec *norm)
{
  FwNode *scale = made_by (a, "Mul"), *core, *recip = NULL, *root, *add, *mean, *square;
  FwValue *gamma = NULL, *n = a, *x = NULL, *s = NULL, *t;
  FwNode *chain[7];
  guint len = 0;
  gdouble eps, two, one;

  if (a == NULL || !is_float_static (a) || a->rank < 1)
    return FALSE;
  /* The gamma: a constant along the last axis, times the normalised rows. */
  for (guint k = 0; scale != NULL && k < 2 && gamma == NULL; k++)
    {
      FwValue *g = scale->inputs[k], *o = scale->inputs[1 - k];
      if (g != NULL && g->constant != NULL && g->dtype == FW_DTYPE_FLOAT && g->rank >= 1 &&
          fw_value_get_n_elements (g) == a->dims[a->rank - 1].value && g->dims[g->rank - 1].value == a->dims[a->rank - 1].value &&
          (made_by (o, "Mul") || made_by (o, "Div")))
        gamma = g, n = o;
    }
  core = made_by (n, "Div");
  if (core != NULL && core->n_inputs == 2)
    {
      x = core->inputs[0];
      s = core->inputs[1];
    }
  else if ((core = made_by (n, "Mul")) != NULL)
    {
      /* x · r, r = 1 / √… or Reciprocal (√…), in either order. */
      for (guint k = 0; k < 2 && recip == NULL; k++)
        {
          FwValue *r = core->inputs[k];
          FwNode *p = made_by (r, "Div");
          if (p != NULL && scalar_of (p->inputs[0], &one) && one == 1.0)
            recip = p, x = core->inputs[1 - k], s = p->inputs[1];
          else if ((p = made_by (r, "Reciprocal")) != NULL)
            recip = p, x = core->inputs[1 - k], s = p->inputs[0];
        }
      if (recip == NULL)
        return FALSE;
    }
  else
    return FALSE;
  if (x != a && (x == NULL || !is_float_static (x) || x->rank != a->rank))
    return FALSE;
  for (gint i = 0; x != a && i < a->rank; i++)
    if (x->dims[i].value != a->dims[i].value)
      return FALSE;
  if ((root = made_by (s, "Sqrt")) == NULL || (add = made_by (root->inputs[0], "Add")) == NULL)
    return FALSE;
  t = add->inputs[0];
  if (!scalar_of (add->inputs[1], &eps))
    {
      t = add->inputs[1];
      if (!scalar_of (add->inputs[0], &eps))
        return FALSE;
    }
  if ((mean = made_by (t, "ReduceMean")) == NULL || !mean_of_last (mean, x->rank))
    return FALSE;
  square = made_by (mean->inputs[0], "Pow");
  if (square != NULL ? square->inputs[0] != x || !scalar_of (square->inputs[1], &two) || two != 2.0
                     : (square = made_by (mean->inputs[0], "Mul")) == NULL || square->inputs[0] != x ||
                       square->inputs[1] != x)
    return FALSE;
  chain[len++] = square;
  chain[len++] = mean;
  chain[len++] = add;
  chain[len++] = root;
  if (recip != NULL)
    chain[len++] = recip;
  chain[len++] = core;
  if (gamma != NULL)
    chain[len++] = scale;
  /* Nothing between them is read outside: the rows are normalised on the way into the product only. */
  for (guint i = 0; i + 1 < len; i++)
    {
      FwValue *v = chain[i]->outputs[0];
      if (v->is_output)
        return FALSE;
      for (guint u = 0; u < v->n_uses; u++)
        {
          gboolean inside = FALSE;
          for (guint j = 0; j < len; j++)
            inside |= v->uses[u].node == chain[j];
          if (!inside && fw_node_runs (v->uses[u].node))
            return FALSE;
        }
    }
  for (guint i = 0; nodes != NULL && i < len; i++)
    g_ptr_array_add (nodes, chain[i]);
  norm->norm_x = x;
  norm->norm_gamma = gamma;
  norm->norm_eps = eps;
  norm->norm_divides = recip == NULL;
  return TRUE;
}

static gboolean
in_nodes (GPtrArray *nodes, const FwNode *node)
{
  for (guint i = 0; i < nodes->len; i++)
    if (g_ptr_array_index (nodes, i) == node)
      return TRUE;
  return FALSE;
}

/* The activation the group's first product reads, and the RMSNorm making it when all its nodes are members. */
static FwValue *
activation (GPtrArray *nodes, GPtrArray *norm_nodes, FwHgemmSpec *norm)
{
  for (guint i = 0; i < nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (nodes, i);
      if ((fw_node_is_onnx_op (node, "MatMul") || fw_node_is_onnx_op (node, "Gemm")) && node->n_inputs > 0)
        {
          FwValue *a = node->inputs[0];
          gboolean all = fw_hgemm_match_norm (a, norm_nodes, norm);
          for (guint j = 0; all && j < norm_nodes->len; j++)
            all = in_nodes (nodes, g_ptr_array_index (norm_nodes, j));
          if (!all)
            {
              g_ptr_array_set_size (norm_nodes, 0);
              norm->norm_x = norm->norm_gamma = NULL;
            }
          return a;
        }
    }
  return NULL;
}

FwHgemmSpec *
fw_hgemm_describe (GPtrArray *nodes)
{
  g_autoptr(GArray) slices = g_array_new (FALSE, TRUE, sizeof (FwHgemmSlice));
  g_autoptr(GPtrArray) norm_nodes = g_ptr_array_new ();
  FwHgemmSpec norm = { 0 };
  FwValue *a = activation (nodes, norm_nodes, &norm);
  FwHgemmSpec *h;
  gint64 col = 0, k = 0, m = 1;

  if (a == NULL)
    return NULL;
  k = a->rank >= 2 ? a->dims[a->rank - 1].value : 0;
  for (gint d = 0; d < a->rank - 1; d++)
    m *= a->dims[d].value;
  for (guint i = 0; i < nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (nodes, i);
      g_autofree char *why = NULL;
      FwHgemmSlice s = { 0 };

      if (g_ptr_array_find (norm_nodes, node, NULL))
        continue;
      if (!fw_node_is_onnx_op (node, "MatMul") && !fw_node_is_onnx_op (node, "Gemm"))
        {
          gboolean reached = FALSE;
          if (!fw_hgemm_epilogue_op (node))
            return NULL;
          /* An epilogue reads at least one value the group made: a member before the slices is no epilogue. */
          for (guint j = 0; j < node->n_inputs; j++)
            reached |= node->inputs[j] != NULL && node->inputs[j]->producer != NULL &&
                       in_nodes (nodes, node->inputs[j]->producer) &&
                       !g_ptr_array_find (norm_nodes, node->inputs[j]->producer, NULL);
          if (!reached)
            return NULL;
          continue;
        }
      if (!fw_hgemm_slice_root (node, &why))
        return NULL;
      if (node->inputs[0] != a)
        return NULL;
      s.root = node;
      s.weight = node->inputs[1];
      s.trans_b = fw_node_is_onnx_op (node, "Gemm") && fw_node_get_attr_int (node, "transB", 0) != 0;
      s.alpha = fw_node_is_onnx_op (node, "Gemm") ? fw_node_get_attr_float (node, "alpha", 1.0f) : 1.0;
      s.beta = fw_node_is_onnx_op (node, "Gemm") ? fw_node_get_attr_float (node, "beta", 1.0f) : 1.0;
      s.bias = fw_node_is_onnx_op (node, "Gemm") && node->n_inputs > 2 ? node->inputs[2] : NULL;
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
  h->norm_x = norm.norm_x;
  h->norm_gamma = norm.norm_gamma;
  h->norm_eps = norm.norm_eps;
  h->norm_divides = norm.norm_divides;
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
