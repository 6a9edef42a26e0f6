/* fw-package-twin-private.h: the SuperKernel scopes of a kernel package on the twin (fw-package-twin-sk.c),
 * for fw-package-twin.c. */
#pragma once

#include <json-glib/json-glib.h>

#include "fw-package-twin.h"

G_BEGIN_DECLS

/* dir/relative, read whole; relative must stay inside the package (FW_ERROR_INVALID naming manifest and where
 * otherwise). */
char     *fw_package_twin_read_file         (const char       *dir,
                                             const char       *relative,
                                             const char       *manifest,
                                             const char       *where,
                                             GError          **error);
/* Whether the manifest's root lists SuperKernel scopes. */
gboolean  fw_package_twin_has_superkernels  (JsonObject       *root);
/* Runs every scope of the manifest's "superkernels" (superkernels/sNNN/ascend/, as on disk now) on twin,
 * appending one FwPackageTwinKernel ("s000") each to kernels. The package holds no model of a whole scope:
 * its inputs and the stand-ins' results are seeded, and the check is the run's (no diagnostic: no race, no
 * hang, every output written); the values are not compared (max_abs and cosine NAN). FALSE with
 * FW_ERROR_INVALID when the manifest's entry is unreadable. */
gboolean  fw_package_twin_run_superkernels  (const char       *dir,
                                             const char       *manifest,
                                             JsonObject       *root,
                                             FwAscendTwin     *twin,
                                             const FwProfile  *profile,
                                             guint64           seed,
                                             GPtrArray        *kernels,
                                             GError          **error);

G_END_DECLS
