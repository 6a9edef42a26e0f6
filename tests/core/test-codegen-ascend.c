/* The Ascend C target and the kernel package: every generated kernel and host tiling file passes
 * g++ -fsyntax-only against data/ascend/kernel_operator.h (the documented API, declared), the tiling equals
 * the planner's, the package's manifest describes what was written, and hostile node names change nothing
 * outside comments. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "codegen/ascend/fw-ascend.h"
#include "codegen/fw-kernel-package.h"
#include "codegen/fw-targets.h"
#include "export/fw-fused-model.h"
#include "fw-error.h"
#include "fw-test-ascend-models.h"
#include "fw-test-models.h"
#include "plan/fw-plan-private.h"

/* A plan does not own its rules: one set serves every test. */
static FwRuleSet *
shared_rules (void)
{
  static FwRuleSet *rules;

  if (rules == NULL)
    rules = fw_test_builtin_rules ();
  return rules;
}

static FwPlan *
plan_for (FwModel *model, FwStrategy strategy)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  FwPlanOptions options;
  FwPlan *plan;

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  fw_plan_options_init (&options);
  options.strategy = strategy;
  options.arrange = fw_ascend_arrange;
  plan = fw_plan_new (model, profile, shared_rules (), &options, &error);
  g_assert_no_error (error);
  return plan;
}

static const FwCandidate *
find_kind (FwPlan *plan, const char *pattern_or_kind)
{
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      if (strcmp (c->pattern, pattern_or_kind) == 0 || strcmp (c->kind, pattern_or_kind) == 0)
        return c;
    }
  return NULL;
}

static char *
api_dir (void)
{
  return g_test_build_filename (G_TEST_DIST, "..", "data", "ascend", NULL);
}

static gboolean
have_gxx (void)
{
  g_autofree char *gxx = g_find_program_in_path ("g++");
  return gxx != NULL;
}

static void
write_files (FwAscendKernel *kernel, const char *dir)
{
  const FwKernelSource *src = fw_ascend_kernel_get_kernel_source (kernel);

  g_assert_cmpuint (fw_kernel_source_get_n_files (src), ==, 5);
  for (guint i = 0; i < fw_kernel_source_get_n_files (src); i++)
    {
      const FwKernelFile *f = fw_kernel_source_get_file (src, i);
      g_autofree char *path = g_build_filename (dir, f->name, NULL);
      g_autoptr(GError) error = NULL;
      g_assert_true (g_file_set_contents (path, f->contents, -1, &error));
    }
}

static void
gxx_syntax (const char *dir, const char *file)
{
  g_autofree char *inc = api_dir ();
  g_autofree char *path = g_build_filename (dir, file, NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;
  const char *argv[] = { "g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-I", inc, "-I", dir, path, NULL };

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status, &error));
  if (!g_spawn_check_wait_status (status, NULL) || (err && *err))
    g_test_message ("g++ on %s:\n%s", file, err);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_cmpstr (err, ==, "");
}

/* Compiles the host tiling function with a small driver, runs it for the plan's profile and checks the
 * numbers against the planner's. */
static void
run_host_tiling (FwAscendKernel *kernel, const char *dir, const FwProfile *profile, const FwCandidate *c)
{
  const char *name = fw_kernel_source_get_name (fw_ascend_kernel_get_kernel_source (kernel));
  g_autofree char *driver = g_build_filename (dir, "driver.cpp", NULL);
  g_autofree char *tiling = g_strdup_printf ("%s/%s_tiling.cpp", dir, name);
  g_autofree char *exe = g_build_filename (dir, "driver", NULL);
  g_autofree char *text = NULL, *out = NULL, *err = NULL;
  g_autofree char *expect = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;
  const char *cc[] = { "g++", "-std=c++17", "-O0", "-I", dir, driver, tiling, "-o", exe, NULL };
  const char *run[] = { exe, NULL };
  const FwAscendTiling *t = fw_ascend_kernel_get_tiling (kernel);

  text = g_strdup_printf ("#include <cstdio>\n#include \"%s_tiling.h\"\nint main() {\n"
                          "  FwK%03uTiling t;\n"
                          "  if (FwK%03uTilingComputeTiling(%" G_GUINT64_FORMAT "u, %" G_GUINT64_FORMAT "u, %.6f, %uu, %uu, &t) != 0) return 1;\n"
                          "  std::printf(\"%%llu %%llu %%llu %%llu %%llu %%llu\", (unsigned long long) t.tileLength,\n"
                          "    (unsigned long long) t.rows, (unsigned long long) t.tileNum, (unsigned long long) t.blockNum,\n"
                          "    (unsigned long long) t.tilesPerBlock, (unsigned long long) t.totalLength);\n"
                          "  return 0;\n}\n",
                          name, c->index, c->index, profile->ub_bytes, profile->ub_reserve_bytes,
                          profile->budget_fraction, profile->ub_align_bytes, profile->vector_cores);
  g_assert_true (g_file_set_contents (driver, text, -1, &error));
  g_assert_true (g_spawn_sync (NULL, (char **) cc, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status, &error));
  if (!g_spawn_check_wait_status (status, NULL))
    g_test_message ("%s", err);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_true (g_spawn_sync (NULL, (char **) run, NULL, 0, NULL, NULL, &out, &err, &status, &error));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  expect = g_strdup_printf ("%" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
                            " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT,
                            t->tile_length, t->rows, t->tile_num, t->block_num, t->tiles_per_block, t->total_length);
  g_assert_cmpstr (out, ==, expect);
}

/* Generates the candidate's kernel, checks its tiling against the planner and compiles it. */
static FwAscendKernel *
check_candidate (FwPlan *plan, const FwCandidate *c)
{
  g_autoptr(GError) error = NULL;
  FwAscendKernel *kernel = fw_ascend_kernel_generate (plan, c, &error);
  const FwAscendTiling *t;
  g_autofree char *dir = NULL;
  g_autofree char *kfile = NULL, *tfile = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (kernel);
  t = fw_ascend_kernel_get_tiling (kernel);
  /* The plan priced this kernel's own buffers: its tile and rows (a row reduction's or the broadcast rows it
   * chose) are the kernel's, and what the kernel allocates at that tile is the plan's UB figure, byte for
   * byte. */
  g_assert_nonnull (fw_kernel_spec_get_arrangement (c->spec));
  g_assert_cmpint (t->tile_length, ==, fw_candidate_get_resource (c)->tile_elements);
  g_assert_cmpfloat (t->kernel_ub_bytes, ==, fw_candidate_get_resource (c)->ub_bytes);
  g_assert_cmpint (t->tile_length % MAX (fw_candidate_get_resource (c)->unit_elements, 1), ==, 0);
  if (t->row_length > 0)
    g_assert_cmpint (t->tile_length, ==, t->rows * t->row_length);
  else
    g_assert_cmpint (t->rows, ==, fw_candidate_get_resource (c)->tile_rows);
  g_assert_cmpint (t->row_length, ==, fw_candidate_get_resource (c)->row_elements);
  g_assert_cmpfloat_with_epsilon (t->ub_bytes, fw_candidate_get_resource (c)->ub_bytes, 0.5);
  g_assert_cmpfloat (t->ub_bytes, <=, fw_profile_budget_bytes (plan->profile) + 0.5);
  g_assert_cmpfloat (t->kernel_ub_bytes, <=, (gdouble) plan->profile->ub_bytes);
  g_assert_cmpint (t->tile_num * t->tile_length, >=, t->total_length);
  g_assert_cmpint (t->block_num, <=, plan->profile->vector_cores);
  g_assert_nonnull (strstr (fw_kernel_source_get_main (fw_ascend_kernel_get_kernel_source (kernel)), "extern \"C\" __global__ __aicore__ void fw_k"));
  /* Streamed inputs come through VECIN queues; a group of broadcast operands only (Swin's mask) has none. */
  g_assert_true (strstr (fw_kernel_source_get_main (fw_ascend_kernel_get_kernel_source (kernel)), "TQue<AscendC::QuePosition::VECIN, BUFFER_NUM>") != NULL ||
                 strstr (fw_kernel_source_get_main (fw_ascend_kernel_get_kernel_source (kernel)), "GM_ADDR small0") != NULL ||
                 t->n_cube > 0);
  g_assert_nonnull (strstr (fw_kernel_source_get_main (fw_ascend_kernel_get_kernel_source (kernel)), "TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM>"));
  /* A MatMul/Gemm root is the Matmul API in a mixed kernel (its C blocks the tiles), any other root CANN's own
   * operator before the epilogue, and the spec's form says which. */
  if (fw_kernel_spec_get_form (c->spec) == FW_KERNEL_FORM_CUBE_VECTOR)
    {
      const char *src = fw_kernel_source_get_main (fw_ascend_kernel_get_kernel_source (kernel));
      g_assert_nonnull (strstr (src, "#include \"lib/matmul_intf.h\""));
      g_assert_nonnull (strstr (src, "REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &this->cube);"));
      g_assert_nonnull (strstr (src, "mm.GetTensorC(c, 0, true);"));
      g_assert_cmpuint (t->n_cube, ==, 25);
      g_assert_cmpint (t->block_num, <=, plan->profile->cube_cores);
    }
  else if (c->root != NULL)
    g_assert_nonnull (strstr (fw_kernel_source_get_main (fw_ascend_kernel_get_kernel_source (kernel)), "runs as CANN's own operator"));
  if (!have_gxx ())
    {
      g_test_message ("g++ not found: syntax check skipped");
      return kernel;
    }
  dir = fw_test_temp_dir ();
  write_files (kernel, dir);
  kfile = g_strdup_printf ("%s.cpp", fw_kernel_source_get_name (fw_ascend_kernel_get_kernel_source (kernel)));
  tfile = g_strdup_printf ("%s_tiling.cpp", fw_kernel_source_get_name (fw_ascend_kernel_get_kernel_source (kernel)));
  gxx_syntax (dir, kfile);
  gxx_syntax (dir, tfile);
  run_host_tiling (kernel, dir, plan->profile, c);
  fw_test_remove_dir (dir);
  return kernel;
}

/* A candidate the planner maps through strided index maps is refused by this target with its reason (not
 * generated wrong), and so is a fused attention (FW-TG-003); NULL then, else the checked kernel. */
static FwAscendKernel *
check_or_refused (FwPlan *plan, const FwCandidate *c)
{
  g_autoptr(GError) error = NULL;

  if (fw_kernel_spec_get_attention (c->spec) != NULL)
    {
      g_assert_null (fw_ascend_kernel_generate (plan, c, &error));
      g_assert_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED);
      g_assert_nonnull (strstr (error->message, "[FW-TG-003]"));
      return NULL;
    }

  if (fw_kernel_spec_has_index_maps (c->spec, FALSE))
    {
      g_autoptr(FwAscendKernel) kernel = fw_ascend_kernel_generate (plan, c, &error);
      if (kernel == NULL)
        {
          g_assert_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED);
          g_assert_nonnull (strstr (error->message, "index map"));
          return NULL;
        }
    }
  /* A strided map is always refused. */
  g_assert_false (fw_kernel_spec_has_index_maps (c->spec, TRUE));
  return check_candidate (plan, c);
}

/* The layernorm kernel of a transformer block of seq tokens of dim features, generated and compiled, and its
 * plan (*plan). */
static FwAscendKernel *
layernorm_kernel (gint64 seq, gint64 dim, FwPlan **plan)
{
  const FwCandidate *c;

  *plan = plan_for (fw_test_transformer_block (seq, dim, 4, FALSE), FW_STRATEGY_BALANCED);
  c = find_kind (*plan, "layernorm");
  g_assert_nonnull (c);
  return check_candidate (*plan, c);
}

static void
test_layernorm (void)
{
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwAscendKernel) kernel = layernorm_kernel (16, 64, &plan);
  const char *src = fw_kernel_source_get_main (fw_ascend_kernel_get_kernel_source (kernel));

  /* Rows of 64 floats, one repeat each: the row sums are WholeReduceSum over many rows per instruction, and
   * the row mean and deviation meet their rows through Brcb's block per row, with no tile-shaped Duplicate
   * and no instruction per row. */
  g_assert_nonnull (strstr (src, "RowsReduce<ROW_ADD>("));
  g_assert_nonnull (strstr (src, "AscendC::WholeReduceSum("));
  g_assert_nonnull (strstr (src, "AscendC::Sqrt("));
  g_assert_nonnull (strstr (src, "RowsApply<ROW_SUB, ROW_TILE, ROW_BCAST>("));
  g_assert_nonnull (strstr (src, "AscendC::Brcb("));
  g_assert_null (strstr (src, "AscendC::Duplicate("));
  g_assert_null (strstr (src, "for (uint32_t r = 0; r < rows; r++)"));
}

/* Rows of 2048 floats are 256 blocks apart, past the repeat forms' uint8_t repeat stride: the layernorm keeps
 * one count-form instruction per row (ReduceSum and the per-row scalars after the vector pipe). */
static void
test_layernorm_long_rows (void)
{
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwAscendKernel) kernel = layernorm_kernel (8, 2048, &plan);
  const char *src = fw_kernel_source_get_main (fw_ascend_kernel_get_kernel_source (kernel));

  g_assert_nonnull (strstr (src, "AscendC::ReduceSum("));
  g_assert_nonnull (strstr (src, "for (uint32_t r = 0; r < rows; r++)"));
  g_assert_nonnull (strstr (src, "VectorToScalar();"));
  g_assert_null (strstr (src, "RowsReduce<"));
  g_assert_null (strstr (src, "RowsApply<"));
}

static void
test_gelu (void)
{
  g_autoptr(FwPlan) plan = plan_for (fw_test_transformer_block (16, 64, 4, FALSE), FW_STRATEGY_BALANCED);
  const FwCandidate *c = find_kind (plan, "matmul_bias_gelu");
  g_autoptr(FwAscendKernel) kernel = NULL;

  g_assert_nonnull (c);
  kernel = check_candidate (plan, c);
  g_assert_nonnull (strstr (fw_kernel_source_get_main (fw_ascend_kernel_get_kernel_source (kernel)), "Abramowitz-Stegun"));
  /* Every other candidate of the block generates too. */
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      g_autoptr(FwAscendKernel) other = check_or_refused (plan, g_ptr_array_index (plan->candidates, i));
    }
}

static void
test_softmax (void)
{
  g_autoptr(FwPlan) plan = plan_for (fw_test_transformer_block (16, 64, 4, FALSE), FW_STRATEGY_AGGRESSIVE);
  const FwCandidate *c = find_kind (plan, "attention_scores");
  g_autoptr(FwAscendKernel) kernel = NULL;

  if (c == NULL)
    {
      g_test_skip ("no attention-score candidate");
      return;
    }
  kernel = check_candidate (plan, c);
  g_assert_nonnull (strstr (fw_kernel_source_get_main (fw_ascend_kernel_get_kernel_source (kernel)), "AscendC::ReduceMax("));
  g_assert_nonnull (strstr (fw_kernel_source_get_main (fw_ascend_kernel_get_kernel_source (kernel)), "AscendC::Exp("));
}

static void
test_conv (void)
{
  g_autoptr(FwPlan) plan = plan_for (fw_test_conv_block (), FW_STRATEGY_BALANCED);

  g_assert_cmpuint (plan->candidates->len, >, 0);
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      g_autoptr(FwAscendKernel) kernel = check_candidate (plan, g_ptr_array_index (plan->candidates, i));
      g_assert_nonnull (strstr (fw_kernel_source_get_main (fw_ascend_kernel_get_kernel_source (kernel)), "inference batch norm"));
    }
}

static void
test_chain (void)
{
  g_autoptr(FwPlan) plan = plan_for (fw_test_elementwise_chain (12, 64, FALSE), FW_STRATEGY_BALANCED);
  const FwCandidate *c = find_kind (plan, "elementwise_chain");
  g_autoptr(FwAscendKernel) kernel = NULL;
  const char *src;

  g_assert_nonnull (c);
  kernel = check_candidate (plan, c);
  src = fw_kernel_source_get_main (fw_ascend_kernel_get_kernel_source (kernel));
  g_assert_nonnull (strstr (src, "sigmoid = 1 / (1 + exp(-x))"));
  g_assert_nonnull (strstr (src, "AscendC::Relu("));
  g_assert_nonnull (strstr (src, "AscendC::Abs("));
  g_assert_cmpuint (fw_kernel_source_get_n_inputs (fw_ascend_kernel_get_kernel_source (kernel)), ==, 1);
  g_assert_cmpuint (fw_kernel_source_get_n_outputs (fw_ascend_kernel_get_kernel_source (kernel)), ==, 1);
}

static void
test_unsupported (void)
{
  g_autoptr(FwPlan) plan = plan_for (fw_test_elementwise_chain (3, 64, FALSE), FW_STRATEGY_BALANCED);
  FwCandidate *c = g_ptr_array_index (plan->candidates, 0);
  FwNode *node = g_ptr_array_index (c->nodes, 1);
  const char *saved = node->op_type;
  g_autoptr(GError) error = NULL;
  FwAscendKernel *kernel;

  node->op_type = "Acosh";
  kernel = fw_ascend_kernel_generate (plan, c, &error);
  node->op_type = saved;
  g_assert_null (kernel);
  g_assert_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "Acosh"));
}


/* Generates the one candidate holding every node of the model under strategy and returns its kernel. */
static FwAscendKernel *
broadcast_kernel (FwModel *model, FwStrategy strategy, FwPlan **plan_out)
{
  FwPlan *plan = plan_for (model, strategy);
  const FwCandidate *c = find_kind (plan, "elementwise_chain");

  g_assert_nonnull (c);
  *plan_out = plan;
  return check_candidate (plan, c);
}

static void
test_broadcast_scalar (void)
{
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwAscendKernel) kernel = broadcast_kernel (fw_test_broadcast_model (TRUE, FALSE, FALSE), FW_STRATEGY_CONSERVATIVE,
                                                       &plan);
  const char *src = fw_kernel_source_get_main (fw_ascend_kernel_get_kernel_source (kernel));

  /* One element, loaded once, read as a scalar into the vector-scalar forms; no tile-shaped copy. */
  g_assert_nonnull (strstr (src, "AscendC::Muls(v"));
  g_assert_nonnull (strstr (src, "static_cast<float>(raw0.GetValue(0))"));
  g_assert_nonnull (strstr (src, "LoadToScalar();"));
  g_assert_null (strstr (src, "smallTile"));
  g_assert_null (strstr (src, "Expand0"));
}

static void
test_broadcast_row_vector (void)
{
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwAscendKernel) kernel = broadcast_kernel (fw_test_broadcast_model (FALSE, TRUE, FALSE), FW_STRATEGY_CONSERVATIVE,
                                                       &plan);
  const char *src = fw_kernel_source_get_main (fw_ascend_kernel_get_kernel_source (kernel));
  const FwAscendTiling *t = fw_ascend_kernel_get_tiling (kernel);

  /* gamma and beta stay resident and apply row by row; the tile is whole rows of 64. */
  g_assert_cmpint (t->row_length, ==, 64);
  g_assert_cmpint (t->tile_length % 64, ==, 0);
  g_assert_nonnull (strstr (src, "ROW_TILE, ROW_RESIDENT>(v"));
  g_assert_nonnull (strstr (src, ", raw0, rows);"));
  g_assert_nonnull (strstr (src, "LoadToVector();"));
  g_assert_null (strstr (src, "smallTile"));
  g_assert_null (strstr (src, "Expand0"));
}

static void
test_broadcast_per_row (void)
{
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwAscendKernel) kernel = broadcast_kernel (fw_test_broadcast_model (FALSE, FALSE, TRUE), FW_STRATEGY_CONSERVATIVE,
                                                       &plan);
  const char *src = fw_kernel_source_get_main (fw_ascend_kernel_get_kernel_source (kernel));
  const FwAscendTiling *t = fw_ascend_kernel_get_tiling (kernel);

  /* v [4, 32, 1] streams one element per row; Add and Sqrt run on the rows' values, Div applies them per row. */
  g_assert_cmpint (t->row_length, ==, 64);
  g_assert_cmpint (t->rows, >, 0);
  g_assert_nonnull (strstr (src, "rowsN);"));
  g_assert_nonnull (strstr (src, "AscendC::Sqrt(v"));
  g_assert_nonnull (strstr (src, "ROW_TILE, ROW_BCAST>(v"));
  g_assert_nonnull (strstr (src, "RowsBroadcast(bc, v"));
  g_assert_null (strstr (src, ".GetValue(r))"));
  g_assert_null (strstr (src, "smallTile"));
  g_assert_null (strstr (src, "AscendC::Duplicate("));
}

/* Every candidate of model under strategy generates and compiles; every op in `ops` sits in some candidate
 * and every string in `expect` appears in some kernel. */
static void
check_all (FwModel *model, FwStrategy strategy, const char *const *ops, const char *const *expect)
{
  g_autoptr(FwPlan) plan = plan_for (model, strategy);
  g_autoptr(GString) all = g_string_new (NULL);
  g_autoptr(GString) kinds = g_string_new (NULL);

  g_assert_cmpuint (plan->candidates->len, >, 0);
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      g_autoptr(FwAscendKernel) kernel = check_candidate (plan, c);
      g_string_append (all, fw_kernel_source_get_main (fw_ascend_kernel_get_kernel_source (kernel)));
      for (guint n = 0; n < c->nodes->len; n++)
        g_string_append_printf (kinds, " %s ", ((FwNode *) g_ptr_array_index (c->nodes, n))->op_type);
    }
  for (guint i = 0; ops && ops[i]; i++)
    {
      g_autofree char *word = g_strdup_printf (" %s ", ops[i]);
      if (strstr (kinds->str, word) == NULL)
        {
          g_test_message ("no candidate holds %s; candidates hold:%s", ops[i], kinds->str);
          for (guint r = 0; r < plan->refusals->len; r++)
            g_test_message ("refusal: %s", ((FwRefusal *) g_ptr_array_index (plan->refusals, r))->message);
        }
      g_assert_nonnull (strstr (kinds->str, word));
    }
  for (guint i = 0; expect && expect[i]; i++)
    {
      if (strstr (all->str, expect[i]) == NULL)
        g_test_message ("no kernel contains %s", expect[i]);
      g_assert_nonnull (strstr (all->str, expect[i]));
    }
  g_assert_null (strstr (all->str, "PIPE_ALL"));
}

static void
test_broadcast_all (void)
{
  static const char *const ops[] = { "Mul", "Sub", "Div", "Sqrt", "Add", NULL };
  static const char *const expect[] = { ", ROW_RESIDENT>(", ", ROW_BCAST>(", "raw0.GetValue(0)", NULL };

  check_all (fw_test_broadcast_model (TRUE, TRUE, TRUE), FW_STRATEGY_CONSERVATIVE, ops, expect);
  check_all (fw_test_broadcast_model (TRUE, TRUE, TRUE), FW_STRATEGY_BALANCED, ops, expect);
  check_all (fw_test_broadcast_model (TRUE, TRUE, TRUE), FW_STRATEGY_AGGRESSIVE, ops, NULL);
}

/* The conservative strategy fuses a decomposed LayerNorm's tail (var + eps, Sqrt, Div, Mul gamma, Add beta)
 * without its reductions: per-row scalars and row vectors in one elementwise group. */
static void
test_conservative_block (void)
{
  static const char *const expect[] = { ", ROW_BCAST>(", ", ROW_RESIDENT>(", NULL };

  check_all (fw_test_transformer_block (16, 64, 4, FALSE), FW_STRATEGY_CONSERVATIVE, NULL, expect);
}

static void
test_hard (void)
{
  static const char *const ops[] = { "HardSigmoid", "HardSwish", "GlobalAveragePool", NULL };
  static const char *const expect[] = { "hard sigmoid = min(max(alpha x + beta, 0), 1)", "AscendC::Maxs(",
                                        "AscendC::Mins(", "RowsReduce<ROW_ADD>(", "AscendC::WholeReduceSum(", NULL };

  check_all (fw_test_hard_model (), FW_STRATEGY_BALANCED, ops, expect);
  check_all (fw_test_hard_model (), FW_STRATEGY_AGGRESSIVE, ops, NULL);
}

static void
test_mask (void)
{
  static const char *const ops[] = { "Equal", "Not", "Cast", "Where", "Greater", NULL };
  static const char *const expect[] = { "AscendC::CompareScalar(", "AscendC::CMPMODE::EQ", "AscendC::CMPMODE::LT",
                                        "AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE", "AscendC::Select(",
                                        "bits inverted", "nMask", NULL };

  check_all (fw_test_mask_model (), FW_STRATEGY_BALANCED, ops, expect);
  check_all (fw_test_mask_model (), FW_STRATEGY_AGGRESSIVE, ops, NULL);
}

static void
test_norm (void)
{
  static const char *const ops[] = { "LayerNormalization", "LogSoftmax", NULL };
  static const char *const expect[] = { "layer norm over the row", "log softmax over the row", "AscendC::Ln(", NULL };

  check_all (fw_test_norm_model (), FW_STRATEGY_BALANCED, ops, expect);
  check_all (fw_test_norm_model (), FW_STRATEGY_AGGRESSIVE, ops, NULL);
}

/* Opt-in: FW_REAL_MODELS names a folder of the real models (tests/real); every candidate of each, under
 * balanced and aggressive, generates and compiles. Slow (hundreds of g++ runs). */
static void
test_real_models (void)
{
  static const struct { const char *file; const char *binds[3]; } models[] = {
    { "resnet18.onnx", { NULL } }, { "resnet50.onnx", { NULL } }, { "mobilenet_v3_small.onnx", { NULL } },
    { "bert_like.onnx", { NULL } }, { "vit_b_16.onnx", { NULL } }, { "swin_t.onnx", { NULL } },
    { "vit_b_16_dynamic.onnx", { "batch=3", NULL } }, { "bert_like_dynamic.onnx", { "batch=3", "seq=50", NULL } },
  };
  const char *dir = g_getenv ("FW_REAL_MODELS");

  if (dir == NULL || *dir == '\0')
    {
      g_test_skip ("set FW_REAL_MODELS to the folder of the real models");
      return;
    }
  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    for (guint st = 0; st < 2; st++)
      {
        g_autofree char *path = g_build_filename (dir, models[m].file, NULL);
        g_autoptr(GError) error = NULL;
        g_autoptr(FwModel) model = NULL;
        g_autoptr(FwProfile) profile = fw_test_profile_910b ();
        g_autoptr(FwPlan) plan = NULL;
        FwPlanOptions options;

        if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
          {
            g_test_message ("%s missing", path);
            continue;
          }
        model = fw_onnx_load (path, NULL, NULL, &error);
        g_assert_no_error (error);
        g_assert_true (fw_test_infer (model, models[m].binds[0] ? models[m].binds : NULL, NULL, &error));
        g_assert_no_error (error);
        fw_plan_options_init (&options);
        options.strategy = st == 0 ? FW_STRATEGY_BALANCED : FW_STRATEGY_AGGRESSIVE;
        plan = fw_plan_new (model, profile, shared_rules (), &options, &error);
        g_assert_no_error (error);
        g_test_message ("%s (%s): %u candidates", models[m].file, st == 0 ? "balanced" : "aggressive",
                        plan->candidates->len);
        for (guint i = 0; i < plan->candidates->len; i++)
          {
            g_autoptr(FwAscendKernel) kernel = check_or_refused (plan, g_ptr_array_index (plan->candidates, i));
          }
      }
}

/* Comments removed: what the compiler sees. */
static char *
strip_comments (const char *src)
{
  GString *s = g_string_new (NULL);

  for (const char *p = src; *p;)
    {
      if (p[0] == '/' && p[1] == '*')
        {
          const char *end = strstr (p + 2, "*/");
          g_assert_nonnull (end);
          p = end + 2;
        }
      else if (p[0] == '/' && p[1] == '/')
        {
          while (*p && *p != '\n')
            p++;
        }
      else
        g_string_append_c (s, *p++);
    }
  return g_string_free (s, FALSE);
}

static void
test_injection (void)
{
  static const char *const hostile[] = {
    "*/ #include </etc/passwd> /*", "a\nb\r\n#define x 1", "quote\" and ' and \\", "\xff\xfe bad utf8 \xc3",
    "/* nested", "back\\\nslash", "?\?/ trigraph",
  };
  g_autoptr(FwPlan) clean = plan_for (fw_test_transformer_block (16, 64, 4, FALSE), FW_STRATEGY_BALANCED);
  g_autoptr(FwPlan) dirty = plan_for (fw_test_transformer_block (16, 64, 4, FALSE), FW_STRATEGY_BALANCED);
  g_autofree char *dir = have_gxx () ? fw_test_temp_dir () : NULL;

  g_assert_cmpuint (clean->candidates->len, ==, dirty->candidates->len);
  for (guint i = 0; i < dirty->candidates->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (dirty->candidates, i);
      for (guint n = 0; n < c->nodes->len; n++)
        {
          FwNode *node = g_ptr_array_index (c->nodes, n);
          node->name = hostile[(i + n) % G_N_ELEMENTS (hostile)];
          for (guint k = 0; k < node->n_outputs; k++)
            if (node->outputs[k])
              node->outputs[k]->name = hostile[(i + n + k + 1) % G_N_ELEMENTS (hostile)];
        }
      g_free (c->pattern);
      c->pattern = g_strdup ("*/ evil\n#include \"x\"");
    }
  for (guint i = 0; i < dirty->candidates->len; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FwAscendKernel) a = NULL;
      g_autoptr(FwAscendKernel) b = NULL;
      const FwKernelSource *srca, *srcb;

      /* Groups read through strided index maps are refused by this target (check_or_refused), and so are
         fused attentions. */
      if (fw_kernel_spec_has_index_maps (((FwCandidate *) g_ptr_array_index (clean->candidates, i))->spec, FALSE) ||
          fw_kernel_spec_get_attention (((FwCandidate *) g_ptr_array_index (clean->candidates, i))->spec) != NULL)
        continue;
      a = fw_ascend_kernel_generate (clean, g_ptr_array_index (clean->candidates, i), &error);
      b = fw_ascend_kernel_generate (dirty, g_ptr_array_index (dirty->candidates, i), &error);

      g_assert_no_error (error);
      srca = fw_ascend_kernel_get_kernel_source (a);
      srcb = fw_ascend_kernel_get_kernel_source (b);
      for (guint f = 0; f < 3; f++)
        {
          g_autofree char *sa = strip_comments (fw_kernel_source_get_file (srca, f)->contents);
          g_autofree char *sb = strip_comments (fw_kernel_source_get_file (srcb, f)->contents);
          g_assert_cmpstr (sa, ==, sb);
          g_assert_null (strstr (sb, "passwd"));
          for (const char *p = fw_kernel_source_get_file (srcb, f)->contents; *p; p++)
            g_assert_true ((guchar) *p < 0x80);
        }
      /* CMakeLists.txt names nothing from the model */
      g_assert_cmpstr (fw_kernel_source_get_file (srca, 3)->contents, ==, fw_kernel_source_get_file (srcb, 3)->contents);
      if (dir != NULL)
        {
          write_files (b, dir);
          gxx_syntax (dir, fw_kernel_source_get_file (srcb, 0)->name);
          gxx_syntax (dir, fw_kernel_source_get_file (srcb, 2)->name);
        }
    }
  if (dir != NULL)
    fw_test_remove_dir (dir);
}

static void
test_escape (void)
{
  g_autofree char *a = fw_ascend_escape_comment ("x*/y/*z\n\\\x01\xe4");

  g_assert_null (strstr (a, "*/"));
  g_assert_null (strstr (a, "/*"));
  g_assert_null (strchr (a, '\n'));
  g_assert_cmpstr (a, ==, "x*\\/y/\\*z\\x0a\\x5c\\x01\\xe4");
}

static JsonObject *
kernel_entry (JsonArray *kernels, guint id)
{
  for (guint i = 0; i < json_array_get_length (kernels); i++)
    {
      JsonObject *k = json_array_get_object_element (kernels, i);
      if ((guint) json_object_get_int_member (k, "id") == id)
        return k;
    }
  return NULL;
}

static void
test_package (void)
{
  g_autoptr(FwPlan) plan = plan_for (fw_test_transformer_block (16, 64, 4, FALSE), FW_STRATEGY_BALANCED);
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *manifest = g_build_filename (dir, "manifest.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FwTargets) targets = fw_targets_build (plan, FALSE, TRUE, NULL, NULL, &error);
  JsonObject *root;
  JsonArray *kernels;
  guint fused = 0;

  g_assert_no_error (error);
  g_assert_true (fw_fused_model_write_kernel_package (plan, targets, dir, &error));
  g_assert_no_error (error);
  g_assert_true (json_parser_load_from_file (parser, manifest, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (root, "format_version"), ==, FW_KERNEL_PACKAGE_FORMAT_VERSION);
  g_assert_cmpstr (json_object_get_string_member (root, "model_fingerprint"), ==, plan->fingerprint);
  g_assert_cmpuint (strlen (plan->fingerprint), ==, 64);
  g_assert_cmpstr (json_object_get_string_member (root, "profile"), ==, plan->profile->name);
  kernels = json_object_get_array_member (root, "kernels");
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      g_autofree char *folder = fw_kernel_package_folder_name (c);
      g_autofree char *path = NULL;
      JsonObject *k = kernel_entry (kernels, c->index);
      JsonArray *files, *nodes;

      if (c->status != FW_CANDIDATE_PROPOSED && c->status != FW_CANDIDATE_ACCEPTED)
        {
          g_assert_null (k);
          continue;
        }
      fused++;
      g_assert_nonnull (k);
      g_assert_cmpstr (json_object_get_string_member (k, "folder"), ==, folder);
      g_assert_cmpstr (json_object_get_string_member (k, "pattern"), ==, c->pattern);
      g_assert_cmpstr (json_object_get_string_member (k, "kind"), ==, c->kind);
      nodes = json_object_get_array_member (k, "nodes");
      g_assert_cmpuint (json_array_get_length (nodes), ==, c->nodes->len);
      g_assert_cmpstr (json_array_get_string_element (nodes, 0), ==,
                       fw_node_get_name (g_ptr_array_index (c->nodes, 0)));
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (k, "inputs")), >, 0);
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (k, "outputs")), >, 0);
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (json_object_get_object_member (k, "estimates"), "ub_bytes"),
                                      fw_candidate_get_resource (c)->ub_bytes, 0.5);
      g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (k, "estimates"), "launches_saved"), ==,
                       (gint64) fw_candidate_get_cost (c)->launches_before - (gint64) fw_candidate_get_cost (c)->launches_after);
      path = g_build_filename (dir, folder, "ascend", "CMakeLists.txt", NULL);
      /* A kernel this target refuses (read through strided index maps, a fused attention) has no sources,
         only its entry. */
      if ((fw_kernel_spec_has_index_maps (c->spec, FALSE) || fw_kernel_spec_get_attention (c->spec) != NULL) &&
          !g_file_test (path, G_FILE_TEST_IS_REGULAR))
        continue;
      g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
      files = json_object_get_array_member (k, "files");
      /* Five Ascend files and the group as a small model (group.onnx), for --twin. */
      g_assert_cmpuint (json_array_get_length (files), ==, 6);
      g_assert_cmpstr (json_object_get_string_member (k, "group"), ==,
                       json_object_get_string_member (json_array_get_object_element (files, 5), "path"));
      {
        JsonObject *ak = json_object_get_object_member (k, "ascend_kernel");
        JsonArray *args = json_object_get_array_member (ak, "arguments");
        JsonObject *last = json_array_get_object_element (args, json_array_get_length (args) - 1);

        g_assert_cmpint (json_object_get_int_member (ak, "block_dim"), >=, 1);
        g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (ak, "tiling"), "total_length"), >, 0);
        g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (args, 0), "role"), ==, "input");
        g_assert_cmpstr (json_object_get_string_member (last, "role"), ==, "output");
      }
      for (guint f = 0; f < json_array_get_length (files); f++)
        {
          JsonObject *fo = json_array_get_object_element (files, f);
          g_autofree char *fp = g_build_filename (dir, json_object_get_string_member (fo, "path"), NULL);
          g_autofree char *data = NULL;
          g_autofree char *sum = NULL;
          gsize len;

          g_assert_true (g_file_get_contents (fp, &data, &len, NULL));
          sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) data, len);
          g_assert_cmpstr (sum, ==, json_object_get_string_member (fo, "sha256"));
          g_assert_cmpint (json_object_get_int_member (fo, "bytes"), ==, (gint64) len);
        }
    }
  g_assert_cmpuint (json_array_get_length (kernels), ==, fused);
  g_assert_cmpuint (fused, >=, 4);

  /* Writing it again gives the same bytes (deterministic), and nothing else appears. */
  {
    g_autofree char *first = NULL, *second = NULL;
    g_assert_true (g_file_get_contents (manifest, &first, NULL, NULL));
    g_assert_true (fw_fused_model_write_kernel_package (plan, targets, dir, &error));
    g_assert_true (g_file_get_contents (manifest, &second, NULL, NULL));
    g_assert_cmpstr (first, ==, second);
  }
  fw_test_remove_dir (dir);
}

/* The kernel allocates the buffers the plan priced: a plan whose arrangement differs from what the generator
 * makes (one buffer's copies changed behind its back) is refused as an internal error, not generated with
 * other figures. Without an arrangement the plan prices its own buffer plan and the kernel may only shrink
 * the tile. */
static void
test_priced_buffers (void)
{
  g_autoptr(FwPlan) plan = plan_for (fw_test_transformer_block (16, 64, 4, FALSE), FW_STRATEGY_BALANCED);
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 64, 4, FALSE);
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwPlan) generic = NULL;
  g_autoptr(GError) error = NULL;
  FwCandidate *c = g_ptr_array_index (plan->candidates, 0);
  FwUbBuffer *b;
  FwPlanOptions options;

  /* The first candidate the target arranges (a fused attention it refuses, FW-TG-003). */
  for (guint i = 0; i < plan->candidates->len && fw_kernel_spec_get_attention (c->spec) != NULL; i++)
    c = g_ptr_array_index (plan->candidates, i);
  g_assert_nonnull (c->spec->arrangement);
  g_assert_cmpuint (c->spec->arrangement->buffers->len, >, 0);
  {
    g_autoptr(FwAscendKernel) kernel = fw_ascend_kernel_generate (plan, c, &error);
    g_assert_no_error (error);
    g_assert_cmpfloat (fw_ascend_kernel_get_tiling (kernel)->kernel_ub_bytes, ==, fw_candidate_get_resource (c)->ub_bytes);
  }
  b = &g_array_index (c->spec->arrangement->buffers, FwUbBuffer, 0);
  b->copies++;
  {
    g_autoptr(FwAscendKernel) kernel = fw_ascend_kernel_generate (plan, c, &error);
    g_assert_null (kernel);
    g_assert_error (error, FW_ERROR, FW_ERROR_INTERNAL);
    g_assert_nonnull (strstr (error->message, "priced"));
    g_clear_error (&error);
  }
  b->copies--;

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  fw_plan_options_init (&options);
  generic = fw_plan_new (model, profile, shared_rules (), &options, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < generic->candidates->len; i++)
    {
      FwCandidate *g = g_ptr_array_index (generic->candidates, i);
      g_autoptr(FwAscendKernel) kernel = NULL;
      const FwAscendTiling *t;

      if (fw_kernel_spec_has_index_maps (g->spec, FALSE) || fw_kernel_spec_get_attention (g->spec) != NULL)
        continue;  /* refused by this target (check_or_refused) */
      kernel = fw_ascend_kernel_generate (generic, g, &error);

      g_assert_null (fw_kernel_spec_get_arrangement (g->spec));
      g_assert_no_error (error);
      t = fw_ascend_kernel_get_tiling (kernel);
      g_assert_cmpint (t->tile_length, <=, fw_candidate_get_resource (g)->tile_elements);
      g_assert_cmpfloat_with_epsilon (t->ub_bytes, fw_candidate_get_resource (g)->ub_bytes, 0.5);
      g_assert_cmpfloat (t->kernel_ub_bytes, <=, (gdouble) profile->ub_bytes);
    }
  /* A candidate no planner priced is refused for what it lacks. */
  {
    FwCandidate bare = *c;
    g_autoptr(FwAscendKernel) kernel = NULL;

    bare.spec = NULL;
    kernel = fw_ascend_kernel_generate (plan, &bare, &error);
    g_assert_null (kernel);
    g_assert_error (error, FW_ERROR, FW_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, "kernel spec"));
    g_clear_error (&error);
  }
}

/* What the twin runs is what the plan prices: a mixed cube + vector kernel's epilogue is priced over the vector
 * cores its blocks use (one per block of C, at most the cube cores), and a Conv epilogue's kernel_time_s is
 * the epilogue kernel alone (one launch, not the vendor's convolution's bytes), below the group's time. */
static void
test_priced_cores (void)
{
  g_autoptr(FwPlan) plan = plan_for (fw_test_transformer_block (16, 64, 4, FALSE), FW_STRATEGY_BALANCED);
  g_autoptr(FwPlan) conv = plan_for (fw_test_conv_block (), FW_STRATEGY_BALANCED);
  guint mixed = 0, epilogues = 0;

  for (guint i = 0; i < plan->candidates->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      const FwUbArrangement *a = c->spec ? fw_kernel_spec_get_arrangement (c->spec) : NULL;
      g_autoptr(FwAscendKernel) kernel = NULL;
      g_autoptr(GError) error = NULL;

      if (a == NULL || a->form != FW_KERNEL_FORM_CUBE_VECTOR)
        continue;
      kernel = fw_ascend_kernel_generate (plan, c, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (a->vector_cores, >, 0);
      g_assert_cmpuint (a->vector_cores, <=, plan->profile->cube_cores);
      g_assert_cmpint (a->vector_cores, ==, fw_ascend_kernel_get_tiling (kernel)->block_num);
      g_assert_cmpfloat (fw_candidate_get_cost (c)->kernel_time_s, ==, fw_candidate_get_cost (c)->time_after_s);
      mixed++;
    }
  g_assert_cmpuint (mixed, >, 0);
  for (guint i = 0; i < conv->candidates->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (conv->candidates, i);
      const FwUbArrangement *a = c->spec ? fw_kernel_spec_get_arrangement (c->spec) : NULL;
      const FwCostEstimate *cost = fw_candidate_get_cost (c);

      if (a == NULL || a->form != FW_KERNEL_FORM_EPILOGUE)
        continue;
      g_assert_cmpuint (a->vector_cores, ==, 0);
      g_assert_cmpuint (cost->launches_after, ==, 2);
      g_assert_cmpfloat (cost->kernel_time_s, >=, conv->profile->launch_overhead_s);
      g_assert_cmpfloat (cost->kernel_time_s, <=, cost->time_after_s - conv->profile->launch_overhead_s + 1e-12);
      epilogues++;
    }
  g_assert_cmpuint (epilogues, >, 0);
}

/* The Matmul API's declarations (data/ascend/lib/matmul_intf.h) take the mixed cube + vector kernel the twin
 * runs (tests/twin/matmul_tiled.cpp, the form the generator's mixed kernels are to take), warning-free. */
static void
test_matmul_api (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *fixture = g_test_build_filename (G_TEST_DIST, "twin", "matmul_tiled.cpp", NULL);
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;

  if (!have_gxx ())
    {
      g_test_skip ("no g++");
      return;
    }
  dir = fw_test_temp_dir ();
  path = g_build_filename (dir, "mixed.cpp", NULL);
  text = g_strdup_printf ("#define FW_TRANS_B true\n#define FW_TILING t.M = 16; t.N = 16\n#include \"%s\"\n", fixture);
  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
  gxx_syntax (dir, "mixed.cpp");
  fw_test_remove_dir (dir);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/codegen/ascend/escape", test_escape);
  g_test_add_func ("/core/codegen/ascend/layernorm", test_layernorm);
  g_test_add_func ("/core/codegen/ascend/layernorm-long-rows", test_layernorm_long_rows);
  g_test_add_func ("/core/codegen/ascend/gelu", test_gelu);
  g_test_add_func ("/core/codegen/ascend/softmax", test_softmax);
  g_test_add_func ("/core/codegen/ascend/conv", test_conv);
  g_test_add_func ("/core/codegen/ascend/chain", test_chain);
  g_test_add_func ("/core/codegen/ascend/unsupported", test_unsupported);
  g_test_add_func ("/core/codegen/ascend/hard", test_hard);
  g_test_add_func ("/core/codegen/ascend/mask", test_mask);
  g_test_add_func ("/core/codegen/ascend/norm", test_norm);
  g_test_add_func ("/core/codegen/ascend/broadcast-scalar", test_broadcast_scalar);
  g_test_add_func ("/core/codegen/ascend/broadcast-row-vector", test_broadcast_row_vector);
  g_test_add_func ("/core/codegen/ascend/broadcast-per-row", test_broadcast_per_row);
  g_test_add_func ("/core/codegen/ascend/broadcast-all", test_broadcast_all);
  g_test_add_func ("/core/codegen/ascend/conservative-block", test_conservative_block);
  g_test_add_func ("/core/codegen/ascend/real-models", test_real_models);
  g_test_add_func ("/core/codegen/ascend/injection", test_injection);
  g_test_add_func ("/core/codegen/ascend/package", test_package);
  g_test_add_func ("/core/codegen/ascend/priced-cores", test_priced_cores);
  g_test_add_func ("/core/codegen/ascend/priced-buffers", test_priced_buffers);
  g_test_add_func ("/core/codegen/ascend/matmul-api", test_matmul_api);
  return g_test_run ();
}
