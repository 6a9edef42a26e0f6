/* The elementwise and broadcast reference kernels: hand-computed one-node cases per op family, broadcasting
 * shapes, 16-bit floats, integers and bool, attribute defaults, opset variants and the errors a model can
 * cause. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "exec/fw-exec.h"
#include "fw-error.h"
#include "fw-test-models.h"

#define MAX_IO 8

/* Stands for an omitted optional input. */
static FwArray omitted;
#define OMIT (&omitted)

typedef struct
{
  FwModel *model;
  FwNode  *node;
  FwArray *in[MAX_IO];
  guint    n_in;
  guint    n_out;
} Case;

static FwArray *
arr (FwDType dtype, guint rank, const gint64 *dims, const double *values)
{
  g_autoptr(GError) error = NULL;
  FwArray *a = fw_array_new (dtype, rank, dims, &error);

  g_assert_no_error (error);
  for (gint64 i = 0; i < a->n_elements; i++)
    if (dtype == FW_DTYPE_BFLOAT16)
      {
        /* fw_array_set_double does not write bfloat16; the tests use values it holds exactly. */
        float f = (float) values[i];
        guint32 bits;

        memcpy (&bits, &f, sizeof bits);
        ((guint16 *) a->data)[i] = (guint16) (bits >> 16);
      }
    else
      fw_array_set_double (a, i, values[i]);
  return a;
}

#define D(...) ((const gint64[]) { __VA_ARGS__ })
#define V(...) ((const double[]) { __VA_ARGS__ })

static FwArray *
scalar (FwDType dtype, double v)
{
  return arr (dtype, 0, NULL, &v);
}

static FwArray *
arr_i64 (guint rank, const gint64 *dims, const gint64 *values)
{
  FwArray *a = fw_array_new (FW_DTYPE_INT64, rank, dims, NULL);

  memcpy (a->data, values, a->n_bytes);
  return a;
}

/* A model holding one node of op (opset) reading the arrays as graph inputs; ins is NULL-terminated and
 * takes ownership. */
static FwNode *
case_new (Case *c, const char *op, gint64 opset, guint n_out, ...)
{
  FwGraph *g;
  const char *in_names[MAX_IO], *out_names[MAX_IO];
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  va_list args;
  FwArray *a;

  memset (c, 0, sizeof *c);
  c->model = fw_test_model_new (opset);
  g = fw_model_get_graph (c->model);
  va_start (args, n_out);
  while ((a = va_arg (args, FwArray *)) != NULL)
    {
      char *name = g_strdup_printf ("x%u", c->n_in);

      g_ptr_array_add (names, name);
      if (a == OMIT)
        in_names[c->n_in] = "";
      else
        {
          FwDim dims[FW_MAX_RANK];

          for (guint d = 0; d < a->rank; d++)
            dims[d] = FW_DIM_STATIC (a->dims[d]);
          g_assert_nonnull (fw_graph_add_input (g, name, a->dtype, a->rank, dims, NULL));
          in_names[c->n_in] = name;
        }
      c->in[c->n_in++] = a;
    }
  va_end (args);
  c->n_out = n_out;
  for (guint o = 0; o < n_out; o++)
    {
      char *name = g_strdup_printf ("y%u", o);

      g_ptr_array_add (names, name);
      out_names[o] = name;
    }
  c->node = fw_graph_add_node (g, op, "", "n", c->n_in, in_names, n_out, out_names, NULL);
  g_assert_nonnull (c->node);
  c->node->opset = opset;
  for (guint o = 0; o < n_out; o++)
    g_assert_true (fw_graph_add_output (g, out_names[o], NULL));
  return c->node;
}

static void
case_clear (Case *c)
{
  for (guint i = 0; i < c->n_in; i++)
    if (c->in[i] != OMIT)
      fw_array_unref (c->in[i]);
  g_clear_object (&c->model);
}

/* Links, infers shapes when infer is set (so the interpreter checks the kernel against inference), runs. */
static gboolean
case_run_full (Case *c, gboolean infer, FwArray **out, GError **error)
{
  FwGraph *g = fw_model_get_graph (c->model);
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (2, NULL);
  FwArray *ins[MAX_IO];
  guint n = 0;
  g_autoptr(GError) local = NULL;

  g_assert_true (fw_graph_link (g, NULL));
  if (infer)
    {
      g_assert_true (fw_test_infer (c->model, NULL, NULL, &local));
      g_assert_no_error (local);
    }
  for (guint i = 0; i < c->n_in; i++)
    if (c->in[i] != OMIT)
      ins[n++] = c->in[i];
  return fw_exec_run_reference (ctx, g, ins, n, out, NULL, error);
}

/* Runs a case that must succeed and returns output 0 (the others in more, when given). */
static FwArray *
case_run (Case *c, FwArray **more)
{
  g_autoptr(GError) error = NULL;
  FwArray *out[MAX_IO] = { NULL };

  g_assert_true (case_run_full (c, TRUE, out, &error));
  g_assert_no_error (error);
  for (guint o = 1; o < c->n_out; o++)
    if (more != NULL)
      more[o - 1] = out[o];
    else
      fw_array_unref (out[o]);
  case_clear (c);
  return out[0];
}

/* Runs a case that must fail in its kernel with FW_ERROR_INVALID or _UNSUPPORTED, never a crash. */
static void
case_fails (Case *c, const char *fragment)
{
  g_autoptr(GError) error = NULL;
  FwArray *out[MAX_IO] = { NULL };

  g_assert_false (case_run_full (c, FALSE, out, &error));
  g_assert_nonnull (error);
  g_assert_true (error->domain == FW_ERROR);
  g_assert_true (error->code == FW_ERROR_INVALID || error->code == FW_ERROR_UNSUPPORTED);
  if (fragment != NULL && strstr (error->message, fragment) == NULL)
    g_error ("“%s” is not in the error “%s”", fragment, error->message);
  case_clear (c);
}

static void
check (FwArray *a, FwDType dtype, guint rank, const gint64 *dims, const double *expect, double tol)
{
  g_assert_nonnull (a);
  g_assert_cmpstr (fw_dtype_name (a->dtype), ==, fw_dtype_name (dtype));
  g_assert_cmpuint (a->rank, ==, rank);
  for (guint d = 0; d < rank; d++)
    g_assert_cmpint (a->dims[d], ==, dims[d]);
  for (gint64 i = 0; i < a->n_elements; i++)
    {
      double got = fw_array_get_double (a, i), want = expect[i];

      if (isnan (want))
        {
          if (!isnan (got))
            g_error ("element %" G_GINT64_FORMAT ": %g where NaN was expected", i, got);
          continue;
        }
      if (!(fabs (got - want) <= tol + tol * fabs (want)) && got != want)
        g_error ("element %" G_GINT64_FORMAT ": %.9g where %.9g was expected", i, got, want);
    }
  fw_array_unref (a);
}

/* ---- the table ---- */

static const char *const all_ops[] = {
  "Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "BitwiseNot", "Cast", "CastLike", "Ceil", "Celu",
  "Cos", "Cosh", "Dropout", "Elu", "Erf", "Exp", "Floor", "Gelu", "HardSigmoid", "HardSwish", "Identity",
  "IsInf", "IsNaN", "LeakyRelu", "Log", "Mish", "Neg", "Not", "Reciprocal", "Relu", "Round", "Selu", "Shrink",
  "Sigmoid", "Sign", "Sin", "Sinh", "Softplus", "Softsign", "Sqrt", "Tan", "Tanh", "ThresholdedRelu", "Add",
  "And", "BatchNormalization", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Clip", "Div", "Equal",
  "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "Max", "Mean", "Min", "Mod", "Mul", "Or", "Pow", "PRelu",
  "Sub", "Sum", "Where", "Xor",
};

static void
test_table (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (all_ops); i++)
    {
      if (fw_kernel_lookup ("", all_ops[i]) == NULL)
        g_error ("no kernel for %s", all_ops[i]);
      g_assert_nonnull (fw_kernel_lookup ("ai.onnx", all_ops[i]));
    }
  g_assert_null (fw_kernel_lookup ("com.example", "Add"));
}

/* ---- broadcasting ---- */

static void
test_add_same (void)
{
  Case c;

  case_new (&c, "Add", 14, 1, arr (FW_DTYPE_FLOAT, 2, D (2, 2), V (1, 2, 3, 4)),
            arr (FW_DTYPE_FLOAT, 2, D (2, 2), V (10, 20, 30, 40)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 2, D (2, 2), V (11, 22, 33, 44), 0);
}

static void
test_add_scalar (void)
{
  Case c;

  case_new (&c, "Add", 14, 1, scalar (FW_DTYPE_FLOAT, 0.5), arr (FW_DTYPE_FLOAT, 1, D (3), V (1, 2, 3)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (3), V (1.5, 2.5, 3.5), 0);
  case_new (&c, "Sub", 14, 1, arr (FW_DTYPE_DOUBLE, 1, D (3), V (1, 2, 3)), scalar (FW_DTYPE_DOUBLE, 1), NULL);
  check (case_run (&c, NULL), FW_DTYPE_DOUBLE, 1, D (3), V (0, 1, 2), 0);
}

static void
test_add_row (void)
{
  Case c;

  case_new (&c, "Mul", 14, 1, arr (FW_DTYPE_FLOAT, 2, D (2, 3), V (1, 2, 3, 4, 5, 6)),
            arr (FW_DTYPE_FLOAT, 1, D (3), V (10, 100, 1000)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 2, D (2, 3), V (10, 200, 3000, 40, 500, 6000), 0);
}

static void
test_add_column (void)
{
  Case c;

  case_new (&c, "Sub", 14, 1, arr (FW_DTYPE_FLOAT, 2, D (2, 1), V (10, 20)),
            arr (FW_DTYPE_FLOAT, 2, D (2, 3), V (1, 2, 3, 4, 5, 6)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 2, D (2, 3), V (9, 8, 7, 16, 15, 14), 0);
}

static void
test_add_nd (void)
{
  Case c;

  /* [2,1,3] + [2,1] → [2,2,3]: both inputs broadcast on different axes. */
  case_new (&c, "Add", 14, 1, arr (FW_DTYPE_INT32, 3, D (2, 1, 3), V (1, 2, 3, 4, 5, 6)),
            arr (FW_DTYPE_INT32, 2, D (2, 1), V (10, 20)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_INT32, 3, D (2, 2, 3),
         V (11, 12, 13, 21, 22, 23, 14, 15, 16, 24, 25, 26), 0);
}

/* Shapes big enough to run threaded and split rows into segments, against a plain loop. */
static void
test_add_large (void)
{
  static const gint64 shapes[][2][3] = {
    { { 301, 257, 3 }, { 1, 257, 1 } },
    { { 2, 40000, 1 }, { 2, 1, 1 } },
    { { 1, 1, 70001 }, { 1, 1, 70001 } },
    { { 64, 1, 33 }, { 1, 64, 33 } },
  };

  for (guint s = 0; s < G_N_ELEMENTS (shapes); s++)
    {
      Case c;
      FwArray *a = fw_array_new (FW_DTYPE_FLOAT, 3, shapes[s][0], NULL);
      FwArray *b = fw_array_new (FW_DTYPE_FLOAT, 3, shapes[s][1], NULL);
      gint64 od[3], n = 1;
      g_autofree double *want = NULL;
      FwArray *out;

      for (gint64 i = 0; i < a->n_elements; i++)
        ((float *) a->data)[i] = (float) (i % 1000) * 0.25f;
      for (gint64 i = 0; i < b->n_elements; i++)
        ((float *) b->data)[i] = (float) (i % 77) * 2.0f;
      for (guint d = 0; d < 3; d++)
        {
          od[d] = MAX (shapes[s][0][d], shapes[s][1][d]);
          n *= od[d];
        }
      want = g_new (double, n);
      for (gint64 i = 0, k = 0; i < od[0]; i++)
        for (gint64 j = 0; j < od[1]; j++)
          for (gint64 l = 0; l < od[2]; l++, k++)
            {
              const gint64 *da = shapes[s][0], *db = shapes[s][1];
              gint64 ia = ((i % da[0]) * da[1] + j % da[1]) * da[2] + l % da[2];
              gint64 ib = ((i % db[0]) * db[1] + j % db[1]) * db[2] + l % db[2];

              want[k] = ((float *) a->data)[ia] + ((float *) b->data)[ib];
            }
      case_new (&c, "Add", 14, 1, a, b, NULL);
      out = case_run (&c, NULL);
      check (out, FW_DTYPE_FLOAT, 3, od, want, 0);
    }
}

static void
test_add_errors (void)
{
  Case c;

  case_new (&c, "Add", 14, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (1, 2)), arr (FW_DTYPE_INT64, 1, D (2), V (1, 2)),
            NULL);
  case_fails (&c, "different types");
  case_new (&c, "Add", 14, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (1, 2)), arr (FW_DTYPE_FLOAT, 1, D (3), V (1, 2, 3)),
            NULL);
  case_fails (&c, "broadcast");
  case_new (&c, "Add", 14, 1, arr (FW_DTYPE_BOOL, 1, D (2), V (1, 0)), arr (FW_DTYPE_BOOL, 1, D (2), V (1, 1)),
            NULL);
  case_fails (&c, "bool");
  case_new (&c, "Sqrt", 14, 1, arr (FW_DTYPE_INT64, 1, D (2), V (1, 4)), NULL);
  case_fails (&c, "int64");
  case_new (&c, "Add", 14, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (1, 2)), NULL);
  case_fails (&c, "inputs");
}

static void
test_add_ints (void)
{
  Case c;

  case_new (&c, "Add", 14, 1, arr (FW_DTYPE_INT32, 1, D (2), V (G_MAXINT32, -5)),
            arr (FW_DTYPE_INT32, 1, D (2), V (1, 3)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_INT32, 1, D (2), V (G_MININT32, -2), 0);
  case_new (&c, "Mul", 14, 1, arr (FW_DTYPE_UINT8, 1, D (2), V (200, 3)), scalar (FW_DTYPE_UINT8, 2), NULL);
  check (case_run (&c, NULL), FW_DTYPE_UINT8, 1, D (2), V (144, 6), 0);
  case_new (&c, "Sub", 14, 1, arr (FW_DTYPE_INT8, 1, D (2), V (-128, 5)), scalar (FW_DTYPE_INT8, 1), NULL);
  check (case_run (&c, NULL), FW_DTYPE_INT8, 1, D (2), V (127, 4), 0);
}

static void
test_add_float16 (void)
{
  Case c;

  case_new (&c, "Add", 14, 1, arr (FW_DTYPE_FLOAT16, 2, D (2, 2), V (1, 2.5, -3, 0.125)),
            arr (FW_DTYPE_FLOAT16, 1, D (2), V (0.5, 1)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT16, 2, D (2, 2), V (1.5, 3.5, -2.5, 1.125), 0);
  /* 2048 + 1 rounds back to 2048 in float16. */
  case_new (&c, "Add", 14, 1, scalar (FW_DTYPE_FLOAT16, 2048), scalar (FW_DTYPE_FLOAT16, 1), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT16, 0, NULL, V (2048), 0);
  case_new (&c, "Mul", 14, 1, arr (FW_DTYPE_BFLOAT16, 1, D (2), V (1.5, -2)), scalar (FW_DTYPE_BFLOAT16, 3), NULL);
  check (case_run (&c, NULL), FW_DTYPE_BFLOAT16, 1, D (2), V (4.5, -6), 0);
}

/* ---- Div, Mod, Pow ---- */

static void
test_div (void)
{
  Case c;

  case_new (&c, "Div", 14, 1, arr (FW_DTYPE_INT32, 1, D (6), V (7, -7, 7, -7, 5, G_MININT32)),
            arr (FW_DTYPE_INT32, 1, D (6), V (2, 2, -2, -2, 0, -1)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_INT32, 1, D (6), V (3, -3, -3, 3, 0, G_MININT32), 0);
  case_new (&c, "Div", 14, 1, arr (FW_DTYPE_UINT8, 1, D (2), V (7, 9)), arr (FW_DTYPE_UINT8, 1, D (2), V (2, 0)),
            NULL);
  check (case_run (&c, NULL), FW_DTYPE_UINT8, 1, D (2), V (3, 0), 0);
  case_new (&c, "Div", 14, 1, arr (FW_DTYPE_FLOAT, 1, D (3), V (1, -1, 0)), scalar (FW_DTYPE_FLOAT, 0), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (3), V (INFINITY, -INFINITY, NAN), 0);
  {
    FwArray *out;

    case_new (&c, "Div", 14, 1, arr_i64 (1, D (2), D (G_MININT64, -9)), arr_i64 (1, D (2), D (-1, 4)), NULL);
    out = case_run (&c, NULL);
    g_assert_cmpint (((gint64 *) out->data)[0], ==, G_MININT64);
    g_assert_cmpint (((gint64 *) out->data)[1], ==, -2);
    fw_array_unref (out);
  }
}

static void
test_mod (void)
{
  Case c;
  FwNode *n;

  case_new (&c, "Mod", 13, 1, arr (FW_DTYPE_INT32, 1, D (5), V (7, -7, 7, -7, 3)),
            arr (FW_DTYPE_INT32, 1, D (5), V (3, 3, -3, -3, 0)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_INT32, 1, D (5), V (1, 2, -2, -1, 0), 0);
  n = case_new (&c, "Mod", 13, 1, arr (FW_DTYPE_INT64, 1, D (4), V (7, -7, 7, -7)),
                arr (FW_DTYPE_INT64, 1, D (4), V (3, 3, -3, -1)), NULL);
  fw_node_set_attr_int (n, "fmod", 1);
  check (case_run (&c, NULL), FW_DTYPE_INT64, 1, D (4), V (1, -1, 1, 0), 0);
  n = case_new (&c, "Mod", 13, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (5.5, -5.5)), scalar (FW_DTYPE_FLOAT, 2), NULL);
  fw_node_set_attr_int (n, "fmod", 1);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (2), V (1.5, -1.5), 0);
  case_new (&c, "Mod", 13, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (5.5, -5.5)), scalar (FW_DTYPE_FLOAT, 2), NULL);
  case_fails (&c, "fmod");
}

static void
test_pow (void)
{
  Case c;

  case_new (&c, "Pow", 15, 1, arr (FW_DTYPE_FLOAT, 1, D (3), V (2, 4, -2)), arr (FW_DTYPE_FLOAT, 1, D (3), V (3, 0.5, 2)),
            NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (3), V (8, 2, 4), 1e-6);
  case_new (&c, "Pow", 15, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (1.5, 3)), scalar (FW_DTYPE_INT64, 2), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (2), V (2.25, 9), 1e-6);
  case_new (&c, "Pow", 15, 1, arr (FW_DTYPE_INT32, 1, D (4), V (3, -2, 2, 5)),
            arr (FW_DTYPE_INT32, 1, D (4), V (4, 3, -1, 0)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_INT32, 1, D (4), V (81, -8, 0, 1), 0);
  case_new (&c, "Pow", 15, 1, arr (FW_DTYPE_INT64, 1, D (2), V (4, 9)), scalar (FW_DTYPE_FLOAT, 0.5), NULL);
  check (case_run (&c, NULL), FW_DTYPE_INT64, 1, D (2), V (2, 3), 0);
  case_new (&c, "Pow", 15, 1, arr (FW_DTYPE_FLOAT16, 1, D (2), V (3, 0.5)), scalar (FW_DTYPE_FLOAT16, 2), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT16, 1, D (2), V (9, 0.25), 0);
  case_new (&c, "Pow", 15, 1, arr (FW_DTYPE_BOOL, 1, D (2), V (1, 0)), scalar (FW_DTYPE_FLOAT, 2), NULL);
  case_fails (&c, NULL);
}

/* ---- bitwise and logical ---- */

static void
test_bitwise (void)
{
  Case c;
  FwNode *n;

  case_new (&c, "BitwiseAnd", 18, 1, arr (FW_DTYPE_INT32, 1, D (2), V (12, -1)), scalar (FW_DTYPE_INT32, 10), NULL);
  check (case_run (&c, NULL), FW_DTYPE_INT32, 1, D (2), V (8, 10), 0);
  case_new (&c, "BitwiseOr", 18, 1, arr (FW_DTYPE_UINT8, 1, D (2), V (12, 1)), scalar (FW_DTYPE_UINT8, 3), NULL);
  check (case_run (&c, NULL), FW_DTYPE_UINT8, 1, D (2), V (15, 3), 0);
  case_new (&c, "BitwiseXor", 18, 1, arr (FW_DTYPE_INT64, 1, D (2), V (12, 5)), scalar (FW_DTYPE_INT64, 10), NULL);
  check (case_run (&c, NULL), FW_DTYPE_INT64, 1, D (2), V (6, 15), 0);
  case_new (&c, "BitwiseNot", 18, 1, arr (FW_DTYPE_INT8, 1, D (2), V (0, 5)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_INT8, 1, D (2), V (-1, -6), 0);
  case_new (&c, "BitwiseNot", 18, 1, arr (FW_DTYPE_UINT8, 1, D (1), V (5)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_UINT8, 1, D (1), V (250), 0);
  case_new (&c, "BitwiseAnd", 18, 1, arr (FW_DTYPE_FLOAT, 1, D (1), V (1)), scalar (FW_DTYPE_FLOAT, 1), NULL);
  case_fails (&c, "float32");

  n = case_new (&c, "BitShift", 11, 1, arr (FW_DTYPE_UINT8, 1, D (3), V (1, 16, 255)),
                arr (FW_DTYPE_UINT8, 1, D (3), V (3, 2, 8)), NULL);
  fw_node_set_attr_string (n, "direction", "LEFT");
  check (case_run (&c, NULL), FW_DTYPE_UINT8, 1, D (3), V (8, 64, 0), 0);
  n = case_new (&c, "BitShift", 11, 1, arr (FW_DTYPE_UINT32, 1, D (2), V (16, 255)), scalar (FW_DTYPE_UINT32, 2),
                NULL);
  fw_node_set_attr_string (n, "direction", "RIGHT");
  check (case_run (&c, NULL), FW_DTYPE_UINT32, 1, D (2), V (4, 63), 0);
  case_new (&c, "BitShift", 11, 1, arr (FW_DTYPE_UINT32, 1, D (1), V (16)), scalar (FW_DTYPE_UINT32, 2), NULL);
  case_fails (&c, "direction");
}

static void
test_logical (void)
{
  Case c;

  case_new (&c, "And", 7, 1, arr (FW_DTYPE_BOOL, 2, D (2, 2), V (1, 0, 1, 1)), arr (FW_DTYPE_BOOL, 1, D (2), V (1, 0)),
            NULL);
  check (case_run (&c, NULL), FW_DTYPE_BOOL, 2, D (2, 2), V (1, 0, 1, 0), 0);
  case_new (&c, "Or", 7, 1, arr (FW_DTYPE_BOOL, 2, D (2, 1), V (0, 1)), arr (FW_DTYPE_BOOL, 1, D (2), V (1, 0)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_BOOL, 2, D (2, 2), V (1, 0, 1, 1), 0);
  case_new (&c, "Xor", 7, 1, arr (FW_DTYPE_BOOL, 1, D (4), V (0, 0, 1, 1)), arr (FW_DTYPE_BOOL, 1, D (4), V (0, 1, 0, 1)),
            NULL);
  check (case_run (&c, NULL), FW_DTYPE_BOOL, 1, D (4), V (0, 1, 1, 0), 0);
  case_new (&c, "Not", 1, 1, arr (FW_DTYPE_BOOL, 1, D (2), V (0, 1)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_BOOL, 1, D (2), V (1, 0), 0);
  case_new (&c, "And", 7, 1, arr (FW_DTYPE_INT32, 1, D (1), V (1)), arr (FW_DTYPE_INT32, 1, D (1), V (1)), NULL);
  case_fails (&c, "int32");
}

static void
test_compare (void)
{
  Case c;

  case_new (&c, "Equal", 13, 1, arr (FW_DTYPE_INT64, 1, D (3), V (1, 2, 3)), scalar (FW_DTYPE_INT64, 2), NULL);
  check (case_run (&c, NULL), FW_DTYPE_BOOL, 1, D (3), V (0, 1, 0), 0);
  case_new (&c, "Equal", 13, 1, arr (FW_DTYPE_BOOL, 1, D (2), V (1, 0)), scalar (FW_DTYPE_BOOL, 1), NULL);
  check (case_run (&c, NULL), FW_DTYPE_BOOL, 1, D (2), V (1, 0), 0);
  case_new (&c, "Greater", 13, 1, arr (FW_DTYPE_FLOAT, 2, D (2, 1), V (1, 3)), arr (FW_DTYPE_FLOAT, 1, D (3), V (0, 2, 4)),
            NULL);
  check (case_run (&c, NULL), FW_DTYPE_BOOL, 2, D (2, 3), V (1, 0, 0, 1, 1, 0), 0);
  case_new (&c, "GreaterOrEqual", 16, 1, arr (FW_DTYPE_INT8, 1, D (3), V (1, 2, 3)), scalar (FW_DTYPE_INT8, 2), NULL);
  check (case_run (&c, NULL), FW_DTYPE_BOOL, 1, D (3), V (0, 1, 1), 0);
  case_new (&c, "Less", 13, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (NAN, 1)), scalar (FW_DTYPE_FLOAT, 2), NULL);
  check (case_run (&c, NULL), FW_DTYPE_BOOL, 1, D (2), V (0, 1), 0);
  case_new (&c, "LessOrEqual", 16, 1, arr (FW_DTYPE_FLOAT16, 1, D (3), V (1, 2, 3)), scalar (FW_DTYPE_FLOAT16, 2),
            NULL);
  check (case_run (&c, NULL), FW_DTYPE_BOOL, 1, D (3), V (1, 1, 0), 0);
  case_new (&c, "Less", 13, 1, arr (FW_DTYPE_FLOAT, 1, D (1), V (1)), scalar (FW_DTYPE_DOUBLE, 2), NULL);
  case_fails (&c, "different types");
}

/* ---- Where and the variadic ops ---- */

static void
test_where (void)
{
  Case c;

  /* cond [2,1,1], x [1,3,1], y [2]: three inputs broadcast along three different axes into [2,3,2]. */
  case_new (&c, "Where", 16, 1, arr (FW_DTYPE_BOOL, 3, D (2, 1, 1), V (1, 0)),
            arr (FW_DTYPE_FLOAT, 3, D (1, 3, 1), V (1, 2, 3)), arr (FW_DTYPE_FLOAT, 1, D (2), V (-1, -2)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 3, D (2, 3, 2), V (1, 1, 2, 2, 3, 3, -1, -2, -1, -2, -1, -2), 0);
  case_new (&c, "Where", 16, 1, arr (FW_DTYPE_BOOL, 1, D (3), V (1, 0, 1)), scalar (FW_DTYPE_INT64, 7),
            arr (FW_DTYPE_INT64, 2, D (2, 1), V (8, 9)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_INT64, 2, D (2, 3), V (7, 8, 7, 7, 9, 7), 0);
  case_new (&c, "Where", 16, 1, arr (FW_DTYPE_BOOL, 1, D (2), V (1, 0)), arr (FW_DTYPE_FLOAT16, 1, D (2), V (1, 2)),
            arr (FW_DTYPE_FLOAT16, 1, D (2), V (3, 4)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT16, 1, D (2), V (1, 4), 0);
  case_new (&c, "Where", 16, 1, arr (FW_DTYPE_FLOAT, 1, D (1), V (1)), scalar (FW_DTYPE_FLOAT, 1),
            scalar (FW_DTYPE_FLOAT, 2), NULL);
  case_fails (&c, "bool");
  case_new (&c, "Where", 16, 1, arr (FW_DTYPE_BOOL, 1, D (1), V (1)), scalar (FW_DTYPE_FLOAT, 1),
            scalar (FW_DTYPE_INT32, 2), NULL);
  case_fails (&c, "different types");
}

static void
test_variadic (void)
{
  Case c;

  case_new (&c, "Sum", 13, 1, arr (FW_DTYPE_FLOAT, 2, D (2, 1), V (1, 2)), arr (FW_DTYPE_FLOAT, 1, D (3), V (10, 20, 30)),
            scalar (FW_DTYPE_FLOAT, 100), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 2, D (2, 3), V (111, 121, 131, 112, 122, 132), 0);
  case_new (&c, "Mean", 13, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (1, 2)), arr (FW_DTYPE_FLOAT, 1, D (2), V (2, 4)),
            arr (FW_DTYPE_FLOAT, 1, D (1), V (3)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (2), V (2, 3), 1e-7);
  case_new (&c, "Max", 13, 1, arr (FW_DTYPE_FLOAT, 1, D (3), V (1, NAN, 5)), arr (FW_DTYPE_FLOAT, 1, D (3), V (2, 0, NAN)),
            NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (3), V (2, NAN, NAN), 0);
  case_new (&c, "Min", 13, 1, arr (FW_DTYPE_INT32, 1, D (3), V (1, -4, 5)), scalar (FW_DTYPE_INT32, 0),
            arr (FW_DTYPE_INT32, 2, D (2, 1), V (3, -9)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_INT32, 2, D (2, 3), V (0, -4, 0, -9, -9, -9), 0);
  case_new (&c, "Max", 13, 1, arr (FW_DTYPE_FLOAT16, 1, D (2), V (1, -2)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT16, 1, D (2), V (1, -2), 0);
  case_new (&c, "Mean", 13, 1, arr (FW_DTYPE_FLOAT16, 1, D (2), V (1, -2)), arr (FW_DTYPE_FLOAT16, 1, D (2), V (2, 0)),
            NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT16, 1, D (2), V (1.5, -1), 0);
  case_new (&c, "Mean", 13, 1, arr (FW_DTYPE_INT32, 1, D (2), V (1, 2)), arr (FW_DTYPE_INT32, 1, D (2), V (1, 2)),
            NULL);
  case_fails (&c, "int32");
  case_new (&c, "Sum", 13, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (1, 2)), arr (FW_DTYPE_DOUBLE, 1, D (2), V (1, 2)), NULL);
  case_fails (&c, "different types");
}

/* ---- Clip ---- */

static void
test_clip (void)
{
  Case c;
  FwNode *n;

  /* Opset 6: bounds are attributes. */
  n = case_new (&c, "Clip", 6, 1, arr (FW_DTYPE_FLOAT, 1, D (4), V (-5, 0.5, 5, NAN)), NULL);
  fw_node_set_attr_float (n, "min", -1);
  fw_node_set_attr_float (n, "max", 1);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (4), V (-1, 0.5, 1, NAN), 0);
  n = case_new (&c, "Clip", 6, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (-5, 1e30)), NULL);
  fw_node_set_attr_float (n, "min", 0);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (2), V (0, 1e30), 1e-7);
  /* Opset 13: optional inputs; attributes are ignored. */
  n = case_new (&c, "Clip", 13, 1, arr (FW_DTYPE_FLOAT, 1, D (3), V (-5, 0.5, 5)), OMIT, scalar (FW_DTYPE_FLOAT, 2),
                NULL);
  fw_node_set_attr_float (n, "max", 0);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (3), V (-5, 0.5, 2), 0);
  case_new (&c, "Clip", 13, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (-5, 5)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (2), V (-5, 5), 0);
  case_new (&c, "Clip", 13, 1, arr (FW_DTYPE_INT64, 1, D (3), V (-5, 3, 9)), scalar (FW_DTYPE_INT64, 0),
            scalar (FW_DTYPE_INT64, 6), NULL);
  check (case_run (&c, NULL), FW_DTYPE_INT64, 1, D (3), V (0, 3, 6), 0);
  case_new (&c, "Clip", 13, 1, arr (FW_DTYPE_UINT8, 1, D (2), V (1, 200)), OMIT, scalar (FW_DTYPE_UINT8, 100), NULL);
  check (case_run (&c, NULL), FW_DTYPE_UINT8, 1, D (2), V (1, 100), 0);
  case_new (&c, "Clip", 13, 1, arr (FW_DTYPE_FLOAT16, 1, D (2), V (-3, 3)), scalar (FW_DTYPE_FLOAT16, -1),
            scalar (FW_DTYPE_FLOAT16, 1), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT16, 1, D (2), V (-1, 1), 0);
  /* min above max gives max, as std::min (std::max (x, min), max). */
  case_new (&c, "Clip", 13, 1, arr (FW_DTYPE_FLOAT, 1, D (1), V (0)), scalar (FW_DTYPE_FLOAT, 2),
            scalar (FW_DTYPE_FLOAT, 1), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (1), V (1), 0);
  case_new (&c, "Clip", 13, 1, arr (FW_DTYPE_FLOAT, 1, D (1), V (0)), scalar (FW_DTYPE_DOUBLE, 2), NULL);
  case_fails (&c, "type");
  case_new (&c, "Clip", 6, 1, arr (FW_DTYPE_INT32, 1, D (1), V (0)), NULL);
  case_fails (&c, "int32");
}

/* ---- Cast ---- */

static void
test_cast (void)
{
  Case c;
  FwNode *n;

  n = case_new (&c, "Cast", 19, 1, arr (FW_DTYPE_FLOAT, 1, D (5), V (1.9, -1.9, 0, NAN, 300)), NULL);
  fw_node_set_attr_int (n, "to", FW_DTYPE_INT32);
  check (case_run (&c, NULL), FW_DTYPE_INT32, 1, D (5), V (1, -1, 0, 0, 300), 0);
  n = case_new (&c, "Cast", 19, 1, arr (FW_DTYPE_FLOAT, 1, D (3), V (1.0 / 3, 65504, 1e6)), NULL);
  fw_node_set_attr_int (n, "to", FW_DTYPE_FLOAT16);
  fw_node_set_attr_int (n, "saturate", 0);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT16, 1, D (3), V (0.333251953125, 65504, INFINITY), 0);
  n = case_new (&c, "Cast", 13, 1, arr (FW_DTYPE_FLOAT16, 1, D (2), V (2.5, -7)), NULL);
  fw_node_set_attr_int (n, "to", FW_DTYPE_INT8);
  check (case_run (&c, NULL), FW_DTYPE_INT8, 1, D (2), V (2, -7), 0);
  n = case_new (&c, "Cast", 13, 1, arr (FW_DTYPE_INT64, 1, D (3), V (0, 5, -1)), NULL);
  fw_node_set_attr_int (n, "to", FW_DTYPE_BOOL);
  check (case_run (&c, NULL), FW_DTYPE_BOOL, 1, D (3), V (0, 1, 1), 0);
  n = case_new (&c, "Cast", 13, 1, arr (FW_DTYPE_BOOL, 1, D (2), V (1, 0)), NULL);
  fw_node_set_attr_int (n, "to", FW_DTYPE_FLOAT);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (2), V (1, 0), 0);
  n = case_new (&c, "Cast", 13, 1, arr (FW_DTYPE_INT32, 1, D (2), V (257, -1)), NULL);
  fw_node_set_attr_int (n, "to", FW_DTYPE_UINT8);
  check (case_run (&c, NULL), FW_DTYPE_UINT8, 1, D (2), V (1, 255), 0);
  n = case_new (&c, "Cast", 13, 1, arr (FW_DTYPE_DOUBLE, 1, D (2), V (0.1, -2.5)), NULL);
  fw_node_set_attr_int (n, "to", FW_DTYPE_BFLOAT16);
  check (case_run (&c, NULL), FW_DTYPE_BFLOAT16, 1, D (2), V (0.10009765625, -2.5), 0);
  n = case_new (&c, "Cast", 13, 1, arr (FW_DTYPE_FLOAT16, 1, D (2), V (0.5, 1)), NULL);
  fw_node_set_attr_int (n, "to", FW_DTYPE_BFLOAT16);
  check (case_run (&c, NULL), FW_DTYPE_BFLOAT16, 1, D (2), V (0.5, 1), 0);
  {
    FwArray *out;

    n = case_new (&c, "Cast", 13, 1, arr (FW_DTYPE_DOUBLE, 1, D (2), V (1e30, -1e30)), NULL);
    fw_node_set_attr_int (n, "to", FW_DTYPE_INT64);
    out = case_run (&c, NULL);
    g_assert_cmpint (((gint64 *) out->data)[0], ==, G_MAXINT64);
    g_assert_cmpint (((gint64 *) out->data)[1], ==, G_MININT64);
    fw_array_unref (out);
  }
  case_new (&c, "CastLike", 15, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (1.5, -2.5)), scalar (FW_DTYPE_INT64, 0), NULL);
  check (case_run (&c, NULL), FW_DTYPE_INT64, 1, D (2), V (1, -2), 0);
  case_new (&c, "CastLike", 15, 1, arr (FW_DTYPE_INT32, 1, D (1), V (3)), arr (FW_DTYPE_FLOAT16, 1, D (1), V (0)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT16, 1, D (1), V (3), 0);
  n = case_new (&c, "Cast", 19, 1, arr (FW_DTYPE_FLOAT, 1, D (1), V (1)), NULL);
  fw_node_set_attr_int (n, "to", FW_DTYPE_FLOAT8E4M3FN);
  case_fails (&c, "float8");
  n = case_new (&c, "Cast", 19, 1, arr (FW_DTYPE_FLOAT, 1, D (1), V (1)), NULL);
  fw_node_set_attr_int (n, "to", 99);
  case_fails (&c, "to");
}

/* ---- unary math ---- */

typedef struct
{
  const char *op;
  double (*ref) (double);
  double lo, hi;
} MathCase;

static double ref_relu (double x) { return x < 0 ? 0 : x; }
static double ref_neg (double x) { return -x; }
static double ref_recip (double x) { return 1 / x; }
static double ref_sigmoid (double x) { return 1 / (1 + exp (-x)); }
static double ref_softplus (double x) { return log (1 + exp (x)); }
static double ref_softsign (double x) { return x / (1 + fabs (x)); }
static double ref_mish (double x) { return x * tanh (log (1 + exp (x))); }
static double ref_sign (double x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }
static double ref_hardswish (double x) { return x * fmax (0, fmin (1, x / 6 + 0.5)); }
static double ref_gelu (double x) { return 0.5 * x * (1 + erf (x / sqrt (2))); }

static const MathCase math_cases[] = {
  { "Abs", fabs, -3, 3 }, { "Acos", acos, -0.9, 0.9 }, { "Acosh", acosh, 1, 5 }, { "Asin", asin, -0.9, 0.9 },
  { "Asinh", asinh, -3, 3 }, { "Atan", atan, -3, 3 }, { "Atanh", atanh, -0.9, 0.9 }, { "Ceil", ceil, -3, 3 },
  { "Cos", cos, -3, 3 }, { "Cosh", cosh, -3, 3 }, { "Erf", erf, -3, 3 }, { "Exp", exp, -3, 3 },
  { "Floor", floor, -3, 3 }, { "Log", log, 0.1, 5 }, { "Neg", ref_neg, -3, 3 }, { "Reciprocal", ref_recip, 0.5, 4 },
  { "Relu", ref_relu, -3, 3 }, { "Sigmoid", ref_sigmoid, -8, 8 }, { "Sign", ref_sign, -3, 3 }, { "Sin", sin, -3, 3 },
  { "Sinh", sinh, -3, 3 }, { "Softplus", ref_softplus, -8, 8 }, { "Softsign", ref_softsign, -3, 3 },
  { "Sqrt", sqrt, 0, 9 }, { "Tan", tan, -1.2, 1.2 }, { "Tanh", tanh, -3, 3 }, { "Mish", ref_mish, -5, 5 },
  { "HardSwish", ref_hardswish, -5, 5 }, { "Gelu", ref_gelu, -4, 4 },
};

static void
test_unary_math (void)
{
  for (guint k = 0; k < G_N_ELEMENTS (math_cases); k++)
    for (guint t = 0; t < 3; t++)
      {
        static const FwDType types[] = { FW_DTYPE_FLOAT, FW_DTYPE_DOUBLE, FW_DTYPE_FLOAT16 };
        const MathCase *m = &math_cases[k];
        double x[17], want[17];
        Case c;
        FwArray *in;

        for (guint i = 0; i < G_N_ELEMENTS (x); i++)
          x[i] = m->lo + (m->hi - m->lo) * i / (G_N_ELEMENTS (x) - 1) + 0.01;
        in = arr (types[t], 1, D (G_N_ELEMENTS (x)), x);
        for (guint i = 0; i < G_N_ELEMENTS (x); i++)
          want[i] = m->ref (fw_array_get_double (in, i));
        case_new (&c, m->op, 20, 1, in, NULL);
        check (case_run (&c, NULL), types[t], 1, D (G_N_ELEMENTS (x)), want,
               types[t] == FW_DTYPE_FLOAT16 ? 2e-3 : (types[t] == FW_DTYPE_FLOAT ? 2e-6 : 1e-12));
      }
}

static void
test_round (void)
{
  Case c;

  case_new (&c, "Round", 11, 1, arr (FW_DTYPE_FLOAT, 1, D (8), V (-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.6, -2.4)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (8), V (-2, -2, -0, 0, 2, 2, 3, -2), 0);
  case_new (&c, "Round", 11, 1, arr (FW_DTYPE_FLOAT16, 1, D (2), V (0.5, 3.5)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT16, 1, D (2), V (0, 4), 0);
}

static void
test_unary_ints (void)
{
  Case c;

  case_new (&c, "Abs", 13, 1, arr (FW_DTYPE_INT32, 1, D (3), V (-3, 4, G_MININT32)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_INT32, 1, D (3), V (3, 4, G_MININT32), 0);
  case_new (&c, "Neg", 13, 1, arr (FW_DTYPE_INT8, 1, D (3), V (-3, 4, -128)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_INT8, 1, D (3), V (3, -4, -128), 0);
  case_new (&c, "Sign", 13, 1, arr (FW_DTYPE_INT64, 1, D (3), V (-3, 0, 9)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_INT64, 1, D (3), V (-1, 0, 1), 0);
  case_new (&c, "Relu", 14, 1, arr (FW_DTYPE_INT32, 1, D (2), V (-3, 9)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_INT32, 1, D (2), V (0, 9), 0);
  case_new (&c, "Abs", 13, 1, arr (FW_DTYPE_UINT16, 1, D (1), V (9)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_UINT16, 1, D (1), V (9), 0);
  case_new (&c, "Neg", 13, 1, arr (FW_DTYPE_UINT8, 1, D (1), V (9)), NULL);
  case_fails (&c, "uint8");
  case_new (&c, "Exp", 13, 1, arr (FW_DTYPE_INT32, 1, D (1), V (9)), NULL);
  case_fails (&c, "int32");
}

static void
test_is (void)
{
  Case c;
  FwNode *n;

  case_new (&c, "IsNaN", 13, 1, arr (FW_DTYPE_FLOAT, 1, D (3), V (NAN, 1, INFINITY)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_BOOL, 1, D (3), V (1, 0, 0), 0);
  case_new (&c, "IsNaN", 13, 1, arr (FW_DTYPE_FLOAT16, 1, D (2), V (NAN, 1)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_BOOL, 1, D (2), V (1, 0), 0);
  case_new (&c, "IsInf", 10, 1, arr (FW_DTYPE_DOUBLE, 1, D (4), V (-INFINITY, INFINITY, NAN, 1)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_BOOL, 1, D (4), V (1, 1, 0, 0), 0);
  n = case_new (&c, "IsInf", 10, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (-INFINITY, INFINITY)), NULL);
  fw_node_set_attr_int (n, "detect_negative", 0);
  check (case_run (&c, NULL), FW_DTYPE_BOOL, 1, D (2), V (0, 1), 0);
  n = case_new (&c, "IsInf", 10, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (-INFINITY, INFINITY)), NULL);
  fw_node_set_attr_int (n, "detect_positive", 0);
  check (case_run (&c, NULL), FW_DTYPE_BOOL, 1, D (2), V (1, 0), 0);
}

/* ---- activations with attributes ---- */

static void
test_activations (void)
{
  Case c;
  FwNode *n;
  const double selu_a = 1.67326319217681884765625, selu_g = 1.05070102214813232421875;

  case_new (&c, "Elu", 6, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (-1, 2)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (2), V (exp (-1) - 1, 2), 1e-6);
  n = case_new (&c, "Elu", 6, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (-1, 2)), NULL);
  fw_node_set_attr_float (n, "alpha", 2);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (2), V (2 * (exp (-1) - 1), 2), 1e-6);
  case_new (&c, "Celu", 12, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (-1, 2)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (2), V (exp (-1) - 1, 2), 1e-6);
  n = case_new (&c, "Celu", 12, 1, arr (FW_DTYPE_FLOAT, 1, D (1), V (-1)), NULL);
  fw_node_set_attr_float (n, "alpha", 2);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (1), V (2 * (exp (-0.5) - 1)), 1e-6);
  case_new (&c, "Selu", 6, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (-1, 2)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (2), V (selu_g * selu_a * (exp (-1) - 1), selu_g * 2), 1e-6);
  case_new (&c, "LeakyRelu", 6, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (-1, 2)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (2), V (-0.01, 2), 1e-7);
  n = case_new (&c, "LeakyRelu", 16, 1, arr (FW_DTYPE_FLOAT16, 1, D (2), V (-1, 2)), NULL);
  fw_node_set_attr_float (n, "alpha", 0.5);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT16, 1, D (2), V (-0.5, 2), 0);
  case_new (&c, "ThresholdedRelu", 10, 1, arr (FW_DTYPE_FLOAT, 1, D (3), V (0.5, 1, 1.5)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (3), V (0, 0, 1.5), 0);
  case_new (&c, "HardSigmoid", 6, 1, arr (FW_DTYPE_FLOAT, 1, D (3), V (-5, 1, 5)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (3), V (0, 0.7, 1), 1e-6);
  n = case_new (&c, "HardSigmoid", 6, 1, arr (FW_DTYPE_FLOAT, 1, D (1), V (1)), NULL);
  fw_node_set_attr_float (n, "alpha", 0.1);
  fw_node_set_attr_float (n, "beta", 0.2);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (1), V (0.3), 1e-6);
  n = case_new (&c, "Gelu", 20, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (-1, 1)), NULL);
  fw_node_set_attr_string (n, "approximate", "tanh");
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (2),
         V (-0.5 * (1 - tanh (sqrt (2 / G_PI) * (1 + 0.044715))), 0.5 * (1 + tanh (sqrt (2 / G_PI) * (1 + 0.044715)))),
         1e-6);
  n = case_new (&c, "Gelu", 20, 1, arr (FW_DTYPE_FLOAT, 1, D (1), V (1)), NULL);
  fw_node_set_attr_string (n, "approximate", "fast");
  case_fails (&c, "approximate");
}

static void
test_shrink (void)
{
  Case c;
  FwNode *n;

  case_new (&c, "Shrink", 9, 1, arr (FW_DTYPE_FLOAT, 1, D (4), V (-1, -0.5, 0.25, 2)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (4), V (-1, 0, 0, 2), 0);
  n = case_new (&c, "Shrink", 9, 1, arr (FW_DTYPE_FLOAT, 1, D (3), V (-2, 0.5, 2)), NULL);
  fw_node_set_attr_float (n, "lambd", 1);
  fw_node_set_attr_float (n, "bias", 0.5);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (3), V (-1.5, 0, 1.5), 0);
  n = case_new (&c, "Shrink", 9, 1, arr (FW_DTYPE_INT32, 1, D (3), V (-5, 1, 5)), NULL);
  fw_node_set_attr_float (n, "lambd", 1.5);
  fw_node_set_attr_float (n, "bias", 2);
  check (case_run (&c, NULL), FW_DTYPE_INT32, 1, D (3), V (-3, 0, 3), 0);
}

/* ---- pass-through ops ---- */

static void
test_identity_dropout (void)
{
  Case c;
  FwNode *n;
  FwArray *mask = NULL;
  g_autoptr(GError) error = NULL;
  FwArray *out[2] = { NULL };

  case_new (&c, "Identity", 16, 1, arr (FW_DTYPE_INT64, 1, D (2), V (4, 5)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_INT64, 1, D (2), V (4, 5), 0);
  case_new (&c, "Dropout", 13, 2, arr (FW_DTYPE_FLOAT, 1, D (2), V (4, 5)), NULL);
  check (case_run (&c, &mask), FW_DTYPE_FLOAT, 1, D (2), V (4, 5), 0);
  check (mask, FW_DTYPE_BOOL, 1, D (2), V (1, 1), 0);
  /* Training with a ratio of 0 drops nothing. */
  case_new (&c, "Dropout", 13, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (4, 5)), scalar (FW_DTYPE_FLOAT, 0),
            scalar (FW_DTYPE_BOOL, 1), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 1, D (2), V (4, 5), 0);
  case_new (&c, "Dropout", 13, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (4, 5)), scalar (FW_DTYPE_FLOAT, 0.5),
            scalar (FW_DTYPE_BOOL, 1), NULL);
  case_fails (&c, "training");
  /* Opset 7: the mask has the input's type (shape inference not run: it says bool for every opset). */
  n = case_new (&c, "Dropout", 7, 2, arr (FW_DTYPE_FLOAT, 1, D (2), V (4, 5)), NULL);
  fw_node_set_attr_float (n, "ratio", 0.3f);
  g_assert_true (case_run_full (&c, FALSE, out, &error));
  g_assert_no_error (error);
  case_clear (&c);
  check (out[0], FW_DTYPE_FLOAT, 1, D (2), V (4, 5), 0);
  check (out[1], FW_DTYPE_FLOAT, 1, D (2), V (1, 1), 0);
}

/* ---- BatchNormalization and PRelu ---- */

static void
test_batch_norm (void)
{
  Case c;
  FwNode *n;
  double want[8];
  const double x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

  /* x [2,2,2], per channel scale (1, 2), B (0, 1), mean (1, 2), var (4, 1), epsilon 0. */
  for (guint i = 0; i < 8; i++)
    {
      guint ch = (i / 2) % 2;
      double scale = ch ? 2 : 1, b = ch ? 1 : 0, mean = ch ? 2 : 1, var = ch ? 1 : 4;

      want[i] = (x[i] - mean) / sqrt (var) * scale + b;
    }
  n = case_new (&c, "BatchNormalization", 15, 1, arr (FW_DTYPE_FLOAT, 3, D (2, 2, 2), x),
                arr (FW_DTYPE_FLOAT, 1, D (2), V (1, 2)), arr (FW_DTYPE_FLOAT, 1, D (2), V (0, 1)),
                arr (FW_DTYPE_FLOAT, 1, D (2), V (1, 2)), arr (FW_DTYPE_FLOAT, 1, D (2), V (4, 1)), NULL);
  fw_node_set_attr_float (n, "epsilon", 0);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 3, D (2, 2, 2), want, 1e-6);
  n = case_new (&c, "BatchNormalization", 15, 1, arr (FW_DTYPE_FLOAT16, 3, D (2, 2, 2), x),
                arr (FW_DTYPE_FLOAT16, 1, D (2), V (1, 2)), arr (FW_DTYPE_FLOAT16, 1, D (2), V (0, 1)),
                arr (FW_DTYPE_FLOAT, 1, D (2), V (1, 2)), arr (FW_DTYPE_FLOAT, 1, D (2), V (4, 1)), NULL);
  fw_node_set_attr_float (n, "epsilon", 0);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT16, 3, D (2, 2, 2), want, 1e-3);
  /* The default epsilon is 1e-5. */
  case_new (&c, "BatchNormalization", 9, 1, arr (FW_DTYPE_DOUBLE, 2, D (1, 1), V (2)), arr (FW_DTYPE_DOUBLE, 1, D (1), V (1)),
            arr (FW_DTYPE_DOUBLE, 1, D (1), V (0)), arr (FW_DTYPE_DOUBLE, 1, D (1), V (0)),
            arr (FW_DTYPE_DOUBLE, 1, D (1), V (1)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_DOUBLE, 2, D (1, 1), V (2 / sqrt (1 + 1e-5)), 1e-9);
  n = case_new (&c, "BatchNormalization", 15, 1, arr (FW_DTYPE_FLOAT, 2, D (1, 1), V (2)),
                arr (FW_DTYPE_FLOAT, 1, D (1), V (1)), arr (FW_DTYPE_FLOAT, 1, D (1), V (0)),
                arr (FW_DTYPE_FLOAT, 1, D (1), V (0)), arr (FW_DTYPE_FLOAT, 1, D (1), V (1)), NULL);
  fw_node_set_attr_int (n, "training_mode", 1);
  case_fails (&c, "training");
  case_new (&c, "BatchNormalization", 9, 3, arr (FW_DTYPE_FLOAT, 2, D (1, 1), V (2)),
            arr (FW_DTYPE_FLOAT, 1, D (1), V (1)), arr (FW_DTYPE_FLOAT, 1, D (1), V (0)),
            arr (FW_DTYPE_FLOAT, 1, D (1), V (0)), arr (FW_DTYPE_FLOAT, 1, D (1), V (1)), NULL);
  case_fails (&c, "training");
  case_new (&c, "BatchNormalization", 15, 1, arr (FW_DTYPE_FLOAT, 2, D (1, 2), V (2, 3)),
            arr (FW_DTYPE_FLOAT, 1, D (1), V (1)), arr (FW_DTYPE_FLOAT, 1, D (1), V (0)),
            arr (FW_DTYPE_FLOAT, 1, D (1), V (0)), arr (FW_DTYPE_FLOAT, 1, D (1), V (1)), NULL);
  case_fails (&c, "elements");
}

static void
test_prelu (void)
{
  Case c;

  case_new (&c, "PRelu", 16, 1, arr (FW_DTYPE_FLOAT, 4, D (1, 2, 1, 2), V (-1, 2, -3, 4)),
            arr (FW_DTYPE_FLOAT, 3, D (2, 1, 1), V (0.5, 0.25)), NULL);
  check (case_run (&c, NULL), FW_DTYPE_FLOAT, 4, D (1, 2, 1, 2), V (-0.5, 2, -0.75, 4), 0);
  case_new (&c, "PRelu", 16, 1, arr (FW_DTYPE_INT32, 1, D (2), V (-4, 4)), scalar (FW_DTYPE_INT32, 3), NULL);
  check (case_run (&c, NULL), FW_DTYPE_INT32, 1, D (2), V (-12, 4), 0);
  case_new (&c, "PRelu", 16, 1, arr (FW_DTYPE_FLOAT, 1, D (2), V (-1, 2)), arr (FW_DTYPE_FLOAT, 2, D (2, 2), V (1, 1, 1, 1)),
            NULL);
  case_fails (&c, "slope");
}

/* ---- speed, with -m perf only: prints, never asserts times ---- */

static void
perf_one (const char *op, guint rank_a, const gint64 *da, guint rank_b, const gint64 *db)
{
  Case c;
  FwArray *a = fw_array_new0 (FW_DTYPE_FLOAT, rank_a, da, NULL);
  FwArray *b = db != NULL ? fw_array_new0 (FW_DTYPE_FLOAT, rank_b, db, NULL) : NULL;
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (0, NULL);
  FwArray *ins[2], *out[2] = { NULL };
  double best = G_MAXDOUBLE;

  for (gint64 i = 0; i < a->n_elements; i++)
    ((float *) a->data)[i] = (float) (i % 97) * 0.01f + 0.5f;
  if (b != NULL)
    case_new (&c, op, 20, 1, a, b, NULL);
  else
    case_new (&c, op, 20, 1, a, NULL);
  g_assert_true (fw_graph_link (fw_model_get_graph (c.model), NULL));
  g_assert_true (fw_test_infer (c.model, NULL, NULL, NULL));
  ins[0] = a;
  ins[1] = b;
  for (guint r = 0; r < 7; r++)
    {
      gint64 t0 = g_get_monotonic_time ();

      g_assert_true (fw_exec_run_node (ctx, c.node, ins, out, NULL));
      best = MIN (best, (g_get_monotonic_time () - t0) / 1e6);
      fw_array_unref (out[0]);
    }
  g_test_message ("%-8s %9" G_GINT64_FORMAT " elements: %8.3f ms, %6.2f GB/s", op, a->n_elements, best * 1e3,
                  (a->n_bytes * (b ? 3.0 : 2.0)) / best / 1e9);
  case_clear (&c);
}

static void
test_perf (void)
{
  if (!g_test_perf ())
    {
      g_test_skip ("run with -m perf");
      return;
    }
  perf_one ("Add", 2, D (4096, 1024), 2, D (4096, 1024));
  perf_one ("Add", 2, D (4096, 1024), 1, D (1024));
  perf_one ("Add", 2, D (4096, 1024), 2, D (4096, 1));
  perf_one ("Mul", 2, D (4096, 1024), 0, D (1));
  perf_one ("Add", 3, D (64, 64, 1024), 3, D (64, 1, 1024));
  perf_one ("Relu", 2, D (4096, 1024), 0, NULL);
  perf_one ("Sigmoid", 2, D (4096, 1024), 0, NULL);
  perf_one ("Gelu", 2, D (4096, 1024), 0, NULL);
  perf_one ("Tanh", 2, D (4096, 1024), 0, NULL);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/exec/elementwise/table", test_table);
  g_test_add_func ("/core/exec/elementwise/add/same", test_add_same);
  g_test_add_func ("/core/exec/elementwise/add/scalar", test_add_scalar);
  g_test_add_func ("/core/exec/elementwise/add/row", test_add_row);
  g_test_add_func ("/core/exec/elementwise/add/column", test_add_column);
  g_test_add_func ("/core/exec/elementwise/add/broadcast-nd", test_add_nd);
  g_test_add_func ("/core/exec/elementwise/add/large", test_add_large);
  g_test_add_func ("/core/exec/elementwise/add/ints", test_add_ints);
  g_test_add_func ("/core/exec/elementwise/add/float16", test_add_float16);
  g_test_add_func ("/core/exec/elementwise/add/errors", test_add_errors);
  g_test_add_func ("/core/exec/elementwise/div", test_div);
  g_test_add_func ("/core/exec/elementwise/mod", test_mod);
  g_test_add_func ("/core/exec/elementwise/pow", test_pow);
  g_test_add_func ("/core/exec/elementwise/bitwise", test_bitwise);
  g_test_add_func ("/core/exec/elementwise/logical", test_logical);
  g_test_add_func ("/core/exec/elementwise/compare", test_compare);
  g_test_add_func ("/core/exec/elementwise/where", test_where);
  g_test_add_func ("/core/exec/elementwise/variadic", test_variadic);
  g_test_add_func ("/core/exec/elementwise/clip", test_clip);
  g_test_add_func ("/core/exec/elementwise/cast", test_cast);
  g_test_add_func ("/core/exec/elementwise/unary/math", test_unary_math);
  g_test_add_func ("/core/exec/elementwise/unary/round", test_round);
  g_test_add_func ("/core/exec/elementwise/unary/ints", test_unary_ints);
  g_test_add_func ("/core/exec/elementwise/unary/is", test_is);
  g_test_add_func ("/core/exec/elementwise/activations", test_activations);
  g_test_add_func ("/core/exec/elementwise/shrink", test_shrink);
  g_test_add_func ("/core/exec/elementwise/identity-dropout", test_identity_dropout);
  g_test_add_func ("/core/exec/elementwise/batch-norm", test_batch_norm);
  g_test_add_func ("/core/exec/elementwise/prelu", test_prelu);
  g_test_add_func ("/core/exec/elementwise/perf", test_perf);
  return g_test_run ();
}
