/* fw-test-twin.h: the Ascend C twin shared by a test binary's cases (test-ascend-twin, test-ascend-int8,
 * test-ascend-superkernel). */
#pragma once

#include "codegen/fw-ascend-twin.h"
#include "codegen/host/fw-superkernel.h"
#include "hw/fw-profile.h"

G_BEGIN_DECLS

typedef struct
{
  char            *dir;
  FwHostToolchain *toolchain;
  FwAscendTwin    *twin;
  FwProfile       *profile;
} FwTestTwin;

/* One toolchain and twin for the whole binary, in a temporary kernel cache, so the runtime compiles once;
 * made on the first call (with the 910B profile), NULL with a message where this machine cannot build it. */
FwAscendTwin *fw_test_twin_get   (FwTestTwin *shared);
/* Frees what fw_test_twin_get made and removes its cache. */
void          fw_test_twin_clear (FwTestTwin *shared);

G_END_DECLS
