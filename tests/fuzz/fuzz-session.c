/* libFuzzer target: the session reader on arbitrary bytes, and what loads replayed onto a fresh plan of a
 * small transformer layer (the model fw-make-test-model writes as small-transformer, batch bound to 2), so
 * seeds naming its nodes reach veto re-planning, undo and redo. What loads must write out and read back, and
 * the replayed plan's own session must too. The fingerprint is not checked here: replay must be safe on any
 * plan, whatever the file says it was for. */
#include "config.h"

#include <string.h>

#include "fw-test-models.h"
#include "plan/fw-decisions.h"
#include "plan/fw-plan.h"
#include "session/fw-session.h"

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
    g_error ("fuzz-session: %s", error->message);
  profile = fw_profile_load_builtin ("ascend-910b", &error);
  if (profile == NULL)
    g_error ("fuzz-session: %s", error->message);
  rules = fw_rule_set_new ();
  if (!fw_rule_set_load_builtin (rules, &error))
    g_error ("fuzz-session: %s", error->message);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwSession) session = NULL;
  g_autoptr(FwSession) again = NULL;
  g_autoptr(FwSession) replayed = NULL;
  g_autoptr(FwPlan) plan = NULL;
  g_autofree char *text = NULL;
  g_autofree char *replayed_text = NULL;

  if (model == NULL)
    setup ();
  session = fw_session_load_data ("fuzz.fwsession", (const char *) data, size, &error);
  if (session == NULL)
    return 0;
  text = fw_session_to_string (session);
  again = fw_session_load_data ("again.fwsession", text, strlen (text), &error);
  if (again == NULL)
    g_error ("fuzz-session: a loaded session does not read back: %s\n%s", error->message, text);

  plan = fw_plan_new (model, profile, rules, NULL, &error);
  if (plan == NULL)
    g_error ("fuzz-session: planning the fixed model failed: %s", error->message);
  fw_session_check_model (session, plan, NULL);
  fw_session_apply (session, plan);
  if (fw_plan_can_undo (plan))
    {
      fw_plan_undo (plan);
      fw_plan_redo (plan);
    }
  replayed = fw_session_from_plan (plan, "model.onnx", NULL);
  replayed_text = fw_session_to_string (replayed);
  g_clear_pointer (&again, fw_session_free);
  again = fw_session_load_data ("replayed.fwsession", replayed_text, strlen (replayed_text), &error);
  if (again == NULL)
    g_error ("fuzz-session: a replayed plan's session does not read back: %s\n%s", error->message, replayed_text);
  return 0;
}
