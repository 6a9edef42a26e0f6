/* fw-host-expr.c: the C the host generator writes for one value or node: exact literals, the register
 * and memory types, operand loads (row pointers, scratch), each elementwise operator's expression and the
 * stores of results. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-host-codegen-private.h"
#include "ops/fw-op-registry.h"

/* ---- literals and types ---- */

/* Exact and locale-independent: printf's %a follows LC_NUMERIC's decimal point. */
static void
append_hex_double (GString *s, double v)
{
  guint64 bits;
  gint e;
  guint64 mant;

  if (isnan (v))
    {
      g_string_append (s, "NAN");
      return;
    }
  if (isinf (v))
    {
      g_string_append (s, v < 0 ? "(-INFINITY)" : "INFINITY");
      return;
    }
  memcpy (&bits, &v, sizeof bits);
  e = (gint) ((bits >> 52) & 0x7ff);
  mant = bits & ((G_GUINT64_CONSTANT (1) << 52) - 1);
  g_string_append (s, (bits >> 63) ? "-0x" : "0x");
  if (e == 0)
    g_string_append_printf (s, "0.%013" G_GINT64_MODIFIER "xp-1022", mant);
  else
    g_string_append_printf (s, "1.%013" G_GINT64_MODIFIER "xp%+d", mant, e - 1023);
}

static void
append_float_literal (GString *s, float v)
{
  if (isnan (v) || isinf (v))
    {
      append_hex_double (s, v);
      return;
    }
  g_string_append (s, "((float) ");
  append_hex_double (s, (double) v);
  g_string_append_c (s, ')');
}

const char *
fw_hc_reg_type (FwDType dtype)
{
  switch (dtype)
    {
    case FW_DTYPE_FLOAT:
    case FW_DTYPE_FLOAT16:
    case FW_DTYPE_BFLOAT16:
      return "float";
    case FW_DTYPE_DOUBLE:
      return "double";
    case FW_DTYPE_INT64:
      return "int64_t";
    case FW_DTYPE_INT32:
      return "int32_t";
    case FW_DTYPE_INT8:
      return "int8_t";
    case FW_DTYPE_UINT8:
    case FW_DTYPE_BOOL:
      return "uint8_t";
    default:
      return NULL;
    }
}

const char *
fw_hc_mem_type (FwDType dtype)
{
  return fw_hc_is_half (dtype) ? "uint16_t" : fw_hc_reg_type (dtype);
}

gboolean
fw_hc_is_floatish (FwDType dtype)
{
  return dtype == FW_DTYPE_FLOAT || fw_hc_is_half (dtype);
}

static void
append_int_literal (GString *s, gint64 v)
{
  if (v == G_MININT64)
    g_string_append (s, "(-INT64_C(9223372036854775807) - 1)");
  else
    g_string_append_printf (s, "INT64_C(%" G_GINT64_FORMAT ")", v);
}

/* Element i of a constant as a literal of dtype's register type. */
void
fw_hc_append_const_element (GString *s, FwTensor *t, gint64 i, FwDType dtype)
{
  double d = 0;
  gint64 n = 0;

  if (fw_hc_is_floatish (dtype) || dtype == FW_DTYPE_DOUBLE)
    {
      fw_tensor_get_double (t, i, &d);
      if (dtype == FW_DTYPE_DOUBLE)
        append_hex_double (s, d);
      else
        append_float_literal (s, (float) d);
      return;
    }
  fw_tensor_get_int64 (t, i, &n);
  if (dtype == FW_DTYPE_BOOL)
    g_string_append (s, n ? "1" : "0");
  else
    append_int_literal (s, n);
}

/* ---- operands, loads and stores ---- */

const char *
fw_hc_ptr_base (SkVal *v, char *buf, gsize len)
{
  if (v->kind == SV_TILE)
    g_snprintf (buf, len, "dst");
  else if (v->kind == SV_IMM_ARRAY)
    g_snprintf (buf, len, "c%d", v->imm_index);
  else if (v->out_index >= 0)
    g_snprintf (buf, len, "out%d", v->out_index);
  else if (v->panel >= 0)
    g_snprintf (buf, len, "hp[%d]", v->panel);
  else
    g_snprintf (buf, len, "in%d", v->in_index);
  return buf;
}

/* A half operand read with unit stride comes from the float32 block the pass converted it into (H<id>,
 * indexed from the block's start jb: fw-host-region.c); other half reads convert one element. */
static void
append_load (GString *s, SkVal *v, const char *index)
{
  g_string_append_printf (s, "const %s v%u = ", fw_hc_reg_type (v->dtype), v->id);
  if (fw_hc_is_half (v->dtype) && v->kind != SV_IMM_ARRAY && strcmp (index, "j") == 0)
    {
      v->half_in = TRUE;
      g_string_append_printf (s, "H%u[j - jb];\n", v->id);
    }
  else if (fw_hc_is_half (v->dtype) && v->kind != SV_IMM_ARRAY)
    g_string_append_printf (s, "fw_%s2f (P%u[%s]);\n", fw_hc_half_letter (v->dtype), v->id, index);
  else
    g_string_append_printf (s, "P%u[%s];\n", v->id, index);
}

/* v's element j of the innermost loop, relative to its row pointer: unit stride except along a moved axis. */
static void
inner_index (Gen *g, SkVal *v, char *buf, gsize len)
{
  gint64 st = INNER_STRIDE (v, g->n_inner - 1);

  if (st == 0)
    g_snprintf (buf, len, "0");
  else if (st == 1)
    g_snprintf (buf, len, "j");
  else
    g_snprintf (buf, len, "j * %" G_GINT64_FORMAT, st);
}

/* The expression for v in pass `pass` (-1: row scope), emitting a load into s first when needed. */
void
fw_hc_operand (Gen *g, GString *s, SkVal *v, gint pass, GString *out)
{
  if (v->kind == SV_IMM_SCALAR)
    {
      fw_hc_append_const_element (out, v->value->constant, 0, v->dtype);
      return;
    }
  if (v->rowv || pass < 0)
    {
      /* Per-row inputs were loaded by the row prologue, per-row results computed at row scope. */
      g_string_append_printf (out, "v%u", v->id);
      return;
    }
  if (v->kind == SV_INTERNAL && v->pass == pass)
    {
      g_string_append_printf (out, "v%u", v->id);
      return;
    }
  if (v->loaded_pass != pass)
    {
      char j[48];
      inner_index (g, v, j, sizeof j);
      v->loaded_pass = pass;
      if (v->kind == SV_INTERNAL)
        {
          v->need_scr = TRUE;
          g_string_append_printf (s, "      const %s v%u = S%u[j];\n", fw_hc_reg_type (v->dtype), v->id, v->id);
        }
      else
        {
          v->need_ptr = TRUE;
          g_string_append (s, "      ");
          append_load (s, v, j);
        }
    }
  g_string_append_printf (out, "v%u", v->id);
}

/* Adds operand k of node to args (an expression string each); FALSE when missing. */
static const char *
arg (Gen *g, GString *s, const FwNode *node, guint k, gint pass, GPtrArray *keep)
{
  SkVal *v = fw_hc_input_val (g, node, k);
  GString *e;

  if (v == NULL)
    return NULL;
  e = g_string_new (NULL);
  fw_hc_operand (g, s, v, pass, e);
  g_ptr_array_add (keep, e->str);
  g_string_free (e, FALSE);
  return g_ptr_array_index (keep, keep->len - 1);
}

static gboolean
const_scalar (const FwNode *node, guint k, double *out)
{
  FwValue *v = k < node->n_inputs ? node->inputs[k] : NULL;

  return v != NULL && v->constant != NULL && v->constant->n_elements == 1 &&
         fw_tensor_get_double (v->constant, 0, out);
}

char *
fw_hc_flit (float f)
{
  GString *s = g_string_new (NULL);
  append_float_literal (s, f);
  return g_string_free (s, FALSE);
}

/* What each operator family of fw_hc_elementwise_expr reads: the node, its first two operands'
 * expressions, and what their dtypes allow. */
typedef struct
{
  Gen          *g;
  GString      *s;
  const FwNode *node;
  const char   *op;
  gint          pass;
  SkVal        *out;
  SkVal        *va;     /* input 0 */
  GPtrArray    *keep;   /* the operand expressions, owned */
  const char   *a, *b;
  gboolean      fl;     /* float32 or float16 in and out */
  gboolean      dbl;    /* float64 in and out */
  gboolean      fx;     /* fl or dbl */
  gboolean      num;    /* arithmetic in the input's own type */
  const char   *sf;     /* suffix of the C functions and literals: "f", or "" for float64 */
} ExprArgs;

/* An operator family: the expression, or NULL with error; *done FALSE when op is not of the family. */
typedef char *(*ExprFamily) (const ExprArgs *x, gboolean *done, GError **error);

static char *
not_on_dtype (const ExprArgs *x, GError **error)
{
  fw_hc_unsupported (error, _("operator %s on %s is not supported"), x->op, fw_dtype_name (x->va->dtype));
  return NULL;
}

#define NEED(cond)                                                                                         \
  if (!(cond))                                                                                             \
    return not_on_dtype (x, error)

static char *
expr_arith (const ExprArgs *x, gboolean *done, GError **error)
{
  const FwNode *node = x->node;
  const char *op = x->op, *a = x->a, *b = x->b, *sf = x->sf;
  gboolean fx = x->fx, num = x->num, dbl = x->dbl;

  *done = TRUE;
  if (strcmp (op, "Identity") == 0 || strcmp (op, "Dropout") == 0)
    return g_strdup (a);
  if (strcmp (op, "Add") == 0 || strcmp (op, "Sub") == 0 || strcmp (op, "Mul") == 0)
    {
      NEED (num && b);
      return g_strdup_printf ("(%s %c %s)", a, op[0] == 'A' ? '+' : op[0] == 'S' ? '-' : '*', b);
    }
  if (strcmp (op, "Div") == 0)
    {
      NEED ((fx || num) && b);
      if (fx)
        return g_strdup_printf ("(%s / %s)", a, b);
      /* Integers: C's division truncates toward zero as ONNX's does; by zero gives 0 and INT_MIN / -1 wraps,
         as the reference chooses (ONNX leaves both undefined). */
      if (x->out->dtype == FW_DTYPE_UINT8)
        return g_strdup_printf ("(%s == 0 ? (uint8_t) 0 : (uint8_t) (%s / %s))", b, a, b);
      return g_strdup_printf ("((%s) fw_sdiv (%s, %s))", fw_hc_reg_type (x->out->dtype), a, b);
    }
  if (strcmp (op, "Pow") == 0)
    {
      double e;
      NEED (fx && b);
      if (const_scalar (node, 1, &e) && e == 2.0)
        return g_strdup_printf ("(%s * %s)", a, a);
      if (const_scalar (node, 1, &e) && e == 0.5)
        return g_strdup_printf ("sqrt%s (%s)", sf, a);
      if (const_scalar (node, 1, &e) && e == 1.0)
        return g_strdup (a);
      return g_strdup_printf ("pow%s (%s, (%s) %s)", sf, a, dbl ? "double" : "float", b);
    }
  if (strcmp (op, "Neg") == 0)
    {
      NEED (num);
      return g_strdup_printf ("(-%s)", a);
    }
  if (strcmp (op, "Abs") == 0)
    {
      NEED (num);
      if (fx)
        return g_strdup_printf ("fabs%s (%s)", sf, a);
      return g_strdup_printf ("(%s < 0 ? -%s : %s)", a, a, a);
    }
  *done = FALSE;
  return NULL;
}

/* Max, Min, Sum and Mean over any number of inputs. */
static char *
expr_variadic (const ExprArgs *x, gboolean *done, GError **error)
{
  const FwNode *node = x->node;
  const char *op = x->op;
  GString *e;

  *done = strcmp (op, "Max") == 0 || strcmp (op, "Min") == 0 || strcmp (op, "Sum") == 0 || strcmp (op, "Mean") == 0;
  if (!*done)
    return NULL;
  NEED (x->fx);
  e = g_string_new (x->a);
  for (guint k = 1; k < node->n_inputs; k++)
    {
      const char *xk = arg (x->g, x->s, node, k, x->pass, x->keep);
      char *prev = g_strdup (e->str);
      if (xk == NULL)
        {
          g_free (prev);
          continue;
        }
      g_string_truncate (e, 0);
      /* The reference's rule (a NaN on either side wins), as comparisons: fmaxf and fminf drop NaNs,
         and are calls that keep the loop from vectorising. */
      if (strcmp (op, "Max") == 0)
        g_string_append_printf (e, "((%s) != (%s) || (%s) > (%s) ? (%s) : (%s))", prev, prev, prev, xk, prev, xk);
      else if (strcmp (op, "Min") == 0)
        g_string_append_printf (e, "((%s) != (%s) || (%s) < (%s) ? (%s) : (%s))", prev, prev, prev, xk, prev, xk);
      else
        g_string_append_printf (e, "(%s + %s)", prev, xk);
      g_free (prev);
    }
  if (strcmp (op, "Mean") == 0)
    {
      g_autofree char *n = fw_hc_flit ((float) node->n_inputs);
      char *r;
      if (x->dbl)
        {
          GString *d = g_string_new (NULL);
          append_hex_double (d, (double) node->n_inputs);
          g_free (n);
          n = g_string_free (d, FALSE);
        }
      r = g_strdup_printf ("(%s / %s)", e->str, n);
      g_string_free (e, TRUE);
      return r;
    }
  return g_string_free (e, FALSE);
}

/* Where, comparisons, logic and Cast. */
static char *
expr_logic (const ExprArgs *x, gboolean *done, GError **error)
{
  const FwNode *node = x->node;
  const char *op = x->op, *a = x->a, *b = x->b;
  SkVal *out = x->out;

  *done = TRUE;
  if (strcmp (op, "Where") == 0)
    {
      const char *c = node->n_inputs > 2 ? arg (x->g, x->s, node, 2, x->pass, x->keep) : NULL;
      NEED (b && c);
      return g_strdup_printf ("(%s ? %s : %s)", a, b, c);
    }
  if (strcmp (op, "Equal") == 0 || strcmp (op, "Less") == 0 || strcmp (op, "Greater") == 0 ||
      strcmp (op, "LessOrEqual") == 0 || strcmp (op, "GreaterOrEqual") == 0)
    {
      const char *cmp = strcmp (op, "Equal") == 0 ? "==" : strcmp (op, "Less") == 0 ? "<" :
                        strcmp (op, "Greater") == 0 ? ">" : strcmp (op, "LessOrEqual") == 0 ? "<=" : ">=";
      NEED (b);
      return g_strdup_printf ("((uint8_t) (%s %s %s))", a, cmp, b);
    }
  if (strcmp (op, "Not") == 0)
    return g_strdup_printf ("((uint8_t) !%s)", a);
  if (strcmp (op, "And") == 0 || strcmp (op, "Or") == 0 || strcmp (op, "Xor") == 0)
    {
      NEED (b);
      if (op[0] == 'X')
        return g_strdup_printf ("((uint8_t) ((%s != 0) != (%s != 0)))", a, b);
      return g_strdup_printf ("((uint8_t) (%s %s %s))", a, op[0] == 'A' ? "&&" : "||", b);
    }
  if (strcmp (op, "Cast") == 0)
    {
      /* The model's own rounding: a Cast to a half type rounds there, inside the group too. */
      if (fw_hc_is_half (out->dtype) && x->va->dtype != out->dtype)
        return g_strdup_printf ("fw_%s2f (fw_f2%s ((float) %s))", fw_hc_half_letter (out->dtype),
                                fw_hc_half_letter (out->dtype), a);
      if (out->dtype == FW_DTYPE_BOOL)
        return g_strdup_printf ("((uint8_t) (%s != 0))", a);
      return g_strdup_printf ("((%s) %s)", fw_hc_reg_type (out->dtype), a);
    }
  *done = FALSE;
  return NULL;
}

/* Floating-point functions without attributes, in float or double. */
static char *
expr_math (const ExprArgs *x, gboolean *done, GError **error)
{
  const char *op = x->op, *a = x->a, *sf = x->sf;

  (void) error;
  *done = TRUE;
  if (strcmp (op, "Relu") == 0)
    return g_strdup_printf ("(%s > 0.0%s ? %s : 0.0%s)", a, sf, a, sf);
  if (strcmp (op, "Sigmoid") == 0)
    return g_strdup_printf ("(1.0%s / (1.0%s + exp%s (-%s)))", sf, sf, sf, a);
  if (strcmp (op, "Tanh") == 0 || strcmp (op, "Exp") == 0 || strcmp (op, "Log") == 0 || strcmp (op, "Sqrt") == 0 ||
      strcmp (op, "Floor") == 0 || strcmp (op, "Ceil") == 0 || strcmp (op, "Sin") == 0 || strcmp (op, "Cos") == 0)
    {
      g_autofree char *fn = g_ascii_strdown (op, -1);
      return g_strdup_printf ("%s%s (%s)", fn, sf, a);
    }
  if (strcmp (op, "Erf") == 0)
    return x->dbl ? g_strdup_printf ("erf (%s)", a) : g_strdup_printf ("fw_erf (%s)", a);
  if (strcmp (op, "Reciprocal") == 0)
    return g_strdup_printf ("(1.0%s / %s)", sf, a);
  if (strcmp (op, "Round") == 0)
    return g_strdup_printf ("rint%s (%s)", sf, a);
  if (strcmp (op, "Sign") == 0)
    return g_strdup_printf ("((%s) ((%s > 0.0%s) - (%s < 0.0%s)))", fw_hc_reg_type (x->out->dtype), a, sf, a, sf);
  if (strcmp (op, "Softplus") == 0)
    return g_strdup_printf ("log1p%s (exp%s (%s))", sf, sf, a);
  if (strcmp (op, "Softsign") == 0)
    return g_strdup_printf ("(%s / (1.0%s + fabs%s (%s)))", a, sf, sf, a);
  if (strcmp (op, "Mish") == 0)
    return g_strdup_printf ("(%s * tanh%s (log1p%s (exp%s (%s))))", a, sf, sf, sf, a);
  *done = FALSE;
  return NULL;
}

/* Operators that read float attributes into float literals: float32 and float16 only. */
static char *
expr_attr (const ExprArgs *x, gboolean *done, GError **error)
{
  Gen *g = x->g;
  GString *s = x->s;
  const FwNode *node = x->node;
  const char *op = x->op, *a = x->a, *b = x->b;
  gint pass = x->pass;
  GPtrArray *keep = x->keep;

  *done = TRUE;
  if (strcmp (op, "Clip") == 0)
    {
      g_autofree char *lo = NULL, *hi = NULL;
      const char *lo_arg = node->n_inputs > 1 ? arg (g, s, node, 1, pass, keep) : NULL;
      const char *hi_arg = node->n_inputs > 2 ? arg (g, s, node, 2, pass, keep) : NULL;
      GString *e = g_string_new (a);
      if (node->opset > 0 && node->opset < 11)
        {
          lo = fw_hc_flit (fw_node_get_attr_float (node, "min", -G_MAXFLOAT));
          hi = fw_hc_flit (fw_node_get_attr_float (node, "max", G_MAXFLOAT));
          lo_arg = lo;
          hi_arg = hi;
        }
      if (lo_arg)
        {
          char *prev = g_strdup (e->str);
          g_string_printf (e, "(%s < %s ? %s : %s)", prev, lo_arg, lo_arg, prev);
          g_free (prev);
        }
      if (hi_arg)
        {
          char *prev = g_strdup (e->str);
          g_string_printf (e, "(%s > %s ? %s : %s)", prev, hi_arg, hi_arg, prev);
          g_free (prev);
        }
      return g_string_free (e, FALSE);
    }
  if (strcmp (op, "HardSigmoid") == 0 || strcmp (op, "HardSwish") == 0)
    {
      gboolean swish = strcmp (op, "HardSwish") == 0;
      g_autofree char *alpha = fw_hc_flit (swish ? 1.0f / 6.0f : fw_node_get_attr_float (node, "alpha", 0.2f));
      g_autofree char *beta = fw_hc_flit (swish ? 0.5f : fw_node_get_attr_float (node, "beta", 0.5f));
      g_autofree char *y = g_strdup_printf ("(%s * %s + %s)", a, alpha, beta);
      /* Clamped as the reference clamps (a NaN stays NaN), with comparisons that vectorise. */
      g_autofree char *hs = g_strdup_printf ("(%s < 0.0f ? 0.0f : (%s > 1.0f ? 1.0f : %s))", y, y, y);
      return swish ? g_strdup_printf ("(%s * %s)", a, hs) : g_strdup (hs);
    }
  if (strcmp (op, "LeakyRelu") == 0 || strcmp (op, "Elu") == 0 || strcmp (op, "ThresholdedRelu") == 0)
    {
      float def = op[0] == 'L' ? 0.01f : 1.0f;
      g_autofree char *alpha = fw_hc_flit (fw_node_get_attr_float (node, "alpha", def));
      if (op[0] == 'L')
        return g_strdup_printf ("(%s < 0.0f ? %s * %s : %s)", a, alpha, a, a);
      if (op[0] == 'E')
        return g_strdup_printf ("(%s < 0.0f ? %s * (expf (%s) - 1.0f) : %s)", a, alpha, a, a);
      return g_strdup_printf ("(%s > %s ? %s : 0.0f)", a, alpha, a);
    }
  if (strcmp (op, "Selu") == 0)
    {
      g_autofree char *alpha = fw_hc_flit (fw_node_get_attr_float (node, "alpha", 1.67326319217681884765625f));
      g_autofree char *gamma = fw_hc_flit (fw_node_get_attr_float (node, "gamma", 1.05070102214813232421875f));
      return g_strdup_printf ("(%s <= 0.0f ? %s * (%s * expf (%s) - %s) : %s * %s)", a, gamma, alpha, a, alpha, gamma,
                              a);
    }
  if (strcmp (op, "PRelu") == 0)
    {
      NEED (b);
      return g_strdup_printf ("(%s < 0.0f ? %s * %s : %s)", a, b, a, a);
    }
  if (strcmp (op, "Gelu") == 0)
    {
      const char *approx = fw_node_get_attr_string (node, "approximate");
      g_autofree char *inv_sqrt2 = fw_hc_flit ((float) (1.0 / G_SQRT2));
      g_autofree char *k0 = fw_hc_flit ((float) sqrt (2.0 / G_PI));
      g_autofree char *k1 = fw_hc_flit (0.044715f);
      if (approx == NULL || strcmp (approx, "none") == 0)
        return g_strdup_printf ("(0.5f * %s * (1.0f + fw_erf (%s * %s)))", a, a, inv_sqrt2);
      if (strcmp (approx, "tanh") == 0)
        return g_strdup_printf ("(0.5f * %s * (1.0f + tanhf (%s * (%s + %s * %s * %s * %s))))", a, k0, a, k1, a, a, a);
      fw_hc_unsupported (error, _("Gelu with an unknown approximation"));
      return NULL;
    }
  if (strcmp (op, "BatchNormalization") == 0)
    {
      const char *scale = arg (g, s, node, 1, pass, keep), *bias = arg (g, s, node, 2, pass, keep);
      const char *mean = arg (g, s, node, 3, pass, keep), *var = arg (g, s, node, 4, pass, keep);
      g_autofree char *eps = fw_hc_flit (fw_node_get_attr_float (node, "epsilon", 1e-5f));
      if (!scale || !bias || !mean || !var || fw_node_get_attr_int (node, "training_mode", 0))
        {
          fw_hc_unsupported (error, _("BatchNormalization in training mode"));
          return NULL;
        }
      return g_strdup_printf ("((%s - %s) / sqrtf (%s + %s) * %s + %s)", a, mean, var, eps, scale, bias);
    }
  *done = FALSE;
  return NULL;
}

#undef NEED

/* The C expression of an elementwise node's output 0 in register type. The families are tried in order;
 * the later ones only once the dtypes are floating-point. */
char *
fw_hc_elementwise_expr (Gen *g, GString *s, const FwNode *node, gint pass, SkVal *out, GError **error)
{
  static const struct
  {
    ExprFamily family;
    gboolean   float_only;   /* float32, float16 or float64 */
    gboolean   float32_only; /* float32 or float16 */
  } families[] = {
    { expr_arith, FALSE, FALSE },
    { expr_variadic, FALSE, FALSE },
    { expr_logic, FALSE, FALSE },
    { expr_math, TRUE, FALSE },
    { expr_attr, TRUE, TRUE },
  };
  g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func (g_free);
  ExprArgs x = { g, s, node, node->op_type, pass, out, NULL, keep, NULL, NULL, FALSE, FALSE, FALSE, FALSE, NULL };

  if (node->op != NULL && node->op->custom != NULL)
    return fw_hc_custom_expr (g, s, node, pass, out, error);
  x.a = arg (g, s, node, 0, pass, keep);
  x.b = node->n_inputs > 1 ? arg (g, s, node, 1, pass, keep) : NULL;
  x.va = fw_hc_input_val (g, node, 0);
  x.fl = fw_hc_is_floatish (out->dtype) && x.va && fw_hc_is_floatish (x.va->dtype);
  /* float64 computes with the double functions and literals, as the reference's float64 kernels do: the
     same expressions with no 'f' suffix (sf). */
  x.dbl = out->dtype == FW_DTYPE_DOUBLE && x.va && x.va->dtype == FW_DTYPE_DOUBLE;
  x.fx = x.fl || x.dbl;
  x.sf = x.dbl ? "" : "f";
  x.num = x.fl || (x.va && x.va->dtype == out->dtype && out->dtype != FW_DTYPE_BOOL);
  if (x.a == NULL)
    {
      fw_hc_unsupported (error, _("%s without its input"), x.op);
      return NULL;
    }
  /* An injective member moves no data in registers: its operand and result are the same element of the
   * space, read and written through their index maps. */
  if (fw_node_get_op_class (node) == FW_OP_CLASS_INJECTIVE)
    {
      if (!fw_kernel_spec_has_index_maps (g->cand->spec, FALSE) || x.va == NULL || x.va->dtype != out->dtype)
        {
          fw_hc_unsupported (error, _("%s without an index map"), x.op);
          return NULL;
        }
      return g_strdup (x.a);
    }
  for (guint i = 0; i < G_N_ELEMENTS (families); i++)
    {
      gboolean done = FALSE;
      char *e;

      if ((families[i].float_only && !x.fx) || (families[i].float32_only && !x.fl))
        return not_on_dtype (&x, error);
      e = families[i].family (&x, &done, error);
      if (done)
        return e;
    }
  fw_hc_unsupported (error, _("operator %s is not supported"), x.op);
  return NULL;
}

void
fw_hc_append_store (Gen *g, GString *s, SkVal *v, const char *indent, gboolean row_scope)
{
  if (v->out_index >= 0)
    {
      char idx[48];
      if (row_scope)
        g_snprintf (idx, sizeof idx, "0");
      else
        inner_index (g, v, idx, sizeof idx);
      /* A half output is rounded here, once: inside the group it stayed float32. Unit-stride stores go
         through a float32 block the pass converts after its loop (O<id>). */
      if (!row_scope && fw_hc_is_half (v->dtype) && strcmp (idx, "j") == 0)
        {
          v->need_ptr = TRUE;
          v->half_out = TRUE;
          g_string_append_printf (s, "%sO%u[j - jb] = v%u;\n", indent, v->id, v->id);
        }
      else
        {
          if (row_scope)
            g_string_append_printf (s, "%sout%d[b%u] = ", indent, v->out_index, v->id);
          else
            {
              v->need_ptr = TRUE;
              g_string_append_printf (s, "%sP%u[%s] = ", indent, v->id, idx);
            }
          if (fw_hc_is_half (v->dtype))
            g_string_append_printf (s, "fw_f2%s (v%u);\n", fw_hc_half_letter (v->dtype), v->id);
          else
            g_string_append_printf (s, "v%u;\n", v->id);
        }
    }
  if (v->scratch && !row_scope)
    {
      v->need_scr = TRUE;
      g_string_append_printf (s, "%sS%u[j] = v%u;\n", indent, v->id, v->id);
    }
}
