/* fw-host-hgemm.c: the host kernel of a horizontal GEMM group (FwHgemmSpec, fw-kernel-spec.h).
 *
 * The slices' weights are packed side by side once, when the kernel is generated: one [K, n] matrix
 * (transposed weights turned, a Gemm's alpha folded in), which the host passes after the inputs. With an
 * RMSNorm in the prologue the kernel first normalises A's rows into a buffer. It makes the whole product with
 * one sgemm into a buffer of its own, then writes each value that leaves the group row by row: a slice's result
 * is its columns of the product (plus its Gemm's bias), an epilogue member's an expression of its operands at
 * the element's coordinates, a view an index expression. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-host-codegen-private.h"
#include "plan/fw-kernel-spec.h"

static const FwHgemmSlice *
slice_of (const FwHgemmSpec *h, const FwNode *node)
{
  for (guint i = 0; i < h->n_slices; i++)
    if (h->slices[i].root == node)
      return &h->slices[i];
  return NULL;
}

/* The linear index of coordinates c over v's dims, leaving out the last `skip` axes. */
static void
append_linear (GString *out, const FwValue *v, char **c, gint skip)
{
  gint64 stride = 1;

  g_string_append (out, "(0");
  for (gint a = v->rank - 1 - skip; a >= 0; a--)
    {
      if (v->dims[a].value != 1)
        g_string_append_printf (out, " + (%s) * %" G_GINT64_FORMAT, c[a], stride);
      stride *= v->dims[a].value;
    }
  g_string_append_c (out, ')');
}

static gboolean value_expr (Gen *g, const FwHgemmSpec *h, FwValue *v, char **c, GString *out, GError **error);

static gboolean
operand_expr (Gen *g, const FwHgemmSpec *h, FwValue *v, char **c, gint rank, GString *out, GError **error)
{
  char **s = fw_hc_broadcast_coords (v, c, rank);
  gboolean ok = value_expr (g, h, v, s, out, error);

  g_strfreev (s);
  return ok;
}

/* A slice's result at c: its column of the product row, and its Gemm's bias. */
static void
slice_expr (Gen *g, const FwHgemmSpec *h, const FwHgemmSlice *s, FwValue *v, char **c, GString *out)
{
  g_string_append (out, "(cb[");
  append_linear (out, v, c, 1);
  g_string_append_printf (out, " * %" G_GINT64_FORMAT " + %" G_GINT64_FORMAT " + (%s)]", h->n, s->col,
                          c[v->rank - 1]);
  if (s->bias != NULL && s->beta != 0)
    {
      g_autofree char *beta = fw_hc_flit ((float) s->beta);
      if (fw_value_get_n_elements (s->bias) == 1)
        {
          g_string_append_printf (out, " + %s * ", beta);
          fw_hc_append_const_element (out, s->bias->constant, 0, FW_DTYPE_FLOAT);
        }
      else
        g_string_append_printf (out, " + %s * in%d[%s]", beta, fw_hc_kernel_input (g, s->bias), c[v->rank - 1]);
    }
  g_string_append_c (out, ')');
}

/* A unary member's expression around its operand: prefix, operand, suffix. */
static gboolean
unary_form (const char *op, const char **prefix, const char **suffix)
{
  static const char *forms[][3] = {
    { "Neg", "(-", ")" }, { "Relu", "fmaxf (", ", 0.0f)" }, { "Sigmoid", "(1.0f / (1.0f + expf (-(", "))))" },
    { "Tanh", "tanhf (", ")" }, { "Exp", "expf (", ")" }, { "Erf", "fw_erf (", ")" }, { "Sqrt", "sqrtf (", ")" },
    { "Abs", "fabsf (", ")" }, { "Identity", "(", ")" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (forms); i++)
    if (strcmp (op, forms[i][0]) == 0)
      {
        *prefix = forms[i][1];
        *suffix = forms[i][2];
        return TRUE;
      }
  return FALSE;
}

static gboolean
is_view (const FwNode *node)
{
  return strcmp (node->op_type, "Reshape") == 0 || strcmp (node->op_type, "Flatten") == 0 ||
         strcmp (node->op_type, "Squeeze") == 0 || strcmp (node->op_type, "Unsqueeze") == 0;
}

/* The C expression of v's element at coordinates c (rank v->rank). */
static gboolean
value_expr (Gen *g, const FwHgemmSpec *h, FwValue *v, char **c, GString *out, GError **error)
{
  FwNode *p = v->producer;
  const FwHgemmSlice *s;
  const char *bin, *prefix, *suffix;

  if (p == NULL || !fw_kernel_spec_contains (g->cand->spec, p))
    {
      if (v->dtype != FW_DTYPE_FLOAT)
        return fw_hc_unsupported (error, _("horizontal GEMM operand of type %s"), fw_dtype_name (v->dtype));
      if (v->constant != NULL && v->constant->n_elements == 1)
        fw_hc_append_const_element (out, v->constant, 0, FW_DTYPE_FLOAT);
      else
        {
          g_string_append_printf (out, "in%d[", fw_hc_kernel_input (g, v));
          append_linear (out, v, c, 0);
          g_string_append_c (out, ']');
        }
      return TRUE;
    }
  /* The normalised rows, where the product read them. */
  if (v == h->a && h->norm_x != NULL)
    {
      g_string_append (out, "col[");
      append_linear (out, v, c, 0);
      g_string_append_c (out, ']');
      return TRUE;
    }
  if ((s = slice_of (h, p)) != NULL)
    {
      slice_expr (g, h, s, v, c, out);
      return TRUE;
    }
  if (p->domain[0] != '\0' || p->outputs[0] != v)
    return fw_hc_unsupported (error, _("%s in a horizontal GEMM's epilogue"), p->op_type);
  bin = strcmp (p->op_type, "Add") == 0 ? " + " : strcmp (p->op_type, "Sub") == 0 ? " - " :
        strcmp (p->op_type, "Mul") == 0 ? " * " : strcmp (p->op_type, "Div") == 0 ? " / " : NULL;
  if (bin != NULL)
    {
      gboolean ok;
      if (p->n_inputs != 2 || p->inputs[0] == NULL || p->inputs[1] == NULL)
        return fw_hc_unsupported (error, _("%s without two operands"), p->op_type);
      g_string_append_c (out, '(');
      ok = operand_expr (g, h, p->inputs[0], c, v->rank, out, error);
      g_string_append (out, bin);
      ok = ok && operand_expr (g, h, p->inputs[1], c, v->rank, out, error);
      g_string_append_c (out, ')');
      return ok;
    }
  if (unary_form (p->op_type, &prefix, &suffix) && p->n_inputs >= 1 && p->inputs[0] != NULL)
    {
      gboolean ok;
      g_string_append (out, prefix);
      ok = operand_expr (g, h, p->inputs[0], c, v->rank, out, error);
      g_string_append (out, suffix);
      return ok;
    }
  if (is_view (p) && p->inputs[0] != NULL)
    {
      char **sc = fw_hc_reshape_coords (v, c, p->inputs[0]);
      gboolean ok = value_expr (g, h, p->inputs[0], sc, out, error);
      g_strfreev (sc);
      return ok;
    }
  return fw_hc_unsupported (error, _("%s in a horizontal GEMM's epilogue"), p->op_type);
}

/* The weights side by side, made once (fw_hgemm_pack), passed after the inputs. */
static gboolean
pack_weights (Gen *g, const FwHgemmSpec *h, GError **error)
{
  float *w;

  if (h->k * h->n > G_MAXINT32 || h->m > G_MAXINT32)
    return fw_hc_unsupported (error, _("a horizontal GEMM this large is beyond one sgemm call"));
  w = fw_hgemm_pack (h, NULL);
  if (w == NULL)
    return fw_hc_unsupported (error, _("a horizontal GEMM's weights have no float32 data"));
  g_free (g->kernel->packed);
  g->kernel->packed = w;
  return TRUE;
}

/* One value that leaves: a loop over its rows (every axis but the last, their coordinates from the row number
 * once a row) and, inside, over the last axis, unit stride in the product's columns, so the compiler can keep
 * the inner loop free of index arithmetic. */
static gboolean
emit_output (Gen *g, const FwHgemmSpec *h, FwValue *v, gint index, GString *s, GError **error)
{
  gint64 n = fw_value_get_n_elements (v), last = v->rank > 0 ? MAX (v->dims[v->rank - 1].value, 1) : 1;
  gint64 stride = 1;
  char **c = g_new0 (char *, v->rank + 2);
  GString *e = g_string_new (NULL);
  gboolean ok;

  for (gint a = 0; a < v->rank; a++)
    c[a] = g_strdup_printf ("c%d", a);
  if (v->rank == 0)
    c[0] = g_strdup ("0");
  ok = value_expr (g, h, v, c, e, error);
  g_string_append_printf (s, "  /* %s */\n#pragma omp parallel for num_threads(%s) schedule(static)\n", v->name,
                          n > PARALLEL_MIN_ELEMENTS ? "nt" : "1");
  g_string_append_printf (s, "  for (int64_t row = 0; row < %" G_GINT64_FORMAT "; row++)\n  {\n", n / last);
  for (gint a = v->rank - 2; a >= 0; a--)
    {
      g_string_append_printf (s, "    const int64_t c%d = (row / %" G_GINT64_FORMAT ") %% %" G_GINT64_FORMAT ";\n", a,
                              stride, MAX (v->dims[a].value, 1));
      g_string_append_printf (s, "    (void) c%d;\n", a);
      stride *= v->dims[a].value;
    }
  g_string_append_printf (s, "    float *restrict orow = out%d + row * %" G_GINT64_FORMAT ";\n", index, last);
  if (v->rank > 0)
    g_string_append_printf (s, "    for (int64_t c%d = 0; c%d < %" G_GINT64_FORMAT "; c%d++)\n      orow[c%d] = %s;\n"
                            "  }\n", v->rank - 1, v->rank - 1, last, v->rank - 1, v->rank - 1, e->str);
  else
    g_string_append_printf (s, "    orow[0] = %s;\n  }\n", e->str);
  g_string_free (e, TRUE);
  g_strfreev (c);
  return ok;
}

/* The RMSNorm of the rows of x into col, the product's A: each row's mean square, then x / √(… + eps) (or x times
 * its reciprocal, as the model writes it) times gamma, as the reference computes them. */
static void
emit_norm (Gen *g, const FwHgemmSpec *h, gint x_in, GString *s)
{
  g_autofree char *eps = fw_hc_flit ((float) h->norm_eps);
  g_autofree char *kf = fw_hc_flit ((float) h->k);
  gint gamma = h->norm_gamma != NULL ? fw_hc_kernel_input (g, h->norm_gamma) : -1;
  g_autofree char *scale = gamma >= 0 ? g_strdup_printf (" * in%d[k]", gamma) : g_strdup ("");

  g_string_append (s, "  /* RMSNorm of the rows of ");
  fw_hc_append_comment_text (s, h->norm_x->name);
  g_string_append_printf (s, " as A is loaded */\n"
                          "  col = (float *) malloc (sizeof (float) * %" G_GINT64_FORMAT ");\n"
                          "  if (col == NULL)\n    goto out;\n"
                          "#pragma omp parallel for num_threads(%s) schedule(static)\n"
                          "  for (int64_t r = 0; r < %" G_GINT64_FORMAT "; r++)\n  {\n"
                          "    const float *restrict xr = in%d + r * %" G_GINT64_FORMAT ";\n"
                          "    float *restrict ar = col + r * %" G_GINT64_FORMAT ";\n"
                          "    float ss = 0.0f;\n"
                          "    for (int64_t k = 0; k < %" G_GINT64_FORMAT "; k++)\n      ss += xr[k] * xr[k];\n"
                          "    const float d = sqrtf (ss / %s + %s);\n",
                          MAX (h->m * h->k, 1), h->m * h->k > PARALLEL_MIN_ELEMENTS ? "nt" : "1", h->m,
                          x_in, h->k, h->k, h->k, kf, eps);
  if (h->norm_divides)
    g_string_append_printf (s, "    for (int64_t k = 0; k < %" G_GINT64_FORMAT "; k++)\n      ar[k] = (xr[k] / d)%s;\n",
                            h->k, scale);
  else
    g_string_append_printf (s, "    const float inv = 1.0f / d;\n"
                            "    for (int64_t k = 0; k < %" G_GINT64_FORMAT "; k++)\n      ar[k] = (xr[k] * inv)%s;\n",
                            h->k, scale);
  g_string_append (s, "  }\n");
}

gboolean
fw_hc_emit_hgemm (Gen *g, GError **error)
{
  const FwHgemmSpec *h = fw_kernel_spec_get_hgemm (g->cand->spec);
  const FwKernelSpec *spec = g->cand->spec;
  GString *s = g->body;
  gint a_in;
  char a_name[32];

  if (g->kernel->unit_name != NULL)
    return fw_hc_unsupported (error, _("a horizontal GEMM's packed weights are not passed inside a scope program"));
  if (!pack_weights (g, h, error))
    return FALSE;
  a_in = fw_hc_kernel_input (g, h->norm_x != NULL ? h->norm_x : h->a);
  for (guint p = 0; p < fw_kernel_spec_get_n_nodes (spec); p++)
    {
      FwNode *node = fw_kernel_spec_get_node (spec, p);
      for (guint k = 0; k < node->n_outputs; k++)
        if (node->outputs[k] != NULL && fw_kernel_spec_is_output (spec, node->outputs[k]))
          {
            if (node->outputs[k]->dtype != FW_DTYPE_FLOAT)
              return fw_hc_unsupported (error, _("horizontal GEMM result of type %s"),
                                        fw_dtype_name (node->outputs[k]->dtype));
            g_ptr_array_add (g->kernel->outputs, node->outputs[k]);
          }
    }
  g_snprintf (a_name, sizeof a_name, "in%d", a_in);
  g_string_append_printf (s, "  /* horizontal GEMM: %u projections, %" G_GINT64_FORMAT " rows, K = %" G_GINT64_FORMAT
                          ", %" G_GINT64_FORMAT " columns */\n", h->n_slices, h->m, h->k, h->n);
  g_string_append_printf (s, "  tile = (float *) malloc (sizeof (float) * %" G_GINT64_FORMAT ");\n"
                          "  if (tile == NULL)\n    goto out;\n  {\n  float *restrict cb = tile;\n",
                          MAX (h->m * h->n, 1));
  if (h->norm_x != NULL)
    emit_norm (g, h, a_in, s);
  /* The packed weights come after the kernel's inputs. */
  g_string_append_printf (s, "  rt->sgemm (0, 0, %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                          ", 1.0f, %s, %" G_GINT64_FORMAT ", (const float *) ins[FW_HGEMM_PACKED], %" G_GINT64_FORMAT
                          ", 0.0f, cb, %" G_GINT64_FORMAT ");\n", h->m, h->n, h->k,
                          h->norm_x != NULL ? "col" : a_name, h->k, h->n, h->n);
  for (guint i = 0; i < g->kernel->outputs->len; i++)
    if (!emit_output (g, h, g_ptr_array_index (g->kernel->outputs, i), (gint) i, s, error))
      return FALSE;
  g_string_append (s, "  }\n");
  /* Known only now that every input is: the slot after them. */
  g_string_append_printf (g->decls, "#define FW_HGEMM_PACKED %u\n", g->kernel->inputs->len);
  return TRUE;
}
