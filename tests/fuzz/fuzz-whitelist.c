/* libFuzzer target: the whitelist reader on arbitrary YAML (fuzz-decision-file.h says what is checked). The
 * whitelists `fusion-workbench --batch small-transformer.onnx --bind batch=2 --export-whitelist` writes make
 * seeds whose fingerprint matches and whose node-level entries apply. */
#include "config.h"

#include "fuzz-decision-file.h"
#include "plan/fw-decisions.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static gpointer
load (const char *display_name, const char *data, gsize len, GError **error)
{
  return fw_whitelist_load_data (display_name, data, len, error);
}

static char *
to_string (gconstpointer file)
{
  return fw_whitelist_to_string (file);
}

static void
apply (gconstpointer file, FwPlan *plan)
{
  fw_plan_apply_whitelist (plan, file);
}

static gpointer
from_plan (FwPlan *plan)
{
  return fw_whitelist_from_plan (plan, "model.onnx");
}

static void
free_file (gpointer file)
{
  fw_whitelist_free (file);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  static const FuzzDecisionFile whitelist = {
    "fuzz-whitelist", ".fusion.yaml", load, to_string, apply, from_plan, free_file,
  };

  return fuzz_decision_file_run (&whitelist, data, size);
}
