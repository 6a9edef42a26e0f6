/* fw-test-twin.c: the Ascend C twin shared by a test binary's cases. */
#include "config.h"

#include "fw-error.h"
#include "fw-test-models.h"
#include "fw-test-twin.h"

FwAscendTwin *
fw_test_twin_get (FwTestTwin *shared)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *cache = NULL;

  if (shared->dir != NULL)
    return shared->twin;
  shared->dir = fw_test_temp_dir ();
  shared->profile = fw_test_profile_910b ();
  cache = g_build_filename (shared->dir, "kernels", NULL);
  shared->toolchain = fw_host_toolchain_new (cache, &error);
  if (shared->toolchain == NULL)
    {
      g_test_message ("no toolchain: %s", error->message);
      return NULL;
    }
  shared->twin = fw_ascend_twin_new (shared->toolchain, &error);
  if (shared->twin == NULL)
    g_test_message ("no twin: %s", error->message);
  g_assert_true (shared->twin != NULL || g_error_matches (error, FW_ERROR, FW_ERROR_UNSUPPORTED));
  return shared->twin;
}

void
fw_test_twin_clear (FwTestTwin *shared)
{
  fw_ascend_twin_free (shared->twin);
  fw_host_toolchain_free (shared->toolchain);
  g_clear_pointer (&shared->profile, fw_profile_unref);
  if (shared->dir != NULL)
    fw_test_remove_dir (shared->dir);
  g_clear_pointer (&shared->dir, g_free);
  shared->twin = NULL;
  shared->toolchain = NULL;
}
