/* test-host-scope.c: SuperKernel scopes on the host: the arena's placement and its checker, a scope program
 * generated, compiled and run as one step of the fused executor against the reference interpreter, a
 * placement made wrong on purpose caught by the checker and by verification, and a kernel without host
 * code ending the program. */
#include "config.h"

#include <string.h>

#include "codegen/fw-kernel-package.h"
#include "codegen/fw-targets.h"
#include "codegen/host/fw-host-scope.h"
#include "exec/fw-exec.h"
#include "exec/fw-fused.h"
#include "fw-error.h"
#include "fw-test-models.h"
#include "graph/fw-graph-private.h"
#include "plan/fw-superkernel-plan.h"
#include "report/fw-superkernel-report.h"

/* ---- the arena on its own ---- */

static FwValue fake_values[6];

static FwArenaBuffer
buffer (guint i, guint first, guint last, gint64 bytes)
{
  FwArenaBuffer b = { &fake_values[i], first, last, bytes, 0 };

  fake_values[i].name = (char *) "v";
  return b;
}

static void
test_arena_place (void)
{
  g_autoptr(GError) error = NULL;
  /* a lives over all three kernels, b and c one after another, d with c: b's bytes serve c or d. */
  FwArenaBuffer bufs[4] = { buffer (0, 0, 2, 1024), buffer (1, 0, 0, 4096), buffer (2, 1, 1, 2048),
                            buffer (3, 1, 2, 2048) };
  gint64 size = fw_arena_place (bufs, 4);

  g_assert_true (fw_arena_check (bufs, 4, size, &error));
  g_assert_no_error (error);
  /* Live at once at most a + b (5 KiB) or a + c + d (5 KiB): best fit reaches it. */
  g_assert_cmpint (size, ==, 5120);
  g_assert_cmpint (bufs[2].offset, !=, bufs[3].offset);
}

static void
test_arena_check_overlap (void)
{
  g_autoptr(GError) error = NULL;
  FwArenaBuffer bufs[3] = { buffer (0, 0, 1, 128), buffer (1, 1, 2, 128), buffer (2, 2, 2, 128) };
  gint64 size = fw_arena_place (bufs, 3);

  g_assert_true (fw_arena_check (bufs, 3, size, NULL));
  /* a and c never live together and may share; a and b do and must not. */
  bufs[1].offset = bufs[0].offset;
  g_assert_false (fw_arena_check (bufs, 3, size, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_INTERNAL);
  g_clear_error (&error);
  bufs[1].offset = 64;
  g_assert_false (fw_arena_check (bufs, 3, size, &error));   /* off the alignment */
  g_assert_error (error, FW_ERROR, FW_ERROR_INTERNAL);
}

/* ---- a scope program ---- */

typedef struct
{
  char            *dir;
  FwHostToolchain *toolchain;
  FwModel         *model;
  FwPlan          *plan;
  FwSkPlan        *sk;
  FwTargets       *targets;
  FwHostScopes    *scopes;
} Fixture;

static void
weight (FwGraph *g, GRand *rand, const char *name, gint64 rows, gint64 cols)
{
  gint64 dims[2] = { rows, cols };
  fw_test_add_random_weight (g, rand, name, 2, dims, 0.2f);
}

/* a = Relu(x·W1), b = Relu(a·W2), y = b·W3 + a, then a Tanh: the residual keeps a live across b, so the two
 * cannot share bytes. With with_slice a Slice of the input that does not broadcast into its space (no host
 * code) runs after the Tanh, and a MatMul → Add → Relu after it. */
static FwModel *
residual_model (gboolean with_slice)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  g_autoptr(GError) error = NULL;
  FwDim d[2] = { FW_DIM_STATIC (32), FW_DIM_STATIC (64) };

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, d, NULL));
  weight (g, rand, "W1", 64, 64);
  weight (g, rand, "W2", 64, 64);
  weight (g, rand, "W3", 64, 64);
  fw_test_add_node (g, "MatMul", "/l1/MatMul", "x", "W1", "m1");
  fw_test_add_node (g, "Relu", "/l1/Relu", "m1", NULL, "a");
  {
    /* A view between the two: it shares a's bytes in the program, as in the interpreter. */
    const gint64 two[1] = { 2 }, shape[2] = { 32, 64 };
    g_autoptr(FwTensor) st = fw_tensor_new_int64 (1, two, shape);

    g_assert_nonnull (fw_graph_add_initializer (g, "shape", st, NULL));
    fw_test_add_node (g, "Reshape", "/l2/Reshape", "a", "shape", "ar");
  }
  fw_test_add_node (g, "MatMul", "/l2/MatMul", "ar", "W2", "m2");
  fw_test_add_node (g, "Relu", "/l2/Relu", "m2", NULL, "b");
  fw_test_add_node (g, "MatMul", "/l3/MatMul", "b", "W3", "m3");
  fw_test_add_node (g, "Add", "/l3/Add", "m3", "a", "s");
  fw_test_add_node (g, "Tanh", "/out/Tanh", "s", NULL, with_slice ? "t" : "y");
  if (with_slice)
    {
      const gint64 one[1] = { 1 }, starts = 0, ends = 32, axes = 1;
      g_autoptr(FwTensor) st = fw_tensor_new_int64 (1, one, &starts);
      g_autoptr(FwTensor) en = fw_tensor_new_int64 (1, one, &ends);
      g_autoptr(FwTensor) ax = fw_tensor_new_int64 (1, one, &axes);
      const char *ins[4] = { "x", "starts", "ends", "axes" }, *outs[1] = { "xs" };

      g_assert_nonnull (fw_graph_add_initializer (g, "starts", st, NULL));
      g_assert_nonnull (fw_graph_add_initializer (g, "ends", en, NULL));
      g_assert_nonnull (fw_graph_add_initializer (g, "axes", ax, NULL));
      weight (g, rand, "W4", 32, 64);
      g_assert_nonnull (fw_graph_add_node (g, "Slice", "", "/l4/Slice", 4, ins, 1, outs, NULL));
      fw_test_add_node (g, "MatMul", "/l4/MatMul", "xs", "W4", "m4");
      fw_test_add_node (g, "Add", "/l4/Add", "m4", "t", "r4");
      fw_test_add_node (g, "Relu", "/l4/Relu", "r4", NULL, "y");
    }
  g_assert_true (fw_graph_add_output (g, "y", NULL));
  g_assert_true (fw_graph_link (g, &error));
  g_assert_no_error (error);
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  return model;
}

/* Softmax(x) → Softmax → Relu on [128, 1024]: sub-kernels that call no library, large enough for two
 * threads, so the program runs them in its one team. */
static FwModel *
team_model (void)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GError) error = NULL;
  FwDim d[2] = { FW_DIM_STATIC (128), FW_DIM_STATIC (1024) };

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, d, NULL));
  fw_node_set_attr_int (fw_test_add_node (g, "Softmax", "/a/Softmax", "x", NULL, "a"), "axis", 1);
  fw_node_set_attr_int (fw_test_add_node (g, "Softmax", "/b/Softmax", "a", NULL, "b"), "axis", 0);
  fw_test_add_node (g, "Relu", "/c/Relu", "b", NULL, "y");
  g_assert_true (fw_graph_add_output (g, "y", NULL));
  g_assert_true (fw_graph_link (g, &error));
  g_assert_no_error (error);
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  return model;
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autofree char *cache = NULL;
  FwPlanOptions options;

  f->dir = fw_test_temp_dir ();
  cache = g_build_filename (f->dir, "kernels", NULL);
  f->toolchain = fw_host_toolchain_new (cache, &error);
  f->model = GPOINTER_TO_INT (data) == 2 ? team_model () : residual_model (GPOINTER_TO_INT (data));
  fw_plan_options_init (&options);
  f->plan = fw_plan_new (f->model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  f->sk = fw_sk_plan_build (f->plan, NULL, &error);
  g_assert_no_error (error);
  f->scopes = fw_host_scopes_build (f->plan, f->sk);
  if (f->toolchain != NULL)
    {
      f->targets = fw_targets_build (f->plan, TRUE, FALSE, cache, NULL, &error);
      g_assert_no_error (error);
    }
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  fw_host_scopes_free (f->scopes);
  fw_targets_free (f->targets);
  fw_sk_plan_free (f->sk);
  fw_plan_free (f->plan);
  g_object_unref (f->model);
  fw_host_toolchain_free (f->toolchain);
  fw_test_remove_dir (f->dir);
  g_free (f->dir);
}

static FwScopeCheckResult *
check_scopes (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) kernels = fw_targets_group_kernels (f->targets);
  g_autoptr(GPtrArray) scopes = fw_host_scopes_kernels (f->scopes);
  FwScopeCheckOptions options = { 0 };
  FwScopeCheckResult *result;

  options.seed = 3;
  options.n_threads = 2;
  options.verify = TRUE;
  result = fw_scope_check_run (f->plan, kernels, scopes, &options, &error);
  g_assert_no_error (error);
  g_assert_nonnull (result);
  return result;
}

/* The programs compiled and checked on the reference's values; NULL (the test skipped) without a compiler. */
static FwScopeCheckResult *
compile_and_check (Fixture *f, FwHostScope *s)
{
  g_autoptr(GError) error = NULL;

  if (f->toolchain == NULL)
    {
      g_test_skip ("no C compiler");
      return NULL;
    }
  g_assert_true (fw_host_scopes_compile (f->scopes, f->toolchain, NULL, &error));
  g_assert_no_error (error);
  g_assert_null (s->error);
  g_assert_true (s->compiled);
  return check_scopes (f);
}

static void
test_program_runs (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwScopeCheckResult) result = NULL;
  FwHostScope *s;
  const char *src;

  g_assert_cmpuint (f->sk->scopes->len, ==, 1);
  g_assert_cmpuint (f->scopes->scopes->len, ==, 1);
  s = g_ptr_array_index (f->scopes->scopes, 0);
  g_assert_cmpuint (s->members->len, >=, 3);
  {
    guint views = 0;

    for (guint u = 0; u < s->units->len; u++)
      views += g_ptr_array_index (s->units, u) == NULL;
    g_assert_cmpuint (views, ==, 1);
  }
  g_assert_null (s->end_code);
  /* a and b are between the sub-kernels only; y leaves. */
  g_assert_cmpuint (s->buffers->len, >=, 2);
  g_assert_cmpuint (s->outputs->len, ==, 1);
  g_assert_true (fw_arena_check ((const FwArenaBuffer *) s->buffers->data, s->buffers->len, s->arena_bytes, NULL));
  g_assert_cmpint (s->arena_bytes + s->output_bytes, <=, s->interpreter_peak_bytes);
  src = fw_kernel_source_get_main (fw_host_scope_get_source (s));
  g_assert_nonnull (strstr (src, "fw_sk_entry"));
  g_assert_nonnull (strstr (src, "static int\nfw_k0 ("));
  g_assert_nonnull (strstr (src, "arena + "));
  if ((result = compile_and_check (f, s)) == NULL)
    return;
  g_assert_cmpuint (result->scopes->len, ==, 1);
  g_assert_true (g_array_index (result->scopes, FwScopeCheck, 0).contracted);
  g_assert_true (g_array_index (result->scopes, FwScopeCheck, 0).pass);
  g_assert_true (result->outputs_pass);
  g_assert_true (result->pass);
  {
    /* The report: the scope's host program with its arena, verified. */
    g_autoptr(JsonNode) report = json_node_init_object (json_node_alloc (), json_object_new ());
    JsonObject *sk, *host, *program;

    fw_superkernel_report_add (report, f->sk);
    fw_superkernel_report_add_host (report, f->scopes, result);
    sk = json_object_get_object_member (json_node_get_object (report), "superkernel");
    host = json_object_get_object_member (json_array_get_object_element (json_object_get_array_member (sk, "scopes"),
                                                                         0), "host");
    program = json_array_get_object_element (json_object_get_array_member (host, "programs"), 0);
    g_assert_cmpint (json_object_get_int_member (program, "arena_bytes"), ==, s->arena_bytes);
    g_assert_cmpint (json_object_get_int_member (program, "interpreter_peak_bytes"), ==, s->interpreter_peak_bytes);
    g_assert_true (json_object_get_boolean_member (program, "pass"));
    g_assert_true (json_object_get_null_member (program, "measured_saving_us"));   /* not measured */
    g_assert_true (json_object_get_boolean_member (json_object_get_object_member (sk, "host"), "pass"));
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_object_get_object_member (sk, "host"),
                                                                          "cuts")), ==, 0);
  }
}

/* Two buffers live at once given the same bytes: the checker refuses the program, and built without the
 * check, verification fails it. */
static void
test_wrong_placement (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwScopeCheckResult) result = NULL;
  FwHostScope *s = g_ptr_array_index (f->scopes->scopes, 0);
  FwArenaBuffer *bufs = (FwArenaBuffer *) s->buffers->data;
  guint a = G_MAXUINT, b = G_MAXUINT;

  for (guint i = 0; i < s->buffers->len; i++)
    for (guint j = i + 1; j < s->buffers->len && a == G_MAXUINT; j++)
      /* One still read after the other is written: an in-place elementwise kernel would be right anyway. */
      if (MIN (bufs[i].last, bufs[j].last) > MAX (bufs[i].first, bufs[j].first))
        {
          a = i;
          b = j;
        }
  g_assert_cmpuint (a, !=, G_MAXUINT);
  bufs[b].offset = bufs[a].offset;
  g_assert_false (fw_host_scope_generate (s, TRUE, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_INTERNAL);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  if (f->toolchain == NULL)
    {
      g_test_skip ("no C compiler");
      return;
    }
  g_assert_true (fw_host_scope_generate (s, FALSE, &error));
  g_assert_true (fw_host_scopes_compile (f->scopes, f->toolchain, NULL, &error));
  g_assert_true (s->compiled);
  result = check_scopes (f);
  g_assert_false (g_array_index (result->scopes, FwScopeCheck, 0).pass);
  g_assert_false (result->pass);
}

/* The Slice has no host code: the scope's program ends before it with FW-SK-008; the one kernel after it
 * makes no program. The model still verifies with the program. */
static void
test_cut (Fixture *f, gconstpointer data)
{
  guint ended = 0;

  for (guint i = 0; i < f->sk->refusals->len; i++)
    g_test_message ("refused: %s", ((FwSkRefusal *) g_ptr_array_index (f->sk->refusals, i))->message);
  for (guint i = 0; i < f->sk->scopes->len; i++)
    {
      FwSkScope *sc = g_ptr_array_index (f->sk->scopes, i);
      for (guint k = 0; k < sc->kernels->len; k++)
        g_test_message ("scope %s kernel %u: %s", sc->name, k,
                        g_array_index (sc->kernels, FwSkKernel, k).node->op_type);
    }
  for (guint i = 0; i < f->scopes->cuts->len; i++)
    {
      FwHostScopeCut *cut = g_ptr_array_index (f->scopes->cuts, i);
      g_test_message ("cut at %s: %s", cut->node->op_type, cut->message);
    }
  for (guint i = 0; i < f->scopes->scopes->len; i++)
    {
      FwHostScope *s = g_ptr_array_index (f->scopes->scopes, i);

      g_test_message ("%s: %u sub-kernels, end %s", s->name, s->members->len, s->end_code ? s->end_code : "-");
      ended += g_strcmp0 (s->end_code, FW_SK_HOST_CODE_NAME) == 0;
      for (guint m = 0; m < s->members->len; m++)
        {
          const FwScopeMember *mb = &g_array_index (s->members, FwScopeMember, m);
          g_assert_true (mb->node == NULL || strcmp (mb->node->op_type, "Slice") != 0);
        }
    }
  g_assert_cmpuint (f->scopes->cuts->len, >=, 1);
  g_assert_cmpuint (ended, >=, 1);
  if (f->toolchain == NULL)
    {
      g_test_skip ("no C compiler");
      return;
    }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(FwScopeCheckResult) result = NULL;

    g_assert_true (fw_host_scopes_compile (f->scopes, f->toolchain, NULL, &error));
    result = check_scopes (f);
    g_assert_true (result->pass);
  }
}

/* Sub-kernels without a library call run in the program's one OpenMP team: their loops are work-shared
 * (no parallel region of their own) and the program still matches the reference on two threads. */
static void
test_team (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwScopeCheckResult) result = NULL;
  FwHostScope *s;
  const char *src;
  guint team = 0;

  for (guint i = 0; i < f->scopes->scopes->len; i++)
    {
      s = g_ptr_array_index (f->scopes->scopes, i);
      for (guint u = 0; u < s->units->len; u++)
        g_test_message ("%s unit %u: team %d", s->name, u, fw_host_scope_unit_in_team (s, u));
    }
  g_assert_cmpuint (f->scopes->scopes->len, ==, 1);
  s = g_ptr_array_index (f->scopes->scopes, 0);
  for (guint u = 0; u < s->units->len; u++)
    team += fw_host_scope_unit_in_team (s, u);
  g_assert_cmpuint (team, >=, 2);
  g_assert_cmpuint (s->n_teams, ==, 1);
  src = fw_kernel_source_get_main (fw_host_scope_get_source (s));
  g_assert_nonnull (strstr (src, "#pragma omp for schedule(static)"));
  /* The entry's region is the program's only one. */
  g_assert_nonnull (strstr (src, "#pragma omp parallel"));
  g_assert_null (strstr (strstr (src, "#pragma omp parallel") + 1, "#pragma omp parallel"));
  if ((result = compile_and_check (f, s)) == NULL)
    return;
  g_assert_true (g_array_index (result->scopes, FwScopeCheck, 0).pass);
  g_assert_true (result->pass);
}

/* The kernel package with the host target and the scopes: superkernels/s000/host/ holds the program's
 * source, a Makefile and a README, the manifest names them, and the program compiles as the Makefile says. */
static void
test_package (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *pkg = g_build_filename (f->dir, "package", NULL);
  g_autofree char *manifest = g_build_filename (pkg, "manifest.json", NULL);
  g_autofree char *host = g_build_filename (pkg, "superkernels", "s000", "host", NULL);
  g_autofree char *source = g_build_filename (host, "sk_000_0.c", NULL);
  g_autofree char *object = g_build_filename (host, "sk_000_0.so", NULL);
  const char *const names[] = { "sk_000_0.c", "Makefile", "README.md" };
  JsonObject *sk, *hs, *program;
  JsonArray *files;

  if (f->toolchain == NULL)
    {
      g_test_skip ("no C compiler");
      return;
    }
  g_assert_true (fw_kernel_package_write_with_scopes (f->plan, f->targets, pkg, NULL, NULL, f->sk, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (host, names[i], NULL);
      g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
    }
  g_assert_true (json_parser_load_from_file (parser, manifest, &error));
  g_assert_no_error (error);
  sk = json_array_get_object_element (json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                                                    "superkernels"), 0);
  g_assert_cmpstr (json_object_get_string_member (sk, "folder"), ==, "superkernels/s000");
  g_assert_false (json_object_has_member (sk, "ascend_superkernel"));   /* the Ascend target did not run */
  hs = json_object_get_object_member (sk, "host_superkernel");
  g_assert_cmpstr (json_object_get_string_member (hs, "makefile"), ==, "superkernels/s000/host/Makefile");
  g_assert_cmpstr (json_object_get_string_member (hs, "readme"), ==, "superkernels/s000/host/README.md");
  program = json_array_get_object_element (json_object_get_array_member (hs, "programs"), 0);
  g_assert_cmpstr (json_object_get_string_member (program, "source"), ==, "superkernels/s000/host/sk_000_0.c");
  g_assert_cmpstr (json_object_get_string_member (program, "entry"), ==, "fw_sk_entry");
  g_assert_cmpint (json_object_get_int_member (program, "arena_bytes"), >, 0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (program, "sub_kernels")), >=, 3);
  files = json_object_get_array_member (sk, "files");
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *rel = g_strdup_printf ("superkernels/s000/host/%s", names[i]);
      gboolean named = FALSE;

      for (guint k = 0; k < json_array_get_length (files); k++)
        named |= g_strcmp0 (json_object_get_string_member (json_array_get_object_element (files, k), "path"),
                            rel) == 0;
      g_assert_true (named);
    }
  {
    /* The Makefile's own command, with the toolchain's compiler. */
    g_auto(GStrv) flags = g_strsplit (fw_host_toolchain_default_flags (), " ", -1);
    g_autoptr(GStrvBuilder) argv = g_strv_builder_new ();
    g_auto(GStrv) args = NULL;
    g_autofree char *err = NULL;
    gint status = 0;

    g_strv_builder_add (argv, fw_host_toolchain_get_compiler (f->toolchain));
    g_strv_builder_addv (argv, (const char **) flags);
    g_strv_builder_add_many (argv, "-o", object, source, "-lm", NULL);
    args = g_strv_builder_end (argv);
    g_assert_true (g_spawn_sync (NULL, args, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status,
                                 &error));
    g_assert_no_error (error);
    g_test_message ("%s", err);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
    g_assert_true (g_file_test (object, G_FILE_TEST_IS_REGULAR));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/host-scope/arena/place", test_arena_place);
  g_test_add_func ("/core/host-scope/arena/check-overlap", test_arena_check_overlap);
  g_test_add ("/core/host-scope/program/runs", Fixture, GINT_TO_POINTER (FALSE), fixture_set_up, test_program_runs,
              fixture_tear_down);
  g_test_add ("/core/host-scope/program/wrong-placement", Fixture, GINT_TO_POINTER (FALSE), fixture_set_up,
              test_wrong_placement, fixture_tear_down);
  g_test_add ("/core/host-scope/program/cut", Fixture, GINT_TO_POINTER (TRUE), fixture_set_up, test_cut,
              fixture_tear_down);
  g_test_add ("/core/host-scope/program/team", Fixture, GINT_TO_POINTER (2), fixture_set_up, test_team,
              fixture_tear_down);
  g_test_add ("/core/host-scope/package", Fixture, GINT_TO_POINTER (FALSE), fixture_set_up, test_package,
              fixture_tear_down);
  return g_test_run ();
}
