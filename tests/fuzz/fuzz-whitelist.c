/* libFuzzer target: the whitelist reader on arbitrary YAML, and what loads applied to a fresh plan of a small
 * transformer layer: the model fw-make-test-model writes as small-transformer, with batch bound to 2, so the
 * whitelists `fusion-workbench --batch small-transformer.onnx --bind batch=2 --export-whitelist` writes make
 * seeds whose fingerprint matches and whose node-level entries apply. Then the plan is exported
 * as a whitelist again and that must read back. */
#include "config.h"

#include <string.h>

#include "fw-test-models.h"
#include "plan/fw-decisions.h"
#include "plan/fw-plan.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static FwModel *model;
static FwProfile *profile;
static FwRuleSet *rules;

static void
setup (void)
{
  g_autoptr(GError) error = NULL;
  const char *binds[] = { "batch=2", NULL };

  model = fw_test_transformer_block (16, 64, 4, TRUE);
  if (!fw_test_infer (model, binds, NULL, &error))
    g_error ("fuzz-whitelist: %s", error->message);
  profile = fw_profile_load_builtin ("ascend-910b", &error);
  if (profile == NULL)
    g_error ("fuzz-whitelist: %s", error->message);
  rules = fw_rule_set_new ();
  if (!fw_rule_set_load_builtin (rules, &error))
    g_error ("fuzz-whitelist: %s", error->message);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwWhitelist) whitelist = NULL;
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwWhitelist) exported = NULL;
  g_autoptr(FwWhitelist) again = NULL;
  g_autofree char *text = NULL;
  g_autofree char *exported_text = NULL;

  if (model == NULL)
    setup ();
  whitelist = fw_whitelist_load_data ("fuzz.fusion.yaml", (const char *) data, size, &error);
  if (whitelist == NULL)
    return 0;
  /* What loads must write out and read back. */
  text = fw_whitelist_to_string (whitelist);
  again = fw_whitelist_load_data ("again.fusion.yaml", text, strlen (text), &error);
  if (again == NULL)
    g_error ("fuzz-whitelist: a loaded whitelist does not read back: %s\n%s", error->message, text);

  plan = fw_plan_new (model, profile, rules, NULL, &error);
  if (plan == NULL)
    g_error ("fuzz-whitelist: planning the fixed model failed: %s", error->message);
  fw_plan_apply_whitelist (plan, whitelist);
  if (fw_plan_can_undo (plan))
    {
      fw_plan_undo (plan);
      fw_plan_redo (plan);
    }
  exported = fw_whitelist_from_plan (plan, "model.onnx");
  exported_text = fw_whitelist_to_string (exported);
  g_clear_pointer (&again, fw_whitelist_free);
  again = fw_whitelist_load_data ("exported.fusion.yaml", exported_text, strlen (exported_text), &error);
  if (again == NULL)
    g_error ("fuzz-whitelist: an exported whitelist does not read back: %s\n%s", error->message, exported_text);
  return 0;
}
