/* fw-ascend-emit.c: the Compute statements of each node of an Ascend kernel: how operands enter an
 * instruction (views: whole tiles, scalars, per-row scalars, resident rows), binary operators with their
 * scalar and per-row forms, compositions for operators without an instruction (erf, sigmoid, tanh, pow),
 * row reductions and normalisations, and comparisons and Select over bit masks. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-ascend-codegen-private.h"

static G_GNUC_PRINTF (2, 3) void
emit (Gen *g, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_string_append_vprintf (g->compute, format, args);
  va_end (args);
}

static char *
literal (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (v))
    return g_strdup ("(0.0f / 0.0f)");
  if (isinf (v))
    return g_strdup (v > 0 ? "(1.0f / 0.0f)" : "(-1.0f / 0.0f)");
  g_ascii_formatd (buf, sizeof buf, "%.9g", v);
  if (strchr (buf, '.') == NULL && strchr (buf, 'e') == NULL)
    return g_strdup_printf ("%s.0f", buf);
  return g_strdup_printf ("%sf", buf);
}

/* How an operand enters an op whose result has role `role`: a tensor name, or a scalar expression. */
typedef enum {
  VIEW_WHOLE,      /* the tile (or its rows), or a scalar */
  VIEW_ROW_SCALAR, /* one element per row (expr is the row buffer): read per row as a scalar */
  VIEW_ROW_VECTOR, /* one resident row (expr is its load buffer), the same for every row */
} ViewPerRow;

typedef struct
{
  gboolean   scalar;
  ViewPerRow per_row;
  gboolean   loaded;  /* per-row scalars straight from a queue: their scalar reads wait for MTE2 */
  char       expr[160];
} View;

static void
view_tensor (View *v, const char *expr)
{
  v->scalar = FALSE;
  v->per_row = VIEW_WHOLE;
  g_strlcpy (v->expr, expr, sizeof v->expr);
}

static void
view_scalar (View *v, const char *expr)
{
  v->scalar = TRUE;
  v->per_row = VIEW_WHOLE;
  g_strlcpy (v->expr, expr, sizeof v->expr);
}

static const char *scratch_names[FW_AC_N_SCRATCH] = { "sA", "sB", "sC", "sD", "sE" };

static void
use_scratch (Gen *g, guint i, const char *ctype)
{
  g->scratch[i] = TRUE;
  emit (g, "      AscendC::LocalTensor<%s> %s = scratch%u.Get<%s>();\n", ctype, scratch_names[i], i, ctype);
}

/* A float16 group's float32 islands (fw_ac_computes_wide): the half operand widened into a float scratch
 * tile, and the float result rounded back once. Cast.md (Atlas A2 table): half -> float takes CAST_NONE only
 * and is exact; float -> half with CAST_RINT rounds to nearest, ties to even, as ONNX's float -> float16. */
static void
emit_widen (Gen *g, const char *dst, const char *src, const char *count)
{
  emit (g, "      AscendC::Cast(%s, %s, AscendC::RoundMode::CAST_NONE, static_cast<uint32_t>(%s));  /* half -> float */\n",
        dst, src, count);
}

static void
emit_narrow (Gen *g, const char *dst, const char *src, const char *count)
{
  emit (g, "      AscendC::Cast(%s, %s, AscendC::RoundMode::CAST_RINT, static_cast<uint32_t>(%s));  /* float -> half */\n",
        dst, src, count);
}

static gboolean
get_view (Gen *g, Operand *o, FwShapeRole role, const char *ctype, guint scratch, View *out, GError **error)
{
  char name[32];

  g_snprintf (name, sizeof name, "v%u", o->id);
  if (o->kind == KIND_IMMEDIATE)
    {
      g_autofree char *lit = literal (o->imm);
      view_scalar (out, lit);
      return TRUE;
    }
  if (strcmp (o->ctype, ctype) != 0)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                   _("Ascend target: operands of different dtypes (%s and %s) without a Cast"), o->ctype, ctype);
      return FALSE;
    }
  if (o->kind == KIND_SMALL && o->elements == 1)
    {
      char expr[64];
      g_snprintf (expr, sizeof expr, "static_cast<float>(raw%u.GetValue(0))", o->index);
      view_scalar (out, expr);
      return TRUE;
    }
  if (o->kind == KIND_SMALL)
    {
      if (role != FW_SHAPE_FULL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                       _("Ascend target: a broadcast operand meets a row reduction's result"));
          return FALSE;
        }
      if (o->rowvec)
        {
          /* An op without a per-row form reads it: copy the resident row into each row of scratch. */
          use_scratch (g, scratch, ctype);
          if (g->row_forms)
            {
              g_snprintf (name, sizeof name, "raw%u", o->index);
              fw_ac_rows_expand (g, scratch_names[scratch], FW_ROW_FORM_RESIDENT, name, ctype);
            }
          else
            emit (g, "      for (uint32_t r = 0; r < rows; r++)\n"
                     "        AscendC::Muls(%s[r * ROW_STRIDE], raw%u, static_cast<%s>(1.0f), static_cast<int32_t>(ROW_LEN));\n",
                  scratch_names[scratch], o->index, ctype);
          view_tensor (out, scratch_names[scratch]);
          return TRUE;
        }
      g_snprintf (name, sizeof name, "e%u", o->index);
      view_tensor (out, name);
      return TRUE;
    }
  if (o->role == role)
    {
      view_tensor (out, name);
      return TRUE;
    }
  if (o->role == FW_SHAPE_ROW && role == FW_SHAPE_FULL)
    {
      /* A row's value repeated along the row: Duplicate per row (rows start 32-byte aligned). */
      use_scratch (g, scratch, ctype);
      if (g->row_forms)
        fw_ac_rows_expand (g, scratch_names[scratch], FW_ROW_FORM_BCAST, name, ctype);
      else
        emit (g, "      VectorToScalar();\n"
                 "      for (uint32_t r = 0; r < rows; r++)\n"
                 "        AscendC::Duplicate(%s[r * ROW_STRIDE], %s.GetValue(r), static_cast<int32_t>(ROW_LEN));\n",
              scratch_names[scratch], name);
      view_tensor (out, scratch_names[scratch]);
      return TRUE;
    }
  g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("Ascend target: an operand does not fit the result's shape"));
  return FALSE;
}

/* Like get_view, for the operands of emit_binary: in rows mode a per-row scalar or a resident row vector
 * meeting a tile-shaped result is applied row by row instead of being expanded into scratch. */
static gboolean
get_binary_view (Gen *g, Operand *o, FwShapeRole role, const char *ctype, guint scratch, View *out, GError **error)
{
  if (g->rows_mode && role == FW_SHAPE_FULL && !o->mask && o->ctype != NULL && strcmp (o->ctype, ctype) == 0)
    {
      if (o->kind == KIND_SMALL && o->rowvec)
        {
          view_tensor (out, "");
          out->per_row = VIEW_ROW_VECTOR;
          g_snprintf (out->expr, sizeof out->expr, "raw%u", o->index);
          return TRUE;
        }
      if (o->kind != KIND_SMALL && o->kind != KIND_IMMEDIATE && o->role == FW_SHAPE_ROW)
        {
          view_tensor (out, "");
          out->per_row = VIEW_ROW_SCALAR;
          out->loaded = o->kind == KIND_INPUT;
          g_snprintf (out->expr, sizeof out->expr, "v%u", o->id);
          return TRUE;
        }
    }
  return get_view (g, o, role, ctype, scratch, out, error);
}

static gboolean emit_binary (Gen *g, const char *op, const char *dst, const View *a, const View *b, const char *count,
                             const char *ctype, GError **error);

/* Row r of a view, as emit_binary's single-row operand. */
static void
row_of (const View *v, View *out)
{
  if (v->per_row == VIEW_ROW_SCALAR)
    {
      char expr[192];
      g_snprintf (expr, sizeof expr, "static_cast<float>(%s.GetValue(r))", v->expr);
      view_scalar (out, expr);
    }
  else if (v->per_row == VIEW_ROW_VECTOR || v->scalar)
    {
      *out = *v;
      out->per_row = VIEW_WHOLE;
    }
  else
    {
      char expr[192];
      g_snprintf (expr, sizeof expr, "%s[r * ROW_STRIDE]", v->expr);
      view_tensor (out, expr);
    }
}

/* A view's layout for the row forms (fw-ascend-rows.c). */
static FwRowForm
row_form (const View *v)
{
  return v->per_row == VIEW_ROW_SCALAR ? FW_ROW_FORM_BCAST :
         v->per_row == VIEW_ROW_VECTOR ? FW_ROW_FORM_RESIDENT : FW_ROW_FORM_TILE;
}

/* dst = a OP b where a or b is per row: in the row forms a few instructions over many rows each; else one
 * instruction per row of the tile, with the row's scalar or the
 * resident row as the operand (rows start ROW_STRIDE apart, 32-byte aligned). */
static gboolean
emit_binary_rows (Gen *g, const char *op, const char *dst, const View *a, const View *b, const char *ctype,
                  GError **error)
{
  View ra, rb;
  char rdst[64];

  if (g->row_forms && !a->scalar && !b->scalar &&
      fw_ac_rows_binary (g, op, dst, row_form (a), a->expr, row_form (b), b->expr, ctype))
    return TRUE;
  if (a->per_row == VIEW_ROW_SCALAR || b->per_row == VIEW_ROW_SCALAR)
    {
      if ((a->per_row == VIEW_ROW_SCALAR && a->loaded) || (b->per_row == VIEW_ROW_SCALAR && b->loaded))
        emit (g, "      LoadToScalar();  /* per-row scalars read straight from the queue */\n");
      if ((a->per_row == VIEW_ROW_SCALAR && !a->loaded) || (b->per_row == VIEW_ROW_SCALAR && !b->loaded))
        emit (g, "      VectorToScalar();  /* per-row scalars computed by vector instructions */\n");
    }
  row_of (a, &ra);
  row_of (b, &rb);
  g_snprintf (rdst, sizeof rdst, "%s[r * ROW_STRIDE]", dst);
  emit (g, "      /* per row: %s */\n      for (uint32_t r = 0; r < rows; r++) {\n",
        a->per_row == VIEW_ROW_VECTOR || b->per_row == VIEW_ROW_VECTOR ? "the resident row operand" :
        "one scalar per row");
  if (!emit_binary (g, op, rdst, &ra, &rb, "static_cast<int32_t>(ROW_LEN)", ctype, error))
    return FALSE;
  emit (g, "      }\n");
  return TRUE;
}

/* dst = a OP b for OP in Add Sub Mul Div Max Min, with the scalar forms the API has. */
static gboolean
emit_binary (Gen *g, const char *op, const char *dst, const View *a, const View *b, const char *count,
             const char *ctype, GError **error)
{
  if (a->per_row != VIEW_WHOLE || b->per_row != VIEW_WHOLE)
    {
      if (a->per_row == VIEW_ROW_VECTOR && b->per_row == VIEW_ROW_VECTOR)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("Ascend target: %s of two broadcast rows"), op);
          return FALSE;
        }
      return emit_binary_rows (g, op, dst, a, b, ctype, error);
    }
  if (a->scalar && b->scalar)
    {
      const char *sym = strcmp (op, "Add") == 0 ? "+" : strcmp (op, "Sub") == 0 ? "-" : strcmp (op, "Mul") == 0 ? "*" :
                        strcmp (op, "Div") == 0 ? "/" : NULL;
      if (sym == NULL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("Ascend target: %s of two scalars"), op);
          return FALSE;
        }
      emit (g, "      AscendC::Duplicate(%s, static_cast<%s>((%s) %s (%s)), %s);\n", dst, ctype, a->expr, sym, b->expr,
            count);
      return TRUE;
    }
  if (!a->scalar && !b->scalar)
    {
      emit (g, "      AscendC::%s(%s, %s, %s, %s);\n", op, dst, a->expr, b->expr, count);
      return TRUE;
    }
  {
    const View *t = a->scalar ? b : a, *s = a->scalar ? a : b;
    gboolean scalar_first = a->scalar;

    if (strcmp (op, "Add") == 0 || strcmp (op, "Mul") == 0 || strcmp (op, "Max") == 0 || strcmp (op, "Min") == 0)
      emit (g, "      AscendC::%ss(%s, %s, static_cast<%s>(%s), %s);\n", op, dst, t->expr, ctype, s->expr, count);
    else if (strcmp (op, "Sub") == 0 && !scalar_first)
      emit (g, "      AscendC::Adds(%s, %s, static_cast<%s>(-(%s)), %s);\n", dst, t->expr, ctype, s->expr, count);
    else if (strcmp (op, "Sub") == 0)
      emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(-1.0f), %s);\n"
               "      AscendC::Adds(%s, %s, static_cast<%s>(%s), %s);\n",
            dst, t->expr, ctype, count, dst, dst, ctype, s->expr, count);
    else if (strcmp (op, "Div") == 0 && !scalar_first)
      emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(1.0f / (%s)), %s);\n", dst, t->expr, ctype, s->expr, count);
    else if (strcmp (op, "Div") == 0)
      emit (g, "      AscendC::Reciprocal(%s, %s, %s);\n"
               "      AscendC::Muls(%s, %s, static_cast<%s>(%s), %s);\n",
            dst, t->expr, count, dst, dst, ctype, s->expr, count);
    else
      {
        g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("Ascend target: no vector form of %s"), op);
        return FALSE;
      }
  }
  return TRUE;
}

/* Abramowitz and Stegun 7.1.26 (|error| < 1.5e-7): the vector unit has no Erf instruction.
 * erf(x) = sign(x) (1 − (a1 t + a2 t² + a3 t³ + a4 t⁴ + a5 t⁵) e^(−x²)), t = 1 / (1 + p|x|). Into s, over
 * count elements, with the three scratch tensors sA, sB, sC in scope. */
void
fw_ac_erf_statements (GString *s, const char *dst, const char *src, const char *ctype, const char *c)
{
  g_string_append (s, "      /* erf by Abramowitz-Stegun 7.1.26: no Erf instruction exists */\n");
  g_string_append_printf (s, "      AscendC::Abs(sA, %s, %s);\n", src, c);
  g_string_append_printf (s, "      AscendC::Muls(sB, sA, static_cast<%s>(0.3275911f), %s);\n", ctype, c);
  g_string_append_printf (s, "      AscendC::Adds(sB, sB, static_cast<%s>(1.0f), %s);\n", ctype, c);
  g_string_append_printf (s, "      AscendC::Reciprocal(sB, sB, %s);\n", c);
  g_string_append_printf (s, "      AscendC::Muls(sC, sB, static_cast<%s>(1.061405429f), %s);\n", ctype, c);
  g_string_append_printf (s, "      AscendC::Adds(sC, sC, static_cast<%s>(-1.453152027f), %s);\n", ctype, c);
  g_string_append_printf (s, "      AscendC::Mul(sC, sC, sB, %s);\n", c);
  g_string_append_printf (s, "      AscendC::Adds(sC, sC, static_cast<%s>(1.421413741f), %s);\n", ctype, c);
  g_string_append_printf (s, "      AscendC::Mul(sC, sC, sB, %s);\n", c);
  g_string_append_printf (s, "      AscendC::Adds(sC, sC, static_cast<%s>(-0.284496736f), %s);\n", ctype, c);
  g_string_append_printf (s, "      AscendC::Mul(sC, sC, sB, %s);\n", c);
  g_string_append_printf (s, "      AscendC::Adds(sC, sC, static_cast<%s>(0.254829592f), %s);\n", ctype, c);
  g_string_append_printf (s, "      AscendC::Mul(sC, sC, sB, %s);\n", c);
  g_string_append_printf (s, "      AscendC::Mul(sB, sA, sA, %s);\n", c);
  g_string_append_printf (s, "      AscendC::Muls(sB, sB, static_cast<%s>(-1.0f), %s);\n", ctype, c);
  g_string_append_printf (s, "      AscendC::Exp(sB, sB, %s);\n", c);
  g_string_append_printf (s, "      AscendC::Mul(sC, sC, sB, %s);\n", c);
  g_string_append_printf (s, "      AscendC::Muls(sC, sC, static_cast<%s>(-1.0f), %s);\n", ctype, c);
  g_string_append_printf (s, "      AscendC::Adds(sC, sC, static_cast<%s>(1.0f), %s);\n", ctype, c);
  /* sign(x) as x / (|x| + tiny): exact away from 0, and erf is 0 there anyway. */
  g_string_append_printf (s, "      AscendC::Adds(sA, sA, static_cast<%s>(1e-7f), %s);\n", ctype, c);
  g_string_append_printf (s, "      AscendC::Div(sA, %s, sA, %s);\n", src, c);
  g_string_append_printf (s, "      AscendC::Mul(%s, sC, sA, %s);\n", dst, c);
}

static void
emit_erf (Gen *g, const char *dst, const char *src, const char *ctype)
{
  use_scratch (g, 0, ctype);
  use_scratch (g, 1, ctype);
  use_scratch (g, 2, ctype);
  fw_ac_erf_statements (g->compute, dst, src, ctype, "n");
}

/* Sigmoid = 1 / (1 + e^(−x)) and tanh = 2 sigmoid(2x) − 1: no instruction for either; this form does not
 * overflow to inf/inf for large |x|. */
static void
emit_sigmoid (Gen *g, const char *dst, const char *src, const char *ctype, double scale)
{
  g_autofree char *lit = literal (-scale);

  emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(%s), n);\n", dst, src, ctype, lit);
  emit (g, "      AscendC::Exp(%s, %s, n);\n", dst, dst);
  emit (g, "      AscendC::Adds(%s, %s, static_cast<%s>(1.0f), n);\n", dst, dst, ctype);
  emit (g, "      AscendC::Reciprocal(%s, %s, n);\n", dst, dst);
}

static void
emit_row_reduce (Gen *g, const char *api, const char *dst, const char *src, const char *ctype)
{
  if (g->row_forms)
    {
      fw_ac_rows_reduce (g, api, dst, src, ctype, strcmp (ctype, "half") == 0 ? 2 : 4);
      return;
    }
  g->reduce = TRUE;
  emit (g, "      {\n");
  emit (g, "      AscendC::LocalTensor<%s> red0 = reduceBuf0.Get<%s>();\n", ctype, ctype);
  emit (g, "      AscendC::LocalTensor<%s> red1 = reduceBuf1.Get<%s>();\n", ctype, ctype);
  emit (g, "      for (uint32_t r = 0; r < rows; r++)\n"
           "        {\n"
           "          AscendC::%s(red0, %s[r * ROW_STRIDE], red1, static_cast<int32_t>(ROW_LEN));\n"
           "          VectorToScalar();\n"
           "          %s.SetValue(r, red0.GetValue(0));\n"
           "        }\n"
           "      ScalarToVector();\n"
           "      }\n",
        api, src, dst);
}

static const char *
unary_api (const char *op)
{
  static const char *const map[][2] = {
    { "Exp", "Exp" }, { "Log", "Ln" }, { "Abs", "Abs" }, { "Relu", "Relu" }, { "Sqrt", "Sqrt" },
    { "Reciprocal", "Reciprocal" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    if (strcmp (op, map[i][0]) == 0)
      return map[i][1];
  return NULL;
}

static const char *
compare_mode (const char *op, gboolean swapped)
{
  static const char *const map[][3] = {
    { "Equal", "EQ", "EQ" }, { "Less", "LT", "GT" }, { "Greater", "GT", "LT" }, { "LessOrEqual", "LE", "GE" },
    { "GreaterOrEqual", "GE", "LE" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    if (strcmp (op, map[i][0]) == 0)
      return map[i][swapped ? 2 : 1];
  return NULL;
}

/* The buffer that holds a mask and whether its bits are the negation of the value. */
static Operand *
mask_source (Operand *o, gboolean *invert)
{
  Operand *root = o->alias_of ? o->alias_of : o;

  *invert = (o->alias_of ? o->invert : FALSE) ^ root->invert;
  return root;
}

/* Comparisons, Not, casts to and from bool, and Where: Compare / CompareScalar write one bit per element,
 * Select reads them. Counts are whole 256-byte blocks (nMask), as both pages require; tile buffers are
 * rounded up to match, and the extra elements are never copied out. Returns FALSE with error unset when
 * the node is none of these. */
static gboolean
emit_mask_node (Gen *g, FwNode *node, Operand *out, Operand *ia, GError **error, gboolean *handled)
{
  const char *op = node->op_type;
  char dst[32];

  *handled = TRUE;
  g_snprintf (dst, sizeof dst, "v%u", out->id);
  if (out->alias_of != NULL)
    {
      emit (g, "      /* %s of a mask: no code, it reads v%u's bits%s */\n", op, out->alias_of->id,
            out->invert ? " inverted" : "");
      return TRUE;
    }
  if (compare_mode (op, FALSE) != NULL && out->mask)
    {
      Operand *ib = node->n_inputs == 2 && node->inputs[1] ? g_hash_table_lookup (g->operands, node->inputs[1]) : NULL;
      const char *ctype;
      View a, b;

      if (ia == NULL || ib == NULL || ia->mask || ib->mask)
        return FALSE;
      ctype = ia->kind != KIND_IMMEDIATE ? ia->ctype : ib->ctype;
      if (ctype == NULL || (strcmp (ctype, "int32_t") == 0 && strcmp (op, "Equal") != 0))
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                       _("Ascend target: %s on %s: Compare handles half and float, int32 only for equality"), op,
                       ctype ? ctype : "?");
          return FALSE;
        }
      if (!get_view (g, ia, FW_SHAPE_FULL, ctype, 0, &a, error) || !get_view (g, ib, FW_SHAPE_FULL, ctype, 1, &b, error))
        return FALSE;
      if (!a.scalar && !b.scalar)
        emit (g, "      AscendC::Compare(%s, %s, %s, AscendC::CMPMODE::%s, nMask);\n", dst, a.expr, b.expr,
              compare_mode (op, FALSE));
      else if (a.scalar != b.scalar)
        emit (g, "      AscendC::CompareScalar(%s, %s, static_cast<%s>(%s), AscendC::CMPMODE::%s, nMask);\n", dst,
              a.scalar ? b.expr : a.expr, ctype, a.scalar ? a.expr : b.expr, compare_mode (op, a.scalar));
      else
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("Ascend target: %s of two constants"), op);
          return FALSE;
        }
      return TRUE;
    }
  if (strcmp (op, "Cast") == 0 && out->mask && ia != NULL && !ia->mask)
    {
      View a;
      if (ia->kind == KIND_IMMEDIATE || !get_view (g, ia, FW_SHAPE_FULL, ia->ctype, 0, &a, error))
        return FALSE;
      if (fw_ac_is_float_ctype (ia->ctype))
        emit (g, "      AscendC::CompareScalar(%s, %s, static_cast<%s>(0.0f), AscendC::CMPMODE::NE, nMask);\n", dst,
              a.expr, ia->ctype);
      else
        {
          /* int32 compares for equality only: x != 0 is the inverse of x == 0. */
          emit (g, "      AscendC::CompareScalar(%s, %s, static_cast<int32_t>(0), AscendC::CMPMODE::EQ, nMask);"
                   "  /* bits are x == 0, read inverted */\n", dst, a.expr);
          out->invert = TRUE;
        }
      return TRUE;
    }
  if (strcmp (op, "Cast") == 0 && ia != NULL && ia->mask && !out->mask)
    {
      gboolean inv;
      Operand *m = mask_source (ia, &inv);
      if (!fw_ac_is_float_ctype (out->ctype))
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                       _("Ascend target: Cast from bool to %s: Select handles half and float"), out->ctype);
          return FALSE;
        }
      emit (g, "      AscendC::Duplicate(%s, static_cast<%s>(%s), static_cast<int32_t>(nMask));\n", dst, out->ctype,
            inv ? "0.0f" : "1.0f");
      emit (g, "      AscendC::Select(%s, v%u, %s, static_cast<%s>(%s), AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, nMask);\n",
            dst, m->id, dst, out->ctype, inv ? "1.0f" : "0.0f");
      return TRUE;
    }
  if (strcmp (op, "Where") == 0)
    {
      Operand *ix = node->n_inputs == 3 && node->inputs[1] ? g_hash_table_lookup (g->operands, node->inputs[1]) : NULL;
      Operand *iy = node->n_inputs == 3 && node->inputs[2] ? g_hash_table_lookup (g->operands, node->inputs[2]) : NULL;
      const char *ctype = out->ctype;
      gboolean inv;
      Operand *m;
      View x, y;
      const View *s0, *s1;

      if (ia == NULL || !ia->mask || ix == NULL || iy == NULL || ix->mask || iy->mask)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                       _("Ascend target: Where needs a condition computed in the kernel and non-bool values"));
          return FALSE;
        }
      if (!fw_ac_is_float_ctype (ctype) || out->role != FW_SHAPE_FULL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                       _("Ascend target: Where on %s over %s: Select handles half and float tiles"), ctype,
                       out->role == FW_SHAPE_FULL ? _("the tile") : _("reduced rows"));
          return FALSE;
        }
      if (!get_view (g, ix, FW_SHAPE_FULL, ctype, 0, &x, error) || !get_view (g, iy, FW_SHAPE_FULL, ctype, 1, &y, error))
        return FALSE;
      m = mask_source (ia, &inv);
      /* Select takes src0 where the bit is 1: swap the values when the bits are inverted. */
      s0 = inv ? &y : &x;
      s1 = inv ? &x : &y;
      if (!s0->scalar && !s1->scalar)
        emit (g, "      AscendC::Select(%s, v%u, %s, %s, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, nMask);\n", dst,
              m->id, s0->expr, s1->expr);
      else if (!s0->scalar)
        emit (g, "      AscendC::Select(%s, v%u, %s, static_cast<%s>(%s), AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, nMask);\n",
              dst, m->id, s0->expr, ctype, s1->expr);
      else if (!s1->scalar)
        {
          /* Only src1 may be a scalar: fill src0's constant into scratch. */
          use_scratch (g, 2, ctype);
          emit (g, "      AscendC::Duplicate(sC, static_cast<%s>(%s), static_cast<int32_t>(nMask));\n", ctype, s0->expr);
          emit (g, "      AscendC::Select(%s, v%u, sC, %s, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, nMask);\n", dst, m->id,
                s1->expr);
        }
      else
        {
          emit (g, "      AscendC::Duplicate(%s, static_cast<%s>(%s), static_cast<int32_t>(nMask));\n", dst, ctype, s0->expr);
          emit (g, "      AscendC::Select(%s, v%u, %s, static_cast<%s>(%s), AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, nMask);\n",
                dst, m->id, dst, ctype, s1->expr);
        }
      return TRUE;
    }
  *handled = FALSE;
  return FALSE;
}

/* LayerNormalization normalises from `axis` on: those axes must be exactly the planner's row. */
static gboolean
layer_norm_rows_match (Gen *g, const FwNode *node)
{
  const FwValue *x = node->inputs[0];
  gint64 axis = fw_node_get_attr_int (node, "axis", -1);
  gint64 prod = 1;

  if (x == NULL || x->rank <= 0)
    return FALSE;
  if (axis < 0)
    axis += x->rank;
  if (axis < 0 || axis >= x->rank)
    return FALSE;
  for (gint i = (gint) axis; i < x->rank; i++)
    prod *= x->dims[i].value;
  return prod == g->row_len;
}

/* How a family of operators turned out for one node. */
typedef enum {
  LOWERED,      /* its statements are written */
  LOWER_FAILED, /* error is set */
  NO_LOWERING,  /* the family's operator, but not in a form the target lowers: the caller says so */
  NOT_THIS,     /* another family's operator */
} Lowered;

/* What the lowering of one node reads: its result, its first two operands, and once taken the view of the
 * first one as the result reads it. */
typedef struct
{
  Gen        *g;
  FwNode     *node;
  const char *op;
  Operand    *out, *ia, *ib;
  const char *ctype;
  gboolean    row_out;  /* the result holds one value per row */
  const char *count;    /* the element count the result's instructions take */
  gboolean    wide;     /* a float16 result computed in float32 (fw_ac_computes_wide) */
  char        dst[32];
  View        a;
} NodeLowering;

typedef Lowered (*LowerFamily) (const NodeLowering *x, GError **error);

/* Elementwise operators with an instruction or a short form: the unary APIs, Neg, the copies and Pow. */
static Lowered
lower_unary (const NodeLowering *x, GError **error)
{
  Gen *g = x->g;
  const char *op = x->op, *ctype = x->ctype, *count = x->count, *dst = x->dst;
  Operand *out = x->out, *ia = x->ia, *ib = x->ib;
  const View a = x->a;
  View b = { 0 };

  if (unary_api (op) != NULL)
    {
      emit (g, "      AscendC::%s(%s, %s, %s);\n", unary_api (op), dst, a.expr, count);
      return LOWERED;
    }
  if (strcmp (op, "Neg") == 0)
    {
      emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(-1.0f), %s);\n", dst, a.expr, ctype, count);
      return LOWERED;
    }
  if (strcmp (op, "Identity") == 0 || strcmp (op, "Dropout") == 0 || strcmp (op, "Reshape") == 0 ||
      strcmp (op, "Flatten") == 0 || strcmp (op, "Squeeze") == 0 || strcmp (op, "Unsqueeze") == 0)
    {
      if (ia->role != out->role)
        return NO_LOWERING;
      emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(1.0f), %s);  /* a copy: same elements, same order */\n",
            dst, a.expr, ctype, count);
      return LOWERED;
    }
  if (strcmp (op, "Pow") == 0)
    {
      if (ib == NULL || !get_view (g, ib, out->role, ctype, 1, &b, error))
        return LOWER_FAILED;
      if (ib->kind == KIND_IMMEDIATE && ib->imm == 2.0)
        emit (g, "      AscendC::Mul(%s, %s, %s, %s);\n", dst, a.expr, a.expr, count);
      else if (ib->kind == KIND_IMMEDIATE && ib->imm == 0.5)
        emit (g, "      AscendC::Sqrt(%s, %s, %s);\n", dst, a.expr, count);
      else if (ib->kind == KIND_IMMEDIATE && ib->imm == 1.0)
        emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(1.0f), %s);\n", dst, a.expr, ctype, count);
      else if (ib->kind == KIND_IMMEDIATE && ib->imm == 3.0)
        emit (g, "      AscendC::Mul(%s, %s, %s, %s);\n      AscendC::Mul(%s, %s, %s, %s);\n", dst, a.expr, a.expr,
              count, dst, dst, a.expr, count);
      else if (ib->kind == KIND_IMMEDIATE && ib->imm == -1.0)
        emit (g, "      AscendC::Reciprocal(%s, %s, %s);\n", dst, a.expr, count);
      else if (x->wide)
        {
          /* In float32 for a float16 x: a half ln x would carry its rounding, times y, into the exponent. */
          emit (g, "      /* x^y = exp(y ln x), valid for x > 0: no vector Pow instruction; float32 for half x */\n");
          use_scratch (g, 3, "float");
          emit_widen (g, "sD", a.expr, count);
          emit (g, "      AscendC::Ln(sD, sD, %s);\n", count);
          if (b.scalar)
            emit (g, "      AscendC::Muls(sD, sD, static_cast<float>(%s), %s);\n", b.expr, count);
          else
            {
              use_scratch (g, 4, "float");
              emit_widen (g, "sE", b.expr, count);
              emit (g, "      AscendC::Mul(sD, sD, sE, %s);\n", count);
            }
          emit (g, "      AscendC::Exp(sD, sD, %s);\n", count);
          emit_narrow (g, dst, "sD", count);
        }
      else
        {
          /* x^y = e^(y ln x): no Pow instruction; defined for x > 0 only, as the comment in the README says. */
          emit (g, "      /* x^y = exp(y ln x), valid for x > 0: no vector Pow instruction */\n");
          emit (g, "      AscendC::Ln(%s, %s, %s);\n", dst, a.expr, count);
          if (b.scalar)
            emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(%s), %s);\n", dst, dst, ctype, b.expr, count);
          else
            emit (g, "      AscendC::Mul(%s, %s, %s, %s);\n", dst, dst, b.expr, count);
          emit (g, "      AscendC::Exp(%s, %s, %s);\n", dst, dst, count);
        }
      return LOWERED;
    }
  return NOT_THIS;
}

/* Activations composed from other instructions: Sigmoid, Tanh, Erf, Gelu, LeakyRelu, Clip, HardSigmoid
 * and HardSwish. */
static Lowered
lower_activation (const NodeLowering *x, GError **error)
{
  Gen *g = x->g;
  FwNode *node = x->node;
  const char *op = x->op, *count = x->count;
  const char *ctype = x->wide ? "float" : x->ctype;
  /* A float16 result: the chain runs on the input widened into sD, its result in sE, rounded once. */
  const char *dst = x->wide ? "sE" : x->dst, *src = x->wide ? "sD" : x->a.expr;
  const View a = x->a;

  if (x->wide && (strcmp (op, "Sigmoid") == 0 || strcmp (op, "Tanh") == 0 || strcmp (op, "Erf") == 0 ||
                  strcmp (op, "Gelu") == 0))
    {
      const char *approx = fw_node_get_attr_string (node, "approximate");
      if (strcmp (op, "Gelu") == 0 && approx != NULL && strcmp (approx, "none") != 0)
        return NO_LOWERING;
      emit (g, "      /* %s of a float16 value in float32: one rounding to half at the end */\n", op);
      use_scratch (g, 3, "float");
      use_scratch (g, 4, "float");
      emit_widen (g, "sD", a.expr, "n");
    }
  if (strcmp (op, "Sigmoid") == 0)
    {
      emit (g, "      /* sigmoid = 1 / (1 + exp(-x)): no Sigmoid instruction */\n");
      emit_sigmoid (g, dst, src, ctype, 1.0);
    }
  else if (strcmp (op, "Tanh") == 0)
    {
      emit (g, "      /* tanh = 2 sigmoid(2x) - 1: no Tanh instruction */\n");
      emit_sigmoid (g, dst, src, ctype, 2.0);
      emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(2.0f), n);\n", dst, dst, ctype);
      emit (g, "      AscendC::Adds(%s, %s, static_cast<%s>(-1.0f), n);\n", dst, dst, ctype);
    }
  else if (strcmp (op, "Erf") == 0)
    emit_erf (g, dst, src, ctype);
  else if (strcmp (op, "Gelu") == 0)
    {
      const char *approx = fw_node_get_attr_string (node, "approximate");
      if (approx != NULL && strcmp (approx, "none") != 0)
        return NO_LOWERING;
      emit (g, "      /* gelu = x (1 + erf(x / sqrt 2)) / 2, erf composed below */\n");
      /* erf reads its argument from dst and writes back there: it needs all three scratch buffers. */
      emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(0.70710678f), n);\n", dst, src, ctype);
      emit_erf (g, dst, dst, ctype);
      emit (g, "      AscendC::Adds(%s, %s, static_cast<%s>(1.0f), n);\n", dst, dst, ctype);
      emit (g, "      AscendC::Mul(%s, %s, %s, n);\n", dst, dst, src);
      emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(0.5f), n);\n", dst, dst, ctype);
    }
  if (strcmp (op, "Sigmoid") == 0 || strcmp (op, "Tanh") == 0 || strcmp (op, "Erf") == 0 || strcmp (op, "Gelu") == 0)
    {
      if (x->wide)
        emit_narrow (g, x->dst, dst, "n");
      return LOWERED;
    }
  ctype = x->ctype;
  dst = x->dst;
  if (strcmp (op, "LeakyRelu") == 0)
    {
      g_autofree char *alpha = literal (fw_node_get_attr_float (node, "alpha", 0.01f));
      use_scratch (g, 1, ctype);
      emit (g, "      /* leaky relu = max(x, 0) + alpha min(x, 0) */\n");
      emit (g, "      AscendC::Maxs(sB, %s, static_cast<%s>(0.0f), n);\n", a.expr, ctype);
      emit (g, "      AscendC::Mins(%s, %s, static_cast<%s>(0.0f), n);\n", dst, a.expr, ctype);
      emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(%s), n);\n", dst, dst, ctype, alpha);
      emit (g, "      AscendC::Add(%s, %s, sB, n);\n", dst, dst);
      return LOWERED;
    }
  if (strcmp (op, "Clip") == 0)
    {
      Operand *lo = node->n_inputs > 1 && node->inputs[1] ? g_hash_table_lookup (g->operands, node->inputs[1]) : NULL;
      Operand *hi = node->n_inputs > 2 && node->inputs[2] ? g_hash_table_lookup (g->operands, node->inputs[2]) : NULL;
      g_autofree char *lo_lit = NULL, *hi_lit = NULL;
      if ((lo && lo->kind != KIND_IMMEDIATE) || (hi && hi->kind != KIND_IMMEDIATE))
        return NO_LOWERING;
      lo_lit = literal (lo ? lo->imm : fw_node_get_attr_float (node, "min", -INFINITY));
      hi_lit = literal (hi ? hi->imm : fw_node_get_attr_float (node, "max", INFINITY));
      emit (g, "      AscendC::Maxs(%s, %s, static_cast<%s>(%s), %s);\n", dst, a.expr, ctype, lo_lit, count);
      emit (g, "      AscendC::Mins(%s, %s, static_cast<%s>(%s), %s);\n", dst, dst, ctype, hi_lit, count);
      return LOWERED;
    }
  if (strcmp (op, "HardSigmoid") == 0 || strcmp (op, "HardSwish") == 0)
    {
      gboolean swish = strcmp (op, "HardSwish") == 0;
      g_autofree char *alpha = literal (swish ? 1.0 / 6.0 : fw_node_get_attr_float (node, "alpha", 0.2f));
      g_autofree char *beta = literal (swish ? 0.5 : fw_node_get_attr_float (node, "beta", 0.5f));
      emit (g, "      /* hard sigmoid = min(max(alpha x + beta, 0), 1)%s: no instruction for it */\n",
            swish ? "; hard swish = x hard sigmoid(x)" : "");
      emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(%s), %s);\n", dst, a.expr, ctype, alpha, count);
      emit (g, "      AscendC::Adds(%s, %s, static_cast<%s>(%s), %s);\n", dst, dst, ctype, beta, count);
      emit (g, "      AscendC::Maxs(%s, %s, static_cast<%s>(0.0f), %s);\n", dst, dst, ctype, count);
      emit (g, "      AscendC::Mins(%s, %s, static_cast<%s>(1.0f), %s);\n", dst, dst, ctype, count);
      if (swish)
        emit (g, "      AscendC::Mul(%s, %s, %s, %s);\n", dst, dst, a.expr, count);
      return LOWERED;
    }
  return NOT_THIS;
}

/* Inference BatchNormalization over the tile. */
static Lowered
lower_batch_norm (const NodeLowering *x, GError **error)
{
  Gen *g = x->g;
  FwNode *node = x->node;
  const char *op = x->op, *ctype = x->ctype, *dst = x->dst;
  gboolean row_out = x->row_out;
  const View a = x->a;

  if (strcmp (op, "BatchNormalization") == 0 && node->n_inputs == 5 && !row_out)
    {
      View scale, bias, mean, var, eps;
      g_autofree char *eps_lit = literal (fw_node_get_attr_float (node, "epsilon", 1e-5f));
      Operand *ops[4];
      for (guint k = 0; k < 4; k++)
        {
          ops[k] = node->inputs[k + 1] ? g_hash_table_lookup (g->operands, node->inputs[k + 1]) : NULL;
          if (ops[k] == NULL)
            return NO_LOWERING;
        }
      if (!get_view (g, ops[0], FW_SHAPE_FULL, ctype, 0, &scale, error) ||
          !get_view (g, ops[1], FW_SHAPE_FULL, ctype, 0, &bias, error) ||
          !get_view (g, ops[2], FW_SHAPE_FULL, ctype, 0, &mean, error) ||
          !get_view (g, ops[3], FW_SHAPE_FULL, ctype, 0, &var, error))
        return LOWER_FAILED;
      view_scalar (&eps, eps_lit);
      emit (g, "      /* inference batch norm: (x - mean) / sqrt(var + eps) * scale + bias */\n");
      use_scratch (g, 1, ctype);
      {
        View d, sb;
        view_tensor (&d, dst);
        view_tensor (&sb, "sB");
        if (!emit_binary (g, "Sub", dst, &a, &mean, "n", ctype, error) ||
            !emit_binary (g, "Add", "sB", &var, &eps, "n", ctype, error))
          return LOWER_FAILED;
        emit (g, "      AscendC::Sqrt(sB, sB, n);\n");
        if (!emit_binary (g, "Div", dst, &d, &sb, "n", ctype, error) ||
            !emit_binary (g, "Mul", dst, &d, &scale, "n", ctype, error) ||
            !emit_binary (g, "Add", dst, &d, &bias, "n", ctype, error))
          return LOWER_FAILED;
      }
      return LOWERED;
    }
  return NOT_THIS;
}

/* One value per row of x's input: a sum (divided by the row for a mean) or an extreme. A float16 sum widens
 * the tile into sD and sums in float32 into the row scratch, rounding once into the half result; the half
 * extremes are exact and stay half. */
static void
emit_reduce_rows (const NodeLowering *x, const char *api, gboolean mean)
{
  Gen *g = x->g;
  g_autofree char *inv = literal (1.0 / (double) g->row_len);
  const char *ctype = x->wide ? "float" : x->ctype, *dst = x->wide ? "sR" : x->dst;

  if (x->wide)
    {
      emit (g, "      /* a float16 sum accumulates in float32 */\n");
      use_scratch (g, 3, "float");
      g->row_scratch = TRUE;
      emit (g, "      AscendC::LocalTensor<float> sR = rowScratch.Get<float>();\n");
      emit_widen (g, "sD", x->a.expr, "n");
    }
  emit_row_reduce (g, api, dst, x->wide ? "sD" : x->a.expr, ctype);
  if (mean)
    emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(%s), rowsN);\n", dst, dst, ctype, inv);
  if (x->wide)
    emit_narrow (g, x->dst, "sR", "rowsN");
}

/* Row reductions: one value per row of the tile. */
static Lowered
lower_reduce (const NodeLowering *x, GError **error)
{
  const char *op = x->op;
  Operand *ia = x->ia;
  gboolean row_out = x->row_out;

  if (g_str_has_prefix (op, "Reduce") && row_out && ia->role == FW_SHAPE_FULL &&
      (strcmp (op, "ReduceSum") == 0 || strcmp (op, "ReduceMean") == 0 || strcmp (op, "ReduceMax") == 0 ||
       strcmp (op, "ReduceMin") == 0))
    {
      const char *api = strcmp (op, "ReduceMax") == 0 ? "ReduceMax" : strcmp (op, "ReduceMin") == 0 ? "ReduceMin" :
                        "ReduceSum";
      emit_reduce_rows (x, api, strcmp (op, "ReduceMean") == 0);
      return LOWERED;
    }
  if ((strcmp (op, "GlobalAveragePool") == 0 || strcmp (op, "GlobalMaxPool") == 0) && row_out &&
      ia->role == FW_SHAPE_FULL)
    {
      /* The planner makes the spatial axes the row: one value per (n, c). */
      gboolean avg = strcmp (op, "GlobalAveragePool") == 0;
      emit_reduce_rows (x, avg ? "ReduceSum" : "ReduceMax", avg);
      return LOWERED;
    }
  return NOT_THIS;
}

/* dst's rows = src's rows minus (sub) or divided by (else) the row's value in sR. The row forms broadcast sR
 * with Brcb (a reciprocal first for the division); else one scalar instruction per row, after the vector
 * pipe where sR was last written by a vector instruction (wait_vector). */
static void
emit_rows_scalar (Gen *g, gboolean sub, const char *dst, const char *src, gboolean wait_vector, const char *ctype)
{
  if (g->row_forms)
    {
      if (!sub)
        emit (g, "      AscendC::Reciprocal(sR, sR, rowsN);\n");
      fw_ac_rows_binary (g, sub ? "Sub" : "Mul", dst, FW_ROW_FORM_TILE, src, FW_ROW_FORM_BCAST, "sR", ctype);
      return;
    }
  emit (g, "%s      for (uint32_t r = 0; r < rows; r++)\n", wait_vector ? "      VectorToScalar();\n" : "");
  if (sub)
    emit (g, "        AscendC::Adds(%s[r * ROW_STRIDE], %s[r * ROW_STRIDE], static_cast<%s>(-static_cast<float>(sR.GetValue(r))), static_cast<int32_t>(ROW_LEN));\n",
          dst, src, ctype);
  else
    emit (g, "        AscendC::Muls(%s[r * ROW_STRIDE], %s[r * ROW_STRIDE], static_cast<%s>(1.0f / static_cast<float>(sR.GetValue(r))), static_cast<int32_t>(ROW_LEN));\n",
          dst, src, ctype);
}

/* Whether a half operand view has a float32 form for widen_view: not the per-row scalars. */
static gboolean
widens (const View *v)
{
  return v->scalar || v->per_row != VIEW_ROW_SCALAR;
}

/* The view in float32: a resident row cast into the first row of scratch s (read with a repeat stride of 0
 * as before), a tile widened into it; a scalar expression is already float. */
static void
widen_view (Gen *g, View *v, guint s)
{
  if (v->scalar)
    return;
  use_scratch (g, s, "float");
  if (v->per_row == VIEW_ROW_VECTOR)
    emit (g, "      AscendC::Cast(%s, %s, AscendC::RoundMode::CAST_NONE, static_cast<uint32_t>(ROW_LEN));  /* the resident row */\n",
          scratch_names[s], v->expr);
  else
    emit_widen (g, scratch_names[s], v->expr, "n");
  g_strlcpy (v->expr, scratch_names[s], sizeof v->expr);
}

/* LayerNormalization, LogSoftmax and Softmax over whole rows. */
static Lowered
lower_row_norm (const NodeLowering *x, GError **error)
{
  Gen *g = x->g;
  FwNode *node = x->node;
  const char *op = x->op, *ctype = x->ctype, *dst = x->dst;
  Operand *ia = x->ia, *ib = x->ib;
  gboolean row_out = x->row_out;
  const View a = x->a;
  /* A float16 row: widened into sD, normalised there in float32 (row scratch float too), rounded once. */
  const char *ct = x->wide ? "float" : ctype, *work = x->wide ? "sD" : dst, *src = x->wide ? "sD" : a.expr;

  if ((strcmp (op, "LayerNormalization") == 0 || strcmp (op, "LogSoftmax") == 0 || strcmp (op, "Softmax") == 0) &&
      x->wide && g->rows_mode && !row_out && ia->role == FW_SHAPE_FULL)
    {
      emit (g, "      /* %s of float16 rows in float32 */\n", op);
      use_scratch (g, 3, "float");
    }
  if (strcmp (op, "LayerNormalization") == 0 && g->rows_mode && !row_out && ia->role == FW_SHAPE_FULL &&
      layer_norm_rows_match (g, node))
    {
      g_autofree char *inv = literal (1.0 / (double) g->row_len);
      g_autofree char *eps = literal (fw_node_get_attr_float (node, "epsilon", 1e-5f));
      Operand *iscale = ib;
      Operand *ibias = node->n_inputs > 2 && node->inputs[2] ? g_hash_table_lookup (g->operands, node->inputs[2]) : NULL;
      View scale, bias, d;

      if (iscale == NULL || !get_binary_view (g, iscale, FW_SHAPE_FULL, ctype, 1, &scale, error) ||
          (ibias != NULL && !get_binary_view (g, ibias, FW_SHAPE_FULL, ctype, 2, &bias, error)))
        return LOWER_FAILED;
      g->row_scratch = TRUE;
      use_scratch (g, 0, ct);
      emit (g, "      /* layer norm over the row: (x - mean) / sqrt(mean((x - mean)^2) + eps) * scale + bias */\n");
      emit (g, "      AscendC::LocalTensor<%s> sR = rowScratch.Get<%s>();\n", ct, ct);
      if (x->wide)
        emit_widen (g, "sD", a.expr, "n");
      emit_row_reduce (g, "ReduceSum", "sR", src, ct);
      emit (g, "      AscendC::Muls(sR, sR, static_cast<%s>(%s), rowsN);\n", ct, inv);
      emit_rows_scalar (g, TRUE, work, src, TRUE, ct);
      emit (g, "      AscendC::Mul(sA, %s, %s, n);\n", work, work);
      emit_row_reduce (g, "ReduceSum", "sR", "sA", ct);
      emit (g, "      AscendC::Muls(sR, sR, static_cast<%s>(%s), rowsN);\n", ct, inv);
      emit (g, "      AscendC::Adds(sR, sR, static_cast<%s>(%s), rowsN);\n", ct, eps);
      emit (g, "      AscendC::Sqrt(sR, sR, rowsN);\n");
      emit_rows_scalar (g, FALSE, work, work, TRUE, ct);
      if (x->wide && widens (&scale) && (ibias == NULL || widens (&bias)))
        {
          /* The scale and bias in float32 too: one rounding, at the result. */
          widen_view (g, &scale, 1);
          if (ibias != NULL)
            widen_view (g, &bias, 2);
          view_tensor (&d, work);
          if (!emit_binary (g, "Mul", work, &d, &scale, "n", ct, error) ||
              (ibias != NULL && !emit_binary (g, "Add", work, &d, &bias, "n", ct, error)))
            return LOWER_FAILED;
          emit_narrow (g, dst, work, "n");
          return LOWERED;
        }
      /* Per-row scale or bias values: applied in half after the rounding. */
      if (x->wide)
        emit_narrow (g, dst, work, "n");
      view_tensor (&d, dst);
      if (!emit_binary (g, "Mul", dst, &d, &scale, "n", ctype, error) ||
          (ibias != NULL && !emit_binary (g, "Add", dst, &d, &bias, "n", ctype, error)))
        return LOWER_FAILED;
      return LOWERED;
    }
  if (strcmp (op, "LogSoftmax") == 0 && g->rows_mode && !row_out && ia->role == FW_SHAPE_FULL)
    {
      g->row_scratch = TRUE;
      use_scratch (g, 0, ct);
      emit (g, "      /* log softmax over the row: (x - max) - ln(sum(exp(x - max))), with row reductions */\n");
      emit (g, "      AscendC::LocalTensor<%s> sR = rowScratch.Get<%s>();\n", ct, ct);
      if (x->wide)
        emit_widen (g, "sD", a.expr, "n");
      emit_row_reduce (g, "ReduceMax", "sR", src, ct);
      emit_rows_scalar (g, TRUE, work, src, FALSE, ct);
      emit (g, "      AscendC::Exp(sA, %s, n);\n", work);
      emit_row_reduce (g, "ReduceSum", "sR", "sA", ct);
      emit (g, "      AscendC::Ln(sR, sR, rowsN);\n");
      emit_rows_scalar (g, TRUE, work, work, TRUE, ct);
      if (x->wide)
        emit_narrow (g, dst, work, "n");
      return LOWERED;
    }
  if (strcmp (op, "Softmax") == 0 && g->rows_mode && !row_out && ia->role == FW_SHAPE_FULL)
    {
      g->row_scratch = TRUE;
      emit (g, "      /* softmax over the row: exp(x - max) / sum, with row reductions */\n");
      emit (g, "      AscendC::LocalTensor<%s> sR = rowScratch.Get<%s>();\n", ct, ct);
      if (x->wide)
        emit_widen (g, "sD", a.expr, "n");
      emit_row_reduce (g, "ReduceMax", "sR", src, ct);
      emit_rows_scalar (g, TRUE, work, src, FALSE, ct);
      emit (g, "      AscendC::Exp(%s, %s, n);\n", work, work);
      emit_row_reduce (g, "ReduceSum", "sR", work, ct);
      emit_rows_scalar (g, FALSE, work, work, FALSE, ct);
      if (x->wide)
        emit_narrow (g, dst, work, "n");
      return LOWERED;
    }
  return NOT_THIS;
}

/* Comparisons, casts to and from bool, Not and Where: see emit_mask_node. */
static Lowered
lower_mask (const NodeLowering *x, GError **error)
{
  gboolean handled = FALSE;

  if (!(x->out->mask || (x->ia != NULL && x->ia->mask) || strcmp (x->op, "Where") == 0))
    return NOT_THIS;
  if (emit_mask_node (x->g, x->node, x->out, x->ia, error, &handled))
    return LOWERED;
  if (handled && error != NULL && *error != NULL)
    return LOWER_FAILED;
  return NO_LOWERING;
}

static Lowered
lower_cast (const NodeLowering *x, GError **error)
{
  Gen *g = x->g;
  const char *ctype = x->ctype, *count = x->count, *dst = x->dst;
  Operand *out = x->out, *ia = x->ia;
  const char *mode;

  if (strcmp (x->op, "Cast") != 0)
    return NOT_THIS;
  if (ia == NULL || ia->kind == KIND_IMMEDIATE || ia->kind == KIND_SMALL || ia->role != out->role)
    return NO_LOWERING;
  if (strcmp (ia->ctype, ctype) == 0)
    emit (g, "      AscendC::Muls(%s, v%u, static_cast<%s>(1), %s);\n", dst, ia->id, ctype, count);
  else if (strcmp (ia->ctype, "int32_t") == 0 && strcmp (ctype, "half") == 0)
    {
      /* Cast.md (Atlas A2 table): int32 -> half ignores the round mode and scales by SetDeqScale (a dequantise,
       * not a conversion); int32 -> float (CAST_NONE: round to nearest even where precision is lost) and
       * float -> half (CAST_RINT) convert as ONNX's Cast does. */
      use_scratch (g, 3, "float");
      emit (g, "      AscendC::Cast(sD, v%u, AscendC::RoundMode::CAST_NONE, static_cast<uint32_t>(%s));\n", ia->id, count);
      emit_narrow (g, dst, "sD", count);
    }
  else
    {
      /* Cast.md's round modes as ONNX's Cast rounds: float to integer truncates (CAST_TRUNC), float -> half to
       * nearest even (CAST_RINT); half -> float is exact, its one mode CAST_NONE. */
      if (fw_ac_is_float_ctype (ia->ctype) && !fw_ac_is_float_ctype (ctype))
        mode = "CAST_TRUNC";
      else if (strcmp (ia->ctype, "float") == 0 && strcmp (ctype, "half") == 0)
        mode = "CAST_RINT";
      else
        mode = "CAST_NONE";
      emit (g, "      AscendC::Cast(%s, v%u, AscendC::RoundMode::%s, static_cast<uint32_t>(%s));\n", dst, ia->id,
            mode, count);
    }
  return LOWERED;
}

/* Add, Sub, Mul, Div, Max and Min, through the views that apply per-row operands row by row. */
static Lowered
lower_binary (const NodeLowering *x, GError **error)
{
  Gen *g = x->g;
  FwNode *node = x->node;
  const char *op = x->op, *ctype = x->ctype, *count = x->count, *dst = x->dst;
  Operand *out = x->out, *ia = x->ia, *ib = x->ib;
  View a = { 0 }, b = { 0 };

  if (!(strcmp (op, "Add") == 0 || strcmp (op, "Sub") == 0 || strcmp (op, "Mul") == 0 || strcmp (op, "Div") == 0 ||
        strcmp (op, "Max") == 0 || strcmp (op, "Min") == 0))
    return NOT_THIS;
  if (ia == NULL || !get_binary_view (g, ia, out->role, ctype, 0, &a, error))
    return LOWER_FAILED;
  if (ib == NULL || node->n_inputs != 2 || !get_binary_view (g, ib, out->role, ctype, 1, &b, error))
    {
      if (ib == NULL)
        g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("Ascend target: %s with %u inputs"), op, node->n_inputs);
      return LOWER_FAILED;
    }
  if (!emit_binary (g, op, dst, &a, &b, count, ctype, error))
    return LOWER_FAILED;
  return LOWERED;
}

/* The node's statements in a block of their own. The mask, Cast and binary families take their operands as
 * they need them; the rest read input 0 through one view taken here. */
gboolean
fw_ac_emit_node (Gen *g, guint pos, FwNode *node, GError **error)
{
  static const LowerFamily families[] = {
    lower_unary, lower_activation, lower_batch_norm, lower_reduce, lower_row_norm,
  };
  const char *op = node->op_type;
  NodeLowering x = { 0 };
  Lowered r;
  g_autofree char *label = fw_ascend_escape_comment (fw_ac_node_label (node));

  x.g = g;
  x.node = node;
  x.op = op;
  x.out = g_hash_table_lookup (g->operands, node->outputs[0]);
  x.ctype = x.out->ctype;
  x.row_out = x.out->role == FW_SHAPE_ROW;
  x.count = x.row_out ? "rowsN" : "n";
  x.wide = fw_ac_computes_wide (node);
  g_snprintf (x.dst, sizeof x.dst, "v%u", x.out->id);
  if (node->domain[0] != '\0')
    goto unsupported;
  if (node->n_inputs >= 1 && node->inputs[0])
    x.ia = g_hash_table_lookup (g->operands, node->inputs[0]);
  if (node->n_inputs >= 2 && node->inputs[1])
    x.ib = g_hash_table_lookup (g->operands, node->inputs[1]);
  emit (g, "    /* node %u: %s \"%s\" */\n    {\n", pos, op, label);
  r = lower_mask (&x, error);
  if (r == NOT_THIS)
    r = lower_cast (&x, error);
  if (r == NOT_THIS && !fw_ac_is_float_ctype (x.ctype))
    r = NO_LOWERING;
  if (r == NOT_THIS)
    r = lower_binary (&x, error);
  if (r == NOT_THIS)
    {
      /* A row reduction reads the full tile and writes one value per row. */
      if (x.ia != NULL && !get_view (g, x.ia, g_str_has_prefix (op, "Reduce") || g_str_has_prefix (op, "Global") ?
                                                  FW_SHAPE_FULL : x.out->role, x.ctype, 0, &x.a, error))
        return FALSE;
      if (x.a.scalar)
        r = NO_LOWERING;
      for (guint i = 0; r == NOT_THIS && i < G_N_ELEMENTS (families); i++)
        r = families[i] (&x, error);
    }
  if (r == LOWERED)
    {
      emit (g, "    }\n");
      return TRUE;
    }
  if (r == LOWER_FAILED)
    return FALSE;

unsupported:
  g_clear_error (error);
  g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
               _("Ascend target: no Ascend C lowering for %s%s%s here (node %u of the group)"),
               node->domain[0] ? node->domain : "", node->domain[0] ? "::" : "", op, pos);
  return FALSE;
}
