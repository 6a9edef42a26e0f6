/* test-codegen-host.c: host SuperKernels generated for planned groups, compiled with the system compiler
 * and compared with the reference kernels run node by node; the compiler failing, the cache tampered
 * with, and hostile names that must not change what is compiled. */
#include "config.h"

#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "codegen/host/fw-superkernel.h"
#include "exec/fw-exec.h"
#include "fw-error.h"
#include "fw-test-models.h"
#include "graph/fw-graph-private.h"
#include "plan/fw-kernel-spec-private.h"

typedef struct
{
  char            *dir;
  FwHostToolchain *toolchain;   /* NULL when no compiler was found */
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *cache = NULL;

  f->dir = fw_test_temp_dir ();
  cache = g_build_filename (f->dir, "kernels", NULL);
  f->toolchain = fw_host_toolchain_new (cache, &error);
  if (f->toolchain == NULL)
    g_test_message ("no toolchain: %s", error->message);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  fw_host_toolchain_free (f->toolchain);
  fw_test_remove_dir (f->dir);
  g_free (f->dir);
}

static FwNode *
node (FwGraph *g, const char *op, const char *name, const char *out, const char *a, const char *b, const char *c)
{
  const char *ins[3] = { a, b, c };
  const char *outs[1] = { out };
  guint n = c ? 3 : b ? 2 : 1;
  FwNode *nd = fw_graph_add_node (g, op, "", name, n, ins, 1, outs, NULL);

  g_assert_nonnull (nd);
  return nd;
}

static void
weight (FwGraph *g, GRand *rand, const char *name, guint rank, const gint64 *dims)
{
  fw_test_add_random_weight (g, rand, name, rank, dims, 1.0f);
}

static void
scalar (FwGraph *g, const char *name, float v)
{
  g_autoptr(FwTensor) t = fw_tensor_new_float (0, NULL, &v);
  g_assert_nonnull (fw_graph_add_initializer (g, name, t, NULL));
}

static void
input (FwGraph *g, const char *name, guint rank, const gint64 *dims)
{
  FwDim d[8];

  for (guint i = 0; i < rank; i++)
    d[i] = FW_DIM_STATIC (dims[i]);
  g_assert_nonnull (fw_graph_add_input (g, name, FW_DTYPE_FLOAT, rank, d, NULL));
}

static void
finish (FwModel *model, const char *out)
{
  g_autoptr(GError) error = NULL;
  FwGraph *g = fw_model_get_graph (model);

  g_assert_true (fw_graph_add_output (g, out, NULL));
  g_assert_true (fw_graph_link (g, &error));
  g_assert_no_error (error);
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
}

static FwArray *
random_array (FwValue *v, GRand *rand)
{
  g_autoptr(GError) error = NULL;
  gint64 dims[FW_MAX_RANK];
  FwArray *a;

  if (v->constant != NULL)
    {
      a = fw_array_new_from_tensor (v->constant, &error);
      g_assert_no_error (error);
      return a;
    }
  for (gint d = 0; d < v->rank; d++)
    dims[d] = v->dims[d].value;
  a = fw_array_new (v->dtype, v->rank, dims, &error);
  g_assert_no_error (error);
  for (gint64 i = 0; i < a->n_elements; i++)
    fw_array_set_double (a, i, fw_dtype_is_float (v->dtype) ? g_rand_double_range (rand, -1.0, 1.0)
                                                            : (gdouble) g_rand_int_range (rand, 0, 2));
  return a;
}

typedef enum { CHECK_OK, CHECK_SKIP_REFERENCE, CHECK_UNSUPPORTED, CHECK_COMPILE_FAILED, CHECK_MISMATCH } CheckResult;

/* Generates, compiles and runs one candidate and compares with the reference kernels node by node. */
/* The row scratch a kernel's threads allocate (its malloc of 8-byte slots) is the plan's: the values the
 * spec carries between passes, each one swept row long. */
static gint64
scratch_in_source (const char *source)
{
  const char *m = strstr (source, "malloc (sizeof (double) * ");
  return m != NULL ? g_ascii_strtoll (m + strlen ("malloc (sizeof (double) * "), NULL, 10) : 0;
}

static void
assert_scratch_is_spec (FwSuperKernel *k, const FwKernelSpec *spec)
{
  gint64 planned = (gint64) fw_kernel_spec_get_n_carried (spec) * fw_kernel_spec_get_sweep_row_elements (spec);

  g_assert_cmpint (fw_superkernel_get_scratch_elements (k), ==, planned);
  g_assert_cmpint (scratch_in_source (fw_kernel_source_get_main (fw_superkernel_get_kernel_source (k))), ==, planned);
}

static CheckResult
check_candidate (FwPlan *plan, const FwCandidate *cand, FwHostToolchain *tc, char **why)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwSuperKernel) k = NULL;
  g_autoptr(GHashTable) values = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) fw_array_unref);
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (2, NULL);
  g_autoptr(GRand) rand = g_rand_new_with_seed (7 + cand->index);
  g_autoptr(GPtrArray) ins = g_ptr_array_new ();
  g_autofree FwArray **outs = NULL;
  CheckResult result = CHECK_OK;

  for (guint i = 0; i < cand->nodes->len; i++)
    {
      FwNode *n = g_ptr_array_index (cand->nodes, i);
      if (fw_kernel_lookup (n->domain, n->op_type) == NULL)
        {
          *why = g_strdup_printf ("no reference kernel for %s", n->op_type);
          return CHECK_SKIP_REFERENCE;
        }
    }
  k = fw_superkernel_generate (plan, cand, &error);
  if (k == NULL)
    {
      *why = g_strdup (error->message);
      return CHECK_UNSUPPORTED;
    }
  assert_scratch_is_spec (k, cand->spec);
  /* FW_DUMP_SUPERKERNELS=DIR keeps each generated source for reading. */
  if (g_getenv ("FW_DUMP_SUPERKERNELS") != NULL)
    {
      g_autofree char *name = g_strdup_printf ("%s-%u.c", cand->kind, cand->index);
      g_autofree char *path = g_build_filename (g_getenv ("FW_DUMP_SUPERKERNELS"), name, NULL);
      g_file_set_contents (path, fw_kernel_source_get_main (fw_superkernel_get_kernel_source (k)), -1, NULL);
    }
  if (!fw_superkernel_compile (k, tc, &error))
    {
      *why = g_strdup (error->message);
      return CHECK_COMPILE_FAILED;
    }
  for (guint i = 0; i < fw_kernel_source_get_n_inputs (fw_superkernel_get_kernel_source (k)); i++)
    {
      FwValue *v = fw_kernel_source_get_input (fw_superkernel_get_kernel_source (k), i);
      FwArray *a = random_array (v, rand);
      g_hash_table_insert (values, v, a);
      g_ptr_array_add (ins, a);
    }
  outs = g_new0 (FwArray *, fw_kernel_source_get_n_outputs (fw_superkernel_get_kernel_source (k)) + 1);
  if (!fw_superkernel_run (k, (FwArray *const *) ins->pdata, outs, 2, &error))
    {
      *why = g_strdup (error->message);
      return CHECK_MISMATCH;
    }
  for (guint i = 0; i < cand->nodes->len; i++)
    {
      FwNode *n = g_ptr_array_index (cand->nodes, i);
      FwArray *in_arrays[16] = { NULL };
      FwArray *out_arrays[8] = { NULL };
      g_autoptr(GPtrArray) made = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_array_unref);

      g_assert_cmpuint (n->n_inputs, <=, 16);
      g_assert_cmpuint (n->n_outputs, <=, 8);
      for (guint s = 0; s < n->n_inputs; s++)
        {
          FwValue *v = n->inputs[s];
          if (v == NULL)
            continue;
          in_arrays[s] = g_hash_table_lookup (values, v);
          if (in_arrays[s] == NULL)
            {
              g_assert_nonnull (v->constant);
              in_arrays[s] = fw_array_new_from_tensor (v->constant, &error);
              g_assert_no_error (error);
              g_ptr_array_add (made, in_arrays[s]);
            }
        }
      if (!fw_exec_run_node (ctx, n, in_arrays, out_arrays, &error))
        {
          *why = g_strdup_printf ("reference %s failed: %s", n->op_type, error->message);
          result = CHECK_SKIP_REFERENCE;
          break;
        }
      for (guint s = 0; s < n->n_outputs; s++)
        if (out_arrays[s] != NULL)
          {
            if (n->outputs[s] != NULL)
              g_hash_table_insert (values, n->outputs[s], out_arrays[s]);
            else
              fw_array_unref (out_arrays[s]);
          }
    }
  for (guint o = 0; result == CHECK_OK && o < fw_kernel_source_get_n_outputs (fw_superkernel_get_kernel_source (k)); o++)
    {
      FwArray *want = g_hash_table_lookup (values, fw_kernel_source_get_output (fw_superkernel_get_kernel_source (k), o));
      FwArray *got = outs[o];
      gboolean half = FALSE;
      g_assert_nonnull (want);
      g_assert_true (fw_array_same_shape (want, got));
      /* A group that reads or writes half values keeps its intermediates in float32 where the reference
         rounds after each op: the two differ by half-precision rounding, also at a float32 output. */
      for (guint i = 0; i < ins->len; i++)
        half |= ((FwArray *) ins->pdata[i])->dtype == FW_DTYPE_FLOAT16 || ((FwArray *) ins->pdata[i])->dtype == FW_DTYPE_BFLOAT16;
      half |= got->dtype == FW_DTYPE_FLOAT16 || got->dtype == FW_DTYPE_BFLOAT16;
      for (gint64 i = 0; i < got->n_elements; i++)
        {
          double w = fw_array_get_double (want, i), x = fw_array_get_double (got, i);
          double tol = half ? 1e-2 + 1e-2 * fabs (w) : 1e-5 + 1e-4 * fabs (w);
          if (!(fabs (w - x) <= tol) && !(isnan (w) && isnan (x)))
            {
              *why = g_strdup_printf ("output %u element %" G_GINT64_FORMAT ": %.9g, reference %.9g", o, i, x, w);
              result = CHECK_MISMATCH;
              break;
            }
        }
    }
  for (guint o = 0; o < fw_kernel_source_get_n_outputs (fw_superkernel_get_kernel_source (k)); o++)
    g_clear_pointer (&outs[o], fw_array_unref);
  return result;
}

/* Every candidate of the plan must generate, compile and match, or skip for a missing reference kernel. */
static void
check_plan (Fixture *f, FwModel *model, FwStrategy strategy, guint min_candidates)
{
  g_autoptr(FwPlan) plan = fw_test_plan_with (model, strategy);
  guint checked = 0, skipped = 0;

  g_assert_cmpuint (plan->candidates->len, >=, min_candidates);
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      g_autofree char *why = NULL;
      CheckResult r = check_candidate (plan, c, f->toolchain, &why);

      if (r == CHECK_SKIP_REFERENCE)
        {
          g_test_message ("candidate %u (%s): skipped: %s", i, c->kind, why);
          skipped++;
          continue;
        }
      if (r != CHECK_OK)
        g_error ("candidate %u (%s, %u nodes): %s", i, c->kind, c->nodes->len, why);
      checked++;
    }
  if (checked == 0 && skipped > 0)
    g_test_skip ("reference kernels missing");
}

/* The graph's nodes, all of them, as one group (the planner may not group them, or not this way): it must
 * generate, compile and match the reference. `root`: the group's compute root, or NULL. */
static void
check_group (Fixture *f, FwModel *model, FwNode *root)
{
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(FwPlan) plan = fw_test_plan_with (model, FW_STRATEGY_BALANCED);
  g_autoptr(GPtrArray) nodes = g_ptr_array_new ();
  g_autofree char *why = NULL;
  FwCandidate fake = { 0 };
  CheckResult r;

  for (guint i = 0; i < fw_graph_get_n_nodes (g); i++)
    g_ptr_array_add (nodes, fw_graph_get_node (g, i));
  fake.nodes = nodes;
  fake.kind = (char *) (root ? "epilogue" : "elementwise_chain");
  fake.root = root;
  fake.spec = fw_plan_spec_for_nodes (plan, nodes, root);
  r = check_candidate (plan, &fake, f->toolchain, &why);
  fw_kernel_spec_free (fake.spec);
  if (r == CHECK_SKIP_REFERENCE)
    {
      g_test_skip (why);
      return;
    }
  if (r != CHECK_OK)
    g_error ("group of %u nodes: %s", nodes->len, why);
}

/* The message of the error generating the graph's nodes as one group gives, which must be unsupported. */
static char *
group_refusal (FwModel *model, FwNode *root)
{
  g_autoptr(GError) error = NULL;
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(FwPlan) plan = fw_test_plan_with (model, FW_STRATEGY_BALANCED);
  g_autoptr(GPtrArray) nodes = g_ptr_array_new ();
  g_autoptr(FwSuperKernel) k = NULL;
  FwCandidate fake = { 0 };

  for (guint i = 0; i < fw_graph_get_n_nodes (g); i++)
    g_ptr_array_add (nodes, fw_graph_get_node (g, i));
  fake.nodes = nodes;
  fake.kind = (char *) "elementwise_chain";
  fake.root = root;
  fake.spec = fw_plan_spec_for_nodes (plan, nodes, root);
  k = fw_superkernel_generate (plan, &fake, &error);
  fw_kernel_spec_free (fake.spec);
  g_assert_null (k);
  g_assert_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED);
  return g_strdup (error->message);
}

#define NEED_TOOLCHAIN(f)                                                                                  \
  if ((f)->toolchain == NULL)                                                                              \
    {                                                                                                      \
      g_test_skip ("no C compiler");                                                                       \
      return;                                                                                              \
    }

/* A chain with broadcasting: per-channel [3,1] and per-column [50] operands, scalars, a long vector. */
static FwModel *
broadcast_chain (gint64 n0, gint64 n2)
{
  FwModel *model = fw_test_model_new (17);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GRand) rand = g_rand_new_with_seed (3);
  gint64 x[3] = { n0, 3, n2 }, b[2] = { 3, 1 }, c[1] = { n2 };

  input (g, "x", 3, x);
  weight (g, rand, "b", 2, b);
  weight (g, rand, "c", 1, c);
  scalar (g, "half", 0.5f);
  scalar (g, "two", 2.0f);
  node (g, "Add", "n0", "t0", "x", "b", NULL);
  node (g, "Mul", "n1", "t1", "t0", "c", NULL);
  node (g, "Sigmoid", "n2", "t2", "t1", NULL, NULL);
  node (g, "Sub", "n3", "t3", "t2", "half", NULL);
  node (g, "Pow", "n4", "t4", "t3", "two", NULL);
  node (g, "Tanh", "n5", "t5", "t4", NULL, NULL);
  node (g, "HardSwish", "n6", "t6", "t5", NULL, NULL);
  node (g, "Div", "n7", "t7", "t6", "c", NULL);
  node (g, "LeakyRelu", "n8", "t8", "t7", NULL, NULL);
  node (g, "Erf", "n9", "y", "t8", NULL, NULL);
  finish (model, "y");
  return model;
}

static void
test_chain (Fixture *f, gconstpointer data)
{
  g_autoptr(FwModel) a = NULL, b = NULL, c = NULL;

  NEED_TOOLCHAIN (f);
  a = fw_test_elementwise_chain (8, 1000, FALSE);
  g_assert_true (fw_test_infer (a, NULL, NULL, NULL));
  check_plan (f, a, FW_STRATEGY_BALANCED, 1);
  b = broadcast_chain (4, 50);
  check_plan (f, b, FW_STRATEGY_BALANCED, 1);
  /* One long contiguous run, cut into chunks across threads. */
  c = fw_test_elementwise_chain (5, 40000, FALSE);
  g_assert_true (fw_test_infer (c, NULL, NULL, NULL));
  check_plan (f, c, FW_STRATEGY_BALANCED, 1);
}

/* Groups with injective members (test-index-map has their maps): a transposed store after a MatMul, a
 * strided slice read, a head split (reshape and transpose) and a gathered row, each kernel matching the
 * reference node by node. */
static void
test_index_maps (Fixture *f, gconstpointer data)
{
  static const FwTestIndexCase cases[] = {
    FW_TEST_INDEX_TRANSPOSE_EPILOGUE, FW_TEST_INDEX_SLICE_PROLOGUE, FW_TEST_INDEX_VIEW_TRANSPOSE,
    FW_TEST_INDEX_GATHER_ROW,
  };

  NEED_TOOLCHAIN (f);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(FwModel) model = fw_test_index_model (cases[i]);
      check_plan (f, model, FW_STRATEGY_BALANCED, 1);
    }
}

/* Fused attention (test-attention has its plan): one key block, the online softmax over 2,048 keys in
 * blocks, and Llama's block with the rotary embeddings and repeated heads computed as the operands load,
 * each kernel matching the reference node by node, the head merge written through its strides. */
static void
test_attention (Fixture *f, gconstpointer data)
{
  static const FwTestAttentionCase cases[] = {
    FW_TEST_ATTENTION_SHORT, FW_TEST_ATTENTION_LONG, FW_TEST_ATTENTION_ROTARY, FW_TEST_ATTENTION_ROTARY_SHAPED,
  };

  NEED_TOOLCHAIN (f);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(FwModel) model = fw_test_attention_model (cases[i]);
      g_autoptr(FwPlan) plan = fw_test_plan_with (model, FW_STRATEGY_BALANCED);
      guint n = 0;

      for (guint c = 0; c < plan->candidates->len; c++)
        if (strcmp (((FwCandidate *) g_ptr_array_index (plan->candidates, c))->kind, "attention") == 0)
          n++;
      g_assert_cmpuint (n, ==, 1);
      check_plan (f, model, FW_STRATEGY_BALANCED, 1);
    }
}

/* Horizontal GEMMs (test-hgemm has their plans): Q with its bias and head view, K, V with its Relu as one
 * product over packed weights; gate and up with SwiGLU reading both slices; Q and K alone where V stays out;
 * Gemm projections with transposed weights, alpha, beta and biases; an RMSNorm computed as A is loaded; each
 * kernel matching the reference. */
static void
test_hgemm (Fixture *f, gconstpointer data)
{
  static const FwTestHgemmCase cases[] = { FW_TEST_HGEMM_QKV, FW_TEST_HGEMM_SWIGLU, FW_TEST_HGEMM_FLOOR,
                                           FW_TEST_HGEMM_GEMM, FW_TEST_HGEMM_RMSNORM };

  NEED_TOOLCHAIN (f);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(FwModel) model = fw_test_hgemm_model (cases[i]);
      g_autoptr(FwPlan) plan = fw_test_plan_with (model, FW_STRATEGY_AGGRESSIVE);
      guint n = 0;

      for (guint c = 0; c < plan->candidates->len; c++)
        if (strcmp (((FwCandidate *) g_ptr_array_index (plan->candidates, c))->kind, "horizontal_gemm") == 0)
          n++;
      g_assert_cmpuint (n, ==, 1);
      check_plan (f, model, FW_STRATEGY_AGGRESSIVE, 1);
    }
}

/* float16 in memory, float in registers: a chain with a half constant and a Cast to float at the end. */
static void
test_float16 (Fixture *f, gconstpointer data)
{
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim d[2] = { FW_DIM_STATIC (3), FW_DIM_STATIC (100) };
  gint64 cd[1] = { 100 };
  guint16 half[100];
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(FwTensor) t = NULL;

  NEED_TOOLCHAIN (f);
  for (guint i = 0; i < 100; i++)
    half[i] = fw_float_to_half ((float) i / 50.0f - 1.0f);
  bytes = g_bytes_new (half, sizeof half);
  t = fw_tensor_new (FW_DTYPE_FLOAT16, 1, cd, bytes);
  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT16, 2, d, NULL));
  g_assert_nonnull (fw_graph_add_initializer (g, "c", t, NULL));
  node (g, "Add", "add", "t0", "x", "c", NULL);
  node (g, "Sigmoid", "sig", "t1", "t0", NULL, NULL);
  node (g, "Mul", "mul", "t2", "t1", "x", NULL);
  fw_node_set_attr_int (node (g, "Cast", "cast", "y", "t2", NULL, NULL), "to", FW_DTYPE_FLOAT);
  finish (model, "y");
  check_plan (f, model, FW_STRATEGY_BALANCED, 1);
}

/* Decomposed LayerNorm after a residual Add, and MatMul+bias+erf-GELU: the BERT layer of the test models. */
static void
test_transformer (Fixture *f, gconstpointer data)
{
  g_autoptr(FwModel) model = NULL;

  NEED_TOOLCHAIN (f);
  model = fw_test_transformer_block (16, 32, 2, FALSE);
  g_assert_true (fw_test_infer (model, NULL, NULL, NULL));
  check_plan (f, model, FW_STRATEGY_BALANCED, 3);
}

static void
test_layernorm_op (Fixture *f, gconstpointer data)
{
  g_autoptr(FwModel) model = fw_test_model_new (17);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  gint64 x[3] = { 2, 5, 48 }, w[1] = { 48 };

  NEED_TOOLCHAIN (f);
  input (g, "x", 3, x);
  input (g, "r", 3, x);
  weight (g, rand, "gamma", 1, w);
  weight (g, rand, "beta", 1, w);
  node (g, "Add", "add", "s", "x", "r", NULL);
  fw_node_set_attr_float (node (g, "LayerNormalization", "ln", "y", "s", "gamma", "beta"), "epsilon", 1e-5f);
  finish (model, "y");
  check_plan (f, model, FW_STRATEGY_BALANCED, 1);
  /* A spec whose swept row is not the kernel's row is refused, not given scratch the plan did not count. */
  {
    g_autoptr(FwPlan) plan = fw_test_plan_with (model, FW_STRATEGY_BALANCED);
    FwCandidate *c = g_ptr_array_index (plan->candidates, 0);
    g_autoptr(GError) error = NULL;
    g_autoptr(FwSuperKernel) k = NULL;

    g_assert_cmpuint (fw_kernel_spec_get_n_carried (c->spec), ==, 1);
    c->spec->sweep_row_elements++;
    k = fw_superkernel_generate (plan, c, &error);
    g_assert_null (k);
    g_assert_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED);
    g_assert_nonnull (strstr (error->message, "rows of 48 elements where the plan swept rows of 49"));
  }
}

static void
test_softmax (Fixture *f, gconstpointer data)
{
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  gint64 x[3] = { 3, 7, 33 }, m[3] = { 3, 1, 33 };

  NEED_TOOLCHAIN (f);
  input (g, "x", 3, x);
  input (g, "mask", 3, m);
  scalar (g, "scale", 0.125f);
  node (g, "Mul", "scale", "t0", "x", "scale", NULL);
  node (g, "Add", "mask", "t1", "t0", "mask", NULL);
  node (g, "Softmax", "softmax", "y", "t1", NULL, NULL);
  finish (model, "y");
  check_plan (f, model, FW_STRATEGY_BALANCED, 1);
}

/* Softmax (opset 13: over one axis) on an inner axis, with broadcast operands before it; LogSoftmax on
 * the first axis; the opset 11 form, which flattens at the axis; and a reduction over another axis in the
 * same group, still refused. */
static void
test_softmax_axis (Fixture *f, gconstpointer data)
{
  gint64 x[3] = { 3, 7, 5 }, m[3] = { 3, 1, 5 }, c[1] = { 5 };

  NEED_TOOLCHAIN (f);
  for (gint axis = -3; axis <= 1; axis++)
    {
      g_autoptr(FwModel) model = fw_test_model_new (13);
      FwGraph *g = fw_model_get_graph (model);
      g_autoptr(GRand) rand = g_rand_new_with_seed (11);

      input (g, "x", 3, x);
      input (g, "mask", 3, m);
      weight (g, rand, "c", 1, c);
      node (g, "Mul", "scale", "t0", "x", "c", NULL);
      node (g, "Add", "mask", "t1", "t0", "mask", NULL);
      fw_node_set_attr_int (node (g, axis == 1 ? "Softmax" : "LogSoftmax", "sm", "t2", "t1", NULL, NULL), "axis", axis);
      node (g, "Relu", "relu", "y", "t2", NULL, NULL);
      finish (model, "y");
      check_group (f, model, NULL);
    }
  {
    g_autoptr(FwModel) model = fw_test_model_new (11);
    FwGraph *g = fw_model_get_graph (model);

    FwNode *sm;

    input (g, "x", 3, x);
    node (g, "Exp", "exp", "t0", "x", NULL, NULL);
    sm = node (g, "Softmax", "sm", "y", "t0", NULL, NULL);
    fw_node_set_attr_int (sm, "axis", 1);
    /* Nodes built here carry no opset of their own, which reads as the current one. */
    sm->opset = 11;
    finish (model, "y");
    check_group (f, model, NULL);
  }
  {
    g_autoptr(FwModel) model = fw_test_model_new (13);
    FwGraph *g = fw_model_get_graph (model);
    g_autofree char *why = NULL;
    const gint64 axes[1] = { -1 };

    input (g, "x", 3, x);
    fw_node_set_attr_int (node (g, "Softmax", "sm", "t0", "x", NULL, NULL), "axis", 1);
    fw_node_set_attr_ints (node (g, "ReduceMean", "mean", "y", "t0", NULL, NULL), "axes", 1, axes);
    finish (model, "y");
    why = group_refusal (model, NULL);
    g_assert_nonnull (strstr (why, "different axes"));
  }
}

/* MatMul with a 1-D operand (numpy.matmul: a row or a column whose unit dim the result drops), with
 * epilogues: a vector times a matrix and a batch of matrices, a batch of matrices times a vector; two vectors
 * give a scalar and stay refused. */
/* GEMM operands that are constants of the model, small and large, A or B side. */
static void
test_matmul_constant (Fixture *f, gconstpointer data)
{
  static const struct { gint64 a[2], b[2]; gboolean const_a; } cases[] = {
    { { 8, 4 }, { 4, 4 }, FALSE },
    { { 8, 16 }, { 16, 8 }, FALSE },
    { { 64, 96 }, { 96, 80 }, FALSE },
    { { 4, 4 }, { 4, 24 }, TRUE },
  };

  NEED_TOOLCHAIN (f);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(FwModel) model = fw_test_model_new (17);
      FwGraph *g = fw_model_get_graph (model);
      g_autoptr(GRand) rand = g_rand_new_with_seed (29);
      gint64 bias = cases[i].b[1];
      FwNode *mm;

      if (cases[i].const_a)
        {
          weight (g, rand, "a", 2, cases[i].a);
          input (g, "b", 2, cases[i].b);
        }
      else
        {
          input (g, "a", 2, cases[i].a);
          weight (g, rand, "b", 2, cases[i].b);
        }
      weight (g, rand, "bias", 1, &bias);
      mm = node (g, "MatMul", "mm", "t0", "a", "b", NULL);
      node (g, "Add", "add", "t1", "t0", "bias", NULL);
      node (g, "Relu", "act", "y", "t1", NULL, NULL);
      finish (model, "y");
      check_group (f, model, mm);
    }
}

static void
test_matmul_1d (Fixture *f, gconstpointer data)
{
  static const struct { guint ra, rb; gint64 a[3], b[3]; gint64 bias; } cases[] = {
    { 1, 2, { 16 }, { 16, 24 }, 24 },
    { 1, 3, { 16 }, { 3, 16, 24 }, 24 },
    { 3, 1, { 2, 5, 16 }, { 16 }, 5 },
    { 2, 1, { 7, 16 }, { 16 }, 7 },
  };

  NEED_TOOLCHAIN (f);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(FwModel) model = fw_test_model_new (17);
      FwGraph *g = fw_model_get_graph (model);
      g_autoptr(GRand) rand = g_rand_new_with_seed (13);
      FwNode *mm;

      input (g, "a", cases[i].ra, cases[i].a);
      input (g, "b", cases[i].rb, cases[i].b);
      weight (g, rand, "bias", 1, &cases[i].bias);
      mm = node (g, "MatMul", "mm", "t0", "a", "b", NULL);
      node (g, "Add", "add", "t1", "t0", "bias", NULL);
      node (g, i % 2 ? "Softmax" : "Relu", "act", "y", "t1", NULL, NULL);
      finish (model, "y");
      check_group (f, model, mm);
    }
  {
    g_autoptr(FwModel) model = fw_test_model_new (17);
    FwGraph *g = fw_model_get_graph (model);
    g_autofree char *why = NULL;
    gint64 k[1] = { 16 };
    FwNode *mm;

    input (g, "a", 1, k);
    input (g, "b", 1, k);
    mm = node (g, "MatMul", "mm", "t0", "a", "b", NULL);
    node (g, "Relu", "act", "y", "t0", NULL, NULL);
    finish (model, "y");
    why = group_refusal (model, mm);
    g_assert_nonnull (strstr (why, "MatMul"));
  }
}

static void
typed_input (FwGraph *g, const char *name, FwDType dtype, guint rank, const gint64 *dims)
{
  FwDim d[8];

  for (guint i = 0; i < rank; i++)
    d[i] = FW_DIM_STATIC (dims[i]);
  g_assert_nonnull (fw_graph_add_input (g, name, dtype, rank, d, NULL));
}

/* float64 through the double functions: arithmetic, transcendentals, NaN-propagating Max, a double constant
 * vector and a cast at the end. */
static void
test_double (Fixture *f, gconstpointer data)
{
  g_autoptr(FwModel) model = fw_test_model_new (17);
  FwGraph *g = fw_model_get_graph (model);
  gint64 x[2] = { 4, 50 }, cd[1] = { 50 };
  double c[50];
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(FwTensor) t = NULL;

  NEED_TOOLCHAIN (f);
  for (guint i = 0; i < 50; i++)
    c[i] = 0.5 + i / 25.0;
  bytes = g_bytes_new (c, sizeof c);
  t = fw_tensor_new (FW_DTYPE_DOUBLE, 1, cd, bytes);
  typed_input (g, "x", FW_DTYPE_DOUBLE, 2, x);
  g_assert_nonnull (fw_graph_add_initializer (g, "c", t, NULL));
  node (g, "Mul", "mul", "t0", "x", "c", NULL);
  node (g, "Div", "div", "t1", "t0", "c", NULL);
  node (g, "Sigmoid", "sig", "t2", "t1", NULL, NULL);
  node (g, "Add", "add", "t3", "t2", "x", NULL);
  node (g, "Abs", "abs", "t4", "t3", NULL, NULL);
  node (g, "Sqrt", "sqrt", "t5", "t4", NULL, NULL);
  node (g, "Log", "log", "t6", "t5", NULL, NULL);
  node (g, "Max", "max", "t7", "t6", "x", NULL);
  node (g, "Tanh", "tanh", "t8", "t7", NULL, NULL);
  node (g, "Exp", "exp", "t9", "t8", NULL, NULL);
  node (g, "Reciprocal", "rcp", "t10", "t9", NULL, NULL);
  node (g, "Erf", "erf", "t11", "t10", NULL, NULL);
  node (g, "Relu", "relu", "t12", "t11", NULL, NULL);
  fw_node_set_attr_int (node (g, "Cast", "cast", "y", "t12", NULL, NULL), "to", FW_DTYPE_FLOAT);
  finish (model, "y");
  check_group (f, model, NULL);
}

/* An integer constant vector of dtype from int64 values (wrapping into narrower types). */
static void
int_constant (FwGraph *g, const char *name, FwDType dtype, const gint64 *values, gint64 n)
{
  gsize size = dtype == FW_DTYPE_INT64 ? 8 : dtype == FW_DTYPE_INT32 ? 4 : 1;
  g_autofree guint8 *raw = g_malloc (size * n);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(FwTensor) t = NULL;

  for (gint64 i = 0; i < n; i++)
    {
      gint64 v64 = values[i];
      gint32 v32 = (gint32) (guint32) (guint64) values[i];
      guint8 v8 = (guint8) (guint64) values[i];
      memcpy (raw + i * size, size == 8 ? (const void *) &v64 : size == 4 ? (const void *) &v32 : &v8, size);
    }
  bytes = g_bytes_new (raw, size * n);
  t = fw_tensor_new (dtype, 1, &n, bytes);
  g_assert_nonnull (fw_graph_add_initializer (g, name, t, NULL));
}

/* Integer Div truncates toward zero; by zero it gives 0 and INT_MIN / -1 wraps, as the reference chooses:
 * int64, int32, int8 and uint8, with negative dividends and divisors, zero divisors from the input. */
static void
test_int_div (Fixture *f, gconstpointer data)
{
  static const FwDType dtypes[] = { FW_DTYPE_INT64, FW_DTYPE_INT32, FW_DTYPE_INT8, FW_DTYPE_UINT8 };
  const gint64 a[8] = { 7, -7, 100, -100, G_MININT32, G_MININT64, 255, -128 };
  const gint64 d[8] = { 2, 2, -3, -7, -1, -1, 0, 5 };
  gint64 x[2] = { 4, 8 };

  NEED_TOOLCHAIN (f);
  for (guint i = 0; i < G_N_ELEMENTS (dtypes); i++)
    {
      g_autoptr(FwModel) model = fw_test_model_new (17);
      FwGraph *g = fw_model_get_graph (model);

      typed_input (g, "x", dtypes[i], 2, x);
      int_constant (g, "a", dtypes[i], a, 8);
      int_constant (g, "d", dtypes[i], d, 8);
      node (g, "Add", "add", "t0", "x", "a", NULL);
      node (g, "Div", "div", "t1", "t0", "d", NULL);
      /* x holds 0s and 1s: division by zero and by one. */
      node (g, "Div", "div2", "t2", "t1", "x", NULL);
      node (g, "Div", "div3", "y", "a", "t2", NULL);
      finish (model, "y");
      check_group (f, model, NULL);
    }
}

/* ReduceProd over the trailing axes, accumulated in double as the reference does, with a per-row epilogue;
 * ReduceLogSumExp (a max pass before its sum) is still refused. */
static void
test_reduce_prod (Fixture *f, gconstpointer data)
{
  gint64 x[3] = { 3, 4, 6 }, c[1] = { 6 };
  const gint64 axes[2] = { -1, -2 };

  NEED_TOOLCHAIN (f);
  for (guint n_axes = 1; n_axes <= 2; n_axes++)
    {
      g_autoptr(FwModel) model = fw_test_model_new (17);
      FwGraph *g = fw_model_get_graph (model);
      g_autoptr(GRand) rand = g_rand_new_with_seed (17);

      input (g, "x", 3, x);
      weight (g, rand, "c", 1, c);
      scalar (g, "one", 1.0f);
      node (g, "Mul", "mul", "t0", "x", "c", NULL);
      node (g, "Add", "add", "t1", "t0", "one", NULL);
      fw_node_set_attr_ints (node (g, "ReduceProd", "prod", "t2", "t1", NULL, NULL), "axes", n_axes, axes);
      node (g, "Neg", "neg", "y", "t2", NULL, NULL);
      finish (model, "y");
      check_group (f, model, NULL);
    }
  {
    g_autoptr(FwModel) model = fw_test_model_new (17);
    FwGraph *g = fw_model_get_graph (model);
    g_autofree char *why = NULL;

    input (g, "x", 3, x);
    node (g, "Relu", "relu", "t0", "x", NULL, NULL);
    fw_node_set_attr_ints (node (g, "ReduceLogSumExp", "lse", "y", "t0", NULL, NULL), "axes", 1, axes);
    finish (model, "y");
    why = group_refusal (model, NULL);
    g_assert_nonnull (strstr (why, "ReduceLogSumExp"));
  }
}

/* ReduceMax and ReduceMin let a NaN through as the reference does, and so does a Softmax: Sqrt of the
 * negative inputs makes some rows NaN. */
static void
test_reduce_nan (Fixture *f, gconstpointer data)
{
  gint64 x[2] = { 6, 40 };
  const gint64 axes[1] = { -1 };
  const char *ops[] = { "ReduceMax", "ReduceMin" };

  NEED_TOOLCHAIN (f);
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      g_autoptr(FwModel) model = fw_test_model_new (17);
      FwGraph *g = fw_model_get_graph (model);

      input (g, "x", 2, x);
      node (g, "Sqrt", "sqrt", "t0", "x", NULL, NULL);
      fw_node_set_attr_ints (node (g, ops[i], "red", "t1", "t0", NULL, NULL), "axes", 1, axes);
      node (g, "Neg", "neg", "y", "t1", NULL, NULL);
      finish (model, "y");
      check_group (f, model, NULL);
    }
  /* A Softmax whose maximum is taken in lanes: NaN in some lanes of most rows, rows of 40 (five lanes of
     eight), the rest finite. */
  {
    g_autoptr(FwModel) model = fw_test_model_new (17);
    FwGraph *g = fw_model_get_graph (model);

    input (g, "x", 2, x);
    node (g, "Sqrt", "sqrt", "t0", "x", NULL, NULL);
    fw_node_set_attr_int (node (g, "Softmax", "sm", "t1", "t0", NULL, NULL), "axis", -1);
    node (g, "Neg", "neg", "y", "t1", NULL, NULL);
    finish (model, "y");
    check_group (f, model, NULL);
  }
}

/* Conv+BN+Relu, Conv+BN+Add+Relu, Gemm. */
static void
test_conv (Fixture *f, gconstpointer data)
{
  g_autoptr(FwModel) model = NULL;

  NEED_TOOLCHAIN (f);
  model = fw_test_conv_block ();
  g_assert_true (fw_test_infer (model, NULL, NULL, NULL));
  check_plan (f, model, FW_STRATEGY_BALANCED, 1);
}

/* Conv with bias, padding and stride, then Add and Relu; a depthwise Conv with HardSigmoid·x. */
static void
test_conv_bias (Fixture *f, gconstpointer data)
{
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);
  gint64 x[4] = { 2, 4, 9, 9 }, w[4] = { 6, 4, 3, 3 }, b[1] = { 6 }, r[4] = { 2, 6, 5, 5 };
  gint64 dw[4] = { 6, 1, 3, 3 };
  gint64 pads[4] = { 1, 1, 1, 1 }, strides[2] = { 2, 2 };
  FwNode *c;

  NEED_TOOLCHAIN (f);
  input (g, "x", 4, x);
  input (g, "res", 4, r);
  weight (g, rand, "w", 4, w);
  weight (g, rand, "b", 1, b);
  weight (g, rand, "dw", 4, dw);
  c = node (g, "Conv", "conv", "t0", "x", "w", "b");
  fw_node_set_attr_ints (c, "pads", 4, pads);
  fw_node_set_attr_ints (c, "strides", 2, strides);
  node (g, "Add", "add", "t1", "t0", "res", NULL);
  node (g, "Relu", "relu", "t2", "t1", NULL, NULL);
  node (g, "MaxPool", "pool", "t3", "t2", NULL, NULL);
  {
    gint64 ks[2] = { 1, 1 };
    fw_node_set_attr_ints (fw_graph_get_node (g, fw_graph_get_n_nodes (g) - 1), "kernel_shape", 2, ks);
  }
  c = node (g, "Conv", "dwconv", "t4", "t3", "dw", NULL);
  fw_node_set_attr_ints (c, "pads", 4, pads);
  fw_node_set_attr_int (c, "group", 6);
  node (g, "HardSigmoid", "hs", "t5", "t4", NULL, NULL);
  node (g, "Mul", "hswish", "y", "t4", "t5", NULL);
  finish (model, "y");
  check_plan (f, model, FW_STRATEGY_BALANCED, 2);
}

/* The direct loop for grouped Convs: a depthwise one with a channel multiplier, stride 2, width dilation and
 * uneven padding, and one with two channels per group and stride only along the width; then Max and Min
 * (compiled as comparisons) and Clip. */
static void
test_conv_grouped (Fixture *f, gconstpointer data)
{
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GRand) rand = g_rand_new_with_seed (17);
  gint64 x[4] = { 2, 6, 11, 10 }, dw[4] = { 12, 1, 3, 3 }, db[1] = { 12 }, gw[4] = { 6, 2, 3, 3 };
  gint64 dpads[4] = { 0, 1, 2, 1 }, dstrides[2] = { 2, 2 }, dil[2] = { 1, 2 };
  gint64 gpads[4] = { 1, 1, 1, 1 }, gstrides[2] = { 1, 2 };
  FwNode *c;

  NEED_TOOLCHAIN (f);
  input (g, "x", 4, x);
  weight (g, rand, "dw", 4, dw);
  weight (g, rand, "db", 1, db);
  weight (g, rand, "gw", 4, gw);
  scalar (g, "lo", -0.25f);
  scalar (g, "hi", 0.5f);
  c = node (g, "Conv", "dwconv", "t0", "x", "dw", "db");
  fw_node_set_attr_int (c, "group", 6);
  fw_node_set_attr_ints (c, "pads", 4, dpads);
  fw_node_set_attr_ints (c, "strides", 2, dstrides);
  fw_node_set_attr_ints (c, "dilations", 2, dil);
  node (g, "Max", "max", "t1", "t0", "lo", NULL);
  node (g, "Min", "min", "y", "t1", "hi", NULL);
  c = node (g, "Conv", "gconv", "t2", "x", "gw", NULL);
  fw_node_set_attr_int (c, "group", 3);
  fw_node_set_attr_ints (c, "pads", 4, gpads);
  fw_node_set_attr_ints (c, "strides", 2, gstrides);
  node (g, "Clip", "clip", "z", "t2", "lo", "hi");
  g_assert_true (fw_graph_add_output (g, "z", NULL));
  finish (model, "y");
  check_plan (f, model, FW_STRATEGY_BALANCED, 2);
}

/* Gemm with transB, alpha, beta and a bias row, then Relu; MatMul on batched 4-D operands then Sigmoid. */
static void
test_gemm (Fixture *f, gconstpointer data)
{
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GRand) rand = g_rand_new_with_seed (13);
  gint64 x[2] = { 70, 24 }, w[2] = { 40, 24 }, b[1] = { 40 };
  gint64 q[4] = { 1, 3, 9, 8 }, kt[4] = { 1, 3, 8, 9 };
  FwNode *gemm;

  NEED_TOOLCHAIN (f);
  input (g, "x", 2, x);
  weight (g, rand, "w", 2, w);
  weight (g, rand, "b", 1, b);
  input (g, "q", 4, q);
  input (g, "k", 4, kt);
  gemm = node (g, "Gemm", "gemm", "t0", "x", "w", "b");
  fw_node_set_attr_int (gemm, "transB", 1);
  fw_node_set_attr_float (gemm, "alpha", 0.5f);
  fw_node_set_attr_float (gemm, "beta", 2.0f);
  node (g, "Relu", "relu", "y", "t0", NULL, NULL);
  node (g, "MatMul", "mm", "s0", "q", "k", NULL);
  node (g, "Sigmoid", "sig", "z", "s0", NULL, NULL);
  g_assert_true (fw_graph_add_output (g, "z", NULL));
  finish (model, "y");
  check_plan (f, model, FW_STRATEGY_BALANCED, 2);
}

/* A fake compiler that answers --version and fails on everything else. */
static void
test_compile_failure (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *script = g_build_filename (f->dir, "bad-cc", NULL);
  g_autofree char *cache = g_build_filename (f->dir, "kernels-bad", NULL);
  g_autoptr(FwModel) model = fw_test_elementwise_chain (4, 64, FALSE);
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwSuperKernel) k = NULL;
  g_autoptr(FwHostToolchain) tc = NULL;
  const char *text = "#!/bin/sh\n"
                     "if [ \"$1\" = --version ]; then echo 'badcc 1.0'; exit 0; fi\n"
                     "echo 'kernel.c:1:1: error: the sky is falling' >&2\nexit 1\n";
  char *old = g_strdup (g_getenv ("CC"));

  g_assert_true (g_file_set_contents (script, text, -1, NULL));
  g_assert_cmpint (g_chmod (script, 0700), ==, 0);
  g_setenv ("CC", script, TRUE);
  tc = fw_host_toolchain_new (cache, &error);
  if (old)
    g_setenv ("CC", old, TRUE);
  else
    g_unsetenv ("CC");
  g_free (old);
  g_assert_no_error (error);
  g_assert_cmpstr (fw_host_toolchain_get_version (tc), ==, "badcc 1.0");

  g_assert_true (fw_test_infer (model, NULL, NULL, NULL));
  plan = fw_test_plan_with (model, FW_STRATEGY_BALANCED);
  g_assert_cmpuint (plan->candidates->len, >=, 1);
  k = fw_superkernel_generate (plan, g_ptr_array_index (plan->candidates, 0), &error);
  g_assert_no_error (error);
  g_assert_false (fw_superkernel_compile (k, tc, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "the sky is falling"));
  g_clear_error (&error);

  /* A $CC that does not exist is an error too, not a crash. */
  old = g_strdup (g_getenv ("CC"));
  g_setenv ("CC", "/nonexistent/fw-no-such-cc", TRUE);
  g_assert_null (fw_host_toolchain_new (cache, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED);
  if (old)
    g_setenv ("CC", old, TRUE);
  else
    g_unsetenv ("CC");
  g_free (old);
}

static void
test_cache (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_test_elementwise_chain (4, 64, FALSE);
  g_autoptr(FwPlan) plan = NULL;
  const FwCandidate *c;
  g_autofree char *so = NULL, *hash = NULL, *evil = NULL;
  GStatBuf st;

  NEED_TOOLCHAIN (f);
  g_assert_true (fw_test_infer (model, NULL, NULL, NULL));
  plan = fw_test_plan_with (model, FW_STRATEGY_BALANCED);
  c = g_ptr_array_index (plan->candidates, 0);
  {
    g_autoptr(FwSuperKernel) k = fw_superkernel_generate (plan, c, &error);
    g_assert_no_error (error);
    g_assert_true (fw_superkernel_compile (k, f->toolchain, &error));
    g_assert_no_error (error);
    g_assert_cmpint (fw_superkernel_get_cache_status (k), ==, FW_SUPERKERNEL_CACHE_MISS);
    so = g_strdup (fw_superkernel_get_object_path (k));
    hash = g_strdup (fw_superkernel_get_object_hash (k));
    g_assert_cmpuint (strlen (fw_superkernel_get_source_hash (k)), ==, 64);
  }
  g_assert_cmpint (g_stat (fw_host_toolchain_get_cache_dir (f->toolchain), &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0700);
  {
    g_autoptr(FwSuperKernel) k = fw_superkernel_generate (plan, c, &error);
    g_assert_true (fw_superkernel_compile (k, f->toolchain, &error));
    g_assert_cmpint (fw_superkernel_get_cache_status (k), ==, FW_SUPERKERNEL_CACHE_HIT);
    g_assert_cmpstr (fw_superkernel_get_object_hash (k), ==, hash);
  }
  /* Someone writes other bytes over the cached object: it must be noticed and replaced, never loaded. */
  g_assert_true (g_file_set_contents (so, "not an ELF object", -1, NULL));
  {
    g_autoptr(FwSuperKernel) k = fw_superkernel_generate (plan, c, &error);
    g_assert_true (fw_superkernel_compile (k, f->toolchain, &error));
    g_assert_no_error (error);
    g_assert_cmpint (fw_superkernel_get_cache_status (k), ==, FW_SUPERKERNEL_CACHE_REPLACED);
    g_assert_true (g_file_get_contents (so, &evil, NULL, NULL));
    g_assert_cmpstr (evil, !=, "not an ELF object");
  }
  /* A cache folder others may write into is refused. */
  {
    g_autofree char *open_dir = g_build_filename (f->dir, "open", NULL);
    g_autoptr(FwHostToolchain) tc = NULL;
    g_autoptr(FwSuperKernel) k = fw_superkernel_generate (plan, c, &error);
    g_assert_cmpint (g_mkdir (open_dir, 0777), ==, 0);
    g_assert_cmpint (g_chmod (open_dir, 0777), ==, 0);
    tc = fw_host_toolchain_new (open_dir, &error);
    g_assert_no_error (error);
    g_assert_false (fw_superkernel_compile (k, tc, &error));
    g_assert_error (error, FW_ERROR, FW_ERROR_IO);
  }
}

/* Source with every comment removed (the generator never puts comment openers in string literals). */
static char *
strip_comments (const char *src)
{
  GString *out = g_string_new (NULL);

  for (const char *p = src; *p; p++)
    {
      if (p[0] == '/' && p[1] == '*')
        {
          const char *end = strstr (p + 2, "*/");
          g_assert_nonnull (end);
          p = end + 1;
          continue;
        }
      g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

static FwModel *
named_model (gboolean hostile)
{
  const char *evil[] = {
    "*/ #include <stdio.h>\nint main(void){system(\"rm -rf ~\");} /*",
    "a\\\nb\"q\"'\x01\xff\xfe?" "?/",
    "\xc3\x28 */ #define float double",
    "#include <stdio.h>\r\n*/",
    "name with */ and /* and \\ \n",
    "\x80\x81/*/*",
  };
  FwModel *model = fw_test_model_new (17);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GRand) rand = g_rand_new_with_seed (9);
  gint64 x[2] = { 4, 40 }, w[2] = { 40, 24 }, b[1] = { 24 };
#define NM(i, clean) (hostile ? evil[(i) % G_N_ELEMENTS (evil)] : (clean))
  g_autofree char *xn = g_strdup (NM (0, "x")), *wn = g_strdup (NM (1, "w")), *bn = g_strdup (NM (2, "b"));
  g_autofree char *t0 = g_strdup (NM (3, "t0")), *t1 = g_strdup (NM (4, "t1")), *y = g_strdup (NM (5, "y"));

  input (g, xn, 2, x);
  weight (g, rand, wn, 2, w);
  weight (g, rand, bn, 1, b);
  node (g, "MatMul", NM (1, "mm"), t0, xn, wn, NULL);
  node (g, "Add", NM (2, "add"), t1, t0, bn, NULL);
  node (g, "Relu", NM (0, "relu"), y, t1, NULL, NULL);
#undef NM
  finish (model, y);
  return model;
}

static void
test_injection (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) clean = named_model (FALSE), hostile = named_model (TRUE);
  g_autoptr(FwPlan) pc = fw_test_plan_with (clean, FW_STRATEGY_BALANCED);
  g_autoptr(FwPlan) ph = fw_test_plan_with (hostile, FW_STRATEGY_BALANCED);
  g_autoptr(FwSuperKernel) kc = NULL, kh = NULL;
  g_autofree char *sc = NULL, *sh = NULL;
  const char *src;

  g_assert_cmpuint (pc->candidates->len, ==, 1);
  g_assert_cmpuint (ph->candidates->len, ==, 1);
  kc = fw_superkernel_generate (pc, g_ptr_array_index (pc->candidates, 0), &error);
  g_assert_no_error (error);
  kh = fw_superkernel_generate (ph, g_ptr_array_index (ph->candidates, 0), &error);
  g_assert_no_error (error);
  src = fw_kernel_source_get_main (fw_superkernel_get_kernel_source (kh));
  /* Printable ASCII and newlines only, whatever the names held. */
  for (const guchar *p = (const guchar *) src; *p; p++)
    g_assert_true (*p == '\n' || (*p >= 0x20 && *p < 0x7f));
  sc = strip_comments (fw_kernel_source_get_main (fw_superkernel_get_kernel_source (kc)));
  sh = strip_comments (src);
  g_assert_cmpstr (sc, ==, sh);
  g_assert_null (strstr (sh, "stdio"));
  if (f->toolchain == NULL)
    return;
  g_assert_true (fw_superkernel_compile (kh, f->toolchain, &error));
  g_assert_no_error (error);
  {
    g_autofree char *why = NULL;
    CheckResult r = check_candidate (ph, g_ptr_array_index (ph->candidates, 0), f->toolchain, &why);
    if (r != CHECK_OK && r != CHECK_SKIP_REFERENCE)
      g_error ("hostile names: %s", why);
  }
}

static void
test_unsupported (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwSuperKernel) k = NULL;
  gint64 x[2] = { 4, 16 };
  FwCandidate fake = { 0 };

  input (g, "x", 2, x);
  node (g, "Relu", "a", "t0", "x", NULL, NULL);
  node (g, "Celu", "b", "y", "t0", NULL, NULL);
  finish (model, "y");
  plan = fw_test_plan_with (model, FW_STRATEGY_BALANCED);
  /* Whether or not the planner groups them, a group holding Celu is refused by name. */
  fake.nodes = g_ptr_array_new ();
  fake.kind = (char *) "elementwise_chain";
  g_ptr_array_add (fake.nodes, fw_graph_get_node (g, 0));
  g_ptr_array_add (fake.nodes, fw_graph_get_node (g, 1));
  fake.spec = fw_plan_spec_for_nodes (plan, fake.nodes, NULL);
  k = fw_superkernel_generate (plan, &fake, &error);
  fw_kernel_spec_free (fake.spec);
  g_assert_null (k);
  g_assert_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "Celu"));
  g_ptr_array_unref (fake.nodes);
}

/* The real exports, when FW_REAL_MODELS names their folder: every candidate of the default plan. */
static void
test_real (Fixture *f, gconstpointer data)
{
  const char *dir = g_getenv ("FW_REAL_MODELS");
  const char *names[] = { "resnet18", "bert_like", "vit_b_16", "mobilenet_v3_small" };
  guint bad = 0;

  NEED_TOOLCHAIN (f);
  if (dir == NULL)
    {
      g_test_skip ("FW_REAL_MODELS not set");
      return;
    }
  for (guint m = 0; m < G_N_ELEMENTS (names); m++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *base = g_strconcat (names[m], ".onnx", NULL);
      g_autofree char *path = g_build_filename (dir, base, NULL);
      g_autoptr(FwModel) model = NULL;
      g_autoptr(FwPlan) plan = NULL;
      const char *binds[] = { "batch=1", NULL };
      guint ok = 0, skip = 0;

      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        continue;
      model = fw_onnx_load (path, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (fw_test_infer (model, binds, NULL, &error));
      plan = fw_test_plan_with (model, FW_STRATEGY_BALANCED);
      for (guint i = 0; i < plan->candidates->len; i++)
        {
          const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
          g_autofree char *why = NULL;
          CheckResult r = check_candidate (plan, c, f->toolchain, &why);
          if (r == CHECK_OK)
            ok++;
          else if (r == CHECK_SKIP_REFERENCE)
            skip++;
          else
            {
              bad++;
              g_printerr ("%s candidate %u (%s, %u nodes): %s\n", names[m], i, c->pattern, c->nodes->len, why);
            }
        }
      g_printerr ("%s: %u candidates, %u match, %u skipped (reference)\n", names[m], plan->candidates->len, ok, skip);
    }
  g_assert_cmpuint (bad, ==, 0);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, fn) g_test_add ("/core/codegen/host/" path, Fixture, NULL, fixture_set_up, fn, fixture_tear_down)
  ADD ("chain", test_chain);
  ADD ("index-maps", test_index_maps);
  ADD ("attention", test_attention);
  ADD ("hgemm", test_hgemm);
  ADD ("transformer", test_transformer);
  ADD ("layernorm-op", test_layernorm_op);
  ADD ("softmax", test_softmax);
  ADD ("softmax-axis", test_softmax_axis);
  ADD ("matmul-1d", test_matmul_1d);
  ADD ("matmul-constant", test_matmul_constant);
  ADD ("reduce-nan", test_reduce_nan);
  ADD ("double", test_double);
  ADD ("int-div", test_int_div);
  ADD ("reduce-prod", test_reduce_prod);
  ADD ("float16", test_float16);
  ADD ("gemm", test_gemm);
  ADD ("conv", test_conv);
  ADD ("conv-bias", test_conv_bias);
  ADD ("conv-grouped", test_conv_grouped);
  ADD ("compile-failure", test_compile_failure);
  ADD ("cache", test_cache);
  ADD ("injection", test_injection);
  ADD ("unsupported", test_unsupported);
  ADD ("real", test_real);
#undef ADD
  return g_test_run ();
}
