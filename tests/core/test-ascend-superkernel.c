/* SuperKernel scopes on the Ascend target (core/codegen/ascend/fw-ascend-superkernel.c) and the twin's
 * concurrent runs (data/ascend/twin/twin_sync.cpp): hand-written kernels show a missing SyncAll as a race and
 * a SyncAll some cores never reach as a hang; every scope of the test models' plans runs on the twin with
 * the reference's values and no diagnostic, and with any one of its kept barriers dropped the twin reports
 * the race or a wrong value. bert_like and vit_b_16 with FW_REAL_MODELS set. Skipped without a C++ compiler. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "codegen/ascend/fw-ascend-superkernel.h"
#include "codegen/fw-ascend-twin.h"
#include "exec/fw-fused.h"
#include "fw-error.h"
#include "fw-test-models.h"
#include "fw-test-twin.h"
#include "onnx/fw-onnx.h"
#include "plan/fw-plan-private.h"
#include "plan/fw-superkernel-plan.h"

static FwTestTwin shared;

static FwAscendTwin *
get_twin (void)
{
  return fw_test_twin_get (&shared);
}

/* ---- hand-written kernels ---- */

/* Each of the blocks writes its 8 floats of work, then (BARRIER) reads its right neighbour's and writes it
 * to y: y = x shifted by one block. */
static const char exchange_source[] =
  "#include \"kernel_operator.h\"\n"
  "extern \"C\" __global__ __aicore__ void exchange (GM_ADDR x, GM_ADDR work, GM_ADDR y, GM_ADDR tiling)\n"
  "{\n"
  "  (void) tiling;\n"
  "  int64_t b = AscendC::GetBlockIdx (), n = AscendC::GetBlockNum ();\n"
  "  AscendC::TPipe pipe;\n"
  "  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;\n"
  "  pipe.InitBuffer (buf, 32);\n"
  "  AscendC::LocalTensor<float> t = buf.Get<float> ();\n"
  "  AscendC::GlobalTensor<float> xGm, wGm, yGm;\n"
  "  xGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (x) + 8 * b, 8);\n"
  "  wGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (work), 8 * n);\n"
  "  yGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (y) + 8 * b, 8);\n"
  "  AscendC::DataCopy (t, xGm, 8);\n"
  "  AscendC::TEventID e = pipe.FetchEventID (AscendC::HardEvent::MTE2_MTE3);\n"
  "  AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3> (e);\n"
  "  AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3> (e);\n"
  "  AscendC::DataCopy (wGm[8 * b], t, 8);\n"
  "  AscendC::PipeBarrier<PIPE_ALL> ();\n"
  "  BARRIER\n"
  "  AscendC::DataCopy (t, wGm[8 * ((b + 1) % n)], 8);\n"
  "  AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3> (e);\n"
  "  AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3> (e);\n"
  "  AscendC::DataCopy (yGm, t, 8);\n"
  "}\n";

static FwTwinRun *
run_exchange (const char *barrier, guint blocks, FwArray **y_out)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) text = g_string_new (exchange_source);
  gint64 dims[1] = { 8 * (gint64) blocks };
  g_autoptr(FwArray) x = fw_array_new (FW_DTYPE_FLOAT, 1, dims, &error);
  g_autoptr(FwArray) work = fw_array_new0 (FW_DTYPE_FLOAT, 1, dims, &error);
  FwArray *y = fw_array_new0 (FW_DTYPE_FLOAT, 1, dims, &error);
  FwArray *outs[2] = { work, y };
  FwArray *ins[1] = { x };
  FwTwinKernel k = { "exchange", "exchange.cpp", NULL, NULL, NULL, { 0 }, blocks, 7 };
  FwTwinRun *run;

  g_string_replace (text, "BARRIER", barrier, 1);
  k.kernel_source = text->str;
  k.concurrent = TRUE;
  for (gint64 i = 0; i < x->n_elements; i++)
    fw_array_set_double (x, i, (gdouble) i);
  run = fw_ascend_twin_run_kernel (get_twin (), &k, shared.profile, ins, 1, outs, 2, &error);
  g_assert_no_error (error);
  *y_out = y;
  return run;
}

static void
test_exchange_synced (void)
{
  g_autoptr(FwArray) y = NULL;
  g_autoptr(FwTwinRun) run = NULL;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  run = run_exchange ("AscendC::SyncAll<true> ();", 4, &y);
  for (guint i = 0; i < fw_twin_run_get_n_diagnostics (run); i++)
    g_test_message ("%s: %s", fw_twin_run_get_diagnostic (run, i)->code, fw_twin_run_get_diagnostic (run, i)->message);
  g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
  for (gint64 i = 0; i < y->n_elements; i++)
    g_assert_cmpfloat (fw_array_get_double (y, i), ==, (gdouble) ((i + 8) % y->n_elements));
}

/* Without the barrier each block reads what its neighbour writes at the same time: a race, whichever comes
 * first. */
static void
test_exchange_race (void)
{
  g_autoptr(FwArray) y = NULL;
  g_autoptr(FwTwinRun) run = NULL;
  const FwTwinDiagnostic *d;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  run = run_exchange ("", 4, &y);
  d = fw_twin_run_find (run, "FW-TWIN-SYNC-RACE");
  g_assert_nonnull (d);
  g_assert_cmpstr (d->file, ==, "exchange.cpp");
  g_test_message ("%s line %d: %s", d->code, d->line, d->message);
}

/* Half the blocks never reach the barrier: the others would wait for ever. */
static void
test_exchange_hang (void)
{
  g_autoptr(FwArray) y = NULL;
  g_autoptr(FwTwinRun) run = NULL;
  const FwTwinDiagnostic *d;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  run = run_exchange ("if (b < 2) { AscendC::SyncAll<true> (); }", 4, &y);
  d = fw_twin_run_find (run, "FW-TWIN-SYNC-HANG");
  g_assert_nonnull (d);
  g_test_message ("%s line %d: %s", d->code, d->line, d->message);
  g_assert_nonnull (strstr (d->message, "2 of 4 blocks"));
}

/* Blocks at two kinds of barrier never meet. */
static void
test_exchange_mixed_kinds (void)
{
  g_autoptr(FwArray) y = NULL;
  g_autoptr(FwTwinRun) run = NULL;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  run = run_exchange ("if (b == 0) { AscendC::SyncAll<false> (); } else { AscendC::SyncAll<true> (); }", 4, &y);
  g_assert_nonnull (fw_twin_run_find (run, "FW-TWIN-SYNC-HANG"));
}

/* A test build that drops the barrier (the twin skips each block's first) races as the source without it. */
static void
test_exchange_dropped (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) text = g_string_new (exchange_source);
  gint64 dims[1] = { 32 };
  g_autoptr(FwArray) x = fw_array_new0 (FW_DTYPE_FLOAT, 1, dims, &error);
  g_autoptr(FwArray) work = fw_array_new0 (FW_DTYPE_FLOAT, 1, dims, &error);
  g_autoptr(FwArray) y = fw_array_new0 (FW_DTYPE_FLOAT, 1, dims, &error);
  FwArray *outs[2] = { work, y };
  FwArray *ins[1] = { x };
  FwTwinKernel k = { "exchange", "exchange.cpp", NULL, NULL, NULL, { 0 }, 4, 7 };
  g_autoptr(FwTwinRun) run = NULL;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  g_string_replace (text, "BARRIER", "AscendC::SyncAll<true> ();", 1);
  k.kernel_source = text->str;
  k.concurrent = TRUE;
  k.drop_barrier = 1;
  run = fw_ascend_twin_run_kernel (get_twin (), &k, shared.profile, ins, 1, outs, 2, &error);
  g_assert_no_error (error);
  g_assert_nonnull (fw_twin_run_find (run, "FW-TWIN-SYNC-RACE"));
}

/* ---- scopes of whole plans ---- */

typedef struct
{
  FwPlan     *plan;
  GPtrArray  *scopes;     /* FwAscendScope* */
  gboolean    drop_each;  /* also run each scope once per kept barrier, without it */
  guint       passed, failed, barriers, caught;
} ScopeRun;

static FwAscendKernel *
lookup_kernel (guint candidate, gpointer data)
{
  GHashTable *kernels = data;
  return g_hash_table_lookup (kernels, GUINT_TO_POINTER (candidate + 1));
}

static void
log_check (const char *name, const FwTwinCheck *c)
{
  g_test_message ("%s: %s, max abs %.3g, cosine %.6f%s%s", name, c->pass ? "pass" : "FAIL", c->max_abs, c->cosine,
                  c->error ? ", " : "", c->error ? c->error : "");
  for (guint i = 0; i < MIN (c->diagnostics->len, 4u); i++)
    {
      const FwTwinDiagnostic *d = &g_array_index (c->diagnostics, FwTwinDiagnostic, i);
      g_test_message ("  %s %s:%d ×%" G_GINT64_FORMAT ": %s", d->code, d->file, d->line, d->count, d->message);
    }
}

/* The run stops at the barrier after the dropped one: the race is what tells. */
static gboolean
has_race (const FwTwinCheck *c)
{
  for (guint i = 0; i < c->diagnostics->len; i++)
    if (strcmp (g_array_index (c->diagnostics, FwTwinDiagnostic, i).code, "FW-TWIN-SYNC-RACE") == 0)
      return TRUE;
  return FALSE;
}

static void
on_reference (GHashTable *values, gpointer data)
{
  ScopeRun *r = data;

  for (guint i = 0; i < r->scopes->len; i++)
    {
      FwAscendScope *scope = g_ptr_array_index (r->scopes, i);
      const char *name = fw_kernel_source_get_name (fw_ascend_scope_get_kernel_source (scope));
      g_autoptr(FwTwinCheck) check = fw_ascend_twin_check_scope (shared.twin, scope, shared.profile, values, NULL, 0,
                                                                 NULL);

      g_test_message ("%s: %u blocks, %u barriers, %u stand-ins", name, fw_ascend_scope_get_blocks (scope),
                      fw_ascend_scope_get_n_barriers (scope), fw_ascend_scope_get_n_stand_ins (scope));
      log_check (name, check);
      if (check->pass)
        r->passed++;
      else
        r->failed++;
      /* FW_SK_DROP_EVERY=N drops every N-th barrier only (a quicker look at a large model). */
      guint every = g_getenv ("FW_SK_DROP_EVERY") ? MAX (1u, (guint) atoi (g_getenv ("FW_SK_DROP_EVERY"))) : 1u;

      for (guint b = 1; r->drop_each && b <= fw_ascend_scope_get_n_barriers (scope); b += every)
        {
          g_autoptr(FwTwinCheck) dropped = fw_ascend_twin_check_scope (shared.twin, scope, shared.profile, values,
                                                                       NULL, b, NULL);
          g_autofree char *label = g_strdup_printf ("%s without barrier %u", name, b);

          r->barriers++;
          if (has_race (dropped))
            r->caught++;
          else
            log_check (label, dropped);
          if (g_getenv ("FW_SK_VERBOSE") != NULL)
            g_test_message ("%s: %s", label, has_race (dropped) ? "race reported" : "NOT caught");
        }
    }
}

/* Every scope of plan on the twin, on one reference run; with drop_each every kept barrier dropped in turn. */
static void
check_scopes (FwPlan *plan, gboolean drop_each, guint min_scopes)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwSkPlan) sk = fw_sk_plan_build (plan, NULL, &error);
  g_autoptr(GHashTable) kernels = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) fw_ascend_kernel_free);
  g_autoptr(GPtrArray) scopes = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_ascend_scope_free);
  g_autoptr(GPtrArray) keep = g_ptr_array_new ();
  g_autoptr(GPtrArray) none = g_ptr_array_new ();
  g_autoptr(FwVerifyResult) verify = NULL;
  ScopeRun r = { plan, scopes, drop_each && g_getenv ("FW_SK_NO_DROP") == NULL, 0, 0, 0, 0 };
  FwVerifyOptions vopts = { 0 };

  g_assert_no_error (error);
  g_assert_cmpuint (sk->scopes->len, >=, min_scopes);
  for (guint i = 0; i < sk->scopes->len; i++)
    {
      const FwSkScope *s = g_ptr_array_index (sk->scopes, i);

      for (guint j = 0; j < s->kernels->len; j++)
        {
          guint c = g_array_index (s->kernels, FwSkKernel, j).candidate;
          g_autoptr(GError) local = NULL;
          FwAscendKernel *k;

          if (c == G_MAXUINT || g_hash_table_contains (kernels, GUINT_TO_POINTER (c + 1)))
            continue;
          k = fw_ascend_kernel_generate (plan, g_ptr_array_index (plan->candidates, c), &local);
          if (k == NULL)
            g_test_message ("candidate %u: no Ascend kernel (%s): a stand-in", c, local->message);
          else
            g_hash_table_insert (kernels, GUINT_TO_POINTER (c + 1), k);
        }
    }
  for (guint i = 0; i < sk->scopes->len; i++)
    {
      FwAscendScope *scope = fw_ascend_scope_generate (plan, sk, i, lookup_kernel, kernels, &error);
      const FwKernelSource *src;

      g_assert_no_error (error);
      g_ptr_array_add (scopes, scope);
      src = fw_ascend_scope_get_kernel_source (scope);
      g_assert_nonnull (fw_kernel_source_lookup_file (src, "CMakeLists.txt"));
      g_assert_nonnull (fw_kernel_source_lookup_file (src, "README.md"));
      g_assert_nonnull (strstr (fw_kernel_source_get_main (src), "extern \"C\" __global__ __aicore__ void sk_"));
      /* FW_SK_DUMP=DIR keeps the sources to read. */
      for (guint f = 0; g_getenv ("FW_SK_DUMP") != NULL && f < fw_kernel_source_get_n_files (src); f++)
        {
          g_autofree char *path = g_strdup_printf ("%s/%s_%s", g_getenv ("FW_SK_DUMP"), fw_kernel_source_get_name (src),
                                                   fw_kernel_source_get_file (src, f)->name);
          g_file_set_contents (path, fw_kernel_source_get_file (src, f)->contents, -1, NULL);
        }
      for (guint j = 0; j < fw_kernel_source_get_n_inputs (src); j++)
        g_ptr_array_add (keep, fw_kernel_source_get_input (src, j));
      for (guint j = 0; j < fw_kernel_source_get_n_outputs (src); j++)
        g_ptr_array_add (keep, fw_kernel_source_get_output (src, j));
    }
  vopts.seed = 1;
  vopts.also_keep = keep;
  vopts.on_reference = on_reference;
  vopts.on_reference_data = &r;
  verify = fw_verify_run (plan, none, &vopts, &error);
  g_assert_no_error (error);
  g_test_message ("%u scopes pass, %u fail; %u of %u dropped barriers caught", r.passed, r.failed, r.caught,
                  r.barriers);
  g_assert_cmpuint (r.failed, ==, 0);
  g_assert_cmpuint (r.passed, ==, sk->scopes->len);
  g_assert_cmpuint (r.caught, ==, r.barriers);
}

static FwPlan *
plan_for (FwModel *model, const char *const *binds)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwRuleSet) rules = fw_test_builtin_rules ();
  FwPlanOptions options;
  FwPlan *plan;

  g_assert_true (fw_test_infer (model, binds, NULL, &error));
  g_assert_no_error (error);
  fw_plan_options_init (&options);
  options.arrange = fw_ascend_arrange;
  plan = fw_plan_new (model, shared.profile, rules, &options, &error);
  g_assert_no_error (error);
  return plan;
}

static void
test_transformer (void)
{
  g_autoptr(FwPlan) plan = NULL;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  plan = plan_for (fw_test_transformer_block (16, 64, 4, FALSE), NULL);
  check_scopes (plan, TRUE, 1);
}

static void
test_real (gconstpointer data)
{
  const char *file = data;
  const char *dir = g_getenv ("FW_REAL_MODELS");
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = NULL;
  g_autoptr(FwPlan) plan = NULL;

  if (dir == NULL || *dir == '\0')
    {
      g_test_skip ("set FW_REAL_MODELS to the folder of the real models");
      return;
    }
  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  path = g_build_filename (dir, file, NULL);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("model missing");
      return;
    }
  model = fw_onnx_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  plan = plan_for (g_object_ref (model), NULL);
  check_scopes (plan, g_getenv ("FW_SK_NO_DROP") == NULL, 1);
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/ascend-superkernel/twin/synced", test_exchange_synced);
  g_test_add_func ("/core/ascend-superkernel/twin/race", test_exchange_race);
  g_test_add_func ("/core/ascend-superkernel/twin/hang", test_exchange_hang);
  g_test_add_func ("/core/ascend-superkernel/twin/mixed-kinds", test_exchange_mixed_kinds);
  g_test_add_func ("/core/ascend-superkernel/twin/dropped", test_exchange_dropped);
  g_test_add_func ("/core/ascend-superkernel/scopes/transformer", test_transformer);
  g_test_add_data_func ("/core/ascend-superkernel/scopes/bert_like", "bert_like.onnx", test_real);
  g_test_add_data_func ("/core/ascend-superkernel/scopes/vit_b_16", "vit_b_16.onnx", test_real);
  status = g_test_run ();
  fw_test_twin_clear (&shared);
  return status;
}
