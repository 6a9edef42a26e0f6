/* fw-file-write.h: how every file the program writes reaches the disk.
 *
 * A regular file (or a new one) is replaced atomically: a temporary file in the same folder, flushed and
 * renamed, so a crash leaves the old file or the new one. Anything else that already exists at the path (a
 * device such as /dev/null, a FIFO) is written in place: renaming over it would replace the device node. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* len -1: data is NUL-terminated. Errors (FW_ERROR_IO) name the path. */
gboolean fw_file_write (const char    *path,
                        gconstpointer  data,
                        gssize         len,
                        GError       **error);

G_END_DECLS
