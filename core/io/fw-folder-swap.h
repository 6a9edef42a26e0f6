/* fw-folder-swap.h: replacing a whole folder atomically, for writers of several files that belong together
 * (the kernel package: its manifest names every other file with its hash).
 *
 * The writer fills a staging folder beside the destination and then swaps it in with one rename (Linux
 * renameat2 RENAME_EXCHANGE), so a crash at any moment leaves either the old folder or the new one, whole.
 * Staging folders a killed writer left behind (".NAME.tmp-XXXXXX") are removed by the next writer. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Creates an empty staging folder beside dir (its parent is created if missing) and returns its path. */
char     *fw_folder_stage        (const char  *dir,
                                  GError     **error);
/* Puts staging in dir's place: atomically when dir exists and the file system can exchange names; the old
 * contents are then removed. On failure staging is removed and dir is as it was. */
gboolean  fw_folder_commit       (const char  *staging,
                                  const char  *dir,
                                  GError     **error);
/* Removes path and everything below it, never following symbolic links; best effort. */
void      fw_folder_remove_tree  (const char  *path);

G_END_DECLS
