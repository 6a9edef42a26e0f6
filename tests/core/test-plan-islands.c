/* The planner on float32 islands in float16 models (tests/real/convert-half.py --keep-float32): a Softmax or
 * a norm's ReduceMean wrapped in Cast(to float32) … Cast(to float16) fuses with the half code around it into
 * one group, the Casts being its load and store conversions, priced with the half bytes it moves. */
#include "config.h"

#include <string.h>

#include "fw-test-models.h"
#include "plan/fw-plan.h"

#define ROWS 64
#define ROW 256

static const FwDim dims[2] = { FW_DIM_STATIC (ROWS), FW_DIM_STATIC (ROW) };

static FwNode *
op (FwGraph *g, const char *type, const char *out, const char *a, const char *b)
{
  const char *in[2] = { a, b }, *outs[1] = { out };
  g_autofree char *name = g_strdup_printf ("/%s", out);

  return fw_graph_add_node (g, type, "", name, b ? 2 : 1, in, 1, outs, NULL);
}

static void
cast (FwGraph *g, const char *out, const char *in, FwDType to)
{
  fw_node_set_attr_int (op (g, "Cast", out, in, NULL), "to", to);
}

static void
half_scalar (FwGraph *g, const char *name, float value)
{
  guint16 h = fw_float_to_half (value);
  g_autoptr(GBytes) b = g_bytes_new (&h, sizeof h);
  g_autoptr(FwTensor) t = fw_tensor_new (FW_DTYPE_FLOAT16, 0, NULL, b);

  fw_graph_add_initializer (g, name, t, NULL);
}

static void
reduce_mean (FwGraph *g, const char *out, const char *in)
{
  gint64 axes[1] = { -1 };

  fw_node_set_attr_ints (op (g, "ReduceMean", out, in, NULL), "axes", 1, axes);
}

static FwPlan *
plan_of (FwModel *model)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  FwGraph *g = fw_model_get_graph (model);
  FwPlanOptions options;
  FwPlan *plan;

  fw_graph_add_output (g, "y", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  fw_plan_options_init (&options);
  plan = fw_plan_new (model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  return plan;
}

static const FwCandidate *
with_ops (const FwPlan *plan, const char *ops)
{
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      g_autoptr(GString) s = g_string_new (NULL);
      for (guint k = 0; k < c->nodes->len; k++)
        g_string_append_printf (s, "%s%s", k ? "," : "", ((FwNode *) g_ptr_array_index (c->nodes, k))->op_type);
      if (g_test_verbose ())
        g_test_message ("candidate %u %s [%s] %s", c->index, c->kind, s->str, fw_candidate_status_name (c->status));
      if (strcmp (s->str, ops) == 0)
        return c;
    }
  return NULL;
}

/* A residual Add and a LayerNorm decomposed as torch exports it at opset 13, with float32 islands around
 * both ReduceMeans: x + r → Cast32 → mean → Cast16 → Sub → Pow → Cast32 → mean → Cast16 → +eps → Sqrt → Div.
 * Four of the operators on the reduced rows are Casts; they are conversions, not counted against the three
 * a reduction may carry (FW-NF-015), so the whole norm is one group reading x and r as float16. */
static void
test_layernorm (void)
{
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(FwPlan) plan = NULL;
  const FwCandidate *c;

  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT16, 2, dims, NULL);
  fw_graph_add_input (g, "r", FW_DTYPE_FLOAT16, 2, dims, NULL);
  half_scalar (g, "two", 2.0f);
  half_scalar (g, "eps", 1e-5f);
  op (g, "Add", "s", "x", "r");
  cast (g, "s32", "s", FW_DTYPE_FLOAT);
  reduce_mean (g, "m32", "s32");
  cast (g, "m", "m32", FW_DTYPE_FLOAT16);
  op (g, "Sub", "d", "s", "m");
  op (g, "Pow", "p", "d", "two");
  cast (g, "p32", "p", FW_DTYPE_FLOAT);
  reduce_mean (g, "v32", "p32");
  cast (g, "v", "v32", FW_DTYPE_FLOAT16);
  op (g, "Add", "e", "v", "eps");
  op (g, "Sqrt", "q", "e", NULL);
  op (g, "Div", "y", "d", "q");
  plan = plan_of (model);
  c = with_ops (plan, "Add,Cast,ReduceMean,Cast,Sub,Pow,Cast,ReduceMean,Cast,Add,Sqrt,Div");
  g_assert_nonnull (c);
  g_assert_cmpstr (c->kind, ==, "reduce_broadcast");
  g_assert_cmpint (c->status, ==, FW_CANDIDATE_PROPOSED);
  g_assert_cmpuint (plan->after.launches, ==, 1);
  /* x and r in, y out, at two bytes an element (and two half scalars). */
  g_assert_cmpfloat (plan->after.bytes_read, ==, 2.0 * ROWS * ROW * 2 + 2 * 2);
  g_assert_cmpfloat (plan->after.bytes_written, ==, 2.0 * ROWS * ROW);
}

/* scores = a · bᵀ in float16 → Cast32 → Softmax → Cast16 → · v: the Softmax group takes both Casts, and the
 * MatMul before it writes its scores as float16; had its epilogue taken the widening Cast, it would write
 * them in float32, twice the bytes, for the Softmax to read back. */
static void
test_softmax (void)
{
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim kd[2] = { FW_DIM_STATIC (ROW), FW_DIM_STATIC (ROW) };
  g_autoptr(FwPlan) plan = NULL;
  const FwCandidate *c;

  fw_graph_add_input (g, "a", FW_DTYPE_FLOAT16, 2, dims, NULL);
  fw_graph_add_input (g, "b", FW_DTYPE_FLOAT16, 2, kd, NULL);
  fw_graph_add_input (g, "v", FW_DTYPE_FLOAT16, 2, kd, NULL);
  op (g, "MatMul", "s", "a", "b");
  cast (g, "s32", "s", FW_DTYPE_FLOAT);
  fw_node_set_attr_int (op (g, "Softmax", "p32", "s32", NULL), "axis", -1);
  cast (g, "p", "p32", FW_DTYPE_FLOAT16);
  op (g, "MatMul", "y", "p", "v");
  plan = plan_of (model);
  c = with_ops (plan, "Cast,Softmax,Cast");
  g_assert_nonnull (c);
  g_assert_cmpint (c->status, ==, FW_CANDIDATE_PROPOSED);
  g_assert_null (with_ops (plan, "MatMul,Cast"));
}

/* The counter-case: Casts are not counted, but real operators still are. A mean followed by a Cast and
 * three operators on its rows (+eps → Sqrt → ×2) is one group; with a fourth (+eps) the reduction is
 * refused the chain (FW-NF-015) and keeps only its load conversion. */
static void
test_limit_still_counts (void)
{
  for (guint four = 0; four < 2; four++)
    {
      g_autoptr(FwModel) model = fw_test_model_new (13);
      FwGraph *g = fw_model_get_graph (model);
      g_autoptr(FwPlan) plan = NULL;
      guint refused = 0;

      fw_graph_add_input (g, "x", FW_DTYPE_FLOAT16, 2, dims, NULL);
      half_scalar (g, "two", 2.0f);
      half_scalar (g, "eps", 1e-5f);
      cast (g, "x32", "x", FW_DTYPE_FLOAT);
      reduce_mean (g, "m32", "x32");
      cast (g, "m", "m32", FW_DTYPE_FLOAT16);
      op (g, "Add", "a", "m", "eps");
      op (g, "Sqrt", "b", "a", NULL);
      op (g, "Mul", four ? "c" : "y", "b", "two");
      if (four)
        op (g, "Add", "y", "c", "eps");
      plan = plan_of (model);
      for (guint i = 0; i < plan->refusals->len; i++)
        refused += ((FwRefusal *) g_ptr_array_index (plan->refusals, i))->code == FW_NF_REDUCE_EPILOGUE;
      if (four)
        {
          g_assert_nonnull (with_ops (plan, "Cast,ReduceMean"));
          g_assert_cmpuint (refused, >=, 1);
        }
      else
        {
          g_assert_nonnull (with_ops (plan, "Cast,ReduceMean,Cast,Add,Sqrt,Mul"));
          g_assert_cmpuint (refused, ==, 0);
        }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/plan/islands/layernorm", test_layernorm);
  g_test_add_func ("/core/plan/islands/softmax", test_softmax);
  g_test_add_func ("/core/plan/islands/limit-still-counts", test_limit_still_counts);
  return g_test_run ();
}
