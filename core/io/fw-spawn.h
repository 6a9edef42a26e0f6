/* fw-spawn.h: how the program runs a child (a compiler, a twin kernel) and collects what it printed.
 *
 * Children are started with posix_spawn, never fork: glibc's posix_spawn does not run pthread_atfork
 * handlers, and OpenBLAS's handler (it shuts its thread pool down before every fork) deadlocks when another
 * thread is inside a BLAS call at that moment. The twin's workers fork compilers while a neighbour reruns the
 * reference interpreter, so g_spawn_sync (which forks whenever a working folder is given) hung a whole
 * verification, idle, once in a few dozen runs. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  FW_SPAWN_DEFAULT        = 0,
  FW_SPAWN_STDERR_TO_NULL = 1 << 0,
} FwSpawnFlags;

/* Runs argv[0] (a path; no $PATH search) in cwd (NULL: ours) with standard input from /dev/null and every
 * other descriptor closed, waits for it and returns what it wrote to standard output and error (either may
 * be NULL to discard it) and its wait status, for g_spawn_check_wait_status. FALSE (G_SPAWN_ERROR) only when
 * it could not be started or read. */
gboolean fw_spawn_sync (const char         *cwd,
                        const char *const  *argv,
                        FwSpawnFlags        flags,
                        char              **standard_output,
                        char              **standard_error,
                        int                *wait_status,
                        GError            **error);

G_END_DECLS
