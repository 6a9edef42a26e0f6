/* fw-twin-command.h: fusion-workbench --twin PACKAGE_DIR [--kernel kNNN]... [--format json]. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Runs the package's Ascend kernels on the twin and prints a table (format NULL or "table") or JSON ("json")
 * on standard output. Returns the exit code: 0 every kernel passed with no diagnostic, 1 one did not, 2 bad
 * input (no such folder, a broken manifest, an unknown --kernel), 3 an internal error. */
int fw_twin_command_run (const char         *dir,
                         const char * const *kernels,
                         const char         *format,
                         const char         *kernel_cache,
                         guint64             seed);

G_END_DECLS
