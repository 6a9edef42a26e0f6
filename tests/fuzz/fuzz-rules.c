/* libFuzzer target: the rule reader on arbitrary YAML. */
#include "config.h"

#include "rules/fw-rules.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  FwRuleSet *set = fw_rule_set_new ();
  g_autoptr(GError) error = NULL;

  fw_rule_set_load_data (set, "fuzz.yaml", (const char *) data, size, &error);
  fw_rule_set_free (set);
  return 0;
}
