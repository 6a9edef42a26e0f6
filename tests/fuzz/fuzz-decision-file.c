#include "config.h"

#include <string.h>

#include "fuzz-decision-file.h"
#include "fw-test-models.h"
#include "plan/fw-decisions.h"

static FwModel *model;
static FwProfile *profile;
static FwRuleSet *rules;

static void
setup (const char *target)
{
  g_autoptr(GError) error = NULL;
  const char *binds[] = { "batch=2", NULL };

  model = fw_test_transformer_block (16, 64, 4, TRUE);
  if (!fw_test_infer (model, binds, NULL, &error))
    g_error ("%s: %s", target, error->message);
  profile = fw_profile_load_builtin ("ascend-910b", &error);
  if (profile == NULL)
    g_error ("%s: %s", target, error->message);
  rules = fw_rule_set_new ();
  if (!fw_rule_set_load_builtin (rules, &error))
    g_error ("%s: %s", target, error->message);
}

/* Loads text under NAME + suffix; a file that does not load is a finding, what names the text in it. */
static void
check_reads_back (const FuzzDecisionFile *kind, const char *name, const char *text, const char *what)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *display_name = g_strconcat (name, kind->suffix, NULL);
  gpointer file = kind->load (display_name, text, strlen (text), &error);

  if (file == NULL)
    g_error ("%s: %s does not read back: %s\n%s", kind->target, what, error->message, text);
  kind->free (file);
}

int
fuzz_decision_file_run (const FuzzDecisionFile *kind, const guint8 *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *display_name = g_strconcat ("fuzz", kind->suffix, NULL);
  g_autoptr(FwPlan) plan = NULL;
  g_autofree char *text = NULL;
  g_autofree char *exported_text = NULL;
  gpointer file, exported;

  if (model == NULL)
    setup (kind->target);
  file = kind->load (display_name, (const char *) data, size, &error);
  if (file == NULL)
    return 0;
  text = kind->to_string (file);
  check_reads_back (kind, "again", text, "a loaded file");

  plan = fw_plan_new (model, profile, rules, NULL, &error);
  if (plan == NULL)
    g_error ("%s: planning the fixed model failed: %s", kind->target, error->message);
  kind->apply (file, plan);
  if (fw_plan_can_undo (plan))
    {
      fw_plan_undo (plan);
      fw_plan_redo (plan);
    }
  exported = kind->from_plan (plan);
  exported_text = kind->to_string (exported);
  kind->free (exported);
  check_reads_back (kind, "exported", exported_text, "the plan's own file");
  kind->free (file);
  return 0;
}
