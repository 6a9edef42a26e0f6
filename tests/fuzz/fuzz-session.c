/* libFuzzer target: the session reader on arbitrary bytes (fuzz-decision-file.h says what is checked). The
 * fingerprint is not checked here: replay must be safe on any plan, whatever the file says it was for. */
#include "config.h"

#include "fuzz-decision-file.h"
#include "session/fw-session.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static gpointer
load (const char *display_name, const char *data, gsize len, GError **error)
{
  return fw_session_load_data (display_name, data, len, error);
}

static char *
to_string (gconstpointer file)
{
  return fw_session_to_string (file);
}

static void
apply (gconstpointer file, FwPlan *plan)
{
  fw_session_check_model (file, plan, NULL);
  fw_session_apply (file, plan);
}

static gpointer
from_plan (FwPlan *plan)
{
  return fw_session_from_plan (plan, "model.onnx", NULL);
}

static void
free_file (gpointer file)
{
  fw_session_free (file);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  static const FuzzDecisionFile session = {
    "fuzz-session", ".fwsession", load, to_string, apply, from_plan, free_file,
  };

  return fuzz_decision_file_run (&session, data, size);
}
