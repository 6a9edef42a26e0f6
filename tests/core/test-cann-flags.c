/* test-cann-flags.c: CANN's AUTOFUSE_FLAGS and AUTOFUSE_DFX_FLAGS as plan options: what each option does
 * to a plan, their precedence under our AUTOFUSION_* variables, the skip file, and the errors. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "fw-error.h"
#include "fw-test-models.h"
#include "plan/fw-plan-private.h"

static void
clear_env (void)
{
  g_unsetenv ("AUTOFUSE_FLAGS");
  g_unsetenv ("AUTOFUSE_DFX_FLAGS");
  g_unsetenv ("AUTOFUSION_ENABLE");
}

/* A plan of the transformer block under the variables as set; NULL with the error when they are bad. */
static FwPlan *
plan_env (GError **error)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 64, 4, FALSE);
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_auto(FwPlanOptions) options = { 0 };
  FwPlan *plan;

  g_assert_true (fw_test_infer (model, NULL, NULL, NULL));
  fw_plan_options_init (&options);
  if (!fw_plan_options_from_env (&options, error))
    return NULL;
  plan = fw_plan_new (model, profile, NULL, &options, error);
  return plan;
}

static guint
count_refusals (FwPlan *plan, FwReasonCode code)
{
  guint n = 0;

  for (guint i = 0; i < plan->refusals->len; i++)
    n += ((FwRefusal *) g_ptr_array_index (plan->refusals, i))->code == code;
  return n;
}

static gboolean
any_member (FwPlan *plan, gboolean (*pred) (const FwNode *node))
{
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      for (guint n = 0; n < c->nodes->len; n++)
        if (pred (g_ptr_array_index (c->nodes, n)))
          return TRUE;
    }
  return FALSE;
}

static gboolean
is_reduce (const FwNode *node)
{
  return fw_node_class (node) == FW_OP_CLASS_REDUCE;
}

static gboolean
is_matmul (const FwNode *node)
{
  return strcmp (node->op_type, "MatMul") == 0 || strcmp (node->op_type, "Gemm") == 0;
}

static const char *skipped_type;

static gboolean
is_skipped_type (const FwNode *node)
{
  return strcmp (node->op_type, skipped_type) == 0;
}

/* The op type of the first reduction the plan fuses. */
static const char *
fused_reduce_type (FwPlan *plan)
{
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      for (guint n = 0; n < c->nodes->len; n++)
        if (is_reduce (g_ptr_array_index (c->nodes, n)))
          return ((FwNode *) g_ptr_array_index (c->nodes, n))->op_type;
    }
  g_assert_not_reached ();
  return NULL;
}

static void
test_flags (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwPlan) plain = NULL, off = NULL, on = NULL, small = NULL, no_reduce = NULL, no_mm = NULL, back = NULL;
  guint largest = 0;

  clear_env ();
  plain = plan_env (&error);
  g_assert_no_error (error);
  g_assert_cmpuint (plain->candidates->len, >, 0);
  g_assert_true (any_member (plain, is_reduce));
  g_assert_true (any_member (plain, is_matmul));

  g_setenv ("AUTOFUSE_FLAGS", "--enable_autofuse=false", TRUE);
  off = plan_env (&error);
  g_assert_no_error (error);
  g_assert_cmpuint (off->candidates->len, ==, 0);
  /* Ours is applied after CANN's and wins. */
  g_setenv ("AUTOFUSION_ENABLE", "1", TRUE);
  on = plan_env (&error);
  g_assert_no_error (error);
  g_assert_cmpuint (on->candidates->len, ==, plain->candidates->len);
  g_unsetenv ("AUTOFUSION_ENABLE");

  g_setenv ("AUTOFUSE_FLAGS", " --max_fusion_size=3 ; ", TRUE);
  small = plan_env (&error);
  g_assert_no_error (error);
  for (guint i = 0; i < small->candidates->len; i++)
    largest = MAX (largest, ((FwCandidate *) g_ptr_array_index (small->candidates, i))->nodes->len);
  g_assert_cmpuint (largest, <=, 3);

  g_setenv ("AUTOFUSE_FLAGS", "--autofuse_disable_pass=reduce", TRUE);
  no_reduce = plan_env (&error);
  g_assert_no_error (error);
  g_assert_false (any_member (no_reduce, is_reduce));
  g_assert_cmpuint (count_refusals (no_reduce, FW_NF_SKIPPED), >, 0);

  g_setenv ("AUTOFUSE_FLAGS", "--autofuse_disable_pass=matmul,transpose", TRUE);
  no_mm = plan_env (&error);
  g_assert_no_error (error);
  g_assert_false (any_member (no_mm, is_matmul));
  g_assert_true (any_member (no_mm, is_reduce));

  /* Enabling what is disabled in the same variable leaves it on. */
  g_setenv ("AUTOFUSE_FLAGS", "--autofuse_disable_pass=reduce;--autofuse_enable_pass=reduce", TRUE);
  back = plan_env (&error);
  g_assert_no_error (error);
  g_assert_true (any_member (back, is_reduce));
  g_assert_cmpuint (count_refusals (back, FW_NF_SKIPPED), ==, 0);
  clear_env ();
}

static void
test_skip_file (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *cfg = g_build_filename (dir, "skip.cfg", NULL);
  g_autofree char *dfx = g_strdup_printf ("--skip_node_names_cfg=%s", cfg);
  g_autoptr(FwPlan) plain = NULL, skipped = NULL;
  const FwCandidate *first;
  g_autofree char *text = NULL;
  FwNode *by_name;

  clear_env ();
  plain = plan_env (&error);
  g_assert_no_error (error);
  skipped_type = fused_reduce_type (plain);
  first = g_ptr_array_index (plain->candidates, 0);
  by_name = g_ptr_array_index (first->nodes, first->nodes->len - 1);
  text = g_strdup_printf ("# what stays unfused\n[ByNodeType]\n%s   # every one of them\n\n[ByNodeName]\n%s\n",
                          skipped_type, by_name->name);
  g_assert_true (g_file_set_contents (cfg, text, -1, NULL));
  g_setenv ("AUTOFUSE_DFX_FLAGS", dfx, TRUE);
  skipped = plan_env (&error);
  g_assert_no_error (error);
  g_assert_false (any_member (skipped, is_skipped_type));
  for (guint i = 0; i < skipped->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (skipped->candidates, i);
      for (guint n = 0; n < c->nodes->len; n++)
        g_assert_cmpstr (((FwNode *) g_ptr_array_index (c->nodes, n))->name, !=, by_name->name);
    }
  for (guint i = 0; i < skipped->refusals->len; i++)
    {
      FwRefusal *r = g_ptr_array_index (skipped->refusals, i);
      if (r->code == FW_NF_SKIPPED && g_ptr_array_index (r->nodes, 0) != NULL &&
          strcmp (((FwNode *) g_ptr_array_index (r->nodes, 0))->name, by_name->name) == 0)
        g_assert_nonnull (strstr (r->message, "[ByNodeName]"));
    }

  /* Bad files: a section we do not know, a name before any section, no file. */
  g_assert_true (g_file_set_contents (cfg, "[ByNodeType]\nRelu\n[ByOpType]\nAdd\n", -1, NULL));
  g_assert_null (plan_env (&error));
  g_assert_error (error, FW_ERROR, FW_ERROR_INVALID);
  g_assert_true (g_str_has_suffix (error->message, "skip.cfg:3: unknown section “[ByOpType]” (known: [ByNodeType], "
                                                   "[ByNodeName])"));
  g_clear_error (&error);
  g_assert_true (g_file_set_contents (cfg, "# names\nSoftmax\n", -1, NULL));
  g_assert_null (plan_env (&error));
  g_assert_true (g_str_has_suffix (error->message, "skip.cfg:2: “Softmax” comes before any section ([ByNodeType] or "
                                                   "[ByNodeName])"));
  g_clear_error (&error);
  g_remove (cfg);
  g_assert_null (plan_env (&error));
  g_assert_error (error, FW_ERROR, FW_ERROR_IO);
  g_assert_true (g_str_has_prefix (error->message, "AUTOFUSE_DFX_FLAGS: --skip_node_names_cfg: "));
  g_clear_error (&error);
  clear_env ();
  fw_test_remove_dir (dir);
}

typedef struct
{
  const char *var;
  const char *value;
  const char *message;
} BadCase;

static const BadCase bad_cases[] = {
  { "AUTOFUSE_FLAGS", "--enable_autofuse=maybe", "AUTOFUSE_FLAGS: --enable_autofuse=“maybe”: expected true or false" },
  { "AUTOFUSE_FLAGS", "--max_fusion_size=0", "AUTOFUSE_FLAGS: --max_fusion_size=“0”: expected a number from 1 to 4096" },
  { "AUTOFUSE_FLAGS", "--max_fusion_size=8x", "AUTOFUSE_FLAGS: --max_fusion_size=“8x”: expected a number from 1 to 4096" },
  { "AUTOFUSE_FLAGS", "--autofuse_disable_pass=reduce,concatt",
    "AUTOFUSE_FLAGS: --autofuse_disable_pass: unknown pass “concatt” (known: reduce, matmul, concat, slice, transpose, "
    "gather)" },
  { "AUTOFUSE_FLAGS", "--enable_autofuze=true",
    "AUTOFUSE_FLAGS: unknown option “--enable_autofuze” (known: --enable_autofuse, --max_fusion_size, "
    "--autofuse_enable_pass, --autofuse_disable_pass)" },
  { "AUTOFUSE_FLAGS", "enable_autofuse=true", "AUTOFUSE_FLAGS: “enable_autofuse=true” is not of the form --option=value" },
  { "AUTOFUSE_DFX_FLAGS", "--codegen_compile_debug=true",
    "AUTOFUSE_DFX_FLAGS: --codegen_compile_debug=true needs --debug_dir=DIR" },
  { "AUTOFUSE_DFX_FLAGS", "--dump_dir=/tmp",
    "AUTOFUSE_DFX_FLAGS: unknown option “--dump_dir” (known: --debug_dir, --codegen_compile_debug, "
    "--skip_node_names_cfg)" },
};

static void
test_errors (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (bad_cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FwPlan) plan = NULL;

      clear_env ();
      g_setenv (bad_cases[i].var, bad_cases[i].value, TRUE);
      plan = plan_env (&error);
      g_assert_null (plan);
      g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
      g_assert_cmpstr (error->message, ==, bad_cases[i].message);
    }
  clear_env ();
}

static void
test_debug (void)
{
  g_autoptr(GError) error = NULL;
  g_auto(FwCannDebug) debug = { 0 };

  clear_env ();
  g_assert_true (fw_cann_debug_from_env (&debug, &error));
  g_assert_null (debug.debug_dir);
  g_assert_false (debug.compile_debug);
  g_setenv ("AUTOFUSE_DFX_FLAGS", "--codegen_compile_debug=true;--debug_dir=/tmp/dbg", TRUE);
  g_assert_true (fw_cann_debug_from_env (&debug, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (debug.debug_dir, ==, "/tmp/dbg");
  g_assert_true (debug.compile_debug);
  clear_env ();
}

/* Every refusal gives the closest CANN code where one corresponds: by the refused operator for FW-NF-003. */
static void
test_reason_codes (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwPlan) plan = NULL;
  guint checked = 0;

  clear_env ();
  plan = plan_env (&error);
  g_assert_no_error (error);
  for (guint i = 0; i < plan->refusals->len; i++)
    {
      const FwRefusal *r = g_ptr_array_index (plan->refusals, i);
      const char *cann = fw_reason_cann_code (r);

      switch (r->code)
        {
        case FW_NF_CYCLE:
          g_assert_cmpstr (cann, ==, "NF1002");
          checked++;
          break;
        case FW_NF_ITERATION_SPACE:
          g_assert_nonnull (r->refused);
          if (strcmp (r->refused->op_type, "Transpose") == 0)
            g_assert_cmpstr (cann, ==, "NF1022");
          if (strcmp (r->refused->op_type, "Slice") == 0)
            g_assert_cmpstr (cann, ==, "NF1023");
          checked++;
          break;
        case FW_NF_STRATEGY:
        case FW_NF_OUTSIDE_USE:
          g_assert_null (cann);
          checked++;
          break;
        default:
          break;
        }
    }
  g_assert_cmpuint (checked, >, 0);
  {
    FwRefusal fake = { FW_NF_MAX_INPUTS, NULL, plan->refusals->len ? ((FwRefusal *) g_ptr_array_index (plan->refusals, 0))->nodes : NULL,
                       G_MAXUINT, NULL };
    g_autoptr(GPtrArray) none = g_ptr_array_new ();
    if (fake.nodes == NULL)
      fake.nodes = none;
    g_assert_cmpstr (fw_reason_cann_code (&fake), ==, "NF1007");
    fake.code = FW_NF_MAX_SIZE;
    g_assert_cmpstr (fw_reason_cann_code (&fake), ==, "NF1010");
    fake.code = FW_NF_REDUCE_EPILOGUE;
    g_assert_cmpstr (fw_reason_cann_code (&fake), ==, "NF1030");
    fake.code = FW_NF_UB;
    g_assert_null (fw_reason_cann_code (&fake));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/plan/cann-flags/flags", test_flags);
  g_test_add_func ("/core/plan/cann-flags/skip-file", test_skip_file);
  g_test_add_func ("/core/plan/cann-flags/errors", test_errors);
  g_test_add_func ("/core/plan/cann-flags/debug", test_debug);
  g_test_add_func ("/core/plan/cann-flags/reason-codes", test_reason_codes);
  return g_test_run ();
}
