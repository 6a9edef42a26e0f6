/* fw-custom-expr.c: parsing, evaluating and printing a custom operator's host expression.
 *
 * A recursive-descent parser with C's precedence (?:, ||, &&, == !=, < <= > >=, + -, * /, unary - + !),
 * capped in depth so hostile files cannot exhaust the stack. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "ops/fw-custom-expr.h"
#include "yaml/fw-yaml.h"

#define MAX_DEPTH 64

typedef enum {
  EX_NUMBER,
  EX_INPUT,
  EX_NEG,
  EX_NOT,
  EX_BINARY,
  EX_SELECT,
  EX_CALL,
} ExKind;

typedef enum {
  OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE, OP_AND, OP_OR,
} BinOp;

static const char * const bin_spelling[] = { "+", "-", "*", "/", "<", "<=", ">", ">=", "==", "!=", "&&", "||" };

typedef float (*Fn1) (float);
typedef float (*Fn2) (float, float);

typedef struct
{
  const char *name;
  guint       arity;
  Fn1         f1;
  Fn2         f2;
} Function;

static const Function functions[] = {
  { "expf", 1, expf, NULL },     { "expm1f", 1, expm1f, NULL }, { "logf", 1, logf, NULL },
  { "log1pf", 1, log1pf, NULL }, { "sqrtf", 1, sqrtf, NULL },   { "tanhf", 1, tanhf, NULL },
  { "sinf", 1, sinf, NULL },     { "cosf", 1, cosf, NULL },     { "tanf", 1, tanf, NULL },
  { "atanf", 1, atanf, NULL },   { "erff", 1, erff, NULL },     { "fabsf", 1, fabsf, NULL },
  { "floorf", 1, floorf, NULL }, { "ceilf", 1, ceilf, NULL },   { "powf", 2, NULL, powf },
  { "fmaxf", 2, NULL, fmaxf },   { "fminf", 2, NULL, fminf },
};

const char * const *
fw_custom_expr_functions (void)
{
  static const char *names[G_N_ELEMENTS (functions) + 1];
  static gsize done;

  if (g_once_init_enter (&done))
    {
      for (guint i = 0; i < G_N_ELEMENTS (functions); i++)
        names[i] = functions[i].name;
      g_once_init_leave (&done, 1);
    }
  return names;
}

struct _FwCustomExpr
{
  ExKind        kind;
  float         value;   /* NUMBER */
  guint         index;   /* INPUT: k of xk; BINARY: the BinOp; CALL: the function */
  FwCustomExpr *a, *b, *c;
};

typedef struct
{
  const char *text;
  const char *p;
  guint       n_inputs;
  guint       depth;
  gsize       offset;   /* where the error is */
  char       *message;
} Parser;

static FwCustomExpr *
node_new (ExKind kind)
{
  FwCustomExpr *e = g_new0 (FwCustomExpr, 1);
  e->kind = kind;
  return e;
}

void
fw_custom_expr_free (FwCustomExpr *expr)
{
  if (expr == NULL)
    return;
  fw_custom_expr_free (expr->a);
  fw_custom_expr_free (expr->b);
  fw_custom_expr_free (expr->c);
  g_free (expr);
}

static FwCustomExpr * G_GNUC_PRINTF (3, 4)
fail_at (Parser *ps, const char *at, const char *format, ...)
{
  va_list args;

  if (ps->message != NULL)
    return NULL;
  va_start (args, format);
  ps->message = g_strdup_vprintf (format, args);
  va_end (args);
  ps->offset = (gsize) (at - ps->text);
  return NULL;
}

static void
skip_space (Parser *ps)
{
  while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
    ps->p++;
}

/* Consumes tok (after spaces) when it is next; a one-character operator is not the start of a longer one. */
static gboolean
accept (Parser *ps, const char *tok)
{
  gsize n = strlen (tok);

  skip_space (ps);
  if (strncmp (ps->p, tok, n) != 0)
    return FALSE;
  if (n == 1 && strchr ("<>=!", tok[0]) && ps->p[1] == '=')
    return FALSE;
  if (n == 1 && (tok[0] == '&' || tok[0] == '|') && ps->p[1] == tok[0])
    return FALSE;
  ps->p += n;
  return TRUE;
}

static FwCustomExpr *parse_select (Parser *ps);

static FwCustomExpr *
binary (guint op, FwCustomExpr *a, FwCustomExpr *b)
{
  FwCustomExpr *e = node_new (EX_BINARY);
  e->index = op;
  e->a = a;
  e->b = b;
  return e;
}

static FwCustomExpr *
parse_number (Parser *ps)
{
  const char *start = ps->p;
  char *end = NULL;
  double v;

  /* Decimal only: hexadecimal floats are not part of the language (inf and nan cannot start with a digit). */
  if (start[0] == '0' && (start[1] == 'x' || start[1] == 'X'))
    return fail_at (ps, start, _("a malformed number"));
  v = g_ascii_strtod (start, &end);
  if (end == start)
    return fail_at (ps, start, _("a malformed number"));
  ps->p = end;
  if (*ps->p == 'f' || *ps->p == 'F')
    ps->p++;
  if (g_ascii_isalnum (*ps->p) || *ps->p == '_' || *ps->p == '.')
    return fail_at (ps, start, _("a malformed number"));
  /* Compared before the conversion, which is undefined out of range. */
  if (!(fabs (v) <= FLT_MAX))
    return fail_at (ps, start, _("the number is out of float's range"));
  {
    FwCustomExpr *e = node_new (EX_NUMBER);
    e->value = (float) v;
    return e;
  }
}

static const char *
closest_function (const char *word)
{
  guint best_d = 3;
  const char *best = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (functions); i++)
    {
      guint d = fw_yaml_edit_distance (word, functions[i].name);
      if (d < best_d)
        {
          best_d = d;
          best = functions[i].name;
        }
    }
  return best;
}

static FwCustomExpr *
parse_call (Parser *ps, const char *start, const char *word)
{
  const Function *fn = NULL;
  FwCustomExpr *e;
  guint k;

  for (k = 0; k < G_N_ELEMENTS (functions); k++)
    if (strcmp (functions[k].name, word) == 0)
      {
        fn = &functions[k];
        break;
      }
  if (fn == NULL)
    {
      const char *close = closest_function (word);
      g_autofree char *list = g_strjoinv (", ", (char **) fw_custom_expr_functions ());
      if (close != NULL)
        return fail_at (ps, start, _("unknown function “%s” (did you mean “%s”?)"), word, close);
      return fail_at (ps, start, _("unknown function “%s” (allowed: %s)"), word, list);
    }
  if (!accept (ps, "("))
    return fail_at (ps, ps->p, _("“(” expected after %s"), word);
  e = node_new (EX_CALL);
  e->index = k;
  e->a = parse_select (ps);
  if (e->a != NULL && fn->arity == 2)
    {
      if (!accept (ps, ","))
        {
          fw_custom_expr_free (e);
          return fail_at (ps, ps->p, _("%s takes %u argument(s)"), word, fn->arity);
        }
      e->b = parse_select (ps);
    }
  if (e->a == NULL || (fn->arity == 2 && e->b == NULL))
    {
      fw_custom_expr_free (e);
      return NULL;
    }
  if (!accept (ps, ")"))
    {
      fw_custom_expr_free (e);
      if (accept (ps, ","))
        return fail_at (ps, ps->p, _("%s takes %u argument(s)"), word, fn->arity);
      return fail_at (ps, ps->p, _("“)” expected after the arguments of %s"), word);
    }
  return e;
}

static FwCustomExpr *
parse_word (Parser *ps)
{
  const char *start = ps->p;
  g_autofree char *word = NULL;

  while (g_ascii_isalnum (*ps->p) || *ps->p == '_')
    ps->p++;
  word = g_strndup (start, ps->p - start);
  if (word[0] == 'x' && word[1] != '\0' && strspn (word + 1, "0123456789") == strlen (word + 1)
      && (word[1] != '0' || word[2] == '\0'))
    {
      guint64 k = g_ascii_strtoull (word + 1, NULL, 10);
      FwCustomExpr *e;

      if (k >= ps->n_inputs)
        return fail_at (ps, start, _("input %s is out of range: the operator has %u input(s), x0 to x%u"), word,
                        ps->n_inputs, ps->n_inputs > 0 ? ps->n_inputs - 1 : 0);
      e = node_new (EX_INPUT);
      e->index = (guint) k;
      return e;
    }
  skip_space (ps);
  if (*ps->p != '(')
    return fail_at (ps, start, _("unknown name “%s” (inputs are x0, x1…; functions are called with parentheses)"),
                    word);
  return parse_call (ps, start, word);
}

static FwCustomExpr *
parse_primary (Parser *ps)
{
  skip_space (ps);
  if (*ps->p == '\0')
    return fail_at (ps, ps->p, _("the expression ends early"));
  if (g_ascii_isdigit (*ps->p) || (*ps->p == '.' && g_ascii_isdigit (ps->p[1])))
    return parse_number (ps);
  if (g_ascii_isalpha (*ps->p) || *ps->p == '_')
    return parse_word (ps);
  if (accept (ps, "("))
    {
      FwCustomExpr *e = parse_select (ps);
      if (e != NULL && !accept (ps, ")"))
        {
          fw_custom_expr_free (e);
          return fail_at (ps, ps->p, _("“)” expected"));
        }
      return e;
    }
  return fail_at (ps, ps->p, _("unexpected “%c”"), *ps->p);
}

static FwCustomExpr *
parse_unary (Parser *ps)
{
  FwCustomExpr *e, *inner;
  ExKind kind;

  if (++ps->depth > MAX_DEPTH)
    return fail_at (ps, ps->p, _("the expression is nested too deeply (at most %d levels)"), MAX_DEPTH);
  if (accept (ps, "-"))
    kind = EX_NEG;
  else if (accept (ps, "!"))
    kind = EX_NOT;
  else if (accept (ps, "+"))
    {
      e = parse_unary (ps);
      ps->depth--;
      return e;
    }
  else
    {
      e = parse_primary (ps);
      ps->depth--;
      return e;
    }
  inner = parse_unary (ps);
  ps->depth--;
  if (inner == NULL)
    return NULL;
  e = node_new (kind);
  e->a = inner;
  return e;
}

/* One precedence level of left-associative operators: ops[] in BinOp order, ending at -1. */
static FwCustomExpr *
parse_level (Parser *ps, guint level)
{
  static const gint levels[][5] = {
    { OP_OR, -1 }, { OP_AND, -1 }, { OP_EQ, OP_NE, -1 }, { OP_LE, OP_GE, OP_LT, OP_GT, -1 },
    { OP_ADD, OP_SUB, -1 }, { OP_MUL, OP_DIV, -1 },
  };
  FwCustomExpr *left;

  if (level == G_N_ELEMENTS (levels))
    return parse_unary (ps);
  left = parse_level (ps, level + 1);
  while (left != NULL)
    {
      gint op = -1;
      FwCustomExpr *right;

      for (guint i = 0; levels[level][i] >= 0; i++)
        if (accept (ps, bin_spelling[levels[level][i]]))
          {
            op = levels[level][i];
            break;
          }
      if (op < 0)
        break;
      right = parse_level (ps, level + 1);
      if (right == NULL)
        {
          fw_custom_expr_free (left);
          return NULL;
        }
      left = binary ((guint) op, left, right);
    }
  return left;
}

static FwCustomExpr *
parse_select (Parser *ps)
{
  FwCustomExpr *cond, *e;

  if (++ps->depth > MAX_DEPTH)
    return fail_at (ps, ps->p, _("the expression is nested too deeply (at most %d levels)"), MAX_DEPTH);
  cond = parse_level (ps, 0);
  if (cond == NULL || !accept (ps, "?"))
    {
      ps->depth--;
      return cond;
    }
  e = node_new (EX_SELECT);
  e->a = cond;
  e->b = parse_select (ps);
  if (e->b != NULL && !accept (ps, ":"))
    {
      fw_custom_expr_free (e);
      return fail_at (ps, ps->p, _("“:” expected in a ? : choice"));
    }
  if (e->b != NULL)
    e->c = parse_select (ps);
  ps->depth--;
  if (e->b == NULL || e->c == NULL)
    {
      fw_custom_expr_free (e);
      return NULL;
    }
  return e;
}

FwCustomExpr *
fw_custom_expr_parse (const char *text, guint n_inputs, gsize *offset, char **message)
{
  Parser ps = { text, text, n_inputs, 0, 0, NULL };
  FwCustomExpr *e;

  *offset = 0;
  *message = NULL;
  if (strlen (text) > FW_CUSTOM_EXPR_MAX_LENGTH)
    {
      *message = g_strdup_printf (_("the expression is longer than %d characters"), FW_CUSTOM_EXPR_MAX_LENGTH);
      return NULL;
    }
  e = parse_select (&ps);
  if (e != NULL)
    {
      skip_space (&ps);
      if (*ps.p != '\0')
        {
          fw_custom_expr_free (e);
          e = fail_at (&ps, ps.p, _("unexpected “%c” after the expression"), *ps.p);
        }
    }
  if (e == NULL)
    {
      *offset = ps.offset;
      *message = ps.message ? ps.message : g_strdup (_("malformed expression"));
    }
  return e;
}

float
fw_custom_expr_eval (const FwCustomExpr *e, const float *x)
{
  float a, b;

  switch (e->kind)
    {
    case EX_NUMBER:
      return e->value;
    case EX_INPUT:
      return x[e->index];
    case EX_NEG:
      return -fw_custom_expr_eval (e->a, x);
    case EX_NOT:
      return fw_custom_expr_eval (e->a, x) == 0.0f ? 1.0f : 0.0f;
    case EX_SELECT:
      return fw_custom_expr_eval (e->a, x) != 0.0f ? fw_custom_expr_eval (e->b, x) : fw_custom_expr_eval (e->c, x);
    case EX_CALL:
      a = fw_custom_expr_eval (e->a, x);
      if (functions[e->index].arity == 1)
        return functions[e->index].f1 (a);
      return functions[e->index].f2 (a, fw_custom_expr_eval (e->b, x));
    case EX_BINARY:
    default:
      break;
    }
  a = fw_custom_expr_eval (e->a, x);
  b = fw_custom_expr_eval (e->b, x);
  switch ((BinOp) e->index)
    {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_DIV: return a / b;
    case OP_LT: return a < b ? 1.0f : 0.0f;
    case OP_LE: return a <= b ? 1.0f : 0.0f;
    case OP_GT: return a > b ? 1.0f : 0.0f;
    case OP_GE: return a >= b ? 1.0f : 0.0f;
    case OP_EQ: return a == b ? 1.0f : 0.0f;
    case OP_NE: return a != b ? 1.0f : 0.0f;
    case OP_AND: return a != 0.0f && b != 0.0f ? 1.0f : 0.0f;
    case OP_OR: return a != 0.0f || b != 0.0f ? 1.0f : 0.0f;
    default: return NAN;
    }
}

/* Shortest decimal that reads back as v, as a float literal (never "1f", always "1.0f"). */
static void
append_literal (GString *s, float v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  for (gint digits = 6; digits <= 9; digits++)
    {
      g_ascii_formatd (buf, sizeof buf, digits == 6 ? "%.6g" : digits == 7 ? "%.7g" : digits == 8 ? "%.8g" : "%.9g",
                       (double) v);
      if ((float) g_ascii_strtod (buf, NULL) == v)
        break;
    }
  g_string_append_c (s, '(');
  g_string_append (s, buf);
  if (strpbrk (buf, ".e") == NULL)
    g_string_append (s, ".0");
  g_string_append (s, "f)");
}

static void
print (GString *s, const FwCustomExpr *e, const char * const *operands)
{
  switch (e->kind)
    {
    case EX_NUMBER:
      append_literal (s, e->value);
      return;
    case EX_INPUT:
      g_string_append_printf (s, "(%s)", operands[e->index]);
      return;
    case EX_NEG:
      g_string_append (s, "(-");
      print (s, e->a, operands);
      g_string_append_c (s, ')');
      return;
    case EX_NOT:
      g_string_append (s, "((float) (");
      print (s, e->a, operands);
      g_string_append (s, " == 0.0f))");
      return;
    case EX_SELECT:
      g_string_append (s, "(");
      print (s, e->a, operands);
      g_string_append (s, " != 0.0f ? ");
      print (s, e->b, operands);
      g_string_append (s, " : ");
      print (s, e->c, operands);
      g_string_append_c (s, ')');
      return;
    case EX_CALL:
      g_string_append_printf (s, "%s (", functions[e->index].name);
      print (s, e->a, operands);
      if (e->b != NULL)
        {
          g_string_append (s, ", ");
          print (s, e->b, operands);
        }
      g_string_append_c (s, ')');
      return;
    case EX_BINARY:
    default:
      break;
    }
  if (e->index >= OP_LT)
    {
      /* Comparisons and logic are int in C; the language keeps every value a float. */
      gboolean logic = e->index == OP_AND || e->index == OP_OR;
      g_string_append (s, "((float) (");
      print (s, e->a, operands);
      g_string_append (s, logic ? " != 0.0f " : " ");
      g_string_append (s, bin_spelling[e->index]);
      g_string_append_c (s, ' ');
      print (s, e->b, operands);
      g_string_append (s, logic ? " != 0.0f))" : "))");
      return;
    }
  g_string_append_c (s, '(');
  print (s, e->a, operands);
  g_string_append_printf (s, " %s ", bin_spelling[e->index]);
  print (s, e->b, operands);
  g_string_append_c (s, ')');
}

char *
fw_custom_expr_to_c (const FwCustomExpr *expr, const char * const *operands)
{
  GString *s = g_string_new (NULL);

  print (s, expr, operands);
  return g_string_free (s, FALSE);
}

guint
fw_custom_expr_count_ops (const FwCustomExpr *e)
{
  if (e == NULL || e->kind == EX_NUMBER || e->kind == EX_INPUT)
    return 0;
  return 1 + fw_custom_expr_count_ops (e->a) + fw_custom_expr_count_ops (e->b) + fw_custom_expr_count_ops (e->c);
}
