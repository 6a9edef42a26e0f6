/* libFuzzer target: the hardware profile reader on arbitrary YAML. */
#include "config.h"

#include "hw/fw-profile.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  FwProfile *profile = fw_profile_load_data ("fuzz.yaml", (const char *) data, size, &error);

  if (profile != NULL)
    fw_profile_unref (profile);
  return 0;
}
